//! Where generated code came from: a map from machine-code addresses to
//! source positions, so that a fault a signal reports (a null pointer, a
//! wild access) names the function and line the way other run-time errors
//! do.
//!
//! The compiler emits one table per program (`parc_rt_set_lines`'s
//! argument, [`LineEntry`]s: a function's address, a range of offsets in
//! its code and the source position of the instructions there), and the
//! program's entry registers it before `main` runs. The runtime copies it
//! into a sorted array of absolute ranges, published once through an
//! atomic pointer and never freed, so the signal handler can search it
//! without locking or allocating.

use std::ffi::c_char;
use std::sync::atomic::{AtomicPtr, Ordering};

/// One entry of the compiler's table (`#[repr(C)]`, 32 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LineEntry {
    /// The function's first byte of code.
    pub func: *const u8,
    /// `[start, end)`: offsets of the instructions in `func`'s code.
    pub start: u32,
    pub end: u32,
    /// The source function's name, NUL-terminated.
    pub name: *const c_char,
    pub line: u32,
    pub col: u32,
}

/// A source position of generated code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeSite {
    pub name: *const c_char,
    pub line: u32,
    pub col: u32,
}

struct Range {
    start: usize,
    end: usize,
    site: CodeSite,
}

static TABLE: AtomicPtr<Vec<Range>> = AtomicPtr::new(std::ptr::null_mut());

/// The compiler's table that `TABLE` was made from.
static SOURCE: AtomicPtr<LineEntry> = AtomicPtr::new(std::ptr::null_mut());

/// Registers the program's table (`count` entries at `entries`), which
/// replaces any earlier one (one program per process is the rule; the JIT
/// of a test harness runs several, one after another, whose tables may
/// reuse an address).
///
/// # Safety
/// `entries` points to `count` valid entries whose names are
/// NUL-terminated strings that live as long as the process.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_set_lines(entries: *const LineEntry, count: i64) {
    SOURCE.store(entries.cast_mut(), Ordering::Release);
    let entries: &[LineEntry] = if entries.is_null() || count <= 0 {
        &[]
    } else {
        // SAFETY: the caller's promise.
        unsafe { std::slice::from_raw_parts(entries, count as usize) }
    };
    let mut ranges: Vec<Range> = entries
        .iter()
        .map(|e| Range {
            start: e.func as usize + e.start as usize,
            end: e.func as usize + e.end as usize,
            site: CodeSite {
                name: e.name,
                line: e.line,
                col: e.col,
            },
        })
        .collect();
    ranges.sort_by_key(|r| r.start);
    // The old table is leaked, not freed: a signal handler on another
    // thread may be reading it.
    TABLE.store(Box::into_raw(Box::new(ranges)), Ordering::Release);
}

/// [`parc_rt_set_lines`] unless that table is the one registered: a
/// library calls it at every call that enters the worker pool.
///
/// # Safety
/// As for [`parc_rt_set_lines`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_set_lines_once(entries: *const LineEntry, count: i64) {
    if SOURCE.load(Ordering::Acquire) != entries.cast_mut() {
        // SAFETY: the caller's promise.
        unsafe { parc_rt_set_lines(entries, count) };
    }
}

/// The source position of the instruction at `pc`, if generated code with
/// a known position is there. Async-signal-safe: no locks, no allocation.
pub fn site_of(pc: usize) -> Option<CodeSite> {
    let table = TABLE.load(Ordering::Acquire);
    if table.is_null() {
        return None;
    }
    // SAFETY: published once, never freed or changed afterwards.
    let ranges = unsafe { &*table };
    let i = ranges.partition_point(|r| r.start <= pc);
    let r = ranges.get(i.checked_sub(1)?)?;
    (pc < r.end).then_some(r.site)
}
