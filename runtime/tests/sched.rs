//! spawn/sync, parallel_for nesting and `parc_rt_main`, called the way
//! generated code calls them: through the `extern "C"` entry points with
//! `extern "C"` outlined tasks.

use parc_runtime::parfor::parc_rt_parallel_for;
use parc_runtime::sched::{
    parc_rt_main, parc_rt_num_workers, parc_rt_spawn, parc_rt_sync, parc_rt_worker_id,
};
use parc_runtime::{ParcGroup, with_workers};
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

/// Spawns `task` with `ctx` copied (as generated code does).
fn spawn<T>(g: &mut ParcGroup, task: extern "C" fn(*mut u8), ctx: &T) {
    // SAFETY: `g` is live and synced by the caller; `ctx` is `size_of::<T>()` bytes.
    unsafe { parc_rt_spawn(g, task, (ctx as *const T).cast(), size_of::<T>() as u64) }
}

fn sync(g: &mut ParcGroup) {
    // SAFETY: `g` is a live group.
    unsafe { parc_rt_sync(g) }
}

fn parallel_for<T>(lo: i64, hi: i64, grain: i64, body: extern "C" fn(*mut u8, i64, i64), ctx: &T) {
    // SAFETY: `body` treats ctx as shared read-only state; it outlives the call.
    unsafe { parc_rt_parallel_for(lo, hi, grain, body, (ctx as *const T).cast_mut().cast()) }
}

// ---- fib ----------------------------------------------------------------

#[repr(C)]
struct FibCtx {
    n: i64,
    out: *mut i64,
    spawns: *const AtomicU64,
}

extern "C" fn fib_task(ctx: *mut u8) {
    // SAFETY: spawned with a `FibCtx`.
    let c = unsafe { &*(ctx as *const FibCtx) };
    // SAFETY: `spawns` outlives the computation.
    let r = fib(c.n, unsafe { &*c.spawns });
    // SAFETY: `out` points into the spawning frame, alive until its sync.
    unsafe { *c.out = r };
}

/// `x = spawn fib(n-1); y = fib(n-2); sync; return x + y;`
fn fib(n: i64, spawns: &AtomicU64) -> i64 {
    if n < 2 {
        return n;
    }
    let mut g = ParcGroup::new();
    let mut x = 0i64;
    spawns.fetch_add(1, Ordering::Relaxed);
    let ctx = FibCtx {
        n: n - 1,
        out: &mut x,
        spawns,
    };
    spawn(&mut g, fib_task, &ctx);
    let y = fib(n - 2, spawns);
    sync(&mut g);
    x + y
}

fn fib_serial(n: i64) -> i64 {
    if n < 2 {
        n
    } else {
        fib_serial(n - 1) + fib_serial(n - 2)
    }
}

#[test]
fn fib_at_1_2_8_workers() {
    for workers in [1, 2, 8] {
        for n in [25, 27] {
            let spawns = AtomicU64::new(0);
            let r = with_workers(workers, || fib(n, &spawns));
            assert_eq!(r, fib_serial(n), "fib({n}) on {workers} workers");
            // One spawn per call with n >= 2: fib(n+1) - 1 of them.
            assert_eq!(spawns.load(Ordering::Relaxed) as i64, fib_serial(n + 1) - 1);
        }
    }
}

#[test]
fn fib_30_on_8_workers() {
    let spawns = AtomicU64::new(0);
    assert_eq!(with_workers(8, || fib(30, &spawns)), 832040);
}

// ---- many tasks in one group ----------------------------------------------

#[repr(C)]
struct MarkCtx {
    i: usize,
    marks: *const AtomicU8,
}

extern "C" fn mark_task(ctx: *mut u8) {
    // SAFETY: spawned with a `MarkCtx`; `marks` has room for `i`.
    unsafe {
        let c = &*(ctx as *const MarkCtx);
        (*c.marks.add(c.i)).fetch_add(1, Ordering::Relaxed);
    }
}

fn million_tasks() {
    const N: usize = 1_000_000;
    let marks: Vec<AtomicU8> = (0..N).map(|_| AtomicU8::new(0)).collect();
    let mut g = ParcGroup::new();
    for i in 0..N {
        // The buffer is reused at once: spawn must have copied it.
        let ctx = MarkCtx {
            i,
            marks: marks.as_ptr(),
        };
        spawn(&mut g, mark_task, &ctx);
    }
    sync(&mut g);
    assert_eq!(g.pending(), 0);
    assert!(marks.iter().all(|m| m.load(Ordering::Relaxed) == 1));
}

#[test]
fn a_million_tiny_tasks_in_one_group() {
    for workers in [1, 2, 8] {
        with_workers(workers, million_tasks);
    }
}

#[repr(C)]
struct SpinCtx {
    round: u64,
    sum: *const AtomicU64,
    /// The spawning worker's id, and the count of tasks that ran elsewhere.
    spawner: i32,
    stolen: *const AtomicU64,
}

extern "C" fn spin_task(ctx: *mut u8) {
    // SAFETY: spawned with a `SpinCtx`; `sum` outlives the group.
    let c = unsafe { &*(ctx as *const SpinCtx) };
    // Long enough (a few µs) for idle workers to steal siblings.
    let mut x = c.round;
    for _ in 0..2000 {
        x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
    }
    std::hint::black_box(x);
    // SAFETY: as above.
    unsafe { &*c.sum }.fetch_add(c.round, Ordering::Relaxed);
    if parc_rt_worker_id() != c.spawner {
        // SAFETY: as above.
        unsafe { &*c.stolen }.fetch_add(1, Ordering::Relaxed);
    }
}

/// One group synced and reused many times while workers steal from it:
/// tasks finished on the spawning thread and on thieves are both counted,
/// and each sync leaves the group empty for the next round.
/// Returns how many tasks ran on another thread than their spawner.
fn reused_group_rounds() -> u64 {
    let sum = AtomicU64::new(0);
    let stolen = AtomicU64::new(0);
    let spawner = parc_rt_worker_id();
    let mut g = ParcGroup::new();
    let mut expect = 0;
    for round in 1..=2000u64 {
        for _ in 0..4 {
            let ctx = SpinCtx {
                round,
                sum: &sum,
                spawner,
                stolen: &stolen,
            };
            spawn(&mut g, spin_task, &ctx);
        }
        expect += 4 * round;
        sync(&mut g);
        assert_eq!(g.pending(), 0);
        assert_eq!(sum.load(Ordering::Relaxed), expect, "round {round}");
        // SAFETY: a group is 32 bytes, 8-aligned, and nothing else
        // touches it after its sync.
        let words = unsafe { *(&g as *const ParcGroup).cast::<[u64; 4]>() };
        assert_eq!(words, [0; 4], "an empty group is all zero again");
    }
    stolen.load(Ordering::Relaxed)
}

#[test]
fn a_group_reused_across_syncs_with_steals() {
    assert_eq!(with_workers(1, reused_group_rounds), 0);
    for workers in [2, 8] {
        let stolen = with_workers(workers, reused_group_rounds);
        eprintln!("{workers} workers: {stolen} of 8000 tasks stolen");
    }
    // From a thread outside the pool: every task is injected.
    assert_eq!(reused_group_rounds(), 8000);
}

#[test]
fn spawn_and_sync_outside_the_pool() {
    // The test thread is no worker: spawns are injected, sync waits.
    million_tasks();
    let spawns = AtomicU64::new(0);
    assert_eq!(fib(20, &spawns), 6765);
}

// ---- captured values larger than the inline buffer -------------------------

#[repr(C)]
struct BigCtx {
    data: [u64; 40],
    out: *const AtomicU64,
}

extern "C" fn big_task(ctx: *mut u8) {
    // SAFETY: spawned with a `BigCtx`, 16-aligned copy.
    let c = unsafe { &*(ctx as *const BigCtx) };
    assert_eq!(ctx as usize % 16, 0);
    // SAFETY: `out` outlives the group.
    unsafe { &*c.out }.fetch_add(c.data.iter().sum::<u64>(), Ordering::Relaxed);
}

#[test]
fn large_contexts_are_copied() {
    with_workers(4, || {
        let total = AtomicU64::new(0);
        let mut g = ParcGroup::new();
        for k in 0..1000u64 {
            let ctx = BigCtx {
                data: std::array::from_fn(|i| k * i as u64),
                out: &total,
            };
            spawn(&mut g, big_task, &ctx);
        }
        sync(&mut g);
        let expect: u64 = (0..1000u64).map(|k| k * (0..40).sum::<u64>()).sum();
        assert_eq!(total.load(Ordering::Relaxed), expect);
    });
}

// ---- nesting: parallel_for inside parallel_for, spawn inside bodies ------

#[repr(C)]
struct Grid {
    cols: i64,
    marks: *const AtomicU8,
}

extern "C" fn inner_body(ctx: *mut u8, start: i64, end: i64) {
    // SAFETY: ctx is a `RowCtx`.
    let c = unsafe { &*(ctx as *const RowCtx) };
    for j in start..end {
        // SAFETY: in bounds: row < rows, j < cols.
        unsafe {
            (*c.grid.marks.add((c.row * c.grid.cols + j) as usize)).fetch_add(1, Ordering::Relaxed)
        };
    }
}

#[repr(C)]
struct RowCtx<'a> {
    grid: &'a Grid,
    row: i64,
}

extern "C" fn outer_body(ctx: *mut u8, start: i64, end: i64) {
    // SAFETY: ctx is a `Grid`.
    let grid = unsafe { &*(ctx as *const Grid) };
    for row in start..end {
        let rc = RowCtx { grid, row };
        parallel_for(0, grid.cols, 3, inner_body, &rc);
    }
}

fn check_all_once(marks: &[AtomicU8]) {
    assert!(
        marks.iter().all(|m| m.load(Ordering::Relaxed) == 1),
        "some index ran {} times",
        marks
            .iter()
            .map(|m| m.load(Ordering::Relaxed))
            .find(|&m| m != 1)
            .unwrap()
    );
}

#[test]
fn nested_parallel_for() {
    for workers in [1, 3, 8] {
        with_workers(workers, || {
            for _ in 0..20 {
                let (rows, cols) = (37, 53);
                let marks: Vec<AtomicU8> = (0..rows * cols).map(|_| AtomicU8::new(0)).collect();
                let grid = Grid {
                    cols,
                    marks: marks.as_ptr(),
                };
                parallel_for(0, rows, 0, outer_body, &grid);
                check_all_once(&marks);
            }
        });
    }
}

/// A `parallel_for` body that spawns one task per index and syncs.
extern "C" fn spawning_body(ctx: *mut u8, start: i64, end: i64) {
    // SAFETY: ctx is a `Grid` (one row).
    let grid = unsafe { &*(ctx as *const Grid) };
    let mut g = ParcGroup::new();
    for i in start..end {
        let m = MarkCtx {
            i: i as usize,
            marks: grid.marks,
        };
        spawn(&mut g, mark_task, &m);
    }
    sync(&mut g);
}

#[test]
fn spawn_inside_parallel_for() {
    for workers in [1, 2, 8] {
        with_workers(workers, || {
            for _ in 0..20 {
                let n = 5000;
                let marks: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(0)).collect();
                let grid = Grid {
                    cols: n,
                    marks: marks.as_ptr(),
                };
                parallel_for(0, n, 7, spawning_body, &grid);
                check_all_once(&marks);
            }
        });
    }
}

#[repr(C)]
struct TreeCtx {
    depth: u32,
    lo: i64,
    hi: i64,
    marks: *const AtomicU8,
}

/// A spawned task that runs a `parallel_for` over its range, and spawns
/// two children over halves of a second copy of the range.
extern "C" fn tree_task(ctx: *mut u8) {
    // SAFETY: spawned with a `TreeCtx`.
    let c = unsafe { &*(ctx as *const TreeCtx) };
    if c.depth == 0 {
        let grid = Grid {
            cols: 0,
            marks: c.marks,
        };
        parallel_for(c.lo, c.hi, 0, mark_body, &grid);
        return;
    }
    let mid = c.lo + (c.hi - c.lo) / 2;
    let mut g = ParcGroup::new();
    for (lo, hi) in [(c.lo, mid), (mid, c.hi)] {
        let child = TreeCtx {
            depth: c.depth - 1,
            lo,
            hi,
            marks: c.marks,
        };
        spawn(&mut g, tree_task, &child);
    }
    sync(&mut g);
}

extern "C" fn mark_body(ctx: *mut u8, start: i64, end: i64) {
    // SAFETY: ctx is a `Grid`.
    let grid = unsafe { &*(ctx as *const Grid) };
    for i in start..end {
        // SAFETY: in bounds.
        unsafe { (*grid.marks.add(i as usize)).fetch_add(1, Ordering::Relaxed) };
    }
}

#[test]
fn parallel_for_inside_spawned_tasks() {
    for workers in [1, 2, 8] {
        with_workers(workers, || {
            for _ in 0..20 {
                let n = 100_000;
                let marks: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(0)).collect();
                let root = TreeCtx {
                    depth: 6,
                    lo: 0,
                    hi: n as i64,
                    marks: marks.as_ptr(),
                };
                let mut g = ParcGroup::new();
                spawn(&mut g, tree_task, &root);
                sync(&mut g);
                check_all_once(&marks);
            }
        });
    }
}

// ---- main, stacks, worker ids ---------------------------------------------

fn deep(n: u32) -> u64 {
    let pad = std::hint::black_box([n as u64; 32]);
    if n == 0 {
        return pad[0];
    }
    std::hint::black_box(deep(n - 1)) + pad[1]
}

extern "C" fn test_main(argc: i32, argv: *mut *mut i8) -> i32 {
    assert_eq!(argc, 2);
    // SAFETY: argv has argc entries.
    let arg1 = unsafe { std::ffi::CStr::from_ptr(*argv.add(1)) };
    assert_eq!(arg1.to_bytes(), b"hello");
    // About 40 MB of stack: more than a worker's 16 MiB.
    assert_eq!(deep(120_000), (1..=120_000u64).sum::<u64>());
    let spawns = AtomicU64::new(0);
    assert_eq!(fib(22, &spawns), 17711);
    7
}

#[test]
fn main_runs_on_a_worker_with_a_big_stack() {
    let mut a0 = *b"prog\0";
    let mut a1 = *b"hello\0";
    let mut argv = [
        a0.as_mut_ptr().cast::<i8>(),
        a1.as_mut_ptr().cast(),
        std::ptr::null_mut(),
    ];
    // From a thread outside the pool (the test thread) ...
    // SAFETY: argv is as C's main receives it.
    assert_eq!(unsafe { parc_rt_main(test_main, 2, argv.as_mut_ptr()) }, 7);
    // ... and from a worker.
    let argv_addr = argv.as_mut_ptr() as usize;
    let status = with_workers(2, move || {
        // SAFETY: as above; the array outlives the call.
        unsafe { parc_rt_main(test_main, 2, argv_addr as *mut *mut i8) }
    });
    assert_eq!(status, 7);
}

extern "C" fn id_body(ctx: *mut u8, start: i64, end: i64) {
    // SAFETY: ctx is a slice of counters, one per worker.
    let seen = unsafe { &*(ctx as *const Vec<AtomicU64>) };
    let id = parc_rt_worker_id();
    let n = parc_rt_num_workers();
    assert!((0..n).contains(&id), "worker id {id} of {n}");
    seen[id as usize].fetch_add((end - start) as u64, Ordering::Relaxed);
}

#[test]
fn worker_ids_index_per_worker_slots() {
    with_workers(4, || {
        assert_eq!(parc_rt_num_workers(), 4);
        let seen: Vec<AtomicU64> = (0..4).map(|_| AtomicU64::new(0)).collect();
        parallel_for(0, 1_000_000, 0, id_body, &seen);
        let total: u64 = seen.iter().map(|s| s.load(Ordering::Relaxed)).sum();
        assert_eq!(total, 1_000_000);
    });
    // Outside the pool: the extra slot.
    assert_eq!(parc_rt_worker_id(), parc_rt_num_workers());
}

// ---- spawns run at once when queueing them would not help ------------------

#[repr(C)]
struct FlagCtx {
    flag: *const AtomicU64,
    /// Where the task found its context, to check its alignment.
    at: *const AtomicU64,
}

extern "C" fn flag_task(ctx: *mut u8) {
    // SAFETY: spawned with a `FlagCtx` whose pointers outlive the group.
    let c = unsafe { &*(ctx as *const FlagCtx) };
    unsafe { &*c.flag }.fetch_add(1, Ordering::Relaxed);
    unsafe { &*c.at }.store(ctx as u64, Ordering::Relaxed);
}

/// On a pool of one worker nobody could take a queued task: the spawn
/// runs it before it returns, on a 16-aligned context as a job's copy
/// would be, even when the caller's buffer is not.
#[test]
fn spawns_run_at_once_where_nobody_could_steal() {
    with_workers(1, || {
        let flag = AtomicU64::new(0);
        let at = AtomicU64::new(0);
        let ctx = FlagCtx {
            flag: &flag,
            at: &at,
        };
        // The context at an address 8 past a 16-byte boundary.
        #[repr(C, align(16))]
        struct Buf([u8; 48]);
        let mut buf = Buf([0; 48]);
        let size = size_of::<FlagCtx>();
        for offset in [0, 8] {
            // SAFETY: 48 bytes hold `size` (16) bytes at offset 0 or 8.
            let dst = unsafe { buf.0.as_mut_ptr().add(offset) };
            unsafe { std::ptr::copy_nonoverlapping((&ctx as *const FlagCtx).cast(), dst, size) };
            let mut g = ParcGroup::new();
            // SAFETY: `g` is live and synced below; `dst` holds the context.
            unsafe { parc_rt_spawn(&mut g, flag_task, dst, size as u64) };
            assert_eq!(flag.load(Ordering::Relaxed), offset as u64 / 8 + 1);
            assert_eq!(g.pending(), 0, "nothing was queued");
            assert_eq!(at.load(Ordering::Relaxed) % 16, 0);
            sync(&mut g);
        }
    });
}

/// A loop spawning many equal tasks on several workers: all are spawned
/// at one depth, so all are queued (none runs at once), and the thieves
/// take some of them.
#[test]
fn a_spawning_loop_keeps_the_thieves_busy() {
    let stolen = with_workers(4, || {
        let sum = AtomicU64::new(0);
        let stolen = AtomicU64::new(0);
        let spawner = parc_rt_worker_id();
        let mut g = ParcGroup::new();
        for round in 1..=4000u64 {
            let ctx = SpinCtx {
                round,
                sum: &sum,
                spawner,
                stolen: &stolen,
            };
            spawn(&mut g, spin_task, &ctx);
        }
        sync(&mut g);
        assert_eq!(sum.load(Ordering::Relaxed), 4000 * 4001 / 2);
        stolen.load(Ordering::Relaxed)
    });
    eprintln!("4 workers: {stolen} of 4000 tasks stolen");
    assert!(stolen > 0, "no thief ran a task");
}
