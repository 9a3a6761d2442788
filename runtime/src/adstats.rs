//! `PARC_AD_STATS=1`: the gradient tape's bytes at run time, printed on
//! stderr when the program ends.
//!
//! Generated gradients call [`parc_rt_ad_tape_note`] wherever their tape
//! memory changes (`parc-ad`'s `tape.rs` and the sites that allocate a
//! parallel loop's or a spawned task's tape memory): `recorded` is the
//! change in bytes of records (8-byte slots and the per-iteration tape
//! headers of parallel loops: what `--explain-tape` and `--stats` count),
//! `allocated` the change in bytes of heap the tapes hold (capacity that
//! doubling left unused included, and a kernel launch's per-thread tape
//! buffer, in device memory where the launch may run on a GPU; the
//! records device code makes there are not noted). The line gives the peak of each and
//! the records of the whole run.
//!
//! Invariant: without `PARC_AD_STATS` (read once, on the first note) a
//! note is one load and a branch in the generated code; with it, a call
//! and relaxed atomic adds and
//! maxima (the peak is exact as long as notes of concurrent tasks do not
//! interleave between an add and its maximum: a peak may be missed by at
//! most what tasks note at the same instant, never overstated). The
//! interpreter keeps the same counters (`parc_ir::interp`) and prints the
//! same line.

use std::sync::atomic::{AtomicI64, AtomicU8, Ordering::Relaxed};

/// `PARC_AD_STATS`: 0 not read yet, [`OFF`], [`ON`]. Generated code
/// reads it (the symbol `parc_rt_ad_stats_state`) and calls
/// [`parc_rt_ad_tape_note`] only unless it is `OFF`: a run without the
/// variable pays a load and a branch per note.
#[unsafe(no_mangle)]
#[allow(non_upper_case_globals)]
pub static parc_rt_ad_stats_state: AtomicU8 = AtomicU8::new(0);
use parc_rt_ad_stats_state as STATE;
pub const OFF: u8 = 1;
pub const ON: u8 = 2;
/// `PARC_AD_STATS` is off but a `--tape-budget` gradient is measuring an
/// iteration's records ([`parc_rt_ad_tape_measure`]): notes are counted,
/// nothing is printed.
pub const MEASURE: u8 = 3;
static LIVE_RECORDED: AtomicI64 = AtomicI64::new(0);
static PEAK_RECORDED: AtomicI64 = AtomicI64::new(0);
static LIVE_ALLOCATED: AtomicI64 = AtomicI64::new(0);
static PEAK_ALLOCATED: AtomicI64 = AtomicI64::new(0);
static TOTAL_RECORDED: AtomicI64 = AtomicI64::new(0);
static PRINTED: AtomicU8 = AtomicU8::new(0);

/// Whether `PARC_AD_STATS` asks for the line (set and not `0`).
pub fn requested() -> bool {
    std::env::var_os("PARC_AD_STATS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The line both the runtime and the interpreter print.
pub fn line(peak_recorded: i64, peak_allocated: i64, total_recorded: i64) -> String {
    format!(
        "PARC_AD_STATS: gradient tape peak {peak_recorded} bytes recorded \
         ({peak_allocated} bytes allocated), {total_recorded} bytes recorded in all"
    )
}

/// Adds `recorded` and `allocated` bytes (negative: released) to the
/// tape counters when `PARC_AD_STATS` is set.
#[unsafe(no_mangle)]
pub extern "C" fn parc_rt_ad_tape_note(recorded: i64, allocated: i64) {
    match STATE.load(Relaxed) {
        OFF => {}
        ON | MEASURE => note(recorded, allocated),
        _ => {
            let on = requested();
            STATE.store(if on { ON } else { OFF }, Relaxed);
            if on {
                // A library called from C ends by returning from C's
                // `main`: print then too.
                // SAFETY: `print_at_exit` is an `extern "C" fn()` that
                // does not unwind.
                unsafe { libc::atexit(print_at_exit) };
                note(recorded, allocated);
            }
        }
    }
}

/// The bytes of records the tapes hold now (only the difference of two
/// results means anything: without `PARC_AD_STATS` releases outside a
/// measurement are not counted). `on` 1 starts counting notes even without
/// `PARC_AD_STATS`, `on` 0 stops that again. A `--tape-budget` gradient
/// brackets one iteration of a loop with the two calls to learn what an
/// iteration records; gradients measuring at the same time on several
/// threads would count each other's notes too.
#[unsafe(no_mangle)]
pub extern "C" fn parc_rt_ad_tape_measure(on: i64) -> i64 {
    if STATE.load(Relaxed) == 0 {
        let on = requested();
        STATE.store(if on { ON } else { OFF }, Relaxed);
        if on {
            // SAFETY: as in `parc_rt_ad_tape_note`.
            unsafe { libc::atexit(print_at_exit) };
        }
    }
    match (STATE.load(Relaxed), on != 0) {
        (OFF, true) => STATE.store(MEASURE, Relaxed),
        (MEASURE, false) => STATE.store(OFF, Relaxed),
        _ => {}
    }
    LIVE_RECORDED.load(Relaxed)
}

fn note(recorded: i64, allocated: i64) {
    if recorded != 0 {
        let now = LIVE_RECORDED.fetch_add(recorded, Relaxed) + recorded;
        PEAK_RECORDED.fetch_max(now, Relaxed);
        if recorded > 0 {
            TOTAL_RECORDED.fetch_add(recorded, Relaxed);
        }
    }
    if allocated != 0 {
        let now = LIVE_ALLOCATED.fetch_add(allocated, Relaxed) + allocated;
        PEAK_ALLOCATED.fetch_max(now, Relaxed);
    }
}

/// Prints the line once, if any gradient noted its tape with
/// `PARC_AD_STATS` set (called when the program ends: `parc_rt_main`
/// returning, `parc_rt_exit`, or C's `exit` after a library's caller).
pub fn print() {
    if STATE.load(Relaxed) != ON || PRINTED.swap(1, Relaxed) != 0 {
        return;
    }
    eprintln!(
        "{}",
        line(
            PEAK_RECORDED.load(Relaxed),
            PEAK_ALLOCATED.load(Relaxed),
            TOTAL_RECORDED.load(Relaxed)
        )
    );
}

extern "C" fn print_at_exit() {
    print();
}
