//! `infer-noalias`: a pointer parameter of a `static` function becomes
//! `noalias` (C's `restrict`) when every call passes it an object of the
//! caller's own that the callee can reach through that parameter only
//! (LLVM's attributor infers `noalias` arguments the same way).
//!
//! The typical case is a helper that fills a small local array from
//! another: `CalcElemVolumeDerivative(pfx, pfy, pfz, x1, y1, z1)` in
//! LULESH, whose six arrays are distinct `alloca`s of its caller. Without
//! the fact, each of its stores to `pfx[k]` may overwrite `x1`, so `gvn`
//! loads every coordinate again after each store, and a gradient records
//! every one of those loads (144 per call instead of the 24 coordinates).
//!
//! # When a parameter is `noalias`
//! Parameter `k` (a `ptr`) of a function `g` becomes `noalias` when `g` is
//! `local`, has a body, is called only directly (no `func_addr`, no
//! gradient request, no global's image names it: [`Module::funcs_used_beyond_calls`]),
//! and at every call of `g`, in the caller's alias analysis:
//! - the argument is based on an `alloca` or a fresh allocation
//!   (`malloc`, `calloc`) that is *private*: never captured and written by
//!   no other strand ([`AliasAnalysis::is_private_local`]). A global is
//!   not enough: `g` may name it directly;
//! - the argument does not alias any other pointer argument of the call
//!   (unknown extents: two offsets into one object are not separated).
//!
//! Then, during the call, the object is reached only through pointers
//! based on parameter `k`: no pointer `g` loads or receives can point into
//! an uncaptured object, no global is it, and no other argument points
//! into it. That is what `restrict` promises (an object modified during
//! the call is accessed only through pointers based on the restricted
//! one), so every reader of `noalias` (the alias analysis's rule 6, the
//! AD's reloads of unwritten `restrict` memory) may use it. The calls are
//! checked as the module is when the pass runs; a later pass keeps the
//! fact true because it keeps each call's objects distinct.

use crate::PassContext;
use crate::analysis::alias::{AliasResult, GlobalFacts};
use crate::analysis::modref::ModRefAnalysis;
use parc_ir::{FuncId, InstKind, Linkage, Module, Type};

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let used = module.funcs_used_beyond_calls();
    // Per candidate function: the pointer parameters not yet `noalias`
    // that every call seen so far allows.
    let mut allowed: Vec<Option<Vec<bool>>> = module
        .funcs
        .iter()
        .map(|(id, f)| {
            let candidate = f.linkage == Linkage::Local
                && !f.is_declaration()
                && !f.variadic
                && !used.contains(id);
            candidate.then(|| {
                (f.sig.params.iter().enumerate())
                    .map(|(k, &ty)| ty == Type::Ptr && !f.param_noalias(k))
                    .collect()
            })
        })
        .collect();
    if allowed.iter().flatten().all(|ks| !ks.contains(&true)) {
        return false;
    }
    let modref = ModRefAnalysis::compute(module);
    let globals = GlobalFacts::new(module);
    for (_, f) in module.funcs.iter() {
        if f.is_declaration() {
            continue;
        }
        let calls: Vec<(FuncId, &[parc_ir::Value])> = f
            .placed_insts()
            .filter_map(|(_, i)| match f.inst(i) {
                InstKind::Call { func, args } => Some((*func, &args[..])),
                _ => None,
            })
            .filter(|(g, _)| {
                allowed[g.as_u32() as usize]
                    .as_ref()
                    .is_some_and(|ks| ks.contains(&true))
            })
            .collect();
        if calls.is_empty() {
            continue;
        }
        let aa = modref.alias_analysis(f, &globals);
        for (g, args) in calls {
            let Some(ks) = allowed[g.as_u32() as usize].as_mut() else {
                continue;
            };
            for (k, &a) in args.iter().enumerate() {
                if !ks.get(k).copied().unwrap_or(false) {
                    continue;
                }
                let alone = aa.is_private_local(aa.base(f, a))
                    && args.iter().enumerate().all(|(j, &b)| {
                        j == k
                            || f.value_type(b) != Type::Ptr
                            || aa.alias(f, a, None, b, None) == AliasResult::NoAlias
                    });
                if !alone {
                    ks[k] = false;
                }
            }
        }
    }
    let mut inferred = 0;
    for (id, f) in module.funcs.iter_mut() {
        let Some(ks) = allowed[id.as_u32() as usize].as_ref() else {
            continue;
        };
        for (k, &ok) in ks.iter().enumerate() {
            if ok {
                f.noalias.push(k as u32);
                inferred += 1;
            }
        }
        f.noalias.sort_unstable();
    }
    ctx.count("infer-noalias.params", inferred);
    inferred > 0
}
