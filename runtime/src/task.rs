//! Spawned tasks as jobs: their memory, and how their completion counts.
//!
//! # Memory
//!
//! A `TaskJob` holds the task function, its group, the worker that
//! spawned it, and a copy of the captured values (inline up to
//! [`INLINE_CTX`] bytes, 16-aligned, else in a heap buffer). Job memory
//! never goes back to `malloc` in steady state: each worker keeps a cache
//! of jobs in its `WorkerThread` (a `JobMemory`, touched only by that
//! worker's thread, so no thread-local lookup and no lock); a job that ran
//! on the worker that spawned it goes back to that cache; a stolen job
//! goes back to its spawner through the spawner's `ReturnList` (a
//! lock-free intrusive stack that any thread pushes onto and only its
//! owner empties, all at once, so there is no ABA problem), and the
//! spawner refills its cache from there when the cache runs dry.
//! Returning memory to the spawner instead of freeing it on the thief
//! keeps one worker spawning many tasks from fighting the thieves over
//! `malloc` locks. Threads outside the pool keep no cache (their jobs are
//! allocated per spawn and end in the cache of the worker that ran them).
//!
//! # Counting completion
//!
//! A group counts its tasks in two words (see [`ParcGroup`]): a task
//! that ran on its spawner's thread (the common case: nobody stole it)
//! decrements the group's `open` count with a plain load and store, no
//! atomic read-modify-write, since only that thread touches `open`. A
//! stolen task's completion adds to the group's `remote` count, and is
//! *deferred*: the thief collects finished tasks of one group (count and
//! job memory) in a thread-local and publishes them, returned memory
//! first and then one add to `remote`, in `flush_deferred`. The pool
//! calls it before running a job of another group or of another kind,
//! whenever a search for work fails (before backing off, searching or
//! sleeping), and before a wait (`sync`, `join`) returns to the code that
//! waited. So a count stays deferred only while the thief runs tasks of
//! that same group or looks for work: no sync waits on it longer than the
//! thief keeps working for that very group, and a thief draining many
//! small tasks of one group does not bounce the group's cache line with
//! the spawner.
//!
//! All tasks of one group have the same spawner (a group belongs to one
//! function invocation, which never migrates), and that worker is alive
//! while the group has unfinished tasks (the invocation has not passed
//! its sync), so returning memory before the count is safe.

use crate::fault;
use crate::pool::{Header, JobRef, WorkerThread, current};
use crate::sched::{ParcGroup, TaskFn};
use std::cell::{Cell, UnsafeCell};
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};

/// Captured values up to this size are stored inside the job.
pub const INLINE_CTX: usize = 80;
/// Jobs a thread keeps in its cache.
const CACHE_MAX: usize = 1024;

/// A spawned task with its own copy of the captured values.
#[repr(C)]
pub(crate) struct TaskJob {
    /// First, so that a `JobRef` to the header is a pointer to the job.
    header: Header,
    task: TaskFn,
    /// The worker that spawned the task (null: a thread outside the pool).
    spawner: *const WorkerThread,
    /// How many spawns deep it is in its spawner's job (see
    /// [`WorkerThread::depth`]).
    depth: u32,
    /// Link in a return list or a deferred chain.
    next: *mut TaskJob,
    /// Captured values that fit.
    inline: [u128; INLINE_CTX / 16],
    /// Captured values that do not fit.
    heap: Option<Box<[u128]>>,
}

/// Jobs are boxed one by one: each is leaked to a queue as a raw pointer
/// and its box is taken back after it runs.
#[allow(clippy::vec_box)]
type Cache = Vec<Box<TaskJob>>;

thread_local! {
    /// Finished stolen tasks not yet published.
    static DEFERRED: Cell<Deferred> = const { Cell::new(Deferred::EMPTY) };
}

/// Finished stolen tasks of one group, not yet published.
#[derive(Clone, Copy)]
struct Deferred {
    group: *const ParcGroup,
    count: u64,
    /// Their spawner, to which the chain goes back.
    home: *const WorkerThread,
    head: *mut TaskJob,
    tail: *mut TaskJob,
}

impl Deferred {
    const EMPTY: Deferred = Deferred {
        group: ptr::null(),
        count: 0,
        home: ptr::null(),
        head: ptr::null_mut(),
        tail: ptr::null_mut(),
    };
}

/// A worker's job memory: its cache, which only the worker's thread
/// touches, and the jobs that thieves hand back.
pub(crate) struct JobMemory {
    cache: UnsafeCell<Cache>,
    returned: ReturnList,
}

impl JobMemory {
    pub fn new() -> JobMemory {
        JobMemory {
            cache: UnsafeCell::new(Vec::new()),
            returned: ReturnList::new(),
        }
    }

    /// A cached job, if any (the owning worker's thread only).
    #[inline]
    fn take(&self) -> Option<Box<TaskJob>> {
        // SAFETY: only the owning worker's thread calls `take` and `keep`,
        // and neither calls out while it holds the reference.
        let cache = unsafe { &mut *self.cache.get() };
        if cache.is_empty() {
            refill(cache, self.returned.take_all());
        }
        cache.pop()
    }

    /// Keeps `job` for reuse (the owning worker's thread only).
    #[inline]
    fn keep(&self, job: Box<TaskJob>) {
        // SAFETY: as in `take`.
        let cache = unsafe { &mut *self.cache.get() };
        if cache.len() < CACHE_MAX {
            cache.push(job);
        }
    }

    /// Jobs handed back by thieves.
    pub(crate) fn returned(&self) -> &ReturnList {
        &self.returned
    }
}

/// Jobs handed back to the worker that spawned them.
pub(crate) struct ReturnList(AtomicPtr<TaskJob>);

impl ReturnList {
    pub fn new() -> ReturnList {
        ReturnList(AtomicPtr::new(ptr::null_mut()))
    }

    /// Pushes the chain `head ..= tail` (linked through `next`).
    ///
    /// # Safety
    /// The chain is well formed and owned by the caller.
    unsafe fn push_chain(&self, head: *mut TaskJob, tail: *mut TaskJob) {
        let mut old = self.0.load(Ordering::Relaxed);
        loop {
            // SAFETY: `tail` is owned by the caller until the exchange.
            unsafe { (*tail).next = old };
            match self
                .0
                .compare_exchange_weak(old, head, Ordering::Release, Ordering::Relaxed)
            {
                Ok(_) => return,
                Err(now) => old = now,
            }
        }
    }

    /// Takes every job on the list (owner only).
    fn take_all(&self) -> *mut TaskJob {
        self.0.swap(ptr::null_mut(), Ordering::Acquire)
    }
}

impl Drop for ReturnList {
    fn drop(&mut self) {
        let mut p = self.take_all();
        while !p.is_null() {
            // SAFETY: every job on the list was leaked from its box.
            let job = unsafe { Box::from_raw(p) };
            p = job.next;
        }
    }
}

/// A job for `task` in `group` with a copy of the `size` bytes at `ctx`.
///
/// # Safety
/// `ctx` points to `size` readable bytes.
#[inline]
pub(crate) unsafe fn make(
    w: Option<&WorkerThread>,
    group: *const ParcGroup,
    task: TaskFn,
    ctx: *const u8,
    size: usize,
) -> Box<TaskJob> {
    let spawner = w.map_or(ptr::null(), |w| w as *const WorkerThread);
    // Threads outside the pool keep no cache.
    let cached = w.and_then(|w| w.jobs().take());
    let mut job = cached.unwrap_or_else(|| {
        Box::new(TaskJob {
            header: Header {
                exec: run_task,
                group,
            },
            task,
            spawner,
            depth: 0,
            next: ptr::null_mut(),
            inline: [0; INLINE_CTX / 16],
            heap: None,
        })
    });
    job.header.group = group;
    job.task = task;
    job.spawner = spawner;
    job.depth = w.map_or(0, |w| w.depth().get() + 1);
    let dst: *mut u8 = if size <= INLINE_CTX {
        job.inline.as_mut_ptr().cast()
    } else {
        job.heap
            .insert(vec![0u128; size.div_ceil(16)].into_boxed_slice())
            .as_mut_ptr()
            .cast()
    };
    // SAFETY: `ctx` has `size` bytes (caller); `dst` has room.
    unsafe { copy_ctx(ctx, dst, size) };
    job
}

/// Copies the `size` bytes of a context. Generated code stores the
/// captured values right before it calls `parc_rt_spawn`, so they are
/// most likely still in the store buffer: a load that spans two stores
/// (a 16-byte `memcpy` move over an `int` and its neighbour) cannot take
/// its bytes from there and waits until the stores reach the cache,
/// which costs more than the rest of a spawn. Contexts up to
/// [`INLINE_CTX`] bytes whose size and address are multiples of 4 (all
/// that generated code makes) are therefore copied in separate 4-byte
/// moves, each inside one store of a captured value of 4 bytes or more.
///
/// # Safety
/// As `ptr::copy_nonoverlapping(src, dst, size)`.
#[inline]
unsafe fn copy_ctx(src: *const u8, dst: *mut u8, size: usize) {
    if size <= INLINE_CTX && size.is_multiple_of(4) && (src as usize).is_multiple_of(4) {
        let (src, dst) = (src.cast::<u32>(), dst.cast::<u32>());
        for i in 0..size / 4 {
            // SAFETY: the caller's contract; volatile so that the loads
            // are not merged into wider ones (nor the loop into `memcpy`).
            unsafe { dst.add(i).write_unaligned(src.add(i).read_volatile()) };
        }
    } else {
        // SAFETY: the caller's contract.
        unsafe { ptr::copy_nonoverlapping(src, dst, size) };
    }
}

/// Moves a returned chain into the cache (freeing what does not fit).
fn refill(cache: &mut Cache, mut p: *mut TaskJob) {
    while !p.is_null() {
        // SAFETY: every job on a return list was leaked from its box and
        // is owned by the list's owner, the caller.
        let job = unsafe { Box::from_raw(p) };
        p = job.next;
        if cache.len() < CACHE_MAX {
            cache.push(job);
        }
    }
}

/// Runs the task, then counts it finished (see the module doc). A panic
/// (only possible from Rust code) ends the program.
pub(crate) fn run(mut job: Box<TaskJob>) {
    let ctx: *mut u8 = match &mut job.heap {
        Some(b) => b.as_mut_ptr().cast(),
        None => job.inline.as_mut_ptr().cast(),
    };
    let task = job.task;
    // Its spawner's job goes on in it; a thief's starts anew.
    let runner = current();
    let saved = runner.map(|w| {
        let mine = ptr::eq(w, job.spawner);
        w.depth().replace(if mine { job.depth } else { 0 })
    });
    fault::guard("a spawned task", || task(ctx));
    if let (Some(w), Some(d)) = (runner, saved) {
        w.depth().set(d);
    }
    job.heap = None;
    let group = job.header.group;
    // Threads outside the pool run only their own throttled spawns (they
    // never take jobs from a queue), so a job with no spawning worker that
    // runs on a worker finished remotely.
    let here = match current() {
        Some(w) if !ptr::eq(w, job.spawner) => w,
        Some(w) => {
            w.jobs().keep(job);
            // SAFETY: the group is alive until its sync returns, which is
            // later on this very thread.
            unsafe { (*group).finished_local() };
            return;
        }
        None => {
            debug_assert!(job.spawner.is_null());
            // SAFETY: as above.
            unsafe { (*group).finished_local() };
            return;
        }
    };
    if job.spawner.is_null() {
        // Injected from outside the pool: keep the memory here.
        here.jobs().keep(job);
        // SAFETY: the group is alive until this count lets its sync
        // return; it is not touched afterwards.
        unsafe { (*group).finished_remote(1) };
        return;
    }
    let mut d = DEFERRED.get();
    if d.count > 0 && d.group != group {
        flush_deferred();
        d = Deferred::EMPTY;
    }
    let home = job.spawner;
    let p = Box::into_raw(job);
    // SAFETY: `p` was just leaked; this thread owns it.
    unsafe { (*p).next = d.head };
    DEFERRED.set(Deferred {
        group,
        count: d.count + 1,
        home,
        head: p,
        tail: if d.tail.is_null() { p } else { d.tail },
    });
}

/// Leaks the job to its queue entry; [`run_task`] takes it back.
pub(crate) fn into_job_ref(job: Box<TaskJob>) -> JobRef {
    // `header` is the first field of the `repr(C)` `TaskJob`.
    JobRef(Box::into_raw(job) as *const Header)
}

/// `Header::exec` of a [`TaskJob`].
///
/// # Safety
/// `h` is the header of a `TaskJob` leaked from its box by
/// `parc_rt_spawn`, and this is its only run.
pub(crate) unsafe fn run_task(h: *const Header) {
    // SAFETY: `header` is the first field of the `repr(C)` `TaskJob`.
    run(unsafe { Box::from_raw(h as *mut TaskJob) });
}

/// The group whose completions this thread is deferring, or null.
#[inline]
pub(crate) fn deferred_group() -> *const ParcGroup {
    DEFERRED.get().group
}

/// Publishes this thread's deferred completions: the job memory back to
/// its spawner, then one decrement of the group's counter.
#[inline]
pub(crate) fn flush_deferred() {
    let d = DEFERRED.get();
    if d.count == 0 {
        return;
    }
    DEFERRED.set(Deferred::EMPTY);
    // SAFETY: the spawner and the group are alive while the group has
    // unfinished tasks (module doc), and these are still unfinished for
    // it until the decrement, after which neither is touched.
    unsafe {
        (*d.home).jobs().returned().push_chain(d.head, d.tail);
        (*d.group).finished_remote(d.count);
    }
}
