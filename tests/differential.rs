//! Differential testing: random valid ParC programs (from the `parc-fuzz`
//! crate, which documents why each is free of undefined behaviour and of
//! races) must print the same and exit the same way in every configuration:
//! the interpreter at `--O0` and at `--O2 --verify-each`, `parc run` at
//! `--O0`, at `--O2` with two workers and `--serial --O2`, and gcc through
//! `include/parc.h`, serially and with OpenMP (skipped without gcc).
//!
//! One test per program (`fuzz_seed_N`). The test lives in the root package
//! so that cargo builds the `parc` binary for it (`CARGO_BIN_EXE_parc`).
//! `PARC_FUZZ_COUNT` (default 250) and `PARC_FUZZ_SEED` (the first seed)
//! choose other programs; many more run with
//! `cargo run --release -p parc-fuzz -- --count 2000`. A failing program
//! and its report are saved under the target directory's `tmp/differential/`.

use libtest_mimic::{Arguments, Failed, Trial};
use parc_fuzz::{Oracles, Program, Verdict};
use std::path::PathBuf;
use std::sync::Arc;

/// Seeds that expose known bugs in parc (never in the generator, which is
/// fixed instead), ignored until the bug is fixed; each names its bug.
const KNOWN_FAILURES: &[(u64, &str)] = &[];

const DEFAULT_COUNT: u64 = 250;
const DEFAULT_FIRST_SEED: u64 = 1;

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v} is not a number")),
        Err(_) => default,
    }
}

fn check(oracles: &Oracles, seed: u64) -> Result<(), Failed> {
    let program = Program::generate(seed);
    match oracles.check(&program) {
        Verdict::Agree { .. } => Ok(()),
        Verdict::Mismatch { report, .. } => {
            let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("differential");
            let pc = dir.join(program.file_name());
            let saved = std::fs::create_dir_all(&dir)
                .and_then(|()| std::fs::write(&pc, &program.source))
                .and_then(|()| std::fs::write(pc.with_extension("txt"), &report));
            let where_ = match saved {
                Ok(()) => format!("program saved as {}", pc.display()),
                Err(e) => format!("could not save the program: {e}"),
            };
            Err(format!(
                "{report}{where_}\nreproduce: cargo run -p parc-fuzz -- --count 1 --seed {seed}\n"
            )
            .into())
        }
    }
}

fn main() {
    let args = Arguments::from_args();
    let count = env_u64("PARC_FUZZ_COUNT", DEFAULT_COUNT);
    let first = env_u64("PARC_FUZZ_SEED", DEFAULT_FIRST_SEED);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let oracles = Oracles::new(PathBuf::from(env!("CARGO_BIN_EXE_parc")), &root);
    if oracles.gcc.is_none() {
        eprintln!("note: gcc not found: the gcc configurations are skipped");
    }
    let oracles = Arc::new(oracles);
    let trials = (first..first.saturating_add(count))
        .map(|seed| {
            let o = Arc::clone(&oracles);
            let known = KNOWN_FAILURES.iter().find(|(s, _)| *s == seed);
            let trial = Trial::test(format!("fuzz_seed_{seed}"), move || check(&o, seed));
            match known {
                Some((_, bug)) => trial.with_ignored_flag(true).with_kind(*bug),
                None => trial,
            }
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
