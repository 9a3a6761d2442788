//! `parc-bench`: builds every program in `bench/programs` with parc and with
//! gcc from the same source, runs each configuration several times, checks
//! that every run prints exactly what the gcc -O2 serial build prints, and
//! prints Markdown tables of medians and ratios measured in this one run.
//! The gradient benchmarks of `bench/grad` (module `grad`) add tables 7–9:
//! gradient overhead, the two AD pipelines, and speedups.
//!
//! Modules: `configs` (builds, configurations, sizes), `harness` (the
//! programs, builds, oracle and timed runs of tables 1–6), `tables` (their
//! Markdown), `compile_times` (table 5), `rayon_peer` (table 4's rayon
//! rows), `grad` (tables 7–9; `grad/tables.rs` their Markdown), `scaling` (table 10, compile-time scaling), `suite` (the
//! `suite` subcommand behind `parc bench`), `process` (timed child
//! processes) and `report` (pure helpers: statistics, tables, formats).
//!
//! `cargo run --release -p parc-bench -- [--quick] [--only NAME] [--reps N]`;
//! see bench/README.md for what each table means.

mod compile_times;
mod configs;
mod grad;
mod harness;
mod process;
mod rayon_peer;
mod report;
mod scaling;
mod suite;
mod tables;

use clap::Parser;
use compile_times::time_compiles;
use harness::{Harness, Program, Tools, default_clang};
use rayon_peer::time_rayon;
use report::{directive, split_only};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;
use tables::render;

#[derive(Parser)]
#[command(
    name = "parc-bench",
    about = "Benchmarks parc against gcc -O2 (serial and OpenMP) and rayon; prints Markdown tables"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Subcommand>,
    /// Smaller sizes (each program's `// quick-args:`) and 3 repetitions: a
    /// smoke test of the harness, not a measurement.
    #[arg(long)]
    quick: bool,
    /// Run only these benchmarks (repeatable or comma-separated names):
    /// `NAME` for bench/programs/NAME.pc, `grad/NAME` for bench/grad/NAME.pc,
    /// `grad` for every gradient benchmark, `scaling/SHAPE` for one shape of
    /// the compile-time scaling table, `scaling` for all of them.
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    only: Vec<String>,
    /// Repetitions of every configuration of tables 1-6 (default 9; 3 with
    /// --quick), and of tables 7-9 unless --grad-reps is given.
    #[arg(long, value_name = "N")]
    reps: Option<usize>,
    /// Repetitions of the gradient configurations, tables 7-9 (default 5;
    /// 3 with --quick).
    #[arg(long, value_name = "N")]
    grad_reps: Option<usize>,
    /// Repetitions of every build of the compile-time scaling table (table
    /// 10; default 3, 1 with --quick).
    #[arg(long, value_name = "N")]
    scaling_reps: Option<usize>,
    /// Print the compile-time scaling table's program of SHAPE at size N
    /// (e.g. `nested-for:2000`) to stdout and exit, to reproduce or profile
    /// one build.
    #[arg(long, value_name = "SHAPE:N")]
    generate: Option<String>,
    /// Use this parc binary instead of building it with cargo.
    #[arg(long, value_name = "PATH")]
    parc: Option<PathBuf>,
    /// Write the report here too (default: bench/results.md).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// The C compiler to compare with.
    #[arg(long, default_value = "gcc")]
    cc: String,
    /// The second C compiler of tables 1 and 5 (default: `clang`, else the
    /// newest `clang-N` on the PATH).
    #[arg(long, value_name = "CLANG")]
    clang: Option<String>,
    /// Kill a run after this many seconds (a hang is a failure).
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    timeout: u64,
    /// Enzyme's clang plugin (ClangEnzyme-16.so; default
    /// $PARC_BENCH_ENZYME): adds the clang+Enzyme peer to the gradient
    /// tables. Without it that column is skipped with a message.
    #[arg(long, value_name = "PATH")]
    enzyme: Option<PathBuf>,
    /// The clang that loads the Enzyme plugin (its LLVM version).
    #[arg(long, value_name = "CLANG", default_value = "clang-16")]
    enzyme_clang: String,
}

#[derive(clap::Subcommand)]
enum Subcommand {
    /// A suite of programs (samples, proxy-app ports, your own files),
    /// primal and gradient, parc against gcc: the tables, CSV/JSON and SVG
    /// plots of `parc bench` (see bench/README.md)
    Suite(suite::SuiteArgs),
}

/// The workers (threads) of the parallel configurations.
const WORKERS: usize = 2;

/// How tables 2 and 3 explain the range after a ratio.
const SPREAD_NOTE: &str = "In parentheses: the middle half (25th–75th percentile) of the same ratio taken repetition by repetition (the two runs of a repetition are seconds apart), which shows how much the machine's noise moves it; the verdict is on the ratio of the medians.";

/// Table 3 judges no ratio of a program whose T_1 is shorter (seconds).
const MIN_PARALLEL_SECS: f64 = 0.02;

/// The order of the tables; programs not named here follow alphabetically.
const ORDER: [&str; 7] = [
    "normalize",
    "stencil",
    "nbody",
    "matmul",
    "fib",
    "fib_serial",
    "kernel",
];

/// Runs `argv` in `cwd` with `env`, timing the whole process (spawn to
/// exit) with the wall clock ([`process::run_measured`]).
fn run_process(
    argv: &[String],
    cwd: &Path,
    env: &[(&str, String)],
    timeout: Duration,
) -> Result<process::Measured, String> {
    process::run_measured(argv, cwd, env, timeout)
}

/// Runs the build command `argv` (announcing it on stderr), which makes
/// `out`; a failure's message names the command and quotes its stderr.
fn build(argv: &[String], out: PathBuf, cwd: &Path, timeout: Duration) -> Result<PathBuf, String> {
    eprintln!("parc-bench: build {}", argv.join(" "));
    match run_process(argv, cwd, &[], timeout) {
        Ok(f) if f.success() => Ok(out),
        Ok(f) => Err(format!(
            "build failed ({}): {}\n    {}",
            f.status(),
            argv.join(" "),
            excerpt(&f.stderr)
        )),
        Err(e) => Err(format!("build failed: {}: {e}", argv.join(" "))),
    }
}

/// The first few lines of `text`, for failure messages.
fn excerpt(text: &str) -> String {
    let lines: Vec<&str> = text.lines().take(6).collect();
    let mut s = lines.join("\n    ");
    if text.lines().count() > 6 {
        s.push_str("\n    ...");
    }
    s
}

/// Runs a command, returning its trimmed stdout ("?" if it fails).
fn probe(argv: &[&str]) -> String {
    Command::new(argv[0])
        .args(&argv[1..])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "?".into())
}

/// The first three fields of /proc/loadavg: other work on the machine makes
/// every number noisier, the parallel ones most.
fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "?".into())
}

/// The names of `bench/DIR/*.pc`, in `order` and then alphabetically;
/// with `only`, just those (each must exist: `--only PREFIXNAME`).
pub(crate) fn program_names(
    root: &Path,
    dir: &str,
    order: &[&str],
    only: Option<&[String]>,
    prefix: &str,
) -> Result<Vec<String>, String> {
    let path = root.join("bench").join(dir);
    let mut names: Vec<String> = std::fs::read_dir(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".pc").map(str::to_string)
        })
        .collect();
    let rank = |n: &str| order.iter().position(|o| *o == n).unwrap_or(order.len());
    names.sort_by(|a, b| rank(a).cmp(&rank(b)).then(a.cmp(b)));
    if let Some(only) = only {
        for o in only {
            if !names.contains(o) {
                let also = if prefix.is_empty() {
                    "; and grad, grad/NAME"
                } else {
                    ""
                };
                return Err(format!(
                    "--only {prefix}{o}: no bench/{dir}/{o}.pc (there are: {}{also})",
                    names.join(", ")
                ));
            }
        }
        names.retain(|n| only.contains(n));
    }
    Ok(names)
}

/// The benchmark programs, in table order.
/// `only`: `None` for all of them.
fn load_programs(
    root: &Path,
    quick: bool,
    only: Option<&[String]>,
) -> Result<Vec<Program>, String> {
    let names = program_names(root, "programs", &ORDER, only, "")?;
    let mut programs = Vec::new();
    for name in names {
        let path = format!("bench/programs/{name}.pc");
        let source = std::fs::read_to_string(root.join(&path))
            .map_err(|e| format!("cannot read {path}: {e}"))?;
        let full = directive(&source, "args").unwrap_or_default();
        let args = if quick {
            directive(&source, "quick-args").unwrap_or(full)
        } else {
            full
        };
        // normalize's growth: the same program at half the size
        let half_args = (name == "normalize")
            .then(|| args.first()?.parse::<u64>().ok())
            .flatten()
            .map(|n| {
                let mut a = args.clone();
                a[0] = (n / 2).to_string();
                a
            });
        // the kinds of parallelism, from the code without `//` comments
        let code: String = source
            .lines()
            .map(|l| l.split_once("//").map_or(l, |(code, _)| code))
            .collect::<Vec<_>>()
            .join("\n");
        programs.push(Program {
            lines: source.lines().count(),
            bytes: source.len(),
            kernels: code.contains("__global__"),
            parallel_for: code.contains("parallel_for"),
            spawns: code.contains("spawn "),
            omp_peer: Some(format!("bench/peers/{name}.omp.c"))
                .filter(|peer| root.join(peer).is_file()),
            name,
            path,
            args,
            half_args,
        });
    }
    Ok(programs)
}

/// Builds `parc` (and the runtime library it links) in release mode, in the
/// target directory this binary was built in.
fn build_parc(root: &Path) -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    eprintln!("parc-bench: building parc: cargo build --release -p parc -p parc-runtime");
    let status = Command::new(&cargo)
        .args(["build", "--release", "-p", "parc", "-p", "parc-runtime"])
        .current_dir(root)
        .status()
        .map_err(|e| format!("cannot run {cargo}: {e}"))?;
    if !status.success() {
        return Err(format!(
            "`cargo build --release -p parc -p parc-runtime` failed ({status}); fix the build or pass `--parc PATH`"
        ));
    }
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => root.join(dir),
        None => root.join("target"),
    };
    let parc = target.join("release").join("parc");
    if parc.is_file() {
        Ok(parc)
    } else {
        Err(format!("built parc, but {} is not there", parc.display()))
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(spec) = &cli.generate {
        return match scaling::parse_generate(spec) {
            Ok((shape, n)) => {
                print!("{}", scaling::generate(shape, n).source);
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("parc-bench: error: {e}");
                ExitCode::from(2)
            }
        };
    }
    // the workspace root: the current directory when it has the programs
    // (a copied binary), else where this crate was compiled
    let root = std::env::current_dir()
        .ok()
        .filter(|d| d.join("bench/programs").is_dir())
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .parent()
                .expect("bench/ is inside the workspace")
                .to_path_buf()
        });
    if let Some(Subcommand::Suite(args)) = cli.command {
        return suite::run(&root, args);
    }
    // The 2-worker medians of tables 2, 3 and 6 are the noisiest figures
    // (a neighbour's burst on either core stretches a whole run): over
    // five repetitions, the same build's T_1/T_2 moved by up to 0.25
    // between runs on the 2-vCPU machine, so those tables take nine. The
    // gradient tables, whose targets are ratios of 1-worker runs with a
    // wider margin, keep five: they take twice as long per repetition.
    let reps = cli.reps.unwrap_or(if cli.quick { 3 } else { 9 }).max(1);
    let grad_reps = cli
        .grad_reps
        .or(cli.reps)
        .unwrap_or(if cli.quick { 3 } else { 5 })
        .max(1);
    // `--only`: names of bench/programs, `grad`, `grad/NAME`, `scaling`,
    // `scaling/SHAPE`
    let (only_main, only_grad, only_scaling) = if cli.only.is_empty() {
        (None, None, None)
    } else {
        let o = split_only(&cli.only);
        (Some(o.main), o.grad, o.scaling)
    };
    let programs = match load_programs(&root, cli.quick, only_main.as_deref()) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("parc-bench: error: {e}");
            return ExitCode::from(2);
        }
    };
    let grad_programs = match grad::load(&root, cli.quick, only_grad.as_deref()) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("parc-bench: error: {e}");
            return ExitCode::from(2);
        }
    };
    let parc = match &cli.parc {
        Some(p) => std::path::absolute(p).unwrap_or_else(|_| p.clone()),
        None => match build_parc(&root) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("parc-bench: error: {e}");
                return ExitCode::from(2);
            }
        },
    };
    let scratch = std::env::temp_dir().join(format!("parc-bench-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&scratch) {
        eprintln!(
            "parc-bench: error: cannot create {}: {e}",
            scratch.display()
        );
        return ExitCode::from(2);
    }
    let mut h = Harness {
        root: root.clone(),
        scratch: scratch.clone(),
        tools: Tools {
            parc,
            cc: cli.cc.clone(),
            clang: cli.clang.clone().unwrap_or_else(default_clang),
            enzyme: grad::Enzyme::find(cli.enzyme.as_deref(), &cli.enzyme_clang),
        },
        timeout: Duration::from_secs(cli.timeout.max(1)),
        reps,
        programs,
        exes: HashMap::new(),
        expected: HashMap::new(),
        results: HashMap::new(),
        failures: Vec::new(),
        load_start: loadavg(),
    };
    if !h.programs.is_empty() {
        h.build_all();
        h.run_oracles();
        h.run_all();
    }
    let rayon = h
        .program("fib")
        .and_then(|p| p.args.first()?.parse::<u32>().ok())
        .map(|n| time_rayon(n, reps));
    if let Some(Err(e)) = &rayon {
        h.failures.push(format!("rayon fib: {e}"));
    }
    let compile = time_compiles(&mut h);
    let grad = grad::run_all(
        grad_programs,
        &h.root,
        &h.scratch,
        &h.tools,
        h.timeout,
        grad_reps,
        &mut h.failures,
    );
    let scaling_reps = cli
        .scaling_reps
        .unwrap_or(if cli.quick { 1 } else { 3 })
        .max(1);
    let scaling = match scaling::run_all(
        only_scaling.as_deref(),
        cli.quick,
        scaling_reps,
        &h.tools,
        &h.scratch,
        h.timeout,
        &mut h.failures,
    ) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("parc-bench: error: {e}");
            return ExitCode::from(2);
        }
    };
    let md = render(&h, &cli, rayon.as_ref(), &compile, &grad, &scaling);
    let _ = std::fs::remove_dir_all(&scratch);
    print!("{md}");
    let out = cli
        .out
        .clone()
        .unwrap_or_else(|| root.join("bench/results.md"));
    match std::fs::write(&out, &md) {
        Ok(()) => eprintln!("parc-bench: report written to {}", out.display()),
        Err(e) => eprintln!("parc-bench: cannot write {}: {e}", out.display()),
    }
    if h.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "parc-bench: {} FAILURE(S): see the FAILURES section of the report",
            h.failures.len()
        );
        ExitCode::from(1)
    }
}
