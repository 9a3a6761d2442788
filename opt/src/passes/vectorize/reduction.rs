//! The reductions a vector loop carries in lanes: which loop-carried
//! values are reductions ([`reduction`]), what each lane starts from
//! ([`identity`]) and how the lanes combine after the loop ([`combiner`]).

use crate::PassOptions;
use parc_ir::{BinaryOp, Block, Function, Inst, InstKind, Type, Value, ValueDef};

/// The operator of the reduction `p` whose back-edge value is `r`, if it
/// is one the vector loop may reassociate; else why not.
pub(super) fn reduction(
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
