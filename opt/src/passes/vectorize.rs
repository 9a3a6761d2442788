//! `vectorize`: the loop vectorizer. An innermost counted loop whose
//! iterations read and write consecutive elements becomes a loop that runs
//! `W` iterations at once in 128-bit vectors (`W` = 2 for `f64`/`i64`, 4
//! for `f32`/`i32`), followed by the original loop for the remaining
//! iterations.
//!
//! # Not part of `pipeline()`
//! It runs in [`codegen_prepare`](crate::codegen_prepare), after the last
//! optimization and so after the AD (whose reverse loops it vectorizes as
//! any loop; the AD never sees a vector), after `loop-unswitch` and before
//! `loop-rotate`, which then rotates the vector loop and the remainder
//! loop alike.
//!
//! # What is vectorized
//! An innermost natural loop of a host function such that
//! - it is two blocks: a header `H` that ends in the counted loop's test
//!   ([`counted_loop`], exact, with a `<`/`<=` test that cannot wrap and
//!   a positive step), whose other instructions are pure arithmetic
//!   (treated as the body's first), and a body `B` that ends in the one
//!   back edge `jump H(..)`; the header has a preheader that ends in
//!   `jump H(..)`;
//! - every parameter of `H` is an induction variable (the back edge
//!   passes `p + c` for a constant `c`) or an integer *reduction*: the
//!   back edge passes `r = p OP x` (`OP` one of `iadd imul and or xor`,
//!   either operand order, or `isub` with `p` on the left), `r` is the
//!   back edge's alone and `p`'s one use in the loop is `r` (the header's
//!   exit edge may pass `p` out). Integer `OP`s are associative and
//!   commutative (wrapping), so `W` partial results, one per lane,
//!   combined after the vector loop give the scalar loop's value exactly
//!   (a difference's lanes hold what they subtracted, negated, and are
//!   added). Float sums and products (`fadd fmul`, `fsub` as `isub`) are
//!   kept in order (their rounding depends on it), so such loops are left
//!   scalar (`float-reduction`) unless reassociation is allowed
//!   ([`PassOptions::reassociate_floats`]: `-ffast-math`,
//!   `-fassociative-math`); then they are summed in lanes as integers are,
//!   each lane starting from `-0.0` (sums) or `1.0` (products);
//! - every instruction of `B` is one of
//!   - *uniform*: pure, all its operands defined outside the loop or
//!     uniform (kept as it is: its value is the same for every lane);
//!   - *affine*: integer or pointer arithmetic (`iadd isub`, `imul`/`shl`
//!     by a constant, `ptradd`, and `sext`/`zext` of an induction variable
//!     whose test has the same signedness) on induction variables and
//!     uniform values, whose value grows by a constant *stride* per
//!     iteration (kept: it computes lane 0's value); also `sext` of a
//!     32-bit affine index (C's `a[i * n + j]` with `int`s) when the
//!     counter is 32 bits, with a test before the loop that the index
//!     does not wrap in the iterations the vector loop runs (and `trunc`
//!     to 32 bits of an affine value, which only such an extension may
//!     use);
//!   - *varying*: a `load` of `f64 f32 i64 i32` from an affine address
//!     whose stride is the loaded size (consecutive elements), or a
//!     lane-wise operator ([`BinaryOp::is_lanewise`], `fneg`) on varying
//!     and uniform operands (uniform ones are splatted);
//!   - a `store` of a varying or uniform value of one of those types to an
//!     affine address whose stride is its size;
//! - all varying values have one number of lanes `W`, and a constant trip
//!   count, if known, is at least `W`;
//! - its memory accesses allow it (below).
//!
//! # Dependences
//! Addresses are linear forms over atoms (values the form does not look
//! into: parameters, uniform values, casts); accesses whose forms have the
//! same atoms with the same coefficients form a *group*, and within a
//! group two addresses differ by a known constant `d`. Within a group, a
//! store and another access are fine together if `d = 0` (the same element
//! in the same iteration, whose order the vector body keeps), `|d| >= W *
//! size` (the other access touches the element in another vector
//! iteration, in the same order as the scalar loop), or the other access
//! is a load that reads ahead (`d > 0`) and comes first in the body (it
//! reads what later iterations overwrite, before they do). Anything else
//! is refused: a dependence the vector body would break.
//!
//! Between groups nothing is known, so for each group with a store and
//! each other group, a test before the loop checks at run time that the
//! bytes they touch in the iterations the vector loop runs do not
//! overlap; if any may, the original loop runs all iterations (the scalar
//! fallback). A loop with no store needs no test. The no-wrap tests of
//! 32-bit indices join them.
//!
//! # The rewrite
//! ```text
//! P:  n = trip count; nv = n & -W;  brif nv != 0, C, R(inits)
//! C:  overlap tests;                brif ok, V, R(inits)   (no C without tests)
//! V:  splats of outer values;       jump VH(inits, 0)
//! VH(ivs, k):                       brif k <u nv, VB, X
//! VB: the body on vectors; ivs + W*c, k + W; jump VH(..)
//! X:  reductions' lanes combined;   jump R(ivs)
//! R(ivs):                           jump H(ivs)            (the original loop)
//! ```
//! A reduction's vector starts as the splat of `OP`'s identity; `X`
//! combines its lanes (`reduce_OP`) and the initial value.
//! Each lane computes exactly the scalar iteration's value with the same
//! operations, so the results are bit-identical to the scalar loop's
//! (floats included), except for float reductions under
//! `reassociate_floats`. The remainder is the original
//! loop, entered from `R` (its new preheader) with the induction
//! variables where the vector loop left them.
//!
//! Statistics: `vectorize.loops` (vectorized), `vectorize.checked`
//! (vectorized with run-time overlap tests), and
//! `vectorize.missed.REASON` for each loop of a host function that was
//! not, by the first reason found (`outer-loop` and `parallel-loop` for
//! loops that are not candidates). Each loop also gets one
//! [`Remark`] (its exit test's position; vectorized with its width, or
//! the reason and [`explain`]'s words for it), which `--explain-vec`,
//! `-Rpass=loop-vectorize` and `-fopt-info-vec` print. `-fno-vectorize`
//! ([`PassOptions::vectorize`](crate::PassOptions)) turns the pass off.

use crate::analysis::tripcount::{counted_loop, step_of};
use crate::remarks::{Outcome, Remark};
use crate::{PassContext, PassOptions};
use parc_ir::analysis::{FunctionAnalyses, Loop};
use parc_ir::{
    BinaryOp, Block, BlockCall, CastOp, FuncId, FuncKind, Function, Inst, InstKind, IntCC, Module,
    SrcLoc, Type, UnaryOp, Value, ValueDef,
};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The most instructions a loop body may have (the pass copies it).
pub const MAX_BODY_INSTS: usize = 80;

/// The largest per-iteration step of a sign-extended 32-bit index that
/// gets a no-wrap test (so that the test's 64-bit arithmetic is exact).
const MAX_WRAP_STRIDE: i64 = 1 << 16;

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    if !ctx.options.vectorize {
        return false;
    }
    let names: HashMap<FuncId, String> = module
        .funcs
        .iter()
        .map(|(id, f)| (id, f.name.clone()))
        .collect();
    let mut report = Report::default();
    let mut changed = false;
    for func in module.funcs.values_mut() {
        if func.is_declaration() || func.kind != FuncKind::Host {
            continue;
        }
        let before = report.loops.len();
        changed |= run_function(func, &ctx.options, &mut report) > 0;
        for l in &mut report.loops[before..] {
            let source = l.loc.func.and_then(|f| names.get(&f));
            l.function = source.unwrap_or(&func.name).clone();
            l.holder = func.name.clone();
        }
    }
    ctx.count("vectorize.loops", report.vectorized);
    ctx.count("vectorize.checked", report.checked);
    for (reason, n) in &report.missed {
        ctx.count(&format!("vectorize.missed.{reason}"), *n);
    }
    ctx.remarks.extend(report.loops);
    changed
}

/// What the pass did to a function's loops.
#[derive(Debug, Default)]
pub struct Report {
    pub vectorized: u64,
    /// Of those, how many got run-time overlap tests.
    pub checked: u64,
    /// Loops left alone, by reason.
    pub missed: BTreeMap<&'static str, u64>,
    /// One remark per loop (`function` and `holder` left empty, for the
    /// caller, who knows the module, to fill).
    pub loops: Vec<Remark>,
}

impl Report {
    fn missed(&mut self, loc: SrcLoc, reason: &'static str) {
        *self.missed.entry(reason).or_default() += 1;
        self.loops.push(Remark {
            loc,
            function: String::new(),
            holder: String::new(),
            outcome: Outcome::Missed {
                reason,
                why: explain(reason),
            },
        });
    }
}

/// Vectorizes the loops of `func` it can; returns how many.
pub fn run_function(func: &mut Function, options: &PassOptions, report: &mut Report) -> u64 {
    let mut done: HashSet<Block> = HashSet::new();
    let mut count = 0;
    let limit = FunctionAnalyses::compute(func).loops.len();
    for _ in 0..limit {
        let an = FunctionAnalyses::compute(func);
        let mut found = None;
        for lp in an.loops.loops() {
            let header = an.loops.data(lp).header;
            if done.contains(&header) {
                continue;
            }
            done.insert(header);
            let loc = loop_loc(func, &an, lp);
            if is_parallel(func, &an, lp) {
                report.missed(loc, "parallel-loop");
                continue;
            }
            if !an.loops.is_innermost(lp) {
                report.missed(loc, "outer-loop");
                continue;
            }
            match plan(func, &an, lp, options) {
                Ok(p) => {
                    found = Some((p, loc));
                    break;
                }
                Err(reason) => report.missed(loc, reason),
            }
        }
        let Some((p, loc)) = found else { break };
        let vheader = rewrite(func, &p);
        done.insert(vheader);
        let checked = !p.checks.is_empty() || !p.wraps.is_empty();
        report.vectorized += 1;
        report.checked += u64::from(checked);
        report.loops.push(Remark {
            loc,
            function: String::new(),
            holder: String::new(),
            outcome: Outcome::Vectorized {
                vector: p.vector,
                lanes: p.lanes,
                checked,
                reassociated: p.reductions.values().any(|(op, _)| op.is_float()),
            },
        });
        count += 1;
    }
    count
}

/// Whether the loop is a `parallel_for`'s: it spawns its iterations
/// (loops inside a task's body are serial loops of their own).
fn is_parallel(func: &Function, an: &FunctionAnalyses, lp: Loop) -> bool {
    an.loops.data(lp).blocks.iter().any(|&b| {
        func.terminator(b)
            .is_some_and(|t| matches!(func.inst(t), InstKind::Detach { .. }))
    })
}

/// Where a loop is in the source: its exit test's position, else the
/// first known position in its header, else in its other blocks.
fn loop_loc(func: &Function, an: &FunctionAnalyses, lp: Loop) -> SrcLoc {
    let ld = an.loops.data(lp);
    let header = ld.header;
    let test = func.terminator(header).and_then(|br| match func.inst(br) {
        InstKind::Brif { cond, .. } => match func.value_def(*cond) {
            ValueDef::Result(i) => Some(i),
            ValueDef::Param(..) => None,
        },
        _ => None,
    });
    let blocks = std::iter::once(header).chain(ld.blocks.iter().copied().filter(|&b| b != header));
    test.into_iter()
        .chain(blocks.flat_map(|b| func.block_insts(b).iter().copied()))
        .map(|i| func.locs[i])
        .find(|l| l.is_known())
        .unwrap_or_default()
}

/// What a `vectorize.missed.REASON` means, in words for the user.
pub fn explain(reason: &str) -> &'static str {
    match reason {
        "outer-loop" => "not an innermost loop (loops inside it are considered instead)",
        "parallel-loop" => {
            "the loop of a `parallel_for`, whose iterations run as tasks (serial loops \
             inside its body are considered on their own)"
        }
        "control-flow" => {
            "its body branches (an `if`, `break`, `continue` or `&&`/`||` inside it); \
             only loops whose body is one straight block are vectorized"
        }
        "no-preheader" => "the loop is entered from more than one place",
        "not-counted" => {
            "its trip count is not known when it starts (the test must be `i < n` or \
             `i <= n` on a counter with a constant positive step that cannot wrap)"
        }
        "header-computes" => "its exit test's block computes values used elsewhere",
        "too-large" => "its body has more instructions than the vectorizer copies (80)",
        "element-type" => {
            "it computes on a type with no 128-bit vector form here (only double, float, \
             64-bit and 32-bit integer lanes are)"
        }
        "mixed-widths" => {
            "it mixes element sizes (say float and double, or int and long), and a \
             vectorized loop has one number of lanes"
        }
        "invariant-load" => {
            "it loads from the same address in every iteration, which a store in the loop \
             may change (as `c[i][j] += a[i][k] * b[k][j]` over `k`: sum into a local \
             variable and store it after the loop)"
        }
        "invariant-store" => {
            "it stores to the same address in every iteration (sum into a local variable \
             and store it after the loop)"
        }
        "stride" => {
            "an access is not to consecutive elements (as `a[2*i]` or `a[i*n]`): \
             strided accesses are not vectorized"
        }
        "stores-index" => {
            "it stores a value computed from the counter (as `a[i] = i`): vectors of \
             indices are not made"
        }
        "operation" => {
            "an operation has no lane-wise vector form here (integer division, shifts, \
             comparisons, conversions, selects)"
        }
        "index-arithmetic" => {
            "it computes with the counter other than by adding it or multiplying it by \
             a constant (as `i % 3`, `i / 2` or `i * n`)"
        }
        "gather" => {
            "an address depends on a loaded value (as `a[idx[i]]`): gathers are not \
             vectorized"
        }
        "index-cast" => {
            "an index is converted in a way that may wrap (a narrower counter or an \
             unsigned/signed mix)"
        }
        "call" => "it calls a function or a math routine",
        "used-after" => {
            "a value computed in the loop (other than a counter or a reduction) is used \
             after it"
        }
        "no-memory" => "it reads and writes no array element",
        "short-trip-count" => "its trip count is below the vector width",
        "dependence" => {
            "a store and another access to the same array are less than one vector apart \
             (as `a[i+1] = a[i]`): a dependence between iterations"
        }
        "check-address" => {
            "the run-time overlap test would need an address the loop computes from memory"
        }
        "reduction" => {
            "a value carried from one iteration to the next is neither a counter nor a \
             reduction the vectorizer knows (`s = s OP x` with OP one of + - * & | ^ on \
             integers, + - * on floats under -ffast-math)"
        }
        "float-reduction" => {
            "a floating-point sum or product would be reassociated, which changes its \
             rounding; allow it with -ffast-math or -fassociative-math"
        }
        _ => "the vectorizer cannot handle its shape",
    }
}

/// How a value of the loop varies from iteration to iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// The same in every iteration's lanes.
    Uniform,
    /// Lane `l` is lane 0's value plus `l * stride` (in the value's units;
    /// bytes for pointers).
    Affine(i64),
    /// A vector of `W` independent lanes.
    Varying,
}

/// An address as a linear form: `sum(coef * atom) + konst`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Linear {
    terms: BTreeMap<Value, i64>,
    konst: i64,
}

/// One memory access of the body.
#[derive(Clone, Debug)]
struct Access {
    inst: Inst,
    /// Position in the body.
    order: usize,
    store: bool,
    addr: Value,
    size: i64,
    form: Linear,
}

/// A run-time test: the bytes group `a` (which stores) and group `b`
/// touch must not overlap. Each is given by the accesses with the lowest
/// and highest constant offsets.
#[derive(Clone, Debug)]
struct Check {
    a: (Value, Value),
    b: (Value, Value),
}

struct Plan {
    header: Block,
    body: Block,
    preheader: Block,
    /// The header's parameters and each one's step (0 for reductions).
    ivs: Vec<(Value, i64)>,
    /// The reductions among them: the parameter, its operator and the
    /// value the back edge passes.
    reductions: HashMap<Value, (BinaryOp, Value)>,
    /// The header's instructions besides the test and the branch (pure).
    header_extras: Vec<Inst>,
    inits: Vec<Value>,
    cmp: Inst,
    lanes: u32,
    /// A vector type of `lanes` lanes the loop uses (for remarks).
    vector: Type,
    shapes: HashMap<Value, Shape>,
    checks: Vec<Check>,
    /// Sign-extended 32-bit indices and their steps, each tested before
    /// the loop not to wrap in the vector loop's iterations.
    wraps: Vec<(Value, i64)>,
    /// The byte stride of the accesses (their size), for the tests.
    stride: i64,
    counted: crate::analysis::tripcount::CountedLoop,
}

fn plan(
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
    if !cl.exact
        || cl.step <= 0
        || cl.may_wrap(func)
        || !matches!(cl.cc, IntCC::Slt | IntCC::Sle | IntCC::Ult | IntCC::Ule)
    {
        return Err("not-counted");
    }
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
    for (k, &p) in params.iter().enumerate() {
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
        } else {
            Shape::Affine(step)
        };
        shapes.insert(p, shape);
    }
    let shape_of = |shapes: &HashMap<Value, Shape>, v: Value| -> Shape {
        if in_loop(v) {
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
                            addr: *p,
                            size: s,
                            form: linear(func, &in_loop, *p),
                        });
                        Shape::Varying
                    }
                    Shape::Uniform => return Err("invariant-load"),
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
                let signed = matches!(cl.cc, IntCC::Slt | IntCC::Sle);
                let iv_step = ivs.iter().find(|&&(p, _)| p == *a && p == cl.iv);
                match (iv_step, sh(*a)) {
                    (Some(&(_, step)), _) if signed == (*op == CastOp::Sext) => Shape::Affine(step),
                    // A 32-bit index such as `i * n + j`: its lanes are
                    // consecutive after sign extension unless it wraps in
                    // the iterations the vector loop runs, which a test
                    // before the loop rules out.
                    (None, Shape::Affine(s))
                        if *op == CastOp::Sext
                            && func.value_type(*a) == Type::I32
                            && (1..=MAX_WRAP_STRIDE).contains(&s)
                            && rebuildable(func, &in_loop, *a) =>
                    {
                        if !wraps.iter().any(|&(v, _)| v == *a) {
                            wraps.push((*a, s));
                        }
                        Shape::Affine(s)
                    }
                    // Lane-wise conversions are not made (an `int` loaded
                    // as an index: a gather).
                    (_, Shape::Varying) => return Err("operation"),
                    _ => return Err("index-cast"),
                }
            }
            // Truncation keeps the stride modulo 2^32; only a sign
            // extension with its no-wrap test uses such a value.
            InstKind::Cast(CastOp::Trunc, a)
                if matches!(sh(*a), Shape::Affine(_)) && rty == Some(Type::I32) =>
            {
                sh(*a)
            }
            InstKind::Iconst(_) | InstKind::Fconst(_) => Shape::Uniform,
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

    // Dependences and the run-time tests.
    let stride = accesses[0].size;
    if accesses.iter().any(|a| a.size != stride) {
        return Err("mixed-widths");
    }
    let mut groups: Vec<Vec<&Access>> = Vec::new();
    for a in &accesses {
        match groups.iter_mut().find(|g| g[0].form.terms == a.form.terms) {
            Some(g) => g.push(a),
            None => groups.push(vec![a]),
        }
    }
    let span = i64::from(lanes) * stride;
    for g in &groups {
        for x in g.iter().filter(|x| x.store) {
            for y in g.iter().filter(|y| y.inst != x.inst) {
                let d = y.form.konst.wrapping_sub(x.form.konst);
                let fine = d == 0
                    || d.checked_abs().is_some_and(|a| a >= span)
                    || (!y.store && d > 0 && y.order < x.order);
                if !fine {
                    return Err("dependence");
                }
            }
        }
    }
    let ends = |g: &[&Access]| {
        let lo = g.iter().min_by_key(|a| a.form.konst).expect("non-empty");
        let hi = g.iter().max_by_key(|a| a.form.konst).expect("non-empty");
        (lo.addr, hi.addr)
    };
    let mut checks = Vec::new();
    for (k, g) in groups.iter().enumerate() {
        if !g.iter().any(|a| a.store) {
            continue;
        }
        for (j, h) in groups.iter().enumerate() {
            // Each pair once: a store group against every group after it,
            // and against the load-only groups before it.
            if j == k || (j < k && h.iter().any(|a| a.store)) {
                continue;
            }
            checks.push(Check {
                a: ends(g),
                b: ends(h),
            });
        }
    }
    // Each test's addresses are rebuilt before the loop from the
    // induction variables' initial values.
    for c in &checks {
        for v in [c.a.0, c.a.1, c.b.0, c.b.1] {
            if !rebuildable(func, &in_loop, v) {
                return Err("check-address");
            }
        }
    }
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
    })
}

/// The operator of the reduction `p` whose back-edge value is `r`, if it
/// is one the vector loop may reassociate; else why not.
fn reduction(
    func: &Function,
    body: Block,
    latch: Inst,
    (p, r): (Value, Value),
    options: &PassOptions,
) -> Result<BinaryOp, &'static str> {
    let ValueDef::Result(def) = func.value_def(r) else {
        return Err("reduction");
    };
    let InstKind::Binary(op, a, b) = func.inst(def) else {
        return Err("reduction");
    };
    if !func.block_insts(body).contains(&def) || (*a != p && *b != p) || a == b {
        return Err("reduction");
    }
    // `p - x` subtracts each `x` from the lanes' sum: `p` must be the left
    // operand.
    let sub = matches!(op, BinaryOp::Isub | BinaryOp::Fsub);
    if !(op.is_reduction() || sub) || (sub && *a != p) {
        return Err("reduction");
    }
    let ty = func.value_type(p);
    let lane_type = if op.is_float() {
        matches!(ty, Type::F32 | Type::F64)
    } else {
        matches!(ty, Type::I32 | Type::I64)
    };
    if !lane_type {
        return Err("reduction");
    }
    // `p` feeds `r` alone in the loop (the header's test and any other
    // use need its scalar value); `r` feeds the back edge alone.
    let uses = |v: Value| {
        func.placed_insts()
            .filter(|&(_, i)| func.inst(i).operands().contains(&v))
            .map(|(_, i)| i)
            .collect::<Vec<Inst>>()
    };
    let p_uses = uses(p);
    // The header's branch may pass `p` out of the loop (its exit edge: the
    // edge into the body passes nothing): the value after the last
    // iteration, which the remainder loop computes as the scalar loop does.
    let in_body_or_header = |i: Inst| {
        func.block_insts(body).contains(&i)
            || matches!(func.value_def(p), ValueDef::Param(h, _)
                if func.block_insts(h).contains(&i) && func.terminator(h) != Some(i))
    };
    if p_uses.iter().any(|&i| i != def && in_body_or_header(i)) {
        return Err("reduction");
    }
    if uses(r) != [latch]
        || func
            .inst(latch)
            .operands()
            .iter()
            .filter(|&&v| v == r)
            .count()
            != 1
    {
        return Err("reduction");
    }
    // A reduction in every other respect: whether its rounding may change.
    if op.is_float() && !options.reassociate_floats {
        return Err("float-reduction");
    }
    Ok(*op)
}

/// What each lane of a reduction by `OP` starts from: `OP`'s identity
/// (`x OP e = x`; for `isub`/`fsub`, `e - x = -x`), `-0.0` for float sums
/// (`-0.0 + x` is `x` for every `x`, zeros included).
fn identity(op: BinaryOp) -> InstKind {
    match op {
        BinaryOp::Imul => InstKind::Iconst(1),
        BinaryOp::And => InstKind::Iconst(-1),
        BinaryOp::Fmul => InstKind::Fconst(1.0),
        BinaryOp::Fadd | BinaryOp::Fsub => InstKind::Fconst(-0.0),
        _ => InstKind::Iconst(0),
    }
}

/// How the lanes of a reduction by `OP` combine after the loop, with each
/// other and with the initial value: a difference's lanes hold minus
/// what they subtracted, so they are added.
fn combiner(op: BinaryOp) -> BinaryOp {
    match op {
        BinaryOp::Isub => BinaryOp::Iadd,
        BinaryOp::Fsub => BinaryOp::Fadd,
        op => op,
    }
}

fn stride(s: Shape) -> i64 {
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

/// The linear form of address `v`: through `iadd isub ptradd` and
/// `imul`/`shl` by constants on 64-bit values; anything else is an atom.
fn linear(func: &Function, in_loop: &dyn Fn(Value) -> bool, v: Value) -> Linear {
    let atom = |v: Value| Linear {
        terms: BTreeMap::from([(v, 1)]),
        konst: 0,
    };
    if let Some(c) = func.const_int(v) {
        return Linear {
            terms: BTreeMap::new(),
            konst: c,
        };
    }
    let ValueDef::Result(i) = func.value_def(v) else {
        return atom(v);
    };
    if !in_loop(v) || !matches!(func.value_type(v), Type::I64 | Type::Ptr) {
        return atom(v);
    }
    let scaled = |l: Linear, k: i64| Linear {
        terms: l
            .terms
            .into_iter()
            .map(|(a, c)| (a, c.wrapping_mul(k)))
            .filter(|&(_, c)| c != 0)
            .collect(),
        konst: l.konst.wrapping_mul(k),
    };
    let sum = |x: Linear, y: Linear, sign: i64| {
        let mut terms = x.terms;
        for (a, c) in y.terms {
            let e = terms.entry(a).or_insert(0);
            *e = e.wrapping_add(c.wrapping_mul(sign));
        }
        terms.retain(|_, c| *c != 0);
        Linear {
            terms,
            konst: x.konst.wrapping_add(y.konst.wrapping_mul(sign)),
        }
    };
    match *func.inst(i) {
        InstKind::Binary(BinaryOp::Iadd, a, b) | InstKind::PtrAdd(a, b) => {
            sum(linear(func, in_loop, a), linear(func, in_loop, b), 1)
        }
        InstKind::Binary(BinaryOp::Isub, a, b) => {
            sum(linear(func, in_loop, a), linear(func, in_loop, b), -1)
        }
        InstKind::Binary(BinaryOp::Imul, a, b) => match (func.const_int(a), func.const_int(b)) {
            (_, Some(k)) => scaled(linear(func, in_loop, a), k),
            (Some(k), _) => scaled(linear(func, in_loop, b), k),
            _ => atom(v),
        },
        InstKind::Binary(BinaryOp::Shl, a, b) => match func.const_int(b) {
            Some(k) if (0..63).contains(&k) => scaled(linear(func, in_loop, a), 1 << k),
            _ => atom(v),
        },
        _ => atom(v),
    }
}

/// Whether `v` can be computed before the loop for its first iteration:
/// pure scalar instructions of the loop over values from outside it and
/// the header's parameters.
fn rebuildable(func: &Function, in_loop: &dyn Fn(Value) -> bool, v: Value) -> bool {
    if !in_loop(v) {
        return true;
    }
    match func.value_def(v) {
        ValueDef::Param(..) => true,
        ValueDef::Result(i) => {
            let k = func.inst(i);
            !k.has_side_effects()
                && !k.may_read_memory()
                && !matches!(k, InstKind::Alloca { .. })
                && k.operands().iter().all(|&o| rebuildable(func, in_loop, o))
        }
    }
}

/// Appends to `block` the computation of the loop value `v` for the first
/// iteration (`map` gives the header parameters' initial values and
/// collects what was built).
fn rebuild(
    func: &mut Function,
    body: Block,
    block: Block,
    map: &mut HashMap<Value, Value>,
    v: Value,
) -> Value {
    if let Some(&m) = map.get(&v) {
        return m;
    }
    let ValueDef::Result(i) = func.value_def(v) else {
        return v; // defined outside the loop
    };
    let header = match func.inst(*func.block_insts(body).last().expect("a body jumps")) {
        InstKind::Jump(back) => back.block,
        _ => body,
    };
    if !func.block_insts(body).contains(&i) && !func.block_insts(header).contains(&i) {
        return v; // defined outside the loop
    }
    let mut kind = func.inst(i).clone();
    let ops = kind.operands();
    for o in ops {
        rebuild(func, body, block, map, o);
    }
    kind.map_operands(|o| map.get(&o).copied().unwrap_or(o));
    let new = func.append_inst(block, kind, Some(func.value_type(v)));
    func.locs[new] = func.locs[i];
    let r = func.result(new).expect("made with a result");
    map.insert(v, r);
    r
}

/// Performs the rewrite of the module doc; returns the vector loop's header.
fn rewrite(func: &mut Function, p: &Plan) -> Block {
    let w = p.lanes;
    let loc = func.locs[p.cmp];
    let add = |func: &mut Function, b: Block, kind: InstKind, ty: Option<Type>| {
        let i = func.append_inst(b, kind, ty);
        func.locs[i] = loc;
        func.result(i)
    };
    let val = |r: Option<Value>| r.expect("made with a result");

    // New blocks, placed before the header.
    let at = func
        .layout
        .iter()
        .position(|&b| b == p.header)
        .unwrap_or(func.layout.len());
    let check = (!p.checks.is_empty() || !p.wraps.is_empty()).then(|| func.create_block());
    let vpre = func.create_block();
    let vheader = func.create_block();
    let vbody = func.create_block();
    let vexit = func.create_block();
    let rem = func.create_block();
    let new_blocks: Vec<Block> = check
        .into_iter()
        .chain([vpre, vheader, vbody, vexit, rem])
        .collect();
    for (k, &b) in new_blocks.iter().enumerate() {
        func.layout.insert(at + k, b);
    }
    let iv_types: Vec<Type> = p.ivs.iter().map(|&(v, _)| func.value_type(v)).collect();
    let rem_params: Vec<Value> = iv_types
        .iter()
        .map(|&t| func.append_block_param(rem, t))
        .collect();
    add(
        func,
        rem,
        InstKind::Jump(BlockCall::new(p.header, rem_params)),
        None,
    );

    // The preheader: the trip count (emitted before its jump), the vector
    // part, the way in.
    let n = p.counted.emit(func, p.preheader);
    let pre_term = func.blocks[p.preheader]
        .insts
        .pop()
        .expect("a preheader jumps");
    let mask = val(add(
        func,
        p.preheader,
        InstKind::Iconst(-i64::from(w)),
        Some(Type::I64),
    ));
    let nv = val(add(
        func,
        p.preheader,
        InstKind::Binary(BinaryOp::And, n, mask),
        Some(Type::I64),
    ));
    let zero = val(add(func, p.preheader, InstKind::Iconst(0), Some(Type::I64)));
    let any = val(add(
        func,
        p.preheader,
        InstKind::Icmp(IntCC::Ne, nv, zero),
        Some(Type::I1),
    ));
    let first = check.unwrap_or(vpre);
    let brif = InstKind::Brif {
        cond: any,
        then_dest: BlockCall::to(first),
        else_dest: BlockCall::new(rem, p.inits.clone()),
    };
    func.insts[pre_term].kind = brif;
    func.blocks[p.preheader].insts.push(pre_term);

    // The overlap tests.
    if let Some(cb) = check {
        let mut map: HashMap<Value, Value> = p
            .ivs
            .iter()
            .zip(&p.inits)
            .map(|(&(v, _), &i)| (v, i))
            .collect();
        let size = val(add(func, cb, InstKind::Iconst(p.stride), Some(Type::I64)));
        let span = val(add(
            func,
            cb,
            InstKind::Binary(BinaryOp::Imul, nv, size),
            Some(Type::I64),
        ));
        let mut ok: Option<Value> = None;
        for c in &p.checks {
            let range =
                |func: &mut Function, map: &mut HashMap<Value, Value>, (lo, hi): (Value, Value)| {
                    let lo = rebuild(func, p.body, cb, map, lo);
                    let hi = rebuild(func, p.body, cb, map, hi);
                    let i = func.append_inst(cb, InstKind::PtrAdd(hi, span), Some(Type::Ptr));
                    (lo, func.result(i).expect("a result"))
                };
            let (a_lo, a_end) = range(func, &mut map, c.a);
            let (b_lo, b_end) = range(func, &mut map, c.b);
            let before = val(add(
                func,
                cb,
                InstKind::Icmp(IntCC::Ule, a_end, b_lo),
                Some(Type::I1),
            ));
            let after = val(add(
                func,
                cb,
                InstKind::Icmp(IntCC::Ule, b_end, a_lo),
                Some(Type::I1),
            ));
            let apart = val(add(
                func,
                cb,
                InstKind::Binary(BinaryOp::Or, before, after),
                Some(Type::I1),
            ));
            ok = Some(match ok {
                None => apart,
                Some(o) => val(add(
                    func,
                    cb,
                    InstKind::Binary(BinaryOp::And, o, apart),
                    Some(Type::I1),
                )),
            });
        }
        if !p.wraps.is_empty() {
            // At most 2^32 vector iterations, so that the products below
            // (steps at most 2^16) cannot overflow.
            let limit = val(add(func, cb, InstKind::Iconst(1 << 32), Some(Type::I64)));
            let few = val(add(
                func,
                cb,
                InstKind::Icmp(IntCC::Ule, nv, limit),
                Some(Type::I1),
            ));
            ok = Some(match ok {
                None => few,
                Some(o) => val(add(
                    func,
                    cb,
                    InstKind::Binary(BinaryOp::And, o, few),
                    Some(Type::I1),
                )),
            });
        }
        for &(x, step) in &p.wraps {
            // The last value the vector loop gives `x`, in 64 bits:
            // sext(x0) + (nv - 1) * step, at most i32::MAX.
            let x0 = rebuild(func, p.body, cb, &mut map, x);
            let wide = val(add(
                func,
                cb,
                InstKind::Cast(CastOp::Sext, x0),
                Some(Type::I64),
            ));
            let s = val(add(func, cb, InstKind::Iconst(step), Some(Type::I64)));
            let steps = val(add(
                func,
                cb,
                InstKind::Binary(BinaryOp::Imul, nv, s),
                Some(Type::I64),
            ));
            let end = val(add(
                func,
                cb,
                InstKind::Binary(BinaryOp::Iadd, wide, steps),
                Some(Type::I64),
            ));
            let last = val(add(
                func,
                cb,
                InstKind::Binary(BinaryOp::Isub, end, s),
                Some(Type::I64),
            ));
            let max = val(add(
                func,
                cb,
                InstKind::Iconst(i64::from(i32::MAX)),
                Some(Type::I64),
            ));
            let fits = val(add(
                func,
                cb,
                InstKind::Icmp(IntCC::Sle, last, max),
                Some(Type::I1),
            ));
            ok = Some(match ok {
                None => fits,
                Some(o) => val(add(
                    func,
                    cb,
                    InstKind::Binary(BinaryOp::And, o, fits),
                    Some(Type::I1),
                )),
            });
        }
        let ok = ok.expect("at least one test");
        add(
            func,
            cb,
            InstKind::Brif {
                cond: ok,
                then_dest: BlockCall::to(vpre),
                else_dest: BlockCall::new(rem, p.inits.clone()),
            },
            None,
        );
    }

    // The vector loop's header.
    let mut vmap: HashMap<Value, Value> = HashMap::new();
    for (&(v, _), &t) in p.ivs.iter().zip(&iv_types) {
        let t = if p.reductions.contains_key(&v) {
            Type::vector_of(t).expect("a vectorizable type")
        } else {
            t
        };
        let q = func.append_block_param(vheader, t);
        vmap.insert(v, q);
    }
    let k = func.append_block_param(vheader, Type::I64);
    let more = val(add(
        func,
        vheader,
        InstKind::Icmp(IntCC::Ult, k, nv),
        Some(Type::I1),
    ));
    add(
        func,
        vheader,
        InstKind::Brif {
            cond: more,
            then_dest: BlockCall::to(vbody),
            else_dest: BlockCall::to(vexit),
        },
        None,
    );
    // The exit: each reduction's lanes and its initial value combined.
    let mut outs = Vec::new();
    for ((&(v, _), &t), &init) in p.ivs.iter().zip(&iv_types).zip(&p.inits) {
        outs.push(match p.reductions.get(&v) {
            Some(&(op, _)) => {
                let op = combiner(op);
                let lanes = val(add(func, vexit, InstKind::Reduce(op, vmap[&v]), Some(t)));
                val(add(func, vexit, InstKind::Binary(op, init, lanes), Some(t)))
            }
            None => vmap[&v],
        });
    }
    add(func, vexit, InstKind::Jump(BlockCall::new(rem, outs)), None);
    // The way in: reductions start from their identity in every lane.
    let mut args = Vec::new();
    for ((&(v, _), &t), &init) in p.ivs.iter().zip(&iv_types).zip(&p.inits) {
        args.push(match p.reductions.get(&v) {
            Some(&(op, _)) => {
                let e = val(add(func, vpre, identity(op), Some(t)));
                let vt = Type::vector_of(t).expect("a vectorizable type");
                val(add(func, vpre, InstKind::Splat(e), Some(vt)))
            }
            None => init,
        });
    }
    args.push(zero);
    add(
        func,
        vpre,
        InstKind::Jump(BlockCall::new(vheader, args)),
        None,
    );

    // The vector body.
    let shape = |v: Value| p.shapes.get(&v).copied().unwrap_or(Shape::Uniform);
    let mut splats: HashMap<Value, Value> = HashMap::new();
    let mut splat = |func: &mut Function, v: Value, vmap: &HashMap<Value, Value>| -> Value {
        if let Some(&s) = splats.get(&v) {
            return s;
        }
        let ty = Type::vector_of(func.value_type(v)).expect("a vectorizable type");
        // Values from outside the loop are splatted once, before it.
        let (block, x) = match vmap.get(&v) {
            Some(&x) => (vbody, x),
            None => (vpre, v),
        };
        let i = func.make_inst(InstKind::Splat(x), Some(ty));
        func.locs[i] = loc;
        let insts = &mut func.blocks[block].insts;
        if block == vpre {
            let at = insts.len().saturating_sub(1);
            insts.insert(at, i);
        } else {
            insts.push(i);
        }
        let s = func.result(i).expect("a result");
        splats.insert(v, s);
        s
    };
    let body_insts = func.block_insts(p.body).to_vec();
    let (latch, body_rest) = body_insts.split_last().expect("a body ends in its jump");
    let others: Vec<Inst> = p.header_extras.iter().chain(body_rest).copied().collect();
    let others = &others[..];
    // What only the back edge uses (the counters' increments) is not
    // copied: the vector loop has its own.
    let used: HashSet<Value> = others
        .iter()
        .flat_map(|&i| func.inst(i).operands())
        .collect();
    // (A reduction's new value is the back edge's alone, and copied.)
    let reduced: HashSet<Value> = p.reductions.values().map(|&(_, r)| r).collect();
    let back_edge_only = |r: Value| {
        !used.contains(&r) && !reduced.contains(&r) && func.inst(*latch).operands().contains(&r)
    };
    let back_edge_only: HashSet<Value> = others
        .iter()
        .filter_map(|&i| func.result(i))
        .filter(|&r| back_edge_only(r))
        .collect();
    for &i in others {
        if func.result(i).is_some_and(|r| back_edge_only.contains(&r)) {
            continue;
        }
        let kind = func.inst(i).clone();
        let result = func.result(i);
        let srcloc = func.locs[i];
        let varying = result.is_some_and(|r| shape(r) == Shape::Varying)
            || matches!(kind, InstKind::Store { .. });
        let mapped = |v: Value, vmap: &HashMap<Value, Value>| vmap.get(&v).copied().unwrap_or(v);
        let new_kind = if varying {
            match kind {
                InstKind::Load(a) => InstKind::Load(mapped(a, &vmap)),
                InstKind::Store { value, ptr } => {
                    let value = if shape(value) == Shape::Varying {
                        vmap[&value]
                    } else {
                        splat(func, value, &vmap)
                    };
                    InstKind::Store {
                        value,
                        ptr: mapped(ptr, &vmap),
                    }
                }
                InstKind::Binary(op, a, b) => {
                    let mut lane = |v: Value, func: &mut Function| {
                        if shape(v) == Shape::Varying {
                            vmap[&v]
                        } else {
                            splat(func, v, &vmap)
                        }
                    };
                    let a = lane(a, func);
                    let b = lane(b, func);
                    InstKind::Binary(op, a, b)
                }
                InstKind::Unary(op, a) => InstKind::Unary(op, vmap[&a]),
                other => other,
            }
        } else {
            let mut k = kind;
            k.map_operands(|v| mapped(v, &vmap));
            k
        };
        let ty = result.map(|r| {
            let t = func.value_type(r);
            if shape(r) == Shape::Varying {
                Type::vector_of(t).expect("a vectorizable type")
            } else {
                t
            }
        });
        let new = func.append_inst(vbody, new_kind, ty);
        func.locs[new] = srcloc;
        if let (Some(r), Some(n)) = (result, func.result(new)) {
            vmap.insert(r, n);
        }
    }
    // The back edge: every counter advances `W` iterations.
    let mut next = Vec::new();
    for (&(v, step), &t) in p.ivs.iter().zip(&iv_types) {
        if let Some(&(_, r)) = p.reductions.get(&v) {
            next.push(vmap[&r]);
            continue;
        }
        let c = val(add(
            func,
            vbody,
            InstKind::Iconst(parc_ir::sign_extend(step.wrapping_mul(i64::from(w)), t)),
            Some(t),
        ));
        next.push(val(add(
            func,
            vbody,
            InstKind::Binary(BinaryOp::Iadd, vmap[&v], c),
            Some(t),
        )));
    }
    let wc = val(add(
        func,
        vbody,
        InstKind::Iconst(i64::from(w)),
        Some(Type::I64),
    ));
    next.push(val(add(
        func,
        vbody,
        InstKind::Binary(BinaryOp::Iadd, k, wc),
        Some(Type::I64),
    )));
    add(
        func,
        vbody,
        InstKind::Jump(BlockCall::new(vheader, next)),
        None,
    );
    vheader
}
