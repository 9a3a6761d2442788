//! One module per pass. [`ALL`] names every pass for the pipeline, the
//! CLI's `--dump-after` and the filetests' `; test: pass NAME`.

use crate::Pass;

pub mod adce;
pub mod critical_sections;
pub mod dce;
pub mod dead_return;
pub mod devirtualize;
pub mod dse;
pub mod global_dce;
pub mod gvn;
pub mod infer_noalias;
pub mod inline;
pub mod instcombine;
pub mod internalize;
pub mod iv_widen;
pub mod licm;
pub mod loop_deletion;
pub mod loop_load_elim;
pub mod loop_rotate;
pub mod loop_unroll;
pub mod loop_unswitch;
pub mod mark_parallel_loops;
pub mod mem2reg;
pub mod scalar_promotion;
pub mod sccp;
pub mod select_to_branch;
pub mod serial_elision;
pub mod serialize_tasks;
pub mod simplify_cfg;
pub mod split_offsets;
pub mod sroa;
pub mod strength_reduce;
pub mod sync_elim;
pub mod tail_rec;
pub mod vectorize;
pub mod zero_memory;

/// Every pass, by the name the pipeline and the command line use.
pub const ALL: &[(&str, Pass)] = &[
    ("dce", dce::run),
    ("dead-return", dead_return::run),
    ("adce", adce::run),
    ("inline", inline::run),
    ("global-dce", global_dce::run),
    ("sync-elim", sync_elim::run),
    ("serialize-small-tasks", serialize_tasks::run),
    ("mark-parallel-loops", mark_parallel_loops::run),
    ("mem2reg", mem2reg::run),
    ("sroa", sroa::run),
    ("sccp", sccp::run),
    ("simplify-cfg", simplify_cfg::run),
    ("instcombine", instcombine::run),
    ("devirtualize", devirtualize::run),
    ("gvn", gvn::run),
    ("infer-noalias", infer_noalias::run),
    ("dse", dse::run),
    ("licm", licm::run),
    ("scalar-promotion", scalar_promotion::run),
    ("tail-rec", tail_rec::run),
    ("loop-deletion", loop_deletion::run),
    ("zero-memory", zero_memory::run),
    ("iv-widen", iv_widen::run),
    ("loop-rotate", loop_rotate::run),
    ("loop-unswitch", loop_unswitch::run),
    ("loop-unroll", loop_unroll::run),
    ("loop-load-elim", loop_load_elim::run),
    ("split-offsets", split_offsets::run),
    ("strength-reduce", strength_reduce::run),
    ("vectorize", vectorize::run),
    ("select-to-branch", select_to_branch::run),
    // Not in any `-O` pipeline: the driver runs it for `--serial`.
    ("serial-elision", serial_elision::run),
    // Not in any `-O` pipeline: the driver runs it for whole programs.
    ("internalize", internalize::run),
    // Not in any `-O` pipeline: the driver runs it on every program.
    ("critical-sections", critical_sections::run),
];
