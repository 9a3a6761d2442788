//! Test support shared by every harness of the workspace, as
//! `cranelift-filetests` is for Cranelift: the one parser of test
//! directives ([`directive`]), the one bless rule ([`blessing`]) and the
//! `.pir` filetest harness ([`filetest`]) that `parc-ir` and `parc-opt`
//! run, one test per file.
//!
//! A dev-dependency of the compiler's crates (and a dependency of the
//! benchmark harness, for its programs' directives); it imports `parc-ir`
//! and nothing else of ours, so any crate's tests can use it.

pub mod directive;
pub mod filetest;

pub use directive::{directive, directive_lines};

/// Whether the tests rewrite their expected files from what the code does
/// now (`PARC_BLESS=1`; unset or `0`: they compare). Every harness asks
/// this, so one variable blesses everything; review the diff.
pub fn blessing() -> bool {
    std::env::var_os("PARC_BLESS").is_some_and(|v| !v.is_empty() && v != "0")
}
