//! The work-stealing scheduler: `spawn`/`sync` groups, the pool, `main`.
//!
//! # Design
//!
//! Workers are the threads of a [`pool`](crate::pool) built on
//! crossbeam-deque (one Chase-Lev deque per worker, random stealing, an
//! injector for threads outside the pool, sleeping idle workers). See that
//! module for finding work and sleeping.
//!
//! **Help-first (child stealing).** `parc_rt_spawn` copies the task's
//! captured values into a job (see [`task`]: memory recycled, values
//! inline up to [`INLINE_CTX`] bytes), pushes it on the
//! spawning worker's deque and returns at once: the *continuation* keeps
//! running on the spawning worker and thieves take the *oldest* pending
//! tasks from the other end. `parc_rt_sync` then runs the group's tasks
//! that nobody stole, newest first, on the spawning worker, and while
//! stolen ones are still running it executes any other available work
//! (own deque, stealing, injector), so a waiting worker is never idle
//! while work exists and deep nesting (fib with a spawn at every level)
//! cannot deadlock: every waiting worker keeps draining work until its
//! group's counter reaches zero.
//!
//! Cost of help-first compared with Cilk's work-first continuation
//! stealing: every spawn materializes a job (a copy of the captured
//! values into a recycled job record, a deque push and pop) even when
//! nobody steals it. The common path, a task popped back and run by its
//! spawner, costs no atomic read-modify-write: the group counts it with
//! plain loads and stores (see [`ParcGroup`]), and a push onto a
//! non-empty deque needs no fence (see [`pool`](crate::pool)); what
//! remains is the `SeqCst` fence of the Chase-Lev pop, which no
//! owner-side protocol without one can replace (thieves could take the
//! job concurrently), so a queued spawn and its sync cost more than
//! `rayon_core::join`, whose job lives on the stack (`cargo bench -p
//! parc-runtime` compares them); a spawn that runs at once (below) costs
//! a call and two loads. A loop that spawns many small tasks has a single
//! producer that the thieves contend with (the smaller the tasks, the
//! less they scale), where work-first would let thieves take over the
//! loop itself; `parallel_for` splits
//! recursively and does not have this problem. And a loop that spawns `n`
//! tasks before syncing keeps up to `n` jobs queued at once (work-first
//! would keep one). The second cost is bounded by **throttling**: when a
//! group already has [`SPAWN_THROTTLE`] unfinished tasks, `parc_rt_spawn`
//! runs the new task immediately on the calling thread (valid by the
//! serial projection), so memory stays bounded while thieves still find
//! plenty of queued work.
//!
//! **Spawns run at once deep in a job.** The first cost is paid only
//! where a thief could use the job: a spawn on a worker whose pool has no
//! other worker, or one [`MAX_QUEUED_DEPTH`](crate::pool::MAX_QUEUED_DEPTH)
//! or more spawns deep in the job the worker runs, calls the task at once
//! on the caller's buffer (no job, no push, no pop; contexts of at most
//! [`INLINE_CTX`] bytes), as the serial projection would. This is the
//! max-level cut-off of Duran et al. (*An adaptive cut-off for task
//! parallelism*, SC'08), counted from the job each worker took: a thief
//! starts again at depth 0, so every stolen job, the biggest in
//! recursive code, offers the next thief up to that many levels of
//! queued tasks, while the levels below run as plain calls. A loop that
//! spawns many tasks spawns them all at one depth and queues them all.
//! (The cut-off on the deque's length, the same paper's other one, kept
//! the leaves queueing: a worker that pops its own newest job at a sync
//! makes room for the next spawn, as small; fib(35) with a spawn in every
//! call took as long on two workers as on one.) fib(35): 0.50 → 0.14 s on
//! one worker (`parc-bench --only fib,fib_serial`).

//! # Groups
//!
//! A [`ParcGroup`] is 32 bytes, 8-aligned, `#[repr(C)]`, allocated by
//! generated code in its own frame, one per sync region. **All-zero bytes
//! are a valid empty group**: zero-filling it is enough and
//! `parc_rt_group_init` exists only for symmetry. Invariants:
//! - the group stays alive (its frame is not popped) until a
//!   `parc_rt_sync` on it has returned after the last spawn into it, i.e.
//!   every function (and every outlined task or `parallel_for` body) syncs
//!   its groups before returning, as Cilk's implicit sync does;
//! - only the strand that owns the group spawns into it or syncs it;
//! - everything a task wrote happens-before the return of the sync that
//!   waits for it (release decrement, acquire load).
//!
//! # Threads
//!
//! The global pool has `PARC_NUM_THREADS` workers (default: all cores),
//! read once, when the runtime is first used; workers have 16 MiB stacks.
//! `parc_rt_main` runs the program's `main` *on a worker*, on a fresh
//! 64 MiB stack (a `corosensei` stack switched to on that worker), so
//! `main`'s spawns go to a worker deque like any task's. Entry points also
//! work from a thread outside the pool (a C program calling an exported
//! `grad_f`): spawns are injected into the pool, `parallel_for` and
//! kernel launches move into the pool for their duration
//! (`Pool::install`), and sync waits (polling with naps) for the workers
//! to finish the group's tasks. On a worker of a private pool (made by
//! [`with_workers`]) every entry point uses that pool.
//!
//! # Per-worker data (reductions)
//!
//! `parc_rt_worker_id()` is in `0..parc_rt_num_workers()` on a worker and
//! equals `parc_rt_num_workers()` on a thread outside the pool, so an array
//! of `num_workers + 1` slots (padded to 64 bytes against false sharing)
//! gives every strand a private partial sum: add to `slots[worker_id()]`
//! with plain loads and stores, and combine after the sync. The id of a
//! strand does not change while a function runs, runtime calls included
//! (tasks never migrate while running, and a sync waits on the thread it
//! was called on), so generated code may read it once per function; but a
//! sync may run *other* tasks on the same worker, which use the same slot,
//! so a slot's *contents* must be re-read after any call to spawn, sync,
//! parallel_for or launch, never kept in a register across one. At
//! most one thread outside the pool may run ParC code at a time if it
//! uses slots.

use crate::fault;
use crate::pool::{Backoff, Pool, PoolHandle, current};
use crate::task;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

pub use crate::pool::WORKER_STACK;

/// Stack size `main` runs on.
pub const MAIN_STACK: usize = 64 << 20;
/// Unfinished tasks in one group beyond which a spawn runs inline.
pub const SPAWN_THROTTLE: u64 = 4096;
pub use crate::task::INLINE_CTX;

/// An outlined task: receives a pointer to its own copy of the captured
/// values.
pub type TaskFn = extern "C" fn(ctx: *mut u8);
/// The program's `main`.
pub type MainFn = extern "C" fn(argc: i32, argv: *mut *mut i8) -> i32;

/// A sync region's task counters (see the module doc for the contract).
/// Generated code allocates `size_of::<ParcGroup>()` = 32 bytes with
/// alignment 8 and zero-fills them.
///
/// Completion is counted in two words so that a task that is not stolen
/// costs no atomic read-modify-write (as Cilk's join counter, which only
/// steals touch): `open` is the tasks spawned minus those that finished
/// *on the spawning thread*, and only that thread reads or writes it
/// (plain loads and stores); `remote` is the tasks that finished on
/// other threads (stolen, or injected from outside the pool), added to
/// with release read-modify-writes. Every task of a group is spawned by
/// the same thread (the owner strand never migrates), the group is done
/// when `open == remote` (`remote <= open` always), and its sync then
/// resets both to zero.
#[repr(C, align(8))]
#[derive(Debug, Default)]
pub struct ParcGroup {
    /// Spawned minus finished on the spawning thread (that thread only).
    open: AtomicU64,
    /// Finished on another thread.
    remote: AtomicU64,
    /// Zero; room for the future without changing the ABI.
    _reserved: [u64; 2],
}

const _: () = assert!(size_of::<ParcGroup>() == 32 && align_of::<ParcGroup>() == 8);

impl ParcGroup {
    /// An empty group (the same as all-zero bytes).
    pub const fn new() -> ParcGroup {
        ParcGroup {
            open: AtomicU64::new(0),
            remote: AtomicU64::new(0),
            _reserved: [0; 2],
        }
    }

    /// Tasks spawned and not yet finished. Exact on the thread that
    /// spawns into the group; elsewhere a snapshot at best.
    pub fn pending(&self) -> u64 {
        let remote = self.remote.load(Ordering::Acquire);
        self.open.load(Ordering::Relaxed).wrapping_sub(remote)
    }

    /// Whether every task spawned has finished, and everything they wrote
    /// is visible (on the spawning thread).
    #[inline]
    fn done(&self) -> bool {
        let open = self.open.load(Ordering::Relaxed);
        open == 0 || open == self.remote.load(Ordering::Acquire)
    }

    /// Counts one more task spawned (on the spawning thread); returns how
    /// many were open before.
    #[inline]
    fn spawned(&self) -> u64 {
        let open = self.open.load(Ordering::Relaxed);
        self.open.store(open + 1, Ordering::Relaxed);
        open
    }

    /// Marks one task finished on the thread that spawned it.
    #[inline]
    pub(crate) fn finished_local(&self) {
        let open = self.open.load(Ordering::Relaxed);
        self.open.store(open - 1, Ordering::Relaxed);
    }

    /// Marks `n` tasks finished on another thread. The group may be freed
    /// once this returns.
    #[inline]
    pub(crate) fn finished_remote(&self, n: u64) {
        self.remote.fetch_add(n, Ordering::Release);
    }

    /// Empties a group that is [`done`](Self::done) (its spawning thread
    /// only: no other thread touches it any more).
    #[inline]
    fn reset(&self) {
        self.open.store(0, Ordering::Relaxed);
        self.remote.store(0, Ordering::Relaxed);
    }
}

/// The worker count `PARC_NUM_THREADS` asks for, or all cores. An invalid
/// value is reported and ends the process with status 1.
fn configured_workers() -> usize {
    match std::env::var("PARC_NUM_THREADS") {
        Err(std::env::VarError::NotPresent) => default_workers(),
        Ok(s) if s.trim().is_empty() => default_workers(),
        Ok(s) => match s.trim().parse::<usize>() {
            Ok(n) if (1..=4096).contains(&n) => n,
            _ => invalid_workers(&s),
        },
        Err(std::env::VarError::NotUnicode(s)) => invalid_workers(&s.to_string_lossy()),
    }
}

fn default_workers() -> usize {
    available_cpus()
}

/// The CPUs this process may run on (its affinity mask and CPU quota),
/// found once: std reads the cgroup files for it, a dozen system calls
/// that every pool start would otherwise repeat.
pub(crate) fn available_cpus() -> usize {
    static CPUS: OnceLock<usize> = OnceLock::new();
    *CPUS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

fn invalid_workers(s: &str) -> ! {
    eprintln!("parc: PARC_NUM_THREADS must be a whole number from 1 to 4096, not `{s}`");
    crate::output::parc_rt_exit(1)
}

fn start_pool(workers: usize) -> PoolHandle {
    crate::signals::install();
    crate::clib::tune_allocator();
    PoolHandle::start(workers)
        .unwrap_or_else(|e| fault::die(&format!("cannot start the worker threads: {e}")))
}

/// The process-wide pool, started at first use.
pub fn pool() -> &'static Pool {
    static POOL: OnceLock<PoolHandle> = OnceLock::new();
    POOL.get_or_init(|| start_pool(configured_workers())).pool()
}

/// Runs `f` on a private pool of `workers` workers and returns its result
/// (for tests and embedders that need a worker count other than
/// `PARC_NUM_THREADS`). Every entry point called inside `f` uses that
/// pool. The pool's threads end before this returns.
pub fn with_workers<R: Send>(workers: usize, f: impl FnOnce() -> R + Send) -> R {
    let handle = start_pool(workers);
    handle.pool().install(f)
}

/// Whether the calling thread is a worker of some pool.
#[inline]
pub fn on_worker() -> bool {
    current().is_some()
}

/// Runs `f` on a worker: here if this thread is one, else inside
/// [`pool`] (the caller blocks until `f` returns).
pub fn in_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if on_worker() { f() } else { pool().install(f) }
}

/// Workers of the pool the calling thread uses.
pub fn num_workers() -> usize {
    match current() {
        Some(w) => w.pool().workers(),
        None => pool().workers(),
    }
}

/// Runs `f` on a fresh stack of `size` bytes on this thread.
pub fn on_big_stack<R>(size: usize, f: impl FnOnce() -> R) -> R {
    let stack = corosensei::stack::DefaultStack::new(size)
        .unwrap_or_else(|e| fault::die(&format!("cannot allocate a {size}-byte stack: {e}")));
    corosensei::on_stack(stack, f)
}

/// A raw pointer that may cross threads: the runtime's contract makes the
/// pointee outlive the use (groups outlive their tasks, `parallel_for`
/// contexts outlive the loop).
#[derive(Clone, Copy)]
pub(crate) struct SendPtr<T>(pub *mut T);

impl<T> SendPtr<T> {
    /// The pointer. (A method, so that closures capture the whole
    /// `SendPtr` rather than its non-`Send` field.)
    #[inline]
    pub fn get(self) -> *mut T {
        self.0
    }
}

// SAFETY: see the type's doc; the pointee's owner synchronizes through the
// group counter or `join`.
unsafe impl<T> Send for SendPtr<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for SendPtr<T> {}

/// Makes an empty group; the same as zero-filling its 32 bytes.
///
/// # Safety
/// `group` points to 32 writable bytes, 8-aligned, not in use by a sync
/// region with unfinished tasks.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_group_init(group: *mut ParcGroup) {
    // SAFETY: the caller provides room for a group.
    unsafe { group.write(ParcGroup::new()) };
}

/// Spawns `task` into `group` with a copy of the `ctx_size` bytes at `ctx`
/// (the caller may reuse its buffer as soon as this returns). The task
/// may run on any worker, in parallel with the caller's continuation, or
/// (when the group is throttled) right now on the calling thread.
///
/// # Safety
/// `group` is a live group (see the module doc); `ctx` points to
/// `ctx_size` readable bytes (may be null when `ctx_size` is 0); `task`
/// is safe to call with a pointer to a copy of them, from any thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_spawn(
    group: *mut ParcGroup,
    task: TaskFn,
    ctx: *const u8,
    ctx_size: u64,
) {
    let w = current();
    if w.is_some_and(|w| w.spawns_run_at_once()) && ctx_size as usize <= INLINE_CTX {
        // Nobody could take this task, or thieves have older (bigger)
        // ones queued: run it now (the serial projection's order).
        // SAFETY: forwarded from the caller's contract.
        unsafe { run_now(task, ctx, ctx_size as usize) };
        return;
    }
    // SAFETY: forwarded from the caller's contract.
    unsafe { spawn_job(w, group, task, ctx, ctx_size) }
}

/// Runs `task` at once on the captured values at `ctx`: on the caller's
/// buffer itself, which the caller does not read again, when it is
/// 16-aligned as a job's copy would be, else on an aligned copy. A
/// `TaskFn` cannot unwind (it is `extern "C"`), so unlike a job this
/// needs no guard.
///
/// # Safety
/// As [`parc_rt_spawn`]'s, with `size <= INLINE_CTX`.
#[inline]
unsafe fn run_now(task: TaskFn, ctx: *const u8, size: usize) {
    if (ctx as usize).is_multiple_of(16) {
        task(ctx.cast_mut());
        return;
    }
    #[repr(C, align(16))]
    struct Aligned([u8; INLINE_CTX]);
    let mut copy = Aligned([0; INLINE_CTX]);
    // SAFETY: `ctx` has `size <= INLINE_CTX` readable bytes (caller's
    // contract), and `copy` is a distinct local.
    unsafe { std::ptr::copy_nonoverlapping(ctx, copy.0.as_mut_ptr(), size) };
    task(copy.0.as_mut_ptr());
}

/// The part of [`parc_rt_spawn`] that makes a job, kept out of line so
/// that a spawn run at once saves no registers.
///
/// # Safety
/// As [`parc_rt_spawn`]'s; `w` is the calling thread's worker, if any.
#[inline(never)]
unsafe fn spawn_job(
    w: Option<&'static crate::pool::WorkerThread>,
    group: *mut ParcGroup,
    task: TaskFn,
    ctx: *const u8,
    ctx_size: u64,
) {
    // SAFETY: forwarded from the caller's contract.
    let job = unsafe { task::make(w, group, task, ctx, ctx_size as usize) };
    // SAFETY: the group is live (caller's contract).
    let g = unsafe { &*group };
    let open = g.spawned();
    // The finished remote tasks are read only when a throttle is in sight.
    if open >= SPAWN_THROTTLE && open - g.remote.load(Ordering::Relaxed) >= SPAWN_THROTTLE {
        // Enough parallel slack is queued: run this one now.
        task::run(job);
        return;
    }
    let job = task::into_job_ref(job);
    match w {
        Some(w) => w.push(job),
        None => pool().inject(job),
    }
}

/// Returns when every task spawned into `group` has finished, running
/// other work meanwhile (see the module doc). The group is then empty
/// and may be reused.
///
/// # Safety
/// `group` is a live group.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_sync(group: *mut ParcGroup) {
    // SAFETY: the group is live (caller's contract).
    let g = unsafe { &*group };
    if g.open.load(Ordering::Relaxed) == 0 {
        return;
    }
    wait_for(g);
}

/// The part of [`parc_rt_sync`] that waits, kept out of line so that a
/// sync with nothing to wait for saves no registers.
#[inline(never)]
fn wait_for(g: &ParcGroup) {
    match current() {
        Some(w) => w.wait_until(|| g.done()),
        None => {
            // Not a worker: nothing to keep a CPU busy for.
            let mut backoff = Backoff::new(std::time::Duration::ZERO);
            while !g.done() {
                backoff.snooze();
            }
        }
    }
    g.reset();
}

/// Runs the program's `main(argc, argv)` on a worker, on a 64 MiB stack,
/// flushes stdout and returns main's result (the exit status). Generated
/// executables' C `main` and the JIT call this rather than `main` itself.
///
/// # Safety
/// `argv` is as C's `main` receives it (or null with `argc` 0), and stays
/// valid during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_main(main_fn: MainFn, argc: i32, argv: *mut *mut i8) -> i32 {
    crate::signals::install();
    let argv = SendPtr(argv);
    let status = fault::guard("main", || {
        in_pool(move || {
            on_big_stack(MAIN_STACK, move || {
                let status = main_fn(argc, argv.get());
                crate::clib::run_at_exit();
                status
            })
        })
    });
    crate::output::flush();
    crate::adstats::print();
    status
}

/// Runs `f(ctx)` on a worker of the pool and returns when it has: the way
/// for a function exported to C (`grad_f`) to give its body a worker, so
/// that its spawns and syncs take the fast paths.
///
/// # Safety
/// `f` is safe to call with `ctx` from another thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_enter(f: TaskFn, ctx: *mut u8) {
    let ctx = SendPtr(ctx);
    fault::guard("enter", move || in_pool(move || f(ctx.get())));
}

/// The number of workers (`PARC_NUM_THREADS`, or of the pool the caller is
/// a worker of).
#[unsafe(no_mangle)]
pub extern "C" fn parc_rt_num_workers() -> i32 {
    num_workers() as i32
}

/// The calling worker's index in `0..parc_rt_num_workers()`, or
/// `parc_rt_num_workers()` on a thread outside the pool.
#[unsafe(no_mangle)]
pub extern "C" fn parc_rt_worker_id() -> i32 {
    match current() {
        Some(w) => w.index() as i32,
        None => pool().workers() as i32,
    }
}
