//! The race-aware accumulation policy: the class of every adjoint update
//! of the reverse, and how the generator makes it. An update `d[p] += v`
//! in the reverse of a parallel loop's task is made safe, most to least
//! efficient (see the crate doc):
//!
//! - *local*: `p` is task-private (an `alloca` of the task) — plain add;
//! - *disjoint*: `p = base + c·iv + invariant` with `|c|·step` at least the
//!   access size, in a loop not nested in another parallel loop, and no
//!   other load of the task through a different pointer into possibly the
//!   same object updates per-iteration addresses — plain add (iterations
//!   touch different bytes, and nobody else touches them during the loop;
//!   another site's *reduction* goes to per-worker slots combined after the
//!   sync, so it does not conflict);
//!   Also disjoint: `p = base + iv·(k·B) + j·c` where `B` is a loop-invariant
//!   value, `j` the index of a loop inside the task that runs over `[lo, B)`
//!   (`lo ≥ 0`, tested `j < B` before the access) and `size ≤ c ≤ k`: each
//!   iteration stays inside its own `k·B` bytes (row-major rows, as in
//!   `c[i*n + j]` with `0 ≤ j < n`);
//! - *banded*: `p` is in a [`Region`] whose loop-index term is `iv·c`
//!   and whose other terms are bounded per iteration, so `p − c·iv` stays
//!   in `[r_min, r_max]`: iterations `w` or more apart, where `w·|c·step|
//!   ≥ r_max − r_min + size`, touch different bytes ([`banded`]) — plain
//!   add, with the reverse loop's chunks at least `w` iterations and run
//!   even ones first, odd ones second (so two chunks that run at once are
//!   a whole chunk apart);
//! - *reduction*: `p` is the same in every iteration — per-worker partial
//!   sums, combined after the reverse loop's sync; or `p` ranges over the
//!   same region in every iteration ([`Region`]: a gather through inner
//!   loop indices) — per-worker copies of the region, added into the
//!   shadow after the sync (none when one worker runs the loop: its
//!   updates add into the shadow);
//! - *atomic*: anything else — `atomic_add`.
//!
//! SSA adjoints of values defined outside the task are reductions; those of
//! values defined inside it live in task-private slots (local). An update
//! in serial code is *serial*: a plain `+=`, as nothing else updates the
//! adjoint at the same time (decided in the plan like the others, but not
//! an accumulation site of the report).
//!
//! Outside parallel loops: the reverses of a spawned task and of its
//! continuation run concurrently, so their updates are atomic unless the
//! memory is the task's own, and the task's updates of SSA adjoints of
//! values defined outside it go to per-site accumulators; a callee of
//! parallel code (a `.par` pair) or a `__device__` function updates
//! memory it does not own atomically, except where the kernel thread's
//! band or own element shows otherwise (`policy/threads.rs`).
//!
//! [`plan`] classifies every update the reverse of a function makes, of
//! shadow memory and of SSA adjoints, in the order the generator makes
//! them (its [`Accumulation`] is part of the function's [`Plan`], which
//! `--explain-ad` prints); the generator only reads the decisions back
//! ([`Accumulation::memory`], [`Accumulation::ssa`]) and fails with an
//! internal error where one is missing.

pub mod addresses;
pub mod ownership;
pub mod threads;

pub use addresses::{
    Lower, Narrowing, Region, Term, Upper, band_of, band_term, banded, region, same_term,
};
pub use threads::{Band, ThreadBand};

use crate::AccumulationSite;
use crate::activity::Root;
use crate::parallel::{PLoop, affine};
use crate::plan::{Mode, Plan, Request};
use addresses::{conflicting_site, rows_disjoint};
pub use ownership::private_args;
use ownership::{owned_root, roots_all};
use parc_ir::{Block, FuncKind, Inst, InstKind, Intrinsic, Type, Value, ValueDef};
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccumulationClass {
    /// Serial code: a plain `+=`, nothing else updates it at once.
    Serial,
    Local,
    Disjoint,
    /// Iterations at least a band apart update different bytes: the
    /// reverse runs even chunks, then odd chunks, each at least the band
    /// wide, and the updates are plain adds.
    Banded,
    Reduction,
    Atomic,
}

impl AccumulationClass {
    /// The lower-case name `--explain-ad` prints.
    pub fn name(self) -> &'static str {
        match self {
            AccumulationClass::Serial => "serial",
            AccumulationClass::Local => "local",
            AccumulationClass::Disjoint => "disjoint",
            AccumulationClass::Banded => "banded",
            AccumulationClass::Reduction => "reduction",
            AccumulationClass::Atomic => "atomic",
        }
    }

    /// How the class's updates are made where a kernel block's threads
    /// run concurrently (a GPU, `BlockThreads::Concurrent`), for
    /// `--explain-ad`.
    pub fn on_gpu(self) -> &'static str {
        match self {
            AccumulationClass::Serial | AccumulationClass::Local | AccumulationClass::Disjoint => {
                "plain adds"
            }
            AccumulationClass::Banded => "plain adds, the reverse launched in phases",
            AccumulationClass::Reduction => {
                "a warp's adds summed by shuffles (shfl.sync), then one atomic per warp"
            }
            AccumulationClass::Atomic => {
                "atomic adds (`red.add`, or `atom.add` where the old value is used, in the memory's state space); a warp's adds to one place are summed by shuffles first"
            }
        }
    }
}

/// Where an update is made: the primal block whose reverse the generator
/// is emitting, and the parallel loop whose reverse task holds that code
/// (`None` outside every parallel loop's reverse task).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Context {
    pub rev: Option<Block>,
    pub lp: Option<usize>,
}

/// How the generator makes a memory update `d[p] += a`.
#[derive(Clone, Debug)]
pub enum Action {
    /// A plain add.
    Add,
    /// A plain add inside the band of the reverse loop's iterations
    /// (banded): its chunks are at least the band wide and run in two
    /// phases.
    AddInBand(Region),
    /// A plain add within the iteration's own stride (disjoint) whose
    /// region may join a band of banded fellows with the same base and
    /// loop-index term.
    AddBeside(Region),
    /// An atomic add.
    Atomic,
    /// Into the running worker's partial sum of the loop (`lp` of the
    /// context), added into the shadow after the loop.
    Reduce,
    /// Into the running worker's copy of a region, added into the shadow
    /// after the loop.
    ReduceArray(Region),
    /// In a kernel body whose threads run one at a time, a plain add where
    /// every thread that may update the bytes, `gid + first ..= gid +
    /// last`, is in this block, atomic near its edges.
    ThreadBand { first: i64, last: i64 },
}

/// The class of one update, its reason in words, and how it is made.
#[derive(Clone, Debug)]
pub struct Decision {
    pub class: AccumulationClass,
    pub reason: String,
    pub action: Action,
}

/// Where the reverse adds into the SSA adjoint of a primal value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SsaUpdate {
    /// Its adjoint slot.
    Slot,
    /// A per-worker partial sum of parallel loop `lp` (a value defined
    /// outside the loop's task: a reduction).
    Reduce { lp: usize },
    /// The accumulator of spawn site `site` (its reverse task runs
    /// concurrently with the code owning the adjoint), atomically where
    /// several reverse tasks of the site run at once.
    Accumulator { site: usize, atomic: bool },
}

/// What a per-worker reduction of a loop sums: an SSA adjoint, or the
/// shadow at a (load's) pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReductionOf {
    Ssa(Value),
    Mem(Value),
}

/// The class of one update of an SSA adjoint, its reason in words, and
/// where it is made.
#[derive(Clone, Debug)]
pub struct SsaDecision {
    pub class: AccumulationClass,
    pub reason: String,
    pub update: SsaUpdate,
}

/// The context an SSA adjoint's update depends on: the parallel loop
/// whose reverse task holds the code and the innermost spawn site whose
/// task holds the reversed block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SsaContext {
    pub lp: Option<usize>,
    pub spawn: Option<usize>,
}

impl SsaContext {
    pub fn of(plan: &Plan, cx: Context) -> SsaContext {
        SsaContext {
            lp: cx.lp,
            spawn: cx.rev.and_then(|b| plan.spawn_of.get(&b).copied()),
        }
    }
}

/// The accumulation decisions of one function's reverse (see [`plan`]).
#[derive(Clone, Debug, Default)]
pub struct Accumulation {
    /// The decision for each reversed load (the update of its shadow)
    /// in each context it is made in: its own block's, and, for a
    /// per-worker sum, after each loop the sum is combined after.
    memory: HashMap<(Inst, Option<usize>), Decision>,
    /// The decision for each update of an SSA adjoint, by value and
    /// context.
    ssa: HashMap<(Value, SsaContext), SsaDecision>,
    /// The per-worker sums of each parallel loop, in the order the
    /// reverse makes them, with the instruction whose update made each.
    pub reductions: Vec<Vec<(ReductionOf, Inst)>>,
    /// Every classified update, in the order the reverse makes them
    /// (each once).
    pub sites: Vec<AccumulationSite>,
}

impl Accumulation {
    /// The decision for the update of the shadow of load `inst` in `cx`,
    /// if the plan made one.
    pub fn memory(&self, inst: Inst, cx: Context) -> Option<&Decision> {
        self.memory.get(&(inst, cx.lp))
    }

    /// The decision for an update of the SSA adjoint of `v` in `cx`, if
    /// the plan made one.
    pub fn ssa(&self, plan: &Plan, v: Value, cx: Context) -> Option<&SsaDecision> {
        self.ssa.get(&(v, SsaContext::of(plan, cx)))
    }

    /// The decisions in a fixed order (loads by number, then contexts).
    pub fn decisions(&self) -> Vec<(Inst, Option<usize>, &Decision)> {
        let mut out: Vec<_> = self.memory.iter().map(|(&(i, l), d)| (i, l, d)).collect();
        out.sort_by_key(|&(i, l, _)| (i, l.map_or(0, |l| l + 1)));
        out
    }

    /// The SSA decisions in a fixed order (values by number, then
    /// contexts).
    pub fn ssa_decisions(&self) -> Vec<(Value, SsaContext, &SsaDecision)> {
        let mut out: Vec<_> = self.ssa.iter().map(|(&(v, c), d)| (v, c, d)).collect();
        out.sort_by_key(|&(v, c, _)| (v, c));
        out
    }
}

/// True if the reverse of `plan`'s function runs concurrently with other
/// reverse code that may update the same shadow memory: a callee of
/// parallel code, or a `__device__` function (once per kernel thread).
pub fn atomic_mode(plan: &Plan) -> bool {
    matches!(plan.mode, Mode::Split { atomic: true, .. }) || plan.p.kind == FuncKind::Device
}

/// True if primal block `b` is parallel code: a task of a parallel loop,
/// or anywhere in a function called from parallel code. Calls there get
/// atomic pairs.
pub fn in_parallel_code(plan: &Plan, b: Block) -> bool {
    atomic_mode(plan) || plan.loop_of.contains_key(&b) || plan.spawn_par.contains(&b)
}

/// Where the reverse in `cx` adds into the SSA adjoint of `v`.
pub fn ssa_update(plan: &Plan, v: Value, cx: Context) -> SsaUpdate {
    if let Some(l) = cx.lp
        && !plan.defined_in_task(v, l)
    {
        // Every iteration adds to the adjoint of a value of the parent:
        // a reduction.
        return SsaUpdate::Reduce { lp: l };
    }
    let spawn = cx.rev.and_then(|b| plan.spawn_of.get(&b).copied());
    match spawn {
        // The reverse of a spawned task runs concurrently with the code
        // that owns the adjoints of values defined outside it.
        Some(i)
            if spawn_in_loop(plan, i, cx.lp)
                && plan
                    .def_block(v)
                    .is_none_or(|b| !plan.spawns[i].task_blocks.contains(&b)) =>
        {
            SsaUpdate::Accumulator {
                site: i,
                atomic: plan.spawns[i].multi,
            }
        }
        _ => SsaUpdate::Slot,
    }
}

/// True if spawn site `i` is inside the task of parallel loop `lp` (or
/// there is none).
fn spawn_in_loop(plan: &Plan, i: usize, lp: Option<usize>) -> bool {
    lp.is_none_or(|l| plan.ploops[l].task_blocks.contains(&plan.spawns[i].detach))
}

/// The decision for `d[ptr] += a`, the update of the shadow of load
/// `inst`, in `cx` (`None` if `inst` is no load with a result).
pub fn decide(plan: &Plan, inst: Inst, cx: Context) -> Option<Decision> {
    let InstKind::Load(ptr) = *plan.p.inst(inst) else {
        return None;
    };
    let ty = plan.p.value_type(plan.p.result(inst)?);
    let (class, reason) = classify(plan, inst, ptr, ty, cx)?;
    let at = plan.inst_block.get(&inst).copied();
    let action = match class {
        AccumulationClass::Reduction => {
            let l = cx.lp.expect("reductions are per parallel loop");
            match array_region(plan, l, inst, ptr, ty) {
                Some(region) => Action::ReduceArray(region),
                None => Action::Reduce,
            }
        }
        AccumulationClass::Banded => match cx.lp {
            None if plan.block_threads == crate::BlockThreads::OneAtATime => {
                match threads::in_thread_band(plan, ptr) {
                    Some((k, band)) => {
                        let o = threads::ptr_offset(plan, ptr, k, 0)
                            .map(|(_, _, o)| o)
                            .expect("a banded access has an offset");
                        let (first, last) = band.updaters(o, i64::from(ty.bytes()));
                        Action::ThreadBand { first, last }
                    }
                    None => Action::Add,
                }
            }
            // Kernel threads' bands are phases of the launch.
            None => Action::Add,
            Some(l) => {
                Action::AddInBand(band_region(plan, l, inst, ptr, ty).expect("classified banded"))
            }
        },
        AccumulationClass::Disjoint => {
            // A banded update of the same shadow may be a fellow: its band
            // must cover this plain add too. (Kernel threads' disjoint
            // updates have no loop.)
            match (cx.lp, at) {
                (Some(l), Some(at)) => {
                    match band_of(&plan.p, &plan.an, &plan.ploops[l], ptr, at, ty.bytes()) {
                        Some((region, _)) => Action::AddBeside(region),
                        None => Action::Add,
                    }
                }
                _ => Action::Add,
            }
        }
        AccumulationClass::Atomic => Action::Atomic,
        AccumulationClass::Local | AccumulationClass::Serial => Action::Add,
    };
    Some(Decision {
        class,
        reason,
        action,
    })
}

/// The accumulation class of `d[ptr] += (a ty)` (the update of load
/// `inst`) in `cx`, and the reason in words.
fn classify(
    plan: &Plan,
    inst: Inst,
    ptr: Value,
    ty: Type,
    cx: Context,
) -> Option<(AccumulationClass, String)> {
    let p = &plan.p;
    let name = crate::explain::value_name(plan, ptr);
    let called = || {
        if let Some(kernel) = crate::reverse::kernel_of_body(&p.name) {
            format!(
                "kernel `{kernel}` runs once per thread, and other threads may update the same shadow"
            )
        } else if p.kind == FuncKind::Device {
            format!(
                "`{}` runs once per kernel thread, and other threads may update the same shadow",
                p.name
            )
        } else {
            format!(
                "`{}` is called from parallel code, where other tasks may update the same shadow",
                p.name
            )
        }
    };
    let in_spawn_par = cx.rev.is_some_and(|b| plan.spawn_par.contains(&b));
    if let Some(l) = cx.lp {
        let nested = plan.ploops[l].parent.is_some();
        let at = plan.inst_block[&inst];
        let (class, reason) = loop_class(plan, &plan.ploops[l], nested, ptr, at, ty.bytes(), &name);
        if atomic_mode(plan) && class != AccumulationClass::Local {
            return Some((
                AccumulationClass::Atomic,
                format!("{reason}, but {}", called()),
            ));
        }
        if class == AccumulationClass::Local && split_by_spawn(plan, l, ptr, cx.rev) {
            return Some((
                AccumulationClass::Atomic,
                format!(
                    "`d_{name}`: memory of the iteration, which the reverses of a spawned task and of its continuation update concurrently"
                ),
            ));
        }
        if class == AccumulationClass::Atomic
            && !nested
            && !atomic_mode(plan)
            && !in_spawn_par
            && array_region(plan, l, inst, ptr, ty).is_some()
        {
            if band_region(plan, l, inst, ptr, ty).is_some() {
                return Some((
                    AccumulationClass::Banded,
                    format!(
                        "{reason}, but within a band of the iterations next to its own: chunks at least the band wide, even chunks run before odd ones"
                    ),
                ));
            }
            return Some((
                AccumulationClass::Reduction,
                format!(
                    "{reason}, but within a region known before the loop: per-worker copies of it, combined after the loop"
                ),
            ));
        }
        if in_spawn_par && class != AccumulationClass::Local {
            return Some((
                AccumulationClass::Atomic,
                format!("{reason}, but the loop runs concurrently with a spawned task"),
            ));
        }
        return Some((class, reason));
    }
    if in_spawn_par {
        // Local only if the memory belongs to the spawned task whose
        // reverse this is; the continuation and other tasks run
        // concurrently with it.
        let mine = cx
            .rev
            .and_then(|b| plan.spawn_of.get(&b))
            .map(|&i| &plan.spawns[i].task_blocks);
        let private = roots_all(&plan.act, ptr, |r| match r {
            Root::Alloca(i) => {
                mine.is_some_and(|tb| plan.inst_block.get(&i).is_some_and(|ib| tb.contains(ib)))
            }
            _ => false,
        });
        return Some(if private {
            (
                AccumulationClass::Local,
                format!("`d_{name}`: memory private to the spawned task"),
            )
        } else {
            (
                AccumulationClass::Atomic,
                format!(
                    "`d_{name}`: the reverses of a spawned task and of its continuation run concurrently"
                ),
            )
        });
    }
    if !atomic_mode(plan) {
        return Some((
            AccumulationClass::Serial,
            format!("`d_{name}`: serial code, where no other reverse code updates it at once"),
        ));
    }
    let owned = roots_all(&plan.act, ptr, |r| matches!(r, Root::Alloca(_)));
    Some(if owned {
        (
            AccumulationClass::Local,
            format!("`d_{name}`: a local variable of this call"),
        )
    } else if roots_all(&plan.act, ptr, |r| owned_root(plan, r)) {
        (
            AccumulationClass::Local,
            format!(
                "`d_{name}`: memory of the calling task, which every call of `{}` from parallel code passes",
                p.name
            ),
        )
    } else if plan.block_threads == crate::BlockThreads::OneAtATime
        && roots_all(&plan.act, ptr, |r| matches!(r, Root::Shared(_)))
    {
        (
            AccumulationClass::Local,
            format!(
                "`d_{name}`: `__shared__` memory of the thread's block, whose threads run one at a time"
            ),
        )
    } else if threads::in_thread_band(plan, ptr).is_some() {
        let how = match &plan.thread_band {
            Some(band) if plan.block_threads == crate::BlockThreads::Concurrent => format!(
                "the reverse launch runs in {} phases of threads that far apart",
                band.phases
            ),
            _ => "a plain add where all the threads that may update the element are in \
                  this block, whose threads run one at a time; atomic near the block's edges"
                .to_string(),
        };
        (
            AccumulationClass::Banded,
            format!("`d_{name}`: within a band of threads around its own in the 1-D grid; {how}"),
        )
    } else if threads::thread_disjoint(plan, ptr, ty.bytes()) {
        (
            AccumulationClass::Disjoint,
            format!(
                "`d_{name}`: the thread's own element of a `restrict` parameter, at an address affine in its index in the 1-D grid"
            ),
        )
    } else {
        (
            AccumulationClass::Atomic,
            format!("`d_{name}`: {}", called()),
        )
    })
}

/// True if memory private to an iteration of loop `l` that `ptr` points
/// to is shared by the reverse code of `rev` and code running
/// concurrently with it: that code is in a spawned task, or in its
/// continuation, of a site inside the iteration, and the memory is not
/// the spawned task's own.
fn split_by_spawn(plan: &Plan, l: usize, ptr: Value, rev: Option<Block>) -> bool {
    let Some(b) = rev else {
        return false;
    };
    plan.spawns.iter().any(|sp| {
        plan.ploops[l].task_blocks.contains(&sp.detach)
            && (sp.task_blocks.contains(&b) || sp.cont_blocks.contains(&b))
            && !plan.act.roots(ptr).all(|r| match r {
                Root::Alloca(i) => plan
                    .inst_block
                    .get(&i)
                    .is_some_and(|ib| sp.task_blocks.contains(ib)),
                _ => false,
            })
    })
}

/// The region of an array reduction for `d[ptr] += (ty)` in loop `l`
/// (offsets a multiple of the element size), if there is one.
fn array_region(plan: &Plan, l: usize, inst: Inst, ptr: Value, ty: Type) -> Option<Region> {
    let at = *plan.inst_block.get(&inst)?;
    let r = region(&plan.p, &plan.an, &plan.ploops[l], ptr, at, ty.bytes())?;
    plan.act.is_shadowed(r.base).then_some(r)
}

/// The region of a banded update `d[ptr] += (ty)` in loop `l` (see
/// [`banded`]), if it is one.
fn band_region(plan: &Plan, l: usize, inst: Inst, ptr: Value, ty: Type) -> Option<Region> {
    let at = *plan.inst_block.get(&inst)?;
    banded(
        &plan.p,
        &plan.an,
        &plan.act,
        &plan.ploops[l],
        ptr,
        at,
        ty.bytes(),
    )
}

/// The class of `d[p] += ...` (an access of `size` bytes in block `at`) in
/// the reverse of loop `l`'s task, and the reason in words.
fn loop_class(
    plan: &Plan,
    l: &PLoop,
    nested: bool,
    ptr: Value,
    at: Block,
    size: u32,
    name: &str,
) -> (AccumulationClass, String) {
    let (p, an, act) = (&plan.p, &plan.an, &plan.act);
    let private = act.roots(ptr).all(|r| match r {
        Root::Alloca(i) => l.task_blocks.iter().any(|b| p.block_insts(*b).contains(&i)),
        _ => false,
    }) && act.roots(ptr).next().is_some();
    if private {
        return (
            AccumulationClass::Local,
            format!("`d_{name}`: memory private to the task"),
        );
    }
    match affine(p, l, ptr, 0) {
        Some(0) => (
            AccumulationClass::Reduction,
            format!("`d_{name}`: the same address in every iteration"),
        ),
        Some(c) => {
            let step = match p.value_def(l.step) {
                ValueDef::Result(i) => match p.inst(i) {
                    InstKind::Iconst(s) if *s > 0 => *s,
                    _ => 1,
                },
                _ => 1,
            };
            let stride = c.unsigned_abs().saturating_mul(step as u64);
            if nested {
                (
                    AccumulationClass::Atomic,
                    format!(
                        "`d_{name}`: affine in the loop index, but the loop is nested in another parallel loop"
                    ),
                )
            } else if stride >= size as u64 {
                match conflicting_site(p, an, act, l, ptr) {
                    Some((line, what)) => (
                        AccumulationClass::Atomic,
                        format!(
                            "`d_{name}`: affine in the loop index, but the {what} at line {line} may update the same shadow from other iterations"
                        ),
                    ),
                    None => (
                        AccumulationClass::Disjoint,
                        format!(
                            "`d_{name}`: address affine in the loop index (stride {stride} bytes)"
                        ),
                    ),
                }
            } else {
                (
                    AccumulationClass::Atomic,
                    format!("`d_{name}`: stride {stride} bytes is less than the access size"),
                )
            }
        }
        None if !nested
            && rows_disjoint(p, an, l, ptr, at, size)
            && conflicting_site(p, an, act, l, ptr).is_none() =>
        {
            (
                AccumulationClass::Disjoint,
                format!(
                    "`d_{name}`: each iteration stays in its own row (index · stride + an inner index below the row length)"
                ),
            )
        }
        None => (
            AccumulationClass::Atomic,
            format!("`d_{name}`: address not affine in the loop index"),
        ),
    }
}

/// Classifies every update the reverse of `plan`'s function makes, in the
/// order the generator makes them: the reversed blocks in reverse
/// post-order, each block's instructions last to first and then what its
/// parameters pass back along its entering edges; then, innermost loop
/// first, each per-worker sum where it is combined, after its loop, in
/// the enclosing loop's reverse (which may sum it again).
pub fn plan(plan: &Plan) -> Accumulation {
    let mut acc = Accumulation {
        reductions: vec![Vec::new(); plan.ploops.len()],
        ..Accumulation::default()
    };
    let p = &plan.p;
    for &b in &plan.rpo {
        if !plan.reversed.contains(&b) {
            continue;
        }
        let cx = Context {
            rev: Some(b),
            lp: plan.loop_of.get(&b).copied(),
        };
        let Some((&term, body)) = p.block_insts(b).split_last() else {
            continue;
        };
        if let InstKind::Return(Some(v)) = *p.inst(term) {
            acc.note_ssa(plan, v, cx, term);
        }
        for &inst in body.iter().rev() {
            for v in adds_to(plan, inst) {
                acc.note_ssa(plan, v, cx, inst);
            }
            if matches!(p.inst(inst), InstKind::Load(_))
                && p.result(inst).is_some_and(|r| plan.act.is_varied(r))
                && !plan.in_place.contains(&inst)
            {
                acc.note_mem(plan, inst, cx);
            }
        }
        for (pred, slot) in entering_edges(plan, b) {
            let Some(t) = p.terminator(pred) else {
                continue;
            };
            let Some((_, args)) = crate::activity::branch_dests(p.inst(t))
                .into_iter()
                .nth(slot)
            else {
                continue;
            };
            for (&param, &arg) in p.blocks[b].params.iter().zip(args) {
                if plan.act.is_varied(param) {
                    acc.note_ssa(plan, arg, cx, t);
                }
            }
        }
    }
    combine_reductions(plan, &mut acc);
    merge_accumulators(plan, &mut acc);
    acc
}

/// Innermost loop first, each per-worker sum where it is combined, after
/// its loop, in the enclosing loop's reverse (which may sum it again).
fn combine_reductions(plan: &Plan, acc: &mut Accumulation) {
    let mut order: Vec<usize> = (0..plan.ploops.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(plan.depth(i)));
    for i in order {
        let l = &plan.ploops[i];
        if !plan.reversed.contains(&l.exit) {
            continue;
        }
        let cx = Context {
            rev: Some(l.exit),
            lp: l.parent,
        };
        let sums = acc.reductions[i].clone();
        for (of, at) in sums {
            match of {
                ReductionOf::Ssa(v) => acc.note_ssa(plan, v, cx, at),
                ReductionOf::Mem(_) => acc.note_mem(plan, at, cx),
            }
        }
    }
}

/// The merges of spawn sites' accumulators, after the reverse of their
/// detach, into the adjoints they stand for (which may be the
/// accumulators of an enclosing site, merged in turn).
fn merge_accumulators(plan: &Plan, acc: &mut Accumulation) {
    let mut done = std::collections::HashSet::new();
    loop {
        let merges: Vec<(Value, usize)> = acc
            .ssa
            .iter()
            .filter_map(|(&(v, _), d)| match d.update {
                SsaUpdate::Accumulator { site, .. } => Some((v, site)),
                _ => None,
            })
            .filter(|m| !done.contains(m))
            .collect();
        if merges.is_empty() {
            return;
        }
        for (v, site) in merges {
            done.insert((v, site));
            let detach = plan.spawns[site].detach;
            let cx = Context {
                rev: Some(detach),
                lp: plan.loop_of.get(&detach).copied(),
            };
            let at = plan.p.terminator(detach).expect("a detach ends its block");
            acc.note_ssa(plan, v, cx, at);
        }
    }
}

/// The class of an update of `v`'s SSA adjoint in `sc` made as `update`
/// says, and the reason in words.
fn ssa_class(
    plan: &Plan,
    v: Value,
    sc: SsaContext,
    update: SsaUpdate,
) -> (AccumulationClass, String) {
    let name = crate::explain::value_name(plan, v);
    match update {
        SsaUpdate::Reduce { .. } => (
            AccumulationClass::Reduction,
            format!("`d_{name}`: a value defined outside the loop, the same in every iteration"),
        ),
        SsaUpdate::Accumulator { atomic: true, .. } => (
            AccumulationClass::Atomic,
            format!(
                "`d_{name}`: a value defined outside the spawned task, whose reverse tasks run at once: the site's accumulator, atomically"
            ),
        ),
        SsaUpdate::Accumulator { atomic: false, .. } => (
            AccumulationClass::Local,
            format!(
                "`d_{name}`: a value defined outside the spawned task: the site's accumulator, merged after the reverse task's sync"
            ),
        ),
        SsaUpdate::Slot if sc.lp.is_some() || sc.spawn.is_some() => (
            AccumulationClass::Local,
            format!("`d_{name}`: its slot, private to the reverse task"),
        ),
        SsaUpdate::Slot if atomic_mode(plan) => (
            AccumulationClass::Local,
            format!("`d_{name}`: its slot, private to this call"),
        ),
        SsaUpdate::Slot => (
            AccumulationClass::Serial,
            format!("`d_{name}`: its slot, in serial code"),
        ),
    }
}

impl Accumulation {
    /// The update of load `inst`'s shadow in `cx`.
    fn note_mem(&mut self, plan: &Plan, inst: Inst, cx: Context) {
        let Some(d) = decide(plan, inst, cx) else {
            return;
        };
        self.memory.insert((inst, cx.lp), d.clone());
        if d.class == AccumulationClass::Serial {
            // Not an accumulation site: nothing runs at once with it.
            return;
        }
        if let (Action::Reduce, Some(l), InstKind::Load(ptr)) =
            (&d.action, cx.lp, plan.p.inst(inst))
        {
            // One per-worker sum per address: reported where it is made.
            let of = ReductionOf::Mem(*ptr);
            if self.reductions[l].iter().any(|(k, _)| *k == of) {
                return;
            }
            self.reductions[l].push((of, inst));
        }
        self.site(plan, inst, d.class, d.reason);
    }

    /// An update of `v`'s SSA adjoint in `cx`, made by the reverse of `at`.
    fn note_ssa(&mut self, plan: &Plan, v: Value, cx: Context, at: Inst) {
        if !plan.act.is_varied(v) {
            return;
        }
        let update = ssa_update(plan, v, cx);
        let key = (v, SsaContext::of(plan, cx));
        self.ssa.entry(key).or_insert_with(|| {
            let (class, reason) = ssa_class(plan, v, key.1, update);
            SsaDecision {
                class,
                reason,
                update,
            }
        });
        let SsaUpdate::Reduce { lp } = update else {
            return;
        };
        let of = ReductionOf::Ssa(v);
        if self.reductions[lp].iter().any(|(k, _)| *k == of) {
            return;
        }
        self.reductions[lp].push((of, at));
        let reason = self.ssa[&key].reason.clone();
        self.site(plan, at, AccumulationClass::Reduction, reason);
    }

    fn site(&mut self, plan: &Plan, at: Inst, class: AccumulationClass, reason: String) {
        let s = AccumulationSite {
            function: plan.p.name.clone(),
            loc: plan.p.locs[at],
            class,
            reason,
        };
        if !self.sites.contains(&s) {
            self.sites.push(s);
        }
    }
}

/// The edges along which the reverse of `b` passes its parameters'
/// adjoints back, in the order it does (none for the reverse of a
/// parallel loop's exit or a task's entry, which continue elsewhere, nor
/// of the entry).
pub fn entering_edges(plan: &Plan, b: Block) -> Vec<(Block, usize)> {
    if plan.ploops.iter().any(|l| l.exit == b || l.task_entry == b)
        || plan.spawns.iter().any(|sp| sp.task == b)
    {
        return Vec::new();
    }
    if let Some(c) = plan.counted.iter().find(|c| c.header == b) {
        return vec![c.pre, c.latch];
    }
    if b == plan.p.layout[0] {
        return Vec::new();
    }
    plan.edges.get(&b).cloned().unwrap_or_default()
}

/// The primal values whose SSA adjoints the reverse of `inst` adds to, in
/// the order it does.
fn adds_to(plan: &Plan, inst: Inst) -> Vec<Value> {
    let p = &plan.p;
    let act = &plan.act;
    let active_args = |args: &[Value], acts: &[parc_ir::Activity]| -> Vec<Value> {
        args.iter()
            .zip(acts)
            .filter(|(_, a)| **a == parc_ir::Activity::Active)
            .map(|(&v, _)| v)
            .collect()
    };
    for r in &plan.requests {
        match (r, p.inst(inst)) {
            (Request::Call(i, c), InstKind::Call { args, .. }) if *i == inst => {
                return active_args(args, &c.acts);
            }
            (Request::Launch(i, l), InstKind::Launch { args, .. }) if *i == inst => {
                return active_args(args, &l.acts);
            }
            _ => {}
        }
    }
    match p.inst(inst) {
        InstKind::Load(_) => Vec::new(),
        InstKind::Store { value, ptr } => {
            if p.value_type(*value).is_float() && act.is_shadowed(*ptr) {
                vec![*value]
            } else {
                Vec::new()
            }
        }
        InstKind::Intrinsic { op, args } => match op {
            Intrinsic::Memcpy | Intrinsic::Memset
                if plan.memcpy_ty.get(&inst).is_some_and(|t| t.is_float()) =>
            {
                Vec::new()
            }
            Intrinsic::AtomicAdd if act.is_varied(args[1]) && act.is_shadowed(args[0]) => {
                vec![args[1]]
            }
            Intrinsic::Barrier => Vec::new(),
            Intrinsic::Malloc | Intrinsic::Calloc if act.is_active_root(Root::Heap(inst)) => {
                Vec::new()
            }
            _ => by_rule(plan, inst),
        },
        InstKind::Alloca { .. }
            if plan.heap_shadow(inst) && act.is_active_root(Root::Alloca(inst)) =>
        {
            Vec::new()
        }
        _ => by_rule(plan, inst),
    }
}

/// The operands an adjoint rule adds to, for a varied result.
fn by_rule(plan: &Plan, inst: Inst) -> Vec<Value> {
    let p = &plan.p;
    let Some(r) = p.result(inst).filter(|&r| plan.act.is_varied(r)) else {
        return Vec::new();
    };
    let kind = p.inst(inst);
    let ops = kind.operands();
    crate::rules::contributed(kind, p.value_type(r), |i| {
        ops.get(i).is_some_and(|&v| plan.act.is_varied(v))
    })
    .into_iter()
    .filter_map(|i| ops.get(i).copied())
    .collect()
}
