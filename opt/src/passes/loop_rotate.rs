//! `loop-rotate`: turns a loop that tests at the top into one that tests at
//! the bottom, guarded once before it (`while (c) B` into `if (c) do B
//! while (c)`), as LLVM's loop rotation and gcc's loop header copying do.
//! A top-tested loop runs its test, a conditional branch out and an
//! unconditional branch back every iteration; the rotated loop runs one
//! conditional branch back.
//!
//! # Not part of `pipeline()`
//! The AD recognizes loops by their top test (`iv < bound` in the header)
//! and Tapir lowering recognizes parallel loops by their shape, so this
//! pass runs only in [`codegen_prepare`](crate::codegen_prepare), after the last
//! optimization and before the backend. Even there it leaves alone every
//! loop with a `detach`, `reattach` or `sync` among its blocks: parallel
//! loops keep the shape Tapir lowering expects (serial loops inside a task
//! are rotated).
//!
//! # What is rotated
//! A natural loop with header `H` such that
//! - `H` ends in `brif c, A(..), B(..)` with exactly one of `A`, `B` in the
//!   loop: `E`, its first body block, which is not `H` (a one-block loop
//!   already tests at the bottom) and has no other predecessor; the other
//!   is the exit `X`;
//! - `H`'s other instructions are at most [`MAX_HEADER_INSTS`], none with
//!   an effect (loads are fine: each copy runs exactly when `H` would have)
//!   and none an `alloca` (a copy would be another object), and none
//!   convergent (see [`parc_ir::convergent`]: a barrier in `H` would become
//!   one in the guard and one at the bottom, which threads that enter the
//!   loop together but leave it apart reach at different copies; convergent
//!   operations have effects too, but the refusal should not rest on that);
//! - every edge into `H` is a `jump` or `brif` (not a Tapir edge);
//! - every value `H` defines (parameters included) that is used outside
//!   `H` is used in the loop (where `E` dominates, as `E`'s only way in is
//!   from `H`) or in blocks `X` dominates, `X` then having no predecessor
//!   but `H`;
//! - the loop has one latch: with several (a `continue`), each would get
//!   a copy of the test and become a critical edge carrying the loop's
//!   values, whose moves cost more than the test saved (the reverse of
//!   n-body's inner loop);
//! - `H` is not the header a rotation made (each loop rotates once);
//! - no value the loop reads from outside it or leaves behind is live
//!   across a call (see below).
//!
//! # Calls and the back edge
//! A rotated loop's back edge is critical: the bottom test has two
//! successors and the new header two predecessors, so Cranelift's register
//! allocator puts the edge's moves in a block of their own. For a value it
//! has spilled, that block stored the value back to its slot on every
//! iteration in the code we measured (the sum of `normalize`'s forward
//! loop, the scale factor of its reverse), where the top-tested loop's
//! back edge, a plain jump, stored nothing: a store-to-load round trip per
//! iteration. Values
//! are spilled above all when they live across a call, which clobbers
//! every vector register, so a loop whose values do is left as it is.
//! Calls here are the instructions the backend makes into calls (`call`,
//! `launch`, intrinsics other than the arithmetic, `atomic_add` and
//! `worker_id`, and the runtime calls a `detach` or `sync` becomes), and
//! only those of the function the backend will make that holds the loop:
//! Tapir lowering outlines every task, so a call in a parent spills nothing
//! of its tasks' loops, nor one in a task anything of its parent's. The
//! body of a parallel loop runs in a loop over its chunk, so the values it
//! reads from outside are live across every call in it. (Counting every
//! call of the whole function kept the reverse loops of matmul's gradient
//! top-tested because of allocations in the parent, and its forward loops
//! because of the tape's `realloc`.)
//!
//! # The rewrite
//! The values of `H` used in the loop become parameters of `E`, those used
//! below `X` parameters of `X`, and `H`'s branch passes them. Then every
//! edge into `H` gets its own copy of `H`'s instructions and branch, with
//! `H`'s parameters replaced by the edge's arguments: appended to the
//! predecessor when it ends in a `jump` to `H`, else in a new block the
//! edge goes to. `H` becomes unreachable and leaves the layout. The copy on
//! the entering edge is the guard; the copies on the back edges are the
//! loop's bottom tests, and `E` is the new header. `simplify-cfg` tidies up
//! afterwards; a guard whose test is constant (`for (i = 0; i < 10; ...)`)
//! folds with `sccp`.
//!
//! Every copy runs exactly when `H` would have run, with the same operands,
//! so nothing is computed more or less often, and no instruction moves
//! across a task boundary (the loop has none).
//!
//! Statistics: `loop-rotate.rotated`.

use crate::PassContext;
use crate::{HashMap, HashSet};
use cranelift_entity::SecondaryMap;
use parc_ir::analysis::{FunctionAnalyses, Loop, Task, tapir_loops};
use parc_ir::convergent::Convergence;
use parc_ir::{Block, BlockCall, Function, Inst, InstKind, Intrinsic, Module, Value, ValueDef};

/// The most instructions (besides its branch) a header may have to be
/// copied; LLVM's default threshold.
pub const MAX_HEADER_INSTS: usize = 16;

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let ids = crate::functions_with_loops(module, &mut ctx.analyses);
    if ids.is_empty() {
        return false;
    }
    let mut rotated = 0;
    let mut exhausted = 0;
    let conv = Convergence::of(module);
    let changed = crate::for_each_of(module, &ids, |f| {
        let s = run_function(f, &conv);
        rotated += s.rotated;
        exhausted += u64::from(s.budget_exhausted);
        s.rotated > 0
    });
    ctx.count("loop-rotate.rotated", rotated);
    ctx.count("loop-rotate.budget-exhausted", exhausted);
    changed
}

/// Most work, in blocks and instructions of the function summed over the
/// rounds of [`run_function`] (each round analyses the whole function):
/// far more than any function with ordinary loop nests needs (a round
/// rotates every loop independent of the others), while a nest thousands
/// of loops deep, which rotates one loop of the nest per round, stops
/// there and keeps its other loops top-tested.
pub const WORK_BUDGET: u64 = 4_000_000;

/// What [`run_function`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub rotated: u64,
    pub rounds: u64,
    /// The work budget ran out with loops left to try.
    pub budget_exhausted: bool,
}

/// Rotates the loops of `func`.
///
/// In rounds: each analyses the function, plans every loop (outermost
/// first) and rotates, together, the planned loops whose blocks and edges
/// no other loop rotated in the round touches or reads (a rotation changes
/// the CFG only around its own loop: its header, the header's
/// predecessors, its body's first block, its exit and the blocks reading
/// the header's values). A loop nested in one planned in the round waits
/// for the next round. A rotation makes no loop, so there are at most as
/// many rounds as there are loops now. `conv`: the module's convergent
/// functions.
pub fn run_function(func: &mut Function, conv: &Convergence) -> Stats {
    let mut made: HashSet<Block> = HashSet::default();
    let mut stats = Stats::default();
    let mut work = 0u64;
    let limit = FunctionAnalyses::compute(func).loops.len();
    for _ in 0..limit {
        let size = func
            .layout
            .iter()
            .map(|&b| 1 + func.block_insts(b).len() as u64)
            .sum::<u64>();
        if work + size > WORK_BUDGET {
            stats.budget_exhausted = true;
            break;
        }
        work += size;
        stats.rounds += 1;
        let an = FunctionAnalyses::compute(func);
        let mut round = Round::new(func, &an);
        let mut taken: HashSet<Block> = HashSet::default();
        let mut planned: Vec<Plan> = Vec::new();
        // Loops inside a loop planned in this round (loops come parents
        // first, so a planned loop's descendants are met after it).
        let mut shadowed: HashSet<Loop> = HashSet::default();
        let mut planned_loops: HashSet<Loop> = HashSet::default();
        for lp in an.loops.loops() {
            let ld = an.loops.data(lp);
            if let Some(parent) = ld.parent
                && (shadowed.contains(&parent) || planned_loops.contains(&parent))
            {
                shadowed.insert(lp);
                continue;
            }
            let Some(p) = plan(func, &an, lp, &made, &mut round, conv) else {
                continue;
            };
            let footprint = || {
                ld.blocks
                    .iter()
                    .chain(an.cfg.preds(p.header))
                    .chain([&p.exit])
                    .chain(&p.below_exit)
            };
            if footprint().any(|b| taken.contains(b)) {
                continue;
            }
            taken.extend(footprint());
            planned_loops.insert(lp);
            planned.push(p);
        }
        if planned.is_empty() {
            break;
        }
        let mut layout = LayoutEdits::default();
        for p in planned {
            made.insert(p.body);
            let preds = an.cfg.preds(p.header).to_vec();
            rotate(func, p, &preds, &mut layout);
            stats.rotated += 1;
        }
        layout.apply(func);
    }
    stats
}

/// Changes to the layout, made once per round: rewriting it per rotation
/// cost the length of the layout each time.
#[derive(Default)]
struct LayoutEdits {
    removed: HashSet<Block>,
    /// New blocks to place right after a block, in order.
    after: HashMap<Block, Vec<Block>>,
}

impl LayoutEdits {
    fn apply(self, func: &mut Function) {
        let mut layout = Vec::with_capacity(func.layout.len() + self.after.len());
        for &b in &func.layout {
            if !self.removed.contains(&b) {
                layout.push(b);
            }
            if let Some(new) = self.after.get(&b) {
                layout.extend(new);
            }
        }
        func.layout = layout;
    }
}

/// A loop to rotate and how (see the module doc for the names).
struct Plan {
    header: Block,
    /// `E`.
    body: Block,
    /// `X`.
    exit: Block,
    /// The values of `H` used in the loop, and those used below `X`.
    to_body: Vec<Value>,
    to_exit: Vec<Value>,
    /// The blocks, other than `H`, whose uses of `H`'s values read `E`'s
    /// parameters instead (the loop's), and those that read `X`'s.
    in_loop: HashSet<Block>,
    below_exit: HashSet<Block>,
}

/// True if the backend makes `kind` into a call, which clobbers the
/// caller-saved registers. `atomic_add` is an inline compare-and-swap
/// loop; `worker_id`, in a function that makes no other call, is one call
/// at the entry of the function the backend emits (its value cannot change
/// while a function runs), where nothing but the parameters is live (in a
/// function with other calls it stays in place, and those other calls are
/// seen here). A `detach` is a call of the runtime (spawn, or the whole
/// parallel loop), and so is a `sync`.
fn is_call(kind: &InstKind) -> bool {
    match kind {
        InstKind::Call { .. }
        | InstKind::CallIndirect { .. }
        | InstKind::Launch { .. }
        | InstKind::Detach { .. }
        | InstKind::Sync { .. } => true,
        InstKind::Intrinsic { op, .. } => {
            !(op.is_cheap_arithmetic() || matches!(op, Intrinsic::AtomicAdd | Intrinsic::WorkerId))
        }
        _ => false,
    }
}

/// What one round (one state of the function) answers about values live
/// across calls, per function the backend will make: the function body
/// (`None`) and each task, which Tapir lowering outlines (a call in a task
/// clobbers nothing of its parent's, nor a parent's of the task's).
///
/// Liveness is block-level, with parameters defined at their block's start
/// and branch arguments used by the branch, and no edge out of a
/// `reattach` (the outlined task returns there). After a detach, what is
/// live is what runs after the spawn or the parallel loop reads (the
/// task's values travel in its context). The body of a parallel loop runs
/// in a loop over its chunk, so what it reads from outside (from its
/// context) is live across each of its calls.
///
/// Only the few values crossing a candidate loop's boundary are asked
/// about, so each is answered on its own from its uses, rather than
/// solving liveness for the whole function every round (a function with
/// hundreds of loops rotates them one per round).
struct Round<'a> {
    func: &'a Function,
    an: &'a FunctionAnalyses,
    home: HashMap<Inst, Block>,
    /// Each value with the placed blocks with an instruction reading it,
    /// sorted (a flat list: a map of lists, made afresh every round, spent
    /// its time allocating).
    users: Vec<(Value, Block)>,
    /// A parallel loop's detach: the backend makes the whole loop one
    /// call, after which its exit runs.
    resume: HashMap<Block, Block>,
    /// `resume` backwards.
    resumed_by: HashMap<Block, Vec<Block>>,
    ploop_tasks: HashSet<Task>,
    /// The functions that make some call (any other has nothing live
    /// across a call).
    calling: HashSet<Option<Task>>,
    outside_reads: HashMap<Task, HashSet<Value>>,
    /// Per function, the blocks some point after one of its calls reaches:
    /// a value none of them reads is live across none of its calls, which
    /// spares walking the whole live range of, say, a parameter read
    /// throughout a function whose only call is at its end.
    after_calls: HashMap<Option<Task>, HashSet<Block>>,
    answers: HashMap<(Option<Task>, Value), bool>,
    /// Loops with a `detach`, `reattach` or `sync` among their blocks.
    tapir: cranelift_entity::EntitySet<Loop>,
    /// Per loop, the values that cross its boundary: defined outside it
    /// and read in it, or defined in it and read outside.
    crossing: SecondaryMap<Loop, Vec<Value>>,
}

impl<'a> Round<'a> {
    fn new(func: &'a Function, an: &'a FunctionAnalyses) -> Round<'a> {
        let placed = func.layout.iter().map(|&b| func.block_insts(b).len()).sum();
        let mut home: HashMap<Inst, Block> =
            HashMap::with_capacity_and_hasher(placed, Default::default());
        home.extend(func.placed_insts().map(|(b, i)| (i, b)));
        let mut users = Vec::with_capacity(placed * 2);
        for (b, i) in func.placed_insts() {
            func.inst(i).for_each_operand(|v| users.push((v, b)));
        }
        users.sort_unstable();
        users.dedup();
        let ploops = tapir_loops::find_with(func, an, &tapir_loops::Uses::compute(func));
        let resume: HashMap<Block, Block> =
            ploops.iter().map(|l| (l.detach_block, l.exit)).collect();
        let mut resumed_by: HashMap<Block, Vec<Block>> = HashMap::default();
        for (&from, &to) in &resume {
            resumed_by.entry(to).or_default().push(from);
        }
        let ploop_tasks = ploops
            .iter()
            .filter_map(|l| an.tasks.innermost(l.task))
            .collect();
        let calling = an
            .cfg
            .rpo()
            .iter()
            .filter(|&&b| func.block_insts(b).iter().any(|&i| is_call(func.inst(i))))
            .map(|&b| an.tasks.innermost(b))
            .collect();
        let tapir = tapir_loops::loops_with_tapir(func, an);
        let crossing = crossing_values(func, an, &home, &users);
        Round {
            func,
            an,
            tapir,
            crossing,
            home,
            users,
            resume,
            resumed_by,
            ploop_tasks,
            calling,
            outside_reads: HashMap::default(),
            after_calls: HashMap::default(),
            answers: HashMap::default(),
        }
    }

    fn ends_in_reattach(&self, b: Block) -> bool {
        matches!(
            self.func.terminator(b).map(|t| self.func.inst(t)),
            Some(InstKind::Reattach { .. })
        )
    }

    /// True if `v` is live across some call of `task`'s function.
    fn live_across(&mut self, task: Option<Task>, v: Value) -> bool {
        if !self.calling.contains(&task) {
            return false;
        }
        if let Some(&known) = self.answers.get(&(task, v)) {
            return known;
        }
        let answer = self.read_by_ploop_body(task, v)
            || (self.read_after_a_call(task, v) && self.live_after_a_call(task, v));
        self.answers.insert((task, v), answer);
        answer
    }

    fn read_by_ploop_body(&mut self, task: Option<Task>, v: Value) -> bool {
        let Some(task) = task.filter(|t| self.ploop_tasks.contains(t)) else {
            return false;
        };
        let (func, home) = (self.func, &self.home);
        let tasks = &self.an.tasks;
        self.outside_reads
            .entry(task)
            .or_insert_with(|| {
                let outside = |v: Value| match func.value_def(v) {
                    ValueDef::Param(b, _) => !tasks.contains(task, b),
                    ValueDef::Result(i) => home.get(&i).is_none_or(|&b| !tasks.contains(task, b)),
                };
                let mut set = HashSet::default();
                for &b in tasks.blocks(task) {
                    for &i in func.block_insts(b) {
                        func.inst(i).for_each_operand(|v| {
                            if outside(v) {
                                set.insert(v);
                            }
                        });
                    }
                }
                set
            })
            .contains(&v)
    }

    fn read_after_a_call(&mut self, task: Option<Task>, v: Value) -> bool {
        let (func, an) = (self.func, self.an);
        let resume = &self.resume;
        let reached = self.after_calls.entry(task).or_insert_with(|| {
            let mut reached = HashSet::default();
            let mut work = Vec::new();
            for &b in an.cfg.rpo() {
                if an.tasks.innermost(b) != task {
                    continue;
                }
                for &i in func.block_insts(b) {
                    match func.inst(i) {
                        InstKind::Detach { cont, .. } => {
                            work.push(*resume.get(&b).unwrap_or(cont));
                        }
                        k if is_call(k) => work.push(b),
                        _ => {}
                    }
                }
            }
            while let Some(b) = work.pop() {
                if !an.cfg.is_reachable(b) || !reached.insert(b) {
                    continue;
                }
                let ends_in_reattach = matches!(
                    func.terminator(b).map(|t| func.inst(t)),
                    Some(InstKind::Reattach { .. })
                );
                if !ends_in_reattach {
                    work.extend(an.cfg.succs(b));
                }
            }
            reached
        });
        users_of(&self.users, v)
            .iter()
            .any(|(_, b)| reached.contains(b))
    }

    /// The reachable blocks `v` is live into: back from its uses to its
    /// definition.
    fn live_in(&self, v: Value) -> HashSet<Block> {
        let func = self.func;
        let (param_of, def_block) = match func.value_def(v) {
            ValueDef::Param(b, _) => (Some(b), Some(b)),
            ValueDef::Result(i) => (None, self.home.get(&i).copied()),
        };
        // Read before any definition in the block.
        let exposed = |b: Block| {
            for &i in func.block_insts(b) {
                let mut reads = false;
                func.inst(i).for_each_operand(|u| reads |= u == v);
                if reads {
                    return true;
                }
                if func.result(i) == Some(v) {
                    return false;
                }
            }
            false
        };
        let mut live = HashSet::default();
        let mut work = Vec::new();
        for &(_, b) in users_of(&self.users, v) {
            if self.an.cfg.is_reachable(b) && param_of != Some(b) && exposed(b) && live.insert(b) {
                work.push(b);
            }
        }
        while let Some(b) = work.pop() {
            for &p in self.an.cfg.preds(b) {
                if self.an.cfg.is_reachable(p)
                    && def_block != Some(p)
                    && !self.ends_in_reattach(p)
                    && live.insert(p)
                {
                    work.push(p);
                }
            }
        }
        live
    }

    fn live_after_a_call(&self, task: Option<Task>, v: Value) -> bool {
        let func = self.func;
        let live_in = self.live_in(v);
        // A block where `v` is live after a call reads it after the call,
        // has it live at its end, or resumes where it is live.
        let mut candidates: Vec<Block> = users_of(&self.users, v).iter().map(|&(_, b)| b).collect();
        for &b in &live_in {
            candidates.extend(self.an.cfg.preds(b));
            candidates.extend(self.resumed_by.get(&b).into_iter().flatten());
        }
        let mut seen = HashSet::default();
        candidates.into_iter().any(|b| {
            if !seen.insert(b) || !self.an.cfg.is_reachable(b) || self.an.tasks.innermost(b) != task
            {
                return false;
            }
            let mut live = !self.ends_in_reattach(b)
                && self.an.cfg.succs(b).iter().any(|s| live_in.contains(s));
            for &i in func.block_insts(b).iter().rev() {
                if func.result(i) == Some(v) {
                    live = false;
                }
                match func.inst(i) {
                    InstKind::Detach { cont, .. }
                        if live_in.contains(self.resume.get(&b).unwrap_or(cont)) =>
                    {
                        return true;
                    }
                    InstKind::Detach { .. } => {}
                    k if is_call(k) && live => return true,
                    _ => {}
                }
                func.inst(i).for_each_operand(|u| live |= u == v);
            }
            false
        })
    }
}

/// The values crossing each loop's boundary (see [`Round::crossing`]),
/// found from each value's definition and uses: the loops a value crosses
/// lie on the paths up the loop tree from its uses' and its definition's
/// innermost loops to the first loop containing both, so this costs the
/// number of crossings, where scanning every loop's blocks cost the sum of
/// the loops' sizes (quadratic in the depth of a nest).
fn crossing_values(
    func: &Function,
    an: &FunctionAnalyses,
    home: &HashMap<Inst, Block>,
    users: &[(Value, Block)],
) -> SecondaryMap<Loop, Vec<Value>> {
    let loops = &an.loops;
    let mut crossing: SecondaryMap<Loop, Vec<Value>> = SecondaryMap::new();
    // The last value added to each loop's list.
    let mut last: SecondaryMap<Loop, Option<Value>> = SecondaryMap::new();
    let mut add = |last: &mut SecondaryMap<Loop, Option<Value>>, lp: Loop, v: Value| {
        if last[lp] != Some(v) {
            last[lp] = Some(v);
            crossing[lp].push(v);
        }
    };
    let mut start = 0;
    while start < users.len() {
        let v = users[start].0;
        let end = start + users[start..].partition_point(|&(u, _)| u == v);
        let def = match func.value_def(v) {
            ValueDef::Param(b, _) => Some(b),
            ValueDef::Result(i) => home.get(&i).copied(),
        };
        let in_def = |lp: Loop| def.is_some_and(|d| loops.contains(lp, d));
        // Loops holding the definition but not some use: a prefix of the
        // definition's enclosing loops, walked once.
        let mut up_from_def = def.and_then(|d| loops.innermost(d));
        for &(_, u) in &users[start..end] {
            // Loops holding this use but not the definition.
            let mut cur = loops.innermost(u);
            while let Some(lp) = cur {
                if in_def(lp) || last[lp] == Some(v) {
                    break;
                }
                add(&mut last, lp, v);
                cur = loops.data(lp).parent;
            }
            while let Some(lp) = up_from_def {
                if loops.contains(lp, u) {
                    break;
                }
                add(&mut last, lp, v);
                up_from_def = loops.data(lp).parent;
            }
        }
        start = end;
    }
    crossing
}

fn users_of(users: &[(Value, Block)], v: Value) -> &[(Value, Block)] {
    let start = users.partition_point(|&(u, _)| u < v);
    let end = start + users[start..].partition_point(|&(u, _)| u == v);
    &users[start..end]
}

fn plan(
    func: &Function,
    an: &FunctionAnalyses,
    lp: Loop,
    made: &HashSet<Block>,
    round: &mut Round,
    conv: &Convergence,
) -> Option<Plan> {
    let data = an.loops.data(lp);
    let header = data.header;
    if made.contains(&header) {
        return None;
    }
    let term = |b: Block| func.terminator(b).map(|t| func.inst(t));
    if round.tapir.contains(lp) {
        return None;
    }
    let preds = an.cfg.preds(header);
    if preds
        .iter()
        .any(|&p| !matches!(term(p), Some(InstKind::Jump(_) | InstKind::Brif { .. })))
    {
        return None;
    }
    let Some(InstKind::Brif {
        then_dest,
        else_dest,
        ..
    }) = term(header)
    else {
        return None;
    };
    let (body, exit) = match (
        data.contains(then_dest.block),
        data.contains(else_dest.block),
    ) {
        (true, false) => (then_dest.block, else_dest.block),
        (false, true) => (else_dest.block, then_dest.block),
        _ => return None,
    };
    if body == header || an.cfg.preds(body) != [header] || data.latches.len() != 1 {
        return None;
    }
    let insts = func.block_insts(header);
    if insts.len() > MAX_HEADER_INSTS + 1
        || insts[..insts.len() - 1].iter().any(|&i| {
            let k = func.inst(i);
            k.has_side_effects() || matches!(k, InstKind::Alloca { .. }) || conv.is_convergent(k)
        })
    {
        return None;
    }

    // Where the header's values are used.
    let defined: HashSet<Value> = func
        .block_params(header)
        .iter()
        .copied()
        .chain(insts.iter().filter_map(|&i| func.result(i)))
        .collect();
    let exit_alone = an.cfg.preds(exit) == [header];
    let (mut to_body, mut to_exit) = (HashSet::default(), HashSet::default());
    let (mut in_loop, mut below_exit) = (HashSet::default(), HashSet::default());
    for &v in &defined {
        for &(_, b) in users_of(&round.users, v) {
            if b == header {
                continue;
            }
            if data.contains(b) {
                to_body.insert(v);
                in_loop.insert(b);
            } else if exit_alone && an.domtree.dominates(exit, b) {
                to_exit.insert(v);
                below_exit.insert(b);
            } else {
                return None;
            }
        }
    }

    // Last, as the dearest test: what the loop reads from outside it and
    // what it leaves behind.
    let task = an.tasks.innermost(header);
    if round.crossing[lp]
        .clone()
        .into_iter()
        .any(|v| round.live_across(task, v))
    {
        return None;
    }

    // In definition order, so that the new parameters read in order.
    let order = |set: HashSet<Value>| {
        let mut vs: Vec<Value> = set.into_iter().collect();
        vs.sort_by_key(|&v| match func.value_def(v) {
            ValueDef::Param(_, n) => (0, n as usize),
            ValueDef::Result(i) => (1, insts.iter().position(|&x| x == i).unwrap_or(0)),
        });
        vs
    };
    Some(Plan {
        header,
        body,
        exit,
        to_body: order(to_body),
        to_exit: order(to_exit),
        in_loop,
        below_exit,
    })
}

/// Rotates the loop of `plan`, whose header's distinct predecessors are
/// `preds` (in layout order); the header leaves the layout and the new
/// blocks enter it through `layout`.
fn rotate(func: &mut Function, plan: Plan, preds: &[Block], layout: &mut LayoutEdits) {
    let header = plan.header;
    // The header's values become parameters of `E` and `X`.
    let mut for_body = HashMap::default();
    for &v in &plan.to_body {
        let p = func.append_block_param(plan.body, func.value_type(v));
        for_body.insert(v, p);
    }
    let mut for_exit = HashMap::default();
    for &v in &plan.to_exit {
        let p = func.append_block_param(plan.exit, func.value_type(v));
        for_exit.insert(v, p);
    }
    for (blocks, map) in [(&plan.in_loop, &for_body), (&plan.below_exit, &for_exit)] {
        for &b in blocks {
            for &i in &func.blocks[b].insts {
                func.insts[i]
                    .kind
                    .map_operands(|v| map.get(&v).copied().unwrap_or(v));
            }
        }
    }
    let test = func.terminator(header).expect("planned on its brif");
    for call in func.inst_mut(test).block_calls_mut() {
        if call.block == plan.body {
            call.args.extend(&plan.to_body);
        } else if call.block == plan.exit {
            call.args.extend(&plan.to_exit);
        }
    }

    // A copy of the header on every edge into it.
    let params = func.block_params(header).to_vec();
    let insts = func.block_insts(header).to_vec();
    for &pred in preds {
        let t = func
            .terminator(pred)
            .expect("a predecessor ends in a branch");
        let calls: Vec<BlockCall> = func
            .inst(t)
            .block_calls()
            .into_iter()
            .filter(|c| c.block == header)
            .cloned()
            .collect();
        if let InstKind::Jump(call) = func.inst(t).clone() {
            func.blocks[pred].insts.pop();
            copy_header(func, pred, &params, &call.args, &insts);
            continue;
        }
        let mut copies = Vec::new();
        for call in &calls {
            let block = func.create_block();
            layout.after.entry(pred).or_default().push(block);
            copy_header(func, block, &params, &call.args, &insts);
            copies.push(block);
        }
        let mut copies = copies.into_iter();
        for call in func.inst_mut(t).block_calls_mut() {
            if call.block == header {
                let block = copies.next().expect("one copy per edge");
                *call = BlockCall::to(block);
            }
        }
    }
    layout.removed.insert(header);
}

/// Appends to `block` a copy of the header's instructions `insts` (its
/// branch last), reading `args` for the header's `params`.
fn copy_header(
    func: &mut Function,
    block: Block,
    params: &[Value],
    args: &[Value],
    insts: &[Inst],
) {
    let mut map: HashMap<Value, Value> = params.iter().copied().zip(args.iter().copied()).collect();
    for &i in insts {
        let mut kind = func.inst(i).clone();
        kind.map_operands(|v| map.get(&v).copied().unwrap_or(v));
        let ty = func.result(i).map(|r| func.value_type(r));
        let copy = func.append_inst(block, kind, ty);
        func.locs[copy] = func.locs[i];
        if let (Some(old), Some(new)) = (func.result(i), func.result(copy)) {
            map.insert(old, new);
        }
    }
}

#[cfg(test)]
mod tests {
    use parc_ir::convergent::Convergence;
    use parc_ir::interp::{Config, Interp, Val};
    use parc_ir::read::read_module;
    use parc_ir::{FuncId, Module};

    /// Loops of several shapes over `(a, b)`: top-tested counting, a
    /// header computing more than its test (used in the body and after the
    /// loop), a `continue` (two latches: left alone) and a `break` to a
    /// second exit, nesting, and a guard that is false at once.
    const PROGRAMS: &str = "
        func @count(i32, i32) -> i32 {
        block0(v0: i32, v1: i32):
            v2 = iconst.i32 1
            jump block1(v0, v0)
        block1(v3: i32, v4: i32):
            v5 = icmp slt v3, v1
            brif v5, block2, block3
        block2:
            v6 = imul v4, v3
            v7 = iadd v6, v2
            v8 = iadd v3, v2
            jump block1(v8, v7)
        block3:
            return v4
        }

        func @header_values(i32, i32) -> i32 {
        block0(v0: i32, v1: i32):
            v2 = iconst.i32 3
            v3 = iconst.i32 1
            jump block1(v0)
        block1(v4: i32):
            v5 = imul v4, v2
            v6 = icmp slt v5, v1
            brif v6, block2, block3
        block2:
            v7 = iadd v4, v5
            v8 = iadd v7, v3
            jump block1(v8)
        block3:
            v9 = iadd v5, v4
            return v9
        }

        func @continue_break(i32, i32) -> i32 {
        block0(v0: i32, v1: i32):
            v2 = iconst.i32 1
            v3 = iconst.i32 7
            v4 = iconst.i32 0
            jump block1(v4, v0)
        block1(v5: i32, v6: i32):
            v7 = icmp slt v5, v1
            brif v7, block2, block5(v6)
        block2:
            v8 = iadd v5, v2
            v9 = srem v5, v3
            v10 = icmp eq v9, v4
            brif v10, block1(v8, v6), block3
        block3:
            v11 = iadd v6, v5
            v12 = icmp sgt v11, v3
            v13 = imul v11, v3
            brif v12, block5(v13), block1(v8, v11)
        block5(v14: i32):
            return v14
        }

        func @nested(i32, i32) -> i32 {
        block0(v0: i32, v1: i32):
            v2 = iconst.i32 1
            v3 = iconst.i32 0
            jump block1(v3, v3)
        block1(v4: i32, v5: i32):
            v6 = icmp slt v4, v0
            brif v6, block2, block6
        block2:
            jump block3(v3, v5)
        block3(v7: i32, v8: i32):
            v9 = icmp slt v7, v1
            brif v9, block4, block5
        block4:
            v10 = imul v4, v7
            v11 = iadd v8, v10
            v12 = iadd v7, v2
            jump block3(v12, v11)
        block5:
            v13 = iadd v4, v2
            jump block1(v13, v8)
        block6:
            return v5
        }
    ";

    fn run(m: &Module, func: FuncId, a: i64, b: i64) -> Option<i64> {
        let mut it = Interp::new(
            m,
            Config {
                max_steps: Some(100_000),
                ..Config::default()
            },
        )
        .ok()?;
        it.call(func, &[Val::I(a), Val::I(b)])
            .ok()?
            .value()?
            .as_i64()
    }

    #[test]
    fn rotated_loops_compute_the_same() {
        let before = read_module(PROGRAMS).unwrap();
        let mut after = before.clone();
        let mut rotated = 0;
        for f in after.funcs.values_mut() {
            rotated += super::run_function(f, &Convergence::default()).rotated;
        }
        assert_eq!(rotated, 4, "{}", parc_ir::print::print_module(&after));
        parc_ir::verify::verify_module(&after).unwrap();
        for (id, f) in before.funcs.iter() {
            for a in [-3, 0, 1, 2, 5, 20] {
                for b in [-1, 0, 1, 3, 10, 40] {
                    assert_eq!(
                        run(&after, id, a, b),
                        run(&before, id, a, b),
                        "@{} a={a} b={b}",
                        f.name
                    );
                }
            }
        }
    }
}
