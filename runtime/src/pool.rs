//! The work-stealing pool: worker threads, deques, stealing, sleeping.
//!
//! Built on `crossbeam-deque`: each worker owns a LIFO [`Worker`] deque
//! (Chase-Lev); other workers steal from its FIFO end through its
//! [`Stealer`]; threads outside the pool hand jobs in through an
//! [`Injector`]. A job is a `JobRef`, a pointer to a `Header` whose
//! `exec` function runs it; the job's memory belongs to whoever made it
//! (a `join` frame, an `install` caller, or the spawn job cache).
//!
//! # Finding work
//!
//! A worker looks in its own deque (newest first), then steals from
//! another worker (random start, oldest first), then from the injector.
//! A steal takes one job (the oldest: in recursive code, the biggest),
//! or a batch of up to [`BATCH_STEAL_MAX`] when the victim holds at least
//! [`BATCH_STEAL_LEN`] (a loop spawning many small tasks): thieves then
//! work from their own deques instead of all contending on the spawner's.
//!
//! A worker that waits for something (a `sync`, the second half of a
//! `join`) runs this same search in a loop, so it never sits idle while
//! work exists; when the search fails it backs off: exponentially longer
//! spins (up to 2^10 pauses), then rounds of the longest spin and a
//! `sched_yield`, then naps of at most [`MAX_NAP_US`] µs. An idle worker
//! backs off the same way between scans before it sleeps, so idle
//! thieves do not keep the busy workers' deques' cache lines bouncing.
//!
//! # Staying awake
//! When every worker has a CPU of its own, a worker keeps searching for
//! [`STAY_AWAKE`] (5 ms) before it naps or sleeps; libgomp's default
//! spin-wait is of the same order. A worker that blocks leaves its CPU
//! idle, and the OS then moves threads: a thread preempted by another
//! process on the other CPU is pulled over (cold caches), the sleeper
//! wakes somewhere else, and an idle vCPU takes a while to wake. On a
//! machine shared with other processes, a program of many short
//! fork-joins then switches and migrates its workers far more often than
//! OpenMP's spinning threads; staying awake brings both counts to
//! OpenMP's. The yield in each round
//! lets a thread that waits for this CPU have it. With more workers than
//! CPUs (`PARC_NUM_THREADS=8` on 2), spinning would take CPU from the
//! busy workers, so workers search only `YIELD_ROUNDS` rounds past the
//! spins, as libgomp also spins less when oversubscribed.
//!
//! Completions of stolen spawned tasks are published lazily; see
//! [`task`] for when, and why no wait can miss them.
//!
//! # Sleeping (idle workers)
//!
//! A worker with nothing to do is *searching*; after a while it becomes
//! *sleeping* on a condition variable. One atomic word counts both.
//! Whoever makes a queue non-empty (injects a job, or pushes one onto an
//! empty deque) issues a `SeqCst` fence and, if nobody is searching and
//! somebody sleeps, wakes one sleeper; a searcher that finds work and was
//! the last searcher wakes one more (so workers ramp up one by one, as in
//! rayon). A sleeper re-checks every queue after announcing itself (the
//! fence pairs with the pusher's: one of them sees the other), and sleeps
//! at most [`SLEEP_TIMEOUT_MS`] ms per wait. A wait that times out with
//! nothing found is followed by one search and the next wait, not by
//! another [`STAY_AWAKE`]: an idle pool uses next to no CPU
//! (`tests/idle.rs`).
//!
//! A push onto a non-empty deque wakes nobody and costs no fence (most
//! spawns: in recursive code a worker's deque holds a job per level): the
//! push that made the deque non-empty announced it, so a would-be sleeper
//! sees the deque non-empty and stays awake, and the thieves that take
//! its jobs wake more workers as they find work. (If thieves empty the
//! deque just as the owner pushes, that one job may go unannounced: the
//! owner runs it at its sync, or a sleeper finds it when its wait times
//! out.) Correctness never depends on wake-ups: the worker that pushed a
//! job runs it itself at its next `sync`/`join` unless someone stole it;
//! only injected jobs need a worker to come, and the timeout bounds that
//! delay even if a wake-up were lost.

use crate::fault;
use crate::sched::ParcGroup;
use crate::task::{self, JobMemory};
use crossbeam_deque::{Injector, Steal, Stealer, Worker};
use std::cell::{Cell, UnsafeCell};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering, fence};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Stack size of every worker thread.
pub const WORKER_STACK: usize = 16 << 20;
/// Longest nap of a worker that waits for stolen work, in microseconds.
pub const MAX_NAP_US: u64 = 100;
/// Longest single wait of a sleeping worker, in milliseconds.
pub const SLEEP_TIMEOUT_MS: u64 = 10;
/// The first failed search rounds spin (2, 4, ... 2^10 pauses) ...
const SPIN_ROUNDS: u32 = 10;
/// ... and at least this many more yield, before a worker sleeps (or,
/// waiting for a thief, naps).
const YIELD_ROUNDS: u32 = 37;
/// How long a worker keeps looking for work (spinning and yielding)
/// before it sleeps or naps, when every worker has a CPU of its own; see
/// the module doc.
pub const STAY_AWAKE: Duration = Duration::from_millis(5);
/// Victims with at least this many jobs lose a batch to a steal.
pub const BATCH_STEAL_LEN: usize = 16;
/// Spawns this deep in a job run at once (see
/// `WorkerThread::spawns_run_at_once`).
pub const MAX_QUEUED_DEPTH: u32 = 8;
/// Most jobs one batch steal takes.
pub const BATCH_STEAL_MAX: usize = 16;

/// The start of every job: how to run it.
#[repr(C)]
pub(crate) struct Header {
    /// Runs the job whose header this is. Called exactly once.
    pub exec: unsafe fn(*const Header),
    /// The group of a spawned task; null for other jobs.
    pub group: *const ParcGroup,
}

/// A runnable job: a pointer to its [`Header`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct JobRef(pub *const Header);

// SAFETY: a job is run exactly once, by whichever thread takes it; its
// maker guarantees it may run on any thread.
unsafe impl Send for JobRef {}

impl JobRef {
    /// Runs the job, first publishing deferred task completions of any
    /// other group.
    ///
    /// # Safety
    /// The job is live and has not run yet.
    unsafe fn execute(self) {
        // SAFETY: the caller's contract.
        unsafe {
            let group = (*self.0).group;
            if task::deferred_group() != group {
                task::flush_deferred();
            }
            ((*self.0).exec)(self.0)
        }
    }
}

static WAKE_UPS: AtomicU64 = AtomicU64::new(0);

/// Wake-ups of sleeping workers so far, in all pools (a statistic for
/// benchmarks).
pub fn wake_ups() -> u64 {
    WAKE_UPS.load(Ordering::Relaxed)
}

/// `searching` in the low 32 bits, `sleeping` in the high 32 bits.
const ONE_SLEEPER: u64 = 1 << 32;

fn searching(s: u64) -> u64 {
    s & 0xffff_ffff
}

fn sleeping(s: u64) -> u64 {
    s >> 32
}

/// Idle-worker bookkeeping (see the module doc).
struct Sleep {
    state: AtomicU64,
    /// Wake-ups handed out and not yet taken by a sleeper.
    tokens: Mutex<u64>,
    cv: Condvar,
}

impl Sleep {
    fn new() -> Sleep {
        Sleep {
            state: AtomicU64::new(0),
            tokens: Mutex::new(0),
            cv: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, u64> {
        self.tokens.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// After making a job available.
    #[inline]
    fn new_work(&self) {
        fence(Ordering::SeqCst);
        let s = self.state.load(Ordering::Relaxed);
        if searching(s) == 0 && sleeping(s) > 0 {
            self.wake_one();
        }
    }

    /// Turns one sleeper into a searcher and wakes it.
    #[cold]
    fn wake_one(&self) {
        let mut tokens = self.lock();
        // Sleepers already woken were moved to `searching` by their waker.
        if sleeping(self.state.load(Ordering::SeqCst)) == 0 {
            return;
        }
        self.state.fetch_sub(ONE_SLEEPER - 1, Ordering::SeqCst);
        *tokens += 1;
        WAKE_UPS.fetch_add(1, Ordering::Relaxed);
        self.cv.notify_one();
    }

    fn start_searching(&self) {
        self.state.fetch_add(1, Ordering::SeqCst);
    }

    fn stop_searching(&self) {
        self.state.fetch_sub(1, Ordering::SeqCst);
    }

    /// A searcher found work: if it was the last searcher, wake another
    /// sleeper so that more workers join in.
    fn found_work(&self) {
        let s = self.state.fetch_sub(1, Ordering::SeqCst);
        if searching(s) == 1 && sleeping(s) > 0 {
            self.wake_one();
        }
    }

    /// A searcher goes to sleep unless `has_work()`; returns as a searcher
    /// again, after a wake-up or a timeout.
    /// Returns false if the wait timed out, true if a waker took this
    /// sleeper (or `has_work` held at once).
    fn sleep(&self, has_work: impl Fn() -> bool) -> bool {
        let tokens = self.lock();
        // Holding the lock from here to the wait means a waker that sees
        // this sleeper can only notify once it is waiting.
        self.state.fetch_add(ONE_SLEEPER - 1, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        if has_work() {
            self.state.fetch_sub(ONE_SLEEPER - 1, Ordering::SeqCst);
            return true;
        }
        let (mut tokens, _) = self
            .cv
            .wait_timeout(tokens, Duration::from_millis(SLEEP_TIMEOUT_MS))
            .unwrap_or_else(|e| e.into_inner());
        if *tokens > 0 {
            // A waker already counted one sleeper as searching: us.
            *tokens -= 1;
            true
        } else {
            self.state.fetch_sub(ONE_SLEEPER - 1, Ordering::SeqCst);
            false
        }
    }

    /// Wakes every sleeper (termination).
    fn wake_all(&self) {
        let _tokens = self.lock();
        self.cv.notify_all();
    }
}

/// Shared state of one pool.
pub struct Pool {
    injector: Injector<JobRef>,
    stealers: Box<[Stealer<JobRef>]>,
    sleep: Sleep,
    terminate: AtomicBool,
    /// [`STAY_AWAKE`], or zero when there are more workers than CPUs.
    stay_awake: Duration,
}

impl Pool {
    /// Number of workers.
    pub fn workers(&self) -> usize {
        self.stealers.len()
    }

    fn has_work(&self) -> bool {
        !self.injector.is_empty() || self.stealers.iter().any(|s| !s.is_empty())
    }

    /// Makes `job` available to the workers from outside the pool.
    pub(crate) fn inject(&self, job: JobRef) {
        self.injector.push(job);
        self.sleep.new_work();
    }

    /// Runs `f` on a worker of this pool and returns its result; the
    /// calling thread (not a worker of this pool) blocks meanwhile.
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        let mut result = None;
        let slot = &mut result;
        let job = StackJob::new(move || *slot = Some(f()), LockLatch::new());
        self.inject(job.as_job_ref());
        job.latch.wait();
        result.expect("an installed job sets its result before its latch")
    }
}

/// A worker thread's own state; `CURRENT` points to it while it runs.
pub(crate) struct WorkerThread {
    index: usize,
    pool: Arc<Pool>,
    deque: Worker<JobRef>,
    rng: Cell<u64>,
    /// Memory for this worker's spawns (see [`task`]).
    jobs: JobMemory,
    /// The pool has no other worker.
    alone: bool,
    /// See [`depth`](Self::depth).
    depth: Cell<u32>,
}

thread_local! {
    static CURRENT: Cell<*const WorkerThread> = const { Cell::new(std::ptr::null()) };
}

/// The calling thread's worker state, if it is a worker.
#[inline]
pub(crate) fn current() -> Option<&'static WorkerThread> {
    let p = CURRENT.get();
    // SAFETY: `CURRENT` is set only while the `WorkerThread` it points to
    // is alive (for the whole life of the worker's main loop, which is the
    // only code that runs on that thread).
    unsafe { p.as_ref() }
}

impl WorkerThread {
    /// This worker's index in `0..workers`.
    pub fn index(&self) -> usize {
        self.index
    }

    pub fn pool(&self) -> &Pool {
        &self.pool
    }

    pub(crate) fn jobs(&self) -> &JobMemory {
        &self.jobs
    }

    /// True if a task spawned now is better run at once than queued: no
    /// other worker of this pool could take it, or it would be spawned
    /// [`MAX_QUEUED_DEPTH`] or more spawns deep in the job this worker
    /// runs (see the scheduler's module doc).
    #[inline]
    pub(crate) fn spawns_run_at_once(&self) -> bool {
        self.alone || self.depth.get() >= MAX_QUEUED_DEPTH
    }

    /// How many spawns deep the running code is in the job this worker
    /// runs: 0 in a stolen (or injected) job, one more than its spawner's
    /// in a job the worker spawned itself.
    #[inline]
    pub(crate) fn depth(&self) -> &Cell<u32> {
        &self.depth
    }

    /// Pushes a job on this worker's deque (the newest end); a push onto
    /// an empty deque announces new work (see the module doc).
    #[inline]
    pub(crate) fn push(&self, job: JobRef) {
        let was_empty = self.deque.is_empty();
        self.deque.push(job);
        if was_empty {
            self.pool.sleep.new_work();
        }
    }

    fn next_random(&self) -> usize {
        // xorshift64*
        let mut x = self.rng.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng.set(x);
        (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as usize
    }

    /// Own deque, then stealing, then the injector.
    #[inline]
    fn find_work(&self) -> Option<JobRef> {
        match self.deque.pop() {
            Some(job) => Some(job),
            None => self.steal(),
        }
    }

    fn steal(&self) -> Option<JobRef> {
        let stealers = &self.pool.stealers;
        let n = stealers.len();
        loop {
            let mut retry = false;
            if n > 1 {
                let start = self.next_random() % n;
                for k in 0..n {
                    let i = (start + k) % n;
                    if i == self.index {
                        continue;
                    }
                    let victim = &stealers[i];
                    let stolen = if victim.len() >= BATCH_STEAL_LEN {
                        victim.steal_batch_with_limit_and_pop(&self.deque, BATCH_STEAL_MAX)
                    } else {
                        victim.steal()
                    };
                    match stolen {
                        Steal::Success(job) => return Some(job),
                        Steal::Retry => retry = true,
                        Steal::Empty => {}
                    }
                }
            }
            match self.pool.injector.steal_batch_and_pop(&self.deque) {
                Steal::Success(job) => return Some(job),
                Steal::Retry => retry = true,
                Steal::Empty => {}
            }
            if !retry {
                return None;
            }
        }
    }

    /// Runs other work until `done()` holds.
    #[inline]
    pub(crate) fn wait_until(&self, done: impl Fn() -> bool) {
        // The common case first: what we wait for is on top of our own
        // deque (a sync's unstolen tasks, newest first).
        while !done() {
            match self.deque.pop() {
                // SAFETY: a job taken from a queue has not run yet.
                Some(job) => unsafe { job.execute() },
                None => {
                    self.help_until(&done);
                    break;
                }
            }
        }
        // The caller's strand continues: nothing may stay deferred.
        task::flush_deferred();
    }

    #[inline(never)]
    fn help_until(&self, done: impl Fn() -> bool) {
        let mut backoff = Backoff::new(self.pool.stay_awake);
        while !done() {
            match self.find_work() {
                Some(job) => {
                    // SAFETY: a job taken from a queue has not run yet.
                    unsafe { job.execute() };
                    backoff.reset();
                }
                None => {
                    task::flush_deferred();
                    backoff.snooze();
                }
            }
        }
    }

    /// The loop of a worker thread until its pool terminates.
    fn main_loop(&self) {
        let sleep = &self.pool.sleep;
        'work: loop {
            if let Some(job) = self.find_work() {
                // SAFETY: a job taken from a queue has not run yet.
                unsafe { job.execute() };
                continue;
            }
            task::flush_deferred();
            sleep.start_searching();
            let mut rounds = 0;
            let mut since = Instant::now();
            loop {
                if let Some(job) = self.find_work() {
                    sleep.found_work();
                    // SAFETY: as above.
                    unsafe { job.execute() };
                    continue 'work;
                }
                if self.pool.terminate.load(Ordering::Acquire) {
                    sleep.stop_searching();
                    return;
                }
                rounds += 1;
                if rounds <= SPIN_ROUNDS {
                    // Back off exponentially between scans, so idle
                    // thieves do not keep the busy workers' deques'
                    // cache lines bouncing.
                    for _ in 0..1u32 << rounds {
                        std::hint::spin_loop();
                    }
                } else if rounds <= SPIN_ROUNDS + YIELD_ROUNDS
                    || since.elapsed() < self.pool.stay_awake
                {
                    stay_awake_round(self.pool.stay_awake);
                } else {
                    let woken = sleep.sleep(|| {
                        self.pool.has_work() || self.pool.terminate.load(Ordering::Acquire)
                    });
                    if woken {
                        rounds = 0;
                        since = Instant::now();
                    } else {
                        // Nothing came: one look, then back to sleep.
                        rounds = SPIN_ROUNDS + YIELD_ROUNDS;
                    }
                }
            }
        }
    }
}

/// One round of looking for work after the spins: with a long
/// `stay_awake`, the longest spin, so that the CPU stays busy and the
/// thread where it is; and a yield, so that a thread waiting for this
/// CPU gets it.
fn stay_awake_round(stay_awake: Duration) {
    if !stay_awake.is_zero() {
        for _ in 0..1u32 << SPIN_ROUNDS {
            std::hint::spin_loop();
        }
    }
    std::thread::yield_now();
}

/// Exponential backoff for a wait that found nothing to do: spins, then
/// [`stay_awake_round`]s for at least [`YIELD_ROUNDS`] rounds and
/// `stay_awake`, then naps growing to [`MAX_NAP_US`].
pub(crate) struct Backoff {
    step: u32,
    stay_awake: Duration,
    /// When the first round after the spins began.
    awake_since: Option<Instant>,
}

impl Backoff {
    pub fn new(stay_awake: Duration) -> Backoff {
        Backoff {
            step: 0,
            stay_awake,
            awake_since: None,
        }
    }

    pub fn reset(&mut self) {
        self.step = 0;
        self.awake_since = None;
    }

    pub fn snooze(&mut self) {
        if self.step <= SPIN_ROUNDS {
            for _ in 0..(1u32 << self.step) {
                std::hint::spin_loop();
            }
        } else {
            let since = *self.awake_since.get_or_insert_with(Instant::now);
            if self.step <= SPIN_ROUNDS + YIELD_ROUNDS || since.elapsed() < self.stay_awake {
                stay_awake_round(self.stay_awake);
                // Naps start short once the time is up.
                self.step = self.step.min(SPIN_ROUNDS + YIELD_ROUNDS);
            } else {
                let nap = self.step - SPIN_ROUNDS - YIELD_ROUNDS - 1;
                let us = (1u64 << nap.min(10)).min(MAX_NAP_US);
                std::thread::sleep(Duration::from_micros(us));
            }
        }
        self.step = self.step.saturating_add(1);
    }
}

/// Something a job signals when it has run.
pub(crate) trait Latch {
    /// Signals; the latch's memory must not be touched afterwards by the
    /// setter (its owner may return at once).
    fn set(&self);
}

/// A flag for waiters that are workers (they poll while helping).
pub(crate) struct SpinLatch(AtomicBool);

impl SpinLatch {
    pub fn new() -> SpinLatch {
        SpinLatch(AtomicBool::new(false))
    }

    pub fn probe(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

impl Latch for SpinLatch {
    fn set(&self) {
        self.0.store(true, Ordering::Release);
    }
}

/// A flag for waiters outside the pool (they block).
pub(crate) struct LockLatch {
    done: Mutex<bool>,
    cv: Condvar,
}

impl LockLatch {
    fn new() -> LockLatch {
        LockLatch {
            done: Mutex::new(false),
            cv: Condvar::new(),
        }
    }

    fn wait(&self) {
        let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        while !*done {
            done = self.cv.wait(done).unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl Latch for LockLatch {
    fn set(&self) {
        let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        *done = true;
        self.cv.notify_all();
    }
}

/// A job that lives in its maker's stack frame; the maker waits for its
/// latch before returning.
#[repr(C)]
pub(crate) struct StackJob<F, L> {
    header: Header,
    func: UnsafeCell<Option<F>>,
    pub latch: L,
}

impl<F: FnOnce(), L: Latch> StackJob<F, L> {
    pub fn new(f: F, latch: L) -> StackJob<F, L> {
        StackJob {
            header: Header {
                exec: Self::exec,
                group: std::ptr::null(),
            },
            func: UnsafeCell::new(Some(f)),
            latch,
        }
    }

    pub fn as_job_ref(&self) -> JobRef {
        JobRef(&self.header)
    }

    /// # Safety
    /// `h` is the header of a live `StackJob<F, L>` that has not run.
    unsafe fn exec(h: *const Header) {
        // SAFETY: `header` is the first field of this `repr(C)` struct.
        let this = unsafe { &*(h as *const Self) };
        // SAFETY: only the one runner of the job touches `func`.
        let f = unsafe { (*this.func.get()).take() }.expect("a job runs once");
        fault::guard("a parallel job", f);
        this.latch.set();
    }

    /// Runs the job on the maker's thread (it was not stolen).
    pub fn run_inline(&self) {
        // SAFETY: the job was taken back from the deque, so nobody else
        // runs it.
        let f = unsafe { (*self.func.get()).take() }.expect("a job runs once");
        f();
    }
}

/// Runs `a` and `b`, possibly in parallel; returns when both have. `b` is
/// offered to thieves while `a` runs on this worker, and runs here after
/// `a` if nobody took it. Outside a pool, both run inside the global pool.
pub(crate) fn join(a: impl FnOnce() + Send, b: impl FnOnce() + Send) {
    let Some(w) = current() else {
        return crate::sched::pool().install(move || join(a, b));
    };
    let job_b = StackJob::new(b, SpinLatch::new());
    let r = job_b.as_job_ref();
    w.push(r);
    // A panic here would leave `job_b` queued with a dangling frame.
    fault::guard("a parallel job", a);
    join_b(w, &job_b, r);
    // The caller's strand continues: nothing may stay deferred.
    task::flush_deferred();
}

/// The second half of [`join`]: run `job_b` here or wait for its thief.
fn join_b<F: FnOnce()>(w: &WorkerThread, job_b: &StackJob<F, SpinLatch>, r: JobRef) {
    loop {
        if job_b.latch.probe() {
            return;
        }
        match w.deque.pop() {
            Some(j) if j == r => {
                job_b.run_inline();
                return;
            }
            // Work queued above ours (a batch from the injector): run it.
            // SAFETY: a job taken from the deque has not run yet.
            Some(j) => unsafe { j.execute() },
            None => {
                w.help_until(|| job_b.latch.probe());
                return;
            }
        }
    }
}

/// Owns a pool's threads; dropping it ends them (after their work).
pub struct PoolHandle {
    pool: Arc<Pool>,
    threads: Vec<JoinHandle<()>>,
}

impl PoolHandle {
    /// Starts `workers` worker threads.
    pub fn start(workers: usize) -> std::io::Result<PoolHandle> {
        let workers = workers.max(1);
        let deques: Vec<Worker<JobRef>> = (0..workers).map(|_| Worker::new_lifo()).collect();
        let pool = Arc::new(Pool {
            injector: Injector::new(),
            stealers: deques.iter().map(Worker::stealer).collect(),
            sleep: Sleep::new(),
            terminate: AtomicBool::new(false),
            stay_awake: if workers <= crate::sched::available_cpus() {
                STAY_AWAKE
            } else {
                Duration::ZERO
            },
        });
        let mut threads = Vec::with_capacity(workers);
        for (index, deque) in deques.into_iter().enumerate() {
            let pool = Arc::clone(&pool);
            let t = std::thread::Builder::new()
                .name(format!("parc-worker-{index}"))
                .stack_size(WORKER_STACK)
                .spawn(move || {
                    crate::signals::ensure_altstack();
                    let w = WorkerThread {
                        index,
                        pool,
                        deque,
                        rng: Cell::new(
                            0x9e37_79b9_7f4a_7c15
                                ^ (index as u64 + 1).wrapping_mul(0xbf58_476d_1ce4_e5b9),
                        ),
                        jobs: JobMemory::new(),
                        alone: workers == 1,
                        depth: Cell::new(0),
                    };
                    CURRENT.set(&w);
                    w.main_loop();
                    CURRENT.set(std::ptr::null());
                })?;
            threads.push(t);
        }
        Ok(PoolHandle { pool, threads })
    }

    pub fn pool(&self) -> &Pool {
        &self.pool
    }
}

impl Drop for PoolHandle {
    fn drop(&mut self) {
        self.pool.terminate.store(true, Ordering::Release);
        self.pool.sleep.wake_all();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}
