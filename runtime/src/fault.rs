//! Run-time errors: the one way a ParC program stops abnormally.
//!
//! Every fault, whether generated code detected it (`parc_rt_fault`) or the
//! runtime did (a bad launch configuration, an allocation that cannot be
//! satisfied, barrier divergence, a panic inside the runtime), ends in
//! [`die`]:
//!
//! 1. the first thread to fault wins; any other thread that faults at the
//!    same time parks forever (the process is about to end);
//! 2. the program's buffered stdout is flushed (see [`crate::output`]), then
//!    the C library's `FILE` buffers (`fflush(NULL)`);
//! 3. one line goes to stderr:
//!    `run-time error in function `f` at line 12:5: integer division by zero`
//!    (the reference interpreter's `RunError` format; the function and the
//!    position are left out when unknown);
//! 4. the process ends with `_exit(1)`: no destructors, no `atexit`
//!    handlers, so other workers still running cannot observe a half
//!    torn-down process.
//!
//! A fault therefore never hangs and never unwinds through generated code.
//!
//! # Fault kinds (`parc_rt_fault`'s `kind`)
//!
//! | kind | constant | message |
//! |---|---|---|
//! | 0 | [`FAULT_DIV_ZERO`] | `integer division by zero` (also `%` by zero) |
//! | 1 | [`FAULT_UNREACHABLE`] | `control reached end of non-void function` |
//! | 2 | [`FAULT_LAUNCH`] | `invalid launch configuration` |
//! | 3 | [`FAULT_OOM`] | `out of memory` |
//! | 4 | [`FAULT_BARRIER`] | `barrier divergence` |
//! | other | — | `unknown run-time error (kind N)` |
//!
//! `parc_rt_fault_msg` takes the message text itself, for faults this table
//! does not name.

use std::any::Any;
use std::ffi::{CStr, c_char};
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};

/// Integer division or remainder by zero.
pub const FAULT_DIV_ZERO: i32 = 0;
/// Control reached an `unreachable` terminator: the end of a non-void
/// function without a `return`.
pub const FAULT_UNREACHABLE: i32 = 1;
/// A kernel launch with a grid or block dimension below 1, or more than
/// 1024 threads per block.
pub const FAULT_LAUNCH: i32 = 2;
/// An allocation failed.
pub const FAULT_OOM: i32 = 3;
/// Some threads of a block finished while others wait at a barrier, or
/// (detected by block functions) threads wait at different barriers.
pub const FAULT_BARRIER: i32 = 4;

/// The message of a fault kind (see the module doc's table).
pub fn kind_message(kind: i32) -> String {
    match kind {
        FAULT_DIV_ZERO => "integer division by zero".into(),
        FAULT_UNREACHABLE => "control reached end of non-void function".into(),
        FAULT_LAUNCH => "invalid launch configuration".into(),
        FAULT_OOM => "out of memory".into(),
        FAULT_BARRIER => "barrier divergence".into(),
        k => format!("unknown run-time error (kind {k})"),
    }
}

/// Where a fault happened, as far as it is known.
#[derive(Clone, Copy, Debug, Default)]
pub struct Site<'a> {
    /// The source-level function name, if known.
    pub func: Option<&'a str>,
    /// 1-based line; 0 or less when unknown.
    pub line: i32,
    /// 1-based column; 0 or less when unknown.
    pub col: i32,
    /// The file, when it is not the program's own (a header, another file
    /// of the program).
    pub file: Option<&'a str>,
}

/// The full one-line report, without the newline.
pub fn report(site: Site<'_>, message: &str) -> String {
    let mut s = String::from("run-time error");
    if let Some(f) = site.func.filter(|f| !f.is_empty()) {
        s.push_str(&format!(" in function `{f}`"));
    }
    if site.line > 0 {
        if site.col > 0 {
            s.push_str(&format!(" at line {}:{}", site.line, site.col));
        } else {
            s.push_str(&format!(" at line {}", site.line));
        }
        if let Some(file) = site.file.filter(|f| !f.is_empty()) {
            s.push_str(&format!(" of {file}"));
        }
    }
    s.push_str(": ");
    s.push_str(message);
    s
}

static DYING: AtomicBool = AtomicBool::new(false);

/// Reports a run-time error found by the runtime (not at a site generated
/// code names) and ends the process with status 1: at the position of the
/// call from generated code that led here, where there is one (see
/// [`crate::lines::caller_site`]). See the module doc for the exact
/// sequence.
pub fn die(message: &str) -> ! {
    let Some(site) = crate::lines::caller_site() else {
        die_at(Site::default(), message)
    };
    // SAFETY: the compiler's table names functions and files with
    // NUL-terminated strings that live as long as the program.
    let text =
        |p: *const c_char| (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy());
    let (name, file) = (text(site.name), text(site.file));
    let at = Site {
        func: name.as_deref(),
        line: i32::try_from(site.line).unwrap_or(0),
        col: i32::try_from(site.col).unwrap_or(0),
        file: file.as_deref(),
    };
    die_at(at, message)
}

/// Reports a run-time error at `site` and ends the process with status 1.
pub fn die_at(site: Site<'_>, message: &str) -> ! {
    let line = report(site, message);
    die_raw(&line)
}

/// Prints `line` (the whole report) and ends the process with status 1.
fn die_raw(line: &str) -> ! {
    if DYING.swap(true, Ordering::SeqCst) {
        // Another thread is already reporting a fault and will end the
        // process; reporting a second one would interleave the messages.
        loop {
            std::thread::park();
        }
    }
    crate::output::flush();
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(line.as_bytes());
    let _ = err.write_all(b"\n");
    let _ = err.flush();
    // SAFETY: `fflush(NULL)` flushes every C stream and is always valid to
    // call; `_exit` never returns and takes no pointers.
    unsafe {
        libc::fflush(std::ptr::null_mut());
        libc::_exit(1)
    }
}

/// The end of a fault detected by a signal handler: like [`die`], but
/// async-signal-safe (no allocation, no blocking lock, no C stdio).
/// `site` is ` in function `f` at line L:C` when the faulting instruction
/// is generated code with a known position (see [`crate::lines`]), else
/// empty, and then a note says where to find the position.
pub(crate) fn die_in_signal_handler(site: &[u8], message: &[u8]) -> ! {
    if DYING.swap(true, Ordering::SeqCst) {
        loop {
            // SAFETY: `pause` only waits for a signal.
            unsafe { libc::pause() };
        }
    }
    crate::output::try_flush();
    // A fault outside generated code (in the C library, say) has no
    // position; the interpreter checks every access and reports the line.
    let note: &[u8] = if site.is_empty() {
        b"note: the machine code there does not know its source line; \
        `parc run --interp` runs the program checked and reports where\n"
    } else {
        b""
    };
    for part in [&b"run-time error"[..], site, b": ", message, b"\n", note] {
        // SAFETY: writes a valid slice to stderr.
        unsafe { libc::write(2, part.as_ptr().cast(), part.len()) };
    }
    // SAFETY: `_exit` is async-signal-safe and never returns.
    unsafe { libc::_exit(1) }
}

/// The text of a panic payload.
fn panic_text(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a non-string payload".to_string()
    }
}

/// Ends the process for a panic caught at a task or entry-point boundary.
pub fn die_panic(what: &str, payload: Box<dyn Any + Send>) -> ! {
    die(&format!(
        "internal error in the runtime ({what}): {}",
        panic_text(&*payload)
    ))
}

/// Runs `f`, turning a panic into a fault (exit status 1) instead of the
/// abort that unwinding out of an `extern "C"` function would cause.
#[inline]
pub fn guard<R>(what: &str, f: impl FnOnce() -> R) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => die_panic(what, p),
    }
}

/// A C string argument as UTF-8 (lossy), `None` when null.
///
/// # Safety
/// `p` is null or points to a NUL-terminated string.
pub(crate) unsafe fn c_str<'a>(p: *const c_char) -> Option<std::borrow::Cow<'a, str>> {
    if p.is_null() {
        None
    } else {
        // SAFETY: the caller guarantees a NUL-terminated string.
        Some(unsafe { CStr::from_ptr(p) }.to_string_lossy())
    }
}

/// Reports fault `kind` (see the module doc's table) in function `func` at
/// `line:col`, flushes stdout and ends the process with status 1.
///
/// # Safety
/// `func` is null or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_fault(
    kind: i32,
    func: *const c_char,
    line: i32,
    col: i32,
    file: *const c_char,
) -> ! {
    // SAFETY: forwarded from the caller.
    let (func, file) = unsafe { (c_str(func), c_str(file)) };
    let site = Site {
        func: func.as_deref(),
        line,
        col,
        file: file.as_deref(),
    };
    die_at(site, &kind_message(kind))
}

/// Like [`parc_rt_fault`] with the message text given: `msg` replaces the
/// kind's message (null `msg`: "unknown run-time error").
///
/// # Safety
/// `msg` and `func` are null or NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_fault_msg(
    msg: *const c_char,
    func: *const c_char,
    line: i32,
    col: i32,
    file: *const c_char,
) -> ! {
    // SAFETY: forwarded from the caller.
    let (msg, func, file) = unsafe { (c_str(msg), c_str(func), c_str(file)) };
    let site = Site {
        func: func.as_deref(),
        line,
        col,
        file: file.as_deref(),
    };
    die_at(site, msg.as_deref().unwrap_or("unknown run-time error"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_format() {
        let site = Site {
            func: Some("f"),
            line: 12,
            col: 5,
            file: None,
        };
        assert_eq!(
            report(site, &kind_message(FAULT_DIV_ZERO)),
            "run-time error in function `f` at line 12:5: integer division by zero"
        );
        assert_eq!(
            report(Site::default(), "out of memory"),
            "run-time error: out of memory"
        );
        let no_col = Site {
            func: None,
            line: 3,
            col: 0,
            file: None,
        };
        assert_eq!(report(no_col, "x"), "run-time error at line 3: x");
        let header = Site {
            file: Some("util.h"),
            ..site
        };
        assert_eq!(
            report(header, "x"),
            "run-time error in function `f` at line 12:5 of util.h: x"
        );
        assert_eq!(kind_message(9), "unknown run-time error (kind 9)");
    }
}
