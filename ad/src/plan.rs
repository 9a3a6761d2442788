//! The plan of one derivative: every decision the generator follows that
//! the primal alone determines, made before any code is emitted (Enzyme's
//! ActivityAnalysis, DifferentialUseAnalysis and CacheUtility before its
//! generator).
//!
//! [`Plan::build`] normalizes a copy of the primal (a dedicated exit per
//! parallel loop, one sync per spawn site, a target of its own per
//! serial loop exit), refuses what cannot be differentiated, and records:
//! - **activity** (`activity.rs`): varied values, pointer roots, shadows;
//! - **control**: the incoming edges of each block in a fixed order, the
//!   returns, the blocks that get reverse code (a return is reachable
//!   from them), and in combined mode the blocks whose values the reverse
//!   uses directly;
//! - **parallelism** (`parallel.rs`): parallel loops and spawn sites, and
//!   which task each block is in;
//! - **record or recompute** (`cache/`): counted loops, how each is
//!   reversed and whether it reserves its records, the memory the
//!   function writes, the joins whose way in follows from a condition,
//!   and how the reverse can get each value again (`recompute`: free,
//!   an induction variable, a join's select, recomputed from its operands,
//!   read again, or recorded where needed, with the reason);
//! - **memory**: the element type of each `memcpy`/`memset` of
//!   differentiable memory, the in-place updates, the `__shared__` arrays
//!   with derivatives;
//! - **calls and launches** whose arguments carry derivatives, with the
//!   activities their split pairs (or generated kernels) are made for;
//! - **accumulation** (`policy.rs`): the class of every adjoint update of
//!   the reverse, with its reason.
//!
//! Which values the reverse records, and where, depends on which values
//! each reverse block needs and in which order (a record made for one
//! need is reused by the next, and the minimum cut leaves out what the
//! block has popped already): a dry run of the reverse walk
//! (`reverse/walk.rs`) decides it from the facts here, with `cache/`'s
//! `Sweep`, into `needs` (`cache/needs.rs`); it runs twice, the second
//! run knowing from the first what each reverse block will need
//! (`ahead`), so that one cut serves them all. A plan is read-only from
//! then on. The generator (`reverse.rs`) consumes it; `explain.rs`
//! prints it (`--explain-ad`, and `ad/tests/plans.rs`).
//!
//! What the AD refuses is listed in `plan/refusals.rs`; the control facts
//! are computed in `plan/control.rs`.

mod control;
mod refusals;

pub(crate) use refusals::kind_name;

use crate::activity::{ActivityInfo, Root};
use crate::cache::{CountedLoop, ExitTest, Needs, Recompute, Writes};
use crate::parallel::{PLoop, SpawnSite};
use crate::policy::{Accumulation, ThreadBand};
use crate::readonly::ReadOnly;
use crate::{AdError, BlockThreads};
use parc_ir::analysis::FunctionAnalyses;
use parc_ir::{
    Activity, BinaryOp, Block, FuncId, FuncKind, Function, GlobalId, Inst, InstKind, Module, Type,
    Value, ValueDef,
};
use std::collections::{HashMap, HashSet};

/// What the generator makes of a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The requested gradient: forward and reverse in one function.
    Combined,
    /// An augmented forward and a reverse (`f.aug`/`f.rev`) of a callee;
    /// `atomic` for calls from parallel code; `ret_shadow` where the
    /// pointer it returns is active memory in the caller: `.aug` stores
    /// that pointer's shadow where its last parameter points; `private`,
    /// a bit per parameter (the first 64): at every call of the pair the
    /// argument points only into memory of the calling task (see
    /// [`CallPlan::private`]).
    Split {
        ret_active: bool,
        atomic: bool,
        ret_shadow: bool,
        private: u64,
    },
}

impl Mode {
    /// The function returns the shadow of its pointer result.
    pub fn ret_shadow(self) -> bool {
        matches!(
            self,
            Mode::Split {
                ret_shadow: true,
                ..
            }
        )
    }
}

/// A call with differentiable arguments, or whose pointer result is
/// active memory: the split pair it calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallPlan {
    pub callee: FuncId,
    pub acts: Vec<Activity>,
    pub ret_active: bool,
    /// The result is a pointer to active memory: the pair returns its
    /// shadow too (an allocating helper allocates one).
    pub ret_shadow: bool,
    /// Called from parallel code: the pair's updates of memory it does
    /// not own are atomic (see `policy.rs`).
    pub atomic: bool,
    /// A bit per parameter (the first 64) whose argument points only into
    /// memory of the calling task — an `alloca` of the iteration, or of
    /// the calling pair, or such a parameter of its own — which no other
    /// task's reverse updates: an atomic pair adds into its shadow with
    /// plain adds, as into its own locals (a parallel loop's body passing
    /// its local arrays to helpers, as LULESH's element kernels).
    pub private: u64,
}

/// A kernel launch with differentiable arguments: the kernels generated
/// for it (see `reverse/launches.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchRequest {
    pub kernel: FuncId,
    pub acts: Vec<Activity>,
    /// The grid and the blocks are 1-D.
    pub one_d: bool,
}

/// A call or a launch the derivative needs generated code for, in the
/// order the primal holds them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    Call(Inst, CallPlan),
    Launch(Inst, LaunchRequest),
}

/// A `__shared__` array with a derivative.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedArray {
    pub global: GlobalId,
    pub size: u64,
    pub name: String,
}

/// A task: of a parallel loop or spawned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TaskOf {
    Loop(usize),
    Spawn(usize),
}

/// The plan of one derivative (see the module doc).
pub struct Plan {
    /// The primal, normalized; every block and value below is its.
    pub p: Function,
    pub an: FunctionAnalyses,
    pub acts: Vec<Activity>,
    pub mode: Mode,
    pub act: ActivityInfo,
    pub inst_block: HashMap<Inst, Block>,
    /// How the target runs a kernel block's threads.
    pub block_threads: BlockThreads,
    /// The body of kernel launches (`k.body`): its pair runs once per
    /// thread, each thread on a tape of its own.
    pub launch_body: bool,
    /// The body of launches on 1-D grids of 1-D blocks only.
    pub one_d_body: bool,
    /// The memory no code of the run writes: loads of it can be repeated
    /// in the reverse, in split mode too.
    pub readonly: ReadOnly,

    // ----- control
    /// Reachable blocks in reverse post-order.
    pub rpo: Vec<Block>,
    /// The edges into each block, `(predecessor, successor slot)`, in a
    /// fixed order; a spawn's continuation is entered from its detach
    /// (its task is reversed apart).
    pub edges: HashMap<Block, Vec<(Block, usize)>>,
    pub returns: Vec<Block>,
    /// The blocks with reverse code: a return is reachable from them (not
    /// a parallel loop's header, spawn or latch, whose reverse is the
    /// reverse loop).
    pub reversed: HashSet<Block>,
    /// Combined mode: blocks that dominate every return outside loops,
    /// whose values run at most once before the reverse and are used
    /// there directly.
    pub avail: HashSet<Block>,

    // ----- parallelism
    pub ploops: Vec<PLoop>,
    /// The innermost parallel loop whose task holds each block.
    pub loop_of: HashMap<Block, usize>,
    pub spawns: Vec<SpawnSite>,
    /// The innermost spawned task holding each block.
    pub spawn_of: HashMap<Block, usize>,
    /// Every block that runs concurrently with a spawned task (the tasks
    /// and their continuations).
    pub spawn_par: HashSet<Block>,

    // ----- record or recompute (see `cache/`)
    pub counted: Vec<CountedLoop>,
    /// Per counted loop: its exit test where the header tests `iv <
    /// bound` (the reverse may count its iterations from the bounds).
    pub exit_tests: Vec<Option<ExitTest>>,
    /// Per counted loop: the exit test where it reserves its records
    /// before it starts.
    pub reserved: Vec<Option<ExitTest>>,
    /// Per parallel loop: where its task records a number of slots per
    /// iteration bounded before the loop, its counted loops and their
    /// exit tests.
    pub sized_tasks: Vec<Option<Vec<(usize, ExitTest)>>>,
    pub writes: Writes,
    /// Joins whose way in the reverse recomputes from a branch condition:
    /// the condition and the indices (into `edges`) of the true and false
    /// edges.
    pub joins: HashMap<Block, (Value, usize, usize)>,
    /// How the reverse gets each value of the reachable blocks again, as
    /// far as the primal says (see `cache/recompute.rs`).
    pub recompute: HashMap<Value, Recompute>,
    /// Every record-or-recompute decision of the reverse walk, in the
    /// order its code needs the values (see `cache/needs.rs`): empty
    /// after [`Plan::build`], made by the walk's dry run
    /// (`reverse::plan`) before any code is kept.
    pub needs: Needs,
    /// The primal values each block's reverse asked for in a first dry run
    /// of the walk, in order: the minimum cut for one of them weighs the
    /// others the same block will need (see `cache/mod.rs`). Empty during
    /// that first run.
    pub ahead: HashMap<Block, Vec<Value>>,
    /// The forward values of the generator's own (a shadow's address,
    /// say) each block's reverse asked for in that first run: the same
    /// values in the later runs, whose forward sweeps are made alike
    /// before any reverse code. They weigh in the cut as `ahead` does: a
    /// parallel loop's eight gathered corners need 24 shadow addresses,
    /// which 8 indices and 3 shadow arrays give.
    pub ahead_own: HashMap<Block, Vec<Value>>,

    // ----- memory
    /// The element type of each `memcpy`/`memset` of differentiable
    /// memory (`ptr` for memory holding pointers).
    pub memcpy_ty: HashMap<Inst, Type>,
    /// Loads and stores of in-place updates (see `in_place_updates`).
    pub in_place: HashSet<Inst>,
    /// The `__shared__` arrays with derivatives, in the order the primal
    /// first takes their addresses.
    pub shared: Vec<SharedArray>,

    // ----- calls and launches
    pub requests: Vec<Request>,

    // ----- accumulation (see `policy.rs`)
    /// The band of threads within which this kernel body's reverse
    /// updates shadows (see `policy/threads.rs`).
    pub thread_band: Option<ThreadBand>,
    pub accumulation: Accumulation,
}

/// What the plan needs to know about the function's callers.
#[derive(Clone, Debug)]
pub struct Facts {
    pub block_threads: BlockThreads,
    /// The function is the body of kernel launches (`k.body`).
    pub launch_body: bool,
    /// ... launched on 1-D grids of 1-D blocks only.
    pub one_d_body: bool,
    /// The memory no code of the run writes (`readonly.rs`).
    pub readonly: ReadOnly,
    /// C's effective-type rule holds (`strict_aliasing.rs`; off with
    /// `-fno-strict-aliasing`).
    pub strict_aliasing: bool,
}

pub(crate) fn err(p: &Function, inst: Option<Inst>, message: impl Into<String>) -> AdError {
    AdError {
        function: p.name.clone(),
        loc: inst.map(|i| p.locs[i]).unwrap_or_default(),
        message: message.into(),
    }
}

impl Plan {
    /// The plan for `primal` under `acts` (see the module doc), or what it
    /// cannot differentiate.
    pub fn build(
        module: &Module,
        primal: FuncId,
        acts: &[Activity],
        mode: Mode,
        facts: Facts,
    ) -> Result<Plan, AdError> {
        let mut p = module.funcs[primal].clone();
        if p.is_declaration() {
            return Err(err(
                &p,
                None,
                format!("`{}` has no body (an `extern` function)", p.name),
            ));
        }
        // The optimizer turns a call through a pointer whose target it
        // knows into a direct call (`devirtualize`); any other is a call of
        // an unknown function, which may touch any memory.
        if let Some(inst) = p
            .placed_insts()
            .map(|(_, i)| i)
            .find(|&i| matches!(p.inst(i), InstKind::CallIndirect { .. }))
        {
            return Err(err(
                &p,
                Some(inst),
                "a call through a function pointer whose target is not known at compile time \
                 (at -O1 and -O2 a pointer known to hold one function is called directly, \
                 at -O2 also once the function it is passed to is inlined)",
            ));
        }
        if p.kind == FuncKind::Kernel {
            return Err(err(
                &p,
                None,
                format!(
                    "`{}` is a `__global__` kernel; differentiate a host function that \
                     launches it, or its work as a `__device__` function, calling \
                     `__enzyme_autodiff` inside the kernel",
                    p.name
                ),
            ));
        }
        if acts.len() != p.sig.params.len() {
            return Err(err(&p, None, "one activity per parameter is required"));
        }
        crate::parallel::dedicate_exits(&mut p);
        crate::parallel::unify_syncs(&mut p);
        crate::cache::split_loop_exits(&mut p);
        crate::allocas::sink_allocas(&mut p);
        let an = FunctionAnalyses::compute(&p);
        let inst_block: HashMap<Inst, Block> = p.placed_insts().map(|(b, i)| (i, b)).collect();
        let shared_globals = module
            .globals
            .iter()
            .filter(|(_, g)| g.space == parc_ir::AddrSpace::Shared)
            .map(|(id, _)| id)
            .collect();
        let act = ActivityInfo::compute(&p, acts, mode.ret_shadow(), &an.cfg, shared_globals);
        let mut shared: Vec<SharedArray> = Vec::new();
        for (_, i) in p.placed_insts() {
            if let InstKind::GlobalAddr(g) = *p.inst(i)
                && act.is_active_root(Root::Shared(g))
                && !shared.iter().any(|s| s.global == g)
            {
                let primal = &module.globals[g];
                shared.push(SharedArray {
                    global: g,
                    size: primal.size,
                    name: primal.name.clone(),
                });
            }
        }
        let ploops = crate::parallel::find_loops(&p, &an)?;
        let loop_of = innermost(ploops.iter().map(|l| &l.task_blocks));
        let spawns = crate::parallel::find_spawns(&p, &an, &ploops)?;
        let spawn_of = innermost(spawns.iter().map(|sp| &sp.task_blocks));
        let mut spawn_par = HashSet::new();
        for sp in &spawns {
            spawn_par.extend(sp.task_blocks.iter().copied());
            spawn_par.extend(sp.cont_blocks.iter().copied());
        }
        let counted = crate::cache::counted_loops(&p, &an, &ploops);
        let writes = Writes::compute(&p, &act, facts.strict_aliasing);
        let rpo = an.cfg.rpo().to_vec();
        let mut plan = Plan {
            in_place: in_place_updates(&p, &act),
            p,
            an,
            acts: acts.to_vec(),
            mode,
            act,
            inst_block,
            block_threads: facts.block_threads,
            launch_body: facts.launch_body,
            one_d_body: facts.one_d_body,
            readonly: facts.readonly,
            rpo,
            edges: HashMap::new(),
            returns: Vec::new(),
            reversed: HashSet::new(),
            avail: HashSet::new(),
            ploops,
            loop_of,
            spawns,
            spawn_of,
            spawn_par,
            exit_tests: Vec::new(),
            reserved: Vec::new(),
            sized_tasks: Vec::new(),
            counted,
            writes,
            joins: HashMap::new(),
            recompute: HashMap::new(),
            needs: Needs::default(),
            ahead: HashMap::new(),
            ahead_own: HashMap::new(),
            memcpy_ty: HashMap::new(),
            shared,
            requests: Vec::new(),
            thread_band: None,
            accumulation: Accumulation::default(),
        };
        plan.check(module)?;
        plan.control()?;
        plan.check_rules()?;
        crate::cache::plan_loops(&mut plan);
        plan.recompute = crate::cache::plan_recompute(&plan);
        plan.thread_band = crate::policy::threads::thread_band(&plan);
        plan.accumulation = crate::policy::plan(&plan);
        Ok(plan)
    }

    /// The block defining `v`.
    pub fn def_block(&self, v: Value) -> Option<Block> {
        match self.p.value_def(v) {
            ValueDef::Param(b, _) => Some(b),
            ValueDef::Result(i) => self.inst_block.get(&i).copied(),
        }
    }

    /// The innermost task (of a parallel loop, or spawned) containing `b`.
    pub fn task_of(&self, b: Option<Block>) -> Option<TaskOf> {
        let b = b?;
        let l = self.loop_of.get(&b).copied();
        let s = self.spawn_of.get(&b).copied();
        match (l, s) {
            (Some(l), Some(s)) => {
                if self.ploops[l].task_blocks.len() <= self.spawns[s].task_blocks.len() {
                    Some(TaskOf::Loop(l))
                } else {
                    Some(TaskOf::Spawn(s))
                }
            }
            (Some(l), None) => Some(TaskOf::Loop(l)),
            (None, Some(s)) => Some(TaskOf::Spawn(s)),
            (None, None) => None,
        }
    }

    /// How many parallel loops parallel loop `i` is nested in.
    pub fn depth(&self, mut i: usize) -> u32 {
        let mut d = 0;
        while let Some(pi) = self.ploops[i].parent {
            d += 1;
            i = pi;
        }
        d
    }

    /// True if `v` is defined in the task of loop `l` (or a loop inside it).
    pub fn defined_in_task(&self, v: Value, l: usize) -> bool {
        self.def_block(v)
            .is_some_and(|b| self.ploops[l].task_blocks.contains(&b))
    }

    /// True if the shadow of `alloca` must be heap memory: in split mode
    /// the reverse runs in `.rev`, after `.aug` returned, and the reverse
    /// of a task in another task (an outlined function), so the shadow
    /// must outlive the frame.
    pub fn heap_shadow(&self, alloca: Inst) -> bool {
        self.mode != Mode::Combined
            || self
                .inst_block
                .get(&alloca)
                .is_some_and(|b| self.loop_of.contains_key(b) || self.spawn_of.contains_key(b))
    }

    /// The call plan of `inst`, if it calls a split pair.
    pub fn call(&self, inst: Inst) -> Option<&CallPlan> {
        self.requests.iter().find_map(|r| match r {
            Request::Call(i, c) if *i == inst => Some(c),
            _ => None,
        })
    }

    /// True if some call of a split pair lies in a block `within` accepts.
    pub fn calls_in(&self, within: impl Fn(Block) -> bool) -> bool {
        self.requests.iter().any(|r| {
            matches!(r, Request::Call(i, _) if self.inst_block.get(i).is_some_and(|&b| within(b)))
        })
    }

    /// True if the function has calls of split pairs or planned launches.
    pub fn has_requests(&self) -> bool {
        !self.requests.is_empty()
    }

    /// The `__shared__` array `g`, if it has a derivative.
    pub fn shared_array(&self, g: GlobalId) -> Option<&SharedArray> {
        self.shared.iter().find(|s| s.global == g)
    }
}

/// For each block in some task of `tasks`, the index of the smallest
/// (innermost, as tasks nest) task containing it.
fn innermost<'a>(tasks: impl Iterator<Item = &'a HashSet<Block>>) -> HashMap<Block, usize> {
    let tasks: Vec<&HashSet<Block>> = tasks.collect();
    let mut of: HashMap<Block, usize> = HashMap::new();
    for (i, blocks) in tasks.iter().enumerate() {
        for &b in blocks.iter() {
            if of.get(&b).is_none_or(|&j| tasks[j].len() >= blocks.len()) {
                of.insert(b, i);
            }
        }
    }
    of
}

/// How many operands of placed instructions name each value (values
/// nothing uses are absent).
fn use_counts(p: &Function) -> HashMap<Value, u32> {
    let mut uses: HashMap<Value, u32> = HashMap::new();
    for (_, i) in p.placed_insts() {
        p.inst(i)
            .for_each_operand(|v| *uses.entry(v).or_default() += 1);
    }
    uses
}

/// The loads and stores of in-place updates `*p = *p + t` (or `*p - t`,
/// `t + *p`, and chains of them such as `*p + t - u`): a float load from
/// `p` whose value reaches a store back to `p` (the same pointer value)
/// through adds and subtractions that pass it on with coefficient 1, each
/// used once, all in one block, with nothing between the load and the
/// store that writes memory. The adjoint of `*p` passes through such an
/// update unchanged: the store's reverse reads `d*p` without zeroing it
/// and the load's reverse adds nothing, where the general rules would
/// zero `d*p` and add the same adjoint back (two stores and an add per
/// update, which the optimizer cannot remove: `0.0 + d` is not `d` when
/// `d` is `-0.0`). The only difference is that sign of a zero adjoint.
/// The reverses of loads between the two add into shadows, which
/// commutes with an adjoint left in place; a store between them would
/// read and zero `d*p`, so none may lie there.
fn in_place_updates(p: &Function, act: &ActivityInfo) -> HashSet<Inst> {
    let uses = use_counts(p);
    let single = |v: Value| uses.get(&v) == Some(&1);
    let mut out = HashSet::new();
    for &b in &p.layout {
        let insts = &p.blocks[b].insts;
        let pos: HashMap<Inst, usize> = insts.iter().enumerate().map(|(k, &i)| (i, k)).collect();
        let def_here = |v: Value| match p.value_def(v) {
            ValueDef::Result(i) => pos.get(&i).map(|&k| (i, k)),
            ValueDef::Param(..) => None,
        };
        for (at, &store) in insts.iter().enumerate() {
            let InstKind::Store { value: sum, ptr } = *p.inst(store) else {
                continue;
            };
            if !p.value_type(sum).is_float() || !act.is_shadowed(ptr) {
                continue;
            }
            // Down single-use adds and subtractions that pass an operand on
            // with coefficient 1 (`x + t`, `t + x`, `x - t`), to a load from
            // `ptr`: its adjoint is exactly the stored value's.
            let mut work = vec![sum];
            let mut found = None;
            while let Some(v) = work.pop() {
                if !single(v) || !act.is_varied(v) {
                    continue;
                }
                let Some((i, k)) = def_here(v) else { continue };
                match *p.inst(i) {
                    InstKind::Load(q) if q == ptr && k < at => {
                        found = Some(k);
                        break;
                    }
                    InstKind::Binary(BinaryOp::Fadd, x, y) => work.extend([x, y]),
                    InstKind::Binary(BinaryOp::Fsub, x, _) => work.push(x),
                    _ => {}
                }
            }
            let Some(lk) = found else { continue };
            let writes_between = insts[lk + 1..at].iter().any(|&i| match p.inst(i) {
                InstKind::Store { .. } | InstKind::Call { .. } | InstKind::Launch { .. } => true,
                InstKind::Intrinsic { op, .. } => !op.is_pure(),
                _ => false,
            });
            if !writes_between {
                out.insert(insts[lk]);
                out.insert(store);
            }
        }
    }
    out
}
