//! The race-aware accumulation policy: how an adjoint update `d[p] += v` in
//! the reverse of a parallel loop's task is made safe, most to least
//! efficient (see the crate doc):
//!
//! - *local*: `p` is task-private (an `alloca` of the task) — plain add;
//! - *disjoint*: `p = base + c·iv + invariant` with `|c|·step` at least the
//!   access size, in a loop not nested in another parallel loop, and no
//!   other load of the task through a different pointer into possibly the
//!   same object updates per-iteration addresses — plain add (iterations
//!   touch different bytes, and nobody else touches them during the loop;
//!   another site's *reduction* goes to per-worker slots combined after the
//!   sync, so it does not conflict);
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
                match conflicting_site(p, act, l, ptr) {
                    Some(line) => (
                        AccumulationClass::Atomic,
                        format!(
                            "`d_{name}`: affine in the loop index, but the access at line {line} may update the same shadow from other iterations"
                        ),
                    ),
                    None => (
                        AccumulationClass::Disjoint,
                        format!(
                            "`d_{name}`: address affine in the loop index (stride {stride} bytes)"
                        ),
                    ),
                }
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

/// The source line of another load in `l`'s task whose adjoint update may
/// touch, from another iteration, the shadow bytes that `ptr` updates: a
/// load through a different pointer that may point into the same object and
/// is not the same address in every iteration (a reduction). Primal stores
/// need no check: a store and a load of one location in different
/// iterations would be a determinacy race in the primal program.
fn conflicting_site(p: &Function, act: &ActivityInfo, l: &PLoop, ptr: Value) -> Option<u32> {
    let mine: Vec<Root> = act.roots(ptr).collect();
    let vague = |r: &Root| matches!(r, Root::Unknown | Root::Loaded(_));
    for &b in &l.task_blocks {
        for &i in p.block_insts(b) {
            let InstKind::Load(q) = *p.inst(i) else {
                continue;
            };
            let is_float = p.result(i).is_some_and(|r| p.value_type(r).is_float());
            if q == ptr || !is_float || !act.is_shadowed(q) {
                continue;
            }
            let theirs: Vec<Root> = act.roots(q).collect();
            let overlap =
                theirs.iter().any(|r| vague(r) || mine.contains(r)) || mine.iter().any(vague);
            if overlap && affine(p, l, q, 0) != Some(0) {
                return Some(p.locs[i].line);
            }
        }
    }
    None
}
