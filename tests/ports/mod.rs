//! The proxy-app ports (`samples/lulesh`, `samples/xsbench`,
//! `samples/rsbench`): `ports::` tests.
//!
//! Each port directory `samples/P/` holds the program `P.pc` and a file
//! `runs` listing its test runs, one per line:
//!
//! ```text
//! NAME STATUS ENGINE,ENGINE,... -- ARGUMENTS
//! ```
//!
//! Each run of each engine is one test: the program, run with ARGUMENTS,
//! must exit with STATUS and print `expected/NAME.stdout`, except for the
//! lines the program's `// volatile: PREFIX | PREFIX ...` directive names
//! (timings, and gradient sums whose last digits depend on the order of
//! parallel accumulation), which are dropped from both sides. A primal
//! run's expected output is the original application's output for the
//! same arguments (`scripts/ports-vs-originals` compares the two;
//! blessing writes what the port prints). In a gradient run, `check NAME
//! ANALYTIC REFERENCE` lines are not compared as text: each must satisfy
//! |ANALYTIC − REFERENCE| ≤ tol·(1 + |REFERENCE|) (tol from a `// grad-tol:`
//! directive, default 1e-5), and there must be as many as expected.
//!
//! Engines: `interp` (the reference interpreter; small runs only), `jit-N`
//! (`parc run` at N workers), `exe-N` (a `parc build` executable at N
//! workers), `O0-N` (a `parc build --O0` executable at N workers: the AD
//! sees unoptimized IR), `O1-N` (the same at `--O1`: optimized, but no
//! helper inlined), `serial` (the `--serial` build), `gcc` and `gcc-omp2` (gcc
//! -O2 through `include/parc.h`, serially and with `-fopenmp` at 2
//! threads; skipped without gcc). Executables are built once per port and
//! engine kind, shared by the runs, in the harness's scratch folder
//! (removed at the end).

use super::{
    blessing, check_tolerances, diff, directive, gcc_available, parc, run_with_timeout,
    scratch_dir, split_checks,
};
use crate::corpus::root;
use libtest_mimic::{Failed, Trial};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// The ports, by directory name under `samples/` (the program is
/// `samples/P/P.pc`).
const PORTS: [&str; 3] = ["lulesh", "xsbench", "rsbench"];

/// How long one run may take (the interpreter's runs are the slowest).
const LIMIT: Duration = Duration::from_secs(300);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Engine {
    Interp,
    Jit(u32),
    Exe(u32),
    ExeO0(u32),
    ExeO1(u32),
    Serial,
    Gcc,
    GccOmp2,
}

impl Engine {
    fn parse(s: &str) -> Option<Engine> {
        let workers = |rest: &str| rest.parse::<u32>().ok().filter(|&n| n > 0);
        match s {
            "interp" => Some(Engine::Interp),
            "serial" => Some(Engine::Serial),
            "gcc" => Some(Engine::Gcc),
            "gcc-omp2" => Some(Engine::GccOmp2),
            _ => {
                if let Some(n) = s.strip_prefix("jit-") {
                    workers(n).map(Engine::Jit)
                } else if let Some(n) = s.strip_prefix("O0-") {
                    workers(n).map(Engine::ExeO0)
                } else if let Some(n) = s.strip_prefix("O1-") {
                    workers(n).map(Engine::ExeO1)
                } else {
                    s.strip_prefix("exe-").and_then(workers).map(Engine::Exe)
                }
            }
        }
    }

    fn label(self) -> String {
        match self {
            Engine::Interp => "interp".into(),
            Engine::Jit(n) => format!("jit-{n}"),
            Engine::Exe(n) => format!("exe-{n}"),
            Engine::ExeO0(n) => format!("O0-{n}"),
            Engine::ExeO1(n) => format!("O1-{n}"),
            Engine::Serial => "serial".into(),
            Engine::Gcc => "gcc".into(),
            Engine::GccOmp2 => "gcc-omp2".into(),
        }
    }

    fn needs_gcc(self) -> bool {
        matches!(self, Engine::Gcc | Engine::GccOmp2)
    }
}

/// One line of a `runs` file.
struct Run {
    name: String,
    status: i32,
    engines: Vec<Engine>,
    args: Vec<String>,
}

fn parse_runs(port: &str) -> Result<Vec<Run>, String> {
    let path = root().join("samples").join(port).join("runs");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut runs = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |what: &str| format!("{}:{}: {what}: `{line}`", path.display(), i + 1);
        let (head, args) = line
            .split_once(" -- ")
            .ok_or_else(|| bad("expected `NAME STATUS ENGINES -- ARGUMENTS`"))?;
        let mut fields = head.split_whitespace();
        let (Some(name), Some(status), Some(engines), None) =
            (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            return Err(bad("expected `NAME STATUS ENGINES -- ARGUMENTS`"));
        };
        let status = status.parse().map_err(|_| bad("bad exit status"))?;
        let engines = engines
            .split(',')
            .map(|e| Engine::parse(e).ok_or_else(|| bad(&format!("unknown engine `{e}`"))))
            .collect::<Result<_, _>>()?;
        runs.push(Run {
            name: name.to_string(),
            status,
            engines,
            args: args.split_whitespace().map(str::to_string).collect(),
        });
    }
    Ok(runs)
}

/// Adds one trial per (port, run, engine).
pub(crate) fn trials(trials: &mut Vec<Trial>) {
    let gcc = gcc_available();
    for port in PORTS {
        let runs = match parse_runs(port) {
            Ok(runs) => runs,
            Err(e) => {
                trials.push(Trial::test(format!("ports::{port}::runs"), move || {
                    Err(e.clone().into())
                }));
                continue;
            }
        };
        for run in runs {
            let run = Arc::new(run);
            for &engine in &run.engines {
                let run = Arc::clone(&run);
                trials.push(
                    Trial::test(
                        format!("ports::{port}::{}::{}", run.name, engine.label()),
                        move || check_run(port, &run, engine),
                    )
                    .with_ignored_flag(engine.needs_gcc() && !gcc),
                );
            }
        }
    }
}

fn program(port: &str) -> PathBuf {
    Path::new("samples").join(port).join(format!("{port}.pc"))
}

/// The executable of `port` for an engine kind (`Exe`, `Serial`, `Gcc`,
/// `GccOmp2`), built once and shared by every run that needs it.
fn executable(port: &str, kind: Engine) -> Result<PathBuf, String> {
    let kind = match kind {
        Engine::Exe(_) => Engine::Exe(1),
        Engine::ExeO0(_) => Engine::ExeO0(1),
        Engine::ExeO1(_) => Engine::ExeO1(1),
        other => other,
    };
    type Cell = Arc<OnceLock<Result<PathBuf, String>>>;
    static BUILDS: OnceLock<Mutex<HashMap<(String, Engine), Cell>>> = OnceLock::new();
    let cell = {
        let mut map = BUILDS
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        map.entry((port.to_string(), kind)).or_default().clone()
    };
    cell.get_or_init(|| build(port, kind)).clone()
}

fn build(port: &str, kind: Engine) -> Result<PathBuf, String> {
    let dir = scratch_dir().map_err(|e| format!("{e:?}"))?;
    let exe = dir.join(format!("{port}-{}", kind.label()));
    let mut cmd = match kind {
        Engine::Gcc | Engine::GccOmp2 => {
            let mut cmd = Command::new("gcc");
            cmd.current_dir(root())
                .args(["-O2", "-fwrapv"])
                .args(if kind == Engine::GccOmp2 {
                    &["-fopenmp"][..]
                } else {
                    &[]
                })
                .args(["-include", "include/parc.h", "-x", "c"])
                .arg(program(port))
                .arg("-lm");
            cmd
        }
        _ => {
            let mut cmd = parc();
            cmd.args(["build", "--color=never"]).arg(program(port));
            if kind == Engine::Serial {
                cmd.arg("--serial");
            }
            if kind == Engine::ExeO0(1) {
                cmd.arg("--O0");
            }
            if kind == Engine::ExeO1(1) {
                cmd.arg("--O1");
            }
            cmd
        }
    };
    cmd.arg("-o").arg(&exe);
    let (out, _) = run_with_timeout(cmd, LIMIT).map_err(|e| format!("{e:?}"))?;
    if !out.status.success() {
        return Err(format!(
            "building with {} failed:\n{}",
            kind.label(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(exe)
}

fn run(port: &str, run: &Run, engine: Engine) -> Result<Output, Failed> {
    let mut cmd = match engine {
        Engine::Interp | Engine::Jit(_) => {
            let mut cmd = parc();
            cmd.args(["run", "--color=never"]);
            if engine == Engine::Interp {
                cmd.arg("--interp");
            }
            if let Engine::Jit(n) = engine {
                cmd.env("PARC_NUM_THREADS", n.to_string());
            }
            cmd.arg(program(port)).arg("--");
            cmd
        }
        _ => {
            let exe = executable(port, engine)?;
            let mut cmd = Command::new(exe);
            cmd.current_dir(root());
            match engine {
                Engine::Exe(n) | Engine::ExeO0(n) | Engine::ExeO1(n) => {
                    cmd.env("PARC_NUM_THREADS", n.to_string());
                }
                Engine::GccOmp2 => {
                    cmd.env("OMP_NUM_THREADS", "2");
                }
                _ => {}
            }
            cmd
        }
    };
    cmd.args(&run.args);
    Ok(run_with_timeout(cmd, LIMIT)?.0)
}

/// The output without the lines whose (left-trimmed) text starts with one
/// of `volatile`.
fn stable_lines(stdout: &str, volatile: &[String]) -> String {
    stdout
        .lines()
        .filter(|l| {
            !volatile
                .iter()
                .any(|v| l.trim_start().starts_with(v.as_str()))
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

fn check_run(port: &str, run_: &Run, engine: Engine) -> Result<(), Failed> {
    let source = std::fs::read_to_string(root().join(program(port)))?;
    let volatile: Vec<String> = directive(&source, "volatile")
        .map(|v| {
            v.split('|')
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let tol = match directive(&source, "grad-tol") {
        Some(t) => t
            .parse::<f64>()
            .map_err(|_| format!("bad `// grad-tol:` directive `{t}`"))?,
        None => 1e-5,
    };
    let out = run(port, run_, engine)?;
    let status = out.status.code().unwrap_or(-1);
    if status != run_.status {
        return Err(format!(
            "exit status {status} (expected {}); stderr:\n{}",
            run_.status,
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let (checks, rest) = split_checks(&stdout)?;
    check_tolerances(&checks, tol)?;
    let actual = stable_lines(&rest, &volatile);
    let expected_path = root()
        .join("samples")
        .join(port)
        .join("expected")
        .join(format!("{}.stdout", run_.name));
    // The expected file keeps the check lines' names, so a run that
    // checks fewer gradients fails.
    let names: String = checks
        .iter()
        .map(|c| format!("check {}\n", c.name))
        .collect();
    let actual = format!("{actual}{names}");
    if blessing() {
        std::fs::create_dir_all(expected_path.parent().unwrap_or(Path::new(".")))?;
        std::fs::write(&expected_path, &actual)?;
        return Ok(());
    }
    let expected = std::fs::read_to_string(&expected_path).map_err(|e| {
        format!(
            "cannot read {}: {e} (PARC_BLESS=1 writes it)",
            expected_path.display()
        )
    })?;
    let expected = stable_lines(&expected, &volatile);
    if expected != actual {
        return Err(format!(
            "output differs from {} (- expected, + actual):\n{}",
            expected_path.display(),
            diff(&expected, &actual)
        )
        .into());
    }
    Ok(())
}
