//! The pipeline driver behind the `parc` command: one short list of calls,
//! as QBE's `main.c` reads.
//!
//! ```text
//! bytes ─utf8─▶ source ─parse─▶ AST ─check─▶ HIR ─lower─▶ parir ─verify─▶ opt ─▶ consumer
//! ```
//!
//! Every front-end failure comes back as rendered diagnostics (the caller
//! prints them and exits with status 1); nothing here panics on user input.
//! A module that fails the verifier after lowering or after a pass is a bug
//! in parc, reported as an internal error.

use parc_ir::Module;
use parc_lang::ast::Span;
use parc_lang::diag::{self, Diagnostic};
use std::time::Instant;

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
    /// 0, 1 or 2.
    pub opt_level: u8,
    /// Render with ANSI colours.
    pub color: bool,
    /// Verify the module after every pass, not only after lowering and at
    /// the end of the pipeline.
    pub verify_each: bool,
    /// Print the module to stderr after this pass (`all`: after every pass;
    /// `lower`: straight after lowering).
    pub dump_after: Option<String>,
    /// Print the time spent in each phase and pass to stderr.
    pub time_passes: bool,
    /// Print the passes' statistics counters to stderr.
    pub stats: bool,
}

/// What a successful front end hands on: the module and any warnings.
pub struct Compiled {
    pub module: Module,
    pub warnings: String,
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

/// Source text to a verified (and, at `opt_level > 0`, optimized) module.
pub fn compile(path: &str, source: &str, options: &Options) -> Result<Compiled, CompileError> {
    let (ast, mut diags) = parc_lang::parse::parse(source);
    let hir = if diags.iter().any(Diagnostic::is_error) {
        None
    } else {
        let (hir, check_diags) = parc_lang::check::check(&ast);
        diags.extend(check_diags);
        hir
    };
    let rendered = diag::render(path, source, &diags, options.color);
    let Some(hir) = hir.filter(|_| !diags.iter().any(Diagnostic::is_error)) else {
        return Err(CompileError {
            rendered,
            internal: false,
        });
    };
    let lower_start = Instant::now();
    let mut module = parc_lang::lower::lower(&hir, path, source);
    let lower_time = lower_start.elapsed();
    verified(&module, "lowering")?;
    if options
        .dump_after
        .as_deref()
        .is_some_and(|p| p == "lower" || p == "all")
    {
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
    let result = parc_opt::optimize(&mut module, options.opt_level, &mut inst);
    if options.time_passes {
        eprintln!("{:>12}  lowering", format_duration(lower_time));
        for (name, time) in &inst.times {
            eprintln!("{:>12}  {name}", format_duration(*time));
        }
    }
    if options.stats {
        for (name, n) in &inst.context.stats {
            eprintln!("{n:>12}  {name}");
        }
    }
    result.map_err(|rendered| CompileError {
        rendered,
        internal: true,
    })?;
    verified(&module, "the optimization pipeline")?;
    Ok(Compiled {
        module,
        warnings: rendered,
    })
}

fn format_duration(d: std::time::Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

/// Checks only: parse and type-check, no lowering.
pub fn check(path: &str, source: &str, color: bool) -> Result<String, CompileError> {
    let (ast, mut diags) = parc_lang::parse::parse(source);
    if !diags.iter().any(Diagnostic::is_error) {
        diags.extend(parc_lang::check::check(&ast).1);
    }
    let rendered = diag::render(path, source, &diags, color);
    if diags.iter().any(Diagnostic::is_error) {
        Err(CompileError {
            rendered,
            internal: false,
        })
    } else {
        Ok(rendered)
    }
}

fn verified(module: &Module, after: &str) -> Result<(), CompileError> {
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
