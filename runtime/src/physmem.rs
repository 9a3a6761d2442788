//! The machine's physical memory, which the default tape budget of a
//! gradient is a fraction of (`--tape-budget`; the AD calls
//! [`parc_rt_phys_mem`] when a checkpointable loop starts).
//!
//! `PARC_PHYS_MEM=BYTES` overrides it: a testing aid, so that a test can
//! make the default budget small enough to checkpoint a small program.

/// The physical memory in bytes: `PARC_PHYS_MEM` if it is a number, else
/// `sysconf`'s physical pages times the page size; 0 if unknown.
#[unsafe(no_mangle)]
// `c_long` is narrower than i64 on 32-bit targets: the casts stay.
#[allow(clippy::unnecessary_cast)]
pub extern "C" fn parc_rt_phys_mem() -> i64 {
    if let Some(n) = std::env::var("PARC_PHYS_MEM")
        .ok()
        .and_then(|v| v.trim().parse::<i64>().ok())
    {
        return n.max(0);
    }
    // SAFETY: sysconf only reads the system's configuration.
    let (pages, size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    if pages <= 0 || size <= 0 {
        return 0;
    }
    (pages as i64).saturating_mul(size as i64)
}
