//! `parallel_for`: divide and conquer over an index range with `join`.
//!
//! `parc_rt_parallel_for(lo, hi, grain, body, ctx)` calls
//! `body(ctx, start, end)` on disjoint chunks `[start, end)` that together
//! cover `[lo, hi)` exactly once, and returns when all calls have
//! returned. Chunks come from recursive halving with the pool's `join`
//! (the left half runs on the calling worker, the right half may be
//! stolen) until a chunk has at most `grain` indices.
//! Every chunk is non-empty; `hi <= lo` calls nothing. `grain <= 0` means
//! "choose": `max(1, min(2048, n / (8 * workers)))`, about eight chunks
//! per worker for load balance and at most 2048 indices per chunk.
//!
//! The body may itself spawn, sync, run `parallel_for` or launch
//! kernels (nested parallelism); it must sync its own spawns before
//! returning. Chunks run concurrently with the same `ctx`, so the body
//! treats it as read-only shared state. The range may be anything
//! representable, `i64::MIN..i64::MAX` included (its length is computed
//! in 64-bit unsigned arithmetic).

use crate::sched::{SendPtr, in_pool, num_workers};

/// The outlined loop body: runs iterations `start..end`.
pub type BodyFn = extern "C" fn(ctx: *mut u8, start: i64, end: i64);

/// The grain `grain <= 0` stands for, for `n` indices on `workers` workers.
pub fn auto_grain(n: u64, workers: usize) -> u64 {
    (n / (8 * workers.max(1) as u64)).clamp(1, 2048)
}

/// Runs `leaf(start, len)` over chunks of at most `grain` indices covering
/// `[lo, lo + n)`, splitting in halves with `join`. Must run on a worker.
pub(crate) fn split<F: Fn(i64, u64) + Sync>(lo: i64, n: u64, grain: u64, leaf: &F) {
    if n <= grain {
        leaf(lo, n);
        return;
    }
    let half = n / 2;
    // `half < 2^63`, and `lo + half` lies inside the range, so the wrapping
    // addition is exact.
    let mid = lo.wrapping_add(half as i64);
    crate::pool::join(
        || split(lo, half, grain, leaf),
        || split(mid, n - half, grain, leaf),
    );
}

/// Runs `body(ctx, start, end)` over chunks covering `[lo, hi)` in
/// parallel; see the module doc.
///
/// # Safety
/// `body` may be called concurrently from several threads with `ctx`
/// and any sub-range of `[lo, hi)`; `ctx` stays valid until this returns.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_parallel_for(
    lo: i64,
    hi: i64,
    grain: i64,
    body: BodyFn,
    ctx: *mut u8,
) {
    if hi <= lo {
        return;
    }
    let n = hi.wrapping_sub(lo) as u64;
    let ctx = SendPtr(ctx);
    crate::fault::guard("parallel_for", move || {
        in_pool(move || {
            let grain = if grain > 0 {
                grain as u64
            } else {
                auto_grain(n, num_workers())
            };
            let leaf = move |start: i64, len: u64| {
                body(ctx.get(), start, start.wrapping_add(len as i64));
            };
            split(lo, n, grain, &leaf);
        })
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_grain_bounds() {
        assert_eq!(auto_grain(0, 4), 1);
        assert_eq!(auto_grain(10, 4), 1);
        assert_eq!(auto_grain(3200, 4), 100);
        assert_eq!(auto_grain(u64::MAX, 1), 2048);
        assert_eq!(auto_grain(1000, 0), 125);
    }
}
