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
//! The generator's methods live here and in three submodules: `frames`
//! (the tape frames, reserved and indexed loops), `ploops` (the reverse of
//! parallel loops and their reductions) and `spawns` (the reverse of
//! spawned tasks).
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
use crate::plan::{Facts, Mode, Plan, Request, TaskOf};
use crate::policy::{Action, Context, SsaUpdate};
use crate::rules::{self, AdjointBuilder};
use crate::tape::{HEADER_BYTES, TapeFns};
use parc_ir::{
    Activity, BinaryOp, Block, BlockCall, CastOp, FloatCC, FuncBuilder, FuncId, FuncKind, Function,
    GlobalId, Inst, InstKind, IntCC, Intrinsic, Linkage, Module, Signature, Type, UnaryOp, Value,
    ValueDef, new_function,
};
use std::collections::{HashMap, HashSet};

mod frames;
mod launches;
mod ploops;
mod spawns;

pub use launches::LaunchPlan;
pub(crate) use launches::kernel_of_body;

/// An augmented-forward / reverse pair for one callee and one activity
/// assignment.
#[derive(Clone, Debug)]
pub struct Pair {
    pub aug: FuncId,
    pub rev: FuncId,
    pub acts: Vec<Activity>,
    pub ret_active: bool,
    /// Generated for calls from parallel code: every adjoint update of
    /// memory the callee does not own is an atomic add (the callee cannot
    /// know which other tasks update the same shadow).
    pub atomic: bool,
}

/// State shared by all functions of one `differentiate` call.
pub struct Ctx {
    pub tape: TapeFns,
    pub acc: crate::tape::AccFns,
    pub pairs: HashMap<(FuncId, Vec<Activity>, bool), Pair>,
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
    /// Split pairs declared but not generated yet: `(primal, pair)`.
    pub queue: Vec<(FuncId, Pair)>,
    pub sites: Vec<crate::AccumulationSite>,
    /// The shadow of each `__shared__` array with a derivative, one per
    /// module, so that a function and its callees share it.
    pub shared_shadows: HashMap<GlobalId, GlobalId>,
}

impl Ctx {
    /// The shadow of `__shared__` array `g` (declared if new): another
    /// `__shared__` array of its size, zero when each block starts.
    fn shared_shadow(&mut self, module: &mut Module, g: GlobalId) -> GlobalId {
        if let Some(&s) = self.shared_shadows.get(&g) {
            return s;
        }
        let primal = &module.globals[g];
        let shadow = parc_ir::GlobalData {
            name: format!("{}.shadow", primal.name),
            size: primal.size,
            align: primal.align,
            init: Vec::new(),
            relocs: Vec::new(),
            is_const: false,
            space: parc_ir::AddrSpace::Shared,
        };
        let s = module.globals.push(shadow);
        self.shared_shadows.insert(g, s);
        s
    }
}

impl Ctx {
    /// The pair for `callee` under `acts`, declared (and queued) if new.
    fn pair(
        &mut self,
        module: &mut Module,
        callee: FuncId,
        acts: Vec<Activity>,
        ret_active: bool,
        atomic: bool,
    ) -> Pair {
        if let Some(p) = self.pairs.get(&(callee, acts.clone(), atomic)) {
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
            acts: acts.clone(),
            ret_active,
            atomic,
        };
        self.pairs.insert((callee, acts, atomic), pair.clone());
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
        },
    )?;
    let bound = gen_.records;
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
    /// Counted loops (see `cache.rs`): their forward iteration counters
    /// and the reverse's slots holding the iteration being reversed.
    counter_fwd: Vec<Option<Value>>,
    counter_slot: Vec<Option<Value>>,
    /// Counted loops whose records are reserved before they start and sit
    /// at places computed from the iteration: see [`Indexed`].
    indexed: Vec<Option<Indexed>>,
    /// Forward values back to the primal values they copy.
    fwd_inv: HashMap<Value, Value>,
    /// Values recomputed in a reverse block (of `g`).
    recomputed: HashMap<Block, HashMap<Value, Value>>,
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
/// whose exit sets the tape's length past iteration `T` (the exit test's):
/// no length is read or written per iteration, so the forward and the
/// reverse carry no dependence through the tape's header from one
/// iteration to the next. The reverse of the exit takes the whole
/// `(T + 1)·S` slots off at once.
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
    /// For a loop counting by one: its records placed by its induction
    /// variable instead of the counter (see [`IvFrames`]).
    by_iv: Option<IvFrames>,
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

/// How deep a chain of instructions the reverse recomputes instead of
/// recording its result: deep enough for an n-body distance (index, address,
/// load, difference, squares, sum, `sqrt`), short enough to keep each
/// reverse iteration's recomputation small.
const MAX_RECOMPUTE_DEPTH: u32 = 16;

/// An instruction whose value the reverse recomputes wherever it needs it:
/// a constant, an address of a global or function, or where the thread
/// is in its grid. The last two must not be recorded: a kernel launch's
/// reverse runs in another launch (see `launches.rs`), whose `__shared__`
/// arrays are at other addresses, on the same threads.
fn is_position(kind: &InstKind) -> bool {
    matches!(
        kind,
        InstKind::Iconst(_)
            | InstKind::Fconst(_)
            | InstKind::GlobalAddr(_)
            | InstKind::FuncAddr(_)
            | InstKind::Intrinsic {
                op: Intrinsic::ThreadIdx(_)
                    | Intrinsic::BlockIdx(_)
                    | Intrinsic::BlockDim(_)
                    | Intrinsic::GridDim(_),
                ..
            }
    )
}

/// What the generator made of one function.
struct Generated {
    g: Function,
    fwd_layout: Vec<Block>,
    rev_layout: Vec<Block>,
    rentry: Option<Block>,
    /// What one call of a split pair's `.aug` records, where bounded.
    records: Option<Records>,
}

/// Plans and generates the derivative of `primal` under `acts`: the plan,
/// then the split pairs of its calls and the kernels of its launches
/// (generated now where a launch needs to know what a thread records),
/// then the code.
fn generate(
    module: &mut Module,
    ctx: &mut Ctx,
    primal: FuncId,
    acts: &[Activity],
    mode: Mode,
) -> Result<Generated, AdError> {
    let facts = Facts {
        block_threads: ctx.block_threads,
        launch_body: launches::kernel_of_body(&module.funcs[primal].name).is_some(),
        one_d_body: ctx.one_d_bodies.contains(&primal),
    };
    let plan = Plan::build(module, primal, acts, mode, facts)?;
    let shared_shadow = plan
        .shared
        .iter()
        .map(|s| (s.global, ctx.shared_shadow(module, s.global)))
        .collect();
    let mut calls = HashMap::new();
    let mut launches = HashMap::new();
    for r in &plan.requests {
        match r {
            Request::Launch(i, l) => {
                let lp = ctx.launch_plan(module, l.kernel, l.acts.clone(), l.one_d)?;
                launches.insert(*i, lp);
            }
            Request::Call(i, c) => {
                let pair = ctx.pair(module, c.callee, c.acts.clone(), c.ret_active, c.atomic);
                calls.insert(*i, pair);
            }
        }
    }
    if let Some(band) = &plan.thread_band
        && ctx.block_threads == crate::BlockThreads::Concurrent
    {
        ctx.thread_phases.insert(primal, band.phases);
    }
    let mut gen_ = Gen::new(&plan, ctx, calls, launches, shared_shadow);
    gen_.build()?;
    let records = gen_.records_per_call().map(|slots| Records {
        slots,
        fixed: gen_.frames_have_fixed_places(),
    });
    ctx.sites.extend(plan.accumulation.sites.iter().cloned());
    Ok(Generated {
        g: gen_.g,
        fwd_layout: gen_.fwd_layout,
        rev_layout: gen_.rev_layout,
        rentry: gen_.rentry,
        records,
    })
}

impl<'a> Gen<'a> {
    fn new(
        plan: &'a Plan,
        ctx: &Ctx,
        calls: HashMap<Inst, Pair>,
        launches: HashMap<Inst, LaunchPlan>,
        shared_shadow: HashMap<GlobalId, GlobalId>,
    ) -> Gen<'a> {
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
            fwd_inv: HashMap::new(),
            recomputed: HashMap::new(),
        }
    }

    /// At the forward entry of a function with `__syncthreads` whose
    /// `__shared__` arrays have derivatives: their shadows set to zero, a
    /// slice by each thread of the block between two barriers. The reverse
    /// consumes the adjoints of what the function writes, but adjoints of
    /// shared memory it only reads would stay for the next call in the same
    /// block. The first barrier waits for the reverse of such a call; the
    /// second makes the zeros visible before any reverse adds. (A function
    /// that uses `__syncthreads` is called by every thread of the block.)
    ///
    /// A kernel body's forward and reverse run in launches of their own
    /// (`k.fwd`, `k.bwd`), so zeros the forward wrote would be in the
    /// forward launch's shared memory, not the reverse's: there the
    /// reverse zeroes its shadows at its entry instead, where blocks start
    /// with shared memory of unknown contents (threads that run
    /// concurrently: a GPU), and nothing needs to where every block starts
    /// with zeroed shared memory (threads one at a time: the CPU runtime
    /// and the interpreter both zero it).
    fn zero_shared_shadows(&mut self) {
        let has_barrier = self.plan.p.placed_insts().any(|(_, i)| {
            matches!(
                self.plan.p.inst(i),
                InstKind::Intrinsic {
                    op: Intrinsic::Barrier,
                    ..
                }
            )
        });
        if self.shared_shadow.is_empty() || !has_barrier {
            return;
        }
        let mut shadows: Vec<(GlobalId, u64)> = self
            .plan
            .shared
            .iter()
            .map(|s| (self.shared_shadow[&s.global], s.size))
            .collect();
        shadows.sort();
        let barrier = |g: &mut Gen| {
            g.emit(
                InstKind::Intrinsic {
                    op: Intrinsic::Barrier,
                    args: vec![],
                },
                None,
            );
        };
        barrier(self);
        // Linear thread id and block size, x fastest.
        let id = |g: &mut Gen, op: Intrinsic| {
            let v = g.ev(InstKind::Intrinsic { op, args: vec![] }, Type::I32);
            g.widen_i64(v, true)
        };
        use parc_ir::Dim;
        let (tx, ty, tz) = (
            id(self, Intrinsic::ThreadIdx(Dim::X)),
            id(self, Intrinsic::ThreadIdx(Dim::Y)),
            id(self, Intrinsic::ThreadIdx(Dim::Z)),
        );
        let (bx, by, bz) = (
            id(self, Intrinsic::BlockDim(Dim::X)),
            id(self, Intrinsic::BlockDim(Dim::Y)),
            id(self, Intrinsic::BlockDim(Dim::Z)),
        );
        let zy = self.binop(BinaryOp::Imul, tz, by);
        let zy = self.binop(BinaryOp::Iadd, zy, ty);
        let tid = self.binop(BinaryOp::Imul, zy, bx);
        let tid = self.binop(BinaryOp::Iadd, tid, tx);
        let threads = self.binop(BinaryOp::Imul, bx, by);
        let threads = self.binop(BinaryOp::Imul, threads, bz);
        let one = self.iconst(Type::I64, 1);
        let zero32 = self.iconst(Type::I32, 0);
        for (g, size) in shadows {
            let size = self.iconst(Type::I64, size as i64);
            // [min(tid·c, size), min((tid+1)·c, size)), c = ⌈size/threads⌉.
            let c = self.binop(BinaryOp::Iadd, size, threads);
            let c = self.binop(BinaryOp::Isub, c, one);
            let c = self.binop(BinaryOp::Udiv, c, threads);
            let lo = self.binop(BinaryOp::Imul, tid, c);
            let hi = self.binop(BinaryOp::Iadd, lo, c);
            let min = |g: &mut Gen, a: Value, b: Value| {
                let lt = g.ev(InstKind::Icmp(IntCC::Slt, a, b), Type::I1);
                g.ev(InstKind::Select(lt, a, b), Type::I64)
            };
            let lo = min(self, lo, size);
            let hi = min(self, hi, size);
            let n = self.binop(BinaryOp::Isub, hi, lo);
            let base = self.ev(InstKind::GlobalAddr(g), Type::Ptr);
            let at = self.ev(InstKind::PtrAdd(base, lo), Type::Ptr);
            self.emit(
                InstKind::Intrinsic {
                    op: Intrinsic::Memset,
                    args: vec![at, zero32, n],
                },
                None,
            );
        }
        barrier(self);
    }

    // ----- emission helpers ----------------------------------------------

    fn emit(&mut self, kind: InstKind, ty: Option<Type>) -> Option<Value> {
        let inst = self.g.append_inst(self.cur, kind, ty);
        let r = self.g.result(inst);
        if let (Some(r), Some(b)) = (r, self.cur_fwd) {
            self.origin.insert(r, b);
        }
        r
    }

    fn ev(&mut self, kind: InstKind, ty: Type) -> Value {
        self.emit(kind, Some(ty))
            .expect("typed instruction has a result")
    }

    fn iconst(&mut self, ty: Type, v: i64) -> Value {
        self.ev(InstKind::Iconst(parc_ir::sign_extend(v, ty)), ty)
    }

    fn fconst_(&mut self, ty: Type, v: f64) -> Value {
        let v = if ty == Type::F32 { v as f32 as f64 } else { v };
        self.ev(InstKind::Fconst(v), ty)
    }

    fn binop(&mut self, op: BinaryOp, a: Value, b: Value) -> Value {
        let ty = self.g.value_type(a);
        self.ev(InstKind::Binary(op, a, b), ty)
    }

    /// `*p += x`, a plain read-modify-write.
    fn add_to(&mut self, p: Value, x: Value) {
        let ty = self.g.value_type(x);
        let old = self.ev(InstKind::Load(p), ty);
        let new = self.ev(InstKind::Binary(BinaryOp::Fadd, old, x), ty);
        self.emit(InstKind::Store { value: new, ptr: p }, None);
    }

    /// `*p += x`, atomically.
    fn atomic_add_to(&mut self, p: Value, x: Value) {
        let ty = self.g.value_type(x);
        self.emit(
            InstKind::Intrinsic {
                op: Intrinsic::AtomicAdd,
                args: vec![p, x],
            },
            Some(ty),
        );
    }

    fn offset(&mut self, base: Value, off: i64) -> Value {
        let o = self.iconst(Type::I64, off);
        self.ev(InstKind::PtrAdd(base, o), Type::Ptr)
    }

    fn new_block(&mut self, forward: bool) -> Block {
        let b = self.g.create_block();
        self.g.append_block(b);
        if forward {
            self.fwd_layout.push(b);
        } else {
            self.rev_layout.push(b);
        }
        b
    }

    fn fv(&self, v: Value) -> Value {
        self.fwd[&v]
    }

    /// The forward shadow of primal pointer `v` (null if it has none).
    fn sh(&mut self, v: Value) -> Value {
        match self.shadow.get(&v) {
            Some(&s) => s,
            None => self.iconst(Type::Ptr, 0),
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
            self.finish_rev_loop(i);
        }
        // Spawn sites, innermost first (their merges feed the outer).
        let mut order: Vec<usize> = (0..self.plan.spawns.len()).collect();
        order.sort_by_key(|&i| self.plan.spawns[i].task_blocks.len());
        for i in order {
            self.finish_rev_spawn(i);
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

    /// `brif cond, then, els` with no arguments.
    fn brif(&mut self, cond: Value, then: Block, els: Block) {
        self.emit(
            InstKind::Brif {
                cond,
                then_dest: BlockCall::to(then),
                else_dest: BlockCall::to(els),
            },
            None,
        );
    }

    /// Branches to `targets[idx]` (a chain of compares; the last is the default).
    fn switch(&mut self, idx: Value, ty: Type, targets: &[Block]) {
        for (k, &t) in targets.iter().enumerate() {
            if k + 1 == targets.len() {
                self.emit(InstKind::Jump(BlockCall::to(t)), None);
                break;
            }
            let kc = self.iconst(ty, k as i64);
            let c = self.ev(InstKind::Icmp(IntCC::Eq, idx, kc), Type::I1);
            let next = self.new_block(false);
            self.brif(c, t, next);
            self.cur = next;
        }
    }

    fn forward_inst(&mut self, inst: Inst) -> Result<(), AdError> {
        let kind = self.plan.p.inst(inst).clone();
        let res = self.plan.p.result(inst);
        let loc = self.plan.p.locs[inst];
        if let Some(plan) = self.launches.get(&inst).cloned() {
            self.forward_launch(inst, &plan);
            return Ok(());
        }
        // Calls of active callees go to their augmented forward.
        if let Some(pair) = self.calls.get(&inst).cloned() {
            let InstKind::Call { args, .. } = &kind else {
                unreachable!("only calls are planned as calls")
            };
            let mut cargs = vec![self.fwd_tape(self.cur_fwd)];
            for (&a, &act) in args.iter().zip(&pair.acts) {
                cargs.push(self.fv(a));
                if act == Activity::Dup {
                    let s = self.sh(a);
                    cargs.push(s);
                }
            }
            let ty = res.map(|r| self.plan.p.value_type(r));
            let r = self.emit(
                InstKind::Call {
                    func: pair.aug,
                    args: cargs,
                },
                ty,
            );
            if let (Some(r), Some(pr)) = (r, res) {
                self.fwd.insert(pr, r);
            }
            return Ok(());
        }
        // Free of shadowed memory: the primal is freed now; the shadow at
        // the reverse of its allocation (the reverse sweep still needs it).
        let mut k2 = kind.clone();
        k2.map_operands(|v| self.fwd[&v]);
        let ty = res.map(|r| self.plan.p.value_type(r));
        let placed = self.g.append_inst(self.cur, k2, ty);
        self.g.locs[placed] = loc;
        if let (Some(r), Some(pr)) = (self.g.result(placed), res) {
            self.fwd.insert(pr, r);
            if let Some(b) = self.cur_fwd {
                self.origin.insert(r, b);
            }
        }
        // Shadows.
        match &kind {
            InstKind::Alloca { size, align }
                if self.plan.act.is_active_root(Root::Alloca(inst)) =>
            {
                // In split mode the reverse runs in `.rev`, after `.aug`
                // returned, and the reverse of a parallel loop's task in
                // another task (an outlined function): the shadow must
                // outlive the frame, so it is heap memory freed at the
                // alloca's reverse.
                let kind = if !self.plan.heap_shadow(inst) {
                    InstKind::Alloca {
                        size: *size,
                        align: *align,
                    }
                } else {
                    let n = self.iconst(Type::I64, *size as i64);
                    let one = self.iconst(Type::I64, 1);
                    InstKind::Intrinsic {
                        op: Intrinsic::Calloc,
                        args: vec![n, one],
                    }
                };
                let s = self.ev(kind, Type::Ptr);
                self.shadow.insert(res.expect("alloca has a result"), s);
            }
            InstKind::GlobalAddr(g) if self.shared_shadow.contains_key(g) => {
                let s = self.ev(InstKind::GlobalAddr(self.shared_shadow[g]), Type::Ptr);
                self.shadow
                    .insert(res.expect("global_addr has a result"), s);
            }
            InstKind::PtrAdd(p, o) => {
                let r = res.expect("ptradd has a result");
                if self.plan.act.is_shadowed(r) {
                    let sp = self.sh(*p);
                    let o = self.fv(*o);
                    let s = self.ev(InstKind::PtrAdd(sp, o), Type::Ptr);
                    self.shadow.insert(r, s);
                }
            }
            InstKind::Select(c, a, b) => {
                let r = res.expect("select has a result");
                if self.plan.p.value_type(r) == Type::Ptr && self.plan.act.is_shadowed(r) {
                    let (sa, sb) = (self.sh(*a), self.sh(*b));
                    let c = self.fv(*c);
                    let s = self.ev(InstKind::Select(c, sa, sb), Type::Ptr);
                    self.shadow.insert(r, s);
                }
            }
            InstKind::Load(p) => {
                let r = res.expect("load has a result");
                if self.plan.p.value_type(r) == Type::Ptr && self.plan.act.is_shadowed(r) {
                    let sp = self.sh(*p);
                    let s = self.ev(InstKind::Load(sp), Type::Ptr);
                    self.shadow.insert(r, s);
                }
            }
            InstKind::Store { value, ptr }
                if self.plan.p.value_type(*value) == Type::Ptr
                    && self.plan.act.is_shadowed(*ptr) =>
            {
                let sv = self.sh(*value);
                let sp = self.sh(*ptr);
                self.emit(InstKind::Store { value: sv, ptr: sp }, None);
            }
            InstKind::Intrinsic { op, args } => match op {
                Intrinsic::Malloc | Intrinsic::Calloc
                    if self.plan.act.is_active_root(Root::Heap(inst)) =>
                {
                    let cargs = if *op == Intrinsic::Malloc {
                        let one = self.iconst(Type::I64, 1);
                        vec![self.fv(args[0]), one]
                    } else {
                        vec![self.fv(args[0]), self.fv(args[1])]
                    };
                    let s = self.ev(
                        InstKind::Intrinsic {
                            op: Intrinsic::Calloc,
                            args: cargs,
                        },
                        Type::Ptr,
                    );
                    self.shadow.insert(res.expect("malloc has a result"), s);
                }
                // Shadows of floats are adjoints (seeds, for outputs): the
                // forward sweep leaves them alone; shadows of pointers are
                // pointers and move as the primal does.
                Intrinsic::Memcpy if self.plan.memcpy_ty.get(&inst) == Some(&Type::Ptr) => {
                    let sd = self.sh(args[0]);
                    let n = self.fv(args[2]);
                    if self.plan.act.is_shadowed(args[1]) {
                        let ss = self.sh(args[1]);
                        self.emit(
                            InstKind::Intrinsic {
                                op: Intrinsic::Memcpy,
                                args: vec![sd, ss, n],
                            },
                            None,
                        );
                    } else {
                        let z = self.iconst(Type::I32, 0);
                        self.emit(
                            InstKind::Intrinsic {
                                op: Intrinsic::Memset,
                                args: vec![sd, z, n],
                            },
                            None,
                        );
                    }
                }
                Intrinsic::Memset if self.plan.memcpy_ty.get(&inst) == Some(&Type::Ptr) => {
                    let sd = self.sh(args[0]);
                    let n = self.fv(args[2]);
                    let z = self.iconst(Type::I32, 0);
                    self.emit(
                        InstKind::Intrinsic {
                            op: Intrinsic::Memset,
                            args: vec![sd, z, n],
                        },
                        None,
                    );
                }
                _ => {}
            },
            _ => {}
        }
        Ok(())
    }

    fn forward_term(&mut self, b: Block, term: Inst) -> Result<(), AdError> {
        let kind = self.plan.p.inst(term).clone();
        match &kind {
            InstKind::Jump(_) | InstKind::Brif { .. } => {
                let mut calls = Vec::new();
                for (slot, (dest, args)) in branch_dests(&kind).into_iter().enumerate() {
                    let mut a: Vec<Value> = args.iter().map(|&v| self.fv(v)).collect();
                    let params = self.plan.p.blocks[dest].params.clone();
                    for (&pp, &arg) in params.iter().zip(args) {
                        if self.plan.act.is_shadowed(pp) {
                            let s = self.sh(arg);
                            a.push(s);
                        }
                    }
                    if let Some(i) = self.plan.counted.iter().position(|c| c.header == dest) {
                        let next = if self.plan.counted[i].pre == (b, slot) {
                            self.iconst(Type::I64, 0)
                        } else {
                            let k = self.counter_fwd[i].expect("the header has its counter");
                            let one = self.iconst(Type::I64, 1);
                            self.binop(BinaryOp::Iadd, k, one)
                        };
                        a.push(next);
                    } else if let Some(es) = self.plan.edges.get(&dest)
                        && es.len() > 1
                    {
                        let k = es.iter().position(|&e| e == (b, slot)).unwrap_or(0);
                        let kc = self.iconst(Type::I32, k as i64);
                        a.push(kc);
                    }
                    calls.push(BlockCall::new(self.fblock[&dest], a));
                }
                let new = match kind {
                    InstKind::Jump(_) => InstKind::Jump(calls.remove(0)),
                    InstKind::Brif { cond, .. } => {
                        let else_dest = calls.pop().expect("two targets");
                        let then_dest = calls.pop().expect("two targets");
                        InstKind::Brif {
                            cond: self.fv(cond),
                            then_dest,
                            else_dest,
                        }
                    }
                    _ => unreachable!(),
                };
                self.emit(new, None);
            }
            InstKind::Return(v) => match self.plan.mode {
                Mode::Combined => {
                    let rp = self.rpop[&b];
                    self.emit(InstKind::Jump(BlockCall::to(rp)), None);
                }
                Mode::Split { .. } => {
                    if self.plan.returns.len() > 1 {
                        if self.plan.returns.first() == Some(&b) {
                            self.frame_slots += 1;
                        }
                        let k = self.plan.returns.iter().position(|&r| r == b).unwrap_or(0);
                        let one = self.iconst(Type::I64, 1);
                        let base = self
                            .emit(
                                InstKind::Call {
                                    func: self.tape_fns.push,
                                    args: vec![self.tape, one],
                                },
                                Some(Type::Ptr),
                            )
                            .expect("push returns a pointer");
                        let kc = self.iconst(Type::I64, k as i64);
                        self.emit(
                            InstKind::Store {
                                value: kc,
                                ptr: base,
                            },
                            None,
                        );
                    }
                    let rv = v.map(|v| self.fv(v));
                    self.emit(InstKind::Return(rv), None);
                }
            },
            InstKind::Unreachable => {
                self.emit(InstKind::Unreachable, None);
            }
            InstKind::Detach { .. } | InstKind::Reattach { .. } | InstKind::Sync { .. } => {
                let mut k = kind.clone();
                k.map_successors(|s| self.fblock[&s]);
                self.emit(k, None);
            }
            _ => {
                return Err(crate::plan::err(
                    &self.plan.p,
                    Some(term),
                    "an instruction that is not a terminator ends a block",
                ));
            }
        }
        Ok(())
    }

    // ----- reverse --------------------------------------------------------

    /// `gv` (a value of the forward sweep) in the reverse code of the
    /// current block: see the module doc's frame invariant.
    fn need(&mut self, gv: Value) -> Value {
        if let Some(v) = self.free_value(gv) {
            return v;
        }
        let b = self.cur_rev.expect("need() is only called in reverse code");
        if let Some(&v) = self.pop_cache.get(&(b, gv)) {
            return v;
        }
        if self.cheap(b, gv, 0) {
            return self.rebuild(b, gv);
        }
        if let Some(at) = self.hoist_target(b, gv) {
            // Once per execution of the loop: cheaper than any cut inside.
            return self.record_in(at, b, gv);
        }
        let cut = self.cheapest_records(b, gv);
        if cut != [gv] {
            for &v in &cut {
                self.record_in(b, b, v);
            }
            if self.cheap(b, gv, 0) {
                return self.rebuild(b, gv);
            }
        }
        self.record_in(b, b, gv)
    }

    /// The values whose records let the reverse of `b` rebuild `gv` most
    /// cheaply (see `mincut.rs`): the graph is what `gv` is computed from
    /// through instructions the reverse may repeat, down to values it
    /// already has (which cost nothing and are left out).
    fn cheapest_records(&self, b: Block, gv: Value) -> Vec<Value> {
        let mut vals = vec![gv];
        let mut index: HashMap<Value, usize> = HashMap::from([(gv, 0)]);
        let mut edges = Vec::new();
        let mut sources = Vec::new();
        let mut stack = vec![(gv, 0u32)];
        while let Some((v, depth)) = stack.pop() {
            let i = index[&v];
            let ops = self
                .recompute_operands(v)
                .filter(|_| depth < MAX_RECOMPUTE_DEPTH);
            let Some(ops) = ops else {
                sources.push(i);
                continue;
            };
            for op in ops {
                if self.cheap(b, op, 0) {
                    continue;
                }
                let j = match index.get(&op) {
                    Some(&j) => j,
                    None => {
                        vals.push(op);
                        index.insert(op, vals.len() - 1);
                        stack.push((op, depth + 1));
                        vals.len() - 1
                    }
                };
                edges.push((j, i));
            }
        }
        let costs = vec![1; vals.len()];
        crate::mincut::cheapest_records(&costs, &edges, &sources, 0)
            .into_iter()
            .map(|i| vals[i])
            .collect()
    }

    /// The operands from which the reverse may compute forward value `v`
    /// again (the instructions `cheap` accepts), or `None`.
    fn recompute_operands(&self, v: Value) -> Option<Vec<Value>> {
        let ValueDef::Result(i) = self.g.value_def(v) else {
            return None;
        };
        match self.g.inst(i) {
            InstKind::Binary(_, x, y)
            | InstKind::PtrAdd(x, y)
            | InstKind::Icmp(_, x, y)
            | InstKind::Fcmp(_, x, y) => Some(vec![*x, *y]),
            InstKind::Unary(_, x) | InstKind::Cast(_, x) => Some(vec![*x]),
            InstKind::Select(c, x, y) => Some(vec![*c, *x, *y]),
            InstKind::Load(ptr) if self.reloadable(v) => Some(vec![*ptr]),
            InstKind::Intrinsic { op, args } if op.is_cheap_arithmetic() => Some(args.clone()),
            InstKind::Intrinsic { args, .. } if self.paired_trig(v) => Some(args.clone()),
            _ => None,
        }
    }

    /// True if forward value `gv` is a `sin x` or `cos x` whose adjoint
    /// rule computes the other of the two in the reverse: computed again
    /// there, beside the rule's call, it costs little (the backend makes one
    /// `sincos` call of a `sin` and a `cos` of one value in one block) and
    /// saves a record — and the forward may then not need it at all.
    fn paired_trig(&self, gv: Value) -> bool {
        let ValueDef::Result(i) = self.g.value_def(gv) else {
            return false;
        };
        matches!(
            self.g.inst(i),
            InstKind::Intrinsic {
                op: Intrinsic::Sin | Intrinsic::Cos,
                ..
            }
        ) && self
            .fwd_inv
            .get(&gv)
            .is_some_and(|&pv| self.plan.act.is_varied(pv))
    }

    /// Constants (re-emitted), parameters, and in combined mode values of
    /// blocks that dominate every return outside loops: no record needed.
    fn free_value(&mut self, gv: Value) -> Option<Value> {
        if !self.is_free(gv) {
            return None;
        }
        if let ValueDef::Result(i) = self.g.value_def(gv) {
            let k = self.g.inst(i).clone();
            if is_position(&k) {
                let ty = self.g.value_type(gv);
                return Some(self.ev(k, ty));
            }
        }
        Some(gv)
    }

    fn is_free(&self, gv: Value) -> bool {
        let fentry = self.g.layout[0];
        match self.g.value_def(gv) {
            ValueDef::Param(b, _) if b == fentry || Some(b) == self.rentry => return true,
            ValueDef::Result(i) if is_position(self.g.inst(i)) => return true,
            _ => {}
        }
        self.plan.mode == Mode::Combined
            && self
                .origin
                .get(&gv)
                .is_some_and(|b| self.plan.avail.contains(b))
    }

    /// Records `gv` in the frame of primal block `at` (whose reverse pops
    /// it, and dominates the reverse of `b`).
    fn record_in(&mut self, at: Block, b: Block, gv: Value) -> Value {
        if let Some(&v) = self.pop_cache.get(&(at, gv)) {
            self.pop_cache.insert((b, gv), v);
            return v;
        }
        let ty = self.g.value_type(gv);
        let l = self.g.make_inst(InstKind::Load(gv), Some(ty));
        let v = self.g.result(l).expect("load has a result");
        self.frames.entry(at).or_default().push((gv, l));
        self.pop_cache.insert((at, gv), v);
        self.pop_cache.insert((b, gv), v);
        v
    }

    /// Where a value needed by the reverse of `b` is better recorded: at
    /// the exit of the outermost loop around `b` that does not define it
    /// (once per execution of the loop instead of once per iteration).
    /// Spawned tasks are a barrier: their reverse runs on a tape of their
    /// own while the parent's is in use.
    fn hoist_target(&self, b: Block, gv: Value) -> Option<Block> {
        let d = *self.origin.get(&gv)?;
        let mut around: Vec<(usize, Option<Block>, bool)> = Vec::new();
        for c in &self.plan.counted {
            if c.blocks.contains(&b) {
                around.push((c.blocks.len(), Some(c.exit), c.blocks.contains(&d)));
            }
        }
        for l in &self.plan.ploops {
            if l.task_blocks.contains(&b) {
                around.push((
                    l.loop_blocks.len(),
                    Some(l.exit),
                    l.loop_blocks.contains(&d),
                ));
            }
        }
        for sp in &self.plan.spawns {
            if sp.task_blocks.contains(&b) {
                around.push((sp.task_blocks.len(), None, true));
            }
        }
        around.sort_by_key(|a| a.0);
        let mut target = None;
        for (_, exit, defines) in around {
            match exit {
                Some(x) if !defines => target = Some(x),
                _ => break,
            }
        }
        target
    }

    /// The counted loop or parallel loop of which `gv` (a forward value)
    /// is an induction variable that the reverse of `b` can recompute.
    fn iv_of(&self, b: Block, gv: Value) -> Option<Iv> {
        let p = *self.fwd_inv.get(&gv)?;
        for (i, c) in self.plan.counted.iter().enumerate() {
            if c.ivs.contains_key(&p) && c.blocks.contains(&b) {
                return Some(Iv::Counted(i, p));
            }
        }
        for (i, l) in self.plan.ploops.iter().enumerate() {
            if l.iv == p && l.task_blocks.contains(&b) {
                return Some(Iv::Parallel(i));
            }
        }
        None
    }

    /// True if the reverse of `b` can obtain `gv` without a new record in
    /// its own frame (see `cache.rs`).
    fn cheap(&self, b: Block, gv: Value, depth: u32) -> bool {
        self.cheap_with(b, gv, depth, true)
    }

    /// [`Self::cheap`], where `hoist` says whether a record at a loop's exit
    /// counts as cheap; without it, only values that need no record at all.
    fn cheap_with(&self, b: Block, gv: Value, depth: u32, hoist: bool) -> bool {
        self.cheap_memo(b, gv, depth, hoist, &mut HashMap::new())
    }

    /// The walk behind [`Self::cheap_with`]; `memo` keeps each value's
    /// answer, so a DAG of shared operands (`x * x`) is walked once.
    fn cheap_memo(
        &self,
        b: Block,
        gv: Value,
        depth: u32,
        hoist: bool,
        memo: &mut HashMap<Value, bool>,
    ) -> bool {
        if let Some(&known) = memo.get(&gv) {
            return known;
        }
        let answer = self.cheap_step(b, gv, depth, hoist, memo);
        memo.insert(gv, answer);
        answer
    }

    fn cheap_step(
        &self,
        b: Block,
        gv: Value,
        depth: u32,
        hoist: bool,
        memo: &mut HashMap<Value, bool>,
    ) -> bool {
        if self.is_free(gv) || self.pop_cache.contains_key(&(b, gv)) {
            return true;
        }
        if depth > MAX_RECOMPUTE_DEPTH {
            return false;
        }
        if (hoist && self.hoist_target(b, gv).is_some()) || self.iv_of(b, gv).is_some() {
            return true;
        }
        if let Some((c, t, f)) = self.param_by_condition(gv) {
            return self.cheap_memo(b, c, depth + 1, hoist, memo)
                && [t, f].into_iter().all(|a| {
                    self.cheap_memo(b, a, depth + 1, hoist, memo) && !self.may_trap(b, a, depth + 1)
                });
        }
        let ValueDef::Result(i) = self.g.value_def(gv) else {
            return false;
        };
        match self.g.inst(i) {
            InstKind::Binary(_, x, y) => {
                self.cheap_memo(b, *x, depth + 1, hoist, memo)
                    && self.cheap_memo(b, *y, depth + 1, hoist, memo)
            }
            InstKind::Unary(_, x) | InstKind::Cast(_, x) => {
                self.cheap_memo(b, *x, depth + 1, hoist, memo)
            }
            InstKind::PtrAdd(x, y) => {
                self.cheap_memo(b, *x, depth + 1, hoist, memo)
                    && self.cheap_memo(b, *y, depth + 1, hoist, memo)
            }
            InstKind::Icmp(_, x, y) | InstKind::Fcmp(_, x, y) => {
                self.cheap_memo(b, *x, depth + 1, hoist, memo)
                    && self.cheap_memo(b, *y, depth + 1, hoist, memo)
            }
            InstKind::Select(c, x, y) => {
                self.cheap_memo(b, *c, depth + 1, hoist, memo)
                    && self.cheap_memo(b, *x, depth + 1, hoist, memo)
                    && self.cheap_memo(b, *y, depth + 1, hoist, memo)
            }
            InstKind::Load(ptr) => {
                self.reloadable(gv) && self.cheap_memo(b, *ptr, depth + 1, hoist, memo)
            }
            InstKind::Intrinsic { op, args }
                if op.is_cheap_arithmetic() || self.paired_trig(gv) =>
            {
                args.iter()
                    .all(|&a| self.cheap_memo(b, a, depth + 1, hoist, memo))
            }
            _ => false,
        }
    }

    /// A parameter of a join with two incoming edges that the latest
    /// branch on one condition decided (see [`Self::edge_by_condition`]),
    /// as that condition and the arguments of the true and the false edge
    /// (forward values): `gv` is `select(c, t, f)`, as C's `a && b` is.
    /// The argument of the way not taken was never computed, so it may be
    /// recomputed only if that cannot fault ([`Self::may_trap`]).
    fn param_by_condition(&self, gv: Value) -> Option<(Value, Value, Value)> {
        let &pv = self.fwd_inv.get(&gv)?;
        let ValueDef::Param(join, k) = self.plan.p.value_def(pv) else {
            return None;
        };
        if join == self.plan.p.layout[0] || self.iv_of(join, gv).is_some() {
            return None;
        }
        let edges = self.plan.edges.get(&join)?;
        let (c, on_true, on_false) = self.edge_by_condition(join, edges)?;
        let arg = |(pred, slot): (Block, usize)| -> Option<Value> {
            let term = self.plan.p.terminator(pred)?;
            let kind = self.plan.p.inst(term);
            let (_, args) = branch_dests(kind).into_iter().nth(slot)?;
            args.get(k as usize).map(|&a| self.fv(a))
        };
        Some((c, arg(edges[on_true])?, arg(edges[on_false])?))
    }

    /// True if the reverse of `b` recomputing forward value `gv` (which
    /// [`Self::cheap`] allows) may fault: a division, a load.
    fn may_trap(&self, b: Block, gv: Value, depth: u32) -> bool {
        if self.is_free(gv)
            || self.pop_cache.contains_key(&(b, gv))
            || self.iv_of(b, gv).is_some()
            || self.hoist_target(b, gv).is_some()
        {
            return false;
        }
        if depth > MAX_RECOMPUTE_DEPTH {
            return true;
        }
        if let Some((c, t, f)) = self.param_by_condition(gv) {
            return [c, t, f]
                .into_iter()
                .any(|v| self.may_trap(b, v, depth + 1));
        }
        let ValueDef::Result(i) = self.g.value_def(gv) else {
            return true;
        };
        let kind = self.g.inst(i);
        let traps = match kind {
            InstKind::Binary(op, ..) => matches!(
                op,
                BinaryOp::Sdiv | BinaryOp::Udiv | BinaryOp::Srem | BinaryOp::Urem
            ),
            InstKind::Unary(..)
            | InstKind::Cast(..)
            | InstKind::PtrAdd(..)
            | InstKind::Icmp(..)
            | InstKind::Fcmp(..)
            | InstKind::Select(..)
            | InstKind::Iconst(_)
            | InstKind::Fconst(_) => false,
            InstKind::Intrinsic { op, .. } => !op.is_cheap_arithmetic(),
            _ => true,
        };
        let mut ops = Vec::new();
        kind.for_each_operand(|v| ops.push(v));
        traps || ops.into_iter().any(|v| self.may_trap(b, v, depth + 1))
    }

    /// True if forward load `gv` reads memory that nothing writes before
    /// the reverse sweep runs: only in combined mode (in split mode the
    /// caller runs between `.aug` and `.rev`).
    fn reloadable(&self, gv: Value) -> bool {
        if self.plan.mode != Mode::Combined {
            return false;
        }
        let Some(&r) = self.fwd_inv.get(&gv) else {
            return false;
        };
        let ValueDef::Result(i) = self.plan.p.value_def(r) else {
            return false;
        };
        let InstKind::Load(ptr) = self.plan.p.inst(i) else {
            return false;
        };
        self.plan.writes.unchanged(&self.plan.act, *ptr)
    }

    /// Emits `gv`'s recomputation (which `cheap` allowed) in the current
    /// reverse block.
    fn rebuild(&mut self, b: Block, gv: Value) -> Value {
        if let Some(v) = self.free_value(gv) {
            return v;
        }
        if let Some(&v) = self.pop_cache.get(&(b, gv)) {
            return v;
        }
        if let Some(&v) = self.recomputed.get(&self.cur).and_then(|m| m.get(&gv)) {
            return v;
        }
        // A value that can be recomputed from values needing no record is
        // recomputed even where a record at a loop's exit would do: the
        // optimizer hoists an invariant recomputation out of the reverse
        // loop, and no tape slot is spent.
        let v = if let Some(iv) = self.iv_of(b, gv) {
            self.rebuild_iv(iv)
        } else if let Some(at) = self
            .hoist_target(b, gv)
            .filter(|_| !self.cheap_with(b, gv, 0, false))
        {
            self.record_in(at, b, gv)
        } else if let Some((c, t, f)) = self.param_by_condition(gv) {
            let c = self.rebuild(b, c);
            let t = self.rebuild(b, t);
            let f = self.rebuild(b, f);
            let ty = self.g.value_type(gv);
            self.ev(InstKind::Select(c, t, f), ty)
        } else {
            let ValueDef::Result(i) = self.g.value_def(gv) else {
                unreachable!("cheap() accepted only instruction results here")
            };
            let mut kind = self.g.inst(i).clone();
            let mut ops = Vec::new();
            kind.map_operands(|v| {
                ops.push(v);
                v
            });
            let mut new_ops = Vec::new();
            for op in ops {
                let v = self.rebuild(b, op);
                new_ops.push(v);
            }
            let mut it = new_ops.into_iter();
            kind.map_operands(|v| it.next().unwrap_or(v));
            let ty = self.g.value_type(gv);
            self.ev(kind, ty)
        };
        self.recomputed.entry(self.cur).or_default().insert(gv, v);
        v
    }

    /// `lo + k·step` for the iteration being reversed.
    fn rebuild_iv(&mut self, iv: Iv) -> Value {
        let (p, k, lo, step) = match iv {
            Iv::Counted(i, p) => {
                let (lo, step) = self.plan.counted[i].ivs[&p];
                let slot = self.counter_slot(i);
                let k = self.ev(InstKind::Load(slot), Type::I64);
                let ty = self.plan.p.value_type(p);
                let step = self.iconst(ty, step);
                (p, k, self.rv(lo), step)
            }
            Iv::Parallel(i) => {
                let l = self.plan.ploops[i].clone();
                let k = self.rl[i].k;
                (l.iv, k, self.rv(l.lo), self.rv(l.step))
            }
        };
        let ty = self.plan.p.value_type(p);
        let k = if ty == Type::I64 {
            k
        } else {
            self.ev(InstKind::Cast(CastOp::Trunc, k), ty)
        };
        let off = self.binop(BinaryOp::Imul, k, step);
        self.binop(BinaryOp::Iadd, lo, off)
    }

    /// The slot holding the iteration of counted loop `i` being reversed:
    /// private to the reverse task whose code reverses the loop.
    fn counter_slot(&mut self, i: usize) -> Value {
        if let Some(s) = self.counter_slot[i] {
            return s;
        }
        let h = self.plan.counted[i].header;
        let home = match self.plan.task_of(Some(h)) {
            Some(TaskOf::Loop(l)) => self.rl[l].task,
            Some(TaskOf::Spawn(sp)) => self.rs[sp].rtask,
            None => self.alloca_block,
        };
        let s = self.slot_in(home, Type::I64, None);
        self.counter_slot[i] = Some(s);
        s
    }

    /// A primal value (its forward copy) in the reverse code.
    fn rv(&mut self, v: Value) -> Value {
        let f = self.fv(v);
        self.need(f)
    }

    fn slot(&mut self, v: Value) -> Value {
        if let Some(&s) = self.adj.get(&v) {
            return s;
        }
        let ty = self.plan.p.value_type(v);
        // Adjoints of a task's values are private to the reverse task.
        let home = self.rev_home(self.plan.task_of(self.plan.def_block(v)));
        // Slots start at -0.0 (see `take_adj`), except those of the
        // parameters, whose final values are the gradient: an untouched
        // one reads +0.0 (the zero an `alloca` starts with).
        let is_param =
            matches!(self.plan.p.value_def(v), ValueDef::Param(b, _) if b == self.plan.p.layout[0]);
        let s = self.slot_in(home, ty, (!is_param).then_some(-0.0));
        self.adj.insert(v, s);
        s
    }

    /// A fresh slot for a `ty` first in block `home` (so that each task
    /// running `home` has its own), set to `init` right after it where
    /// given (otherwise it holds the zero an `alloca` starts with).
    fn slot_in(&mut self, home: Block, ty: Type, init: Option<f64>) -> Value {
        let alloca = self.g.make_inst(
            InstKind::Alloca {
                size: ty.bytes(),
                align: ty.bytes(),
            },
            Some(Type::Ptr),
        );
        let s = self.g.result(alloca).expect("alloca has a result");
        let mut code = vec![alloca];
        if let Some(c) = init {
            let z = self.g.make_inst(InstKind::Fconst(c), Some(ty));
            let zv = self.g.result(z).expect("fconst has a result");
            let st = self
                .g
                .make_inst(InstKind::Store { value: zv, ptr: s }, None);
            code.extend([z, st]);
        }
        self.g.blocks[home].insts.splice(0..0, code);
        s
    }

    fn add_adj(&mut self, v: Value, x: Value) {
        if !self.plan.act.is_varied(v) {
            return;
        }
        let ty = self.plan.p.value_type(v);
        let s = match crate::policy::ssa_update(self.plan, v, self.context()) {
            SsaUpdate::Reduce { lp } => {
                self.reduce(lp, RedTarget::Ssa(v), ty, x);
                return;
            }
            SsaUpdate::Accumulator { site, atomic } => {
                let a = self.accumulator(site, v);
                if atomic {
                    // Reverse tasks of this site run at once.
                    self.atomic_add_to(a, x);
                    return;
                }
                a
            }
            SsaUpdate::Slot => self.slot(v),
        };
        self.add_to(s, x);
    }

    /// Where the current reverse code is, for the plan's accumulation
    /// decisions.
    fn context(&self) -> Context {
        Context {
            rev: self.cur_rev,
            lp: self.ctx_loop,
        }
    }

    /// The tape slots of the spawn sites whose innermost enclosing task is
    /// `task` (`None`: outside every task), made in the current block, the
    /// forward copy of that task's entry: null until their detach runs.
    fn make_spawn_slots(&mut self, task: Option<TaskOf>) {
        for i in 0..self.plan.spawns.len() {
            if self.plan.task_of(Some(self.plan.spawns[i].detach)) != task {
                continue;
            }
            // A tape list is a tape header of its own (24 bytes).
            let size = if self.plan.spawns[i].multi {
                HEADER_BYTES
            } else {
                8
            };
            let slot = self.ev(InstKind::Alloca { size, align: 8 }, Type::Ptr);
            self.clear_slot(i, slot);
            self.rs[i].slot = Some(slot);
        }
    }

    /// The block whose allocas are private to each reverse instance of
    /// `task`: the reverse task's entry, or the function's.
    fn rev_home(&self, task: Option<TaskOf>) -> Block {
        match task {
            Some(TaskOf::Loop(i)) => self.rl[i].task,
            Some(TaskOf::Spawn(i)) => self.rs[i].rtask,
            None => self.alloca_block,
        }
    }

    /// The zero-initialized accumulator of spawn site `i` for the adjoint
    /// of `v` (merged into `v`'s adjoint after the reverse task is synced).
    fn accumulator(&mut self, i: usize, v: Value) -> Value {
        if let Some(&(_, a)) = self.rs[i].accs.iter().find(|(w, _)| *w == v) {
            return a;
        }
        let ty = self.plan.p.value_type(v);
        let home = self.rev_home(self.plan.task_of(Some(self.plan.spawns[i].detach)));
        let a = self.slot_in(home, ty, Some(0.0));
        self.rs[i].accs.push((v, a));
        a
    }

    fn take_adj(&mut self, v: Value) -> Value {
        let ty = self.plan.p.value_type(v);
        let s = self.slot(v);
        let t = self.ev(InstKind::Load(s), ty);
        // -0.0, the identity of addition: the next add into the slot,
        // `-0.0 + x`, folds to `x` (`0.0 + x` cannot: it turns -0.0 into
        // +0.0). A slot taken and not added to since holds -0.0, which
        // adds nothing wherever it flows.
        let z = self.fconst_(ty, -0.0);
        self.emit(InstKind::Store { value: z, ptr: s }, None);
        t
    }

    fn reverse_block(&mut self, b: Block) -> Result<(), AdError> {
        self.ctx_loop = self.plan.loop_of.get(&b).copied();
        let body = self.new_block(false);
        self.rbodies.insert(b, body);
        self.cur = body;
        self.cur_rev = Some(b);
        let insts = self.plan.p.blocks[b].insts.clone();
        let (term, rest) = insts.split_last().expect("verified blocks are not empty");
        for i in 0..self.plan.spawns.len() {
            if self.plan.spawns[i].detach == b {
                // The reverse of the detach: wait for the reverse task,
                // then merge its accumulators (filled in at the end).
                let (rsr, merge, resume) = (self.rs[i].rsr, self.rs[i].merge, self.rs[i].resume);
                self.emit(
                    InstKind::Sync {
                        region: rsr,
                        next: merge,
                    },
                    None,
                );
                self.cur = resume;
            }
        }
        for i in 0..self.plan.spawns.len() {
            if self.plan.spawns[i].sync == b {
                self.spawn_reverse_task(i);
            }
        }
        if let InstKind::Return(Some(v)) = self.plan.p.inst(*term).clone()
            && self.plan.act.is_varied(v)
        {
            let seed = match self.dret {
                Some(d) => d,
                None => {
                    let ty = self.plan.p.value_type(v);
                    self.fconst_(ty, 1.0)
                }
            };
            self.add_adj(v, seed);
        }
        for &inst in rest.iter().rev() {
            self.reverse_inst(inst)?;
        }
        let edges = self.plan.edges.get(&b).cloned().unwrap_or_default();
        if let Some(i) = self.plan.counted.iter().position(|c| c.exit == b) {
            // Entering the reverse of a counted loop: its trip count,
            // from the loop's bounds where they give it, else recorded.
            let k = match self.plan.exit_tests[i] {
                Some(crate::cache::ExitTest {
                    lo,
                    step: 1,
                    bound,
                    inclusive: false,
                    signed,
                    ..
                }) => {
                    // `for (iv = lo; iv < bound; iv++)`: iv never wraps
                    // (it stays below bound), so the count is bound - lo.
                    let lo = self.need_int(lo, !signed);
                    let hi = self.need_int(bound, !signed);
                    let d = self.binop(BinaryOp::Isub, hi, lo);
                    let zero = self.iconst(Type::I64, 0);
                    let any = if signed {
                        self.ev(InstKind::Icmp(IntCC::Slt, lo, hi), Type::I1)
                    } else {
                        self.ev(InstKind::Icmp(IntCC::Ult, lo, hi), Type::I1)
                    };
                    self.ev(InstKind::Select(any, d, zero), Type::I64)
                }
                _ => {
                    let k = self.counter_fwd[i].expect("the header has its counter");
                    self.need(k)
                }
            };
            let slot = self.counter_slot(i);
            self.emit(
                InstKind::Store {
                    value: k,
                    ptr: slot,
                },
                None,
            );
            if self.indexed[i].is_some() {
                // Every iteration's records at once: len0 = len - (k+1)·S.
                let s = self
                    .emit(InstKind::Iconst(0), Some(Type::I64))
                    .expect("iconst has a result");
                let ValueDef::Result(si) = self.g.value_def(s) else {
                    unreachable!("an instruction result")
                };
                let one = self.iconst(Type::I64, 1);
                let runs = self.binop(BinaryOp::Iadd, k, one);
                let used = self.binop(BinaryOp::Imul, runs, s);
                let tape = self.rev_tape(Some(b));
                let lp = self.offset(tape, crate::tape::LEN);
                let len = self.ev(InstKind::Load(lp), Type::I64);
                let len0 = self.binop(BinaryOp::Isub, len, used);
                self.emit(
                    InstKind::Store {
                        value: len0,
                        ptr: lp,
                    },
                    None,
                );
                let dp = self.offset(tape, crate::tape::DATA);
                let data = self.ev(InstKind::Load(dp), Type::Ptr);
                let ix = self.indexed[i].as_mut().expect("checked above");
                ix.len0_rev = Some(len0);
                ix.data_rev = Some(data);
                ix.slot_consts.push(si);
            }
        }
        let counted_header = self.plan.counted.iter().position(|c| c.header == b);
        let exits = self.plan.ploops.iter().position(|l| l.exit == b);
        let enters = self.plan.ploops.iter().position(|l| l.task_entry == b);
        let spawned = self.plan.spawns.iter().position(|sp| sp.task == b);
        if let Some(i) = exits {
            // The reverse of the whole loop: a parallel loop over the tapes.
            let tapes = self.rl[i].tapes_fwd.expect("forward tapes exist");
            let trip = self.rl[i].trip_fwd.expect("forward trip count exists");
            let tapes = self.need(tapes);
            let trip = self.need(trip);
            self.rl[i].tapes_rev = Some(tapes);
            self.rl[i].trip_rev = Some(trip);
            if let Some(data) = self.rl[i].data_fwd {
                self.rl[i].data_rev = Some(self.need(data));
            }
            let pre = self.rl[i].pre;
            self.emit(InstKind::Jump(BlockCall::to(pre)), None);
        } else if let Some(i) = enters {
            let tape = self.rl[i].tape;
            if self.rl[i].fixed_slots.is_none() {
                self.emit(
                    InstKind::Call {
                        func: self.tape_fns.free,
                        args: vec![tape],
                    },
                    None,
                );
            }
            self.sync_reverse_regions(Some(TaskOf::Loop(i)));
            let inext = self.rl[i].inext;
            self.emit(InstKind::Jump(BlockCall::to(inext)), None);
        } else if let Some(i) = spawned {
            self.sync_reverse_regions(Some(TaskOf::Spawn(i)));
            let tape = self.rs[i].tape;
            self.emit(
                InstKind::Call {
                    func: self.tape_fns.free,
                    args: vec![tape],
                },
                None,
            );
            self.emit(
                InstKind::Intrinsic {
                    op: Intrinsic::Free,
                    args: vec![tape],
                },
                None,
            );
            let (rsr, next) = (self.rs[i].rsr, self.rs[i].next);
            self.emit(
                InstKind::Reattach {
                    region: rsr,
                    cont: next,
                },
                None,
            );
        } else if let Some(i) = counted_header {
            // Iteration 0 came from the preheader; any other from the
            // latch, one iteration earlier.
            let slot = self.counter_slot(i);
            let k = self.ev(InstKind::Load(slot), Type::I64);
            let zero = self.iconst(Type::I64, 0);
            let first = self.ev(InstKind::Icmp(IntCC::Eq, k, zero), Type::I1);
            let (pre, latch) = (self.plan.counted[i].pre, self.plan.counted[i].latch);
            let from_pre = self.new_block(false);
            let from_latch = self.new_block(false);
            self.brif(first, from_pre, from_latch);
            self.cur = from_pre;
            self.edge_adjoints(b, pre);
            let t = self.rpop[&pre.0];
            self.emit(InstKind::Jump(BlockCall::to(t)), None);
            self.cur = from_latch;
            let one = self.iconst(Type::I64, 1);
            let k1 = self.binop(BinaryOp::Isub, k, one);
            self.emit(
                InstKind::Store {
                    value: k1,
                    ptr: slot,
                },
                None,
            );
            self.edge_adjoints(b, latch);
            let t = self.rpop[&latch.0];
            self.emit(InstKind::Jump(BlockCall::to(t)), None);
        } else if b == self.plan.p.layout[0] {
            self.finish_entry();
        } else if edges.len() == 1 {
            self.edge_adjoints(b, edges[0]);
            let t = self.rpop[&edges[0].0];
            self.emit(InstKind::Jump(BlockCall::to(t)), None);
        } else {
            let idx = match self.edge_by_condition(b, &edges) {
                Some((cond, on_true, on_false)) if self.cheap(b, cond, 0) => {
                    let c = self.rebuild(b, cond);
                    let t = self.iconst(Type::I32, on_true as i64);
                    let f = self.iconst(Type::I32, on_false as i64);
                    self.ev(InstKind::Select(c, t, f), Type::I32)
                }
                _ => {
                    let e = self.edge_param[&b];
                    self.need(e)
                }
            };
            let mut targets = Vec::new();
            for &edge in &edges {
                let eb = self.new_block(false);
                targets.push(eb);
                let saved = self.cur;
                self.cur = eb;
                self.edge_adjoints(b, edge);
                let t = self.rpop[&edge.0];
                self.emit(InstKind::Jump(BlockCall::to(t)), None);
                self.cur = saved;
            }
            self.switch(idx, Type::I32, &targets);
        }
        self.cur_rev = None;
        // The pop block continues into the body (its pops are filled in
        // when every frame is known).
        Ok(())
    }

    /// A join whose entering edge follows from one branch condition: `b`'s
    /// immediate dominator `d` ends in `brif c, T, E`, and of `b`'s two
    /// incoming edges one is `d`'s then-edge or leaves a block that only
    /// `T` (entered from `d` alone) dominates, the other likewise for `E`.
    /// The latest `d` before `b` then decided the way in, so the reverse
    /// can recompute `c` instead of recording the edge. Returns the forward
    /// `c` and the indices (into `edges`) of the true and false edges.
    fn edge_by_condition(
        &self,
        b: Block,
        edges: &[(Block, usize)],
    ) -> Option<(Value, usize, usize)> {
        if edges.len() != 2 {
            return None;
        }
        let d = self.plan.an.domtree.idom(b)?;
        let t = self.plan.p.terminator(d)?;
        let InstKind::Brif {
            cond,
            then_dest,
            else_dest,
        } = self.plan.p.inst(t)
        else {
            return None;
        };
        let (tb, eb) = (then_dest.block, else_dest.block);
        if tb == eb {
            return None;
        }
        let single_entry = |x: Block| x != b && self.plan.an.cfg.preds(x) == [d];
        let side = |&(pred, slot): &(Block, usize)| -> Option<bool> {
            if pred == d {
                return Some(slot == 0);
            }
            if single_entry(tb) && self.plan.an.domtree.dominates(tb, pred) {
                return Some(true);
            }
            if single_entry(eb) && self.plan.an.domtree.dominates(eb, pred) {
                return Some(false);
            }
            None
        };
        match (side(&edges[0])?, side(&edges[1])?) {
            (true, false) => Some((self.fv(*cond), 0, 1)),
            (false, true) => Some((self.fv(*cond), 1, 0)),
            _ => None,
        }
    }

    /// Moves the adjoints of `b`'s parameters to the arguments of `edge`.
    fn edge_adjoints(&mut self, b: Block, (pred, slot): (Block, usize)) {
        let term = self
            .plan
            .p
            .terminator(pred)
            .expect("verified blocks end in a terminator");
        let kind = self.plan.p.inst(term).clone();
        let Some((_, args)) = branch_dests(&kind).into_iter().nth(slot) else {
            return;
        };
        let args = args.to_vec();
        let params = self.plan.p.blocks[b].params.clone();
        for (&pp, &arg) in params.iter().zip(&args) {
            if self.plan.act.is_varied(pp) {
                let t = self.take_adj(pp);
                self.add_adj(arg, t);
            }
        }
    }

    /// Syncs the reverse regions of the spawn sites whose innermost
    /// enclosing task is `task`, at the end of its reverse (`None`: of the
    /// function). Reverse tasks are synced at the reverse of their detach;
    /// a loop that spawned none skips that reverse, so the implicit sync
    /// at the return or reattach is made explicit here (it waits for
    /// nothing).
    fn sync_reverse_regions(&mut self, task: Option<TaskOf>) {
        let mut regions: Vec<parc_ir::SyncRegion> = Vec::new();
        for (r, sp) in self.rs.iter().zip(&self.plan.spawns) {
            if self.plan.task_of(Some(sp.detach)) == task && !regions.contains(&r.rsr) {
                regions.push(r.rsr);
            }
        }
        for region in regions {
            let next = self.new_block(false);
            self.emit(InstKind::Sync { region, next }, None);
            self.cur = next;
        }
    }

    fn finish_entry(&mut self) {
        self.sync_reverse_regions(None);
        let pentry = self.plan.p.layout[0];
        let params = self.plan.p.blocks[pentry].params.clone();
        match self.plan.mode {
            Mode::Combined => {
                let mut ret = None;
                for (i, &pp) in params.iter().enumerate() {
                    if self.plan.acts[i] == Activity::Active {
                        let ty = self.plan.p.value_type(pp);
                        let s = self.slot(pp);
                        ret = Some(self.ev(InstKind::Load(s), ty));
                    }
                }
                self.emit(
                    InstKind::Call {
                        func: self.tape_fns.free,
                        args: vec![self.tape],
                    },
                    None,
                );
                self.emit(InstKind::Return(ret), None);
            }
            Mode::Split { .. } => {
                let dargs = self.dargs.expect("split mode has dargs");
                for (i, &pp) in params.iter().enumerate() {
                    if self.plan.acts[i] == Activity::Active {
                        let ty = self.plan.p.value_type(pp);
                        let s = self.slot(pp);
                        let t = self.ev(InstKind::Load(s), ty);
                        let a = self.offset(dargs, 8 * i as i64);
                        self.emit(InstKind::Store { value: t, ptr: a }, None);
                    }
                }
                self.emit(InstKind::Return(None), None);
            }
        }
    }

    fn reverse_inst(&mut self, inst: Inst) -> Result<(), AdError> {
        let kind = self.plan.p.inst(inst).clone();
        let res = self.plan.p.result(inst);
        if let Some(pair) = self.calls.get(&inst).cloned() {
            return self.reverse_call(&kind, res, &pair);
        }
        if let Some(plan) = self.launches.get(&inst).cloned() {
            self.reverse_launch(inst, &plan);
            return Ok(());
        }
        match &kind {
            InstKind::Load(p) => {
                let r = res.expect("load has a result");
                if self.plan.act.is_varied(r) {
                    let a = self.take_adj(r);
                    if self.plan.in_place.contains(&inst) {
                        // The shadow still holds the update's adjoint,
                        // which is this load's (see `in_place_updates`):
                        // no update of memory, so no site to classify.
                        return Ok(());
                    }
                    let sp = self.shadow[p];
                    let sp = self.need(sp);
                    self.accumulate(inst, sp, a);
                }
            }
            InstKind::Store { value, ptr } => {
                let ty = self.plan.p.value_type(*value);
                if ty.is_float() && self.plan.act.is_shadowed(*ptr) {
                    let sp = self.shadow[ptr];
                    let sp = self.need(sp);
                    let t = self.ev(InstKind::Load(sp), ty);
                    if !self.plan.in_place.contains(&inst) {
                        let z = self.fconst_(ty, 0.0);
                        self.emit(InstKind::Store { value: z, ptr: sp }, None);
                    }
                    self.add_adj(*value, t);
                }
            }
            InstKind::Intrinsic { op, args } => match op {
                Intrinsic::Memcpy | Intrinsic::Memset
                    if self.plan.memcpy_ty.get(&inst).is_some_and(|t| t.is_float()) =>
                {
                    let ty = self.plan.memcpy_ty[&inst];
                    let sd = self.shadow[&args[0]];
                    let sd = self.need(sd);
                    let n = self.rv(args[2]);
                    if *op == Intrinsic::Memcpy && self.plan.act.is_shadowed(args[1]) {
                        // dsrc += ddst; ddst = 0
                        let ss = self.shadow[&args[1]];
                        let ss = self.need(ss);
                        let f = if ty == Type::F32 {
                            self.acc_fns.f32
                        } else {
                            self.acc_fns.f64
                        };
                        self.emit(
                            InstKind::Call {
                                func: f,
                                args: vec![ss, sd, n],
                            },
                            None,
                        );
                    } else {
                        // The overwritten values' adjoints end here.
                        let z = self.iconst(Type::I32, 0);
                        self.emit(
                            InstKind::Intrinsic {
                                op: Intrinsic::Memset,
                                args: vec![sd, z, n],
                            },
                            None,
                        );
                    }
                }
                Intrinsic::AtomicAdd
                    if self.plan.act.is_varied(args[1]) && self.plan.act.is_shadowed(args[0]) =>
                {
                    // `*p += v` by every thread: each `dv` is `d*p`, which
                    // stays (the in-place rule); the old value is not
                    // differentiated (refused in `check_and_plan`).
                    let ty = self.plan.p.value_type(args[1]);
                    let sp = self.shadow[&args[0]];
                    let sp = self.need(sp);
                    let d = self.ev(InstKind::Load(sp), ty);
                    self.add_adj(args[1], d);
                }
                // The reverse of the code after a barrier reads adjoints the
                // other threads' reverses of it add: it needs a barrier too.
                Intrinsic::Barrier => {
                    self.emit(
                        InstKind::Intrinsic {
                            op: Intrinsic::Barrier,
                            args: vec![],
                        },
                        None,
                    );
                }
                Intrinsic::Malloc | Intrinsic::Calloc
                    if self.plan.act.is_active_root(Root::Heap(inst)) =>
                {
                    let r = res.expect("malloc has a result");
                    let s = self.shadow[&r];
                    let s = self.need(s);
                    self.emit(
                        InstKind::Intrinsic {
                            op: Intrinsic::Free,
                            args: vec![s],
                        },
                        None,
                    );
                }
                _ => self.reverse_pure(inst, &kind, res)?,
            },
            InstKind::Alloca { .. }
                if self.plan.heap_shadow(inst)
                    && self.plan.act.is_active_root(Root::Alloca(inst)) =>
            {
                let r = res.expect("alloca has a result");
                let s = self.shadow[&r];
                let s = self.need(s);
                self.emit(
                    InstKind::Intrinsic {
                        op: Intrinsic::Free,
                        args: vec![s],
                    },
                    None,
                );
            }
            _ => self.reverse_pure(inst, &kind, res)?,
        }
        Ok(())
    }

    /// The rule-table instructions.
    fn reverse_pure(
        &mut self,
        inst: Inst,
        kind: &InstKind,
        res: Option<Value>,
    ) -> Result<(), AdError> {
        let Some(r) = res else { return Ok(()) };
        if !self.plan.act.is_varied(r) {
            return Ok(());
        }
        let Some(rule) = rules::lookup(kind) else {
            return Err(crate::plan::err(
                &self.plan.p,
                Some(inst),
                format!("no derivative rule for `{}`", crate::plan::kind_name(kind)),
            ));
        };
        let a = self.take_adj(r);
        let ops = kind.operands();
        let contribs = {
            let mut cx = RuleCx {
                gen_: self,
                ops: &ops,
                res: r,
            };
            (rule.apply)(&mut cx, a)
        };
        for (i, v) in contribs {
            if let Some(&op) = ops.get(i) {
                self.add_adj(op, v);
            }
        }
        Ok(())
    }

    fn reverse_call(
        &mut self,
        kind: &InstKind,
        res: Option<Value>,
        pair: &Pair,
    ) -> Result<(), AdError> {
        let InstKind::Call { args, .. } = kind else {
            unreachable!("only calls are planned as calls")
        };
        let mut cargs = vec![self.rev_tape(self.cur_rev)];
        for (&a, &act) in args.iter().zip(&pair.acts) {
            let v = self.rv(a);
            cargs.push(v);
            if act == Activity::Dup {
                let s = self.shadow.get(&a).copied();
                let s = match s {
                    Some(s) => self.need(s),
                    None => self.iconst(Type::Ptr, 0),
                };
                cargs.push(s);
            }
        }
        if pair.ret_active {
            let r = res.expect("an active result exists");
            let d = self.take_adj(r);
            cargs.push(d);
        }
        let buf_inst = self.g.make_inst(
            InstKind::Alloca {
                size: 8 * args.len().max(1) as u32,
                align: 8,
            },
            Some(Type::Ptr),
        );
        // Where the call's reverse runs in a reverse task, the buffer is
        // the task's own: iterations, and reverse tasks of one spawn site,
        // run at once.
        let home = self.rev_home(self.plan.task_of(self.cur_rev));
        self.g.blocks[home].insts.insert(0, buf_inst);
        let buf = self.g.result(buf_inst).expect("alloca has a result");
        cargs.push(buf);
        self.emit(
            InstKind::Call {
                func: pair.rev,
                args: cargs,
            },
            None,
        );
        for (i, (&a, &act)) in args.iter().zip(&pair.acts).enumerate() {
            if act == Activity::Active {
                let ty = self.plan.p.value_type(a);
                let p = self.offset(buf, 8 * i as i64);
                let t = self.ev(InstKind::Load(p), ty);
                self.add_adj(a, t);
            }
        }
        Ok(())
    }

    /// `*sp += a` for the adjoint of load `inst`, as the plan decides: a
    /// plain add in serial code, in parallel code what its accumulation
    /// class makes it.
    fn accumulate(&mut self, inst: Inst, sp: Value, a: Value) {
        let ty = self.g.value_type(a);
        let Some(d) = self
            .plan
            .accumulation
            .memory(self.plan, inst, self.context())
        else {
            self.add_to(sp, a);
            return;
        };
        let InstKind::Load(ptr) = *self.plan.p.inst(inst) else {
            unreachable!("only loads update shadows so")
        };
        match d.action {
            Action::Add => self.add_to(sp, a),
            Action::AddInBand(region) => {
                let l = self.ctx_loop.expect("a band is a parallel loop's");
                self.rl[l].bands.push(region);
                self.add_to(sp, a);
            }
            Action::AddBeside(region) => {
                let l = self.ctx_loop.expect("a band is a parallel loop's");
                self.rl[l].plain.push(region);
                self.add_to(sp, a);
            }
            Action::Atomic => self.atomic_add_to(sp, a),
            Action::Reduce => {
                let l = self.ctx_loop.expect("reductions are per parallel loop");
                self.reduce(l, RedTarget::Mem { inst, ptr }, ty, a);
            }
            Action::ReduceArray(region) => {
                let l = self.ctx_loop.expect("reductions are per parallel loop");
                self.reduce_array(l, &region, ty, a, sp);
            }
            Action::ThreadBand { first, last } => self.banded_update(first, last, sp, a),
        }
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

    /// `i64` of primal integer `v` (sign- or zero-extended), in the reverse.
    fn need_int(&mut self, v: Value, unsigned: bool) -> Value {
        let f = self.fv(v);
        let r = self.need(f);
        self.widen_i64(r, !unsigned)
    }

    /// Coefficient `k · sym` of a region term, in the reverse.
    fn coefficient(&mut self, k: i64, sym: Option<Value>) -> Value {
        let kc = self.iconst(Type::I64, k);
        match sym {
            Some(s) => {
                let s = self.need_int(s, false);
                self.binop(BinaryOp::Imul, kc, s)
            }
            None => kc,
        }
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

    /// Primal integer `v`'s forward value as an `i64` (sign- or
    /// zero-extended).
    fn fwd_i64(&mut self, v: Value, signed: bool) -> Value {
        // A loop's bound or step may be a constant left inside the loop
        // (`find_loops` accepts it), used before the forward copy of its
        // block exists: constants are made where they are needed.
        let f = match self.plan.p.const_int(v) {
            Some(k) => self.iconst(self.plan.p.value_type(v), k),
            None => self.fv(v),
        };
        self.widen_i64(f, signed)
    }

    /// Integer `v` (of the forward sweep) as an `i64`.
    fn widen_i64(&mut self, v: Value, signed: bool) -> Value {
        match self.g.value_type(v) {
            Type::I64 => v,
            _ => {
                let op = if signed { CastOp::Sext } else { CastOp::Zext };
                self.ev(InstKind::Cast(op, v), Type::I64)
            }
        }
    }
}

/// The adapter that lets a rule emit into the reverse sweep.
struct RuleCx<'a, 'b> {
    gen_: &'a mut Gen<'b>,
    ops: &'a [Value],
    res: Value,
}

impl AdjointBuilder for RuleCx<'_, '_> {
    fn op(&mut self, i: usize) -> Value {
        let v = self.ops[i];
        self.gen_.rv(v)
    }
    fn res(&mut self) -> Value {
        self.gen_.rv(self.res)
    }
    fn ty(&self) -> Type {
        self.gen_.plan.p.value_type(self.res)
    }
    fn fconst(&mut self, ty: Type, c: f64) -> Value {
        self.gen_.fconst_(ty, c)
    }
    fn bin(&mut self, op: BinaryOp, a: Value, b: Value) -> Value {
        self.gen_.binop(op, a, b)
    }
    fn neg(&mut self, a: Value) -> Value {
        let ty = self.gen_.g.value_type(a);
        self.gen_.ev(InstKind::Unary(UnaryOp::Fneg, a), ty)
    }
    fn math(&mut self, op: Intrinsic, args: Vec<Value>) -> Value {
        let ty = self.gen_.g.value_type(args[0]);
        self.gen_.ev(InstKind::Intrinsic { op, args }, ty)
    }
    fn fcmp(&mut self, cc: FloatCC, a: Value, b: Value) -> Value {
        self.gen_.ev(InstKind::Fcmp(cc, a, b), Type::I1)
    }
    fn select(&mut self, c: Value, a: Value, b: Value) -> Value {
        let ty = self.gen_.g.value_type(a);
        self.gen_.ev(InstKind::Select(c, a, b), ty)
    }
    fn cast(&mut self, op: CastOp, a: Value, to: Type) -> Value {
        self.gen_.ev(InstKind::Cast(op, a), to)
    }
    fn wants(&self, i: usize) -> bool {
        self.ops
            .get(i)
            .is_some_and(|&v| self.gen_.plan.act.is_varied(v))
    }
}

/// An induction variable the reverse recomputes.
#[derive(Clone, Copy)]
enum Iv {
    /// Header parameter `p` of counted loop `i`.
    Counted(usize, Value),
    /// The index of parallel loop `i`.
    Parallel(usize),
}
