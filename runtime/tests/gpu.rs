//! Kernels on the CPU: thread/block ids, shared memory, barriers.

use parc_runtime::gpu::*;
use parc_runtime::with_workers;
use std::sync::atomic::{AtomicU32, Ordering};

fn launch(kernel: KernelFn, args: &[u64], grid: [i32; 3], block: [i32; 3], shared: i64) {
    // SAFETY: the kernels below read `args` as the tests lay them out.
    unsafe { parc_rt_launch(kernel, args.as_ptr(), grid.as_ptr(), block.as_ptr(), shared) }
}

fn arg(args: *const u64, i: usize) -> u64 {
    // SAFETY: the tests pass enough arguments.
    unsafe { *args.add(i) }
}

/// Block-wide tree reduction of `input[0..n]` into `out[blockIdx.x]`,
/// with the classic shared-memory loop and a barrier per step. The slot
/// after the tree checks that shared memory starts zeroed in every block.
extern "C" fn reduce_kernel(args: *const u64) {
    let input = arg(args, 0) as *const i64;
    let out = arg(args, 1) as *mut i64;
    let n = arg(args, 2) as i64;
    let tid = parc_rt_thread_idx(0) as usize;
    let bid = parc_rt_block_idx(0) as usize;
    let bdim = parc_rt_block_dim(0) as usize;
    let sh = parc_rt_shared_base() as *mut i64;
    let i = (bid * bdim + tid) as i64;
    // SAFETY: `sh` has `bdim + 1` slots; `input` has `n`, `out` one per block.
    unsafe {
        if tid == 0 {
            assert_eq!(*sh.add(bdim), 0, "shared memory not zeroed");
            *sh.add(bdim) = 1;
        }
        *sh.add(tid) = if i < n { *input.add(i as usize) } else { 0 };
        parc_rt_barrier();
        let mut s = bdim / 2;
        while s > 0 {
            if tid < s {
                *sh.add(tid) += *sh.add(tid + s);
            }
            parc_rt_barrier();
            s /= 2;
        }
        if tid == 0 {
            *out.add(bid) = *sh;
        }
    }
}

fn reduce(blocks: i32, threads: i32) {
    let n = blocks as i64 * threads as i64 - 3;
    let input: Vec<i64> = (0..n).map(|i| i * 7 - 100).collect();
    let mut out = vec![0i64; blocks as usize];
    let args = [input.as_ptr() as u64, out.as_mut_ptr() as u64, n as u64];
    launch(
        reduce_kernel,
        &args,
        [blocks, 1, 1],
        [threads, 1, 1],
        (threads as i64 + 1) * 8,
    );
    for (b, &sum) in out.iter().enumerate() {
        let lo = (b * threads as usize).min(n as usize);
        let hi = (lo + threads as usize).min(n as usize);
        assert_eq!(sum, input[lo..hi].iter().sum::<i64>(), "block {b}");
    }
}

#[test]
fn shared_memory_tree_reduction() {
    for workers in [1, 2, 8] {
        with_workers(workers, || {
            for _ in 0..5 {
                reduce(13, 256);
                reduce(7, 1024);
                reduce(40, 32);
                reduce(3, 1);
            }
        });
    }
    reduce(9, 64); // from outside the pool
}

/// Marks `seen[global linear thread id]` and checks the id queries. With
/// `args[2] != 0` it passes a barrier halfway (the coroutine path).
extern "C" fn ids_kernel(args: *const u64) {
    let seen = arg(args, 0) as *const AtomicU32;
    let dims = arg(args, 1) as *const [i32; 6];
    let with_barrier = arg(args, 2) != 0;
    // SAFETY: `dims` holds the grid and block dimensions.
    let d = unsafe { *dims };
    let t: Vec<i32> = (0..3).map(|k| parc_rt_thread_idx(k)).collect();
    let b: Vec<i32> = (0..3).map(|k| parc_rt_block_idx(k)).collect();
    for k in 0..3 {
        assert_eq!(parc_rt_grid_dim(k as i32), d[k]);
        assert_eq!(parc_rt_block_dim(k as i32), d[3 + k]);
        assert!(t[k] < d[3 + k] && b[k] < d[k]);
    }
    if with_barrier {
        parc_rt_barrier();
        assert_eq!(parc_rt_thread_idx(0), t[0]);
    }
    let block_lin = (b[2] * d[1] + b[1]) * d[0] + b[0];
    let thread_lin = (t[2] * d[4] + t[1]) * d[3] + t[0];
    let threads = d[3] * d[4] * d[5];
    // SAFETY: in bounds: one slot per thread of the grid.
    unsafe { &*seen.add((block_lin * threads + thread_lin) as usize) }
        .fetch_add(1, Ordering::Relaxed);
}

#[test]
fn three_dimensional_ids_with_and_without_barriers() {
    for workers in [1, 4] {
        with_workers(workers, || {
            for with_barrier in [0u64, 1] {
                let grid = [3, 2, 4];
                let block = [4, 3, 2];
                let total = 3 * 2 * 4 * 4 * 3 * 2;
                let seen: Vec<AtomicU32> = (0..total).map(|_| AtomicU32::new(0)).collect();
                let dims = [grid[0], grid[1], grid[2], block[0], block[1], block[2]];
                let args = [seen.as_ptr() as u64, &dims as *const _ as u64, with_barrier];
                launch(ids_kernel, &args, grid, block, 0);
                assert!(seen.iter().all(|s| s.load(Ordering::Relaxed) == 1));
            }
        });
    }
}

/// Even blocks synchronize, odd ones do not: legal, since every thread of
/// a block agrees.
extern "C" fn block_uniform_kernel(args: *const u64) {
    let count = arg(args, 0) as *const AtomicU32;
    if parc_rt_block_idx(0) % 2 == 0 {
        parc_rt_barrier();
        parc_rt_barrier();
    }
    // SAFETY: `count` outlives the launch.
    unsafe { &*count }.fetch_add(1, Ordering::Relaxed);
}

#[test]
fn block_dependent_barriers_and_many_blocks() {
    with_workers(4, || {
        let count = AtomicU32::new(0);
        let args = [&count as *const _ as u64];
        launch(block_uniform_kernel, &args, [1000, 1, 1], [64, 1, 1], 16);
        assert_eq!(count.load(Ordering::Relaxed), 64_000);
    });
}

#[test]
fn cuda_memory_calls() {
    let mut p: *mut u8 = std::ptr::null_mut();
    // SAFETY: plain host memory.
    unsafe {
        assert_eq!(parc_rt_cuda_malloc(&mut p, 64), 0);
        assert!(!p.is_null());
        assert!(std::slice::from_raw_parts(p, 64).iter().all(|&b| b == 0));
        let src: Vec<u8> = (0..64).collect();
        assert_eq!(parc_rt_cuda_memcpy(p, src.as_ptr(), 64), 0);
        let mut back = vec![0u8; 64];
        assert_eq!(parc_rt_cuda_memcpy(back.as_mut_ptr(), p, 64), 0);
        assert_eq!(back, src);
        assert_eq!(parc_rt_cuda_device_synchronize(), 0);
        assert_eq!(parc_rt_cuda_free(p), 0);
    }
}

/// Long copies are split over the workers; every byte must still land
/// once, in place, with a length that is no multiple of the chunk, and an
/// overlapping copy must still behave as `memmove`.
#[test]
fn long_cuda_memcpy() {
    let len = 3 * PARALLEL_COPY_BYTES + 12345;
    let src: Vec<u8> = (0..len).map(|i| (i * 7 + i / 251) as u8).collect();
    for workers in [1, 2, 3] {
        with_workers(workers, || {
            let mut dst = vec![0u8; len + 2];
            // SAFETY: `dst` has room for `len` bytes after its first.
            unsafe {
                assert_eq!(
                    parc_rt_cuda_memcpy(dst.as_mut_ptr().add(1), src.as_ptr(), len as i64),
                    0
                )
            };
            assert_eq!(dst[0], 0);
            assert_eq!(dst[len + 1], 0);
            assert!(dst[1..=len] == src[..], "{workers} workers");
            let mut buf = src.clone();
            buf.resize(len + 100, 0);
            // SAFETY: both ranges lie in `buf`; they overlap.
            unsafe {
                assert_eq!(
                    parc_rt_cuda_memcpy(buf.as_mut_ptr().add(100), buf.as_ptr(), len as i64),
                    0
                )
            };
            assert!(buf[100..] == src[..], "overlapping, {workers} workers");
        });
    }
}

fn launch_blocks(f: BlockFn, args: &[u64], grid: [i32; 3], block: [i32; 3], frame: i64) {
    // SAFETY: the block functions below read `args` as the tests lay them
    // out and stay within `frame` bytes per thread.
    unsafe {
        parc_rt_launch_blocks(
            f,
            args.as_ptr(),
            grid.as_ptr(),
            block.as_ptr(),
            8 * 1024,
            frame,
        )
    }
}

/// The tree reduction of `reduce_kernel` as the compiler splits it: one
/// loop over the threads per phase, each thread's `i` kept in its frame
/// (16 bytes apiece) from the phase that computes it to the last one. The
/// thread ids go through `thread` as the generated code publishes them
/// for callees.
extern "C" fn reduce_block(args: *const u64, frame: *mut u8, thread: *mut i32) {
    let input = arg(args, 0) as *const i64;
    let out = arg(args, 1) as *mut i64;
    let n = arg(args, 2) as i64;
    let bid = parc_rt_block_idx(0) as usize;
    let bdim = parc_rt_block_dim(0) as usize;
    let sh = parc_rt_shared_base() as *mut i64;
    let slot = |tid: usize| frame.wrapping_add(16 * tid) as *mut i64;
    // SAFETY: `sh` has `bdim` slots, `frame` 16 bytes per thread, `input`
    // `n` elements and `out` one per block; `thread` is the runtime's.
    unsafe {
        for tid in 0..bdim {
            *thread = tid as i32;
            assert_eq!(parc_rt_thread_idx(0), tid as i32);
            let i = (bid * bdim + tid) as i64;
            *slot(tid) = i;
            *sh.add(tid) = if i < n { *input.add(i as usize) } else { 0 };
        }
        let mut s = bdim / 2;
        while s > 0 {
            for tid in 0..s {
                *sh.add(tid) += *sh.add(tid + s);
            }
            s /= 2;
        }
        for tid in 0..bdim {
            assert_eq!(*slot(tid), (bid * bdim + tid) as i64, "frame kept");
        }
        *out.add(bid) = *sh;
    }
}

#[test]
fn block_functions_run_every_block_with_frames() {
    for workers in [1, 2, 8] {
        with_workers(workers, || {
            for (blocks, threads) in [(13, 256), (7, 1024), (40, 32), (3, 1)] {
                let n = blocks as i64 * threads as i64 - 3;
                let input: Vec<i64> = (0..n).map(|i| i * 7 - 100).collect();
                let mut out = vec![0i64; blocks as usize];
                let args = [input.as_ptr() as u64, out.as_mut_ptr() as u64, n as u64];
                launch_blocks(reduce_block, &args, [blocks, 1, 1], [threads, 1, 1], 16);
                for (b, &sum) in out.iter().enumerate() {
                    let lo = (b * threads as usize).min(n as usize);
                    let hi = (lo + threads as usize).min(n as usize);
                    assert_eq!(sum, input[lo..hi].iter().sum::<i64>(), "block {b}");
                }
            }
        });
    }
}

/// Counts the blocks and checks the block ids and dimensions.
extern "C" fn ids_block(args: *const u64, _frame: *mut u8, _thread: *mut i32) {
    let seen = arg(args, 0) as *const AtomicU32;
    let b: Vec<i32> = (0..3).map(|k| parc_rt_block_idx(k)).collect();
    let d: Vec<i32> = (0..3).map(|k| parc_rt_grid_dim(k)).collect();
    assert_eq!(
        (0..3).map(|k| parc_rt_block_dim(k)).collect::<Vec<_>>(),
        [4, 3, 2]
    );
    let lin = (b[2] * d[1] + b[1]) * d[0] + b[0];
    // SAFETY: one slot per block.
    unsafe { &*seen.add(lin as usize) }.fetch_add(1, Ordering::Relaxed);
}

#[test]
fn block_functions_see_three_dimensional_block_ids() {
    with_workers(4, || {
        let seen: Vec<AtomicU32> = (0..5 * 3 * 7).map(|_| AtomicU32::new(0)).collect();
        let args = [seen.as_ptr() as u64];
        launch_blocks(ids_block, &args, [5, 3, 7], [4, 3, 2], 0);
        assert!(seen.iter().all(|s| s.load(Ordering::Relaxed) == 1));
    });
}
