//! `devirtualize`: a call through a function pointer that is the address
//! of one known function (`call_indirect (func_addr @f)(args)`, what
//! `mem2reg`, `sccp` and inlining leave of `g = f; g(x)` or of a callback
//! passed to an inlined function) becomes a direct `call @f(args)`, which
//! the other passes understand and inlining and the AD can follow.
//!
//! The call keeps its meaning only if `@f`'s signature is the call's: the
//! same argument types and the same result type (or the call uses no
//! result). Otherwise the C program calls a function through a pointer of
//! the wrong type, which is undefined, and the call is left for the
//! interpreter to report. A variadic `@f` is left alone too (a direct call
//! of it passes its extra arguments another way in native code).
//!
//! Statistics: `devirtualize.calls`.

use crate::PassContext;
use parc_ir::{FuncId, FuncKind, InstKind, Module, Type, Value, ValueDef};

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let sigs: Vec<(Vec<Type>, Option<Type>, bool)> = module
        .funcs
        .values()
        .map(|f| {
            let ok = f.kind == FuncKind::Host && !f.variadic;
            (f.sig.params.clone(), f.sig.ret, ok)
        })
        .collect();
    let mut calls = 0;
    let changed = crate::for_each_function(module, |func| {
        let target = |func: &parc_ir::Function, v: Value| -> Option<FuncId> {
            match func.value_def(v) {
                ValueDef::Result(i) => match func.inst(i) {
                    InstKind::FuncAddr(f) => Some(*f),
                    _ => None,
                },
                _ => None,
            }
        };
        let mut n = 0;
        for b in func.layout.clone() {
            for k in 0..func.block_insts(b).len() {
                let inst = func.block_insts(b)[k];
                let InstKind::CallIndirect { callee, args } = func.inst(inst) else {
                    continue;
                };
                let Some(f) = target(func, *callee) else {
                    continue;
                };
                let Some((params, ret, ok)) = sigs.get(f.as_u32() as usize) else {
                    continue;
                };
                let arg_tys: Vec<Type> = args.iter().map(|&a| func.value_type(a)).collect();
                let result = func.result(inst).map(|r| func.value_type(r));
                let ret_ok = match result {
                    Some(t) => *ret == Some(t),
                    None => true,
                };
                if !ok || arg_tys != *params || !ret_ok {
                    continue;
                }
                let call = InstKind::Call {
                    func: f,
                    args: args.clone(),
                };
                if result.is_some() || ret.is_none() {
                    *func.inst_mut(inst) = call;
                } else {
                    // The call's result is unused but `@f` has one: a new
                    // instruction, with a result nobody reads.
                    let new = func.make_inst(call, *ret);
                    func.locs[new] = func.locs[inst];
                    func.blocks[b].insts[k] = new;
                }
                n += 1;
            }
        }
        calls += n;
        n > 0
    });
    ctx.count("devirtualize.calls", calls);
    changed
}
