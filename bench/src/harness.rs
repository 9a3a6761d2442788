//! The harness of tables 1–6: the programs of `bench/programs` and their
//! directives, the tools, the builds, the oracle runs that every timed
//! run's output must equal, and the samples of each configuration.

use crate::configs::{Build, Config, Size};
use crate::report::{fmt_ms, fmt_ratio, median, paired_ratios, quartiles};
use crate::{excerpt, grad, run_process};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub(crate) struct Program {
    pub(crate) name: String,
    /// Relative to the workspace root (commands run there).
    pub(crate) path: String,
    pub(crate) lines: usize,
    pub(crate) bytes: usize,
    pub(crate) args: Vec<String>,
    pub(crate) half_args: Option<Vec<String>>,
    pub(crate) kernels: bool,
    pub(crate) parallel_for: bool,
    pub(crate) spawns: bool,
    /// `bench/peers/NAME.omp.c`, if it exists: the program written with
    /// OpenMP tasks, which the `gcc-omp2` configuration builds instead of
    /// the prelude's projection (the prelude cannot make `x = spawn f(a);`
    /// a task).
    pub(crate) omp_peer: Option<String>,
}

impl Program {
    pub(crate) fn args(&self, size: Size) -> &[String] {
        match size {
            Size::Main => &self.args,
            Size::Half => self.half_args.as_deref().unwrap_or(&self.args),
        }
    }

    pub(crate) fn configs(&self) -> Vec<Config> {
        Config::ALL
            .into_iter()
            .filter(|c| !(self.kernels && c.needs_c_compiler()))
            .collect()
    }

    pub(crate) fn oracle(&self) -> Build {
        if self.kernels {
            Build::ParcO0Serial
        } else {
            Build::Gcc
        }
    }

    pub(crate) fn kind(&self) -> &'static str {
        match (self.kernels, self.parallel_for, self.spawns) {
            (true, _, _) => "kernel launches",
            (_, true, true) => "parallel_for + spawn",
            (_, true, false) => "parallel_for",
            (_, false, true) => "spawn/sync",
            _ => "serial",
        }
    }
}

pub(crate) struct Tools {
    pub(crate) parc: PathBuf,
    pub(crate) cc: String,
    pub(crate) clang: String,
    /// The gradient tables' clang+Enzyme peer, or why it is skipped.
    pub(crate) enzyme: Result<grad::Enzyme, String>,
}

/// `clang` if it is on the PATH, else the newest `clang-N` (Debian installs
/// versioned names), else `clang` (whose builds then fail visibly).
pub(crate) fn default_clang() -> String {
    let on_path = |name: &str| {
        std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(name).is_file()))
    };
    std::iter::once("clang".to_string())
        .chain((11..=21).rev().map(|n| format!("clang-{n}")))
        .find(|c| on_path(c))
        .unwrap_or_else(|| "clang".into())
}

/// The samples of one timed configuration.
#[derive(Default)]
pub(crate) struct Samples {
    pub(crate) times: Vec<f64>,
    /// Why a run (or the build) failed: a wrong output, a bad status, a
    /// timeout. One failure poisons the cell.
    pub(crate) failure: Option<String>,
}

pub(crate) type Key = (String, Config, Size);

pub(crate) struct Harness {
    pub(crate) root: PathBuf,
    pub(crate) scratch: PathBuf,
    pub(crate) tools: Tools,
    pub(crate) timeout: Duration,
    pub(crate) reps: usize,
    pub(crate) programs: Vec<Program>,
    /// Built executables, or why the build failed.
    pub(crate) exes: HashMap<(String, Build), Result<PathBuf, String>>,
    /// The oracle's stdout per (program, size).
    pub(crate) expected: HashMap<(String, Size), Result<String, String>>,
    pub(crate) results: HashMap<Key, Samples>,
    pub(crate) failures: Vec<String>,
    pub(crate) load_start: String,
}

impl Harness {
    pub(crate) fn exe(&self, prog: &str, build: Build) -> Result<&Path, String> {
        match self.exes.get(&(prog.to_string(), build)) {
            Some(Ok(p)) => Ok(p),
            Some(Err(e)) => Err(e.clone()),
            None => Err(format!("{prog} was not built with {build:?}")),
        }
    }

    fn builds_needed(&self) -> Vec<(usize, Build)> {
        let mut v = Vec::new();
        for (i, p) in self.programs.iter().enumerate() {
            let mut builds: Vec<Build> = p.configs().iter().map(|c| c.build()).collect();
            builds.push(p.oracle());
            builds.dedup();
            for b in builds {
                if !v.contains(&(i, b)) {
                    v.push((i, b));
                }
            }
        }
        v
    }

    pub(crate) fn build_all(&mut self) {
        for (i, build) in self.builds_needed() {
            let p = &self.programs[i];
            let out = self.scratch.join(format!("{}.{}", p.name, build.suffix()));
            let out_str = out.display().to_string();
            let argv = match (build, &p.omp_peer) {
                (Build::GccOmp, Some(peer)) => Build::omp_peer_command(&self.tools, peer, &out_str),
                _ => build.command(&self.tools, &p.path, &out_str),
            };
            let result = crate::build(&argv, out, &self.root, self.timeout);
            if let Err(e) = &result {
                self.failures.push(format!("{}: {e}", p.name));
            }
            self.exes.insert((p.name.clone(), build), result);
        }
    }

    pub(crate) fn sizes(p: &Program) -> Vec<Size> {
        if p.half_args.is_some() {
            vec![Size::Main, Size::Half]
        } else {
            vec![Size::Main]
        }
    }

    /// The configurations run at a size (the half size only needs the
    /// optimization levels and gcc).
    fn configs_at(p: &Program, size: Size) -> Vec<Config> {
        p.configs()
            .into_iter()
            .filter(|c| {
                size == Size::Main
                    || matches!(
                        c,
                        Config::Gcc | Config::O0Par2 | Config::O1Par2 | Config::Par2
                    )
            })
            .collect()
    }

    /// Runs each program's oracle once per size: its stdout is what every
    /// timed run must print.
    pub(crate) fn run_oracles(&mut self) {
        for p in &self.programs {
            for size in Harness::sizes(p) {
                let oracle = p.oracle();
                let args = p.args(size);
                let result = self.exe(&p.name, oracle).and_then(|exe| {
                    let mut argv = vec![exe.display().to_string()];
                    argv.extend(args.iter().cloned());
                    eprintln!("parc-bench: oracle {}", argv.join(" "));
                    let env = [
                        ("PARC_NUM_THREADS", "1".to_string()),
                        ("OMP_NUM_THREADS", "1".to_string()),
                    ];
                    let f = run_process(&argv, &self.root, &env, self.timeout)?;
                    if !f.success() {
                        return Err(format!(
                            "oracle ({oracle:?}) exited with {}: {}",
                            f.status(),
                            excerpt(&f.stderr)
                        ));
                    }
                    if f.stdout.trim().is_empty() {
                        return Err(format!("oracle ({oracle:?}) printed nothing"));
                    }
                    if f.stdout.contains("MISMATCH") {
                        return Err(format!(
                            "oracle ({oracle:?}) reports a wrong result: {}",
                            excerpt(&f.stdout)
                        ));
                    }
                    Ok(f.stdout)
                });
                if let Err(e) = &result {
                    self.failures.push(format!("{} {:?}: {e}", p.name, size));
                }
                self.expected.insert((p.name.clone(), size), result);
            }
        }
    }

    /// One timed run of a configuration; records its time or its failure.
    pub(crate) fn run_one(&mut self, pi: usize, config: Config, size: Size) {
        let p = &self.programs[pi];
        let key = (p.name.clone(), config, size);
        let outcome = (|| {
            let expected = match self.expected.get(&(p.name.clone(), size)) {
                Some(Ok(s)) => s.clone(),
                Some(Err(_)) | None => return Err("no oracle output".to_string()),
            };
            let exe = self.exe(&p.name, config.build())?;
            let mut argv = vec![exe.display().to_string()];
            argv.extend(p.args(size).iter().cloned());
            let n = config.threads().to_string();
            let env = [("PARC_NUM_THREADS", n.clone()), ("OMP_NUM_THREADS", n)];
            let f = run_process(&argv, &self.root, &env, self.timeout)?;
            if !f.success() {
                return Err(format!(
                    "exited with {}: {}",
                    f.status(),
                    excerpt(&f.stderr)
                ));
            }
            if f.stdout != expected {
                return Err(format!(
                    "OUTPUT MISMATCH\n    expected ({:?}): {}\n    got: {}",
                    p.oracle(),
                    excerpt(&expected),
                    excerpt(&f.stdout)
                ));
            }
            Ok(f.wall)
        })();
        let samples = self.results.entry(key).or_default();
        match outcome {
            Ok(secs) => {
                eprintln!(
                    "parc-bench:   {:<11} {:<12} {:?}: {} ms",
                    p.name,
                    config.label(),
                    size,
                    fmt_ms(secs)
                );
                samples.times.push(secs);
            }
            Err(e) => {
                eprintln!(
                    "parc-bench:   {:<11} {:<12} {:?}: FAILED: {e}",
                    p.name,
                    config.label(),
                    size
                );
                if samples.failure.is_none() {
                    self.failures.push(format!(
                        "{} [{}, args {}]: {e}",
                        p.name,
                        config.label(),
                        p.args(size).join(" ")
                    ));
                    samples.failure = Some(e);
                }
            }
        }
    }

    /// Every configuration `reps` times, round-robin (rep 1 of everything,
    /// then rep 2, ...) so that slow drifts of the machine hit all alike.
    pub(crate) fn run_all(&mut self) {
        let mut jobs = Vec::new();
        for (i, p) in self.programs.iter().enumerate() {
            for size in Harness::sizes(p) {
                for c in Harness::configs_at(p, size) {
                    jobs.push((i, c, size));
                }
            }
        }
        for rep in 0..self.reps {
            eprintln!("parc-bench: repetition {}/{}", rep + 1, self.reps);
            for &(i, c, size) in &jobs {
                let key = (self.programs[i].name.clone(), c, size);
                if self.results.get(&key).is_some_and(|s| s.failure.is_some()) {
                    continue;
                }
                self.run_one(i, c, size);
            }
        }
    }

    pub(crate) fn program(&self, name: &str) -> Option<&Program> {
        self.programs.iter().find(|p| p.name == name)
    }

    /// The median time of a configuration; `None` if it failed or did not
    /// run.
    pub(crate) fn med(&self, prog: &str, config: Config, size: Size) -> Option<f64> {
        median(self.times(prog, config, size)?)
    }

    /// The times of a configuration, in repetition order; `None` if it
    /// failed or did not run.
    pub(crate) fn times(&self, prog: &str, config: Config, size: Size) -> Option<&[f64]> {
        let s = self.results.get(&(prog.to_string(), config, size))?;
        s.failure.is_none().then_some(s.times.as_slice())
    }

    /// The middle half (25th to 75th percentile) of `a / b` taken run by
    /// run within each repetition, as a cell suffix: ` (lo–hi)`; empty with
    /// fewer than 3 pairs. The two runs of a repetition are seconds apart,
    /// so this shows how far the machine's noise moves the ratio.
    pub(crate) fn spread(&self, prog: &str, a: Config, b: Config, size: Size) -> String {
        let (Some(a), Some(b)) = (self.times(prog, a, size), self.times(prog, b, size)) else {
            return String::new();
        };
        let ratios = paired_ratios(a, b);
        match quartiles(&ratios) {
            Some((lo, hi)) if ratios.len() >= 3 => {
                format!(" ({}–{})", fmt_ratio(lo), fmt_ratio(hi))
            }
            _ => String::new(),
        }
    }

    /// A table cell for a configuration's median.
    pub(crate) fn cell(&self, prog: &str, config: Config, size: Size) -> String {
        match self.results.get(&(prog.to_string(), config, size)) {
            Some(s) if s.failure.as_deref().is_some_and(|f| f.contains("MISMATCH")) => {
                "**MISMATCH**".into()
            }
            Some(s) if s.failure.is_some() => "**FAILED**".into(),
            Some(s) => median(&s.times).map(fmt_ms).unwrap_or_else(|| "-".into()),
            None => "-".into(),
        }
    }
}

pub(crate) fn ratio_cell(num: Option<f64>, den: Option<f64>) -> (String, Option<f64>) {
    match (num, den) {
        (Some(a), Some(b)) if b > 0.0 => {
            let r = a / b;
            (fmt_ratio(r), Some(r))
        }
        _ => ("-".into(), None),
    }
}
