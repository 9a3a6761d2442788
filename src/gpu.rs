//! What the driver does for code that runs on a GPU: the PTX of the
//! kernels, the device math library linked in, and the PTX put into the
//! host program.

use crate::{CompileError, Options, compile, internal_error, verified};
use parc_ir::{Module, OptLevel};

/// The PTX of the module's kernels (`--emit ptx`). What the PTX backend
/// cannot emit is the user's error, at its position in the ParC file
/// `path`: `path:line:col: error: cannot run `f` on the GPU: ...`.
pub fn emit_ptx(
    module: &Module,
    options: &parc_ptx::PtxOptions,
    path: &str,
) -> Result<String, CompileError> {
    let mut module = module.clone();
    link_device_math(&mut module)?;
    let module = &module;
    parc_ptx::emit(module, options).map_err(|e| {
        let at = module
            .file_of(e.loc)
            .or(module.source_name.as_deref())
            .unwrap_or(path);
        let rendered = if e.loc.is_known() {
            format!("{at}:{}:{}: error: {e}\n", e.loc.line, e.loc.col)
        } else {
            format!("{at}: error: {e}\n")
        };
        CompileError {
            rendered,
            internal: false,
        }
    })
}

/// Puts `ptx` into `module` as the global the CPU backend's main entry
/// registers with the runtime (`parc_cpu::PTX_GLOBAL`), so that `parc
/// run` and executables can launch the kernels on a GPU.
pub fn attach_ptx(module: &mut Module, ptx: &str) {
    let data = parc_ir::GlobalData {
        name: parc_cpu::PTX_GLOBAL.to_string(),
        size: ptx.len() as u64,
        align: 1,
        init: ptx.as_bytes().to_vec(),
        relocs: Vec::new(),
        func_relocs: Vec::new(),
        is_const: true,
        space: parc_ir::AddrSpace::Global,
        is_local: false,
        is_import: false,
    };
    module.globals.push(data);
}

/// Links parc's device math library (`parc_ptx::math`, compiled here
/// from its ParC source at `-O2`) into `module`: device code's math
/// functions of the library (`parc_ptx::math::in_library`) become calls
/// of its functions (see
/// `parc_ptx::math::link`). A failure is parc's own bug.
pub fn link_device_math(module: &mut Module) -> Result<(), CompileError> {
    let options = Options {
        opt_level: OptLevel::O2,
        library: true,
        gpu: true,
        ..Options::default()
    };
    let library = compile("<device math>", parc_ptx::math::SOURCE, &options).map_err(|e| {
        internal_error(&format!(
            "the device math library does not compile:\n{}",
            e.rendered
        ))
    })?;
    parc_ptx::math::link(module, &library.module)
        .map_err(|e| internal_error(&format!("linking the device math library: {e}")))?;
    verified(module, "linking the device math library")
}
