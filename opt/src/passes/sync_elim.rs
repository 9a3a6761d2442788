//! `sync-elim`: turns syncs that wait for nothing into jumps.
//!
//! `sync within sr, next` waits for the tasks detached within `sr` since
//! the last sync of `sr`. If no path leads from a `detach within sr` to the
//! sync without passing another `sync within sr`, there is never such a
//! task when the sync runs (in the serial projection and in every parallel
//! execution alike), so it is `jump next`. Typical sources: the front end's
//! sync before every return of a function that spawns only on some paths
//! (`if (n < 2) return n;` in `fib`), a `sync; sync;`, and syncs left behind
//! when `serialize-small-tasks` or inlining removed the region's detaches.
//!
//! # Tapir constraints
//! - The verifier's rule T4 (a `return`, or a task's `reattach`, reachable
//!   from a detach's continuation must pass a sync of the detach's region)
//!   stays true: a sync we drop is reached from no detach of its region
//!   without passing another sync of it, so every path from a detach to a
//!   return through the dropped sync already passes that other sync.
//! - Syncs of one region lie at one task level (rule T3), so the search
//!   from a region's detaches never needs to look inside other tasks'
//!   regions: it walks the CFG from each detach's continuation (the task
//!   rejoins there through its reattach) and stops at syncs of the region.

use crate::PassContext;
use crate::{HashMap, HashSet};
use parc_ir::analysis::ControlFlowGraph;
use parc_ir::{Block, BlockCall, Function, InstKind, Module, SyncRegion};

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let mut removed = 0;
    let changed = crate::for_each_of(module, &crate::functions_with_tapir(module), |f| {
        let n = run_function(f);
        removed += n;
        n > 0
    });
    ctx.count("sync-elim.removed", removed);
    changed
}

/// Drops the syncs of `func` that wait for nothing; returns how many.
pub fn run_function(func: &mut Function) -> u64 {
    let cfg = ControlFlowGraph::compute(func);
    // Per region, the continuations of its detaches: where the search for
    // the syncs that may have something to wait for starts. (Detaches in
    // unreachable blocks count too: keeping a sync is always safe.)
    let mut starts: HashMap<SyncRegion, Vec<Block>> = HashMap::default();
    let mut syncs: Vec<Block> = Vec::new();
    for &b in cfg.blocks() {
        let Some(t) = func.terminator(b) else {
            continue;
        };
        match *func.inst(t) {
            InstKind::Detach { region, cont, .. } => starts.entry(region).or_default().push(cont),
            InstKind::Sync { .. } => syncs.push(b),
            _ => {}
        }
    }
    let mut needed: HashSet<Block> = HashSet::default();
    for (&region, conts) in &starts {
        let ends_in_sync = |b: Block| {
            func.terminator(b).is_some_and(
                |t| matches!(*func.inst(t), InstKind::Sync { region: r, .. } if r == region),
            )
        };
        // The syncs a detach of the region reaches first. A detach's task
        // is not entered: it holds no sync of the region (rule T3) and
        // rejoins at its continuation, which the walk takes anyway; going
        // in made each region of a deep nest walk the whole nest below it.
        let mut seen: HashSet<Block> = HashSet::default();
        let mut work: Vec<Block> = conts
            .iter()
            .copied()
            .filter(|&c| cfg.is_placed(c) && seen.insert(c))
            .collect();
        while let Some(b) = work.pop() {
            if ends_in_sync(b) {
                needed.insert(b);
                continue;
            }
            let detach_cont = func.terminator(b).and_then(|t| match *func.inst(t) {
                InstKind::Detach { cont, .. } => Some(cont),
                _ => None,
            });
            let succs = match &detach_cont {
                Some(cont) => std::slice::from_ref(cont),
                None => cfg.succs(b),
            };
            for &s in succs {
                if seen.insert(s) {
                    work.push(s);
                }
            }
        }
    }
    let mut removed = 0;
    for b in syncs {
        if needed.contains(&b) {
            continue;
        }
        let t = func.terminator(b).expect("a sync block has a terminator");
        let InstKind::Sync { next, .. } = *func.inst(t) else {
            unreachable!("collected as a sync")
        };
        *func.inst_mut(t) = InstKind::Jump(BlockCall::to(next));
        removed += 1;
    }
    removed
}
