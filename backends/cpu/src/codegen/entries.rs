//! The generated entry points: the program's main entry, library and
//! C-convention wrappers, and the symbols they export.
//!
//! The program's `main` is always renamed `parc.main` (local); a generated
//! `parc.main_entry(i32 argc, ptr argv) -> i32` adapts it to the runtime's
//! `main` type (`int main()` or `int main(int, char **)`), and for
//! executables and objects a C `main` calls
//! `parc_rt_main(parc.main_entry, argc, argv)`; a library exports the same
//! entry as `int parc_main(int, char **)` (declared in its header) so that a
//! C program linked with it keeps its own `main`. Host functions with
//! `Linkage::Export` keep their names and are exported in objects and
//! libraries; in executables and the JIT every defined function is local,
//! so a program function cannot interpose on a C library symbol the
//! runtime uses. A local function whose name the backend needs for itself
//! (`memcpy`, `pow`, `parc_rt_*` ...) is renamed `parc.fn.NAME`; an
//! exported one is an error. Globals are local data objects (read-only
//! when `is_const`, relocations for their pointer fields).
//!
//! In libraries, an exported function that may spawn (it or a function it
//! reaches calls `parc_rt_spawn`/`parc_rt_sync`) is exported as a wrapper
//! that runs the body on a worker through `parc_rt_enter`, and one that
//! may print calls `parc_rt_flush` before returning, so C callers see the
//! output.

use super::LineTable;
use super::abi::{abi_param, clif_signature, clif_type, from_slot, to_slot};
use super::define::{gen_function, gen_function_with};
use super::lines::register_lines;
use super::{Cx, Effects, PTX_GLOBAL, module_err, resize_int};
use crate::BackendError;
use crate::intrinsics::{self as ix};
use cranelift_codegen::Context;
use cranelift_codegen::ir::{
    self as cl, AbiParam, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, types,
};
use cranelift_frontend::FunctionBuilderContext;
use cranelift_module::{FuncId as ClFuncId, Linkage as ClLinkage, Module as ClModule};
use parc_ir::cabi::{ByValue, Eightbyte, StructPassing};
use parc_ir::{FuncId, Type};

/// `parc.main_entry(i32 argc, ptr argv) -> i32` calling the program's
/// `main`, and for executables and objects the C `main` around it.
pub(super) fn gen_main<M: ClModule>(
    m: &mut M,
    cx: &mut Cx,
    ctx: &mut Context,
    fctx: &mut FunctionBuilderContext,
    main: FuncId,
    lines: LineTable,
) -> Result<ClFuncId, BackendError> {
    let f = &cx.ir.funcs[main];
    let callee = cx.funcs[main.as_u32() as usize].expect("declared");
    let params = f.sig.params.clone();
    let ret = f.sig.ret;
    let ok = params.len() <= 2
        && params.first().is_none_or(|t| t.is_int())
        && params.get(1).is_none_or(|&t| t == Type::Ptr)
        && ret.is_none_or(|t| t.is_int());
    if !ok {
        return Err(BackendError::Invalid(format!(
            "`main` has an unsupported signature {:?} -> {:?}; use `int main()` or `int main(int argc, char **argv)`",
            params, ret
        )));
    }
    let set_lines = cx.extern_fn(m, &ix::RT_SET_LINES)?;
    // The kernels' PTX, which the driver put in the module as the global
    // `parc.ptx` (see `PTX_GLOBAL`): registered before `main` runs.
    let ptx = match cx.ir.global_by_name(PTX_GLOBAL) {
        Some(g) => {
            let data = cx.data[g.as_u32() as usize]
                .ok_or_else(|| BackendError::Invalid("the PTX global was not defined".into()))?;
            Some((
                data,
                cx.ir.globals[g].size,
                cx.extern_fn(m, &ix::RT_SET_PTX)?,
            ))
        }
        None => None,
    };
    let sym = cx.fresh("parc.main_entry");
    let sig = clif_signature(m, &[Type::I32, Type::Ptr], Some(Type::I32));
    let entry = m
        .declare_function(&sym, ClLinkage::Local, &sig)
        .map_err(|e| module_err("declaring the main entry", e))?;
    gen_function(
        m,
        ctx,
        fctx,
        entry,
        &[Type::I32, Type::Ptr],
        Some(Type::I32),
        |m, b, ps| {
            register_lines(m, b, lines, set_lines);
            if let Some((data, size, set_ptx)) = ptx {
                let gv = m.declare_data_in_func(data, b.func);
                let text = b.ins().symbol_value(types::I64, gv);
                let len = b.ins().iconst(types::I64, size as i64);
                let set = m.declare_func_in_func(set_ptx, b.func);
                b.ins().call(set, &[text, len]);
            }
            let mut args = Vec::new();
            if let Some(&t) = params.first() {
                let v = resize_int(b, ps[0], clif_type(t), true);
                args.push(if t == Type::I1 {
                    b.ins().band_imm_u(v, 1)
                } else {
                    v
                });
            }
            if params.len() == 2 {
                args.push(ps[1]);
            }
            let fref = m.declare_func_in_func(callee, b.func);
            let call = b.ins().call(fref, &args);
            let status = match ret {
                Some(t) => {
                    let r = b.inst_results(call)[0];
                    resize_int(b, r, types::I32, t != Type::I1)
                }
                None => b.ins().iconst(types::I32, 0),
            };
            b.ins().return_(&[status]);
            Ok(())
        },
    )?;

    if let Some(c_name) = cx.flavor.c_main() {
        if cx.taken.contains(c_name) {
            return Err(BackendError::Invalid(format!(
                "the symbol `{c_name}` is already in use"
            )));
        }
        cx.taken.insert(c_name.into());
        let rt_main = cx.extern_fn(m, &ix::RT_MAIN)?;
        let c_main = m
            .declare_function(c_name, ClLinkage::Export, &sig)
            .map_err(|e| module_err(&format!("declaring `{c_name}`"), e))?;
        gen_function(
            m,
            ctx,
            fctx,
            c_main,
            &[Type::I32, Type::Ptr],
            Some(Type::I32),
            |m, b, ps| {
                let entry_ref = m.declare_func_in_func(entry, b.func);
                let addr = b.ins().func_addr(types::I64, entry_ref);
                let rt = m.declare_func_in_func(rt_main, b.func);
                let call = b.ins().call(rt, &[addr, ps[0], ps[1]]);
                let status = b.inst_results(call)[0];
                b.ins().return_(&[status]);
                Ok(())
            },
        )?;
    }
    Ok(entry)
}

/// The exported wrapper of library function `id` (see the module doc),
/// named `name` (local when a C-convention wrapper exports it in turn).
#[allow(clippy::too_many_arguments)]
pub(super) fn gen_lib_wrapper<M: ClModule>(
    m: &mut M,
    cx: &mut Cx,
    ctx: &mut Context,
    fctx: &mut FunctionBuilderContext,
    id: FuncId,
    effects: &Effects,
    name: &str,
    linkage: ClLinkage,
    lines: LineTable,
) -> Result<ClFuncId, BackendError> {
    let f = &cx.ir.funcs[id];
    let inner = cx.funcs[id.as_u32() as usize].expect("declared");
    let sig = f.sig.clone();
    let n = sig.params.len();
    let i = id.as_u32() as usize;
    let (spawns, prints) = (effects.spawns[i], effects.prints[i]);
    let wrapper = m
        .declare_function(name, linkage, &clif_signature(m, &sig.params, sig.ret))
        .map_err(|e| module_err(&format!("declaring `{}`", f.name), e))?;

    // The thunk the runtime calls on a worker: arguments and result in a
    // `u64` slot array.
    let thunk = if spawns {
        let sym = cx.fresh(&format!("parc.enter.{}", f.name));
        let t = m
            .declare_function(
                &sym,
                ClLinkage::Local,
                &clif_signature(m, &[Type::Ptr], None),
            )
            .map_err(|e| module_err("declaring an entry thunk", e))?;
        let sig = sig.clone();
        gen_function(m, ctx, fctx, t, &[Type::Ptr], None, |m, b, ps| {
            let args: Vec<cl::Value> = (0..n)
                .map(|k| from_slot(b, ps[0], k, sig.params[k]))
                .collect();
            let fref = m.declare_func_in_func(inner, b.func);
            let call = b.ins().call(fref, &args);
            if sig.ret.is_some() {
                let r = b.inst_results(call)[0];
                b.ins()
                    .store(MemFlagsData::trusted(), r, ps[0], (8 * n) as i32);
            }
            b.ins().return_(&[]);
            Ok(())
        })?;
        Some(t)
    } else {
        None
    };
    let enter = if spawns {
        Some(cx.extern_fn(m, &ix::RT_ENTER)?)
    } else {
        None
    };
    let flush = if prints {
        Some(cx.extern_fn(m, &ix::RT_FLUSH)?)
    } else {
        None
    };

    // A wrapper that enters the worker pool (which installs the fault
    // handlers) registers the line table first, as `main` would: faults
    // in the library's code then name their function and line.
    let lines = match thunk {
        Some(_) => Some((lines, cx.extern_fn(m, &ix::RT_SET_LINES_ONCE)?)),
        None => None,
    };
    gen_function(m, ctx, fctx, wrapper, &sig.params, sig.ret, |m, b, ps| {
        if let Some((table, set_lines)) = lines {
            register_lines(m, b, table, set_lines);
        }
        let result = if let (Some(thunk), Some(enter)) = (thunk, enter) {
            let slot = b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                (8 * (n + 1)) as u32,
                3,
            ));
            for (k, &t) in sig.params.iter().enumerate() {
                let bits = to_slot(b, ps[k], t);
                b.ins().stack_store(types::I64, bits, slot, (8 * k) as i32);
            }
            let addr = b.ins().stack_addr(types::I64, slot, 0);
            let tref = m.declare_func_in_func(thunk, b.func);
            let taddr = b.ins().func_addr(types::I64, tref);
            let eref = m.declare_func_in_func(enter, b.func);
            b.ins().call(eref, &[taddr, addr]);
            sig.ret.map(|t| {
                b.ins()
                    .stack_load(types::I64, clif_type(t), slot, (8 * n) as i32)
            })
        } else {
            let fref = m.declare_func_in_func(inner, b.func);
            let call = b.ins().call(fref, ps);
            sig.ret.map(|_| b.inst_results(call)[0])
        };
        if let Some(flush) = flush {
            let fref = m.declare_func_in_func(flush, b.func);
            b.ins().call(fref, &[]);
        }
        b.ins().return_(&result.into_iter().collect::<Vec<_>>());
        Ok(())
    })?;
    Ok(wrapper)
}

/// How the C-convention wrapper receives one parir parameter.
pub(super) enum CParam {
    /// As itself.
    Scalar(Type),
    /// A struct in registers, one per eightbyte: stored into a stack copy.
    Registers(Vec<Eightbyte>, u32),
    /// A struct copied onto the stack by the caller: its address.
    Stack(u32),
    /// The hidden result pointer of a struct C returns in registers: a
    /// stack slot of the wrapper's.
    Result(u32),
}

/// The exported C-convention wrapper of function `id`, which calls
/// `target` (the function, or its library wrapper) with parir's
/// convention: struct parameters arrive in registers or as stack copies
/// (System V x86-64: at most six general and eight SSE registers; a struct
/// that does not fit in those left goes on the stack whole), and a struct
/// result of at most 16 bytes leaves in registers.
pub(super) fn gen_c_wrapper<M: ClModule>(
    m: &mut M,
    cx: &mut Cx,
    ctx: &mut Context,
    fctx: &mut FunctionBuilderContext,
    id: FuncId,
    target: ClFuncId,
) -> Result<(), BackendError> {
    let f = &cx.ir.funcs[id];
    let name = f.name.clone();
    let sig = f.sig.clone();
    let Some(csig) = f.c_sig.as_deref().cloned() else {
        return Err(BackendError::Invalid(format!(
            "`{name}` has no C signature"
        )));
    };
    let result_regs = match &csig.ret {
        Some(ByValue {
            passing: StructPassing::Registers(classes),
            size,
            ..
        }) => Some((classes.clone(), *size)),
        _ => None,
    };
    let (mut ints, mut sses) = (6u32, 8u32);
    let mut plan = Vec::with_capacity(sig.params.len());
    for (k, &t) in sig.params.iter().enumerate() {
        let by_value = csig.params.get(k).cloned().flatten();
        plan.push(match by_value {
            None if k == 0 && csig.ret.is_some() => match &result_regs {
                Some((_, size)) => CParam::Result(*size),
                None => {
                    ints = ints.saturating_sub(1);
                    CParam::Scalar(t)
                }
            },
            None => {
                if matches!(t, Type::F32 | Type::F64) {
                    sses = sses.saturating_sub(1);
                } else {
                    ints = ints.saturating_sub(1);
                }
                CParam::Scalar(t)
            }
            Some(ByValue {
                passing: StructPassing::Registers(classes),
                size,
                ..
            }) => {
                let need_int = classes.iter().filter(|&&c| c == Eightbyte::Integer).count() as u32;
                let need_sse = classes.len() as u32 - need_int;
                if need_int <= ints && need_sse <= sses {
                    ints -= need_int;
                    sses -= need_sse;
                    CParam::Registers(classes, size)
                } else {
                    CParam::Stack(size)
                }
            }
            Some(ByValue { size, .. }) => CParam::Stack(size),
        });
    }
    let eightbyte_type = |c: Eightbyte| match c {
        Eightbyte::Integer => types::I64,
        Eightbyte::Sse => types::F64,
    };
    let mut csig_cl = m.make_signature();
    for p in &plan {
        match p {
            CParam::Scalar(t) => csig_cl.params.push(abi_param(*t)),
            CParam::Registers(classes, _) => csig_cl
                .params
                .extend(classes.iter().map(|&c| AbiParam::new(eightbyte_type(c)))),
            // Each stack argument takes a multiple of eight bytes.
            CParam::Stack(size) => csig_cl.params.push(AbiParam::special(
                types::I64,
                cl::ArgumentPurpose::StructArgument(size.next_multiple_of(8)),
            )),
            CParam::Result(_) => {}
        }
    }
    match &result_regs {
        Some((classes, _)) => csig_cl
            .returns
            .extend(classes.iter().map(|&c| AbiParam::new(eightbyte_type(c)))),
        None => csig_cl.returns.extend(sig.ret.map(abi_param)),
    }
    let wrapper = m
        .declare_function(&name, ClLinkage::Export, &csig_cl)
        .map_err(|e| module_err(&format!("declaring `{name}`"), e))?;

    gen_function_with(m, ctx, fctx, wrapper, csig_cl, |m, b, incoming| {
        let mut next = incoming.iter().copied();
        let mut take = || next.next().expect("one block parameter per C parameter");
        let mut args = Vec::with_capacity(plan.len());
        let mut result_slot = None;
        for p in &plan {
            match p {
                CParam::Scalar(_) | CParam::Stack(_) => args.push(take()),
                CParam::Registers(classes, size) => {
                    let bytes = (*size).next_multiple_of(8).max(8 * classes.len() as u32);
                    let slot = b.create_sized_stack_slot(StackSlotData::new(
                        StackSlotKind::ExplicitSlot,
                        bytes,
                        3,
                    ));
                    for j in 0..classes.len() {
                        let v = take();
                        b.ins().stack_store(types::I64, v, slot, (8 * j) as i32);
                    }
                    args.push(b.ins().stack_addr(types::I64, slot, 0));
                }
                CParam::Result(size) => {
                    let slot = b.create_sized_stack_slot(StackSlotData::new(
                        StackSlotKind::ExplicitSlot,
                        (*size).next_multiple_of(8).max(16),
                        3,
                    ));
                    result_slot = Some(slot);
                    args.push(b.ins().stack_addr(types::I64, slot, 0));
                }
            }
        }
        let fref = m.declare_func_in_func(target, b.func);
        let call = b.ins().call(fref, &args);
        let results: Vec<cl::Value> = match (&result_regs, result_slot) {
            (Some((classes, _)), Some(slot)) => classes
                .iter()
                .enumerate()
                .map(|(j, &c)| {
                    b.ins()
                        .stack_load(types::I64, eightbyte_type(c), slot, (8 * j) as i32)
                })
                .collect(),
            _ => b.inst_results(call).to_vec(),
        };
        b.ins().return_(&results);
        Ok(())
    })
}
