//! Variable-length arrays as locals (`double a[n][m];`, C99 6.7.5.2).
//!
//! parir's `alloca` has a constant size, and Cranelift has no stack slot
//! of run-time size, so the bytes come from the heap: the array's local
//! is a slot (an `alloca` of one pointer, null when its frame starts)
//! holding the address of zeroed memory from `calloc`. Each time the
//! declaration runs, the memory of its previous run is freed first (the
//! array's lifetime ended when control left its block or went round the
//! loop), and when the frame ends (the function returns, a `parallel_for`
//! iteration's task ends) every slot of the frame is freed. So a
//! declaration in a loop holds one array at a time, however many times it
//! runs, and an array lives at most until its frame ends, as on a stack.
//!
//! A spawned call may still read an array when its declaration runs again
//! (`for (...) { double a[n]; spawn f(a); }`: in C the array's lifetime
//! ends with the iteration, while the call may outlive it). So where that
//! can happen — the declaration is in a loop of its frame that spawns, or
//! the frame spawns and has a `goto` — the declaration first waits for the
//! frame's spawned calls (a `sync`) when there is an array to free: the
//! array lives until the calls it was handed end, and such a loop's calls
//! run one after another with the rest of the next iteration. An array
//! declared before the loop, or in a `parallel_for` body, needs no wait.
//! Jumps into the scope of an array are refused by the checker, so every
//! use follows a run of the declaration.
//!
//! Because the memory is ordinary `calloc`/`free`, the optimizer's passes
//! and the AD (which gives `calloc` a shadow `calloc`) treat it as they
//! treat a program's own heap memory; nothing downstream of lowering
//! knows of variable-length arrays.

use super::func::FnLowerer;
use crate::hir::{CType, LocalId};
use parc_ir::{BinaryOp, BlockCall, IntCC, Intrinsic, Type, Value};

impl FnLowerer<'_, '_> {
    /// The slot of variable-length array `local`, made in the current
    /// frame on first mention.
    pub(super) fn vla_slot(&mut self, local: LocalId) -> Value {
        if let Some(slot) = self.vla_slots[local.0 as usize] {
            return slot;
        }
        // `alloca`s are zero-filled: the slot starts null in each frame
        // instance, so the first `free` does nothing.
        let slot = self.frame_alloca(8, 8);
        self.vla_slots[local.0 as usize] = Some(slot);
        if let Some(frame) = self.frames.last_mut() {
            frame.vla_slots.push(slot);
        }
        slot
    }

    /// The declaration of `local` running: frees the array of its previous
    /// run and allocates a new one (the checker has checked the lengths).
    pub(super) fn vla_decl(&mut self, local: LocalId) {
        let ty = self.hf.locals[local.0 as usize].ty.clone();
        let slot = self.vla_slot(local);
        let bytes = self.vla_bytes(&ty);
        let old = self.b.load(Type::Ptr, slot);
        if self.vla_waits.contains(&local) {
            self.wait_for_readers(old);
        }
        self.b.intrinsic(Intrinsic::Free, None, vec![old]);
        let one = self.iconst64(1);
        let p = self
            .b
            .intrinsic(Intrinsic::Calloc, Some(Type::Ptr), vec![bytes, one])
            .expect("calloc has a result");
        self.b.store(p, slot);
    }

    /// Before the array of a declaration's last run (`old`, null on the
    /// first run) is freed: waits for the frame's spawned calls, which
    /// may have been handed the array (the declaration is in a loop that
    /// spawns, see `scopes::waiting_vlas`).
    fn wait_for_readers(&mut self, old: Value) {
        let region = self.current_region();
        let null = self.zero(Type::Ptr);
        let live = self.b.icmp(IntCC::Ne, old, null);
        let wait = self.b.create_block();
        let free = self.b.create_block();
        self.b.brif(live, BlockCall::to(wait), BlockCall::to(free));
        self.b.switch_to(wait);
        self.sync(region);
        self.b.jump(free, Vec::new());
        self.b.switch_to(free);
    }

    /// The size in bytes of a value of type `ty`, whose lengths are in
    /// the hidden `long` locals of its `VarArray`s.
    fn vla_bytes(&mut self, ty: &CType) -> Value {
        match ty {
            CType::VarArray(e, Some(k)) => {
                let inner = self.vla_bytes(e);
                let addr = self.local_addr(*k);
                let len = self.b.load(Type::I64, addr);
                self.b.binary(BinaryOp::Imul, len, inner)
            }
            CType::Array(e, n) if e.has_variable_size() => {
                let inner = self.vla_bytes(e);
                let n = self.iconst64(*n as i64);
                self.b.binary(BinaryOp::Imul, n, inner)
            }
            // `[*]` is only in prototypes (the checker refuses it here).
            _ => {
                let size = self.cx.layout.size_of(ty);
                self.iconst64(size as i64)
            }
        }
    }

    /// Frees the variable-length arrays of the current frame, as it ends.
    pub(super) fn free_frame_vlas(&mut self) {
        let slots = self
            .frames
            .last()
            .map(|f| f.vla_slots.clone())
            .unwrap_or_default();
        for slot in slots {
            let p = self.b.load(Type::Ptr, slot);
            self.b.intrinsic(Intrinsic::Free, None, vec![p]);
        }
    }
}
