//! parc's CPU backend: Tapir lowering, then Cranelift.
//!
//! - [`tapir`]: target-independent outlining of tasks and parallel loops
//!   into functions that the runtime calls (OpenCilk's TapirToTarget), with
//!   a serial target (spawn = a call of the outlined task) kept as the
//!   lowering's oracle in its tests. (`parc --serial` lowers no task: the
//!   driver has already removed them, see `parc_opt`'s `serial-elision`.)
//! - `kernels`: kernels split at their barriers into block functions that
//!   run a whole block as loops over its threads (barrier fission), run
//!   by `codegen` on a copy of its input; kernels with barriers in callees
//!   keep running their threads as coroutines;
//! - `codegen`: parir without Tapir terminators → Cranelift IR, for any
//!   `cranelift_module::Module` (the value and type mapping, the fault
//!   protocol and the launch ABI are documented there);
//! - `intrinsics`: the runtime and C library functions generated code calls;
//! - `jit`: [`jit_run`], in-process execution for `parc run`;
//! - `object`, `link`, `header`: relocatable objects, and executables or
//!   shared libraries (with a C header) linked by the system `cc`, for
//!   `parc build`.
//!
//! # Public API
//!
//! The input of every entry point is a verified module *after*
//! [`tapir::lower_tapir`]: a `detach`, `reattach` or `sync` left in it is a
//! [`BackendError::Invalid`].
//!
//! - [`jit_run`]: compile in memory and run `main` on the runtime's worker
//!   pool; returns `main`'s status (a program that calls `exit` or faults
//!   ends the process there, as a native program would);
//! - [`emit_object`]: the relocatable object (`--emit obj`);
//! - [`build`]: an executable, a shared library plus header, or an object.
//!
//! Debugging: with `PARC_DUMP_CLIF` set, every function's Cranelift IR is
//! printed to stderr before it is compiled, and for each kernel which
//! path it takes (with the block function's parir). With
//! `PARC_KERNEL_COROUTINES` set (not `0`), every kernel takes the
//! coroutine path.

pub mod tapir;

mod codegen;
mod header;
mod intrinsics;
mod jit;
mod kernels;
mod link;
mod object;
mod placement;

use parc_ir::Module;
use std::fmt;
use std::path::Path;

pub use codegen::PTX_GLOBAL;
pub use jit::run_main;
pub use link::{RUNTIME_LIB_ENV, find_runtime_lib};

/// Why the backend produced nothing.
#[derive(Debug)]
pub enum BackendError {
    /// The module is not something this backend translates: Tapir
    /// terminators left, an unknown kernel, a name clash with the C library
    /// or the runtime. The message says which function and why.
    Invalid(String),
    /// Cranelift rejected the generated code (a bug of this backend).
    Codegen(String),
    /// The runtime library could not be found, or `cc` failed.
    Link(String),
    /// Reading or writing a file.
    Io(std::io::Error),
    /// Writing the output file (the path, why not).
    Output(std::path::PathBuf, std::io::Error),
}

impl fmt::Display for BackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BackendError::Invalid(m) => write!(f, "{m}"),
            BackendError::Codegen(m) => write!(f, "code generation failed: {m}"),
            BackendError::Link(m) => write!(f, "{m}"),
            BackendError::Io(e) => write!(f, "{e}"),
            BackendError::Output(path, e) => write!(f, "cannot write `{}`: {e}", path.display()),
        }
    }
}

impl std::error::Error for BackendError {}

impl From<std::io::Error> for BackendError {
    fn from(e: std::io::Error) -> BackendError {
        BackendError::Io(e)
    }
}

/// What [`build`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputKind {
    /// A native executable: the program's object, a C `main` that runs the
    /// program's `main` through `parc_rt_main`, and the runtime library.
    Exe,
    /// A shared library exporting every exported host function with the C
    /// ABI, and beside it a C header (`out` with the extension `.h`).
    Lib,
    /// The relocatable object alone (as [`emit_object`]).
    Obj,
}

/// Compiles `module` in memory and runs its `main` with the command line
/// `args` (`argv[0]` included; empty means `argv[0]` is the module's source
/// name). Returns `main`'s result, the process's exit status. Same as
/// [`run_main`].
pub fn jit_run(module: &Module, args: &[String]) -> Result<i32, BackendError> {
    jit::run_main(module, args)
}

/// The relocatable object (ELF on Linux, position-independent) of
/// `module`: exported host functions under their own names, the rest
/// local, and, if the module has `main`, a C `main` that calls
/// `parc_rt_main` (link it with `libparc_runtime.a -lm -lpthread -ldl`).
pub fn emit_object(module: &Module) -> Result<Vec<u8>, BackendError> {
    object::emit(module, codegen::Flavor::Obj).map(|o| o.bytes)
}

/// Builds `module` into `out` (see [`OutputKind`]). Executables and
/// libraries are linked by `cc` (or `$CC`) with the runtime's static
/// library (see [`find_runtime_lib`]).
pub fn build(module: &Module, kind: OutputKind, out: &Path) -> Result<(), BackendError> {
    let write = |path: &Path, bytes: &[u8]| {
        std::fs::write(path, bytes).map_err(|e| BackendError::Output(path.to_path_buf(), e))
    };
    match kind {
        OutputKind::Obj => write(out, &emit_object(module)?),
        OutputKind::Exe => {
            if module
                .func_by_name("main")
                .is_none_or(|f| module.funcs[f].is_declaration())
            {
                return Err(BackendError::Invalid(
                    "the program has no `main` function, which an executable needs; \
                     build a library (`--emit lib`) or an object (`--emit obj`) instead"
                        .into(),
                ));
            }
            let obj = object::emit(module, codegen::Flavor::Exe)?;
            link::link(&obj.bytes, link::LinkKind::Exe, &[], out)
        }
        OutputKind::Lib => {
            let obj = object::emit(module, codegen::Flavor::Lib)?;
            let names: Vec<&str> = obj.exports.iter().map(|e| e.name.as_str()).collect();
            link::link(&obj.bytes, link::LinkKind::Lib, &names, out)?;
            let header_path = out.with_extension("h");
            let text = header::c_header(module, &obj.exports, &header_path);
            write(&header_path, text.as_bytes())
        }
    }
}

#[cfg(test)]
mod tests;
