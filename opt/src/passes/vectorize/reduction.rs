//! The reductions a vector loop carries in lanes: which loop-carried
//! values are reductions ([`reduction`]), what each lane starts from
//! ([`identity`]) and how the lanes combine after the loop ([`combiner`]).
//!
//! Two kinds: `p OP x` for an associative and commutative `OP`
//! ([`Reduction::Op`]), and a minimum or maximum written as a compare and
//! a select, `p = x > p ? x : p` and its variants ([`Reduction::MinMax`]).
//! A minimum or maximum is idempotent, so every lane starts from the
//! initial value itself, and the lanes combine after the loop by the
//! loop's own compare and select. On integers that is exactly the scalar
//! loop's value (equal values are equal bits). On floats the lanes may
//! keep `-0.0` where the loop keeps `+0.0` (they compare equal), and a NaN
//! is kept or dropped by its position, so those need
//! [`PassOptions::reassociate_floats`].

use crate::PassOptions;
use parc_ir::{BinaryOp, Block, FloatCC, Function, Inst, InstKind, IntCC, Type, Value, ValueDef};

/// How a reduction combines an iteration's value `x` into `p`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Reduction {
    /// `p OP x` (or `p - x`).
    Op(BinaryOp),
    /// `select(cmp(x, p), x, p)`, the compare's operands and the select's
    /// in either order: the compare and `x`.
    MinMax { cmp: Inst, x: Value, float: bool },
}

impl Reduction {
    /// Whether summing it in lanes reassociates float arithmetic.
    pub(super) fn is_float(self) -> bool {
        match self {
            Reduction::Op(op) => op.is_float(),
            Reduction::MinMax { float, .. } => float,
        }
    }
}

/// The operator of the reduction `p` whose back-edge value is `r`, if it
/// is one the vector loop may reassociate; else why not.
pub(super) fn reduction(
    func: &Function,
    body: Block,
    latch: Inst,
    (p, r): (Value, Value),
    options: &PassOptions,
) -> Result<Reduction, &'static str> {
    let ValueDef::Result(def) = func.value_def(r) else {
        return Err("reduction");
    };
    if let InstKind::Select(..) = func.inst(def) {
        return min_max(func, body, latch, (p, r), def, options);
    }
    // `m = fmax(m, a[i])`: C's `fmin`/`fmax` in lanes (the vector loop's
    // form of them) put their NaN tests on the chain from one iteration
    // to the next, which then takes longer per pair of lanes than the
    // scalar loop's per element (measured: no faster with f64x2).
    if let InstKind::Intrinsic { op, .. } = func.inst(def)
        && op.is_lanewise()
    {
        return Err("min-max-call");
    }
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
    if !feeds_only(func, body, latch, (p, r), &[def]) {
        return Err(if stored_in_place(func, body, (p, r)) {
            "invariant-store"
        } else {
            "reduction"
        });
    }
    // A reduction in every other respect: whether its rounding may change.
    if op.is_float() && !options.reassociate_floats {
        return Err("float-reduction");
    }
    Ok(Reduction::Op(*op))
}

/// Whether `r` is also stored at one address in every iteration: a sum
/// that `scalar-promotion` carries in a register but whose stores it kept
/// (other loads of the loop may read them), as 2mm's `tmp[i][j]` over
/// `k`. The store, not the sum, is what stops the vectorizer then.
fn stored_in_place(func: &Function, body: Block, (p, r): (Value, Value)) -> bool {
    let ValueDef::Param(header, _) = func.value_def(p) else {
        return false;
    };
    let invariant = |v: Value| match func.value_def(v) {
        ValueDef::Param(b, _) => b != body && b != header,
        ValueDef::Result(i) => {
            !func.block_insts(body).contains(&i) && !func.block_insts(header).contains(&i)
        }
    };
    func.block_insts(body).iter().any(|&i| {
        matches!(func.inst(i), InstKind::Store { value, ptr } if *value == r && invariant(*ptr))
    })
}

/// Whether `p`'s uses in the loop are `users` alone (the header's exit
/// edge may pass it out) and `r` feeds the back edge alone, once.
fn feeds_only(
    func: &Function,
    body: Block,
    latch: Inst,
    (p, r): (Value, Value),
    users: &[Inst],
) -> bool {
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
    if p_uses
        .iter()
        .any(|&i| !users.contains(&i) && in_body_or_header(i))
    {
        return false;
    }
    uses(r) == [latch]
        && func
            .inst(latch)
            .operands()
            .iter()
            .filter(|&&v| v == r)
            .count()
            == 1
}

/// The minimum or maximum `r = select(c, x, p)` (or `select(c, p, x)`)
/// with `c = cmp(x, p)` (or `cmp(p, x)`) an ordering compare whose only
/// use is the select.
fn min_max(
    func: &Function,
    body: Block,
    latch: Inst,
    (p, r): (Value, Value),
    select: Inst,
    options: &PassOptions,
) -> Result<Reduction, &'static str> {
    let InstKind::Select(c, a, b) = *func.inst(select) else {
        return Err("reduction");
    };
    let x = match (a == p, b == p) {
        (true, false) => b,
        (false, true) => a,
        _ => return Err("reduction"),
    };
    let ValueDef::Result(cmp) = func.value_def(c) else {
        return Err("reduction");
    };
    let ordering = match *func.inst(cmp) {
        InstKind::Icmp(cc, u, v) => {
            !matches!(cc, IntCC::Eq | IntCC::Ne) && ((u, v) == (x, p) || (u, v) == (p, x))
        }
        InstKind::Fcmp(cc, u, v) => {
            matches!(cc, FloatCC::Lt | FloatCC::Le | FloatCC::Gt | FloatCC::Ge)
                && ((u, v) == (x, p) || (u, v) == (p, x))
        }
        _ => false,
    };
    let ty = func.value_type(p);
    if !ordering
        || !func.block_insts(body).contains(&cmp)
        || !func.block_insts(body).contains(&select)
        || !matches!(ty, Type::I32 | Type::I64 | Type::F32 | Type::F64)
    {
        return Err("reduction");
    }
    let c_uses = func
        .placed_insts()
        .filter(|&(_, i)| func.inst(i).operands().contains(&c))
        .count();
    if c_uses != 1 || !feeds_only(func, body, latch, (p, r), &[cmp, select]) {
        return Err("reduction");
    }
    let float = ty.is_float();
    if float && !options.reassociate_floats {
        return Err("float-min-max");
    }
    Ok(Reduction::MinMax { cmp, x, float })
}

/// What each lane of a reduction by `OP` starts from: `OP`'s identity
/// (`x OP e = x`; for `isub`/`fsub`, `e - x = -x`), `-0.0` for float sums
/// (`-0.0 + x` is `x` for every `x`, zeros included).
pub(super) fn identity(op: BinaryOp) -> InstKind {
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
pub(super) fn combiner(op: BinaryOp) -> BinaryOp {
    match op {
        BinaryOp::Isub => BinaryOp::Iadd,
        BinaryOp::Fsub => BinaryOp::Fadd,
        op => op,
    }
}
