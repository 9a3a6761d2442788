//! `parc bench` (`parc-bench suite`): a chosen set of programs (the
//! samples, the proxy-app ports, files given on the command line) run
//! primal and gradient, parc at 1 and N workers against `gcc -O2` and `gcc
//! -O2 -fopenmp` on the same source. Every run's output is verified against
//! the oracle before its time counts; the results are written as a
//! Markdown report, CSV and JSON, and three SVG plots. bench/README.md
//! ("`parc bench`") says how to read them.
//!
//! A program says how it is run with directives on its first comment lines:
//! `// bench-args:` (else `// args:`), `// bench-grad-args:` (the
//! arguments that make it compute its gradient; none: no gradient rows),
//! `// bench-quick-args:` / `// bench-grad-quick-args:` (for `--quick`),
//! `// bench-time:` / `// bench-grad-time:` (the start of an output line
//! whose last number is the program's own measurement, in seconds, which
//! then replaces the process's wall time: a proxy app times its kernel,
//! not its set-up), `// bench-grad-primal-time:` (a line of the gradient
//! run that times the primal computation of the same problem in the same
//! process: the gradient overhead is then the median of the per-run ratios
//! of the two, a paired measurement), and `// volatile: PREFIX | PREFIX`
//! (lines left out of the verification: timings, sums whose last digits
//! depend on the order of parallel accumulation).
//!
//! `--original NAME=EXE` times an original application (the C code a port
//! was written from, built by the user) beside the port, on the port's
//! primal arguments, at 1 and N threads: its output must equal the port's
//! oracle's less the lines `// bench-original-volatile:` names (and, at N
//! threads, `// bench-original-parallel-volatile:`: sums an OpenMP build
//! adds in another order); `// bench-original-threads-flag: -t` names the
//! flag that sets its thread count (else only `OMP_NUM_THREADS` does).

mod entries;
mod plots;
mod results;

use crate::process::run_measured;
use crate::report::{fmt_ms, median};
use crate::{build_parc, cpu_model, excerpt, loadavg, probe};
use clap::Args;
use entries::{Entry, load_entries, with_threads};
use indicatif::{ProgressBar, ProgressStyle};
use plots::plots;
use results::ratio;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct SuiteArgs {
    /// ParC programs to benchmark (`.pc`), besides --ports and --samples.
    files: Vec<PathBuf>,
    /// The proxy-app ports: samples/lulesh, samples/xsbench, samples/rsbench.
    #[arg(long)]
    ports: bool,
    /// Every samples/*.pc.
    #[arg(long)]
    samples: bool,
    /// Workers (threads) of the parallel configurations.
    #[arg(long, value_name = "N", default_value_t = 2)]
    workers: usize,
    /// Timed repetitions of every configuration (round-robin).
    #[arg(long, value_name = "N", default_value_t = 5)]
    reps: usize,
    /// The programs' `bench-quick-args` and 2 repetitions: a smoke test.
    #[arg(long)]
    quick: bool,
    /// Where the report, the data and the plots go.
    #[arg(long, value_name = "DIR", default_value = "bench/suite")]
    out_dir: PathBuf,
    /// Use this parc binary instead of building it with cargo.
    #[arg(long, value_name = "PATH")]
    parc: Option<PathBuf>,
    /// The C compiler to compare with.
    #[arg(long, default_value = "gcc")]
    cc: String,
    /// Kill a run after this many seconds (a hang is a failure).
    #[arg(long, value_name = "SECS", default_value_t = 600)]
    timeout: u64,
    /// Time an original application beside the port NAME, on the port's
    /// arguments, at 1 and N threads (e.g. `lulesh=/tmp/LULESH/lulesh2.0`;
    /// repeatable). Its output must match the port's.
    #[arg(long = "original", value_name = "NAME=EXE")]
    originals: Vec<String>,
    /// Run program NAME's primal with these arguments instead of its
    /// `bench-args` (e.g. `lulesh=-s 20`; repeatable).
    #[arg(long = "args", value_name = "NAME=ARGS")]
    primal_args: Vec<String>,
    /// Run program NAME's gradient with these arguments instead of its
    /// `bench-grad-args` (repeatable).
    #[arg(long = "grad-args", value_name = "NAME=ARGS")]
    grad_args: Vec<String>,
}

/// The proxy-app ports, as `samples/P/P.pc`.
const PORTS: [&str; 3] = ["lulesh", "xsbench", "rsbench"];

/// Relative tolerance for numbers in a gradient run's output (gradients
/// are sums whose order parallel accumulation changes).
const GRAD_TOLERANCE: f64 = 1e-5;

/// What a run computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Mode {
    Primal,
    Grad,
}

impl Mode {
    fn label(self) -> &'static str {
        match self {
            Mode::Primal => "primal",
            Mode::Grad => "grad",
        }
    }
}

/// A build and the environment it runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Config {
    /// `gcc -O2`, the serial projection (the primal oracle).
    Gcc,
    /// `gcc -O2 -fopenmp` on N threads.
    GccOmp,
    /// `parc build --O2` on 1 worker.
    Parc1,
    /// `parc build --O2` on N workers.
    ParcN,
    /// `parc build --O0 --serial`, or the program's `// bench-oracle:`
    /// flags (the oracle of gradient runs, and of primal runs gcc cannot
    /// build).
    ParcOracle,
    /// The original application (`--original`) on 1 thread.
    Orig1,
    /// The original application on N threads.
    OrigN,
}

impl Config {
    fn label(self, workers: usize) -> String {
        match self {
            Config::Gcc => "gcc".into(),
            Config::GccOmp => format!("gcc-omp{workers}"),
            Config::Parc1 => "parc-1w".into(),
            Config::ParcN => format!("parc-{workers}w"),
            Config::ParcOracle => "parc-oracle".into(),
            Config::Orig1 => "original-1t".into(),
            Config::OrigN => format!("original-{workers}t"),
        }
    }

    fn threads(self, workers: usize) -> usize {
        match self {
            Config::GccOmp | Config::ParcN | Config::OrigN => workers,
            _ => 1,
        }
    }
}

/// Whether `line` starts (after indentation) with one of the prefixes.
fn is_volatile(line: &str, volatile: &[String]) -> bool {
    volatile
        .iter()
        .any(|v| line.trim_start().starts_with(v.as_str()))
}

/// The output without volatile lines.
fn stable(stdout: &str, volatile: &[String]) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| !is_volatile(l, volatile))
        .map(str::to_string)
        .collect()
}

/// Whether `got` matches `want`: the same lines, word for word, except that
/// with a tolerance, words that are both numbers may differ by that much
/// (relative). Returns the first differing line pair otherwise.
fn same_output(want: &[String], got: &[String], tolerance: Option<f64>) -> Result<(), String> {
    let close = |a: &str, b: &str| -> bool {
        if a == b {
            return true;
        }
        let (Some(tol), Ok(x), Ok(y)) = (tolerance, a.parse::<f64>(), b.parse::<f64>()) else {
            return false;
        };
        (x - y).abs() <= tol * x.abs().max(y.abs()) + 1e-300
    };
    for (i, (w, g)) in want.iter().zip(got).enumerate() {
        let (ww, gw): (Vec<&str>, Vec<&str>) = (
            w.split_whitespace().collect(),
            g.split_whitespace().collect(),
        );
        if ww.len() != gw.len() || !ww.iter().zip(&gw).all(|(a, b)| close(a, b)) {
            return Err(format!("line {}: expected `{w}`, got `{g}`", i + 1));
        }
    }
    if want.len() != got.len() {
        return Err(format!("{} lines, expected {}", got.len(), want.len()));
    }
    Ok(())
}

/// The last number on the first line that starts with `prefix`.
fn reported_seconds(stdout: &str, prefix: &str) -> Option<f64> {
    let line = stdout
        .lines()
        .find(|l| l.trim_start().starts_with(prefix))?;
    line.split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == '=' || c == ',')
        .filter_map(|w| w.parse::<f64>().ok())
        .next_back()
}

/// The samples of one (program, mode, config).
#[derive(Default, Clone)]
struct Samples {
    /// The measured times: the program's own, where it reports one, else
    /// the process's wall time.
    times: Vec<f64>,
    /// Whole-process wall times.
    wall: Vec<f64>,
    /// Gradient runs of a program with `bench-grad-primal-time`: the
    /// primal time the same run printed, one per entry of `times`.
    paired_primal: Vec<f64>,
    /// Peak resident memory of each run, KiB.
    rss: Vec<u64>,
    failure: Option<String>,
}

type Key = (String, Mode, Config);

/// An oracle run: its exit status and its output's stable lines.
type Oracle = (i32, Vec<String>);

/// (program, primal T_1/T_N, gradient T_1/T_N, gcc T_serial/T_ompN).
type Speedups = (String, Option<f64>, Option<f64>, Option<f64>);

struct Suite {
    root: PathBuf,
    scratch: PathBuf,
    parc: PathBuf,
    cc: String,
    workers: usize,
    timeout: Duration,
    entries: Vec<Entry>,
    exes: HashMap<(String, Mode, Config), Result<PathBuf, String>>,
    /// The oracle's exit status and stable output lines, per (program, mode).
    expected: HashMap<(String, Mode), Result<Oracle, String>>,
    results: HashMap<Key, Samples>,
    failures: Vec<String>,
    progress: ProgressBar,
}

impl Suite {
    /// The executable of a configuration, built once: gcc's from the
    /// source through the prelude, parc's with `--O2` (both modes run the
    /// same executable), the oracle's with `--O0 --serial` (or the program's `bench-oracle`).
    fn build(&mut self, e: usize, config: Config) -> Result<PathBuf, String> {
        if let Config::Orig1 | Config::OrigN = config {
            // built by the user
            return self.entries[e]
                .original
                .clone()
                .ok_or_else(|| "no original (--original)".to_string());
        }
        let build = match config {
            Config::ParcN => Config::Parc1,
            Config::GccOmp => Config::GccOmp,
            c => c,
        };
        let name = self.entries[e].name.clone();
        let key = (name.clone(), Mode::Primal, build);
        if let Some(r) = self.exes.get(&key) {
            return r.clone();
        }
        let out = self
            .scratch
            .join(format!("{}.{}", name.replace('/', "_"), build.label(1)));
        let src = self.entries[e].path.display().to_string();
        let mut argv: Vec<String> = match build {
            Config::Gcc | Config::GccOmp => {
                let mut v = vec![self.cc.clone(), "-O2".into(), "-fwrapv".into()];
                if build == Config::GccOmp {
                    v.push("-fopenmp".into());
                }
                let prelude = self.root.join("include/parc.h").display().to_string();
                v.extend(["-include".into(), prelude, "-x".into(), "c".into(), src]);
                v.push("-lm".into());
                v
            }
            Config::ParcOracle => {
                let mut v = vec![self.parc.display().to_string(), "build".into()];
                v.extend(self.entries[e].oracle_flags.iter().cloned());
                v.push(src);
                v
            }
            _ => vec![
                self.parc.display().to_string(),
                "build".into(),
                "--O2".into(),
                src,
            ],
        };
        argv.extend(["-o".into(), out.display().to_string()]);
        self.progress
            .set_message(format!("build {name} ({})", build.label(self.workers)));
        let result = match run_measured(&argv, &self.root, &[], self.timeout) {
            Ok(f) if f.code == 0 => Ok(out),
            Ok(f) => Err(format!(
                "build failed (status {}): {}\n    {}",
                f.code,
                argv.join(" "),
                excerpt(&f.stderr)
            )),
            Err(err) => Err(format!("build failed: {}: {err}", argv.join(" "))),
        };
        self.progress.inc(1);
        self.exes.insert(key, result.clone());
        result
    }

    fn env(&self, config: Config) -> [(&'static str, String); 2] {
        let n = config.threads(self.workers).to_string();
        [("PARC_NUM_THREADS", n.clone()), ("OMP_NUM_THREADS", n)]
    }

    fn argv(&self, exe: &Path, e: usize, mode: Mode, config: Config) -> Vec<String> {
        let entry = &self.entries[e];
        let mut argv = vec![exe.display().to_string()];
        match (config, &entry.original_threads_flag) {
            (Config::Orig1 | Config::OrigN, Some(flag)) => argv.extend(with_threads(
                entry.args(mode),
                flag,
                config.threads(self.workers),
            )),
            _ => argv.extend(entry.args(mode).iter().cloned()),
        }
        argv
    }

    /// The oracle's exit status and stable output, once per (program, mode).
    fn oracle(&mut self, e: usize, mode: Mode) {
        let config = self.entries[e].oracle(mode);
        let name = self.entries[e].name.clone();
        let built = self.build(e, config);
        self.progress.set_message(format!(
            "oracle {name} {} ({})",
            mode.label(),
            config.label(self.workers)
        ));
        let result = built.and_then(|exe| {
            let argv = self.argv(&exe, e, mode, config);
            let f = run_measured(&argv, &self.root, &self.env(config), self.timeout)?;
            if f.stdout.trim().is_empty() {
                return Err(format!(
                    "the oracle ({}) printed nothing (status {}): {}",
                    config.label(self.workers),
                    f.code,
                    excerpt(&f.stderr)
                ));
            }
            Ok((f.code, stable(&f.stdout, &self.entries[e].volatile)))
        });
        self.progress.inc(1);
        if let Err(err) = &result {
            self.failures
                .push(format!("{name} {}: {err}", mode.label()));
        }
        self.expected.insert((name, mode), result);
    }

    /// One timed run: its time counts only if it exits as the oracle did
    /// and prints what the oracle printed.
    fn run_one(&mut self, e: usize, mode: Mode, config: Config) {
        let name = self.entries[e].name.clone();
        let key = (name.clone(), mode, config);
        if self.results.get(&key).is_some_and(|s| s.failure.is_some()) {
            self.progress.inc(1);
            return;
        }
        let label = config.label(self.workers);
        self.progress
            .set_message(format!("{name} {} {label}", mode.label()));
        let built = self.build(e, config);
        let outcome = built.and_then(|exe| {
            let (status, want) = match self.expected.get(&(name.clone(), mode)) {
                Some(Ok(x)) => x.clone(),
                _ => return Err("no oracle output".to_string()),
            };
            let argv = self.argv(&exe, e, mode, config);
            let f = run_measured(&argv, &self.root, &self.env(config), self.timeout)?;
            let entry = &self.entries[e];
            let extra = entry.extra_volatile(config);
            let want: Vec<String> = want
                .into_iter()
                .filter(|l| !is_volatile(l, &extra))
                .collect();
            let volatile: Vec<String> = entry.volatile.iter().chain(&extra).cloned().collect();
            if f.code != status {
                return Err(format!(
                    "exit status {} (the oracle's: {status}): {}",
                    f.code,
                    excerpt(&f.stderr)
                ));
            }
            let tolerance = (mode == Mode::Grad).then_some(GRAD_TOLERANCE);
            same_output(&want, &stable(&f.stdout, &volatile), tolerance)
                .map_err(|d| format!("OUTPUT MISMATCH with the oracle: {d}"))?;
            let time = match entry.time_line(mode) {
                Some(prefix) => reported_seconds(&f.stdout, prefix).ok_or_else(|| {
                    format!("no line starting with `{prefix}` and a number (bench-time)")
                })?,
                None => f.wall,
            };
            let paired = match (mode, &entry.grad_primal_time) {
                (Mode::Grad, Some(prefix)) => {
                    Some(reported_seconds(&f.stdout, prefix).ok_or_else(|| {
                        format!(
                            "no line starting with `{prefix}` and a number (bench-grad-primal-time)"
                        )
                    })?)
                }
                _ => None,
            };
            Ok((time, paired, f.wall, f.max_rss_kib))
        });
        self.progress.inc(1);
        let samples = self.results.entry(key).or_default();
        match outcome {
            Ok((time, paired, wall, rss)) => {
                samples.times.push(time);
                samples.paired_primal.extend(paired);
                samples.wall.push(wall);
                samples.rss.push(rss);
            }
            Err(err) => {
                self.progress
                    .println(format!("{name} {} {label}: FAILED: {err}", mode.label()));
                self.failures.push(format!(
                    "{name} {} [{label}, args {}]: {err}",
                    mode.label(),
                    self.entries[e].args(mode).join(" ")
                ));
                samples.failure = Some(err);
            }
        }
    }

    fn med(&self, name: &str, mode: Mode, config: Config) -> Option<f64> {
        let s = self.results.get(&(name.to_string(), mode, config))?;
        if s.failure.is_some() {
            return None;
        }
        median(&s.times)
    }

    /// T_grad / T_primal on `config`: the median of the per-run ratios of
    /// a gradient run's two times where the program times its primal in
    /// the gradient run, else the ratio of the two modes' medians.
    fn overhead(&self, e: &Entry, config: Config) -> Option<f64> {
        if e.grad_primal_time.is_none() {
            return ratio(
                self.med(&e.name, Mode::Grad, config),
                self.med(&e.name, Mode::Primal, config),
            );
        }
        let s = self.results.get(&(e.name.clone(), Mode::Grad, config))?;
        if s.failure.is_some() || s.paired_primal.len() != s.times.len() {
            return None;
        }
        let ratios: Vec<f64> = s
            .times
            .iter()
            .zip(&s.paired_primal)
            .filter_map(|(&g, &p)| ratio(Some(g), Some(p)))
            .collect();
        median(&ratios)
    }

    /// The primal time of a gradient run where the program reports one.
    fn paired_primal(&self, e: &Entry, config: Config) -> Option<f64> {
        let s = self.results.get(&(e.name.clone(), Mode::Grad, config))?;
        if s.failure.is_some() {
            return None;
        }
        median(&s.paired_primal)
    }

    /// The primal time the gradient table shows beside the gradient's:
    /// the one measured in the gradient runs where the program reports it.
    fn grad_primal_cell(&self, e: &Entry, config: Config) -> String {
        if e.grad_primal_time.is_none() {
            return self.cell(&e.name, Mode::Primal, config);
        }
        match self.results.get(&(e.name.clone(), Mode::Grad, config)) {
            Some(s) if s.failure.is_some() => "**FAILED**".into(),
            Some(_) => self
                .paired_primal(e, config)
                .map(fmt_ms)
                .unwrap_or_else(|| "-".into()),
            None => "-".into(),
        }
    }

    fn peak_rss(&self, name: &str, mode: Mode, config: Config) -> Option<u64> {
        let s = self.results.get(&(name.to_string(), mode, config))?;
        if s.failure.is_some() {
            return None;
        }
        s.rss.iter().copied().max()
    }

    fn cell(&self, name: &str, mode: Mode, config: Config) -> String {
        match self.results.get(&(name.to_string(), mode, config)) {
            Some(s) if s.failure.as_deref().is_some_and(|f| f.contains("MISMATCH")) => {
                "**MISMATCH**".into()
            }
            Some(s) if s.failure.is_some() => "**FAILED**".into(),
            Some(s) => median(&s.times).map(fmt_ms).unwrap_or_else(|| "-".into()),
            None => "-".into(),
        }
    }
}

pub fn run(root: &Path, args: SuiteArgs) -> ExitCode {
    let reps = if args.quick { 2 } else { args.reps.max(1) };
    let workers = args.workers.max(1);
    let entries = match load_entries(root, &args) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("parc bench: error: {e}");
            return ExitCode::from(2);
        }
    };
    let parc = match &args.parc {
        Some(p) => std::path::absolute(p).unwrap_or_else(|_| p.clone()),
        None => match build_parc(root) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("parc bench: error: {e}");
                return ExitCode::from(2);
            }
        },
    };
    let scratch = std::env::temp_dir().join(format!("parc-bench-suite-{}", std::process::id()));
    let out_dir = if args.out_dir.is_absolute() {
        args.out_dir.clone()
    } else {
        root.join(&args.out_dir)
    };
    for dir in [&scratch, &out_dir] {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("parc bench: error: cannot create {}: {e}", dir.display());
            return ExitCode::from(2);
        }
    }

    // Every step the bar counts: builds, oracle runs, timed runs.
    let mut steps = 0u64;
    for e in &entries {
        steps += if e.gcc { 3 } else { 1 } + e.grad_args.is_some() as u64;
        for mode in e.modes() {
            steps += 1 + (reps * e.configs(mode).len()) as u64;
        }
    }
    let progress = ProgressBar::new(steps);
    progress.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed_precise} {wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let load_start = loadavg();
    let started = Instant::now();
    let mut suite = Suite {
        root: root.to_path_buf(),
        scratch: scratch.clone(),
        parc,
        cc: args.cc.clone(),
        workers,
        timeout: Duration::from_secs(args.timeout),
        entries,
        exes: HashMap::new(),
        expected: HashMap::new(),
        results: HashMap::new(),
        failures: Vec::new(),
        progress,
    };

    // Builds, then the oracles, then the timed runs round-robin: rep 1 of
    // everything, then rep 2, ... (slow drifts of the machine hit all
    // configurations alike).
    let mut jobs = Vec::new();
    for e in 0..suite.entries.len() {
        for mode in suite.entries[e].modes() {
            suite.oracle(e, mode);
            for config in suite.entries[e].configs(mode) {
                if let Err(err) = suite.build(e, config) {
                    let name = suite.entries[e].name.clone();
                    suite.failures.push(format!("{name}: {err}"));
                }
                jobs.push((e, mode, config));
            }
        }
    }
    for _ in 0..reps {
        for &(e, mode, config) in &jobs {
            suite.run_one(e, mode, config);
        }
    }
    suite.progress.finish_and_clear();

    let figures = suite.figures();
    let load_end = loadavg();
    let rev = probe(&[
        "git",
        "-C",
        &root.display().to_string(),
        "rev-parse",
        "--short",
        "HEAD",
    ]);
    let date = probe(&["date", "-u", "+%Y-%m-%d %H:%M UTC"]);
    let nproc = probe(&["nproc"]);
    let mut header = String::from("# parc bench\n\n");
    let _ = writeln!(
        header,
        "Machine: {nproc} CPUs ({}). Date: {date}. parc: {} (git {rev}). Load average at start: {load_start}; at end: {load_end}. {reps} repetitions per configuration, {workers} workers in the parallel ones; {:.0} s in all.",
        cpu_model(),
        suite.parc.display(),
        started.elapsed().as_secs_f64()
    );
    let wait_policy = std::env::var("OMP_WAIT_POLICY")
        .unwrap_or_else(|_| "unset (libgomp spins, then sleeps)".into());
    let _ = writeln!(
        header,
        "\nOMP_WAIT_POLICY (gcc's OpenMP builds and the originals): {wait_policy}."
    );
    let _ = writeln!(
        header,
        "\nEvery timed run printed what the oracle printed (gcc -O2's serial build for primal runs, `parc build --O0 --serial`, or the flags of the program's `// bench-oracle:`, for gradients and for programs gcc cannot build; numbers in gradient output within {GRAD_TOLERANCE:e} relative), less the lines its `// volatile:` directive names. Times are medians; \"time\" says whether they are the program's own measurement (the last number on the named output line) or the whole process's wall time. Compare only within one report: the machine's load moves every number, the parallel ones most."
    );
    let report = suite.report(&header, &figures);
    let meta = serde_json::json!({
        "date": date, "git": rev, "cpus": nproc, "cpu": cpu_model(),
        "load_start": load_start, "load_end": load_end, "reps": reps, "workers": workers,
    });
    let json = suite.json(meta, &figures);
    let mut written = Vec::new();
    let mut write = |name: &str, text: String| {
        let path = out_dir.join(name);
        match std::fs::write(&path, text) {
            Ok(()) => written.push(path),
            Err(e) => eprintln!("parc bench: cannot write {}: {e}", path.display()),
        }
    };
    write("results.md", report.clone());
    write("results.csv", suite.csv());
    write(
        "results.json",
        serde_json::to_string_pretty(&json).unwrap_or_default(),
    );
    match plots(&out_dir, &figures, workers) {
        Ok(paths) => written.extend(paths),
        Err(e) => eprintln!("parc bench: {e}"),
    }
    print!("{report}");
    eprintln!(
        "parc bench: wrote {}",
        written
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = std::fs::remove_dir_all(&scratch);
    if suite.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

#[cfg(test)]
mod tests {
    use super::entries::{directive_text, named_values, words};
    use super::*;

    #[test]
    fn reported_seconds_takes_the_last_number() {
        let out = "Runtime:     0.959 seconds\nGrind time (us/z/c)  =  4.3008437 (per dom)  ( 108.22643 overall)\n";
        assert_eq!(reported_seconds(out, "Runtime:"), Some(0.959));
        assert_eq!(reported_seconds(out, "Grind time"), Some(108.22643));
        assert_eq!(reported_seconds(out, "FOM"), None);
    }

    #[test]
    fn outputs_compare_numbers_within_the_tolerance() {
        let a = vec!["sum = 1.000000e+00 (3 entries)".to_string()];
        let b = vec!["sum = 1.000001e+00 (3 entries)".to_string()];
        assert!(same_output(&a, &b, None).is_err());
        assert!(same_output(&a, &b, Some(1e-5)).is_ok());
        let c = vec!["sum = 1.000001e+00 (4 entries)".to_string()];
        assert!(same_output(&a, &c, Some(1e-5)).is_err());
        assert!(same_output(&a, &[], Some(1e-5)).is_err());
    }

    #[test]
    fn an_originals_thread_count_replaces_or_follows_its_flag() {
        let args = words("-s small -t 1 -m event");
        assert_eq!(
            with_threads(&args, "-t", 2),
            words("-s small -t 2 -m event")
        );
        assert_eq!(
            with_threads(&words("-s small"), "-t", 2),
            words("-s small -t 2")
        );
    }

    #[test]
    fn named_values_need_a_name_once() {
        let ok = named_values("args", &["lulesh=-s 20".to_string()]).expect("parses");
        assert_eq!(ok.get("lulesh").map(String::as_str), Some("-s 20"));
        assert!(named_values("args", &["lulesh".to_string()]).is_err());
        assert!(named_values("args", &["a=1".to_string(), "a=2".to_string()]).is_err());
    }

    #[test]
    fn volatile_lines_are_left_out() {
        let v = vec!["Runtime:".to_string()];
        assert_eq!(
            stable("a\n  Runtime: 1 s\nb\n", &v),
            vec!["a".to_string(), "b".to_string()]
        );
    }

    #[test]
    fn directives_are_read_from_the_header() {
        let src = "// x\n// bench-args: -s 30\n//\n// volatile: A | B\n\nint main() {}\n// bench-time: no\n";
        assert_eq!(directive_text(src, "bench-args").as_deref(), Some("-s 30"));
        assert_eq!(directive_text(src, "volatile").as_deref(), Some("A | B"));
        assert_eq!(directive_text(src, "bench-time"), None);
    }
}
