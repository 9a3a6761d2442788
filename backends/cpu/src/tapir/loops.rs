//! Parallel loops: lowering each of parir's Tapir loops
//! ([`tapir_loops`], the front end's `parallel_for` shape, matched there
//! for the optimizer, this backend and the AD alike) to one runtime call
//! over a chunked body function. Other detaches are lowered detach by
//! detach (a spawn per iteration: correct, slower). Before matching, pure
//! computations that a pass moved above the detach and that only the task
//! uses are sunk back into the task ([`sink_into_task`]).
//!
//! # The lowering
//!
//! The header's instructions are replaced (its only predecessors are now
//! outside the loop, so `iv` is `lo` there) by the trip count, the context
//! and `parallel_for(0, trip, body, ctx)` of the target, then a jump to
//! `exit`; `spawn`, the task and `latch` leave the function. The exit's
//! `sync within sr` stays and becomes a plain jump (no task is spawned
//! within `sr` any more, and the runtime call returns after the last
//! iteration). The body function `@<parent>.loop<N>(ptr ctx, i64 start,
//! i64 end)` is
//!
//! ```text
//! entry(ctx, start, end):  loads of the captures (lo, step, the task's own)
//!     jump head(start)
//! head(k: i64):  brif (icmp slt k, end), iter, done
//! iter:          iv = iadd lo, imul (trunc k), step ; then the task's blocks
//! next:          jump head(iadd k, 1)               ; the task's reattaches come here
//! done:          return
//! ```
//!
//! The task's first-block `alloca`s (per-iteration locals) are hoisted to
//! the body's entry and re-zeroed at their old place on every iteration:
//! the same semantics (a fresh zeroed object per iteration, whose previous
//! instance is dead), with a fixed-size frame.
//!
//! # Trip count
//!
//! In `i64`, after extending `lo`, `hi`, `step` by the signedness of `cc`:
//! for `<`, `lo < hi ? (hi - lo - 1) / step + 1 : 0`; for `<=`,
//! `lo <= hi ? (hi - lo) / step + 1 : 0`, with an unsigned division (`hi -
//! lo` is exact as an unsigned 64-bit number once `lo` is below `hi`, and
//! neither form overflows). A non-constant step that is not positive
//! violates the language's contract; the loop then runs no iteration
//! rather than dividing by zero. The induction variable is assumed not to
//! wrap (as in C, where a signed overflow is undefined), and a trip count
//! must fit in an `i64` (`lo`, `hi` of type `i64` more than `2^63` apart
//! are not supported).

use super::outline::{
    self, CtxLayout, clone_blocks, entry_mergeable, layout_ctx, load_ctx, put_frame_allocas, remat,
    remat_def, store_ctx, take_frame_allocas,
};
use super::places::Places;
use super::{FrameState, TapirError, TargetImpl, TaskBlocks};
use parc_ir::analysis::{FunctionAnalyses, TapirLoop, Task, tapir_loops};
use parc_ir::{
    BinaryOp, Block, BlockCall, CastOp, FuncBuilder, FuncId, Function, Inst, InstKind, IntCC,
    Intrinsic, Module, Type, Value,
};
use std::collections::{HashMap, HashSet};

/// Moves the pure computations of the detach's block whose results only
/// the task uses into the task's first block (Tapir allows code to move
/// above a detach, so a pass may have put loop-body arithmetic there).
/// They then run per iteration inside the task, which changes nothing
/// (they read no memory and have no effect) and leaves the detach alone
/// in its block, as the loop shape wants. The CFG is unchanged, so the
/// analyses stay valid. Returns whether anything moved.
pub(crate) fn sink_into_task(
    func: &mut Function,
    an: &FunctionAnalyses,
    task: Task,
    places: &mut Places,
) -> bool {
    let td = an.tasks.data(task);
    let d = td.detach_block;
    let Some((_, before)) = func.blocks[d].insts.split_last() else {
        return false;
    };
    let candidates: Vec<Inst> = before.to_vec();
    if candidates.is_empty() {
        return false;
    }
    // Users of each result of the block, outside the task.
    let mut outside_users: HashMap<Value, Vec<Inst>> = HashMap::new();
    for r in candidates.iter().filter_map(|&i| func.result(i)) {
        for (b, u) in places.users(func, r) {
            if !an.tasks.contains(task, b) {
                outside_users.entry(r).or_default().push(u);
            }
        }
    }
    // Last to first, so an instruction whose only outside users are sunk
    // instructions sinks too.
    let mut sunk: HashSet<Inst> = HashSet::new();
    for &i in candidates.iter().rev() {
        let kind = func.inst(i);
        let pure = !kind.has_side_effects()
            && !kind.may_read_memory()
            && !matches!(kind, InstKind::Alloca { .. });
        let Some(r) = func.result(i) else { continue };
        let only_task = outside_users
            .get(&r)
            .is_none_or(|users| users.iter().all(|u| sunk.contains(u)));
        if pure && only_task {
            sunk.insert(i);
        }
    }
    if sunk.is_empty() {
        return false;
    }
    let moved: Vec<Inst> = candidates
        .into_iter()
        .filter(|i| sunk.contains(i))
        .collect();
    func.blocks[d].insts.retain(|i| !sunk.contains(i));
    for &i in &moved {
        places.moved(i, td.entry);
    }
    func.blocks[td.entry].insts.splice(0..0, moved);
    true
}

/// Matches the detach of `task` (of the function body) against the
/// `parallel_for` shape (parir's [`tapir_loops`]), once the pure code above
/// the detach is sunk into the task ([`sink_into_task`]).
pub(crate) fn match_parallel_for(
    func: &Function,
    an: &FunctionAnalyses,
    task: Task,
    places: &Places,
) -> Option<TapirLoop> {
    tapir_loops::match_task(func, an, task, places).filter(|l| l.hoisted.is_empty())
}

/// Lowers a recognized loop (see the module doc) whose task is now made
/// of `blocks`, into the body function `body_id` (made empty by the plan).
/// `waits` are the groups of the task's spawns that may still run when an
/// iteration ends: the body waits for them after its last iteration.
#[allow(clippy::too_many_arguments)]
pub(crate) fn lower_parallel_for(
    module: &mut Module,
    func: &mut Function,
    an: &FunctionAnalyses,
    shape: &TapirLoop,
    blocks: &TaskBlocks,
    waits: &[Value],
    body_id: FuncId,
    places: &Places,
    target: &dyn TargetImpl,
    frame: &mut FrameState,
) -> Result<(), TapirError> {
    let (free_captured, remats) = outline::task_values(func, an, shape.task_id, blocks, places)?;
    let loc = func.locs[shape.cmp];
    let ty = func.value_type(shape.iv);
    let step_is_const = remat_def(func, shape.step).is_some();

    // The context: lo (the header's parameter, which is lo once the back
    // edge is gone), a variable step, then what the task itself captures.
    let mut captured = vec![shape.iv];
    if !step_is_const {
        captured.push(shape.step);
    }
    for v in free_captured {
        if !captured.contains(&v) {
            captured.push(v);
        }
    }
    let layout = layout_ctx(func, &captured);
    let mut body = std::mem::take(&mut module.funcs[body_id]);
    build_body(
        func, &mut body, an, shape, blocks, &layout, &remats, waits, target, loc,
    );
    module.funcs[body_id] = body;

    // The parent: the header computes the trip count and makes one call.
    // The task, `spawn` and `latch` leave the layout when the caller is
    // done with the function (see `Places`). The header may hold its
    // frame's `alloca`s at its top: only its compare and branch go.
    // Constants defined in the latch die with it: copy them first.
    let hi_kind = remat_def(func, shape.bound).cloned();
    let step_kind = remat_def(func, shape.step).cloned();
    let [cmp, br] = [
        shape.cmp,
        func.terminator(shape.header).expect("the header branches"),
    ];
    func.blocks[shape.header]
        .insts
        .retain(|&i| i != cmp && i != br);
    let mut b = FuncBuilder::new(func);
    b.set_loc(loc);
    b.switch_to(shape.header);
    let hi = materialize(&mut b, shape.bound, hi_kind, ty);
    let step = materialize(&mut b, shape.step, step_kind, ty);
    let trip = trip_count(&mut b, shape, hi, step, step_is_const);
    let ctx = store_ctx(&mut b, frame, &layout);
    target.parallel_for(&mut b, body_id, trip, ctx);
    b.jump(shape.exit, Vec::new());
    Ok(())
}

/// `v` itself, or a fresh copy of it when it is a constant (`kind`).
fn materialize(b: &mut FuncBuilder, v: Value, kind: Option<InstKind>, ty: Type) -> Value {
    match kind {
        Some(InstKind::Iconst(k)) => b.iconst(ty, k),
        Some(_) => unreachable!("a loop bound or step is an integer"),
        None => v,
    }
}

/// The number of iterations, as an `i64` (see the module doc).
fn trip_count(
    b: &mut FuncBuilder,
    shape: &TapirLoop,
    hi: Value,
    step: Value,
    step_is_const: bool,
) -> Value {
    let ty = b.func.value_type(shape.iv);
    let ext = |b: &mut FuncBuilder, v: Value| match ty {
        Type::I64 => v,
        _ if shape.signed => b.cast(CastOp::Sext, v, Type::I64),
        _ => b.cast(CastOp::Zext, v, Type::I64),
    };
    let lo64 = ext(b, shape.iv);
    let hi64 = ext(b, hi);
    let mut step64 = ext(b, step);
    let cc = match (shape.signed, shape.inclusive) {
        (true, false) => IntCC::Slt,
        (true, true) => IntCC::Sle,
        (false, false) => IntCC::Ult,
        (false, true) => IntCC::Ule,
    };
    let mut nonempty = b.icmp(cc, lo64, hi64);
    let zero = b.iconst(Type::I64, 0);
    let one = b.iconst(Type::I64, 1);
    if !step_is_const {
        let zero_t = b.iconst(ty, 0);
        let positive = b.icmp(
            if shape.signed { IntCC::Sgt } else { IntCC::Ne },
            step,
            zero_t,
        );
        nonempty = b.binary(BinaryOp::And, nonempty, positive);
        // Keeps the (then unused) division from trapping.
        step64 = b.select(positive, step64, one);
    }
    let diff = b.binary(BinaryOp::Isub, hi64, lo64);
    let span = if shape.inclusive {
        diff
    } else {
        b.binary(BinaryOp::Isub, diff, one)
    };
    let q = b.binary(BinaryOp::Udiv, span, step64);
    let n = b.binary(BinaryOp::Iadd, q, one);
    b.select(nonempty, n, zero)
}

/// Fills `body`, the empty function `@<parent>.loop<N>(ptr ctx, i64
/// start, i64 end)`.
#[allow(clippy::too_many_arguments)]
fn build_body(
    func: &Function,
    body: &mut Function,
    an: &FunctionAnalyses,
    shape: &TapirLoop,
    blocks: &TaskBlocks,
    layout: &CtxLayout,
    remats: &[Value],
    waits: &[Value],
    target: &dyn TargetImpl,
    loc: parc_ir::SrcLoc,
) {
    let td = an.tasks.data(shape.task_id);
    let ty = func.value_type(shape.iv);
    let entry = body.layout[0];
    let [ctx, start, end] = body.block_params(entry)[..] else {
        unreachable!("the plan made a body with three parameters")
    };
    let mut vmap = HashMap::new();
    let (head, iter, next, done);
    {
        let mut b = FuncBuilder::new(body);
        b.set_loc(loc);
        b.switch_to(entry);
        load_ctx(&mut b, func, ctx, layout, &mut vmap);
        for &v in remats {
            let nv = remat(&mut b, func, v);
            vmap.insert(v, nv);
        }
        let lo = vmap.remove(&shape.iv).expect("lo is captured");
        let step = match vmap.get(&shape.step) {
            Some(&s) => s,
            None => remat(&mut b, func, shape.step),
        };
        head = b.create_block();
        iter = b.create_block();
        next = b.create_block();
        done = b.create_block();
        b.jump(head, vec![start]);

        b.switch_to(head);
        let k = b.param(head, Type::I64);
        let more = b.icmp(IntCC::Slt, k, end);
        b.brif(more, BlockCall::to(iter), BlockCall::to(done));

        b.switch_to(iter);
        let k_ty = if ty == Type::I64 {
            k
        } else {
            b.cast(CastOp::Trunc, k, ty)
        };
        let offset = b.binary(BinaryOp::Imul, k_ty, step);
        let iv = b.binary(BinaryOp::Iadd, lo, offset);
        vmap.insert(shape.iv, iv);

        // `next` is placed after the task's blocks (below); it needs `k`,
        // which `head` dominates it with.
        let one = b.func.make_inst(InstKind::Iconst(1), Some(Type::I64));
        b.func.blocks[next].insts.push(one);
        let one = b.func.result(one).expect("a constant has a result");
        let k1 = b.func.append_inst(
            next,
            InstKind::Binary(BinaryOp::Iadd, k, one),
            Some(Type::I64),
        );
        let k1 = b.func.result(k1).expect("an add has a result");
        b.func
            .append_inst(next, InstKind::Jump(BlockCall::new(head, vec![k1])), None);
    }
    let merge = entry_mergeable(an, shape.task_id);
    let at = if merge {
        body.blocks[iter].insts.len()
    } else {
        0
    };
    let bmap = clone_blocks(
        func,
        body,
        &blocks.blocks,
        merge.then_some((td.entry, iter)),
        &td.reattaches,
        &InstKind::Jump(BlockCall::to(next)),
        &mut vmap,
    );
    let frame_allocas = take_frame_allocas(body, bmap[&td.entry], at, blocks.frame_allocas);
    if merge {
        hoist_allocas(body, iter, entry);
    } else {
        let mut b = FuncBuilder::new(body);
        b.set_loc(loc);
        b.switch_to(iter);
        b.jump(bmap[&td.entry], Vec::new());
    }
    put_frame_allocas(body, entry, frame_allocas);
    body.append_block(next);
    let mut b = FuncBuilder::new(body);
    b.set_loc(loc);
    b.switch_to(done);
    for &group in waits {
        target.wait(&mut b, vmap[&group]);
    }
    b.ret(None);
    for inst in body.blocks[next].insts.clone() {
        body.locs[inst] = loc;
    }
}

/// Moves the constant-size `alloca`s of `from` (run once per iteration) to
/// the top of `entry`, leaving code that zero-fills them in their place.
fn hoist_allocas(func: &mut Function, from: Block, entry: Block) {
    let old = std::mem::take(&mut func.blocks[from].insts);
    let mut kept = Vec::with_capacity(old.len());
    let mut hoisted = Vec::new();
    for inst in old {
        let InstKind::Alloca { size, align } = *func.inst(inst) else {
            kept.push(inst);
            continue;
        };
        hoisted.push(inst);
        let ptr = func.result(inst).expect("an alloca has a result");
        let loc = func.locs[inst];
        for z in zero_fill(func, ptr, size, align) {
            func.locs[z] = loc;
            kept.push(z);
        }
    }
    func.blocks[from].insts = kept;
    let entry_insts = &mut func.blocks[entry].insts;
    entry_insts.splice(0..0, hoisted);
}

/// Unplaced instructions that store `size` zero bytes at `ptr`: a few
/// naturally aligned stores when that is short, else a `memset`.
fn zero_fill(func: &mut Function, ptr: Value, size: u32, align: u32) -> Vec<Inst> {
    let mut out = Vec::new();
    let iconst = |func: &mut Function, out: &mut Vec<Inst>, ty: Type, k: i64| {
        let i = func.make_inst(InstKind::Iconst(k), Some(ty));
        out.push(i);
        func.result(i).expect("a constant has a result")
    };
    let widest = [8u32, 4, 1]
        .into_iter()
        .find(|&w| w <= align.max(1))
        .unwrap_or(1);
    if size / widest > 8 {
        let zero = iconst(func, &mut out, Type::I32, 0);
        let len = iconst(func, &mut out, Type::I64, i64::from(size));
        out.push(func.make_inst(
            InstKind::Intrinsic {
                op: Intrinsic::Memset,
                args: vec![ptr, zero, len],
            },
            None,
        ));
        return out;
    }
    let mut offset = 0;
    while offset < size {
        let (w, ty) = [(8, Type::I64), (4, Type::I32), (1, Type::I8)]
            .into_iter()
            .find(|&(w, _)| w <= widest && offset + w <= size && offset % w == 0)
            .expect("a byte store always fits");
        let zero = iconst(func, &mut out, ty, 0);
        let addr = if offset == 0 {
            ptr
        } else {
            let off = iconst(func, &mut out, Type::I64, i64::from(offset));
            let p = func.make_inst(InstKind::PtrAdd(ptr, off), Some(Type::Ptr));
            out.push(p);
            func.result(p).expect("a ptradd has a result")
        };
        out.push(func.make_inst(
            InstKind::Store {
                value: zero,
                ptr: addr,
            },
            None,
        ));
        offset += w;
    }
    out
}
