//! Where the derivative's copy of an `alloca` runs: as late as its uses
//! allow.
//!
//! The front end puts every local in the entry block, and the inliner
//! moves an inlined callee's `alloca`s there too (`opt`'s `inline`). In a
//! split pair an active `alloca`'s shadow is slots pushed onto the tape
//! where the `alloca` runs, zeroed, and popped at its reverse
//! (`reverse/shadows.rs`): a temporary of a rarely taken branch then
//! costs every call two tape calls, a `memset` and its bytes of tape
//! (RSBench's `fast_nuclear_W`: the two 16-byte results of the inlined
//! `fast_cexp` of its slow path, 32 of the 72 bytes each call of its fast
//! path pushed). Before planning, each `alloca` of a block in no loop and
//! no task moves to the top of the nearest block that dominates all its
//! uses, taken out of every loop and task (up the dominator tree): that
//! block runs at most once per call, as the entry does, and before every
//! use, so each use still sees a fresh zero-filled object — an
//! `alloca`'s meaning (parir's verifier: it may appear in any block). The
//! primal keeps its own placement; only the derivative's copy moves.
//!
//! Allocas in a loop or a task (a parallel loop's locals, whose shadows
//! are slabs: `reverse/slabs.rs`) stay where they are.

use parc_ir::analysis::FunctionAnalyses;
use parc_ir::{Block, Function, Inst, InstKind, Value};
use std::collections::HashMap;

/// Moves each `alloca` outside loops and tasks to the nearest block that
/// dominates its uses (see the module doc). Returns whether it changed
/// anything.
pub fn sink_allocas(p: &mut Function) -> bool {
    let an = FunctionAnalyses::compute(p);
    let mut allocas: HashMap<Value, (Block, Inst)> = HashMap::new();
    for (b, i) in p.placed_insts() {
        if matches!(p.inst(i), InstKind::Alloca { .. })
            && an.domtree.is_reachable(b)
            && an.loops.innermost(b).is_none()
            && an.tasks.innermost(b).is_none()
            && let Some(r) = p.result(i)
        {
            allocas.insert(r, (b, i));
        }
    }
    if allocas.is_empty() {
        return false;
    }
    // The nearest common dominator of each alloca's use blocks (None once
    // a use is in the alloca's own block or unreachable: it stays).
    let mut target: HashMap<Value, Option<Block>> = HashMap::new();
    for (b, i) in p.placed_insts() {
        for v in p.inst(i).operands() {
            let Some(&(home, _)) = allocas.get(&v) else {
                continue;
            };
            let t = target.entry(v).or_insert(Some(b));
            *t = match *t {
                _ if b == home || !an.domtree.is_reachable(b) => None,
                Some(cur) => Some(common_dominator(&an, cur, b)),
                None => None,
            };
        }
    }
    let mut moves = Vec::new();
    for (v, &(home, inst)) in &allocas {
        let Some(Some(mut b)) = target.get(v).copied() else {
            continue;
        };
        // Out of loops and tasks: a block that runs at most once per call.
        while an.loops.innermost(b).is_some() || an.tasks.innermost(b).is_some() {
            match an.domtree.idom(b) {
                Some(d) => b = d,
                None => break,
            }
        }
        if b != home && an.domtree.strictly_dominates(home, b) {
            moves.push((home, inst, b));
        }
    }
    // In the order the allocas appeared, so the moved ones keep theirs.
    moves.sort_by_key(|&(home, inst, _)| {
        (
            p.layout.iter().position(|&x| x == home),
            p.block_insts(home).iter().position(|&x| x == inst),
        )
    });
    let mut placed: HashMap<Block, usize> = HashMap::new();
    for &(home, inst, b) in &moves {
        p.blocks[home].insts.retain(|&x| x != inst);
        let at = placed.entry(b).or_insert(0);
        p.blocks[b].insts.insert(*at, inst);
        *at += 1;
    }
    !moves.is_empty()
}

/// The nearest block dominating both `a` and `b` (both reachable).
fn common_dominator(an: &FunctionAnalyses, mut a: Block, b: Block) -> Block {
    while !an.domtree.dominates(a, b) {
        match an.domtree.idom(a) {
            Some(d) => a = d,
            None => return a,
        }
    }
    a
}
