//! Every ParC sample through the whole native pipeline: parse, check,
//! lower, differentiate (where a sample asks for gradients), Tapir lowering to the runtime target, then Cranelift, run two
//! ways:
//! - `jit::NAME`: this binary re-executed with [`CHILD_ENV`] naming the
//!   program, which compiles it and runs it with `parc_cpu::jit_run` (the
//!   JIT writes to the real stdout and may `exit` or fault, so it needs a
//!   process of its own);
//! - `exe::NAME`: `parc_cpu::build` to an executable, which is run.
//!
//! `samples/NAME.pc` must print `samples/NAME.stdout` and exit with its
//! `// exit: N` status (default 0), given its `// args:` line.
//! `tests/run/NAME.pc` programs (run-time faults) must exit with their
//! status and, when that is 1, report a run-time error on stderr; those
//! whose fault is a memory-safety violation (a `// native: skip` line)
//! are skipped: native code does not detect those the way the
//! interpreter does.

use libtest_mimic::{Arguments, Failed, Trial};
use parc_ir::Module;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const CHILD_ENV: &str = "PARC_CPU_SAMPLE";
const LIMIT: Duration = Duration::from_secs(120);

/// Faults the interpreter detects and native code does not (or not the
/// same way): undefined behaviour in C.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

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

/// Source to a module ready for code generation.
fn compile(path: &Path) -> Result<Module, String> {
    let src = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    // Named as the repository's root sees it (`__FILE__`), its own
    // headers found through `-I`.
    // The preprocessor's flags of the `// flags:` line, as parc reads them.
    let options = parc_lang::pp::Options {
        include_dirs: path.parent().map(Path::to_path_buf).into_iter().collect(),
        ..parc_lang::pp::Options::from_flags(&directive(&src, "flags").unwrap_or_default())
    };
    let name = path
        .strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string();
    let pre = parc_lang::pp::preprocess(&name, &src, &options);
    if let Some(d) = pre.diags.iter().find(|d| d.is_error()) {
        return Err(format!("preprocessor error: {}", d.message));
    }
    let src = pre.text;
    let (ast, diags) = parc_lang::parse::parse(&src);
    if let Some(d) = diags.iter().find(|d| d.is_error()) {
        return Err(format!("parse error: {}", d.message));
    }
    let (hir, diags) = parc_lang::check::check(&ast);
    if let Some(d) = diags.iter().find(|d| d.is_error()) {
        return Err(format!("check error: {}", d.message));
    }
    let hir = hir.ok_or("the checker produced nothing")?;
    let mut module = parc_lang::lower::lower(&hir, &path.display().to_string(), &src);
    let verify = |m: &Module, what: &str| {
        parc_ir::verify::verify_module(m).map_err(|errs| {
            let list: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
            format!("invalid IR after {what}:\n{}", list.join("\n"))
        })
    };
    verify(&module, "lowering")?;
    parc_ad::differentiate(&mut module, &parc_ad::AdOptions::default())
        .map_err(|e| e.to_string())?;
    verify(&module, "differentiation")?;
    Ok(module)
}

/// The child: compile the program named by [`CHILD_ENV`] and JIT-run it
/// with this process's arguments.
fn child(path: &str) -> ! {
    let module = match compile(Path::new(path)) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(99);
        }
    };
    let mut argv = vec![path.to_string()];
    argv.extend(std::env::args().skip(1));
    match parc_cpu::jit_run(module, &argv, &verifying()) {
        Ok(status) => std::process::exit(status),
        Err(e) => {
            eprintln!("backend error: {e}");
            std::process::exit(98);
        }
    }
}

fn run_with_timeout(mut cmd: Command) -> Result<Output, Failed> {
    let start = Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    // Drain the pipes on threads so a chatty program cannot block.
    let mut out = child.stdout.take().expect("piped");
    let mut err = child.stderr.take().expect("piped");
    let out_thread = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut out, &mut v);
        v
    });
    let err_thread = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut err, &mut v);
        v
    });
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break s;
        }
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("did not finish within {LIMIT:?}").into());
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Ok(Output {
        status,
        stdout: out_thread.join().unwrap_or_default(),
        stderr: err_thread.join().unwrap_or_default(),
    })
}

struct Expect {
    args: Vec<String>,
    exit: i32,
    /// `None` for the fault corpus (no expected output).
    stdout: Option<String>,
}

fn expectations(path: &Path, with_stdout: bool) -> Result<Expect, Failed> {
    let src = std::fs::read_to_string(path)?;
    let args = directive(&src, "args")
        .map(|a| a.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    let exit = directive(&src, "exit").map_or(Ok(0), |n| n.parse())?;
    let stdout = if with_stdout {
        Some(std::fs::read_to_string(path.with_extension("stdout"))?)
    } else {
        None
    };
    Ok(Expect { args, exit, stdout })
}

fn check(output: &Output, expect: &Expect) -> Result<(), Failed> {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if let Some(expected) = &expect.stdout
        && stdout != *expected
    {
        let first = expected
            .lines()
            .zip(stdout.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(expected.lines().count().min(stdout.lines().count()));
        return Err(format!(
            "stdout differs from line {}:\n  expected: {:?}\n  actual:   {:?}\nstderr: {stderr}",
            first + 1,
            expected.lines().nth(first),
            stdout.lines().nth(first)
        )
        .into());
    }
    // As a shell reports it: 128 + the signal for a process a signal
    // ended (`abort`: 134, as the interpreter and tests/programs.rs say).
    let code = {
        use std::os::unix::process::ExitStatusExt;
        output
            .status
            .code()
            .or_else(|| output.status.signal().map(|signal| 128 + signal))
    };
    if code != Some(expect.exit) {
        return Err(format!(
            "exit status {code:?}, expected {}\nstderr: {stderr}",
            expect.exit
        )
        .into());
    }
    if expect.stdout.is_none() && expect.exit == 1 && !stderr.contains("run-time error") {
        return Err(format!("no run-time error reported; stderr: {stderr}").into());
    }
    Ok(())
}

fn jit_trial(path: PathBuf, with_stdout: bool) -> Result<(), Failed> {
    let expect = expectations(&path, with_stdout)?;
    let mut cmd = Command::new(std::env::current_exe()?);
    cmd.current_dir(root())
        .env(CHILD_ENV, &path)
        .args(&expect.args);
    check(&run_with_timeout(cmd)?, &expect)
}

fn exe_trial(path: PathBuf, with_stdout: bool) -> Result<(), Failed> {
    let expect = expectations(&path, with_stdout)?;
    let module = compile(&path)?;
    let dir = std::env::temp_dir().join(format!("parc-cpu-samples-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let exe = dir.join(format!("{stem}.exe"));
    parc_cpu::build(module, parc_cpu::OutputKind::Exe, &exe, &verifying())
        .map_err(|e| e.to_string())?;
    let mut cmd = Command::new(&exe);
    cmd.current_dir(root()).args(&expect.args);
    let result = check(&run_with_timeout(cmd)?, &expect);
    let _ = std::fs::remove_file(&exe);
    result
}

fn programs(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "pc"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn main() {
    if let Some(path) = std::env::var_os(CHILD_ENV) {
        child(&path.to_string_lossy());
    }
    let args = Arguments::from_args();
    let have_runtime_lib = parc_cpu::find_runtime_lib().is_ok();
    let mut trials = Vec::new();
    for (dir, with_stdout) in [("samples", true), ("tests/run", false)] {
        for path in programs(dir) {
            let stem = path
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let group = if with_stdout { "samples" } else { "faults" };
            // Faults only the interpreter's checked memory detects.
            let skip = !with_stdout
                && std::fs::read_to_string(&path).is_ok_and(|src| {
                    directive(&src, "native").is_some_and(|d| d.starts_with("skip"))
                });
            let p = path.clone();
            trials.push(
                Trial::test(format!("jit::{group}::{stem}"), move || {
                    jit_trial(p, with_stdout)
                })
                .with_ignored_flag(skip),
            );
            trials.push(
                Trial::test(format!("exe::{group}::{stem}"), move || {
                    exe_trial(path, with_stdout)
                })
                .with_ignored_flag(skip || !have_runtime_lib),
            );
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

/// The backend's default options, with Cranelift's verifier on (release
/// builds of parc leave it off unless `--verify-each` asks).
fn verifying() -> parc_cpu::Options {
    parc_cpu::Options {
        verify: true,
        ..Default::default()
    }
}
