//! The rayon peer of table 4 (spawn cost): fib with `rayon::join` at every
//! level on 1- and 2-thread pools, and the serial Rust fib, timed in this
//! process.

use crate::WORKERS;
use crate::report;
use crate::report::median;
use std::time::Instant;

/// Rayon's fib with `join` at every level (the second closure may be
/// stolen: the analogue of a spawn).
fn fib_join(n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    let (a, b) = rayon_core::join(|| fib_join(n - 1), || fib_join(n - 2));
    a + b
}

fn fib_seq(n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    fib_seq(n - 1) + fib_seq(n - 2)
}

/// Median seconds of rayon fib(n) on a 1- and a 2-thread pool and of the
/// serial Rust fib, each timed in-process, `reps` times round-robin.
pub(crate) struct RayonTimes {
    pub(crate) join1: f64,
    pub(crate) join2: f64,
    pub(crate) serial: f64,
}

pub(crate) fn time_rayon(n: u32, reps: usize) -> Result<RayonTimes, String> {
    let pool = |threads| {
        rayon_core::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| format!("rayon pool: {e}"))
    };
    let (p1, p2) = (pool(1)?, pool(WORKERS)?);
    let expect = report::fib(n);
    let timed = |f: &dyn Fn() -> u64| -> Result<f64, String> {
        let start = Instant::now();
        let r = f();
        let secs = start.elapsed().as_secs_f64();
        if r != expect {
            return Err(format!("rayon fib({n}) = {r}, expected {expect}"));
        }
        Ok(secs)
    };
    let join1 = || p1.install(|| fib_join(std::hint::black_box(n)));
    let join2 = || p2.install(|| fib_join(std::hint::black_box(n)));
    let serial = || fib_seq(std::hint::black_box(n));
    // warm-up: start the pools' threads
    timed(&join1)?;
    timed(&join2)?;
    let (mut t1, mut t2, mut ts) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..reps {
        t1.push(timed(&join1)?);
        t2.push(timed(&join2)?);
        ts.push(timed(&serial)?);
    }
    eprintln!("parc-bench: rayon fib({n}) done");
    Ok(RayonTimes {
        join1: median(&t1).unwrap_or(f64::NAN),
        join2: median(&t2).unwrap_or(f64::NAN),
        serial: median(&ts).unwrap_or(f64::NAN),
    })
}
