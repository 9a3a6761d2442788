//! The gradient benchmarks: the programs of `bench/grad`, each timed in its
//! primal mode (the function called REPS times) and its gradient mode
//! (`__enzyme_autodiff` of it called REPS times), built with Enzyme's order
//! (optimize, differentiate, optimize) and with `--ad-before-opt`, on 1 and
//! 2 workers. Every timed run's stdout must equal the `--serial` build's
//! (1 worker, same mode and size), and before timing every gradient build
//! runs its `check` mode once per worker count and size: a few gradient
//! entries against central finite differences of the primal, computed by
//! the program itself. See bench/README.md, "Gradients".
//!
//! The peer column: where the Enzyme plugin for clang is found (`--enzyme`
//! or `PARC_BENCH_ENZYME`), every kernel-free program is also built by
//! clang+Enzyme from the same source through `include/parc.h`, serial and
//! with `-fopenmp`, and its gradient timed beside parc's, with the peak
//! resident memory (`ru_maxrss`) of both.

mod tables;

use crate::excerpt;
use crate::harness::{Samples, Tools};
use crate::process::run_measured;
use crate::report::{check_passed, directive, double_first, fmt_ms};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The workers of the parallel configurations.
const WORKERS: usize = crate::WORKERS;

/// The order of the tables; programs not named here follow alphabetically.
const ORDER: [&str; 10] = [
    "normalize",
    "stencil",
    "nbody",
    "matmul",
    "psum",
    "timestep",
    "mesh",
    "tree",
    "dense",
    "kernel",
];

/// The Enzyme peer: clang with Enzyme's plugin.
#[derive(Clone, Debug)]
pub struct Enzyme {
    /// `clang-16` (the plugin is built for one LLVM version).
    pub clang: String,
    /// `ClangEnzyme-16.so`.
    pub plugin: PathBuf,
}

impl Enzyme {
    /// The plugin named by `flag`, else by `$PARC_BENCH_ENZYME`; `Err` says
    /// why the peer column is skipped.
    pub fn find(flag: Option<&Path>, clang: &str) -> Result<Enzyme, String> {
        let plugin = match flag {
            Some(p) => p.to_path_buf(),
            None => match std::env::var_os("PARC_BENCH_ENZYME") {
                Some(p) if !p.is_empty() => PathBuf::from(p),
                _ => {
                    return Err(
                        "no Enzyme plugin given (--enzyme PATH or PARC_BENCH_ENZYME=PATH to ClangEnzyme-16.so; ../shared/peers.md says how to build it)"
                            .to_string(),
                    );
                }
            },
        };
        if !plugin.is_file() {
            return Err(format!(
                "the Enzyme plugin {} does not exist",
                plugin.display()
            ));
        }
        Ok(Enzyme {
            clang: clang.to_string(),
            plugin: std::path::absolute(&plugin).unwrap_or(plugin),
        })
    }
}

/// The overhead target of the issue: T_grad / T_primal ≤ 3.
const OVERHEAD_TARGET: f64 = 3.0;

pub struct GradProgram {
    pub name: String,
    /// Relative to the workspace root (commands run there).
    path: String,
    lines: usize,
    /// `// args:` (or `// quick-args:`): MODE is prepended.
    args: Vec<String>,
    /// `// abo-args:` (or `// quick-abo-args:`): smaller sizes for the
    /// `--ad-before-opt` comparison where that pipeline's gradient is
    /// asymptotically slower (normalize), also run at twice the size.
    abo_args: Option<Vec<String>>,
    kind: &'static str,
}

/// The problem size of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum GSize {
    Main,
    /// `abo-args`
    Abo,
    /// `abo-args` with the first argument doubled
    Abo2,
}

/// Ways of building a gradient program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum GBuild {
    /// `--O2`: optimize, differentiate, optimize (Enzyme's order).
    O2,
    /// `--O2 --ad-before-opt`: differentiate the unoptimized IR, optimize.
    AdBeforeOpt,
    /// `--O2 --serial`: the oracle (spawn = call, 1 worker).
    Serial,
    /// clang -O2 with the Enzyme plugin, serial.
    Enzyme,
    /// The same with `-fopenmp` (`parallel_for` as `omp parallel for`).
    EnzymeOmp,
}

impl GBuild {
    fn flags(self) -> &'static [&'static str] {
        match self {
            GBuild::O2 => &["--O2"],
            GBuild::AdBeforeOpt => &["--O2", "--ad-before-opt"],
            GBuild::Serial => &["--O2", "--serial"],
            GBuild::Enzyme => &["-O2", "-fwrapv"],
            GBuild::EnzymeOmp => &["-O2", "-fwrapv", "-fopenmp"],
        }
    }

    fn is_peer(self) -> bool {
        matches!(self, GBuild::Enzyme | GBuild::EnzymeOmp)
    }

    fn suffix(self) -> &'static str {
        match self {
            GBuild::O2 => "O2",
            GBuild::AdBeforeOpt => "abo",
            GBuild::Serial => "serial",
            GBuild::Enzyme => "enzyme",
            GBuild::EnzymeOmp => "enzyme-omp",
        }
    }

    /// The build command; `None` for a peer build without its peer.
    fn command(
        self,
        tools: &Tools,
        enzyme: Option<&Enzyme>,
        src: &str,
        out: &str,
    ) -> Option<Vec<String>> {
        let flags = self.flags().iter().map(|f| f.to_string());
        if self.is_peer() {
            let e = enzyme?;
            let mut v = vec![e.clang.clone()];
            v.extend(flags);
            v.extend([
                format!("-fplugin={}", e.plugin.display()),
                "-include".into(),
                "include/parc.h".into(),
                "-x".into(),
                "c".into(),
                src.into(),
                "-lm".into(),
                "-o".into(),
                out.into(),
            ]);
            return Some(v);
        }
        let mut v = vec![tools.parc.display().to_string(), "build".to_string()];
        v.extend(flags);
        v.extend([src, "-o", out].map(String::from));
        Some(v)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Mode {
    Primal,
    Grad,
    /// One gradient and finite differences: validation, not timed.
    Check,
}

impl Mode {
    fn arg(self) -> &'static str {
        match self {
            Mode::Primal => "primal",
            Mode::Grad => "grad",
            Mode::Check => "check",
        }
    }
}

/// A timed run: build, mode, workers, size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Run {
    build: GBuild,
    mode: Mode,
    workers: usize,
    size: GSize,
}

impl Run {
    fn label(self) -> String {
        format!(
            "{}-{}-{}w",
            self.build.suffix(),
            self.mode.arg(),
            self.workers
        )
    }
}

const fn run(build: GBuild, mode: Mode, workers: usize, size: GSize) -> Run {
    Run {
        build,
        mode,
        workers,
        size,
    }
}

impl GradProgram {
    fn args(&self, size: GSize) -> Vec<String> {
        match size {
            GSize::Main => self.args.clone(),
            GSize::Abo => self.abo_args.clone().unwrap_or_else(|| self.args.clone()),
            GSize::Abo2 => {
                let abo = self.args(GSize::Abo);
                double_first(&abo).unwrap_or(abo)
            }
        }
    }

    /// The size at which the two pipelines are compared.
    fn abo_size(&self) -> GSize {
        if self.abo_args.is_some() {
            GSize::Abo
        } else {
            GSize::Main
        }
    }

    /// Every timed run of this program (`peer`: with the Enzyme builds).
    fn runs(&self, peer: bool) -> Vec<Run> {
        use GBuild::{AdBeforeOpt as A, O2};
        use Mode::{Grad as G, Primal as P};
        let mut v = vec![
            run(O2, P, 1, GSize::Main),
            run(O2, P, WORKERS, GSize::Main),
            run(O2, G, 1, GSize::Main),
            run(O2, G, WORKERS, GSize::Main),
        ];
        if self.abo_args.is_some() {
            v.extend([
                run(O2, G, 1, GSize::Abo),
                run(O2, G, WORKERS, GSize::Abo),
                run(A, G, 1, GSize::Abo),
                run(A, G, WORKERS, GSize::Abo),
                run(O2, G, 1, GSize::Abo2),
                run(A, G, 1, GSize::Abo2),
            ]);
        } else {
            v.extend([run(A, G, 1, GSize::Main), run(A, G, WORKERS, GSize::Main)]);
        }
        if peer && self.peer_builds() {
            v.extend([
                run(GBuild::Enzyme, P, 1, GSize::Main),
                run(GBuild::Enzyme, G, 1, GSize::Main),
                run(GBuild::EnzymeOmp, G, 1, GSize::Main),
                run(GBuild::EnzymeOmp, G, WORKERS, GSize::Main),
            ]);
        }
        v
    }

    /// Whether clang can build it (no kernels).
    fn peer_builds(&self) -> bool {
        self.kind != "kernel launches"
    }
}

/// The gradient programs, in table order. `only`: `None` for all of them.
pub fn load(root: &Path, quick: bool, only: Option<&[String]>) -> Result<Vec<GradProgram>, String> {
    let names = crate::program_names(root, "grad", &ORDER, only, "grad/")?;
    let mut programs = Vec::new();
    for name in names {
        let path = format!("bench/grad/{name}.pc");
        let source = std::fs::read_to_string(root.join(&path))
            .map_err(|e| format!("cannot read {path}: {e}"))?;
        let pick = |key: &str| {
            let full = directive(&source, key);
            if quick {
                directive(&source, &format!("quick-{key}")).or(full)
            } else {
                full
            }
        };
        let Some(args) = pick("args") else {
            // not a benchmark (a kept reproducer, say)
            continue;
        };
        let code: String = source
            .lines()
            .map(|l| l.split_once("//").map_or(l, |(code, _)| code))
            .collect::<Vec<_>>()
            .join("\n");
        let kind = match (
            code.contains("<<<"),
            code.contains("parallel_for"),
            code.contains("spawn "),
        ) {
            (true, _, _) => "kernel launches",
            (_, true, true) => "parallel_for + spawn",
            (_, true, false) => "parallel_for",
            (_, false, true) => "spawn/sync",
            (false, false, false) => "serial",
        };
        programs.push(GradProgram {
            lines: source.lines().count(),
            abo_args: pick("abo-args"),
            kind,
            name,
            path,
            args,
        });
    }
    Ok(programs)
}

type Key = (String, Run);

pub struct GradResults {
    /// Repetitions of every gradient configuration.
    pub reps: usize,
    programs: Vec<GradProgram>,
    results: HashMap<Key, Samples>,
    /// Peak resident set of every timed run, KiB.
    rss: HashMap<Key, Vec<u64>>,
    /// The Enzyme peer, or why its column is skipped.
    enzyme: Result<Enzyme, String>,
}

/// A finished run: wall seconds, stdout, peak resident set (KiB).
struct Finished {
    secs: f64,
    stdout: String,
    rss_kib: u64,
}

struct Ctx<'a> {
    root: &'a Path,
    scratch: &'a Path,
    tools: &'a Tools,
    timeout: Duration,
    failures: &'a mut Vec<String>,
}

impl Ctx<'_> {
    /// Runs `exe MODE ARGS` on `workers` workers; its stdout, or why it failed.
    fn run(
        &self,
        exe: &Path,
        mode: Mode,
        args: &[String],
        workers: usize,
    ) -> Result<Finished, String> {
        let mut argv = vec![exe.display().to_string(), mode.arg().to_string()];
        argv.extend(args.iter().cloned());
        let n = workers.to_string();
        let env = [("PARC_NUM_THREADS", n.clone()), ("OMP_NUM_THREADS", n)];
        let f = run_measured(&argv, self.root, &env, self.timeout)?;
        if !f.success() {
            return Err(format!(
                "`{}` exited with status {}: {}",
                argv.join(" "),
                f.code,
                excerpt(&format!("{}{}", f.stdout, f.stderr))
            ));
        }
        Ok(Finished {
            secs: f.wall,
            stdout: f.stdout,
            rss_kib: f.max_rss_kib,
        })
    }
}

/// Builds, validates and times the gradient programs, `reps` times
/// round-robin.
pub fn run_all(
    programs: Vec<GradProgram>,
    root: &Path,
    scratch: &Path,
    tools: &Tools,
    timeout: Duration,
    reps: usize,
    failures: &mut Vec<String>,
) -> GradResults {
    let enzyme = tools.enzyme.clone();
    let peer = enzyme.as_ref().ok();
    if let (Err(why), false) = (&enzyme, programs.is_empty()) {
        eprintln!("parc-bench: the clang+Enzyme column is skipped: {why}");
    }
    let cx = Ctx {
        root,
        scratch,
        tools,
        timeout,
        failures,
    };
    let mut results: HashMap<Key, Samples> = HashMap::new();
    let mut rss: HashMap<Key, Vec<u64>> = HashMap::new();
    // ---- builds
    let mut exes: HashMap<(String, GBuild), Result<PathBuf, String>> = HashMap::new();
    for p in &programs {
        for build in [
            GBuild::Serial,
            GBuild::O2,
            GBuild::AdBeforeOpt,
            GBuild::Enzyme,
            GBuild::EnzymeOmp,
        ] {
            if build.is_peer() && !p.peer_builds() {
                continue;
            }
            let out = cx
                .scratch
                .join(format!("grad-{}.{}", p.name, build.suffix()));
            let Some(argv) = build.command(cx.tools, peer, &p.path, &out.display().to_string())
            else {
                continue;
            };
            let result = crate::build(&argv, out, cx.root, cx.timeout);
            if let Err(e) = &result {
                // A peer that cannot build a program is its cell's failure,
                // not parc's.
                if !build.is_peer() {
                    cx.failures.push(format!("grad/{}: {e}", p.name));
                }
            }
            exes.insert((p.name.clone(), build), result);
        }
    }
    let exe = |name: &str, build: GBuild| -> Result<PathBuf, String> {
        match exes.get(&(name.to_string(), build)) {
            Some(Ok(p)) => Ok(p.clone()),
            Some(Err(e)) => Err(e.clone()),
            None => Err(format!("grad/{name} was not built with {build:?}")),
        }
    };
    // ---- oracles: the serial build, 1 worker, per (mode, size)
    let mut expected: HashMap<(String, Mode, GSize), Result<String, String>> = HashMap::new();
    for p in &programs {
        for r in p.runs(peer.is_some()) {
            let key = (p.name.clone(), r.mode, r.size);
            if expected.contains_key(&key) {
                continue;
            }
            let args = p.args(r.size);
            eprintln!(
                "parc-bench: oracle grad/{} {} {}",
                p.name,
                r.mode.arg(),
                args.join(" ")
            );
            let out = exe(&p.name, GBuild::Serial).and_then(|e| {
                let stdout = cx.run(&e, r.mode, &args, 1)?.stdout;
                if stdout.trim().is_empty() {
                    return Err("the oracle printed nothing".to_string());
                }
                if stdout.contains("MISMATCH") {
                    return Err(format!(
                        "the oracle reports a wrong result: {}",
                        excerpt(&stdout)
                    ));
                }
                Ok(stdout)
            });
            if let Err(e) = &out {
                cx.failures.push(format!(
                    "grad/{} oracle ({} {}): {e}",
                    p.name,
                    r.mode.arg(),
                    args.join(" ")
                ));
            }
            expected.insert(key, out);
        }
    }
    // ---- gradient checks: every gradient build, worker count and size once
    // (and the oracle's build)
    for p in &programs {
        let mut checks: Vec<(GBuild, usize, GSize)> = Vec::new();
        for r in p
            .runs(peer.is_some())
            .into_iter()
            .filter(|r| r.mode == Mode::Grad)
        {
            for c in [(GBuild::Serial, 1, r.size), (r.build, r.workers, r.size)] {
                if !checks.contains(&c) {
                    checks.push(c);
                }
            }
        }
        for (build, workers, size) in checks {
            let args = p.args(size);
            eprintln!(
                "parc-bench: check grad/{} {} on {workers} worker(s): {}",
                p.name,
                build.suffix(),
                args.join(" ")
            );
            let outcome = exe(&p.name, build)
                .and_then(|e| cx.run(&e, Mode::Check, &args, workers))
                .and_then(|f| check_passed(&f.stdout));
            if let Err(e) = outcome {
                let why = format!("check ({} on {workers} worker(s)): {e}", build.suffix());
                let affected: Vec<Run> = p
                    .runs(peer.is_some())
                    .into_iter()
                    .filter(|r| {
                        r.mode == Mode::Grad
                            && r.size == size
                            && (build == GBuild::Serial
                                || (r.build == build && r.workers == workers))
                    })
                    .collect();
                if affected.is_empty() {
                    cx.failures.push(format!("grad/{}: {why}", p.name));
                }
                for r in affected {
                    poison(&mut results, cx.failures, (p.name.clone(), r), why.clone());
                }
            }
        }
    }
    // ---- timed runs, round-robin
    let jobs: Vec<(usize, Run)> = programs
        .iter()
        .enumerate()
        .flat_map(|(i, p)| p.runs(peer.is_some()).into_iter().map(move |r| (i, r)))
        .collect();
    for rep in 0..if jobs.is_empty() { 0 } else { reps } {
        eprintln!("parc-bench: gradients, repetition {}/{reps}", rep + 1);
        for &(i, r) in &jobs {
            let p = &programs[i];
            let key = (p.name.clone(), r);
            if results.get(&key).is_some_and(|s| s.failure.is_some()) {
                continue;
            }
            let args = p.args(r.size);
            let outcome = (|| {
                let want = match expected.get(&(p.name.clone(), r.mode, r.size)) {
                    Some(Ok(s)) => s.clone(),
                    _ => return Err("no oracle output".to_string()),
                };
                let f = cx.run(&exe(&p.name, r.build)?, r.mode, &args, r.workers)?;
                if f.stdout != want {
                    return Err(format!(
                        "OUTPUT MISMATCH\n    expected (--serial, 1 worker): {}\n    got: {}",
                        excerpt(&want),
                        excerpt(&f.stdout)
                    ));
                }
                Ok((f.secs, f.rss_kib))
            })();
            match outcome {
                Ok((secs, rss_kib)) => {
                    rss.entry(key.clone()).or_default().push(rss_kib);
                    eprintln!(
                        "parc-bench:   grad/{:<10} {:<16} {:?}: {} ms",
                        p.name,
                        r.label(),
                        r.size,
                        fmt_ms(secs)
                    );
                    results.entry(key).or_default().times.push(secs);
                }
                Err(e) => {
                    eprintln!(
                        "parc-bench:   grad/{:<10} {:<16} {:?}: FAILED: {e}",
                        p.name,
                        r.label(),
                        r.size
                    );
                    poison(&mut results, cx.failures, key, e);
                }
            }
        }
    }
    GradResults {
        reps,
        programs,
        results,
        rss,
        enzyme,
    }
}

/// Marks a timed run failed (the first reason is kept and reported). A
/// peer's failure shows in its cells and under the peer table, and does not
/// fail the harness.
fn poison(results: &mut HashMap<Key, Samples>, failures: &mut Vec<String>, key: Key, why: String) {
    let s = results.entry(key.clone()).or_default();
    if s.failure.is_some() {
        return;
    }
    if !key.1.build.is_peer() {
        failures.push(format!(
            "grad/{} [{}, {:?}]: {why}",
            key.0,
            key.1.label(),
            key.1.size
        ));
    }
    s.failure = Some(why);
}
