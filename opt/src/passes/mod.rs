//! One module per pass.

pub mod dce;
