//! Workers' tape streams: the iterations of a parallel loop that one
//! worker runs record one after another onto one chunked tape of that
//! worker's (its *stream*), instead of each onto a tape of its own.
//!
//! A task whose records per iteration are not bounded before the loop
//! starts (not `sized_tasks`) had a tape per iteration, grown from empty:
//! several allocations per iteration, and as many half-used blocks spread
//! over the heap. With a stream, an iteration's tape header starts as a
//! copy of its worker's stream header (`pool + 24·worker`, an array of
//! headers the forward of the loop's `pre` allocates) and is copied back
//! when the iteration reattaches, so the next iteration on that worker
//! records right after it; chunks (see `tape.rs`) never move, so each
//! iteration's header keeps describing its records, and its reverse pops
//! them as from a tape of its own (going back to a previous chunk only
//! where the iteration itself overflowed into the next). The streams'
//! chunks are freed after the reverse loop, not by the iterations.
//!
//! Invariant: only a task that cannot be suspended between its entry and
//! its reattach records onto a stream — no `detach`, `sync` or kernel
//! launch in its blocks, nor in any function it may call (an indirect call
//! may call anything). Such an iteration runs on one worker from start to
//! end with no other iteration of the loop between, so a worker's stream
//! has one writer at a time. Kernel thread bodies keep a tape per
//! iteration.

use super::*;
use parc_ir::Module;

/// For each parallel loop of `plan`: whether its iterations record onto
/// their workers' streams.
pub(super) fn pooled_loops(module: &Module, plan: &Plan) -> Vec<bool> {
    plan.ploops
        .iter()
        .enumerate()
        .map(|(i, l)| {
            !plan.launch_body
                && plan.sized_tasks.get(i).is_some_and(|s| s.is_none())
                && !blocks_may_suspend(module, &plan.p, l.task_blocks.iter().copied())
        })
        .collect()
}

/// Whether the code of `blocks` of `f` may detach, sync or launch, itself
/// or in a function it may call.
fn blocks_may_suspend(module: &Module, f: &Function, blocks: impl Iterator<Item = Block>) -> bool {
    let suspends = |k: &InstKind| {
        matches!(
            k,
            InstKind::Detach { .. }
                | InstKind::Sync { .. }
                | InstKind::Launch { .. }
                | InstKind::CallIndirect { .. }
        )
    };
    let mut callees = Vec::new();
    for b in blocks {
        for &i in &f.blocks[b].insts {
            match f.inst(i) {
                k if suspends(k) => return true,
                InstKind::Call { func, .. } => callees.push(*func),
                _ => {}
            }
        }
    }
    module.reaches(callees, |g| {
        g.placed_insts().any(|(_, i)| suspends(g.inst(i)))
    })
}

impl Gen<'_> {
    /// In the forward copy of loop `i`'s `pre`: the workers' stream
    /// headers, empty.
    pub(super) fn forward_pool(&mut self, i: usize) {
        if !self.rl[i].pooled {
            return;
        }
        let nw = self.runtime_count(Intrinsic::NumWorkers);
        let size = self.iconst(Type::I64, HEADER_BYTES as i64);
        let pool = self.ev(
            InstKind::Intrinsic {
                op: Intrinsic::Calloc,
                args: vec![nw, size],
            },
            Type::Ptr,
        );
        self.rl[i].pool_fwd = Some(pool);
    }

    /// At the start of the forward copy of loop `i`'s task, once its tape
    /// header `tape` is known: the header takes over the worker's stream.
    pub(super) fn enter_stream(&mut self, i: usize, tape: Value) {
        let Some(pool) = self.rl[i].pool_fwd else {
            return;
        };
        let w = self.runtime_count(Intrinsic::WorkerId);
        let size = self.iconst(Type::I64, HEADER_BYTES as i64);
        let off = self.binop(BinaryOp::Imul, w, size);
        let stream = self.ev(InstKind::PtrAdd(pool, off), Type::Ptr);
        self.copy_header(stream, tape);
        self.rl[i].stream_fwd = Some(stream);
    }

    /// Before the forward copy of loop `i`'s reattach: the worker's stream
    /// goes on after this iteration's records.
    pub(super) fn leave_stream(&mut self, b: Block) {
        let Some(i) = self.plan.ploops.iter().position(|l| l.reattach == b) else {
            return;
        };
        let (Some(stream), Some(tape)) = (self.rl[i].stream_fwd, self.rl[i].tape_fwd) else {
            return;
        };
        self.copy_header(tape, stream);
    }

    /// `op` (`num_workers` or `worker_id`, an `i32`) as an `i64`.
    fn runtime_count(&mut self, op: Intrinsic) -> Value {
        let v = self.ev(InstKind::Intrinsic { op, args: vec![] }, Type::I32);
        self.ev(InstKind::Cast(CastOp::Sext, v), Type::I64)
    }

    fn copy_header(&mut self, from: Value, to: Value) {
        for (off, ty) in [
            (crate::tape::DATA, Type::Ptr),
            (crate::tape::LEN, Type::I64),
            (crate::tape::CAP, Type::I64),
        ] {
            let src = self.offset(from, off);
            let v = self.ev(InstKind::Load(src), ty);
            let dst = self.offset(to, off);
            self.emit(InstKind::Store { value: v, ptr: dst }, None);
        }
    }

    /// In the reverse of loop `i`'s exit: the pool, for [`Gen::free_pool`]
    /// (one record per run of the loop; the number of workers is the
    /// reverse loop's own).
    pub(super) fn pool_to_reverse(&mut self, i: usize) -> Result<(), AdError> {
        if let Some(pool) = self.rl[i].pool_fwd {
            self.rl[i].pool_rev = Some(self.need(pool)?);
        }
        Ok(())
    }

    /// After loop `i`'s reverse: every stream's chunks, then the pool.
    /// The records were released by the iterations' pops; a stream's
    /// length is cleared first so that freeing it does not release them
    /// again from the tape counters.
    pub(super) fn free_pool(&mut self, i: usize) {
        let Some(pool) = self.rl[i].pool_rev else {
            return;
        };
        let nw = self.rl[i].nw;
        let free = self.tape_fns.free;
        self.emit_for(nw, |g, w| {
            let size = g.iconst(Type::I64, HEADER_BYTES as i64);
            let off = g.binop(BinaryOp::Imul, w, size);
            let stream = g.ev(InstKind::PtrAdd(pool, off), Type::Ptr);
            let len = g.offset(stream, crate::tape::LEN);
            let zero = g.iconst(Type::I64, 0);
            g.emit(
                InstKind::Store {
                    value: zero,
                    ptr: len,
                },
                None,
            );
            g.emit(
                InstKind::Call {
                    func: free,
                    args: vec![stream],
                },
                None,
            );
        });
        self.effect(Intrinsic::Free, vec![pool]);
    }
}
