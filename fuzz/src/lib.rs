//! `parc-fuzz`: differential testing of parc with random valid ParC programs.
//!
//! [`Program::generate`] turns a `u64` seed into a small ParC program
//! (50–300 lines) deterministically; [`Oracles::check`] runs it through
//! seven configurations — the interpreter at `--O0` and at `--O2
//! --verify-each` (in process), `parc run` at `--O0`, at `--O2` with two
//! workers and `--serial --O2` (the `parc` binary), and gcc through
//! `include/parc.h`, serially and with OpenMP — and demands identical
//! standard output and exit status from all of them.
//!
//! # What every generated program guarantees
//!
//! A mismatch is only worth something if the program has exactly one
//! meaning. So every program is valid ParC *and* a C99 program whose
//! behaviour the C standard (with gcc's documented choices for
//! implementation-defined behaviour and `-fwrapv`) fixes completely, and
//! whose parallel parts are free of determinacy races:
//!
//! - **Valid**: names are unique, every variable is declared before use
//!   with its exact type, every expression is built with its C type known
//!   (operands of a binary operator share a type; conversions are explicit
//!   casts), and the parallel rules of LANGUAGE.md are kept (no `break` or
//!   `return` out of a `parallel_for`, no write to an outer variable in its
//!   body, spawn targets unused before `sync`).
//! - **Terminating**: every loop has a constant trip count (at most 16); its
//!   index is never assigned in the body; `while`/`do` loops advance their
//!   counter as the first statement, so `continue` cannot skip it.
//!   Recursion carries a depth parameter: callers pass `0..=3`, the body
//!   stops at `d <= 0` and recurses with `d - 1` at no more than two
//!   places outside loops. Work is estimated while generating, and every
//!   program stays within a budget of about 60,000 operations.
//! - **No undefined behaviour**:
//!   - every variable, array element and field is initialized (brace lists
//!     zero-fill, `memset`, fill loops) before it is read;
//!   - signed overflow wraps (`-fwrapv` in C, by definition in ParC);
//!     divisors are `(x & 15) + 1`, `x | 1` (unsigned) or constants other
//!     than 0 and -1, so there is no division by zero and no `MIN / -1`;
//!     `abs`/`labs` only see `x % 1000`;
//!   - shift amounts are masked to below the width of the promoted left
//!     operand (`& 31` or `& 63`); gcc defines shifts of negative values;
//!   - array indices are constants, loop indices with known ranges, or
//!     masked (`& (n-1)`) / reduced (`(unsigned)x % n`) into bounds;
//!     pointers are `a + c` with `c` inside the array and are indexed
//!     within the rest of it; `memcpy` copies between distinct objects;
//!   - floating values: every stored value (variables, elements, fields,
//!     parameters, results) has magnitude at most 1e6, every intermediate
//!     is clamped with `fmin`/`fmax` before it could pass 1e12, divisors
//!     are `fabs(x) + 1` or non-zero constants, and math functions get
//!     arguments where they are finite (`sqrt(fabs(x))`, `log(1 + fabs(x))`,
//!     `exp` of a clamped value, `pow` of a clamped base, `tan(sin(x))`), so
//!     no infinity or NaN ever appears; conversions to integers go through
//!     `long` from values clamped to ±1e15 (C leaves out-of-range
//!     conversions undefined, and the interpreter saturates them);
//!     `fmin`/`fmax` results get `+ 0.0`, which makes a -0.0 picked from a
//!     tie of zeros +0.0 (C leaves the choice open);
//!   - expressions have no side effects except the right operand of an
//!     `&&`/`||` in a condition, which bumps a *counter* variable that no
//!     generated expression reads; functions called inside expressions
//!     write nothing their caller can see, so C's unspecified evaluation
//!     order cannot matter; a call with array outputs is a statement (its
//!     result goes to a fresh local).
//! - **No determinacy races** (Cilk semantics; OpenMP for gcc):
//!   - a `parallel_for` with `T` iterations writes arrays whose writable
//!     span is a multiple of `T` long; iteration `i` writes (and reads) only
//!     its own slice `i*k .. i*k+k` of them (or `i .. i+s` for `i += s`
//!     loops), reads everything else it shares but writes none of it
//!     (locals declared in the body are its own); nested loops split the
//!     slice again; pointer aliases of a written array are not used in the
//!     body;
//!   - a spawned call gets arrays to write that nothing else in the call
//!     reads or writes; until the `sync`, the continuation does not touch
//!     what the call writes, does not write what it reads, and does not
//!     read the spawn's target; chunked spawns in a loop write disjoint
//!     chunks;
//!   - functions touch memory only through their parameters (and constant
//!     tables); the one kind that touches globals is called only from
//!     `main`'s serial code while no global is shared with a spawned call;
//!   - bounds and steps of `parallel_for` are constants or variables never
//!     assigned, so the serial projection (which re-evaluates them) and the
//!     parallel loop (which evaluates them once) agree.
//! - **Deterministic output**: `main` reads its seed from `argv[1]`
//!   (so gcc cannot fold the program to constants), and ends by printing
//!   every variable still in scope — integers (and a hash of each integer
//!   array), floating values with `%.17g`, so every bit counts — and
//!   returns `10 + hash % 64`. Results never depend on scheduling: folds
//!   over arrays combine in the order fixed by their recursion.
//!
//! Floating arithmetic must then agree bit for bit: ParC, like gcc on
//! x86-64 without `-ffast-math`, does IEEE arithmetic with no fused
//! multiply-add, and all of them call the same libm at run time. One
//! exception is outside parc: gcc folds `sin`, `exp`, `pow`... of
//! constants with correctly rounded MPFR arithmetic, where glibc may differ
//! in the last bit, so the gcc oracles are built with
//! `-fno-builtin-<f>` for the transcendental functions.

mod generate;
pub mod oracle;
pub mod reduce;
mod rng;

pub use oracle::{Oracles, Outcome, Verdict};
pub use rng::Rng;

/// One generated program.
#[derive(Clone, Debug)]
pub struct Program {
    pub seed: u64,
    /// The ParC source.
    pub source: String,
    /// `argv[1..]` for `main`.
    pub args: Vec<String>,
}

impl Program {
    /// The program for `seed`: the same on every machine and every run.
    pub fn generate(seed: u64) -> Program {
        let (source, arg) = generate::generate(seed);
        Program {
            seed,
            source,
            args: vec![arg.to_string()],
        }
    }

    /// A file name for the program.
    pub fn file_name(&self) -> String {
        format!("fuzz-{}.pc", self.seed)
    }
}

#[cfg(test)]
mod tests {
    use super::Program;

    #[test]
    fn same_seed_same_program() {
        for seed in 0..20 {
            let a = Program::generate(seed);
            let b = Program::generate(seed);
            assert_eq!(a.source, b.source);
            assert_eq!(a.args, b.args);
        }
        assert_ne!(Program::generate(1).source, Program::generate(2).source);
    }

    /// The checker notices a configuration that prints something else: a
    /// stand-in `parc` that only echoes its arguments.
    #[test]
    fn a_wrong_configuration_is_reported() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut oracles = super::Oracles::new("/bin/echo".into(), &root);
        oracles.gcc = None;
        match oracles.check(&Program::generate(3)) {
            super::Verdict::Mismatch { report, .. } => {
                assert!(report.contains("jit-O2-2-workers"), "{report}");
                assert!(report.contains("+run --color=never --O2"), "{report}");
            }
            v => panic!("not reported: {v:?}"),
        }
    }

    /// Every program is accepted by parc's front end, and the interpreter
    /// runs it to a normal exit (10 + hash % 64) with no fault.
    #[test]
    fn programs_are_valid_and_run_cleanly() {
        for seed in 0..40 {
            let p = Program::generate(seed);
            let out = super::oracle::interp(&p, 0, false, false);
            assert!(
                matches!(out.status, super::oracle::Status::Exit(10..=73)) && out.stderr.is_empty(),
                "seed {seed}: {out:?}\n{}",
                p.source
            );
        }
    }
}
