//! Analyses the passes share. Each is a side table recomputed from the IR.

pub mod alias;
pub mod allocations;
pub mod modref;
pub mod tripcount;
