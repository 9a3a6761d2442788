//! `sscanf` and `fscanf` (`scanf` is `fscanf` of `stdin`) without C
//! varargs: generated code passes the pointers after the format as an
//! array of 64-bit slots, as it passes `printf`'s arguments (the kinds
//! array is ignored: every argument is a pointer).
//!
//! `parc-cformat` parses the format and scans, the code the reference
//! interpreter uses too, so both read input alike; a stream's bytes come
//! from the C library's stream (`stdin`'s too), with `ungetc` for the one
//! byte of look-ahead. A malformed format or too few arguments is a fault.

use crate::fault;
use crate::files::File;
use std::ffi::{CStr, c_char};

/// Where the bytes come from.
enum Input {
    /// `sscanf`: the next byte of the string.
    String(*const u8),
    /// A C library stream; null reads nothing (`stdout`, `stderr`).
    Stream(*mut libc::FILE),
}

impl parc_cformat::Scanner for Input {
    type Error = parc_cformat::Error;

    fn next(&mut self) -> Result<Option<u8>, Self::Error> {
        Ok(match *self {
            // SAFETY: `sscanf`'s contract: a NUL-terminated string, not
            // read past its NUL.
            Input::String(ref mut p) => match unsafe { p.read() } {
                0 => None,
                b => {
                    // SAFETY: `b` was not the NUL.
                    *p = unsafe { p.add(1) };
                    Some(b)
                }
            },
            Input::Stream(s) if s.is_null() => None,
            // SAFETY: an open stream of the C library.
            Input::Stream(s) => match unsafe { libc::fgetc(s) } {
                libc::EOF => None,
                b => Some(b as u8),
            },
        })
    }

    fn unget(&mut self, byte: u8) -> Result<(), Self::Error> {
        match *self {
            // SAFETY: steps back over the byte `next` just read.
            Input::String(ref mut p) => *p = unsafe { p.sub(1) },
            Input::Stream(s) if s.is_null() => {}
            // SAFETY: as in `next`; one byte of push-back is guaranteed.
            Input::Stream(s) => unsafe {
                libc::ungetc(i32::from(byte), s);
            },
        }
        Ok(())
    }

    fn store(&mut self, addr: u64, bytes: &[u8]) -> Result<(), Self::Error> {
        // SAFETY: `scan` stores through the call's pointers only, each of
        // the type its conversion names (the checker checks literal
        // formats), or a `char` array large enough, as C requires.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), addr as *mut u8, bytes.len()) };
        Ok(())
    }
}

/// Scans for `name` and returns what C's function does.
///
/// # Safety
/// `fmt` is a NUL-terminated string; `args` holds `nargs` pointers.
unsafe fn scan_call(
    name: &str,
    mut input: Input,
    fmt: *const c_char,
    args: *const u64,
    nargs: i32,
) -> i32 {
    if fmt.is_null() {
        fault::die(&format!("{name}: the format is a null pointer"));
    }
    // SAFETY: the caller's contract.
    let fmt = unsafe { CStr::from_ptr(fmt) }.to_bytes();
    let ptrs: Vec<u64> = (0..nargs.max(0) as usize)
        // SAFETY: `args` holds `nargs` elements.
        .map(|i| unsafe { *args.add(i) })
        .collect();
    match parc_cformat::scan(fmt, &mut input, &ptrs) {
        Ok(n) => n,
        Err(e) => fault::die(&format!("{name}: {e}")),
    }
}

/// `sscanf(s, fmt, ...)`: the number of items stored, or -1 (`EOF`) if
/// the string ended before any was.
///
/// # Safety
/// `s` and `fmt` are NUL-terminated strings; `args` holds `nargs`
/// pointers, each to what its conversion stores.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_sscanf(
    s: *const u8,
    fmt: *const c_char,
    args: *const u64,
    _kinds: *const u8,
    nargs: i32,
) -> i32 {
    fault::guard("sscanf", || {
        if s.is_null() {
            fault::die("sscanf: the string is a null pointer");
        }
        // SAFETY: the caller's contract.
        unsafe { scan_call("sscanf", Input::String(s), fmt, args, nargs) }
    })
}

/// `fscanf(stream, fmt, ...)`: as [`parc_rt_sscanf`], reading the
/// stream (`stdin` is the address 1, as parc's `<stdio.h>` says).
///
/// # Safety
/// As [`parc_rt_sscanf`]; `stream` is a standard stream's address or a
/// `FILE` that `fopen` made.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_fscanf(
    stream: *mut File,
    fmt: *const c_char,
    args: *const u64,
    _kinds: *const u8,
    nargs: i32,
) -> i32 {
    fault::guard("fscanf", || {
        // SAFETY: the caller's contract.
        let s = unsafe { crate::files::readable(stream, "fscanf") };
        // SAFETY: the caller's contract.
        unsafe { scan_call("fscanf", Input::Stream(s), fmt, args, nargs) }
    })
}
