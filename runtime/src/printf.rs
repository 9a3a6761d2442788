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
//! Each conversion is parsed here and then formatted by the C library's
//! `snprintf`, one conversion at a time, so output agrees byte for byte
//! with the same program built by gcc against the same libc. Integer
//! conversions are normalized first: the argument is narrowed as the
//! length modifier says (`%d` to `int`, `%hhu` to `unsigned char`, `%ld`
//! untouched ...) and printed with `ll`, so libc never reads a vararg of
//! the wrong size. This is the reference interpreter's algorithm
//! (`parir/src/interp/printf.rs`), so the two agree.
//!
//! Supported: `%d %i %u %o %x %X %f %F %e %E %g %G %a %A %c %s %p %%`,
//! flags `-+ #0`, width and precision (digits or `*`), length modifiers
//! `hh h l ll z j t q L`. Errors (too few arguments, `%s` of a null
//! pointer, an unknown conversion such as `%n`) are run-time faults.

use crate::fault;
use std::ffi::{CStr, c_char, c_int, c_longlong, c_ulonglong, c_void};

/// Slot kind: a sign-extended integer.
pub const ARG_INT: u8 = 0;
/// Slot kind: the bits of a `double`.
pub const ARG_DOUBLE: u8 = 1;
/// Slot kind: a pointer.
pub const ARG_PTR: u8 = 2;

/// One argument formatted by `snprintf`.
enum CArg {
    Int(c_longlong),
    UInt(c_ulonglong),
    Double(f64),
    Char(c_int),
    Str(*const c_char),
    Ptr(u64),
}

/// Reads the promoted variadic arguments in order.
struct Args<'a> {
    args: &'a [(u64, u8)],
    next: usize,
}

impl Args<'_> {
    fn take(&mut self) -> Result<(u64, u8), String> {
        let a = self
            .args
            .get(self.next)
            .copied()
            .ok_or("printf: the format needs more arguments than were passed")?;
        self.next += 1;
        Ok(a)
    }

    /// An argument as a signed integer (a double is converted, as C would
    /// if the front end had inserted the cast).
    fn int(&mut self) -> Result<i64, String> {
        let (bits, kind) = self.take()?;
        Ok(match kind {
            ARG_DOUBLE => f64::from_bits(bits) as i64,
            _ => bits as i64,
        })
    }

    fn double(&mut self) -> Result<f64, String> {
        let (bits, kind) = self.take()?;
        Ok(match kind {
            ARG_DOUBLE => f64::from_bits(bits),
            ARG_PTR => bits as f64,
            _ => bits as i64 as f64,
        })
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Len {
    None,
    Hh,
    H,
    L,
    Ll,
    LongDouble,
}

/// Formats `printf(fmt, args...)`, appending the bytes to `out`. Each
/// argument is `(slot, kind)` as described in the module doc.
///
/// # Safety
/// Every `%s` argument is a pointer to a NUL-terminated string (or to at
/// least `precision` bytes).
pub unsafe fn format(fmt: &[u8], args: &[(u64, u8)], out: &mut Vec<u8>) -> Result<(), String> {
    let f = fmt;
    let mut args = Args { args, next: 0 };
    let mut spec: Vec<u8> = Vec::with_capacity(16);
    let mut i = 0;
    while i < f.len() {
        if f[i] != b'%' {
            let end = f[i..]
                .iter()
                .position(|&c| c == b'%')
                .map_or(f.len(), |n| i + n);
            out.extend_from_slice(&f[i..end]);
            i = end;
            continue;
        }
        let start = i;
        i += 1;
        spec.clear();
        spec.push(b'%');
        while i < f.len() && b"-+ #0".contains(&f[i]) {
            spec.push(f[i]);
            i += 1;
        }
        // Width.
        if i < f.len() && f[i] == b'*' {
            i += 1;
            let w = args.int()? as i32;
            if w < 0 {
                // A negative `*` width is the `-` flag and the width.
                spec.push(b'-');
            }
            spec.extend_from_slice(w.unsigned_abs().to_string().as_bytes());
        } else if let Some(n) = digits(f, &mut i)? {
            spec.extend_from_slice(n.to_string().as_bytes());
        }
        // Precision.
        if i < f.len() && f[i] == b'.' {
            i += 1;
            let p = if i < f.len() && f[i] == b'*' {
                i += 1;
                // A negative `*` precision is taken as if it were omitted.
                let p = args.int()? as i32;
                (p >= 0).then_some(p as u64)
            } else {
                Some(digits(f, &mut i)?.unwrap_or(0))
            };
            if let Some(p) = p {
                spec.push(b'.');
                spec.extend_from_slice(p.to_string().as_bytes());
            }
        }
        // Length modifier.
        let mut len = Len::None;
        while i < f.len() {
            len = match (len, f[i]) {
                (Len::None, b'h') => Len::H,
                (Len::H, b'h') => Len::Hh,
                (Len::None, b'l') => Len::L,
                (Len::L, b'l') => Len::Ll,
                (Len::None, b'z' | b'j' | b't' | b'q') => Len::Ll,
                (Len::None, b'L') => Len::LongDouble,
                _ => break,
            };
            i += 1;
        }
        let Some(&conv) = f.get(i) else {
            return Err(format!(
                "printf: the format ends inside the conversion `{}`",
                String::from_utf8_lossy(&f[start..])
            ));
        };
        i += 1;
        let arg = match conv {
            b'%' => {
                out.push(b'%');
                continue;
            }
            b'd' | b'i' => {
                let v = args.int()?;
                spec.extend_from_slice(b"lld");
                CArg::Int(match len {
                    Len::None | Len::LongDouble => v as i32 as i64,
                    Len::H => v as i16 as i64,
                    Len::Hh => v as i8 as i64,
                    Len::L | Len::Ll => v,
                })
            }
            b'u' | b'o' | b'x' | b'X' => {
                let v = args.int()? as u64;
                spec.extend_from_slice(b"ll");
                spec.push(conv);
                CArg::UInt(match len {
                    Len::None | Len::LongDouble => v as u32 as u64,
                    Len::H => v as u16 as u64,
                    Len::Hh => v as u8 as u64,
                    Len::L | Len::Ll => v,
                })
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                spec.push(conv);
                CArg::Double(args.double()?)
            }
            b'c' => {
                spec.push(b'c');
                CArg::Char(args.int()? as c_int)
            }
            b's' => {
                let (p, _) = args.take()?;
                if p == 0 {
                    return Err("printf: the argument of `%s` is a null pointer".into());
                }
                spec.push(b's');
                CArg::Str(p as *const c_char)
            }
            b'p' => {
                let (p, _) = args.take()?;
                spec.push(b'p');
                CArg::Ptr(p)
            }
            other => {
                return Err(format!(
                    "printf: unsupported conversion `{}{}`",
                    String::from_utf8_lossy(&f[start..i - 1]),
                    other as char
                ));
            }
        };
        spec.push(0);
        let spec = CStr::from_bytes_with_nul(&spec).expect("one NUL, at the end");
        // SAFETY: `spec` is one conversion built together with `arg`; a
        // `%s` pointer is valid by this function's contract.
        unsafe { snprintf(out, spec, &arg)? };
    }
    Ok(())
}

/// A decimal field (width or precision), if present.
fn digits(f: &[u8], i: &mut usize) -> Result<Option<u64>, String> {
    let start = *i;
    let mut n: u64 = 0;
    while *i < f.len() && f[*i].is_ascii_digit() {
        n = n.saturating_mul(10).saturating_add((f[*i] - b'0') as u64);
        *i += 1;
    }
    if *i == start {
        return Ok(None);
    }
    if n > i32::MAX as u64 {
        return Err("printf: field width or precision too large".into());
    }
    Ok(Some(n))
}

/// Formats one conversion with the C library and appends the result.
///
/// # Safety
/// `spec`'s conversion matches `arg`'s type, and a `CArg::Str` points to
/// a string valid for the conversion.
unsafe fn snprintf(out: &mut Vec<u8>, spec: &CStr, arg: &CArg) -> Result<(), String> {
    let call = |buf: *mut c_char, size: usize| -> c_int {
        // SAFETY: `spec` is a single conversion whose type matches `arg`
        // (`format` builds them together), and `buf` has room for `size`
        // bytes.
        unsafe {
            match arg {
                CArg::Int(v) => libc::snprintf(buf, size, spec.as_ptr(), *v),
                CArg::UInt(v) => libc::snprintf(buf, size, spec.as_ptr(), *v),
                CArg::Double(v) => libc::snprintf(buf, size, spec.as_ptr(), *v),
                CArg::Char(v) => libc::snprintf(buf, size, spec.as_ptr(), *v),
                CArg::Str(s) => libc::snprintf(buf, size, spec.as_ptr(), *s),
                CArg::Ptr(p) => libc::snprintf(buf, size, spec.as_ptr(), *p as *const c_void),
            }
        }
    };
    let mut small = [0u8; 256];
    let n = call(small.as_mut_ptr().cast(), small.len());
    if n < 0 {
        return Err("printf: the C library could not format a conversion".into());
    }
    let n = n as usize;
    if n < small.len() {
        out.extend_from_slice(&small[..n]);
    } else {
        let mut big = vec![0u8; n + 1];
        call(big.as_mut_ptr().cast(), big.len());
        out.extend_from_slice(&big[..n]);
    }
    Ok(())
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
    fault::guard("printf", || {
        if fmt.is_null() {
            fault::die("printf: the format is a null pointer");
        }
        // SAFETY: the caller passes a NUL-terminated format.
        let fmt = unsafe { CStr::from_ptr(fmt) }.to_bytes();
        let n = nargs.max(0) as usize;
        let pairs: Vec<(u64, u8)> = (0..n)
            // SAFETY: `args` and `kinds` hold `nargs` elements.
            .map(|i| unsafe { (*args.add(i), *kinds.add(i)) })
            .collect();
        let mut bytes = Vec::with_capacity(fmt.len() + 16 * n);
        // SAFETY: `%s` arguments are valid strings (caller's contract).
        if let Err(e) = unsafe { format(fmt, &pairs, &mut bytes) } {
            fault::die(&e);
        }
        crate::output::write(&bytes);
        bytes.len().min(i32::MAX as usize) as i32
    })
}
