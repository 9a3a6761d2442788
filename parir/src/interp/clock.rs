//! `<time.h>` and `<sys/time.h>` for the interpreter: the host's clocks,
//! read by the host C library as native code reads them, with what they
//! write stored in checked memory. `clock()` is the CPU time of the
//! process, that is of the interpreter running the program.

use super::Fault;
use super::memory::Memory;
use crate::types::Type;

unsafe extern "C" {
    /// C's `clock` (the `libc` crate does not declare it).
    #[link_name = "clock"]
    fn c_clock() -> libc::c_long;
}

/// `clock()`: CPU time in `CLOCKS_PER_SEC` (10^6) units.
pub(crate) fn clock() -> i64 {
    // SAFETY: no arguments; reads the process's CPU time.
    unsafe { c_clock() }
}

/// `time(t)`: seconds since the epoch, also stored at `t` unless null.
pub(crate) fn time(mem: &mut Memory, t: u64) -> Result<i64, Fault> {
    // SAFETY: a null argument asks for the value only.
    let now = unsafe { libc::time(std::ptr::null_mut()) };
    if t != 0 {
        mem.store(t, Type::I64, now as u64)?;
    }
    Ok(now)
}

/// Stores a `struct timeval` or `struct timespec` (two `long`s) at `at`.
fn store_pair(mem: &mut Memory, at: u64, sec: i64, frac: i64) -> Result<(), Fault> {
    mem.store(at, Type::I64, sec as u64)?;
    mem.store(at.wrapping_add(8), Type::I64, frac as u64)?;
    Ok(())
}

/// `gettimeofday(tv, tz)`: the time of day at `tv` (unless null); an
/// obsolete `struct timezone` at `tz` (two `int`s) reads as zeros, as
/// glibc leaves it.
pub(crate) fn gettimeofday(mem: &mut Memory, tv: u64, tz: u64) -> Result<i32, Fault> {
    let mut now = libc::timeval {
        tv_sec: 0,
        tv_usec: 0,
    };
    // SAFETY: `now` is a valid timeval; no time zone is asked for.
    let r = unsafe { libc::gettimeofday(&mut now, std::ptr::null_mut()) };
    if tv != 0 {
        store_pair(mem, tv, now.tv_sec, now.tv_usec)?;
    }
    if tz != 0 {
        mem.store(tz, Type::I64, 0)?;
    }
    Ok(r)
}

/// `clock_gettime(clock, ts)`: the host's answer for the same clock id
/// (Linux's numbering: `CLOCK_REALTIME` 0, `CLOCK_MONOTONIC` 1, ...); -1
/// for a clock the host does not have, `ts` then untouched.
pub(crate) fn clock_gettime(mem: &mut Memory, clock: i32, ts: u64) -> Result<i32, Fault> {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec.
    let r = unsafe { libc::clock_gettime(clock, &mut now) };
    if r == 0 {
        store_pair(mem, ts, now.tv_sec, now.tv_nsec)?;
    }
    Ok(r)
}
