//! `parc`: the command line. Parsing arguments, reading files and choosing
//! exit statuses happen here; everything else is in the library
//! (`parc::compile`) and the crates it drives.
//!
//! Exit statuses: 0 success; 1 a malformed program, a bad command line or a
//! run-time error in the interpreted program; for `run`, otherwise the
//! program's own exit status; 101 an internal compiler error.

use clap::{Args, Parser, Subcommand, ValueEnum};
use parc::{CompileError, Options};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "parc",
    version,
    about = "A research compiler for ParC: C with spawn/sync/parallel_for, GPU kernels and parallel reverse-mode AD",
    long_about = "parc compiles ParC (C99 with spawn, sync, parallel_for and CUDA-style kernels) through \
                  parir, a Tapir-style parallel IR. Language reference: docs/LANGUAGE.md."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and type-check a program; print diagnostics, produce nothing.
    Check {
        /// The ParC source file (`.pc`).
        file: PathBuf,
        #[command(flatten)]
        diag: DiagArgs,
    },
    /// Compile and run a program; exits with the status of its `main`.
    Run(RunArgs),
    /// Compile a program to an output file.
    Build(BuildArgs),
}

#[derive(Args)]
struct DiagArgs {
    /// Colour diagnostics: auto (when stderr is a terminal), always or never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

#[derive(Clone, Copy, ValueEnum)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl DiagArgs {
    fn color(&self) -> bool {
        match self.color {
            ColorChoice::Auto => std::io::stderr().is_terminal(),
            ColorChoice::Always => true,
            ColorChoice::Never => false,
        }
    }
}

#[derive(Args)]
struct OptArgs {
    /// No optimization.
    #[arg(long = "O0", group = "opt")]
    o0: bool,
    /// Light optimization.
    #[arg(long = "O1", group = "opt")]
    o1: bool,
    /// Full optimization (the default).
    #[arg(long = "O2", group = "opt")]
    o2: bool,
}

impl OptArgs {
    fn level(&self) -> u8 {
        if self.o0 {
            0
        } else if self.o1 {
            1
        } else {
            2
        }
    }
}

#[derive(Args)]
struct RunArgs {
    /// Run in the reference interpreter (the serial projection), the
    /// semantic oracle. Native execution arrives with the Cranelift
    /// backend; until then `run` always interprets.
    #[arg(long)]
    interp: bool,
    #[command(flatten)]
    opt: OptArgs,
    #[command(flatten)]
    diag: DiagArgs,
    /// The ParC source file (`.pc`).
    file: PathBuf,
    /// Arguments for the program's `main` (write them after `--`).
    #[arg(last = true)]
    args: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Emit {
    /// A native executable (the default).
    Exe,
    /// A native object file.
    Obj,
    /// A shared library with a C header.
    Lib,
    /// parir, the parallel IR, as text.
    Ir,
    /// PTX text for the program's kernels.
    Ptx,
    /// The control-flow graphs in Graphviz dot.
    Dot,
}

#[derive(Args)]
struct BuildArgs {
    /// The ParC source file (`.pc`).
    file: PathBuf,
    /// What to produce.
    #[arg(long, value_enum, default_value_t = Emit::Exe)]
    emit: Emit,
    /// Output path (default: the input's name with the emitted kind's
    /// extension; `-` for standard output where the output is text).
    #[arg(short = 'o', long = "output")]
    output: Option<PathBuf>,
    /// Export the reverse-mode gradient `grad_F` of function F (repeatable).
    #[arg(long = "grad", value_name = "F")]
    grad: Vec<String>,
    #[command(flatten)]
    opt: OptArgs,
    #[command(flatten)]
    diag: DiagArgs,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check { file, diag } => check(&file, diag.color()),
        Command::Run(args) => run(args),
        Command::Build(args) => build(args),
    }
}

/// Prints a message as parc's own error and returns status 1.
fn fail(message: &str) -> ExitCode {
    eprintln!("parc: error: {message}");
    ExitCode::from(1)
}

fn report(err: CompileError) -> ExitCode {
    eprint!("{}", err.rendered);
    ExitCode::from(if err.internal { 101 } else { 1 })
}

fn read_source(path: &Path, color: bool) -> Result<String, ExitCode> {
    let bytes = std::fs::read(path)
        .map_err(|e| fail(&format!("cannot read `{}`: {e}", path.display())))?;
    parc::decode_source(&path.display().to_string(), &bytes, color).map_err(report)
}

fn check(file: &Path, color: bool) -> ExitCode {
    let source = match read_source(file, color) {
        Ok(s) => s,
        Err(code) => return code,
    };
    match parc::check(&file.display().to_string(), &source, color) {
        Ok(warnings) => {
            eprint!("{warnings}");
            ExitCode::SUCCESS
        }
        Err(err) => report(err),
    }
}

fn compile(file: &Path, opt_level: u8, color: bool) -> Result<parc_ir::Module, ExitCode> {
    let source = read_source(file, color)?;
    let options = Options { opt_level, color };
    let compiled = parc::compile(&file.display().to_string(), &source, options).map_err(report)?;
    eprint!("{}", compiled.warnings);
    Ok(compiled.module)
}

fn run(args: RunArgs) -> ExitCode {
    let module = match compile(&args.file, args.opt.level(), args.diag.color()) {
        Ok(m) => m,
        Err(code) => return code,
    };
    if !args.interp {
        eprintln!(
            "parc: note: native code generation is not available yet; running in the reference interpreter"
        );
    }
    let mut argv = vec![args.file.display().to_string()];
    argv.extend(args.args);
    let config = parc_ir::interp::Config {
        args: argv,
        ..parc_ir::interp::Config::default()
    };
    // Line buffering (what a locked stdout does) costs a system call per
    // line; programs that print a lot would spend their time there.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let result = parc_ir::interp::run_main(&module, &config, &mut out);
    let _ = out.flush();
    match result {
        // The OS keeps the low 8 bits of an exit status, as for a C program.
        Ok(status) => ExitCode::from(status as u8),
        Err(err) => {
            eprintln!("parc: {err}");
            ExitCode::from(1)
        }
    }
}

fn build(args: BuildArgs) -> ExitCode {
    if !args.grad.is_empty() {
        return fail(
            "`--grad` is not supported yet: reverse-mode differentiation is not implemented in this version of parc",
        );
    }
    let extension = match args.emit {
        Emit::Ir => "pir",
        Emit::Dot => "dot",
        Emit::Exe | Emit::Obj | Emit::Lib | Emit::Ptx => {
            return fail(&format!(
                "`--emit {}` is not supported yet: this version of parc emits `ir` and `dot`; run programs with `parc run --interp`",
                match args.emit {
                    Emit::Exe => "exe",
                    Emit::Obj => "obj",
                    Emit::Lib => "lib",
                    _ => "ptx",
                }
            ));
        }
    };
    let module = match compile(&args.file, args.opt.level(), args.diag.color()) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let text = match args.emit {
        Emit::Dot => parc_ir::print::print_dot(&module),
        _ => parc_ir::print::print_module(&module),
    };
    let output = args
        .output
        .unwrap_or_else(|| args.file.with_extension(extension));
    if output.as_os_str() == "-" {
        print!("{text}");
        return ExitCode::SUCCESS;
    }
    match std::fs::write(&output, text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&format!("cannot write `{}`: {e}", output.display())),
    }
}
