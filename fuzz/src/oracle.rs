//! The oracles: one program through every configuration, outputs compared.
//!
//! The interpreter configurations run in this process (through
//! `parc::compile` and `parc_ir::interp`, exactly what `parc run --interp`
//! calls); native ones run the `parc` binary, because generated code
//! prints through the C library to file descriptor 1 and may end the
//! process on a fault; gcc builds run as executables.

use crate::{Family, Program};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Exit status as the shell sees it (0..=255): `parc` exits 1 for a
    /// rejected program or a run-time fault, 101 for an internal error.
    Exit(i32),
    /// Killed by a signal (a crash).
    Signal(i32),
    /// Still running after the time limit.
    Timeout,
    /// Could not be run: the gcc build failed, or the binary is missing.
    NotRun(String),
    /// Left out of the comparison: the peer (gcc) did not finish building
    /// the program within the time limit, which says nothing of parc and
    /// happens on a loaded machine (a gcc build that fails is `NotRun`:
    /// the generator wrote invalid C).
    Skipped(String),
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Status::Exit(c) => write!(f, "exit {c}"),
            Status::Signal(s) => write!(f, "killed by signal {s}"),
            Status::Timeout => write!(f, "timed out"),
            Status::NotRun(why) => write!(f, "not run: {why}"),
            Status::Skipped(why) => write!(f, "skipped: {why}"),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Outcome {
    pub status: Status,
    pub stdout: String,
    pub stderr: String,
    pub time: Duration,
}

/// Whether two runs of a program of `family` agree: the same exit status
/// and output, except that gradients may differ in the last bits (a
/// parallel reverse sums per worker, in another order): numbers within
/// 1e-9 of each other, relative (1e-12 absolute near zero).
pub fn agree(family: Family, a: &Outcome, b: &Outcome) -> bool {
    if a.status != b.status {
        return false;
    }
    if family != Family::Grad {
        return a.stdout == b.stdout;
    }
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.stdout.lines().collect(), b.stdout.lines().collect());
    la.len() == lb.len()
        && la.iter().zip(&lb).all(|(x, y)| {
            let (wx, wy): (Vec<&str>, Vec<&str>) = (x.split(' ').collect(), y.split(' ').collect());
            wx.len() == wy.len()
                && wx.iter().zip(&wy).all(|(p, q)| {
                    p == q
                        || match (p.parse::<f64>(), q.parse::<f64>()) {
                            (Ok(u), Ok(v)) => (u - v).abs() <= 1e-9 * u.abs().max(v.abs()) + 1e-12,
                            _ => false,
                        }
                })
        })
}

/// Why the reference run of a program of `family` shows the program (or
/// the generator) is wrong, if it does: every generated `main` exits with
/// 10..=73 and prints nothing on stderr, and a gradient program's analytic
/// derivatives agree with its finite differences.
pub fn reference_problem(family: Family, reference: &Outcome) -> Option<String> {
    if !matches!(reference.status, Status::Exit(10..=73)) || !reference.stderr.is_empty() {
        return Some(format!("did not end normally: {}", reference.status));
    }
    if family == Family::Grad {
        let mut checks = 0;
        for line in reference.stdout.lines() {
            let Some(rest) = line.strip_prefix("check ") else {
                continue;
            };
            checks += 1;
            let w: Vec<&str> = rest.split(' ').collect();
            let nums = (w.len() == 3)
                .then(|| Some((w[1].parse::<f64>().ok()?, w[2].parse::<f64>().ok()?)))
                .flatten();
            match nums {
                Some((analytic, fd)) if (analytic - fd).abs() <= 1e-5 * (1.0 + fd.abs()) => {}
                _ => return Some(format!("computed a wrong derivative: `{line}`")),
            }
        }
        if checks == 0 {
            return Some("checked no derivative".into());
        }
    }
    None
}

/// How the in-process interpreter configurations compile.
#[derive(Clone, Copy, Debug, Default)]
pub struct InterpOptions {
    pub opt: u8,
    pub verify_each: bool,
    /// Print the compiled module, read it back as `.pir` input and compile
    /// that again before running it.
    pub ir_roundtrip: bool,
    pub serial: bool,
    pub ad_before_opt: bool,
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Interp(InterpOptions),
    Parc {
        args: &'static [&'static str],
        env: &'static [(&'static str, &'static str)],
    },
    Gcc {
        openmp: bool,
        ubsan: bool,
    },
}

/// One way of running a program, and the families it applies to.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    pub name: &'static str,
    kind: Kind,
    families: &'static [Family],
}

const ALL: &[Family] = &Family::ALL;
const GRAD: &[Family] = &[Family::Grad];
const KERNEL: &[Family] = &[Family::Kernel];
/// The families gcc runs too (no kernels, no gradients).
const PLAIN: &[Family] = &[Family::Plain, Family::Vector];

const fn interp_config(
    name: &'static str,
    o: InterpOptions,
    families: &'static [Family],
) -> Config {
    Config {
        name,
        kind: Kind::Interp(o),
        families,
    }
}

const fn parc_config(
    name: &'static str,
    args: &'static [&'static str],
    env: &'static [(&'static str, &'static str)],
    families: &'static [Family],
) -> Config {
    Config {
        name,
        kind: Kind::Parc { args, env },
        families,
    }
}

const O: InterpOptions = InterpOptions {
    opt: 0,
    verify_each: false,
    ir_roundtrip: false,
    serial: false,
    ad_before_opt: false,
};

/// The reference comes first: the interpreter, unoptimized. Every -O
/// level, the serial elision and (for gradients) `--ad-before-opt` run in
/// the interpreter (in process, cheap) and natively with 1 and 8 workers;
/// `--verify-each` checks the IR after every pass; the IR round trip
/// checks the text form and a second run of the pipeline; one native run
/// takes chunks of one iteration on four workers (as many steals as a
/// small program can have); kernels also run on the coroutine path.
pub const CONFIGS: [Config; 18] = [
    interp_config("interp-O0", O, ALL),
    interp_config(
        "interp-O1",
        InterpOptions {
            opt: 1,
            verify_each: true,
            ..O
        },
        ALL,
    ),
    interp_config(
        "interp-O2-verify-each",
        InterpOptions {
            opt: 2,
            verify_each: true,
            ..O
        },
        ALL,
    ),
    interp_config(
        "interp-O2-ir-roundtrip",
        InterpOptions {
            opt: 2,
            ir_roundtrip: true,
            ..O
        },
        ALL,
    ),
    interp_config(
        "interp-serial-O2",
        InterpOptions {
            opt: 2,
            serial: true,
            ..O
        },
        ALL,
    ),
    interp_config(
        "interp-ad-before-opt-O2",
        InterpOptions {
            opt: 2,
            ad_before_opt: true,
            ..O
        },
        GRAD,
    ),
    parc_config(
        "jit-O0-4-workers-grain-1",
        &["--O0", "--grain", "1"],
        &[("PARC_NUM_THREADS", "4")],
        ALL,
    ),
    parc_config(
        "jit-O0-1-worker",
        &["--O0"],
        &[("PARC_NUM_THREADS", "1")],
        KERNEL_AND_GRAD,
    ),
    parc_config(
        "jit-O1-1-worker",
        &["--O1"],
        &[("PARC_NUM_THREADS", "1")],
        ALL,
    ),
    parc_config(
        "jit-O1-8-workers",
        &["--O1"],
        &[("PARC_NUM_THREADS", "8")],
        ALL,
    ),
    parc_config(
        "jit-O2-1-worker",
        &["--O2"],
        &[("PARC_NUM_THREADS", "1")],
        ALL,
    ),
    parc_config(
        "jit-O2-8-workers",
        &["--O2"],
        &[("PARC_NUM_THREADS", "8")],
        ALL,
    ),
    parc_config("serial-O2", &["--serial", "--O2"], &[], ALL),
    parc_config(
        "jit-ad-before-opt-1-worker",
        &["--ad-before-opt"],
        &[("PARC_NUM_THREADS", "1")],
        GRAD,
    ),
    parc_config(
        "jit-ad-before-opt-8-workers",
        &["--ad-before-opt"],
        &[("PARC_NUM_THREADS", "8")],
        GRAD,
    ),
    parc_config(
        "jit-coroutines-2-workers",
        &["--O2"],
        &[("PARC_NUM_THREADS", "2"), ("PARC_KERNEL_COROUTINES", "1")],
        KERNEL,
    ),
    Config {
        name: "gcc-O2",
        kind: Kind::Gcc {
            openmp: false,
            ubsan: false,
        },
        families: PLAIN,
    },
    Config {
        name: "gcc-O2-openmp",
        kind: Kind::Gcc {
            openmp: true,
            ubsan: false,
        },
        families: PLAIN,
    },
];

const KERNEL_AND_GRAD: &[Family] = &[Family::Kernel, Family::Grad];

/// An extra check of the generator itself (`--ubsan`): gcc's undefined
/// behaviour and address sanitizers must stay silent.
pub const UBSAN: Config = Config {
    name: "gcc-ubsan-asan",
    kind: Kind::Gcc {
        openmp: false,
        ubsan: true,
    },
    families: PLAIN,
};

/// The math functions gcc folds with MPFR (correctly rounded) when their
/// arguments are constants, where glibc at run time may differ in the last
/// bit. Not folding them keeps the comparison about parc.
const NO_FOLD: [&str; 14] = [
    "sin", "cos", "tan", "tanh", "exp", "log", "pow", "sinf", "cosf", "tanf", "tanhf", "expf",
    "logf", "powf",
];

/// Interpreter step limit: generated programs take well under a million.
const MAX_STEPS: u64 = 2_000_000_000;

/// Runs `program` in the interpreter in this process, as `parc run
/// --interp` would, and reports what the command would have printed and
/// returned.
pub fn interp(program: &Program, o: &InterpOptions) -> Outcome {
    let start = Instant::now();
    let path = program.file_name();
    let source = program.source.clone();
    let mut args = vec![path.clone()];
    args.extend(program.args.iter().cloned());
    let o = *o;
    // The compiler's passes recurse over the program: give them a stack
    // like the `parc` binary's own compiler thread does.
    let worker = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let options = parc::Options {
                opt_level: parc_ir::OptLevel::from_number(o.opt).unwrap_or_default(),
                verify_each: o.verify_each,
                serial: o.serial,
                ad_before_opt: o.ad_before_opt,
                ..parc::Options::default()
            };
            let compiled = parc::compile(&path, &source, &options).and_then(|c| {
                if !o.ir_roundtrip {
                    return Ok(c);
                }
                let text = parc_ir::print::print_module(&c.module);
                parc::compile_ir(&format!("{path}.pir"), &text, &options)
            });
            let compiled = match compiled {
                Ok(c) => c,
                Err(e) => {
                    let code = if e.internal { 101 } else { 1 };
                    return (Status::Exit(code), Vec::new(), e.rendered);
                }
            };
            let config = parc_ir::interp::Config {
                args,
                max_steps: Some(MAX_STEPS),
                ..parc_ir::interp::Config::default()
            };
            let mut out = Vec::new();
            match parc_ir::interp::run_main(&compiled.module, &config, &mut out) {
                Ok(status) => (Status::Exit(i32::from(status as u8)), out, String::new()),
                Err(err) => (Status::Exit(1), out, format!("{err}\n")),
            }
        });
    let (status, stdout, stderr) = match worker.map(|h| h.join()) {
        Ok(Ok(r)) => r,
        Ok(Err(panic)) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            (
                Status::Exit(101),
                Vec::new(),
                format!("parc panicked: {msg}\n"),
            )
        }
        Err(e) => (
            Status::NotRun(format!("cannot start a thread: {e}")),
            Vec::new(),
            String::new(),
        ),
    };
    Outcome {
        status,
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr,
        time: start.elapsed(),
    }
}

/// Runs a command with a time limit, collecting its output.
fn run_command(mut cmd: Command, limit: Duration) -> Outcome {
    let start = Instant::now();
    let mut child = match cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            return Outcome {
                status: Status::NotRun(format!("cannot run {cmd:?}: {e}")),
                stdout: String::new(),
                stderr: String::new(),
                time: start.elapsed(),
            };
        }
    };
    // Drain both pipes on threads: a child filling a pipe nobody reads
    // would block forever.
    fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> std::thread::JoinHandle<Vec<u8>> {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut bytes);
            }
            bytes
        })
    }
    let out = drain(child.stdout.take());
    let err = drain(child.stderr.take());
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(_) => break None,
        }
    };
    let stdout = String::from_utf8_lossy(&out.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&err.join().unwrap_or_default()).into_owned();
    let status = match status {
        None => Status::Timeout,
        Some(s) => match s.code() {
            Some(c) => Status::Exit(c),
            None => {
                use std::os::unix::process::ExitStatusExt;
                Status::Signal(s.signal().unwrap_or(0))
            }
        },
    };
    Outcome {
        status,
        stdout,
        stderr,
        time: start.elapsed(),
    }
}

/// The result of checking one program.
#[derive(Debug)]
pub enum Verdict {
    /// Every configuration printed the same and exited the same way.
    Agree {
        outcomes: Vec<(&'static str, Outcome)>,
    },
    /// They did not, or the reference run did not end normally; `report`
    /// says how, for people.
    Mismatch {
        report: String,
        outcomes: Vec<(&'static str, Outcome)>,
    },
}

impl Verdict {
    pub fn outcomes(&self) -> &[(&'static str, Outcome)] {
        match self {
            Verdict::Agree { outcomes } | Verdict::Mismatch { outcomes, .. } => outcomes,
        }
    }
}

/// Where the tools are, and the limits.
#[derive(Clone, Debug)]
pub struct Oracles {
    /// The `parc` binary.
    pub parc: PathBuf,
    /// `include/parc.h`.
    pub prelude: PathBuf,
    /// The C compiler, or None to skip the gcc configurations.
    pub gcc: Option<PathBuf>,
    /// Scratch directory for sources and executables (created on demand).
    pub scratch: PathBuf,
    /// Limit for each command.
    pub timeout: Duration,
    /// Also run the program built with gcc's sanitizers (checks the
    /// generator's guarantees rather than parc).
    pub ubsan: bool,
}

impl Oracles {
    /// Oracles using `parc` and the prelude of the repository at `root`;
    /// gcc if `gcc --version` runs.
    pub fn new(parc: PathBuf, root: &Path) -> Oracles {
        let gcc = Command::new("gcc")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
            .then(|| PathBuf::from("gcc"));
        Oracles {
            parc,
            prelude: root.join("include").join("parc.h"),
            gcc,
            scratch: std::env::temp_dir().join(format!("parc-fuzz-{}", std::process::id())),
            timeout: Duration::from_secs(60),
            ubsan: false,
        }
    }

    /// The configurations this checker runs for programs of `family`.
    pub fn configs(&self, family: Family) -> Vec<Config> {
        let mut v: Vec<Config> = CONFIGS
            .iter()
            .copied()
            .filter(|c| c.families.contains(&family))
            .filter(|c| self.gcc.is_some() || !matches!(c.kind, Kind::Gcc { .. }))
            .collect();
        if self.ubsan && self.gcc.is_some() && UBSAN.families.contains(&family) {
            v.push(UBSAN);
        }
        v
    }

    /// Runs one configuration.
    pub fn run(&self, config: &Config, program: &Program) -> Outcome {
        match config.kind {
            Kind::Interp(o) => interp(program, &o),
            Kind::Parc { args, env } => {
                let file = match self.source_file(program) {
                    Ok(f) => f,
                    Err(o) => return o,
                };
                let mut cmd = Command::new(&self.parc);
                cmd.args(["run", "--color=never"])
                    .args(args)
                    .arg(&file)
                    .arg("--")
                    .args(&program.args);
                cmd.envs(env.iter().copied());
                run_command(cmd, self.timeout)
            }
            Kind::Gcc { openmp, ubsan } => {
                let Some(gcc) = &self.gcc else {
                    return not_run("no gcc");
                };
                let file = match self.source_file(program) {
                    Ok(f) => f,
                    Err(o) => return o,
                };
                let exe = self
                    .scratch
                    .join(format!("fuzz-{}-{}", program.seed, config.name));
                let mut cmd = Command::new(gcc);
                cmd.args(["-fwrapv", "-w"]);
                if ubsan {
                    cmd.args([
                        "-O1",
                        "-fsanitize=undefined,address,float-cast-overflow",
                        "-fno-sanitize=shift-base",
                        "-fno-sanitize-recover=all",
                    ]);
                } else {
                    cmd.arg("-O2");
                }
                if openmp {
                    cmd.arg("-fopenmp");
                }
                // GCC 12's vectorizer miscompiles an arithmetic right shift
                // by 32..63 of an `int` widened to `long` (it shifts 32-bit
                // lanes by the count mod 32): `b[k] = (long)a[k] >> 39` in a
                // loop gives `a[k] >> 7` at -O2 (found by this fuzzer, seed
                // 407). Vectorization is beside the point of the oracle.
                cmd.arg("-fno-tree-vectorize");
                for f in NO_FOLD {
                    cmd.arg(format!("-fno-builtin-{f}"));
                }
                cmd.arg("-include")
                    .arg(&self.prelude)
                    .args(["-x", "c"])
                    .arg(&file)
                    .arg("-lm")
                    .arg("-o")
                    .arg(&exe);
                let build = run_command(cmd, self.timeout);
                if build.status == Status::Timeout {
                    return Outcome {
                        status: Status::Skipped("gcc did not finish building it".into()),
                        stdout: String::new(),
                        stderr: build.stderr,
                        time: build.time,
                    };
                }
                if build.status != Status::Exit(0) {
                    return Outcome {
                        status: Status::NotRun(format!("gcc failed ({})", build.status)),
                        stdout: String::new(),
                        stderr: build.stderr,
                        time: build.time,
                    };
                }
                let mut run = Command::new(&exe);
                run.args(&program.args);
                if ubsan {
                    // Leaks are not undefined behaviour.
                    run.env("ASAN_OPTIONS", "detect_leaks=0");
                }
                let mut out = run_command(run, self.timeout);
                out.time += build.time;
                let _ = std::fs::remove_file(&exe);
                out
            }
        }
    }

    fn source_file(&self, program: &Program) -> Result<PathBuf, Outcome> {
        // Written for every run: a reduced program keeps its seed's name.
        let file = self.scratch.join(program.file_name());
        std::fs::create_dir_all(&self.scratch)
            .and_then(|()| std::fs::write(&file, &program.source))
            .map_err(|e| not_run(&format!("cannot write {}: {e}", file.display())))?;
        Ok(file)
    }

    /// Runs every configuration and compares them with the first, the
    /// reference interpreter, which must end normally (exit 10..=73, as
    /// every generated `main` does, with nothing on stderr).
    pub fn check(&self, program: &Program) -> Verdict {
        let configs = self.configs(program.family);
        let mut outcomes: Vec<(&'static str, Outcome)> = Vec::new();
        let reference = self.run(&configs[0], program);
        let problem = reference_problem(program.family, &reference);
        outcomes.push((configs[0].name, reference));
        if let Some(why) = problem {
            let report = format!(
                "{} {}: the reference run ({}) {why}\n{}",
                program.family.name(),
                program.seed,
                configs[0].name,
                excerpt(&outcomes[0].1.stderr)
            );
            self.clean_up(program);
            return Verdict::Mismatch { report, outcomes };
        }
        for c in &configs[1..] {
            outcomes.push((c.name, self.run(c, program)));
        }
        self.clean_up(program);
        let reference = &outcomes[0].1;
        if outcomes
            .iter()
            .filter(|(_, o)| !matches!(o.status, Status::Skipped(_)))
            .all(|(_, o)| agree(program.family, o, reference))
        {
            return Verdict::Agree { outcomes };
        }
        let report = mismatch_report(program, &outcomes);
        Verdict::Mismatch { report, outcomes }
    }

    fn clean_up(&self, program: &Program) {
        let _ = std::fs::remove_file(self.scratch.join(program.file_name()));
    }
}

fn not_run(why: &str) -> Outcome {
    Outcome {
        status: Status::NotRun(why.to_string()),
        stdout: String::new(),
        stderr: String::new(),
        time: Duration::ZERO,
    }
}

fn excerpt(text: &str) -> String {
    const MAX: usize = 3000;
    if text.len() <= MAX {
        text.to_string()
    } else {
        let mut end = MAX;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}\n[... {} more bytes]\n", &text[..end], text.len() - end)
    }
}

/// Which configurations agree with which, and how the others differ from
/// the reference.
fn mismatch_report(program: &Program, outcomes: &[(&'static str, Outcome)]) -> String {
    let mut groups: Vec<(Vec<&str>, &Outcome)> = Vec::new();
    for (name, o) in outcomes {
        match groups.iter_mut().find(|(_, g)| agree(program.family, g, o)) {
            Some((names, _)) => names.push(name),
            None => groups.push((vec![name], o)),
        }
    }
    let mut r = format!(
        "{} {}: configurations disagree (args: {})\n",
        program.family.name(),
        program.seed,
        program.args.join(" ")
    );
    for (names, o) in &groups {
        r.push_str(&format!(
            "  {}: {}, {} lines of output\n",
            names.join(", "),
            o.status,
            o.stdout.lines().count()
        ));
    }
    let reference = groups[0].1;
    for (names, o) in &groups[1..] {
        r.push_str(&format!(
            "--- {} (reference)\n+++ {}\n",
            outcomes[0].0,
            names.join(", ")
        ));
        let diff = similar::TextDiff::from_lines(&reference.stdout, &o.stdout);
        for hunk in diff.unified_diff().context_radius(1).iter_hunks() {
            r.push_str(&hunk.to_string());
        }
        if !o.stderr.is_empty() {
            r.push_str(&format!("stderr of {}:\n{}", names[0], excerpt(&o.stderr)));
        }
    }
    r
}
