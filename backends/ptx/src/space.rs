//! Which PTX state space each pointer of a device function points into.
//!
//! parir's `ptr` is one type for all memory (see `parc_ir::Type::Ptr`);
//! on the GPU a load from shared memory through a generic address costs
//! an address-window test that `ld.shared` does not, so the backend
//! proves where it can which space an address is in:
//!
//! - a kernel's pointer parameters point into global memory (the host
//!   passes device or mapped memory: CUDA's rule);
//! - `global_addr` of a `__shared__` global is shared, of another global
//!   global; an `alloca` (kept in memory) is local; device `malloc`
//!   returns global memory;
//! - `ptradd` keeps its base's space; `select` and block parameters join
//!   their operands' (equal spaces stay, different ones are generic);
//! - everything else (loads of pointers, call results, parameters of
//!   `.func`s, null) is generic.
//!
//! The result is the least fixed point of these rules, so a loop-carried
//! pointer keeps its space when every value entering it has that space.
//! Every answer is sound: generic addressing reaches every space.

use parc_ir::{AddrSpace, Function, InstKind, Intrinsic, Module, Type, Value, ValueDef};
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    Global,
    Shared,
    Local,
    Generic,
}

impl Space {
    /// The state-space suffix of `ld`/`st`/`atom` (`""` for generic).
    pub fn suffix(self) -> &'static str {
        match self {
            Space::Global => ".global",
            Space::Shared => ".shared",
            Space::Local => ".local",
            Space::Generic => "",
        }
    }

    fn join(a: Option<Space>, b: Space) -> Space {
        match a {
            None => b,
            Some(a) if a == b => a,
            Some(_) => Space::Generic,
        }
    }
}

/// The space of every pointer value of `f` (values absent: not pointers,
/// or pointers no rule reaches, which are generic). `in_memory` says
/// which `alloca`s stay in memory (the others are registers and never
/// addresses).
pub fn infer(
    module: &Module,
    f: &Function,
    is_kernel: bool,
    in_memory: &dyn Fn(Value) -> bool,
) -> HashMap<Value, Space> {
    let mut space: HashMap<Value, Space> = HashMap::new();
    let entry = f.layout[0];
    for &p in f.block_params(entry) {
        if f.value_type(p) == Type::Ptr {
            space.insert(
                p,
                if is_kernel {
                    Space::Global
                } else {
                    Space::Generic
                },
            );
        }
    }
    // Joins only move up the lattice (unset < one space < generic), so
    // this ends after at most two changes per value.
    loop {
        let mut changed = false;
        let mut set = |space: &mut HashMap<Value, Space>, v: Value, s: Space| {
            let new = Space::join(space.get(&v).copied(), s);
            if space.get(&v) != Some(&new) {
                space.insert(v, new);
                changed = true;
            }
        };
        for (_, i) in f.placed_insts() {
            let kind = f.inst(i);
            if let Some(r) = f.result(i)
                && f.value_type(r) == Type::Ptr
            {
                let s = match kind {
                    InstKind::Alloca { .. } if in_memory(r) => Some(Space::Local),
                    InstKind::Alloca { .. } => None,
                    InstKind::GlobalAddr(g) => Some(match module.globals[*g].space {
                        AddrSpace::Shared => Space::Shared,
                        AddrSpace::Global => Space::Global,
                    }),
                    InstKind::PtrAdd(p, _) => space.get(p).copied(),
                    InstKind::Select(_, a, b) => match (space.get(a), space.get(b)) {
                        (Some(&x), Some(&y)) => Some(Space::join(Some(x), y)),
                        (Some(&x), None) | (None, Some(&x)) => Some(x),
                        (None, None) => None,
                    },
                    InstKind::Intrinsic {
                        op: Intrinsic::Malloc | Intrinsic::Calloc | Intrinsic::Realloc,
                        ..
                    } => Some(Space::Global),
                    _ => Some(Space::Generic),
                };
                if let Some(s) = s {
                    set(&mut space, r, s);
                }
            }
            for call in kind.block_calls() {
                let params = f.block_params(call.block);
                for (&p, &a) in params.iter().zip(&call.args) {
                    if f.value_type(p) == Type::Ptr
                        && let Some(&s) = space.get(&a)
                    {
                        set(&mut space, p, s);
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    // A block parameter only reached from unreachable code, or a loop
    // of parameters nothing enters: generic.
    for &b in &f.layout {
        for &p in f.block_params(b) {
            if f.value_type(p) == Type::Ptr {
                space.entry(p).or_insert(Space::Generic);
            }
        }
    }
    debug_assert!(
        space
            .keys()
            .all(|&v| matches!(f.value_def(v), ValueDef::Param(..) | ValueDef::Result(_)))
    );
    space
}
