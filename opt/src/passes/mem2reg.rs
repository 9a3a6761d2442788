//! Promotion of scalar stack slots to SSA values (`mem2reg`).
//!
//! The front end gives every local an `alloca` and reads and writes it with
//! `load`/`store`. This pass turns each promotable `alloca` into SSA values:
//! block parameters at the iterated dominance frontier of its definitions
//! (Cytron et al.), pruned to the blocks where the slot is live, then one
//! walk of the dominator tree that replaces each load by the value reaching
//! it. The slot's loads, stores and the `alloca` itself disappear.
//!
//! # What is promoted
//!
//! An `alloca` whose every use is `load.T p` or `store v, p` with `p` the
//! alloca (never the stored value, never a `ptradd`, call or other operand:
//! the address must not escape), with one type `T` for all of them and `T`
//! no wider than the slot. Anything else is left alone (`sroa` splits small
//! aggregates into such slots first).
//!
//! **Zero initialization.** An `alloca` is zero-filled each time it runs
//! (ParC zero-initializes locals; one at the top of a task's first block is
//! fresh per task instance, one in a loop per iteration). So the `alloca`
//! itself counts as a definition, of `iconst 0`/`fconst 0.0` of `T`, at its
//! position: a load that no store reaches reads zero, and a per-task slot
//! starts from zero in every task.
//!
//! # The Tapir restriction
//!
//! A slot is promoted only if **every store to it is in the same task as the
//! alloca** (the same innermost task of the task tree, or both in the
//! function body). Loads may be anywhere, nested tasks included.
//!
//! - A load in a task nested below the slot's task reads the value that
//!   reaches the `detach`: in a race-free program the parent cannot store
//!   to the slot after the detach while the task may still read it, so that
//!   is the only value the task can observe — in the serial projection and
//!   in every parallel execution. The reaching value is defined above the
//!   detach, so it enters the task by dominance, which Tapir allows.
//! - A store in a nested task is refused: after promotion its value would
//!   have to reach the continuation as an SSA value defined inside the task,
//!   which Tapir's rule T2 forbids (values leave a task only through memory,
//!   read after a sync) — e.g. `x = spawn f();` stores `x` in the task and
//!   reads it after the `sync`; that slot must stay in memory.
//!
//! Because no store of a promoted slot lies in a nested task, no block
//! parameter is ever needed inside one, nor at a continuation. As a second
//! line of defence, a slot whose placement would put a parameter on a
//! block that Tapir forbids to have any (a detach's task or continuation, a
//! sync's successor) is refused too.
//!
//! Unreachable blocks are removed from the layout before promoting (their
//! accesses would otherwise need a value that nothing defines).
//!
//! Statistics: `mem2reg.promoted` (slots), `mem2reg.params` (block
//! parameters added), `mem2reg.loads` (loads replaced), `mem2reg.dead`
//! (unused allocas removed), `mem2reg.refused_tapir` (slots stored to from a
//! nested task).

use crate::PassContext;
use crate::fold::Const;
use crate::{HashMap, HashSet};
use cranelift_entity::SecondaryMap;
use parc_ir::analysis::{ControlFlowGraph, DominanceFrontiers, DominatorTree, TaskTree};
use parc_ir::{Block, Function, Inst, InstKind, Module, Type, Value};

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let mut stats = Stats::default();
    let changed = crate::for_each_function(module, |f| run_function(f, &mut stats));
    ctx.count("mem2reg.promoted", stats.promoted);
    ctx.count("mem2reg.params", stats.params);
    ctx.count("mem2reg.loads", stats.loads);
    ctx.count("mem2reg.dead", stats.dead);
    ctx.count("mem2reg.refused_tapir", stats.refused_tapir);
    changed
}

#[derive(Default)]
struct Stats {
    promoted: u64,
    params: u64,
    loads: u64,
    dead: u64,
    refused_tapir: u64,
}

/// One `alloca` and its accesses.
struct Slot {
    alloca: Inst,
    block: Block,
    size: u32,
    /// The type every access uses (`None` until the first access).
    ty: Option<Type>,
    /// False once a use disqualifies it.
    ok: bool,
    loads: Vec<Inst>,
    stores: Vec<Inst>,
}

/// The allocas of `func` whose uses are all loads and stores of one type
/// at the alloca's address (the Tapir restriction is checked later).
fn find_slots(func: &Function) -> Vec<Slot> {
    let mut slots: Vec<Slot> = Vec::new();
    let mut by_value: HashMap<Value, usize> = HashMap::default();
    for (b, i) in func.placed_insts() {
        if let InstKind::Alloca { size, .. } = *func.inst(i)
            && let Some(r) = func.result(i)
        {
            by_value.insert(r, slots.len());
            slots.push(Slot {
                alloca: i,
                block: b,
                size,
                ty: None,
                ok: true,
                loads: Vec::new(),
                stores: Vec::new(),
            });
        }
    }
    if slots.is_empty() {
        return slots;
    }
    for (_, i) in func.placed_insts() {
        let kind = func.inst(i);
        let access = match *kind {
            InstKind::Load(p) => by_value.get(&p).map(|&s| (s, true)),
            InstKind::Store { ptr, .. } => by_value.get(&ptr).map(|&s| (s, false)),
            _ => None,
        };
        // Every other appearance of a slot's address is an escape.
        kind.for_each_operand(|v| {
            if let Some(&s) = by_value.get(&v) {
                let legit = match (access, kind) {
                    (Some((a, _)), InstKind::Load(_)) => a == s,
                    (Some((a, _)), InstKind::Store { value, .. }) => a == s && *value != v,
                    _ => false,
                };
                if !legit {
                    slots[s].ok = false;
                }
            }
        });
        let Some((s, is_load)) = access else { continue };
        let ty = if is_load {
            func.result(i).map(|r| func.value_type(r))
        } else if let InstKind::Store { value, .. } = *kind {
            Some(func.value_type(value))
        } else {
            None
        };
        let slot = &mut slots[s];
        match (slot.ty, ty) {
            (_, None) => slot.ok = false,
            (None, Some(t)) => slot.ty = Some(t),
            (Some(a), Some(b)) if a != b => slot.ok = false,
            _ => {}
        }
        if is_load {
            slot.loads.push(i);
        } else {
            slot.stores.push(i);
        }
    }
    for slot in &mut slots {
        if slot.ty.is_some_and(|t| t.bytes() > slot.size) {
            // An access wider than the slot faults at run time; keep it.
            slot.ok = false;
        }
    }
    slots.retain(|s| s.ok);
    slots
}

/// Removes the blocks unreachable from the entry from the layout.
fn remove_unreachable(func: &mut Function) -> bool {
    let cfg = ControlFlowGraph::compute(func);
    let before = func.layout.len();
    func.layout.retain(|&b| cfg.is_reachable(b));
    func.layout.len() != before
}

/// What a block does to a slot first, in instruction order.
#[derive(Clone, Copy, PartialEq)]
enum First {
    Load,
    Def,
}

fn run_function(func: &mut Function, stats: &mut Stats) -> bool {
    if find_slots(func).is_empty() {
        return false;
    }
    let mut changed = remove_unreachable(func);
    let mut slots = find_slots(func);

    // Slots nobody reads or writes: just drop the alloca.
    let dead: HashSet<Inst> = slots
        .iter()
        .filter(|s| s.loads.is_empty() && s.stores.is_empty())
        .map(|s| s.alloca)
        .collect();
    if !dead.is_empty() {
        for &b in &func.layout {
            func.blocks[b].insts.retain(|i| !dead.contains(i));
        }
        stats.dead += dead.len() as u64;
        changed = true;
        slots.retain(|s| !dead.contains(&s.alloca));
    }
    if slots.is_empty() {
        return changed;
    }

    let cfg = ControlFlowGraph::compute(func);
    let domtree = DominatorTree::compute(&cfg);
    let tasks = TaskTree::compute(func, &cfg, &domtree);
    let frontiers = DominanceFrontiers::compute(&cfg, &domtree);
    let inst_block: HashMap<Inst, Block> = func.placed_insts().map(|(b, i)| (i, b)).collect();
    let forbidden: HashSet<Block> = func.tapir_targets().collect();

    // The Tapir restriction: every store in the alloca's own task.
    slots.retain(|s| {
        let home = tasks.innermost(s.block);
        let ok = s
            .stores
            .iter()
            .all(|st| tasks.innermost(inst_block[st]) == home);
        if !ok {
            stats.refused_tapir += 1;
        }
        ok
    });
    if slots.is_empty() {
        return changed;
    }

    // Where each slot needs a block parameter. First, per slot, what each
    // block does to it first (a load, or a definition: the alloca or a
    // store).
    let mut first: Vec<HashMap<Block, First>> = vec![HashMap::default(); slots.len()];
    {
        let mut slot_of: HashMap<Inst, (usize, First)> = HashMap::default();
        for (k, s) in slots.iter().enumerate() {
            slot_of.insert(s.alloca, (k, First::Def));
            for &st in &s.stores {
                slot_of.insert(st, (k, First::Def));
            }
            for &ld in &s.loads {
                slot_of.insert(ld, (k, First::Load));
            }
        }
        for (b, i) in func.placed_insts() {
            if let Some(&(k, what)) = slot_of.get(&i) {
                first[k].entry(b).or_insert(what);
            }
        }
    }
    let mut params_at: Vec<Vec<Block>> = Vec::new();
    let mut keep = vec![true; slots.len()];
    // Per block, the last slot (plus one) that marked it as defining the
    // slot, and as live-in: stamps rather than a set per slot, as the live
    // ranges of the counters of a deep loop nest add up to the square of
    // its depth.
    let mut def_stamp: SecondaryMap<Block, u32> = SecondaryMap::new();
    let mut live_stamp: SecondaryMap<Block, u32> = SecondaryMap::new();
    for k in 0..slots.len() {
        let stamp = k as u32 + 1;
        // A block defines the slot if it holds the alloca or a store.
        let defs: Vec<Block> = std::iter::once(slots[k].block)
            .chain(slots[k].stores.iter().map(|st| inst_block[st]))
            .collect();
        for &d in &defs {
            def_stamp[d] = stamp;
        }
        // Live-in blocks: a load comes before any definition, or the slot
        // flows through a block without definitions to such a block.
        let mut work: Vec<Block> = Vec::new();
        for (&b, &w) in &first[k] {
            if w == First::Load && live_stamp[b] != stamp {
                live_stamp[b] = stamp;
                work.push(b);
            }
        }
        while let Some(b) = work.pop() {
            for &p in cfg.preds(b) {
                if def_stamp[p] != stamp && live_stamp[p] != stamp {
                    live_stamp[p] = stamp;
                    work.push(p);
                }
            }
        }
        let defs: HashSet<Block> = defs.into_iter().collect();
        // The iterated dominance frontier of the definitions, pruned to the
        // live-in blocks as it grows (as LLVM's IDF calculator does): a
        // block the slot is not live into gets no parameter and defines
        // nothing further. Pruning only at the end walked, for each counter
        // of a deep nest, the frontiers of every enclosing loop's header.
        let mut idf: HashSet<Block> = HashSet::default();
        let mut work: Vec<Block> = defs.iter().copied().collect();
        let mut seen: HashSet<Block> = defs.clone();
        while let Some(x) = work.pop() {
            for &y in frontiers.frontier(x) {
                if live_stamp[y] != stamp {
                    continue;
                }
                idf.insert(y);
                if seen.insert(y) {
                    work.push(y);
                }
            }
        }
        let mut at: Vec<Block> = idf.into_iter().collect();
        at.sort();
        if at.iter().any(|b| forbidden.contains(b)) {
            stats.refused_tapir += 1;
            keep[k] = false;
        }
        params_at.push(at);
    }
    let mut k = 0;
    slots.retain(|_| {
        k += 1;
        keep[k - 1]
    });
    let mut k = 0;
    params_at.retain(|_| {
        k += 1;
        keep[k - 1]
    });
    if slots.is_empty() {
        return changed;
    }

    // Block parameters, per block in slot order.
    let mut block_params: HashMap<Block, Vec<(usize, Value)>> = HashMap::default();
    for (k, at) in params_at.iter().enumerate() {
        let ty = slots[k].ty.expect("a slot with accesses has a type");
        for &b in at {
            let v = func.append_block_param(b, ty);
            block_params.entry(b).or_default().push((k, v));
            stats.params += 1;
        }
    }

    // The renaming walk over the dominator tree.
    let mut role: HashMap<Inst, (usize, Role)> = HashMap::default();
    for (k, s) in slots.iter().enumerate() {
        role.insert(s.alloca, (k, Role::Alloca));
        for &st in &s.stores {
            role.insert(st, (k, Role::Store));
        }
        for &ld in &s.loads {
            role.insert(ld, (k, Role::Load));
        }
    }
    let mut subst: HashMap<Value, Value> = HashMap::default();
    let mut zeros: Vec<Value> = Vec::new();
    let mut current: Vec<Option<Value>> = vec![None; slots.len()];
    enum Step {
        Enter(Block),
        Restore(Vec<(usize, Option<Value>)>),
    }
    let entry = func.entry().expect("a function with slots has a body");
    let mut stack = vec![Step::Enter(entry)];
    while let Some(step) = stack.pop() {
        let b = match step {
            Step::Restore(saved) => {
                // Newest first, so a slot set twice gets its oldest value.
                for (k, v) in saved.into_iter().rev() {
                    current[k] = v;
                }
                continue;
            }
            Step::Enter(b) => b,
        };
        let mut saved: Vec<(usize, Option<Value>)> = Vec::new();
        let mut set = |current: &mut Vec<Option<Value>>, k: usize, v: Value| {
            saved.push((k, current[k]));
            current[k] = Some(v);
        };
        if let Some(ps) = block_params.get(&b) {
            for &(k, v) in ps {
                set(&mut current, k, v);
            }
        }
        let insts = func.blocks[b].insts.clone();
        let mut new_insts = Vec::with_capacity(insts.len());
        for i in insts {
            match role.get(&i) {
                Some(&(k, Role::Alloca)) => {
                    // The alloca's zero fill, as a constant in its place.
                    let ty = slots[k].ty.expect("typed");
                    let z = func.make_inst(Const::zero(ty).to_inst(), Some(ty));
                    func.locs[z] = func.locs[i];
                    let zv = func.result(z).expect("a constant has a result");
                    zeros.push(zv);
                    new_insts.push(z);
                    set(&mut current, k, zv);
                }
                Some(&(k, Role::Store)) => {
                    let InstKind::Store { value, .. } = *func.inst(i) else {
                        unreachable!("a store role is a store")
                    };
                    set(&mut current, k, value);
                }
                Some(&(k, Role::Load)) => {
                    let r = func.result(i).expect("a load has a result");
                    let v = current[k].expect("the alloca dominates its loads");
                    subst.insert(r, v);
                    stats.loads += 1;
                }
                None => new_insts.push(i),
            }
        }
        func.blocks[b].insts = new_insts;
        // Arguments for the successors' new parameters.
        if let Some(t) = func.terminator(b) {
            let mut calls: Vec<(Block, Vec<Value>)> = Vec::new();
            let add_args = |dest: Block| -> Vec<Value> {
                block_params.get(&dest).map_or_else(Vec::new, |ps| {
                    ps.iter()
                        .map(|&(k, _)| current[k].expect("the alloca dominates the edge"))
                        .collect()
                })
            };
            match func.inst(t) {
                InstKind::Jump(d) => calls.push((d.block, add_args(d.block))),
                InstKind::Brif {
                    then_dest,
                    else_dest,
                    ..
                } => {
                    calls.push((then_dest.block, add_args(then_dest.block)));
                    calls.push((else_dest.block, add_args(else_dest.block)));
                }
                _ => {}
            }
            match func.inst_mut(t) {
                InstKind::Jump(d) => d.args.extend(calls[0].1.iter().copied()),
                InstKind::Brif {
                    then_dest,
                    else_dest,
                    ..
                } => {
                    then_dest.args.extend(calls[0].1.iter().copied());
                    else_dest.args.extend(calls[1].1.iter().copied());
                }
                _ => {}
            }
        }
        stack.push(Step::Restore(saved));
        for &c in domtree.children(b).iter().rev() {
            stack.push(Step::Enter(c));
        }
    }

    // Loads become the values that reached them (following chains: a
    // stored value may itself be a promoted load).
    let resolve = |mut v: Value| {
        while let Some(&w) = subst.get(&v) {
            v = w;
        }
        v
    };
    let mut used: HashSet<Value> = HashSet::default();
    for &b in &func.layout {
        for &i in &func.blocks[b].insts {
            func.insts[i].kind.map_operands(resolve);
            func.insts[i].kind.for_each_operand(|v| {
                used.insert(v);
            });
        }
    }
    // Zero constants nobody reads (a slot always stored before read).
    let unused: HashSet<Value> = zeros.into_iter().filter(|z| !used.contains(z)).collect();
    if !unused.is_empty() {
        let Function {
            blocks,
            insts,
            layout,
            ..
        } = &mut *func;
        for &b in layout.iter() {
            blocks[b]
                .insts
                .retain(|&i| insts[i].result.is_none_or(|r| !unused.contains(&r)));
        }
    }
    stats.promoted += slots.len() as u64;
    true
}

#[derive(Clone, Copy)]
enum Role {
    Alloca,
    Store,
    Load,
}
