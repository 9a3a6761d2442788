//! `global-dce`: retires the `local` (`static`) functions nothing can
//! reach (LLVM's GlobalDCE, for functions): their bodies go, their names
//! stay for the source positions of code inlined from them
//! ([`parc_ir::Function::retire`]).
//!
//! A function is *reachable* when it is a root — visible outside the
//! module (`export` or `import`), or the primal or gradient of a gradient
//! request (the AD, which may run later, reads the primal's body) — or
//! when an instruction of a reachable function names it: a call, a
//! `launch` or a `func_addr` (a code pointer handed to the runtime or
//! called indirectly). A function whose address a global's initial image
//! holds is a root too.
//!
//! Inlining leaves the bodies it copied behind: a `static` function whose
//! every call was replaced is unreachable now, and so is every `static`
//! function of a shipped header the program never calls. Removing them
//! spares every later pass and the backend their bodies. In an executable,
//! whose functions the driver makes `local` first (`internalize`), this
//! covers every function but `main` and the requested gradients.

use crate::PassContext;
use parc_ir::{FuncId, Linkage, Module};

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let mut reachable = cranelift_entity::EntitySet::<FuncId>::with_capacity(module.funcs.len());
    let mut work: Vec<FuncId> = module
        .funcs
        .iter()
        .filter(|(_, f)| f.linkage != Linkage::Local)
        .map(|(id, _)| id)
        .chain(module.funcs_used_outside_code())
        .collect();
    while let Some(id) = work.pop() {
        if reachable.insert(id) {
            work.extend(module.funcs[id].referenced_functions());
        }
    }
    let mut retired = 0;
    for (id, f) in module.funcs.iter_mut() {
        if f.linkage == Linkage::Local && !f.is_declaration() && !reachable.contains(id) {
            f.retire();
            retired += 1;
        }
    }
    ctx.count("global-dce.retired", retired);
    retired > 0
}
