//! The device math library: `exp log pow sin cos tan tanh exp2 log2
//! log10 sinh cosh cbrt hypot fmod atan atan2 asin acos asinh acosh atanh
//! erf` (and their
//! `float` versions), which PTX has no instructions for, written in ParC
//! (`math.pc`, see its comment for the algorithms) and compiled by parc
//! itself. The driver compiles [`SOURCE`] and [`link`]s it into a module
//! before emitting PTX: device code's math intrinsics become calls of
//! the library's functions, which then run the same on the CPU (where
//! the tests compare them with glibc) as on the GPU.

use parc_ir::{FuncId, FuncKind, GlobalId, InstKind, Intrinsic, Linkage, Module, Type};
use std::collections::HashMap;

/// The library's ParC source.
pub const SOURCE: &str = include_str!("math.pc");

/// The prefix of the library's function names in its source.
const SOURCE_PREFIX: &str = "parc_math_";

/// The name of the function that computes `op` at type `ty` on the GPU
/// once the library is linked (`parc.math.exp`, `parc.math.expf` ...).
pub fn routine(op: Intrinsic, ty: Type) -> String {
    let suffix = if ty == Type::F32 { "f" } else { "" };
    format!("parc.math.{}{suffix}", op.name())
}

/// True for the math intrinsics the library computes.
pub fn in_library(op: Intrinsic) -> bool {
    use Intrinsic::*;
    matches!(
        op,
        Exp | Log
            | Pow
            | Sin
            | Cos
            | Tan
            | Tanh
            | Exp2
            | Log2
            | Log10
            | Sinh
            | Cosh
            | Cbrt
            | Hypot
            | Fmod
            | Atan
            | Atan2
            | Asin
            | Acos
            | Asinh
            | Acosh
            | Atanh
            | Erf
    )
}

/// The library's functions, for diagnostics.
pub const LIBRARY_NAMES: &str = "exp log pow sin cos tan tanh exp2 log2 log10 sinh cosh cbrt hypot fmod atan atan2 asin acos asinh acosh atanh erf (and their float versions)";

/// True for the math intrinsics device code can compute: the library's
/// and those that are PTX instructions. Any other math intrinsic is
/// refused with a diagnostic until the library has it.
pub fn on_the_gpu(op: Intrinsic) -> bool {
    use Intrinsic::*;
    in_library(op) || matches!(op, Sqrt | Fabs | Fmin | Fmax | Floor | Ceil | Trunc | Round)
}

/// Copies `library`'s functions into `module` (as local `__device__`
/// functions named `parc.math.NAME`) and turns every call of a library
/// math function in device code (kernels and what they call) into a
/// call of its routine. Does nothing to a module whose device code
/// computes no such function. Returns the names it could not find in
/// the library (none for a library compiled from [`SOURCE`]).
pub fn link(module: &mut Module, library: &Module) -> Result<(), String> {
    let device = crate::device_functions(module);
    let wanted = device.iter().any(|&id| {
        let f = &module.funcs[id];
        f.placed_insts()
            .any(|(_, i)| matches!(f.inst(i), InstKind::Intrinsic { op, .. } if in_library(*op)))
    });
    if !wanted {
        return Ok(());
    }
    let mut funcs: HashMap<FuncId, FuncId> = HashMap::new();
    let mut globals: HashMap<GlobalId, GlobalId> = HashMap::new();
    for (id, g) in library.globals.iter() {
        let mut copy = g.clone();
        copy.name = format!("parc.math.{}", g.name.trim_start_matches('.'));
        globals.insert(id, module.globals.push(copy));
    }
    let mut added = Vec::new();
    for (id, f) in library.funcs.iter() {
        let Some(short) = f.name.strip_prefix(SOURCE_PREFIX) else {
            continue;
        };
        let name = format!("parc.math.{short}");
        if module.func_by_name(&name).is_some() {
            return Err(format!("the module already has a function `{name}`"));
        }
        let mut copy = f.clone();
        copy.name = name;
        copy.kind = FuncKind::Device;
        copy.linkage = Linkage::Local;
        copy.c_sig = None;
        let new = module.funcs.push(copy);
        funcs.insert(id, new);
        added.push(new);
    }
    for &new in &added {
        let f = &mut module.funcs[new];
        let insts: Vec<_> = f.placed_insts().map(|(_, i)| i).collect();
        for i in insts {
            match f.inst_mut(i) {
                InstKind::Call { func, .. } => {
                    *func = *funcs
                        .get(func)
                        .ok_or("the library calls a function outside it")?;
                }
                InstKind::GlobalAddr(g) => *g = globals[g],
                _ => {}
            }
            let loc = &mut f.locs[i];
            loc.func = loc.func.and_then(|old| funcs.get(&old).copied());
        }
    }
    for id in device {
        let f = &module.funcs[id];
        let mut calls = Vec::new();
        for (_, i) in f.placed_insts() {
            if let InstKind::Intrinsic { op, args } = f.inst(i)
                && in_library(*op)
            {
                let ty = f.value_type(f.result(i).ok_or("a math call without a result")?);
                calls.push((i, routine(*op, ty), args.clone()));
            }
        }
        for (i, name, args) in calls {
            let func = module
                .func_by_name(&name)
                .ok_or_else(|| format!("the device math library has no `{name}`"))?;
            *module.funcs[id].inst_mut(i) = InstKind::Call { func, args };
        }
    }
    Ok(())
}
