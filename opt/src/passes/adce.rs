//! `adce`: aggressive dead code elimination. Everything is presumed dead
//! until proven live, so, unlike `dce`, dead *cycles* go too — typically a
//! loop-carried value (a block parameter of a loop header) that nobody
//! reads except its own update on the back edge.
//!
//! # Liveness
//! Roots: every instruction with an effect ([`InstKind::has_side_effects`]:
//! stores, calls, impure intrinsics, divisions that may trap), every
//! terminator, and every load (see below). This is the "all branches live"
//! variant of ADCE: control flow is never removed (no post-dominator-based
//! control dependence), so infinite loops, exits and Tapir's
//! `detach`/`reattach`/`sync` stay as they are; `simplify-cfg` cleans up
//! blocks that end up empty.
//!
//! **Memory nothing reads.** A fresh allocation (`malloc`, `calloc`) whose
//! address — the result, or an address `ptradd` derives from it — is only
//! ever the address of a `store` or `memset`, or `free`'s argument, holds
//! values nobody can observe: those stores, the `memset`s, the `free` and
//! the allocation are not roots (see `write_only_memory`), so they go,
//! and so does what computed the stored values. (A gradient's forward sweep
//! leaves such arrays behind: n-body's per-body energies, whose sum the
//! gradient does not return.)
//!
//! Loads are roots because a load may fault, and in a dead cycle the
//! faulting load is often what ends the loop: `while (1) { s += n->v; n =
//! n->next; }` stops at the null pointer (`tests/run/null_deref.pc`), and
//! without its loads it would spin forever. A faulting load is undefined
//! behaviour, so removing it would be allowed, but turning a reported fault
//! into a hang helps nobody. This costs little: a kept load whose result
//! nobody uses (`s`'s `n->v` above, once `s` is gone) is removed by `dce`;
//! only loads whose result feeds their own address (pointer chasing) stay.
//!
//! A live instruction makes its operands live, except that a branch's
//! block-call arguments are not operands of the branch itself: argument
//! `i` of a branch to `B` is live only once `B`'s parameter `i` is live.
//! (A `brif`'s condition and a `return`'s value are live with the branch.)
//! A live block parameter makes argument `i` of every branch to its block
//! live. Entry-block parameters are the function's and always stay.
//!
//! # Removal
//! Dead instructions leave their blocks; dead block parameters leave their
//! blocks, with the matching argument of every branch to them, and the
//! remaining parameters are renumbered.
//!
//! Tapir: nothing moves, control flow is untouched, and the blocks a
//! detach, reattach or sync targets have no parameters, so every Tapir
//! rule that held before holds after.

use crate::PassContext;
use crate::analysis::allocations::allocations;
use crate::{HashMap, HashSet};
use parc_ir::{Block, Function, InstKind, Intrinsic, Module, Value, ValueDef};

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let (mut insts, mut params) = (0, 0);
    let changed = crate::for_each_function(module, |f| {
        let (i, p) = run_function(f);
        insts += i;
        params += p;
        i + p > 0
    });
    ctx.count("adce.removed-insts", insts);
    ctx.count("adce.removed-params", params);
    changed
}

/// Removes the dead instructions and block parameters of `func`; returns
/// how many of each.
pub fn run_function(func: &mut Function) -> (u64, u64) {
    let unread = write_only_memory(func);
    let live = live_values(func, &unread);

    // Instructions: keep the effects and those whose result is live.
    let mut removed_insts = 0;
    for &b in &func.layout {
        let before = func.blocks[b].insts.len();
        let insts = std::mem::take(&mut func.blocks[b].insts);
        let keep: Vec<_> = insts
            .into_iter()
            .filter(|&i| {
                let data = &func.insts[i];
                is_root(&data.kind, &unread) || data.result.is_some_and(|r| live.contains(&r))
            })
            .collect();
        removed_insts += (before - keep.len()) as u64;
        func.blocks[b].insts = keep;
    }

    // Block parameters (never the entry's: they are the signature's).
    let mut dead_params: HashMap<Block, Vec<bool>> = HashMap::default();
    for &b in func.layout.iter().skip(1) {
        let dead: Vec<bool> = func.blocks[b]
            .params
            .iter()
            .map(|v| !live.contains(v))
            .collect();
        if dead.iter().any(|&d| d) {
            dead_params.insert(b, dead);
        }
    }
    let mut removed_params = 0;
    if !dead_params.is_empty() {
        for (&b, dead) in &dead_params {
            let params = std::mem::take(&mut func.blocks[b].params);
            let kept: Vec<Value> = params
                .into_iter()
                .zip(dead)
                .filter(|(_, d)| !**d)
                .map(|(v, _)| v)
                .collect();
            removed_params += (dead.len() - kept.len()) as u64;
            for (n, &v) in kept.iter().enumerate() {
                func.values[v].def = ValueDef::Param(b, n as u32);
            }
            func.blocks[b].params = kept;
        }
        for (_, i) in func
            .placed_insts()
            .filter(|&(_, i)| func.inst(i).is_terminator())
            .collect::<Vec<_>>()
        {
            for call in func.inst_mut(i).block_calls_mut() {
                if let Some(dead) = dead_params.get(&call.block) {
                    let mut n = 0;
                    call.args.retain(|_| {
                        n += 1;
                        !dead[n - 1]
                    });
                }
            }
        }
    }
    (removed_insts, removed_params)
}

/// The live values of `func` (see the module doc).
fn live_values(func: &Function, unread: &HashSet<Value>) -> HashSet<Value> {
    // For each block parameter, the branch arguments that feed it.
    let mut incoming: HashMap<Value, Vec<Value>> = HashMap::default();
    for (_, i) in func.placed_insts() {
        for call in func.inst(i).block_calls() {
            let Some(params) = func.blocks.get(call.block).map(|d| &d.params) else {
                continue;
            };
            for (&p, &a) in params.iter().zip(&call.args) {
                incoming.entry(p).or_default().push(a);
            }
        }
    }

    let mut live: HashSet<Value> = HashSet::default();
    let mut work: Vec<Value> = Vec::new();
    let mark = |v: Value, live: &mut HashSet<Value>, work: &mut Vec<Value>| {
        if live.insert(v) {
            work.push(v);
        }
    };
    if let Some(entry) = func.entry() {
        for &p in func.block_params(entry) {
            mark(p, &mut live, &mut work);
        }
    }
    for (_, i) in func.placed_insts() {
        let kind = func.inst(i);
        if !is_root(kind, unread) {
            continue;
        }
        for v in root_operands(kind) {
            mark(v, &mut live, &mut work);
        }
    }
    while let Some(v) = work.pop() {
        match func.value_def(v) {
            ValueDef::Result(i) => {
                for u in root_operands(func.inst(i)) {
                    mark(u, &mut live, &mut work);
                }
            }
            ValueDef::Param(..) => {
                for &a in incoming.get(&v).into_iter().flatten() {
                    mark(a, &mut live, &mut work);
                }
            }
        }
    }
    live
}

/// True for the instructions that are live whatever their result's fate:
/// effects (except on memory nothing reads, `unread`) and loads.
fn is_root(kind: &InstKind, unread: &HashSet<Value>) -> bool {
    // Effects that need a live result or readable memory to matter.
    let only_if_used = match kind {
        InstKind::Store { ptr, .. } => unread.contains(ptr),
        InstKind::Intrinsic {
            op: Intrinsic::Free | Intrinsic::Memset,
            args,
        } => args.first().is_some_and(|p| unread.contains(p)),
        // An allocation: live only if its result is.
        InstKind::Intrinsic {
            op: Intrinsic::Malloc | Intrinsic::Calloc,
            ..
        } => true,
        _ => false,
    };
    !only_if_used && (kind.has_side_effects() || matches!(kind, InstKind::Load(_)))
}

/// The fresh allocations of `func` whose memory nothing reads, with every
/// address derived from them (see the module doc): each use is the address
/// of a `store` (not the stored value) or of a `memset` (not its other
/// arguments), `free`'s argument, or the base of a `ptradd` whose result
/// obeys the same rule, and at most one `free`. Anything else — a load, a
/// call, a comparison, a branch argument, storing the address itself —
/// keeps the allocation.
fn write_only_memory(func: &Function) -> HashSet<Value> {
    allocations(func)
        .into_iter()
        // Two `free`s may be a double free, which the interpreter reports:
        // left alone rather than silenced.
        .filter(|a| !a.escapes && a.loads.is_empty() && a.frees <= 1)
        .flat_map(|a| a.derived)
        .collect()
}

/// The operands an instruction needs for itself: all of them, except a
/// branch's block-call arguments (which belong to the target's parameters).
fn root_operands(kind: &InstKind) -> Vec<Value> {
    match kind {
        InstKind::Jump(_) => Vec::new(),
        InstKind::Brif { cond, .. } => vec![*cond],
        other => other.operands(),
    }
}
