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

use super::writes::{Root, Written, by_root};
use crate::reverse::{Ctx, Pair};
use parc_ir::{
    Activity, BinaryOp, FuncBuilder, FuncId, Function, IntCC, Intrinsic, Linkage, Module, Type,
    Value, new_function,
};

/// Gives `pair` (declared for segment `seg`, whose writes are `writes`)
/// its bodies; queues the pair of the copy they run.
pub fn build(m: &mut Module, ctx: &mut Ctx, seg: FuncId, pair: &Pair, writes: &[Written]) {
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
    let aug_len = m.funcs[pair.aug].sig.params.len();
    let groups = by_root(writes);
    let tape = ctx.tape;

    let aug_sig = m.funcs[pair.aug].sig.clone();
    let mut aug = new_function(m.funcs[pair.aug].name.clone(), aug_sig.clone());
    aug.linkage = Linkage::Local;
    aug.kind = m.funcs[seg].kind;
    {
        let entry = aug.layout[0];
        let ps = aug.blocks[entry].params.clone();
        let seg_ps: Vec<Value> = at.iter().map(|&i| ps[i]).collect();
        let mut b = FuncBuilder::new(&mut aug);
        b.switch_to(entry);
        let g = groups.len() as i64;
        let mut total = b.iconst(Type::I64, 16 * g + 8);
        let mut extents = Vec::new();
        for (root, parts) in &groups {
            let base = match *root {
                Root::Param(i) => seg_ps[i],
                Root::Global(gl) => b.global_addr(gl),
            };
            let (mut lo, mut hi) = (b.iconst(Type::I64, i64::MAX), b.iconst(Type::I64, 0));
            let mut any = b.iconst(Type::I64, 0);
            for w in parts {
                let ne = w.ne.emit(&mut b, &seg_ps);
                let zero = b.iconst(Type::I64, 0);
                let ne = b.icmp(IntCC::Ne, ne, zero);
                let l = w.lo.emit(&mut b, &seg_ps);
                let h = w.hi.emit(&mut b, &seg_ps);
                let first = b.icmp(IntCC::Eq, any, zero);
                // The hull of the parts that are not empty.
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
        let buf = b
            .intrinsic(Intrinsic::Malloc, Some(Type::Ptr), vec![total])
            .expect("malloc has a result");
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
        let one = b.iconst(Type::I64, 1);
        let slot = b
            .call(tape.push, Some(Type::Ptr), vec![ps[0], one])
            .expect("push returns the slot");
        b.store(buf, slot);
        let ret = m.funcs[seg].sig.ret;
        let r = b.call(seg, ret, seg_ps.clone());
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
        let one = b.iconst(Type::I64, 1);
        let slot = b
            .call(tape.pop, Some(Type::Ptr), vec![ps[0], one])
            .expect("pop returns the slot");
        let buf = b.load(Type::Ptr, slot);
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
        let aug_ret = m.funcs[inner.aug].sig.ret;
        b.call(inner.aug, aug_ret, ps[..aug_len].to_vec());
        b.call(inner.rev, None, ps.clone());
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
