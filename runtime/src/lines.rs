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
//!
//! A fault inside the runtime or the C library (a `printf` with a null
//! `%s`, an allocation that fails, a stack overflow in `printf` or in a
//! spawn) happens below a call from generated code; [`caller_site`] walks
//! the stack up to that call with the C++ unwinder (libgcc's
//! `_Unwind_Backtrace`, which the Rust standard library links anyway) and
//! names its position. The walk stops at the first frame of generated
//! code, before it would need unwind information for generated code.

use std::ffi::c_char;
use std::sync::atomic::{AtomicPtr, Ordering};

/// One entry of the compiler's table (`#[repr(C)]`, 40 bytes).
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
    /// The file's name, NUL-terminated; null for the program's own file.
    pub file: *const c_char,
}

/// A source position of generated code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeSite {
    pub name: *const c_char,
    pub line: u32,
    pub col: u32,
    /// Null for the program's own file.
    pub file: *const c_char,
}

struct Range {
    start: usize,
    end: usize,
    site: CodeSite,
    /// The code of a function before its first instruction with a
    /// position: alignment padding and the prologue (see
    /// [`prologue_return_address`]); `site` is that first instruction's.
    prologue: bool,
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
                file: e.file,
            },
            prologue: false,
        })
        .collect();
    ranges.sort_by_key(|r| r.start);
    // A function's entries are consecutive once sorted (its code is one
    // piece): the part before its first one is its prologue.
    let mut prologues = Vec::new();
    for e in entries {
        let func = e.func as usize;
        let first = ranges.partition_point(|r| r.start < func);
        if let Some(r) = ranges.get(first)
            && r.start > func
            && prologues.last().is_none_or(|p: &Range| p.start != func)
        {
            prologues.push(Range {
                start: func,
                end: r.start,
                site: r.site,
                prologue: true,
            });
        }
    }
    ranges.extend(prologues);
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
    (pc < r.end && !r.prologue).then_some(r.site)
}

/// True if `pc` is in the prologue of a function of generated code (or
/// the padding before it), where no instruction has a position of its
/// own. Async-signal-safe.
pub fn in_prologue(pc: usize) -> bool {
    let table = TABLE.load(Ordering::Acquire);
    if table.is_null() {
        return false;
    }
    // SAFETY: published once, never freed or changed afterwards.
    let ranges = unsafe { &*table };
    let i = ranges.partition_point(|r| r.start <= pc);
    i.checked_sub(1)
        .and_then(|i| ranges.get(i))
        .is_some_and(|r| pc < r.end && r.prologue)
}

/// The return address of a function of generated code stopped at `pc` in
/// its prologue (see [`in_prologue`]), with stack pointer `sp` and frame
/// pointer `fp`: where the call came from. Cranelift's x86-64 prologue is
/// `push rbp; mov rbp, rsp` and then the stack probes and the register
/// saves, so up to the `push` (byte `0x55`) the return address is at
/// `[sp]`, after it at `[fp + 8]`; a fault there is a stack overflow on
/// entry (the push or a probe). `None` elsewhere, or where the address
/// found is not a call in generated code.
///
/// # Safety
/// `pc`, `sp` and `fp` are the registers of a thread stopped in a
/// prologue of generated code (then `[sp]` and `[fp + 8]` are readable).
pub unsafe fn prologue_return_address(pc: usize, sp: usize, fp: usize) -> Option<usize> {
    if !cfg!(target_arch = "x86_64") || !in_prologue(pc) {
        return None;
    }
    // SAFETY: `pc` is in generated code, whose bytes are readable.
    let pushing_fp = unsafe { *(pc as *const u8) } == 0x55;
    let slot = if pushing_fp { sp } else { fp.checked_add(8)? };
    // SAFETY: the caller's promise about the stopped thread.
    let ret = unsafe { *(slot as *const usize) };
    site_of(ret.wrapping_sub(1)).map(|_| ret)
}

/// libgcc's unwinding context (opaque).
#[repr(C)]
struct UnwindContext {
    _opaque: [u8; 0],
}

/// `_URC_NO_REASON`: go on walking; `_URC_END_OF_STACK`: stop.
const URC_NO_REASON: i32 = 0;
const URC_END_OF_STACK: i32 = 5;

unsafe extern "C" {
    fn _Unwind_Backtrace(
        trace: extern "C" fn(*mut UnwindContext, *mut std::ffi::c_void) -> i32,
        arg: *mut std::ffi::c_void,
    ) -> i32;
    fn _Unwind_GetIPInfo(context: *mut UnwindContext, ip_before_insn: *mut i32) -> usize;
}

/// Runs the unwinder once (one frame), so that its calls into the dynamic
/// loader are bound before a signal handler needs it.
pub fn prepare_unwinder() {
    extern "C" fn stop(_: *mut UnwindContext, _: *mut std::ffi::c_void) -> i32 {
        URC_END_OF_STACK
    }
    // SAFETY: `stop` touches nothing.
    unsafe { _Unwind_Backtrace(stop, std::ptr::null_mut()) };
}

/// The position of the innermost frame of generated code on this thread's
/// stack, found by unwinding from the caller (through a signal frame too):
/// the call that was running when the runtime or the C library faulted.
/// `None` where no frame of generated code with a known position is on
/// the stack. Allocates nothing; safe to call from a signal handler that
/// is about to end the process (the unwinder reads the loaded objects'
/// tables under the loader's lock, which the faulting thread does not
/// hold outside `dlopen`).
pub fn caller_site() -> Option<CodeSite> {
    extern "C" fn visit(context: *mut UnwindContext, found: *mut std::ffi::c_void) -> i32 {
        let mut before = 0;
        // SAFETY: the unwinder passes a valid context to its callback.
        let ip = unsafe { _Unwind_GetIPInfo(context, &mut before) };
        // A return address points after its call: look up the call.
        let pc = if before == 0 { ip.wrapping_sub(1) } else { ip };
        match site_of(pc) {
            Some(site) => {
                // SAFETY: `found` is the `Option<CodeSite>` below.
                unsafe { *found.cast::<Option<CodeSite>>() = Some(site) };
                URC_END_OF_STACK
            }
            None => URC_NO_REASON,
        }
    }
    if TABLE.load(Ordering::Acquire).is_null() {
        return None;
    }
    let mut found: Option<CodeSite> = None;
    // SAFETY: `visit` only writes through the pointer it is given, which
    // points to `found` for the duration of the call.
    unsafe { _Unwind_Backtrace(visit, (&raw mut found).cast()) };
    found
}
