//! Analyses the passes share. Each is a side table recomputed from the IR.
