//! `dead-return`: a `static` function whose returned value no caller uses
//! returns zero instead, so whatever only computed that value becomes dead
//! code for `adce`/`dce` (LLVM's dead return value elimination). The
//! signature stays; every `return v` becomes `return 0`.
//!
//! A gradient's augmented forward sweeps are the typical case: `psum.aug`
//! returns the partial sum of `a[i] sin(a[i])` because `psum` does, but the
//! gradient only needs the tape it records, so each call's sum is dead — in
//! the gradient, and in `psum.aug` itself, whose only use of its recursive
//! calls' sums is to return their total.
//!
//! # Which returns are needed
//! A function's return is *needed* if it may be called from outside the
//! module (not `Local`), its address is taken (`FuncAddr`, or held by a
//! global's initial image: the runtime calls outlined tasks), it is the
//! primal of a gradient request (the AD, which may run after this pass,
//! differentiates what it returns, whether or not a caller uses it), or
//! some call of it has a *live* result. Liveness
//! within a function is computed backwards from its effects, like `adce`'s
//! but with two refinements that make self-recursion visible:
//! - a `return`'s operand is live only if the function's own return is
//!   needed;
//! - a store into a *private* alloca (one whose address is only ever the
//!   address of loads and stores: a spawned call's result travels from the
//!   task to the continuation that way) makes its value live only once a
//!   load of that alloca is live.
//!
//! Needed returns are found as a least fixpoint over the call graph: start
//! with the functions that must keep theirs, and add every function a live
//! call reaches, with a work list (each function's calls are looked at
//! at most twice: as if its return were dead, and once it is needed). A cycle of functions that only
//! pass each other's values to their own returns stays dead.

use crate::PassContext;
use crate::{HashMap, HashSet};
use parc_ir::{Block, FuncId, Function, InstKind, Linkage, Module, Type, Value, ValueDef};

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let keeps_return = module.funcs_used_beyond_calls();
    let candidate = |id: FuncId, f: &Function| {
        f.linkage == Linkage::Local
            && !f.is_declaration()
            && f.sig.ret.is_some()
            && !keeps_return.contains(id)
    };
    let mut needed: HashSet<FuncId> = module
        .funcs
        .iter()
        .filter(|(id, f)| !candidate(*id, f))
        .map(|(id, _)| id)
        .collect();
    // A function's live calls depend only on whether its own return is
    // needed: those it makes either way, then, with a work list, those of
    // each function once its return is found needed.
    let mut work: Vec<FuncId> = needed.iter().copied().collect();
    for (id, f) in module.funcs.iter() {
        if f.is_declaration() || needed.contains(&id) {
            continue;
        }
        for callee in live_callees(f, false) {
            if needed.insert(callee) {
                work.push(callee);
            }
        }
    }
    while let Some(id) = work.pop() {
        let f = &module.funcs[id];
        if f.is_declaration() {
            continue;
        }
        for callee in live_callees(f, true) {
            if needed.insert(callee) {
                work.push(callee);
            }
        }
    }
    let mut rewritten = 0;
    for (id, f) in module.funcs.iter_mut() {
        if needed.contains(&id) {
            continue;
        }
        let Some(ty) = f.sig.ret else { continue };
        rewritten += return_zero(f, ty);
    }
    ctx.count("dead-return.returns", rewritten);
    rewritten > 0
}

/// The functions that `f` calls with a live result (see the module doc);
/// `needed`: whether `f`'s own return is.
fn live_callees(f: &Function, needed: bool) -> HashSet<FuncId> {
    let private = private_allocas(f);
    // Stores into each private alloca, and the arguments each block
    // parameter receives.
    let mut stored: HashMap<Value, Vec<Value>> = HashMap::default();
    let mut incoming: HashMap<(Block, u32), Vec<Value>> = HashMap::default();
    let mut live: HashSet<Value> = HashSet::default();
    let mut work: Vec<Value> = Vec::new();
    let mark = |v: Value, live: &mut HashSet<Value>, work: &mut Vec<Value>| {
        if live.insert(v) {
            work.push(v);
        }
    };
    for (_, inst) in f.placed_insts() {
        let kind = f.inst(inst);
        for dest in kind.block_calls() {
            for (i, &a) in dest.args.iter().enumerate() {
                incoming.entry((dest.block, i as u32)).or_default().push(a);
            }
        }
        match kind {
            InstKind::Return(Some(v)) if needed => mark(*v, &mut live, &mut work),
            InstKind::Return(_) => {}
            InstKind::Store { value, ptr } if private.contains(ptr) => {
                stored.entry(*ptr).or_default().push(*value);
            }
            InstKind::Jump(_) => {}
            InstKind::Brif { cond, .. } => mark(*cond, &mut live, &mut work),
            k if k.has_side_effects() || k.is_terminator() => {
                k.for_each_operand(|v| mark(v, &mut live, &mut work));
            }
            _ => {}
        }
    }
    while let Some(v) = work.pop() {
        match f.value_def(v) {
            ValueDef::Param(b, n) => {
                for &a in incoming.get(&(b, n)).into_iter().flatten() {
                    mark(a, &mut live, &mut work);
                }
            }
            ValueDef::Result(i) => {
                let kind = f.inst(i);
                if let InstKind::Load(p) = kind
                    && private.contains(p)
                {
                    for &s in stored.get(p).into_iter().flatten() {
                        mark(s, &mut live, &mut work);
                    }
                }
                kind.for_each_operand(|o| mark(o, &mut live, &mut work));
            }
        }
    }
    f.placed_insts()
        .filter_map(|(_, inst)| match f.inst(inst) {
            InstKind::Call { func, .. } => {
                let r = f.result(inst)?;
                live.contains(&r).then_some(*func)
            }
            _ => None,
        })
        .collect()
}

/// Allocas whose address is only ever the address of a load or a store.
fn private_allocas(f: &Function) -> HashSet<Value> {
    let mut allocas: HashSet<Value> = f
        .placed_insts()
        .filter(|&(_, i)| matches!(f.inst(i), InstKind::Alloca { .. }))
        .filter_map(|(_, i)| f.result(i))
        .collect();
    for (_, inst) in f.placed_insts() {
        match f.inst(inst) {
            InstKind::Load(_) => {}
            InstKind::Store { value, .. } => {
                allocas.remove(value);
            }
            k => k.for_each_operand(|v| {
                allocas.remove(&v);
            }),
        }
    }
    allocas
}

/// Makes every `return v` of `f` return a zero of `ty`; returns how many
/// changed.
fn return_zero(f: &mut Function, ty: Type) -> u64 {
    let mut changed = 0;
    for b in f.layout.clone() {
        let Some(&t) = f.blocks[b].insts.last() else {
            continue;
        };
        let InstKind::Return(Some(v)) = *f.inst(t) else {
            continue;
        };
        if is_zero(f, v) {
            continue;
        }
        let c = f.make_inst(crate::zero_of(ty), Some(ty));
        let at = f.blocks[b].insts.len() - 1;
        f.blocks[b].insts.insert(at, c);
        let z = f.result(c).expect("a constant has a result");
        *f.inst_mut(t) = InstKind::Return(Some(z));
        changed += 1;
    }
    changed
}

fn is_zero(f: &Function, v: Value) -> bool {
    match f.value_def(v) {
        ValueDef::Result(i) => match *f.inst(i) {
            InstKind::Iconst(0) => true,
            InstKind::Fconst(c) => c.to_bits() == 0,
            _ => false,
        },
        ValueDef::Param(..) => false,
    }
}
