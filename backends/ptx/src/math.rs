//! The device math library's interface: which function of the module
//! computes each math intrinsic that PTX has no instruction for.

use parc_ir::{Intrinsic, Type};

/// The name of the parir function that computes `op` at type `ty` on
/// the GPU (`parc.math.exp`, `parc.math.expf` ...).
pub fn routine(op: Intrinsic, ty: Type) -> String {
    let suffix = if ty == Type::F32 { "f" } else { "" };
    format!("parc.math.{}{suffix}", op.name())
}
