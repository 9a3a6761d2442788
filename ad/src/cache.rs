//! What the reverse sweep records and what it recomputes.
//!
//! Recording a value costs a tape slot written in the forward sweep and
//! read in the reverse: memory traffic that dominates a gradient's time
//! when a loop records a few values per iteration. So the reverse
//! recomputes what it can get more cheaply (`Sweep::obtain`, which
//! the generator asks for every forward value its reverse code needs):
//!
//! - *free values*: constants, parameters, and (in combined mode) values of
//!   blocks that dominate every return outside any loop;
//! - *induction variables* of counted loops and parallel loops: `lo + k ·
//!   step` from the iteration number `k`, which the reverse keeps anyway;
//! - *loop invariants*: a value defined outside a loop but needed in its
//!   reverse is recorded once, at the loop's exit, not once per iteration;
//! - *pure instructions* (integer and float arithmetic, casts, compares,
//!   selects, address arithmetic, and the intrinsics that are a few
//!   machine instructions: `sqrt fabs fmin fmax floor ceil abs labs`;
//!   the library calls `exp log pow sin cos tan tanh` are recorded, except
//!   a `sin x` or `cos x` whose adjoint rule computes the other of the two
//!   in the reverse anyway: the backend makes one `sincos` call of the
//!   pair)
//!   whose operands are all obtainable
//!   without a new record: recomputing never adds tape traffic;
//! - *loads of memory nothing overwrites*: in combined mode, a load whose
//!   memory the function never writes (nor frees, nor lets a callee
//!   touch) reads the same value again in the reverse sweep. A `restrict`
//!   parameter (`noalias` in parir) nothing writes through counts as
//!   unwritten even when other pointers are written: C makes it undefined
//!   for another pointer to modify what it points to.
//!
//! A value the reverse cannot get that way is recorded, or rather the
//! cheapest set of values it can be recomputed from is: a minimum vertex
//! cut of the graph of what it is computed from (`mincut.rs`, Enzyme's
//! min-cut caching), nearest the inputs on a tie, so that later needs of
//! the same reverse block reuse the records. A loop invariant is recorded
//! once at the loop's exit instead. Recomputing never adds tape traffic
//! beyond the cut, so this never records more than recording every needed
//! value would.
//!
//! **Counted loops.** A serial natural loop with one preheader edge, one
//! latch and one exit edge (whose target has no other predecessor after
//! [`split_loop_exits`]) gets an iteration counter `k` in the forward sweep
//! (a header parameter: 0 from the preheader, `k + 1` from the latch). Its
//! value at the exit is recorded once; the reverse keeps it in a slot and
//! the reverse of the header goes back to the preheader when it is 0 and
//! otherwise decrements it and goes to the latch. Without the counter,
//! every iteration records which edge entered the header. Where the header
//! tests `iv < bound` with `iv` counting up by one from `lo`, the count is
//! `max(0, bound - lo)` and nothing is recorded (`iv` cannot wrap: it
//! stays below `bound`); then a forward loop whose results nobody needs
//! is left with nothing to compute.

use crate::activity::{ActivityInfo, Root, branch_dests};
use crate::parallel::PLoop;
use crate::plan::{Mode, Plan};
use parc_ir::analysis::FunctionAnalyses;
use parc_ir::{BinaryOp, Block, BlockCall, Function, InstKind, Intrinsic, Value, ValueDef};
use std::collections::{HashMap, HashSet};

/// A serial loop whose reverse counts iterations (module doc).
#[derive(Clone, Debug)]
pub struct CountedLoop {
    pub header: Block,
    /// The edges into the header: from outside and from the latch, as
    /// `(block, successor slot)`.
    pub pre: (Block, usize),
    pub latch: (Block, usize),
    /// The one exit edge's target (its only predecessor is in the loop).
    pub exit: Block,
    pub blocks: HashSet<Block>,
    /// Header parameters that are induction variables: `p = lo + k·step`.
    pub ivs: HashMap<Value, (Value, i64)>,
}

fn branch_targets(p: &Function, b: Block) -> Vec<Block> {
    p.terminator(b)
        .map(|t| p.inst(t).block_calls().iter().map(|c| c.block).collect())
        .unwrap_or_default()
}

/// Gives the one exit edge of each serial loop a target of its own: where
/// the target has other predecessors, the edge goes through a new block
/// that only jumps on. Returns whether it changed anything.
pub fn split_loop_exits(p: &mut Function) -> bool {
    let an = FunctionAnalyses::compute(p);
    let mut splits = Vec::new();
    for lp in an.loops.loops() {
        let ld = an.loops.data(lp);
        let mut exits = Vec::new();
        for &b in &ld.blocks {
            let Some(t) = p.terminator(b) else { continue };
            if !matches!(p.inst(t), InstKind::Jump(_) | InstKind::Brif { .. }) {
                // Detaches, reattaches and syncs: not a serial loop shape.
                exits.clear();
                exits.push((b, usize::MAX));
                break;
            }
            for (slot, d) in branch_targets(p, b).into_iter().enumerate() {
                if !ld.contains(d) {
                    exits.push((b, slot));
                }
            }
        }
        if let [(b, slot)] = exits[..]
            && slot != usize::MAX
        {
            let target = branch_targets(p, b)[slot];
            if an.cfg.preds(target).len() > 1 {
                splits.push((b, slot));
            }
        }
    }
    for &(b, slot) in &splits {
        let t = p.terminator(b).expect("a loop block ends in a branch");
        let target = branch_targets(p, b)[slot];
        let loc = p.locs[t];
        let split = p.create_block();
        p.append_block(split);
        // The edge's arguments move to the new block's jump (the branch
        // dominates it) rather than through parameters of the new block:
        // a parameter would hide that the value entering the target is,
        // say, a constant, and the reverse would record it.
        let call = &mut p.inst_mut(t).block_calls_mut()[slot];
        call.block = split;
        let args = std::mem::take(&mut call.args);
        let j = p.append_inst(split, InstKind::Jump(BlockCall::new(target, args)), None);
        p.locs[j] = loc;
    }
    !splits.is_empty()
}

/// The counted loops of `p`: serial natural loops in the shape of the
/// module doc, other than the parallel loops.
pub fn counted_loops(p: &Function, an: &FunctionAnalyses, ploops: &[PLoop]) -> Vec<CountedLoop> {
    let mut out = Vec::new();
    'loops: for lp in an.loops.loops() {
        let ld = an.loops.data(lp);
        let h = ld.header;
        if ploops.iter().any(|l| l.header == h) {
            continue;
        }
        let [latch] = ld.latches[..] else { continue };
        let mut pre = None;
        let mut back = None;
        let mut exit = None;
        for &b in &ld.blocks {
            let Some(t) = p.terminator(b) else {
                continue 'loops;
            };
            if !matches!(p.inst(t), InstKind::Jump(_) | InstKind::Brif { .. }) {
                continue 'loops;
            }
            for (slot, d) in branch_targets(p, b).into_iter().enumerate() {
                if d == h && b == latch {
                    if back.replace((b, slot)).is_some() {
                        continue 'loops;
                    }
                } else if !ld.contains(d) {
                    if exit.replace(d).is_some() || an.cfg.preds(d) != [b] {
                        continue 'loops;
                    }
                } else if d == h {
                    // A second back edge.
                    continue 'loops;
                }
            }
        }
        for &b in an.cfg.preds(h) {
            if ld.contains(b) {
                continue;
            }
            let targets = branch_targets(p, b);
            let slots: Vec<usize> = (0..targets.len()).filter(|&s| targets[s] == h).collect();
            if pre.is_some() || slots.len() != 1 {
                continue 'loops;
            }
            pre = Some((b, slots[0]));
        }
        let (Some(pre), Some(back), Some(exit)) = (pre, back, exit) else {
            continue;
        };
        let args_of = |(b, slot): (Block, usize)| -> Vec<Value> {
            match p.terminator(b).map(|t| p.inst(t)) {
                Some(InstKind::Jump(d)) => d.args.clone(),
                Some(InstKind::Brif {
                    then_dest,
                    else_dest,
                    ..
                }) => {
                    if slot == 0 {
                        then_dest.args.clone()
                    } else {
                        else_dest.args.clone()
                    }
                }
                _ => Vec::new(),
            }
        };
        let (init, next) = (args_of(pre), args_of(back));
        let mut ivs = HashMap::new();
        for (n, &param) in p.blocks[h].params.iter().enumerate() {
            let (Some(&lo), Some(&nx)) = (init.get(n), next.get(n)) else {
                continue;
            };
            if !p.value_type(param).is_int() {
                continue;
            }
            let ValueDef::Result(i) = p.value_def(nx) else {
                continue;
            };
            let step = match *p.inst(i) {
                InstKind::Binary(BinaryOp::Iadd, a, b) if a == param => p.const_int(b),
                InstKind::Binary(BinaryOp::Iadd, a, b) if b == param => p.const_int(a),
                InstKind::Binary(BinaryOp::Isub, a, b) if a == param => p.const_int(b).map(|c| -c),
                _ => None,
            };
            if let Some(step) = step {
                ivs.insert(param, (lo, step));
            }
        }
        out.push(CountedLoop {
            header: h,
            pre,
            latch: back,
            exit,
            blocks: ld.blocks.iter().copied().collect(),
            ivs,
        });
    }
    out
}

/// The memory a function writes, for deciding which loads the reverse
/// may repeat.
pub struct Writes {
    roots: HashSet<Root>,
    /// Memory reachable from outside the function (parameters, globals,
    /// loaded pointers) may be written.
    external: bool,
    /// `restrict` pointer parameters that nothing writes through and whose
    /// value is not stored to memory (where a loaded copy would be based
    /// on it): no other pointer may modify what they point to.
    restricted: HashSet<u32>,
}

impl Writes {
    pub fn compute(p: &Function, act: &ActivityInfo) -> Writes {
        let mut roots = HashSet::new();
        let mut external = false;
        let mut stored = HashSet::new();
        for (_, i) in p.placed_insts() {
            if let InstKind::Store { value, .. } = p.inst(i)
                && p.value_type(*value) == parc_ir::Type::Ptr
            {
                stored.extend(act.roots(*value));
            }
            let dest = match p.inst(i) {
                InstKind::Store { ptr, .. } => Some(*ptr),
                InstKind::Intrinsic { op, args } => match op {
                    Intrinsic::Memcpy
                    | Intrinsic::Memset
                    | Intrinsic::Free
                    | Intrinsic::Realloc
                    | Intrinsic::AtomicAdd => args.first().copied(),
                    Intrinsic::CudaMemcpy(_) | Intrinsic::CudaFree | Intrinsic::CudaMalloc => {
                        external = true;
                        args.first().copied()
                    }
                    _ => None,
                },
                InstKind::Call { args, .. } => {
                    // A callee may write through its pointer arguments and
                    // to any memory it can reach.
                    external = true;
                    for &a in args {
                        if p.value_type(a) == parc_ir::Type::Ptr {
                            roots.extend(act.roots(a));
                        }
                    }
                    None
                }
                InstKind::Launch { .. } => {
                    external = true;
                    None
                }
                _ => None,
            };
            if let Some(d) = dest {
                roots.extend(act.roots(d));
            }
        }
        if roots.iter().any(|r| {
            matches!(
                r,
                Root::Param(_) | Root::Global | Root::Loaded(_) | Root::Returned(_) | Root::Unknown
            )
        }) {
            external = true;
        }
        let restricted = (0..p.sig.params.len() as u32)
            .filter(|&k| {
                let r = Root::Param(k);
                p.param_noalias(k as usize) && !roots.contains(&r) && !stored.contains(&r)
            })
            .collect();
        Writes {
            roots,
            external,
            restricted,
        }
    }

    /// True if no write of the function can change what `ptr` points to.
    pub fn unchanged(&self, act: &ActivityInfo, ptr: Value) -> bool {
        let mut any = false;
        let ok = act.roots(ptr).all(|r| {
            any = true;
            match r {
                Root::Param(k) if self.restricted.contains(&k) => true,
                Root::Param(_) | Root::Global => !self.external,
                Root::Alloca(_) | Root::Heap(_) | Root::Shared(_) => !self.roots.contains(&r),
                Root::Loaded(_) | Root::Returned(_) | Root::Unknown => false,
            }
        });
        any && ok
    }
}

/// A counted loop's exit test, `iv < bound` (see `exit_test`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExitTest {
    /// The induction variable (a header parameter) and its first value.
    pub iv: Value,
    pub lo: Value,
    pub step: i64,
    pub bound: Value,
    /// The test is `iv <= bound`.
    pub inclusive: bool,
    /// The test compares signed.
    pub signed: bool,
}

/// How the plan's counted loops and parallel loops record: each counted
/// loop's exit test (its reverse counts iterations from the bounds where
/// the test is `iv < bound` counting by one), the loops that reserve their
/// records before they start, and the parallel loops whose tasks record a
/// number of slots per iteration known before the loop.
pub(crate) fn plan_loops(plan: &mut Plan) {
    plan.exit_tests = (0..plan.counted.len())
        .map(|i| exit_test(plan, i))
        .collect();
    plan.reserved = (0..plan.counted.len())
        .map(|i| reservable(plan, i))
        .collect();
    plan.sized_tasks = (0..plan.ploops.len())
        .map(|i| sized_task(plan, i))
        .collect();
}

/// Counted loop `i`'s exit test if its header tests `iv < bound` (`≤`
/// if inclusive) for an induction variable `iv = lo + k·step` growing
/// by `step > 0` and a bound defined outside the loop, and leaves the
/// loop exactly when the test fails.
fn exit_test(plan: &Plan, i: usize) -> Option<ExitTest> {
    let (p, c) = (&plan.p, &plan.counted[i]);
    let h = c.header;
    let InstKind::Brif {
        cond,
        then_dest,
        else_dest,
    } = p.inst(p.terminator(h)?)
    else {
        return None;
    };
    if !c.blocks.contains(&then_dest.block) || else_dest.block != c.exit {
        return None;
    }
    let ValueDef::Result(ci) = p.value_def(*cond) else {
        return None;
    };
    let InstKind::Icmp(cc, x, bound) = *p.inst(ci) else {
        return None;
    };
    let (signed, inclusive) = cc.upper_bound()?;
    let &(lo, step) = c.ivs.get(&x)?;
    let outside = plan
        .def_block(bound)
        .is_some_and(|b| !c.blocks.contains(&b));
    (step > 0 && outside).then_some(ExitTest {
        iv: x,
        lo,
        step,
        bound,
        inclusive,
        signed,
    })
}

/// Counted loop `i`'s exit test if, before it starts (in the forward copy
/// of its preheader), the loop reserves room on the tape for every record
/// of its iterations, so that its blocks push without a capacity check.
/// Only for an innermost loop without branches in its body that calls no
/// augmented forward (its records per iteration are then the frames of
/// its blocks), whose header tests `iv < bound` (or `≤`) with a growing
/// induction variable and an invariant bound, and leaves the loop exactly
/// when the test fails.
fn reservable(plan: &Plan, i: usize) -> Option<ExitTest> {
    let c = &plan.counted[i];
    let h = c.header;
    let loops = &plan.an.loops;
    let inner = loops
        .loops()
        .any(|lp| loops.data(lp).header != h && c.blocks.contains(&loops.data(lp).header));
    let calls = plan.calls_in(|b| c.blocks.contains(&b));
    // A body without branches: every block runs in every iteration, so
    // the frames' sum is what an iteration records (a branchy body
    // would reserve for paths not taken; measured slower on n-body).
    let straight = c.blocks.iter().all(|&b| {
        plan.an
            .cfg
            .succs(b)
            .iter()
            .filter(|s| c.blocks.contains(s))
            .count()
            == 1
    });
    if inner || calls || !straight || plan.task_of(Some(h)) != plan.task_of(Some(c.pre.0)) {
        return None;
    }
    plan.exit_tests[i]
}

/// The counted loops of parallel loop `i`'s task, with their exit tests,
/// if the task records a number of slots per iteration that is bounded
/// before the loop starts: it calls no augmented forward (which records as
/// much as its inputs ask) and spawns nothing, and every loop headed in it
/// is a counted loop that reserves its records (innermost, so they do not
/// nest) with a first value and a bound computed before the parallel
/// loop. Each block outside those loops runs at most once per iteration.
fn sized_task(plan: &Plan, i: usize) -> Option<Vec<(usize, ExitTest)>> {
    let l = &plan.ploops[i];
    let tb = &l.task_blocks;
    // A spawned task inside records onto tapes of its own.
    if plan.calls_in(|b| tb.contains(&b)) || plan.spawns.iter().any(|sp| tb.contains(&sp.detach)) {
        return None;
    }
    let before = |v: Value| {
        plan.def_block(v)
            .is_some_and(|b| plan.an.domtree.dominates(b, l.pre))
    };
    let mut loops = Vec::new();
    for lp in plan.an.loops.loops() {
        let h = plan.an.loops.data(lp).header;
        if !tb.contains(&h) {
            continue;
        }
        let j = plan.counted.iter().position(|c| c.header == h)?;
        let test = plan.reserved[j]?;
        if !(before(test.lo) && before(test.bound)) {
            return None;
        }
        loops.push((j, test));
    }
    Some(loops)
}

// ----- record or recompute, as the reverse is generated

/// How deep a chain of instructions the reverse recomputes instead of
/// recording its result: deep enough for an n-body distance (index, address,
/// load, difference, squares, sum, `sqrt`), short enough to keep each
/// reverse iteration's recomputation small.
pub(crate) const MAX_RECOMPUTE_DEPTH: u32 = 16;

/// An instruction whose value the reverse recomputes wherever it needs it:
/// a constant, an address of a global or function, or where the thread
/// is in its grid. The last two must not be recorded: a kernel launch's
/// reverse runs in another launch (see `launches.rs`), whose `__shared__`
/// arrays are at other addresses, on the same threads.
pub(crate) fn is_position(kind: &InstKind) -> bool {
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

/// An induction variable the reverse recomputes.
#[derive(Clone, Copy)]
pub(crate) enum Iv {
    /// Header parameter `p` of counted loop `i`.
    Counted(usize, Value),
    /// The index of parallel loop `i`.
    Parallel(usize),
}

/// How the reverse code of a block gets a forward value it needs (see
/// the module doc), as [`Sweep::obtain`] decides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Obtain {
    /// No record: a constant (emitted again), a parameter, or a value the
    /// reverse uses directly.
    Free,
    /// Popped from the block's frame already.
    Popped(Value),
    /// Computed again from values obtainable without a new record in the
    /// block's own frame.
    Recompute,
    /// Recorded once at the exit of the loop that starts at `Block` (the
    /// outermost loop around the block that does not define it).
    RecordAt(Block),
    /// The cheapest values to record instead (a minimum cut, `mincut.rs`):
    /// record them in the block's frame, then recompute the value if
    /// [`Sweep::cheap`] allows, else record it too.
    RecordCut(Vec<Value>),
    /// Recorded in the block's own frame.
    Record,
}

/// What the generator has made so far that the record-or-recompute
/// decisions read: the work function, its forward copies of primal
/// values, and what each reverse block has popped.
pub(crate) struct Sweep<'a> {
    pub plan: &'a Plan,
    /// The work function being generated.
    pub g: &'a Function,
    /// Primal values to their forward copies, and back.
    pub fwd: &'a HashMap<Value, Value>,
    pub fwd_inv: &'a HashMap<Value, Value>,
    /// The primal block of each forward value.
    pub origin: &'a HashMap<Value, Block>,
    /// Split mode: the reverse entry, whose parameters are free.
    pub rentry: Option<Block>,
    /// The values each primal block's reverse has popped (or recorded in
    /// an enclosing loop's frame).
    pub pop_cache: &'a HashMap<(Block, Value), Value>,
}

impl Sweep<'_> {
    /// How the reverse of primal block `b` gets forward value `gv`.
    pub(crate) fn obtain(&self, b: Block, gv: Value) -> Obtain {
        if self.is_free(gv) {
            return Obtain::Free;
        }
        if let Some(&v) = self.pop_cache.get(&(b, gv)) {
            return Obtain::Popped(v);
        }
        if self.cheap(b, gv, 0) {
            return Obtain::Recompute;
        }
        if let Some(at) = self.hoist_target(b, gv) {
            // Once per execution of the loop: cheaper than any cut inside.
            return Obtain::RecordAt(at);
        }
        let cut = self.cheapest_records(b, gv);
        if cut != [gv] {
            return Obtain::RecordCut(cut);
        }
        Obtain::Record
    }

    fn fv(&self, v: Value) -> Value {
        self.fwd[&v]
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

    pub(crate) fn is_free(&self, gv: Value) -> bool {
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

    /// Where a value needed by the reverse of `b` is better recorded: at
    /// the exit of the outermost loop around `b` that does not define it
    /// (once per execution of the loop instead of once per iteration).
    /// Spawned tasks are a barrier: their reverse runs on a tape of their
    /// own while the parent's is in use.
    pub(crate) fn hoist_target(&self, b: Block, gv: Value) -> Option<Block> {
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
    pub(crate) fn iv_of(&self, b: Block, gv: Value) -> Option<Iv> {
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
    pub(crate) fn cheap(&self, b: Block, gv: Value, depth: u32) -> bool {
        self.cheap_with(b, gv, depth, true)
    }

    /// [`Self::cheap`], where `hoist` says whether a record at a loop's exit
    /// counts as cheap; without it, only values that need no record at all.
    pub(crate) fn cheap_with(&self, b: Block, gv: Value, depth: u32, hoist: bool) -> bool {
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
    /// branch on one condition decided (see [`Self::join`]),
    /// as that condition and the arguments of the true and the false edge
    /// (forward values): `gv` is `select(c, t, f)`, as C's `a && b` is.
    /// The argument of the way not taken was never computed, so it may be
    /// recomputed only if that cannot fault ([`Self::may_trap`]).
    pub(crate) fn param_by_condition(&self, gv: Value) -> Option<(Value, Value, Value)> {
        let &pv = self.fwd_inv.get(&gv)?;
        let ValueDef::Param(join, k) = self.plan.p.value_def(pv) else {
            return None;
        };
        if join == self.plan.p.layout[0] || self.iv_of(join, gv).is_some() {
            return None;
        }
        let edges = self.plan.edges.get(&join)?;
        let (c, on_true, on_false) = self.join(join)?;
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
    /// the reverse sweep runs: memory no code of the run writes
    /// (`readonly.rs`), or, in combined mode, memory this function does
    /// not write (in split mode the caller runs between `.aug` and `.rev`).
    pub(crate) fn reloadable(&self, gv: Value) -> bool {
        let Some(&r) = self.fwd_inv.get(&gv) else {
            return false;
        };
        let ValueDef::Result(i) = self.plan.p.value_def(r) else {
            return false;
        };
        let InstKind::Load(ptr) = self.plan.p.inst(i) else {
            return false;
        };
        self.plan
            .readonly
            .unchanged(&self.plan.p, &self.plan.act, *ptr)
            || (self.plan.mode == Mode::Combined
                && self.plan.writes.unchanged(&self.plan.act, *ptr))
    }

    /// The join `b`'s way in as the plan recomputes it from a branch
    /// condition (see `Plan::joins`): the forward condition and the
    /// indices (into `plan.edges`) of the true and false edges.
    pub(crate) fn join(&self, b: Block) -> Option<(Value, usize, usize)> {
        let &(cond, on_true, on_false) = self.plan.joins.get(&b)?;
        Some((self.fv(cond), on_true, on_false))
    }
}
