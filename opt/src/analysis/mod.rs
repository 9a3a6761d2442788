//! Analyses the passes share. Each is a side table recomputed from the IR.

pub mod parallel_loops;
