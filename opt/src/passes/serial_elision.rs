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

#[cfg(test)]
mod tests {
    use super::*;
    use parc_ir::interp::{Config, run_main};
    use parc_ir::read::read_module;
    use parc_ir::verify::verify_module;

    /// A spawn whose result crosses through memory, a parallel loop with a
    /// task-local slot, and a nested spawn inside the loop body.
    const PROGRAM: &str = "
func @work(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 3
    v2 = imul v0, v1
    return v2
}
func @main() -> i32 {
block0:
    v0 = alloca 4, align 4
    v1 = alloca 4, align 4
    v2 = iconst.i32 7
    detach within sr0, block1, block2
block1:
    v3 = call @work(v2)
    store v3, v0
    reattach within sr0, block2
block2:
    v4 = iconst.i32 0
    v5 = iconst.i32 4
    jump block3(v4)
block3(v6: i32):
    v7 = icmp slt v6, v5
    brif v7, block4, block9
block4:
    detach within sr1, block5, block8
block5:
    v8 = alloca 4, align 4
    v9 = load.i32 v8
    v10 = iadd v9, v6
    store v10, v8
    detach within sr2, block6, block7
block6:
    v11 = load.i32 v8
    v12 = atomic_add.i32 v1, v11
    reattach within sr2, block7
block7:
    sync within sr2, block10
block10:
    reattach within sr1, block8
block8:
    v13 = iconst.i32 1
    v14 = iadd v6, v13
    jump block3(v14)
block9:
    sync within sr1, block11
block11:
    sync within sr0, block12
block12:
    v15 = load.i32 v0
    v16 = load.i32 v1
    v17 = iadd v15, v16
    return v17
}
";

    fn exit_status(m: &Module) -> i32 {
        let mut out = Vec::new();
        run_main(m, &Config::default(), &mut out).expect("runs")
    }

    #[test]
    fn removes_every_tapir_terminator_and_keeps_the_meaning() {
        let mut m = read_module(PROGRAM).expect("parses");
        verify_module(&m).expect("the input verifies");
        let before = exit_status(&m);
        assert_eq!(before, 21 + (1 + 2 + 3), "work(7) plus the loop's sum");

        let mut ctx = PassContext::default();
        assert!(run(&mut m, &mut ctx));
        verify_module(&m).expect("the elided module verifies");
        assert_eq!(exit_status(&m), before);
        assert_eq!(ctx.stats["serial-elision.detaches"], 3);
        assert_eq!(ctx.stats["serial-elision.syncs"], 3);
        for f in m.funcs.values() {
            assert!(f.sync_regions.is_empty(), "@{} keeps regions", f.name);
            for (_, i) in f.placed_insts() {
                assert!(
                    !matches!(
                        f.inst(i),
                        InstKind::Detach { .. } | InstKind::Reattach { .. } | InstKind::Sync { .. }
                    ),
                    "@{}: {:?} is left",
                    f.name,
                    f.inst(i)
                );
            }
        }
        // The loop's task-local slot stays where it was: in the loop body,
        // executed (and zero-filled) once per iteration.
        // (block4, the loop's former detach block, now jumps to it.)
        let main = &m.funcs[m.func_by_name("main").expect("main")];
        let spawn_iter = main.layout[4];
        let InstKind::Jump(to_body) = main.inst(main.terminator(spawn_iter).expect("terminator"))
        else {
            panic!("the detach became a jump")
        };
        assert!(matches!(
            main.inst(main.block_insts(to_body.block)[0]),
            InstKind::Alloca { size: 4, .. }
        ));

        assert!(!run(&mut m, &mut ctx), "a second run finds nothing");
    }
}
