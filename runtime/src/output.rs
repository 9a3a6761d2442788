//! The program's stdout: one buffer shared by every thread, and `exit`.
//!
//! Invariants:
//! - all program output (`parc_rt_printf`) goes through [`write()`], which
//!   appends one call's bytes under a lock, so the output of one `printf`
//!   is never interleaved with another's;
//! - the buffer is written to file descriptor 1 when it holds 64 KiB or
//!   more, at every newline when stdout is a terminal (as C's line
//!   buffering does), and by [`flush`]: at the end of `parc_rt_main`, at
//!   `parc_rt_exit`, `parc_rt_flush` and before any fault is reported;
//! - write errors (a closed pipe) drop the output silently, as a C program
//!   that ignores `printf`'s result would.

use std::sync::{Mutex, MutexGuard, OnceLock};

/// Bytes buffered before a write to fd 1.
const CAPACITY: usize = 64 << 10;

static BUF: Mutex<Vec<u8>> = Mutex::new(Vec::new());

fn line_buffered() -> bool {
    static TTY: OnceLock<bool> = OnceLock::new();
    // SAFETY: `isatty` only inspects the descriptor.
    *TTY.get_or_init(|| unsafe { libc::isatty(1) } == 1)
}

fn lock() -> MutexGuard<'static, Vec<u8>> {
    // A panic while holding the lock cannot leave the byte buffer
    // inconsistent, so poisoning is ignored.
    BUF.lock().unwrap_or_else(|e| e.into_inner())
}

/// Writes all of `bytes` to file descriptor `fd`, retrying on `EINTR` and
/// giving up on any other error.
fn write_fd(fd: i32, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: `bytes` is a valid slice for its whole length.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return;
        }
        bytes = &bytes[n as usize..];
    }
}

/// Appends `bytes` to the program's stdout.
pub fn write(bytes: &[u8]) {
    let mut buf = lock();
    buf.extend_from_slice(bytes);
    if buf.len() >= CAPACITY || (line_buffered() && bytes.contains(&b'\n')) {
        write_fd(1, &buf);
        buf.clear();
    }
}

/// Writes `bytes` to the program's file descriptor `fd`: 1 is the
/// buffered stdout ([`write()`]); any other is written at once (stderr,
/// which C does not buffer).
pub fn write_fd_of_program(fd: i32, bytes: &[u8]) {
    if fd == 1 {
        write(bytes);
    } else {
        write_fd(fd, bytes);
    }
}

/// Writes out everything buffered so far.
pub fn flush() {
    let mut buf = lock();
    if !buf.is_empty() {
        write_fd(1, &buf);
        buf.clear();
    }
}

/// Writes out the buffer if no thread holds its lock (for signal
/// handlers, which must not block).
pub(crate) fn try_flush() {
    let mut buf = match BUF.try_lock() {
        Ok(b) => b,
        Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
        Err(std::sync::TryLockError::WouldBlock) => return,
    };
    write_fd(1, &buf);
    buf.clear();
}

/// Flushes the program's stdout (and the C library's streams).
#[unsafe(no_mangle)]
pub extern "C" fn parc_rt_flush() {
    flush();
    // SAFETY: `fflush(NULL)` flushes every C stream.
    unsafe { libc::fflush(std::ptr::null_mut()) };
}

/// C's `fflush(stream)`: the program's stdout is the runtime's buffer
/// (stderr is not buffered); returns 0.
#[unsafe(no_mangle)]
pub extern "C" fn parc_rt_fflush(_stream: *const u8) -> i32 {
    flush();
    0
}

/// C's `exit(status)`: runs the `atexit` functions, flushes stdout and
/// ends the process with `status`.
/// Other workers are not waited for (`_exit`), as in a C program whose
/// threads are still running when one calls `exit`.
#[unsafe(no_mangle)]
pub extern "C" fn parc_rt_exit(status: i32) -> ! {
    crate::clib::run_at_exit();
    parc_rt_flush();
    crate::adstats::print();
    // SAFETY: `_exit` never returns and takes no pointers.
    unsafe { libc::_exit(status) }
}
