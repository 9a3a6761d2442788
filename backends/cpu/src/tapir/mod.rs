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
//!   move there, each `reattach within sr, C` becomes `return`. Detaches
//!   nested in a task move with it and are lowered when the helper's turn
//!   comes (outermost first, recursively), with fresh sync regions there.
//!   Pure instructions of the detach's block that only the task uses are
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
//! Files: `outline.rs` (captures, the context, moving blocks), `loops.rs`
//! (recognizing `parallel_for` and its trip count), `places.rs` (where
//! instructions are and who uses a value, across a function's tasks),
//! [`abi`] (the runtime's entry points), `runtime.rs` and `serial.rs` (the
//! two targets behind one trait, as OpenCilk keeps one file per target),
//! `sync.rs` (groups, syncs and implicit syncs).

pub mod abi;
mod loops;
mod outline;
mod places;
mod runtime;
mod serial;
mod sync;
#[cfg(test)]
mod tests;

use parc_ir::analysis::{FunctionAnalyses, Task};
use parc_ir::{
    Block, FuncBuilder, FuncId, FuncKind, Function, InstKind, Module, SyncRegion, Value,
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
/// the module doc for the result). On error the module may be partly
/// lowered.
pub fn lower_tapir(
    module: &mut Module,
    target: Target,
    opts: &TapirOptions,
) -> Result<(), TapirError> {
    let has_tapir = |f: &Function| {
        f.placed_insts().any(|(_, i)| {
            matches!(
                f.inst(i),
                InstKind::Detach { .. } | InstKind::Reattach { .. } | InstKind::Sync { .. }
            )
        })
    };
    if !module
        .funcs
        .values()
        .any(|f| f.kind == FuncKind::Host && has_tapir(f))
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
    // Helpers are appended to `module.funcs` as they are made, so this walk
    // reaches them too and lowers the detaches nested in them.
    let mut id_index = 0;
    while id_index < module.funcs.len() {
        let id = FuncId::from_u32(id_index as u32);
        id_index += 1;
        let f = &module.funcs[id];
        if f.kind != FuncKind::Host || f.is_declaration() || !has_tapir(f) {
            continue;
        }
        let mut func = std::mem::take(&mut module.funcs[id]);
        let first_new = module.funcs.len();
        let result = lower_function(module, &mut func, target.as_ref(), &mut names);
        module.funcs[id] = func;
        result?;
        // Outlined code keeps naming `id` in run-time errors.
        for new in first_new..module.funcs.len() {
            let helper = &mut module.funcs[FuncId::from_u32(new as u32)];
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

/// One function: outline its outermost tasks one at a time, then lower
/// its syncs. `func` is out of `module` meanwhile; helpers go into
/// `module`.
///
/// The analyses are made once, before the first task. Outlining a task
/// (or a parallel loop) removes blocks that reach only its continuation
/// (or the loop's header), replaces the detach (or the loop's branch) with
/// straight code to the same place and adds blocks on that path, so the
/// remaining tasks keep their blocks, dominance and exits; the loops,
/// predecessor lists and regions it changes are those that contain or
/// lead into the lowered code, which no longer match a parallel loop
/// (they now hold a call) whether asked before or after. Made afresh per
/// task, they made a function with thousands of spawns quadratic.
fn lower_function(
    module: &mut Module,
    func: &mut Function,
    target: &dyn TargetImpl,
    names: &mut Names,
) -> Result<(), TapirError> {
    drop_unreachable(func);
    let mut state = FuncState::default();
    let an = FunctionAnalyses::compute(func);
    let mut places = Places::new(func);
    let outer: Vec<Task> = func
        .layout
        .iter()
        .filter_map(|&b| an.tasks.task_of_detach(b))
        .filter(|&t| an.tasks.data(t).parent.is_none())
        .collect();
    let outline_all = || {
        for task in outer {
            let td = an.tasks.data(task);
            loops::sink_into_task(func, &an, task, &mut places);
            if let Some(shape) = loops::match_parallel_for(func, &an, task, &places) {
                let mark = places.mark(func, shape.header);
                loops::lower_parallel_for(module, func, &an, &shape, &places, target, names)?;
                let mut removed = an.tasks.blocks(task).to_vec();
                removed.extend([shape.detach_block, shape.latch]);
                places.record_step(func, mark, &removed);
            } else {
                let mark = places.mark(func, td.detach_block);
                outline::lower_detach(module, func, &an, task, &places, target, &mut state, names)?;
                places.record_step(func, mark, an.tasks.blocks(task));
            }
        }
        Ok(())
    };
    let outlined = outline_all();
    func.layout.retain(|&b| !places.is_gone(b));
    outlined?;
    sync::lower_syncs(func, target, &state);
    // Anything left is a reattach outside any task: malformed input.
    if let Some((b, _)) = func.placed_insts().find(|&(_, i)| {
        matches!(
            func.inst(i),
            InstKind::Detach { .. } | InstKind::Reattach { .. } | InstKind::Sync { .. }
        )
    }) {
        return Err(TapirError::new(
            &func.name,
            format!(
                "{} in {b}",
                inst_name(func.inst(*func.blocks[b].insts.last().unwrap()))
            ),
            "not part of any task",
        ));
    }
    Ok(())
}

/// Removes blocks unreachable from the entry: the task tree and dominance
/// say nothing useful about them, and they cannot run.
fn drop_unreachable(func: &mut Function) {
    let cfg = parc_ir::analysis::ControlFlowGraph::compute(func);
    func.layout.retain(|&b| cfg.is_reachable(b));
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
    /// task's captures. `region` is the detach's sync region.
    fn spawn(
        &self,
        b: &mut FuncBuilder,
        state: &mut FuncState,
        region: SyncRegion,
        task: FuncId,
        ctx: Value,
        ctx_size: u32,
    );

    /// Waits for the tasks spawned within `region` by this invocation.
    fn sync(&self, b: &mut FuncBuilder, state: &FuncState, region: SyncRegion);

    /// Runs `body(ctx, start, end)` over chunks covering `[0, trip)` and
    /// returns when all have run. May add blocks; code continues at the
    /// builder's current block.
    fn parallel_for(&self, b: &mut FuncBuilder, body: FuncId, trip: Value, ctx: Value);
}

/// What the lowering of one function remembers between tasks.
#[derive(Default)]
pub(crate) struct FuncState {
    /// The group object of each sync region that has spawned (runtime
    /// target only).
    pub groups: BTreeMap<SyncRegion, Value>,
    /// Blocks that spawn within each region, for the implicit syncs.
    pub spawn_sites: BTreeMap<SyncRegion, Vec<Block>>,
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
