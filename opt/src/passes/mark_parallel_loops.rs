//! `mark-parallel-loops`: reports the parallel loops of every function
//! (`--stats` counter `tapir.parallel-loops`) and changes nothing.
//!
//! Why marking is an analysis here: parir has no loop metadata, and the
//! spawning itself is done later by the CPU backend's Tapir lowering, which
//! recognizes the front end's `parallel_for` shape and turns it into one
//! chunked runtime call. So "marking" a loop parallel means checking that
//! it still has that shape after optimization; the check is
//! parir's [`parc_ir::analysis::tapir_loops`], which the CPU backend and
//! the AD call themselves. Running it at the end of the pipeline (and
//! reading the counter) shows whether the optimizer kept every loop in the
//! shape the backend lowers as a whole rather than spawn by spawn.

use crate::PassContext;
use parc_ir::Module;
use parc_ir::analysis::tapir_loops;

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let found: usize = crate::functions_with_tapir(module)
        .into_iter()
        .map(|id| tapir_loops::find(&module.funcs[id]).len())
        .sum();
    ctx.count("tapir.parallel-loops", found as u64);
    false
}
