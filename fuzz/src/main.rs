//! `parc-fuzz`: generates random valid ParC programs and checks that every
//! configuration of parc (and gcc) runs them identically.
//!
//! ```text
//! cargo run --release -p parc-fuzz -- --count 2000 --seed 1 --keep-failures /tmp/fails
//! cargo run --release -p parc-fuzz -- --family kernel --count 500
//! cargo run --release -p parc-fuzz -- --print --family grad --seed 42     # show one program
//! ```
//!
//! Run through cargo, it first rebuilds the `parc` binary of the same
//! profile (so the native configurations test the same sources as the
//! in-process interpreter); `--parc PATH` uses a given binary instead.

use clap::Parser;
use parc_fuzz::oracle::Status;
use parc_fuzz::{Family, Oracles, Program, Verdict};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Parser)]
#[command(
    name = "parc-fuzz",
    about = "Differential testing of parc with random valid ParC programs"
)]
struct Cli {
    /// How many seeds to check (each in every family asked for).
    #[arg(long, default_value_t = 100)]
    count: u64,
    /// Which programs: `plain` (C with spawn and parallel_for, also checked
    /// against gcc), `kernel` (barriers around thread-dependent control
    /// flow), `grad` (gradients of spawn and parallel_for in loops), or
    /// `all` (each seed in all three).
    #[arg(long, default_value = "all", value_parser = parse_families)]
    family: Families,
    /// Seed of the first program; the others take the following seeds.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Save each failing program (`fuzz-SEED.pc`) and its report
    /// (`fuzz-SEED.txt`) in this directory.
    #[arg(long, value_name = "DIR")]
    keep_failures: Option<PathBuf>,
    /// Programs checked at once (default: the number of cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// The `parc` binary to test (default: the one beside this executable).
    #[arg(long, value_name = "PATH")]
    parc: Option<PathBuf>,
    /// Skip the gcc configurations.
    #[arg(long)]
    no_gcc: bool,
    /// Also run each program built with gcc's undefined-behaviour and
    /// address sanitizers (a check of the generator itself).
    #[arg(long)]
    ubsan: bool,
    /// Print the program of `--seed` (with its arguments) and exit.
    #[arg(long)]
    print: bool,
    /// Reduce each failing program (by deleting lines and blocks while the
    /// same configurations disagree) and save it as `fuzz-SEED.min.pc`.
    #[arg(long)]
    reduce: bool,
    /// Stop starting new programs after this many seconds.
    #[arg(long, value_name = "SECONDS")]
    time_limit: Option<u64>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.print {
        for &family in &cli.family.0 {
            let p = Program::generate(family, cli.seed);
            print!("{}", p.source);
            eprintln!("args: {}", p.args.join(" "));
        }
        return ExitCode::SUCCESS;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("fuzz/ is inside the repository")
        .to_path_buf();
    let parc = match &cli.parc {
        Some(p) => p.clone(),
        None => match default_parc() {
            Ok(p) => p,
            Err(e) => {
                eprintln!("parc-fuzz: {e}");
                return ExitCode::from(2);
            }
        },
    };
    let mut oracles = Oracles::new(parc, &root);
    if cli.no_gcc {
        oracles.gcc = None;
    } else if oracles.gcc.is_none() {
        eprintln!("parc-fuzz: note: gcc not found; the gcc configurations are skipped");
    }
    oracles.ubsan = cli.ubsan;
    for &family in &cli.family.0 {
        let names: Vec<&str> = oracles.configs(family).iter().map(|c| c.name).collect();
        eprintln!(
            "parc-fuzz: {} {} programs from seed {}; configurations: {}",
            cli.count,
            family.name(),
            cli.seed,
            names.join(", ")
        );
    }
    if let Some(dir) = &cli.keep_failures
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        eprintln!("parc-fuzz: cannot create {}: {e}", dir.display());
        return ExitCode::from(2);
    }

    let jobs = cli
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let families = cli.family.0.clone();
    let per_seed = families.len() as u64;
    let next = AtomicU64::new(0);
    let end = cli.count.saturating_mul(per_seed);
    let deadline = cli
        .time_limit
        .map(|s| Instant::now() + Duration::from_secs(s));
    let stats = Mutex::new(Stats::default());
    let start = Instant::now();
    let oracles = Arc::new(oracles);
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| {
                loop {
                    if deadline.is_some_and(|d| Instant::now() > d) {
                        break;
                    }
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= end {
                        break;
                    }
                    let seed = cli.seed + k / per_seed;
                    let family = families[(k % per_seed) as usize];
                    let program = Program::generate(family, seed);
                    let lines = program.source.lines().count();
                    let verdict = oracles.check(&program);
                    if let Verdict::Mismatch { report, .. } = &verdict {
                        eprintln!("MISMATCH {report}");
                        if let Some(dir) = &cli.keep_failures {
                            save(dir, &program, report);
                        }
                        if cli.reduce {
                            reduce(&oracles, &program, &verdict, cli.keep_failures.as_deref());
                        }
                    }
                    let mut st = stats.lock().unwrap_or_else(|e| e.into_inner());
                    st.record(&program, lines, &verdict);
                    if st.programs % 100 == 0 {
                        eprintln!(
                            "parc-fuzz: {} programs, {} mismatches, {:.1} s",
                            st.programs,
                            st.failed.len(),
                            start.elapsed().as_secs_f64()
                        );
                    }
                }
            });
        }
    });
    let st = stats.into_inner().unwrap_or_else(|e| e.into_inner());
    st.summary(start.elapsed(), jobs);
    if st.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The families `--family` asks for.
#[derive(Clone, Debug)]
struct Families(Vec<Family>);

fn parse_families(s: &str) -> Result<Families, String> {
    if s == "all" {
        return Ok(Families(Family::ALL.to_vec()));
    }
    s.split(',')
        .map(|name| {
            Family::from_name(name)
                .ok_or_else(|| format!("unknown family `{name}` (plain, kernel, grad or all)"))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Families)
}

/// The `parc` binary beside this executable. Run through cargo (which
/// sets `CARGO`), rebuild it first so it matches the sources.
fn default_parc() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this executable: {e}"))?;
    let dir = exe.parent().ok_or("this executable has no directory")?;
    let parc = dir.join("parc");
    if let Some(cargo) = std::env::var_os("CARGO") {
        let release = dir.file_name().is_some_and(|n| n == "release");
        eprintln!(
            "parc-fuzz: building the parc binary ({})",
            if release { "release" } else { "debug" }
        );
        let mut cmd = std::process::Command::new(cargo);
        cmd.args(["build", "--quiet", "-p", "parc", "--bin", "parc"]);
        if release {
            cmd.arg("--release");
        }
        let ok = cmd.status().is_ok_and(|s| s.success());
        if !ok {
            return Err("building the parc binary failed".into());
        }
    }
    if parc.exists() {
        Ok(parc)
    } else {
        Err(format!(
            "no parc binary at {}: run `cargo build --release -p parc` (or pass --parc PATH)",
            parc.display()
        ))
    }
}

fn reduce(oracles: &Oracles, program: &Program, verdict: &Verdict, dir: Option<&Path>) {
    let seed = program.seed;
    let small = parc_fuzz::reduce::reduce(oracles, program, verdict, |m| {
        eprintln!("parc-fuzz: reducing {seed}: {m}")
    });
    let lines = small.source.lines().count();
    match dir {
        Some(dir) => {
            let path = dir.join(format!("fuzz-{seed}.min.pc"));
            match std::fs::write(&path, &small.source) {
                Ok(()) => eprintln!(
                    "parc-fuzz: reduced {seed} to {lines} lines: {}",
                    path.display()
                ),
                Err(e) => eprintln!("parc-fuzz: cannot write {}: {e}", path.display()),
            }
        }
        None => eprintln!(
            "parc-fuzz: reduced {seed} to {lines} lines:\n{}",
            small.source
        ),
    }
}

fn save(dir: &Path, program: &Program, report: &str) {
    let pc = dir.join(program.file_name());
    let txt = pc.with_extension("txt");
    if let Err(e) = std::fs::write(&pc, &program.source).and_then(|()| std::fs::write(&txt, report))
    {
        eprintln!("parc-fuzz: cannot save {}: {e}", pc.display());
    } else {
        eprintln!("parc-fuzz: saved {} and {}", pc.display(), txt.display());
    }
}

#[derive(Default)]
struct Stats {
    programs: u64,
    /// Programs per family.
    per_family: Vec<(&'static str, u64)>,
    lines: u64,
    /// Failing programs: family and seed.
    failed: Vec<(&'static str, u64)>,
    /// Time per configuration, summed, and its runs.
    times: Vec<(&'static str, Duration, u64)>,
    /// Reference runs whose exit status was a fault rather than main's.
    invalid: u64,
}

impl Stats {
    fn record(&mut self, program: &Program, lines: usize, verdict: &Verdict) {
        self.programs += 1;
        let family = program.family.name();
        match self.per_family.iter_mut().find(|(f, _)| *f == family) {
            Some((_, n)) => *n += 1,
            None => self.per_family.push((family, 1)),
        }
        self.lines += lines as u64;
        for (name, o) in verdict.outcomes() {
            match self.times.iter_mut().find(|(n, _, _)| n == name) {
                Some((_, t, runs)) => {
                    *t += o.time;
                    *runs += 1;
                }
                None => self.times.push((name, o.time, 1)),
            }
        }
        if let Verdict::Mismatch { outcomes, .. } = verdict {
            self.failed.push((program.family.name(), program.seed));
            if !matches!(outcomes[0].1.status, Status::Exit(10..=73)) {
                self.invalid += 1;
            }
        }
    }

    fn summary(&self, wall: Duration, jobs: usize) {
        let n = self.programs.max(1) as f64;
        eprintln!(
            "parc-fuzz: {} programs ({:.0} lines on average) in {:.1} s with {jobs} jobs: {:.3} s per program",
            self.programs,
            self.lines as f64 / n,
            wall.as_secs_f64(),
            wall.as_secs_f64() / n
        );
        let families: Vec<String> = self
            .per_family
            .iter()
            .map(|(f, n)| format!("{n} {f}"))
            .collect();
        eprintln!("parc-fuzz: programs by family: {}", families.join(", "));
        for (name, t, runs) in &self.times {
            eprintln!(
                "  {name:>28}: {runs} runs, {:.4} s per run",
                t.as_secs_f64() / *runs as f64
            );
        }
        if self.failed.is_empty() {
            eprintln!("parc-fuzz: no mismatches");
        } else {
            let mut seeds = self.failed.clone();
            seeds.sort_unstable();
            eprintln!(
                "parc-fuzz: {} mismatches ({} with an abnormal reference run); seeds: {}",
                seeds.len(),
                self.invalid,
                seeds
                    .iter()
                    .map(|(f, s)| format!("{f} {s}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            );
        }
    }
}
