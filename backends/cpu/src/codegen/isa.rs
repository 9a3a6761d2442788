//! Cranelift settings per optimization level, and the host ISA.
//!

use crate::BackendError;
use cranelift_codegen::isa::TargetIsa;
use cranelift_codegen::settings;
use parc_ir::OptLevel;
use std::sync::Arc;

/// Cranelift settings shared by the JIT and objects. At `-O0` Cranelift
/// does not optimize (`opt_level=none`: fast to compile, every value
/// where the instruction selector puts it), keeps frame pointers in every
/// function (so debuggers and profilers walk the stack), and loops are
/// not placed (no block offsets are asked for). Cranelift's verifier runs
/// on each function when `verify` asks for it and in debug builds of parc.
pub(crate) fn isa_flags(
    pic: bool,
    opt: OptLevel,
    verify: bool,
) -> Vec<(&'static str, &'static str)> {
    let unoptimized = opt.is_none();
    let verify = verify || cfg!(debug_assertions);
    vec![
        ("enable_verifier", if verify { "true" } else { "false" }),
        ("opt_level", if unoptimized { "none" } else { "speed" }),
        ("is_pic", if pic { "true" } else { "false" }),
        // Large `alloca`s must not jump over a thread's guard page.
        ("enable_probestack", "true"),
        ("probestack_strategy", "inline"),
        (
            "preserve_frame_pointers",
            if unoptimized { "true" } else { "false" },
        ),
        // Block offsets and edges, for placing loops (`placement.rs`).
        (
            "machine_code_cfg_info",
            if unoptimized { "false" } else { "true" },
        ),
    ]
}

/// Most blocks-times-loop-depth (the sum over a function's blocks of the
/// number of loops around each) a function may have to be compiled with
/// Cranelift's optimizer and backtracking register allocator. Their time
/// grows with the values live across each loop of a nest times the
/// blocks inside it, cubically in the depth of a nest (a nest of 1600
/// `for` loops took 18 s, 1.3 s without them); past this budget, far
/// beyond hand-written code (ten thousand blocks ten loops deep is
/// 100,000), the function is compiled with [`light_isa_flags`]: the same
/// semantics, slower code.
pub(crate) const NEST_BUDGET: u64 = 250_000;

/// The sum over `f`'s reachable blocks of their loop depth (see
/// [`NEST_BUDGET`]).
pub(crate) fn nest_weight(f: &parc_ir::Function) -> u64 {
    use parc_ir::analysis::{ControlFlowGraph, DominatorTree, LoopAnalysis};
    let cfg = ControlFlowGraph::compute(f);
    let domtree = DominatorTree::compute(&cfg);
    let loops = LoopAnalysis::compute(&cfg, &domtree);
    if loops.is_empty() {
        return 0;
    }
    cfg.rpo().iter().map(|&b| u64::from(loops.depth(b))).sum()
}

/// The module's [`isa_flags`] (`base`) for functions past
/// [`NEST_BUDGET`]: no mid-end optimization and the single-pass register
/// allocator, both linear; PIC and loop placement as in the module.
pub(crate) fn light_isa_flags(base: &settings::Flags) -> Vec<(&'static str, &'static str)> {
    let opt = if base.opt_level() == settings::OptLevel::None {
        OptLevel::O0
    } else {
        OptLevel::O2
    };
    let mut flags = isa_flags(base.is_pic(), opt, base.enable_verifier());
    for (k, v) in &mut flags {
        if *k == "opt_level" {
            *v = "none";
        }
    }
    flags.push(("regalloc_algorithm", "single_pass"));
    flags
}

/// The host ISA with [`isa_flags`].
pub(crate) fn host_isa(
    pic: bool,
    opt: OptLevel,
    verify: bool,
) -> Result<Arc<dyn TargetIsa>, BackendError> {
    host_isa_with(&isa_flags(pic, opt, verify))
}

/// The host ISA with `flags`.
pub(super) fn host_isa_with(
    flags: &[(&'static str, &'static str)],
) -> Result<Arc<dyn TargetIsa>, BackendError> {
    let mut fb = settings::builder();
    for &(k, v) in flags {
        use settings::Configurable;
        fb.set(k, v)
            .map_err(|e| BackendError::Codegen(format!("setting {k}={v}: {e}")))?;
    }
    let isa = cranelift_native::builder()
        .map_err(|e| BackendError::Codegen(format!("host machine not supported: {e}")))?;
    isa.finish(settings::Flags::new(fb))
        .map_err(|e| BackendError::Codegen(format!("host ISA: {e}")))
}
