//! `internalize`: in a whole program, every exported function but `main`
//! becomes `local` (`static`), as `gcc -fwhole-program` and LTO's
//! internalization do.
//!
//! The driver runs it, before the pipeline, only when the module is the
//! whole program: an executable (or `parc run`) that links no native
//! object or library which could call back into it by name. Nothing
//! outside can call the functions then, so what C allows only for
//! `static` ones holds for all: `inline`'s one-call-site rule copies a
//! function into its only caller, `global-dce` drops the body left
//! behind, and `dead-return` drops results no caller uses.
//!
//! Kernels keep their linkage (the GPU backend names them in the PTX it
//! embeds), and so do declarations. Gradients are made later, by the AD,
//! with the linkage their request asks for: a `--grad f` gradient stays
//! exported.

use crate::PassContext;
use parc_ir::{FuncKind, Linkage, Module};

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let mut n = 0;
    for f in module.funcs.values_mut() {
        if f.linkage == Linkage::Export
            && !f.is_declaration()
            && f.kind != FuncKind::Kernel
            && f.name != "main"
        {
            f.linkage = Linkage::Local;
            n += 1;
        }
    }
    ctx.count("internalize.functions", n);
    n > 0
}
