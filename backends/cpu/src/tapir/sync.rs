//! Syncs, once nothing is detached in a frame any more: each `sync`
//! becomes the target's wait plus a jump, and an exit that a spawn reaches
//! without passing a sync of its region first gets a wait of its own
//! (Cilk's implicit sync at the end of every function and spawned task:
//! the frame that holds the group, the context and the captured `alloca`s
//! must not die under a running task). The exits are the function's
//! `return`s, a spawned task's reattaches (its helper's `return`s), and a
//! parallel loop body's end (after its last iteration, where its helper
//! returns).

use super::{FrameState, TargetImpl, TaskBlocks};
use parc_ir::analysis::{ControlFlowGraph, TaskData};
use parc_ir::{Block, FuncBuilder, Function, Inst, InstKind, SyncRegion, Value};
use std::collections::HashSet;

/// The function body's syncs, after every task is outlined.
pub(crate) fn lower_syncs(func: &mut Function, target: &dyn TargetImpl, frame: &FrameState) {
    let mut implicit = Vec::new();
    if !frame.spawn_sites.is_empty() {
        let cfg = ControlFlowGraph::compute(func);
        for (&region, sites) in &frame.spawn_sites {
            let reached = cfg.reach(sites, |b| syncs(func, b, region));
            for &b in &func.layout {
                let ret = func
                    .terminator(b)
                    .filter(|&t| matches!(func.inst(t), InstKind::Return(_)));
                if reached.contains(b)
                    && let Some(t) = ret
                {
                    implicit.push((b, t, region));
                }
            }
        }
    }
    wait_before_exits(func, target, frame, implicit);
    lower_explicit(func, target, frame, &func.layout.clone());
}

/// The syncs of a task whose children are all outlined, before it is
/// outlined itself (`blocks` are its blocks, `td` its data). The implicit
/// waits of a spawned task go before its reattaches; those of a parallel
/// loop's body (`is_loop`) come after its last iteration, in the body
/// function: their groups are returned, for the caller to put there.
pub(crate) fn lower_task_syncs(
    func: &mut Function,
    target: &dyn TargetImpl,
    frame: &FrameState,
    blocks: &TaskBlocks,
    td: &TaskData,
    is_loop: bool,
) -> Vec<Value> {
    let mut implicit = Vec::new();
    let mut loop_waits = Vec::new();
    for (&region, sites) in &frame.spawn_sites {
        let reached = reach_within(func, sites, &blocks.inside, region);
        let exits = td.reattaches.iter().filter(|b| reached.contains(b));
        if is_loop {
            if exits.count() > 0
                && let Some(&group) = frame.groups.get(&region)
            {
                loop_waits.push(group);
            }
            continue;
        }
        for &b in exits {
            let t = func.terminator(b).expect("a reattach ends its block");
            implicit.push((b, t, region));
        }
    }
    wait_before_exits(func, target, frame, implicit);
    lower_explicit(func, target, frame, &blocks.blocks);
    loop_waits
}

fn syncs(func: &Function, b: Block, region: SyncRegion) -> bool {
    matches!(func.terminator(b).map(|t| func.inst(t)),
        Some(InstKind::Sync { region: r, .. }) if *r == region)
}

/// The blocks of `inside` reachable from `sites` without leaving a block
/// that syncs `region`, following the function as it is now (the tasks
/// nested in it are gone).
fn reach_within(
    func: &Function,
    sites: &[Block],
    inside: &HashSet<Block>,
    region: SyncRegion,
) -> HashSet<Block> {
    let mut seen: HashSet<Block> = sites.iter().copied().collect();
    let mut work = sites.to_vec();
    while let Some(b) = work.pop() {
        if syncs(func, b, region) {
            continue;
        }
        let Some(t) = func.terminator(b) else {
            continue;
        };
        for s in func.inst(t).successors() {
            if inside.contains(&s) && seen.insert(s) {
                work.push(s);
            }
        }
    }
    seen
}

/// Puts the wait of `region` before the terminator `t` of `b`, for each
/// `(b, t, region)`.
fn wait_before_exits(
    func: &mut Function,
    target: &dyn TargetImpl,
    frame: &FrameState,
    implicit: Vec<(Block, Inst, SyncRegion)>,
) {
    for (b, t, region) in implicit {
        let t = func.blocks[b]
            .insts
            .pop()
            .filter(|&i| i == t)
            .expect("the exit ends its block");
        let loc = func.locs[t];
        let mut fb = FuncBuilder::new(func);
        fb.set_loc(loc);
        fb.switch_to(b);
        frame.sync(target, &mut fb, region);
        func.blocks[b].insts.push(t);
    }
}

/// Each `sync` that ends one of `blocks`: the wait, then a jump.
fn lower_explicit(
    func: &mut Function,
    target: &dyn TargetImpl,
    frame: &FrameState,
    blocks: &[Block],
) {
    for &b in blocks {
        let Some(t) = func.terminator(b) else {
            continue;
        };
        let InstKind::Sync { region, next } = *func.inst(t) else {
            continue;
        };
        func.blocks[b].insts.pop();
        let loc = func.locs[t];
        let mut fb = FuncBuilder::new(func);
        fb.set_loc(loc);
        fb.switch_to(b);
        frame.sync(target, &mut fb, region);
        fb.jump(next, Vec::new());
    }
}
