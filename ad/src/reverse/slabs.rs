//! Shadows of a parallel loop's local arrays in one block per loop.
//!
//! A local array of a parallel loop's body (`double B[24]` in an element
//! loop) has a shadow that must outlive the iteration's frame: the
//! iteration's reverse runs in another task (`Plan::heap_shadow`). It was
//! slots pushed onto the iteration's tape (`shadows.rs`) or, where the
//! task's records have fixed places, `calloc`ed per iteration; either way
//! its address (a call's result) was recorded for the reverse: 8 bytes of
//! tape per iteration and per array, and for `calloc` two allocator calls
//! too. Every iteration's shadow lives from its forward to its reverse,
//! so all of them are live at once anyway: the forward of the loop's
//! `pre` instead `calloc`s one block of `trip` shadows per array (its
//! *slab*), iteration `k`'s shadow is `slab + k·stride`, and the reverse
//! frees the slab after the reverse loop. The address is then a
//! loop-invariant record (once per run of the loop, at its exit) plus
//! the iteration number, which the reverse recomputes: nothing per
//! iteration. `--ad-no-shadow-slabs` (`AdOptions::task_shadow_callocs`)
//! keeps the per-iteration shadows, for measuring.
//!
//! Invariant: only allocas of the task's entry block (run once per
//! iteration, before any loop of the task), whose innermost task is the
//! loop, outside kernel bodies, aligned to at most 16 bytes (what
//! `calloc` returns; the stride is a multiple of the alignment).

use super::*;

/// The most alignment a slab's shadows get: `calloc`'s.
const SLAB_ALIGN: u32 = 16;

impl Gen<'_> {
    /// In the forward copy of loop `i`'s `pre`, given its trip count: a
    /// zeroed slab for each local array of the task's entry whose shadow
    /// would be `calloc`ed per iteration.
    pub(super) fn forward_slabs(&mut self, i: usize, trip: Value) {
        if !self.shadow_slabs || self.plan.launch_body {
            return;
        }
        let entry = self.plan.ploops[i].task_entry;
        if self.plan.task_of(Some(entry)) != Some(TaskOf::Loop(i)) {
            return;
        }
        for inst in self.plan.p.blocks[entry].insts.clone() {
            let InstKind::Alloca { size, align } = *self.plan.p.inst(inst) else {
                continue;
            };
            let eligible = align <= SLAB_ALIGN
                && self.plan.act.is_active_root(Root::Alloca(inst))
                && self.plan.heap_shadow(inst);
            if !eligible {
                continue;
            }
            let stride = self.iconst(Type::I64, slab_stride(size, align));
            let slab = self.ev(
                InstKind::Intrinsic {
                    op: Intrinsic::Calloc,
                    args: vec![trip, stride],
                },
                Type::Ptr,
            );
            self.rl[i].slabs.push((inst, slab));
        }
    }

    /// The loop and the slab (forward) that hold `alloca`'s shadows, if a
    /// slab does.
    pub(super) fn slab_of(&self, alloca: Inst) -> Option<(usize, Value)> {
        self.rl.iter().enumerate().find_map(|(i, r)| {
            r.slabs
                .iter()
                .find(|&&(a, _)| a == alloca)
                .map(|&(_, s)| (i, s))
        })
    }

    /// In the forward copy of the task's entry: `alloca`'s shadow, this
    /// iteration's part of its slab, if a slab holds it.
    pub(super) fn slab_shadow(&mut self, alloca: Inst) -> Option<Value> {
        let (i, slab) = self.slab_of(alloca)?;
        let InstKind::Alloca { size, align } = *self.plan.p.inst(alloca) else {
            return None;
        };
        let k = self.rl[i].slab_k.expect("the task's tape comes first");
        let stride = self.iconst(Type::I64, slab_stride(size, align));
        let off = self.binop(BinaryOp::Imul, k, stride);
        Some(self.ev(InstKind::PtrAdd(slab, off), Type::Ptr))
    }

    /// In the reverse of loop `i`'s exit: its slabs, for freeing after the
    /// reverse loop.
    pub(super) fn slabs_to_reverse(&mut self, i: usize) -> Result<(), AdError> {
        let slabs: Vec<Value> = self.rl[i].slabs.iter().map(|&(_, s)| s).collect();
        self.rl[i].slabs_rev = slabs
            .into_iter()
            .map(|s| self.need(s))
            .collect::<Result<_, _>>()?;
        Ok(())
    }
}

/// The bytes between two iterations' shadows of an alloca of `size`
/// bytes aligned to `align`: at least one byte (as `calloc` of a zero
/// size may return null), rounded up to the alignment.
fn slab_stride(size: u32, align: u32) -> i64 {
    let align = i64::from(align.max(1));
    let size = i64::from(size.max(1));
    (size + align - 1) / align * align
}
