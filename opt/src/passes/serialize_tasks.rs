//! `serialize-small-tasks`: runs tasks too small to be worth a spawn in
//! their parent, as plain code.
//!
//! `detach within sr, T, C` becomes `jump T`, and each `reattach within sr,
//! C` ending that task becomes `jump C`. That is exactly the serial
//! projection of the detach — the task runs to its end, then the
//! continuation — which is always a valid execution of the parallel
//! program, so the transformation is sound for any task; the cost model
//! only decides when it pays.
//!
//! # Cost model
//! A spawn costs the runtime a context buffer, a deque push and possibly a
//! steal (hundreds of cycles), so a task pays only if it does more than
//! that. A task is serialized when all of these hold:
//! - it contains no call, launch, impure intrinsic (`printf`, `malloc`,
//!   atomics...) or nested detach: their cost is unknown or large;
//! - it contains no loop (no loop header among its blocks): a loop's trip
//!   count is unknown, so its cost is too;
//! - its cost is at most [`MAX_COST`], where each instruction costs 1, a
//!   pure math intrinsic ([`MATH_COST`]) more, and terminators nothing.
//!
//! What stays a task: the per-iteration task of a parallel loop (the
//! backend turns the whole loop into one chunked runtime call, so the cost
//! of one iteration says nothing about the cost of a spawn — and
//! serializing it would turn the parallel loop into a serial one). Such a
//! task is recognized by its continuation being a latch of a loop (which
//! covers both the exact `parallel_for` shape of
//! [`crate::analysis::parallel_loops`] and any other loop that spawns every
//! iteration).
//!
//! # Tapir constraints
//! The task's blocks keep their place; they simply run before the
//! continuation. No value crosses between the task and the continuation
//! (rule T2 held before and nothing moves), and an `alloca` of the task is
//! executed exactly as often as before, so it stays private per execution.
//! The region's syncs may now wait for nothing; `sync-elim` removes them.

use crate::PassContext;
use parc_ir::analysis::FunctionAnalyses;
use parc_ir::{BlockCall, Function, InstKind, Intrinsic, Module};

/// Largest task cost that is serialized.
pub const MAX_COST: u32 = 16;
/// The cost of a pure math intrinsic (`sqrt`, `exp`, ...): a libm call.
pub const MATH_COST: u32 = 4;

/// What happened to each detach (for `--stats`).
#[derive(Default)]
struct Counts {
    serialized: u64,
    kept_loop_task: u64,
    kept_cost: u64,
}

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let mut counts = Counts::default();
    let changed = crate::for_each_function(module, |f| run_function(f, &mut counts) > 0);
    ctx.count("serialize-small-tasks.serialized", counts.serialized);
    ctx.count(
        "serialize-small-tasks.kept.loop-task",
        counts.kept_loop_task,
    );
    ctx.count("serialize-small-tasks.kept.cost", counts.kept_cost);
    changed
}

/// Serializes the small tasks of `func`; returns how many.
fn run_function(func: &mut Function, counts: &mut Counts) -> u64 {
    let mut done = 0;
    // Serializing one task changes the task tree (its blocks join the
    // parent), so decide one at a time on fresh analyses. A function has
    // few detaches, so this stays cheap.
    loop {
        let an = FunctionAnalyses::compute(func);
        // What this round keeps; only the last round's decisions are final
        // (a round stops at the first task it serializes).
        let (mut kept_loop_task, mut kept_cost) = (0, 0);
        let mut chosen = None;
        for t in an.tasks.tasks() {
            let td = an.tasks.data(t);
            if !an.cfg.is_reachable(td.detach_block) {
                continue;
            }
            let is_latch = an
                .loops
                .loops()
                .any(|l| an.loops.data(l).latches.contains(&td.cont));
            if is_latch {
                kept_loop_task += 1;
                continue;
            }
            match task_cost(func, &an, td) {
                Some(c) if c <= MAX_COST => {
                    chosen = Some(t);
                    break;
                }
                _ => kept_cost += 1,
            }
        }
        let Some(t) = chosen else {
            counts.kept_loop_task += kept_loop_task;
            counts.kept_cost += kept_cost;
            return done;
        };
        let td = an.tasks.data(t);
        *func.inst_mut(td.detach) = InstKind::Jump(BlockCall::to(td.entry));
        for &b in &td.reattaches {
            let r = func
                .terminator(b)
                .expect("a reattach block has a terminator");
            *func.inst_mut(r) = InstKind::Jump(BlockCall::to(td.cont));
        }
        counts.serialized += 1;
        done += 1;
    }
}

/// The cost of a task, or `None` if it has a call, a nested detach, a loop
/// or anything else whose cost is unknown.
fn task_cost(
    func: &Function,
    an: &FunctionAnalyses,
    td: &parc_ir::analysis::TaskData,
) -> Option<u32> {
    let mut cost = 0u32;
    for &b in &td.blocks {
        if an.loops.loop_headed_by(b).is_some() {
            return None;
        }
        for &i in func.block_insts(b) {
            cost += match func.inst(i) {
                InstKind::Call { .. } | InstKind::Launch { .. } | InstKind::Detach { .. } => {
                    return None;
                }
                InstKind::Intrinsic { op, .. } if !op.is_pure() => return None,
                InstKind::Intrinsic { op, .. } if is_math(*op) => MATH_COST,
                k if k.is_terminator() => 0,
                _ => 1,
            };
        }
    }
    Some(cost)
}

fn is_math(op: Intrinsic) -> bool {
    use Intrinsic::*;
    matches!(
        op,
        Sqrt | Exp | Log | Pow | Sin | Cos | Tan | Tanh | Fabs | Fmin | Fmax | Floor | Ceil
    )
}
