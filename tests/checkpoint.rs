//! Checkpointing changes how a gradient is computed, not what: for every
//! `tests/grad/NAME.pc` whose `// flags:` line asks for `--checkpoint N`,
//! the program must print exactly the same with and without the option
//! (its gradients bit for bit), through the interpreter and natively at 1
//! and 8 workers, at `-O0`, `-O1` and `-O2`. (The `grad::` tests of
//! `tests/programs.rs` check the same programs against finite
//! differences in every mode.)

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
        if flags.iter().any(|f| f == "--checkpoint") {
            out.push((p, flags));
        }
    }
    out
}

fn run(path: &Path, flags: &[String], level: &str, engine: Option<&str>) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_parc"));
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
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn same_gradients_with_and_without_checkpointing() {
    let programs = programs();
    assert!(!programs.is_empty(), "no program asks for --checkpoint");
    for (path, flags) in &programs {
        let mut plain = flags.clone();
        if let Some(i) = plain.iter().position(|f| f == "--checkpoint") {
            plain.drain(i..(i + 2).min(plain.len()));
        }
        for level in ["-O0", "-O1", "-O2"] {
            for engine in [None, Some("1"), Some("8")] {
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
