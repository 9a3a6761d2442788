//! C library services with ParC's error behaviour: allocation that faults
//! instead of returning null, and a monotonic clock.
//!
//! Memory from [`parc_rt_malloc`] and [`parc_rt_calloc`] comes from the C
//! library's `malloc`/`calloc`, so generated code frees it with `free`.
//! Everything else of the C library (`free memcpy memset atoi atol atof
//! strcmp` and the math functions) is called directly by generated code.

use crate::fault::{self, FAULT_OOM};
use std::sync::OnceLock;
use std::time::Instant;

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

/// `double wtime()`: seconds on a monotonic clock, from an arbitrary
/// origin fixed at the first call (differences are what matter).
#[unsafe(no_mangle)]
pub extern "C" fn parc_rt_wtime() -> f64 {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    let origin = *ORIGIN.get_or_init(Instant::now);
    origin.elapsed().as_secs_f64()
}
