//! The rewrite of the pass's module doc: from a [`Plan`], the vector
//! loop's blocks, its run-time tests, its body on vectors and its exit,
//! with the original loop left as the remainder.

use super::dependence::Extent;
use super::plan::{Plan, Shape, stride};
use super::reduction::{Reduction, combiner, identity};
use parc_ir::{
    BinaryOp, Block, BlockCall, CastOp, Function, Inst, InstKind, IntCC, SrcLoc, Type, Value,
    ValueDef,
};
use std::collections::{HashMap, HashSet};

/// Appends to `block` the computation of the loop value `v` for the first
/// iteration (`map` gives the header parameters' initial values and
/// collects what was built).
fn rebuild(
    func: &mut Function,
    body: Block,
    block: Block,
    map: &mut HashMap<Value, Value>,
    v: Value,
) -> Value {
    if let Some(&m) = map.get(&v) {
        return m;
    }
    let ValueDef::Result(i) = func.value_def(v) else {
        return v; // defined outside the loop
    };
    let header = match func.inst(*func.block_insts(body).last().expect("a body jumps")) {
        InstKind::Jump(back) => back.block,
        _ => body,
    };
    if !func.block_insts(body).contains(&i) && !func.block_insts(header).contains(&i) {
        return v; // defined outside the loop
    }
    let mut kind = func.inst(i).clone();
    let ops = kind.operands();
    for o in ops {
        rebuild(func, body, block, map, o);
    }
    kind.map_operands(|o| map.get(&o).copied().unwrap_or(o));
    let new = func.append_inst(block, kind, Some(func.value_type(v)));
    func.locs[new] = func.locs[i];
    let r = func.result(new).expect("made with a result");
    map.insert(v, r);
    r
}

/// Copy `lanes` iterations on of the affine loop value `v` (whose values
/// in the vector loop's copy 0 `first` maps to), computed in `block`:
/// copy 0's plus `lanes` strides.
fn moved(
    func: &mut Function,
    block: Block,
    first: &HashMap<Value, Value>,
    v: Value,
    lanes: u32,
    sh: Shape,
    loc: SrcLoc,
) -> Value {
    let base = first.get(&v).copied().unwrap_or(v);
    let by = stride(sh).wrapping_mul(i64::from(lanes));
    if by == 0 {
        return base;
    }
    let ty = func.value_type(base);
    let (cty, kind): (Type, fn(Value, Value) -> InstKind) = if ty == Type::Ptr {
        (Type::I64, InstKind::PtrAdd)
    } else {
        (ty, |a, b| InstKind::Binary(BinaryOp::Iadd, a, b))
    };
    let c = func.append_inst(
        block,
        InstKind::Iconst(parc_ir::sign_extend(by, cty)),
        Some(cty),
    );
    func.locs[c] = loc;
    let c = func.result(c).expect("a constant");
    let i = func.append_inst(block, kind(base, c), Some(ty));
    func.locs[i] = loc;
    func.result(i).expect("a result")
}

/// Whether value `v` is computed in `block`.
fn in_block(func: &Function, block: Block, v: Value) -> bool {
    match func.value_def(v) {
        ValueDef::Result(i) => func.block_insts(block).contains(&i),
        ValueDef::Param(b, _) => b == block,
    }
}

/// Performs the rewrite of the module doc, the vector path taken from
/// `min_trip` iterations on, with `unroll` copies of the vector body per
/// iteration of the vector loop; returns the vector loop's header.
pub(super) fn rewrite(func: &mut Function, p: &Plan, min_trip: u64, unroll: u32) -> Block {
    let w = p.lanes;
    // Scalar iterations per iteration of the vector loop.
    let span_lanes = w * unroll;
    let loc = func.locs[p.cmp];
    let add = |func: &mut Function, b: Block, kind: InstKind, ty: Option<Type>| {
        let i = func.append_inst(b, kind, ty);
        func.locs[i] = loc;
        func.result(i)
    };
    let val = |r: Option<Value>| r.expect("made with a result");

    // New blocks, placed before the header.
    let at = func
        .layout
        .iter()
        .position(|&b| b == p.header)
        .unwrap_or(func.layout.len());
    let check = (!p.checks.is_empty() || !p.wraps.is_empty()).then(|| func.create_block());
    let vpre = func.create_block();
    let vheader = func.create_block();
    let vbody = func.create_block();
    let vexit = func.create_block();
    let rem = func.create_block();
    let new_blocks: Vec<Block> = check
        .into_iter()
        .chain([vpre, vheader, vbody, vexit, rem])
        .collect();
    for (k, &b) in new_blocks.iter().enumerate() {
        func.layout.insert(at + k, b);
    }
    let iv_types: Vec<Type> = p.ivs.iter().map(|&(v, _)| func.value_type(v)).collect();
    let rem_params: Vec<Value> = iv_types
        .iter()
        .map(|&t| func.append_block_param(rem, t))
        .collect();
    add(
        func,
        rem,
        InstKind::Jump(BlockCall::new(p.header, rem_params)),
        None,
    );

    // The preheader: the trip count (emitted before its jump), the vector
    // part, the way in.
    let n = p.counted.emit(func, p.preheader);
    let pre_term = func.blocks[p.preheader]
        .insts
        .pop()
        .expect("a preheader jumps");
    let mask = val(add(
        func,
        p.preheader,
        InstKind::Iconst(-i64::from(span_lanes)),
        Some(Type::I64),
    ));
    let nv = val(add(
        func,
        p.preheader,
        InstKind::Binary(BinaryOp::And, n, mask),
        Some(Type::I64),
    ));
    let zero = val(add(func, p.preheader, InstKind::Iconst(0), Some(Type::I64)));
    let any = if min_trip <= u64::from(span_lanes) {
        val(add(
            func,
            p.preheader,
            InstKind::Icmp(IntCC::Ne, nv, zero),
            Some(Type::I1),
        ))
    } else {
        let t = i64::try_from(min_trip).unwrap_or(i64::MAX);
        let t = val(add(func, p.preheader, InstKind::Iconst(t), Some(Type::I64)));
        val(add(
            func,
            p.preheader,
            InstKind::Icmp(IntCC::Uge, n, t),
            Some(Type::I1),
        ))
    };
    let first = check.unwrap_or(vpre);
    let brif = InstKind::Brif {
        cond: any,
        then_dest: BlockCall::to(first),
        else_dest: BlockCall::new(rem, p.inits.clone()),
    };
    func.insts[pre_term].kind = brif;
    func.blocks[p.preheader].insts.push(pre_term);

    // The overlap tests.
    if let Some(cb) = check {
        let mut map: HashMap<Value, Value> = p
            .ivs
            .iter()
            .zip(&p.inits)
            .map(|(&(v, _), &i)| (v, i))
            .collect();
        let size = val(add(func, cb, InstKind::Iconst(p.stride), Some(Type::I64)));
        let span = val(add(
            func,
            cb,
            InstKind::Binary(BinaryOp::Imul, nv, size),
            Some(Type::I64),
        ));
        let mut ok: Option<Value> = None;
        for c in &p.checks {
            let range = |func: &mut Function, map: &mut HashMap<Value, Value>, e: Extent| {
                let lo = rebuild(func, p.body, cb, map, e.lo);
                let hi = rebuild(func, p.body, cb, map, e.hi);
                let bytes = match e.fixed {
                    Some(size) => val(add(func, cb, InstKind::Iconst(size), Some(Type::I64))),
                    None if p.descending => size,
                    None => span,
                };
                let end = val(add(func, cb, InstKind::PtrAdd(hi, bytes), Some(Type::Ptr)));
                if p.descending && e.fixed.is_none() {
                    // Down from the first iteration's element: the lowest
                    // is `nv - 1` elements below it.
                    let back = val(add(
                        func,
                        cb,
                        InstKind::Binary(BinaryOp::Isub, size, span),
                        Some(Type::I64),
                    ));
                    let low = val(add(func, cb, InstKind::PtrAdd(lo, back), Some(Type::Ptr)));
                    return (low, end);
                }
                (lo, end)
            };
            let (a_lo, a_end) = range(func, &mut map, c.a);
            let (b_lo, b_end) = range(func, &mut map, c.b);
            let before = val(add(
                func,
                cb,
                InstKind::Icmp(IntCC::Ule, a_end, b_lo),
                Some(Type::I1),
            ));
            let after = val(add(
                func,
                cb,
                InstKind::Icmp(IntCC::Ule, b_end, a_lo),
                Some(Type::I1),
            ));
            let apart = val(add(
                func,
                cb,
                InstKind::Binary(BinaryOp::Or, before, after),
                Some(Type::I1),
            ));
            ok = Some(match ok {
                None => apart,
                Some(o) => val(add(
                    func,
                    cb,
                    InstKind::Binary(BinaryOp::And, o, apart),
                    Some(Type::I1),
                )),
            });
        }
        if !p.wraps.is_empty() {
            // At most 2^32 vector iterations, so that the products below
            // (steps at most 2^16) cannot overflow.
            let limit = val(add(func, cb, InstKind::Iconst(1 << 32), Some(Type::I64)));
            let few = val(add(
                func,
                cb,
                InstKind::Icmp(IntCC::Ule, nv, limit),
                Some(Type::I1),
            ));
            ok = Some(match ok {
                None => few,
                Some(o) => val(add(
                    func,
                    cb,
                    InstKind::Binary(BinaryOp::And, o, few),
                    Some(Type::I1),
                )),
            });
        }
        for &(x, step) in &p.wraps {
            // The last value the vector loop gives `x`, in 64 bits:
            // sext(x0) + (nv - 1) * step, at most i32::MAX (at least
            // i32::MIN where it steps down).
            let x0 = rebuild(func, p.body, cb, &mut map, x);
            let wide = val(add(
                func,
                cb,
                InstKind::Cast(CastOp::Sext, x0),
                Some(Type::I64),
            ));
            let s = val(add(func, cb, InstKind::Iconst(step), Some(Type::I64)));
            let steps = val(add(
                func,
                cb,
                InstKind::Binary(BinaryOp::Imul, nv, s),
                Some(Type::I64),
            ));
            let end = val(add(
                func,
                cb,
                InstKind::Binary(BinaryOp::Iadd, wide, steps),
                Some(Type::I64),
            ));
            let last = val(add(
                func,
                cb,
                InstKind::Binary(BinaryOp::Isub, end, s),
                Some(Type::I64),
            ));
            let (end, cc) = if step > 0 {
                (i32::MAX, IntCC::Sle)
            } else {
                (i32::MIN, IntCC::Sge)
            };
            let max = val(add(
                func,
                cb,
                InstKind::Iconst(i64::from(end)),
                Some(Type::I64),
            ));
            let fits = val(add(func, cb, InstKind::Icmp(cc, last, max), Some(Type::I1)));
            ok = Some(match ok {
                None => fits,
                Some(o) => val(add(
                    func,
                    cb,
                    InstKind::Binary(BinaryOp::And, o, fits),
                    Some(Type::I1),
                )),
            });
        }
        let ok = ok.expect("at least one test");
        add(
            func,
            cb,
            InstKind::Brif {
                cond: ok,
                then_dest: BlockCall::to(vpre),
                else_dest: BlockCall::new(rem, p.inits.clone()),
            },
            None,
        );
    }

    // The vector loop's header.
    let mut vmap: HashMap<Value, Value> = HashMap::new();
    let mut vparams = Vec::new();
    for ((&(v, _), &t), &init) in p.ivs.iter().zip(&iv_types).zip(&p.inits) {
        let t = if p.reductions.contains_key(&v) {
            Type::vector_of(t).expect("a vectorizable type")
        } else {
            t
        };
        let q = func.append_block_param(vheader, t);
        vparams.push(q);
        // An invariant parameter is its initial value throughout.
        vmap.insert(v, if p.invariant.contains(&v) { init } else { q });
    }
    // Where the loop counts down, the vector header's counters hold lane
    // 0's values, those of the last of the `W` iterations it runs:
    // `W - 1` steps on from the scalar loop's (`lag` of them, in each
    // counter's type).
    let lag = |func: &mut Function, b: Block, v: Value, step: i64, t: Type, sign: i64| {
        if !p.descending || step == 0 {
            return v;
        }
        let d = step.wrapping_mul(i64::from(w) - 1).wrapping_mul(sign);
        let c = val(add(
            func,
            b,
            InstKind::Iconst(parc_ir::sign_extend(d, t)),
            Some(t),
        ));
        val(add(
            func,
            b,
            InstKind::Binary(BinaryOp::Iadd, v, c),
            Some(t),
        ))
    };
    // Each reduction's accumulators of the further copies of the body
    // (interleaving), in the order of `p.ivs`.
    let mut accs: Vec<(Value, Vec<Value>)> = Vec::new();
    for &(v, _) in &p.ivs {
        if p.reductions.contains_key(&v) {
            let t = func.value_type(vmap[&v]);
            let more = (1..unroll)
                .map(|_| func.append_block_param(vheader, t))
                .collect();
            accs.push((v, more));
        }
    }
    let accs_of = |v: Value| -> &[Value] {
        accs.iter()
            .find(|(x, _)| *x == v)
            .map_or(&[], |(_, a)| a.as_slice())
    };
    // The vector loop's test: the loop's own counter against the value
    // it leaves the vector loop with (computed on the way in), or a
    // counter of its own.
    let (k, more) = match p.own_counter(func) {
        Some(j) => {
            let by = if p.ivs[j].1 == 1 {
                nv
            } else {
                let s = val(add(
                    func,
                    vpre,
                    InstKind::Iconst(p.ivs[j].1),
                    Some(Type::I64),
                ));
                val(add(
                    func,
                    vpre,
                    InstKind::Binary(BinaryOp::Imul, nv, s),
                    Some(Type::I64),
                ))
            };
            let end = val(add(
                func,
                vpre,
                InstKind::Binary(BinaryOp::Iadd, p.inits[j], by),
                Some(Type::I64),
            ));
            let iv = vmap[&p.ivs[j].0];
            (None, InstKind::Icmp(IntCC::Ne, iv, end))
        }
        None => {
            let k = func.append_block_param(vheader, Type::I64);
            (Some(k), InstKind::Icmp(IntCC::Ult, k, nv))
        }
    };
    let more = val(add(func, vheader, more, Some(Type::I1)));
    add(
        func,
        vheader,
        InstKind::Brif {
            cond: more,
            then_dest: BlockCall::to(vbody),
            else_dest: BlockCall::to(vexit),
        },
        None,
    );
    // The exit: each reduction's lanes and its initial value combined.
    let mut outs = Vec::new();
    for ((&(v, _), &t), &init) in p.ivs.iter().zip(&iv_types).zip(&p.inits) {
        outs.push(match p.reductions.get(&v) {
            Some(&(Reduction::Op(op), _)) => {
                let op = combiner(op);
                // The copies' accumulators lane by lane, then the lanes.
                let vt = func.value_type(vmap[&v]);
                let mut acc = vmap[&v];
                for &a in accs_of(v) {
                    acc = val(add(func, vexit, InstKind::Binary(op, acc, a), Some(vt)));
                }
                let lanes = val(add(func, vexit, InstKind::Reduce(op, acc), Some(t)));
                val(add(func, vexit, InstKind::Binary(op, init, lanes), Some(t)))
            }
            Some(&(Reduction::MinMax { cmp, x, .. }, r)) => {
                // The loop's own compare and select, over the initial
                // value and each lane in turn.
                let ValueDef::Result(select) = func.value_def(r) else {
                    unreachable!("a min/max is a select's result")
                };
                let c = func.result(cmp).expect("a compare has a result");
                // `x` folded into `acc` by the loop's compare and select,
                // on scalars or lane-wise on vectors of type `ty`.
                let fold = |func: &mut Function, x_now: Value, acc: Value, ty: Type| {
                    let at = |o: Value| {
                        if o == x {
                            x_now
                        } else if o == v {
                            acc
                        } else {
                            o
                        }
                    };
                    let cty = if ty.is_vector() {
                        ty.compare_result()
                    } else {
                        Type::I1
                    };
                    let mut ck = func.inst(cmp).clone();
                    ck.map_operands(at);
                    let cv = val(add(func, vexit, ck, Some(cty)));
                    let mut sk = func.inst(select).clone();
                    sk.map_operands(|o| if o == c { cv } else { at(o) });
                    val(add(func, vexit, sk, Some(ty)))
                };
                // The copies' accumulators lane by lane, then the initial
                // value and each lane in turn.
                let vt = func.value_type(vmap[&v]);
                let mut lanes = vmap[&v];
                for &a in accs_of(v) {
                    lanes = fold(func, a, lanes, vt);
                }
                let mut acc = init;
                for lane in 0..w {
                    let e = val(add(
                        func,
                        vexit,
                        InstKind::ExtractLane(lanes, lane as u8),
                        Some(t),
                    ));
                    acc = fold(func, e, acc, t);
                }
                acc
            }
            None => {
                let step = p.ivs.iter().find(|&&(x, _)| x == v).map_or(0, |&(_, s)| s);
                lag(func, vexit, vmap[&v], step, t, -1)
            }
        });
    }
    add(func, vexit, InstKind::Jump(BlockCall::new(rem, outs)), None);
    // The way in: reductions start from their identity in every lane
    // (a minimum or maximum from the initial value).
    let mut args = Vec::new();
    let mut more_args = Vec::new();
    for ((&(v, step), &t), &init) in p.ivs.iter().zip(&iv_types).zip(&p.inits) {
        let vt = Type::vector_of(t);
        let start = match p.reductions.get(&v) {
            Some(&(Reduction::Op(op), _)) => {
                let e = val(add(func, vpre, identity(op), Some(t)));
                val(add(func, vpre, InstKind::Splat(e), vt))
            }
            // A minimum or maximum of the initial value and anything is
            // unchanged by it again.
            Some(&(Reduction::MinMax { .. }, _)) => val(add(func, vpre, InstKind::Splat(init), vt)),
            None => lag(func, vpre, init, step, t, 1),
        };
        args.push(start);
        // Every copy's accumulator starts alike.
        more_args.extend(accs_of(v).iter().map(|_| start));
    }
    args.extend(more_args);
    args.extend(k.map(|_| zero));
    add(
        func,
        vpre,
        InstKind::Jump(BlockCall::new(vheader, args)),
        None,
    );

    // The vector body.
    let shape = |v: Value| p.shapes.get(&v).copied().unwrap_or(Shape::Uniform);
    let mut splats: HashMap<Value, Value> = HashMap::new();
    let mut splat = |func: &mut Function, v: Value, vmap: &HashMap<Value, Value>| -> Value {
        if let Some(&s) = splats.get(&v) {
            return s;
        }
        let ty = Type::vector_of(func.value_type(v)).expect("a vectorizable type");
        // Values from outside the loop, and the loop's uniform values
        // (computed before it), are splatted once, before it.
        let (block, x) = match vmap.get(&v) {
            Some(&x) if in_block(func, vheader, x) || in_block(func, vbody, x) => (vbody, x),
            Some(&x) => (vpre, x),
            None => (vpre, v),
        };
        let i = func.make_inst(InstKind::Splat(x), Some(ty));
        func.locs[i] = loc;
        let insts = &mut func.blocks[block].insts;
        if block == vpre {
            let at = insts.len().saturating_sub(1);
            insts.insert(at, i);
        } else {
            insts.push(i);
        }
        let s = func.result(i).expect("a result");
        splats.insert(v, s);
        s
    };
    let body_insts = func.block_insts(p.body).to_vec();
    let (latch, body_rest) = body_insts.split_last().expect("a body ends in its jump");
    let others: Vec<Inst> = p.header_extras.iter().chain(body_rest).copied().collect();
    let others = &others[..];
    // What only the back edge uses (the counters' increments) is not
    // copied: the vector loop has its own.
    let used: HashSet<Value> = others
        .iter()
        .flat_map(|&i| func.inst(i).operands())
        .collect();
    // (A reduction's new value is the back edge's alone, and copied.)
    let reduced: HashSet<Value> = p.reductions.values().map(|&(_, r)| r).collect();
    let back_edge_only = |r: Value| {
        !used.contains(&r) && !reduced.contains(&r) && func.inst(*latch).operands().contains(&r)
    };
    let back_edge_only: HashSet<Value> = others
        .iter()
        .filter_map(|&i| func.result(i))
        .filter(|&r| back_edge_only(r))
        .collect();
    // Copy 0 of the body, then (interleaving) the others: copy `c` runs
    // the `W` iterations after copy `c - 1`'s, as the next iteration of a
    // plain vector loop would, with the same vector instructions. Its
    // addresses are copy 0's moved by `c W` strides (affine values feed
    // only addresses and other affine values), each reduction has an
    // accumulator of its own and the uniform values are shared.
    let addresses: HashSet<Value> = others
        .iter()
        .filter(|&&i| {
            matches!(func.inst(i), InstKind::Load(_) | InstKind::Store { .. })
                && func.result(i).is_none_or(|r| shape(r) == Shape::Varying)
        })
        .flat_map(|&i| func.inst(i).operands())
        .filter(|&v| matches!(shape(v), Shape::Affine(_)))
        .collect();
    let first = vmap.clone();
    let mut copies = Vec::new();
    for c in 0..unroll {
        let mut vmap = copies.first().unwrap_or(&first).clone();
        if c > 0 {
            for (v, more) in &accs {
                vmap.insert(*v, more[c as usize - 1]);
            }
            // An address that is a counter itself (a pointer stepped
            // through the array).
            for &(v, _) in &p.ivs {
                if addresses.contains(&v) {
                    let moved = moved(func, vbody, &first, v, c * w, shape(v), loc);
                    vmap.insert(v, moved);
                }
            }
        }
        for &i in others {
            if func.result(i).is_some_and(|r| back_edge_only.contains(&r)) {
                continue;
            }
            if c > 0 {
                match func.result(i).map(shape) {
                    // Computed once, before the loop.
                    Some(Shape::Uniform) => continue,
                    Some(sh @ Shape::Affine(_)) => {
                        let r = func.result(i).expect("an affine value");
                        if addresses.contains(&r) {
                            let moved = moved(func, vbody, &copies[0], r, c * w, sh, loc);
                            vmap.insert(r, moved);
                        }
                        continue;
                    }
                    _ => {}
                }
            }
            if func.result(i).is_some_and(|r| back_edge_only.contains(&r)) {
                continue;
            }
            let kind = func.inst(i).clone();
            let result = func.result(i);
            let srcloc = func.locs[i];
            let varying = result.is_some_and(|r| shape(r) == Shape::Varying)
                || matches!(kind, InstKind::Store { .. });
            let mapped =
                |v: Value, vmap: &HashMap<Value, Value>| vmap.get(&v).copied().unwrap_or(v);
            let new_kind = if varying {
                match kind {
                    InstKind::Load(a) => InstKind::Load(mapped(a, &vmap)),
                    InstKind::Store { value, ptr } => {
                        let value = if shape(value) == Shape::Varying {
                            vmap[&value]
                        } else {
                            splat(func, value, &vmap)
                        };
                        InstKind::Store {
                            value,
                            ptr: mapped(ptr, &vmap),
                        }
                    }
                    InstKind::Binary(op, a, b) => {
                        let mut lane = |v: Value, func: &mut Function| {
                            if shape(v) == Shape::Varying {
                                vmap[&v]
                            } else {
                                splat(func, v, &vmap)
                            }
                        };
                        let a = lane(a, func);
                        let b = lane(b, func);
                        InstKind::Binary(op, a, b)
                    }
                    InstKind::Unary(op, a) => InstKind::Unary(op, vmap[&a]),
                    mut k @ (InstKind::Icmp(..)
                    | InstKind::Fcmp(..)
                    | InstKind::Select(..)
                    | InstKind::Intrinsic { .. }) => {
                        let mut lanes: HashMap<Value, Value> = HashMap::new();
                        for o in k.operands() {
                            let l = if shape(o) == Shape::Varying {
                                vmap[&o]
                            } else {
                                splat(func, o, &vmap)
                            };
                            lanes.insert(o, l);
                        }
                        k.map_operands(|o| lanes[&o]);
                        k
                    }
                    other => other,
                }
            } else {
                let mut k = kind;
                k.map_operands(|v| mapped(v, &vmap));
                k
            };
            let ty = result.map(|r| {
                let t = func.value_type(r);
                match func.inst(i) {
                    // A lane-wise compare's mask.
                    InstKind::Icmp(_, a, _) | InstKind::Fcmp(_, a, _)
                        if shape(r) == Shape::Varying =>
                    {
                        let lanes =
                            Type::vector_of(func.value_type(*a)).expect("a vectorizable type");
                        lanes.compare_result()
                    }
                    _ if shape(r) == Shape::Varying => {
                        Type::vector_of(t).expect("a vectorizable type")
                    }
                    _ => t,
                }
            });
            // A uniform value is the same in every iteration: computed once,
            // before the vector loop (which runs at least one iteration, so
            // nothing runs that the scalar loop would not; a load's element
            // is one no store of the loop touches, by the overlap tests).
            let uniform = result.is_some_and(|r| shape(r) == Shape::Uniform);
            let new = if uniform {
                let new = func.make_inst(new_kind, ty);
                let insts = &mut func.blocks[vpre].insts;
                insts.insert(insts.len() - 1, new);
                new
            } else {
                func.append_inst(vbody, new_kind, ty)
            };
            func.locs[new] = srcloc;
            if let (Some(r), Some(n)) = (result, func.result(new)) {
                vmap.insert(r, n);
            }
        }
        copies.push(vmap);
    }
    let vmap = &copies[0];
    // The back edge: every counter advances `unroll * W` iterations; the
    // copies' accumulators follow the header's parameters.
    let mut next = Vec::new();
    let mut more_next = Vec::new();
    for ((&(v, step), &t), &q) in p.ivs.iter().zip(&iv_types).zip(&vparams) {
        if let Some(&(_, r)) = p.reductions.get(&v) {
            next.push(vmap[&r]);
            more_next.extend(copies[1..].iter().map(|m| m[&r]));
            continue;
        }
        if p.invariant.contains(&v) {
            next.push(q);
            continue;
        }
        let by = step.wrapping_mul(i64::from(span_lanes));
        let c = val(add(
            func,
            vbody,
            InstKind::Iconst(parc_ir::sign_extend(by, t)),
            Some(t),
        ));
        next.push(val(add(
            func,
            vbody,
            InstKind::Binary(BinaryOp::Iadd, vmap[&v], c),
            Some(t),
        )));
    }
    next.extend(more_next);
    if let Some(k) = k {
        let wc = val(add(
            func,
            vbody,
            InstKind::Iconst(i64::from(span_lanes)),
            Some(Type::I64),
        ));
        next.push(val(add(
            func,
            vbody,
            InstKind::Binary(BinaryOp::Iadd, k, wc),
            Some(Type::I64),
        )));
    }
    add(
        func,
        vbody,
        InstKind::Jump(BlockCall::new(vheader, next)),
        None,
    );
    vheader
}
