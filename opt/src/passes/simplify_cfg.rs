//! Control-flow graph clean-up (`simplify-cfg`), repeated until nothing
//! changes:
//!
//! 1. **Constant branches.** `brif` on an `iconst` becomes a `jump` to the
//!    taken arm; `brif c, B(args), B(args)` (one block, the same arguments)
//!    becomes `jump B(args)`; `brif c, B(xs), B(ys)` (one block, different
//!    arguments) becomes `jump B(select c, x, y ...)`, one `select` per
//!    argument that differs (what `m = x > m ? x : m` lowers to once its
//!    arms are threaded; not for vector arguments, whose `select` takes a
//!    mask).
//! 2. **Unreachable blocks** leave the layout.
//! 3. **Jump threading.** A block with no parameters whose only instruction
//!    is `jump X(args)` is skipped: its predecessors' `jump`/`brif` arms go
//!    straight to `X(args)` — to the end of a chain of such blocks at once
//!    (the arguments are defined above the empty blocks, so they dominate
//!    each predecessor too). A cycle of empty blocks is left alone.
//! 4. **Block merging.** A block whose only predecessor ends in a `jump` to
//!    it is appended to that predecessor (its parameters become the jump's
//!    arguments).
//!
//! Source positions stay with their instructions (a folded branch keeps
//! its own).
//!
//! # Tapir
//!
//! Tapir's terminators are not plain jumps, so none of these edges is
//! touched: a block that is the target of a `detach` (task or
//! continuation), a `reattach` or a `sync` is never threaded away, and
//! nothing is redirected into or out of one by threading; merging only
//! happens across a `jump`, so a task's blocks never merge with the
//! parent's, a sync's successor never merges into the syncing block, and a
//! block ending in `detach`/`reattach`/`sync` may only be merged *into* its
//! `jump` predecessor, which keeps the terminator and its region.
//!
//! The parallel-loop shape Tapir lowering recognizes survives: its header
//! (compare and branch, two predecessors), the spawn block (entered by the
//! header's `brif`, holding only the detach) and the latch (a continuation)
//! are never merged or threaded; blocks inside the task are merged freely.
//!
//! Statistics: `simplify-cfg.branches` (branches folded),
//! `simplify-cfg.selects` (selects made by folding),
//! `simplify-cfg.unreachable` (blocks removed), `simplify-cfg.threaded`
//! (empty blocks bypassed), `simplify-cfg.merged` (blocks merged).

use crate::PassContext;
use crate::{HashMap, HashSet};
use parc_ir::analysis::ControlFlowGraph;
use parc_ir::{Block, BlockCall, Function, InstKind, Module, Value, ValueDef};

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let mut total = Stats::default();
    let changed = crate::for_each_function(module, |f| {
        let s = run_function(f);
        let any = s.any();
        total.add(&s);
        any
    });
    ctx.count("simplify-cfg.branches", total.branches);
    ctx.count("simplify-cfg.selects", total.selects);
    ctx.count("simplify-cfg.unreachable", total.unreachable);
    ctx.count("simplify-cfg.threaded", total.threaded);
    ctx.count("simplify-cfg.merged", total.merged);
    changed
}

#[derive(Default)]
pub(crate) struct Stats {
    branches: u64,
    selects: u64,
    unreachable: u64,
    threaded: u64,
    merged: u64,
}

impl Stats {
    fn any(&self) -> bool {
        self.branches + self.unreachable + self.threaded + self.merged > 0
    }

    fn add(&mut self, o: &Stats) {
        self.branches += o.branches;
        self.selects += o.selects;
        self.unreachable += o.unreachable;
        self.threaded += o.threaded;
        self.merged += o.merged;
    }
}

pub(crate) fn run_function(func: &mut Function) -> Stats {
    let mut stats = Stats::default();
    // Each round shrinks the CFG; the bound is only a backstop.
    for _ in 0..64 {
        let mut changed = fold_branches(func, &mut stats);
        changed |= remove_unreachable(func, &mut stats);
        changed |= thread_jumps(func, &mut stats);
        changed |= merge_blocks(func, &mut stats);
        if !changed {
            break;
        }
    }
    stats
}

/// `brif` on a constant, or to one block with the same arguments twice.
fn fold_branches(func: &mut Function, stats: &mut Stats) -> bool {
    let mut changed = false;
    for k in 0..func.layout.len() {
        let b = func.layout[k];
        let Some(t) = func.terminator(b) else {
            continue;
        };
        let InstKind::Brif {
            cond,
            then_dest,
            else_dest,
        } = func.inst(t)
        else {
            continue;
        };
        let dest = if then_dest == else_dest {
            then_dest.clone()
        } else if then_dest.block == else_dest.block
            && then_dest
                .args
                .iter()
                .zip(&else_dest.args)
                .all(|(&x, &y)| x == y || !func.value_type(x).is_vector())
        {
            // One block, different arguments: a `select` per difference.
            let (cond, then_dest, else_dest) = (*cond, then_dest.clone(), else_dest.clone());
            let loc = func.locs[t];
            let mut args = Vec::new();
            for (&x, &y) in then_dest.args.iter().zip(&else_dest.args) {
                if x == y {
                    args.push(x);
                    continue;
                }
                let ty = func.value_type(x);
                let sel = func.make_inst(InstKind::Select(cond, x, y), Some(ty));
                func.locs[sel] = loc;
                let insts = &mut func.blocks[b].insts;
                insts.insert(insts.len() - 1, sel);
                args.push(func.result(sel).expect("a select has a result"));
                stats.selects += 1;
            }
            BlockCall::new(then_dest.block, args)
        } else {
            let ValueDef::Result(ci) = func.value_def(*cond) else {
                continue;
            };
            match *func.inst(ci) {
                InstKind::Iconst(c) if c & 1 != 0 => then_dest.clone(),
                InstKind::Iconst(_) => else_dest.clone(),
                _ => continue,
            }
        };
        *func.inst_mut(t) = InstKind::Jump(dest);
        stats.branches += 1;
        changed = true;
    }
    changed
}

fn remove_unreachable(func: &mut Function, stats: &mut Stats) -> bool {
    let cfg = ControlFlowGraph::compute(func);
    let before = func.layout.len();
    func.layout.retain(|&b| cfg.is_reachable(b));
    let removed = (before - func.layout.len()) as u64;
    stats.unreachable += removed;
    removed > 0
}

/// Bypasses empty forwarding blocks (see the module doc).
fn thread_jumps(func: &mut Function, stats: &mut Stats) -> bool {
    let tapir: HashSet<Block> = func.tapir_targets().collect();
    let entry = func.entry();
    // Empty block -> where it forwards to.
    let mut forward: HashMap<Block, BlockCall> = HashMap::default();
    for &b in &func.layout {
        if Some(b) == entry || tapir.contains(&b) || !func.block_params(b).is_empty() {
            continue;
        }
        if let [only] = func.block_insts(b)[..]
            && let InstKind::Jump(dest) = func.inst(only)
            && dest.block != b
        {
            forward.insert(b, dest.clone());
        }
    }
    if forward.is_empty() {
        return false;
    }
    // Where a chain of forwarding blocks ends; none for a cycle of them
    // (an infinite loop, left as it is).
    let last = |mut b: Block| -> Option<BlockCall> {
        let mut seen = HashSet::default();
        let mut call = None;
        while let Some(to) = forward.get(&b) {
            if !seen.insert(b) {
                return None;
            }
            call = Some(to.clone());
            b = to.block;
        }
        call
    };
    let mut changed = false;
    for k in 0..func.layout.len() {
        let p = func.layout[k];
        let Some(t) = func.terminator(p) else {
            continue;
        };
        let mut redirect = |call: &mut BlockCall| {
            if forward.contains_key(&call.block)
                && let Some(to) = last(call.block)
            {
                *call = to;
                stats.threaded += 1;
                changed = true;
            }
        };
        match func.inst_mut(t) {
            InstKind::Jump(d) => redirect(d),
            InstKind::Brif {
                then_dest,
                else_dest,
                ..
            } => {
                redirect(then_dest);
                redirect(else_dest);
            }
            _ => {}
        }
    }
    changed
}

/// Merges each block into its sole predecessor when that predecessor jumps
/// to it (see the module doc).
fn merge_blocks(func: &mut Function, stats: &mut Stats) -> bool {
    let cfg = ControlFlowGraph::compute(func);
    let entry = func.entry();
    // Blocks merged away, and the block that now holds their code (so a
    // predecessor that was merged into another is found where it went).
    let mut into: HashMap<Block, Block> = HashMap::default();
    let mut subst: HashMap<Value, Value> = HashMap::default();
    let layout = func.layout.clone();
    for &b in &layout {
        if Some(b) == entry {
            continue;
        }
        let [p] = cfg.preds(b) else { continue };
        let mut p = *p;
        while let Some(&q) = into.get(&p) {
            p = q;
        }
        if p == b {
            continue;
        }
        let Some(t) = func.terminator(p) else {
            continue;
        };
        let InstKind::Jump(dest) = func.inst(t) else {
            continue;
        };
        debug_assert_eq!(dest.block, b);
        // The parameters become the arguments.
        let args = dest.args.clone();
        let params = std::mem::take(&mut func.blocks[b].params);
        subst.extend(params.into_iter().zip(args));
        let moved = std::mem::take(&mut func.blocks[b].insts);
        func.blocks[p].insts.pop();
        func.blocks[p].insts.extend(moved);
        into.insert(b, p);
        stats.merged += 1;
    }
    if into.is_empty() {
        return false;
    }
    func.layout.retain(|b| !into.contains_key(b));
    if !subst.is_empty() {
        // An argument may itself be a parameter merged away.
        let resolve = |mut v: Value| {
            while let Some(&w) = subst.get(&v) {
                v = w;
            }
            v
        };
        for &blk in &func.layout {
            for &i in &func.blocks[blk].insts {
                func.insts[i].kind.map_operands(resolve);
            }
        }
    }
    true
}
