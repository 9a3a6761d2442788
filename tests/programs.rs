//! End-to-end tests as data: every ParC program in the repository is run
//! through the `parc` binary, as a user would, and compared with an oracle.
//!
//! Suites (one test per file):
//! - `samples/NAME.pc`: `parc run --interp` must print `samples/NAME.stdout`
//!   and exit with the status named by a `// exit: N` line (default 0), given
//!   the arguments of a `// args: ...` line. For samples without kernels the
//!   same program built by gcc through `include/parc.h` must print the same
//!   (skipped with a message when gcc is missing).
//! - `tests/bad/NAME.pc`: `parc check` must fail with status 1, within a
//!   second, printing exactly `tests/bad/NAME.stderr`.
//!   Natively, each sample must behave the same through the JIT at 1, 2 and
//!   8 workers (`PARC_NUM_THREADS`), through the serial Tapir target
//!   (`--serial`), as a built executable, and as a shared library whose
//!   `parc_main` a C driver calls.
//! - `tests/run/NAME.pc`: `parc run --interp` must print `NAME.stdout`, exit
//!   with the `// exit:` status, and its stderr must equal `NAME.stderr`
//!   (run-time faults end this way). Natively (JIT), stdout and status must
//!   be the same and a fault must be reported as a run-time error, except
//!   in files with a `// native: skip ...` line: faults only the
//!   interpreter's checked memory detects.
//! - `tests/stress/NAME.pc`: natively at 1, 2 and 8 workers, `// repeat: N`
//!   times each, always printing `NAME.stdout` (no deadlock, no lost task).
//!
//! `PARC_BLESS=1 cargo test --test programs` rewrites the expected files from
//! what parc does now; review the diff before committing it.

use libtest_mimic::{Arguments, Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn parc() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_parc"));
    cmd.current_dir(root()).stdin(Stdio::null());
    cmd
}

fn blessing() -> bool {
    std::env::var_os("PARC_BLESS").is_some_and(|v| v != "0")
}

/// `.pc` files of a directory, sorted, as paths relative to the root.
fn programs(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "pc"))
                .map(|p| Path::new(dir).join(p.file_name().unwrap_or_default()))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// The `// key: value` directives in the first lines of a program.
fn directive(source: &str, key: &str) -> Option<String> {
    source
        .lines()
        .take_while(|l| l.starts_with("//") || l.trim().is_empty())
        .find_map(|l| {
            l.trim_start_matches("//")
                .trim()
                .strip_prefix(key)
                .and_then(|rest| rest.strip_prefix(':'))
                .map(|v| v.trim().to_string())
        })
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

fn status_of(output: &Output) -> i32 {
    output.status.code().unwrap_or(-1)
}

fn check_sample(path: &Path) -> Result<(), Failed> {
    let exp = expectations(path)?;
    let mut cmd = parc();
    cmd.args(["run", "--interp", "--color=never"])
        .arg(path)
        .arg("--")
        .args(&exp.args);
    let (out, _) = run_with_timeout(cmd, Duration::from_secs(120))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if status_of(&out) != exp.exit {
        return Err(format!(
            "exit status {} (expected {}); stderr:\n{stderr}",
            status_of(&out),
            exp.exit
        )
        .into());
    }
    compare_file(
        &path.with_extension("stdout"),
        &stdout,
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
        .env("OMP_NUM_THREADS", "2");
    let (gcc_out, _) = run_with_timeout(cmd, Duration::from_secs(60))?;
    let _ = std::fs::remove_file(&exe);
    let mut cmd = parc();
    cmd.args(["run", "--interp", "--color=never"])
        .arg(path)
        .arg("--")
        .args(&exp.args);
    let (parc_out, _) = run_with_timeout(cmd, Duration::from_secs(120))?;
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

fn has_kernels(path: &Path) -> bool {
    std::fs::read_to_string(root().join(path)).is_ok_and(|s| s.contains("__global__"))
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
    let mut cmd = parc();
    cmd.args(["check", "--color=never"]).arg(path);
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

fn check_runtime(path: &Path) -> Result<(), Failed> {
    let exp = expectations(path)?;
    let mut cmd = parc();
    cmd.args(["run", "--interp", "--color=never"])
        .arg(path)
        .arg("--")
        .args(&exp.args);
    let (out, _) = run_with_timeout(cmd, Duration::from_secs(60))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if status_of(&out) != exp.exit {
        return Err(format!(
            "exit status {} (expected {}); stderr:\n{stderr}",
            status_of(&out),
            exp.exit
        )
        .into());
    }
    compare_file(
        &path.with_extension("stdout"),
        &String::from_utf8_lossy(&out.stdout),
        "stdout",
    )?;
    compare_file(&path.with_extension("stderr"), &stderr, "stderr")
}

/// How a native run of a program is made.
#[derive(Clone, Copy)]
enum Native {
    /// `parc run` (the JIT) with this many workers.
    Jit(u32),
    /// `parc run --serial`: spawn = call.
    Serial,
    /// `parc build` an executable, run it with two workers.
    Exe,
    /// `parc build --emit lib`, called from a C driver.
    Lib,
}

impl Native {
    fn label(self) -> String {
        match self {
            Native::Jit(n) => format!("jit-{n}"),
            Native::Serial => "serial".into(),
            Native::Exe => "exe".into(),
            Native::Lib => "lib".into(),
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
        Native::Exe => {
            let exe = scratch_dir()?.join(format!("{stem}.exe"));
            build_with_parc(path, &["--emit", "exe"], &exe)?;
            let mut cmd = Command::new(&exe);
            cmd.current_dir(root()).env("PARC_NUM_THREADS", "2");
            cmd.args(args);
            return Ok(run_with_timeout(cmd, limit)?.0);
        }
        Native::Lib => {
            let dir = scratch_dir()?;
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
            let cc = Command::new("cc")
                .arg(&driver_c)
                .arg("-I")
                .arg(&dir)
                .arg("-o")
                .arg(&driver)
                .arg(&lib)
                .arg(format!("-Wl,-rpath,{}", dir.display()))
                .output()?;
            if !cc.status.success() {
                return Err(format!(
                    "compiling the C driver failed:\n{}",
                    String::from_utf8_lossy(&cc.stderr)
                )
                .into());
            }
            let mut cmd = Command::new(&driver);
            cmd.current_dir(root()).env("PARC_NUM_THREADS", "2");
            cmd.args(args);
            return Ok(run_with_timeout(cmd, limit)?.0);
        }
    };
    cmd.arg("--").args(args);
    Ok(run_with_timeout(cmd, limit)?.0)
}

fn build_with_parc(path: &Path, flags: &[&str], out: &Path) -> Result<(), Failed> {
    let mut cmd = parc();
    cmd.arg("build").arg(path).args(flags).arg("-o").arg(out);
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
    let stderr = String::from_utf8_lossy(&out.stderr);
    if status_of(&out) != exp.exit {
        return Err(format!(
            "exit status {} (expected {}); stderr:\n{stderr}",
            status_of(&out),
            exp.exit
        )
        .into());
    }
    let expected = std::fs::read_to_string(root().join(path.with_extension("stdout")))?;
    let actual = String::from_utf8_lossy(&out.stdout);
    if expected != actual {
        return Err(format!(
            "output differs (- expected, + actual):\n{}",
            diff(&expected, &actual)
        )
        .into());
    }
    Ok(())
}

/// A fault test run through the JIT: same stdout and status as the
/// interpreter, and a fault is reported as one.
fn check_runtime_native(path: &Path) -> Result<(), Failed> {
    let exp = expectations(path)?;
    let out = run_native(path, &exp.args, Native::Jit(2))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if status_of(&out) != exp.exit {
        return Err(format!(
            "exit status {} (expected {}); stderr:\n{stderr}",
            status_of(&out),
            exp.exit
        )
        .into());
    }
    let expected = std::fs::read_to_string(root().join(path.with_extension("stdout")))?;
    let actual = String::from_utf8_lossy(&out.stdout);
    if expected != actual {
        return Err(format!("stdout differs:\n{}", diff(&expected, &actual)).into());
    }
    let interp_stderr =
        std::fs::read_to_string(root().join(path.with_extension("stderr"))).unwrap_or_default();
    if !interp_stderr.is_empty() && !stderr.starts_with("run-time error") {
        return Err(format!("the fault was not reported; stderr:\n{stderr}").into());
    }
    Ok(())
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

fn name_of(path: &Path) -> String {
    path.with_extension("").display().to_string()
}

fn main() {
    let args = Arguments::from_args();
    let gcc = gcc_available();
    let mut trials = Vec::new();
    for path in programs("samples") {
        let p = path.clone();
        trials.push(Trial::test(
            format!("interp::{}", name_of(&path)),
            move || check_sample(&p),
        ));
        for how in [
            Native::Jit(1),
            Native::Jit(2),
            Native::Jit(8),
            Native::Serial,
            Native::Exe,
            Native::Lib,
        ] {
            let p = path.clone();
            trials.push(Trial::test(
                format!("{}::{}", how.label(), name_of(&path)),
                move || check_sample_native(&p, how),
            ));
        }
        if !has_kernels(&path) {
            for openmp in [false, true] {
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
    for path in programs("tests/bad") {
        trials.push(Trial::test(format!("bad::{}", name_of(&path)), move || {
            check_bad(&path)
        }));
    }
    for path in programs("tests/run") {
        let p = path.clone();
        trials.push(Trial::test(format!("run::{}", name_of(&path)), move || {
            check_runtime(&p)
        }));
        let interp_only = std::fs::read_to_string(root().join(&path))
            .is_ok_and(|s| directive(&s, "native").is_some_and(|v| v.starts_with("skip")));
        if !interp_only {
            trials.push(Trial::test(
                format!("run-native::{}", name_of(&path)),
                move || check_runtime_native(&path),
            ));
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
    }
    libtest_mimic::run(&args, trials).exit();
}
