//! parc's optimizer: passes over parir and the ordered pipeline that runs
//! them (as Cranelift's `context.rs` or QBE's `main.c`: one readable list).
//!
//! Architecture invariants:
//! - Every pass lives in its own file under `passes/`, is a free function
//!   `fn(&mut Module, &mut PassContext) -> bool` returning whether it changed
//!   anything, and maps a verified module to a verified module. The driver
//!   can verify after every pass (`--verify-each`); tests always do.
//! - Every pass is valid for the serial projection *and* keeps Tapir's rules:
//!   it never moves a memory operation into a task, or across a detach or a
//!   sync, in a way that could create a race (see `passes/licm.rs` and
//!   `analysis/alias.rs` for how motion is judged).
//! - Analyses the passes share (alias analysis, function mod/ref summaries)
//!   live in `analysis/` and are side tables recomputed from the IR; the IR
//!   holds no cached analysis results.

pub mod analysis;
pub mod fold;
pub mod passes;

use parc_ir::Module;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// What a pass may use and report besides the module.
#[derive(Debug, Default)]
pub struct PassContext {
    /// Named counters (`--stats`), e.g. `mem2reg.promoted`.
    pub stats: BTreeMap<String, u64>,
}

impl PassContext {
    /// Adds `n` to the counter `name`.
    pub fn count(&mut self, name: &str, n: u64) {
        if n > 0 {
            *self.stats.entry(name.to_string()).or_default() += n;
        }
    }
}

/// A pass over a whole module; returns true if it changed the module.
pub type Pass = fn(&mut Module, &mut PassContext) -> bool;

/// Every pass by name, for `--dump-after` and filetests (`; test: pass NAME`).
pub fn pass_by_name(name: &str) -> Option<Pass> {
    passes::ALL
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, pass)| pass)
}

/// The passes of an optimization level, in order.
pub fn pipeline(opt_level: u8) -> Vec<&'static str> {
    match opt_level {
        0 => vec![],
        1 => vec![
            "simplify-cfg",
            "mem2reg",
            "sccp",
            "instcombine",
            "dce",
            "simplify-cfg",
        ],
        // -O2: clean up and promote locals, fold and simplify, CSE (and
        // drop the stores its forwarding leaves overwritten unread), hoist;
        // turn accumulating self-calls into loops (before inlining, which
        // would bury them in copies of the body); then inline (bottom-up; LICM has already seen the loops whose
        // calls inlining would bury, and inline refuses to put a loop in a
        // loop) and redo the scalar passes on the larger bodies; then the
        // Tapir passes: drop idle syncs, run tiny tasks in place (their
        // syncs become idle too), and clean up: `adce` and `dce` twice, as
        // the loads `adce` keeps (they may fault) and `dce` then removes can
        // be the last readers of memory nobody else reads, whose stores the
        // second `adce` removes. `mark-parallel-loops` last:
        // it changes nothing and reports the loops the backend will run as
        // chunked parallel loops.
        _ => vec![
            "simplify-cfg",
            "sroa",
            "mem2reg",
            "sccp",
            "instcombine",
            "gvn",
            "dse",
            "licm",
            "tail-rec",
            "inline",
            "simplify-cfg",
            "sroa",
            "mem2reg",
            "sccp",
            "instcombine",
            "gvn",
            "dse",
            "licm",
            "sync-elim",
            "serialize-small-tasks",
            "sync-elim",
            "adce",
            "dce",
            "adce",
            "dce",
            "loop-deletion",
            "simplify-cfg",
            "mark-parallel-loops",
        ],
    }
}

/// A hook called with each pass's name and the module after it.
pub type AfterPass<'a> = &'a mut dyn FnMut(&str, &Module) -> Result<(), String>;

/// How `optimize` reports on itself (the CLI's `--verify-each`,
/// `--dump-after`, `--time-passes`, `--stats`).
#[derive(Default)]
pub struct Instrumentation<'a> {
    /// Called after every pass; an error stops the pipeline (the driver
    /// verifies here).
    pub after_pass: Option<AfterPass<'a>>,
    /// Time spent in each pass, summed over repeated runs, in pipeline order.
    pub times: Vec<(&'static str, Duration)>,
    pub context: PassContext,
}

/// Runs the pipeline of `opt_level`. Returns the error of `after_pass`, if
/// any, with the pass's name.
pub fn optimize(
    module: &mut Module,
    opt_level: u8,
    inst: &mut Instrumentation<'_>,
) -> Result<(), String> {
    for name in pipeline(opt_level) {
        let pass = pass_by_name(name).ok_or_else(|| format!("unknown pass `{name}`"))?;
        let start = Instant::now();
        let changed = pass(module, &mut inst.context);
        let elapsed = start.elapsed();
        match inst.times.iter_mut().find(|(n, _)| *n == name) {
            Some((_, t)) => *t += elapsed,
            None => inst.times.push((name, elapsed)),
        }
        if changed {
            inst.context.count(&format!("{name}.changed"), 1);
        }
        if let Some(hook) = inst.after_pass.as_mut() {
            hook(name, module)?;
        }
    }
    Ok(())
}

/// Runs `f` on every function with a body; true if any call returned true.
pub fn for_each_function(
    module: &mut Module,
    mut f: impl FnMut(&mut parc_ir::Function) -> bool,
) -> bool {
    let mut changed = false;
    for func in module.funcs.values_mut() {
        if !func.is_declaration() {
            changed |= f(func);
        }
    }
    changed
}
