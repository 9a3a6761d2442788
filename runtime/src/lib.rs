//! `parc-runtime`: the work-stealing runtime that parc's generated code
//! calls. It is the only place in parc with threads, deques and atomics of
//! our own.
//!
//! Generated code (the Cranelift backend, JIT or object files) calls the
//! `extern "C"` entry points below; the JIT registers them from
//! [`symbols`], executables link the `staticlib`.
//!
//! # ABI contract
//!
//! All entry points use the platform C calling convention and are named
//! `parc_rt_*`. Types: `i32`/`i64` are C `int`/`long`, `f32`/`f64` are
//! `float`/`double`, `ptr` is a 64-bit address, `fn(..)` a C function
//! pointer. Strings are NUL-terminated.
//!
//! | symbol | signature | semantics |
//! |---|---|---|
//! | `parc_rt_main` | `(fn(i32, ptr) -> i32 main, i32 argc, ptr argv) -> i32` | runs `main` on a worker with a 64 MiB stack, then the `atexit` functions, flushes stdout, returns main's status |
//! | `parc_rt_enter` | `(fn(ptr) f, ptr ctx)` | runs `f(ctx)` on a worker (for entry points exported to C) |
//! | `parc_rt_group_init` | `(ptr group)` | empties a 32-byte, 8-aligned group (zero-filling is equivalent) |
//! | `parc_rt_spawn` | `(ptr group, fn(ptr) task, ptr ctx, u64 ctx_size)` | copies `ctx_size` bytes of `ctx` and makes `task(copy)` runnable in parallel |
//! | `parc_rt_sync` | `(ptr group)` | returns when every task spawned into `group` has finished |
//! | `parc_rt_parallel_for` | `(i64 lo, i64 hi, i64 grain, fn(ptr, i64, i64) body, ptr ctx)` | `body(ctx, s, e)` over disjoint chunks covering `[lo, hi)`; `grain <= 0`: automatic |
//! | `parc_rt_num_workers` | `() -> i32` | worker count |
//! | `parc_rt_worker_id` | `() -> i32` | `0..num_workers` on a worker, `num_workers` elsewhere |
//! | `parc_rt_fault` | `(i32 kind, ptr func, i32 line, i32 col, ptr file) -> !` | reports a run-time error (kinds in [`fault`]) and exits 1 |
//! | `parc_rt_fault_msg` | `(ptr msg, ptr func, i32 line, i32 col, ptr file) -> !` | the same with the message text given |
//! | `parc_rt_set_lines` | `(ptr entries, i64 count)` | registers the program's code-to-source table (see [`lines`]) |
//! | `parc_rt_set_lines_once` | `(ptr entries, i64 count)` | the same unless that table is the one registered (libraries) |
//! | `parc_rt_atomic_add_i32` | `(ptr, i32) -> i32` | `atomicAdd`, returns the old value |
//! | `parc_rt_atomic_add_i64` | `(ptr, i64) -> i64` | 〃 |
//! | `parc_rt_atomic_add_f32` | `(ptr, f32) -> f32` | 〃 (CAS loop) |
//! | `parc_rt_atomic_add_f64` | `(ptr, f64) -> f64` | 〃 (CAS loop) |
//! | `parc_rt_printf` | `(ptr fmt, ptr args, ptr kinds, i32 nargs) -> i32` | `printf` with arguments as 64-bit slots (kinds in [`printf`]) |
//! | `parc_rt_fprintf` | `(ptr stream, ptr fmt, ptr args, ptr kinds, i32 nargs) -> i32` | `fprintf` to a stream: the address fd + 1 for the standard ones, else a pointer to its `int` file descriptor (fd 1: the buffered stdout, 2: stderr, unbuffered) |
//! | `parc_rt_snprintf` | `(ptr buf, i64 size, ptr fmt, ptr args, ptr kinds, i32 nargs) -> i32` | `snprintf`; `sprintf` is `size` -1 (no limit) |
//! | `parc_rt_vfprintf` | `(ptr stream, ptr fmt, ptr ap) -> i32` | `vfprintf`: the arguments are the slots of a `va_list` (parc's convention, [`parc_cformat::va`]) |
//! | `parc_rt_vsnprintf` | `(ptr buf, i64 size, ptr fmt, ptr ap) -> i32` | `vsnprintf`; `vsprintf` is `size` -1 |
//! | `parc_rt_sscanf` | `(ptr s, ptr fmt, ptr args, ptr kinds, i32 nargs) -> i32` | `sscanf`, the pointers as `printf`'s slots (kinds ignored) |
//! | `parc_rt_fscanf` | `(ptr stream, ptr fmt, ptr args, ptr kinds, i32 nargs) -> i32` | `fscanf` (`scanf` is `fscanf` of `stdin`, the address 1) |
//! | `parc_rt_fopen` | `(ptr path, ptr mode) -> ptr` | `fopen`: a parc `FILE` (fd, C library stream) or null |
//! | `parc_rt_fclose` | `(ptr stream) -> i32` | `fclose` (a standard stream is only flushed) |
//! | `parc_rt_fread` | `(ptr p, i64 size, i64 n, ptr stream) -> i64` | `fread` (`stdin` or a file) |
//! | `parc_rt_fwrite` | `(ptr p, i64 size, i64 n, ptr stream) -> i64` | `fwrite` (stdout's bytes go to the program's stdout buffer) |
//! | `parc_rt_fgets` | `(ptr buf, i32 n, ptr stream) -> ptr` | `fgets` |
//! | `parc_rt_feof` | `(ptr stream) -> i32` | `feof` |
//! | `parc_rt_ferror` | `(ptr stream) -> i32` | `ferror` |
//! | `parc_rt_fseek` | `(ptr stream, i64 offset, i32 whence) -> i32` | `fseek` (a standard stream: -1, `ESPIPE`) |
//! | `parc_rt_ftell` | `(ptr stream) -> i64` | `ftell` (a standard stream: -1, `ESPIPE`) |
//! | `parc_rt_rewind` | `(ptr stream)` | `rewind` |
//! | `parc_rt_fgetc` | `(ptr stream) -> i32` | `fgetc` and `getc` (`stdin` or a file) |
//! | `parc_rt_ungetc` | `(i32 c, ptr stream) -> i32` | `ungetc` (`stdin` or a file) |
//! | `parc_rt_flush` | `()` | flushes the program's stdout |
//! | `parc_rt_fflush` | `(ptr stream) -> i32` | C `fflush`: flushes the program's stdout, returns 0 |
//! | `parc_rt_exit` | `(i32 status) -> !` | C `exit`: flushes and ends the process |
//! | `parc_rt_wtime` | `() -> f64` | monotonic seconds |
//! | `parc_rt_ad_tape_note` | `(i64 recorded, i64 allocated)` | a gradient's tape grew or shrank by these bytes (counted only with `PARC_AD_STATS`, see [`adstats`]) |
//! | `parc_rt_ad_tape_measure` | `(i64 on) -> i64` | the bytes of records gradient tapes hold; from `on` 1 to `on` 0 notes are counted without `PARC_AD_STATS` too (`--tape-budget`, see [`adstats`]) |
//! | `parc_rt_phys_mem` | `() -> i64` | the physical memory in bytes, or `PARC_PHYS_MEM`'s (a testing aid), 0 if unknown: the default tape budget is a fraction of it (see [`physmem`]) |
//! | `parc_rt_qsort` | `(ptr base, i64 n, i64 size, fn(ptr, ptr) -> i32 cmp)` | C `qsort` (glibc's), a null comparator or array a fault |
//! | `parc_rt_bsearch` | `(ptr key, ptr base, i64 n, i64 size, fn(ptr, ptr) -> i32 cmp) -> ptr` | C `bsearch` (glibc's), a null comparator a fault |
//! | `parc_rt_atexit` | `(fn() f) -> i32` | C `atexit`: `f` runs when `main` returns (in `parc_rt_main`) or at `parc_rt_exit`, last registered first |
//! | `parc_rt_omp_init_lock` `parc_rt_omp_destroy_lock` `parc_rt_omp_set_lock` `parc_rt_omp_unset_lock` | `(ptr lock)` | OpenMP's locks: an 8-byte word, 0 unset (see [`locks`]) |
//! | `parc_rt_omp_test_lock` | `(ptr lock) -> i32` | `omp_test_lock` |
//! | `parc_rt_omp_init_nest_lock` `parc_rt_omp_destroy_nest_lock` `parc_rt_omp_set_nest_lock` `parc_rt_omp_unset_nest_lock` | `(ptr lock)` | OpenMP's nestable locks: two 8-byte words, the owning thread (0 none) and the count (see [`locks`]) |
//! | `parc_rt_omp_test_nest_lock` | `(ptr lock) -> i32` | `omp_test_nest_lock` |
//! | `parc_rt_critical_begin` `parc_rt_critical_end` | `(i64 name)` | enter and leave the `critical` sections of a name (hashed; 0 unnamed) |
//! | `parc_rt_abort` | `() -> !` | C `abort` (ends the program by `SIGABRT`, not as a fault) |
//! | `parc_rt_assert_fail` | `(ptr expr, ptr file, i32 line, ptr function) -> !` | glibc's `__assert_fail`, then as `parc_rt_abort` |
//! | `parc_rt_ad_stats_state` | a `u8` (data) | `PARC_AD_STATS`: 0 not read yet, 1 off, 2 on; generated code skips the note when it is 1 |
//! | `parc_rt_malloc` | `(i64 bytes) -> ptr` | `malloc` that faults ("out of memory") instead of returning null |
//! | `parc_rt_calloc` | `(i64 count, i64 size) -> ptr` | `calloc`, likewise |
//! | `parc_rt_realloc` | `(ptr p, i64 bytes) -> ptr` | `realloc` (null: `malloc`), likewise |
//! | `parc_rt_launch` | `(fn(ptr) kernel, ptr args, ptr grid, ptr block, i64 shared_bytes)` | runs a kernel over `grid` × `block` threads (`grid`, `block`: three `i32`) |
//! | `parc_rt_launch_blocks` | `(fn(ptr, ptr, ptr) block_fn, ptr args, ptr grid, ptr block, i64 shared_bytes, i64 frame_bytes)` | runs a kernel split at its barriers: `block_fn(args, frame, thread)` once per block |
//! | `parc_rt_barrier_divergence` | `(ptr sites, ptr frame, i64 stride, i64 code_offset) -> !` | reports barrier divergence found by a block function (fault kind 4) |
//! | `parc_rt_barrier` | `()` | `__syncthreads()` (coroutine launches) |
//! | `parc_rt_thread_idx` | `(i32 dim) -> i32` | `threadIdx.{x,y,z}` |
//! | `parc_rt_block_idx` | `(i32 dim) -> i32` | `blockIdx.{x,y,z}` |
//! | `parc_rt_block_dim` | `(i32 dim) -> i32` | `blockDim.{x,y,z}` |
//! | `parc_rt_grid_dim` | `(i32 dim) -> i32` | `gridDim.{x,y,z}` |
//! | `parc_rt_shared_base` | `() -> ptr` | this block's zeroed `__shared__` segment |
//! | `parc_rt_cuda_malloc` | `(ptr out, i64 bytes) -> i32` | `cudaMalloc` on host memory (zeroed) |
//! | `parc_rt_cuda_memcpy` | `(ptr dst, ptr src, i64 bytes) -> i32` | `cudaMemcpy`, any direction (long copies in parallel) |
//! | `parc_rt_cuda_free` | `(ptr) -> i32` | `cudaFree` |
//! | `parc_rt_cuda_device_synchronize` | `() -> i32` | `cudaDeviceSynchronize` |
//! | `parc_rt_set_ptx` | `(ptr text, i64 len)` | registers the program's PTX (before `main`) |
//! | `parc_rt_gpu_launch` | `(ptr desc, ptr args, ptr grid, ptr block) -> i32` | runs a launch on the GPU if one is chosen and can take it (1), else 0: the caller runs it on the CPU (see [`cuda`]) |
//!
//! Other C library functions (`free memcpy memset`, parir's `CFn` rows,
//! `sqrt` and the other math functions) are called directly.
//!
//! # Invariants generated code must keep
//!
//! - Every group is synced before the frame that holds it returns, and
//!   only its owning strand spawns into or syncs it (see [`sched`]).
//! - A `parallel_for` body and an outlined task sync their own spawns
//!   before returning; `ctx` of a `parallel_for` is read-only while it runs.
//! - Kernel code calls only the kernel entry points, atomics, `printf`,
//!   math and faults: no spawn, sync, `parallel_for` or launch inside a
//!   kernel (see [`gpu`]).
//! - Program output goes through `parc_rt_printf` (not C stdio), and the
//!   program ends through `parc_rt_main` returning or `parc_rt_exit`, so
//!   the shared stdout buffer is flushed.
//! - No entry point unwinds: faults and internal panics print one line
//!   to stderr and end the process with status 1 ([`fault`]).
//!
//! # Scheduling in brief
//!
//! Work stealing over crossbeam-deque, `PARC_NUM_THREADS` workers (all
//! cores by default), help-first: a spawn queues the child and the
//! parent continues; a sync runs the unstolen children itself and steals
//! other work while stolen ones finish; `parallel_for` halves its range
//! with `join` down to the grain; kernel blocks are `parallel_for`
//! iterations, each one call of the kernel's compiled block function (or,
//! for kernels with barriers in callees, threads as coroutines). `main`
//! runs on a worker. See [`sched`] and [`pool`].
//!
//! # Modules
//!
//! [`sched`] (groups, spawn/sync, main, worker ids), [`pool`] (worker
//! threads and work stealing), [`task`] (spawned tasks' memory and
//! completion), [`parfor`], [`gpu`], [`printf`], [`output`] (stdout
//! buffer, exit), [`files`] (`fopen` and the rest), [`clib`] (allocation, clock), [`atomics`], [`locks`] (OpenMP locks, `critical`), [`fault`],
//! [`signals`] (crashes of generated code as run-time errors), [`adstats`]
//! (`PARC_AD_STATS`: gradient tape bytes).

pub mod adstats;
pub mod atomics;
pub mod clib;
pub mod cuda;
pub mod fault;
pub mod files;
pub mod gpu;
pub mod lines;
pub mod locks;
pub mod output;
pub mod parfor;
pub mod physmem;
pub mod pool;
pub mod printf;
pub mod scanf;
pub mod sched;
pub mod signals;
pub mod task;

pub use sched::{ParcGroup, with_workers};

/// Every entry point with its address, for `cranelift_jit::JITBuilder::symbol`.
pub fn symbols() -> Vec<(&'static str, *const u8)> {
    macro_rules! table {
        ($($module:ident :: $name:ident),* $(,)?) => {
            vec![$((stringify!($name), $module::$name as *const u8)),*]
        };
    }
    let data = [(
        "parc_rt_ad_stats_state",
        adstats::parc_rt_ad_stats_state.as_ptr() as *const u8,
    )];
    let mut all = table![
        sched::parc_rt_main,
        sched::parc_rt_enter,
        sched::parc_rt_group_init,
        sched::parc_rt_spawn,
        sched::parc_rt_sync,
        sched::parc_rt_num_workers,
        sched::parc_rt_worker_id,
        parfor::parc_rt_parallel_for,
        fault::parc_rt_fault,
        fault::parc_rt_fault_msg,
        lines::parc_rt_set_lines,
        lines::parc_rt_set_lines_once,
        atomics::parc_rt_atomic_add_i32,
        atomics::parc_rt_atomic_add_i64,
        atomics::parc_rt_atomic_add_f32,
        atomics::parc_rt_atomic_add_f64,
        printf::parc_rt_printf,
        printf::parc_rt_fprintf,
        printf::parc_rt_snprintf,
        printf::parc_rt_vfprintf,
        printf::parc_rt_vsnprintf,
        scanf::parc_rt_sscanf,
        scanf::parc_rt_fscanf,
        files::parc_rt_fopen,
        files::parc_rt_fclose,
        files::parc_rt_fread,
        files::parc_rt_fwrite,
        files::parc_rt_fgets,
        files::parc_rt_feof,
        files::parc_rt_ferror,
        files::parc_rt_fseek,
        files::parc_rt_ftell,
        files::parc_rt_rewind,
        files::parc_rt_fgetc,
        files::parc_rt_ungetc,
        output::parc_rt_flush,
        output::parc_rt_fflush,
        output::parc_rt_exit,
        clib::parc_rt_wtime,
        adstats::parc_rt_ad_tape_note,
        adstats::parc_rt_ad_tape_measure,
        physmem::parc_rt_phys_mem,
        clib::parc_rt_abort,
        clib::parc_rt_qsort,
        clib::parc_rt_atexit,
        clib::parc_rt_bsearch,
        locks::parc_rt_omp_init_lock,
        locks::parc_rt_omp_destroy_lock,
        locks::parc_rt_omp_set_lock,
        locks::parc_rt_omp_unset_lock,
        locks::parc_rt_omp_test_lock,
        locks::parc_rt_omp_init_nest_lock,
        locks::parc_rt_omp_destroy_nest_lock,
        locks::parc_rt_omp_set_nest_lock,
        locks::parc_rt_omp_unset_nest_lock,
        locks::parc_rt_omp_test_nest_lock,
        locks::parc_rt_critical_begin,
        locks::parc_rt_critical_end,
        clib::parc_rt_assert_fail,
        clib::parc_rt_malloc,
        clib::parc_rt_calloc,
        clib::parc_rt_realloc,
        gpu::parc_rt_launch,
        gpu::parc_rt_launch_blocks,
        gpu::parc_rt_barrier_divergence,
        gpu::parc_rt_barrier,
        gpu::parc_rt_thread_idx,
        gpu::parc_rt_block_idx,
        gpu::parc_rt_block_dim,
        gpu::parc_rt_grid_dim,
        gpu::parc_rt_shared_base,
        gpu::parc_rt_cuda_malloc,
        gpu::parc_rt_cuda_memcpy,
        gpu::parc_rt_cuda_free,
        gpu::parc_rt_cuda_device_synchronize,
        cuda::parc_rt_set_ptx,
        cuda::parc_rt_gpu_launch,
    ];
    all.extend(data);
    all
}
