//! Reversal of one function: the forward sweep (a copy of the primal that
//! also computes shadows and records onto the tape) and the reverse sweep.
//!
//! One generator serves both modes of the design:
//! - *combined* (the requested gradient): forward blocks, then each primal
//!   `return` jumps into the reverse sweep of its block, and the reverse of
//!   the entry block returns the gradient. Values of blocks that dominate
//!   every return and lie in no loop execute at most once before the
//!   reverse sweep, so the reverse uses them directly instead of recording.
//! - *split* (`f.aug` / `f.rev` for active callees): the same work function
//!   is built with the tape as first parameter and a reverse entry block,
//!   then cut in two (forward blocks → `.aug`, reverse blocks → `.rev`);
//!   every value the reverse needs is recorded, since `.rev` sees only its
//!   parameters.
//!
//! It decides nothing: it follows the function's [`Plan`] (`plan.rs`:
//! activity, control, loops, tasks, accumulation classes, and how to get
//! each forward value the reverse needs, decided by the plan's dry run of
//! this walk: `walk`). Here are
//! the generator's state, its set-up and the order of the sweeps; its
//! methods live in submodules: `emit` (appending instructions, constants,
//! forward copies and shadows), `forward` (the forward sweep), `adjoint`
//! (the reverse sweep: adjoint slots, reversed instructions and edges,
//! shadow-memory updates), `values` (records, pops and recomputations),
//! `frames` (the tape frames, reserved and indexed loops), `ploops` (the
//! reverse of parallel loops), `reductions` (their per-worker sums and
//! region copies, and band widths), `walk` (the plan's dry run, and
//! reading its answers back), `spawns` (the reverse
//! of spawned tasks), `launches` (kernel launches and their generated
//! kernels) and `shared` (`__shared__` arrays' shadows).
//!
//! Length (about 1,000 lines): the generator's state (`Ctx`, `Gen` and
//! their constructors, with a doc line per field) and the order of the
//! sweeps, which every submodule reads; the methods are already split out.
//!
//! # Layout of the work function
//!
//! For each reachable primal block `B`: a forward block `F(B)` (the primal's
//! parameters, then a shadow parameter per shadowed pointer parameter, then
//! an `i32` edge index if `B` has several incoming edges) and, if a return
//! is reachable from `B`, a pop block `P(B)` followed by reverse blocks.
//!
//! # Invariants
//! - **Frames.** The reverse code of `B` uses only: parameters of the
//!   entry, constants (re-emitted), adjoint slots (allocas), directly
//!   available values (combined mode), and values popped in `P(B)`. Each
//!   such popped value is stored by `F(B)` just before its terminator, in a
//!   frame of `n` slots; `P(B)` pops the same frame. Since `F(B)` runs
//!   after every definition it stores (SSA dominance), the frame is
//!   complete, and LIFO order matches frames to their reverse blocks.
//! - **Edges.** The reverse of `B` continues with the reverse of the
//!   predecessor it was entered from: the edge index (a block parameter of
//!   `F(B)`, recorded like any value) chooses, and the adjoints of `B`'s
//!   parameters flow to that edge's arguments.
//! - **Adjoints.** Each varied value has a zero-initialized slot; a
//!   definition's reverse reads its slot and zeroes it (so a loop's next
//!   reverse iteration starts from zero), uses add into it.

use crate::AdError;
use crate::activity::{Root, branch_dests};
use crate::cache::{Answer, Ask, Iv, Need, Needs, Obtain, Rebuild, Sweep, is_position};
use crate::plan::{Facts, Mode, Plan, Request, TaskOf};
use crate::policy::{Action, Context, SsaUpdate};
use crate::rules::{self, AdjointBuilder};
use crate::tape::{HEADER_BYTES, TapeFns};
use crate::tape_report::{FunctionTape, Why};
use parc_ir::{
    Activity, BinaryOp, Block, BlockCall, CastOp, FloatCC, FuncBuilder, FuncId, FuncKind, Function,
    GlobalId, Inst, InstKind, IntCC, Intrinsic, Linkage, Module, Signature, Type, UnaryOp, Value,
    ValueDef, new_function,
};
use std::collections::{HashMap, HashSet};

mod adjoint;
mod emit;
mod forward;
mod frames;
mod launches;
mod ploops;
mod pools;
mod reductions;
mod shadows;
mod shared;
mod slabs;
mod spawns;
mod values;
mod walk;

pub use launches::LaunchPlan;
pub(crate) use launches::kernel_of_body;
pub use walk::plan_alone;
use walk::{Made, Walk, plan};

/// An augmented-forward / reverse pair for one callee and one activity
/// assignment.
#[derive(Clone, Debug)]
pub struct Pair {
    pub aug: FuncId,
    pub rev: FuncId,
    pub acts: Vec<Activity>,
    pub ret_active: bool,
    /// `.aug` takes one more parameter, where it stores the shadow of the
    /// pointer it returns (see [`Mode::Split`]).
    pub ret_shadow: bool,
    /// Generated for calls from parallel code: every adjoint update of
    /// memory the callee does not own is an atomic add (the callee cannot
    /// know which other tasks update the same shadow).
    pub atomic: bool,
    /// The parameters whose memory is the calling task's own (see
    /// [`crate::plan::CallPlan::private`]).
    pub private: u64,
}

/// What a split pair is made for: the callee, its parameters' activities,
/// whether it returns its result's shadow, whether it is atomic and which
/// parameters point into the calling task's own memory.
pub type PairKey = (FuncId, Vec<Activity>, bool, bool, u64);

/// State shared by all functions of one `differentiate` call.
pub struct Ctx {
    pub tape: TapeFns,
    pub acc: crate::tape::AccFns,
    /// By callee, activities, `ret_shadow`, `atomic` and `private`.
    pub pairs: HashMap<PairKey, Pair>,
    /// The generated kernels of launches, per kernel, activities and
    /// whether the launch's grid and blocks are 1-D.
    pub launch_plans: HashMap<(FuncId, Vec<Activity>, bool), LaunchPlan>,
    /// The kernel bodies (see `launches.rs`) launched only on 1-D grids of
    /// 1-D blocks, where `blockIdx.x * blockDim.x + threadIdx.x` numbers
    /// the threads one to one.
    pub one_d_bodies: HashSet<FuncId>,
    /// For kernel bodies whose reverse runs in phases (see
    /// `launches.rs`): how many.
    pub thread_phases: HashMap<FuncId, u64>,
    /// How the target runs a kernel block's threads.
    pub block_threads: crate::BlockThreads,
    /// The memory no code of the run writes, per function (`readonly.rs`).
    pub readonly: HashMap<FuncId, crate::readonly::ReadOnly>,
    /// Not [`crate::AdOptions::task_tape_headers`].
    pub flat_task_tapes: bool,
    /// Not [`crate::AdOptions::task_shadow_callocs`].
    pub shadow_slabs: bool,
    /// Not [`crate::AdOptions::no_strict_aliasing`].
    pub strict_aliasing: bool,
    /// Split pairs declared but not generated yet: `(primal, pair)`.
    pub queue: Vec<(FuncId, Pair)>,
    pub sites: Vec<crate::AccumulationSite>,
    /// What each generated function records (`--explain-tape`).
    pub tapes: Vec<FunctionTape>,
    /// The text of each generated function's plan (`--explain-ad`).
    pub plans: Vec<String>,
    /// The shadow of each `__shared__` array with a derivative, one per
    /// module, so that a function and its callees share it.
    pub shared_shadows: HashMap<GlobalId, GlobalId>,
}

impl Ctx {
    /// The state of a run of the AD on `m` for gradients of `primals`:
    /// declares the tape's helpers in `m`.
    pub fn new(m: &mut Module, options: &crate::AdOptions, primals: &[FuncId]) -> Ctx {
        Ctx {
            readonly: crate::readonly::analyze(m, primals, !options.no_strict_aliasing),
            tape: crate::tape::ensure_helpers(m),
            acc: crate::tape::ensure_acc(m),
            pairs: HashMap::new(),
            launch_plans: HashMap::new(),
            one_d_bodies: HashSet::new(),
            thread_phases: HashMap::new(),
            block_threads: options.block_threads,
            flat_task_tapes: !options.task_tape_headers,
            shadow_slabs: !options.task_shadow_callocs,
            strict_aliasing: !options.no_strict_aliasing,
            queue: Vec::new(),
            sites: Vec::new(),
            tapes: Vec::new(),
            plans: Vec::new(),
            shared_shadows: HashMap::new(),
        }
    }

    /// The pair of call `c` (of `c.callee` for these activities),
    /// declared (and queued) if new.
    pub(crate) fn pair(&mut self, module: &mut Module, c: &crate::plan::CallPlan) -> Pair {
        let (callee, acts, ret_active, ret_shadow, atomic) = (
            c.callee,
            c.acts.clone(),
            c.ret_active,
            c.ret_shadow,
            c.atomic,
        );
        // Private memory matters only where updates would be atomic.
        let private = if atomic { c.private } else { 0 };
        let key = (callee, acts.clone(), ret_shadow, atomic, private);
        if let Some(p) = self.pairs.get(&key) {
            return p.clone();
        }
        let f = &module.funcs[callee];
        let mut params = vec![Type::Ptr];
        for (&ty, &a) in f.sig.params.iter().zip(&acts) {
            params.push(ty);
            if matches!(a, Activity::Dup | Activity::DupNoNeed) {
                params.push(Type::Ptr);
            }
        }
        if ret_shadow {
            params.push(Type::Ptr);
        }
        let aug_sig = Signature {
            params: params.clone(),
            ret: f.sig.ret,
        };
        let mut rev_params = params;
        if ret_active {
            rev_params.push(f.sig.ret.unwrap_or(Type::F64));
        }
        rev_params.push(Type::Ptr);
        let rev_sig = Signature {
            params: rev_params,
            ret: None,
        };
        let base = if atomic {
            format!("{}.par", f.name)
        } else {
            f.name.clone()
        };
        let aug_name = module.fresh_func_name(&format!("{base}.aug"));
        let mut aug = Function::new(aug_name, aug_sig);
        aug.linkage = Linkage::Import;
        let aug = module.funcs.push(aug);
        let rev_name = module.fresh_func_name(&format!("{base}.rev"));
        let mut rev = Function::new(rev_name, rev_sig);
        rev.linkage = Linkage::Import;
        let rev = module.funcs.push(rev);
        let pair = Pair {
            aug,
            rev,
            acts,
            ret_active,
            ret_shadow,
            atomic,
            private,
        };
        self.pairs.insert(key, pair.clone());
        self.queue.push((callee, pair.clone()));
        pair
    }
}

/// Builds the body of the combined gradient of `primal` (a function named
/// `name` with the gradient signature).
pub fn combined(
    module: &mut Module,
    ctx: &mut Ctx,
    primal: FuncId,
    acts: &[Activity],
    name: &str,
) -> Result<Function, AdError> {
    let g = generate(module, ctx, primal, acts, Mode::Combined)?;
    ctx.tapes.push(FunctionTape {
        function: name.to_string(),
        gradient: true,
        ..g.tape
    });
    let mut f = g.g;
    f.name = name.to_string();
    f.noalias = derived_noalias(&module.funcs[primal], acts, 0);
    Ok(f)
}

/// The `noalias` parameters of a derivative of `primal` whose parameters
/// start at `first` (after a tape pointer in split mode): each `restrict`
/// parameter of the primal, and the shadow that follows a duplicated one.
/// A shadow mirrors its primal's memory, so it is `restrict` where the
/// primal is (LANGUAGE.md: shadows may not overlap where their primals do
/// not); this lets the optimizer keep primal loads out of loops that add
/// into shadows.
fn derived_noalias(primal: &Function, acts: &[Activity], first: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut at = first;
    for (k, &a) in acts.iter().enumerate() {
        let dup = matches!(a, Activity::Dup | Activity::DupNoNeed);
        if primal.param_noalias(k) {
            out.push(at);
            if dup {
                out.push(at + 1);
            }
        }
        at += if dup { 2 } else { 1 };
    }
    out
}

/// What one call of a split pair's `.aug` records, where that is bounded
/// by a constant (see `Gen::records_per_call`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Records {
    /// The most tape slots one call records.
    pub slots: u64,
    /// Each frame has a fixed place among them (see `Gen::fixed_frames`):
    /// the tape's data is a buffer of `slots` slots of the call's own, and
    /// neither sweep reads or writes the tape's length.
    pub fixed: bool,
}

/// Builds the bodies of a split pair. Returns what one call of `.aug`
/// records, where that is bounded.
pub fn split(
    module: &mut Module,
    ctx: &mut Ctx,
    primal: FuncId,
    pair: &Pair,
) -> Result<Option<Records>, AdError> {
    let gen_ = generate(
        module,
        ctx,
        primal,
        &pair.acts,
        Mode::Split {
            ret_active: pair.ret_active,
            atomic: pair.atomic,
            ret_shadow: pair.ret_shadow,
            private: pair.private,
        },
    )?;
    let bound = gen_.records;
    ctx.tapes.push(FunctionTape {
        function: module.funcs[pair.aug].name.clone(),
        gradient: false,
        ..gen_.tape.clone()
    });
    let rentry = gen_.rentry.expect("split mode has a reverse entry");
    let fentry = gen_.g.layout[0];
    // `.aug`: the forward blocks only.
    let mut aug = gen_.g.clone();
    aug.layout = gen_.fwd_layout.clone();
    aug.name = module.funcs[pair.aug].name.clone();
    aug.sig = module.funcs[pair.aug].sig.clone();
    aug.linkage = Linkage::Local;
    aug.kind = module.funcs[primal].kind;
    aug.noalias = derived_noalias(&module.funcs[primal], &pair.acts, 1);
    // `.rev`: the reverse blocks, entered at `rentry`, which takes over the
    // forward entry's parameters (the reverse code refers to them).
    let mut rev = gen_.g;
    let mut params = std::mem::take(&mut rev.blocks[fentry].params);
    params.extend(rev.blocks[rentry].params.iter().copied());
    for (n, &v) in params.iter().enumerate() {
        rev.values[v].def = ValueDef::Param(rentry, n as u32);
    }
    rev.blocks[rentry].params = params;
    let mut layout = vec![rentry];
    layout.extend(gen_.rev_layout.iter().copied().filter(|&b| b != rentry));
    rev.layout = layout;
    rev.name = module.funcs[pair.rev].name.clone();
    rev.sig = module.funcs[pair.rev].sig.clone();
    rev.linkage = Linkage::Local;
    rev.kind = module.funcs[primal].kind;
    rev.noalias = derived_noalias(&module.funcs[primal], &pair.acts, 1);
    module.funcs[pair.aug] = aug;
    module.funcs[pair.rev] = rev;
    Ok(bound)
}

/// The generator of one derivative: it follows its [`Plan`] and keeps
/// what it has emitted.
struct Gen<'a> {
    plan: &'a Plan,
    g: Function,
    cur: Block,
    /// The primal block whose forward (or reverse) code is being emitted.
    cur_fwd: Option<Block>,
    cur_rev: Option<Block>,
    /// The parallel loop whose reverse task code is being emitted.
    ctx_loop: Option<usize>,
    fwd: HashMap<Value, Value>,
    shadow: HashMap<Value, Value>,
    fblock: HashMap<Block, Block>,
    origin: HashMap<Value, Block>,
    adj: HashMap<Value, Value>,
    alloca_block: Block,
    tape: Value,
    tape_fns: TapeFns,
    acc_fns: crate::tape::AccFns,
    edge_param: HashMap<Block, Value>,
    frame_pos: HashMap<Block, usize>,
    frames: HashMap<Block, Vec<(Value, Inst)>>,
    pop_cache: HashMap<(Block, Value), Value>,
    rpop: HashMap<Block, Block>,
    rbodies: HashMap<Block, Block>,
    rentry: Option<Block>,
    dret: Option<Value>,
    dargs: Option<Value>,
    fwd_layout: Vec<Block>,
    rev_layout: Vec<Block>,
    /// The split pair each planned call calls.
    calls: HashMap<Inst, Pair>,
    /// Kernel launches with differentiable arguments, and the forward
    /// value of each one's per-thread tapes.
    launches: HashMap<Inst, LaunchPlan>,
    launch_tapes: HashMap<Inst, Value>,
    /// The slots of every frame pushed with `__parc_ad_tape_push` (the
    /// most one call records when no block runs twice; see
    /// [`Gen::records_per_call`]).
    frame_slots: u64,
    /// The shadow of each `__shared__` array with a derivative.
    shared_shadow: HashMap<GlobalId, GlobalId>,
    /// The reverse loop of each parallel loop of the primal.
    rl: Vec<RevLoop>,
    /// The reverse of each spawn site.
    rs: Vec<RevSpawn>,
    /// Counted loops (see `cache/loops.rs`): their forward iteration counters
    /// and the reverse's slots holding the iteration being reversed.
    counter_fwd: Vec<Option<Value>>,
    counter_slot: Vec<Option<Value>>,
    /// Counted loops whose records are reserved before they start and sit
    /// at places computed from the iteration: see [`Indexed`].
    indexed: Vec<Option<Indexed>>,
    /// Per counted loop: placeholders for whether its exit test's last run
    /// records (1) or not (0), known once every frame is (see
    /// [`Gen::recording_runs`]).
    last_run: Vec<Vec<Inst>>,
    /// Forward values back to the primal values they copy.
    fwd_inv: HashMap<Value, Value>,
    /// Values recomputed in a reverse block (of `g`).
    recomputed: HashMap<Block, HashMap<Value, Value>>,
    /// Every record made, in order: the primal block whose frame holds it,
    /// the forward value, and why (for the tape report).
    tape_log: Vec<(Block, Value, Why)>,
    /// Not [`crate::AdOptions::task_tape_headers`].
    flat_task_tapes: bool,
    /// Not [`crate::AdOptions::task_shadow_callocs`].
    shadow_slabs: bool,
    /// Per parallel loop: whether its iterations record onto their
    /// workers' streams (`pools::pooled_loops`).
    pooled: Vec<bool>,
    /// Split mode with a shadow return: where `.aug` stores the shadow of
    /// the pointer it returns (its last parameter).
    ret_shadow_out: Option<Value>,
    /// The plan's dry run, or the generation that follows the plan.
    walk: Walk,
}

/// The reverse of one parallel loop (see `parallel.rs`).
struct RevLoop {
    pre: Block,
    /// The parallel loop over chunks: `header(c)`, `spawn` (the detach),
    /// `task` (a chunk's entry), `latch`, `exit` (the sync) and `after`.
    header: Block,
    chunk: Value,
    spawn: Block,
    task: Block,
    latch: Block,
    exit: Block,
    after: Block,
    /// The serial loop over a chunk's iterations: `ihead(k)`, `ibody`
    /// (which goes on into the reverse of the body), `inext` (where the
    /// reverse of the body ends) and `flush` (the chunk's partial sums
    /// into the per-worker slots, then the reattach).
    ihead: Block,
    k: Value,
    ibody: Block,
    inext: Block,
    flush: Block,
    sr: parc_ir::SyncRegion,
    /// `ptradd tapes, 24k`, placed at the start of `ibody` when known.
    tape_inst: Inst,
    tape: Value,
    nw: Value,
    /// Forward sweep: the per-iteration tape array, the trip count, and
    /// each iteration's tape.
    tapes_fwd: Option<Value>,
    trip_fwd: Option<Value>,
    tape_fwd: Option<Value>,
    /// Reverse sweep: the same, popped at the reverse of the exit.
    tapes_rev: Option<Value>,
    trip_rev: Option<Value>,
    /// A task whose records per iteration are bounded before the loop
    /// starts (see `sized_task`): one buffer of `trip · slots` holds every
    /// iteration's records (allocated once; no growth, no per-iteration
    /// allocation). `slots = F + Σ runs_j · S_j`: `F` the frames of the
    /// task's blocks outside its loops, `runs_j` the most header runs of
    /// each counted loop `j` in the task and `S_j` its records per
    /// iteration. `F` and the `S_j` are placeholder constants until the
    /// frames are known (`fixed_slots`, `loop_slots`); `slots_fwd` the sum;
    /// `data_fwd`/`data_rev` the buffer in each sweep.
    fixed_slots: Option<Inst>,
    loop_slots: Vec<(usize, Inst)>,
    slots_fwd: Option<Value>,
    /// The stores that point each iteration's tape into the buffer: dropped
    /// with the buffer and the tape array when no slot is recorded.
    fixed_setup: Vec<Inst>,
    data_fwd: Option<Value>,
    data_rev: Option<Value>,
    /// A sized task without loops (see `flat_frames`): each iteration's
    /// records at fixed places of its part of the buffer, which is
    /// `mine_fwd` in the forward and `mine_inst`'s result in the reverse
    /// (`data + k · slots · 8`, placed at the start of `ibody`, `slots`
    /// the placeholder `slots_rev`); no tape header per iteration.
    flat: bool,
    /// Iterations record onto their workers' streams (see `pools.rs`):
    /// the array of stream headers in each sweep, and the running
    /// worker's header in the forward task.
    pooled: bool,
    pool_fwd: Option<Value>,
    stream_fwd: Option<Value>,
    pool_rev: Option<Value>,
    /// The shadows of the local arrays of the task's entry (see
    /// `slabs.rs`): each alloca with its zeroed block of `trip` shadows in
    /// the forward, the iteration's number in the forward task, and the
    /// blocks again in the reverse (freed after the reverse loop).
    slabs: Vec<(Inst, Value)>,
    slab_k: Option<Value>,
    slabs_rev: Vec<Value>,
    mine_fwd: Option<Value>,
    mine_inst: Inst,
    mine: Value,
    slots_rev: Option<Inst>,
    /// Placeholders of the tape notes (`note_loop_tapes`), patched by
    /// `size_fixed_tapes`: 1 where the task is flat (its buffer holds its
    /// records), and the slots per iteration where the buffer's size is
    /// that (a task without loops).
    note_flat: Vec<Inst>,
    note_slots: Vec<Inst>,
    reductions: Vec<Reduction>,
    arrays: Vec<ArrayReduction>,
    /// The regions of the loop's banded updates (plain adds): they set
    /// the chunks' least size and make the chunks run in two phases.
    bands: Vec<crate::policy::Region>,
    /// The bands of its disjoint updates (plain adds too): part of the
    /// union where a banded update has the same base and loop-index term.
    plain: Vec<crate::policy::Region>,
    /// `worker_id` at the start of the reverse task (constant in a task:
    /// a waiting sync keeps its thread).
    worker: Option<Value>,
}

/// A reserved counted loop whose iteration `k` records its `S` slots at
/// `len0 + k·S` (a block's frame at its offset within the iteration), and
/// whose exit sets the tape's length past iteration `T` (the exit test's,
/// whose place only the header's frame uses: none where the header records
/// nothing): no length is read or written per iteration, so the forward
/// and the reverse carry no dependence through the tape's header from one
/// iteration to the next. The reverse of the exit takes the whole
/// `(T + 1)·S` slots (`T·S` without the last run's place) off at once.
struct Indexed {
    /// The tape's length and data right after the reservation (forward).
    len0_fwd: Value,
    data_fwd: Value,
    /// The same, recovered at the reverse of the exit.
    len0_rev: Option<Value>,
    data_rev: Option<Value>,
    /// Placeholder constants for `S`, known once every frame is (the first
    /// sizes the reservation).
    slot_consts: Vec<Inst>,
    /// The `reserve` call, dropped if the loop records nothing.
    reserve_call: Inst,
    /// The reverse's `pop` of all the loop's records (made at the reverse
    /// of its exit), dropped with `reserve_call`.
    release_call: Option<Inst>,
    /// For a loop counting by one: its records placed by its induction
    /// variable instead of the counter (see [`IvFrames`]).
    by_iv: Option<IvFrames>,
    /// Whether the header records (set with the places): only then does
    /// the exit test's last run, which leaves the loop, have a place.
    header_records: bool,
}

/// Where a loop `for (iv = lo; iv < bound; iv++)` places its records by
/// `iv` itself: iteration `k` has `iv = lo + k`, so its frame is at
/// `frame0 + 8·S·iv` with `frame0 = data + 8 (len0 − S·lo)` computed
/// before the loop. The forward then needs no counter (the optimizer
/// removes it), and with `iv` widened to 64 bits (`iv-widen`) a record's
/// address is one addressing mode.
#[derive(Clone, Copy, Debug)]
struct IvFrames {
    frame0: Value,
    /// The primal induction variable, its first value, and whether it
    /// counts signed.
    iv: Value,
    lo: Value,
    signed: bool,
}

/// The reverse of one spawn site (see `parallel.rs`).
struct RevSpawn {
    /// Forward: the slot holding the task's tape (an alloca of the forward
    /// entry), the tape allocated at the detach, and the slot's value taken
    /// at the sync.
    slot: Option<Value>,
    tape_fwd: Option<Value>,
    taken_fwd: Option<Value>,
    /// For a site with a list of tapes: the list's length at the sync.
    taken_len_fwd: Option<Value>,
    /// Reverse: the region of the reverse tasks, the reverse task's entry,
    /// the block after its detach (where it reattaches), and at the
    /// reverse of the detach the block that merges the accumulators and
    /// the block after it.
    rsr: parc_ir::SyncRegion,
    rtask: Block,
    next: Block,
    merge: Block,
    resume: Block,
    /// `ptradd taken, 0` at the start of `rtask` once `taken` is popped:
    /// the reverse task's tape.
    tape_inst: Inst,
    tape: Value,
    /// Per primal value defined outside the task whose adjoint the reverse
    /// task updates: its private accumulator (an alloca).
    accs: Vec<(Value, Value)>,
}

/// Per-worker copies of a region of shadow memory (see `policy::Region`):
/// worker `w` adds into `buf + w·extent`, and after the loop every copy is
/// added into the shadow at `shadow(base) + start`.
///
/// All updates of one shadow object (one `base`, one type) in the loop share
/// one copy per worker, covering the union of their regions; the buffer and
/// the union are computed in the reverse loop's `pre` once every site is
/// known, and the sites use placeholders (`start`, `extent`, `buf`,
/// `origin`, `nowrap`) until then.
struct ArrayReduction {
    base: Value,
    ty: Type,
    regions: Vec<crate::policy::Region>,
    buf: Inst,
    start: Inst,
    extent: Inst,
    /// The region's first byte in the shadow, as an integer.
    origin: Inst,
    /// True when no site's narrow index arithmetic can wrap (see
    /// `reduce_array`).
    nowrap: Inst,
    /// The copies' allocation and their number (set by `size_arrays`): no
    /// copy where one worker runs the loop, whose updates then add into
    /// the shadow itself.
    copies: Option<(Value, Value)>,
}

/// Bytes between two workers' partial sums: a cache line, so that workers
/// adding to their own sums do not contend for one line.
const SLOT_STRIDE: i64 = 64;

/// A per-worker partial sum: `buf[worker]` collects updates of `target`.
struct Reduction {
    key: (Option<Value>, Option<Value>),
    buf: Value,
    /// The chunk's running sum: a slot of the reverse task (promoted to a
    /// register by mem2reg), added to the worker's slot in `buf` at the
    /// chunk's end.
    local: Value,
    ty: Type,
    target: RedTarget,
}

#[derive(Clone, Copy)]
enum RedTarget {
    /// The adjoint of a primal SSA value.
    Ssa(Value),
    /// Shadow memory at the shadow of primal pointer `ptr` (of a load `inst`).
    Mem { inst: Inst, ptr: Value },
}

/// What the generator made of one function.
struct Generated {
    g: Function,
    fwd_layout: Vec<Block>,
    rev_layout: Vec<Block>,
    rentry: Option<Block>,
    /// What one call of a split pair's `.aug` records, where bounded.
    records: Option<Records>,
    /// What the generated code records (its `function` not filled in).
    tape: FunctionTape,
}

/// Plans and generates the derivative of `primal` under `acts`: the plan
/// (see [`plan`]), then the code, which follows it.
fn generate(
    module: &mut Module,
    ctx: &mut Ctx,
    primal: FuncId,
    acts: &[Activity],
    mode: Mode,
) -> Result<Generated, AdError> {
    let (plan, made) = plan(module, ctx, primal, acts, mode)?;
    let mut gen_ = Gen::new(&plan, ctx, made, Walk::Follow(0));
    gen_.build()?;
    let records = gen_.records_per_call().map(|slots| Records {
        slots,
        fixed: gen_.frames_have_fixed_places(),
    });
    ctx.sites.extend(plan.accumulation.sites.iter().cloned());
    ctx.plans.push(plan.to_string());
    let tape = gen_.tape_report(module);
    Ok(Generated {
        tape,
        g: gen_.g,
        fwd_layout: gen_.fwd_layout,
        rev_layout: gen_.rev_layout,
        rentry: gen_.rentry,
        records,
    })
}

impl<'a> Gen<'a> {
    fn new(plan: &'a Plan, ctx: &Ctx, made: Made, walk: Walk) -> Gen<'a> {
        let Made {
            calls,
            launches,
            shared_shadow,
            pooled,
        } = made;
        let mut g = Function::new(plan.p.name.clone(), Signature::default());
        let entry = g.create_block();
        g.append_block(entry);
        Gen {
            plan,
            g,
            cur: entry,
            cur_fwd: None,
            cur_rev: None,
            ctx_loop: None,
            fwd: HashMap::new(),
            shadow: HashMap::new(),
            fblock: HashMap::new(),
            origin: HashMap::new(),
            adj: HashMap::new(),
            alloca_block: entry,
            tape: Value::from_u32(0),
            tape_fns: ctx.tape,
            acc_fns: ctx.acc,
            edge_param: HashMap::new(),
            frame_pos: HashMap::new(),
            frames: HashMap::new(),
            pop_cache: HashMap::new(),
            rpop: HashMap::new(),
            rbodies: HashMap::new(),
            rentry: None,
            dret: None,
            dargs: None,
            fwd_layout: vec![entry],
            rev_layout: Vec::new(),
            calls,
            launches,
            launch_tapes: HashMap::new(),
            frame_slots: 0,
            shared_shadow,
            rl: Vec::new(),
            rs: Vec::new(),
            counter_fwd: vec![None; plan.counted.len()],
            counter_slot: vec![None; plan.counted.len()],
            indexed: (0..plan.counted.len()).map(|_| None).collect(),
            last_run: vec![Vec::new(); plan.counted.len()],
            fwd_inv: HashMap::new(),
            recomputed: HashMap::new(),
            tape_log: Vec::new(),
            flat_task_tapes: ctx.flat_task_tapes,
            shadow_slabs: ctx.shadow_slabs,
            pooled,
            ret_shadow_out: None,
            walk,
        }
    }

    // ----- the generation -------------------------------------------------

    fn build(&mut self) -> Result<(), AdError> {
        let plan = self.plan;
        let entry = self.g.layout[0];
        let pentry = plan.p.layout[0];
        let rpo = &plan.rpo;
        for _ in plan.p.sync_regions.keys() {
            self.g.create_sync_region();
        }
        // The entry's parameters: [tape,] then per parameter its value and
        // (for Dup) its shadow.
        if matches!(self.plan.mode, Mode::Split { .. }) {
            self.tape = self.g.append_block_param(entry, Type::Ptr);
        }
        let pparams = self.plan.p.blocks[pentry].params.clone();
        for (i, &pp) in pparams.iter().enumerate() {
            let ty = self.plan.p.value_type(pp);
            let v = self.g.append_block_param(entry, ty);
            self.fwd.insert(pp, v);
            if matches!(self.plan.acts[i], Activity::Dup | Activity::DupNoNeed) {
                let s = self.g.append_block_param(entry, Type::Ptr);
                self.shadow.insert(pp, s);
            }
        }
        if self.plan.mode.ret_shadow() {
            self.ret_shadow_out = Some(self.g.append_block_param(entry, Type::Ptr));
        }
        self.g.sig.params = self.g.blocks[entry]
            .params
            .iter()
            .map(|&v| self.g.value_type(v))
            .collect();
        self.fblock.insert(pentry, entry);
        // Other forward blocks and their parameters.
        for &b in rpo {
            if b == pentry {
                continue;
            }
            let fb = self.new_block(true);
            self.fblock.insert(b, fb);
            let params = self.plan.p.blocks[b].params.clone();
            for &pp in &params {
                let ty = self.plan.p.value_type(pp);
                let v = self.g.append_block_param(fb, ty);
                self.fwd.insert(pp, v);
                self.origin.insert(v, b);
            }
            for &pp in &params {
                if self.plan.act.is_shadowed(pp) {
                    let s = self.g.append_block_param(fb, Type::Ptr);
                    self.shadow.insert(pp, s);
                    self.origin.insert(s, b);
                }
            }
            if let Some(i) = self.plan.counted.iter().position(|c| c.header == b) {
                // The iteration counter replaces the entering edge's index.
                let k = self.g.append_block_param(fb, Type::I64);
                self.origin.insert(k, b);
                self.counter_fwd[i] = Some(k);
            } else if plan.edges.get(&b).is_some_and(|e| e.len() > 1) {
                let e = self.g.append_block_param(fb, Type::I32);
                self.edge_param.insert(b, e);
                self.origin.insert(e, b);
            }
        }
        for &b in rpo {
            if plan.reversed.contains(&b) {
                let rp = self.new_block(false);
                self.rpop.insert(b, rp);
            }
        }
        for i in 0..self.plan.ploops.len() {
            self.create_rev_loop(i);
        }
        for i in 0..self.plan.spawns.len() {
            self.create_rev_spawn(i);
        }
        // Split mode: the reverse entry, with [dret,] dargs.
        match self.plan.mode {
            Mode::Combined => {
                self.cur = entry;
                self.tape = self.ev(
                    InstKind::Alloca {
                        size: HEADER_BYTES,
                        align: 8,
                    },
                    Type::Ptr,
                );
                self.alloca_block = entry;
            }
            Mode::Split { ret_active, .. } => {
                let re = self.new_block(false);
                self.rentry = Some(re);
                self.alloca_block = re;
                if ret_active {
                    let ty = self.plan.p.sig.ret.unwrap_or(Type::F64);
                    self.dret = Some(self.g.append_block_param(re, ty));
                }
                self.dargs = Some(self.g.append_block_param(re, Type::Ptr));
            }
        }
        // The tape slots of the spawn sites outside any task.
        self.cur = entry;
        self.make_spawn_slots(None);
        if !self.plan.launch_body {
            self.zero_shared_shadows();
        } else if let (Some(re), crate::BlockThreads::Concurrent) =
            (self.rentry, self.plan.block_threads)
        {
            self.cur = re;
            self.zero_shared_shadows();
            self.cur = entry;
        }
        // Forward sweep.
        for &b in rpo {
            self.cur = self.fblock[&b];
            self.cur_fwd = Some(b);
            let insts = self.plan.p.blocks[b].insts.clone();
            let (term, body) = insts.split_last().expect("verified blocks are not empty");
            if let Some(i) = self.plan.ploops.iter().position(|l| l.task_entry == b) {
                self.forward_task_tape(i);
                self.make_spawn_slots(Some(TaskOf::Loop(i)));
            }
            if let Some(i) = self.plan.spawns.iter().position(|sp| sp.task == b) {
                self.make_spawn_slots(Some(TaskOf::Spawn(i)));
            }
            for &inst in body {
                self.forward_inst(inst)?;
            }
            for i in 0..self.plan.spawns.len() {
                if self.plan.spawns[i].sync == b {
                    self.forward_take_tape(i);
                }
            }
            self.frame_pos
                .insert(b, self.g.blocks[self.cur].insts.len());
            for i in 0..self.plan.ploops.len() {
                if self.plan.ploops[i].pre == b {
                    self.forward_tapes(i);
                }
            }
            for i in 0..self.plan.spawns.len() {
                if self.plan.spawns[i].detach == b {
                    self.forward_spawn_tape(i);
                }
            }
            for i in 0..self.plan.counted.len() {
                if self.plan.counted[i].pre.0 == b {
                    self.reserve_loop(i);
                }
            }
            self.forward_term(b, *term)?;
        }
        self.cur_fwd = None;
        self.fwd_inv = self.fwd.iter().map(|(&p, &f)| (f, p)).collect();
        // Reverse sweep.
        for &b in rpo {
            if plan.reversed.contains(&b) {
                self.reverse_block(b)?;
            }
        }
        // Parallel loops, innermost first (their reductions feed the outer).
        let mut order: Vec<usize> = (0..self.plan.ploops.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(self.plan.depth(i)));
        for i in order {
            self.finish_rev_loop(i)?;
        }
        // Spawn sites, innermost first (their merges feed the outer).
        let mut order: Vec<usize> = (0..self.plan.spawns.len()).collect();
        order.sort_by_key(|&i| self.plan.spawns[i].task_blocks.len());
        for i in order {
            self.finish_rev_spawn(i)?;
        }
        // Split mode: the reverse entry chooses the return taken.
        if let Some(re) = self.rentry {
            self.cur = re;
            self.cur_rev = None;
            let targets: Vec<Block> = self.plan.returns.iter().map(|r| self.rpop[r]).collect();
            match targets.len() {
                0 => {
                    self.emit(InstKind::Return(None), None);
                }
                1 => {
                    self.emit(InstKind::Jump(BlockCall::to(targets[0])), None);
                }
                _ => {
                    let one = self.iconst(Type::I64, 1);
                    let base = self
                        .emit(
                            InstKind::Call {
                                func: self.tape_fns.pop,
                                args: vec![self.tape, one],
                            },
                            Some(Type::Ptr),
                        )
                        .expect("pop returns a pointer");
                    let idx = self.ev(InstKind::Load(base), Type::I64);
                    self.switch(idx, Type::I64, &targets);
                }
            }
        }
        self.size_fixed_tapes();
        self.finish_frames();
        Ok(())
    }

    /// The most tape slots one run of the forward records, if no block can
    /// run twice (no loops) and nothing else records onto the same tape
    /// (no augmented callees, spawned tasks or launches): every frame at
    /// most once.
    fn records_per_call(&self) -> Option<u64> {
        let bounded = self.plan.an.loops.loops().next().is_none()
            && self.calls.is_empty()
            && self.launches.is_empty()
            && self.plan.spawns.is_empty()
            && self.plan.ploops.is_empty();
        bounded.then_some(self.frame_slots)
    }

    /// Where each block's frame lies on the tape, where frames have fixed
    /// places: in the split pair of a kernel launch's body (each thread's
    /// tape is a buffer of its own) whose records are bounded
    /// ([`Self::records_per_call`]: every block runs at most once) and
    /// which has at most one return (no return index is recorded). Then
    /// frame `b` is at `data + 8 offset(b)` in both sweeps, offsets in
    /// block order, and the tape's length is neither kept nor read: the
    /// forward writes no length and the reverse finds each frame without
    /// one. Else `None`, and frames are pushed and popped.
    pub(super) fn fixed_frames(&self) -> Option<HashMap<Block, i64>> {
        if !self.frames_have_fixed_places() {
            return None;
        }
        let mut blocks: Vec<(Block, i64)> = self
            .frames
            .iter()
            .filter(|(_, f)| !f.is_empty())
            .map(|(&b, f)| (b, f.len() as i64))
            .collect();
        blocks.sort();
        let mut next = 0;
        Some(
            blocks
                .into_iter()
                .map(|(b, n)| {
                    next += n;
                    (b, next - n)
                })
                .collect(),
        )
    }

    /// Whether [`Self::fixed_frames`] places the frames.
    pub(super) fn frames_have_fixed_places(&self) -> bool {
        self.plan.launch_body
            && matches!(self.plan.mode, Mode::Split { .. })
            && self.records_per_call().is_some()
            && self.plan.returns.len() <= 1
    }

    /// Coefficient `k · sym` of a region term, in the reverse.
    fn coefficient(&mut self, k: i64, sym: Option<Value>) -> Result<Value, AdError> {
        let kc = self.iconst(Type::I64, k);
        Ok(match sym {
            Some(s) => {
                let s = self.need_int(s, false)?;
                self.binop(BinaryOp::Imul, kc, s)
            }
            None => kc,
        })
    }

    fn fwd_tape(&self, b: Option<Block>) -> Value {
        match self.plan.task_of(b) {
            Some(TaskOf::Loop(i)) => self.rl[i]
                .tape_fwd
                .expect("the task's tape is computed at its entry"),
            Some(TaskOf::Spawn(i)) => self.rs[i]
                .tape_fwd
                .expect("the task's tape is allocated at its detach"),
            None => self.tape,
        }
    }

    fn rev_tape(&self, b: Option<Block>) -> Value {
        match self.plan.task_of(b) {
            Some(TaskOf::Loop(i)) => self.rl[i].tape,
            Some(TaskOf::Spawn(i)) => self.rs[i].tape,
            None => self.tape,
        }
    }
}
