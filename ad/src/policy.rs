//! The race-aware accumulation policy: how an adjoint update `d[p] += v` in
//! the reverse of a parallel loop's task is made safe, most to least
//! efficient (see the crate doc):
//!
//! - *local*: `p` is task-private (an `alloca` of the task) — plain add;
//! - *disjoint*: `p = base + c·iv + invariant` with `|c|·step` at least the
//!   access size, in a loop not nested in another parallel loop — plain add
//!   (iterations touch different bytes);
//! - *reduction*: `p` is the same in every iteration — per-worker partial
//!   sums, combined after the reverse loop's sync;
//! - *atomic*: anything else — `atomic_add`.
//!
//! SSA adjoints of values defined outside the task are reductions; those of
//! values defined inside it live in task-private slots (local). Serial code
//! is never classified: it has no concurrent updates.

use crate::AccumulationClass;
use crate::activity::{ActivityInfo, Root};
use crate::parallel::{PLoop, affine};
use parc_ir::{Function, InstKind, Value, ValueDef};

/// The class of `d[p] += ...` (an access of `size` bytes) in the reverse
/// of loop `l`'s task, and the reason in words.
pub fn classify(
    p: &Function,
    act: &ActivityInfo,
    l: &PLoop,
    nested: bool,
    ptr: Value,
    size: u32,
    name: &str,
) -> (AccumulationClass, String) {
    let private = act.roots(ptr).all(|r| match r {
        Root::Alloca(i) => l.task_blocks.iter().any(|b| p.block_insts(*b).contains(&i)),
        _ => false,
    }) && act.roots(ptr).next().is_some();
    if private {
        return (
            AccumulationClass::Local,
            format!("`d_{name}`: memory private to the task"),
        );
    }
    match affine(p, l, ptr, 0) {
        Some(0) => (
            AccumulationClass::Reduction,
            format!("`d_{name}`: the same address in every iteration"),
        ),
        Some(c) => {
            let step = match p.value_def(l.step) {
                ValueDef::Result(i) => match p.inst(i) {
                    InstKind::Iconst(s) if *s > 0 => *s,
                    _ => 1,
                },
                _ => 1,
            };
            let stride = c.unsigned_abs().saturating_mul(step as u64);
            if nested {
                (
                    AccumulationClass::Atomic,
                    format!(
                        "`d_{name}`: affine in the loop index, but the loop is nested in another parallel loop"
                    ),
                )
            } else if stride >= size as u64 {
                (
                    AccumulationClass::Disjoint,
                    format!("`d_{name}`: address affine in the loop index (stride {stride} bytes)"),
                )
            } else {
                (
                    AccumulationClass::Atomic,
                    format!("`d_{name}`: stride {stride} bytes is less than the access size"),
                )
            }
        }
        None => (
            AccumulationClass::Atomic,
            format!("`d_{name}`: address not affine in the loop index"),
        ),
    }
}
