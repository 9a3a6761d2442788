//! CUDA-style kernels run on the CPU, and the CUDA memory calls.
//!
//! # Two ways to run a kernel
//!
//! The compiler picks one per kernel (see `parc-cpu`'s `kernels` module):
//!
//! - **Block functions** (`parc_rt_launch_blocks`): the kernel was split at
//!   its barriers at compile time into a function that runs one whole
//!   block as plain loops over its threads. The runtime only calls it once
//!   per block; threads, barriers and barrier divergence are the generated
//!   code's business. This is the path for every kernel whose barriers
//!   are all in its own body.
//! - **Coroutines** (`parc_rt_launch`): the kernel body is called once per
//!   thread, each thread a coroutine that `parc_rt_barrier` suspends. This
//!   is the path for kernels that call a function reaching a barrier (a
//!   barrier in a callee cannot be split out at compile time), and for
//!   every kernel when `PARC_KERNEL_COROUTINES` was set at compile time.
//!
//! Both check the configuration the same way (every dimension at least 1,
//! at most 1024 threads per block, `shared_bytes` in `0..=i32::MAX`;
//! otherwise fault kind 2), run the grid's blocks in parallel over the
//! workers (the `parallel_for` splitter over block ids, x fastest), give
//! each block a zeroed `__shared__` segment, and return when every thread
//! of every block has returned.
//!
//! # Block functions
//!
//! `parc_rt_launch_blocks(block_fn, args, grid, block, shared_bytes,
//! frame_bytes)` calls `block_fn(args, frame, thread)` once per block, on
//! the worker that runs the block:
//! - `args` is the launch's argument array (as for `parc_rt_launch`);
//! - `frame` is `threads * frame_bytes` bytes, 16-aligned, private to this
//!   block while it runs and *not* zeroed (the generated code writes every
//!   byte it reads: values kept per thread across barriers and the
//!   thread-private memory of its locals, `frame_bytes` apiece; a
//!   multiple of 16). It is a per-worker buffer reused from block to
//!   block, so a block costs no allocation once the buffer is big enough;
//! - `thread` points to the running thread's `threadIdx` (three `i32`s),
//!   which the block function updates before running a thread's code
//!   when that code calls functions that may read `threadIdx` through
//!   `parc_rt_thread_idx`. `parc_rt_block_idx` and the other ids and
//!   `parc_rt_shared_base` answer for the block as usual.
//!
//! The block function detects barrier divergence itself and reports it
//! through `parc_rt_barrier_divergence(sites, frame, stride,
//! code_offset)` (see its doc), which finds the threads to name from the
//! exit codes in their frames and composes the message the reference
//! interpreter prints.
//!
//! # Coroutines
//!
//! `parc_rt_launch(kernel, args, grid, block, shared_bytes)`:
//! `kernel(args)` is the kernel body for one thread: `args` is the
//! launch's argument array, shared read-only by all threads.
//!
//! The threads of one block run on one worker, in order of their linear
//! id (x fastest), as stackful coroutines (`corosensei`, 256 KiB stacks
//! with a guard page, reused through a per-worker pool) that meet at
//! barriers: `parc_rt_barrier()` suspends the calling thread; when every
//! thread of the block is suspended at a barrier all of them are resumed,
//! in order, for the next phase. If in one phase some threads finish while
//! others wait at a barrier, that is barrier divergence: fault kind 4. (As
//! every thread must reach the *same* barrier, and all barriers look
//! alike here, waiting at two different barriers is not detected on this
//! path; block functions detect it.)
//!
//! **Fast path.** Thread 0 always starts in a coroutine. If it finishes
//! without reaching a barrier, no other thread of the block may reach one
//! either (that would be divergence), so threads 1.. run as plain calls on
//! the worker's stack, and a barrier reached by one of them is reported
//! as divergence at once. A barrier-free kernel therefore costs one
//! coroutine switch per block plus one indirect call per thread; a kernel
//! with barriers costs one coroutine per thread and two context switches
//! per thread per barrier (tens of nanoseconds each).
//!
//! # Thread state
//!
//! `parc_rt_thread_idx(dim)`, `parc_rt_block_idx(dim)`,
//! `parc_rt_block_dim(dim)`, `parc_rt_grid_dim(dim)` (`dim` 0, 1, 2 for
//! x, y, z) read the running thread's state from a thread-local pointer
//! that the block runner sets before resuming each thread (or, for a
//! block function, once per block; the generated code keeps `thread`
//! current itself);
//! `parc_rt_shared_base()` is this block's `__shared__` segment:
//! `shared_bytes` bytes, 16-aligned, zeroed when the block starts (the
//! compiler places every `__shared__` array at a fixed offset in it).
//! Called outside a kernel they are faults.
//!
//! Kernel code must not spawn, sync, run `parallel_for` or launch: a
//! thread's small coroutine stack is not meant to run other work.
//!
//! # Memory
//!
//! Where kernels run on a GPU, these calls act on its memory (see
//! `cuda`). Otherwise there is no device: `cudaMalloc` is `calloc` (zeroed, so runs are
//! deterministic), `cudaMemcpy` is `memmove` in any direction, `cudaFree`
//! is `free`, `cudaDeviceSynchronize` does nothing (launches are
//! synchronous). They return 0 (`cudaSuccess`); bad arguments are faults.
//!
//! A copy of at least [`PARALLEL_COPY_BYTES`] between disjoint ranges is
//! split into chunks that the workers copy in parallel. Copying a
//! program's input to fresh device memory is mostly the first touch of
//! the destination's pages (page faults, which the operating system
//! serves in parallel for different threads); done serially, it is host
//! time in which every other worker idles.

use crate::fault::{self, FAULT_BARRIER, FAULT_LAUNCH, FAULT_OOM};
use crate::parfor::{auto_grain, split};
use crate::sched::{SendPtr, in_pool, num_workers};
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use std::cell::{Cell, RefCell};
use std::ptr;

/// A kernel body for one thread.
pub type KernelFn = extern "C" fn(args: *const u64);

/// A kernel split at its barriers: runs one whole block (see the module
/// doc's "Block functions").
pub type BlockFn = extern "C" fn(args: *const u64, frame: *mut u8, thread: *mut i32);

/// Where a fissioned kernel's barriers are, for divergence messages: entry
/// 0 names the kernel (`line`, `col` unused), entry `c >= 1` the barrier
/// whose exit code is `c` (`func`: the source function holding it;
/// `line` 0 when its position is unknown). Laid out by the compiler as a
/// read-only table of 16-byte entries.
#[repr(C)]
pub struct BarrierSite {
    pub func: *const std::ffi::c_char,
    pub line: i32,
    pub col: i32,
}

/// Most bytes of per-thread frame a block function may ask for.
pub const MAX_FRAME_BYTES: i64 = 1 << 24;

/// Most threads in one block.
pub const MAX_THREADS_PER_BLOCK: i64 = 1024;
/// Stack size of one kernel thread's coroutine.
pub const THREAD_STACK: usize = 256 << 10;
/// Stacks a worker keeps for reuse (one block's worth at most).
const POOLED_STACKS: usize = MAX_THREADS_PER_BLOCK as usize;

type ThreadCo = Coroutine<(), (), (), DefaultStack>;

/// One kernel thread's view of the launch.
#[derive(Clone, Copy)]
struct ThreadState {
    thread: [i32; 3],
    block: [i32; 3],
    block_dim: [i32; 3],
    grid_dim: [i32; 3],
    shared: *mut u8,
    /// The thread's coroutine, or null when it runs as a plain call.
    yielder: *const Yielder<(), ()>,
}

impl ThreadState {
    /// Thread 0 of block `block_id` of launch `l`, with its `__shared__`
    /// segment at `shared`, running as a plain call.
    fn first_of(l: &Launch, block_id: u64, shared: *mut u8) -> ThreadState {
        ThreadState {
            thread: [0; 3],
            block: unflatten(block_id, l.grid),
            block_dim: l.block,
            grid_dim: l.grid,
            shared,
            yielder: ptr::null(),
        }
    }
}

thread_local! {
    /// The kernel thread running on this OS thread, or null.
    static CURRENT: Cell<*mut ThreadState> = const { Cell::new(ptr::null_mut()) };
    /// Coroutine stacks for reuse.
    static STACKS: RefCell<Vec<DefaultStack>> = const { RefCell::new(Vec::new()) };
    /// The shared-memory segment, reused from block to block.
    static SHARED: Cell<Vec<u128>> = const { Cell::new(Vec::new()) };
    /// The per-thread frames of a block function, reused likewise.
    static FRAMES: Cell<Vec<u128>> = const { Cell::new(Vec::new()) };
}

fn take_stack() -> DefaultStack {
    STACKS.with_borrow_mut(|s| s.pop()).unwrap_or_else(|| {
        DefaultStack::new(THREAD_STACK).unwrap_or_else(|e| {
            fault::die(&format!(
                "{}: cannot allocate a kernel thread's stack: {e}",
                fault::kind_message(FAULT_OOM)
            ))
        })
    })
}

fn give_stack(stack: DefaultStack) {
    STACKS.with_borrow_mut(|s| {
        if s.len() < POOLED_STACKS {
            s.push(stack);
        }
    });
}

/// The thread id of linear index `i` in a box of dimensions `d`.
fn unflatten(mut i: u64, d: [i32; 3]) -> [i32; 3] {
    let x = i % d[0] as u64;
    i /= d[0] as u64;
    let y = i % d[1] as u64;
    let z = i / d[1] as u64;
    [x as i32, y as i32, z as i32]
}

fn bad_launch(what: String) -> ! {
    fault::die(&format!("{}: {what}", fault::kind_message(FAULT_LAUNCH)))
}

fn divergence(block: [i32; 3], detail: String) -> ! {
    fault::die(&format!(
        "{} in block ({},{},{}): {detail}",
        fault::kind_message(FAULT_BARRIER),
        block[0],
        block[1],
        block[2]
    ))
}

/// Everything a block runner needs.
#[derive(Clone, Copy)]
struct Launch {
    kernel: KernelFn,
    args: *const u64,
    grid: [i32; 3],
    block: [i32; 3],
    threads: u64,
    shared_bytes: usize,
}

/// This worker's shared-memory segment, zeroed and sized for `l` (give it
/// back with `SHARED.set` when the block is done).
fn fresh_shared(l: &Launch) -> Vec<u128> {
    let mut shared = SHARED.take();
    shared.clear();
    shared.resize(l.shared_bytes.div_ceil(16).max(1), 0);
    shared
}

/// Runs one block to completion on this thread, its threads as coroutines.
fn run_block(l: &Launch, block_id: u64) {
    let mut shared = fresh_shared(l);
    let base = ThreadState::first_of(l, block_id, shared.as_mut_ptr().cast());
    let saved = CURRENT.get();
    // Boxed so that the address thread 0's coroutine holds stays fixed.
    let first_state = Box::into_raw(Box::new(base));
    let mut first = spawn_thread(l, first_state);
    CURRENT.set(first_state);
    if let CoroutineResult::Return(()) = first.resume(()) {
        give_stack(first.into_stack());
        // Fast path: no other thread of this block may reach a barrier.
        let mut st = base;
        for t in 1..l.threads {
            st.thread = unflatten(t, l.block);
            CURRENT.set(&mut st);
            (l.kernel)(l.args);
        }
    } else {
        run_phases(l, base, first, first_state);
    }
    // SAFETY: made by `Box::into_raw` above; its coroutine is finished.
    drop(unsafe { Box::from_raw(first_state) });
    CURRENT.set(saved);
    SHARED.set(shared);
}

/// A coroutine that runs `kernel` as the thread whose state is `*st`.
fn spawn_thread(l: &Launch, st: *mut ThreadState) -> ThreadCo {
    let (kernel, args) = (l.kernel, SendPtr(l.args.cast_mut()));
    let st = SendPtr(st);
    Coroutine::with_stack(take_stack(), move |y: &Yielder<(), ()>, ()| {
        // SAFETY: `st` points to state owned by the block runner, which
        // outlives the coroutine; only this coroutine writes `yielder`.
        unsafe { (*st.get()).yielder = y };
        kernel(args.get());
    })
}

/// The slow path: thread 0 (`first`, state `first_state`) waits at a
/// barrier; run every thread as a coroutine, phase by phase.
fn run_phases(l: &Launch, base: ThreadState, first: ThreadCo, first_state: *mut ThreadState) {
    let n = l.threads as usize;
    // Index 0 is unused (thread 0's state is `first_state`).
    let mut states: Box<[ThreadState]> = vec![base; n].into_boxed_slice();
    let states_ptr = states.as_mut_ptr();
    let mut ptrs: Vec<*mut ThreadState> = Vec::with_capacity(n);
    let mut cos: Vec<ThreadCo> = Vec::with_capacity(n);
    ptrs.push(first_state);
    cos.push(first);
    for t in 1..n {
        // SAFETY: `t < n`, inside the boxed slice, which outlives the
        // coroutines and is only accessed through these pointers.
        let st = unsafe { states_ptr.add(t) };
        // SAFETY: as above.
        unsafe { (*st).thread = unflatten(t as u64, l.block) };
        ptrs.push(st);
        cos.push(spawn_thread(l, st));
    }
    // The first phase resumes threads 1.. (thread 0 already waits).
    let mut from = 1;
    loop {
        let mut waiting = from;
        let mut finished = 0usize;
        for t in from..n {
            CURRENT.set(ptrs[t]);
            match cos[t].resume(()) {
                CoroutineResult::Yield(()) => waiting += 1,
                CoroutineResult::Return(()) => finished += 1,
            }
        }
        if finished == n {
            break;
        }
        if finished > 0 {
            divergence(
                base.block,
                format!(
                    "{finished} of its {n} threads finished while {waiting} wait at __syncthreads()"
                ),
            );
        }
        from = 0;
    }
    for co in cos {
        give_stack(co.into_stack());
    }
    drop(states);
}

/// Reads a `dim3` argument.
///
/// # Safety
/// `p` points to three `i32`s.
unsafe fn dim3(p: *const i32, what: &str) -> [i32; 3] {
    if p.is_null() {
        bad_launch(format!("the {what} dimensions are a null pointer"));
    }
    // SAFETY: the caller guarantees three readable `i32`s.
    unsafe { [*p, *p.add(1), *p.add(2)] }
}

/// Checks a launch configuration (faults as the module doc says) and
/// returns the launch record (with `kernel` set to `kernel`) and the
/// number of blocks.
///
/// # Safety
/// `grid` and `block` point to three `i32`s (x, y, z).
unsafe fn checked_launch(
    kernel: KernelFn,
    args: *const u64,
    grid: *const i32,
    block: *const i32,
    shared_bytes: i64,
) -> (Launch, u64) {
    // SAFETY: forwarded from the caller's contract.
    let (grid, block) = unsafe { (dim3(grid, "grid"), dim3(block, "block")) };
    let show = |d: [i32; 3]| format!("({},{},{})", d[0], d[1], d[2]);
    if grid.iter().any(|&d| d < 1) {
        bad_launch(format!("the grid {} has a dimension below 1", show(grid)));
    }
    if block.iter().any(|&d| d < 1) {
        bad_launch(format!("the block {} has a dimension below 1", show(block)));
    }
    let threads: i64 = block.iter().map(|&d| d as i64).product();
    if threads > MAX_THREADS_PER_BLOCK {
        bad_launch(format!(
            "the block {} has {threads} threads (at most {MAX_THREADS_PER_BLOCK})",
            show(block)
        ));
    }
    if !(0..=i32::MAX as i64).contains(&shared_bytes) {
        bad_launch(format!("{shared_bytes} bytes of shared memory"));
    }
    // At most (2^31)^3 = 2^93 blocks: count in 128 bits.
    let blocks: u128 = grid.iter().map(|&d| d as u128).product();
    if blocks > i64::MAX as u128 {
        bad_launch(format!("the grid {} has too many blocks", show(grid)));
    }
    let launch = Launch {
        kernel,
        args,
        grid,
        block,
        threads: threads as u64,
        shared_bytes: shared_bytes as usize,
    };
    (launch, blocks as u64)
}

/// Runs `run(block_id)` for every block id in `0..blocks` in parallel on
/// the pool (the `parallel_for` splitter); returns when all have run.
fn for_each_block(blocks: u64, run: impl Fn(u64) + Sync + Send) {
    fault::guard("launch", move || {
        in_pool(move || {
            // A block is a large piece of work (all of its threads), so
            // leaves of a few blocks cost little in joins; and a launch
            // ends with one worker finishing its last leaf while the
            // others find nothing to steal, half a leaf on average (64
            // blocks was a measurable share of a launch's time). One
            // worker has nobody to share with and splits nothing.
            let workers = num_workers();
            let grain = if workers == 1 {
                blocks
            } else {
                auto_grain(blocks, workers).min(8)
            };
            let leaf = |start: i64, len: u64| {
                for b in start as u64..start as u64 + len {
                    run(b);
                }
            };
            split(0, blocks, grain, &leaf);
        })
    });
}

/// Launches `kernel` over `grid` blocks of `block` threads with
/// `shared_bytes` bytes of shared memory per block, each thread a
/// coroutine; returns when all threads have finished. See the module doc.
///
/// # Safety
/// `grid` and `block` point to three `i32`s (x, y, z); `kernel` is safe to
/// call with `args` from any worker, many times concurrently.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_launch(
    kernel: KernelFn,
    args: *const u64,
    grid: *const i32,
    block: *const i32,
    shared_bytes: i64,
) {
    // SAFETY: forwarded from the caller's contract.
    let (launch, blocks) = unsafe { checked_launch(kernel, args, grid, block, shared_bytes) };
    let launch = SendPtr(&launch as *const Launch as *mut Launch);
    // SAFETY: the launch record outlives the parallel loop.
    for_each_block(blocks, move |b| run_block(unsafe { &*launch.get() }, b));
}

/// Never called: the kernel of a block-function launch's record.
extern "C" fn no_kernel(_: *const u64) {}

/// Launches a kernel split at its barriers: `block_fn` runs each of the
/// `grid` blocks of `block` threads, with `frame_bytes` bytes of frame per
/// thread; returns when every block is done. See the module doc.
///
/// # Safety
/// `grid` and `block` point to three `i32`s (x, y, z); `block_fn` is safe
/// to call with `args` from any worker, many times concurrently, and keeps
/// to the contract of the module doc.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_launch_blocks(
    block_fn: BlockFn,
    args: *const u64,
    grid: *const i32,
    block: *const i32,
    shared_bytes: i64,
    frame_bytes: i64,
) {
    // SAFETY: forwarded from the caller's contract.
    let (launch, blocks) = unsafe { checked_launch(no_kernel, args, grid, block, shared_bytes) };
    if !(0..=MAX_FRAME_BYTES).contains(&frame_bytes) || frame_bytes % 16 != 0 {
        // The compiler computes this; another value is a bug in parc.
        fault::die(&format!(
            "internal error: a kernel asks for {frame_bytes} bytes of frame per thread"
        ));
    }
    let launch = SendPtr(&launch as *const Launch as *mut Launch);
    for_each_block(blocks, move |b| {
        // SAFETY: the launch record outlives the parallel loop.
        let l = unsafe { &*launch.get() };
        run_block_fn(l, b, block_fn, frame_bytes as usize)
    });
}

/// Runs one block of a block-function launch on this thread.
fn run_block_fn(l: &Launch, block_id: u64, block_fn: BlockFn, frame_bytes: usize) {
    let mut shared = fresh_shared(l);
    let mut frames = FRAMES.take();
    // At most 1024 threads times 2^24 bytes: no overflow.
    let words = l.threads as usize * frame_bytes / 16;
    if frames.len() < words {
        if frames.try_reserve_exact(words - frames.len()).is_err() {
            fault::die(&format!(
                "{}: cannot allocate {} bytes of kernel thread frames",
                fault::kind_message(FAULT_OOM),
                words * 16
            ));
        }
        frames.resize(words, 0);
    }
    let mut state = ThreadState::first_of(l, block_id, shared.as_mut_ptr().cast());
    let st: *mut ThreadState = &mut state;
    let saved = CURRENT.get();
    CURRENT.set(st);
    // SAFETY: `st` points to `state`, alive until the call returns; only
    // raw pointers to it exist meanwhile.
    let thread = unsafe { ptr::addr_of_mut!((*st).thread) }.cast::<i32>();
    block_fn(l.args, frames.as_mut_ptr().cast(), thread);
    CURRENT.set(saved);
    FRAMES.set(frames);
    SHARED.set(shared);
}

/// Entry `c` of a barrier table: (function name, line, column).
///
/// # Safety
/// `sites` has an entry `c` whose name is null or a NUL-terminated string.
unsafe fn site_entry(sites: *const BarrierSite, c: i32) -> (String, i32, i32) {
    // SAFETY: the caller's contract.
    let s = unsafe { &*sites.add(c as usize) };
    // SAFETY: likewise.
    let name = unsafe { fault::c_str(s.func) }.unwrap_or_default();
    (name.into_owned(), s.line, s.col)
}

/// Reports barrier divergence in a block function's block and ends the
/// program (fault kind 4). Called after a phase of the block in which not
/// every thread stopped at the same place. Where each thread stopped is
/// the `i32` at `code_offset` in its frame (thread `t`'s frame is at
/// `frame + t * stride`): 0 for "returned", or the exit code `c >= 1` of
/// a barrier, whose site is `sites[c]` (see [`BarrierSite`]). The message
/// is the reference interpreter's: it names the first thread waiting at a
/// barrier and the first thread that did not reach that barrier.
///
/// # Safety
/// Called while a block function runs, with its frame; `sites` has an
/// entry for 0 and for every code in the frames, whose names are
/// NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_barrier_divergence(
    sites: *const BarrierSite,
    frame: *const u8,
    stride: i64,
    code_offset: i64,
) -> ! {
    let st = CURRENT.get();
    if st.is_null() || sites.is_null() || frame.is_null() || stride < 0 || code_offset < 0 {
        fault::die(&fault::kind_message(FAULT_BARRIER));
    }
    // SAFETY: `CURRENT` points to the running block's state.
    let st = unsafe { *st };
    let threads: u64 = st.block_dim.iter().map(|&d| d as u64).product();
    // SAFETY: every thread of the block has a frame with its code.
    let code = |t: u64| unsafe {
        frame
            .add(t as usize * stride as usize + code_offset as usize)
            .cast::<i32>()
            .read_unaligned()
    };
    let first = code(0);
    let Some(other) = (1..threads).find(|&t| code(t) != first) else {
        fault::die(&fault::kind_message(FAULT_BARRIER));
    };
    let other_code = code(other);
    // SAFETY: the caller guarantees these entries and their strings.
    let site = |c: i32| unsafe { site_entry(sites, c) };
    let kernel = site(0).0;
    let barrier_text = |(func, line, col): &(String, i32, i32)| {
        if *line > 0 {
            format!("the barrier at line {line}:{col}")
        } else {
            format!("a barrier in `{func}`")
        }
    };
    let ids = |t: u64| {
        let [x, y, z] = unflatten(t, st.block_dim);
        format!("({x},{y},{z})")
    };
    // The waiting thread is thread 0 unless thread 0 returned.
    let (waiting, at, late, what) = if first != 0 {
        let what = if other_code == 0 {
            "finished without reaching it".to_string()
        } else {
            format!("waits at {}", barrier_text(&site(other_code)))
        };
        (0, site(first), other, what)
    } else {
        let what = "finished without reaching it".to_string();
        (other, site(other_code), 0, what)
    };
    let [bx, by, bz] = st.block;
    let message = format!(
        "{} in kernel `{kernel}`: thread {} of block ({bx},{by},{bz}) reached {} but thread {} {what}",
        fault::kind_message(FAULT_BARRIER),
        ids(waiting),
        barrier_text(&at),
        ids(late),
    );
    let place = fault::Site {
        func: Some(&at.0),
        line: at.1,
        col: at.2,
        file: None,
    };
    fault::die_at(place, &message)
}

/// `__syncthreads()`: waits until every thread of the block has reached a
/// barrier (see the module doc).
#[unsafe(no_mangle)]
pub extern "C" fn parc_rt_barrier() {
    let st = CURRENT.get();
    if st.is_null() {
        fault::die("__syncthreads() called outside a kernel");
    }
    // SAFETY: `CURRENT` points to the running thread's state while it runs.
    let st = unsafe { *st };
    if st.yielder.is_null() {
        divergence(
            st.block,
            format!(
                "thread ({},{},{}) reached __syncthreads() but thread (0,0,0) finished without reaching it",
                st.thread[0], st.thread[1], st.thread[2]
            ),
        );
    }
    // SAFETY: the yielder belongs to the coroutine running this code.
    unsafe { (*st.yielder).suspend(()) };
}

/// Reads the running kernel thread's state; a fault outside a kernel.
#[inline]
fn with_current<R>(what: &str, f: impl FnOnce(&ThreadState) -> R) -> R {
    let st = CURRENT.get();
    if st.is_null() {
        fault::die(&format!("{what} used outside a kernel"));
    }
    // SAFETY: `CURRENT` points to the running thread's state while it runs.
    f(unsafe { &*st })
}

fn component(v: [i32; 3], dim: i32, what: &str) -> i32 {
    match dim {
        0..=2 => v[dim as usize],
        _ => fault::die(&format!("{what} with dimension {dim} (0, 1 or 2 expected)")),
    }
}

/// `threadIdx.{x,y,z}` for `dim` 0, 1, 2.
#[unsafe(no_mangle)]
pub extern "C" fn parc_rt_thread_idx(dim: i32) -> i32 {
    with_current("threadIdx", |st| component(st.thread, dim, "threadIdx"))
}

/// `blockIdx.{x,y,z}` for `dim` 0, 1, 2.
#[unsafe(no_mangle)]
pub extern "C" fn parc_rt_block_idx(dim: i32) -> i32 {
    with_current("blockIdx", |st| component(st.block, dim, "blockIdx"))
}

/// `blockDim.{x,y,z}` for `dim` 0, 1, 2.
#[unsafe(no_mangle)]
pub extern "C" fn parc_rt_block_dim(dim: i32) -> i32 {
    with_current("blockDim", |st| component(st.block_dim, dim, "blockDim"))
}

/// `gridDim.{x,y,z}` for `dim` 0, 1, 2.
#[unsafe(no_mangle)]
pub extern "C" fn parc_rt_grid_dim(dim: i32) -> i32 {
    with_current("gridDim", |st| component(st.grid_dim, dim, "gridDim"))
}

/// The running block's shared-memory segment (16-aligned, zeroed at the
/// start of the block, `shared_bytes` long).
#[unsafe(no_mangle)]
pub extern "C" fn parc_rt_shared_base() -> *mut u8 {
    with_current("shared memory", |st| st.shared)
}

/// `cudaMalloc(out, bytes)`: `*out = calloc(bytes)`; returns 0. A negative
/// size or a failed allocation is an "out of memory" fault.
///
/// # Safety
/// `out` points to a writable pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_cuda_malloc(out: *mut *mut u8, bytes: i64) -> i32 {
    if out.is_null() {
        fault::die("cudaMalloc: the result pointer is null");
    }
    if bytes < 0 {
        fault::die(&format!("cudaMalloc of {bytes} bytes"));
    }
    // On the GPU when kernels run on one (see `cuda`).
    let p =
        crate::cuda::malloc(bytes as u64).unwrap_or_else(|| crate::clib::parc_rt_calloc(1, bytes));
    // SAFETY: `out` is writable (caller's contract).
    unsafe { out.write(p) };
    0
}

/// Copies at least this long between disjoint ranges are split over the
/// workers (see the module doc's "Memory").
pub const PARALLEL_COPY_BYTES: usize = 1 << 20;
/// The size of one chunk of a parallel copy: big enough that a chunk's
/// `memcpy` dwarfs the cost of a `join`, small enough to balance.
const COPY_CHUNK_BYTES: usize = 256 << 10;

/// `cudaMemcpy(dst, src, bytes, kind)` for any kind: `memmove`, in
/// parallel chunks when long and disjoint (see the module doc); returns 0.
///
/// # Safety
/// `dst` and `src` are valid for `bytes` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_cuda_memcpy(dst: *mut u8, src: *const u8, bytes: i64) -> i32 {
    if bytes < 0 {
        fault::die(&format!("cudaMemcpy of {bytes} bytes"));
    }
    if bytes > 0 {
        if dst.is_null() || src.is_null() {
            fault::die("cudaMemcpy with a null pointer");
        }
        if crate::cuda::memcpy(dst, src, bytes as u64) {
            return 0;
        }
        let len = bytes as usize;
        let disjoint = (dst as usize).abs_diff(src as usize) >= len;
        if len >= PARALLEL_COPY_BYTES && disjoint && num_workers() > 1 {
            // SAFETY: as for the serial copy; the chunks are disjoint.
            unsafe { parallel_copy(dst, src, len) };
        } else {
            // SAFETY: both valid for `bytes` bytes (caller's contract);
            // `copy` allows overlap.
            unsafe { ptr::copy(src, dst, len) };
        }
    }
    0
}

/// Copies `len` bytes from `src` to `dst` in chunks spread over the
/// workers.
///
/// # Safety
/// `dst` and `src` are valid for `len` bytes and do not overlap.
unsafe fn parallel_copy(dst: *mut u8, src: *const u8, len: usize) {
    let (dst, src) = (SendPtr(dst), SendPtr(src.cast_mut()));
    let chunks = len.div_ceil(COPY_CHUNK_BYTES) as u64;
    fault::guard("cudaMemcpy", move || {
        in_pool(move || {
            let leaf = move |first: i64, count: u64| {
                let start = first as usize * COPY_CHUNK_BYTES;
                let end = (start + count as usize * COPY_CHUNK_BYTES).min(len);
                // SAFETY: `start..end` lies inside both ranges (the
                // caller's contract), and the chunks do not overlap.
                unsafe {
                    ptr::copy_nonoverlapping(
                        src.get().add(start),
                        dst.get().add(start),
                        end - start,
                    )
                };
            };
            split(0, chunks, 1, &leaf);
        })
    });
}

/// `cudaFree(p)`: `free(p)`; returns 0.
///
/// # Safety
/// `p` is null or came from `parc_rt_cuda_malloc` and was not freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_cuda_free(p: *mut u8) -> i32 {
    if p.is_null() || crate::cuda::free(p) {
        return 0;
    }
    // SAFETY: the caller's contract.
    unsafe { libc::free(p.cast()) };
    0
}

/// `cudaDeviceSynchronize()`: launches are synchronous; returns 0.
#[unsafe(no_mangle)]
pub extern "C" fn parc_rt_cuda_device_synchronize() -> i32 {
    crate::cuda::synchronize();
    0
}
