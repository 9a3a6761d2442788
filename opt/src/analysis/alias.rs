//! Alias analysis: may two memory accesses touch the same bytes?
//!
//! # Pointers
//! A pointer value is decomposed ([`AliasAnalysis::pointer`]) into a
//! **base** plus an offset, by walking `ptradd` chains: an `iconst` offset
//! adds to a constant part, any other offset value joins a sorted list of
//! symbolic terms. Bases ([`Base`]):
//! - `Alloca(v)`: the result of an `alloca` — an object of this invocation;
//! - `Global(g)`: the address of a global;
//! - `Fresh(v)`: the result of `malloc`/`calloc` — an object that did not
//!   exist before the allocation;
//! - `Param(v)`: a parameter of the function (the entry block's);
//! - `Unknown(v)`: anything else (a loaded pointer, a call's result, a
//!   block parameter, a `select`, `inttoptr`, a null constant).
//!
//! `alloca`s, globals and fresh allocations are *identified objects*.
//!
//! # Capture
//! An `alloca` or fresh allocation is **captured** if some pointer derived
//! from it (through `ptradd`) is used other than as the address of a load,
//! a store, or a memory intrinsic (`memcpy`, `memset`, `free`, `atomic_add`,
//! the C string readers, `printf`, the `cuda_*` memory calls), as an
//! operand of a comparison, or as an argument for a parameter that the
//! callee does not capture (see [`super::modref`]). Storing it, returning
//! it, passing it to a block parameter, a `select`, `ptrtoint`, a launch or a
//! capturing parameter captures it. No pointer that the function loads,
//! receives from a call or computes by `inttoptr` can point into an
//! uncaptured object: the only way to reach it is through the SSA values
//! derived from it here. (A call that receives it as a non-capturing
//! argument can reach it during that call: [`super::modref::InstEffects`]
//! lists call arguments as locations for that reason.)
//!
//! # What `alias` proves
//! [`AliasAnalysis::alias`] answers, for accesses of `size_a` and `size_b`
//! bytes (`None`: unknown extent) at `a` and `b` **evaluated at the same
//! point of one execution**:
//! - `MustAlias`: the same address and the same known size;
//! - `NoAlias`, when one of these holds:
//!   1. same base, same symbolic terms, and the constant byte ranges are
//!      disjoint;
//!   2. two different identified objects (distinct `alloca`s, distinct
//!      globals, distinct fresh allocations, or one of each kind);
//!   3. an `alloca` or fresh allocation against a parameter: the object was
//!      created after the parameter's value was fixed, so the parameter
//!      cannot point into it (using a freed pointer is undefined);
//!   4. an uncaptured `alloca` or fresh allocation against an `Unknown`
//!      base;
//!   5. a `shared` (GPU shared memory) global against a kernel's parameter:
//!      kernel arguments come from the host, which cannot see shared memory;
//! - `MayAlias` otherwise.
//!
//! Same-base rule 1 compares SSA values, so it is exact at one point; a
//! pass that compares accesses in different iterations of a loop (LICM)
//! only asks about addresses that are loop-invariant, where the same value
//! is the same address in every iteration.

use super::modref::ModRefAnalysis;
use parc_ir::{
    AddrSpace, FuncId, FuncKind, Function, GlobalData, GlobalId, InstKind, Intrinsic, Type, Value,
    ValueDef,
};
use cranelift_entity_compat::PrimaryMap;
use std::collections::{HashMap, HashSet};

/// `cranelift-entity` is not a direct dependency of this crate; the map
/// type comes through parir's public fields.
mod cranelift_entity_compat {
    pub type PrimaryMap<K, V> = <parc_ir::Module as super::GlobalsField>::Map<K, V>;
}

#[doc(hidden)]
pub trait GlobalsField {
    type Map<K: cranelift_entity_compat_key::Key, V>;
}
