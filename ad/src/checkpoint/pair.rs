//! The split pair of a segment function (`outline.rs`): where the
//! checkpoint happens.
//!
//! The gradient calls the segment as any active callee, through
//! `seg.aug` in its forward sweep and `seg.rev` in its reverse, but this
//! pair records no segment:
//! - `seg.aug` copies what the segment may write (`writes.rs`), but for
//!   its scratch roots (`scratch.rs`), into a snapshot, pushes the
//!   snapshot's address onto the tape (one slot) and runs the primal
//!   segment;
//! - `seg.rev` pops the snapshot, swaps it with the memory (which gets
//!   the state the segment started from), copies the scratch roots
//!   aside, runs the augmented forward of a copy of the segment
//!   (`seg.in.aug`, recording its iterations onto the tape) and at once
//!   its reverse (`seg.in.rev`), then copies the swapped-out contents and
//!   the scratch back, so that between reverses the memory is what the
//!   forward sweep left (code reversed later may read it), and frees the
//!   snapshot.
//!
//! The snapshot is `{ptr, len}` per root, then the bytes, in one
//! allocation; `ad_tape_note` counts it as recorded (`PARC_AD_STATS`).
//! Each call pushes two slots: the snapshot (null where the segment was
//! recorded instead) and the number of iterations it ran at most.
//!
//! Under `--tape-budget` (`Budget`) the period is chosen at run time, by
//! `seg.aug`'s first call: it records the loop's first iteration (through
//! `seg.in.aug`, no snapshot: `seg.rev` reverses it with `seg.in.rev`)
//! and measures its records `R` with `ad_tape_measure`, computes the
//! snapshot's size `S` and reads the trip count `T` the caller stored
//! (`outline.rs`), and chooses (`choose`): every remaining iteration
//! recorded when `T·R` fits the budget, else the period `k` for which
//! the peak `R + ceil((T - 1)/k)·S + k·R` is least if that fits, else
//! Revolve (`revolve.rs`) with the `c` snapshots that fit. The choice is
//! kept in the caller's `state` for the calls that follow.
//!
//! Revolve runs one step per call. `seg.aug` takes a snapshot where the
//! schedule puts one (the first at step 1), onto a stack of `c` in
//! `state`, and pushes the period [`REVOLVE`]. `seg.rev` of step `i`
//! restores the stack's top snapshot (at step `j <= i`), runs the primal
//! from `j` to `i` (leaving snapshots on the way where the schedule puts
//! them, while the stack has room), records step `i` and reverses it;
//! the snapshot at `i` is freed. Between these reverses (nothing else
//! runs between them) the memory is not what the forward sweep left:
//! after step 1 it runs the loop's steps 2 to `T - 1` once more, so that
//! it is again before the first step's reverse and the code reversed
//! after it, or, where `choose` found that cheaper and the budget holds
//! it, restores a snapshot of the state the loop ended in (taken by the
//! call past the last step, scratch included).

use super::revolve;
use super::writes::{Root, Written, by_root};
use crate::reverse::{Ctx, Pair};
use parc_ir::{
    Activity, BinaryOp, BlockCall, CastOp, FuncBuilder, FuncId, Function, GlobalData, IntCC,
    Intrinsic, Linkage, Module, SrcLoc, Type, Value, new_function,
};

/// `--tape-budget`: what `seg.aug` needs to choose the period.
#[derive(Clone, Debug)]
pub struct Budget {
    pub bytes: crate::checkpoint::Bytes,
    /// The first of the [`PLAN_SLOTS`] 8-byte slots of the caller's
    /// `state` it uses (`outline.rs`; the caller stores 0 in the first
    /// and the trip count, -1 if unknown, in the second).
    pub slot: usize,
    /// The loop's position, its file and a few words naming it, for the
    /// warning.
    pub loc: SrcLoc,
    pub file: String,
    pub what: String,
}

/// The slots of `state` a budget uses, from [`Budget::slot`]: the period
/// chosen (0 before the first call, [`RECORD`], [`REVOLVE`] or a period),
/// the trip count, then for Revolve the number of snapshots it may keep,
/// its stack of snapshots (`{step, snapshot}` pairs, malloc'd), the
/// stack's length, the next step and the step of the next snapshot of
/// the forward sweep, whether to keep a snapshot of the state the loop
/// ends in (1) rather than run its steps once more after the reverse (0),
/// and that snapshot (null until the loop's exit).
pub const PLAN_SLOTS: usize = 9;
pub(super) const CHOSEN: usize = 0;
pub(super) const TRIP: usize = 1;
pub(super) const CAP: usize = 2;
pub(super) const STACK: usize = 3;
pub(super) const LEN: usize = 4;
pub(super) const STEP: usize = 5;
pub(super) const NEXT: usize = 6;
pub(super) const WANT_END: usize = 7;
pub(super) const END: usize = 8;
/// Periods with a meaning of their own: record every remaining
/// iteration; follow the binomial schedule, one step per call.
pub(super) const RECORD: i64 = -1;
pub(super) const REVOLVE: i64 = -2;

/// The snapshot's roots and the scratch roots (`scratch.rs`), by root.
pub(super) type Groups = Vec<(Root, Vec<Written>)>;

/// Gives `pair` (declared for segment `seg`, whose writes are `writes`,
/// the roots in `scratch` scratch) its bodies; queues the pair of the
/// copy they run.
pub fn build(
    m: &mut Module,
    ctx: &mut Ctx,
    seg: FuncId,
    pair: &Pair,
    writes: &[Written],
    scratch: &[Root],
    budget: Option<&Budget>,
) {
    let mut copy: Function = m.funcs[seg].clone();
    copy.name = m.fresh_func_name(&format!("{}.in", m.funcs[seg].name));
    copy.linkage = Linkage::Local;
    let copy = m.funcs.push(copy);
    let inner = ctx.pair(
        m,
        &crate::plan::CallPlan {
            callee: copy,
            acts: pair.acts.clone(),
            ret_active: pair.ret_active,
            ret_shadow: pair.ret_shadow,
            atomic: pair.atomic,
            private: pair.private,
        },
    );
    // Where each of the segment's parameters is among the pair's.
    let mut at = Vec::new();
    let mut k = 1;
    for a in &pair.acts {
        at.push(k);
        k += if matches!(a, Activity::Dup | Activity::DupNoNeed) {
            2
        } else {
            1
        };
    }
    // The segment's last two parameters: `state` and the period.
    let (state_at, k_at) = (at[at.len() - 2], at[at.len() - 1]);
    let aug_len = m.funcs[pair.aug].sig.params.len();
    let (groups, temps): (Groups, Groups) = by_root(writes)
        .into_iter()
        .partition(|(r, _)| !scratch.contains(r));
    let tape = ctx.tape;
    let warning = budget.map(|bd| warning_text(m, bd));
    let split = budget.map(|_| revolve::split_helper(m));
    let cost = budget.map(|_| revolve::cost_helper(m));
    // The snapshot of the state the loop ends in keeps the scratch too:
    // the memory is then what the primal left.
    let all: Groups = groups.iter().chain(&temps).cloned().collect();

    let aug_sig = m.funcs[pair.aug].sig.clone();
    let mut aug = new_function(m.funcs[pair.aug].name.clone(), aug_sig.clone());
    aug.linkage = Linkage::Local;
    aug.kind = m.funcs[seg].kind;
    {
        let entry = aug.layout[0];
        let ps = aug.blocks[entry].params.clone();
        let mut b = FuncBuilder::new(&mut aug);
        b.switch_to(entry);
        let ret = m.funcs[seg].sig.ret;
        let aug_ret = m.funcs[inner.aug].sig.ret;
        let with_k = |k: Value| {
            let mut args = ps.clone();
            args[k_at] = k;
            args
        };
        let seg_args = |k: Value| -> Vec<Value> { at.iter().map(|&i| with_k(k)[i]).collect() };
        let k = match budget {
            None => ps[k_at],
            Some(bd) => {
                let state = ps[state_at];
                let plan = slot_ptr(&mut b, state, bd.slot + CHOSEN);
                let chosen = b.load(Type::I64, plan);
                let zero = b.iconst(Type::I64, 0);
                let first = b.icmp(IntCC::Eq, chosen, zero);
                let (measure, planned) = (b.create_block(), b.create_block());
                b.brif(first, BlockCall::to(measure), BlockCall::to(planned));

                // The first call: record one iteration, measured.
                b.switch_to(measure);
                let one = b.iconst(Type::I64, 1);
                let before = measure_tape(&mut b, 1);
                let r = b.call(inner.aug, aug_ret, with_k(one)[..aug_len].to_vec());
                let after = measure_tape(&mut b, 0);
                let per_iter = b.binary(BinaryOp::Isub, after, before);
                push_marker(&mut b, tape.push, ps[0], None, one);
                let seg_ps = seg_args(one);
                let (snapshot, _) = extents(&mut b, &groups, &seg_ps);
                let (temp, _) = extents(&mut b, &temps, &seg_ps);
                let trip = load_slot(&mut b, state, bd.slot + TRIP);
                let sizes = Sizes {
                    per_iter,
                    snapshot,
                    temp,
                    trip,
                };
                let cost = cost.expect("a budget has the helper");
                let (k, cap, want_end) = choose(&mut b, bd, &sizes, warning.as_ref(), cost);
                store_slot(&mut b, k, state, bd.slot + CHOSEN);
                let rv = b.iconst(Type::I64, REVOLVE);
                let is_rv = b.icmp(IntCC::Eq, k, rv);
                let (start_rv, back) = (b.create_block(), b.create_block());
                b.brif(is_rv, BlockCall::to(start_rv), BlockCall::to(back));
                b.switch_to(start_rv);
                // The stack, its length, and the first snapshot: the
                // state after the measured step.
                let sixteen = b.iconst(Type::I64, 16);
                let bytes = b.binary(BinaryOp::Imul, cap, sixteen);
                let stack = b
                    .intrinsic(Intrinsic::Malloc, Some(Type::Ptr), vec![bytes])
                    .expect("malloc has a result");
                crate::tape::note(&mut b, bytes, bytes);
                store_slot(&mut b, cap, state, bd.slot + CAP);
                store_slot(&mut b, stack, state, bd.slot + STACK);
                let zero = b.iconst(Type::I64, 0);
                store_slot(&mut b, zero, state, bd.slot + LEN);
                let one = b.iconst(Type::I64, 1);
                store_slot(&mut b, one, state, bd.slot + STEP);
                store_slot(&mut b, one, state, bd.slot + NEXT);
                store_slot(&mut b, want_end, state, bd.slot + WANT_END);
                let null = b.null();
                store_slot(&mut b, null, state, bd.slot + END);
                b.jump(back, Vec::new());
                b.switch_to(back);
                b.ret(r);

                b.switch_to(planned);
                let zero = b.iconst(Type::I64, 0);
                let special = b.icmp(IntCC::Slt, chosen, zero);
                let (which, ckpt) = (b.create_block(), b.create_block());
                b.brif(special, BlockCall::to(which), BlockCall::to(ckpt));
                b.switch_to(which);
                let rv = b.iconst(Type::I64, REVOLVE);
                let is_rv = b.icmp(IntCC::Eq, chosen, rv);
                let (record, rv_step) = (b.create_block(), b.create_block());
                b.brif(is_rv, BlockCall::to(rv_step), BlockCall::to(record));
                // Every remaining iteration recorded, in one call.
                b.switch_to(record);
                let every = b.iconst(Type::I64, i64::MAX);
                let r = b.call(inner.aug, aug_ret, with_k(every)[..aug_len].to_vec());
                push_marker(&mut b, tape.push, ps[0], None, every);
                b.ret(r);

                // Revolve: one step, after a snapshot where the schedule
                // puts one; a call past the last step (the loop's exit)
                // is recorded.
                b.switch_to(rv_step);
                let one = b.iconst(Type::I64, 1);
                let step = load_slot(&mut b, state, bd.slot + STEP);
                let trip = load_slot(&mut b, state, bd.slot + TRIP);
                let past = b.icmp(IntCC::Sge, step, trip);
                let (exit, inside) = (b.create_block(), b.create_block());
                b.brif(past, BlockCall::to(exit), BlockCall::to(inside));
                b.switch_to(exit);
                let r = b.call(inner.aug, aug_ret, with_k(one)[..aug_len].to_vec());
                push_marker(&mut b, tape.push, ps[0], None, one);
                let want = load_slot(&mut b, state, bd.slot + WANT_END);
                let zero = b.iconst(Type::I64, 0);
                let keep = b.icmp(IntCC::Ne, want, zero);
                let (end_snap, out) = (b.create_block(), b.create_block());
                b.brif(keep, BlockCall::to(end_snap), BlockCall::to(out));
                b.switch_to(end_snap);
                let buf = take_snapshot(&mut b, &all, &seg_args(one));
                store_slot(&mut b, buf, state, bd.slot + END);
                b.jump(out, Vec::new());
                b.switch_to(out);
                b.ret(r);
                b.switch_to(inside);
                let next = load_slot(&mut b, state, bd.slot + NEXT);
                let here = b.icmp(IntCC::Eq, step, next);
                let (snap, run) = (b.create_block(), b.create_block());
                b.brif(here, BlockCall::to(snap), BlockCall::to(run));
                b.switch_to(snap);
                let seg_ps = seg_args(one);
                let buf = take_snapshot(&mut b, &groups, &seg_ps);
                let free = push_snapshot(&mut b, state, bd.slot, step, buf);
                // The next snapshot of the forward sweep: none once the
                // stack is full.
                let l = b.binary(BinaryOp::Isub, trip, step);
                let s = b.binary(BinaryOp::Iadd, free, one);
                let m_ = b
                    .call(
                        split.expect("a budget has the helper"),
                        Some(Type::I64),
                        vec![l, s],
                    )
                    .expect("split returns");
                let at_m = b.binary(BinaryOp::Iadd, step, m_);
                let zero = b.iconst(Type::I64, 0);
                let spare = b.icmp(IntCC::Sgt, free, zero);
                let never = b.iconst(Type::I64, -1);
                let nx = b.select(spare, at_m, never);
                store_slot(&mut b, nx, state, bd.slot + NEXT);
                b.jump(run, Vec::new());
                b.switch_to(run);
                let step1 = b.binary(BinaryOp::Iadd, step, one);
                store_slot(&mut b, step1, state, bd.slot + STEP);
                let rv = b.iconst(Type::I64, REVOLVE);
                push_marker(&mut b, tape.push, ps[0], None, rv);
                let r = b.call(seg, ret, seg_args(one));
                b.ret(r);

                b.switch_to(ckpt);
                chosen
            }
        };
        let seg_ps = seg_args(k);
        let buf = take_snapshot(&mut b, &groups, &seg_ps);
        push_marker(&mut b, tape.push, ps[0], Some(buf), k);
        let r = b.call(seg, ret, seg_ps);
        b.ret(r);
    }

    let rev_sig = m.funcs[pair.rev].sig.clone();
    let mut rev = new_function(m.funcs[pair.rev].name.clone(), rev_sig);
    rev.linkage = Linkage::Local;
    rev.kind = m.funcs[seg].kind;
    {
        let entry = rev.layout[0];
        let ps = rev.blocks[entry].params.clone();
        let mut b = FuncBuilder::new(&mut rev);
        b.switch_to(entry);
        let two = b.iconst(Type::I64, 2);
        let slot = b
            .call(tape.pop, Some(Type::Ptr), vec![ps[0], two])
            .expect("pop returns the slot");
        let buf = b.load(Type::Ptr, slot);
        let eight = b.iconst(Type::I64, 8);
        let kp = b.ptradd(slot, eight);
        let k = b.load(Type::I64, kp);
        let mut args = ps.clone();
        args[k_at] = k;
        let aug_ret = m.funcs[inner.aug].sig.ret;
        let ret = m.funcs[seg].sig.ret;
        if let Some(bd) = budget {
            let rv = b.iconst(Type::I64, REVOLVE);
            let is_rv = b.icmp(IntCC::Eq, k, rv);
            let (rv_b, other) = (b.create_block(), b.create_block());
            b.brif(is_rv, BlockCall::to(rv_b), BlockCall::to(other));
            b.switch_to(rv_b);
            let rv = revolve::Reverse {
                seg,
                ret,
                inner_aug: inner.aug,
                inner_rev: inner.rev,
                aug_ret,
                aug_len,
                split: split.expect("a budget has the helper"),
                end_groups: all.len() as i64,
            };
            revolve::reverse_step(&mut b, &rv, bd, &ps, &at, k_at, state_at, &groups);
            b.switch_to(other);
        }
        // A segment recorded in the forward sweep: its records are on
        // the tape.
        let null = b.null();
        let recorded = b.icmp(IntCC::Eq, buf, null);
        let (replay, done) = (b.create_block(), b.create_block());
        b.brif(recorded, BlockCall::to(done), BlockCall::to(replay));
        b.switch_to(done);
        b.call(inner.rev, None, args.clone());
        b.ret(None);
        b.switch_to(replay);
        let g = groups.len() as i64;
        let extents_of = parts(&mut b, buf, g);
        for &(start, data, len) in &extents_of {
            // Swap: the memory gets the segment's start, the snapshot
            // what the forward sweep left.
            let eight = b.iconst(Type::I64, 8);
            let room = b.binary(BinaryOp::Iadd, len, eight);
            let tmp = b
                .intrinsic(Intrinsic::Malloc, Some(Type::Ptr), vec![room])
                .expect("malloc has a result");
            b.intrinsic(Intrinsic::Memcpy, None, vec![tmp, start, len]);
            b.intrinsic(Intrinsic::Memcpy, None, vec![start, data, len]);
            b.intrinsic(Intrinsic::Memcpy, None, vec![data, tmp, len]);
            b.intrinsic(Intrinsic::Free, None, vec![tmp]);
        }
        // Scratch memory is not in the snapshot: what the forward sweep
        // left there is kept aside while the segment runs again.
        let seg_ps: Vec<Value> = at.iter().map(|&i| args[i]).collect();
        let kept = keep_aside(&mut b, &temps, &seg_ps);
        b.call(inner.aug, aug_ret, args[..aug_len].to_vec());
        b.call(inner.rev, None, args);
        put_back(&mut b, kept);
        // In the opposite order, so that where two roots overlap the
        // first one's bytes win, as they were before the swaps.
        for &(start, data, len) in extents_of.iter().rev() {
            b.intrinsic(Intrinsic::Memcpy, None, vec![start, data, len]);
        }
        free_snapshot(&mut b, buf, g);
        b.ret(None);
    }
    m.funcs[pair.aug] = aug;
    m.funcs[pair.rev] = rev;
}

/// Pushes `{step, buf}` onto the Revolve stack; the slots left.
pub(super) fn push_snapshot(
    b: &mut FuncBuilder,
    state: Value,
    base: usize,
    step: Value,
    buf: Value,
) -> Value {
    let stack = load_ptr_slot(b, state, base + STACK);
    let len = load_slot(b, state, base + LEN);
    let sixteen = b.iconst(Type::I64, 16);
    let off = b.binary(BinaryOp::Imul, len, sixteen);
    let entry = b.ptradd(stack, off);
    b.store(step, entry);
    let eight = b.iconst(Type::I64, 8);
    let bp = b.ptradd(entry, eight);
    b.store(buf, bp);
    let one = b.iconst(Type::I64, 1);
    let len1 = b.binary(BinaryOp::Iadd, len, one);
    store_slot(b, len1, state, base + LEN);
    let cap = load_slot(b, state, base + CAP);
    b.binary(BinaryOp::Isub, cap, len1)
}

/// A snapshot of what the segment called with `seg_ps` may write (the
/// roots of `groups`): `{ptr, len}` per root, then the bytes.
pub(super) fn take_snapshot(b: &mut FuncBuilder, groups: &Groups, seg_ps: &[Value]) -> Value {
    let (total, extents) = extents(b, groups, seg_ps);
    let buf = b
        .intrinsic(Intrinsic::Malloc, Some(Type::Ptr), vec![total])
        .expect("malloc has a result");
    let g = groups.len() as i64;
    let mut off = b.iconst(Type::I64, 16 * g);
    for (n, &(start, len)) in extents.iter().enumerate() {
        let h = b.iconst(Type::I64, 16 * n as i64);
        let hp = b.ptradd(buf, h);
        b.store(start, hp);
        let h8 = b.iconst(Type::I64, 16 * n as i64 + 8);
        let lp = b.ptradd(buf, h8);
        b.store(len, lp);
        let data = b.ptradd(buf, off);
        b.intrinsic(Intrinsic::Memcpy, None, vec![data, start, len]);
        off = b.binary(BinaryOp::Iadd, off, len);
    }
    crate::tape::note(b, total, total);
    buf
}

/// Copies snapshot `buf` (of `g` roots) back into the memory, in the
/// opposite order (where two roots overlap the first one's bytes win).
pub(super) fn restore(b: &mut FuncBuilder, buf: Value, g: i64) {
    for (start, data, len) in parts(b, buf, g).into_iter().rev() {
        b.intrinsic(Intrinsic::Memcpy, None, vec![start, data, len]);
    }
}

/// Where each of the `g` roots of snapshot `buf` starts in memory, where
/// its bytes are in the snapshot, and their length.
fn parts(b: &mut FuncBuilder, buf: Value, g: i64) -> Vec<(Value, Value, Value)> {
    let mut off = b.iconst(Type::I64, 16 * g);
    let mut out = Vec::new();
    for n in 0..g {
        let h = b.iconst(Type::I64, 16 * n);
        let hp = b.ptradd(buf, h);
        let start = b.load(Type::Ptr, hp);
        let h8 = b.iconst(Type::I64, 16 * n + 8);
        let lp = b.ptradd(buf, h8);
        let len = b.load(Type::I64, lp);
        let data = b.ptradd(buf, off);
        off = b.binary(BinaryOp::Iadd, off, len);
        out.push((start, data, len));
    }
    out
}

/// Frees snapshot `buf` (of `g` roots), noting its bytes released.
pub(super) fn free_snapshot(b: &mut FuncBuilder, buf: Value, g: i64) {
    let mut total = b.iconst(Type::I64, 16 * g + 8);
    for (_, _, len) in parts(b, buf, g) {
        total = b.binary(BinaryOp::Iadd, total, len);
    }
    let zero = b.iconst(Type::I64, 0);
    let minus = b.binary(BinaryOp::Isub, zero, total);
    crate::tape::note(b, minus, minus);
    b.intrinsic(Intrinsic::Free, None, vec![buf]);
}

/// Copies the scratch roots' extents aside (a snapshot of them), `None`
/// if there are none.
fn keep_aside(b: &mut FuncBuilder, temps: &Groups, seg_ps: &[Value]) -> Option<(Value, i64)> {
    if temps.is_empty() {
        return None;
    }
    Some((take_snapshot(b, temps, seg_ps), temps.len() as i64))
}

fn put_back(b: &mut FuncBuilder, kept: Option<(Value, i64)>) {
    if let Some((buf, g)) = kept {
        restore(b, buf, g);
        free_snapshot(b, buf, g);
    }
}

pub(super) fn load_slot(b: &mut FuncBuilder, state: Value, k: usize) -> Value {
    let p = slot_ptr(b, state, k);
    b.load(Type::I64, p)
}

pub(super) fn load_ptr_slot(b: &mut FuncBuilder, state: Value, k: usize) -> Value {
    let p = slot_ptr(b, state, k);
    b.load(Type::Ptr, p)
}

pub(super) fn store_slot(b: &mut FuncBuilder, v: Value, state: Value, k: usize) {
    let p = slot_ptr(b, state, k);
    b.store(v, p);
}

fn slot_ptr(b: &mut FuncBuilder, state: Value, k: usize) -> Value {
    let off = b.iconst(Type::I64, 8 * k as i64);
    b.ptradd(state, off)
}

/// `ad_tape_measure(on)`: the bytes the tapes hold now.
fn measure_tape(b: &mut FuncBuilder, on: i64) -> Value {
    let on = b.iconst(Type::I64, on);
    b.intrinsic(Intrinsic::AdTapeMeasure, Some(Type::I64), vec![on])
        .expect("ad_tape_measure has a result")
}

/// Pushes a call's two slots: its snapshot (null: none, the segment was
/// recorded) and its period.
fn push_marker(b: &mut FuncBuilder, push: FuncId, tape: Value, buf: Option<Value>, k: Value) {
    let two = b.iconst(Type::I64, 2);
    let slot = b
        .call(push, Some(Type::Ptr), vec![tape, two])
        .expect("push returns the slot");
    let buf = buf.unwrap_or_else(|| b.null());
    b.store(buf, slot);
    let eight = b.iconst(Type::I64, 8);
    let kp = b.ptradd(slot, eight);
    b.store(k, kp);
}

/// The snapshot's size in bytes and, per root, the start and length of
/// what the segment called with `seg_ps` may write (the hull of its
/// parts that are not empty).
fn extents(
    b: &mut FuncBuilder,
    groups: &[(Root, Vec<Written>)],
    seg_ps: &[Value],
) -> (Value, Vec<(Value, Value)>) {
    let g = groups.len() as i64;
    let mut total = b.iconst(Type::I64, 16 * g + 8);
    let mut extents = Vec::new();
    for (root, parts) in groups {
        let base = match *root {
            Root::Param(i) => seg_ps[i],
            Root::Global(gl) => b.global_addr(gl),
        };
        let (mut lo, mut hi) = (b.iconst(Type::I64, i64::MAX), b.iconst(Type::I64, 0));
        let mut any = b.iconst(Type::I64, 0);
        for w in parts {
            let ne = w.ne.emit(b, seg_ps);
            let zero = b.iconst(Type::I64, 0);
            let ne = b.icmp(IntCC::Ne, ne, zero);
            let l = w.lo.emit(b, seg_ps);
            let h = w.hi.emit(b, seg_ps);
            let first = b.icmp(IntCC::Eq, any, zero);
            let lt = b.icmp(IntCC::Slt, l, lo);
            let take = b.binary(BinaryOp::Or, lt, first);
            let nl = b.select(take, l, lo);
            lo = b.select(ne, nl, lo);
            let gt = b.icmp(IntCC::Sgt, h, hi);
            let take = b.binary(BinaryOp::Or, gt, first);
            let nh = b.select(take, h, hi);
            hi = b.select(ne, nh, hi);
            let one = b.iconst(Type::I64, 1);
            any = b.select(ne, one, any);
        }
        let zero = b.iconst(Type::I64, 0);
        let some = b.icmp(IntCC::Ne, any, zero);
        let len = b.binary(BinaryOp::Isub, hi, lo);
        let pos = b.icmp(IntCC::Sgt, len, zero);
        let some = b.binary(BinaryOp::And, some, pos);
        let len = b.select(some, len, zero);
        let lo = b.select(some, lo, zero);
        let start = b.ptradd(base, lo);
        total = b.binary(BinaryOp::Iadd, total, len);
        extents.push((start, len));
    }
    (total, extents)
}

/// The warnings `choose` prints, each once per run (`warned` and
/// `noted` are flags): a budget too small for one snapshot, and under the
/// default budget, that it checkpoints.
struct Warning {
    format: parc_ir::GlobalId,
    warned: parc_ir::GlobalId,
    /// The default budget's: that it checkpoints the loop.
    kicked: Option<(parc_ir::GlobalId, parc_ir::GlobalId)>,
}

fn warning_text(m: &mut Module, bd: &Budget) -> Warning {
    use crate::checkpoint::{Bytes, DEFAULT_PERCENT};
    let at = format!("{}:{}:{}", bd.file, bd.loc.line, bd.loc.col);
    // A fraction of the memory is known only at run time: its bytes are
    // an argument. (The text is a format: `%%` prints `%`.)
    let asked = match bd.bytes {
        Bytes::Fixed(_) => bd.bytes.asked(),
        Bytes::Percent(p) => format!("`--tape-budget {p}%%` (%lld bytes)"),
        Bytes::Default => format!(
            "the default tape budget ({DEFAULT_PERCENT}%% of the physical memory, %lld bytes)"
        ),
    };
    let format = parc_ir::builder::c_string(
        m,
        &format!(
            "parc: warning: {at}: {asked} is too small for {}: checkpointing it needs at least \
             %lld bytes of tape (one iteration records %lld, a snapshot takes %lld, %lld \
             iterations); checkpointing with one snapshot at a time\n",
            bd.what
        ),
    );
    let flag = |m: &mut Module| {
        let mut flag =
            GlobalData::c_string(format!(".parc_ckpt_warned{}", m.globals.len()), &[0; 7]);
        flag.is_const = false;
        flag.is_local = true;
        flag.align = 8;
        m.globals.push(flag)
    };
    let warned = flag(m);
    let kicked = (bd.bytes == Bytes::Default).then(|| {
        let text = parc_ir::builder::c_string(
            m,
            &format!(
                "parc: warning: {at}: {} would record %lld bytes of tape (%lld iterations of \
                 %lld), more than {asked}: checkpointing it (`--tape-budget BYTES` or `N%%` \
                 sets the budget, `--tape-budget none` records every iteration)\n",
                bd.what
            ),
        );
        (text, flag(m))
    });
    Warning {
        format,
        warned,
        kicked,
    }
}

/// What `choose` chooses from: the bytes the measured iteration recorded,
/// a snapshot's bytes, the scratch memory's (kept aside while a segment
/// of a fixed period runs again) and the trip count (-1: unknown).
struct Sizes {
    per_iter: Value,
    snapshot: Value,
    temp: Value,
    trip: Value,
}

/// The period for a loop of `trip` iterations whose first iteration was
/// recorded, and the snapshots Revolve may keep (0 unless it is chosen):
/// [`RECORD`] when the whole loop's records fit the budget; else the
/// fixed period `k` with the least peak `R + ceil((T - 1)/k)·(S + 16) +
/// k·R + scratch` (near `sqrt((T - 1)·S/R)`) if that fits; else
/// [`REVOLVE`] with as many snapshots `c` as fit beside two iterations'
/// records (the first one's stay on the tape) and every call's two
/// slots: `2·R + 16·(T + 1) + c·(S + 16)`. Where not even one snapshot
/// fits it keeps one, with the warning (once per run). An unknown trip
/// count gets the largest period whose segment's records take half the
/// budget.
fn choose(
    b: &mut FuncBuilder,
    bd: &Budget,
    sizes: &Sizes,
    warning: Option<&Warning>,
    cost: FuncId,
) -> (Value, Value, Value) {
    let Sizes {
        per_iter,
        snapshot,
        temp,
        trip,
    } = *sizes;
    let one = b.iconst(Type::I64, 1);
    let zero = b.iconst(Type::I64, 0);
    let bud = budget_bytes(b, bd.bytes);
    let neg = b.iconst(Type::I64, RECORD);
    let r_pos = b.icmp(IntCC::Sgt, per_iter, zero);
    let r = b.select(r_pos, per_iter, one);
    let known = b.icmp(IntCC::Sge, trip, zero);
    let done = b.create_block();
    let chosen = b.param(done, Type::I64);
    let cap = b.param(done, Type::I64);
    let want_end = b.param(done, Type::I64);
    let (known_b, unknown_b) = (b.create_block(), b.create_block());
    b.brif(known, BlockCall::to(known_b), BlockCall::to(unknown_b));

    b.switch_to(unknown_b);
    let two = b.iconst(Type::I64, 2);
    let half = b.binary(BinaryOp::Sdiv, bud, two);
    let q = b.binary(BinaryOp::Sdiv, half, r);
    let big = b.icmp(IntCC::Sgt, q, one);
    let q = b.select(big, q, one);
    b.jump(done, vec![q, zero, zero]);

    // Known: everything fits when trip <= budget / r.
    b.switch_to(known_b);
    // Two calls' slots (16 bytes each) besides the records.
    let slots = b.iconst(Type::I64, 32);
    let room = b.binary(BinaryOp::Isub, bud, slots);
    let cap_r = b.binary(BinaryOp::Sdiv, room, r);
    let fits = b.icmp(IntCC::Sle, trip, cap_r);
    let periodic = b.create_block();
    b.brif(
        fits,
        BlockCall::new(done, vec![neg, zero, zero]),
        BlockCall::to(periodic),
    );

    b.switch_to(periodic);
    // Under the default budget, a loop checkpointed with snapshots that
    // fit says so (once per run) before it goes on.
    let kicked = warning.and_then(|w| w.kicked);
    let checkpoints = |b: &mut FuncBuilder, args: Vec<Value>| {
        let Some((text, noted)) = kicked else {
            return BlockCall::new(done, args);
        };
        let say = b.create_block();
        let here = b.current_block();
        b.switch_to(say);
        let all = b.binary(BinaryOp::Imul, trip, r);
        once(b, noted, text, vec![all, trip, r, bud]);
        b.jump(done, args);
        if let Some(here) = here {
            b.switch_to(here);
        }
        BlockCall::to(say)
    };
    let rest = b.binary(BinaryOp::Isub, trip, one);
    let rest_pos = b.icmp(IntCC::Sgt, rest, one);
    let rest = b.select(rest_pos, rest, one);
    let fr = b.cast(CastOp::SiToFp, rest, Type::F64);
    let fs = b.cast(CastOp::SiToFp, snapshot, Type::F64);
    let fpi = b.cast(CastOp::SiToFp, r, Type::F64);
    let x = b.binary(BinaryOp::Fmul, fr, fs);
    let x = b.binary(BinaryOp::Fdiv, x, fpi);
    let x = b
        .intrinsic(Intrinsic::Sqrt, Some(Type::F64), vec![x])
        .expect("sqrt has a result");
    let k0 = b.cast(CastOp::FpToSi, x, Type::I64);
    // `k0` and `k0 + 1`, each within [1, rest]: the ceiling makes either
    // the least.
    let clamp = |b: &mut FuncBuilder, k: Value| {
        let lo = b.icmp(IntCC::Slt, k, one);
        let k = b.select(lo, one, k);
        let hi = b.icmp(IntCC::Sgt, k, rest);
        b.select(hi, rest, k)
    };
    // Each call also pushes its two slots (16 bytes).
    let marker = b.iconst(Type::I64, 16);
    let per_seg = b.binary(BinaryOp::Iadd, snapshot, marker);
    let first_call = b.binary(BinaryOp::Iadd, r, marker);
    let first_call = b.binary(BinaryOp::Iadd, first_call, temp);
    let peak = |b: &mut FuncBuilder, k: Value| {
        let km = b.binary(BinaryOp::Isub, k, one);
        let up = b.binary(BinaryOp::Iadd, rest, km);
        let segs = b.binary(BinaryOp::Sdiv, up, k);
        let snaps = b.binary(BinaryOp::Imul, segs, per_seg);
        let recs = b.binary(BinaryOp::Imul, k, r);
        let p = b.binary(BinaryOp::Iadd, snaps, recs);
        b.binary(BinaryOp::Iadd, p, first_call)
    };
    let ka = clamp(b, k0);
    let k1 = b.binary(BinaryOp::Iadd, k0, one);
    let kb = clamp(b, k1);
    let pa = peak(b, ka);
    let pb = peak(b, kb);
    let a_less = b.icmp(IntCC::Sle, pa, pb);
    let k = b.select(a_less, ka, kb);
    let p = b.select(a_less, pa, pb);
    let over = b.icmp(IntCC::Sgt, p, bud);
    let binomial = b.create_block();
    let fixed_period = checkpoints(b, vec![k, zero, zero]);
    b.brif(over, BlockCall::to(binomial), fixed_period);

    // Revolve: the snapshots that fit beside the fixed part.
    b.switch_to(binomial);
    let two = b.iconst(Type::I64, 2);
    let recs = b.binary(BinaryOp::Imul, r, two);
    let t1 = b.binary(BinaryOp::Iadd, trip, one);
    let sixteen = b.iconst(Type::I64, 16);
    let slots = b.binary(BinaryOp::Imul, t1, sixteen);
    let fixed = b.binary(BinaryOp::Iadd, recs, slots);
    let each = b.binary(BinaryOp::Iadd, snapshot, sixteen);
    let each = b.binary(BinaryOp::Iadd, each, sixteen);
    let left = b.binary(BinaryOp::Isub, bud, fixed);
    let c = b.binary(BinaryOp::Sdiv, left, each);
    let positive = b.icmp(IntCC::Sgt, left, zero);
    let c = b.select(positive, c, zero);
    // More than one per step is of no use.
    let many = b.icmp(IntCC::Sgt, c, trip);
    let c = b.select(many, trip, c);
    // The state the loop ends in: run its steps after the first once more
    // at the end of the reverse (`T - 2` steps), or keep a snapshot of it
    // (with the scratch) in place of some of the `c`, whichever Revolve's
    // count of steps run again says is cheaper.
    let end_size = b.binary(BinaryOp::Iadd, snapshot, temp);
    let left2 = b.binary(BinaryOp::Isub, left, end_size);
    let c2 = b.binary(BinaryOp::Sdiv, left2, each);
    let positive = b.icmp(IntCC::Sgt, left2, zero);
    let c2 = b.select(positive, c2, zero);
    let many = b.icmp(IntCC::Sgt, c2, trip);
    let c2 = b.select(many, trip, c2);
    let steps = b.binary(BinaryOp::Isub, trip, one);
    let with_end = b
        .call(cost, Some(Type::I64), vec![steps, c2])
        .expect("cost returns");
    let without = b
        .call(cost, Some(Type::I64), vec![steps, c])
        .expect("cost returns");
    let two = b.iconst(Type::I64, 2);
    let rerun = b.binary(BinaryOp::Isub, trip, two);
    let without = b.binary(BinaryOp::Iadd, without, rerun);
    let cheaper = b.icmp(IntCC::Slt, with_end, without);
    let some = b.icmp(IntCC::Sge, c2, one);
    let end = b.binary(BinaryOp::And, cheaper, some);
    let want = b.cast(CastOp::Zext, end, Type::I64);
    let c = b.select(end, c2, c);
    let rv = b.iconst(Type::I64, REVOLVE);
    let none = b.icmp(IntCC::Slt, c, one);
    match warning {
        Some(w) => {
            let warn = b.create_block();
            let binomial = checkpoints(b, vec![rv, c, want]);
            b.brif(none, BlockCall::to(warn), binomial);
            b.switch_to(warn);
            let least = b.binary(BinaryOp::Iadd, fixed, each);
            let mut args = vec![least, r, snapshot, trip];
            if bd.bytes.percent().is_some() {
                args.insert(0, bud);
            }
            once(b, w.warned, w.format, args);
            let one = b.iconst(Type::I64, 1);
            let zero = b.iconst(Type::I64, 0);
            b.jump(done, vec![rv, one, zero]);
        }
        None => {
            let c = b.select(none, one, c);
            let zero = b.iconst(Type::I64, 0);
            let want = b.select(none, zero, want);
            b.jump(done, vec![rv, c, want]);
        }
    }
    b.switch_to(done);
    (chosen, cap, want_end)
}

/// The budget in bytes: the number asked for, or its percent of the
/// physical memory (none, `i64::MAX`, where that is unknown).
fn budget_bytes(b: &mut FuncBuilder, bytes: crate::checkpoint::Bytes) -> Value {
    use crate::checkpoint::{Bytes, DEFAULT_PERCENT};
    let percent = match bytes {
        Bytes::Fixed(n) => return b.iconst(Type::I64, i64::try_from(n).unwrap_or(i64::MAX)),
        Bytes::Percent(p) => p,
        Bytes::Default => DEFAULT_PERCENT,
    };
    let mem = b
        .intrinsic(Intrinsic::PhysMem, Some(Type::I64), Vec::new())
        .expect("phys_mem has a result");
    // `mem · p / 100`, or `(mem / 100) · p` where the product would
    // overflow.
    let hundred = b.iconst(Type::I64, 100);
    let p = b.iconst(Type::I64, i64::from(percent));
    let exact = b.binary(BinaryOp::Imul, mem, p);
    let exact = b.binary(BinaryOp::Sdiv, exact, hundred);
    let q = b.binary(BinaryOp::Sdiv, mem, hundred);
    let rough = b.binary(BinaryOp::Imul, q, p);
    let small = b.iconst(Type::I64, i64::MAX / 100);
    let fits = b.icmp(IntCC::Sle, mem, small);
    let share = b.select(fits, exact, rough);
    let zero = b.iconst(Type::I64, 0);
    let known = b.icmp(IntCC::Sgt, mem, zero);
    let all = b.iconst(Type::I64, i64::MAX);
    b.select(known, share, all)
}

/// Prints `text` (a format) with `args` on stderr unless flag `seen` says
/// it was printed before in this run.
fn once(b: &mut FuncBuilder, seen: parc_ir::GlobalId, text: parc_ir::GlobalId, args: Vec<Value>) {
    let flag = b.global_addr(seen);
    let was = b.load(Type::I64, flag);
    let one = b.iconst(Type::I64, 1);
    b.store(one, flag);
    let zero = b.iconst(Type::I64, 0);
    let first = b.icmp(IntCC::Eq, was, zero);
    let (say, quiet) = (b.create_block(), b.create_block());
    b.brif(first, BlockCall::to(say), BlockCall::to(quiet));
    b.switch_to(say);
    // `stderr`, as parc's `<stdio.h>` defines it.
    let stream = b.iconst(Type::Ptr, 3);
    let fmt = b.global_addr(text);
    let mut all = vec![stream, fmt];
    all.extend(args);
    b.intrinsic(Intrinsic::Fprintf, Some(Type::I32), all);
    b.jump(quiet, Vec::new());
    b.switch_to(quiet);
}
