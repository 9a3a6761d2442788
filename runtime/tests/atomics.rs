//! Atomic additions under contention sum exactly (integers) and lose no
//! update (floating point, with exactly representable values).

use parc_runtime::atomics::*;
use parc_runtime::parfor::parc_rt_parallel_for;
use parc_runtime::with_workers;

#[repr(C)]
struct Targets {
    i32: i32,
    i64: i64,
    f32: f32,
    f64: f64,
}

extern "C" fn add_body(ctx: *mut u8, start: i64, end: i64) {
    let t = ctx as *mut Targets;
    for i in start..end {
        // SAFETY: the fields are aligned and only accessed atomically here.
        unsafe {
            parc_rt_atomic_add_i32(&raw mut (*t).i32, 1);
            parc_rt_atomic_add_i64(&raw mut (*t).i64, i);
            parc_rt_atomic_add_f32(&raw mut (*t).f32, 1.0);
            parc_rt_atomic_add_f64(&raw mut (*t).f64, 0.5);
        }
    }
}

#[test]
fn contended_sums_are_exact() {
    for workers in [1, 2, 8] {
        let mut t = Targets {
            i32: 0,
            i64: 0,
            f32: 0.0,
            f64: 0.0,
        };
        let p = &raw mut t as usize;
        let n = 1_000_000i64;
        with_workers(workers, move || {
            // SAFETY: the body adds atomically; `t` outlives the loop.
            unsafe { parc_rt_parallel_for(0, n, 1, add_body, p as *mut u8) };
        });
        assert_eq!(t.i32, n as i32);
        assert_eq!(t.i64, n * (n - 1) / 2);
        assert_eq!(t.f32, n as f32); // every partial sum is exact below 2^24
        assert_eq!(t.f64, n as f64 / 2.0);
    }
}

#[test]
fn returns_the_old_value_and_wraps() {
    let mut a = i32::MAX;
    let mut b = 5i64;
    let mut c = 1.5f32;
    let mut d = -2.0f64;
    // SAFETY: plain aligned locals.
    unsafe {
        assert_eq!(parc_rt_atomic_add_i32(&mut a, 1), i32::MAX);
        assert_eq!(parc_rt_atomic_add_i64(&mut b, -7), 5);
        assert_eq!(parc_rt_atomic_add_f32(&mut c, 1.0), 1.5);
        assert_eq!(parc_rt_atomic_add_f64(&mut d, 0.25), -2.0);
    }
    assert_eq!((a, b, c, d), (i32::MIN, -2, 2.5, -1.75));
}
