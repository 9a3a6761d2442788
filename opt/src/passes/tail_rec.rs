//! `tail-rec`: accumulator tail-recursion elimination, made safe for
//! unbounded recursion.
//!
//! A self-call whose result the function returns — directly, or combined
//! with one value by an associative and commutative integer operation —
//! becomes a jump back to the top of the function, with the operation
//! carried in an accumulator:
//!
//! ```text
//! int fib(int n) {                        int fib(int n) {
//!     if (n < 2) return n;                    int acc = 0;
//!     return fib(n - 1) + fib(n - 2);   →     top: if (n < 2) return acc + n;
//! }                                           acc = acc + fib(n - 1); n = n - 2; goto top;
//!                                         }
//! ```
//!
//! gcc -O2 does this (its `tailr` pass), and it is what makes recursive
//! fib cheap: half the calls become iterations, and the remaining
//! recursion is linear, so `inline` can unfold it several levels deep
//! without the exponential growth of a doubly recursive body.
//!
//! # What is eliminated
//! A *site* is a block ending in `return` whose last instruction with an
//! effect (a store, a call, a load, a trapping division ...) is `r = call
//! @f(args)` of the function itself, followed only by pure arithmetic and
//! either `return r` (`acc` unchanged) or `v = OP r, x` / `OP x, r`; `return
//! v`, with `OP` one of `iadd`, `imul`, `and`, `or`, `xor` (wrapping
//! integer operations: associative and commutative; float addition is
//! neither, so a float accumulation is refused), `r` used only there and
//! `v` only by the return. Because `r` has that one use, `x` cannot depend
//! on it. All sites must use one `OP` (or none). A void function's `call
//! @f(args); return` is a site too.
//!
//! The result: a new entry block jumps to the old one (now the loop
//! header) with the arguments and `acc` = the identity of `OP`; a site
//! becomes `acc' = OP acc, x; jump header(args, acc')`; every other
//! `return v` becomes `return OP acc, v`. Since the operation is
//! associative and commutative, `x0 OP (x1 OP (... OP base))` equals
//! `((id OP x0) OP x1) ... OP base`. Effects keep their order: the
//! eliminated call was the site's last effect, and what ran after it was
//! pure, so the next iteration's effects follow exactly the ones the
//! call's body would have had.
//!
//! # Refused (counted as `tail-rec.refused.WHY`)
//! - `tapir`: a function with a detach, reattach or sync — a jump back to
//!   the top from a continuation would re-enter the function's tasks and
//!   sync regions, and a call inside a task runs in parallel.
//! - `alloca`: a function with an `alloca` — a callee may hold a pointer to
//!   its caller's frame, which in a loop would be the same (re-zeroed)
//!   object. (At `-O2`, `mem2reg` has removed the scalar ones.)
//! - `convergent`: a function that may reach a barrier (see
//!   [`parc_ir::convergent`]). Threads of a block meet at a barrier only
//!   when they reach it through the same calls; as a loop, the barrier of
//!   depth 2 would be the same as that of depth 1, and threads at
//!   different depths, which the original keeps apart (barrier
//!   divergence), would meet.
//! - `mixed-ops`: sites with different operations.
//! - `no-measure` and `no-kept-call`: the two conditions below.
//!
//! # Unbounded recursion still overflows the stack
//! ParC reports unbounded recursion as a run-time error (`stack overflow`,
//! `tests/run/infinite_recursion.pc`). A loop has no stack to overflow, so
//! turning `down(n) = down(n + 1) + 1` into one would make the program hang
//! instead. Two conditions rule that out:
//! 1. **A decreasing measure** (`no-measure`): the entry block ends in
//!    `brif (icmp CC p, K)` for a parameter `p` and a constant `K`, and one
//!    of its successors, entered only from the entry, dominates every site
//!    (so every iteration that reaches a site has passed the test, giving
//!    `p >= L` or `p <= U`, signed or unsigned); every site passes `p - c`
//!    (resp. `p + c`) for `p`, with a constant `c >= 1` such that `L - c`
//!    (resp. `U + c`) is still in range, so the new `p` does not wrap. Then
//!    `p` strictly decreases (increases) while staying bounded, and the
//!    loop ends after finitely many iterations: the chain of eliminated
//!    calls was finite, so an infinite call chain of the original has
//!    infinitely many calls that stay calls, and still overflows the stack.
//! 2. **Every iteration still recurses** (`no-kept-call`): every path from
//!    the entry to a site passes a self-call that is not eliminated (fib's
//!    `fib(n - 1)`), so the recursion keeps its depth (fib's is still `n`
//!    deep), and linear recursion (`sum(n) = n + sum(n - 1)`) is left alone:
//!    deep finite recursion overflows the stack as the unoptimized program
//!    does, which keeps optimized and unoptimized runs (and the
//!    interpreter's call-depth limit) in agreement. This condition alone
//!    would not be enough: `f(n) = f(0) + f(n + 1)` recurses without bound
//!    along its eliminated calls while every kept call returns; the measure
//!    refuses it.
//!
//! The remaining self-calls stay calls. Later passes may inline copies of
//! the function into them (`inline`), whose calls stay calls too.
//!
//! Statistics: `tail-rec.eliminated` (sites), `tail-rec.functions`, and the
//! refusals above.

use crate::PassContext;
use crate::{HashMap, HashSet};
use parc_ir::analysis::FunctionAnalyses;
use parc_ir::{
    BinaryOp, Block, BlockCall, FuncId, Function, Inst, InstKind, IntCC, Module, Type, Value,
    ValueDef, sign_extend,
};

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let mut changed = false;
    let ids: Vec<FuncId> = module.funcs.keys().collect();
    for id in ids {
        let func = &mut module.funcs[id];
        if func.is_declaration() {
            continue;
        }
        match plan(func, id) {
            Ok(Some(plan)) => {
                ctx.count("tail-rec.eliminated", plan.sites.len() as u64);
                ctx.count("tail-rec.functions", 1);
                apply(func, &plan);
                changed = true;
            }
            Ok(None) => {}
            Err(why) => ctx.count(&format!("tail-rec.refused.{why}"), 1),
        }
    }
    changed
}

/// One self-call to turn into a jump.
#[derive(Debug)]
struct Site {
    block: Block,
    call: Inst,
    args: Vec<Value>,
    /// The accumulating instruction and its other operand, if any.
    accumulate: Option<(Inst, Value)>,
    ret: Inst,
}

#[derive(Debug)]
struct Plan {
    sites: Vec<Site>,
    /// The accumulating operation, if any site has one.
    op: Option<BinaryOp>,
}

/// Operations an accumulator may carry: wrapping integer operations that
/// are associative and commutative.
fn accumulates(op: BinaryOp) -> bool {
    matches!(
        op,
        BinaryOp::Iadd | BinaryOp::Imul | BinaryOp::And | BinaryOp::Or | BinaryOp::Xor
    )
}

/// The identity of `op` on `ty`, as a canonical immediate.
fn identity(op: BinaryOp, ty: Type) -> i64 {
    let imm = match op {
        BinaryOp::Imul => 1,
        BinaryOp::And => -1,
        _ => 0,
    };
    sign_extend(imm, ty)
}

/// True for an instruction that may stand between the eliminated call and
/// the return: it neither has an effect nor reads memory (which the call
/// may have written), so it may as well run before the next iteration.
fn is_pure_arith(kind: &InstKind) -> bool {
    !kind.has_side_effects() && !matches!(kind, InstKind::Load(_) | InstKind::Alloca { .. })
}

/// The sites of `func` (whose id is `id`) and whether they may go; `Ok(None)`
/// when there is nothing to eliminate.
fn plan(func: &Function, id: FuncId) -> Result<Option<Plan>, &'static str> {
    let an = FunctionAnalyses::compute(func);
    let mut uses: HashMap<Value, u32> = HashMap::default();
    for (_, i) in func.placed_insts() {
        func.inst(i)
            .for_each_operand(|v| *uses.entry(v).or_default() += 1);
    }
    let used_once = |v: Value| uses.get(&v) == Some(&1);
    let mut sites = Vec::new();
    let mut op = None;
    for &b in an.cfg.rpo() {
        let insts = func.block_insts(b);
        let Some((&ret, body)) = insts.split_last() else {
            continue;
        };
        let InstKind::Return(rv) = *func.inst(ret) else {
            continue;
        };
        let Some(pos) = body.iter().rposition(|&i| !is_pure_arith(func.inst(i))) else {
            continue;
        };
        let call = body[pos];
        let InstKind::Call { func: g, ref args } = *func.inst(call) else {
            continue;
        };
        if g != id {
            continue;
        }
        let r = func.result(call);
        let accumulate = match (rv, r) {
            (None, None) => None,
            (Some(v), Some(r)) if v == r && used_once(r) => None,
            (Some(v), Some(r)) if used_once(r) && used_once(v) => {
                let ValueDef::Result(acc_inst) = func.value_def(v) else {
                    continue;
                };
                if !body[pos + 1..].contains(&acc_inst) {
                    continue;
                }
                let InstKind::Binary(o, a, c) = *func.inst(acc_inst) else {
                    continue;
                };
                let x = match (a == r, c == r) {
                    (true, false) => c,
                    (false, true) => a,
                    _ => continue,
                };
                if !accumulates(o) {
                    continue;
                }
                if op.is_some_and(|prev| prev != o) {
                    return Err("mixed-ops");
                }
                op = Some(o);
                Some((acc_inst, x))
            }
            _ => continue,
        };
        sites.push(Site {
            block: b,
            call,
            args: args.clone(),
            accumulate,
            ret,
        });
    }
    if sites.is_empty() {
        return Ok(None);
    }
    // A self-call of a function that may reach a barrier is convergent.
    if func.convergent {
        return Err("convergent");
    }
    let mut tapir = false;
    let mut alloca = false;
    for (_, i) in func.placed_insts() {
        match func.inst(i) {
            InstKind::Detach { .. } | InstKind::Reattach { .. } | InstKind::Sync { .. } => {
                tapir = true
            }
            InstKind::Alloca { .. } => alloca = true,
            _ => {}
        }
    }
    if tapir {
        return Err("tapir");
    }
    if alloca {
        return Err("alloca");
    }
    if !has_measure(func, &an, &sites) {
        return Err("no-measure");
    }
    if !always_recurses(func, id, &an, &sites) {
        return Err("no-kept-call");
    }
    Ok(Some(Plan { sites, op }))
}

/// Condition 1 of the module doc: a parameter bounded by the entry's test
/// and moved towards the bound by a constant at every site, without
/// wrapping.
fn has_measure(func: &Function, an: &FunctionAnalyses, sites: &[Site]) -> bool {
    let Some(entry) = func.entry() else {
        return false;
    };
    let Some(term) = func.terminator(entry) else {
        return false;
    };
    let InstKind::Brif {
        cond,
        ref then_dest,
        ref else_dest,
    } = *func.inst(term)
    else {
        return false;
    };
    if then_dest.block == else_dest.block {
        return false;
    }
    let ValueDef::Result(test) = func.value_def(cond) else {
        return false;
    };
    let InstKind::Icmp(cc, a, b) = *func.inst(test) else {
        return false;
    };
    let params = func.block_params(entry);
    // `p CC K`, with `p` a parameter.
    let (p, cc, k) = match (
        params.contains(&a),
        func.const_int(b),
        params.contains(&b),
        func.const_int(a),
    ) {
        (true, Some(k), _, _) => (a, cc, k),
        (_, _, true, Some(k)) => (b, cc.swapped(), k),
        _ => return false,
    };
    let ty = func.value_type(p);
    if !matches!(ty, Type::I8 | Type::I16 | Type::I32 | Type::I64) {
        return false;
    }
    // The successor through which every site is reached, and the test's
    // outcome there.
    let guarded_by = |s: Block| {
        an.cfg.preds(s) == [entry] && sites.iter().all(|site| an.domtree.dominates(s, site.block))
    };
    let cc = if guarded_by(then_dest.block) {
        cc
    } else if guarded_by(else_dest.block) {
        cc.inverted()
    } else {
        return false;
    };
    let bits = ty.bits();
    let (smin, smax) = (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1);
    let umax = (1i128 << bits) - 1;
    let ks = i128::from(k);
    let ku = ks & umax;
    // `decreasing`: the sites must move `p` down from at least `bound`,
    // staying at or above `floor`; otherwise up from at most `bound`,
    // staying at or below `floor`.
    let (decreasing, bound, floor) = match cc {
        IntCC::Sgt => (true, ks + 1, smin),
        IntCC::Sge => (true, ks, smin),
        IntCC::Slt => (false, ks - 1, smax),
        IntCC::Sle => (false, ks, smax),
        IntCC::Ugt => (true, ku + 1, 0),
        IntCC::Uge => (true, ku, 0),
        IntCC::Ult => (false, ku - 1, umax),
        IntCC::Ule => (false, ku, umax),
        IntCC::Eq | IntCC::Ne => return false,
    };
    let Some(index) = params.iter().position(|&q| q == p) else {
        return false;
    };
    sites.iter().all(|site| {
        let Some(&next) = site.args.get(index) else {
            return false;
        };
        let ValueDef::Result(step) = func.value_def(next) else {
            return false;
        };
        // The change of `p`, as an exact integer.
        let delta = match *func.inst(step) {
            InstKind::Binary(BinaryOp::Isub, x, c) if x == p => {
                func.const_int(c).map(|c| -i128::from(c))
            }
            InstKind::Binary(BinaryOp::Iadd, x, c) if x == p => func.const_int(c).map(i128::from),
            InstKind::Binary(BinaryOp::Iadd, c, x) if x == p => func.const_int(c).map(i128::from),
            _ => None,
        };
        match delta {
            Some(d) if decreasing => d <= -1 && bound + d >= floor,
            Some(d) => d >= 1 && bound + d <= floor,
            None => false,
        }
    })
}

/// Condition 2 of the module doc: no path from the entry reaches a site
/// without running a self-call that stays a call. (A site's own block
/// counts if the kept call is in it: it runs before the eliminated one,
/// which is the block's last effect.)
fn always_recurses(func: &Function, id: FuncId, an: &FunctionAnalyses, sites: &[Site]) -> bool {
    let eliminated: HashSet<Inst> = sites.iter().map(|s| s.call).collect();
    let has_kept_call = |b: Block| {
        func.block_insts(b).iter().any(|&i| {
            !eliminated.contains(&i)
                && matches!(*func.inst(i), InstKind::Call { func: g, .. } if g == id)
        })
    };
    let Some(entry) = func.entry() else {
        return false;
    };
    let free = an.cfg.reach(&[entry], has_kept_call);
    sites
        .iter()
        .all(|s| !free.contains(s.block) || has_kept_call(s.block))
}

/// Rewrites `func` as the plan says (see the module doc).
fn apply(func: &mut Function, plan: &Plan) {
    let header = func.entry().expect("a function with sites has a body");
    let ret_ty = func.sig.ret;
    // The new entry takes the function's parameters and starts the loop.
    let entry = func.create_block();
    let params: Vec<Value> = func
        .sig
        .params
        .clone()
        .into_iter()
        .map(|ty| func.append_block_param(entry, ty))
        .collect();
    let mut start_args = params;
    let acc = match (plan.op, ret_ty) {
        (Some(op), Some(ty)) => {
            let init = func.append_inst(entry, InstKind::Iconst(identity(op, ty)), Some(ty));
            start_args.push(func.result(init).expect("a constant has a value"));
            Some((op, ty, func.append_block_param(header, ty)))
        }
        _ => None,
    };
    func.append_inst(
        entry,
        InstKind::Jump(BlockCall::new(header, start_args)),
        None,
    );
    func.layout.insert(0, entry);

    for site in &plan.sites {
        let loc = func.locs[site.call];
        let gone = [
            Some(site.call),
            site.accumulate.map(|(i, _)| i),
            Some(site.ret),
        ];
        func.blocks[site.block]
            .insts
            .retain(|i| !gone.contains(&Some(*i)));
        let mut args = site.args.clone();
        if let Some((op, ty, acc)) = acc {
            let next = match site.accumulate {
                Some((_, x)) => {
                    let i = func.append_inst(site.block, InstKind::Binary(op, acc, x), Some(ty));
                    func.locs[i] = loc;
                    func.result(i).expect("an operation has a value")
                }
                None => acc,
            };
            args.push(next);
        }
        let jump = func.append_inst(
            site.block,
            InstKind::Jump(BlockCall::new(header, args)),
            None,
        );
        func.locs[jump] = loc;
    }

    // The base cases return what they returned, combined with `acc`.
    let Some((op, ty, acc)) = acc else {
        return;
    };
    let returns: Vec<(Block, Inst, Value)> = func
        .placed_insts()
        .filter_map(|(b, i)| match *func.inst(i) {
            InstKind::Return(Some(v)) => Some((b, i, v)),
            _ => None,
        })
        .collect();
    for (b, ret, v) in returns {
        let combined = func.make_inst(InstKind::Binary(op, acc, v), Some(ty));
        func.locs[combined] = func.locs[ret];
        let at = func.blocks[b].insts.len() - 1;
        func.blocks[b].insts.insert(at, combined);
        let r = func.result(combined).expect("an operation has a value");
        *func.inst_mut(ret) = InstKind::Return(Some(r));
    }
}
