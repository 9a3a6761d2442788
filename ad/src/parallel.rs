//! Parallel reversal: recognizing the parallel loops of a primal.
//!
//! The AD reverses a detach as part of a parallel loop where it is the
//! detach of one of parir's Tapir loops (`parc_ir::analysis::tapir_loops`,
//! the front end's `parallel_for` shape) that also has
//!
//! ```text
//! pre:    ... jump header(lo)            ; the header's only other predecessor
//! spawn:  detach within sr, task, latch  ; nothing above the detach
//! task:   ...  reattach within sr, latch  ; exactly one reattaching block
//! exit:   sync within sr, next           ; the header's only exit
//! ```
//!
//! so that the trip count is computed in `pre`.
//!
//! **Forward.** `pre` allocates one tape header per iteration
//! (`calloc(trip, 24)`, with the trip count computed as Tapir lowering
//! does); the copy of `task` computes its iteration number `k = (iv - lo)
//! / step` and records onto tape `k`, so iterations never share a tape.
//!
//! **Reverse.** The reverse of `exit` is a new parallel loop in the same
//! shape (`k` from 0 to `trip`, step 1): its task takes tape `k`, runs the
//! reverse blocks of the primal task (whose adjoint slots are allocas of
//! the reverse task: task-private), frees the tape and reattaches; after its
//! sync the per-worker partial sums of reductions are combined and the
//! reverse continues with `pre`. The reverse of the header, `spawn` and
//! `latch` is this loop: they get no reverse blocks of their own.
//!
//! Optimizations reshape loops: LICM, for one, guards hoisted code with a
//! test of the trip count that jumps straight to the exit's `sync` when the
//! loop runs no iteration. [`dedicate_exits`] restores the shape first.
//!
//! # Spawned tasks
//!
//! A detach outside a parallel loop is a *spawn site* (`find_spawns`):
//!
//! ```text
//! detach: ... detach within sr, task, cont
//! task:   ... reattach within sr, cont   ; exactly one reattaching block
//! cont:   ...                            ; runs concurrently with the task
//! sync:   ... sync within sr, next       ; the one sync that cont reaches
//! ```
//!
//! (Where `cont` reaches several, [`unify_syncs`] has joined them into one
//! first.)
//!
//! A site that runs at most once between two syncs of its region (it is in
//! no loop that avoids them) keeps its task's tape in one forward slot; a
//! site in such a loop (`for (...) spawn f(i); sync;`) keeps a list of
//! tapes. **Forward:** `detach` allocates the task's tape and stores it in
//! the slot (appends it to the list); `sync` takes the slot's value (null
//! if the spawn did not run) or the list, records it and empties the slot.
//! **Reverse:** the reverse of `sync` spawns the reverse of each task that
//! ran, on its tape, so that it runs concurrently with the reverse of the
//! continuation, as the task ran with the continuation; the reverse of
//! `detach` syncs. Adjoints of SSA values defined outside the task go to
//! per-site accumulators (atomic adds when several reverse tasks of the
//! site run at once) merged after that sync; shadow memory updated
//! concurrently uses atomics (see `policy.rs`).
//!
//! A spawn site inside a task (a parallel loop's, or another spawned
//! one) runs once per instance of that task, concurrently with its other
//! instances: its tape slot is made at the forward copy of the task's
//! entry and its accumulators at the entry of the task's reverse, so
//! every instance has its own.

use crate::AdError;
use parc_ir::analysis::{FunctionAnalyses, tapir_loops};
use parc_ir::{
    BinaryOp, Block, BlockCall, CastOp, Function, InstKind, SyncRegion, Type, Value, ValueDef,
};
use std::collections::HashSet;

/// A parallel loop of the primal (names as in the module doc).
#[derive(Clone, Debug)]
pub struct PLoop {
    pub pre: Block,
    pub header: Block,
    pub spawn: Block,
    pub task_entry: Block,
    pub reattach: Block,
    pub latch: Block,
    pub exit: Block,
    pub sr: SyncRegion,
    pub iv: Value,
    pub lo: Value,
    pub hi: Value,
    pub step: Value,
    pub signed: bool,
    pub inclusive: bool,
    /// The blocks of the natural loop (header, spawn, task, latch).
    pub loop_blocks: HashSet<Block>,
    /// The task's blocks.
    pub task_blocks: HashSet<Block>,
    /// The innermost parallel loop whose task contains this loop.
    pub parent: Option<usize>,
}

fn shape_error(p: &Function, b: Block, what: &str) -> AdError {
    let loc = p.terminator(b).map(|t| p.locs[t]).unwrap_or_default();
    AdError {
        function: p.name.clone(),
        loc,
        message: what.to_string(),
    }
}

/// Gives every parallel loop's exit a block of its own: where the `sync`
/// block `exit` that a loop header leaves to is also entered from
/// elsewhere (a guard), the header's edge gets a new `sync` block that
/// continues, through a block that only jumps, to `exit` (whose own `sync`
/// then waits for nothing). Returns whether it changed anything.
pub fn dedicate_exits(p: &mut Function) -> bool {
    let mut changed = false;
    let an = FunctionAnalyses::compute(p);
    let headers: Vec<(Block, Block)> = an
        .tasks
        .tasks()
        .filter_map(|t| {
            let spawn = an.tasks.data(t).detach_block;
            match an.cfg.preds(spawn) {
                [h] if an.loops.loop_headed_by(*h).is_some() => Some((*h, spawn)),
                _ => None,
            }
        })
        .collect();
    for (header, spawn) in headers {
        let Some(term) = p.terminator(header) else {
            continue;
        };
        let InstKind::Brif {
            then_dest,
            else_dest,
            ..
        } = p.inst(term).clone()
        else {
            continue;
        };
        if then_dest.block != spawn {
            continue;
        }
        let exit = else_dest.block;
        let Some(InstKind::Sync { region, .. }) = p.terminator(exit).map(|i| p.inst(i).clone())
        else {
            continue;
        };
        if an.cfg.preds(exit).len() < 2
            || !else_dest.args.is_empty()
            || !p.blocks[exit].params.is_empty()
        {
            continue;
        }
        let loc = p.locs[term];
        let dedicated = p.create_block();
        let bridge = p.create_block();
        p.append_block(dedicated);
        p.append_block(bridge);
        let s = p.append_inst(
            dedicated,
            InstKind::Sync {
                region,
                next: bridge,
            },
            None,
        );
        let j = p.append_inst(bridge, InstKind::Jump(BlockCall::to(exit)), None);
        p.locs[s] = loc;
        p.locs[j] = loc;
        if let InstKind::Brif { else_dest, .. } = p.inst_mut(term) {
            else_dest.block = dedicated;
        }
        changed = true;
    }
    changed
}

/// Gives each spawn site one sync: where a detach's continuation reaches
/// several syncs of its region (an early `return` with a `sync` of its
/// own, say), each of them becomes `jump S(k)` to one new block `S(k:
/// i32)`: `sync within sr, D`, and `D` branches on `k` to the block the
/// `k`-th sync went on to. The reverse of that one sync spawns the reverse
/// task, whichever path the forward took (the AD's reverse of the branch
/// on `k` goes back along it). Only where the syncs lie in the same
/// innermost loop (or none), so that `S` enters no loop from outside;
/// other sites keep their syncs, and `find_spawns` refuses them. Returns
/// whether it changed anything.
pub fn unify_syncs(p: &mut Function) -> bool {
    let mut changed = false;
    while unify_one(p) {
        changed = true;
    }
    changed
}

/// Unifies the syncs of one group (see [`unify_syncs`]), if one needs it;
/// returns whether it did.
fn unify_one(p: &mut Function) -> bool {
    let an = FunctionAnalyses::compute(p);
    let mut groups: Vec<(SyncRegion, Vec<Block>)> = Vec::new();
    for t in an.tasks.tasks() {
        let td = an.tasks.data(t);
        if !an.cfg.is_reachable(td.detach_block) {
            continue;
        }
        let syncs = reached_syncs(p, &an, td.cont, td.region);
        if syncs.len() < 2 {
            continue;
        }
        match groups
            .iter_mut()
            .find(|(r, g)| *r == td.region && g.iter().any(|b| syncs.contains(b)))
        {
            Some((_, g)) => {
                g.extend(
                    syncs
                        .iter()
                        .filter(|b| !g.contains(b))
                        .copied()
                        .collect::<Vec<_>>(),
                );
            }
            None => groups.push((td.region, syncs)),
        }
    }
    for (region, mut syncs) in groups {
        syncs.sort();
        let lp = an.loops.innermost(syncs[0]);
        if syncs.iter().any(|&b| an.loops.innermost(b) != lp) {
            continue;
        }
        let mut nexts = Vec::new();
        let mut locs = Vec::new();
        for &b in &syncs {
            let Some(term) = p.terminator(b) else {
                return false;
            };
            let InstKind::Sync { next, .. } = *p.inst(term) else {
                return false;
            };
            nexts.push(next);
            locs.push(p.locs[term]);
        }
        // Values defined on a path before its sync and used after it reach
        // the code after it through `S`'s parameters now (`S` joins the
        // paths): on the other paths a zero of the type (never used there).
        let mut common = syncs[0];
        for &b in &syncs[1..] {
            while !an.domtree.dominates(common, b) {
                let Some(up) = an.domtree.idom(common) else {
                    return false;
                };
                common = up;
            }
        }
        let mut carried: Vec<Value> = Vec::new();
        let mut after: Vec<Vec<Block>> = Vec::new();
        for &next in &nexts {
            let blocks: Vec<Block> = p
                .layout
                .iter()
                .copied()
                .filter(|&b| an.domtree.dominates(next, b))
                .collect();
            for &b in &blocks {
                for &i in p.block_insts(b) {
                    p.inst(i).for_each_operand(|v| {
                        let d = def_block(p, v);
                        if d.is_some_and(|d| {
                            !blocks.contains(&d) && !an.domtree.dominates(d, common)
                        }) && !carried.contains(&v)
                        {
                            carried.push(v);
                        }
                    });
                }
            }
            after.push(blocks);
        }
        let defs: Vec<Option<Block>> = carried.iter().map(|&v| def_block(p, v)).collect();
        let join = p.create_block();
        p.append_block(join);
        let k = p.append_block_param(join, Type::I32);
        let params: Vec<Value> = carried
            .iter()
            .map(|&v| {
                let ty = p.value_type(v);
                p.append_block_param(join, ty)
            })
            .collect();
        for blocks in &after {
            for &b in blocks {
                for i in p.blocks[b].insts.clone() {
                    p.inst_mut(i)
                        .map_operands(|v| match carried.iter().position(|&c| c == v) {
                            Some(n) => params[n],
                            None => v,
                        });
                }
            }
        }
        let dispatch = p.create_block();
        p.append_block(dispatch);
        let s = p.append_inst(
            join,
            InstKind::Sync {
                region,
                next: dispatch,
            },
            None,
        );
        p.locs[s] = locs[0];
        // `dispatch`: a chain of tests of `k`, the last sync's path last.
        let mut at = dispatch;
        for (j, &next) in nexts.iter().enumerate() {
            if j + 1 == nexts.len() {
                let i = p.append_inst(at, InstKind::Jump(BlockCall::to(next)), None);
                p.locs[i] = locs[j];
                break;
            }
            let c = p.append_inst(at, InstKind::Iconst(j as i64), Some(Type::I32));
            let c = p.result(c).expect("iconst has a result");
            let eq = p.append_inst(at, InstKind::Icmp(parc_ir::IntCC::Eq, k, c), Some(Type::I1));
            let eq = p.result(eq).expect("icmp has a result");
            let rest = p.create_block();
            p.append_block(rest);
            let i = p.append_inst(
                at,
                InstKind::Brif {
                    cond: eq,
                    then_dest: BlockCall::to(next),
                    else_dest: BlockCall::to(rest),
                },
                None,
            );
            p.locs[i] = locs[j];
            at = rest;
        }
        for (j, &b) in syncs.iter().enumerate() {
            let term = p.terminator(b).expect("checked above");
            let mut code = Vec::new();
            let mut args = Vec::new();
            let mut constant = |p: &mut Function, kind: InstKind, ty: Type| {
                let i = p.make_inst(kind, Some(ty));
                code.push(i);
                p.result(i).expect("a constant has a result")
            };
            args.push(constant(p, InstKind::Iconst(j as i64), Type::I32));
            for (&v, d) in carried.iter().zip(&defs) {
                // This path's own value where it defines one.
                let mine = d.is_some_and(|d| an.domtree.dominates(d, b));
                let ty = p.value_type(v);
                args.push(if mine {
                    v
                } else if ty.is_float() {
                    constant(p, InstKind::Fconst(0.0), ty)
                } else {
                    constant(p, InstKind::Iconst(0), ty)
                });
            }
            let pos = p.blocks[b].insts.len() - 1;
            p.blocks[b].insts.splice(pos..pos, code);
            *p.inst_mut(term) = InstKind::Jump(BlockCall::new(join, args));
        }
        return true;
    }
    false
}

/// The block that defines `v`.
fn def_block(p: &Function, v: Value) -> Option<Block> {
    match p.value_def(v) {
        ValueDef::Param(b, _) => Some(b),
        ValueDef::Result(i) => p
            .layout
            .iter()
            .copied()
            .find(|&b| p.block_insts(b).contains(&i)),
    }
}

/// The syncs of `region` that code from `cont` reaches before a sync of
/// it (in block order).
fn reached_syncs(
    p: &Function,
    an: &FunctionAnalyses,
    cont: Block,
    region: SyncRegion,
) -> Vec<Block> {
    let mut seen = HashSet::new();
    let mut syncs = Vec::new();
    let mut work = vec![cont];
    while let Some(b) = work.pop() {
        if !seen.insert(b) {
            continue;
        }
        let ends_in_sync = p
            .terminator(b)
            .is_some_and(|i| matches!(p.inst(i), InstKind::Sync { region: r, .. } if *r == region));
        if ends_in_sync {
            syncs.push(b);
            continue;
        }
        work.extend_from_slice(an.cfg.succs(b));
    }
    syncs.sort();
    syncs
}

/// Finds every parallel loop (detaches in other shapes are spawn sites):
/// parir's Tapir loops ([`tapir_loops`]) with nothing above the detach,
/// entered from one block outside (`pre`, which passes `lo`) and leaving
/// to a `sync` of their region that only the header reaches.
pub fn find_loops(p: &Function, an: &FunctionAnalyses) -> Result<Vec<PLoop>, AdError> {
    let mut out = Vec::new();
    for l in tapir_loops::find_with(p, an, &tapir_loops::Uses::compute(p)) {
        let td = an.tasks.data(l.task_id);
        let (header, spawn, latch, exit) = (l.header, l.detach_block, l.latch, l.exit);
        if !an.cfg.is_reachable(spawn) || !l.hoisted.is_empty() {
            continue;
        }
        let [reattach] = td.reattaches[..] else {
            return Err(shape_error(
                p,
                spawn,
                "a `parallel_for` body with several exits cannot be differentiated yet",
            ));
        };
        let Some(lp) = an.loops.loop_headed_by(header) else {
            continue;
        };
        let ld = an.loops.data(lp);
        let preds: Vec<Block> = an
            .cfg
            .preds(header)
            .iter()
            .copied()
            .filter(|b| !ld.contains(*b))
            .collect();
        let [pre] = preds[..] else {
            continue;
        };
        let lo = match p.terminator(pre).map(|i| p.inst(i).clone()) {
            Some(InstKind::Jump(d)) if d.block == header => d.args[0],
            Some(InstKind::Brif {
                then_dest,
                else_dest,
                ..
            }) => {
                if then_dest.block == header && else_dest.block != header {
                    then_dest.args[0]
                } else if else_dest.block == header && then_dest.block != header {
                    else_dest.args[0]
                } else {
                    continue;
                }
            }
            _ => continue,
        };
        let Some(InstKind::Sync { region, .. }) = p.terminator(exit).map(|i| p.inst(i).clone())
        else {
            continue;
        };
        // Besides `exit`, the loop is left only into the body's dead ends
        // (an error `exit(1)`: see `tapir_loops`), which end the program,
        // so no reverse ever runs after them.
        let exits_ok = ld.exits.contains(&exit)
            && ld
                .exits
                .iter()
                .all(|&e| e == exit || an.tasks.contains(l.task_id, e));
        if region != l.region || an.cfg.preds(exit) != [header] || !exits_ok {
            continue;
        }
        // The trip count is computed in `pre`: `bound` and `step` are
        // defined outside the loop, or constants (which the forward sweep
        // makes where it needs them), as a Tapir loop's are.
        out.push(PLoop {
            pre,
            header,
            spawn,
            task_entry: l.task,
            reattach,
            latch,
            exit,
            sr: l.region,
            iv: l.iv,
            lo,
            hi: l.bound,
            step: l.step,
            signed: l.signed,
            inclusive: l.inclusive,
            loop_blocks: ld.blocks.iter().copied().collect(),
            task_blocks: an.tasks.blocks(l.task_id).iter().copied().collect(),
            parent: None,
        });
    }
    for i in 0..out.len() {
        let h = out[i].header;
        out[i].parent = (0..out.len())
            .filter(|&j| j != i && out[j].task_blocks.contains(&h))
            .min_by_key(|&j| out[j].task_blocks.len());
    }
    Ok(out)
}

/// A spawn site (names as in the module doc).
#[derive(Clone, Debug)]
pub struct SpawnSite {
    pub detach: Block,
    pub task: Block,
    pub reattach: Block,
    pub cont: Block,
    pub sync: Block,
    pub region: SyncRegion,
    pub task_blocks: HashSet<Block>,
    /// The continuation up to and including `sync`: code that runs
    /// concurrently with the task.
    pub cont_blocks: HashSet<Block>,
    /// The detach may run several times before the sync (a loop spawns
    /// the task again): the tapes go to a list, not a slot.
    pub multi: bool,
}

/// Finds every detach that is not part of one of `loops`, or says why one
/// cannot be differentiated.
pub fn find_spawns(
    p: &Function,
    an: &FunctionAnalyses,
    loops: &[PLoop],
) -> Result<Vec<SpawnSite>, AdError> {
    let mut out = Vec::new();
    for t in an.tasks.tasks() {
        let td = an.tasks.data(t);
        let detach = td.detach_block;
        if !an.cfg.is_reachable(detach) || loops.iter().any(|l| l.spawn == detach) {
            continue;
        }
        let [reattach] = td.reattaches[..] else {
            return Err(shape_error(
                p,
                detach,
                "a spawned task with several exits cannot be differentiated yet",
            ));
        };
        if !td.returns.is_empty() || !td.escapes.is_empty() {
            return Err(shape_error(
                p,
                detach,
                "a spawned task that leaves other than by its end cannot be differentiated yet",
            ));
        }
        let mut preds = an.cfg.preds(td.cont).to_vec();
        preds.sort();
        let mut want = vec![detach, reattach];
        want.sort();
        if preds != want {
            return Err(shape_error(
                p,
                detach,
                "a `spawn` whose continuation is entered from elsewhere cannot be differentiated yet",
            ));
        }
        // The continuation: everything reachable from `cont` before a sync
        // of the region.
        let ends_in_sync = |b: Block| {
            p.terminator(b).is_some_and(
                |i| matches!(p.inst(i), InstKind::Sync { region, .. } if *region == td.region),
            )
        };
        let mut cont_blocks = HashSet::new();
        let mut syncs = Vec::new();
        let mut multi = false;
        let mut work = vec![td.cont];
        while let Some(b) = work.pop() {
            if !cont_blocks.insert(b) {
                continue;
            }
            if b == detach {
                // A loop spawns this task again before the sync.
                multi = true;
                continue;
            }
            if ends_in_sync(b) {
                syncs.push(b);
                continue;
            }
            let succs = an.cfg.succs(b);
            if succs.is_empty() {
                return Err(shape_error(
                    p,
                    detach,
                    "a spawned task that is not synced before the function returns cannot be differentiated",
                ));
            }
            work.extend_from_slice(succs);
        }
        let [sync] = syncs[..] else {
            return Err(shape_error(
                p,
                detach,
                "a `spawn` that reaches `sync`s in different loops cannot be differentiated yet",
            ));
        };
        out.push(SpawnSite {
            detach,
            task: td.entry,
            reattach,
            cont: td.cont,
            sync,
            region: td.region,
            task_blocks: an.tasks.blocks(t).iter().copied().collect(),
            cont_blocks,
            multi,
        });
    }
    Ok(out)
}

/// The coefficient `c` if `v = c * iv + (something invariant in the loop)`.
pub fn affine(p: &Function, l: &PLoop, v: Value, depth: u32) -> Option<i64> {
    if v == l.iv {
        return Some(1);
    }
    if depth > 16 {
        return None;
    }
    let ValueDef::Result(i) = p.value_def(v) else {
        // A block parameter: invariant only if its block is outside the loop.
        let ValueDef::Param(b, _) = p.value_def(v) else {
            return None;
        };
        return (!l.loop_blocks.contains(&b)).then_some(0);
    };
    let inside = p
        .layout
        .iter()
        .any(|b| l.loop_blocks.contains(b) && p.block_insts(*b).contains(&i));
    if !inside {
        return Some(0);
    }
    match p.inst(i) {
        InstKind::Iconst(_) => Some(0),
        InstKind::Cast(CastOp::Sext | CastOp::Zext, x) => affine(p, l, *x, depth + 1),
        InstKind::Binary(BinaryOp::Iadd, a, b) | InstKind::PtrAdd(a, b) => {
            Some(affine(p, l, *a, depth + 1)?.checked_add(affine(p, l, *b, depth + 1)?)?)
        }
        InstKind::Binary(BinaryOp::Isub, a, b) => {
            Some(affine(p, l, *a, depth + 1)?.checked_sub(affine(p, l, *b, depth + 1)?)?)
        }
        InstKind::Binary(BinaryOp::Imul, a, b) => {
            if let Some(c) = p.const_int(*b) {
                affine(p, l, *a, depth + 1)?.checked_mul(c)
            } else if let Some(c) = p.const_int(*a) {
                affine(p, l, *b, depth + 1)?.checked_mul(c)
            } else {
                None
            }
        }
        InstKind::Binary(BinaryOp::Shl, a, b) => {
            let c = p.const_int(*b)?;
            if !(0..32).contains(&c) {
                return None;
            }
            affine(p, l, *a, depth + 1)?.checked_mul(1i64 << c)
        }
        _ => None,
    }
}

/// True if `v` is defined outside the loop (the same in every iteration).
pub fn invariant(p: &Function, l: &PLoop, v: Value) -> bool {
    affine(p, l, v, 0) == Some(0)
}
