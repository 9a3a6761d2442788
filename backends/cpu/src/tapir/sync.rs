//! Syncs, after every task of a function is outlined: each `sync` becomes
//! the target's wait plus a jump, and a `return` that a spawn reaches
//! without passing a sync of its region first gets a wait of its own (Cilk's
//! implicit sync at the end of every function and spawned task: the frame
//! that holds the group, the context and the captured `alloca`s must not
//! die under a running task).

use super::{FuncState, TargetImpl};
use parc_ir::analysis::ControlFlowGraph;
use parc_ir::{FuncBuilder, Function, InstKind};

pub(crate) fn lower_syncs(func: &mut Function, target: &dyn TargetImpl, state: &FuncState) {
    if !state.spawn_sites.is_empty() {
        let cfg = ControlFlowGraph::compute(func);
        let mut implicit = Vec::new();
        for (&region, sites) in &state.spawn_sites {
            let syncs_region = |b| {
                matches!(func.terminator(b).map(|t| func.inst(t)),
                    Some(InstKind::Sync { region: r, .. }) if *r == region)
            };
            let reached = cfg.reach(sites, syncs_region);
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
        for (b, t, region) in implicit {
            let t = func.blocks[b]
                .insts
                .pop()
                .filter(|&i| i == t)
                .expect("the return ends its block");
            let loc = func.locs[t];
            let mut fb = FuncBuilder::new(func);
            fb.set_loc(loc);
            fb.switch_to(b);
            target.sync(&mut fb, state, region);
            func.blocks[b].insts.push(t);
        }
    }
    for b in func.layout.clone() {
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
        target.sync(&mut fb, state, region);
        fb.jump(next, Vec::new());
    }
}
