//! Memory a task owns: pointers whose every root is memory of the task
//! running the code (its own `alloca`s; in a function called from
//! parallel code, also the parameters its callers passed such memory
//! for). No other task's reverse updates the shadow of that memory, so
//! updates of it, and a callee's pair given only such pointers, need no
//! atomics.

use super::atomic_mode;
use crate::activity::{ActivityInfo, Root};
use crate::plan::{Mode, Plan};
use parc_ir::{Block, Type, Value};

/// The arguments of a call in primal block `b` that point only into
/// memory of the task running the call (bit `k` for argument `k`, the
/// first 64; see [`crate::plan::CallPlan::private`]): in an iteration of
/// a parallel loop that spawns nothing, its own `alloca`s; in a function
/// called from parallel code, its `alloca`s and the parameters its own
/// callers passed such memory for. No other task's reverse updates that
/// memory's shadow, so the callee's pair adds into it without atomics.
pub fn private_args(plan: &Plan, b: Block, args: &[Value]) -> u64 {
    if plan.spawn_par.contains(&b) {
        return 0;
    }
    let own: Box<dyn Fn(Root) -> bool + '_> = match plan.loop_of.get(&b) {
        Some(&l) => {
            let tb = &plan.ploops[l].task_blocks;
            if plan.spawns.iter().any(|sp| tb.contains(&sp.detach)) {
                return 0;
            }
            Box::new(move |r| match r {
                Root::Alloca(i) => plan.inst_block.get(&i).is_some_and(|ib| tb.contains(ib)),
                _ => false,
            })
        }
        None if atomic_mode(plan) => Box::new(|r| owned_root(plan, r)),
        None => return 0,
    };
    let mut bits = 0u64;
    for (k, &a) in args.iter().enumerate().take(64) {
        if plan.p.value_type(a) == Type::Ptr && roots_all(&plan.act, a, &own) {
            bits |= 1 << k;
        }
    }
    bits
}

/// True if memory of root `r` belongs to this call of a function called
/// from parallel code: its own `alloca`s, and the parameters every caller
/// passes memory of its own task for.
pub(super) fn owned_root(plan: &Plan, r: Root) -> bool {
    let private = match plan.mode {
        Mode::Split { private, .. } => private,
        Mode::Combined => 0,
    };
    match r {
        Root::Alloca(_) => true,
        Root::Param(k) => k < 64 && (private >> k) & 1 == 1,
        _ => false,
    }
}

/// True if `ptr` has roots and every one satisfies `pred`.
pub(super) fn roots_all(act: &ActivityInfo, ptr: Value, pred: impl Fn(Root) -> bool) -> bool {
    let mut roots = act.roots(ptr).peekable();
    roots.peek().is_some() && roots.all(pred)
}
