//! The binomial schedule (Griewank's Revolve) a `--tape-budget` gradient
//! follows when no fixed period fits (`pair.rs`): where to put the next
//! snapshot.
//!
//! With `s` snapshots (the one at the start of a range of steps
//! included) and each step run again at most `r` times, at most
//! `beta(s, r) = binom(s + r, s)` steps can be reversed. To reverse `l`
//! steps from a snapshot at their start with `s` snapshots, let `r` be
//! the least with `beta(s, r) >= l`; the next snapshot goes `m = l -
//! beta(s - 1, r)` steps on (at least 1): the steps above it are reversed
//! with `s - 1` snapshots and `r` runs, then those below with `s` and
//! `r - 1`. This is Revolve's choice, which runs the fewest steps again
//! (50 steps with 3 snapshots: 180 steps run again, each at most 5
//! times; with a fixed period they would need 14 snapshots).
//!
//! The schedule is computed at run time by `__parc_ad_revolve_split(l,
//! s) -> m`, a parir helper added to the module once; [`reverse_step`]
//! is the reverse of one step (the forward sweep's part is in
//! `pair.rs`).

use super::pair::{
    Budget, CAP, END, Groups, LEN, STACK, STEP, TRIP, free_snapshot, load_ptr_slot, load_slot,
    push_snapshot, restore, store_slot, take_snapshot,
};
use parc_ir::{
    BinaryOp, BlockCall, FuncBuilder, FuncId, IntCC, Intrinsic, Linkage, Module, Signature, Type,
    Value, new_function,
};

const SPLIT: &str = "__parc_ad_revolve_split";
const COST: &str = "__parc_ad_revolve_cost";
const BINOM: &str = "__parc_ad_binom_cap";

/// The helper `split(i64 l, i64 s) -> i64` (module doc), added once.
pub fn split_helper(m: &mut Module) -> FuncId {
    if let Some(f) = m.func_by_name(SPLIT) {
        return f;
    }
    let binom = binom_helper(m);
    let f = build_split(binom);
    m.funcs.push(f)
}

/// The helper `cost(i64 l, i64 s) -> i64`, added once: the steps Revolve
/// runs to reverse `l` steps with `s` snapshots, `r·l - beta(s + 1, r -
/// 1)` for the least `r` with `beta(s, r) >= l` (Griewank and Walther's
/// count; `l·(l - 1)/2` with one snapshot).
pub fn cost_helper(m: &mut Module) -> FuncId {
    if let Some(f) = m.func_by_name(COST) {
        return f;
    }
    let binom = binom_helper(m);
    let f = build_cost(binom);
    m.funcs.push(f)
}

fn binom_helper(m: &mut Module) -> FuncId {
    match m.func_by_name(BINOM) {
        Some(f) => f,
        None => {
            let f = build_binom();
            m.funcs.push(f)
        }
    }
}

fn helper(name: &str, params: usize) -> (parc_ir::Function, Vec<Value>) {
    let sig = Signature {
        params: vec![Type::I64; params],
        ret: Some(Type::I64),
    };
    let mut f = new_function(name, sig);
    f.linkage = Linkage::Local;
    let entry = f.layout[0];
    let ps = f.blocks[entry].params.clone();
    (f, ps)
}

/// `binom_cap(s, r, l)`: `min(binom(s + r, s), l)`, for `l > 0`. The
/// product `binom(r + t, t)` grows with `t`, so it stops at `l` before
/// it could overflow.
fn build_binom() -> parc_ir::Function {
    let (mut f, ps) = helper(BINOM, 3);
    let (s, r, l) = (ps[0], ps[1], ps[2]);
    let entry = f.layout[0];
    let mut b = FuncBuilder::new(&mut f);
    b.switch_to(entry);
    let head = b.create_block();
    let (acc, t) = (b.param(head, Type::I64), b.param(head, Type::I64));
    let (body, done) = (b.create_block(), b.create_block());
    let one = b.iconst(Type::I64, 1);
    b.jump(head, vec![one, one]);
    b.switch_to(head);
    let more_t = b.icmp(IntCC::Sle, t, s);
    let below = b.icmp(IntCC::Slt, acc, l);
    let go = b.binary(BinaryOp::And, more_t, below);
    b.brif(go, BlockCall::to(body), BlockCall::to(done));
    b.switch_to(body);
    let rt = b.binary(BinaryOp::Iadd, r, t);
    let p = b.binary(BinaryOp::Imul, acc, rt);
    let q = b.binary(BinaryOp::Sdiv, p, t);
    let one = b.iconst(Type::I64, 1);
    let t1 = b.binary(BinaryOp::Iadd, t, one);
    b.jump(head, vec![q, t1]);
    b.switch_to(done);
    let less = b.icmp(IntCC::Slt, acc, l);
    let v = b.select(less, acc, l);
    b.ret(Some(v));
    f
}

/// `split(l, s)`: the steps to the next snapshot (module doc); `l - 1`
/// where `s` is 1 or less (no snapshot to spare: run to the last step).
fn build_split(binom: FuncId) -> parc_ir::Function {
    let (mut f, ps) = helper(SPLIT, 2);
    let (l, s) = (ps[0], ps[1]);
    let entry = f.layout[0];
    let mut b = FuncBuilder::new(&mut f);
    b.switch_to(entry);
    let one = b.iconst(Type::I64, 1);
    let (none, search) = (b.create_block(), b.create_block());
    let spare = b.icmp(IntCC::Sgt, s, one);
    let long = b.icmp(IntCC::Sgt, l, one);
    let both = b.binary(BinaryOp::And, spare, long);
    b.brif(both, BlockCall::to(search), BlockCall::to(none));
    b.switch_to(none);
    let last = b.binary(BinaryOp::Isub, l, one);
    let pos = b.icmp(IntCC::Sgt, last, one);
    let last = b.select(pos, last, one);
    b.ret(Some(last));

    b.switch_to(search);
    let r = least_runs(&mut b, binom, s, l);
    let one = b.iconst(Type::I64, 1);
    let s1 = b.binary(BinaryOp::Isub, s, one);
    let upper = b
        .call(binom, Some(Type::I64), vec![s1, r, l])
        .expect("binom_cap returns");
    let m = b.binary(BinaryOp::Isub, l, upper);
    let pos = b.icmp(IntCC::Sgt, m, one);
    let m = b.select(pos, m, one);
    b.ret(Some(m));
    f
}

fn build_cost(binom: FuncId) -> parc_ir::Function {
    let (mut f, ps) = helper(COST, 2);
    let (l, s) = (ps[0], ps[1]);
    let entry = f.layout[0];
    let mut b = FuncBuilder::new(&mut f);
    b.switch_to(entry);
    let one = b.iconst(Type::I64, 1);
    let zero = b.iconst(Type::I64, 0);
    let (trivial, more) = (b.create_block(), b.create_block());
    let short = b.icmp(IntCC::Sle, l, one);
    b.brif(short, BlockCall::to(trivial), BlockCall::to(more));
    b.switch_to(trivial);
    b.ret(Some(zero));
    b.switch_to(more);
    let (single, search) = (b.create_block(), b.create_block());
    let one_snap = b.icmp(IntCC::Sle, s, one);
    b.brif(one_snap, BlockCall::to(single), BlockCall::to(search));
    b.switch_to(single);
    let one = b.iconst(Type::I64, 1);
    let l1 = b.binary(BinaryOp::Isub, l, one);
    let p = b.binary(BinaryOp::Imul, l, l1);
    let two = b.iconst(Type::I64, 2);
    let half = b.binary(BinaryOp::Sdiv, p, two);
    b.ret(Some(half));

    b.switch_to(search);
    let r = least_runs(&mut b, binom, s, l);
    let one = b.iconst(Type::I64, 1);
    let s1 = b.binary(BinaryOp::Iadd, s, one);
    let rm = b.binary(BinaryOp::Isub, r, one);
    let all = b.binary(BinaryOp::Imul, r, l);
    // `beta(s + 1, r - 1) <= r·l`: capped just above it.
    let bound = b.binary(BinaryOp::Iadd, all, one);
    let beta = b
        .call(binom, Some(Type::I64), vec![s1, rm, bound])
        .expect("binom_cap returns");
    let c = b.binary(BinaryOp::Isub, all, beta);
    let zero = b.iconst(Type::I64, 0);
    let pos = b.icmp(IntCC::Sgt, c, zero);
    let c = b.select(pos, c, zero);
    b.ret(Some(c));
    f
}

/// The least `r` with `beta(s, r) >= l`, searched from 0 (for `l > 1`
/// and `s > 1` it is small); the builder is left after the search.
fn least_runs(b: &mut FuncBuilder, binom: FuncId, s: Value, l: Value) -> Value {
    let head = b.create_block();
    let r = b.param(head, Type::I64);
    let (next, found) = (b.create_block(), b.create_block());
    let zero = b.iconst(Type::I64, 0);
    b.jump(head, vec![zero]);
    b.switch_to(head);
    let cap = b
        .call(binom, Some(Type::I64), vec![s, r, l])
        .expect("binom_cap returns");
    let enough = b.icmp(IntCC::Sge, cap, l);
    b.brif(enough, BlockCall::to(found), BlockCall::to(next));
    b.switch_to(next);
    let one = b.iconst(Type::I64, 1);
    let r1 = b.binary(BinaryOp::Iadd, r, one);
    b.jump(head, vec![r1]);
    b.switch_to(found);
    r
}

/// What the reverse of a Revolve step calls.
pub(super) struct Reverse {
    pub(super) seg: FuncId,
    pub(super) ret: Option<Type>,
    pub(super) inner_aug: FuncId,
    pub(super) inner_rev: FuncId,
    pub(super) aug_ret: Option<Type>,
    pub(super) aug_len: usize,
    pub(super) split: FuncId,
    /// The roots of the snapshot of the state the loop ends in (`END`).
    pub(super) end_groups: i64,
}

/// The reverse of the Revolve step the forward sweep ran as call
/// `STEP - 1`: from the latest snapshot at or before the step, runs the
/// primal forward to it (leaving snapshots where the schedule puts them
/// while the stack has room), records the step and reverses it. After
/// the first step (the last reversed by Revolve) it runs the loop's other
/// steps once more, so that the memory holds what the forward sweep left
/// (the snapshots leave scratch memory and the steps between them
/// changed), or restores the snapshot of that state if one was kept.
#[allow(clippy::too_many_arguments)]
pub(super) fn reverse_step(
    b: &mut FuncBuilder,
    rv: &Reverse,
    bd: &Budget,
    ps: &[Value],
    at: &[usize],
    k_at: usize,
    state_at: usize,
    groups: &Groups,
) {
    let state = ps[state_at];
    let with_k = |k: Value| {
        let mut args = ps.to_vec();
        args[k_at] = k;
        args
    };
    let seg_args = |k: Value| -> Vec<Value> { at.iter().map(|&i| with_k(k)[i]).collect() };
    let one = b.iconst(Type::I64, 1);
    let step = load_slot(b, state, bd.slot + STEP);
    let i = b.binary(BinaryOp::Isub, step, one);
    store_slot(b, i, state, bd.slot + STEP);
    let stack = load_ptr_slot(b, state, bd.slot + STACK);
    let len = load_slot(b, state, bd.slot + LEN);
    let top = b.binary(BinaryOp::Isub, len, one);
    let sixteen = b.iconst(Type::I64, 16);
    let off = b.binary(BinaryOp::Imul, top, sixteen);
    let entry = b.ptradd(stack, off);
    let j = b.load(Type::I64, entry);
    let eight = b.iconst(Type::I64, 8);
    let bp = b.ptradd(entry, eight);
    let buf = b.load(Type::Ptr, bp);
    restore(b, buf, groups.len() as i64);
    let (pop, advance, record) = (b.create_block(), b.create_block(), b.create_block());
    let pos = b.param(advance, Type::I64);
    let here = b.icmp(IntCC::Eq, j, i);
    b.brif(here, BlockCall::to(pop), BlockCall::new(advance, vec![j]));

    b.switch_to(pop);
    free_snapshot(b, buf, groups.len() as i64);
    store_slot(b, top, state, bd.slot + LEN);
    b.jump(record, Vec::new());

    // From `pos` towards `i`: to the schedule's next snapshot while the
    // stack has room, else to `i` itself.
    b.switch_to(advance);
    let one = b.iconst(Type::I64, 1);
    let len = load_slot(b, state, bd.slot + LEN);
    let cap = load_slot(b, state, bd.slot + CAP);
    let free = b.binary(BinaryOp::Isub, cap, len);
    let i1 = b.binary(BinaryOp::Iadd, i, one);
    let l = b.binary(BinaryOp::Isub, i1, pos);
    let s = b.binary(BinaryOp::Iadd, free, one);
    let m_ = b
        .call(rv.split, Some(Type::I64), vec![l, s])
        .expect("split returns");
    let rest = b.binary(BinaryOp::Isub, i, pos);
    let zero = b.iconst(Type::I64, 0);
    let spare = b.icmp(IntCC::Sgt, free, zero);
    let m_ = b.select(spare, m_, rest);
    b.call(rv.seg, rv.ret, seg_args(m_));
    let npos = b.binary(BinaryOp::Iadd, pos, m_);
    let short = b.icmp(IntCC::Slt, npos, i);
    let snap = b.create_block();
    b.brif(short, BlockCall::to(snap), BlockCall::to(record));
    b.switch_to(snap);
    let buf = take_snapshot(b, groups, &seg_args(one));
    push_snapshot(b, state, bd.slot, npos, buf);
    b.jump(advance, vec![npos]);

    b.switch_to(record);
    let one = b.iconst(Type::I64, 1);
    let args = with_k(one);
    b.call(rv.inner_aug, rv.aug_ret, args[..rv.aug_len].to_vec());
    b.call(rv.inner_rev, None, args);
    let last = b.icmp(IntCC::Eq, i, one);
    let (finish, done) = (b.create_block(), b.create_block());
    b.brif(last, BlockCall::to(finish), BlockCall::to(done));
    b.switch_to(finish);
    // The state the loop ended in: its snapshot, where one was kept.
    let end = load_ptr_slot(b, state, bd.slot + END);
    let null = b.null();
    let kept = b.icmp(IntCC::Ne, end, null);
    let (put_back, rerun) = (b.create_block(), b.create_block());
    b.brif(kept, BlockCall::to(put_back), BlockCall::to(rerun));
    b.switch_to(put_back);
    restore(b, end, rv.end_groups);
    free_snapshot(b, end, rv.end_groups);
    let free_b = b.create_block();
    b.jump(free_b, Vec::new());
    b.switch_to(rerun);
    let trip = load_slot(b, state, bd.slot + TRIP);
    let two = b.iconst(Type::I64, 2);
    let rest = b.binary(BinaryOp::Isub, trip, two);
    let zero = b.iconst(Type::I64, 0);
    let some = b.icmp(IntCC::Sgt, rest, zero);
    let again = b.create_block();
    b.brif(some, BlockCall::to(again), BlockCall::to(free_b));
    b.switch_to(again);
    b.call(rv.seg, rv.ret, seg_args(rest));
    b.jump(free_b, Vec::new());
    b.switch_to(free_b);
    let stack = load_ptr_slot(b, state, bd.slot + STACK);
    let cap = load_slot(b, state, bd.slot + CAP);
    let sixteen = b.iconst(Type::I64, 16);
    let bytes = b.binary(BinaryOp::Imul, cap, sixteen);
    let zero = b.iconst(Type::I64, 0);
    let minus = b.binary(BinaryOp::Isub, zero, bytes);
    crate::tape::note(b, minus, minus);
    b.intrinsic(Intrinsic::Free, None, vec![stack]);
    b.jump(done, Vec::new());
    b.switch_to(done);
    b.ret(None);
}
