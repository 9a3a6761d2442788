//! End-to-end tests as data: every ParC program in the repository is run
//! through the `parc` binary, as a user would, and compared with an oracle.
//!
//! Suites (one test per file):
//! - `samples/NAME.pc`: `parc run --interp` must print `samples/NAME.stdout`
//!   and exit with the status named by a `// exit: N` line (default 0), given
//!   the arguments of a `// args: ...` line; so must `parc run --interp
//!   -O0` (the unoptimized program). For samples without kernels the
//!   same program built by gcc through `include/parc.h` must print the same
//!   (skipped with a message when gcc is missing), and so must its OpenMP
//!   build (`-fopenmp`), except in files with an `// openmp: skip ...`
//!   line, where OpenMP's loop rules differ from the serial projection.
//! - `tests/bad/NAME.pc` and `tests/bad/NAME.pir` (parir text): `parc
//!   check` must fail with status 1, within a second, printing exactly
//!   `tests/bad/NAME.stderr`. A `// parc: ARGS` line (`; parc: ARGS` in
//!   parir text) runs `parc ARGS --color=never NAME.pc` instead: diagnostics
//!   of the command line and of the later phases.
//!   Natively, each sample must behave the same through the JIT, as a
//!   built executable and as a shared library whose `parc_main` a C driver
//!   calls, each at 1, 2 and 8 workers (`PARC_NUM_THREADS`), as the serial
//!   elision (`--serial`: spawn = call, no tasks), through the JIT at
//!   `-O0` (with `--verify-each`: Cranelift's verifier checks every
//!   function) and `-O1` (the rest run at the default `-O2`), and as the
//!   IR `--emit ir` prints, read back by `parc run`.
//! - `tests/lib/NAME.pc` (`clib-W::` tests): a library, without `main`,
//!   built with `parc build --emit lib`; the C driver `NAME.c`, compiled
//!   by `cc` with the generated header, must print `NAME.stdout` (at 1,
//!   2 and 8 workers) and exit with the `// exit:` status, printing `NAME.stderr`
//!   if that is not 0 (a fault in the library), else nothing, on stderr.
//! - `tests/ir/NAME.pir`: parir text (gradient requests included), which
//!   `parc run --interp` and `parc run` (1, 2 and 8 workers) must run printing
//!   `NAME.stdout`.
//! - `tests/run/NAME.pc`: `parc run --interp` must print `NAME.stdout`, exit
//!   with the `// exit:` status, and its stderr must equal `NAME.stderr`
//!   (run-time faults end this way). Natively (the JIT, an executable and
//!   a shared library called from a C driver, each at 1, 2 and 8 workers,
//!   and `--serial`), stdout, status and stderr must be the same (native code
//!   knows the source position of a faulting instruction too), except that
//!   a `// native-stderr: PREFIX` line asks only for that prefix (a fault
//!   native code describes in fewer words), and files with a `// native:
//!   skip ...` line are not run natively: faults only the interpreter's
//!   checked memory detects. Files with an `// interp: skip ...` line
//!   are run natively only (stdout from `NAME.stdout`, stderr by the
//!   `// native-stderr:` prefix): faults the interpreter would reach only
//!   after minutes and gigabytes.
//! - `tests/kernels/NAME.pc` (`kernel::` tests): kernels, with barriers
//!   in every shape the compiler splits kernels at. `parc run --interp`
//!   must print `NAME.stdout`, exit with the `// exit:` status and print
//!   `NAME.stderr` on stderr (nothing when there is no such file). Then,
//!   natively, the JIT, an executable and a shared library called from a
//!   C driver, each at 1, 2 and 8 workers, the JIT at
//!   `-O0` (nothing inlined: locals in memory, callees called) and at
//!   `-O1`, the serial elision (`--serial`), and the JIT
//!   with every kernel on the coroutine path (`PARC_KERNEL_COROUTINES=1`
//!   at compile time) must print the same stdout and exit alike; their
//!   stderr must equal the interpreter's exactly (barrier divergence is
//!   reported in the same words), except that a `// native-stderr:
//!   PREFIX` line asks only for that prefix (faults the interpreter
//!   describes in more detail), and the coroutine path, which cannot tell
//!   barriers apart, is only asked for `run-time error` and is skipped in
//!   files with a `// coroutines: skip ...` line.
//! - `tests/stress/NAME.pc`: natively at 1, 2 and 8 workers, `// repeat: N`
//!   times each, always printing `NAME.stdout` (no deadlock, no lost task),
//!   and once as the serial elision (`--serial`).
//! - `tests/grad/NAME.pc` (`grad::` tests): gradient checks. Each program
//!   computes gradients with `__enzyme_autodiff` and central finite
//!   differences in ParC itself, printing `check NAME ANALYTIC FD` lines;
//!   every one must satisfy |ANALYTIC − FD| ≤ tol·(1 + |FD|) (tol 1e-5, or
//!   a `// tol: X` line). Every other line must equal `NAME.stdout`
//!   exactly (exact gradients of linear code). Each program runs through
//!   the interpreter (the reference), the JIT at 1, 2 and 8 workers,
//!   `--serial` (the AD sees the serial elision), and with
//!   `--ad-before-opt` and `-O0` (interpreted and native) and `-O1`
//!   (native); the
//!   analytic values of every run must agree with the interpreter's within
//!   1e-9 relative (parallel reductions may reassociate sums); native runs
//!   repeat `// repeat: N` times, as races show only now and then. While the
//!   AD reports "reverse-mode differentiation is not implemented" (a probe
//!   program tells), these tests are reported as ignored.
//! - `tests/vec/NAME.pc`: loops for the vectorizer, run as the samples
//!   are (every engine and level, and gcc); `vec-remarks::` tests: `parc
//!   build --explain-vec` must print `NAME.remarks` on stderr, and where
//!   `NAME.rpass` or `NAME.optinfo` exist, clang's `-Rpass=loop-vectorize
//!   -Rpass-missed=loop-vectorize` and gcc's `-fopt-info-vec-all` must
//!   print them (`vec-rpass::`, `vec-optinfo::`).
//! - `tape::` tests: for each `tests/grad/NAME.pc` with a `NAME.tape`
//!   beside it (blessing makes one for every program), `parc build
//!   --explain-tape` must print exactly that file: the tape report.
//! - `explain-ad::` tests: for each `tests/grad/NAME.pc` with a `NAME.ad`
//!   beside it (made by hand, then blessed), `parc build --explain-ad`
//!   must print exactly that file: each adjoint update's accumulation
//!   class and why.
//! - `tape-stats::` tests: for each `tests/grad/NAME.pc` with a `//
//!   tape-peak:` line, the tape bytes `PARC_AD_STATS=1` prints at run
//!   time must be what `--stats` predicts, in the interpreter, the JIT and
//!   executables at every level (see `tape_stats/mod.rs`).
//! - `grad-lib::` tests: a sample built with `--grad F --emit lib`, whose
//!   exported `grad_F` a C driver calls and compares with finite
//!   differences of `F` from the same library; `grad-lib-serial::`, the
//!   same built with `--serial`.
//!
//! - `time-passes::` tests: `tests/time_passes/NAME.pc`, built with its
//!   `// parc: ARGS` and `--time-passes`, must report the stages
//!   `NAME.stages` lists, adding up to the total (see
//!   `time_passes/mod.rs`).
//! - `samples/P/` (`ports::` tests): the proxy-app ports, each run as its
//!   `runs` file lists through the interpreter, the JIT, executables and
//!   gcc; see `tests/ports/mod.rs`.
//!
//! A `// flags: ...` line gives parc (not gcc) compiler flags for every
//! run of the program, e.g. `-fopenmp`.
//!
//! A `NAME.stdin` file beside a program is its standard input in every run
//! of it (the interpreter, the JIT, executables, shared libraries' C
//! drivers and the gcc build); without one, standard input is empty.
//!
//! `PARC_BLESS=1 cargo test --test programs` rewrites the expected files from
//! what parc does now; review the diff before committing it.
//!
//! Length (over 1,800 lines): one harness for every suite above, so that
//! the directives, the bless rule, the native ways of running (JIT,
//! executable, shared library, workers) and the comparisons are written
//! once; each suite's checks follow its entry in this list, and `main`
//! names every test. The file lists and the proxy-app ports and tape
//! statistics, which have data of their own, are the submodules.

mod corpus;
mod ports;
mod tape_stats;
mod time_passes;

use corpus::{files, programs, root};
use libtest_mimic::{Arguments, Completion, Failed, Trial};
// The directives (`// key: value`, `; key: value` in parir text) and the
// bless rule every harness shares.
use parc_testkit::{blessing, directive};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

fn parc() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_parc"));
    cmd.current_dir(root()).stdin(Stdio::null());
    cmd
}

/// The standard input of a run of the program at `path`: its `NAME.stdin`
/// file if there is one, else nothing.
fn stdin_of(path: &Path) -> Result<Stdio, Failed> {
    let file = root().join(path.with_extension("stdin"));
    if file.is_file() {
        Ok(Stdio::from(std::fs::File::open(file)?))
    } else {
        Ok(Stdio::null())
    }
}

/// Whether the program at `path` has a `// key: skip ...` line.
fn marked_skip(path: &Path, key: &str) -> bool {
    std::fs::read_to_string(root().join(path))
        .is_ok_and(|s| directive(&s, key).is_some_and(|v| v.starts_with("skip")))
}

struct Expectations {
    args: Vec<String>,
    exit: i32,
}

fn expectations(path: &Path) -> Result<Expectations, Failed> {
    let source = String::from_utf8_lossy(&std::fs::read(root().join(path))?).into_owned();
    let args = directive(&source, "args")
        .map(|a| a.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    let exit = match directive(&source, "exit") {
        Some(n) => n
            .parse()
            .map_err(|_| format!("bad `// exit:` directive `{n}`"))?,
        None => 0,
    };
    Ok(Expectations { args, exit })
}

fn run_with_timeout(mut cmd: Command, limit: Duration) -> Result<(Output, Duration), Failed> {
    let start = Instant::now();
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
    // Drain both pipes on their own threads: a child that fills a pipe while
    // nobody reads it would block forever.
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("did not finish within {limit:?}").into());
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let elapsed = start.elapsed();
    let output = Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    };
    Ok((output, elapsed))
}

/// Compares `actual` with the file at `expected_path` (or writes it when
/// blessing).
fn compare_file(expected_path: &Path, actual: &str, what: &str) -> Result<(), Failed> {
    let full = root().join(expected_path);
    if blessing() {
        std::fs::write(&full, actual)?;
        return Ok(());
    }
    let expected = std::fs::read_to_string(&full).map_err(|e| {
        format!(
            "cannot read {}: {e} (run with PARC_BLESS=1 to create it)",
            expected_path.display()
        )
    })?;
    if expected != actual {
        return Err(format!(
            "{what} differs from {}:\n{}",
            expected_path.display(),
            diff(&expected, actual)
        )
        .into());
    }
    Ok(())
}

fn diff(expected: &str, actual: &str) -> String {
    let mut out = String::new();
    for change in similar::TextDiff::from_lines(expected, actual).iter_all_changes() {
        let sign = match change.tag() {
            similar::ChangeTag::Delete => "-",
            similar::ChangeTag::Insert => "+",
            similar::ChangeTag::Equal => " ",
        };
        out.push_str(&format!("{sign}{change}"));
    }
    out
}

/// The compiler flags of a program's `// flags: ...` line (say,
/// `-fopenmp`), given to every parc command that compiles it (not to
/// gcc, whose OpenMP build gets `-fopenmp` anyway, except the float
/// flags: [`float_flags_of`]).
fn flags_of(path: &Path) -> Vec<String> {
    std::fs::read_to_string(root().join(path))
        .ok()
        .and_then(|s| directive(&s, "flags"))
        .map(|f| f.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

/// [`flags_of`], with `--tape-budget none` unless they ask for
/// checkpointing: the tape reports (and the peaks they predict) are of
/// the gradient that records every iteration, not of the default budget's
/// loops cut into segments in case the machine's memory runs short.
fn unbudgeted_flags_of(path: &Path) -> Vec<String> {
    let mut flags = flags_of(path);
    if !flags
        .iter()
        .any(|f| f == "--tape-budget" || f == "--checkpoint")
    {
        flags.extend(["--tape-budget".to_string(), "none".to_string()]);
    }
    flags
}

/// The flags of a program's `// flags:` line that say what float
/// arithmetic may do, which gcc spells as parc does and gets too
/// (`-ffast-math`: gcc then reassociates as parc's vectorizer does), and
/// `-Ofast`, which implies `-ffast-math`.
fn float_flags_of(path: &Path) -> Vec<String> {
    const FLOAT: [&str; 4] = [
        "fast-math",
        "associative-math",
        "signed-zeros",
        "trapping-math",
    ];
    flags_of(path)
        .into_iter()
        .filter(|f| {
            let name = f.trim_start_matches("-f").trim_start_matches("no-");
            (f.starts_with("-f") && FLOAT.contains(&name)) || f == "-Ofast"
        })
        .collect()
}

/// `parc run --interp PATH -- ARGS`, within `limit`.
fn run_interp(path: &Path, args: &[String], limit: Duration) -> Result<Output, Failed> {
    run_interp_with(path, &[], args, limit)
}

/// [`run_interp`] with extra options for `parc` (`-O0`).
fn run_interp_with(
    path: &Path,
    options: &[&str],
    args: &[String],
    limit: Duration,
) -> Result<Output, Failed> {
    let mut cmd = parc();
    cmd.args(["run", "--interp", "--color=never"])
        .args(flags_of(path))
        .args(options)
        .arg(path)
        .arg("--")
        .args(args)
        .stdin(stdin_of(path)?);
    Ok(run_with_timeout(cmd, limit)?.0)
}

/// The exit status as a shell reports it: 128 + the signal for a process
/// a signal ended (`abort`: 134, as the interpreter reports it).
fn status_of(output: &Output) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    match (output.status.code(), output.status.signal()) {
        (Some(code), _) => code,
        (None, Some(signal)) => 128 + signal,
        (None, None) => -1,
    }
}

fn check_sample(path: &Path) -> Result<(), Failed> {
    check_sample_with(path, &[])
}

/// [`check_sample`] with extra options for the interpreter's run.
fn check_sample_with(path: &Path, options: &[&str]) -> Result<(), Failed> {
    let exp = expectations(path)?;
    let out = run_interp_with(path, options, &exp.args, Duration::from_secs(120))?;
    expect_status(&out, &exp)?;
    compare_file(
        &path.with_extension("stdout"),
        &String::from_utf8_lossy(&out.stdout),
        "the interpreter's output",
    )
}

/// The gcc oracle: the serial projection compiled by gcc through the prelude
/// must behave exactly as parc's interpreter does.
fn check_against_gcc(path: &Path, openmp: bool) -> Result<(), Failed> {
    let exp = expectations(path)?;
    let dir = std::env::temp_dir().join(format!("parc-gcc-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let exe = dir.join(format!("{stem}{}", if openmp { "-omp" } else { "" }));
    let mut gcc = Command::new("gcc");
    gcc.current_dir(root())
        .args(["-O2", "-fwrapv", "-include", "include/parc.h", "-x", "c"])
        .args(float_flags_of(path))
        .arg(path)
        .arg("-o")
        .arg(&exe)
        .arg("-lm");
    if openmp {
        gcc.arg("-fopenmp");
    }
    let built = gcc.output()?;
    if !built.status.success() {
        return Err(format!("gcc failed:\n{}", String::from_utf8_lossy(&built.stderr)).into());
    }
    let mut cmd = Command::new(&exe);
    cmd.args(&exp.args)
        .current_dir(root())
        .stdin(stdin_of(path)?)
        .env("OMP_NUM_THREADS", "2");
    let (gcc_out, _) = run_with_timeout(cmd, Duration::from_secs(60))?;
    let _ = std::fs::remove_file(&exe);
    let parc_out = run_interp(path, &exp.args, Duration::from_secs(120))?;
    if status_of(&gcc_out) != status_of(&parc_out) {
        return Err(format!(
            "exit status: gcc {} vs parc {}",
            status_of(&gcc_out),
            status_of(&parc_out)
        )
        .into());
    }
    let (g, p) = (
        String::from_utf8_lossy(&gcc_out.stdout),
        String::from_utf8_lossy(&parc_out.stdout),
    );
    if g != p {
        return Err(format!("output differs (- gcc, + parc):\n{}", diff(&g, &p)).into());
    }
    Ok(())
}

/// Samples gcc cannot build: kernels (no CUDA) and gradients (no Enzyme).
fn gcc_cannot_build(path: &Path) -> bool {
    std::fs::read_to_string(root().join(path))
        .is_ok_and(|s| s.contains("__global__") || s.contains("__enzyme_autodiff"))
}

fn gcc_available() -> bool {
    Command::new("gcc")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn check_bad(path: &Path) -> Result<(), Failed> {
    let source = String::from_utf8_lossy(&std::fs::read(root().join(path))?).into_owned();
    let command = directive(&source, "parc").unwrap_or_else(|| "check".into());
    let mut cmd = parc();
    cmd.args(command.split_whitespace())
        .arg("--color=never")
        .args(flags_of(path))
        .arg(path);
    let (out, elapsed) = run_with_timeout(cmd, Duration::from_secs(10))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if status_of(&out) != 1 {
        return Err(format!(
            "exit status {} (expected 1); stderr:\n{stderr}",
            status_of(&out)
        )
        .into());
    }
    if stderr.contains("panicked") || !stderr.contains("error") {
        return Err(format!("no proper diagnostic; stderr:\n{stderr}").into());
    }
    // The promise is "within a second" in a release build; debug builds on a
    // loaded 2-core machine get some slack.
    if elapsed > Duration::from_secs(3) {
        return Err(format!("took {elapsed:?}").into());
    }
    compare_file(&path.with_extension("stderr"), &stderr, "the diagnostics")
}

/// `parc build --explain-tape` of a gradient program (`-O2`, the IR to
/// standard output) must print `NAME.tape` on stderr: what each gradient
/// records, per value, with its reason.
fn check_tape(path: &Path) -> Result<(), Failed> {
    check_report(path, "--explain-tape", "tape", "the tape report")
}

/// `parc build --explain-ad` of a gradient program with a `NAME.ad` beside
/// it must print exactly that file on stderr: the accumulation class of
/// each adjoint update, with its reason, in source order.
fn check_explain_ad(path: &Path) -> Result<(), Failed> {
    check_report(path, "--explain-ad", "ad", "the accumulation report")
}

/// `parc build FLAG` of a gradient program (`-O2`, the IR to standard
/// output) must print `NAME.EXT` on stderr.
fn check_report(path: &Path, flag: &str, ext: &str, what: &str) -> Result<(), Failed> {
    let mut cmd = parc();
    cmd.args(["build", "--emit", "ir", "-o", "-", flag, "--color=never"])
        .args(unbudgeted_flags_of(path))
        .arg(path);
    let (out, _) = run_with_timeout(cmd, Duration::from_secs(60))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let expected = path.with_extension(ext);
    if status_of(&out) != 0 {
        // Blessing offers a report for every gradient program; one the AD
        // refuses has none.
        if blessing() && !root().join(&expected).exists() {
            return Ok(());
        }
        return Err(format!("exit status {}; stderr:\n{stderr}", status_of(&out)).into());
    }
    compare_file(&expected, &stderr, what)
}

/// The spellings of the vectorizer's remarks a `tests/vec/` program may
/// have expected output for: the file's extension and parc's flags.
const REMARK_SPELLINGS: [(&str, &[&str]); 3] = [
    ("remarks", &["--explain-vec"]),
    (
        "rpass",
        &["-Rpass=loop-vectorize", "-Rpass-missed=loop-vectorize"],
    ),
    ("optinfo", &["-fopt-info-vec-all"]),
];

/// `parc build --emit ir` of a `tests/vec/` program with a spelling's
/// remark flags must print `NAME.EXT` on stderr: what the vectorizer did
/// to each loop.
fn check_remarks(path: &Path, ext: &str, flags: &[&str]) -> Result<(), Failed> {
    let mut cmd = parc();
    cmd.args(["build", "--emit", "ir", "-o", "-", "--color=never"])
        .args(flags_of(path))
        .args(flags)
        .arg(path);
    let (out, _) = run_with_timeout(cmd, Duration::from_secs(60))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if status_of(&out) != 0 {
        return Err(format!("exit status {}; stderr:\n{stderr}", status_of(&out)).into());
    }
    compare_file(&path.with_extension(ext), &stderr, "the remarks")
}

fn check_runtime(path: &Path) -> Result<(), Failed> {
    let (_, stderr) = interp_as_expected(path, Duration::from_secs(60))?;
    compare_file(&path.with_extension("stderr"), &stderr, "stderr")
}

/// Runs `path` in the interpreter (killed after `limit`) and checks its
/// status and stdout (blessable); returns its expectations and stderr.
fn interp_as_expected(path: &Path, limit: Duration) -> Result<(Expectations, String), Failed> {
    let exp = expectations(path)?;
    let out = run_interp(path, &exp.args, limit)?;
    expect_status(&out, &exp)?;
    compare_file(
        &path.with_extension("stdout"),
        &String::from_utf8_lossy(&out.stdout),
        "stdout",
    )?;
    Ok((exp, String::from_utf8_lossy(&out.stderr).into_owned()))
}

/// How a native run of a program is made.
#[derive(Clone, Copy)]
enum Native {
    /// `parc run` (the JIT) with this many workers.
    Jit(u32),
    /// `parc run --serial`: the serial elision (spawn = call, no tasks).
    Serial,
    /// `parc build` an executable, run with this many workers.
    Exe(u32),
    /// `parc build --emit lib`, whose `parc_main` a C driver calls, run
    /// with this many workers.
    Lib(u32),
    /// `parc run --O0 --verify-each` with two workers: the unoptimized
    /// program, with Cranelift's verifier on every function.
    O0,
    /// `parc run --O1` with two workers.
    O1,
    /// `parc run` with two workers and `PARC_KERNEL_COROUTINES=1`.
    Coroutines,
    /// `parc build --emit ir`, then `parc run` of that IR with two
    /// workers: parir text read back compiles to the same program.
    Ir,
}

impl Native {
    /// The three ways a program reaches native code (the JIT, an
    /// executable, a shared library), each at 1, 2 and 8 workers.
    const EVERY_ENTRY: [Native; 9] = [
        Native::Jit(1),
        Native::Jit(2),
        Native::Jit(8),
        Native::Exe(1),
        Native::Exe(2),
        Native::Exe(8),
        Native::Lib(1),
        Native::Lib(2),
        Native::Lib(8),
    ];

    fn label(self) -> String {
        match self {
            Native::Jit(n) => format!("jit-{n}"),
            Native::Serial => "serial".into(),
            Native::Exe(n) => format!("exe-{n}"),
            Native::Lib(n) => format!("lib-{n}"),
            Native::O0 => "O0".into(),
            Native::O1 => "O1".into(),
            Native::Coroutines => "coroutines".into(),
            Native::Ir => "ir".into(),
        }
    }
}

fn scratch_dir() -> Result<PathBuf, Failed> {
    let dir = std::env::temp_dir().join(format!("parc-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// Runs `path` natively as `how` says; returns its output.
fn run_native(path: &Path, args: &[String], how: Native) -> Result<Output, Failed> {
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let limit = Duration::from_secs(120);
    let mut cmd = match how {
        Native::Jit(workers) => {
            let mut cmd = parc();
            cmd.env("PARC_NUM_THREADS", workers.to_string());
            cmd.arg("run").arg(path);
            cmd
        }
        Native::Serial => {
            let mut cmd = parc();
            cmd.args(["run", "--serial"]).arg(path);
            cmd
        }
        Native::O0 | Native::O1 => {
            let level = if matches!(how, Native::O0) {
                "-O0"
            } else {
                "-O1"
            };
            let mut cmd = parc();
            cmd.env("PARC_NUM_THREADS", "2");
            cmd.args(["run", level]).arg(path);
            if matches!(how, Native::O0) {
                cmd.arg("--verify-each");
            }
            cmd
        }
        Native::Coroutines => {
            let mut cmd = parc();
            cmd.env("PARC_NUM_THREADS", "2")
                .env("PARC_KERNEL_COROUTINES", "1");
            cmd.arg("run").arg(path);
            cmd
        }
        Native::Ir => {
            let ir = scratch_dir()?.join(format!("{stem}.pir"));
            build_with_parc(path, &["--emit", "ir"], &ir)?;
            let mut cmd = parc();
            cmd.env("PARC_NUM_THREADS", "2");
            cmd.arg("run").arg(ir);
            cmd
        }
        // Every (program, mode, workers) trial builds its own files: trials
        // run concurrently.
        Native::Exe(workers) => {
            let exe = scratch_dir()?.join(format!("{stem}.w{workers}.exe"));
            build_with_parc(path, &["--emit", "exe"], &exe)?;
            let mut cmd = Command::new(&exe);
            cmd.current_dir(root())
                .env("PARC_NUM_THREADS", workers.to_string())
                .stdin(stdin_of(path)?);
            cmd.args(args);
            let out = run_with_timeout(cmd, limit);
            let _ = std::fs::remove_file(&exe);
            return Ok(out?.0);
        }
        Native::Lib(workers) => {
            let dir = scratch_dir()?.join(format!("w{workers}"));
            std::fs::create_dir_all(&dir)?;
            let lib = dir.join(format!("lib{stem}.so"));
            build_with_parc(path, &["--emit", "lib"], &lib)?;
            let driver_c = dir.join(format!("{stem}_driver.c"));
            std::fs::write(
                &driver_c,
                format!(
                    "#include \"lib{stem}.h\"\nint main(int argc, char **argv) {{ return parc_main(argc, argv); }}\n"
                ),
            )?;
            let driver = dir.join(format!("{stem}_driver"));
            let stdin = stdin_of(path)?;
            return run_c_driver(&driver_c, &[], &lib, &driver, args, workers, limit, stdin);
        }
    };
    if !matches!(how, Native::Ir) {
        cmd.args(flags_of(path));
    }
    cmd.arg("--").args(args).stdin(stdin_of(path)?);
    Ok(run_with_timeout(cmd, limit)?.0)
}

fn build_with_parc(path: &Path, flags: &[&str], out: &Path) -> Result<(), Failed> {
    let mut cmd = parc();
    cmd.arg("build")
        .arg(path)
        .args(flags)
        .args(flags_of(path))
        .arg("-o")
        .arg(out);
    let (built, _) = run_with_timeout(cmd, Duration::from_secs(120))?;
    if !built.status.success() {
        return Err(format!(
            "parc build failed:\n{}",
            String::from_utf8_lossy(&built.stderr)
        )
        .into());
    }
    Ok(())
}

/// A sample run natively must print its expected output exactly.
fn check_sample_native(path: &Path, how: Native) -> Result<(), Failed> {
    let exp = expectations(path)?;
    let out = run_native(path, &exp.args, how)?;
    status_and_stdout_as_expected(path, &exp, &out)
}

/// A native run's exit status is the expected one and its stdout is
/// `NAME.stdout` (the interpreter's).
fn status_and_stdout_as_expected(
    path: &Path,
    exp: &Expectations,
    out: &Output,
) -> Result<(), Failed> {
    expect_status(out, exp)?;
    let expected = std::fs::read_to_string(root().join(path.with_extension("stdout")))?;
    let actual = String::from_utf8_lossy(&out.stdout);
    if expected != actual {
        return Err(format!(
            "stdout differs (- expected, + actual):\n{}",
            diff(&expected, &actual)
        )
        .into());
    }
    Ok(())
}

/// The run exited with the expected status (else the error shows stderr).
fn expect_status(out: &Output, exp: &Expectations) -> Result<(), Failed> {
    if status_of(out) == exp.exit {
        return Ok(());
    }
    Err(format!(
        "exit status {} (expected {}); stderr:\n{}",
        status_of(out),
        exp.exit,
        String::from_utf8_lossy(&out.stderr)
    )
    .into())
}

/// A fault test run natively (`how`): same stdout and status as the
/// interpreter, and a fault is reported as one.
fn check_runtime_native(path: &Path, how: Native) -> Result<(), Failed> {
    let exp = expectations(path)?;
    let out = run_native(path, &exp.args, how)?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    status_and_stdout_as_expected(path, &exp, &out)?;
    let interp_stderr =
        std::fs::read_to_string(root().join(path.with_extension("stderr"))).unwrap_or_default();
    let source = std::fs::read_to_string(root().join(path))?;
    match directive(&source, "native-stderr") {
        Some(prefix) if !stderr.starts_with(&prefix) => {
            Err(format!("stderr does not start with `{prefix}`; stderr:\n{stderr}").into())
        }
        Some(_) => Ok(()),
        None if stderr != interp_stderr => Err(format!(
            "stderr differs from the interpreter's ({}):\n{stderr}",
            path.with_extension("stderr").display()
        )
        .into()),
        None => Ok(()),
    }
}

/// A kernel test in the interpreter: stdout, status and stderr (empty
/// unless there is a `NAME.stderr`) as expected.
fn check_kernel(path: &Path) -> Result<(), Failed> {
    let (exp, stderr) = interp_as_expected(path, Duration::from_secs(120))?;
    let stderr_path = path.with_extension("stderr");
    if exp.exit != 0 || root().join(&stderr_path).exists() {
        compare_file(&stderr_path, &stderr, "stderr")?;
    } else if !stderr.is_empty() {
        return Err(format!("unexpected stderr:\n{stderr}").into());
    }
    Ok(())
}

/// A kernel test run natively (`how`): as the interpreter (see the
/// module doc for what stderr must be).
fn check_kernel_native(path: &Path, how: Native) -> Result<(), Failed> {
    let exp = expectations(path)?;
    let source = std::fs::read_to_string(root().join(path))?;
    let out = run_native(path, &exp.args, how)?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    status_and_stdout_as_expected(path, &exp, &out)?;
    let interp_stderr =
        std::fs::read_to_string(root().join(path.with_extension("stderr"))).unwrap_or_default();
    let prefix = match how {
        Native::Coroutines if !interp_stderr.is_empty() => Some("run-time error".to_string()),
        _ => directive(&source, "native-stderr"),
    };
    match prefix {
        Some(p) if !stderr.starts_with(&p) => {
            Err(format!("stderr does not start with `{p}`:\n{stderr}").into())
        }
        Some(_) => Ok(()),
        None if stderr != interp_stderr => Err(format!(
            "stderr differs from the interpreter's:\n{}",
            diff(&interp_stderr, &stderr)
        )
        .into()),
        None => Ok(()),
    }
}

fn check_stress(path: &Path, workers: u32) -> Result<(), Failed> {
    let source = std::fs::read_to_string(root().join(path))?;
    let repeat: u32 = directive(&source, "repeat")
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    for _ in 0..repeat {
        check_sample_native(path, Native::Jit(workers))?;
    }
    Ok(())
}

// ------------------------------------------------------------------ gradients

/// How a gradient check is run.
#[derive(Clone, Copy, PartialEq)]
enum GradRun {
    /// `parc run --interp`: the reference the others are compared with.
    Interp,
    /// `parc run` with this many workers.
    Jit(u32),
    /// `--ad-before-opt`, interpreted (checked memory) or native.
    AdBeforeOpt { native: bool },
    /// `-O0`, interpreted or native.
    O0 { native: bool },
    /// `-O1`, native: the level where nothing hoists a loop's constants.
    O1,
    /// `parc run --serial`: the AD differentiates the serial elision.
    Serial,
}

impl GradRun {
    const ALL: [GradRun; 10] = [
        GradRun::Interp,
        GradRun::Jit(1),
        GradRun::Jit(2),
        GradRun::Jit(8),
        GradRun::AdBeforeOpt { native: false },
        GradRun::AdBeforeOpt { native: true },
        GradRun::O0 { native: false },
        GradRun::O0 { native: true },
        GradRun::O1,
        GradRun::Serial,
    ];

    fn label(self) -> String {
        let where_ = |native: bool| if native { "jit" } else { "interp" };
        match self {
            GradRun::Interp => "interp".into(),
            GradRun::Jit(n) => format!("jit-{n}"),
            GradRun::AdBeforeOpt { native } => format!("ad-before-opt-{}", where_(native)),
            GradRun::O0 { native } => format!("O0-{}", where_(native)),
            GradRun::O1 => "O1-jit".into(),
            GradRun::Serial => "serial".into(),
        }
    }

    fn command(self, path: &Path) -> Command {
        let mut cmd = parc();
        cmd.args(["run", "--color=never"]);
        let native = match self {
            GradRun::Interp => false,
            GradRun::Jit(n) => {
                cmd.env("PARC_NUM_THREADS", n.to_string());
                true
            }
            GradRun::AdBeforeOpt { native } => {
                cmd.arg("--ad-before-opt");
                native
            }
            GradRun::O0 { native } => {
                cmd.arg("-O0");
                native
            }
            GradRun::O1 => {
                cmd.arg("-O1");
                true
            }
            GradRun::Serial => {
                cmd.arg("--serial");
                true
            }
        };
        if native {
            // Several workers, so parallel accumulation is exercised.
            if !matches!(self, GradRun::Jit(_) | GradRun::Serial) {
                cmd.env("PARC_NUM_THREADS", "4");
            }
        } else {
            cmd.arg("--interp");
        }
        cmd.args(flags_of(path));
        cmd.arg(path);
        cmd
    }
}

/// The output of one gradient run (stdout), or why it failed.
fn grad_stdout(path: &Path, how: GradRun) -> Result<String, String> {
    let exp = expectations(path).map_err(|e| format!("{e:?}"))?;
    let mut cmd = how.command(path);
    cmd.arg("--").args(&exp.args);
    let (out, _) = run_with_timeout(cmd, Duration::from_secs(120)).map_err(|e| format!("{e:?}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if status_of(&out) != exp.exit {
        return Err(format!(
            "{}: exit status {} (expected {}); stderr:\n{stderr}",
            how.label(),
            status_of(&out),
            exp.exit
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The interpreter's output for `path`, computed once and shared by every
/// run of it (the trials run on several threads).
fn grad_reference(path: &Path) -> Result<String, String> {
    type Cell = Arc<OnceLock<Result<String, String>>>;
    static RUNS: OnceLock<Mutex<HashMap<PathBuf, Cell>>> = OnceLock::new();
    let cell = {
        let mut map = RUNS
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        map.entry(path.to_path_buf()).or_default().clone()
    };
    cell.get_or_init(|| grad_stdout(path, GradRun::Interp))
        .clone()
}

/// One `check NAME ANALYTIC FD` line (the name may contain spaces).
struct GradCheck {
    name: String,
    analytic: f64,
    fd: f64,
}

/// Splits a gradient program's output into its checks and the other lines.
fn split_checks(stdout: &str) -> Result<(Vec<GradCheck>, String), Failed> {
    let mut checks = Vec::new();
    let mut rest = String::new();
    for line in stdout.lines() {
        let Some(body) = line.strip_prefix("check ") else {
            rest.push_str(line);
            rest.push('\n');
            continue;
        };
        let mut fields = body.rsplitn(3, ' ');
        let (Some(fd), Some(analytic), Some(name)) = (fields.next(), fields.next(), fields.next())
        else {
            return Err(format!("malformed check line `{line}`").into());
        };
        let num = |s: &str| {
            s.parse::<f64>()
                .map_err(|_| format!("malformed number `{s}` in `{line}`"))
        };
        checks.push(GradCheck {
            name: name.trim().to_string(),
            analytic: num(analytic)?,
            fd: num(fd)?,
        });
    }
    Ok((checks, rest))
}

/// |a − b| ≤ bound; false when either is NaN (a NaN gradient fails).
fn within(a: f64, b: f64, bound: f64) -> bool {
    (a - b).abs().partial_cmp(&bound).is_some_and(|o| o.is_le())
}

/// Every analytic gradient within `tol` of its finite difference.
fn check_tolerances(checks: &[GradCheck], tol: f64) -> Result<(), Failed> {
    let bad: Vec<String> = checks
        .iter()
        .filter(|c| !within(c.analytic, c.fd, tol * (1.0 + c.fd.abs())))
        .map(|c| {
            format!(
                "  {}: analytic {:e}, finite difference {:e}",
                c.name, c.analytic, c.fd
            )
        })
        .collect();
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} of {} gradients differ from finite differences by more than {tol:e} (1 + |fd|):\n{}",
            bad.len(),
            checks.len(),
            bad.join("\n")
        )
        .into())
    }
}

/// The modes named by a `// unsupported: MODES: reason` line (`all`, or
/// labels such as `O0-jit`), in which the program must be refused with a
/// "cannot differentiate" diagnostic: the AD's promise for constructs it
/// does not handle yet is a diagnostic, never a wrong gradient.
fn unsupported_in(source: &str, how: GradRun) -> bool {
    directive(source, "unsupported").is_some_and(|line| {
        let modes = line.split(':').next().unwrap_or("");
        modes
            .split([',', ' '])
            .any(|m| m == "all" || m == how.label())
    })
}

fn check_refused(path: &Path, how: GradRun) -> Result<(), Failed> {
    let exp = expectations(path)?;
    let mut cmd = how.command(path);
    cmd.arg("--").args(&exp.args);
    let (out, _) = run_with_timeout(cmd, Duration::from_secs(120))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if status_of(&out) == 0 {
        return Err(
            "differentiated without error: if the gradients are right, remove the \
             `// unsupported:` line for this mode"
                .into(),
        );
    }
    if status_of(&out) != 1 || !stderr.contains("cannot differentiate") {
        return Err(format!(
            "expected a `cannot differentiate` diagnostic and status 1, got status {}:\n{stderr}",
            status_of(&out)
        )
        .into());
    }
    Ok(())
}

fn check_grad(path: &Path, how: GradRun) -> Result<Completion, Failed> {
    let source = std::fs::read_to_string(root().join(path))?;
    if unsupported_in(&source, how) {
        check_refused(path, how)?;
        return Ok(Completion::Completed);
    }
    let tol = match directive(&source, "tol") {
        Some(t) => t
            .parse::<f64>()
            .map_err(|_| format!("bad `// tol:` directive `{t}`"))?,
        None => 1e-5,
    };
    // Native runs of parallel programs repeat (`// repeat: N`): a race in
    // generated adjoint code shows up only now and then (never in the
    // serial elision, which has no tasks).
    let repeat: u32 = match (how, directive(&source, "repeat")) {
        (
            GradRun::Interp
            | GradRun::AdBeforeOpt { native: false }
            | GradRun::O0 { native: false }
            | GradRun::Serial,
            _,
        )
        | (_, None) => 1,
        (_, Some(n)) => n
            .parse()
            .map_err(|_| format!("bad `// repeat:` directive `{n}`"))?,
    };
    // When the reference mode is refused, the other modes are still held to
    // the finite differences and the expected lines, just not to it.
    let has_reference = !unsupported_in(&source, GradRun::Interp);
    for _ in 0..repeat {
        check_grad_once(path, how, tol, has_reference)?;
    }
    Ok(Completion::Completed)
}

fn check_grad_once(path: &Path, how: GradRun, tol: f64, has_reference: bool) -> Result<(), Failed> {
    let stdout = if how == GradRun::Interp {
        grad_reference(path)?
    } else {
        grad_stdout(path, how)?
    };
    let (checks, rest) = split_checks(&stdout)?;
    if checks.is_empty() {
        return Err("no `check` lines: the program checks no gradient".into());
    }
    check_tolerances(&checks, tol)?;
    let expected = path.with_extension("stdout");
    if how == GradRun::Interp {
        compare_file(&expected, &rest, "the lines other than `check`")?;
    } else if !has_reference {
        let want = std::fs::read_to_string(root().join(&expected))?;
        if want != rest {
            return Err(format!(
                "the lines other than `check` differ (- expected, + actual):\n{}",
                diff(&want, &rest)
            )
            .into());
        }
    } else {
        // Blessing writes the file from the interpreter's run; compare with
        // that run then, so the trials need not wait for each other.
        let reference = grad_reference(path)
            .map_err(|e| format!("the interpreter's run (the reference) failed: {e}"))?;
        let (ref_checks, ref_rest) = split_checks(&reference)?;
        let want = if blessing() {
            ref_rest
        } else {
            std::fs::read_to_string(root().join(&expected))?
        };
        if want != rest {
            return Err(format!(
                "the lines other than `check` differ (- expected, + actual):\n{}",
                diff(&want, &rest)
            )
            .into());
        }
        if ref_checks.len() != checks.len() {
            return Err(format!(
                "{} check lines, but the interpreter printed {}",
                checks.len(),
                ref_checks.len()
            )
            .into());
        }
        // Reassociated sums differ in the last bits; the absolute floor
        // covers sums that cancel to (nearly) zero.
        for (c, r) in checks.iter().zip(&ref_checks) {
            let scale = c.analytic.abs().max(r.analytic.abs());
            if !within(c.analytic, r.analytic, 1e-9 * scale + 1e-15) {
                return Err(format!(
                    "{}: {:e}, but the interpreter computed {:e}",
                    c.name, c.analytic, r.analytic
                )
                .into());
            }
        }
    }
    Ok(())
}

/// The C driver of the `grad-lib::` test: calls the exported gradients of
/// `samples/normalize.pc` (`mag` and `normalize`) and `samples/nbody.pc`
/// (`energy`, over an array of `struct Body`: 8 doubles' worth each, the
/// last holding the `int` id) and compares them with central differences
/// of the functions themselves.
const GRAD_LIB_DRIVER: &str = r#"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include HEADER

static double h_of(double x) { return 1e-6 * (fabs(x) > 1.0 ? fabs(x) : 1.0); }

static void check(const char *name, double analytic, double fd) {
    printf("check %s %.17g %.17g\n", name, analytic, fd);
}

#if MAG
int main(void) {
    enum { N = 7 };
    double in[N], din[N];
    for (int i = 0; i < N; i++) {
        in[i] = 0.5 + 0.3 * i - 0.1 * i * i;
        din[i] = 0.0;
    }
    grad_mag(in, din, N);
    for (int j = 0; j < N; j++) {
        double old = in[j], h = h_of(old);
        in[j] = old + h; double up = mag(in, N);
        in[j] = old - h; double down = mag(in, N);
        in[j] = old;
        check("grad_mag", din[j], (up - down) / (2 * h));
    }
    /* normalize: the objective is sum w[i] * out[i]; dout holds w (and is
       consumed), din receives the gradient. */
    double out[N], dout[N], w[N], dn[N];
    for (int i = 0; i < N; i++) {
        w[i] = 1.0 + (i % 3);
        dout[i] = w[i];
        dn[i] = 0.0;
    }
    grad_normalize(out, dout, in, dn, N);
    for (int j = 0; j < N; j++) {
        double old = in[j], h = h_of(old), up = 0.0, down = 0.0;
        in[j] = old + h; normalize(out, in, N);
        for (int i = 0; i < N; i++) up += w[i] * out[i];
        in[j] = old - h; normalize(out, in, N);
        for (int i = 0; i < N; i++) down += w[i] * out[i];
        in[j] = old;
        check("grad_normalize", dn[j], (up - down) / (2 * h));
    }
    return 0;
}
#else
int main(void) {
    enum { N = 4, STRIDE = 8 };
    double b[N * STRIDE], db[N * STRIDE];
    memset(b, 0, sizeof b);
    memset(db, 0, sizeof db);
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < 6; k++) b[i * STRIDE + k] = sin(1.7 * i + 0.9 * k);
        b[i * STRIDE + 6] = 1.0 + 0.5 * i;
    }
    grad_energy(b, db, N);
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < 7; k++) {
            double *p = &b[i * STRIDE + k], old = *p, h = h_of(old);
            *p = old + h; double up = energy(b, N);
            *p = old - h; double down = energy(b, N);
            *p = old;
            check("grad_energy", db[i * STRIDE + k], (up - down) / (2 * h));
        }
    }
    return 0;
}
#endif
"#;

/// Compiles the C driver `source` (with `defines`) by `cc` against the
/// shared library `lib`, whose header is beside it, as `driver`, and runs
/// it with `args` at `workers` workers in the repository's root (killed
/// after `limit`); its output, whatever its status.
// The driver's build inputs and its run's settings, each used once.
#[allow(clippy::too_many_arguments)]
fn run_c_driver(
    source: &Path,
    defines: &[String],
    lib: &Path,
    driver: &Path,
    args: &[String],
    workers: u32,
    limit: Duration,
    stdin: Stdio,
) -> Result<std::process::Output, Failed> {
    let dir = lib.parent().unwrap_or(Path::new("."));
    let cc = Command::new("cc")
        .arg(source)
        .args(defines)
        .arg("-I")
        .arg(dir)
        .arg("-o")
        .arg(driver)
        .arg(lib)
        .arg(format!("-Wl,-rpath,{}", dir.display()))
        .arg("-lm")
        .output()?;
    if !cc.status.success() {
        return Err(format!(
            "compiling the C driver failed:\n{}",
            String::from_utf8_lossy(&cc.stderr)
        )
        .into());
    }
    let mut cmd = Command::new(driver);
    cmd.current_dir(root())
        .env("PARC_NUM_THREADS", workers.to_string())
        .stdin(stdin)
        .args(args);
    let out = run_with_timeout(cmd, limit);
    // A library and its driver embed the runtime (megabytes each); a full
    // run builds about a thousand of them, so each goes once it has run.
    for file in [lib, &lib.with_extension("h"), driver] {
        let _ = std::fs::remove_file(file);
    }
    Ok(out?.0)
}

/// `out` ended with status `expected`; otherwise an error with its stderr.
fn driver_status(out: &std::process::Output, expected: i32) -> Result<(), Failed> {
    if out.status.code() == Some(expected) {
        return Ok(());
    }
    Err(format!(
        "the C driver ended with {} (expected status {expected}):\n{}",
        status_of(out),
        String::from_utf8_lossy(&out.stderr)
    )
    .into())
}

/// `parc build tests/lib/NAME.pc --emit lib`, then its C driver `NAME.c`
/// at `workers` workers.
fn check_c_library(path: &Path, workers: u32) -> Result<(), Failed> {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = scratch_dir()?.join(format!("clib{workers}"));
    std::fs::create_dir_all(&dir)?;
    let lib = dir.join(format!("lib{stem}.so"));
    build_with_parc(path, &["--emit", "lib"], &lib)?;
    let driver = dir.join(format!("{stem}_driver"));
    let source = root().join(path.with_extension("c"));
    let limit = Duration::from_secs(60);
    let out = run_c_driver(
        &source,
        &[],
        &lib,
        &driver,
        &[],
        workers,
        limit,
        Stdio::null(),
    )?;
    let exp = expectations(path)?;
    driver_status(&out, exp.exit)?;
    compare_file(
        &path.with_extension("stdout"),
        &String::from_utf8_lossy(&out.stdout),
        "stdout",
    )?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if exp.exit != 0 {
        compare_file(&path.with_extension("stderr"), &stderr, "stderr")
    } else if stderr.is_empty() {
        Ok(())
    } else {
        Err(format!("unexpected stderr:\n{stderr}").into())
    }
}

/// `parc build SAMPLE --grad F... --emit lib`, then the C driver.
fn check_grad_lib(sample: &str, grads: &[&str], serial: bool) -> Result<Completion, Failed> {
    let path = Path::new("samples").join(format!("{sample}.pc"));
    let dir = scratch_dir()?;
    // One name per build, so the two trials of a sample never share files.
    let name = if serial {
        format!("grad_{sample}_serial")
    } else {
        format!("grad_{sample}")
    };
    let lib = dir.join(format!("lib{name}.so"));
    let mut flags = vec!["--emit", "lib"];
    if serial {
        flags.push("--serial");
    }
    for g in grads {
        flags.extend(["--grad", g]);
    }
    build_with_parc(&path, &flags, &lib)?;
    let driver_c = dir.join(format!("{name}_driver.c"));
    std::fs::write(&driver_c, GRAD_LIB_DRIVER)?;
    let driver = dir.join(format!("{name}_driver"));
    let defines = [
        format!("-DHEADER=\"lib{name}.h\""),
        format!("-DMAG={}", i32::from(sample == "normalize")),
    ];
    let out = run_c_driver(
        &driver_c,
        &defines,
        &lib,
        &driver,
        &[],
        2,
        Duration::from_secs(60),
        Stdio::null(),
    )?;
    driver_status(&out, 0)?;
    let (checks, _) = split_checks(&String::from_utf8_lossy(&out.stdout))?;
    if checks.is_empty() {
        return Err("the driver checked nothing".into());
    }
    check_tolerances(&checks, 1e-5)?;
    Ok(Completion::Completed)
}

fn name_of(path: &Path) -> String {
    path.with_extension("").display().to_string()
}

fn main() {
    let args = Arguments::from_args();
    let gcc = gcc_available();
    let mut trials = Vec::new();
    for path in programs("tests/vec") {
        for (ext, flags) in REMARK_SPELLINGS {
            // Blessing makes `--explain-vec`'s file for every program.
            if root().join(path.with_extension(ext)).exists() || (blessing() && ext == "remarks") {
                let p = path.clone();
                trials.push(Trial::test(
                    format!("vec-{ext}::{}", name_of(&path)),
                    move || check_remarks(&p, ext, flags),
                ));
            }
        }
    }
    // `tests/vec/` programs run as samples do.
    for path in programs("samples").into_iter().chain(programs("tests/vec")) {
        let p = path.clone();
        trials.push(Trial::test(
            format!("interp::{}", name_of(&path)),
            move || check_sample(&p),
        ));
        let p = path.clone();
        trials.push(Trial::test(
            format!("interp-O0::{}", name_of(&path)),
            move || check_sample_with(&p, &["-O0"]),
        ));
        for how in Native::EVERY_ENTRY.into_iter().chain([
            Native::Serial,
            Native::Ir,
            Native::O0,
            Native::O1,
        ]) {
            let p = path.clone();
            trials.push(Trial::test(
                format!("{}::{}", how.label(), name_of(&path)),
                move || check_sample_native(&p, how),
            ));
        }
        if !gcc_cannot_build(&path) {
            // `// openmp: skip (why)`: OpenMP's loop semantics differ from
            // the serial projection's, which parc follows.
            let variants: &[bool] = if marked_skip(&path, "openmp") {
                &[false]
            } else {
                &[false, true]
            };
            for &openmp in variants {
                let p = path.clone();
                let label = if openmp { "gcc-openmp" } else { "gcc" };
                trials.push(
                    Trial::test(format!("{label}::{}", name_of(&path)), move || {
                        check_against_gcc(&p, openmp)
                    })
                    .with_ignored_flag(!gcc),
                );
            }
        }
    }
    if !gcc {
        eprintln!("note: gcc not found; the gcc-oracle tests are skipped");
    }
    for path in files("tests/ir", "pir") {
        let p = path.clone();
        trials.push(Trial::test(
            format!("ir-interp::{}", name_of(&path)),
            move || check_sample(&p),
        ));
        for workers in [1, 2, 8] {
            let p = path.clone();
            trials.push(Trial::test(
                format!("ir-jit-{workers}::{}", name_of(&path)),
                move || check_sample_native(&p, Native::Jit(workers)),
            ));
        }
    }
    for path in programs("tests/grad") {
        if let Some(values) = tape_stats::values(&path) {
            let p = path.clone();
            trials.push(Trial::test(
                format!("tape-stats::{}", name_of(&path)),
                move || tape_stats::check(&p, &values?),
            ));
        }
    }
    for path in programs("tests/grad") {
        if root().join(path.with_extension("tape")).exists() || blessing() {
            trials.push(Trial::test(
                format!("tape::{}", name_of(&path)),
                move || check_tape(&path),
            ));
        }
    }
    for path in programs("tests/grad") {
        if root().join(path.with_extension("ad")).exists() {
            trials.push(Trial::test(
                format!("explain-ad::{}", name_of(&path)),
                move || check_explain_ad(&path),
            ));
        }
    }
    for path in programs("tests/time_passes") {
        trials.push(Trial::test(
            format!("time-passes::{}", name_of(&path)),
            move || time_passes::check(&path),
        ));
    }
    for path in programs("tests/bad")
        .into_iter()
        .chain(files("tests/bad", "pir"))
    {
        trials.push(Trial::test(format!("bad::{}", name_of(&path)), move || {
            check_bad(&path)
        }));
    }
    for path in programs("tests/run") {
        let p = path.clone();
        trials.push(
            Trial::test(format!("run::{}", name_of(&path)), move || {
                check_runtime(&p)
            })
            .with_ignored_flag(marked_skip(&path, "interp")),
        );
        if !marked_skip(&path, "native") {
            // The serial elision must fault alike (unbounded recursion
            // included: it must still overflow the stack).
            for how in Native::EVERY_ENTRY.into_iter().chain([Native::Serial]) {
                let p = path.clone();
                trials.push(Trial::test(
                    format!("run-{}::{}", how.label(), name_of(&path)),
                    move || check_runtime_native(&p, how),
                ));
            }
        }
    }
    for path in programs("tests/kernels") {
        let p = path.clone();
        trials.push(Trial::test(
            format!("kernel::{}", name_of(&path)),
            move || check_kernel(&p),
        ));
        let no_coroutines = marked_skip(&path, "coroutines");
        for how in Native::EVERY_ENTRY.into_iter().chain([
            Native::O0,
            Native::O1,
            Native::Serial,
            Native::Coroutines,
        ]) {
            let p = path.clone();
            let skip = no_coroutines && matches!(how, Native::Coroutines);
            trials.push(
                Trial::test(
                    format!("kernel-{}::{}", how.label(), name_of(&path)),
                    move || check_kernel_native(&p, how),
                )
                .with_ignored_flag(skip),
            );
        }
    }
    for path in programs("tests/stress") {
        for workers in [1, 2, 8] {
            let p = path.clone();
            trials.push(Trial::test(
                format!("stress-{workers}::{}", name_of(&path)),
                move || check_stress(&p, workers),
            ));
        }
        // The serial elision of a million tasks is a million calls in
        // one frame's loops: nothing to repeat, but it must agree.
        trials.push(Trial::test(
            format!("stress-serial::{}", name_of(&path)),
            move || check_sample_native(&path, Native::Serial),
        ));
    }
    for path in programs("tests/grad") {
        for how in GradRun::ALL {
            let p = path.clone();
            trials.push(Trial::ignorable_test(
                format!("grad::{}::{}", how.label(), name_of(&path)),
                move || check_grad(&p, how),
            ));
        }
    }
    for (sample, grads) in [
        ("normalize", &["mag", "normalize"][..]),
        ("nbody", &["energy"][..]),
    ] {
        trials.push(Trial::ignorable_test(
            format!("grad-lib::samples/{sample}"),
            move || check_grad_lib(sample, grads, false),
        ));
        trials.push(Trial::ignorable_test(
            format!("grad-lib-serial::samples/{sample}"),
            move || check_grad_lib(sample, grads, true),
        ));
    }
    for path in programs("tests/lib") {
        for workers in [1, 2, 8] {
            let p = path.clone();
            trials.push(Trial::test(
                format!("clib-{workers}::{}", name_of(&path)),
                move || check_c_library(&p, workers),
            ));
        }
    }
    ports::trials(&mut trials);
    trials.push(Trial::test("cli::output-is-not-the-input", || {
        check_output_is_not_the_input()
    }));
    trials.push(Trial::test("cli::gcc-spellings", check_gcc_spellings));
    trials.push(Trial::test("cli::link-libraries", check_link_libraries));
    trials.push(Trial::test("cli::cc-archives-warnings", check_cc_archives));
    for dir in multi_file_programs() {
        for how in Multi::EVERY {
            if how == Multi::Gcc
                && (!gcc
                    || multi_sources(&dir)
                        .unwrap_or_default()
                        .iter()
                        .any(|f| gcc_cannot_build(f)))
            {
                continue;
            }
            let d = dir.clone();
            trials.push(Trial::test(
                format!("multi-{}::{}", how.label(), dir.display()),
                move || check_multi(&d, how),
            ));
        }
    }
    let conclusion = libtest_mimic::run(&args, trials);
    let _ = std::fs::remove_dir_all(
        std::env::temp_dir().join(format!("parc-tests-{}", std::process::id())),
    );
    conclusion.exit();
}

/// gcc's and clang's spellings: `-c` writes a relocatable object; `-O`
/// (alone: `-O1`), `-O3`, `-Os`, `-Og`, `-Ofast` and parc's older `--O2`
/// build and run the program; `-g` is accepted with a warning that no
/// debug information is made, `-g0` without one.
fn check_gcc_spellings() -> Result<(), Failed> {
    let sample = "samples/fib.pc";
    let expected = std::fs::read_to_string(root().join("samples/fib.stdout"))?;
    let object = scratch_dir()?.join("fib.o");
    let mut cmd = parc();
    cmd.args(["build", "-c", "-O", "-g3", sample, "-o"])
        .arg(&object);
    let (out, _) = run_with_timeout(cmd, Duration::from_secs(120))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if status_of(&out) != 0 || !stderr.contains("`-g`: parc does not emit debug information") {
        return Err(format!("build -c: status {}, stderr:\n{stderr}", status_of(&out)).into());
    }
    let bytes = std::fs::read(&object)?;
    let _ = std::fs::remove_file(&object);
    // ELF, e_type ET_REL (1): a relocatable object, not an executable.
    if !bytes.starts_with(b"\x7fELF") || bytes.get(16..18) != Some(&[1, 0][..]) {
        return Err("`-c` did not write a relocatable ELF object".into());
    }
    for level in [
        &["-O3", "-g0"][..],
        &["-Os"],
        &["-Og"],
        &["-Ofast"],
        &["--O2"],
    ] {
        let mut cmd = parc();
        cmd.arg("run").args(level).arg(sample);
        let (out, _) = run_with_timeout(cmd, Duration::from_secs(120))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        if status_of(&out) != 0 || stdout != expected || !out.stderr.is_empty() {
            return Err(format!(
                "run {level:?}: status {}, stdout:\n{stdout}\nstderr:\n{}",
                status_of(&out),
                String::from_utf8_lossy(&out.stderr)
            )
            .into());
        }
    }
    Ok(())
}

/// `-l` and `-L` as gcc takes them: `-lm` is accepted everywhere (every
/// program has libm), a user's static library is linked into an
/// executable, and `parc run` refuses a library its process lacks.
fn check_link_libraries() -> Result<(), Failed> {
    let dir = scratch_dir()?.join("link-libraries");
    std::fs::create_dir_all(&dir)?;
    let sample = "samples/fib.pc";
    let expected = std::fs::read_to_string(root().join("samples/fib.stdout"))?;
    let mut cmd = parc();
    cmd.args(["run", "-lm", "-lpthread", sample]);
    let (out, _) = run_with_timeout(cmd, Duration::from_secs(120))?;
    if status_of(&out) != 0 || String::from_utf8_lossy(&out.stdout) != expected {
        return Err(format!(
            "run -lm: status {}, stderr:\n{}",
            status_of(&out),
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    let mut cmd = parc();
    cmd.args(["run", "-lparc_no_such_lib", sample]);
    let (out, _) = run_with_timeout(cmd, Duration::from_secs(120))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if status_of(&out) != 1 || !stderr.contains("`-lparc_no_such_lib`: `parc run`") {
        return Err(format!(
            "run -lparc_no_such_lib: status {}, stderr:\n{stderr}",
            status_of(&out)
        )
        .into());
    }
    // A C library of the user's, built by the system's C compiler.
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    std::fs::write(
        dir.join("twice.c"),
        "double twice(double x) { return 2.0 * x; }\n",
    )?;
    let object = dir.join("twice.o");
    let built = Command::new(&cc)
        .args(["-c", "-o"])
        .arg(&object)
        .arg(dir.join("twice.c"))
        .status();
    if !built.is_ok_and(|s| s.success()) {
        eprintln!("cli::link-libraries: skipped the user library: `{cc}` cannot compile C");
        return Ok(());
    }
    let archived = Command::new("ar")
        .arg("rcs")
        .arg(dir.join("libtwice.a"))
        .arg(&object)
        .status();
    if !archived.is_ok_and(|s| s.success()) {
        eprintln!("cli::link-libraries: skipped the user library: no `ar`");
        return Ok(());
    }
    let program = dir.join("uses_twice.pc");
    std::fs::write(
        &program,
        "double twice(double x);\nint main() { printf(\"%g\\n\", twice(21.0)); return 0; }\n",
    )?;
    let exe = dir.join("uses_twice");
    let mut cmd = parc();
    cmd.arg("build")
        .arg(&program)
        .arg("-L")
        .arg(&dir)
        .args(["-ltwice", "-lm", "-o"])
        .arg(&exe);
    let (out, _) = run_with_timeout(cmd, Duration::from_secs(120))?;
    if status_of(&out) != 0 {
        return Err(format!(
            "build -L DIR -ltwice: status {}, stderr:\n{}",
            status_of(&out),
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    let (out, _) = run_with_timeout(Command::new(&exe), Duration::from_secs(60))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let _ = std::fs::remove_dir_all(&dir);
    if stdout != "42\n" {
        return Err(format!("the program linked with libtwice printed {stdout:?}").into());
    }
    Ok(())
}

/// `parc cc` as a Makefile uses it: `-c` of several files, `ar rcs` of
/// the parc objects, then the archive linked by name and by `-L. -lfoo`
/// (only the members the program needs: one that defines a second `main`
/// is left out, as a linker leaves it);
/// `-w` silences the warnings, `-Werror` makes them errors (status 1),
/// `-MD` warns that no dependency file is written.
fn check_cc_archives() -> Result<(), Failed> {
    let dir = scratch_dir()?.join("cc-archives");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("twice.c"), "int twice(int x) { return 2 * x; }\n")?;
    std::fs::write(
        dir.join("thrice.c"),
        "int thrice(int x) { return 3 * x; }\n",
    )?;
    std::fs::write(
        dir.join("tool.c"),
        "int twice(int x);\nint main(void) { return twice(1); }\n",
    )?;
    // `omp task` outside a region: a warning that it runs serially.
    std::fs::write(
        dir.join("main.c"),
        "#include <stdio.h>\nint twice(int x);\nint thrice(int x);\nint main(void) {\n\
         int r = 0;\n#pragma omp task\nr = twice(4) + thrice(5);\nprintf(\"%d\\n\", r);\n\
         return 0;\n}\n",
    )?;
    let cc = |args: &[&str]| -> Result<Output, Failed> {
        let mut cmd = parc();
        cmd.current_dir(&dir).arg("cc").args(args);
        Ok(run_with_timeout(cmd, Duration::from_secs(120))?.0)
    };
    let stderr = |o: &Output| String::from_utf8_lossy(&o.stderr).into_owned();
    let out = cc(&["-c", "-Wall", "-MD", "twice.c", "thrice.c", "tool.c"])?;
    if status_of(&out) != 0 || !stderr(&out).contains("does not write dependency files") {
        return Err(format!(
            "cc -c -MD: status {}, stderr:\n{}",
            status_of(&out),
            stderr(&out)
        )
        .into());
    }
    let archived = Command::new("ar")
        .current_dir(&dir)
        .args(["rcs", "libfoo.a", "twice.o", "tool.o", "thrice.o"])
        .status();
    if !archived.is_ok_and(|s| s.success()) {
        eprintln!("cli::cc-archives-warnings: skipped the archives: no `ar`");
        return Ok(());
    }
    for link in [&["libfoo.a"][..], &["-L.", "-lfoo"]] {
        let mut args = vec!["-w", "-o", "app", "main.c"];
        args.extend(link);
        let out = cc(&args)?;
        if status_of(&out) != 0 || !out.stderr.is_empty() {
            return Err(format!(
                "cc {args:?}: status {}, stderr:\n{}",
                status_of(&out),
                stderr(&out)
            )
            .into());
        }
        let (run, _) = run_with_timeout(Command::new(dir.join("app")), Duration::from_secs(60))?;
        if String::from_utf8_lossy(&run.stdout) != "23\n" {
            return Err(format!(
                "cc {args:?}: the program printed {:?}",
                String::from_utf8_lossy(&run.stdout)
            )
            .into());
        }
    }
    let out = cc(&["-Werror", "-o", "app", "main.c", "libfoo.a"])?;
    let err = stderr(&out);
    if status_of(&out) != 1
        || !err.contains("runs serially")
        || !err.contains("warnings are errors")
    {
        return Err(format!("cc -Werror: status {}, stderr:\n{err}", status_of(&out)).into());
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// The programs of several files: the folders of `tests/multi/`.
fn multi_file_programs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("tests/multi"))
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_dir())
                .map(|p| Path::new("tests/multi").join(p.file_name().unwrap_or_default()))
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

/// The source files of a program of several files, sorted.
fn multi_sources(dir: &Path) -> Result<Vec<PathBuf>, Failed> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(dir))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c" || x == "pc"))
        .map(|p| dir.join(p.file_name().unwrap_or_default()))
        .collect();
    files.sort();
    Ok(files)
}

/// How a program of several files is run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Multi {
    Interp,
    Jit(u32),
    O0,
    /// `-O1`: the optimizer's middle level (the JIT's default is `-O2`).
    O1,
    Exe,
    /// As a Makefile builds it: `parc cc -c` each file to a parc object,
    /// then `parc cc -o prog` of the objects.
    Cc,
    /// gcc on the same files through `include/parc.h`.
    Gcc,
}

impl Multi {
    const EVERY: [Multi; 8] = [
        Multi::Interp,
        Multi::Jit(1),
        Multi::Jit(8),
        Multi::O0,
        Multi::O1,
        Multi::Exe,
        Multi::Cc,
        Multi::Gcc,
    ];

    fn label(self) -> String {
        match self {
            Multi::Interp => "interp".into(),
            Multi::Jit(w) => format!("jit-{w}"),
            Multi::O0 => "O0".into(),
            Multi::O1 => "O1".into(),
            Multi::Exe => "exe".into(),
            Multi::Cc => "cc".into(),
            Multi::Gcc => "gcc".into(),
        }
    }
}

/// `tests/multi/NAME/`: its files compiled together (`parc run a.pc b.pc`,
/// `parc build a.pc b.pc -o prog`) must print `tests/multi/NAME.stdout`
/// and exit with status 0, with nothing on stderr.
fn check_multi(dir: &Path, how: Multi) -> Result<(), Failed> {
    let files = multi_sources(dir)?;
    // The first file's `// flags:` line (say, `-fopenmp`) is for every
    // parc command.
    let flags = files.first().map(|f| flags_of(f)).unwrap_or_default();
    let stem = dir.file_name().unwrap_or_default().to_string_lossy();
    let exe = scratch_dir()?.join(format!("multi-{stem}-{}", how.label()));
    let build = |cmd: &mut Command| -> Result<(), Failed> {
        let out = cmd.output()?;
        if !out.status.success() {
            return Err(format!("build failed:\n{}", String::from_utf8_lossy(&out.stderr)).into());
        }
        Ok(())
    };
    let cmd = match how {
        Multi::Interp | Multi::Jit(_) | Multi::O0 | Multi::O1 => {
            let mut cmd = parc();
            cmd.arg("run").env("PARC_NUM_THREADS", "2");
            match how {
                Multi::Interp => cmd.arg("--interp"),
                Multi::O0 => cmd.arg("-O0"),
                Multi::O1 => cmd.arg("-O1"),
                Multi::Jit(w) => cmd.env("PARC_NUM_THREADS", w.to_string()),
                _ => &mut cmd,
            };
            cmd.args(&flags).args(&files);
            cmd
        }
        Multi::Exe => {
            build(
                parc()
                    .arg("build")
                    .args(&flags)
                    .args(&files)
                    .arg("-o")
                    .arg(&exe),
            )?;
            Command::new(&exe)
        }
        Multi::Cc => {
            let objects = scratch_dir()?.join(format!("multi-{stem}-objects"));
            std::fs::create_dir_all(&objects)?;
            // gcc's flags, as a Makefile passes them.
            let cflags = ["-O2", "-Wall", "-std=c99", "-MMD", "-MP"];
            build(
                parc()
                    .current_dir(&objects)
                    .arg("cc")
                    .args(cflags)
                    .args(&flags)
                    .arg("-c")
                    .args(files.iter().map(|f| root().join(f))),
            )?;
            let mut linked: Vec<PathBuf> = files
                .iter()
                .map(|f| objects.join(f.with_extension("o").file_name().unwrap_or_default()))
                .collect();
            linked.sort();
            build(
                parc()
                    .arg("cc")
                    .args(cflags)
                    .args(&flags)
                    .arg("-o")
                    .arg(&exe)
                    .args(&linked)
                    .arg("-lm"),
            )?;
            let _ = std::fs::remove_dir_all(&objects);
            Command::new(&exe)
        }
        Multi::Gcc => {
            build(
                Command::new("gcc")
                    .current_dir(root())
                    .args(["-O2", "-fwrapv", "-include", "include/parc.h", "-x", "c"])
                    .args(&files)
                    .arg("-o")
                    .arg(&exe)
                    .arg("-lm"),
            )?;
            Command::new(&exe)
        }
    };
    let result = run_with_timeout(cmd, Duration::from_secs(120));
    let _ = std::fs::remove_file(&exe);
    let (out, _) = result?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if status_of(&out) != 0 || !stderr.is_empty() {
        return Err(format!("status {}, stderr:\n{stderr}", status_of(&out)).into());
    }
    compare_file(
        &dir.with_extension("stdout"),
        &String::from_utf8_lossy(&out.stdout),
        "the program's output",
    )
}

/// `parc build x.pir --emit ir` would write its output over its input by
/// default: refused with a message, the file untouched (so with `-o`).
fn check_output_is_not_the_input() -> Result<(), Failed> {
    let ir = scratch_dir()?.join("own_output.pir");
    let text = std::fs::read_to_string(root().join("tests/ir/set_gradient.pir"))?;
    std::fs::write(&ir, &text)?;
    for explicit in [false, true] {
        let mut cmd = parc();
        cmd.arg("build").arg(&ir).args(["--emit", "ir"]);
        if explicit {
            cmd.arg("-o").arg(&ir);
        }
        let (out, _) = run_with_timeout(cmd, Duration::from_secs(60))?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        if status_of(&out) != 1 || !stderr.contains("is the input file") {
            return Err(format!("status {}, stderr:\n{stderr}", status_of(&out)).into());
        }
        if std::fs::read_to_string(&ir)? != text {
            return Err("the input was overwritten".into());
        }
    }
    Ok(())
}
