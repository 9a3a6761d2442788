//! `parc_rt_parallel_for` covers every index of `[lo, hi)` exactly once,
//! in chunks of at most `grain` indices, for many ranges and grains.

use parc_runtime::parfor::parc_rt_parallel_for;
use parc_runtime::with_workers;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

struct Cover {
    lo: i64,
    marks: Vec<AtomicU8>,
    max_chunk: AtomicU64,
    chunks: AtomicU64,
}

extern "C" fn cover_body(ctx: *mut u8, start: i64, end: i64) {
    // SAFETY: ctx is a `Cover`.
    let c = unsafe { &*(ctx as *const Cover) };
    assert!(start < end, "empty chunk [{start}, {end})");
    c.max_chunk
        .fetch_max((end - start) as u64, Ordering::Relaxed);
    c.chunks.fetch_add(1, Ordering::Relaxed);
    for i in start..end {
        c.marks[(i - c.lo) as usize].fetch_add(1, Ordering::Relaxed);
    }
}

fn cover(lo: i64, hi: i64, grain: i64) {
    let n = (hi - lo).max(0) as usize;
    let c = Cover {
        lo,
        marks: (0..n).map(|_| AtomicU8::new(0)).collect(),
        max_chunk: AtomicU64::new(0),
        chunks: AtomicU64::new(0),
    };
    // SAFETY: the body only reads `c` (through atomics); it outlives the call.
    unsafe {
        parc_rt_parallel_for(
            lo,
            hi,
            grain,
            cover_body,
            (&c as *const Cover).cast_mut().cast(),
        )
    };
    for (k, m) in c.marks.iter().enumerate() {
        assert_eq!(
            m.load(Ordering::Relaxed),
            1,
            "index {} of [{lo}, {hi}) grain {grain}",
            lo + k as i64
        );
    }
    if n == 0 {
        assert_eq!(c.chunks.load(Ordering::Relaxed), 0);
    }
    if grain > 0 {
        assert!(c.max_chunk.load(Ordering::Relaxed) <= grain as u64);
    } else {
        assert!(c.max_chunk.load(Ordering::Relaxed) <= 2048);
    }
}

#[test]
fn covers_each_index_once() {
    for workers in [1, 2, 5, 8] {
        with_workers(workers, || {
            for (lo, hi) in [
                (0, 0),
                (5, 5),
                (10, 3),
                (-7, -20),
                (0, 1),
                (-1, 0),
                (0, 2),
                (-50, 50),
                (3, 1000),
                (0, 4097),
                (100, 100_000),
            ] {
                for grain in [-5, 0, 1, 2, 3, 7, 64, 1000, 1 << 40] {
                    cover(lo, hi, grain);
                }
            }
        });
    }
}

#[test]
fn from_outside_the_pool() {
    cover(-1000, 12345, 0);
    cover(0, 10, 1);
}

/// Records the chunks instead of touching memory, for ranges far too long
/// to mark index by index.
extern "C" fn record_body(ctx: *mut u8, start: i64, end: i64) {
    // SAFETY: ctx is the mutex.
    let chunks = unsafe { &*(ctx as *const Mutex<Vec<(i64, i64)>>) };
    chunks.lock().unwrap().push((start, end));
}

fn extreme(lo: i64, hi: i64, grain: i64) {
    let chunks: Mutex<Vec<(i64, i64)>> = Mutex::new(Vec::new());
    // SAFETY: as in `cover`.
    unsafe {
        parc_rt_parallel_for(
            lo,
            hi,
            grain,
            record_body,
            (&chunks as *const Mutex<Vec<(i64, i64)>>).cast_mut().cast(),
        )
    };
    let mut chunks = chunks.into_inner().unwrap();
    chunks.sort();
    assert_eq!(chunks.first().unwrap().0, lo);
    assert_eq!(chunks.last().unwrap().1, hi);
    for w in chunks.windows(2) {
        assert_eq!(w[0].1, w[1].0, "gap or overlap between chunks");
    }
    for &(s, e) in &chunks {
        assert!(s < e);
        assert!((e.wrapping_sub(s) as u64) <= grain as u64);
    }
}

#[test]
fn extreme_ranges() {
    with_workers(4, || {
        extreme(i64::MIN, i64::MIN + 100, 7);
        extreme(i64::MAX - 100, i64::MAX, 7);
        extreme(i64::MIN, i64::MAX, 1 << 58);
        extreme(-3, i64::MAX, i64::MAX);
    });
}
