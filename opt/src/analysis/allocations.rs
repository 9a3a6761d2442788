//! Fresh allocations and how their memory is used: for each `malloc` and
//! `calloc` of a function, every address derived from its result (as the
//! base of a `ptradd`) and what each use of those addresses does with the
//! memory. Uses that keep the memory private to the code the passes see
//! are the address of a `load`, of a `store` (not the stored value), of a
//! `memset` (not its other arguments), and `free`'s argument. Anything else
//! — a call, a comparison, a branch argument, storing the address itself —
//! makes the allocation *escape*: then the lists stop where the walk found
//! that use, and passes leave the allocation alone.
//!
//! `adce` removes memory nothing reads; `zero-memory` folds loads of
//! `calloc`ed memory only ever written zeros.

use crate::HashMap;
use parc_ir::{Function, Inst, InstKind, Intrinsic, Value};

/// One allocation and the uses of its memory (module doc).
#[derive(Debug, Default)]
pub struct Allocation {
    /// Zeroed at allocation (`calloc`).
    pub zeroed: bool,
    /// The allocation's result and every address derived from it.
    pub derived: Vec<Value>,
    /// Loads from the memory.
    pub loads: Vec<Inst>,
    /// Values stored into it.
    pub stored: Vec<Value>,
    /// The byte values `memset` writes into it.
    pub memset_bytes: Vec<Value>,
    /// How many `free`s release it.
    pub frees: usize,
    /// Some use lets code the passes cannot follow see the address.
    pub escapes: bool,
}

/// The allocations of `func` (see the module doc).
pub fn allocations(func: &Function) -> Vec<Allocation> {
    let mut users: HashMap<Value, Vec<Inst>> = HashMap::default();
    for (_, i) in func.placed_insts() {
        func.inst(i)
            .for_each_operand(|v| users.entry(v).or_default().push(i));
    }
    let mut out = Vec::new();
    for (_, i) in func.placed_insts() {
        let InstKind::Intrinsic {
            op: op @ (Intrinsic::Malloc | Intrinsic::Calloc),
            ..
        } = func.inst(i)
        else {
            continue;
        };
        let Some(root) = func.result(i) else { continue };
        let mut a = Allocation {
            zeroed: *op == Intrinsic::Calloc,
            derived: vec![root],
            ..Allocation::default()
        };
        let mut k = 0;
        while !a.escapes && k < a.derived.len() {
            let v = a.derived[k];
            k += 1;
            for &u in users.get(&v).into_iter().flatten() {
                let private = match func.inst(u) {
                    InstKind::Load(_) => {
                        a.loads.push(u);
                        true
                    }
                    InstKind::Store { value, ptr } => {
                        a.stored.push(*value);
                        *ptr == v && *value != v
                    }
                    InstKind::Intrinsic {
                        op: Intrinsic::Free,
                        args,
                    } => {
                        a.frees += 1;
                        args[..] == [v]
                    }
                    InstKind::Intrinsic {
                        op: Intrinsic::Memset,
                        args,
                    } => {
                        a.memset_bytes.extend(args.get(1).copied());
                        args.first() == Some(&v) && !args[1..].contains(&v)
                    }
                    InstKind::PtrAdd(base, off) if *base == v && *off != v => {
                        if let Some(r) = func.result(u)
                            && !a.derived.contains(&r)
                        {
                            a.derived.push(r);
                        }
                        true
                    }
                    _ => false,
                };
                a.escapes |= !private;
            }
        }
        out.push(a);
    }
    out
}
