//! Throughput of the scheduler entry points, as generated code uses them.
//!
//! `cargo bench -p parc-runtime [-- WORKERS...]` prints, per worker count:
//! fib(32) with a spawn at every level (against the serial function),
//! a million empty tasks spawned into one group, a `parallel_for` over
//! 2^26 cheap iterations, and a kernel launch of 4096 blocks × 256
//! threads with and without a barrier.

use parc_runtime::gpu::{
    parc_rt_barrier, parc_rt_block_dim, parc_rt_block_idx, parc_rt_launch, parc_rt_thread_idx,
};
use parc_runtime::parfor::parc_rt_parallel_for;
use parc_runtime::sched::{parc_rt_spawn, parc_rt_sync, parc_rt_worker_id};
use parc_runtime::{ParcGroup, with_workers};
use std::hint::black_box;
use std::time::Instant;

#[repr(C)]
struct FibCtx {
    n: i64,
    out: *mut i64,
}

extern "C" fn fib_task(ctx: *mut u8) {
    // SAFETY: spawned with a `FibCtx`.
    let c = unsafe { &*(ctx as *const FibCtx) };
    // SAFETY: `out` lives until the spawner's sync.
    unsafe { *c.out = fib(c.n) };
}

fn fib(n: i64) -> i64 {
    if n < 2 {
        return n;
    }
    let mut g = ParcGroup::new();
    let mut x = 0;
    let ctx = FibCtx {
        n: n - 1,
        out: &mut x,
    };
    // SAFETY: `g` is synced below; ctx is copied.
    unsafe {
        parc_rt_spawn(
            &mut g,
            fib_task,
            (&ctx as *const FibCtx).cast(),
            size_of::<FibCtx>() as u64,
        )
    };
    let y = fib(n - 2);
    // SAFETY: live group.
    unsafe { parc_rt_sync(&mut g) };
    x + y
}

fn fib_serial(n: i64) -> i64 {
    if n < 2 {
        n
    } else {
        black_box(fib_serial(n - 1)) + fib_serial(n - 2)
    }
}

extern "C" fn empty_task(_: *mut u8) {}

/// About a microsecond of arithmetic.
extern "C" fn work_task(_: *mut u8) {
    let mut x = 1.0f64;
    for i in 0..300 {
        x = black_box(x.sqrt() + i as f64);
    }
    black_box(x);
}

/// Per-worker partial sums, padded against false sharing.
#[repr(align(64))]
struct Slot(std::cell::UnsafeCell<f64>);
// SAFETY: each worker only touches its own slot.
unsafe impl Sync for Slot {}

extern "C" fn sum_body(ctx: *mut u8, start: i64, end: i64) {
    // SAFETY: ctx is the slot vector; one slot per worker plus one.
    let slots = unsafe { &*(ctx as *const Vec<Slot>) };
    let mut acc = 0.0;
    for i in start..end {
        acc += (i as f64).sqrt();
    }
    // SAFETY: this worker's own slot.
    unsafe { *slots[parc_rt_worker_id() as usize].0.get() += acc };
}

extern "C" fn kernel_plain(args: *const u64) {
    // SAFETY: args[0] is the output array, one f32 per thread.
    let out = unsafe { *args } as *mut f32;
    let i = parc_rt_block_idx(0) * parc_rt_block_dim(0) + parc_rt_thread_idx(0);
    // SAFETY: in bounds.
    unsafe { *out.add(i as usize) = i as f32 * 0.5 };
}

extern "C" fn kernel_barrier(args: *const u64) {
    // SAFETY: as above.
    let out = unsafe { *args } as *mut f32;
    let i = parc_rt_block_idx(0) * parc_rt_block_dim(0) + parc_rt_thread_idx(0);
    parc_rt_barrier();
    // SAFETY: in bounds.
    unsafe { *out.add(i as usize) = i as f32 * 0.5 };
}

fn time<R>(f: impl FnOnce() -> R) -> (R, f64) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed().as_secs_f64() * 1e3)
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let counts = if args.is_empty() {
        let mut v = vec![1, 2, 4, 8, 16];
        v.retain(|&w| w <= cores.max(2));
        v
    } else {
        args
    };
    let (_, serial) = time(|| fib_serial(32));
    println!("fib(32) serial: {serial:.1} ms");
    println!(
        "workers | fib(32) spawn | 1M empty tasks | 100k ~1us tasks | parallel_for 2^26 | launch plain | launch barrier"
    );
    for w in counts {
        with_workers(w, || {
            let (r, t_fib) = time(|| fib(32));
            assert_eq!(r, 2178309);
            let wakes0 = parc_runtime::pool::wake_ups();
            let (_, t_tasks) = time(|| {
                let mut g = ParcGroup::new();
                for _ in 0..1_000_000 {
                    // SAFETY: no captured values; synced below.
                    unsafe { parc_rt_spawn(&mut g, empty_task, std::ptr::null(), 0) };
                }
                // SAFETY: live group.
                unsafe { parc_rt_sync(&mut g) };
            });
            let wakes_tasks = parc_runtime::pool::wake_ups() - wakes0;
            let (_, t_work) = time(|| {
                let mut g = ParcGroup::new();
                for _ in 0..100_000 {
                    // SAFETY: no captured values; synced below.
                    unsafe { parc_rt_spawn(&mut g, work_task, std::ptr::null(), 0) };
                }
                // SAFETY: live group.
                unsafe { parc_rt_sync(&mut g) };
            });
            let slots: Vec<Slot> = (0..=w).map(|_| Slot(0.0.into())).collect();
            let (_, t_for) = time(|| {
                // SAFETY: the body writes only its own slot.
                unsafe {
                    parc_rt_parallel_for(
                        0,
                        1 << 26,
                        0,
                        sum_body,
                        (&slots as *const Vec<Slot>).cast_mut().cast(),
                    )
                }
            });
            let mut out = vec![0f32; 4096 * 256];
            let kargs = [out.as_mut_ptr() as u64];
            let (grid, block) = ([4096, 1, 1], [256, 1, 1]);
            let (_, t_plain) = time(|| {
                // SAFETY: `out` has one slot per thread.
                unsafe {
                    parc_rt_launch(
                        kernel_plain,
                        kargs.as_ptr(),
                        grid.as_ptr(),
                        block.as_ptr(),
                        0,
                    )
                }
            });
            let (_, t_bar) = time(|| {
                // SAFETY: as above.
                unsafe {
                    parc_rt_launch(
                        kernel_barrier,
                        kargs.as_ptr(),
                        grid.as_ptr(),
                        block.as_ptr(),
                        0,
                    )
                }
            });
            println!(
                "{w:7} | {t_fib:10.1} ms | {t_tasks:11.1} ms | {t_work:12.1} ms | {t_for:14.1} ms | {t_plain:9.1} ms | {t_bar:11.1} ms  ({wakes_tasks} wake-ups in the 1M tasks)"
            );
        });
    }
}
