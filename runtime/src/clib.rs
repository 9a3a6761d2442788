//! C library services with ParC's error behaviour: allocation that faults
//! instead of returning null, and a monotonic clock.
//!
//! Memory from [`parc_rt_malloc`], [`parc_rt_calloc`] and
//! [`parc_rt_realloc`] comes from the C library's allocator, so generated
//! code frees it with `free`.
//! `abort` and `assert`'s report go through [`parc_rt_abort`] and
//! [`parc_rt_assert_fail`], which end the program as C's do despite the
//! runtime's `SIGABRT` handler; `qsort` and `bsearch` through
//! [`parc_rt_qsort`] and [`parc_rt_bsearch`], which report a null
//! comparator. Everything else of the C library (`free memcpy memset`,
//! parir's `CFn` rows and the math functions) is called directly by
//! generated code.

use crate::fault::{self, FAULT_OOM};
use std::ffi::{c_char, c_int, c_void};
use std::sync::OnceLock;
use std::time::Instant;

/// Keeps freed memory for reuse instead of returning it to the system at
/// once, and grows heaps in large steps. Gradients allocate a tape of
/// megabytes per call and free it at the end; with glibc's defaults each
/// call would map fresh pages and fault every one of them in again. Done
/// once, before the worker threads start (a heap made before it grows
/// without the padding) and before the first allocation of generated
/// code.
pub(crate) fn tune_allocator() {
    static TUNED: std::sync::Once = std::sync::Once::new();
    TUNED.call_once(|| {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        // SAFETY: `mallopt` only changes allocator parameters. Large
        // blocks come from the heap rather than from `mmap` (whose
        // threshold cannot be raised past 32 MiB), up to 1 GiB of free
        // memory at its top stays mapped, and a heap grows by at least
        // 64 MiB at a time: a worker thread's heap otherwise grows by
        // what each request lacks, one `mprotect` per growth (a gradient
        // that records hundreds of megabytes made tens of thousands).
        // The padding is address space; pages count once touched (which
        // glibc's `calloc` would do to the padding: see `zero_lazily`).
        unsafe {
            libc::mallopt(libc::M_MMAP_MAX, 0);
            libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
            libc::mallopt(libc::M_TOP_PAD, 64 << 20);
        }
    });
}

/// Requests of at least this many bytes are staggered (see [`staggered`]).
const STAGGER_MIN: usize = 256 << 10;
/// How far apart, modulo a page, consecutive large blocks start.
const STAGGER_STEP: usize = 128;
const PAGE: usize = 4096;

/// The size to ask the C library for, for a request of `bytes`: large
/// blocks are padded so that each one's chunk (glibc: request plus an
/// 8-byte size field, rounded up to 16) is a whole number of pages plus
/// [`STAGGER_STEP`] bytes. Blocks taken one after another from the top of
/// the heap (where [`tune_allocator`] puts large blocks) then start
/// `STAGGER_STEP` bytes apart modulo a page, instead of 16 bytes apart
/// (heap) or at the same offset (glibc's `mmap`ed blocks). Arrays read and
/// written in lockstep at nearby indices (a stencil's `dst[j]` and
/// `src[j + 1]`) otherwise have addresses that agree in their low 12 bits,
/// which the CPU's store-to-load check takes for a dependence (4K
/// aliasing); jemalloc offsets large blocks within a page for the same
/// reason. The
/// padding is under 4.2 KiB, under 2% of a staggered block. Only the
/// layout depends on glibc's chunk format; any other allocator just gets
/// slightly bigger blocks.
fn staggered(bytes: usize) -> usize {
    if bytes < STAGGER_MIN {
        return bytes;
    }
    let chunk = (bytes + 8).div_ceil(PAGE) * PAGE + STAGGER_STEP;
    chunk - 8
}

fn out_of_memory(bytes: impl std::fmt::Display) -> ! {
    fault::die(&format!(
        "{}: cannot allocate {bytes} bytes",
        fault::kind_message(FAULT_OOM)
    ))
}

/// `malloc(bytes)`. Never returns null: a negative size or an allocation
/// the C library refuses is an "out of memory" fault. `malloc(0)` returns
/// a unique pointer that may be freed.
#[unsafe(no_mangle)]
pub extern "C" fn parc_rt_malloc(bytes: i64) -> *mut u8 {
    tune_allocator();
    if bytes < 0 {
        out_of_memory(bytes);
    }
    // SAFETY: `malloc` accepts any size; the result is checked.
    let p = unsafe { libc::malloc(staggered((bytes as u64).max(1) as usize)) };
    if p.is_null() {
        out_of_memory(bytes);
    }
    p.cast()
}

/// `calloc(count, size)`: zeroed memory; faults like [`parc_rt_malloc`],
/// also when `count * size` overflows.
#[unsafe(no_mangle)]
pub extern "C" fn parc_rt_calloc(count: i64, size: i64) -> *mut u8 {
    tune_allocator();
    let Some(total) = count.checked_mul(size).filter(|_| count >= 0 && size >= 0) else {
        out_of_memory(format_args!("{count} * {size}"));
    };
    let (count, size) = match total {
        0 => (1, 1),
        // `total` fits in `usize` on a 64-bit host: it is an `i64 >= 0`.
        _ if total as usize >= STAGGER_MIN => (1, staggered(total as usize)),
        _ => (count as usize, size as usize),
    };
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if size >= STAGGER_MIN {
        // SAFETY: `malloc` accepts any size; the result is checked and
        // has `size` bytes.
        let p = unsafe { libc::malloc(size) };
        if p.is_null() {
            out_of_memory(total);
        }
        // SAFETY: the block has `size` bytes and is the caller's alone.
        unsafe { zero_lazily(p.cast(), size) };
        return p.cast();
    }
    // SAFETY: `calloc` checks the product itself; the result is checked.
    let p = unsafe { libc::calloc(count, size) };
    if p.is_null() {
        out_of_memory(total);
    }
    p.cast()
}

/// Zeroes a large block of the C library's heap without making its
/// untouched pages resident, as the kernel's lazily zero-filled pages of a
/// `mmap`ed block (glibc's `calloc` of a large block without
/// [`tune_allocator`]) are: pages not resident are discarded with
/// `madvise(MADV_DONTNEED)` (the heap is private anonymous memory, whose
/// discarded pages read as zeros when next touched; a page swapped out is
/// discarded too), resident ones and the partial pages at either end are
/// cleared. glibc's `calloc` clears the whole block unless it extends the
/// heap past its high-water mark, which `M_TOP_PAD` keeps 64 MiB ahead:
/// every large `calloc` then cleared, so arrays calloc'ed and only partly
/// used (a gradient's shadows in a run that computes none) were resident
/// in full. Whether a page is resident only chooses how it is zeroed.
///
/// # Safety
/// `p` points to `bytes` writable bytes of private anonymous memory (the
/// C library's heap) that nothing else uses.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
unsafe fn zero_lazily(p: *mut u8, bytes: usize) {
    // SAFETY: `sysconf` only reads a system parameter.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(0);
    let (start, end) = (p as usize, p as usize + bytes);
    let (first, last) = match page {
        0 => (end, end),
        _ => (start.next_multiple_of(page), end / page * page),
    };
    // SAFETY (every `write_bytes` below): a range inside the block.
    if first >= last {
        unsafe { p.write_bytes(0, bytes) };
        return;
    }
    unsafe {
        p.write_bytes(0, first - start);
        p.add(last - start).write_bytes(0, end - last);
    }
    let pages = (last - first) / page;
    let mut resident = vec![0u8; pages];
    // SAFETY: `first..last` is page-aligned and mapped (it lies in the
    // block); `resident` has one byte per page.
    if unsafe { libc::mincore(first as *mut c_void, last - first, resident.as_mut_ptr()) } != 0 {
        resident.fill(1);
    }
    let mut i = 0;
    while i < pages {
        let here = resident[i] & 1;
        let run = resident[i..].iter().take_while(|r| *r & 1 == here).count();
        let at = p.wrapping_add(first - start + i * page);
        let len = run * page;
        // SAFETY: whole pages of the block, which no one else uses.
        if here == 1 || unsafe { libc::madvise(at.cast(), len, libc::MADV_DONTNEED) } != 0 {
            unsafe { at.write_bytes(0, len) };
        }
        i += run;
    }
}

/// `realloc(p, bytes)`: keeps the contents up to the smaller size;
/// `realloc(null, n)` is `malloc(n)`. Faults like [`parc_rt_malloc`]
/// instead of returning null (the AD grows its tapes with it, and a tape
/// that cannot grow must stop the program, not lose records).
#[unsafe(no_mangle)]
pub extern "C" fn parc_rt_realloc(p: *mut u8, bytes: i64) -> *mut u8 {
    tune_allocator();
    if bytes < 0 {
        out_of_memory(bytes);
    }
    // SAFETY: `p` is null or came from the C library's allocator (every
    // allocation of generated code does); the result is checked. A size of
    // 0 would free `p` and may return null, so at least 1 byte is asked.
    let q = unsafe { libc::realloc(p.cast(), (bytes as u64).max(1) as usize) };
    if q.is_null() {
        out_of_memory(bytes);
    }
    q.cast()
}

/// `double wtime()`: seconds on a monotonic clock, from an arbitrary
/// origin fixed at the first call (differences are what matter).
#[unsafe(no_mangle)]
pub extern "C" fn parc_rt_wtime() -> f64 {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    let origin = *ORIGIN.get_or_init(Instant::now);
    origin.elapsed().as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn realloc_keeps_contents() {
        let p = parc_rt_realloc(std::ptr::null_mut(), 4);
        // SAFETY: `p` has 4 bytes, `q` 1 << 20; both come from the allocator.
        unsafe {
            p.copy_from(b"abcd".as_ptr(), 4);
            let q = parc_rt_realloc(p, 1 << 20);
            assert_eq!(std::slice::from_raw_parts(q, 4), b"abcd");
            let r = parc_rt_realloc(q, 0);
            assert!(!r.is_null());
            libc::free(r.cast());
        }
    }

    #[test]
    fn large_callocs_are_zero_even_where_memory_is_reused() {
        let bytes = 6 << 20;
        for _ in 0..3 {
            let dirty = parc_rt_malloc(bytes);
            // SAFETY: `dirty` has `bytes` bytes; it is freed once.
            unsafe {
                dirty.write_bytes(0xa5, bytes as usize);
                libc::free(dirty.cast());
            }
            let p = parc_rt_calloc(bytes / 8, 8);
            // SAFETY: `p` has `bytes` bytes; it is freed once.
            unsafe {
                let block = std::slice::from_raw_parts(p, bytes as usize);
                assert!(block.iter().all(|b| *b == 0));
                libc::free(p.cast());
            }
        }
    }

    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn zeroing_leaves_untouched_pages_out_and_clears_the_rest() {
        // SAFETY: `sysconf` only reads a system parameter.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
        let len = 64 * page;
        // SAFETY: a fresh private anonymous mapping, unmapped at the end.
        let base: *mut u8 = unsafe {
            let m = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            assert_ne!(m, libc::MAP_FAILED);
            m.cast()
        };
        let residency = || {
            let mut r = vec![0u8; len / page];
            // SAFETY: the whole mapping, page-aligned.
            assert_eq!(
                unsafe { libc::mincore(base.cast(), len, r.as_mut_ptr()) },
                0
            );
            r.iter().map(|b| b & 1).collect::<Vec<_>>()
        };
        // SAFETY: the writes and reads stay inside the mapping.
        unsafe {
            // Pages 0..8 and 40..48 dirty, the rest never touched.
            base.write_bytes(0xa5, 8 * page);
            base.add(40 * page).write_bytes(0xa5, 8 * page);
            // From the middle of page 3 to the middle of page 60.
            let (from, to) = (3 * page + 100, 60 * page + 7);
            zero_lazily(base.add(from), to - from);
            let after = residency();
            for (i, resident) in after.iter().enumerate() {
                let expect = u8::from(i < 8 || (40..48).contains(&i) || i == 60);
                assert_eq!(*resident, expect, "page {i}");
            }
            let all = std::slice::from_raw_parts(base, len);
            assert!(all[..from].iter().all(|b| *b == 0xa5));
            assert!(all[from..to].iter().all(|b| *b == 0));
            assert!(all[to..].iter().all(|b| *b == 0));
            libc::munmap(base.cast(), len);
        }
    }

    #[test]
    fn large_blocks_are_staggered() {
        assert_eq!(staggered(1), 1);
        assert_eq!(staggered(STAGGER_MIN - 1), STAGGER_MIN - 1);
        for bytes in [
            STAGGER_MIN,
            8 << 20,
            (8 << 20) + 1,
            (8 << 20) - 8,
            3_000_017,
        ] {
            let asked = staggered(bytes);
            assert!(asked >= bytes);
            assert!(asked - bytes < PAGE + STAGGER_STEP, "{bytes}: {asked}");
            assert_eq!((asked + 8) % PAGE, STAGGER_STEP, "{bytes}: {asked}");
        }
    }

    #[test]
    fn consecutive_large_blocks_start_a_step_apart() {
        // Where glibc takes them from the top of an arena's heap, as it
        // does for blocks bigger than anything freed before.
        let bytes = 5 << 20;
        let a = parc_rt_calloc(1, bytes);
        let b = parc_rt_calloc(1, bytes);
        let apart = (b as usize).wrapping_sub(a as usize) % PAGE;
        // SAFETY: both came from the allocator and are freed once.
        unsafe {
            assert_eq!(*b.add(bytes as usize - 1), 0);
            libc::free(a.cast());
            libc::free(b.cast());
        }
        if cfg!(all(target_os = "linux", target_env = "gnu")) {
            assert_eq!(apart, STAGGER_STEP);
        }
    }
}

unsafe extern "C" {
    fn __assert_fail(
        assertion: *const c_char,
        file: *const c_char,
        line: u32,
        function: *const c_char,
    ) -> !;
}

/// Gives `SIGABRT` back its default action, so that the program's own
/// `abort` ends it as a C program's does (killed by the signal, status 134
/// from a shell) rather than as a fault of the C library (see
/// [`crate::signals`]).
fn default_abort_action() {
    // SAFETY: setting a signal's disposition to its default.
    unsafe { libc::signal(libc::SIGABRT, libc::SIG_DFL) };
}

/// The program's `abort()`: as C's (streams are not flushed).
#[unsafe(no_mangle)]
pub extern "C" fn parc_rt_abort() -> ! {
    default_abort_action();
    // SAFETY: `abort` takes nothing and never returns.
    unsafe { libc::abort() }
}

/// A failed `assert`: glibc's report (`PROG: FILE:LINE: FUNCTION:
/// Assertion `EXPR' failed.`) and `abort()`, as [`parc_rt_abort`].
///
/// # Safety
/// The pointers are NUL-terminated strings (`function` may be null).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_assert_fail(
    assertion: *const c_char,
    file: *const c_char,
    line: u32,
    function: *const c_char,
) -> ! {
    default_abort_action();
    // SAFETY: the caller's contract.
    unsafe { __assert_fail(assertion, file, line, function) }
}

/// A `qsort`/`bsearch` comparator: a function of the program.
pub type Comparator = unsafe extern "C" fn(*const c_void, *const c_void) -> c_int;

/// C's `qsort`: the C library's, after the checks C leaves undefined (a
/// null comparator or array is a fault; fewer than two elements call
/// nothing, as in glibc).
///
/// # Safety
/// `base` points to `n * size` bytes; `cmp` is a comparator for them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_qsort(
    base: *mut c_void,
    n: u64,
    size: u64,
    cmp: Option<Comparator>,
) {
    if n <= 1 || size == 0 {
        return;
    }
    let Some(cmp) = cmp else {
        fault::die("qsort: the comparator is a null pointer")
    };
    if base.is_null() {
        fault::die("qsort: the array is a null pointer");
    }
    // SAFETY: the caller's contract.
    unsafe { libc::qsort(base, n as usize, size as usize, Some(cmp)) }
}

/// C's `bsearch`, with `qsort`'s check of the comparator.
///
/// # Safety
/// As for `qsort`; `key` is what the comparator takes as its first
/// argument.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_bsearch(
    key: *const c_void,
    base: *const c_void,
    n: u64,
    size: u64,
    cmp: Option<Comparator>,
) -> *mut c_void {
    if n == 0 {
        return std::ptr::null_mut();
    }
    let Some(cmp) = cmp else {
        fault::die("bsearch: the comparator is a null pointer")
    };
    // SAFETY: the caller's contract.
    unsafe { libc::bsearch(key, base, n as usize, size as usize, Some(cmp)) }
}

/// The functions `atexit` registered, in order.
static AT_EXIT: std::sync::Mutex<Vec<extern "C" fn()>> = std::sync::Mutex::new(Vec::new());

/// C's `atexit(f)`: `f` runs when the program ends by returning from
/// `main` or by `exit` (not by `abort` or a fault), the last registered
/// first, before the output is flushed; 0. A null `f` is a fault.
#[unsafe(no_mangle)]
pub extern "C" fn parc_rt_atexit(f: Option<extern "C" fn()>) -> c_int {
    let Some(f) = f else {
        fault::die("atexit: the function is a null pointer")
    };
    AT_EXIT.lock().unwrap_or_else(|e| e.into_inner()).push(f);
    0
}

/// Runs the `atexit` functions, each once, the last registered first (one
/// registered meanwhile runs too, as in glibc).
pub(crate) fn run_at_exit() {
    loop {
        // Not holding the lock while `f` runs: it may call `atexit`.
        let next = AT_EXIT.lock().unwrap_or_else(|e| e.into_inner()).pop();
        match next {
            Some(f) => f(),
            None => return,
        }
    }
}
