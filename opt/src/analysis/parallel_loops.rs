//! Parallel loops: which natural loops of a function have the front end's
//! `parallel_for` shape, i.e. the shape the CPU backend's Tapir lowering
//! turns into one chunked runtime call (`backends/cpu/src/tapir/loops.rs`).
//!
//! parir has no loop metadata, so "this loop is parallel" is not a mark in
//! the IR but this analysis: a side table recomputed from the IR whenever
//! someone asks ([`find`]). The `mark-parallel-loops` pass only reports it
//! (`--stats`), and `serialize-small-tasks` uses it to leave per-iteration
//! tasks alone. Keeping the shape a pure function of the IR means no pass
//! can leave a stale mark behind.
//!
//! # The shape
//!
//! ```text
//! header(iv: T):                    ; T an integer type (not i1)
//!     c = icmp cc iv, bound         ; or `icmp cc' bound, iv`; cc ∈ {slt, sle, ult, ule}
//!     brif c, spawn, exit
//! spawn:                            ; the detach, after pure code only the task uses
//!     detach within sr, task, latch
//! task: ...                         ; every exit: reattach within sr, latch
//! latch:                            ; the increment, plus constants
//!     iv' = iadd iv, step
//!     jump header(iv')
//! ```
//!
//! with `bound` and `step` loop-invariant (defined outside the loop, or
//! constants), a constant `step` positive (nonzero for unsigned `T`), the
//! natural loop of `header` made of exactly these blocks with `latch` its
//! only back edge and only reached from `spawn` and the task's reattaches,
//! no `sync within sr` inside the loop, `iv`, `c` and `iv'` used nowhere
//! else, and the task reading no value of the loop but `iv`.
//!
//! This is the backend's matcher, with one difference: `spawn` may also
//! hold pure instructions (no memory access, no effect, not an `alloca`)
//! whose results only the task uses — a pass may hoist loop-body
//! arithmetic above the detach (Tapir allows it), and the backend sinks
//! exactly those back into the task before it matches. Loops nested in a
//! task (a `parallel_for` in a spawned body or in another loop's body) are
//! found too: the backend lowers them when it outlines their parent.

use parc_ir::analysis::{FunctionAnalyses, Loop, Task};
use parc_ir::{
    BinaryOp, Block, BlockCall, Function, Inst, InstKind, SyncRegion, Type, Value, ValueDef,
};
use std::collections::{HashMap, HashSet};

/// A recognized parallel loop (names as in the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct ParallelLoop {
    pub header: Block,
    /// The block ending in the per-iteration detach.
    pub detach_block: Block,
    /// The task's first block (the detach's task successor).
    pub task: Block,
    /// The detach's continuation, the loop's only latch.
    pub latch: Block,
    /// Where the header goes when the compare fails.
    pub exit: Block,
    /// The induction variable (the header's only parameter).
    pub iv: Value,
    /// The upper bound `iv` is compared with.
    pub bound: Value,
    pub step: Value,
    /// The region every iteration is detached within.
    pub region: SyncRegion,
    /// The compare is signed (`slt`/`sle`).
    pub signed: bool,
    /// The compare is `<=` rather than `<`.
    pub inclusive: bool,
}

/// The loops with a `detach`, `reattach` or `sync` among their blocks
/// (which the loop passes of the final stage leave alone): each such
/// block's innermost loop and the loops around it, found in one walk up
/// the loop tree per block rather than by scanning every loop's blocks.
pub fn loops_with_tapir(func: &Function, an: &FunctionAnalyses) -> HashSet<Loop> {
    let mut set = HashSet::new();
    for &b in an.cfg.rpo() {
        if !func.ends_in_tapir(b) {
            continue;
        }
        let mut cur = an.loops.innermost(b);
        while let Some(lp) = cur {
            if !set.insert(lp) {
                break;
            }
            cur = an.loops.data(lp).parent;
        }
    }
    set
}

/// The parallel loops of `func`, in layout order of their headers.
pub fn find(func: &Function) -> Vec<ParallelLoop> {
    if func.is_declaration() {
        return Vec::new();
    }
    find_with(func, &FunctionAnalyses::compute(func))
}

/// As [`find`], with analyses the caller already has (they must be current).
pub fn find_with(func: &Function, an: &FunctionAnalyses) -> Vec<ParallelLoop> {
    let mut out: Vec<ParallelLoop> = an
        .tasks
        .tasks()
        .filter_map(|t| match_task(func, an, t))
        .collect();
    let order: HashMap<Block, usize> = func
        .layout
        .iter()
        .enumerate()
        .map(|(i, &b)| (b, i))
        .collect();
    out.sort_by_key(|l| order.get(&l.header).copied());
    out
}

/// True if `kind` is a constant the backend re-creates wherever it needs it.
fn is_constant(kind: &InstKind) -> bool {
    matches!(
        kind,
        InstKind::Iconst(_) | InstKind::Fconst(_) | InstKind::GlobalAddr(_) | InstKind::FuncAddr(_)
    )
}

fn constant_def(func: &Function, v: Value) -> Option<&InstKind> {
    match func.value_def(v) {
        ValueDef::Result(i) => Some(func.inst(i)).filter(|k| is_constant(k)),
        ValueDef::Param(..) => None,
    }
}

/// Matches the detach of `task` against the shape.
fn match_task(func: &Function, an: &FunctionAnalyses, task: Task) -> Option<ParallelLoop> {
    let td = an.tasks.data(task);
    let spawn = td.detach_block;
    if !td.escapes.is_empty() || !td.returns.is_empty() || an.cfg.preds(spawn).len() != 1 {
        return None;
    }
    let inst_block: HashMap<Inst, Block> = func.placed_insts().map(|(b, i)| (i, b)).collect();
    let def_block = |v: Value| match func.value_def(v) {
        ValueDef::Param(b, _) => Some(b),
        ValueDef::Result(i) => inst_block.get(&i).copied(),
    };

    // The latch: `iv' = iadd iv, step; jump header(iv')`, plus constants.
    let latch = td.cont;
    let latch_term = func.terminator(latch)?;
    let InstKind::Jump(BlockCall {
        block: header,
        args,
    }) = func.inst(latch_term)
    else {
        return None;
    };
    let header = *header;
    let [next] = args[..] else { return None };
    let [iv] = func.block_params(header)[..] else {
        return None;
    };
    let ty = func.value_type(iv);
    if !ty.is_int() || ty == Type::I1 {
        return None;
    }
    let ValueDef::Result(add) = func.value_def(next) else {
        return None;
    };
    let InstKind::Binary(BinaryOp::Iadd, a, c) = *func.inst(add) else {
        return None;
    };
    let step = match (a == iv, c == iv) {
        (true, false) => c,
        (false, true) => a,
        _ => return None,
    };
    let latch_ok = func.block_insts(latch).contains(&add)
        && func
            .block_insts(latch)
            .iter()
            .all(|&i| i == add || i == latch_term || is_constant(func.inst(i)));
    if !latch_ok {
        return None;
    }

    // The header: `c = icmp cc iv, bound; brif c, spawn, exit`.
    let [cmp, br] = func.block_insts(header)[..] else {
        return None;
    };
    let InstKind::Icmp(cc, x, y) = *func.inst(cmp) else {
        return None;
    };
    let cond = func.result(cmp)?;
    let InstKind::Brif {
        cond: bc,
        then_dest,
        else_dest,
    } = func.inst(br)
    else {
        return None;
    };
    if *bc != cond
        || then_dest.block != spawn
        || !then_dest.args.is_empty()
        || !else_dest.args.is_empty()
    {
        return None;
    }
    let exit = else_dest.block;
    let (cc, bound) = match (x == iv, y == iv) {
        (true, false) => (cc, y),
        (false, true) => (cc.swapped(), x),
        _ => return None,
    };
    let (signed, inclusive) = cc.upper_bound()?;

    // The natural loop is exactly header, spawn, the task and the latch.
    let lp = an.loops.loop_headed_by(header)?;
    let ld = an.loops.data(lp);
    if ld.latches != [latch] || ld.contains(exit) {
        return None;
    }
    let mut expected: HashSet<Block> = td.blocks.iter().copied().collect();
    expected.extend([header, spawn, latch]);
    if expected.len() != ld.blocks.len() || !ld.blocks.iter().all(|b| expected.contains(b)) {
        return None;
    }
    if !an
        .cfg
        .preds(latch)
        .iter()
        .all(|p| *p == spawn || td.reattaches.contains(p))
    {
        return None;
    }

    // `bound` and `step` are loop-invariant; a constant step is positive.
    let invariant =
        |v: Value| constant_def(func, v).is_some() || def_block(v).is_some_and(|b| !ld.contains(b));
    if !invariant(bound) || !invariant(step) {
        return None;
    }
    if let Some(InstKind::Iconst(k)) = constant_def(func, step)
        && (*k == 0 || (signed && *k < 0))
    {
        return None;
    }

    // No iteration waits for the previous ones.
    if an
        .tasks
        .region(td.region)
        .syncs
        .iter()
        .any(|b| ld.contains(*b))
    {
        return None;
    }

    // The spawn block: the detach after pure code that only the task uses
    // (what the backend sinks into the task before matching).
    let spawn_insts = func.block_insts(spawn);
    let (_, before) = spawn_insts.split_last()?;
    let hoisted: HashSet<Value> = before.iter().filter_map(|&i| func.result(i)).collect();
    for &i in before {
        let kind = func.inst(i);
        if kind.has_side_effects()
            || kind.may_read_memory()
            || matches!(kind, InstKind::Alloca { .. })
            || func.result(i).is_none()
        {
            return None;
        }
    }

    // `iv`, `c` and `iv'` are used only where the shape uses them, and the
    // task (with the hoisted code) reads nothing of the loop but `iv`.
    let in_task = |b: Block| td.contains(b);
    for (b, i) in func.placed_insts() {
        let ops = func.inst(i).operands();
        let in_body = in_task(b) || (b == spawn && i != *spawn_insts.last()?);
        if ops.contains(&iv) && i != cmp && i != add && !in_body {
            return None;
        }
        if (ops.contains(&cond) && i != br) || (ops.contains(&next) && i != latch_term) {
            return None;
        }
        if !in_body && ops.iter().any(|v| hoisted.contains(v)) {
            return None;
        }
        if in_body {
            for v in ops {
                let ok = v == iv
                    || hoisted.contains(&v)
                    || invariant(v)
                    || def_block(v).is_some_and(in_task);
                if !ok {
                    return None;
                }
            }
        }
    }

    Some(ParallelLoop {
        header,
        detach_block: spawn,
        task: td.entry,
        latch,
        exit,
        iv,
        bound,
        step,
        region: td.region,
        signed,
        inclusive,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use parc_ir::read::read_module;

    fn first(text: &str) -> Vec<ParallelLoop> {
        let m = read_module(text).unwrap();
        find(m.funcs.values().next().unwrap())
    }

    const SCALE: &str = "
func @scale(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    jump block1(v2)
block1(v3: i32):
    v4 = icmp slt v3, v1
    brif v4, block2, block5
block2:
    detach within sr0, block3, block4
block3:
    v5 = sext.i64 v3
    v6 = iconst.i64 8
    v7 = imul v5, v6
    v8 = ptradd v0, v7
    v9 = load.f64 v8
    v10 = fconst.f64 2.0
    v11 = fmul v9, v10
    store v11, v8
    reattach within sr0, block4
block4:
    v12 = iconst.i32 1
    v13 = iadd v3, v12
    jump block1(v13)
block5:
    sync within sr0, block6
block6:
    return
}
";

    #[test]
    fn finds_the_front_end_shape() {
        let loops = first(SCALE);
        assert_eq!(loops.len(), 1);
        let l = &loops[0];
        let b = Block::from_u32;
        assert_eq!(
            (l.header, l.detach_block, l.task, l.latch, l.exit),
            (b(1), b(2), b(3), b(4), b(5))
        );
        assert_eq!(
            (l.iv, l.bound, l.step),
            (Value::from_u32(3), Value::from_u32(1), Value::from_u32(12))
        );
        assert!(l.signed && !l.inclusive);
        assert_eq!(l.region, SyncRegion::from_u32(0));
    }

    #[test]
    fn tolerates_pure_code_hoisted_above_the_detach() {
        let text = SCALE.replace(
            "block2:\n    detach",
            "block2:\n    v20 = sext.i64 v3\n    detach",
        );
        let text = text.replace("v5 = sext.i64 v3", "v5 = iadd v20, v20");
        assert_eq!(first(&text).len(), 1);
    }

    #[test]
    fn rejects_a_loop_whose_iv_is_read_after_it() {
        let text = SCALE.replace(
            "block5:\n    sync",
            "block5:\n    v30 = iadd v3, v3\n    sync",
        );
        assert!(first(&text).is_empty());
    }

    #[test]
    fn rejects_a_serial_loop_and_a_spawn() {
        let fib = include_str!("../../../tests/filetests/verify/fib.pir");
        assert!(first(fib).is_empty());
        let text = SCALE.replace("v13 = iadd v3, v12", "v13 = isub v3, v12");
        assert!(first(&text).is_empty());
    }
}
