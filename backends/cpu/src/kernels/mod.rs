//! Kernels without coroutines: each kernel is split at its barriers
//! (barrier fission, as Polygeist and pocl do) into a *block function*
//! that runs one whole block as plain loops over its threads.
//!
//! A kernel launch used to run each thread of a block as a stackful
//! coroutine, switching at every `__syncthreads()`; the switches cost more
//! than the work of a typical kernel. Here the kernel's code is cut into
//! barrier-free regions (`regions.rs`): region 0 starts at the entry,
//! region `c` right after the barrier of exit code `c`, and each ends at
//! barriers and returns. The block function (`build.rs`) runs region 0
//! for every thread of the block in linear-id order (x fastest), each
//! thread up to its next barrier or return; if all stopped at the same
//! barrier it runs the region after it for every thread, and so on until
//! all returned. Values live across a barrier are kept per thread in a
//! frame the runtime provides (laid out by `frame.rs`); thread ids come
//! from the loop counters.
//!
//! # Which path a kernel takes
//!
//! [`fission`] gives every defined kernel a block function, except:
//! - a kernel that calls a function that may reach a barrier (through
//!   any chain of calls: one marked `convergent`, see
//!   `parc_ir::convergent`): a barrier inside a callee cannot be cut at
//!   compile time, so such a kernel keeps the coroutine path
//!   (`parc_rt_launch`, the runtime's `gpu` module). After `-O2` inlining
//!   this is rare: only callees too big or recursive to inline;
//! - a kernel whose copies of regions would exceed [`MAX_GROWTH`] times
//!   its size (plus [`GROWTH_SLACK`] instructions): regions overlap when a
//!   barrier sits in a loop, and each region is a copy;
//! - a kernel with an `alloca` aligned to more than 16 bytes, one whose
//!   threads need more than the runtime's frame limit of memory, or one
//!   with a region that can end at more than 64 barriers and returns;
//! - every kernel when `PARC_KERNEL_COROUTINES` is set (to anything but
//!   `0`) at compile time: a switch for comparing the two paths and for
//!   testing the coroutine path.
//!
//! Barrier-free kernels take the block-function path too (one region):
//! a loop over the threads instead of one indirect call per thread.
//!
//! # Invariants
//!
//! - The input is a verified module after Tapir lowering; it is not
//!   changed. The output (when some kernel is split) is a copy with, per
//!   split kernel `k`, a new local device function `k.block(ptr args, ptr
//!   frame, ptr thread)` (see the runtime's `gpu` module for its contract
//!   with `parc_rt_launch_blocks`), read-only globals for its barrier
//!   table and names, and an import of `parc_rt_barrier_divergence`.
//!   Existing functions and globals keep their ids; `k` itself stays (a
//!   launch of `k` is what the backend translates into a block-function
//!   launch) and still verifies. The copy verifies.
//! - A block function has the kernel's semantics per thread: the same
//!   instructions run in the same order for each thread, threads are
//!   interleaved only at barriers, in linear-id order as the interpreter
//!   does, and barrier divergence is reported with the interpreter's
//!   message after the divergent phase ran (so output before it agrees).
//! - Run-time errors in the copied code name the kernel (source positions
//!   are moved from it).

mod build;
mod frame;
mod regions;
#[cfg(test)]
mod tests;

use parc_ir::convergent::Convergence;
use parc_ir::{FuncId, FuncKind, Function, InstKind, Linkage, Module, Signature, Type};
use std::collections::HashMap;

/// Set at compile time: every kernel takes the coroutine path.
pub(crate) const COROUTINES_ENV: &str = "PARC_KERNEL_COROUTINES";

/// Copies of regions may hold this many times the kernel's instructions
/// (plus [`GROWTH_SLACK`]) before the kernel keeps the coroutine path.
pub(crate) const MAX_GROWTH: usize = 8;
pub(crate) const GROWTH_SLACK: usize = 2000;

/// The runtime's entry point for divergence reports.
const DIVERGENCE: &str = "parc_rt_barrier_divergence";

/// Why a kernel keeps the coroutine path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Refusal(pub &'static str);

/// A kernel's block function, for its launches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BlockLaunch {
    pub block_fn: FuncId,
    /// Frame bytes per thread (a multiple of 16).
    pub frame_bytes: u64,
}

/// What [`fission`] did.
pub(crate) struct Fission {
    /// The module with the block functions, if any kernel was split.
    pub module: Option<Module>,
    /// Per split kernel, its block function.
    pub launches: HashMap<FuncId, BlockLaunch>,
    /// Per kernel that keeps the coroutine path, why.
    pub refused: Vec<(FuncId, Refusal)>,
}

/// Splits every kernel it can (see the module doc).
pub(crate) fn fission(ir: &Module) -> Fission {
    let kernels: Vec<FuncId> = ir
        .funcs
        .iter()
        .filter(|(_, f)| f.kind == FuncKind::Kernel && !f.is_declaration())
        .map(|(id, _)| id)
        .collect();
    let mut out = Fission {
        module: None,
        launches: HashMap::new(),
        refused: Vec::new(),
    };
    if kernels.is_empty() {
        return out;
    }
    if std::env::var_os(COROUTINES_ENV).is_some_and(|v| v != "0") {
        out.refused = kernels
            .into_iter()
            .map(|k| (k, Refusal("PARC_KERNEL_COROUTINES is set")))
            .collect();
        return out;
    }
    let conv = Convergence::of(ir);
    let mut module = ir.clone();
    for k in kernels {
        match fission_one(&mut module, k, &conv) {
            Ok(launch) => {
                out.launches.insert(k, launch);
            }
            Err(why) => out.refused.push((k, why)),
        }
    }
    if !out.launches.is_empty() {
        // The block functions are this module's own output: in debug
        // builds (the test suites), check them like a pass's.
        #[cfg(debug_assertions)]
        if let Err(errors) = parc_ir::verify::verify_module(&module) {
            let text: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
            panic!("kernel fission made invalid IR:\n{}", text.join("\n"));
        }
        out.module = Some(module);
    }
    out
}

fn fission_one(module: &mut Module, k: FuncId, conv: &Convergence) -> Result<BlockLaunch, Refusal> {
    let f = &module.funcs[k];
    let calls_barrier = f
        .placed_insts()
        .any(|(_, i)| matches!(f.inst(i), InstKind::Call { func, .. } if conv.function(*func)));
    if calls_barrier {
        return Err(Refusal("it calls a function that may reach a barrier"));
    }
    let split = regions::split(f);
    let size: usize = f.layout.iter().map(|&b| f.block_insts(b).len()).sum();
    let copies: usize = split
        .regions
        .iter()
        .flatten()
        .map(|r| r.size(&split.func))
        .sum();
    if copies > MAX_GROWTH * size + GROWTH_SLACK {
        return Err(Refusal("its barriers would copy too much code"));
    }
    let name = module.fresh_func_name(&format!("{}.block", f.name));
    // `build` refuses before it adds anything to the module.
    let built = build::build(module, k, &split, name)?;
    Ok(BlockLaunch {
        block_fn: built.func,
        frame_bytes: built.frame_bytes,
    })
}

/// The module's declaration of `parc_rt_barrier_divergence(ptr sites, ptr
/// frame, i64 stride, i64 code_offset)`, made if missing.
fn declare_divergence(module: &mut Module) -> Result<FuncId, Refusal> {
    let sig = Signature {
        params: vec![Type::Ptr, Type::Ptr, Type::I64, Type::I64],
        ret: None,
    };
    if let Some(id) = module.func_by_name(DIVERGENCE) {
        let f = &module.funcs[id];
        if f.sig != sig || !f.is_declaration() {
            return Err(Refusal(
                "the program defines a function named `parc_rt_barrier_divergence`",
            ));
        }
        return Ok(id);
    }
    let mut f = Function::new(DIVERGENCE, sig);
    f.linkage = Linkage::Import;
    Ok(module.funcs.push(f))
}
