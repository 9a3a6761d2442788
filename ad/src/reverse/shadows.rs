//! Shadows of `alloca`s that must outlive their frame (split pairs, tasks:
//! see `Plan::heap_shadow`), held on the tape instead of the heap. (Those
//! of a parallel loop's task entry are parts of one block per loop
//! instead: `slabs.rs`.)
//!
//! Such a shadow was `calloc`ed in the forward and freed at the alloca's
//! reverse: two allocator calls per run of the block (per iteration, in a
//! parallel loop's task). Chunks never move (`tape.rs`), so the shadow can
//! instead be slots pushed onto the block's tape where the alloca runs,
//! zeroed, and popped at the alloca's reverse: everything pushed after it
//! in the forward is popped before it in the reverse (LIFO), and the
//! reverse pushes nothing onto a tape it pops. The slots are not records:
//! their push and pop note nothing (the chunks are noted as allocated), so
//! `PARC_AD_STATS` keeps matching `--explain-tape`.
//!
//! Invariant: only where the block's tape grows by pushes — not a kernel
//! thread's slice or a sized task's part of a buffer (fixed capacity), not
//! inside a loop that reserves its records (their places assume nothing
//! else is pushed there) — and for alignments of at most 8 (tape slots).

use super::*;

impl Gen<'_> {
    /// Slots of the tape that hold `alloca`'s shadow of `size` bytes and
    /// alignment `align`, or `None` where the shadow stays on the heap.
    pub(super) fn tape_shadow_slots(&self, alloca: Inst, size: u32, align: u32) -> Option<i64> {
        if self.plan.launch_body || align > 8 {
            return None;
        }
        let b = *self.plan.inst_block.get(&alloca)?;
        if let Some(TaskOf::Loop(i)) = self.plan.task_of(Some(b))
            && self.plan.sized_tasks.get(i).is_none_or(|s| s.is_some())
        {
            return None;
        }
        let reserving = self
            .plan
            .counted
            .iter()
            .zip(&self.plan.reserved)
            .any(|(c, r)| r.is_some() && c.blocks.contains(&b));
        if reserving {
            return None;
        }
        Some(((i64::from(size) + 7) / 8).max(1))
    }

    /// In the forward, at `alloca` (of primal block `b`): its shadow,
    /// `slots` zeroed slots pushed onto the tape.
    pub(super) fn push_shadow(&mut self, b: Block, slots: i64, size: u32) -> Value {
        let tape = self.fwd_tape(Some(b));
        let n = self.iconst(Type::I64, slots);
        let p = self
            .emit(
                InstKind::Call {
                    func: self.tape_fns.push_unnoted,
                    args: vec![tape, n],
                },
                Some(Type::Ptr),
            )
            .expect("push returns a pointer");
        let zero = self.iconst(Type::I32, 0);
        let bytes = self.iconst(Type::I64, i64::from(size));
        self.effect(Intrinsic::Memset, vec![p, zero, bytes]);
        p
    }

    /// At `alloca`'s reverse (of primal block `b`): its shadow's slots
    /// popped.
    pub(super) fn pop_shadow(&mut self, b: Block, slots: i64) {
        let tape = self.rev_tape(Some(b));
        let n = self.iconst(Type::I64, slots);
        self.emit(
            InstKind::Call {
                func: self.tape_fns.pop_unnoted,
                args: vec![tape, n],
            },
            Some(Type::Ptr),
        );
    }
}
