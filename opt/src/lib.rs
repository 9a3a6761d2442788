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
//!   holds no cached analysis results. The context's [`AnalysisCache`]
//!   keeps each function's parir analyses between passes and checks, on
//!   every lookup, that the IR they read is unchanged.

pub mod analysis;
pub mod copy;
pub mod fold;
pub mod passes;
pub mod preheader;
pub mod remarks;

use analysis::cache::AnalysisCache;
use parc_ir::{FuncId, Module, OptLevel};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Hash maps and sets of the passes and analyses: FxHash (rustc's), far
/// cheaper than std's SipHash for keys that are a few integers (IR
/// entities), which need no protection from collision attacks. Nothing
/// the passes produce depends on the iteration order of these maps.
pub(crate) type HashMap<K, V> = rustc_hash::FxHashMap<K, V>;
pub(crate) type HashSet<K> = rustc_hash::FxHashSet<K>;

/// What a pass may use and report besides the module.
#[derive(Debug, Default)]
pub struct PassContext {
    /// Named counters (`--stats`), e.g. `mem2reg.promoted`.
    pub stats: BTreeMap<String, u64>,
    /// What the command line allows the passes.
    pub options: PassOptions,
    /// What passes did or did not do, by source position, for the user.
    pub remarks: Vec<remarks::Remark>,
    /// Each function's CFG, dominator tree, loops and tasks, kept while
    /// the IR they read is unchanged.
    pub analyses: AnalysisCache,
}

/// What the command line allows the passes: gcc's and clang's `-f` flags
/// that change what the optimizer may do.
#[derive(Clone, Debug)]
pub struct PassOptions {
    /// Run the loop vectorizer (`-fno-vectorize`, gcc's
    /// `-fno-tree-vectorize`: off).
    pub vectorize: bool,
    /// Floating-point sums and products may be reassociated
    /// (`-fassociative-math`, implied by `-ffast-math`): the vectorizer
    /// then sums a float reduction in lanes, which changes its rounding.
    pub reassociate_floats: bool,
}

impl Default for PassOptions {
    fn default() -> PassOptions {
        PassOptions {
            vectorize: true,
            reassociate_floats: false,
        }
    }
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

/// The passes of an optimization level, in order. From -O1 on, the
/// unreachable `static` functions go first (`global-dce`: those of the
/// shipped headers a program never calls cost every pass otherwise); at
/// -O2 again after `inline`, which leaves the bodies it copied behind.
pub fn pipeline(opt_level: OptLevel) -> Vec<&'static str> {
    match opt_level {
        OptLevel::O0 => vec![],
        OptLevel::O1 => vec![
            "global-dce",
            "simplify-cfg",
            "mem2reg",
            "sccp",
            "instcombine",
            "devirtualize",
            "dce",
            "simplify-cfg",
        ],
        // -O2: clean up and promote locals, fold and simplify, CSE (and
        // drop the stores its forwarding leaves overwritten unread), hoist;
        // turn accumulating self-calls into loops (before inlining, which
        // would bury them in copies of the body); then inline (bottom-up; LICM has already seen the loops whose
        // calls inlining would bury, and inline refuses to put a loop in a
        // loop), mark the pointer parameters of the calls left whose
        // arguments are distinct private objects of every caller
        // `noalias` (so that the second `gvn` keeps a callee's loads
        // across its stores to another of them), unroll the small loops
        // of constant trip count (SCCP has
        // made their bounds constants) and redo the scalar passes on the
        // larger bodies (folding the unrolled counters); then the
        // Tapir passes: drop idle syncs, run tiny tasks in place (their
        // syncs become idle too), and clean up: `zero-memory` (what a
        // gradient's empty tapes leave: loads of zeroed memory, frees of
        // null), then `adce` and `dce` twice, as the loads `adce` keeps
        // (they may fault) and `dce` then removes can be the last readers
        // of memory nobody else reads, whose stores the second `adce`
        // removes. `dead-return` before them: the values only `static`
        // functions' unused returns need (a gradient's augmented forward
        // sweeps return the primal's) become theirs to remove.
        // `mark-parallel-loops` last: it changes nothing and reports the
        // loops the backend will run as chunked parallel loops.
        OptLevel::O2 | OptLevel::O3 => vec![
            "global-dce",
            "simplify-cfg",
            "sroa",
            "mem2reg",
            "sccp",
            "instcombine",
            "devirtualize",
            "gvn",
            "dse",
            "licm",
            "tail-rec",
            "inline",
            "global-dce",
            "infer-noalias",
            "loop-unroll",
            "simplify-cfg",
            "sroa",
            "mem2reg",
            "sccp",
            "instcombine",
            "devirtualize",
            "gvn",
            "dse",
            "licm",
            "dead-return",
            "sync-elim",
            "serialize-small-tasks",
            "sync-elim",
            "zero-memory",
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

/// The final stage at `opt_level` ([`codegen_prepare`]): passes that shape
/// loops for the backend, run once after the last [`optimize`]. They are
/// not in [`pipeline`] because the AD, which runs between two runs of the
/// pipeline, recognizes loops by a header that tests `iv < bound`, and
/// rotation moves that test to the bottom; widening adds a second counter
/// to such headers. Tapir lowering, which runs after this stage, recognizes
/// parallel loops by their shape too, so both loop passes leave loops with
/// a `detach`, `reattach` or `sync` alone.
pub fn prepare_pipeline(opt_level: OptLevel) -> Vec<&'static str> {
    match opt_level {
        OptLevel::O0 | OptLevel::O1 => vec![],
        // Widen narrow counters (their extensions become 64-bit offsets),
        // move constant offsets out of indices into the addresses'
        // displacements and add up chains of them, merge the scaled
        // counters the addresses now share, drop the dead narrow counters
        // and old indices, then rotate, hoist what rotation made safe to
        // hoist (a load in a loop body that now runs at least once, such as
        // a gradient's reload of `a[i][k]` in its reverse `j` loop), fold
        // guards whose test is constant and tidy the blocks. Unswitching
        // before rotation: each copy of a loop is then rotated as any loop;
        // so is each of the vectorizer's two (vector and remainder); the
        // CFG tidied after it, so that each copy's body is one block again
        // for the vectorizer (the reverse loops' updates of a private
        // shadow copy, once their atomic way is gone).
        // Forwarding stores to the next iteration's loads needs the rotated,
        // one-block loops and the preheaders LICM makes. Scalar promotion
        // before the vectorizer: a sum into `c[i]` over `j` becomes a
        // reduction it knows. Strength reduction after the vectorizer,
        // which reads addresses as affine forms of the counters. Last,
        // selects on a load's loop-carried address become branches again
        // (`select-to-branch`: a binary search's next load then starts on
        // a prediction); after `simplify-cfg`, which would fold them back.
        OptLevel::O2 | OptLevel::O3 => vec![
            "iv-widen",
            "split-offsets",
            "instcombine",
            "gvn",
            "adce",
            "loop-unswitch",
            "simplify-cfg",
            "scalar-promotion",
            "vectorize",
            "strength-reduce",
            "loop-rotate",
            "licm",
            "loop-load-elim",
            "sccp",
            "simplify-cfg",
            "select-to-branch",
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
    /// Time spent in each pass, summed over repeated runs, in pipeline order;
    /// the final stage's passes as `NAME (prepare)`.
    pub times: Vec<(String, Duration)>,
    pub context: PassContext,
}

/// Runs the pipeline of `opt_level`. Returns the error of `after_pass`, if
/// any, with the pass's name.
pub fn optimize(
    module: &mut Module,
    opt_level: OptLevel,
    inst: &mut Instrumentation<'_>,
) -> Result<(), String> {
    run_passes(module, &pipeline(opt_level), None, inst)
}

/// Runs the final stage of `opt_level` ([`prepare_pipeline`]), once, after
/// the last [`optimize`] and before Tapir lowering and the backend, with
/// the same instrumentation: `after_pass` sees each pass by its name, and
/// times are kept apart from the pipeline's, as `NAME (prepare)`.
pub fn codegen_prepare(
    module: &mut Module,
    opt_level: OptLevel,
    inst: &mut Instrumentation<'_>,
) -> Result<(), String> {
    run_passes(module, &prepare_pipeline(opt_level), Some("prepare"), inst)
}

fn run_passes(
    module: &mut Module,
    names: &[&'static str],
    stage: Option<&str>,
    inst: &mut Instrumentation<'_>,
) -> Result<(), String> {
    for &name in names {
        let pass = pass_by_name(name).ok_or_else(|| format!("unknown pass `{name}`"))?;
        let start = Instant::now();
        let changed = pass(module, &mut inst.context);
        let elapsed = start.elapsed();
        let label = match stage {
            Some(stage) => format!("{name} ({stage})"),
            None => name.to_string(),
        };
        match inst.times.iter_mut().find(|(n, _)| *n == label) {
            Some((_, t)) => *t += elapsed,
            None => inst.times.push((label, elapsed)),
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

/// The zero constant of `ty` (`0.0` for floats, the null pointer for `ptr`).
pub fn zero_of(ty: parc_ir::Type) -> parc_ir::InstKind {
    if ty.is_float() {
        parc_ir::InstKind::Fconst(0.0)
    } else {
        parc_ir::InstKind::Iconst(0)
    }
}

/// The functions with a body and a loop, in order: the only ones a loop
/// pass has anything to do in (their loops come from `cache`).
pub fn functions_with_loops(module: &Module, cache: &mut AnalysisCache) -> Vec<FuncId> {
    module
        .funcs
        .iter()
        .filter(|(id, f)| !f.is_declaration() && !cache.get(*id, f).loops.is_empty())
        .map(|(id, _)| id)
        .collect()
}

/// The functions with a body and a `detach`, `reattach` or `sync`, in
/// order: the only ones a Tapir pass has anything to do in.
pub fn functions_with_tapir(module: &Module) -> Vec<FuncId> {
    module
        .funcs
        .iter()
        .filter(|(_, f)| f.layout.iter().any(|&b| f.ends_in_tapir(b)))
        .map(|(id, _)| id)
        .collect()
}

/// Runs `f` on the functions `ids` (as [`for_each_function`] on those
/// only); true if any call returned true.
pub fn for_each_of(
    module: &mut Module,
    ids: &[FuncId],
    mut f: impl FnMut(&mut parc_ir::Function) -> bool,
) -> bool {
    let mut changed = false;
    for &id in ids {
        changed |= f(&mut module.funcs[id]);
    }
    changed
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
