//! The runtime target: spawns, syncs and parallel loops become calls of
//! `parc-runtime`'s entry points (see [`abi`](super::abi)).

use super::abi::{GROUP_ALIGN, GROUP_SIZE, RuntimeAbi};
use super::{FrameState, TargetImpl};
use parc_ir::{FuncBuilder, FuncId, SyncRegion, Type, Value};

pub(crate) struct RuntimeTarget {
    pub abi: RuntimeAbi,
    /// Passed to `parc_rt_parallel_for` (0: the runtime chooses).
    pub grain: u64,
}

impl TargetImpl for RuntimeTarget {
    fn spawn(
        &self,
        b: &mut FuncBuilder,
        frame: &mut FrameState,
        region: SyncRegion,
        task: FuncId,
        ctx: Value,
        ctx_size: u32,
    ) {
        // One group per region and invocation, in the entry block: zeroed
        // by `alloca`, and empty again after each sync, so never reset.
        let group = match frame.groups.get(&region) {
            Some(&group) => group,
            None => {
                let group = frame.alloca(b.func, GROUP_SIZE, GROUP_ALIGN);
                frame.groups.insert(region, group);
                group
            }
        };
        let task_fn = b.func_addr(task);
        let size = b.iconst(Type::I64, i64::from(ctx_size));
        b.call(self.abi.spawn, None, vec![group, task_fn, ctx, size]);
        let site = b.current_block().expect("spawning in a block");
        frame.spawn_sites.entry(region).or_default().push(site);
    }

    fn wait(&self, b: &mut FuncBuilder, group: Value) {
        b.call(self.abi.sync, None, vec![group]);
    }

    fn parallel_for(&self, b: &mut FuncBuilder, body: FuncId, trip: Value, ctx: Value) {
        let zero = b.iconst(Type::I64, 0);
        let grain = b.iconst(Type::I64, self.grain as i64);
        let body_fn = b.func_addr(body);
        b.call(
            self.abi.parallel_for,
            None,
            vec![zero, trip, grain, body_fn, ctx],
        );
    }
}
