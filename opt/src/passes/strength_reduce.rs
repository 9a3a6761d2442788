//! `strength-reduce`: a row address `base + i * C` in a loop over `i`
//! becomes a pointer that steps by `C * step` each iteration, as LLVM's
//! loop strength reduction does for C's `a[i][j]` over `i` (PolyBench's
//! `B[k][j]` in `2mm`, `A[j][k]` in `syrk`): the multiply leaves the loop,
//! and so does `base`, which in a large function after inlining is often
//! a value spilled to the stack and reloaded every iteration.
//!
//! # Not part of `pipeline()`
//! It runs in [`codegen_prepare`](crate::codegen_prepare), after the
//! vectorizer (which reads addresses as affine forms of the counters and
//! knows no pointer that steps on its own) and before `loop-rotate`, like
//! `iv-widen`: the AD and Tapir lowering recognize loops by their header's
//! parameters, and loops with a `detach`, `reattach` or `sync` among their
//! blocks are left alone.
//!
//! # What is rewritten
//! In a natural loop with a preheader that ends in `jump H(..)` and one
//! latch that ends in `jump H(..)`, an address `a = ptradd base, x` with
//! - `x = imul p, C` (either operand order), `C` a constant and `p` a
//!   parameter of `H` that the back edge passes as `p + s` (`s` a
//!   constant);
//! - `base` defined outside the loop;
//! - every use of `a` in one of the loop's blocks (a use after the loop
//!   would read the address of the iteration that computed it, not of
//!   the one that left).
//!
//! # The rewrite
//! For each `(base, p, C)` a new parameter `q` of `H`: the entering edge
//! passes `ptradd base, imul(init, C)` (made at the end of the
//! preheader), the back edge `ptradd q, C * s` (made at the end of the
//! latch). In every iteration `q` is `base + p * C` in the same wrapping
//! 64-bit arithmetic (`(init + k s) C = init C + k (s C)` modulo 2^64),
//! so each such `a` is replaced by `q`, and the multiply and the old
//! addresses, now unused, are removed.
//!
//! Statistics: `strength-reduce.pointers` (new stepping pointers).

use crate::analysis::tripcount::step_of;
use crate::{HashMap, HashSet, PassContext};
use parc_ir::analysis::tapir_loops::loops_with_tapir;
use parc_ir::analysis::{FunctionAnalyses, Loop};
use parc_ir::{BinaryOp, Block, Function, Inst, InstKind, Module, Type, Value, ValueDef};

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let ids = crate::functions_with_loops(module, &mut ctx.analyses);
    if ids.is_empty() {
        return false;
    }
    let mut pointers = 0;
    let changed = crate::for_each_of(module, &ids, |f| {
        let n = run_function(f);
        pointers += n;
        n > 0
    });
    ctx.count("strength-reduce.pointers", pointers);
    changed
}

/// Rewrites the loops of `func`; returns how many stepping pointers it made.
pub fn run_function(func: &mut Function) -> u64 {
    // The CFG does not change, so one analysis serves every loop; `home`
    // is kept up to date as instructions are added.
    let an = FunctionAnalyses::compute(func);
    let tapir = loops_with_tapir(func, &an);
    let mut home: HashMap<Inst, Block> = func.placed_insts().map(|(b, i)| (i, b)).collect();
    let mut users: HashMap<Value, Vec<Inst>> = HashMap::default();
    for (_, i) in func.placed_insts() {
        func.inst(i)
            .for_each_operand(|v| users.entry(v).or_default().push(i));
    }
    let candidates = candidates(func, &an);
    let mut made = 0;
    for lp in an.loops.loops() {
        if tapir.contains(lp) {
            continue;
        }
        let ld = an.loops.data(lp);
        let header = ld.header;
        let (Some(pre), [latch]) = (ld.preheader, ld.latches.as_slice()) else {
            continue;
        };
        let jump_to_header = |b: Block| match func.terminator(b).map(|t| func.inst(t)) {
            Some(InstKind::Jump(call)) if call.block == header => Some(call.args.clone()),
            _ => None,
        };
        let (Some(inits), Some(backs)) = (jump_to_header(pre), jump_to_header(*latch)) else {
            continue;
        };
        let in_loop = |v: Value| match func.value_def(v) {
            ValueDef::Param(b, _) => ld.contains(b),
            ValueDef::Result(i) => home.get(&i).is_some_and(|&b| ld.contains(b)),
        };
        let params = func.block_params(header).to_vec();
        // (base, parameter index, C) -> the addresses it replaces.
        let mut groups: Vec<((Value, usize, i64), Vec<Value>)> = Vec::new();
        for &Candidate { inst: i, k, c } in candidates.get(&lp).into_iter().flatten() {
            // The base is read now: a rewrite of an enclosing loop may
            // have made it that loop's stepping pointer, defined outside
            // this one.
            let InstKind::PtrAdd(base, _) = *func.inst(i) else {
                continue;
            };
            if in_loop(base) {
                continue;
            }
            let p = params[k];
            if func.value_type(p) != Type::I64 || step_of(func, backs[k], p).is_none() {
                continue;
            }
            let a = func.result(i).expect("ptradd has a result");
            let used_in_loop = users.get(&a).into_iter().flatten().all(|u| {
                home.get(u).is_some_and(|&ub| ld.contains(ub))
                    || !func.inst(*u).operands().contains(&a)
            });
            if !used_in_loop {
                continue;
            }
            let key = (base, k, c);
            match groups.iter_mut().find(|(g, _)| *g == key) {
                Some((_, addrs)) => addrs.push(a),
                None => groups.push((key, vec![a])),
            }
        }
        for ((base, k, c), addrs) in groups {
            let p = params[k];
            let s = step_of(func, backs[k], p).expect("checked above");
            let mut add = |func: &mut Function, b: Block, kind: InstKind, ty: Type| {
                let t = func.terminator(b).expect("ends in a jump");
                let at = func.block_insts(b).len() - 1;
                let i = func.make_inst(kind, Some(ty));
                func.locs[i] = func.locs[t];
                func.blocks[b].insts.insert(at, i);
                home.insert(i, b);
                func.result(i).expect("made with a result")
            };
            let cv = add(func, pre, InstKind::Iconst(c), Type::I64);
            let m0 = add(
                func,
                pre,
                InstKind::Binary(BinaryOp::Imul, inits[k], cv),
                Type::I64,
            );
            let q0 = add(func, pre, InstKind::PtrAdd(base, m0), Type::Ptr);
            let q = func.append_block_param(header, Type::Ptr);
            let dv = add(func, *latch, InstKind::Iconst(c.wrapping_mul(s)), Type::I64);
            let qn = add(func, *latch, InstKind::PtrAdd(q, dv), Type::Ptr);
            for (b, v) in [(pre, q0), (*latch, qn)] {
                let t = func.terminator(b).expect("ends in a jump");
                if let InstKind::Jump(call) = func.inst_mut(t) {
                    call.args.push(v);
                }
            }
            for a in addrs {
                for &u in users.get(&a).into_iter().flatten() {
                    func.inst_mut(u)
                        .map_operands(|o| if o == a { q } else { o });
                }
                let moved = users.get(&a).cloned().unwrap_or_default();
                users.entry(q).or_default().extend(moved);
            }
            made += 1;
        }
    }
    if made > 0 {
        remove_dead(func, &home);
    }
    made
}

/// An address `ptradd _, imul(p, C)` in a loop whose header has `p` as
/// its parameter `k`.
struct Candidate {
    inst: Inst,
    k: usize,
    c: i64,
}

/// The candidate addresses of every loop, each loop's in the order of
/// its blocks: found in one walk over the function, since the multiply's
/// counter names the one loop an address may step in (walking each
/// loop's blocks was quadratic in the depth of a nest). The rewrites
/// change no multiply, counter or block of these instructions, and what
/// they add is never a candidate of a loop not yet rewritten (a loop's
/// preheader lies only in the loops around it, rewritten before it).
fn candidates(func: &Function, an: &FunctionAnalyses) -> HashMap<Loop, Vec<Candidate>> {
    let mut out: HashMap<Loop, Vec<Candidate>> = HashMap::default();
    // The outermost loops' blocks list every loop's blocks, each loop's
    // in its own order.
    let outermost = an
        .loops
        .loops()
        .filter(|&l| an.loops.data(l).parent.is_none());
    for top in outermost {
        for &b in &an.loops.data(top).blocks {
            for &i in func.block_insts(b) {
                let InstKind::PtrAdd(_, x) = *func.inst(i) else {
                    continue;
                };
                let ValueDef::Result(m) = func.value_def(x) else {
                    continue;
                };
                let InstKind::Binary(BinaryOp::Imul, u, w) = *func.inst(m) else {
                    continue;
                };
                let (p, c) = match (func.const_int(u), func.const_int(w)) {
                    (None, Some(c)) => (u, c),
                    (Some(c), None) => (w, c),
                    _ => continue,
                };
                let ValueDef::Param(h, k) = func.value_def(p) else {
                    continue;
                };
                let Some(lp) = an.loops.loop_headed_by(h) else {
                    continue;
                };
                if an.loops.contains(lp, b) {
                    out.entry(lp).or_default().push(Candidate {
                        inst: i,
                        k: k as usize,
                        c,
                    });
                }
            }
        }
    }
    out
}

/// Removes the pure instructions whose results nothing reads, over and
/// over (the old addresses, then their multiplies).
fn remove_dead(func: &mut Function, home: &HashMap<Inst, Block>) {
    loop {
        let mut used: HashSet<Value> = HashSet::default();
        for (_, i) in func.placed_insts() {
            func.inst(i).for_each_operand(|v| {
                used.insert(v);
            });
        }
        let dead: Vec<(Block, Inst)> = home
            .iter()
            .filter(|&(&i, _)| {
                let k = func.inst(i);
                !k.has_side_effects()
                    && matches!(
                        k,
                        InstKind::PtrAdd(..) | InstKind::Binary(BinaryOp::Imul, ..)
                    )
                    && func.result(i).is_some_and(|r| !used.contains(&r))
            })
            .map(|(&i, &b)| (b, i))
            .filter(|(b, i)| func.block_insts(*b).contains(i))
            .collect();
        if dead.is_empty() {
            return;
        }
        for (b, i) in dead {
            func.blocks[b].insts.retain(|&x| x != i);
        }
    }
}
