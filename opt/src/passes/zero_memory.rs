//! `zero-memory`: loads from `calloc`ed memory that only ever holds zeros
//! read zero, and `free` of the null pointer goes.
//!
//! A gradient leaves such memory behind: the reverse of a parallel loop
//! gives every iteration a tape of its own in a `calloc`ed array, and when
//! the iterations end up recording nothing (everything the reverse needs
//! is recomputed), the reverse still reads each tape's pointer to `free`
//! it and stores the empty tape back. Those `free` calls, one per
//! iteration, cost little themselves, but the backend's register
//! allocator spills around a call every value live across it, and in the
//! reverse of matmul it then reloaded the reverse loops' pointers from the
//! stack on every iteration of the inner loop. Once the loads read the
//! constant, the `free`s are of null and go, and `adce` removes the array
//! (memory nothing reads).
//!
//! # When memory holds only zeros
//! A `calloc` result and every address `ptradd` derives from it (as the
//! base) are used only as
//! - the address of a `load`;
//! - the address of a `store` whose value is a zero constant (integer or
//!   pointer 0, `+0.0`) or the result of a load from such an address (which
//!   is zero too: by induction over the execution, every byte the memory
//!   ever holds is zero);
//! - the address of a `memset` with the constant byte 0;
//! - `free`'s argument.
//!
//! Nothing else may see the address: not a call, not a branch argument,
//! not a comparison, not a store of the address itself, so no code this
//! pass cannot see writes there. Other strands writing concurrently write
//! zeros too. Each load then becomes the zero constant of its type. A load
//! that would fault (out of bounds, after the `free`) is undefined
//! behaviour; the constant does not fault.
//!
//! Statistics: `zero-memory.loads`, `zero-memory.frees`.

use crate::HashSet;
use crate::PassContext;
use crate::analysis::allocations::allocations;
use parc_ir::{Function, Inst, InstKind, Intrinsic, Module, Type, Value};

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let (mut loads, mut frees) = (0, 0);
    let changed = crate::for_each_function(module, |f| {
        let (l, r) = run_function(f);
        loads += l;
        frees += r;
        l + r > 0
    });
    ctx.count("zero-memory.loads", loads);
    ctx.count("zero-memory.frees", frees);
    changed
}

/// Folds the loads of zeroed memory of `func` and removes its `free`s of
/// null; returns how many of each.
pub fn run_function(func: &mut Function) -> (u64, u64) {
    let loads = zero_loads(func);
    for &i in &loads {
        let ty = func.result(i).map_or(Type::I64, |r| func.value_type(r));
        func.insts[i].kind = crate::zero_of(ty);
    }
    let mut frees = 0;
    for b in func.layout.clone() {
        let before = func.blocks[b].insts.len();
        let insts = std::mem::take(&mut func.blocks[b].insts);
        let kept: Vec<Inst> = insts
            .into_iter()
            .filter(|&i| match func.inst(i) {
                InstKind::Intrinsic {
                    op: Intrinsic::Free,
                    args,
                } => args.first().and_then(|&p| func.const_int(p)) != Some(0),
                _ => true,
            })
            .collect();
        frees += (before - kept.len()) as u64;
        func.blocks[b].insts = kept;
    }
    (loads.len() as u64, frees)
}

/// True if `v` is an integer, pointer or float constant whose bits are all
/// zero.
fn is_zero_const(func: &Function, v: Value) -> bool {
    match func.value_def(v) {
        parc_ir::ValueDef::Result(i) => match func.inst(i) {
            InstKind::Iconst(k) => *k == 0,
            InstKind::Fconst(x) => x.to_bits() == 0,
            _ => false,
        },
        parc_ir::ValueDef::Param(..) => false,
    }
}

/// The loads of `func` from memory that holds only zeros (module doc):
/// `calloc`ed, not escaping, and only ever given zeros — constants, or
/// values loaded from the same memory.
fn zero_loads(func: &Function) -> Vec<Inst> {
    let mut out = Vec::new();
    for a in allocations(func) {
        if !a.zeroed || a.escapes || !a.memset_bytes.iter().all(|&c| is_zero_const(func, c)) {
            continue;
        }
        let loaded: HashSet<Value> = a.loads.iter().filter_map(|&l| func.result(l)).collect();
        if a.stored
            .iter()
            .all(|&v| is_zero_const(func, v) || loaded.contains(&v))
        {
            out.extend(a.loads);
        }
    }
    out
}
