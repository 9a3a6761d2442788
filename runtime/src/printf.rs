//! `printf` without C varargs.
//!
//! Cranelift cannot make variadic calls, so generated code passes the
//! promoted arguments as an array of 64-bit slots plus an array of kinds:
//!
//! | kind | constant | slot holds |
//! |---|---|---|
//! | 0 | [`ARG_INT`] | an integer, sign-extended to 64 bits (`char`, `int`, `long`; unsigned values zero- or sign-extended, only the bits the conversion reads matter) |
//! | 1 | [`ARG_DOUBLE`] | the bits of a `double` (a `float` argument is promoted to `double` first, as C does) |
//! | 2 | [`ARG_PTR`] | a pointer (`%s`, `%p`) |
//!
//! `vfprintf` and `vsnprintf` (`vprintf` and `vsprintf` are them, in
//! parc's `<stdio.h>`) take a `va_list` instead: a pointer to the slots
//! of parc's own convention for variadic functions
//! ([`parc_cformat::va`]), kind and value side by side, up to an end slot.
//!
//! Formats are parsed and formatted by `parc-cformat`, the code the
//! reference interpreter uses too, so the two agree byte for byte (and
//! with gcc-built programs: each conversion is formatted by the C
//! library's `snprintf`). Errors (too few arguments, `%s` of a null
//! pointer, an unknown conversion such as `%n`) are run-time faults.

use crate::fault;
use parc_cformat::Slot;
use std::ffi::{CStr, c_char};

/// Slot kind: a sign-extended integer.
pub const ARG_INT: u8 = 0;
/// Slot kind: the bits of a `double`.
pub const ARG_DOUBLE: u8 = 1;
/// Slot kind: a pointer.
pub const ARG_PTR: u8 = 2;

/// `%s` strings are read straight from the process's memory.
struct Native;

impl parc_cformat::Memory for Native {
    type Error = parc_cformat::Error;

    fn string(&mut self, addr: u64, limit: Option<usize>) -> Result<Vec<u8>, Self::Error> {
        let p = addr as *const c_char;
        // SAFETY: `format`'s contract: a `%s` argument points to a
        // NUL-terminated string, or to at least `limit` bytes.
        let len = unsafe {
            match limit {
                Some(n) => libc::strnlen(p, n),
                None => libc::strlen(p),
            }
        };
        // SAFETY: `len` bytes from `p` are readable (just measured).
        Ok(unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len) }.to_vec())
    }
}

/// An argument slot of kind `kind` (see the module doc).
fn slot(bits: u64, kind: u8) -> Slot {
    match kind {
        ARG_DOUBLE => Slot::Double(f64::from_bits(bits)),
        ARG_PTR => Slot::Ptr(bits),
        _ => Slot::Int(bits as i64),
    }
}

/// Formats `fmt` with `args` (each `(slot, kind)` as described in the
/// module doc), appending the bytes to `out`.
///
/// # Safety
/// Every `%s` argument is a pointer to a NUL-terminated string (or to at
/// least `precision` bytes).
pub unsafe fn format(
    fmt: &[u8],
    args: &[(u64, u8)],
    out: &mut Vec<u8>,
) -> Result<(), parc_cformat::Error> {
    let slots: Vec<Slot> = args.iter().map(|&(bits, kind)| slot(bits, kind)).collect();
    parc_cformat::format(fmt, &slots, &mut Native, out)
}

/// `printf(fmt, ...)`: formats the `nargs` arguments (`args[i]` of kind
/// `kinds[i]`, see the module doc) and appends the result to the
/// program's buffered stdout. Returns the number of bytes written. A
/// malformed call (too few arguments, `%s` of null, an unsupported
/// conversion) is a fault.
///
/// # Safety
/// `fmt` is a NUL-terminated string; `args` and `kinds` point to `nargs`
/// elements each (or may be null when `nargs` is 0); `%s` arguments point
/// to NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_printf(
    fmt: *const c_char,
    args: *const u64,
    kinds: *const u8,
    nargs: i32,
) -> i32 {
    // SAFETY: the caller's contract.
    fault::guard("printf", || {
        // SAFETY: the caller's contract.
        let args = unsafe { slots_of(args, kinds, nargs) };
        // SAFETY: the caller's contract.
        unsafe { print("printf", 1, fmt, &args) }
    })
}

/// `fprintf(stream, fmt, ...)`: as [`parc_rt_printf`], to the stream
/// (the standard streams are the addresses fd + 1, as parc's `<stdio.h>`
/// says: `stdout` appends to the buffered stdout, `stderr` writes at once,
/// as C's stderr is unbuffered; other streams are files, see
/// [`crate::files`]). `stdin`, or a null stream, is a fault.
///
/// # Safety
/// As [`parc_rt_printf`]; `stream` is null or points to a `FILE`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_fprintf(
    stream: *const u8,
    fmt: *const c_char,
    args: *const u64,
    kinds: *const u8,
    nargs: i32,
) -> i32 {
    fault::guard("fprintf", || {
        // SAFETY: the caller's contract.
        let args = unsafe { slots_of(args, kinds, nargs) };
        // SAFETY: the caller's contract.
        unsafe { to_stream("fprintf", stream, fmt, &args) }
    })
}

/// `vfprintf(stream, fmt, ap)`: [`parc_rt_fprintf`] of the arguments the
/// `va_list` `ap` points to (see the module doc).
///
/// # Safety
/// As [`parc_rt_fprintf`]; `ap` points to slots up to an end slot.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_vfprintf(
    stream: *const u8,
    fmt: *const c_char,
    ap: *const u64,
) -> i32 {
    fault::guard("vfprintf", || {
        // SAFETY: the caller's contract.
        let args = unsafe { va_args("vfprintf", ap) };
        // SAFETY: the caller's contract.
        unsafe { to_stream("vfprintf", stream, fmt, &args) }
    })
}

/// Formats and writes one call of `fprintf` (`name`) to `stream`.
///
/// # Safety
/// As [`parc_rt_fprintf`].
unsafe fn to_stream(name: &str, stream: *const u8, fmt: *const c_char, args: &[Slot]) -> i32 {
    if stream.is_null() {
        fault::die(&format!("{name}: the stream is a null pointer"));
    }
    // A standard stream is the address fd + 1; another is a file.
    match stream as usize {
        // SAFETY: the caller's contract.
        1..=3 => unsafe { print(name, stream as i32 - 1, fmt, args) },
        _ => {
            // SAFETY: the caller's contract.
            let bytes = unsafe { format_call(name, fmt, args) };
            // SAFETY: any other stream is a file `fopen` made.
            unsafe { crate::files::write_file(stream as *mut crate::files::File, &bytes) };
            bytes.len().min(i32::MAX as usize) as i32
        }
    }
}

/// `snprintf(buf, size, fmt, ...)` (and `sprintf`, as `size` `u64::MAX`):
/// formats as [`parc_rt_printf`] and stores at most `size - 1` bytes and
/// a NUL at `buf` (nothing when `size` is 0). Returns the length of the
/// whole text.
///
/// # Safety
/// As [`parc_rt_printf`]; `buf` has room for `min(size, length + 1)`
/// bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_snprintf(
    buf: *mut u8,
    size: u64,
    fmt: *const c_char,
    args: *const u64,
    kinds: *const u8,
    nargs: i32,
) -> i32 {
    let name = if size == u64::MAX {
        "sprintf"
    } else {
        "snprintf"
    };
    fault::guard(name, || {
        // SAFETY: the caller's contract.
        let args = unsafe { slots_of(args, kinds, nargs) };
        // SAFETY: the caller's contract.
        unsafe { store(name, buf, size, fmt, &args) }
    })
}

/// `vsnprintf(buf, size, fmt, ap)` (and `vsprintf`, as `size`
/// `u64::MAX`): [`parc_rt_snprintf`] of the arguments the `va_list` `ap`
/// points to (see the module doc).
///
/// # Safety
/// As [`parc_rt_snprintf`]; `ap` points to slots up to an end slot.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn parc_rt_vsnprintf(
    buf: *mut u8,
    size: u64,
    fmt: *const c_char,
    ap: *const u64,
) -> i32 {
    let name = if size == u64::MAX {
        "vsprintf"
    } else {
        "vsnprintf"
    };
    fault::guard(name, || {
        // SAFETY: the caller's contract.
        let args = unsafe { va_args(name, ap) };
        // SAFETY: the caller's contract.
        unsafe { store(name, buf, size, fmt, &args) }
    })
}

/// Formats one call of `snprintf` (`name`) and stores at most `size - 1`
/// bytes and a NUL at `buf`; the length of the whole text.
///
/// # Safety
/// As [`parc_rt_snprintf`].
unsafe fn store(name: &str, buf: *mut u8, size: u64, fmt: *const c_char, args: &[Slot]) -> i32 {
    // SAFETY: the caller's contract.
    let bytes = unsafe { format_call(name, fmt, args) };
    if size > 0 {
        if buf.is_null() {
            fault::die(&format!("{name}: the buffer is a null pointer"));
        }
        let len = (bytes.len() as u64).min(size - 1) as usize;
        // SAFETY: the caller's contract: `buf` holds `len + 1` bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), buf, len);
            buf.add(len).write(0);
        }
    }
    bytes.len().min(i32::MAX as usize) as i32
}

/// The `nargs` arguments of a call (`args[i]` of kind `kinds[i]`).
///
/// # Safety
/// `args` and `kinds` hold `nargs` elements (or `nargs` is 0).
unsafe fn slots_of(args: *const u64, kinds: *const u8, nargs: i32) -> Vec<Slot> {
    (0..nargs.max(0) as usize)
        // SAFETY: the caller's contract.
        .map(|i| unsafe { slot(*args.add(i), *kinds.add(i)) })
        .collect()
}

/// The arguments the `va_list` `ap` points to.
///
/// # Safety
/// `ap` points to slots up to an end slot (see the module doc).
unsafe fn va_args(name: &str, ap: *const u64) -> Vec<Slot> {
    use parc_cformat::va::{VaError, bad_kind_message, slots};
    if ap.is_null() {
        fault::die(&format!("{name}: the `va_list` is a null pointer"));
    }
    // SAFETY: the caller's contract: every word up to the end slot is
    // readable.
    let read = |at: u64| Ok::<u64, std::convert::Infallible>(unsafe { (at as *const u64).read() });
    match slots(ap as u64, read) {
        Ok(args) => args,
        Err(VaError::Kind(k)) => fault::die(&format!("{name}: {}", bad_kind_message(k))),
        Err(VaError::Read(never)) => match never {},
    }
}

/// Formats one `printf`-family call.
///
/// # Safety
/// As [`parc_rt_printf`].
unsafe fn format_call(name: &str, fmt: *const c_char, args: &[Slot]) -> Vec<u8> {
    if fmt.is_null() {
        fault::die(&format!("{name}: the format is a null pointer"));
    }
    // SAFETY: the caller passes a NUL-terminated format.
    let fmt = unsafe { CStr::from_ptr(fmt) }.to_bytes();
    let mut bytes = Vec::with_capacity(fmt.len() + 16 * args.len());
    // `%s` arguments are valid strings (the caller's contract).
    if let Err(e) = parc_cformat::format(fmt, args, &mut Native, &mut bytes) {
        fault::die(&format!("{name}: {e}"));
    }
    bytes
}

/// Formats and writes one `printf`-family call to file descriptor `fd`.
///
/// # Safety
/// As [`parc_rt_printf`].
unsafe fn print(name: &str, fd: i32, fmt: *const c_char, args: &[Slot]) -> i32 {
    if fd != 1 && fd != 2 {
        fault::die(&format!(
            "{name}: file descriptor {fd} is not an open stream"
        ));
    }
    // SAFETY: the caller's contract.
    let bytes = unsafe { format_call(name, fmt, args) };
    crate::output::write_fd_of_program(fd, &bytes);
    bytes.len().min(i32::MAX as usize) as i32
}
