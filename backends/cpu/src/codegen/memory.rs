//! Memory accesses, `alloca`s and inline `memset`/`memcpy`.
//!
//! Loads and stores use `MemFlags::new()` (may trap, no
//! alignment claim): user pointers are not trusted. An address `ptradd q,
//! c` with a 32-bit constant `c` becomes the access's own displacement
//! (`load q + c`), which Cranelift folds into the x64 addressing mode
//! together with a scaled index in `q`. `i1` is stored as a
//! byte and loaded as a byte masked to bit 0. An `alloca` is a CLIF
//! explicit stack slot of its size and alignment, zero-filled where the
//! instruction stands (each time it executes), inline up to
//! [`INLINE_ZERO_MAX`] bytes and by `memset` beyond. One slot per `alloca`
//! instruction: an `alloca` executed again (in a loop) reuses the same
//! memory, fresh zeros included; the front end and Tapir lowering only
//! place `alloca`s in entry blocks and tasks' first blocks, where this is
//! the parir semantics. An `alloca` whose address is only ever the address
//! of loads and stores of one type filling it is not memory at all but a
//! CLIF variable (see `promotable_allocas`): scalar `mem2reg`, so that
//! modules fresh from the front end do not keep every local on the stack.

use super::function::FnTranslator;
use crate::BackendError;
use crate::intrinsics::{self as ix};
use cranelift_codegen::ir::{
    self as cl, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, types,
};
use cranelift_module::Module as ClModule;
use parc_ir::{Function, InstKind, Type, Value};
use std::collections::{HashMap, HashSet};

/// `alloca`s up to this size are zeroed with inline stores, and `memset`s
/// of a constant byte and length up to this size are inline stores.
pub(crate) const INLINE_ZERO_MAX: u32 = 128;

/// `memcpy`s of a constant length up to this size are inline loads and
/// stores (a small struct's copy, a local array's).
pub(super) const INLINE_COPY_MAX: u32 = 64;

/// The pieces (offset, type) that cover `size` bytes with inline accesses:
/// the widest first (x86-64 and AArch64 allow unaligned ones).
pub(super) fn inline_pieces(size: u32) -> Vec<(u32, cl::Type)> {
    let mut pieces = Vec::new();
    let mut off = 0u32;
    for (width, ty) in [
        (8, types::I64),
        (4, types::I32),
        (2, types::I16),
        (1, types::I8),
    ] {
        while off + width <= size {
            pieces.push((off, ty));
            off += width;
        }
    }
    pieces
}

/// `(q, c)` if `p` is `ptradd q, c` with a 32-bit constant `c`: a load or
/// store at `p` reads `q` and has `c` as its own displacement, which
/// Cranelift's x64 lowering folds into the addressing mode together with a
/// scaled index in `q`. (It looks through one addition when it sinks a
/// load into arithmetic, so `(q + 8j) + 8` as a value would cost an `lea`
/// of `q + 8j`; as the load's displacement it costs nothing.)
pub(super) fn displaced(f: &Function, p: Value) -> Option<(Value, i32)> {
    let parc_ir::ValueDef::Result(i) = f.value_def(p) else {
        return None;
    };
    let InstKind::PtrAdd(q, c) = *f.inst(i) else {
        return None;
    };
    Some((q, i32::try_from(f.const_int(c)?).ok()?))
}

/// The `alloca`s that can live in a register instead of memory, with
/// their type: their address is used only as the address of loads and
/// stores, all of one type that fills the allocation exactly. Their
/// address cannot escape, so no other code or thread can see the memory,
/// and each load reads the last store (or the zero fill): a CLIF variable
/// (SSA built by cranelift-frontend) is the same thing, without the stack
/// traffic. This is the scalar part of `mem2reg`; it makes unoptimized
/// modules (locals all in `alloca`s) run at register speed.
pub(super) fn promotable_allocas(f: &Function) -> Vec<(Value, Type)> {
    let mut candidates: HashMap<Value, (u32, Option<Type>)> = HashMap::new();
    for (_, inst) in f.placed_insts() {
        if let InstKind::Alloca { size, .. } = f.inst(inst)
            && let Some(r) = f.result(inst)
        {
            candidates.insert(r, (*size, None));
        }
    }
    let mut escaped = HashSet::new();
    for (_, inst) in f.placed_insts() {
        let kind = f.inst(inst);
        // The type an access through `p` uses, if `p` is used as an address.
        let mut access = |p: Value, ty: Type| {
            if let Some((_, seen)) = candidates.get_mut(&p) {
                match seen {
                    None => *seen = Some(ty),
                    Some(t) if *t == ty => {}
                    Some(_) => {
                        escaped.insert(p);
                    }
                }
            }
        };
        match kind {
            InstKind::Load(p) => {
                let ty = f.result(inst).map(|r| f.value_type(r));
                access(*p, ty.unwrap_or(Type::I64));
            }
            InstKind::Store { value, ptr } => {
                access(*ptr, f.value_type(*value));
                // Storing the address itself lets it escape.
                if candidates.contains_key(value) {
                    escaped.insert(*value);
                }
            }
            other => other.for_each_operand(|v| {
                if candidates.contains_key(&v) {
                    escaped.insert(v);
                }
            }),
        }
    }
    let mut out: Vec<(Value, Type)> = candidates
        .into_iter()
        .filter(|(v, _)| !escaped.contains(v))
        .filter_map(|(v, (size, ty))| {
            let ty = ty?;
            (ty.bytes() == size && !ty.is_vector()).then_some((v, ty))
        })
        .collect();
    out.sort_by_key(|&(v, _)| v);
    out
}

impl<'a, 'b, 'c, M: ClModule> FnTranslator<'a, 'b, 'c, M> {
    /// The address `p` of a load or store as a base and a displacement
    /// (see [`displaced`]): `a[j + 1]`, split by `split-offsets` into
    /// `ptradd (ptradd a, shl j, 3), 8`, is `8(a, j, 8)`.
    pub(super) fn address(&self, p: Value) -> Result<(cl::Value, i32), BackendError> {
        match displaced(self.f, p) {
            Some((q, c)) => Ok((self.val(q)?, c)),
            None => Ok((self.val(p)?, 0)),
        }
    }

    /// `memset(dst, byte, size)` for a small constant `size`: inline
    /// stores of the byte repeated (a call through the PLT costs more than
    /// the stores, and ends the CPU's overlap of the loop around it: an
    /// uninitialized local array in a loop body is zeroed at every
    /// iteration).
    pub(super) fn inline_fill(&mut self, dst: cl::Value, byte: u8, size: u32) {
        for (off, ty) in inline_pieces(size) {
            let pattern = u64::from_ne_bytes([byte; 8]) >> (64 - ty.bits());
            let v = self.b.ins().iconst(ty, pattern as i64);
            self.b.ins().store(MemFlagsData::new(), v, dst, off as i32);
        }
    }

    /// `memcpy(dst, src, size)` for a small constant `size`: every load
    /// before the first store, so that overlapping blocks (undefined for
    /// `memcpy`) still copy as `memmove` does.
    pub(super) fn inline_copy(&mut self, dst: cl::Value, src: cl::Value, size: u32) {
        let pieces = inline_pieces(size);
        let values: Vec<cl::Value> = pieces
            .iter()
            .map(|&(off, ty)| self.b.ins().load(ty, MemFlagsData::new(), src, off as i32))
            .collect();
        for (&(off, _), v) in pieces.iter().zip(values) {
            self.b.ins().store(MemFlagsData::new(), v, dst, off as i32);
        }
    }

    pub(super) fn alloca(&mut self, size: u32, align: u32) -> Result<cl::Value, BackendError> {
        let size = size.max(1);
        let align_shift = align.max(1).next_power_of_two().trailing_zeros() as u8;
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            size,
            align_shift,
        ));
        let addr = self.b.ins().stack_addr(types::I64, slot, 0);
        if size <= INLINE_ZERO_MAX {
            for (off, ty) in inline_pieces(size) {
                let zero = self.b.ins().iconst(ty, 0);
                self.b.ins().stack_store(types::I64, zero, slot, off as i32);
            }
        } else {
            let zero = self.b.ins().iconst(types::I32, 0);
            let n = self.b.ins().iconst(types::I64, i64::from(size));
            self.call_extern(&ix::C_MEMSET, &[addr, zero, n])?;
        }
        Ok(addr)
    }
}
