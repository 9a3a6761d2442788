//! The ParC front end: source text in, verified parir out, diagnostics on the way.
//!
//! Phases, each in its own module: `lex` (logos) → `parse` (lalrpop) → `ast`
//! → `check` (names and C types, producing `hir`) → `lower` (to parir).
//! Only this crate knows ParC's surface syntax.

pub mod ast;
pub mod check;
pub mod diag;
pub mod hir;
pub mod lex;
pub mod lower;
pub mod omp;
pub mod parse;
pub mod pp;
pub mod source_map;
pub mod stdtypes;
