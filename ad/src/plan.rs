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
//! `Sweep`, into `needs` (`cache/needs.rs`). A plan is read-only from
//! then on. The generator (`reverse.rs`) consumes it; `explain.rs`
//! prints it (`--explain-ad`, and `ad/tests/plans.rs`).
//!
//! Length (about 1,000 lines): `Plan::check` is the one list of what the
//! AD refuses, with the reason each message gives (atomics, reallocation,
//! CUDA memory, locks and `critical`, `scanf`, the C library, calls and
//! launches), about 220 lines, beside the plan's facts and their queries.
//! The refusals of intrinsics would be the first part to move into a file
//! of their own.

use crate::activity::{ActivityInfo, Root, branch_dests};
use crate::cache::{CountedLoop, ExitTest, Needs, Recompute, Writes};
use crate::parallel::{PLoop, SpawnSite};
use crate::policy::{Accumulation, ThreadBand};
use crate::readonly::ReadOnly;
use crate::{AdError, BlockThreads};
use parc_ir::analysis::FunctionAnalyses;
use parc_ir::{
    Activity, BinaryOp, Block, CFn, FuncId, FuncKind, Function, GlobalId, Inst, InstKind,
    Intrinsic, Module, Type, Value, ValueDef,
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
    /// that pointer's shadow where its last parameter points.
    Split {
        ret_active: bool,
        atomic: bool,
        ret_shadow: bool,
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
        let writes = Writes::compute(&p, &act);
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

    /// Rejects what cannot be differentiated; notes the calls and
    /// launches with differentiable arguments and the element types of
    /// `memcpy`s of differentiable memory.
    fn check(&mut self, module: &Module) -> Result<(), AdError> {
        let uses = use_counts(&self.p);
        let (p, act) = (&self.p, &self.act);
        for &b in &self.rpo {
            for &inst in p.block_insts(b) {
                let kind = p.inst(inst);
                let res = p.result(inst);
                match kind {
                    InstKind::Launch {
                        kernel,
                        grid,
                        block,
                        args,
                    } => {
                        if !args.iter().any(|&a| act.is_active_value(a)) {
                            continue;
                        }
                        let one_d = grid[1..]
                            .iter()
                            .chain(&block[1..])
                            .all(|&d| p.const_int(d) == Some(1));
                        self.requests.push(Request::Launch(
                            inst,
                            LaunchRequest {
                                kernel: *kernel,
                                acts: self.call_activities(args),
                                one_d,
                            },
                        ));
                    }
                    InstKind::Intrinsic { op, args } => match op {
                        // `old = atomic_add(p, v)` is `*p += v`: the reverse
                        // reads `d*p` into `dv`; the old value's adjoint
                        // would have to be added back into `d*p` while
                        // other threads read it.
                        Intrinsic::AtomicAdd
                            if res.is_some_and(|r| {
                                act.is_active_value(r) && uses.contains_key(&r)
                            }) =>
                        {
                            return Err(err(
                                p,
                                Some(inst),
                                "the value an `atomicAdd` returns cannot be differentiated: \
                                 its derivative depends on the order of the threads' adds, \
                                 which the reverse cannot replay",
                            ));
                        }
                        Intrinsic::AtomicAdd
                            if act.is_active_value(args[1]) && !act.is_shadowed(args[0]) =>
                        {
                            return Err(err(
                                p,
                                Some(inst),
                                "an `atomicAdd` of a differentiable value into memory without a derivative",
                            ));
                        }
                        Intrinsic::Realloc
                            if act.is_shadowed(args[0])
                                || res.is_some_and(|r| act.is_shadowed(r)) =>
                        {
                            return Err(err(
                                p,
                                Some(inst),
                                "`realloc` of differentiable memory cannot be differentiated yet",
                            ));
                        }
                        Intrinsic::CudaMalloc | Intrinsic::CudaMemcpy(_) | Intrinsic::CudaFree
                            if args.iter().any(|&a| act.is_shadowed(a)) =>
                        {
                            return Err(err(
                                p,
                                Some(inst),
                                "CUDA memory functions on differentiable memory cannot be differentiated yet",
                            ));
                        }
                        // A lock orders the threads' updates in the primal;
                        // the reverse would have to replay that order.
                        Intrinsic::C(CFn::CriticalBegin | CFn::OmpSetLock | CFn::OmpTestLock) => {
                            return Err(err(
                                p,
                                Some(inst),
                                "a `critical` section or OpenMP lock cannot be differentiated: \
                                 the reverse would have to replay the order in which threads \
                                 took it (accumulate with `reduction(...)` or make the section \
                                 one `x += e`, an atomic add)",
                            ));
                        }
                        // What `scanf` stores comes from input and has
                        // no derivative; the cells it overwrites would
                        // need their adjoints cleared, which no rule does.
                        // Into memory without derivatives it is inactive.
                        Intrinsic::Sscanf | Intrinsic::Fscanf
                            if args[2..].iter().any(|&a| act.is_shadowed(a)) =>
                        {
                            return Err(err(
                                p,
                                Some(inst),
                                format!(
                                    "`{}` stores into differentiable memory, which cannot be differentiated: scan into a separate variable and assign it",
                                    op.name()
                                ),
                            ));
                        }
                        // The C library's functions have no adjoint rules:
                        // one that writes differentiable memory (`memmove`
                        // of doubles, `qsort` of them) would lose the
                        // derivatives it moves.
                        Intrinsic::C(_) | Intrinsic::Sprintf | Intrinsic::Snprintf
                            if op.effects().writes.iter().any(|x| {
                                written_operand(x).is_some_and(|i| act.is_shadowed(args[i]))
                            }) =>
                        {
                            return Err(err(
                                p,
                                Some(inst),
                                format!(
                                    "`{}` on differentiable memory cannot be differentiated yet",
                                    op.name()
                                ),
                            ));
                        }
                        Intrinsic::Memcpy | Intrinsic::Memset if act.is_shadowed(args[0]) => {
                            let ptrs = if *op == Intrinsic::Memcpy {
                                vec![args[0], args[1]]
                            } else {
                                vec![args[0]]
                            };
                            let ty = self.memory_kind(&ptrs, inst)?;
                            self.memcpy_ty.insert(inst, ty);
                        }
                        _ => {}
                    },
                    InstKind::Store { value, ptr }
                        if act.is_varied(*value) && !act.is_shadowed(*ptr) =>
                    {
                        let bad = act.roots(*ptr).find(|r| !matches!(r, Root::Param(_)));
                        if let Some(r) = bad {
                            let what = match r {
                                Root::Global => "a global variable",
                                _ => {
                                    "memory without a derivative (reached through an untracked pointer)"
                                }
                            };
                            return Err(err(
                                p,
                                Some(inst),
                                format!("a differentiable value is stored to {what}"),
                            ));
                        }
                    }
                    InstKind::Call { func, args } => {
                        // A result used as a pointer to active memory needs
                        // its shadow from the callee.
                        let ret_shadow = res.is_some_and(|r| {
                            p.value_type(r) == Type::Ptr
                                && act.is_shadowed(r)
                                && uses.contains_key(&r)
                        });
                        if !ret_shadow && !args.iter().any(|&a| act.is_active_value(a)) {
                            continue;
                        }
                        let callee = &module.funcs[*func];
                        if callee.is_declaration() {
                            let what = if ret_shadow {
                                "whose result points to memory with a derivative"
                            } else {
                                "with differentiable arguments"
                            };
                            return Err(err(
                                p,
                                Some(inst),
                                format!("a call to `extern` function `{}` {what}", callee.name),
                            ));
                        }
                        self.requests.push(Request::Call(
                            inst,
                            CallPlan {
                                callee: *func,
                                acts: self.call_activities(args),
                                ret_active: res.is_some_and(|r| act.is_varied(r)),
                                ret_shadow,
                                atomic: crate::policy::in_parallel_code(self, b),
                            },
                        ));
                    }
                    InstKind::Return(Some(v))
                        if self.mode.ret_shadow() && p.value_type(*v) == Type::Ptr =>
                    {
                        // Every root must have a shadow to return: the
                        // caller adds into it.
                        let mut roots = act.roots(*v).peekable();
                        let bad = if roots.peek().is_none() {
                            Some(Root::Unknown)
                        } else {
                            roots.find(|&r| !act.is_active_root(r))
                        };
                        if let Some(r) = bad {
                            let what = match r {
                                Root::Global => "a global variable".to_string(),
                                Root::Param(k) => format!(
                                    "parameter `{}`, whose argument has no derivative",
                                    p.param_name(k as usize).unwrap_or("?")
                                ),
                                _ => "memory without a derivative".to_string(),
                            };
                            return Err(err(
                                p,
                                Some(inst),
                                format!(
                                    "the caller adds derivatives into the memory this returns, \
                                     which may be {what}"
                                ),
                            ));
                        }
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// The activities of a call's (or launch's) arguments: varied floats
    /// active, shadowed pointers duplicated, the rest constant.
    fn call_activities(&self, args: &[Value]) -> Vec<Activity> {
        args.iter()
            .map(|&a| {
                let ty = self.p.value_type(a);
                if ty.is_float() && self.act.is_varied(a) {
                    Activity::Active
                } else if ty == Type::Ptr && self.act.is_shadowed(a) {
                    Activity::Dup
                } else {
                    Activity::Const
                }
            })
            .collect()
    }

    /// What the memory `ptrs` point into holds, for `memcpy`/`memset`
    /// (which move bytes, so the AD must know how to add them): a float
    /// type, or `ptr` (whose shadows are copied in the forward sweep, as
    /// pointers are). Errors if it holds both, or both float types.
    fn memory_kind(&self, ptrs: &[Value], inst: Inst) -> Result<Type, AdError> {
        let roots: HashSet<Root> = ptrs.iter().flat_map(|&p| self.act.roots(p)).collect();
        let mut tys = HashSet::new();
        for (_, i) in self.p.placed_insts() {
            let (ptr, ty) = match self.p.inst(i) {
                InstKind::Load(p) => (*p, self.p.result(i).map(|r| self.p.value_type(r))),
                InstKind::Store { value, ptr } => (*ptr, Some(self.p.value_type(*value))),
                _ => continue,
            };
            if self.act.roots(ptr).any(|r| roots.contains(&r))
                && let Some(ty) = ty
                && (ty.is_float() || ty == Type::Ptr)
            {
                tys.insert(ty);
            }
        }
        if tys.contains(&Type::Ptr) {
            if tys.len() > 1 {
                return Err(err(
                    &self.p,
                    Some(inst),
                    "`memcpy`/`memset` of differentiable memory that holds both floats and pointers",
                ));
            }
            return Ok(Type::Ptr);
        }
        match (tys.contains(&Type::F32), tys.contains(&Type::F64)) {
            (true, true) => Err(err(
                &self.p,
                Some(inst),
                "`memcpy` of memory holding both `float` and `double` values",
            )),
            (true, false) => Ok(Type::F32),
            _ => Ok(Type::F64),
        }
    }

    /// The edges, returns, reversed blocks and (combined mode) directly
    /// available blocks; the joins whose way in follows from a condition.
    fn control(&mut self) -> Result<(), AdError> {
        let p = &self.p;
        for &b in &self.rpo {
            if let Some(t) = p.terminator(b) {
                for (slot, (dest, _)) in branch_dests(p.inst(t)).into_iter().enumerate() {
                    self.edges.entry(dest).or_default().push((b, slot));
                }
                if let InstKind::Sync { next, .. } = p.inst(t) {
                    self.edges.entry(*next).or_default().push((b, 0));
                }
                if matches!(p.inst(t), InstKind::Return(_)) {
                    self.returns.push(b);
                }
            }
        }
        for sp in &self.spawns {
            self.edges.insert(sp.cont, vec![(sp.detach, 0)]);
        }
        let mut reversed: HashSet<Block> = self.returns.iter().copied().collect();
        let mut work: Vec<Block> = self.returns.clone();
        while let Some(b) = work.pop() {
            for &pb in self.an.cfg.preds(b) {
                if self.an.cfg.is_reachable(pb) && reversed.insert(pb) {
                    work.push(pb);
                }
            }
        }
        for l in &self.ploops {
            for b in [l.header, l.spawn, l.latch] {
                reversed.remove(&b);
            }
        }
        self.reversed = reversed;
        if self.mode == Mode::Combined {
            for &b in &self.rpo {
                if self.an.loops.innermost(b).is_none()
                    && self
                        .returns
                        .iter()
                        .all(|&r| self.an.domtree.dominates(b, r))
                {
                    self.avail.insert(b);
                }
            }
        }
        // A block with several incoming edges records the one it was
        // entered by; a `sync` cannot say which.
        for &b in &self.rpo {
            let counted_header = self.counted.iter().any(|c| c.header == b);
            if b == self.p.layout[0]
                || counted_header
                || self.edges.get(&b).is_none_or(|e| e.len() < 2)
            {
                continue;
            }
            if self.an.cfg.preds(b).iter().any(|&pb| {
                self.p
                    .terminator(pb)
                    .is_some_and(|t| matches!(self.p.inst(t), InstKind::Sync { .. }))
            }) {
                return Err(err(
                    &self.p,
                    self.p.terminator(b),
                    "a block entered both by a `sync` and by branches cannot be differentiated yet",
                ));
            }
        }
        let joins: HashMap<Block, (Value, usize, usize)> = self
            .edges
            .iter()
            .filter_map(|(&b, edges)| Some((b, self.edge_by_condition(b, edges)?)))
            .collect();
        self.joins = joins;
        Ok(())
    }

    /// A join whose entering edge follows from one branch condition: `b`'s
    /// immediate dominator `d` ends in `brif c, T, E`, and of `b`'s two
    /// incoming edges one is `d`'s then-edge or leaves a block that only
    /// `T` (entered from `d` alone) dominates, the other likewise for `E`.
    /// The latest `d` before `b` then decided the way in, so the reverse
    /// can recompute `c` instead of recording the edge. Returns `c` and
    /// the indices (into `edges`) of the true and false edges.
    fn edge_by_condition(
        &self,
        b: Block,
        edges: &[(Block, usize)],
    ) -> Option<(Value, usize, usize)> {
        if edges.len() != 2 {
            return None;
        }
        let d = self.an.domtree.idom(b)?;
        let t = self.p.terminator(d)?;
        let InstKind::Brif {
            cond,
            then_dest,
            else_dest,
        } = self.p.inst(t)
        else {
            return None;
        };
        let (tb, eb) = (then_dest.block, else_dest.block);
        if tb == eb {
            return None;
        }
        let single_entry = |x: Block| x != b && self.an.cfg.preds(x) == [d];
        let side = |&(pred, slot): &(Block, usize)| -> Option<bool> {
            if pred == d {
                return Some(slot == 0);
            }
            if single_entry(tb) && self.an.domtree.dominates(tb, pred) {
                return Some(true);
            }
            if single_entry(eb) && self.an.domtree.dominates(eb, pred) {
                return Some(false);
            }
            None
        };
        match (side(&edges[0])?, side(&edges[1])?) {
            (true, false) => Some((*cond, 0, 1)),
            (false, true) => Some((*cond, 1, 0)),
            _ => None,
        }
    }

    /// Every varied instruction whose reverse is an adjoint rule has one.
    fn check_rules(&self) -> Result<(), AdError> {
        for &b in &self.rpo {
            if !self.reversed.contains(&b) {
                continue;
            }
            for &inst in self.p.block_insts(b) {
                let kind = self.p.inst(inst);
                let by_rule = !matches!(
                    kind,
                    InstKind::Load(_)
                        | InstKind::Call { .. }
                        | InstKind::Launch { .. }
                        | InstKind::Intrinsic {
                            op: Intrinsic::AtomicAdd,
                            ..
                        }
                );
                if by_rule
                    && self.p.result(inst).is_some_and(|r| self.act.is_varied(r))
                    && crate::rules::lookup(kind).is_none()
                {
                    return Err(err(
                        &self.p,
                        Some(inst),
                        format!("no derivative rule for `{}`", kind_name(kind)),
                    ));
                }
            }
        }
        Ok(())
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

/// The name of an instruction kind in messages.
pub(crate) fn kind_name(kind: &InstKind) -> String {
    match kind {
        InstKind::Binary(op, ..) => op.name().to_string(),
        InstKind::Cast(op, _) => op.name().to_string(),
        InstKind::Intrinsic { op, .. } => op.name(),
        InstKind::Call { .. } => "call".into(),
        other => format!("{other:?}")
            .split(['(', ' ', '{'])
            .next()
            .unwrap_or("?")
            .to_lowercase(),
    }
}

/// The operand through which an intrinsic writes `x`, where one is named.
fn written_operand(x: &parc_ir::Extent) -> Option<usize> {
    use parc_ir::Extent;
    match *x {
        Extent::Sized { ptr, .. }
        | Extent::Fixed { ptr, .. }
        | Extent::TypeOf { ptr, .. }
        | Extent::Unsized(ptr) => Some(ptr),
        Extent::Pointers { .. } => None,
    }
}
