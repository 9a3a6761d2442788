//! Differential testing: random valid ParC programs (from the `parc-fuzz`
//! crate, which documents why each is free of undefined behaviour and of
//! races) must print the same and exit the same way in every configuration
//! of their family: the interpreter and `parc run` (1 and 8 workers) at
//! `--O0`, `--O1`, `--O2`, `--serial` and, for gradients,
//! `--ad-before-opt`, and gcc through `include/parc.h`, serially and with
//! OpenMP, for programs without kernels or gradients (skipped without
//! gcc). See `fuzz/src/oracle.rs` for the list.
//!
//! One test per program (`fuzz_FAMILY_N`): [`COUNTS`] plain, kernel,
//! gradient and vector-loop programs. The test lives in the root package so that cargo
//! builds the `parc` binary for it (`CARGO_BIN_EXE_parc`).
//! `PARC_FUZZ_COUNT` (programs of each family) and `PARC_FUZZ_SEED` (the
//! first seed) choose other programs; many more run with `cargo run
//! --release -p parc-fuzz -- --count 2000`. A failing program and its
//! report are saved under the target directory's `tmp/differential/`.

use libtest_mimic::{Arguments, Failed, Trial};
use parc_fuzz::{Family, Oracles, Program, Verdict};
use std::path::PathBuf;
use std::sync::Arc;

/// Seeds that expose known bugs in parc (never in the generator, which is
/// fixed instead), ignored until the bug is fixed; each names its bug.
const KNOWN_FAILURES: &[(Family, u64, &str)] = &[];

/// Programs of each family the suite checks. Plain programs run through
/// eleven configurations, kernels twelve, gradients fifteen; these counts
/// keep the test a few minutes long on two cores.
const COUNTS: [(Family, u64); 4] = [
    (Family::Plain, 120),
    (Family::Kernel, 40),
    (Family::Grad, 40),
    (Family::Vector, 20),
];
const DEFAULT_FIRST_SEED: u64 = 1;

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v} is not a number")),
        Err(_) => default,
    }
}

fn check(oracles: &Oracles, family: Family, seed: u64) -> Result<(), Failed> {
    let program = Program::generate(family, seed);
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
                "{report}{where_}\nreproduce: cargo run -p parc-fuzz -- --family {} --count 1 --seed {seed}\n",
                family.name()
            )
            .into())
        }
    }
}

fn main() {
    let args = Arguments::from_args();
    let count = std::env::var("PARC_FUZZ_COUNT")
        .ok()
        .map(|_| env_u64("PARC_FUZZ_COUNT", 0));
    let first = env_u64("PARC_FUZZ_SEED", DEFAULT_FIRST_SEED);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let oracles = Oracles::new(PathBuf::from(env!("CARGO_BIN_EXE_parc")), &root);
    if oracles.gcc.is_none() {
        eprintln!("note: gcc not found: the gcc configurations are skipped");
    }
    let oracles = Arc::new(oracles);
    let trials = COUNTS
        .into_iter()
        .flat_map(|(family, n)| {
            let n = count.unwrap_or(n);
            (first..first.saturating_add(n)).map(move |seed| (family, seed))
        })
        .map(|(family, seed)| {
            let o = Arc::clone(&oracles);
            let known = KNOWN_FAILURES
                .iter()
                .find(|(f, s, _)| (*f, *s) == (family, seed));
            let name = format!("fuzz_{}_{seed}", family.name());
            let trial = Trial::test(name, move || check(&o, family, seed));
            match known {
                Some((_, _, bug)) => trial.with_ignored_flag(true).with_kind(*bug),
                None => trial,
            }
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
