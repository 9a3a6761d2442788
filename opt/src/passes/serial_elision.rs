//! `serial-elision`: the serial elision of a module (what `--serial`
//! compiles), as Tapir and OpenCilk define it: the program with every
//! `spawn` a plain call and every `sync` a no-op.
//!
//! In parir that is purely structural. For every placed terminator:
//! - `detach within sr, T, C` becomes `jump T`;
//! - `reattach within sr, C` becomes `jump C`;
//! - `sync within sr, N` becomes `jump N`;
//!
//! and a function left with no Tapir terminator drops its sync regions.
//! None of `T`, `C`, `N` has block parameters (a verifier rule), so the
//! jumps pass no arguments.
//!
//! This is the serial projection — each task runs to its reattach, then
//! its continuation — which is always a valid execution of the parallel
//! program, so the result computes what the program computes on one worker.
//! Unlike the serial *target* of the Tapir lowering (an oracle that still
//! outlines every task and passes its captures through memory), nothing is
//! outlined here: the optimizer runs on the result as on any serial C code
//! (`x = spawn f();` stores `x` in what was the task, which `mem2reg` may
//! now promote; a `parallel_for` is an ordinary loop that LICM, inlining and
//! the backend treat as such). The driver runs this pass straight after
//! lowering, before the pipeline and the AD, when `--serial` is given; it
//! is not part of any `-O` pipeline (it removes the parallelism).
//!
//! # Why the result verifies
//! - **SSA.** The task's blocks were entered only from the detach and left
//!   only by reattaches to `C` (rule T1); the new edges replace `D → C` by
//!   the path `D → T → … → C`. Every path to a block in the new CFG is an
//!   old path with task blocks inserted after `D`, and no value defined in
//!   a task is used outside it (rule T2), so every definition that
//!   dominated a use still does. The task's own blocks keep their
//!   dominators (their only way in is still through `D`).
//! - **Tapir.** No detach, reattach or sync is left, so rules T1–T4 hold
//!   vacuously; dropped sync regions are named by nothing.
//! - `C` may become unreachable (a task that always ends in `exit`), which
//!   is exactly what the serial projection does; DCE and `simplify-cfg`
//!   clean up as usual.
//!
//! # Task-local `alloca`s
//! The front end puts a task's locals at the top of the task's first block
//! (a `parallel_for` body's locals, a spawned call's temporaries). After
//! the elision they sit in a loop body or on a straight path: an `alloca`
//! is zero-filled each time it executes and the backend gives each
//! `alloca` instruction one stack slot, so a loop reuses one slot per
//! iteration (the stack does not grow) and every iteration still starts
//! from zero — the meaning of a local declared in a loop body in C.
//! `mem2reg` and `sroa` treat an `alloca` outside the entry block this way.
//!
//! Statistics: `serial-elision.detaches`, `serial-elision.syncs`.

use crate::PassContext;
use parc_ir::{BlockCall, Function, InstKind, Module};

/// What the elision replaced, for `--stats`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Detaches turned into jumps (each with its reattaches).
    pub detaches: u64,
    /// Syncs turned into jumps.
    pub syncs: u64,
}

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let mut total = Counts::default();
    let changed = crate::for_each_function(module, |f| {
        let c = elide_function(f);
        total.detaches += c.detaches;
        total.syncs += c.syncs;
        c != Counts::default()
    });
    ctx.count("serial-elision.detaches", total.detaches);
    ctx.count("serial-elision.syncs", total.syncs);
    changed
}

/// Replaces every detach, reattach and sync of `func` by a jump (see the
/// module doc) and drops its sync regions; returns what it replaced.
pub fn elide_function(func: &mut Function) -> Counts {
    let mut counts = Counts::default();
    let placed: Vec<_> = func.placed_insts().map(|(_, i)| i).collect();
    for inst in placed {
        let target = match *func.inst(inst) {
            InstKind::Detach { task, .. } => {
                counts.detaches += 1;
                task
            }
            InstKind::Reattach { cont, .. } => cont,
            InstKind::Sync { next, .. } => {
                counts.syncs += 1;
                next
            }
            _ => continue,
        };
        *func.inst_mut(inst) = InstKind::Jump(BlockCall::to(target));
    }
    // Every Tapir terminator was placed or dead: nothing names a region any
    // more (a dead instruction is never read), so the function has none.
    func.sync_regions.clear();
    counts
}
