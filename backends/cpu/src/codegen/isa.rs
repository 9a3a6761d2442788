//! Cranelift settings per optimization level, and the host ISA.
//!

use crate::BackendError;
use cranelift_codegen::isa::TargetIsa;
use cranelift_codegen::settings;
use cranelift_entity::SecondaryMap;
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
/// 100,000), the function is compiled with [`Light::Linear`]: the same
/// semantics, slower code.
pub(crate) const NEST_BUDGET: u64 = 250_000;

/// Most instructions-times-dominator-depth (the sum over a function's
/// blocks of its instructions times the block's depth in the dominator
/// tree) a function may have to be compiled with Cranelift's mid-end
/// optimizer. Its e-graph finds where each pure value it numbers becomes
/// available by scanning the stack of dominating blocks from the top down
/// to that block, and constants are available at the entry: per
/// instruction a walk as long as the dominator tree is deep, quadratic in
/// a function that is one long chain of `if`s (a 5,000-statement `main`,
/// each statement an `if`, is 10,000 blocks deep; its e-graph time grew
/// 3.7x per doubling of the statements). Past this budget, a thousand
/// times what the largest functions of the samples weigh (the proxy-app
/// ports': about 42,000), the function is
/// compiled with [`Light::NoMidEnd`]: the same semantics and register
/// allocator, no mid-end optimization.
pub(crate) const DOM_DEPTH_BUDGET: u64 = 50_000_000;

/// How a function too large for Cranelift's usual settings is compiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Light {
    /// Past [`NEST_BUDGET`]: no mid-end optimization and the single-pass
    /// register allocator, both linear.
    Linear,
    /// Past [`DOM_DEPTH_BUDGET`] only: no mid-end optimization.
    NoMidEnd,
}

/// Which of Cranelift's cheaper settings `f` needs, if any: the loop-nest
/// and dominator-depth weights of its reachable blocks against
/// [`NEST_BUDGET`] and [`DOM_DEPTH_BUDGET`].
pub(crate) fn light_for(f: &parc_ir::Function) -> Option<Light> {
    use parc_ir::analysis::{ControlFlowGraph, DominatorTree, LoopAnalysis};
    let cfg = ControlFlowGraph::compute(f);
    let domtree = DominatorTree::compute(&cfg);
    let loops = LoopAnalysis::compute(&cfg, &domtree);
    let nest: u64 = cfg.rpo().iter().map(|&b| u64::from(loops.depth(b))).sum();
    if nest > NEST_BUDGET {
        return Some(Light::Linear);
    }
    if dom_depth_weight(f, &domtree) > DOM_DEPTH_BUDGET {
        return Some(Light::NoMidEnd);
    }
    None
}

/// The sum over `f`'s reachable blocks of their instructions times their
/// depth in `domtree` (the entry's is 0); see [`DOM_DEPTH_BUDGET`].
fn dom_depth_weight(f: &parc_ir::Function, domtree: &parc_ir::analysis::DominatorTree) -> u64 {
    let mut depth: SecondaryMap<parc_ir::Block, u64> = SecondaryMap::new();
    let mut weight = 0u64;
    // Reverse postorder visits each block's immediate dominator first.
    for &b in domtree.rpo() {
        let d = domtree.idom(b).map_or(0, |p| depth[p] + 1);
        depth[b] = d;
        weight = weight.saturating_add(d.saturating_mul(f.block_insts(b).len() as u64));
    }
    weight
}

/// The module's [`isa_flags`] (`base`) for functions compiled `light`:
/// no mid-end optimization, and for [`Light::Linear`] the single-pass
/// register allocator; PIC and loop placement as in the module.
pub(crate) fn light_isa_flags(
    base: &settings::Flags,
    light: Light,
) -> Vec<(&'static str, &'static str)> {
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
    if light == Light::Linear {
        flags.push(("regalloc_algorithm", "single_pass"));
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use parc_ir::FuncId;

    /// `func @f(i32) -> i32` as a chain of `n` diamonds (`if (x) {}`
    /// `n` times): its dominator tree is 2n + 1 blocks deep, one
    /// instruction each block.
    fn diamonds(n: u32) -> parc_ir::Module {
        let mut text = String::from("func @f(i32) -> i32 {\nblock0(v0: i32):\n    jump block1\n");
        for k in 0..n {
            let (head, arm, join) = (3 * k + 1, 3 * k + 2, 3 * k + 3);
            text += &format!("block{head}:\n    brif v0, block{arm}, block{join}\n");
            text += &format!("block{arm}:\n    jump block{join}\n");
            if k + 1 < n {
                text += &format!("block{join}:\n    jump block{}\n", join + 1);
            } else {
                text += &format!("block{join}:\n    return v0\n}}\n");
            }
        }
        parc_ir::read::read_module(&text).expect("reads")
    }

    fn weight(m: &parc_ir::Module) -> u64 {
        use parc_ir::analysis::{ControlFlowGraph, DominatorTree};
        let f = &m.funcs[FuncId::from_u32(0)];
        dom_depth_weight(f, &DominatorTree::compute(&ControlFlowGraph::compute(f)))
    }

    /// Two diamonds: depths 0 (entry), 1, 2, 2 (first diamond), 3, 4, 4.
    #[test]
    fn dom_depth_weight_sums_instructions_times_depth() {
        let m = diamonds(2);
        assert_eq!(weight(&m), 1 + 2 + 2 + 3 + 4 + 4);
        assert_eq!(light_for(&m.funcs[FuncId::from_u32(0)]), None);
    }

    /// A chain of `if`s past `DOM_DEPTH_BUDGET` (about 3n^2) loses the
    /// mid-end but keeps the register allocator; no loops, so not
    /// `Light::Linear`.
    #[test]
    fn a_long_chain_of_ifs_is_compiled_without_the_mid_end() {
        let m = diamonds(5000);
        assert!(weight(&m) > DOM_DEPTH_BUDGET);
        assert_eq!(
            light_for(&m.funcs[FuncId::from_u32(0)]),
            Some(Light::NoMidEnd)
        );
        let base = settings::Flags::new(settings::builder());
        let flags = light_isa_flags(&base, Light::NoMidEnd);
        assert!(flags.contains(&("opt_level", "none")));
        assert!(!flags.iter().any(|&(k, _)| k == "regalloc_algorithm"));
        let flags = light_isa_flags(&base, Light::Linear);
        assert!(flags.contains(&("regalloc_algorithm", "single_pass")));
    }
}
