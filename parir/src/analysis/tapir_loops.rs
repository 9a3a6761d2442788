//! Tapir loops (OpenCilk's `TapirLoopInfo`): the detached tasks that are
//! the iterations of a parallel loop of the front end's `parallel_for`
//! shape. It is the one place that shape is matched: the optimizer
//! reports and preserves these loops, the CPU backend lowers each to one
//! chunked runtime call, and the AD reverses each as a parallel loop.
//!
//! parir has no loop metadata, so "this loop is parallel" is not a mark in
//! the IR but this analysis, a side table recomputed from the IR: no pass
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
//! only back edge and only reached from `spawn` and the task's reattaches
//! (blocks of the task that never reach the latch, the dead ends of an
//! error `exit(1)` in the body, lie outside the natural loop and are
//! allowed: they end the program, not the iteration),
//! no `sync within sr` inside the loop (other detaches may share `sr`),
//! `iv`, `c` and `iv'` used nowhere else, and the task (with the code
//! above the detach) reading no value of the loop but `iv`.
//!
//! `spawn` may hold pure instructions (no memory access, no effect, not an
//! `alloca`) whose results only the task uses ([`TapirLoop::hoisted`]): a
//! pass may hoist loop-body arithmetic above the detach, as Tapir allows.
//! The CPU backend sinks them back into the task before it lowers; the AD
//! takes only loops without them. Loops nested in a task (a
//! `parallel_for` in a spawned body or in another loop's body) are found
//! too.

use super::{FunctionAnalyses, Loop, Task};
use crate::{
    BinaryOp, Block, BlockCall, Function, Inst, InstKind, SyncRegion, Type, Value, ValueDef,
};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{EntitySet, SecondaryMap};
use std::collections::{HashMap, HashSet};

/// A parallel loop (names as in the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct TapirLoop {
    /// The task of the per-iteration detach.
    pub task_id: Task,
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
    /// The header's compare.
    pub cmp: Inst,
    /// The pure instructions above the detach, whose results only the
    /// task uses (in block order).
    pub hoisted: Vec<Inst>,
}

/// Where values are defined and which placed instructions use them: what
/// the matcher asks of a function. [`Uses`] computes it; a caller that
/// edits the function as it goes (the CPU backend's Tapir lowering) keeps
/// its own current.
pub trait DefUse {
    /// The block defining `v` (none for a result of an unplaced
    /// instruction).
    fn def_block(&self, func: &Function, v: Value) -> Option<Block>;
    /// Calls `f` with each placed instruction using `v` and its block (an
    /// instruction may come more than once).
    fn for_each_user(&self, func: &Function, v: Value, f: &mut dyn FnMut(Block, Inst));
}

/// [`DefUse`] of a function as it is.
pub struct Uses {
    block: SecondaryMap<Inst, PackedOption<Block>>,
    users: SecondaryMap<Value, Vec<Inst>>,
}

impl Uses {
    pub fn compute(func: &Function) -> Uses {
        let mut uses = Uses {
            block: SecondaryMap::new(),
            users: SecondaryMap::new(),
        };
        for (b, i) in func.placed_insts() {
            uses.block[i] = b.into();
            func.inst(i).for_each_operand(|v| uses.users[v].push(i));
        }
        uses
    }
}

impl DefUse for Uses {
    fn def_block(&self, func: &Function, v: Value) -> Option<Block> {
        match func.value_def(v) {
            ValueDef::Param(b, _) => Some(b),
            ValueDef::Result(i) => self.block[i].expand(),
        }
    }

    fn for_each_user(&self, _: &Function, v: Value, f: &mut dyn FnMut(Block, Inst)) {
        for &i in self.users.get(v).into_iter().flatten() {
            if let Some(b) = self.block[i].expand() {
                f(b, i);
            }
        }
    }
}

/// The Tapir loops of `func`, in layout order of their headers.
pub fn find(func: &Function) -> Vec<TapirLoop> {
    if func.is_declaration() {
        return Vec::new();
    }
    find_with(func, &FunctionAnalyses::compute(func), &Uses::compute(func))
}

/// As [`find`], with analyses the caller already has (they must be current).
pub fn find_with(func: &Function, an: &FunctionAnalyses, uses: &dyn DefUse) -> Vec<TapirLoop> {
    let mut out: Vec<TapirLoop> = an
        .tasks
        .tasks()
        .filter_map(|t| match_task(func, an, t, uses))
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

/// The loops with a `detach`, `reattach` or `sync` among their blocks
/// (which the loop passes of the final stage leave alone), found in one
/// walk up the loop tree per such block
/// ([`LoopAnalysis::loops_containing`](super::LoopAnalysis::loops_containing)).
pub fn loops_with_tapir(func: &Function, an: &FunctionAnalyses) -> EntitySet<Loop> {
    let tapir = an
        .cfg
        .rpo()
        .iter()
        .copied()
        .filter(|&b| func.ends_in_tapir(b));
    an.loops.loops_containing(tapir)
}

/// True if `kind` is a constant that code anywhere may re-create where it
/// needs it (so a loop's bound or step may be one defined inside it).
pub fn is_constant(kind: &InstKind) -> bool {
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

/// Matches the detach of `task` against the shape (see the module doc).
pub fn match_task(
    func: &Function,
    an: &FunctionAnalyses,
    task: Task,
    uses: &dyn DefUse,
) -> Option<TapirLoop> {
    let td = an.tasks.data(task);
    let spawn = td.detach_block;
    if !td.escapes.is_empty() || !td.returns.is_empty() || an.cfg.preds(spawn).len() != 1 {
        return None;
    }

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
    if !an
        .cfg
        .preds(latch)
        .iter()
        .all(|p| *p == spawn || td.reattaches.contains(p))
    {
        return None;
    }
    // The loop has no block but these three and the task's. When tasks
    // are dominator subtrees, it has no other kind of block: one would
    // reach the latch through a reattach of the task (the spawn's only
    // predecessor is the header), so enter the task, which only the spawn
    // does. Then counting them suffices, and a deep nest of loops is not
    // quadratic to match.
    let three = [header, spawn, latch];
    let task_blocks = an.tasks.blocks(task);
    if three.iter().any(|&b| an.tasks.contains(task, b)) {
        return None;
    }
    if ld.blocks.len() != task_blocks.len() + three.len() {
        // Blocks of the task outside the natural loop never reach the
        // latch: dead ends of the body (C's error exits, `exit(1)` then
        // `unreachable`), which end the program rather than the
        // iteration. Each must lead only to such blocks; they are counted
        // only when there are any, so the common case stays a comparison.
        let dead_end = |b: Block| an.tasks.contains(task, b) && !ld.contains(b);
        let outside: Vec<Block> = task_blocks
            .iter()
            .copied()
            .filter(|&b| dead_end(b))
            .collect();
        if outside.is_empty()
            || ld.blocks.len() + outside.len() != task_blocks.len() + three.len()
            || !outside
                .iter()
                .all(|&b| an.cfg.succs(b).iter().all(|&s| dead_end(s)))
        {
            return None;
        }
    }
    if !an.tasks.are_subtrees()
        && !ld
            .blocks
            .iter()
            .all(|&b| three.contains(&b) || an.tasks.contains(task, b))
    {
        return None;
    }

    // `bound` and `step` are loop-invariant; a constant step is positive.
    let invariant = |v: Value| {
        constant_def(func, v).is_some() || uses.def_block(func, v).is_some_and(|b| !ld.contains(b))
    };
    if !invariant(bound) || !invariant(step) {
        return None;
    }
    if let Some(InstKind::Iconst(k)) = constant_def(func, step)
        && (*k == 0 || (signed && *k < 0))
    {
        return None;
    }

    // No iteration waits for the previous ones. Other detaches may share
    // the region: a loop lowered to one runtime call returns after the
    // last iteration, which orders more than the region's sync would.
    if an
        .tasks
        .region(td.region)
        .syncs
        .iter()
        .any(|b| ld.contains(*b))
    {
        return None;
    }

    // The spawn block: the detach after pure code.
    let spawn_insts = func.block_insts(spawn);
    let (_, before) = spawn_insts.split_last()?;
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
    let hoisted: HashSet<Inst> = before.iter().copied().collect();
    let in_body = |b: Block, i: Inst| an.tasks.contains(task, b) || hoisted.contains(&i);

    // `iv`, `c` and `iv'` are used only where the shape uses them, and
    // what the hoisted code computes only in the body.
    let mut ok = true;
    uses.for_each_user(func, iv, &mut |b, i| {
        ok &= i == cmp || i == add || in_body(b, i);
    });
    uses.for_each_user(func, cond, &mut |_, i| ok &= i == br);
    uses.for_each_user(func, next, &mut |_, i| ok &= i == latch_term);
    for &h in before {
        let r = func.result(h)?;
        uses.for_each_user(func, r, &mut |b, i| ok &= in_body(b, i));
    }
    if !ok {
        return None;
    }

    // The body reads nothing of the loop but `iv` (and the hoisted code):
    // the loop's other values are `c` and `iv'`, whose uses are checked
    // above, constants, and the parameters of `spawn` and `latch`, which
    // they must not have.
    if !func.block_params(spawn).is_empty() || !func.block_params(latch).is_empty() {
        return None;
    }

    Some(TapirLoop {
        task_id: task,
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
        cmp,
        hoisted: before.to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::read_module;

    fn first(text: &str) -> Vec<TapirLoop> {
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
        assert!(l.signed && !l.inclusive && l.hoisted.is_empty());
        assert_eq!(l.region, SyncRegion::from_u32(0));
    }

    #[test]
    fn tolerates_pure_code_hoisted_above_the_detach() {
        let text = SCALE.replace(
            "block2:\n    detach",
            "block2:\n    v20 = sext.i64 v3\n    detach",
        );
        let text = text.replace("v5 = sext.i64 v3", "v5 = iadd v20, v20");
        let loops = first(&text);
        assert_eq!(loops.len(), 1);
        assert_eq!(loops[0].hoisted.len(), 1);
    }

    #[test]
    fn rejects_hoisted_code_used_after_the_loop() {
        let text = SCALE.replace(
            "block2:\n    detach",
            "block2:\n    v20 = sext.i64 v3\n    detach",
        );
        let text = text.replace(
            "block5:\n    sync",
            "block5:\n    v30 = iadd v20, v20\n    sync",
        );
        assert!(first(&text).is_empty());
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
    fn finds_a_body_with_an_error_exit() {
        // `if (x[i] < 0) exit(1);`: a dead end of the task, outside the
        // natural loop.
        let text = SCALE.replace(
            "    v9 = load.f64 v8\n",
            "    v9 = load.f64 v8\n    v20 = fconst.f64 0.0\n    v21 = fcmp lt v9, v20\n    brif v21, block7, block8\nblock7:\n    v22 = iconst.i32 1\n    exit v22\n    unreachable\nblock8:\n",
        );
        let loops = first(&text);
        assert_eq!(loops.len(), 1);
        assert_eq!(loops[0].latch, Block::from_u32(4));
    }

    #[test]
    fn rejects_a_serial_loop_and_a_spawn() {
        let fib = include_str!("../../../tests/filetests/verify/fib.pir");
        assert!(first(fib).is_empty());
        let text = SCALE.replace("v13 = iadd v3, v12", "v13 = isub v3, v12");
        assert!(first(&text).is_empty());
    }
}
