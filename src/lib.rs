//! The pipeline driver behind the `parc` command: one short list of calls,
//! as QBE's `main.c` reads.
//!
//! ```text
//! bytes ─utf8─▶ source ─preprocess─▶ text ─parse─▶ AST ─check─▶ HIR ─lower─▶ parir (+ --grad requests) ─verify─▶
//!     [serial-elision ─▶]                       (--serial)
//!     opt ─▶ [ad ─▶ opt] ─▶ prepare ─▶ consumer (with gradient requests)
//!     [ad ─▶] opt ─▶ prepare ─▶ consumer        (--ad-before-opt)
//! ```
//!
//! parir text (`.pir`) enters at `verify` instead ([`compile_ir`]): read by
//! `parc_ir::read`, then the same pipeline.
//!
//! `prepare` (`parc_opt::codegen_prepare`, at `-O2`) is the final stage:
//! induction-variable widening and loop rotation, which reshape loops for
//! the backend in ways the AD's loop recognition must not see, so it runs
//! once, after the last optimization. The consumers (the interpreter and
//! the backends) get its output.
//!
//! `--serial` compiles the serial elision (Tapir's T_S): every detach,
//! reattach and sync becomes a jump before anything else sees the module,
//! so the optimizer and the AD work on plain serial code, as gcc does on
//! the same source through `include/parc.h`.
//!
//! Gradients are Enzyme's way round by default: the AD differentiates the
//! *optimized* IR (smaller, with fewer loads to cache), and the pipeline
//! runs again on the result, whose adjoint code the first run never saw.
//! `--ad-before-opt` differentiates the IR straight from lowering and
//! optimizes once, for comparing the two orders. A module without gradient
//! requests goes through the optimizer once either way.
//!
//! Every front-end failure comes back as rendered diagnostics (the caller
//! prints them and exits with status 1); nothing here panics on user input.
//! A construct the AD cannot differentiate is the user's error too, with
//! the source position of the instruction. A module that fails the
//! verifier after lowering, a pass or the AD is a bug in parc, reported as
//! an internal error.
//!
//! The driver's reports (`--explain-ad`, remarks, `--time-passes`,
//! `--stats`, the AD's refusals at source positions) are in `reports`;
//! parc objects in `object`; the PTX and the device math library in `gpu`.

mod gpu;
mod object;
mod reports;
mod requests;

pub use gpu::{attach_ptx, emit_ptx, link_device_math};
pub use object::{PARC_OBJECT_MAGIC, ParcObject, Premade, parc_object, read_parc_object};
pub use reports::{explain_ad, explain_ad_gpu, render_remarks};

use object::passes_struct;
use parc_ad::AdReport;
use parc_ir::{Module, OptLevel, SrcLoc};
use parc_lang::ast::Span;
use parc_lang::diag::{self, Diagnostic};
use parc_lang::hir;
use reports::{ad_error, ad_error_in_ir, word_at};
use requests::checked_requests;
use std::time::Instant;

pub mod stage_times;
pub use stage_times::StageTimes;

/// How far the pipeline got when it stopped with errors.
#[derive(Debug)]
pub struct CompileError {
    /// Rendered diagnostics, ready to print.
    pub rendered: String,
    /// True if the fault is parc's own (a verifier failure), not the user's.
    pub internal: bool,
}

/// Options that shape compilation.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `-O0` to `-O3` (the optimizer's pipeline; the backend gets it too).
    pub opt_level: OptLevel,
    /// Render with ANSI colours.
    pub color: bool,
    /// Verify the module after every pass, not only after lowering and at
    /// the end of the pipeline.
    pub verify_each: bool,
    /// Print the module to stderr after this pass (`all`: after every pass;
    /// `lower`: straight after lowering; `ad`: after differentiation;
    /// `prepare`: after the final stage).
    pub dump_after: Option<String>,
    /// `--time-passes`: the command prints [`Compiled::times`] (and the
    /// backend's) to stderr.
    pub time_passes: bool,
    /// Print the passes' statistics counters to stderr.
    pub stats: bool,
    /// Functions whose gradients to export as `grad_F` (`--grad F`).
    pub grad: Vec<String>,
    /// Differentiate before optimizing instead of after.
    pub ad_before_opt: bool,
    /// AD ablations (`--ad-no-flat-tapes`): see `parc_ad::AdOptions`.
    pub ad_task_tape_headers: bool,
    /// `--ad-no-shadow-slabs`: see `parc_ad::AdOptions`.
    pub ad_task_shadow_callocs: bool,
    /// `-fno-strict-aliasing`: see `parc_ad::AdOptions`.
    pub ad_no_strict_aliasing: bool,
    /// `--checkpoint N` / `--tape-budget BYTES` (see
    /// `parc_ad::checkpoint`).
    pub ad_checkpoint: Option<parc_ad::checkpoint::Request>,
    /// Compile the serial elision (`--serial`): `serial-elision` runs right
    /// after lowering, so the optimizer and the AD see serial code.
    pub serial: bool,
    /// The module is the whole program (an executable linking no native
    /// code that could call into it): `internalize` makes its exported
    /// functions but `main` `static` before the pipeline.
    pub whole_program: bool,
    /// Building a library or an object file: the program need not define
    /// `main`.
    pub library: bool,
    /// The kernels may run on a GPU: gradients of kernels are made for
    /// a block's threads running concurrently (atomic or phased updates
    /// where the CPU's one-thread-at-a-time blocks need none, tapes and
    /// sums in memory allocated with `cudaMalloc`). Such gradients are
    /// right on the CPU too.
    pub gpu: bool,
    /// The preprocessor's `-D`, `-U`, `-I` and `-fopenmp`.
    pub pp: parc_lang::pp::Options,
    /// What the optimizer may do (`-fno-vectorize`, ...).
    pub passes: parc_opt::PassOptions,
}

/// What a successful front end hands on: the module and any warnings.
pub struct Compiled {
    pub module: Module,
    pub warnings: String,
    /// What the AD did, if the module asked for gradients.
    pub ad_report: Option<AdReport>,
    /// For a program of several files ([`compile_files`]), the file each
    /// function came from, by name; empty for one file.
    pub file_of: std::collections::HashMap<String, String>,
    /// The optimizer's remarks (what the vectorizer did to each loop), in
    /// the order the passes made them.
    pub remarks: Vec<parc_opt::remarks::Remark>,
    /// The time of each stage and pass so far (`--time-passes`).
    pub times: StageTimes,
}

/// Turns raw file bytes into text, or a diagnostic pointing at the first
/// byte that is not UTF-8.
pub fn decode_source(path: &str, bytes: &[u8], color: bool) -> Result<String, CompileError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(text.to_owned()),
        Err(e) => {
            let at = e.valid_up_to();
            // One `?` per invalid byte keeps byte offsets (and so the span)
            // the same in the text ariadne renders.
            let mut shown = String::with_capacity(bytes.len());
            for chunk in bytes.utf8_chunks() {
                shown.push_str(chunk.valid());
                shown.extend(std::iter::repeat_n('?', chunk.invalid().len()));
            }
            let d = Diagnostic::error(
                Span::new(at, at + 1),
                format!(
                    "this file is not UTF-8 text: byte 0x{:02x} at offset {at} is not valid here",
                    bytes[at]
                ),
            )
            .with_help("ParC sources are UTF-8 (ASCII) text; is this the right file?");
            Err(CompileError {
                rendered: diag::render(path, &shown, &[d], color),
                internal: false,
            })
        }
    }
}

/// Source text to a verified (and, above `-O0`, optimized) module.
pub fn compile(path: &str, source: &str, options: &Options) -> Result<Compiled, CompileError> {
    let mut times = StageTimes::default();
    let (module, rendered) = lowered(path, source, options.library, true, options, &mut times)?;
    let origin = Origin::Source(source);
    let warnings =
        rendered + &checked_requests(&module, &options.grad, path, origin, options.color)?;
    times.time("verify", || verified(&module, "lowering"))?;
    pipeline(module, path, origin, times, warnings, options)
}

/// The source files of one program (`parc build a.c b.c`), each `(path,
/// text)`, to a verified (and optimized) module: each file through the
/// front end on its own, as a C compiler compiles each, then the modules
/// linked into one ([`parc_ir::link`]: an `extern` function of one file is
/// another's definition, `static` functions stay with their file), so that
/// the optimizer and the AD see the whole program: a function of one file
/// can be differentiated from another, or with `--grad`. Diagnostics name
/// the file they are about. One file is [`compile`].
pub fn compile_files(
    files: &[(String, String)],
    options: &Options,
) -> Result<Compiled, CompileError> {
    if let [(path, source)] = files {
        return compile(path, source, options);
    }
    compile_linked(files, files.iter().map(|_| None).collect(), options)
}

/// [`compile_files`], where some files' modules are made already (`Some`:
/// read from parc objects); `files` has the path and text of each, for
/// messages.
pub fn compile_linked(
    files: &[(String, String)],
    premade: Vec<Option<Premade>>,
    options: &Options,
) -> Result<Compiled, CompileError> {
    let mut times = StageTimes::default();
    let mut modules = Vec::new();
    let mut rendered = String::new();
    let mut failed = false;
    let mut struct_decls = std::collections::HashSet::new();
    // Archive members wait until the rest is lowered: only those the
    // program needs are linked (`parc_ir::link::needed_members`).
    let mut members = Vec::new();
    // The path and text of each module's input, in the order of `modules`.
    let mut inputs: Vec<(String, String)> = Vec::new();
    for ((path, source), made) in files.iter().zip(premade) {
        if let Some(made) = made {
            if made.archive_member {
                members.push((path.clone(), source.clone(), made));
            } else {
                struct_decls.extend(made.struct_decls);
                modules.push((path.clone(), made.module));
                inputs.push((path.clone(), source.clone()));
            }
            continue;
        }
        // Each file is a library of the program: `main` is in one of them.
        match lowered(path, source, true, false, options, &mut times) {
            Ok((module, warnings)) => {
                rendered += &warnings;
                modules.push((path.clone(), module));
                inputs.push((path.clone(), source.clone()));
            }
            Err(e) => {
                rendered += &e.rendered;
                failed = true;
            }
        }
    }
    if failed {
        return Err(CompileError {
            rendered,
            internal: false,
        });
    }
    let needed = {
        let program: Vec<&Module> = modules.iter().map(|(_, m)| m).collect();
        let candidates: Vec<&Module> = members.iter().map(|(_, _, m)| &m.module).collect();
        parc_ir::link::needed_members(&program, &candidates)
    };
    for ((path, source, made), needed) in members.into_iter().zip(needed) {
        if needed {
            struct_decls.extend(made.struct_decls);
            inputs.push((path.clone(), source));
            modules.push((path, made.module));
        }
    }
    let files = &inputs[..];
    let linked = times
        .time("linking parir", || parc_ir::link::link(modules))
        .map_err(|e| usage_error(e.to_string()))?;
    // A function no file defines is C's: it may not take or return a
    // struct by value (each file's checker left this to the linked
    // program, where a ParC definition in another file is known).
    let module = &linked.module;
    if let Some((_, f)) = module.funcs.iter().find(|(id, f)| {
        f.is_declaration()
            && !module.grad_requests.iter().any(|r| r.grad == *id)
            && (passes_struct(f) || struct_decls.contains(&f.name))
    }) {
        return Err(usage_error(format!(
            "`{}` is defined in none of the files and takes or returns a struct by value: parc \
             cannot call a C function that does (pass and return a pointer to the struct instead, \
             or define it in one of the files)",
            f.name
        )));
    }
    // Nor may it be variadic: parc passes variadic arguments in its own
    // convention, which only the functions it compiles take (each file's
    // checker left this to the linked program too).
    if let Some((_, f)) = module
        .funcs
        .iter()
        .find(|(_, f)| f.is_declaration() && f.variadic)
    {
        return Err(usage_error(format!(
            "variadic function `{}` is defined in none of the files: parc passes variadic \
             arguments in its own convention, so it calls only the variadic functions it compiles \
             (define it in one of the files, or give it a fixed parameter list)",
            f.name
        )));
    }
    let module = linked.module;
    let by_function = linked
        .origin
        .iter()
        .filter_map(|(&f, &k)| Some((module.funcs.get(f)?.name.clone(), k)))
        .collect();
    let files = Files {
        inputs: files,
        by_function,
    };
    if !options.library
        && module
            .func_by_name("main")
            .is_none_or(|f| module.funcs[f].is_declaration())
    {
        let names: Vec<String> = files.inputs.iter().map(|(p, _)| format!("`{p}`")).collect();
        return Err(usage_error(format!(
            "none of {} defines `main`, which a program needs",
            names.join(", ")
        )));
    }
    let origin = Origin::Files(&files);
    let first = files.inputs[0].0.as_str();
    let warnings =
        rendered + &checked_requests(&module, &options.grad, first, origin, options.color)?;
    times.time("verify", || verified(&module, "linking"))?;
    let mut compiled = pipeline(module, first, origin, times, warnings, options)?;
    compiled.file_of = files
        .by_function
        .iter()
        .map(|(name, &k)| (name.clone(), files.inputs[k].0.clone()))
        .collect();
    Ok(compiled)
}

/// The files of a program of several, and which file each function of the
/// linked module came from (by name), so that a message about a function
/// quotes its file.
struct Files<'a> {
    inputs: &'a [(String, String)],
    by_function: std::collections::HashMap<String, usize>,
}

impl Files<'_> {
    /// The `(path, text)` of the input called `name`, if one is.
    fn named(&self, name: &str) -> Option<(&str, &str)> {
        self.inputs
            .iter()
            .find(|(p, _)| p == name)
            .map(|(p, s)| (p.as_str(), s.as_str()))
    }

    /// The `(path, text)` of the file `function` came from (the first file
    /// for a function the pipeline made).
    fn of(&self, function: &str) -> (&str, &str) {
        let base = function.split('.').next().unwrap_or(function);
        let k = self
            .by_function
            .get(function)
            .or_else(|| self.by_function.get(base))
            .copied()
            .unwrap_or(0);
        let (p, s) = &self.inputs[k];
        (p, s)
    }
}

/// Preprocessing, parsing, checking and lowering of one file, with
/// `--grad` requests for the functions it defines (and, when the file is
/// the `whole_program`, for those it only declares, which the refusal rule
/// then reports): the module, and the rendered warnings.
pub(crate) fn lowered(
    path: &str,
    source: &str,
    library: bool,
    whole_program: bool,
    options: &Options,
    times: &mut StageTimes,
) -> Result<(Module, String), CompileError> {
    let pre = times.time("preprocess", || {
        parc_lang::pp::preprocess(path, source, &options.pp)
    });
    let (hir, diags) = front_end(&pre, library, !whole_program, times);
    let rendered = diag::render_mapped(&pre.map, &diags, options.color);
    let Some(hir) = hir.filter(|_| !diags.iter().any(Diagnostic::is_error)) else {
        return Err(CompileError {
            rendered,
            internal: false,
        });
    };
    // Of several files, a function declared here and defined in another
    // is asked for there.
    let grad: Vec<String> = options
        .grad
        .iter()
        .filter(|name| {
            whole_program
                || hir
                    .funcs
                    .iter()
                    .any(|f| &f.name == *name && f.body.is_some())
        })
        .cloned()
        .collect();
    let module = times
        .time("lowering", || {
            parc_lang::lower::lower_with_exported_gradients(
                hir,
                path,
                &pre.text,
                Some(&pre.map),
                &grad,
            )
        })
        .map_err(|d| CompileError {
            rendered: diag::render_mapped(&pre.map, &[d], options.color),
            internal: false,
        })?;
    Ok((module, rendered))
}

/// Parses and checks preprocessed text (not at all after a preprocessor
/// error: what follows a missing header would only be its consequences).
fn front_end(
    pre: &parc_lang::pp::Preprocessed,
    library: bool,
    part: bool,
    times: &mut StageTimes,
) -> (Option<hir::Program>, Vec<Diagnostic>) {
    let mut diags = pre.diags.clone();
    if diags.iter().any(Diagnostic::is_error) {
        return (None, diags);
    }
    let (ast, parse_diags) = times.time("parse", || parc_lang::parse::parse(&pre.text));
    diags.extend(parse_diags);
    if diags.iter().any(Diagnostic::is_error) {
        return (None, diags);
    }
    let (hir, check_diags) = times.time("check", || {
        if part {
            parc_lang::check::check_part(ast)
        } else if library {
            parc_lang::check::check_library(ast)
        } else {
            parc_lang::check::check(ast)
        }
    });
    diags.extend(check_diags);
    (hir, diags)
}

/// Where a module came from, for rendering what the AD refuses.
#[derive(Clone, Copy)]
enum Origin<'a> {
    /// ParC source text: diagnostics quote it.
    Source(&'a str),
    /// Several files linked: diagnostics quote the file of the function
    /// they are about.
    Files(&'a Files<'a>),
    /// parir text: positions refer to the ParC file it was made from.
    Ir,
}

/// parir text, as `--emit ir` and `--dump-after` print it, to a verified
/// (and, above `-O0`, optimized) module: the pipeline of
/// [`compile`] after the front end, so that IR written or edited by hand
/// goes through the same optimizer, AD and final stage. Its gradient
/// requests (from `__enzyme_autodiff` calls in IR printed before the AD)
/// and `--grad` are honored. Text the reader rejects and IR the verifier
/// rejects are the user's errors.
pub fn compile_ir(path: &str, text: &str, options: &Options) -> Result<Compiled, CompileError> {
    let mut times = StageTimes::default();
    let mut module = times.time("reading parir", || read_ir(path, text, options.color))?;
    for name in &options.grad {
        // parir keeps no declaration positions: the request has none.
        if let Some(primal) = module.func_by_name(name) {
            parc_ir::gradient::request_export(&mut module, primal, SrcLoc::default())
                .map_err(|m| usage_error(format!("{path}: {m}")))?;
        }
    }
    let warnings = checked_requests(&module, &options.grad, path, Origin::Ir, options.color)?;
    pipeline(module, path, Origin::Ir, times, warnings, options)
}

/// `parc check` of parir text: it reads and verifies.
pub fn check_ir(path: &str, text: &str, color: bool) -> Result<(), CompileError> {
    read_ir(path, text, color).map(drop)
}

/// parir text to a module that verifies, or the reader's or the
/// verifier's complaints, each at its line and column in the text.
fn read_ir(path: &str, text: &str, color: bool) -> Result<Module, CompileError> {
    let user_error = |diags: Vec<Diagnostic>| CompileError {
        rendered: diag::render(path, text, &diags, color),
        internal: false,
    };
    let (module, positions) = parc_ir::read::read_module_with_positions(text).map_err(|e| {
        let at = SrcLoc::new(e.line, e.col);
        user_error(vec![
            Diagnostic::error(word_at(text, at), e.message).with_label("here"),
        ])
    })?;
    if let Err(errors) = parc_ir::verify::verify_module(&module) {
        let diags = errors
            .iter()
            .map(|e| {
                let message = format!("{} [{}]", e.message, e.rule);
                let at = positions.of(&module, e).map(|(l, c)| SrcLoc::new(l, c));
                let d = Diagnostic::error(word_at(text, at.unwrap_or_default()), message);
                match (&e.func, &e.global) {
                    (Some(f), _) => d.with_label(format!("in {}", parc_ir::print::name_ref(f))),
                    (None, Some(g)) => {
                        d.with_label(format!("global {}", parc_ir::print::name_ref(g)))
                    }
                    (None, None) => d,
                }
            })
            .collect();
        return Err(user_error(diags));
    }
    Ok(module)
}

/// Everything after the front end: `--serial`, the optimizer, the AD and
/// the final stage, with the instrumentation the options ask for.
fn pipeline(
    mut module: Module,
    path: &str,
    origin: Origin<'_>,
    mut times: StageTimes,
    mut rendered: String,
    options: &Options,
) -> Result<Compiled, CompileError> {
    let dump = |phase: &str| {
        options
            .dump_after
            .as_deref()
            .is_some_and(|p| p == phase || p == "all")
    };
    if dump("lower") {
        eprint!(
            "; after lowering\n{}",
            parc_ir::print::print_module(&module)
        );
    }
    let mut after_pass = |pass: &str, m: &Module| -> Result<(), String> {
        if options.verify_each {
            verified(m, pass).map_err(|e| e.rendered)?;
        }
        if options
            .dump_after
            .as_deref()
            .is_some_and(|p| p == pass || p == "all")
        {
            eprint!("; after {pass}\n{}", parc_ir::print::print_module(m));
        }
        Ok(())
    };
    let mut inst = parc_opt::Instrumentation {
        after_pass: Some(&mut after_pass),
        ..Default::default()
    };
    inst.context.options = options.passes.clone();
    // Sections of one `critical` name, from any of the files, agree
    // before anything else sees them (the AD differentiates the atomic
    // ones).
    driver_pass(
        "critical-sections",
        "settling critical sections",
        &mut module,
        &mut inst,
    )?;
    if options.serial {
        driver_pass(
            "serial-elision",
            "the serial elision",
            &mut module,
            &mut inst,
        )?;
    }
    if options.whole_program {
        driver_pass("internalize", "internalization", &mut module, &mut inst)?;
    }
    // The AD runs at most once; its report is kept for the caller.
    let wants_ad = !module.grad_requests.is_empty();
    let mut ad_report = None;
    let mut ad_time = None;
    let mut differentiate = |module: &mut Module| -> Result<(), CompileError> {
        let start = Instant::now();
        // The interpreter and the CPU backend run a kernel block's
        // threads one at a time, the AD's default; a GPU runs them
        // concurrently.
        let ad_options = parc_ad::AdOptions {
            block_threads: if options.gpu {
                parc_ad::BlockThreads::Concurrent
            } else {
                parc_ad::BlockThreads::OneAtATime
            },
            task_tape_headers: options.ad_task_tape_headers,
            task_shadow_callocs: options.ad_task_shadow_callocs,
            checkpoint: options.ad_checkpoint,
            no_strict_aliasing: options.ad_no_strict_aliasing,
        };
        // Checkpointing bounds what a loop writes from SSA counters and
        // pointers; unoptimized (-O0, --ad-before-opt) they are still in
        // `alloca`s, so their loads are promoted first (as Enzyme's
        // preprocessing does at any level). Nothing else changes. The
        // default budget leaves unoptimized code as it is: its loops are
        // then recorded whole, as without checkpointing.
        let asked = options.ad_checkpoint.is_some_and(|r| {
            r != parc_ad::checkpoint::Request::Budget(parc_ad::checkpoint::Bytes::Default)
        });
        if asked && (options.opt_level == OptLevel::O0 || options.ad_before_opt) {
            for pass in ["simplify-cfg", "mem2reg"] {
                if let Some(run) = parc_opt::pass_by_name(pass) {
                    run(module, &mut parc_opt::PassContext::default());
                }
            }
        }
        let report = parc_ad::differentiate(module, &ad_options).map_err(|e| {
            // A position in a header (or, inlined, another file) names it.
            let named = module.file_of(e.loc);
            match (origin, named) {
                (Origin::Files(files), Some(name)) if files.named(name).is_some() => {
                    let (path, source) = files.named(name).unwrap_or_default();
                    ad_error(&e, path, source, options.color)
                }
                (Origin::Source(_) | Origin::Files(_), Some(name)) => {
                    ad_error_in_ir(&e, Some(name), path)
                }
                (Origin::Source(source), None) => ad_error(&e, path, source, options.color),
                (Origin::Files(files), None) => {
                    let (path, source) = files.of(&e.function);
                    ad_error(&e, path, source, options.color)
                }
                (Origin::Ir, _) => ad_error_in_ir(&e, module.source_name.as_deref(), path),
            }
        })?;
        ad_time = Some(start.elapsed());
        ad_report = Some(report);
        // Printed before it is verified, so that invalid IR can be read.
        if dump("ad") {
            eprint!("; after ad\n{}", parc_ir::print::print_module(module));
        }
        verified(module, "differentiation")?;
        if !module.grad_requests.is_empty() {
            return Err(internal_error(
                "the AD left gradient requests unfulfilled (this is a bug in parc)",
            ));
        }
        Ok(())
    };
    if wants_ad && options.ad_before_opt {
        differentiate(&mut module)?;
    }
    let mut result = parc_opt::optimize(&mut module, options.opt_level, &mut inst);
    if result.is_ok() && wants_ad && !options.ad_before_opt {
        times.time("verify", || verified(&module, "the optimization pipeline"))?;
        differentiate(&mut module)?;
        result = parc_opt::optimize(&mut module, options.opt_level, &mut inst);
    }
    // The final stage reshapes loops in ways the AD must not see, so it
    // runs once, after the last optimization.
    if result.is_ok() {
        times.time("verify", || verified(&module, "the optimization pipeline"))?;
        result = parc_opt::codegen_prepare(&mut module, options.opt_level, &mut inst);
        if result.is_ok() && dump("prepare") {
            eprint!("; after prepare\n{}", parc_ir::print::print_module(&module));
        }
    }
    // The AD's time goes before the passes, as it was reported before
    // the stages of the driver were.
    if let Some(t) = ad_time {
        times.add("ad", t);
    }
    times.extend(inst.times.iter().map(|(n, t)| (n.as_str(), *t)));
    if options.stats {
        eprint!(
            "{}",
            reports::stats(&inst.context.stats, ad_report.as_ref())
        );
    }
    result.map_err(|rendered| CompileError {
        rendered,
        internal: true,
    })?;
    times.time("verify", || verified(&module, "the final stage (prepare)"))?;
    for n in ad_report.iter().flat_map(|r| &r.not_checkpointed) {
        let file = module.file_of(n.loc).unwrap_or(path);
        rendered += &format!(
            "{file}:{}:{}: warning: in `{}`: {}\n",
            n.loc.line, n.loc.col, n.function, n.why
        );
    }
    Ok(Compiled {
        module,
        warnings: rendered,
        ad_report,
        file_of: Default::default(),
        remarks: std::mem::take(&mut inst.context.remarks),
        times,
    })
}

/// A pass the driver runs before the pipeline when the options ask for
/// it (`serial-elision` for `--serial`: the optimizer and the AD then see
/// plain serial code; `internalize` for a whole program). Timed, counted,
/// dumped and verified like a pass of the pipeline.
fn driver_pass(
    name: &'static str,
    what: &str,
    module: &mut Module,
    inst: &mut parc_opt::Instrumentation<'_>,
) -> Result<(), CompileError> {
    let start = Instant::now();
    let run =
        parc_opt::pass_by_name(name).ok_or_else(|| internal_error(&format!("no pass `{name}`")))?;
    if run(module, &mut inst.context) {
        inst.context.count(&format!("{name}.changed"), 1);
    }
    inst.times.push((name.to_string(), start.elapsed()));
    if let Some(hook) = inst.after_pass.as_mut() {
        hook(name, module).map_err(|rendered| CompileError {
            rendered,
            internal: true,
        })?;
    }
    verified(module, what)
}

pub(crate) fn internal_error(message: &str) -> CompileError {
    CompileError {
        rendered: format!("internal compiler error: {message}\n"),
        internal: true,
    }
}

/// A CLI-level error (no source position): `parc: error: ...`.
fn usage_error(message: String) -> CompileError {
    CompileError {
        rendered: format!("parc: error: {message}\n"),
        internal: false,
    }
}

/// Checks only: preprocess, parse and type-check, no lowering. A
/// `library` need not define `main`.
pub fn check(
    path: &str,
    source: &str,
    library: bool,
    pp: &parc_lang::pp::Options,
    color: bool,
) -> Result<String, CompileError> {
    let pre = parc_lang::pp::preprocess(path, source, pp);
    let (hir, diags) = front_end(&pre, library, false, &mut StageTimes::default());
    let rendered = diag::render_mapped(&pre.map, &diags, color);
    if diags.iter().any(Diagnostic::is_error) {
        return Err(CompileError {
            rendered,
            internal: false,
        });
    }
    // What the AD cannot differentiate is decided on the lowered requests
    // (`parc_ir::gradient`); lowering is cheap, so `check` asks too.
    let Some(hir) = hir else {
        return Ok(rendered);
    };
    let module = parc_lang::lower::lower_mapped(hir, path, &pre.text, Some(&pre.map));
    Ok(rendered + &checked_requests(&module, &[], path, Origin::Source(source), color)?)
}

pub(crate) fn verified(module: &Module, after: &str) -> Result<(), CompileError> {
    parc_ir::verify::verify_module(module).map_err(|errors| {
        let mut rendered = format!(
            "internal compiler error: the IR is invalid after {after} (this is a bug in parc)\n"
        );
        for e in errors {
            rendered.push_str(&format!("  {e}\n"));
        }
        CompileError {
            rendered,
            internal: true,
        }
    })
}

#[cfg(test)]
mod tests;
