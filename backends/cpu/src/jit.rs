//! In-process execution (`parc run`): the module is compiled into this
//! process's memory by `cranelift-jit` and its `main` runs on the
//! runtime's worker pool through `parc_rt_main`, exactly as an executable's
//! C `main` would.
//!
//! Symbols resolve, in order, to: the module's own definitions; the
//! runtime's entry points (`parc_runtime::symbols()`, linked into `parc`);
//! the C library functions generated code calls
//! ([`c_library_symbols`](crate::intrinsics::c_library_symbols), which also
//! keeps libm linked into `parc`); anything else the process exports
//! (`dlsym`), for `extern` functions of the program. An import none of
//! these defines is a [`BackendError::Invalid`] before any code runs.
//!
//! Output goes through the runtime's stdout buffer to file descriptor 1;
//! `exit` and faults end the whole process, as they would end a native
//! program (callers that need to survive them run the JIT in a child
//! process).

use crate::BackendError;
use crate::codegen::{self, Flavor};
use crate::intrinsics;
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{FuncId as ClFuncId, Linkage as ClLinkage, Module as ClModule};
use parc_ir::{Module, OptLevel};
use std::collections::{HashMap, HashSet};
use std::ffi::CString;

/// A module compiled into executable memory.
pub(crate) struct JitProgram {
    module: Option<JITModule>,
    main_entry: Option<ClFuncId>,
    /// Cranelift id of each defined function, by parir name.
    by_name: HashMap<String, ClFuncId>,
}

impl JitProgram {
    /// Compiles `ir` (lowered: no Tapir terminators) at `opt`; `verify`
    /// runs Cranelift's verifier on each function.
    pub(crate) fn compile(
        ir: &Module,
        opt: OptLevel,
        verify: bool,
    ) -> Result<JitProgram, BackendError> {
        let mut builder = JITBuilder::with_flags(
            &codegen::isa_flags(false, opt, verify),
            cranelift_module::default_libcall_names(),
        )
        .map_err(|e| BackendError::Codegen(format!("JIT setup: {e}")))?;
        let mut known: HashSet<&'static str> = HashSet::new();
        let runtime = parc_runtime::symbols();
        let clib = intrinsics::c_library_symbols();
        known.extend(runtime.iter().map(|(n, _)| *n));
        known.extend(clib.iter().map(|(n, _)| *n));
        builder.symbols(runtime);
        builder.symbols(clib);
        let mut m = JITModule::new(builder);

        let compiled = codegen::compile(&mut m, ir, Flavor::Jit)?;

        // cranelift-jit panics on an unresolvable import; say so first.
        for (_, decl) in m.declarations().get_functions() {
            if decl.linkage != ClLinkage::Import {
                continue;
            }
            let name = decl.name.as_deref().unwrap_or("");
            if !known.contains(name) && !process_defines(name) {
                return Err(BackendError::Invalid(format!(
                    "function `{name}` is declared but not defined anywhere (not in the program, the parc runtime or the C library)"
                )));
            }
        }

        m.finalize_definitions()
            .map_err(|e| BackendError::Codegen(format!("JIT finalization: {e}")))?;
        let by_name = m
            .declarations()
            .get_functions()
            .filter(|(_, d)| d.linkage != ClLinkage::Import)
            .filter_map(|(id, d)| d.name.clone().map(|n| (n, id)))
            .collect();
        Ok(JitProgram {
            module: Some(m),
            main_entry: compiled.main_entry,
            by_name,
        })
    }

    /// The address of the compiled function with symbol `name` (a
    /// program function's own name unless the backend renamed it; `main`
    /// is `parc.main`).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn function(&self, name: &str) -> Option<*const u8> {
        let id = *self.by_name.get(name)?;
        Some(self.module.as_ref()?.get_finalized_function(id))
    }

    /// Runs `main` through `parc_rt_main` with `argv` (see [`run_main`]).
    pub(crate) fn run(&self, argv: &[String]) -> Result<i32, BackendError> {
        let entry = self
            .main_entry
            .ok_or_else(|| BackendError::Invalid("the program has no `main` function".into()))?;
        let m = self.module.as_ref().expect("not freed");
        let ptr = m.get_finalized_function(entry);
        // SAFETY: `parc.main_entry` was generated with exactly this
        // signature (i32, ptr) -> i32 and the C calling convention.
        let main_fn: parc_runtime::sched::MainFn = unsafe { std::mem::transmute(ptr) };
        let args: Vec<CString> = argv
            .iter()
            .map(|a| CString::new(a.replace('\0', "")).expect("NULs removed"))
            .collect();
        let mut ptrs: Vec<*mut i8> = args.iter().map(|a| a.as_ptr() as *mut i8).collect();
        ptrs.push(std::ptr::null_mut());
        // SAFETY: `argv` is a NULL-terminated array of NUL-terminated
        // strings that outlive the call, as C's `main` receives.
        let status = unsafe {
            parc_runtime::sched::parc_rt_main(main_fn, args.len() as i32, ptrs.as_mut_ptr())
        };
        Ok(status)
    }
}

impl Drop for JitProgram {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: the program has returned (`parc_rt_main` waits for
            // every task it started), so no code or data of this module is
            // still in use.
            unsafe { m.free_memory() };
        }
    }
}

/// True if the running process exports `name` (as `dlsym` finds it).
fn process_defines(name: &str) -> bool {
    let Ok(c) = CString::new(name) else {
        return false;
    };
    // SAFETY: `c` is a valid C string; RTLD_DEFAULT searches the process.
    !unsafe { libc::dlsym(libc::RTLD_DEFAULT, c.as_ptr()) }.is_null()
}

/// Compiles `module` (lowered: no Tapir terminators) in memory at `opt`
/// and runs its `main` on the runtime's worker pool with the command line
/// `args` (`argv[0]` included; empty means `argv[0]` is the module's
/// source name, or `a.out`). Returns `main`'s result. `exit` and run-time
/// faults end the process, as in a native program; output goes to the
/// process's stdout.
pub(crate) fn run_main(
    module: &Module,
    args: &[String],
    opt: OptLevel,
    verify: bool,
) -> Result<i32, BackendError> {
    let program = JitProgram::compile(module, opt, verify)?;
    let argv: Vec<String> = if args.is_empty() {
        vec![
            module
                .source_name
                .clone()
                .unwrap_or_else(|| "a.out".to_string()),
        ]
    } else {
        args.to_vec()
    };
    program.run(&argv)
}
