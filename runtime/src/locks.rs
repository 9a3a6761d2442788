//! OpenMP's locks (`omp_set_lock` and the rest) and `#pragma omp critical`
//! sections.
//!
//! A lock is one 8-byte word, 0 when unset and 1 when set (parc's
//! `omp_lock_t`). Setting it is a compare-and-swap from 0 to 1; a thread
//! that finds it set spins a little, then yields its OS thread between
//! tries, so that the worker holding the lock (which may share a core)
//! gets to run and unset it. A waiting worker does not steal other work:
//! the work it would take could wait for the same lock, under the frame
//! that waits, and never return.
//!
//! A nestable lock (`omp_nest_lock_t`) is two 8-byte words: the thread
//! that holds it (a number of the OS thread, from 1; 0 when unset) and
//! how many times that thread has set it. The owner's word is taken by
//! compare-and-swap as a plain lock's; the count is only touched by the
//! owner. "Thread" is the worker: a worker that waits at a `sync` while
//! holding the lock and steals work that sets it enters it again (the
//! limit below).
//!
//! A `critical` section is a lock per name, made at its first use and
//! kept for the program's life; the front end passes a 64-bit hash of
//! the name (0 for the unnamed section).
//!
//! Known limit: a section whose code waits at a `sync` (a parallel loop
//! inside it, or a call to a function with one) lets its worker steal
//! work meanwhile; if that work enters the same section, it waits for a
//! lock its own worker holds. The front end refuses parallel constructs
//! written inside a `critical` section; calls it cannot see through.

use crate::fault;
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Mutex, OnceLock};

/// Tries before a waiting thread starts yielding its OS thread.
const SPINS: u32 = 64;

fn word<'a>(p: *mut i64, what: &str) -> &'a AtomicI64 {
    if p.is_null() || !(p as usize).is_multiple_of(align_of::<i64>()) {
        fault::die(&format!(
            "{what} on {} pointer {p:p}",
            if p.is_null() {
                "a null"
            } else {
                "a misaligned"
            }
        ));
    }
    // SAFETY: non-null and aligned (checked above); the program passes a
    // pointer to its `omp_lock_t`, which only these functions touch
    // while threads share it.
    unsafe { AtomicI64::from_ptr(p) }
}

/// Takes the lock word `w` (0: unset) for `holder` if it is unset.
fn try_take(w: &AtomicI64, holder: i64) -> bool {
    w.compare_exchange(0, holder, Ordering::Acquire, Ordering::Relaxed)
        .is_ok()
}

fn try_set(w: &AtomicI64) -> bool {
    try_take(w, 1)
}

fn set(w: &AtomicI64) {
    take(w, 1);
}

/// Waits until the lock word `w` is unset, and takes it for `holder`.
fn take(w: &AtomicI64, holder: i64) {
    let mut tries = 0u32;
    while !try_take(w, holder) {
        // Wait for the word to read 0 before trying again, without
        // writing (the line stays shared among the waiters).
        while w.load(Ordering::Relaxed) != 0 {
            if tries < SPINS {
                tries += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// `omp_init_lock`: the lock unset.
///
/// # Safety
/// `p` points to an 8-byte `omp_lock_t` no thread is using.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_omp_init_lock(p: *mut i64) {
    word(p, "omp_init_lock").store(0, Ordering::Release);
}

/// `omp_destroy_lock`: the lock unset (parc's locks own nothing).
///
/// # Safety
/// As [`parc_rt_omp_init_lock`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_omp_destroy_lock(p: *mut i64) {
    word(p, "omp_destroy_lock").store(0, Ordering::Release);
}

/// `omp_set_lock`: waits until the lock is unset, and sets it.
///
/// # Safety
/// `p` points to an initialized `omp_lock_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_omp_set_lock(p: *mut i64) {
    set(word(p, "omp_set_lock"));
}

/// `omp_unset_lock`.
///
/// # Safety
/// `p` points to an `omp_lock_t` this thread set.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_omp_unset_lock(p: *mut i64) {
    word(p, "omp_unset_lock").store(0, Ordering::Release);
}

/// `omp_test_lock`: sets the lock and returns 1 if it was unset, else 0.
///
/// # Safety
/// `p` points to an initialized `omp_lock_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_omp_test_lock(p: *mut i64) -> i32 {
    i32::from(try_set(word(p, "omp_test_lock")))
}

/// This OS thread's number for nestable locks: 1, 2, ... in the order
/// threads first ask.
fn thread_number() -> i64 {
    static NEXT: AtomicI64 = AtomicI64::new(1);
    thread_local! {
        static NUMBER: i64 = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    NUMBER.with(|n| *n)
}

/// The owner and count words of the nestable lock at `p`.
fn nest_words<'a>(p: *mut i64, what: &str) -> (&'a AtomicI64, &'a AtomicI64) {
    let owner = word(p, what);
    // SAFETY: `p` is a valid, aligned `omp_nest_lock_t` (checked by
    // `word`), two words long.
    let count = word(unsafe { p.add(1) }, what);
    (owner, count)
}

/// Sets the nestable lock `(owner, count)` if it is unset or this thread
/// holds it (`wait`: waiting while another does); the new count, or 0.
fn nest_set(owner: &AtomicI64, count: &AtomicI64, wait: bool) -> i32 {
    let me = thread_number();
    if owner.load(Ordering::Relaxed) != me {
        if wait {
            take(owner, me);
        } else if !try_take(owner, me) {
            return 0;
        }
    }
    let n = count.load(Ordering::Relaxed) + 1;
    count.store(n, Ordering::Relaxed);
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// `omp_init_nest_lock`: the nestable lock unset.
///
/// # Safety
/// `p` points to a 16-byte `omp_nest_lock_t` no thread is using.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_omp_init_nest_lock(p: *mut i64) {
    let (owner, count) = nest_words(p, "omp_init_nest_lock");
    count.store(0, Ordering::Relaxed);
    owner.store(0, Ordering::Release);
}

/// `omp_destroy_nest_lock`: the nestable lock unset.
///
/// # Safety
/// As [`parc_rt_omp_init_nest_lock`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_omp_destroy_nest_lock(p: *mut i64) {
    let (owner, count) = nest_words(p, "omp_destroy_nest_lock");
    count.store(0, Ordering::Relaxed);
    owner.store(0, Ordering::Release);
}

/// `omp_set_nest_lock`: sets the lock once more if this thread holds
/// it, else waits until it is unset and sets it.
///
/// # Safety
/// `p` points to an initialized `omp_nest_lock_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_omp_set_nest_lock(p: *mut i64) {
    let (owner, count) = nest_words(p, "omp_set_nest_lock");
    nest_set(owner, count, true);
}

/// `omp_test_nest_lock`: as `omp_set_nest_lock` without waiting; the new
/// count, or 0 if another thread holds the lock.
///
/// # Safety
/// `p` points to an initialized `omp_nest_lock_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_omp_test_nest_lock(p: *mut i64) -> i32 {
    let (owner, count) = nest_words(p, "omp_test_nest_lock");
    nest_set(owner, count, false)
}

/// `omp_unset_nest_lock`: unsets the lock once; the last unset releases
/// it. Unsetting a lock this thread does not hold is a fault (OpenMP
/// leaves it undefined).
///
/// # Safety
/// `p` points to an initialized `omp_nest_lock_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_omp_unset_nest_lock(p: *mut i64) {
    let (owner, count) = nest_words(p, "omp_unset_nest_lock");
    if owner.load(Ordering::Relaxed) != thread_number() {
        fault::die("omp_unset_nest_lock: the nestable lock is not set by this thread");
    }
    let n = count.load(Ordering::Relaxed) - 1;
    count.store(n, Ordering::Relaxed);
    if n == 0 {
        owner.store(0, Ordering::Release);
    }
}

/// The lock of the `critical` sections named `name` (hashed).
fn critical(name: i64) -> &'static AtomicI64 {
    static UNNAMED: AtomicI64 = AtomicI64::new(0);
    static NAMED: OnceLock<Mutex<HashMap<i64, &'static AtomicI64>>> = OnceLock::new();
    if name == 0 {
        return &UNNAMED;
    }
    let mut named = NAMED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    named
        .entry(name)
        .or_insert_with(|| Box::leak(Box::new(AtomicI64::new(0))))
}

/// Enters the `critical` sections named `name` (0: unnamed).
#[unsafe(no_mangle)]
pub extern "C" fn parc_rt_critical_begin(name: i64) {
    set(critical(name));
}

/// Leaves them.
#[unsafe(no_mangle)]
pub extern "C" fn parc_rt_critical_end(name: i64) {
    critical(name).store(0, Ordering::Release);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_critical_section_excludes_other_threads() {
        // A non-atomic read-modify-write under the lock: without it,
        // increments would be lost.
        static COUNT: AtomicI64 = AtomicI64::new(0);
        let threads: Vec<_> = (0..4)
            .map(|_| {
                std::thread::spawn(|| {
                    for _ in 0..10_000 {
                        parc_rt_critical_begin(7);
                        let v = COUNT.load(Ordering::Relaxed);
                        std::hint::black_box(());
                        COUNT.store(v + 1, Ordering::Relaxed);
                        parc_rt_critical_end(7);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(COUNT.load(Ordering::Relaxed), 40_000);
    }

    #[test]
    fn a_nestable_lock_is_set_again_by_its_owner_only() {
        let mut l = [7i64, 7];
        let p = l.as_mut_ptr() as usize;
        unsafe {
            parc_rt_omp_init_nest_lock(p as *mut i64);
            assert_eq!(parc_rt_omp_test_nest_lock(p as *mut i64), 1);
            parc_rt_omp_set_nest_lock(p as *mut i64);
            assert_eq!(parc_rt_omp_test_nest_lock(p as *mut i64), 3);
            let other = std::thread::spawn(move || parc_rt_omp_test_nest_lock(p as *mut i64));
            assert_eq!(other.join().unwrap(), 0);
            for _ in 0..3 {
                parc_rt_omp_unset_nest_lock(p as *mut i64);
            }
            let other = std::thread::spawn(move || {
                let n = parc_rt_omp_test_nest_lock(p as *mut i64);
                parc_rt_omp_unset_nest_lock(p as *mut i64);
                n
            });
            assert_eq!(other.join().unwrap(), 1);
            parc_rt_omp_destroy_nest_lock(p as *mut i64);
        }
        assert_eq!(l, [0, 0]);
    }

    #[test]
    fn test_lock_fails_while_set() {
        let mut l = 5i64;
        unsafe {
            parc_rt_omp_init_lock(&mut l);
            assert_eq!(parc_rt_omp_test_lock(&mut l), 1);
            assert_eq!(parc_rt_omp_test_lock(&mut l), 0);
            parc_rt_omp_unset_lock(&mut l);
            parc_rt_omp_set_lock(&mut l);
            assert_eq!(parc_rt_omp_test_lock(&mut l), 0);
            parc_rt_omp_unset_lock(&mut l);
            parc_rt_omp_destroy_lock(&mut l);
        }
    }
}
