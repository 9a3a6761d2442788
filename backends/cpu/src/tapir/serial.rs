//! The serial target: the serial projection, spelled with the outlined
//! functions. A spawn is a direct call (the task runs to completion before
//! the continuation, which is a valid schedule), a sync does nothing, and a
//! parallel loop calls its body on the whole range — or on consecutive
//! chunks of `grain` iterations, so that tests exercise the chunk
//! boundaries the runtime will use.

use super::{FrameState, TargetImpl};
use parc_ir::{BinaryOp, BlockCall, FuncBuilder, FuncId, IntCC, SyncRegion, Type, Value};

pub(crate) struct SerialTarget {
    /// Chunk size for parallel loops (`None`: one chunk).
    pub grain: Option<u64>,
}

impl TargetImpl for SerialTarget {
    fn spawn(
        &self,
        b: &mut FuncBuilder,
        _frame: &mut FrameState,
        _region: SyncRegion,
        task: FuncId,
        ctx: Value,
        _ctx_size: u32,
    ) {
        // The context is the parent's buffer itself: the task reads it at
        // its entry, before the parent could overwrite it.
        b.call(task, None, vec![ctx]);
    }

    /// Never called: a serial spawn makes no group.
    fn wait(&self, _b: &mut FuncBuilder, _group: Value) {}

    fn parallel_for(&self, b: &mut FuncBuilder, body: FuncId, trip: Value, ctx: Value) {
        let zero = b.iconst(Type::I64, 0);
        let Some(grain) = self.grain else {
            b.call(body, None, vec![ctx, zero, trip]);
            return;
        };
        // for (s = 0; s < trip; s = e) { e = min(s + grain, trip); body(ctx, s, e); }
        let head = b.create_block();
        let chunk = b.create_block();
        let done = b.create_block();
        b.jump(head, vec![zero]);
        b.switch_to(head);
        let s = b.param(head, Type::I64);
        let more = b.icmp(IntCC::Slt, s, trip);
        b.brif(more, BlockCall::to(chunk), BlockCall::to(done));
        b.switch_to(chunk);
        let g = b.iconst(Type::I64, grain as i64);
        let e = b.binary(BinaryOp::Iadd, s, g);
        let short = b.icmp(IntCC::Slt, e, trip);
        let e = b.select(short, e, trip);
        b.call(body, None, vec![ctx, s, e]);
        b.jump(head, vec![e]);
        b.switch_to(done);
    }
}
