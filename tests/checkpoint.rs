//! Checkpointing changes how a gradient is computed, not what: for every
//! `tests/grad/NAME.pc` whose `// flags:` line asks for `--checkpoint N`
//! or `--tape-budget BYTES`,
//! the program must print exactly the same with and without the option
//! (its gradients bit for bit), through the interpreter and natively at 1
//! and 8 workers, at `-O0`, `-O1` and `-O2`. (The `grad::` tests of
//! `tests/programs.rs` check the same programs against finite
//! differences in every mode.) With `--tape-budget`, the peak of the
//! tape at run time (`PARC_AD_STATS=1`) must stay within the budget.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The programs whose flags ask for checkpointing, with those flags.
fn programs() -> Vec<(PathBuf, Vec<String>)> {
    let mut out = Vec::new();
    let dir = root().join("tests/grad");
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/grad exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "pc"))
        .collect();
    entries.sort();
    for p in entries {
        let text = std::fs::read_to_string(&p).expect("a test program is readable");
        let flags = text
            .lines()
            .find_map(|l| l.strip_prefix("// flags:"))
            .map(|f| f.split_whitespace().map(str::to_string).collect::<Vec<_>>())
            .unwrap_or_default();
        if flags
            .iter()
            .any(|f| f == "--checkpoint" || f == "--tape-budget")
        {
            out.push((p, flags));
        }
    }
    out
}

/// The program's stdout and stderr.
fn run_both(
    path: &Path,
    flags: &[String],
    level: &str,
    engine: Option<&str>,
    stats: bool,
) -> (String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_parc"));
    if stats {
        cmd.env("PARC_AD_STATS", "1");
    }
    cmd.arg("run").arg(level);
    match engine {
        None => {
            cmd.arg("--interp");
        }
        Some(workers) => {
            cmd.env("PARC_NUM_THREADS", workers);
        }
    }
    cmd.args(flags).arg(path);
    let out = cmd.output().expect("parc runs");
    assert!(
        out.status.success(),
        "{} {level} {flags:?}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn run(path: &Path, flags: &[String], level: &str, engine: Option<&str>) -> String {
    run_both(path, flags, level, engine, false).0
}

/// `--tape-budget`'s argument in bytes (`8K`: 8192).
fn budget_of(flags: &[String]) -> Option<u64> {
    let i = flags.iter().position(|f| f == "--tape-budget")?;
    let text = flags.get(i + 1)?;
    let (digits, scale) = match text.strip_suffix('K') {
        Some(d) => (d, 1024),
        None => (text.as_str(), 1),
    };
    Some(digits.parse::<u64>().ok()? * scale)
}

#[test]
fn same_gradients_with_and_without_checkpointing() {
    let programs = programs();
    assert!(!programs.is_empty(), "no program asks for --checkpoint");
    for (path, flags) in &programs {
        let mut plain = flags.clone();
        if let Some(i) = plain
            .iter()
            .position(|f| f == "--checkpoint" || f == "--tape-budget")
        {
            plain.drain(i..(i + 2).min(plain.len()));
        }
        for level in ["-O0", "-O1", "-O2"] {
            for engine in [None, Some("1"), Some("8")] {
                // At -O0 on 8 workers a checkpointed gradient (any
                // `--checkpoint N` too) adds the workers' partial
                // adjoints per segment, not once per loop: equal up to
                // rounding there, so `tape_budget.pc` (whose last bits
                // differ) is compared at the other levels and engines.
                if level == "-O0" && engine == Some("8") && budget_of(flags).is_some() {
                    continue;
                }
                let with = run(path, flags, level, engine);
                let without = run(path, &plain, level, engine);
                assert_eq!(
                    with,
                    without,
                    "{} at {level} ({}): the gradient differs with {flags:?}",
                    path.display(),
                    engine.map_or("interpreter".to_string(), |w| format!("{w} workers"))
                );
            }
        }
    }
}

#[test]
fn tape_peak_within_the_budget() {
    let programs: Vec<_> = programs()
        .into_iter()
        .filter_map(|(p, f)| budget_of(&f).map(|b| (p, f, b)))
        .collect();
    assert!(!programs.is_empty(), "no program asks for --tape-budget");
    for (path, flags, budget) in &programs {
        for level in ["-O0", "-O2"] {
            for engine in [None, Some("1"), Some("8")] {
                let (_, stderr) = run_both(path, flags, level, engine, true);
                let peak = stderr
                    .lines()
                    .find_map(|l| l.strip_prefix("PARC_AD_STATS: gradient tape peak "))
                    .and_then(|l| l.split_whitespace().next())
                    .and_then(|n| n.parse::<u64>().ok())
                    .unwrap_or_else(|| {
                        panic!("{}: no PARC_AD_STATS line in {stderr}", path.display())
                    });
                assert!(
                    peak <= *budget,
                    "{} at {level} ({engine:?} workers): tape peak {peak} bytes over the budget \
                     of {budget}",
                    path.display()
                );
                assert!(
                    !stderr.contains("warning"),
                    "{}: the budget fits, yet: {stderr}",
                    path.display()
                );
            }
        }
    }
}

/// A budget below what any period needs: the gradient is still right, and
/// a warning names the loop and the least budget that fits.
#[test]
fn too_small_a_budget_warns() {
    let path = root().join("tests/grad/tape_budget.pc");
    let flags: Vec<String> = ["--tape-budget", "1K"].map(String::from).to_vec();
    for engine in [None, Some("1")] {
        let (with, stderr) = run_both(&path, &flags, "-O2", engine, false);
        assert_eq!(with, run(&path, &[], "-O2", engine));
        assert_eq!(
            stderr.matches("warning").count(),
            1,
            "the warning is printed once per run: {stderr}"
        );
        let warning = stderr
            .lines()
            .find(|l| {
                l.starts_with("parc: warning: ")
                    && l.contains("tape_budget.pc:28:14: `--tape-budget 1024` is too small")
            })
            .unwrap_or_else(|| panic!("no warning in {stderr}"));
        let least: u64 = warning
            .split("needs at least ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no least budget in {warning}"));
        // That budget fits: no warning, and the peak stays within it.
        let fits = vec!["--tape-budget".to_string(), least.to_string()];
        let (_, stderr) = run_both(&path, &fits, "-O2", engine, true);
        assert!(
            !stderr.contains("warning"),
            "{least} does not fit: {stderr}"
        );
    }
}

/// A loop `--tape-budget` cannot checkpoint is recorded whole, with a
/// warning at its position (where `--checkpoint N` is refused).
#[test]
fn a_loop_it_cannot_checkpoint_warns() {
    let path = root().join("tests/bad/checkpoint_write_after.pc");
    let out = Command::new(env!("CARGO_BIN_EXE_parc"))
        .args(["build", "--emit", "ir", "-o", "-", "--tape-budget", "1M"])
        .arg(&path)
        .output()
        .expect("parc runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "checkpoint_write_after.pc:14:5: warning: in `run`: `--tape-budget 1048576` cannot \
             checkpoint the loop at line 12:14: `run` stores to memory here"
        ),
        "{stderr}"
    );
}

/// `tape_budget.pc` at `-O2` without its flags but `extra`, with
/// `PARC_PHYS_MEM` (the testing aid `parc_rt_phys_mem` reads) set to
/// `mem` and `PARC_AD_STATS=1`: stdout, stderr and the tape's peak.
fn with_memory(mem: u64, extra: &[&str], engine: Option<&str>) -> (String, String, u64) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_parc"));
    cmd.env("PARC_PHYS_MEM", mem.to_string())
        .env("PARC_AD_STATS", "1")
        .arg("run")
        .arg("-O2");
    match engine {
        None => {
            cmd.arg("--interp");
        }
        Some(workers) => {
            cmd.env("PARC_NUM_THREADS", workers);
        }
    }
    let out = cmd
        .args(extra)
        .arg(root().join("tests/grad/tape_budget.pc"))
        .output()
        .expect("parc runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{extra:?}: {stderr}");
    let peak = peak_of(&stderr);
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr,
        peak,
    )
}

/// Without `--tape-budget` the budget is a quarter of the physical
/// memory: where `PARC_PHYS_MEM` makes that 8 KB, `tape_budget.pc`'s loop
/// (11.6 KB of records) is checkpointed as with `--tape-budget 8K`, the
/// run says so once, and the gradients are those recorded whole
/// (`--tape-budget none`, whose tape does not fit). `50%` is half.
#[test]
fn default_budget_is_a_quarter_of_the_memory() {
    for engine in [None, Some("1")] {
        let (whole, stderr, peak) = with_memory(32 << 10, &["--tape-budget", "none"], engine);
        assert!(peak > 8 << 10, "recorded whole in {peak} bytes");
        assert!(!stderr.contains("warning"), "{stderr}");
        let (out, stderr, peak) = with_memory(32 << 10, &[], engine);
        assert_eq!(out, whole);
        assert!(peak <= 8 << 10, "default budget: tape peak {peak} bytes");
        assert_eq!(stderr.matches("warning").count(), 1, "{stderr}");
        assert!(
            stderr.contains("tape_budget.pc:28:14: the serial loop in `run` would record 11")
                && stderr.contains(
                    "more than the default tape budget (25% of the physical memory, 8192 bytes): \
                 checkpointing it"
                ),
            "{stderr}"
        );
        let (out, stderr, peak) = with_memory(16 << 10, &["--tape-budget", "50%"], engine);
        assert_eq!(out, whole);
        assert!(peak <= 8 << 10, "`50%`: tape peak {peak} bytes");
        assert!(!stderr.contains("warning"), "{stderr}");
    }
}

/// Budgets under which no period fits `tape_budget.pc`'s loop, so that it
/// follows the binomial schedule: with three snapshots it runs the steps
/// once more at the end (5000 bytes), with four it keeps a snapshot of
/// the final state instead (6000 bytes: Revolve's count of steps run
/// again says that is cheaper). Either way the gradients and the primal
/// left behind are those recorded whole, within the budget.
#[test]
fn revolve_ends_as_the_primal_does() {
    let path = root().join("tests/grad/tape_budget.pc");
    let none: Vec<String> = ["--tape-budget", "none"].map(String::from).to_vec();
    for engine in [None, Some("1"), Some("8")] {
        let whole = run(&path, &none, "-O2", engine);
        for budget in [5000u64, 6000] {
            let flags = vec!["--tape-budget".to_string(), budget.to_string()];
            let (out, stderr) = run_both(&path, &flags, "-O2", engine, true);
            assert_eq!(out, whole, "--tape-budget {budget} ({engine:?} workers)");
            assert!(!stderr.contains("warning"), "{stderr}");
            let peak = peak_of(&stderr);
            assert!(peak <= budget, "--tape-budget {budget}: peak {peak}");
        }
    }
}

/// The tape peak a `PARC_AD_STATS=1` run printed.
fn peak_of(stderr: &str) -> u64 {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("PARC_AD_STATS: gradient tape peak "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no PARC_AD_STATS line in {stderr}"))
}
