//! C's files (`fopen fclose fread fwrite fgets feof ferror fseek ftell
//! rewind fgetc ungetc`, and `fprintf` to a file) on the C library's
//! streams.
//!
//! A ParC `FILE` is parc's `<stdio.h>` struct: the file descriptor, then
//! the C library's stream (`FILE *` of glibc) that does the buffering.
//! The standard streams are the addresses fd + 1 and have no struct: their
//! output is the runtime's stdout buffer ([`crate::output`], shared with
//! `printf`) or stderr written at once, and `stdin` reads the C library's
//! `stdin`. Files still open when the program ends are flushed by the C
//! library's exit (`parc_rt_exit` and the end of `main` flush them too).
//!
//! A stream that is null, or was closed, is a fault: C leaves it
//! undefined.

use crate::fault;
use std::ffi::{c_char, c_int, c_void};

/// parc's `FILE` (see `lang/include/stdio.h`).
#[repr(C)]
pub struct File {
    pub fd: c_int,
    pub stream: *mut libc::FILE,
}

unsafe extern "C" {
    /// The C library's standard input stream.
    static mut stdin: *mut libc::FILE;
}

/// A stream argument: one of the standard ones (fd 0, 1, 2) or a file.
enum Stream {
    Standard(c_int),
    File(*mut File),
}

/// The stream `f` names; null is a fault of `func`.
fn stream(f: *mut File, func: &str) -> Stream {
    match f as usize {
        0 => fault::die(&format!("{func}: the stream is a null pointer")),
        1..=3 => Stream::Standard(f as c_int - 1),
        _ => Stream::File(f),
    }
}

/// The C library's stream of file `f`; a closed one is a fault.
///
/// # Safety
/// `f` points to a `File` that `parc_rt_fopen` made.
unsafe fn c_stream(f: *mut File, func: &str) -> *mut libc::FILE {
    // SAFETY: the caller's contract.
    let s = unsafe { (*f).stream };
    if s.is_null() {
        fault::die(&format!(
            "{func}: the stream is not open (closed, or not made by `fopen`)"
        ));
    }
    s
}

/// `fopen(path, mode)`: a new `FILE`, or null (with `errno` set) when the
/// C library cannot open it.
///
/// # Safety
/// `path` and `mode` are NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_fopen(path: *const c_char, mode: *const c_char) -> *mut File {
    fault::guard("fopen", || {
        if path.is_null() || mode.is_null() {
            fault::die("fopen: the path or the mode is a null pointer");
        }
        // SAFETY: the caller's contract.
        let s = unsafe { libc::fopen(path, mode) };
        if s.is_null() {
            return std::ptr::null_mut();
        }
        // SAFETY: `s` is an open stream.
        let fd = unsafe { libc::fileno(s) };
        Box::into_raw(Box::new(File { fd, stream: s }))
    })
}

/// `fclose(f)`: 0, or `EOF` when writing out its buffer failed. Closing a
/// standard stream flushes it and returns 0 (it stays usable).
///
/// # Safety
/// `f` is a standard stream or a `FILE` from `parc_rt_fopen`, not closed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_fclose(f: *mut File) -> c_int {
    fault::guard("fclose", || match stream(f, "fclose") {
        Stream::Standard(_) => {
            crate::output::flush();
            0
        }
        Stream::File(f) => {
            // The `File` (16 bytes) is kept, its stream null, so that a
            // later use of the closed stream is reported, not undefined.
            // SAFETY: the caller's contract.
            unsafe {
                let s = c_stream(f, "fclose");
                (*f).stream = std::ptr::null_mut();
                if libc::fclose(s) == 0 { 0 } else { libc::EOF }
            }
        }
    })
}

/// `fwrite(p, size, n, f)`: the number of whole elements written.
///
/// # Safety
/// `p` points to `size * n` readable bytes; `f` as for [`parc_rt_fclose`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_fwrite(p: *const c_void, size: u64, n: u64, f: *mut File) -> u64 {
    fault::guard("fwrite", || {
        let Some(bytes) = size.checked_mul(n).filter(|&b| b > 0) else {
            return 0;
        };
        match stream(f, "fwrite") {
            Stream::Standard(0) => 0,
            Stream::Standard(fd) => {
                // SAFETY: the caller's contract.
                let data = unsafe { std::slice::from_raw_parts(p.cast::<u8>(), bytes as usize) };
                crate::output::write_fd_of_program(fd, data);
                n
            }
            // SAFETY: the caller's contract.
            Stream::File(f) => unsafe {
                libc::fwrite(p, size as usize, n as usize, c_stream(f, "fwrite")) as u64
            },
        }
    })
}

/// The C library's stream to read `f` from (`stdin` for fd 0); null for
/// stdout and stderr, which cannot be read.
///
/// # Safety
/// As [`parc_rt_fclose`].
pub(crate) unsafe fn readable(f: *mut File, func: &str) -> *mut libc::FILE {
    match stream(f, func) {
        // SAFETY: the C library's `stdin` is initialized before `main`.
        Stream::Standard(0) => unsafe { stdin },
        Stream::Standard(_) => std::ptr::null_mut(),
        // SAFETY: the caller's contract.
        Stream::File(f) => unsafe { c_stream(f, func) },
    }
}

/// `fread(p, size, n, f)`: the number of whole elements read.
///
/// # Safety
/// `p` points to `size * n` writable bytes; `f` as for [`parc_rt_fclose`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_fread(p: *mut c_void, size: u64, n: u64, f: *mut File) -> u64 {
    fault::guard("fread", || {
        // SAFETY: the caller's contract.
        let s = unsafe { readable(f, "fread") };
        if s.is_null() || size == 0 || n == 0 {
            return 0;
        }
        // SAFETY: the caller's contract.
        unsafe { libc::fread(p, size as usize, n as usize, s) as u64 }
    })
}

/// `fgets(buf, n, f)`: one line (its newline kept) or `n - 1` bytes,
/// NUL-terminated; `buf`, or null at the end of the file.
///
/// # Safety
/// `buf` points to `n` writable bytes; `f` as for [`parc_rt_fclose`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_fgets(buf: *mut c_char, n: c_int, f: *mut File) -> *mut c_char {
    fault::guard("fgets", || {
        // SAFETY: the caller's contract.
        let s = unsafe { readable(f, "fgets") };
        if s.is_null() || n <= 0 {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's contract.
        unsafe { libc::fgets(buf, n, s) }
    })
}

/// `feof(f)`: nonzero once a read met the end of the file.
///
/// # Safety
/// As [`parc_rt_fclose`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_feof(f: *mut File) -> c_int {
    fault::guard("feof", || {
        // SAFETY: the caller's contract.
        let s = unsafe { readable(f, "feof") };
        if s.is_null() {
            return 0;
        }
        // SAFETY: `s` is an open stream.
        unsafe { libc::feof(s) }
    })
}

/// `ferror(f)`: nonzero once a read or write of the file failed.
///
/// # Safety
/// As [`parc_rt_fclose`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_ferror(f: *mut File) -> c_int {
    fault::guard("ferror", || match stream(f, "ferror") {
        Stream::Standard(_) => 0,
        // SAFETY: the caller's contract.
        Stream::File(f) => unsafe { libc::ferror(c_stream(f, "ferror")) },
    })
}

/// The C library's stream of a file, for positioning; null, with `errno`
/// `ESPIPE`, for a standard stream, which parc treats as a pipe (its
/// output is the runtime's buffer, not the C library's stream).
///
/// # Safety
/// As [`parc_rt_fclose`].
unsafe fn seekable(f: *mut File, func: &str) -> *mut libc::FILE {
    match stream(f, func) {
        Stream::Standard(_) => {
            // SAFETY: this thread's `errno`.
            unsafe { *libc::__errno_location() = libc::ESPIPE };
            std::ptr::null_mut()
        }
        // SAFETY: the caller's contract.
        Stream::File(f) => unsafe { c_stream(f, func) },
    }
}

/// `fseek(f, offset, whence)`: 0, or -1 with `errno` set.
///
/// # Safety
/// As [`parc_rt_fclose`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_fseek(f: *mut File, offset: i64, whence: c_int) -> c_int {
    fault::guard("fseek", || {
        // SAFETY: the caller's contract.
        let s = unsafe { seekable(f, "fseek") };
        if s.is_null() {
            return -1;
        }
        // SAFETY: `s` is an open stream.
        unsafe { libc::fseek(s, offset as libc::c_long, whence) }
    })
}

/// `ftell(f)`: the position, or -1 with `errno` set.
///
/// # Safety
/// As [`parc_rt_fclose`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_ftell(f: *mut File) -> i64 {
    fault::guard("ftell", || {
        // SAFETY: the caller's contract.
        let s = unsafe { seekable(f, "ftell") };
        if s.is_null() {
            return -1;
        }
        // SAFETY: `s` is an open stream.
        unsafe { libc::ftell(s) }
    })
}

/// `rewind(f)`: back to the start, the error and end flags cleared.
///
/// # Safety
/// As [`parc_rt_fclose`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_rewind(f: *mut File) {
    fault::guard("rewind", || {
        // SAFETY: the caller's contract.
        let s = unsafe { seekable(f, "rewind") };
        if !s.is_null() {
            // SAFETY: `s` is an open stream.
            unsafe { libc::rewind(s) }
        }
    })
}

/// `fgetc(f)` (and `getc`): the next byte, or `EOF` at the end (and for
/// stdout and stderr, which cannot be read).
///
/// # Safety
/// As [`parc_rt_fclose`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_fgetc(f: *mut File) -> c_int {
    fault::guard("fgetc", || {
        // SAFETY: the caller's contract.
        let s = unsafe { readable(f, "fgetc") };
        if s.is_null() {
            return libc::EOF;
        }
        // SAFETY: `s` is an open stream.
        unsafe { libc::fgetc(s) }
    })
}

/// `ungetc(c, f)`: `c` is read next; `c`, or `EOF` when it cannot be
/// pushed back.
///
/// # Safety
/// As [`parc_rt_fclose`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_ungetc(c: c_int, f: *mut File) -> c_int {
    fault::guard("ungetc", || {
        // SAFETY: the caller's contract.
        let s = unsafe { readable(f, "ungetc") };
        if s.is_null() {
            return libc::EOF;
        }
        // SAFETY: `s` is an open stream.
        unsafe { libc::ungetc(c, s) }
    })
}

/// Writes `bytes` (an `fprintf`'s) to the file `f`.
///
/// # Safety
/// `f` is a `FILE` from `parc_rt_fopen`, not closed.
pub(crate) unsafe fn write_file(f: *mut File, bytes: &[u8]) {
    // SAFETY: the caller's contract.
    unsafe {
        libc::fwrite(
            bytes.as_ptr().cast(),
            1,
            bytes.len(),
            c_stream(f, "fprintf"),
        );
    }
}
