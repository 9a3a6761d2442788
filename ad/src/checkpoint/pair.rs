//! The split pair of a segment function (`outline.rs`): where the
//! checkpoint happens.
//!
//! The gradient calls the segment as any active callee, through
//! `seg.aug` in its forward sweep and `seg.rev` in its reverse, but this
//! pair records no segment:
//! - `seg.aug` copies what the segment may write (`writes.rs`) into a
//!   snapshot, pushes the snapshot's address onto the tape (one slot) and
//!   runs the primal segment;
//! - `seg.rev` pops the snapshot, swaps it with the memory (which gets
//!   the state the segment started from), runs the augmented forward of
//!   a copy of the segment (`seg.in.aug`, recording its iterations onto
//!   the tape) and at once its reverse (`seg.in.rev`), then copies the
//!   swapped-out contents back, so that between reverses the memory is
//!   what the forward sweep left (code reversed later may read it), and
//!   frees the snapshot.
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
//! the peak `R + ceil((T - 1)/k)·S + k·R` is least, with a warning on
//! stderr naming the loop and the least budget that fits when even that
//! exceeds it. The choice is kept in the caller's `state` for the calls
//! that follow.

use super::writes::{Root, Written, by_root};
use crate::reverse::{Ctx, Pair};
use parc_ir::{
    Activity, BinaryOp, BlockCall, CastOp, FuncBuilder, FuncId, Function, IntCC, Intrinsic,
    Linkage, Module, SrcLoc, Type, Value, new_function,
};

/// `--tape-budget`: what `seg.aug` needs to choose the period.
#[derive(Clone, Debug)]
pub struct Budget {
    pub bytes: u64,
    /// The first of the two 8-byte slots of the caller's `state` it uses
    /// (`outline.rs`): the period chosen (0 before the first call, -1 for
    /// "record every iteration"), then the trip count (-1 if unknown).
    pub slot: usize,
    /// The loop's position and a few words naming it, for the warning.
    pub loc: SrcLoc,
    pub what: String,
}

/// Gives `pair` (declared for segment `seg`, whose writes are `writes`)
/// its bodies; queues the pair of the copy they run.
pub fn build(
    m: &mut Module,
    ctx: &mut Ctx,
    seg: FuncId,
    pair: &Pair,
    writes: &[Written],
    budget: Option<&Budget>,
) {
    let mut copy: Function = m.funcs[seg].clone();
    copy.name = m.fresh_func_name(&format!("{}.in", m.funcs[seg].name));
    copy.linkage = Linkage::Local;
    let copy = m.funcs.push(copy);
    let inner = ctx.declare_pair(
        m,
        copy,
        pair.acts.clone(),
        pair.ret_active,
        pair.ret_shadow,
        pair.atomic,
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
    let groups = by_root(writes);
    let tape = ctx.tape;
    let warning = budget.map(|bd| warning_text(m, bd));

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
        let k = match budget {
            None => ps[k_at],
            Some(bd) => {
                // The period chosen, 0 before the first call, -1 for
                // "record every iteration".
                let plan = slot_ptr(&mut b, ps[state_at], bd.slot);
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
                let seg_ps: Vec<Value> = at.iter().map(|&i| ps[i]).collect();
                let (snapshot, _) = extents(&mut b, &groups, &seg_ps);
                let trip_at = slot_ptr(&mut b, ps[state_at], bd.slot + 1);
                let trip = b.load(Type::I64, trip_at);
                let k = choose(&mut b, bd, per_iter, snapshot, trip, warning.as_ref());
                let plan = slot_ptr(&mut b, ps[state_at], bd.slot);
                b.store(k, plan);
                b.ret(r);

                b.switch_to(planned);
                let zero = b.iconst(Type::I64, 0);
                let all = b.icmp(IntCC::Slt, chosen, zero);
                let (record, ckpt) = (b.create_block(), b.create_block());
                b.brif(all, BlockCall::to(record), BlockCall::to(ckpt));
                // Every remaining iteration recorded, in one call.
                b.switch_to(record);
                let every = b.iconst(Type::I64, i64::MAX);
                let r = b.call(inner.aug, aug_ret, with_k(every)[..aug_len].to_vec());
                push_marker(&mut b, tape.push, ps[0], None, every);
                b.ret(r);
                b.switch_to(ckpt);
                chosen
            }
        };
        let seg_ps: Vec<Value> = at.iter().map(|&i| with_k(k)[i]).collect();
        let (total, extents) = extents(&mut b, &groups, &seg_ps);
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
        crate::tape::note(&mut b, total, total);
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
        let mut off = b.iconst(Type::I64, 16 * g);
        let mut extents = Vec::new();
        for n in 0..g {
            let h = b.iconst(Type::I64, 16 * n);
            let hp = b.ptradd(buf, h);
            let start = b.load(Type::Ptr, hp);
            let h8 = b.iconst(Type::I64, 16 * n + 8);
            let lp = b.ptradd(buf, h8);
            let len = b.load(Type::I64, lp);
            let data = b.ptradd(buf, off);
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
            off = b.binary(BinaryOp::Iadd, off, len);
            extents.push((start, data, len));
        }
        b.call(inner.aug, aug_ret, args[..aug_len].to_vec());
        b.call(inner.rev, None, args);
        // In the opposite order, so that where two roots overlap the
        // first one's bytes win, as they were before the swaps.
        for &(start, data, len) in extents.iter().rev() {
            b.intrinsic(Intrinsic::Memcpy, None, vec![start, data, len]);
        }
        let eight = b.iconst(Type::I64, 8);
        let total = b.binary(BinaryOp::Iadd, off, eight);
        let zero = b.iconst(Type::I64, 0);
        let minus = b.binary(BinaryOp::Isub, zero, total);
        crate::tape::note(&mut b, minus, minus);
        b.intrinsic(Intrinsic::Free, None, vec![buf]);
        b.ret(None);
    }
    m.funcs[pair.aug] = aug;
    m.funcs[pair.rev] = rev;
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

/// The format of the warning `choose` prints.
struct Warning {
    format: parc_ir::GlobalId,
}

fn warning_text(m: &mut Module, bd: &Budget) -> Warning {
    let format = parc_ir::builder::c_string(
        m,
        &format!(
            "parc: warning: line {}:{}: `--tape-budget {}` is too small for {}: checkpointing \
             it needs at least %lld bytes of tape (one iteration records %lld, a snapshot \
             takes %lld, %lld iterations); checkpointing every %lld iterations\n",
            bd.loc.line, bd.loc.col, bd.bytes, bd.what
        ),
    );
    Warning { format }
}

/// The period for a loop of `trip` iterations (-1: unknown) whose
/// iterations record `per_iter` bytes each and whose snapshot takes
/// `snapshot`, its first iteration recorded: -1 (record the rest) when
/// the whole loop's records fit the budget; otherwise the `k` with the
/// least peak `per_iter + ceil((trip - 1)/k)·snapshot + k·per_iter`
/// (plus each call's two slots)
/// (near `sqrt((trip - 1)·snapshot/per_iter)`), with the warning when
/// that peak exceeds the budget. An unknown trip count gets the largest
/// period whose segment's records take half the budget.
fn choose(
    b: &mut FuncBuilder,
    bd: &Budget,
    per_iter: Value,
    snapshot: Value,
    trip: Value,
    warning: Option<&Warning>,
) -> Value {
    let budget = i64::try_from(bd.bytes).unwrap_or(i64::MAX);
    let one = b.iconst(Type::I64, 1);
    let zero = b.iconst(Type::I64, 0);
    let neg = b.iconst(Type::I64, -1);
    let r_pos = b.icmp(IntCC::Sgt, per_iter, zero);
    let r = b.select(r_pos, per_iter, one);
    let known = b.icmp(IntCC::Sge, trip, zero);
    let done = b.create_block();
    let chosen = b.param(done, Type::I64);
    let (known_b, unknown_b) = (b.create_block(), b.create_block());
    b.brif(known, BlockCall::to(known_b), BlockCall::to(unknown_b));

    b.switch_to(unknown_b);
    let half = b.iconst(Type::I64, budget / 2);
    let q = b.binary(BinaryOp::Sdiv, half, r);
    let big = b.icmp(IntCC::Sgt, q, one);
    let q = b.select(big, q, one);
    b.jump(done, vec![q]);

    // Known: everything fits when trip <= budget / r.
    b.switch_to(known_b);
    let bud = b.iconst(Type::I64, budget);
    // Two calls' slots (16 bytes each) besides the records.
    let room = b.iconst(Type::I64, budget.saturating_sub(32));
    let cap = b.binary(BinaryOp::Sdiv, room, r);
    let fits = b.icmp(IntCC::Sle, trip, cap);
    let periodic = b.create_block();
    b.brif(
        fits,
        BlockCall::new(done, vec![neg]),
        BlockCall::to(periodic),
    );

    b.switch_to(periodic);
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
    match warning {
        Some(w) => {
            let warn = b.create_block();
            b.brif(over, BlockCall::to(warn), BlockCall::new(done, vec![k]));
            b.switch_to(warn);
            // `stderr`, as parc's `<stdio.h>` defines it.
            let stream = b.iconst(Type::Ptr, 3);
            let fmt = b.global_addr(w.format);
            b.intrinsic(
                Intrinsic::Fprintf,
                Some(Type::I32),
                vec![stream, fmt, p, r, snapshot, trip, k],
            );
            b.jump(done, vec![k]);
        }
        None => b.jump(done, vec![k]),
    }
    b.switch_to(done);
    chosen
}
