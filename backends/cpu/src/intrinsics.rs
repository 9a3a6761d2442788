//! The functions outside the module that generated code calls: the
//! runtime's `parc_rt_*` entry points (see `parc-runtime`'s ABI table) and
//! the C library, with their signatures in parir types.
//!
//! Every external call the backend emits goes through one [`ExternFn`] of
//! this file, so the list of names here is also the list of symbols a
//! program must not define with a different meaning (see
//! [`is_reserved`]) and, for the JIT, the C library symbols it registers
//! explicitly ([`c_library_symbols`]).

use parc_ir::{CFn, Intrinsic, Type};
use std::ffi::CString;

/// An external function: its symbol and its C signature in parir types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ExternFn {
    pub name: &'static str,
    pub params: &'static [Type],
    pub ret: Option<Type>,
}

const fn ext(name: &'static str, params: &'static [Type], ret: Option<Type>) -> ExternFn {
    ExternFn { name, params, ret }
}

use Type::{F32, F64, I32, I64, Ptr};

// The runtime (`parc-runtime/src/lib.rs` lists the same signatures).
pub(crate) const RT_MAIN: ExternFn = ext("parc_rt_main", &[Ptr, I32, Ptr], Some(I32));
pub(crate) const RT_ENTER: ExternFn = ext("parc_rt_enter", &[Ptr, Ptr], None);
pub(crate) const RT_FAULT: ExternFn = ext("parc_rt_fault", &[I32, Ptr, I32, I32, Ptr], None);
pub(crate) const RT_FAULT_MSG: ExternFn =
    ext("parc_rt_fault_msg", &[Ptr, Ptr, I32, I32, Ptr], None);
pub(crate) const RT_SET_LINES: ExternFn = ext("parc_rt_set_lines", &[Ptr, I64], None);
pub(crate) const RT_SET_LINES_ONCE: ExternFn = ext("parc_rt_set_lines_once", &[Ptr, I64], None);
pub(crate) const RT_PRINTF: ExternFn = ext("parc_rt_printf", &[Ptr, Ptr, Ptr, I32], Some(I32));
pub(crate) const RT_FPRINTF: ExternFn =
    ext("parc_rt_fprintf", &[Ptr, Ptr, Ptr, Ptr, I32], Some(I32));
pub(crate) const RT_SNPRINTF: ExternFn = ext(
    "parc_rt_snprintf",
    &[Ptr, I64, Ptr, Ptr, Ptr, I32],
    Some(I32),
);
pub(crate) const RT_VFPRINTF: ExternFn = ext("parc_rt_vfprintf", &[Ptr, Ptr, Ptr], Some(I32));
pub(crate) const RT_VSNPRINTF: ExternFn =
    ext("parc_rt_vsnprintf", &[Ptr, I64, Ptr, Ptr], Some(I32));
pub(crate) const RT_SSCANF: ExternFn = ext("parc_rt_sscanf", &[Ptr, Ptr, Ptr, Ptr, I32], Some(I32));
pub(crate) const RT_FSCANF: ExternFn = ext("parc_rt_fscanf", &[Ptr, Ptr, Ptr, Ptr, I32], Some(I32));
pub(crate) const RT_FLUSH: ExternFn = ext("parc_rt_flush", &[], None);
pub(crate) const RT_EXIT: ExternFn = ext("parc_rt_exit", &[I32], None);
pub(crate) const RT_WTIME: ExternFn = ext("parc_rt_wtime", &[], Some(F64));
pub(crate) const RT_AD_TAPE_NOTE: ExternFn = ext("parc_rt_ad_tape_note", &[I64, I64], None);
pub(crate) const RT_AD_TAPE_MEASURE: ExternFn = ext("parc_rt_ad_tape_measure", &[I64], Some(I64));
pub(crate) const RT_PHYS_MEM: ExternFn = ext("parc_rt_phys_mem", &[], Some(I64));
/// The runtime's `PARC_AD_STATS` state byte, which generated code reads
/// before a note (see `parc_runtime::adstats`).
pub(crate) const RT_AD_STATS_STATE: &str = "parc_rt_ad_stats_state";
pub(crate) const RT_MALLOC: ExternFn = ext("parc_rt_malloc", &[I64], Some(Ptr));
pub(crate) const RT_CALLOC: ExternFn = ext("parc_rt_calloc", &[I64, I64], Some(Ptr));
pub(crate) const RT_REALLOC: ExternFn = ext("parc_rt_realloc", &[Ptr, I64], Some(Ptr));
pub(crate) const RT_WORKER_ID: ExternFn = ext("parc_rt_worker_id", &[], Some(I32));
pub(crate) const RT_NUM_WORKERS: ExternFn = ext("parc_rt_num_workers", &[], Some(I32));
pub(crate) const RT_LAUNCH: ExternFn = ext("parc_rt_launch", &[Ptr, Ptr, Ptr, Ptr, I64], None);
pub(crate) const RT_LAUNCH_BLOCKS: ExternFn = ext(
    "parc_rt_launch_blocks",
    &[Ptr, Ptr, Ptr, Ptr, I64, I64],
    None,
);
pub(crate) const RT_BARRIER: ExternFn = ext("parc_rt_barrier", &[], None);
pub(crate) const RT_THREAD_IDX: ExternFn = ext("parc_rt_thread_idx", &[I32], Some(I32));
pub(crate) const RT_BLOCK_IDX: ExternFn = ext("parc_rt_block_idx", &[I32], Some(I32));
pub(crate) const RT_BLOCK_DIM: ExternFn = ext("parc_rt_block_dim", &[I32], Some(I32));
pub(crate) const RT_GRID_DIM: ExternFn = ext("parc_rt_grid_dim", &[I32], Some(I32));
pub(crate) const RT_SHARED_BASE: ExternFn = ext("parc_rt_shared_base", &[], Some(Ptr));
pub(crate) const RT_CUDA_MALLOC: ExternFn = ext("parc_rt_cuda_malloc", &[Ptr, I64], Some(I32));
pub(crate) const RT_CUDA_MEMCPY: ExternFn = ext("parc_rt_cuda_memcpy", &[Ptr, Ptr, I64], Some(I32));
pub(crate) const RT_CUDA_FREE: ExternFn = ext("parc_rt_cuda_free", &[Ptr], Some(I32));
pub(crate) const RT_CUDA_SYNC: ExternFn = ext("parc_rt_cuda_device_synchronize", &[], Some(I32));
pub(crate) const RT_SET_PTX: ExternFn = ext("parc_rt_set_ptx", &[Ptr, I64], None);
pub(crate) const RT_GPU_LAUNCH: ExternFn =
    ext("parc_rt_gpu_launch", &[Ptr, Ptr, Ptr, Ptr], Some(I32));

/// Runtime entry points whose presence (transitively) means a function
/// spawns tasks, so an exported wrapper should enter the worker pool.
pub(crate) const RT_SPAWNING: [&str; 2] = ["parc_rt_spawn", "parc_rt_sync"];

// The C library.
pub(crate) const C_FREE: ExternFn = ext("free", &[Ptr], None);
pub(crate) const C_MEMCPY: ExternFn = ext("memcpy", &[Ptr, Ptr, I64], Some(Ptr));
pub(crate) const C_MEMSET: ExternFn = ext("memset", &[Ptr, I32, I64], Some(Ptr));

/// The symbol native code calls for C library function `f`: its own,
/// but for `abort` and `assert`'s report, which the runtime wraps so that
/// they end the program as C's do despite its `SIGABRT` handler, and
/// `fflush` and the file functions, whose stdout buffer and `FILE` are
/// the runtime's, `qsort` and `bsearch`, whose null comparator the
/// runtime reports, `atexit`, whose functions the runtime runs, and
/// OpenMP's locks and `critical` sections, which are the runtime's.
pub(crate) fn c_symbol(f: CFn) -> &'static str {
    match f {
        CFn::Abort => "parc_rt_abort",
        CFn::AssertFail => "parc_rt_assert_fail",
        CFn::Fflush => "parc_rt_fflush",
        CFn::Fopen => "parc_rt_fopen",
        CFn::Fclose => "parc_rt_fclose",
        CFn::Fread => "parc_rt_fread",
        CFn::Fwrite => "parc_rt_fwrite",
        CFn::Fgets => "parc_rt_fgets",
        CFn::Feof => "parc_rt_feof",
        CFn::Ferror => "parc_rt_ferror",
        CFn::Fseek => "parc_rt_fseek",
        CFn::Ftell => "parc_rt_ftell",
        CFn::Rewind => "parc_rt_rewind",
        CFn::Fgetc => "parc_rt_fgetc",
        CFn::Ungetc => "parc_rt_ungetc",
        CFn::Qsort => "parc_rt_qsort",
        CFn::Atexit => "parc_rt_atexit",
        CFn::Bsearch => "parc_rt_bsearch",
        CFn::OmpInitLock => "parc_rt_omp_init_lock",
        CFn::OmpDestroyLock => "parc_rt_omp_destroy_lock",
        CFn::OmpSetLock => "parc_rt_omp_set_lock",
        CFn::OmpUnsetLock => "parc_rt_omp_unset_lock",
        CFn::OmpTestLock => "parc_rt_omp_test_lock",
        CFn::OmpInitNestLock => "parc_rt_omp_init_nest_lock",
        CFn::OmpDestroyNestLock => "parc_rt_omp_destroy_nest_lock",
        CFn::OmpSetNestLock => "parc_rt_omp_set_nest_lock",
        CFn::OmpUnsetNestLock => "parc_rt_omp_unset_nest_lock",
        CFn::OmpTestNestLock => "parc_rt_omp_test_nest_lock",
        CFn::CriticalBegin => "parc_rt_critical_begin",
        CFn::CriticalEnd => "parc_rt_critical_end",
        _ => f.name(),
    }
}

/// The C math function computing `op` on `ty` (`f32` picks the
/// `f`-suffixed one; the symbols are `parc_ir::libm`'s, which the
/// interpreter calls too), for the math intrinsics that are calls.
/// `sqrt`, `fabs`, `floor`, `ceil`, `trunc`, `fmin` and `fmax` are
/// instructions instead (all exact, so they agree with libm bit for bit).
pub(crate) fn libm_fn(op: Intrinsic, ty: Type) -> Option<ExternFn> {
    let name = parc_ir::libm::symbol(op, ty)?;
    let params: &'static [Type] = match (ty == F32, op.info().params.len()) {
        (false, 1) => &[F64],
        (false, _) => &[F64, F64],
        (true, 1) => &[F32],
        (true, _) => &[F32, F32],
    };
    let ret = if ty == F32 { F32 } else { F64 };
    Some(ext(name, params, Some(ret)))
}

/// `sincos` (`sincosf` for `f32`): both at once, through two pointers.
pub(crate) fn sincos_fn(ty: Type) -> ExternFn {
    if ty == F32 {
        ext("sincosf", &[F32, Ptr, Ptr], None)
    } else {
        ext("sincos", &[F64, Ptr, Ptr], None)
    }
}

/// Symbols Cranelift itself may call (libcalls for float rounding on CPUs
/// without SSE4.1, `fma`, memory functions).
const LIBCALLS: [&str; 14] = [
    "floor",
    "floorf",
    "ceil",
    "ceilf",
    "trunc",
    "truncf",
    "nearbyint",
    "nearbyintf",
    "fma",
    "fmaf",
    "memcpy",
    "memset",
    "memmove",
    "memcmp",
];

/// True if `name` is a symbol the generated code may reference by itself,
/// so a function of the program must not be defined under that name in
/// the same object (it is renamed when local, rejected when exported).
pub(crate) fn is_reserved(name: &str) -> bool {
    name.starts_with("parc_rt_")
        || name.starts_with("parc.")
        || name == "main"
        || LIBCALLS.contains(&name)
        || parc_ir::libm::SYMBOLS.contains(&name)
        || ["sincos", "sincosf"].contains(&name)
        || name == "free"
        || CFn::from_name(name).is_some()
}

// The libm functions Cranelift or generated code calls besides the math
// intrinsics' (which `parc_ir::libm` declares).
#[link(name = "m")]
unsafe extern "C" {
    fn sincos(x: f64, sin: *mut f64, cos: *mut f64);
    fn sincosf(x: f32, sin: *mut f32, cos: *mut f32);
    fn nearbyint(x: f64) -> f64;
    fn nearbyintf(x: f32) -> f32;
    fn fma(x: f64, y: f64, z: f64) -> f64;
    fn fmaf(x: f32, y: f32, z: f32) -> f32;
}

/// The C library functions generated code calls, with their addresses in
/// this process, for the JIT's symbol table. Naming the math functions
/// here also makes the linker keep libm in the `parc` binary, so the JIT
/// never depends on `dlsym` finding them; the [`CFn`] rows' functions are
/// the C library's own (`libc.so`'s, which `parc` links), found by name.
pub(crate) fn c_library_symbols() -> Vec<(&'static str, *const u8)> {
    type F1 = unsafe extern "C" fn(f64) -> f64;
    type F1f = unsafe extern "C" fn(f32) -> f32;
    type F3 = unsafe extern "C" fn(f64, f64, f64) -> f64;
    type F3f = unsafe extern "C" fn(f32, f32, f32) -> f32;
    type SinCos = unsafe extern "C" fn(f64, *mut f64, *mut f64);
    type SinCosf = unsafe extern "C" fn(f32, *mut f32, *mut f32);
    // Every math intrinsic's function (the instructions' too: a program
    // may declare `sqrt` `extern` and call it by name).
    let mut symbols = parc_ir::libm::symbols();
    symbols.extend([
        ("sincos", sincos as SinCos as *const u8),
        ("sincosf", sincosf as SinCosf as *const u8),
        ("nearbyint", nearbyint as F1 as *const u8),
        ("nearbyintf", nearbyintf as F1f as *const u8),
        ("fma", fma as F3 as *const u8),
        ("fmaf", fmaf as F3f as *const u8),
        ("abs", libc::abs as *const u8),
        ("labs", libc::labs as *const u8),
        ("free", libc::free as *const u8),
        ("memcpy", libc::memcpy as *const u8),
        ("memset", libc::memset as *const u8),
        ("memmove", libc::memmove as *const u8),
        ("memcmp", libc::memcmp as *const u8),
    ]);
    let called_directly = CFn::ALL.iter().filter(|&&f| c_symbol(f) == f.name());
    symbols.extend(called_directly.filter_map(|f| {
        let name = CString::new(f.name()).ok()?;
        // SAFETY: looking a symbol up by a C string name.
        let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
        (!p.is_null()).then_some((f.name(), p as *const u8))
    }));
    symbols
}
