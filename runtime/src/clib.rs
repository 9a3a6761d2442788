//! C library services with ParC's error behaviour: allocation that faults
//! instead of returning null, and a monotonic clock.
//!
//! Memory from [`parc_rt_malloc`], [`parc_rt_calloc`] and
//! [`parc_rt_realloc`] comes from the C library's allocator, so generated
//! code frees it with `free`.
//! Everything else of the C library (`free memcpy memset atoi atol atof
//! strcmp` and the math functions) is called directly by generated code.

use crate::fault::{self, FAULT_OOM};
use std::sync::OnceLock;
use std::time::Instant;

/// Keeps freed memory for reuse instead of returning it to the system at
/// once. Gradients allocate a tape of megabytes per call and free it at the
/// end; with glibc's defaults each call would map fresh pages and fault
/// every one of them in again (most of a gradient's time, measured). Done
/// once, before the first allocation of generated code.
fn tune_allocator() {
    static TUNED: std::sync::Once = std::sync::Once::new();
    TUNED.call_once(|| {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        // SAFETY: `mallopt` only changes allocator parameters. Large
        // blocks come from the heap rather than from `mmap` (whose
        // threshold cannot be raised past 32 MiB), and up to 1 GiB of free
        // memory at its top stays mapped.
        unsafe {
            libc::mallopt(libc::M_MMAP_MAX, 0);
            libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
        }
    });
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
    let p = unsafe { libc::malloc((bytes as u64).max(1) as usize) };
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
    let (count, size) = if total == 0 { (1, 1) } else { (count, size) };
    // SAFETY: `calloc` checks the product itself; the result is checked.
    let p = unsafe { libc::calloc(count as usize, size as usize) };
    if p.is_null() {
        out_of_memory(total);
    }
    p.cast()
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
}
