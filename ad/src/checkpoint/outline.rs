//! Cutting a serial loop into segments: the loop moves into a function of
//! its own, `f.seg`, that runs at most `k` iterations per call, and the
//! function differentiated calls it until the loop is done.
//!
//! `seg(live-ins..., ptr state, i64 k) -> i32` takes the values the loop
//! uses from before it as parameters. What crosses a segment's boundary
//! goes through `state`, 8-byte slots of an `alloca` of the caller: the
//! header's parameters (the loop's counter, say) when the `k`-th
//! iteration returns to the header, the arguments of the exit edge taken
//! and the loop's values used after it when the loop ends. It returns 0
//! after `k` iterations, else the number of the exit edge taken (from 1).
//! The caller stores the header's first arguments into `state`, calls
//! `seg` while it returns 0, and continues at the exit edge it names with
//! the arguments and values loaded from `state`.
//!
//! Since `state` is written by `seg`, the snapshot of what a segment
//! writes covers it: a segment run again from its snapshot starts from
//! the same counter.
//!
//! Refused (with the reason): a loop with a `return` inside, with more
//! than one edge in from outside, with values used after it and several
//! exit edges, or carrying a value wider than 8 bytes.

use parc_ir::analysis::FunctionAnalyses;
use parc_ir::{
    BinaryOp, Block, BlockCall, CastOp, FuncBuilder, FuncId, Function, Inst, InstKind, IntCC,
    Linkage, Module, Signature, SrcLoc, Type, Value, ValueDef,
};
use std::collections::{HashMap, HashSet};

/// A loop cut into segments.
pub struct Outlined {
    /// The segment function and the position of the loop.
    pub seg: FuncId,
    pub loc: SrcLoc,
    /// With a budget, the first of the slots of `state` after the
    /// segment's own that its `.aug` uses (`pair::PLAN_SLOTS`): the
    /// period it chose (the caller stores 0), the loop's trip count (-1
    /// where the loop is not counted), then the binomial schedule's.
    pub plan: Option<usize>,
}

/// A loop's exit test `iv < bound` (`<=` inclusive) at its header, for
/// header parameter `iv` growing by `step > 0` on every back edge and a
/// bound from before the loop: its trip count can be computed before it.
struct Counted {
    iv: usize,
    step: i64,
    bound: Value,
    inclusive: bool,
    signed: bool,
}

fn counted(
    f: &Function,
    h: Block,
    in_loop: &HashSet<Block>,
    backs: &[(Block, usize)],
    defined_in: impl Fn(Value) -> bool,
) -> Option<Counted> {
    let InstKind::Brif {
        cond,
        then_dest,
        else_dest,
    } = f.inst(f.terminator(h)?)
    else {
        return None;
    };
    if !in_loop.contains(&then_dest.block) || in_loop.contains(&else_dest.block) {
        return None;
    }
    let ValueDef::Result(ci) = f.value_def(*cond) else {
        return None;
    };
    let InstKind::Icmp(cc, x, bound) = *f.inst(ci) else {
        return None;
    };
    let (signed, inclusive) = cc.upper_bound()?;
    let iv = f.blocks[h].params.iter().position(|&p| p == x)?;
    if defined_in(bound) {
        return None;
    }
    let mut step = None;
    for &(b, slot) in backs {
        let next = *edge_args(f, b, slot).get(iv)?;
        let ValueDef::Result(i) = f.value_def(next) else {
            return None;
        };
        let InstKind::Binary(BinaryOp::Iadd, a, c) = *f.inst(i) else {
            return None;
        };
        let ValueDef::Result(ci) = f.value_def(c) else {
            return None;
        };
        let (InstKind::Iconst(s), true) = (f.inst(ci), a == x) else {
            return None;
        };
        if *s <= 0 || step.is_some_and(|t| t != *s) {
            return None;
        }
        step = Some(*s);
    }
    Some(Counted {
        iv,
        step: step?,
        bound,
        inclusive,
        signed,
    })
}

/// `max(0, ceil((bound - lo + inclusive) / step))` in `i64`.
fn trip_count(b: &mut FuncBuilder, c: &Counted, lo: Value) -> Value {
    let wide = |b: &mut FuncBuilder, v: Value| {
        if b.func.value_type(v) == Type::I64 {
            v
        } else if c.signed {
            b.cast(CastOp::Sext, v, Type::I64)
        } else {
            b.cast(CastOp::Zext, v, Type::I64)
        }
    };
    let (lo, hi) = (wide(b, lo), wide(b, c.bound));
    let span = b.binary(BinaryOp::Isub, hi, lo);
    let extra = b.iconst(Type::I64, i64::from(c.inclusive) + c.step - 1);
    let up = b.binary(BinaryOp::Iadd, span, extra);
    let step = b.iconst(Type::I64, c.step);
    let n = b.binary(BinaryOp::Sdiv, up, step);
    let zero = b.iconst(Type::I64, 0);
    let pos = b.icmp(IntCC::Sgt, n, zero);
    b.select(pos, n, zero)
}

/// Whether function `f` or a function it calls has a loop.
fn loops_in(m: &Module, f: FuncId) -> bool {
    m.reaches([f], |func| {
        !FunctionAnalyses::compute(func).loops.is_empty()
    })
}

/// The outermost serial loops of function `fid` that contain other loops,
/// or call functions with loops (the time loops), by header, with their
/// positions.
pub fn time_loops(m: &Module, fid: FuncId) -> Vec<(Block, SrcLoc)> {
    let f = &m.funcs[fid];
    let an = FunctionAnalyses::compute(f);
    let mut out = Vec::new();
    for lp in an.loops.loops() {
        let ld = an.loops.data(lp);
        if ld.parent.is_some() {
            continue;
        }
        let inner = an
            .loops
            .loops()
            .any(|o| o != lp && ld.contains(an.loops.data(o).header))
            || ld.blocks.iter().any(|&b| {
                f.blocks[b].insts.iter().any(|&i| match f.inst(i) {
                    InstKind::Call { func, .. } => loops_in(m, *func),
                    _ => false,
                })
            });
        let serial = f
            .terminator(ld.header)
            .is_some_and(|t| matches!(f.inst(t), InstKind::Jump(_) | InstKind::Brif { .. }));
        if inner && serial {
            let loc = f
                .terminator(ld.header)
                .map(|t| f.locs[t])
                .unwrap_or_default();
            out.push((ld.header, loc));
        }
    }
    out
}

fn edge_args(f: &Function, b: Block, slot: usize) -> Vec<Value> {
    let t = f.terminator(b).expect("a block ends in a terminator");
    f.inst(t).block_calls()[slot].args.clone()
}

fn set_edge(f: &mut Function, b: Block, slot: usize, to: Block, args: Vec<Value>) {
    let t = f.terminator(b).expect("a block ends in a terminator");
    let mut calls = f.inst_mut(t).block_calls_mut();
    calls[slot].block = to;
    calls[slot].args = args;
}

fn slot_ptr(b: &mut FuncBuilder, state: Value, k: usize) -> Value {
    let off = b.iconst(Type::I64, 8 * k as i64);
    b.ptradd(state, off)
}

/// Cuts the loop headed by `h` in function `fid` into segments of `k`
/// iterations (see the module doc): `fid` calls the new function instead.
/// With `budget`, `state` gets the two slots of [`Outlined::plan`].
pub fn outline(
    m: &mut Module,
    fid: FuncId,
    h: Block,
    k: u64,
    budget: bool,
) -> Result<Outlined, String> {
    let f = &m.funcs[fid];
    let an = FunctionAnalyses::compute(f);
    let lp = an
        .loops
        .loop_headed_by(h)
        .ok_or("the loop is no natural loop")?;
    let ld = an.loops.data(lp).clone();
    let in_loop: HashSet<Block> = ld.blocks.iter().copied().collect();
    let loc = f.terminator(h).map(|t| f.locs[t]).unwrap_or_default();
    let mut block_of: HashMap<Inst, Block> = HashMap::new();
    for (b, i) in f.placed_insts() {
        block_of.insert(i, b);
    }
    let defined_in = |v: Value| match f.value_def(v) {
        ValueDef::Param(b, _) => in_loop.contains(&b),
        ValueDef::Result(i) => block_of.get(&i).is_some_and(|b| in_loop.contains(b)),
    };
    // Edges: in from outside, back to the header, out of the loop.
    let (mut entries, mut backs, mut exits) = (Vec::new(), Vec::new(), Vec::new());
    for &b in &f.layout {
        let Some(t) = f.terminator(b) else { continue };
        if in_loop.contains(&b) && matches!(f.inst(t), InstKind::Return(_)) {
            return Err("it returns from inside the loop".into());
        }
        for (slot, c) in f.inst(t).block_calls().iter().enumerate() {
            match (in_loop.contains(&b), in_loop.contains(&c.block)) {
                (false, true) if c.block == h => entries.push((b, slot)),
                (false, true) => return Err("it is entered other than at its header".into()),
                (true, true) if c.block == h => backs.push((b, slot)),
                (true, false) => exits.push((b, slot, c.block)),
                _ => {}
            }
        }
        if in_loop.contains(&b)
            && matches!(
                f.inst(t),
                InstKind::Detach { .. } | InstKind::Reattach { .. } | InstKind::Sync { .. }
            )
        {
            let succs = f.inst(t).successors();
            if succs.iter().any(|s| !in_loop.contains(s)) {
                return Err("a parallel task crosses its boundary".into());
            }
        }
    }
    let [(pre, pre_slot)] = entries[..] else {
        return Err("it has more than one edge in".into());
    };
    // Values crossing the loop's boundary.
    let mut live_in = Vec::new();
    let mut live_out = Vec::new();
    // Constants from before the loop are made again in the segment.
    let mut consts = Vec::new();
    let constant = |v: Value| match f.value_def(v) {
        ValueDef::Result(i) => matches!(f.inst(i), InstKind::Iconst(_) | InstKind::Fconst(_)),
        ValueDef::Param(..) => false,
    };
    for &b in &f.layout {
        for &i in &f.blocks[b].insts {
            for v in f.inst(i).operands() {
                let (inside_use, inside_def) = (in_loop.contains(&b), defined_in(v));
                if inside_use && !inside_def && constant(v) {
                    if !consts.contains(&v) {
                        consts.push(v);
                    }
                } else if inside_use && !inside_def && !live_in.contains(&v) {
                    live_in.push(v);
                }
                if !inside_use && inside_def && !live_out.contains(&v) {
                    live_out.push(v);
                }
            }
        }
    }
    if !live_out.is_empty() && exits.len() > 1 {
        return Err("values of the loop are used after it and it has several exits".into());
    }
    let count = if budget {
        counted(f, h, &in_loop, &backs, defined_in)
    } else {
        None
    };
    let carried: Vec<Value> = f.blocks[h].params.clone();
    let mut slots = 0usize;
    let carried_at = slots;
    slots += carried.len();
    let mut exit_at = Vec::new();
    for &(b, slot, _) in &exits {
        exit_at.push(slots);
        slots += edge_args(f, b, slot).len();
    }
    let out_at = slots;
    slots += live_out.len();
    let wide = |v: &Value| f.value_type(*v).bytes() > 8;
    if carried.iter().any(wide) || live_out.iter().any(wide) {
        return Err("it carries a vector value".into());
    }
    let exit_tys: Vec<Vec<Type>> = exits
        .iter()
        .map(|&(b, s, _)| {
            edge_args(f, b, s)
                .iter()
                .map(|&v| f.value_type(v))
                .collect()
        })
        .collect();
    if exit_tys.iter().flatten().any(|t| t.bytes() > 8) {
        return Err("it leaves with a vector value".into());
    }

    // The segment function: a copy of `f` that keeps the loop's blocks.
    let mut seg: Function = f.clone();
    seg.name = m.fresh_func_name(&format!("{}.seg", f.name));
    seg.linkage = Linkage::Local;
    seg.noalias.clear();
    seg.c_sig = None;
    let mut params: Vec<Type> = live_in.iter().map(|&v| f.value_type(v)).collect();
    params.push(Type::Ptr);
    params.push(Type::I64);
    seg.sig = Signature {
        params: params.clone(),
        ret: Some(Type::I32),
    };
    seg.param_names = live_in
        .iter()
        .map(|&v| match f.value_def(v) {
            ValueDef::Param(b, n) if Some(b) == f.entry() => {
                f.param_name(n as usize).unwrap_or("").to_string()
            }
            _ => String::new(),
        })
        .chain(["state".to_string(), "k".to_string()])
        .collect();
    let entry = seg.create_block();
    let ps: Vec<Value> = params
        .iter()
        .map(|&t| seg.append_block_param(entry, t))
        .collect();
    seg.layout = std::iter::once(entry)
        .chain(f.layout.iter().copied().filter(|b| in_loop.contains(b)))
        .collect();
    for (&v, &p) in live_in.iter().zip(&ps) {
        seg.replace_uses(v, p);
    }
    for &c in &consts {
        let ValueDef::Result(i) = seg.value_def(c) else {
            continue;
        };
        let kind = seg.inst(i).clone();
        let ty = seg.value_type(c);
        let copy = seg.append_inst(entry, kind, Some(ty));
        let v = seg.result(copy).expect("a constant has a result");
        seg.replace_uses(c, v);
    }
    let (state, kk) = (ps[ps.len() - 2], ps[ps.len() - 1]);
    let cnt = seg.append_block_param(h, Type::I64);
    {
        let mut b = FuncBuilder::new(&mut seg);
        b.set_loc(loc);
        b.switch_to(entry);
        let mut init = Vec::new();
        for (j, &c) in carried.iter().enumerate() {
            let p = slot_ptr(&mut b, state, carried_at + j);
            init.push(b.load(b.func.value_type(c), p));
        }
        init.push(b.iconst(Type::I64, 0));
        b.jump(h, init);
    }
    for &(src, slot) in &backs {
        let args = edge_args(&seg, src, slot);
        let mut b = FuncBuilder::new(&mut seg);
        b.set_loc(loc);
        let step = b.create_block();
        let save = b.create_block();
        b.switch_to(step);
        let one = b.iconst(Type::I64, 1);
        let next = b.binary(parc_ir::BinaryOp::Iadd, cnt, one);
        let done = b.icmp(IntCC::Sge, next, kk);
        let mut again = args.clone();
        again.push(next);
        b.brif(done, BlockCall::to(save), BlockCall::new(h, again));
        b.switch_to(save);
        for (j, &a) in args.iter().enumerate() {
            let p = slot_ptr(&mut b, state, carried_at + j);
            b.store(a, p);
        }
        let zero = b.iconst(Type::I32, 0);
        b.ret(Some(zero));
        set_edge(&mut seg, src, slot, step, Vec::new());
    }
    for (e, &(src, slot, _)) in exits.iter().enumerate() {
        let args = edge_args(&seg, src, slot);
        let mut b = FuncBuilder::new(&mut seg);
        b.set_loc(loc);
        let leave = b.create_block();
        b.switch_to(leave);
        for (j, &a) in args.iter().enumerate() {
            let p = slot_ptr(&mut b, state, exit_at[e] + j);
            b.store(a, p);
        }
        for (j, &v) in live_out.iter().enumerate() {
            let p = slot_ptr(&mut b, state, out_at + j);
            b.store(v, p);
        }
        let n = b.iconst(Type::I32, e as i64 + 1);
        b.ret(Some(n));
        set_edge(&mut seg, src, slot, leave, Vec::new());
    }
    let seg_id = m.funcs.push(seg);

    // The caller: the loop becomes calls of the segment function.
    let plan = budget.then(|| {
        slots += super::pair::PLAN_SLOTS;
        slots - super::pair::PLAN_SLOTS
    });
    let f = &mut m.funcs[fid];
    let init_args = edge_args(f, pre, pre_slot);
    let fentry = f.entry().ok_or("a function without body")?;
    let size = u32::try_from(8 * slots.max(1)).map_err(|_| "too many values cross it")?;
    let alloca = f.make_inst(InstKind::Alloca { size, align: 8 }, Some(Type::Ptr));
    f.locs[alloca] = loc;
    f.blocks[fentry].insts.insert(0, alloca);
    let state = f.result(alloca).expect("an alloca has a result");
    let mut b = FuncBuilder::new(f);
    b.set_loc(loc);
    let start = b.create_block();
    let call = b.create_block();
    b.switch_to(start);
    for (j, &a) in init_args.iter().enumerate() {
        let p = slot_ptr(&mut b, state, carried_at + j);
        b.store(a, p);
    }
    if let Some(plan) = plan {
        let zero = b.iconst(Type::I64, 0);
        let p = slot_ptr(&mut b, state, plan);
        b.store(zero, p);
        let trip = match &count {
            Some(c) => trip_count(&mut b, c, init_args[c.iv]),
            None => b.iconst(Type::I64, -1),
        };
        let p = slot_ptr(&mut b, state, plan + 1);
        b.store(trip, p);
    }
    b.jump(call, Vec::new());
    b.switch_to(call);
    let mut args = live_in.clone();
    args.push(state);
    args.push(b.iconst(Type::I64, k as i64));
    let r = b
        .call(seg_id, Some(Type::I32), args)
        .expect("the segment returns");
    let zero = b.iconst(Type::I32, 0);
    let more = b.icmp(IntCC::Eq, r, zero);
    let mut test = b.create_block();
    b.brif(more, BlockCall::to(call), BlockCall::to(test));
    let mut loaded = Vec::new();
    for (e, &(src, slot, target)) in exits.iter().enumerate() {
        b.switch_to(test);
        let go = b.create_block();
        if e + 1 < exits.len() {
            let next = b.create_block();
            let n = b.iconst(Type::I32, e as i64 + 1);
            let is = b.icmp(IntCC::Eq, r, n);
            b.brif(is, BlockCall::to(go), BlockCall::to(next));
            test = next;
        } else {
            b.jump(go, Vec::new());
        }
        b.switch_to(go);
        let _ = (src, slot);
        let mut args = Vec::new();
        for (j, &t) in exit_tys[e].iter().enumerate() {
            let p = slot_ptr(&mut b, state, exit_at[e] + j);
            args.push(b.load(t, p));
        }
        for (j, &v) in live_out.iter().enumerate() {
            let p = slot_ptr(&mut b, state, out_at + j);
            let ty = b.func.value_type(v);
            loaded.push((v, b.load(ty, p)));
        }
        b.jump(target, args);
    }
    set_edge(f, pre, pre_slot, start, Vec::new());
    f.layout.retain(|b| !in_loop.contains(b));
    for (v, l) in loaded {
        f.replace_uses(v, l);
    }
    Ok(Outlined {
        seg: seg_id,
        loc,
        plan,
    })
}
