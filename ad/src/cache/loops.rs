//! Counted loops: serial loops whose reverse counts iterations instead of
//! recording, per iteration, the edge that entered the header.
//!
//! A serial natural loop with one preheader edge, one
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

use crate::parallel::PLoop;
use crate::plan::Plan;
use parc_ir::analysis::FunctionAnalyses;
use parc_ir::{BinaryOp, Block, BlockCall, Function, InstKind, Value, ValueDef};
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
