//! Idle workers stop using the CPU: they keep looking for work for
//! `STAY_AWAKE` (so that the next parallel region finds them running),
//! then sleep. A test of its own, so that no other test's threads run in
//! this process while it reads the process's CPU time.

use parc_runtime::parfor::parc_rt_parallel_for;
use parc_runtime::pool::STAY_AWAKE;
use parc_runtime::with_workers;
use std::time::Duration;

/// User plus system CPU time of this process so far.
fn cpu_time() -> Duration {
    // SAFETY: `getrusage` fills the zeroed struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    assert_eq!(rc, 0, "getrusage failed");
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

extern "C" fn touch(_ctx: *mut u8, _start: i64, _end: i64) {}

#[test]
fn an_idle_worker_sleeps_after_staying_awake() {
    let idle = Duration::from_millis(400);
    let used = with_workers(2, || {
        // Work for both workers, then none for `idle`: the second worker
        // looks for some, then sleeps.
        // SAFETY: `touch` ignores its context.
        unsafe { parc_rt_parallel_for(0, 1 << 16, 1, touch, std::ptr::null_mut()) };
        let before = cpu_time();
        std::thread::sleep(idle);
        cpu_time() - before
    });
    // Awake: at most `STAY_AWAKE` of spinning; asleep: a wake-up every
    // `SLEEP_TIMEOUT_MS` to look again. A worker that never slept would
    // have used about all of `idle`.
    let bound = STAY_AWAKE * 4 + Duration::from_millis(60);
    assert!(bound < idle / 2, "the test needs a longer idle time");
    assert!(
        used < bound,
        "the idle worker used {used:?} of CPU in {idle:?} (bound {bound:?})"
    );
}
