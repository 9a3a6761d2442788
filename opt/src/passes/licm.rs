//! `licm`: loop-invariant code motion, with Tapir's parallel-loop rule.
//!
//! Loops are visited innermost first (what an inner loop hoists into its
//! preheader, inside the outer loop, may then leave the outer loop too).
//! Every loop first gets a **preheader**: a block outside the loop whose
//! only successor is the header, and the header's only predecessor from
//! outside. Where there is none, one is made: a block taking the header's
//! parameters, entered by every outside edge to the header (a loop whose
//! header is entered by a `detach`, `reattach` or `sync` edge is left
//! alone: those targets take no parameters and pair with other edges).
//!
//! # What moves
//! An instruction of the loop whose operands are all *invariant* (defined
//! outside the loop, or by an instruction already hoisted) moves to the
//! preheader, in order, when one of these holds:
//!
//! 1. **Pure**: no memory access, no effect, cannot trap (arithmetic,
//!    compares, casts, `select`, `ptradd`, constants, addresses, pure
//!    intrinsics; a division by a non-zero constant). It is safe to run
//!    even if the loop body never runs.
//! 2. **Loads and read-only calls** (calls of functions that
//!    [`modref`](crate::analysis::modref) finds read-only: no visible
//!    write, no allocation, no side effect), when the value is the same in
//!    every iteration (the *memory rule*) and it is safe to run it before
//!    the loop (the *position rule*).
//! 3. **Divisions that may trap**, under the position rule alone.
//!
//! Never moved: stores and every other instruction that writes memory or
//! has an effect, `alloca`s (an `alloca` in a loop is a fresh object per
//! iteration, and one in a task is that task's private object),
//! terminators, and anything with a loop-variant operand.
//!
//! # The memory rule
//! Let `R` be what the instruction reads (its address and size; for a call,
//! the memory its pointer arguments reach, plus any memory if the callee
//! reads through other pointers) and let the loop's *writes* be every
//! instruction in it that may write memory (stores, `memcpy`/`memset`/
//! `free`, writing calls, atomics, barriers, launches; task blocks are loop
//! blocks, so writes inside tasks count). A write *conflicts* if alias
//! analysis cannot prove it disjoint from `R`.
//!
//! - **Serial loops**: no write of the loop conflicts, and the loop holds
//!   no `sync` at all. (A sync in the loop may wait for a task, spawned
//!   before the loop or in an earlier iteration, that writes `R`: the value
//!   read after it may differ from the one at the preheader. A read is
//!   never moved across a sync.)
//!
//! - **Parallel loops — Tapir's rule.** Suppose every iteration that
//!   passes the header's test runs a detach `D` whose task `T` is part of
//!   the loop, the region of `D` is synced nowhere in the loop, and the
//!   loop holds no other sync outside `T`. Then the tasks of all iterations
//!   are *logically parallel*: task `k` runs in parallel with the
//!   continuation of its detach, which contains every later iteration, and
//!   nothing in the loop waits for it. ParC programs are race-free by
//!   contract (LANGUAGE.md: reading a location that a logically parallel
//!   strand writes is a determinacy race, undefined behaviour). Take an
//!   instruction `X` in `T` that runs, in its iteration, before any write
//!   of that iteration that may conflict with it: `X` is on `T`'s
//!   straight-line start (see the position rule) and every conflicting
//!   write of the loop lies in `T`, after `X` on that start or off it. In
//!   iteration `k`, then, nothing has written `R` since the loop began:
//!   not task `j != k` (that would race with `X` in task `k`), not task
//!   `k` before `X` (there is no such write), not the loop's own control
//!   code (conflicting writes are all in `T`). So `X` reads in every
//!   iteration what it would read before the loop, and it is hoisted —
//!   **even though the loop writes memory that may alias `R`**. This is
//!   what turns `parallel_for (i) out[i] = in[i] / mag(in, n);` from
//!   `O(n²)` into `O(n)`: `out` and `in` may alias, so the serial rule
//!   refuses, but a write to `out[j]` that `mag` in another iteration
//!   reads would be a race. In a serial loop the same call stays (a
//!   filetest shows both). A call placed after a conflicting store in its
//!   iteration's task stays too: that store happens before it.
//!
//! # The position rule
//! A load may fault and a call may fault or never return, so neither may
//! run where the original would not have. The *straight-line start* of a
//! block is the block followed by the blocks it reaches through `jump`s to
//! blocks with no other predecessor and through `detach`es into their
//! tasks (a task runs whenever its detach does, in the serial
//! projection). An instruction on a straight-line start, all of whose
//! predecessors there always return and show nothing (no call, `exit`,
//! barrier, launch, `printf` or division that may trap; a faulting load or
//! store is undefined behaviour anyway), runs whenever the start's first
//! block runs, and if it faults or never returns there, it would have at
//! its old place too, with nothing visible happening in between.
//! - On the header's straight-line start: it runs whenever the loop is
//!   entered; it moves to the preheader.
//! - On the straight-line start of the header's in-loop successor, when
//!   the header is exactly `c = icmp a, b; brif c, body, exit`: it runs
//!   whenever the loop runs at least once. It moves to a **guard** block
//!   that only runs then: the preheader evaluates the header's test on the
//!   loop's initial values and branches to the guard (which jumps to the
//!   header) or straight to the exit (with the exit's arguments evaluated
//!   on the initial values). The guard is made only if no value of the loop
//!   is used outside it (the exit no longer sees the header's values on
//!   that path). The header keeps only its compare and branch, the detach
//!   block only its detach, and the task receives the hoisted value as an
//!   SSA value defined before the detach — so the CPU backend still
//!   recognizes the parallel loop (`parir/src/analysis/tapir_loops.rs`).
//! - A load from an address inside an `alloca` or a global (in bounds)
//!   cannot fault; under the serial memory rule it moves to the preheader
//!   from anywhere in the loop.
//!
//! Nothing is moved into a task, and no memory operation crosses a sync:
//! the preheader and guard are outside the loop, in the same task as its
//! header, and the serial rule refuses loops with a sync.

use crate::PassContext;
use crate::analysis::alias::{AliasAnalysis, GlobalFacts, type_size};
use crate::analysis::modref::{MemSet, ModRefAnalysis, inst_effects, may_overlap};
use crate::{HashMap, HashSet};
use parc_ir::analysis::{FunctionAnalyses, Loop, LoopData, Task};
use parc_ir::{BinaryOp, Block, Function, Inst, InstKind, Intrinsic, Module, Value, ValueDef};
use std::cell::OnceCell;

mod preheader;
use preheader::insert_preheader;

/// What one run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub pure: u64,
    pub loads: u64,
    pub calls: u64,
    /// Loads and calls hoisted by the parallel-loop rule (also counted in
    /// `loads`/`calls`).
    pub parallel: u64,
    pub preheaders: u64,
    pub guards: u64,
    /// A work budget ran out (see [`SCAN_BUDGET`]): loads or calls that
    /// might have moved stayed.
    pub budget_exhausted: bool,
}

impl Stats {
    fn changed(self) -> bool {
        self.pure + self.loads + self.calls + self.preheaders + self.guards > 0
    }

    fn add(&mut self, o: Stats) {
        self.pure += o.pure;
        self.loads += o.loads;
        self.calls += o.calls;
        self.parallel += o.parallel;
        self.preheaders += o.preheaders;
        self.guards += o.guards;
        self.budget_exhausted |= o.budget_exhausted;
    }
}

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let ids = crate::functions_with_loops(module, &mut ctx.analyses);
    if ids.is_empty() {
        return false;
    }
    let modref = ModRefAnalysis::compute(module);
    let globals = GlobalFacts::new(module);
    let mut stats = Stats::default();
    let changed = crate::for_each_of(module, &ids, |f| {
        let s = run_function(f, &globals, &modref);
        stats.add(s);
        s.changed()
    });
    ctx.count("licm.pure", stats.pure);
    ctx.count("licm.loads", stats.loads);
    ctx.count("licm.calls", stats.calls);
    ctx.count("licm.parallel", stats.parallel);
    ctx.count("licm.preheaders", stats.preheaders);
    ctx.count("licm.guards", stats.guards);
    ctx.count("licm.budget-exhausted", u64::from(stats.budget_exhausted));
    changed
}

/// Most blocks scanned for the writes of loops (summed over the loops of
/// one function, each scan covering the loop's inner loops), and most alias
/// queries of loads and calls against those writes: beyond them, loads and
/// calls stay where they are (pure code still moves). Far above what real
/// loop nests need; they bound the quadratic cost of a nest thousands of
/// loops deep with memory accesses at every level.
const SCAN_BUDGET: u64 = 2_000_000;
const QUERY_BUDGET: u64 = 2_000_000;

/// Most blocks of analyses made afresh after guards: a guard changes the
/// loops enclosing its own, which are analysed again before their turn.
/// Beyond this budget no more guards are made (what needs one stays).
const REANALYSIS_BUDGET: u64 = 2_000_000;

/// Work left to one function's LICM (see the budgets above).
struct Budget {
    scan: u64,
    query: u64,
    reanalysis: u64,
    /// A budget ran out: something may have stayed that could have moved.
    exhausted: bool,
}

/// Runs LICM on one function.
pub fn run_function(func: &mut Function, globals: &GlobalFacts, modref: &ModRefAnalysis) -> Stats {
    let mut stats = Stats::default();
    // Preheaders first. A preheader adds a block outside its loop and
    // retargets the edges into its header, which changes no other loop's
    // header, latches or outside predecessors: one analysis serves them all.
    let an = FunctionAnalyses::compute(func);
    let missing: Vec<Block> = an
        .loops
        .loops()
        .map(|l| an.loops.data(l))
        .filter(|d| d.preheader.is_none())
        .map(|d| d.header)
        .collect();
    for h in missing {
        if insert_preheader(func, &an, h) {
            stats.preheaders += 1;
        }
    }

    let mut an = FunctionAnalyses::compute(func);
    let mut aa = modref.alias_analysis(func, globals);
    let mut headers: Vec<(u32, Block)> = an
        .loops
        .loops()
        .map(|l| (an.loops.data(l).depth, an.loops.data(l).header))
        .collect();
    headers.sort_by_key(|&(depth, _)| std::cmp::Reverse(depth));
    // Kept up to date by every hoist and guard, for all the loops: built
    // per loop, they made a function with thousands of loops quadratic.
    let mut places = Places::new(func);
    let mut budget = Budget {
        scan: SCAN_BUDGET,
        query: QUERY_BUDGET,
        reanalysis: REANALYSIS_BUDGET,
        exhausted: false,
    };
    // Headers of the loops that got a guard since the analyses were made.
    // A guard adds a block and an edge around its loop, which changes only
    // the loops enclosing it: the analyses are made afresh before one of
    // those, not after every guard.
    let mut guarded: Vec<Block> = Vec::new();
    for (_, h) in headers {
        let Some(lp) = an.loops.loop_headed_by(h) else {
            continue;
        };
        let ld = an.loops.data(lp);
        if guarded.iter().any(|&g| ld.contains(g)) {
            an = FunctionAnalyses::compute(func);
            aa = modref.alias_analysis(func, globals);
            guarded.clear();
            let cost = func.layout.len() as u64;
            budget.reanalysis = budget.reanalysis.saturating_sub(cost);
        }
        let Some(lp) = an.loops.loop_headed_by(h) else {
            continue;
        };
        if an.loops.data(lp).preheader.is_none() {
            continue;
        }
        let mut l = LoopLicm::new(&an, &aa, modref, lp, places, &mut budget);
        l.run(func);
        if l.stats.guards > 0 {
            guarded.push(h);
        }
        stats.add(l.stats);
        places = l.places;
    }
    stats.budget_exhausted = budget.exhausted;
    stats
}

/// Where a hoisted instruction goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dest {
    /// The preheader: runs whenever the loop is entered.
    Preheader,
    /// The guard: runs when the loop runs at least once.
    Guard,
}

/// Which memory rule allowed a hoist.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    Serial,
    Parallel,
}

/// A straight-line start (see the module doc) and what it implies.
struct Chain {
    blocks: Vec<Block>,
    dest: Dest,
    /// The first detach on the chain whose task qualifies for the
    /// parallel rule: its block and task.
    parallel: Option<(Block, Task)>,
}

/// Where each placed instruction is and who uses each value, across the
/// loops of one function.
struct Places {
    /// Current block of every placed instruction.
    inst_block: HashMap<Inst, Block>,
    /// The instructions that use each value (possibly listed twice, and
    /// possibly no longer using it: check before relying on one).
    users: HashMap<Value, Vec<Inst>>,
}

impl Places {
    fn new(func: &Function) -> Places {
        let mut inst_block = HashMap::default();
        let mut users: HashMap<Value, Vec<Inst>> = HashMap::default();
        for (b, i) in func.placed_insts() {
            inst_block.insert(i, b);
            func.inst(i)
                .for_each_operand(|v| users.entry(v).or_default().push(i));
        }
        Places { inst_block, users }
    }

    /// Records `inst`, placed in `block`, and its operands' uses.
    fn add(&mut self, func: &Function, inst: Inst, block: Block) {
        self.inst_block.insert(inst, block);
        func.inst(inst)
            .for_each_operand(|v| self.users.entry(v).or_default().push(inst));
    }
}

struct LoopLicm<'a> {
    an: &'a FunctionAnalyses,
    aa: &'a AliasAnalysis,
    modref: &'a ModRefAnalysis,
    lp: Loop,
    ld: &'a LoopData,
    preheader: Block,
    guard: Option<Block>,
    guard_refused: bool,
    places: Places,
    /// The loop's writes and syncs, scanned when first needed.
    memory: OnceCell<Option<Memory>>,
    chains: Vec<Chain>,
    /// Instructions hoisted out of the block being visited, removed from
    /// it when the visit ends.
    moved: HashSet<Inst>,
    budget: &'a mut Budget,
    stats: Stats,
}

/// What the memory rule needs to know of a loop.
struct Memory {
    /// The loop's writes: instruction, block, what it writes.
    writes: Vec<(Inst, Block, MemSet)>,
    /// Blocks of the loop ending in a sync.
    syncs: Vec<Block>,
}

impl<'a> LoopLicm<'a> {
    fn new(
        an: &'a FunctionAnalyses,
        aa: &'a AliasAnalysis,
        modref: &'a ModRefAnalysis,
        lp: Loop,
        places: Places,
        budget: &'a mut Budget,
    ) -> LoopLicm<'a> {
        let ld = an.loops.data(lp);
        LoopLicm {
            an,
            aa,
            modref,
            lp,
            ld,
            preheader: ld.preheader.expect("checked by the caller"),
            guard: None,
            guard_refused: false,
            places,
            memory: OnceCell::new(),
            chains: Vec::new(),
            moved: HashSet::default(),
            budget,
            stats: Stats::default(),
        }
    }

    /// The loop's writes and syncs; `None` if scanning them would overrun
    /// the budget (then no load or call moves).
    fn memory(&self, func: &Function) -> Option<&Memory> {
        self.memory
            .get_or_init(|| {
                // The budget is charged in `run`, which knows the result.
                let blocks = self.ld.blocks.len() as u64;
                if blocks > self.budget.scan {
                    return None;
                }
                let mut writes = Vec::new();
                let mut syncs = Vec::new();
                for &b in &self.ld.blocks {
                    for &i in func.block_insts(b) {
                        let e = inst_effects(self.modref, func, i);
                        if !e.writes.is_empty() {
                            writes.push((i, b, e.writes));
                        }
                        if matches!(func.inst(i), InstKind::Sync { .. }) {
                            syncs.push(b);
                        }
                    }
                }
                Some(Memory { writes, syncs })
            })
            .as_ref()
    }

    fn chains(&mut self, func: &Function) {
        let ld = self.ld;
        let header = ld.header;
        let mut chains = vec![self.chain(func, header, Dest::Preheader)];
        if let Some(t) = func.terminator(header)
            && let InstKind::Brif {
                then_dest,
                else_dest,
                ..
            } = func.inst(t)
            && ld.contains(then_dest.block)
            && !ld.contains(else_dest.block)
            && self.an.cfg.preds(then_dest.block) == [header]
        {
            chains.push(self.chain(func, then_dest.block, Dest::Guard));
        }
        self.chains = chains;
    }

    /// The straight-line start of `start` within the loop.
    fn chain(&self, func: &Function, start: Block, dest: Dest) -> Chain {
        let mut blocks = vec![start];
        let mut parallel = None;
        let mut cur = start;
        while let Some(t) = func.terminator(cur) {
            let next = match func.inst(t) {
                InstKind::Jump(d) => d.block,
                InstKind::Detach { task, .. } => {
                    if parallel.is_none() {
                        parallel = self
                            .an
                            .tasks
                            .task_of_detach(cur)
                            .filter(|&tk| self.parallel_task(func, tk))
                            .map(|tk| (cur, tk));
                    }
                    *task
                }
                _ => break,
            };
            if !self.ld.contains(next)
                || next == self.ld.header
                || self.an.cfg.preds(next) != [cur]
                || blocks.contains(&next)
            {
                break;
            }
            blocks.push(next);
            cur = next;
        }
        Chain {
            blocks,
            dest,
            parallel,
        }
    }

    /// Does the task qualify for the parallel rule: part of the loop, its
    /// region synced nowhere in the loop, and no other sync of the loop
    /// outside it?
    fn parallel_task(&self, func: &Function, task: Task) -> bool {
        let td = self.an.tasks.data(task);
        let Some(memory) = self.memory(func) else {
            return false;
        };
        self.an
            .tasks
            .blocks(task)
            .iter()
            .all(|&b| self.ld.contains(b))
            && self
                .an
                .tasks
                .region(td.region)
                .syncs
                .iter()
                .all(|&b| !self.ld.contains(b))
            && memory
                .syncs
                .iter()
                .all(|&b| self.an.tasks.contains(task, b))
    }

    fn is_invariant(&self, func: &Function, v: Value) -> bool {
        let b = match func.value_def(v) {
            ValueDef::Param(b, _) => Some(b),
            ValueDef::Result(i) => self.places.inst_block.get(&i).copied(),
        };
        b.is_some_and(|b| !self.ld.contains(b))
    }

    /// Visits the loop's own blocks (those of no inner loop: what an inner
    /// loop could hoist it already has, into its preheader, one of these)
    /// until nothing more moves.
    fn run(&mut self, func: &mut Function) {
        self.chains(func);
        let own = self.an.loops.own_blocks(self.lp);
        loop {
            let mut progress = false;
            for &b in own {
                for inst in func.blocks[b].insts.clone() {
                    if func.inst(inst).is_terminator() {
                        continue;
                    }
                    let mut invariant = true;
                    func.inst(inst)
                        .for_each_operand(|v| invariant &= self.is_invariant(func, v));
                    if !invariant {
                        continue;
                    }
                    if let Some(dest) = self.decide(func, inst, b) {
                        self.hoist(func, inst, dest);
                        progress = true;
                    }
                }
                if !self.moved.is_empty() {
                    let moved = std::mem::take(&mut self.moved);
                    func.blocks[b].insts.retain(|i| !moved.contains(i));
                }
            }
            if !progress {
                break;
            }
        }
        if let Some(Some(_)) = self.memory.get() {
            self.budget.scan = self.budget.scan.saturating_sub(self.ld.blocks.len() as u64);
        } else if self.memory.get().is_some() {
            self.budget.exhausted = true;
        }
    }

    /// Where `inst` (in block `b`, with invariant operands) may go, if
    /// anywhere; counts it.
    fn decide(&mut self, func: &mut Function, inst: Inst, b: Block) -> Option<Dest> {
        let kind = func.inst(inst).clone();
        if is_pure(func, &kind) {
            let dest = self.dest_for_operands(func, inst, Dest::Preheader)?;
            self.stats.pure += 1;
            return Some(dest);
        }
        match kind {
            InstKind::Binary(op, ..) if is_division(op) => {
                let (dest, _) = self.position(func, inst, b)?;
                let dest = self.dest_for_operands(func, inst, dest)?;
                self.stats.pure += 1;
                Some(dest)
            }
            InstKind::Load(p) => {
                let reads = inst_effects(self.modref, func, inst).reads;
                let rule = self.memory_rule(func, inst, b, &reads)?;
                // A load that cannot fault needs no position; otherwise it
                // must be one that runs anyway.
                let ty = func.value_type(func.result(inst)?);
                let dest =
                    if rule == Rule::Serial && self.aa.is_dereferenceable(func, p, type_size(ty)) {
                        Dest::Preheader
                    } else {
                        self.position(func, inst, b)?.0
                    };
                let dest = self.dest_for_operands(func, inst, dest)?;
                self.stats.loads += 1;
                self.stats.parallel += u64::from(rule == Rule::Parallel);
                Some(dest)
            }
            InstKind::Call { func: callee, .. }
                if self.modref.is_read_only(callee) && func.result(inst).is_some() =>
            {
                let reads = inst_effects(self.modref, func, inst).reads;
                let rule = self.memory_rule(func, inst, b, &reads)?;
                let (dest, _) = self.position(func, inst, b)?;
                let dest = self.dest_for_operands(func, inst, dest)?;
                self.stats.calls += 1;
                self.stats.parallel += u64::from(rule == Rule::Parallel);
                Some(dest)
            }
            _ => None,
        }
    }

    /// `want`, or the guard if an operand lives there (creating the guard
    /// if `want` is the guard and it does not exist yet).
    fn dest_for_operands(&mut self, func: &mut Function, inst: Inst, want: Dest) -> Option<Dest> {
        let mut in_guard = false;
        if let Some(g) = self.guard {
            func.inst(inst).for_each_operand(|v| {
                if let ValueDef::Result(i) = func.value_def(v) {
                    in_guard |= self.places.inst_block.get(&i) == Some(&g);
                }
            });
        }
        if want == Dest::Guard || in_guard {
            self.ensure_guard(func)?;
            return Some(Dest::Guard);
        }
        Some(Dest::Preheader)
    }

    /// The chain `inst` is on and whether everything before it there
    /// always returns: where it could go by the position rule.
    fn position(&self, func: &Function, inst: Inst, b: Block) -> Option<(Dest, usize)> {
        for (ci, chain) in self.chains.iter().enumerate() {
            if !chain.blocks.contains(&b) {
                continue;
            }
            for &cb in &chain.blocks {
                for &i in func.block_insts(cb) {
                    if self.moved.contains(&i) {
                        continue;
                    }
                    if i == inst {
                        return Some((chain.dest, ci));
                    }
                    if !always_returns(func, func.inst(i)) {
                        return None;
                    }
                }
            }
        }
        None
    }

    /// Does `inst` (reading `reads`) give the same value in every
    /// iteration, and by which rule?
    fn memory_rule(
        &mut self,
        func: &Function,
        inst: Inst,
        b: Block,
        reads: &MemSet,
    ) -> Option<Rule> {
        let writes = self.memory(func).map_or(0, |m| m.writes.len() as u64);
        if writes > self.budget.query {
            self.budget.exhausted = true;
            return None;
        }
        self.budget.query -= writes;
        let memory = self.memory(func)?;
        let conflicts: Vec<&(Inst, Block, MemSet)> = memory
            .writes
            .iter()
            .filter(|(_, _, w)| may_overlap(self.aa, func, reads, w))
            .collect();
        if memory.syncs.is_empty() && conflicts.is_empty() {
            return Some(Rule::Serial);
        }
        // The parallel rule: `inst` on a chain after a qualifying detach,
        // every conflicting write in that task and not before `inst` on the
        // chain.
        let chain = self.chains.iter().find(|c| c.blocks.contains(&b))?;
        let (_, task) = chain.parallel?;
        if !self.an.tasks.contains(task, b) {
            return None;
        }
        let mut before: HashSet<Inst> = HashSet::default();
        'walk: for &cb in &chain.blocks {
            for &i in func.block_insts(cb) {
                if self.moved.contains(&i) {
                    continue;
                }
                if i == inst {
                    break 'walk;
                }
                before.insert(i);
            }
        }
        let ok = conflicts
            .iter()
            .all(|(w, wb, _)| self.an.tasks.contains(task, *wb) && !before.contains(w));
        ok.then_some(Rule::Parallel)
    }

    /// Moves `inst` to `dest`; code that is pure and whose operands are
    /// defined outside enclosing loops too goes straight to the preheader
    /// of the outermost of them (where hoisting it one loop at a time would
    /// take it, moving it once per loop of a deep nest).
    fn hoist(&mut self, func: &mut Function, inst: Inst, dest: Dest) {
        let to = match dest {
            Dest::Preheader if is_pure(func, func.inst(inst)) => {
                self.outermost_preheader(func, inst)
            }
            Dest::Preheader => self.preheader,
            Dest::Guard => self.guard.expect("made by dest_for_operands"),
        };
        self.moved.insert(inst);
        let insts = &mut func.blocks[to].insts;
        let at = insts.len().saturating_sub(1);
        insts.insert(at, inst);
        self.places.inst_block.insert(inst, to);
    }

    /// The preheader of the outermost loop enclosing this one, through
    /// loops that all have preheaders, outside which every operand of
    /// `inst` is defined.
    fn outermost_preheader(&self, func: &Function, inst: Inst) -> Block {
        let loops = &self.an.loops;
        let mut to = self.preheader;
        let mut cur = self.ld.parent;
        while let Some(outer) = cur {
            let od = loops.data(outer);
            let Some(ph) = od.preheader else { break };
            let mut outside = true;
            func.inst(inst).for_each_operand(|v| {
                let b = match func.value_def(v) {
                    ValueDef::Param(b, _) => Some(b),
                    ValueDef::Result(i) => self.places.inst_block.get(&i).copied(),
                };
                outside &= b.is_some_and(|b| !od.contains(b));
            });
            if !outside {
                break;
            }
            to = ph;
            cur = od.parent;
        }
        to
    }
}

/// Code that may run anywhere its operands are defined: no memory access,
/// no effect, no trap (what [`LoopLicm::decide`] hoists as `pure`).
fn is_pure(func: &Function, kind: &InstKind) -> bool {
    !kind.has_side_effects() && !kind.may_read_memory() && !matches!(kind, InstKind::Alloca { .. })
        || matches!(kind, InstKind::Binary(op, _, d) if is_division(*op) && nonzero_const(func, *d))
}

fn is_division(op: BinaryOp) -> bool {
    matches!(
        op,
        BinaryOp::Sdiv | BinaryOp::Udiv | BinaryOp::Srem | BinaryOp::Urem
    )
}

fn nonzero_const(func: &Function, v: Value) -> bool {
    func.const_int(v).is_some_and(|k| k != 0)
}

/// True if executing `kind` certainly continues with the next instruction
/// (or the terminator's successor) and shows nothing outside the program's
/// memory: no call (it may loop forever or exit), no `exit`, barrier or
/// launch, no division that may trap, no output (a hoisted instruction
/// that faults must not hide output the original printed first). A load
/// or store that faults is undefined behaviour, so those count as
/// returning.
pub(crate) fn always_returns(func: &Function, kind: &InstKind) -> bool {
    use Intrinsic::*;
    match kind {
        InstKind::Call { .. } | InstKind::CallIndirect { .. } | InstKind::Launch { .. } => false,
        InstKind::Binary(op, _, d) if is_division(*op) => nonzero_const(func, *d),
        InstKind::Intrinsic { op, .. } => {
            !matches!(op, Exit | RuntimeError | Barrier | Printf | Fprintf)
        }
        InstKind::Jump(_) | InstKind::Detach { .. } => true,
        k => !k.is_terminator(),
    }
}

#[cfg(test)]
mod tests;
