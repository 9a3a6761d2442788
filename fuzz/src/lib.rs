//! `parc-fuzz`: differential testing of parc with random valid ParC programs.
//!
//! [`Program::generate`] turns a [`Family`] and a `u64` seed into a small
//! ParC program deterministically; [`Oracles::check`] runs it through
//! every configuration of its family (see `oracle.rs`: the interpreter at
//! `--O0`, `--O1` and `--O2`, `--serial` and, for gradients,
//! `--ad-before-opt`, in process; `parc run` at each of those with 1 and
//! 8 workers; gcc through `include/parc.h`, serially and with OpenMP, for
//! the plain family) and demands the same standard output and exit status
//! from all of them (gradients: the same numbers within 1e-9, relative).
//!
//! # Families
//! - [`Family::Plain`] (`generate/`, 50–300 lines): C with structs,
//!   pointers, recursion, `spawn` and `parallel_for`; no kernels and no
//!   gradients, so gcc is an oracle too. The guarantees below are its.
//! - [`Family::Kernel`] (`kernel.rs`): integer kernels whose barriers sit
//!   in loops and `if`s every thread of a block takes alike (bounds and
//!   conditions over `n`, `blockIdx` and the counters of such loops),
//!   around code that branches and loops on the thread (`&&`, `||`,
//!   `while`, trip counts from `threadIdx`), a tree reduction, and a
//!   `__device__` function with barriers called by every thread at one
//!   place. Every thread reaches the same barriers through the same calls,
//!   so no program has barrier divergence. `__shared__` memory is
//!   race-free by the discipline in `kernel.rs`'s doc; every slot is
//!   written before it is read; each thread writes only its own element
//!   of `out` and reads `data`, which the kernel never writes. Loops are
//!   bounded by `n` (at most 5) or constants; integer arithmetic wraps
//!   (ParC defines it), divisors are `(x & 7) + 1`, shifts are by `x & 7`.
//! - [`Family::Grad`] (`grad.rs`): `__enzyme_autodiff` of a function whose
//!   `spawn`s and `parallel_for`s sit in `for` and `while` loops, nested
//!   both ways (also iterations that read their own `x[i]` and call a
//!   reader of all of `x`, as Tapir's normalize does), with race-free,
//!   smooth, bounded arithmetic; `main` prints
//!   `check NAME ANALYTIC FD` lines, and the reference's analytic values
//!   must agree with the finite differences (within 1e-5 (1 + |FD|)) as
//!   well as every configuration with the reference.
//!
//! - [`Family::Vector`] (`vector.rs`): loops for the vectorizer (element-
//!   wise updates and reductions over `int`, `long`, `float`, `double`)
//!   called with distinct and overlapping arrays and trip counts around
//!   the vector widths; run as the plain family is, gcc included. Its
//!   module doc says how it keeps the guarantees below.
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
mod grad;
mod kernel;
pub mod oracle;
pub mod reduce;
mod rng;
mod vector;

pub use oracle::{Oracles, Outcome, Verdict};
pub use rng::Rng;

/// What kind of program a generator makes (see the crate doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Plain,
    Kernel,
    Grad,
    Vector,
}

impl Family {
    pub const ALL: [Family; 4] = [Family::Plain, Family::Kernel, Family::Grad, Family::Vector];

    pub fn name(self) -> &'static str {
        match self {
            Family::Plain => "plain",
            Family::Kernel => "kernel",
            Family::Grad => "grad",
            Family::Vector => "vector",
        }
    }

    pub fn from_name(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// One generated program.
#[derive(Clone, Debug)]
pub struct Program {
    pub family: Family,
    pub seed: u64,
    /// The ParC source.
    pub source: String,
    /// `argv[1..]` for `main`.
    pub args: Vec<String>,
}

impl Program {
    /// The program of `family` for `seed`: the same on every machine and
    /// every run.
    pub fn generate(family: Family, seed: u64) -> Program {
        let (source, arg) = match family {
            Family::Plain => generate::generate(seed),
            Family::Kernel => kernel::generate(seed),
            Family::Grad => grad::generate(seed),
            Family::Vector => vector::generate(seed),
        };
        Program {
            family,
            seed,
            source,
            args: vec![arg.to_string()],
        }
    }

    /// A file name for the program.
    pub fn file_name(&self) -> String {
        match self.family {
            Family::Plain => format!("fuzz-{}.pc", self.seed),
            f => format!("fuzz-{}-{}.pc", f.name(), self.seed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Family, Program};

    #[test]
    fn same_seed_same_program() {
        for family in Family::ALL {
            for seed in 0..20 {
                let a = Program::generate(family, seed);
                let b = Program::generate(family, seed);
                assert_eq!(a.source, b.source);
                assert_eq!(a.args, b.args);
            }
            let one = Program::generate(family, 1).source;
            assert_ne!(one, Program::generate(family, 2).source);
        }
    }

    /// The checker notices a configuration that prints something else: a
    /// stand-in `parc` that only echoes its arguments.
    #[test]
    fn a_wrong_configuration_is_reported() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut oracles = super::Oracles::new("/bin/echo".into(), &root);
        oracles.gcc = None;
        match oracles.check(&Program::generate(Family::Plain, 3)) {
            super::Verdict::Mismatch { report, .. } => {
                assert!(report.contains("jit-O2-8-workers"), "{report}");
                assert!(report.contains("+run --color=never --O2"), "{report}");
            }
            v => panic!("not reported: {v:?}"),
        }
    }

    /// Every program is accepted by parc's front end, and the interpreter
    /// runs it to a normal exit (10 + hash % 64) with no fault; every
    /// gradient agrees with its finite difference.
    #[test]
    fn programs_are_valid_and_run_cleanly() {
        for (family, seed) in Family::ALL
            .into_iter()
            .flat_map(|f| (0..40).map(move |s| (f, s)))
        {
            let p = Program::generate(family, seed);
            let out = super::oracle::interp(&p, &super::oracle::InterpOptions::default());
            if let Some(why) = super::oracle::reference_problem(family, &out) {
                panic!("{} {seed}: {why}: {out:?}\n{}", family.name(), p.source);
            }
        }
    }
}
