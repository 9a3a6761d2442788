//! Relocatable objects (`--emit obj`, and the input of [`link`](crate::link)):
//! the module compiled by `cranelift-object` for the host, as
//! position-independent code so one object serves executables (PIE) and
//! shared libraries alike.

use crate::BackendError;
use crate::codegen::{self, Export, Flavor};
use cranelift_object::{ObjectBuilder, ObjectModule};
use parc_ir::{Module, OptLevel};
use std::time::{Duration, Instant};

/// An object file and what it exports.
pub(crate) struct Object {
    pub bytes: Vec<u8>,
    pub exports: Vec<Export>,
    /// The time of code generation (every function translated and
    /// compiled by Cranelift) and of writing the object's bytes.
    pub times: Vec<(&'static str, Duration)>,
}

/// Compiles `ir` into an object (see `codegen` for what `flavor` changes:
/// symbol visibility, the C `main`, library wrappers) at `opt`; `verify`
/// runs Cranelift's verifier on each function.
pub(crate) fn emit(
    ir: &Module,
    flavor: Flavor,
    opt: OptLevel,
    verify: bool,
) -> Result<Object, BackendError> {
    let isa = codegen::host_isa(true, opt, verify)?;
    let name = ir.source_name.clone().unwrap_or_else(|| "parc".to_string());
    let builder = ObjectBuilder::new(isa, name, cranelift_module::default_libcall_names())
        .map_err(|e| BackendError::Codegen(format!("object setup: {e}")))?;
    let mut m = ObjectModule::new(builder);
    let start = Instant::now();
    let compiled = codegen::compile(&mut m, ir, flavor)?;
    let codegen = start.elapsed();
    let start = Instant::now();
    let bytes = m
        .finish()
        .emit()
        .map_err(|e| BackendError::Codegen(format!("writing the object: {e}")))?;
    let times = vec![
        ("cranelift codegen", codegen),
        ("object writing", start.elapsed()),
    ];
    Ok(Object {
        bytes,
        exports: compiled.exports,
        times,
    })
}
