//! parir types as CLIF types, C signatures, `u64` argument slots, and calls
//! of variadic C functions.
//!

use super::module_err;
use crate::BackendError;
use cranelift_codegen::ir::{self as cl, AbiParam, InstBuilder, MemFlagsData, types};
use cranelift_frontend::FunctionBuilder;
use cranelift_module::{FuncId as ClFuncId, Linkage as ClLinkage, Module as ClModule};
use parc_ir::Type;

/// The CLIF type of a parir type.
pub(crate) fn clif_type(ty: Type) -> cl::Type {
    match ty {
        Type::I1 | Type::I8 => types::I8,
        Type::I16 => types::I16,
        Type::I32 => types::I32,
        Type::I64 | Type::Ptr => types::I64,
        Type::F32 => types::F32,
        Type::F64 => types::F64,
        Type::F64x2 => types::F64X2,
        Type::F32x4 => types::F32X4,
        Type::I64x2 => types::I64X2,
        Type::I32x4 => types::I32X4,
    }
}

pub(super) fn abi_param(ty: Type) -> AbiParam {
    let p = AbiParam::new(clif_type(ty));
    match ty {
        Type::I1 => p.uext(),
        Type::I8 | Type::I16 => p.sext(),
        _ => p,
    }
}

/// The C-ABI CLIF signature of parir parameter and result types.
pub(crate) fn clif_signature(
    m: &impl ClModule,
    params: &[Type],
    ret: Option<Type>,
) -> cl::Signature {
    let mut sig = m.make_signature();
    sig.params.extend(params.iter().map(|&t| abi_param(t)));
    sig.returns.extend(ret.map(abi_param));
    sig
}

/// Cranelift cannot call a variadic C function: System V x86-64 wants
/// `%al` to bound the number of vector registers the call passes
/// arguments in, and Cranelift sets no such register. Otherwise the call
/// is an ordinary one with the promoted arguments, so each variadic
/// import gets a stub, called through a pointer with each call's own
/// signature, that sets `%al` to 8 (always a valid bound) and jumps to the
/// function, leaving every argument register as it was:
/// `mov al, 8; jmp *f@GOTPCREL(%rip)` in position-independent objects,
/// `mov al, 8; movabs r11, f; jmp r11` in the JIT.
pub(super) fn define_variadic_stub(
    m: &mut impl ClModule,
    sym: &str,
    target: ClFuncId,
) -> Result<ClFuncId, BackendError> {
    use cranelift_codegen::binemit::Reloc;
    use cranelift_module::{ModuleReloc, ModuleRelocTarget};
    if m.isa().name() != "x64" {
        return Err(BackendError::Codegen(
            "calls of variadic C functions are only supported on x86-64".into(),
        ));
    }
    let sig = m.make_signature();
    let stub = m
        .declare_function(sym, ClLinkage::Local, &sig)
        .map_err(|e| module_err("declaring a variadic call stub", e))?;
    let pic = m.isa().flags().is_pic();
    let (bytes, kind, offset, addend): (Vec<u8>, Reloc, u32, i64) = if pic {
        (
            vec![0xB0, 0x08, 0xFF, 0x25, 0, 0, 0, 0],
            Reloc::X86GOTPCRel4,
            4,
            -4,
        )
    } else {
        let mut b = vec![0xB0, 0x08, 0x49, 0xBB];
        b.extend([0; 8]);
        b.extend([0x41, 0xFF, 0xE3]);
        (b, Reloc::Abs8, 4, 0)
    };
    let reloc = ModuleReloc {
        offset,
        kind,
        name: ModuleRelocTarget::from(target),
        addend,
    };
    m.define_function_bytes(stub, 16, &bytes, &[reloc])
        .map_err(|e| module_err("defining a variadic call stub", e))?;
    Ok(stub)
}

/// A value of parir type `ty` as a 64-bit slot: integers sign-extended
/// (`i1` zero-extended), floats as bits (zero-extended), pointers as is.
pub(super) fn to_slot(b: &mut FunctionBuilder, v: cl::Value, ty: Type) -> cl::Value {
    match ty {
        Type::I1 => b.ins().uextend(types::I64, v),
        Type::I8 | Type::I16 | Type::I32 => b.ins().sextend(types::I64, v),
        Type::I64 | Type::Ptr => v,
        Type::F32 => {
            let bits = b.ins().bitcast(types::I32, MemFlagsData::new(), v);
            b.ins().uextend(types::I64, bits)
        }
        Type::F64 => b.ins().bitcast(types::I64, MemFlagsData::new(), v),
        Type::F64x2 | Type::F32x4 | Type::I64x2 | Type::I32x4 => {
            unreachable!("no signature has a vector type (verifier)")
        }
    }
}

/// Reads slot `i` of the `u64` array at `base` back as parir type `ty`.
pub(super) fn from_slot(b: &mut FunctionBuilder, base: cl::Value, i: usize, ty: Type) -> cl::Value {
    // Little-endian: a narrow value is in the slot's first bytes.
    let v = b
        .ins()
        .load(clif_type(ty), MemFlagsData::trusted(), base, (8 * i) as i32);
    if ty == Type::I1 {
        b.ins().band_imm_u(v, 1)
    } else {
        v
    }
}
