//! Tapir lowering: parir with `detach`/`reattach`/`sync` in, parir without
//! them out (OpenCilk's TapirToTarget, on parir).
//!
//! # What the output guarantees
//!
//! - **No Tapir terminators** remain in host functions: every task is
//!   outlined into a helper function and every `sync` is a plain `jump`
//!   (preceded, for the runtime target, by a call of the runtime). Kernels
//!   and device functions are left untouched (the checker keeps `spawn` and
//!   `parallel_for` out of them). Blocks unreachable from the entry are
//!   dropped from host functions that contain Tapir terminators.
//! - **Outlined tasks.** The task of `detach within sr, T, C` becomes
//!   `@<parent>.task<N>(ptr ctx) -> void` (`Linkage::Local`): its blocks
//!   move there, each `reattach within sr, C` becomes `return`. Tasks are
//!   lowered innermost first, in the function that detaches them (see
//!   `plan.rs`): a nested task is outlined from its parent task before the
//!   parent is, into a helper named after the parent's
//!   (`@<parent>.task<N>.task<M>`), so every block moves once. Pure instructions of the detach's block that only the task uses are
//!   first sunk into the task (see `loops.rs`), so that a pass that moved
//!   loop-body arithmetic above the detach does not hide a parallel loop.
//! - **Outlined parallel loops.** A loop of the front end's `parallel_for`
//!   shape (see `loops.rs`) becomes one runtime call and a body function
//!   `@<parent>.loop<N>(ptr ctx, i64 start, i64 end) -> void` that runs
//!   iterations `k` in `[start, end)` serially with `i = lo + k*step`.
//! - **The context.** Values the task uses but does not define — the
//!   parent's SSA values, function parameters, addresses of the parent's
//!   `alloca`s — travel in a context buffer: one `alloca` per task site in
//!   the parent's entry block, which the parent fills right before spawning
//!   and the helper reads once at its entry. Slots are naturally aligned,
//!   largest type first (then first use); the size is rounded up to 8, and
//!   a task that captures nothing gets a null `ctx` and size 0. Constants
//!   and global or function addresses are not captured but re-created in
//!   the helper. A loop body's context also holds `lo` (and `step` unless
//!   it is a constant). See `outline.rs`.
//! - **Parent memory outlives tasks.** Captured `alloca`s stay in the
//!   parent's frame and are passed by address. That is sound because a
//!   function (and an outlined task) returns only after syncing every task
//!   it spawned: the front end puts a `sync` before every `return`, and
//!   this pass adds a `parc_rt_sync` before any `return` that a spawn can
//!   reach without passing a sync of its region (Cilk's implicit sync at
//!   the end of a spawned function), so no frame dies under a running task.
//! - **Runtime calls** ([`Target::Runtime`], declared once per module as
//!   `Linkage::Import` functions, see [`abi`]):
//!   `parc_rt_spawn(ptr group, ptr task_fn, ptr ctx, i64 ctx_size)` for a
//!   detach (the runtime copies `ctx`, so one buffer serves every spawn of a
//!   site), `parc_rt_sync(ptr group)` for a sync, and
//!   `parc_rt_parallel_for(i64 0, i64 trip, i64 grain, ptr body_fn, ptr ctx)`
//!   for a recognized loop (it returns when every iteration has run).
//!   Each sync region that spawns gets a group: a zero-filled 32-byte,
//!   8-aligned `alloca` in the entry block of the function that owns the
//!   region; a synced group is empty again, so one serves every round.
//! - **Serial target** ([`Target::Serial`], the oracle): the same outlining,
//!   with a spawn as a direct `call @task(ctx)`, a sync as a jump, and a
//!   loop as `call @body(ctx, 0, trip)` (or a chain of grain-sized chunks
//!   when [`TapirOptions::grain`] is set), so the interpreter can check the
//!   outlining, the captures and the trip counts. It is this module's test
//!   oracle, not what `parc --serial` compiles: that is the serial elision
//!   (`parc_opt`'s `serial-elision`, before optimization), which outlines
//!   nothing and leaves this lowering nothing to do.
//!
//! Files: `plan.rs` (what is decided before anything is lowered: loop
//! shapes, helpers' names, the order), `outline.rs` (captures, the
//! context, moving blocks), `loops.rs`
//! (recognizing `parallel_for` and its trip count), `places.rs` (where
//! instructions are and who uses a value, across a function's tasks),
//! [`abi`] (the runtime's entry points), `runtime.rs` and `serial.rs` (the
//! two targets behind one trait, as OpenCilk keeps one file per target),
//! `sync.rs` (groups, syncs and implicit syncs).

pub mod abi;
mod loops;
mod outline;
mod places;
mod plan;
mod runtime;
mod serial;
mod sync;
#[cfg(test)]
mod tests;

use parc_ir::analysis::Task;
use parc_ir::{
    Block, FuncBuilder, FuncId, FuncKind, Function, Inst, InstKind, Module, SyncRegion, Type, Value,
};
use places::Places;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;

/// Where parallelism goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Spawn = call, sync = nothing: the serial projection, as an oracle.
    Serial,
    /// Calls into `parc-runtime`'s work-stealing scheduler.
    Runtime,
}

/// Knobs of the lowering.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TapirOptions {
    /// Iterations per chunk of a parallel loop; `None` passes 0, which lets
    /// the runtime choose. With the serial target, `Some(g)` runs the body
    /// function once per chunk of `g` iterations (to exercise chunking).
    pub grain: Option<u64>,
}

/// A construct the lowering cannot handle (IR the verifier should have
/// rejected, or a clash with an existing declaration).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TapirError {
    /// The function being lowered.
    pub func: String,
    /// The construct, e.g. "detach in block3".
    pub construct: String,
    pub message: String,
}

impl fmt::Display for TapirError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tapir lowering of `{}`: {}: {}",
            self.func, self.construct, self.message
        )
    }
}

impl std::error::Error for TapirError {}

impl TapirError {
    pub(crate) fn new(
        func: &str,
        construct: impl Into<String>,
        message: impl Into<String>,
    ) -> TapirError {
        TapirError {
            func: func.to_string(),
            construct: construct.into(),
            message: message.into(),
        }
    }
}

/// Lowers every detach, reattach and sync of `module`'s host functions (see
/// the module doc). On error the module may be partly lowered.
pub fn lower_tapir(
    module: &mut Module,
    target: Target,
    opts: &TapirOptions,
) -> Result<(), TapirError> {
    if !module
        .funcs
        .values()
        .any(|f| f.kind == FuncKind::Host && plan::has_tapir(f))
    {
        return Ok(());
    }
    let target: Box<dyn TargetImpl> = match target {
        Target::Serial => Box::new(serial::SerialTarget {
            grain: opts.grain.filter(|&g| g > 0),
        }),
        Target::Runtime => Box::new(runtime::RuntimeTarget {
            abi: abi::RuntimeAbi::declare(module)?,
            grain: opts.grain.unwrap_or(0),
        }),
    };
    let mut names = Names::new(module);
    let plans = plan::plan_module(module, &mut names);
    for (plan, places) in plans {
        let id = plan.id;
        let helpers: Vec<FuncId> = plan.helpers.values().copied().collect();
        let mut func = std::mem::take(&mut module.funcs[id]);
        let result = lower_function(module, &mut func, &plan, places, target.as_ref());
        module.funcs[id] = func;
        result?;
        // Outlined code keeps naming `id` in run-time errors.
        for helper in helpers {
            let helper = &mut module.funcs[helper];
            let placed: Vec<_> = helper.placed_insts().map(|(_, i)| i).collect();
            for i in placed {
                if helper.locs[i].is_known() {
                    helper.locs[i] = helper.locs[i].moved_from(id);
                }
            }
        }
    }
    Ok(())
}

/// One function: outline its tasks innermost first (see `plan.rs`), then
/// lower its own syncs. `func` is out of `module` meanwhile; helpers go
/// into `module`.
///
/// The analyses are made once, before the first task. Outlining a task
/// (or a parallel loop) removes its blocks (or the loop's, but for the
/// header), replaces the detach (or the loop's branch) with straight code
/// to the same place and adds blocks only on that path, so the remaining
/// tasks keep their blocks, dominance and exits, and each task's own
/// blocks are those the analyses gave it, less what its children took and
/// plus what lowering them added ([`FrameState::added`]); the loops,
/// predecessor lists and regions it changes are those that contain or
/// lead into the lowered code, which were matched before anything was
/// lowered. Made afresh per task, they made a function with thousands of
/// spawns quadratic.
fn lower_function(
    module: &mut Module,
    func: &mut Function,
    plan: &plan::FuncPlan,
    mut places: Places,
    target: &dyn TargetImpl,
) -> Result<(), TapirError> {
    let an = &plan.an;
    let entry = func.entry().expect("a defined function has an entry");
    let mut body = FrameState::new(entry);
    let mut frames: HashMap<Task, FrameState> = HashMap::new();
    let mut outline_all = || {
        for task in plan.post_order() {
            let td = an.tasks.data(task);
            let own = frames
                .remove(&task)
                .unwrap_or_else(|| FrameState::new(td.entry));
            let mut blocks: Vec<Block> = plan
                .own_blocks(task)
                .iter()
                .copied()
                .filter(|&b| !places.is_gone(b))
                .collect();
            blocks.extend(&own.added);
            let task_blocks = TaskBlocks {
                inside: blocks.iter().copied().collect(),
                blocks,
                frame_allocas: own.allocas,
            };
            let shape = plan.shapes.get(&task);
            let waits =
                sync::lower_task_syncs(func, target, &own, &task_blocks, td, shape.is_some());
            // What is left but the task's exits is malformed input (the
            // helper must not keep it).
            if let Some(stray) = stray_tapir(func, &task_blocks.blocks, &td.reattaches) {
                return Err(stray_error(func, stray));
            }
            let parent = match td.parent {
                None => &mut body,
                Some(p) => frames
                    .entry(p)
                    .or_insert_with(|| FrameState::new(an.tasks.data(p).entry)),
            };
            let helper = plan.helpers[&task];
            let layout_len = func.layout.len();
            if let Some(shape) = shape {
                let mark = places.mark(func, shape.header, parent.block);
                loops::lower_parallel_for(
                    module,
                    func,
                    an,
                    shape,
                    &task_blocks,
                    &waits,
                    helper,
                    &places,
                    target,
                    parent,
                )?;
                let mut removed = task_blocks.blocks;
                removed.extend([shape.detach_block, shape.latch]);
                places.record_step(func, mark, &removed);
            } else {
                let mark = places.mark(func, td.detach_block, parent.block);
                outline::lower_detach(
                    module,
                    func,
                    an,
                    task,
                    &task_blocks,
                    helper,
                    &places,
                    target,
                    parent,
                )?;
                places.record_step(func, mark, &task_blocks.blocks);
            }
            if td.parent.is_some() {
                parent.added.extend_from_slice(&func.layout[layout_len..]);
            }
        }
        Ok(())
    };
    let outlined = outline_all();
    func.layout.retain(|&b| !places.is_gone(b));
    outlined?;
    sync::lower_syncs(func, target, &body);
    // Anything left is a reattach outside any task: malformed input.
    match stray_tapir(func, &func.layout, &[]) {
        Some(stray) => Err(stray_error(func, stray)),
        None => Ok(()),
    }
}

/// The first of `blocks` that still holds a detach, reattach or sync once
/// everything in them is lowered, but for the reattaches ending `exits`.
fn stray_tapir(func: &Function, blocks: &[Block], exits: &[Block]) -> Option<(Block, Inst)> {
    blocks.iter().find_map(|&b| {
        let i = func.block_insts(b).iter().copied().find(|&i| {
            matches!(
                func.inst(i),
                InstKind::Detach { .. } | InstKind::Reattach { .. } | InstKind::Sync { .. }
            )
        })?;
        let exit = func.terminator(b) == Some(i) && exits.contains(&b);
        (!exit).then_some((b, i))
    })
}

fn stray_error(func: &Function, (b, i): (Block, Inst)) -> TapirError {
    TapirError::new(
        &func.name,
        format!("{} in {b}", inst_name(func.inst(i))),
        "not part of any task",
    )
}

/// The blocks of a task about to be outlined.
pub(crate) struct TaskBlocks {
    /// Its own blocks in layout order, then those lowering its children
    /// added, in the order they were made.
    pub blocks: Vec<Block>,
    pub inside: HashSet<Block>,
    /// How many `alloca`s lowering its children put at the top of its
    /// first block ([`FrameState::alloca`]).
    pub frame_allocas: u32,
}

pub(crate) fn inst_name(kind: &InstKind) -> &'static str {
    match kind {
        InstKind::Detach { .. } => "detach",
        InstKind::Reattach { .. } => "reattach",
        InstKind::Sync { .. } => "sync",
        InstKind::Return(_) => "return",
        _ => "instruction",
    }
}

/// How a target expresses spawns, syncs and parallel loops. Each method
/// appends code at the builder's current position.
pub(crate) trait TargetImpl {
    /// Runs (or schedules) `task(ctx)`; `ctx_size` bytes at `ctx` are the
    /// task's captures. `region` is the detach's sync region; `frame` is
    /// the function or task that detaches.
    fn spawn(
        &self,
        b: &mut FuncBuilder,
        frame: &mut FrameState,
        region: SyncRegion,
        task: FuncId,
        ctx: Value,
        ctx_size: u32,
    );

    /// Waits for the tasks spawned into `group` (made by `spawn`) by this
    /// invocation.
    fn wait(&self, b: &mut FuncBuilder, group: Value);

    /// Runs `body(ctx, start, end)` over chunks covering `[0, trip)` and
    /// returns when all have run. May add blocks; code continues at the
    /// builder's current block.
    fn parallel_for(&self, b: &mut FuncBuilder, body: FuncId, trip: Value, ctx: Value);
}

/// What the lowering remembers about one frame: the function body, or a
/// task not outlined yet, whose helper will own what is put here.
pub(crate) struct FrameState {
    /// Where its `alloca`s go, at the top: the function's entry block, or
    /// the task's first block, whose top becomes the helper's entry's.
    pub block: Block,
    /// How many `alloca`s [`FrameState::alloca`] put there.
    pub allocas: u32,
    /// The group object of each sync region that has spawned (runtime
    /// target only).
    pub groups: BTreeMap<SyncRegion, Value>,
    /// Blocks that spawn within each region, for the implicit syncs.
    pub spawn_sites: BTreeMap<SyncRegion, Vec<Block>>,
    /// Blocks that lowering a task of this frame added (a serial loop's
    /// chunks), which move with the frame's task.
    pub added: Vec<Block>,
}

impl FrameState {
    fn new(block: Block) -> FrameState {
        FrameState {
            block,
            allocas: 0,
            groups: BTreeMap::new(),
            spawn_sites: BTreeMap::new(),
            added: Vec::new(),
        }
    }

    /// A new `alloca` at the top of the frame's block, which runs once per
    /// invocation of the function or helper.
    pub(crate) fn alloca(&mut self, func: &mut Function, size: u32, align: u32) -> Value {
        let inst = func.make_inst(InstKind::Alloca { size, align }, Some(Type::Ptr));
        func.blocks[self.block].insts.insert(0, inst);
        self.allocas += 1;
        func.result(inst).expect("an alloca has a result")
    }

    /// The target's wait for `region`, if it spawned in this frame.
    pub(crate) fn sync(&self, target: &dyn TargetImpl, b: &mut FuncBuilder, region: SyncRegion) {
        // A region that never spawned (a recognized loop's, or one whose
        // spawns are all in other functions) has nothing to wait for.
        if let Some(&group) = self.groups.get(&region) {
            target.wait(b, group);
        }
    }
}

/// Fresh helper names: `<parent>.task<N>`, `<parent>.loop<N>`, never
/// clashing with a name of the module.
pub(crate) struct Names {
    taken: HashSet<String>,
    next: HashMap<String, u32>,
}

impl Names {
    fn new(module: &Module) -> Names {
        Names {
            taken: module.funcs.values().map(|f| f.name.clone()).collect(),
            next: HashMap::new(),
        }
    }

    pub(crate) fn fresh(&mut self, parent: &str, kind: &str) -> String {
        let base = format!("{parent}.{kind}");
        let n = self.next.entry(base.clone()).or_insert(0);
        loop {
            let name = format!("{base}{n}");
            *n += 1;
            if self.taken.insert(name.clone()) {
                return name;
            }
        }
    }
}
