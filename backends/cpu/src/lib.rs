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
//! Every entry point takes a verified module as the optimizer leaves it
//! (Tapir terminators included) and [`Options`], and runs the backend's
//! whole lowering itself: Tapir lowering onto the runtime ([`tapir`]),
//! kernel fission, then Cranelift at the options' [`OptLevel`]
//! (`opt_level=none` at `-O0`).
//!
//! - [`jit_run`]: compile in memory and run `main` on the runtime's worker
//!   pool; returns `main`'s status (a program that calls `exit` or faults
//!   ends the process there, as a native program would);
//! - [`emit_object`]: the relocatable object (`--emit obj`);
//! - [`build`]: an executable, a shared library plus header, or an object.
//!
//! The PTX backend (`parc-ptx`) has the same shape: an options struct and
//! entry functions that take the optimized module.
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
use std::num::NonZeroU64;
use std::path::Path;
use std::time::{Duration, Instant};

pub use codegen::PTX_GLOBAL;
pub use link::{RUNTIME_LIB_ENV, find_runtime_lib};
pub use parc_ir::OptLevel;

/// How the CPU backend compiles a module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// `-O0` compiles without optimizing in Cranelift (fast builds, frame
    /// pointers kept, no loop placement); any other level with
    /// `opt_level=speed`.
    pub opt_level: OptLevel,
    /// Iterations per chunk of every parallel loop; `None` lets the
    /// runtime choose from the trip count and the number of workers.
    pub grain: Option<NonZeroU64>,
    /// The linker's extra arguments for executables and shared libraries
    /// (`-LDIR`, `-lNAME`), after the program's object.
    pub link_args: Vec<String>,
    /// Run Cranelift's verifier on every function before compiling it
    /// (`--verify-each`). Debug builds of parc always do; release builds
    /// leave it out, as it costs about a tenth of code generation and only
    /// finds bugs of this backend, which the tests (debug builds) catch.
    pub verify: bool,
}

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

/// The backend's lowering before code generation: every detach, reattach
/// and sync onto the runtime (kernel fission happens in code generation,
/// on a copy of each kernel).
fn lower(mut module: Module, options: &Options) -> Result<Module, BackendError> {
    let tapir_options = tapir::TapirOptions {
        grain: options.grain.map(NonZeroU64::get),
    };
    tapir::lower_tapir(&mut module, tapir::Target::Runtime, &tapir_options)
        .map_err(|e| BackendError::Codegen(format!("Tapir lowering: {e}")))?;
    Ok(module)
}

/// Compiles `module` in memory and runs its `main` with the command line
/// `args` (`argv[0]` included; empty means `argv[0]` is the module's source
/// name). Returns `main`'s result, the process's exit status.
pub fn jit_run(module: Module, args: &[String], options: &Options) -> Result<i32, BackendError> {
    let module = lower(module, options)?;
    jit::run_main(&module, args, options.opt_level, options.verify)
}

/// The relocatable object (ELF on Linux, position-independent) of
/// `module`: exported host functions under their own names, the rest
/// local, and, if the module has `main`, a C `main` that calls
/// `parc_rt_main` (link it with `libparc_runtime.a -lm -lpthread -ldl`).
pub fn emit_object(module: Module, options: &Options) -> Result<Vec<u8>, BackendError> {
    let module = lower(module, options)?;
    object::emit(
        &module,
        codegen::Flavor::Obj,
        options.opt_level,
        options.verify,
    )
    .map(|o| o.bytes)
}

/// Builds `module` into `out` (see [`OutputKind`]). Executables and
/// libraries are linked by `cc` (or `$CC`) with the runtime's static
/// library (see [`find_runtime_lib`]). Returns the time of each stage
/// (Tapir lowering, Cranelift code generation, writing the object,
/// linking), in order, for `--time-passes`.
pub fn build(
    module: Module,
    kind: OutputKind,
    out: &Path,
    options: &Options,
) -> Result<Vec<(&'static str, Duration)>, BackendError> {
    let write = |path: &Path, bytes: &[u8]| {
        std::fs::write(path, bytes).map_err(|e| BackendError::Output(path.to_path_buf(), e))
    };
    if kind == OutputKind::Exe
        && module
            .func_by_name("main")
            .is_none_or(|f| module.funcs[f].is_declaration())
    {
        return Err(BackendError::Invalid(
            "the program has no `main` function, which an executable needs; \
             build a library (`--emit lib`) or an object (`--emit obj`) instead"
                .into(),
        ));
    }
    let start = Instant::now();
    let module = lower(module, options)?;
    let mut times = vec![("tapir lowering", start.elapsed())];
    let opt = options.opt_level;
    let flavor = match kind {
        OutputKind::Obj => codegen::Flavor::Obj,
        OutputKind::Exe => codegen::Flavor::Exe,
        OutputKind::Lib => codegen::Flavor::Lib,
    };
    let obj = object::emit(&module, flavor, opt, options.verify)?;
    times.extend(&obj.times);
    let start = Instant::now();
    match kind {
        OutputKind::Obj => write(out, &obj.bytes)?,
        OutputKind::Exe => link::link(
            &obj.bytes,
            link::LinkKind::Exe,
            &[],
            &options.link_args,
            out,
        )?,
        OutputKind::Lib => {
            let names: Vec<&str> = obj.exports.iter().map(|e| e.name.as_str()).collect();
            link::link(
                &obj.bytes,
                link::LinkKind::Lib,
                &names,
                &options.link_args,
                out,
            )?;
            let header_path = out.with_extension("h");
            let text = header::c_header(&module, &obj.exports, &header_path);
            write(&header_path, text.as_bytes())?
        }
    }
    // An object is written, not linked; its time counts as writing it.
    let last = match kind {
        OutputKind::Obj => "object writing",
        OutputKind::Exe | OutputKind::Lib => "linking",
    };
    match times.iter_mut().find(|(n, _)| *n == last) {
        Some((_, t)) => *t += start.elapsed(),
        None => times.push((last, start.elapsed())),
    }
    Ok(times)
}

#[cfg(test)]
mod tests;
