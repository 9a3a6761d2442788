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
//! [`parc_ir::analysis::tapir_loops`] and any other loop that spawns every
//! iteration).
//!
//! # Tapir constraints
//! The task's blocks keep their place; they simply run before the
//! continuation. No value crosses between the task and the continuation
//! (rule T2 held before and nothing moves), and an `alloca` of the task is
//! executed exactly as often as before, so it stays private per execution.
//! The region's syncs may now wait for nothing; `sync-elim` removes them.

use crate::HashSet;
use crate::PassContext;
use parc_ir::analysis::{FunctionAnalyses, Task};
use parc_ir::{Block, BlockCall, Function, InstKind, Module};

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
    let changed = crate::for_each_of(module, &crate::functions_with_tapir(module), |f| {
        run_function(f, &mut counts) > 0
    });
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
    // Serializing a task turns its detach and reattaches into jumps and
    // changes nothing else the decisions read: every other task keeps its
    // blocks, the loops keep theirs, and the continuation stays reachable
    // through the task. Only the tasks enclosing it see a difference (one
    // nested detach fewer), so deciding the innermost tasks first, on one
    // analysis, reaches the state that serializing one task at a time on
    // fresh analyses reached (which took a minute for 3000 spawns). A
    // task that never reattaches is the exception: its continuation is
    // reached only through the detach, so analyze afresh after it.
    'fresh: loop {
        let an = FunctionAnalyses::compute(func);
        // Latches of any loop: a task continuing at one is a loop's task.
        let latches: HashSet<Block> = an
            .loops
            .loops()
            .flat_map(|l| an.loops.data(l).latches.iter().copied())
            .collect();
        let mut order: Vec<Task> = an.tasks.tasks().collect();
        // Deepest first (stable: layout order within a depth).
        order.sort_by_key(|&t| std::cmp::Reverse(an.tasks.data(t).depth));
        // What this analysis keeps; only the last analysis's count is final.
        let (mut kept_loop_task, mut kept_cost) = (0, 0);
        for t in order {
            let td = an.tasks.data(t);
            if !an.cfg.is_reachable(td.detach_block) {
                continue;
            }
            if latches.contains(&td.cont) {
                kept_loop_task += 1;
                continue;
            }
            match task_cost(func, &an, t) {
                Some(c) if c <= MAX_COST => {}
                _ => {
                    kept_cost += 1;
                    continue;
                }
            }
            *func.inst_mut(td.detach) = InstKind::Jump(BlockCall::to(td.entry));
            for &b in &td.reattaches {
                let r = func
                    .terminator(b)
                    .expect("a reattach block has a terminator");
                *func.inst_mut(r) = InstKind::Jump(BlockCall::to(td.cont));
            }
            counts.serialized += 1;
            done += 1;
            if td.reattaches.is_empty() {
                continue 'fresh;
            }
        }
        counts.kept_loop_task += kept_loop_task;
        counts.kept_cost += kept_cost;
        return done;
    }
}

/// The cost of a task, or `None` if it has a call, a nested detach, a loop
/// or anything else whose cost is unknown.
fn task_cost(func: &Function, an: &FunctionAnalyses, task: Task) -> Option<u32> {
    let mut cost = 0u32;
    for &b in an.tasks.blocks(task) {
        if an.loops.loop_headed_by(b).is_some() {
            return None;
        }
        for &i in func.block_insts(b) {
            cost += match func.inst(i) {
                InstKind::Call { .. }
                | InstKind::CallIndirect { .. }
                | InstKind::Launch { .. }
                | InstKind::Detach { .. } => {
                    return None;
                }
                InstKind::Intrinsic { op, .. } if !op.is_pure() => return None,
                InstKind::Intrinsic { op, .. } if op.is_math() => MATH_COST,
                k if k.is_terminator() => 0,
                _ => 1,
            };
        }
    }
    Some(cost)
}
