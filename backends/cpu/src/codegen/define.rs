//! Defining globals and functions in the Cranelift module: the `__shared__`
//! layout, code placement, small generated functions.
//!

use super::CodeRange;
use super::abi::clif_signature;
use super::{Cx, DUMP_ENV, module_err};
use crate::BackendError;
use crate::intrinsics::{self as ix};
use cranelift_codegen::Context;
use cranelift_codegen::ir::{self as cl, UserFuncName};
use cranelift_codegen::isa::TargetIsa;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{
    DataDescription, FuncId as ClFuncId, Linkage as ClLinkage, Module as ClModule, ModuleError,
    ModuleReloc,
};
use parc_ir::{AddrSpace, Type};

/// Lays out the `__shared__` segment and defines every global-memory
/// global as a data object.
pub(super) fn define_globals(m: &mut impl ClModule, cx: &mut Cx) -> Result<(), BackendError> {
    let ir = cx.ir;
    for (id, g) in ir.globals.iter() {
        let i = id.as_u32() as usize;
        match g.space {
            AddrSpace::Shared => {
                let align = u64::from(g.align.max(1));
                let offset = cx.shared_bytes.next_multiple_of(align);
                cx.shared_offset[i] = offset;
                cx.shared_bytes = offset + g.size;
            }
            AddrSpace::Global if g.is_import => {
                // Defined in C or another module: linked by its own name.
                let did = m
                    .declare_data(&g.name, ClLinkage::Import, !g.is_const, false)
                    .map_err(|e| module_err(&format!("declaring global `{}`", g.name), e))?;
                cx.data[i] = Some(did);
            }
            AddrSpace::Global => {
                let base = if ix::is_reserved(&g.name) || cx.taken.contains(&g.name) {
                    format!("parc.data.{}", g.name)
                } else {
                    g.name.clone()
                };
                let sym = cx.fresh(&base);
                let did = m
                    .declare_data(&sym, ClLinkage::Local, !g.is_const, false)
                    .map_err(|e| module_err(&format!("declaring global `{}`", g.name), e))?;
                cx.data[i] = Some(did);
            }
        }
    }
    // The runtime hands out 16-aligned segments; keep the size a multiple.
    cx.shared_bytes = cx.shared_bytes.next_multiple_of(16);

    for (id, g) in ir.globals.iter() {
        let Some(did) = cx.data[id.as_u32() as usize] else {
            continue;
        };
        if g.is_import {
            continue;
        }
        let size = g.size.max(g.init.len() as u64).max(1) as usize;
        let mut desc = DataDescription::new();
        if g.init.iter().all(|&b| b == 0)
            && g.relocs.is_empty()
            && g.func_relocs.is_empty()
            && !g.is_const
        {
            desc.define_zeroinit(size);
        } else {
            let mut bytes = g.init.clone();
            bytes.resize(size, 0);
            desc.define(bytes.into_boxed_slice());
        }
        desc.set_align(u64::from(g.align.max(1)));
        for &(offset, target, addend) in &g.relocs {
            let Some(tid) = cx.data[target.as_u32() as usize] else {
                return Err(BackendError::Invalid(format!(
                    "global `{}` holds the address of `__shared__` global `{}`",
                    g.name, ir.globals[target].name
                )));
            };
            let gv = m.declare_data_in_data(tid, &mut desc);
            desc.write_data_addr(offset as u32, gv, addend);
        }
        for &(offset, f) in &g.func_relocs {
            let Some(fid) = cx.funcs[f.as_u32() as usize] else {
                return Err(BackendError::Invalid(format!(
                    "global `{}` holds the address of undeclared function `{}`",
                    g.name, ir.funcs[f].name
                )));
            };
            let fref = m.declare_func_in_data(fid, &mut desc);
            desc.write_function_addr(offset as u32, fref);
        }
        m.define_data(did, &desc)
            .map_err(|e| module_err(&format!("defining global `{}`", g.name), e))?;
    }
    Ok(())
}

pub(super) fn define(
    m: &mut impl ClModule,
    id: ClFuncId,
    ctx: &mut Context,
    name: &str,
) -> Result<(), BackendError> {
    define_recording_lines(m, id, ctx, name, &mut Vec::new(), None)
}

/// [`define`], also putting in `lines` the `[start, end)` offsets of the
/// function's code (as placed) with the `SourceLoc` of the instructions
/// there.
pub(super) fn define_recording_lines(
    m: &mut impl ClModule,
    id: ClFuncId,
    ctx: &mut Context,
    name: &str,
    lines: &mut Vec<CodeRange>,
    isa: Option<&dyn TargetIsa>,
) -> Result<(), BackendError> {
    if std::env::var_os(DUMP_ENV).is_some() {
        eprintln!("; {name}\n{}", ctx.func.display());
    }
    let result = place_function(m, id, ctx, name, lines, isa);
    if std::env::var_os(DUMP_ENV).is_some_and(|v| v == "opt") {
        eprintln!("; {name}, optimized\n{}", ctx.func.display());
    }
    m.clear_context(ctx);
    result
}

/// Compiles `ctx` and defines function `id` with its code placed as
/// `placement.rs` decides: a function with loops starts on a 64-byte
/// boundary after the `nop` padding that makes its innermost loops span
/// the fewest 64-byte blocks (x86-64 only).
pub(super) fn place_function(
    m: &mut impl ClModule,
    id: ClFuncId,
    ctx: &mut Context,
    name: &str,
    lines: &mut Vec<CodeRange>,
    isa: Option<&dyn TargetIsa>,
) -> Result<(), BackendError> {
    // Loops are placed only where Cranelift reports block offsets (not
    // at -O0).
    let x86 = m.isa().name() == "x64" && m.isa().flags().machine_code_cfg_info();
    if let Err(e) = ctx.compile(isa.unwrap_or(m.isa()), &mut Default::default()) {
        return Err(match e.inner {
            cranelift_codegen::CodegenError::Verifier(errs) => BackendError::Codegen(format!(
                "function `{name}`: Cranelift verifier:\n{}",
                cranelift_codegen::print_errors::pretty_verifier_error(e.func, None, errs)
            )),
            other => module_err(
                &format!("function `{name}`"),
                ModuleError::Compilation(other),
            ),
        });
    }
    let compiled = ctx.compiled_code().expect("just compiled");
    let code = compiled.buffer.data();
    let pad = if x86 {
        crate::placement::padding(code.len() as u32, &compiled.bb_starts, &compiled.bb_edges)
    } else {
        None
    };
    let mut align = u64::from(compiled.buffer.alignment);
    let mut bytes = Vec::new();
    if let Some(p) = pad {
        align = align.max(u64::from(crate::placement::FETCH));
        bytes = crate::placement::x86_nops(p);
    }
    let shift = bytes.len() as u32;
    bytes.extend_from_slice(code);
    for s in compiled.buffer.get_srclocs_sorted() {
        let at = s.loc;
        if at.is_default() {
            continue;
        }
        match lines.last_mut() {
            // Neighbouring instructions of one position: one range.
            Some(last) if last.1 == s.start + shift && last.2 == at.bits() => {
                last.1 = s.end + shift
            }
            _ => lines.push((s.start + shift, s.end + shift, at.bits())),
        }
    }
    let relocs: Vec<ModuleReloc> = compiled
        .buffer
        .relocs()
        .iter()
        .map(|r| {
            let mut r = ModuleReloc::from_mach_reloc(r, &ctx.func, id);
            r.offset += shift;
            r
        })
        .collect();
    m.define_function_bytes(id, align, &bytes, &relocs)
        .map_err(|e| module_err(&format!("function `{name}`"), e))
}

/// Builds and defines a small generated function whose body `body` emits
/// (given the entry block's parameters).
#[allow(clippy::too_many_arguments)]
pub(super) fn gen_function<M: ClModule>(
    m: &mut M,
    ctx: &mut Context,
    fctx: &mut FunctionBuilderContext,
    id: ClFuncId,
    params: &[Type],
    ret: Option<Type>,
    body: impl FnOnce(&mut M, &mut FunctionBuilder, &[cl::Value]) -> Result<(), BackendError>,
) -> Result<(), BackendError> {
    let sig = clif_signature(m, params, ret);
    gen_function_with(m, ctx, fctx, id, sig, body)
}

/// [`gen_function`] with a Cranelift signature of its own.
pub(super) fn gen_function_with<M: ClModule>(
    m: &mut M,
    ctx: &mut Context,
    fctx: &mut FunctionBuilderContext,
    id: ClFuncId,
    sig: cl::Signature,
    body: impl FnOnce(&mut M, &mut FunctionBuilder, &[cl::Value]) -> Result<(), BackendError>,
) -> Result<(), BackendError> {
    ctx.func.signature = sig;
    ctx.func.name = UserFuncName::user(0, id.as_u32());
    let cfg = m.target_config();
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let ps = b.block_params(entry).to_vec();
        body(m, &mut b, &ps)?;
        b.seal_all_blocks();
        b.finalize(cfg);
    }
    let name = m
        .declarations()
        .get_function_decl(id)
        .linkage_name(id)
        .into_owned();
    define(m, id, ctx, &name)
}
