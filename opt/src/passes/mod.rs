//! One module per pass. [`ALL`] names every pass for the pipeline, the
//! CLI's `--dump-after` and the filetests' `; test: pass NAME`.

use crate::Pass;

pub mod dce;

/// Every pass, by the name the pipeline and the command line use.
pub const ALL: &[(&str, Pass)] = &[("dce", dce::run)];
