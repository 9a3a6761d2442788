//! Analyses the passes share. Each is a side table recomputed from the IR
//! (the per-function ones of parir through [`cache`], which hands out the
//! last result while the IR they read is unchanged).

pub mod alias;
pub mod allocations;
pub mod cache;
pub mod const_memory;
pub mod modref;
pub mod non_negative;
pub mod tripcount;
