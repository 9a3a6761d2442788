//! Which loops the vectorizer takes, and the [`Plan`] of one: its
//! induction variables and reductions, the [`Shape`] of each value of the
//! body (uniform, affine or varying across lanes), its accesses' run-time
//! tests and its number of lanes.

use super::MAX_BODY_INSTS;
use super::dependence::{self, Access, Check, linear, rebuildable};
use super::reduction::{Reduction, reduction};
use crate::PassOptions;
use crate::analysis::tripcount::{CountedLoop, counted_loop, step_of};
use parc_ir::analysis::{FunctionAnalyses, Loop};
use parc_ir::{
    BinaryOp, Block, CastOp, Function, Inst, InstKind, IntCC, Type, UnaryOp, Value, ValueDef,
};
use std::collections::HashMap;

/// The largest per-iteration step of a sign-extended 32-bit index that
/// gets a no-wrap test (so that the test's 64-bit arithmetic is exact).
const MAX_WRAP_STRIDE: i64 = 1 << 16;

/// How a value of the loop varies from iteration to iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// The same in every iteration's lanes.
    Uniform,
    /// Lane `l` is lane 0's value plus `l * stride` (in the value's units;
    /// bytes for pointers).
    Affine(i64),
    /// A vector of `W` independent lanes.
    Varying,
}

pub(super) struct Plan {
    pub(super) header: Block,
    pub(super) body: Block,
    pub(super) preheader: Block,
    /// The header's parameters and each one's step (0 for reductions).
    pub(super) ivs: Vec<(Value, i64)>,
    /// The reductions among them: the parameter, its operator and the
    /// value the back edge passes.
    pub(super) reductions: HashMap<Value, (Reduction, Value)>,
    /// The header's instructions besides the test and the branch (pure).
    pub(super) header_extras: Vec<Inst>,
    pub(super) inits: Vec<Value>,
    pub(super) cmp: Inst,
    pub(super) lanes: u32,
    /// A vector type of `lanes` lanes the loop uses (for remarks).
    pub(super) vector: Type,
    pub(super) shapes: HashMap<Value, Shape>,
    pub(super) checks: Vec<Check>,
    /// Sign-extended 32-bit indices and their steps per iteration
    /// (negative where the loop counts down), each tested before the loop
    /// not to wrap in the vector loop's iterations.
    pub(super) wraps: Vec<(Value, i64)>,
    /// The byte stride of the accesses (their size), for the tests.
    pub(super) stride: i64,
    pub(super) counted: CountedLoop,
    /// The loop counts down (a reverse loop of the AD): lane 0 is the last
    /// of the `W` iterations a vector iteration runs, so that ascending
    /// lanes are ascending addresses (see the module doc, "Loops that
    /// count down").
    pub(super) descending: bool,
    /// Header parameters the back edge passes unchanged (values from
    /// before the loop, uniform).
    pub(super) invariant: Vec<Value>,
}

pub(super) fn plan(
    func: &Function,
    an: &FunctionAnalyses,
    lp: Loop,
    options: &PassOptions,
) -> Result<Plan, &'static str> {
    let ld = an.loops.data(lp);
    let header = ld.header;
    if ld.blocks.len() != 2 || ld.latches.len() != 1 {
        return Err("control-flow");
    }
    let body = ld.latches[0];
    let preheader = ld.preheader.ok_or("no-preheader")?;
    let pre_term = func.terminator(preheader).ok_or("no-preheader")?;
    let InstKind::Jump(entry) = func.inst(pre_term) else {
        return Err("no-preheader");
    };
    let cl = counted_loop(func, an, lp).ok_or("not-counted")?;
    // Up with `<`/`<=`, or down with `>`/`>=`/`!=` (the AD's reverse
    // loops run `k = n, ..., 1` on `k != 0`).
    let descending = cl.step < 0;
    let direction_ok = if descending {
        matches!(
            cl.cc,
            IntCC::Sgt | IntCC::Sge | IntCC::Ugt | IntCC::Uge | IntCC::Ne
        )
    } else {
        matches!(cl.cc, IntCC::Slt | IntCC::Sle | IntCC::Ult | IntCC::Ule)
    };
    if !cl.exact || cl.may_wrap(func) || !direction_ok {
        return Err("not-counted");
    }
    // Strides are per lane: an iteration's step, negated when lanes run
    // against the iterations' order.
    let lane = if descending { -1 } else { 1 };
    // The header: the test, the branch, and pure arithmetic the body
    // uses (such as the 32-bit copy of a widened counter).
    let hinsts = func.block_insts(header);
    let br = hinsts.last().ok_or("control-flow")?;
    let InstKind::Brif {
        cond,
        then_dest,
        else_dest,
    } = func.inst(*br)
    else {
        return Err("control-flow");
    };
    let cmp = &match func.value_def(*cond) {
        ValueDef::Result(i) if hinsts.contains(&i) => i,
        _ => return Err("header-computes"),
    };
    let header_extras: Vec<Inst> = hinsts
        .iter()
        .copied()
        .filter(|i| i != cmp && i != br)
        .collect();
    for &i in &header_extras {
        let k = func.inst(i);
        if k.has_side_effects() || k.may_read_memory() || matches!(k, InstKind::Alloca { .. }) {
            return Err("header-computes");
        }
    }
    if func.result(*cmp) != Some(*cond) || !matches!(func.inst(*cmp), InstKind::Icmp(..)) {
        return Err("header-computes");
    }
    let into_body = if then_dest.block == body {
        then_dest
    } else {
        else_dest
    };
    if into_body.block != body || !into_body.args.is_empty() || !func.block_params(body).is_empty()
    {
        return Err("control-flow");
    }
    let Some(latch) = func.terminator(body) else {
        return Err("control-flow");
    };
    let InstKind::Jump(back) = func.inst(latch) else {
        return Err("control-flow");
    };
    // Induction variables.
    let params = func.block_params(header).to_vec();
    let in_loop = |v: Value| match func.value_def(v) {
        ValueDef::Param(b, _) => ld.contains(b),
        ValueDef::Result(i) => {
            func.block_insts(body).contains(&i) || func.block_insts(header).contains(&i)
        }
    };
    let mut ivs = Vec::new();
    let mut reductions = HashMap::new();
    let mut invariant = Vec::new();
    for (k, &p) in params.iter().enumerate() {
        if back.args[k] == p {
            invariant.push(p);
            ivs.push((p, 0));
            continue;
        }
        match step_of(func, back.args[k], p) {
            Some(step) => ivs.push((p, step)),
            None => {
                let op = reduction(func, body, latch, (p, back.args[k]), options)?;
                reductions.insert(p, (op, back.args[k]));
                ivs.push((p, 0));
            }
        }
    }
    // The test's value is used by the branch alone.
    for (_, i) in func.placed_insts() {
        if i != *br && func.inst(i).operands().contains(cond) {
            return Err("header-computes");
        }
    }

    // Shapes, in body order.
    let binsts: Vec<Inst> = header_extras
        .iter()
        .chain(func.block_insts(body))
        .copied()
        .collect();
    if binsts.len() > MAX_BODY_INSTS {
        return Err("too-large");
    }
    let mut shapes: HashMap<Value, Shape> = HashMap::new();
    for &(p, step) in &ivs {
        let shape = if reductions.contains_key(&p) {
            Shape::Varying
        } else if invariant.contains(&p) {
            Shape::Uniform
        } else {
            Shape::Affine(step.wrapping_mul(lane))
        };
        shapes.insert(p, shape);
    }
    let shape_of = |shapes: &HashMap<Value, Shape>, v: Value| -> Shape {
        if in_loop(v) && !invariant.contains(&v) {
            shapes.get(&v).copied().unwrap_or(Shape::Varying)
        } else {
            Shape::Uniform
        }
    };
    // The number of lanes, and the first vector type that has it.
    let mut lanes: Option<(u32, Type)> = None;
    let mut want_lanes = |ty: Type| -> Result<(), &'static str> {
        let v = Type::vector_of(ty).ok_or("element-type")?;
        match lanes {
            Some((l, _)) if l != v.lanes() => Err("mixed-widths"),
            Some(_) => Ok(()),
            None => {
                lanes = Some((v.lanes(), v));
                Ok(())
            }
        }
    };
    for &p in reductions.keys() {
        want_lanes(func.value_type(p))?;
    }
    let mut accesses: Vec<Access> = Vec::new();
    let mut wraps: Vec<(Value, i64)> = Vec::new();
    let mut varying_memory = false;
    for (order, &i) in binsts.iter().enumerate() {
        if i == latch {
            break;
        }
        let kind = func.inst(i);
        let result = func.result(i);
        let rty = result.map(|r| func.value_type(r));
        let sh = |v: Value| shape_of(&shapes, v);
        let shape = match kind {
            InstKind::Load(p) => {
                let ty = rty.ok_or("malformed")?;
                match sh(*p) {
                    Shape::Affine(s) if s == i64::from(ty.bytes()) => {
                        want_lanes(ty)?;
                        varying_memory = true;
                        accesses.push(Access {
                            inst: i,
                            order,
                            store: false,
                            moves: true,
                            addr: *p,
                            size: s,
                            form: linear(func, &in_loop, *p),
                        });
                        Shape::Varying
                    }
                    // The same element in every iteration (`a[i][k]` in
                    // `c[i][j] += a[i][k] * b[k][j]` over `j`): a scalar,
                    // loaded once before the vector loop, which the
                    // overlap tests keep apart from the loop's stores.
                    Shape::Uniform => {
                        accesses.push(Access {
                            inst: i,
                            order,
                            store: false,
                            moves: false,
                            addr: *p,
                            size: i64::from(ty.bytes()),
                            form: linear(func, &in_loop, *p),
                        });
                        Shape::Uniform
                    }
                    _ => return Err("stride"),
                }
            }
            InstKind::Store { value, ptr } => {
                let ty = func.value_type(*value);
                match (sh(*value), sh(*ptr)) {
                    (Shape::Affine(_), _) => return Err("stores-index"),
                    (_, Shape::Affine(s)) if s == i64::from(ty.bytes()) => {
                        want_lanes(ty)?;
                        varying_memory = true;
                        accesses.push(Access {
                            inst: i,
                            order,
                            store: true,
                            moves: true,
                            addr: *ptr,
                            size: s,
                            form: linear(func, &in_loop, *ptr),
                        });
                    }
                    (_, Shape::Uniform) => return Err("invariant-store"),
                    _ => return Err("stride"),
                }
                continue;
            }
            InstKind::Binary(op, a, b) => match (sh(*a), sh(*b)) {
                (Shape::Uniform, Shape::Uniform) if !kind.has_side_effects() => Shape::Uniform,
                (Shape::Varying, Shape::Varying | Shape::Uniform)
                | (Shape::Uniform, Shape::Varying)
                    if op.is_lanewise() =>
                {
                    want_lanes(rty.ok_or("malformed")?)?;
                    Shape::Varying
                }
                (Shape::Varying, _) | (_, Shape::Varying) => return Err("operation"),
                (x, y) => affine_binary(func, *op, *a, *b, x, y).ok_or("index-arithmetic")?,
            },
            InstKind::PtrAdd(a, b) => match (sh(*a), sh(*b)) {
                (Shape::Uniform, Shape::Uniform) => Shape::Uniform,
                (Shape::Varying, _) | (_, Shape::Varying) => return Err("gather"),
                (x, y) => Shape::Affine(stride(x).wrapping_add(stride(y))),
            },
            InstKind::Unary(UnaryOp::Fneg, a) => match sh(*a) {
                Shape::Uniform => Shape::Uniform,
                Shape::Varying => {
                    want_lanes(rty.ok_or("malformed")?)?;
                    Shape::Varying
                }
                Shape::Affine(_) => return Err("operation"),
            },
            InstKind::Cast(op @ (CastOp::Sext | CastOp::Zext), a) if sh(*a) != Shape::Uniform => {
                // Lanes of a counter are the iterations' values, which the
                // test keeps in range: extending them keeps the stride.
                // (A `!=` test does not say which end of the type the
                // counter stays away from.)
                let signed = cl.signed();
                let is_counter = *a == cl.iv && cl.cc != IntCC::Ne;
                match (is_counter, sh(*a)) {
                    (true, s) if signed == (*op == CastOp::Sext) => s,
                    // A 32-bit index such as `i * n + j`: its lanes are
                    // consecutive after sign extension unless it wraps in
                    // the iterations the vector loop runs, which a test
                    // before the loop rules out.
                    (false, Shape::Affine(s))
                        if *op == CastOp::Sext
                            && func.value_type(*a) == Type::I32
                            && (1..=MAX_WRAP_STRIDE).contains(&s)
                            && rebuildable(func, &in_loop, *a) =>
                    {
                        if !wraps.iter().any(|&(v, _)| v == *a) {
                            wraps.push((*a, s * lane));
                        }
                        Shape::Affine(s)
                    }
                    // Lane-wise conversions are not made (an `int` loaded
                    // as an index: a gather).
                    (_, Shape::Varying) => return Err("operation"),
                    _ => return Err("index-cast"),
                }
            }
            // An address as a 64-bit integer and back: the same bytes
            // (the AD's private copies of a shadow are addressed as
            // `slab + (ptrtoint(p) - base)`).
            InstKind::Cast(CastOp::PtrToInt | CastOp::IntToPtr, a)
                if matches!(sh(*a), Shape::Affine(_))
                    && matches!(rty, Some(Type::I64 | Type::Ptr)) =>
            {
                sh(*a)
            }
            // Truncation keeps the stride modulo 2^32; only a sign
            // extension with its no-wrap test uses such a value.
            InstKind::Cast(CastOp::Trunc, a)
                if matches!(sh(*a), Shape::Affine(_)) && rty == Some(Type::I32) =>
            {
                sh(*a)
            }
            // Lane-wise compares give a mask, which selects lane by lane.
            InstKind::Icmp(_, a, b) | InstKind::Fcmp(_, a, b) => match (sh(*a), sh(*b)) {
                (Shape::Uniform, Shape::Uniform) => Shape::Uniform,
                (Shape::Varying, Shape::Varying | Shape::Uniform)
                | (Shape::Uniform, Shape::Varying) => {
                    want_lanes(func.value_type(*a))?;
                    Shape::Varying
                }
                // A compare of a counter would need vectors of indices.
                _ => return Err("operation"),
            },
            InstKind::Select(c, a, b) => match (sh(*c), sh(*a), sh(*b)) {
                (Shape::Uniform, Shape::Uniform, Shape::Uniform) => Shape::Uniform,
                (
                    Shape::Varying,
                    Shape::Varying | Shape::Uniform,
                    Shape::Varying | Shape::Uniform,
                ) => {
                    want_lanes(rty.ok_or("malformed")?)?;
                    Shape::Varying
                }
                _ => return Err("operation"),
            },
            InstKind::Iconst(_) | InstKind::Fconst(_) => Shape::Uniform,
            // C's `fmin`/`fmax` of lanes: each lane as the scalar call.
            InstKind::Intrinsic { op, args }
                if op.is_lanewise() && args.iter().any(|&a| sh(a) != Shape::Uniform) =>
            {
                if args.iter().any(|&a| matches!(sh(a), Shape::Affine(_))) {
                    return Err("operation");
                }
                want_lanes(rty.ok_or("malformed")?)?;
                Shape::Varying
            }
            k if !k.has_side_effects()
                && !k.may_read_memory()
                && !matches!(k, InstKind::Alloca { .. })
                && k.operands().iter().all(|&v| sh(v) == Shape::Uniform) =>
            {
                Shape::Uniform
            }
            InstKind::Call { .. } | InstKind::Intrinsic { .. } => return Err("call"),
            _ => return Err("operation"),
        };
        if let Some(r) = result {
            shapes.insert(r, shape);
        }
    }
    // A varying value must not be needed as a scalar: by the back edge
    // (induction variables only, checked above) or outside the loop.
    for (b, i) in func.placed_insts() {
        if b == body || (b == header && i != *br) {
            continue;
        }
        if func
            .inst(i)
            .operands()
            .iter()
            .any(|&v| in_loop(v) && !params.contains(&v) && v != *cond)
        {
            return Err("used-after");
        }
    }
    if !varying_memory {
        return Err("no-memory");
    }
    let (lanes, vector) = lanes.ok_or("no-memory")?;
    if let Some(n) = cl.constant(func)
        && n < u64::from(lanes)
    {
        return Err("short-trip-count");
    }

    let (stride, checks) =
        dependence::overlap_checks(func, &in_loop, &accesses, lanes, descending)?;
    Ok(Plan {
        header,
        body,
        preheader,
        ivs,
        reductions,
        header_extras,
        inits: entry.args.clone(),
        cmp: *cmp,
        lanes,
        vector,
        shapes,
        checks,
        wraps,
        stride,
        counted: cl,
        descending,
        invariant,
    })
}

impl Plan {
    /// The position in `ivs` of the loop's own counter when the vector
    /// loop can test it instead of a counter of its own: a 64-bit one
    /// (whose value after the vector loop, its initial value plus `nv`
    /// steps, cannot wrap: the scalar loop's last step, further on, does
    /// not).
    pub(super) fn own_counter(&self, func: &Function) -> Option<usize> {
        // Counting down, the header's counters run `W - 1` steps ahead
        // of the scalar loop's (see `rewrite`): a counter of its own then.
        if self.descending {
            return None;
        }
        self.ivs.iter().position(|&(v, step)| {
            v == self.counted.iv
                && step == self.counted.step
                && func.value_type(v) == Type::I64
                && !self.reductions.contains_key(&v)
        })
    }
}

pub(super) fn stride(s: Shape) -> i64 {
    match s {
        Shape::Affine(k) => k,
        _ => 0,
    }
}

/// The shape of an integer operation on affine and uniform operands, if
/// it stays affine.
fn affine_binary(
    func: &Function,
    op: BinaryOp,
    a: Value,
    b: Value,
    sa: Shape,
    sb: Shape,
) -> Option<Shape> {
    let (x, y) = (stride(sa), stride(sb));
    let k = |v: Value, s: Shape| (s == Shape::Uniform).then(|| func.const_int(v)).flatten();
    Some(Shape::Affine(match op {
        BinaryOp::Iadd => x.wrapping_add(y),
        BinaryOp::Isub => x.wrapping_sub(y),
        BinaryOp::Imul => match (k(a, sa), k(b, sb)) {
            (_, Some(c)) => x.wrapping_mul(c),
            (Some(c), _) => y.wrapping_mul(c),
            _ => return None,
        },
        BinaryOp::Shl if sb == Shape::Uniform => {
            let c = func.const_int(b)?;
            if !(0..63).contains(&c) {
                return None;
            }
            x.wrapping_shl(c as u32)
        }
        _ => return None,
    }))
}
