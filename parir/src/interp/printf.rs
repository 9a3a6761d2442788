//! `printf` and the other C-library intrinsics that deal in C strings.
//!
//! Each conversion of a `printf` format is parsed here and then formatted
//! by the host C library's `snprintf` (through the `libc` crate), one
//! conversion at a time, so that output agrees byte for byte with the same
//! program built by gcc against the same libc (rounding of `%f`/`%e`/`%g`,
//! `%p`, padding rules). The integer conversions are normalized first: the
//! argument is narrowed as its length modifier says (`%d` to `int`, `%hhu`
//! to `unsigned char` ...) and then printed with `ll`, so libc never reads a
//! vararg of the wrong size. `atoi`, `atol`, `atof` and `strcmp` likewise
//! call libc on a copy of the string.

use super::Fault;
use super::memory::Memory;
use crate::types::Type;
use std::ffi::{CStr, CString, c_char, c_int, c_longlong, c_ulonglong, c_void};

/// One argument formatted by `snprintf`.
enum CArg {
    Int(c_longlong),
    UInt(c_ulonglong),
    Double(f64),
    Char(c_int),
    Str(CString),
    Ptr(u64),
}

/// Reads the promoted variadic arguments in order.
struct Args<'a> {
    args: &'a [(u64, Type)],
    next: usize,
}

impl Args<'_> {
    fn take(&mut self) -> Result<(u64, Type), Fault> {
        let a = self.args.get(self.next).copied().ok_or_else(|| {
            Fault::msg("printf: the format needs more arguments than were passed")
        })?;
        self.next += 1;
        Ok(a)
    }

    /// An argument as a signed integer (a float is converted, as C would
    /// if the front end had inserted the cast).
    fn int(&mut self) -> Result<i64, Fault> {
        let (bits, ty) = self.take()?;
        Ok(match ty {
            Type::F64 => f64::from_bits(bits) as i64,
            Type::F32 => f32::from_bits(bits as u32) as i64,
            _ => bits as i64,
        })
    }

    fn double(&mut self) -> Result<f64, Fault> {
        let (bits, ty) = self.take()?;
        Ok(match ty {
            Type::F64 => f64::from_bits(bits),
            Type::F32 => f32::from_bits(bits as u32) as f64,
            Type::Ptr => bits as f64,
            _ => bits as i64 as f64,
        })
    }
}

/// Formats `printf(fmt, args...)` and appends the bytes to `out`.
pub(crate) fn format(
    mem: &Memory,
    fmt: u64,
    args: &[(u64, Type)],
    out: &mut Vec<u8>,
) -> Result<(), Fault> {
    let f = mem.read_cstr(fmt, None)?;
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
            let w = field(w.unsigned_abs() as u64)?;
            spec.extend_from_slice(w.to_string().as_bytes());
        } else {
            let n = digits(f, &mut i)?;
            if let Some(n) = n {
                spec.extend_from_slice(n.to_string().as_bytes());
            }
        }
        // Precision.
        let mut precision: Option<usize> = None;
        if i < f.len() && f[i] == b'.' {
            i += 1;
            let p = if i < f.len() && f[i] == b'*' {
                i += 1;
                // A negative `*` precision is taken as if it were omitted.
                let p = args.int()? as i32;
                if p >= 0 { Some(field(p as u64)?) } else { None }
            } else {
                Some(digits(f, &mut i)?.unwrap_or(0))
            };
            if let Some(p) = p {
                spec.push(b'.');
                spec.extend_from_slice(p.to_string().as_bytes());
                precision = Some(p as usize);
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
            return Err(Fault::msg(format!(
                "printf: the format ends inside the conversion `{}`",
                String::from_utf8_lossy(&f[start..])
            )));
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
                    return Err(Fault::msg("printf: the argument of `%s` is a null pointer"));
                }
                let s = mem.read_cstr(p, precision)?;
                spec.push(b's');
                CArg::Str(CString::new(s).expect("read_cstr stops at the first NUL"))
            }
            b'p' => {
                let (p, _) = args.take()?;
                spec.push(b'p');
                CArg::Ptr(p)
            }
            other => {
                return Err(Fault::msg(format!(
                    "printf: unsupported conversion `{}`",
                    String::from_utf8_lossy(&f[start..i - 1]).into_owned()
                        + &(other as char).to_string()
                )));
            }
        };
        spec.push(0);
        let spec = CStr::from_bytes_with_nul(&spec).expect("one NUL, at the end");
        snprintf(out, spec, &arg)?;
    }
    Ok(())
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

/// A decimal field (width or precision), if present.
fn digits(f: &[u8], i: &mut usize) -> Result<Option<u64>, Fault> {
    let start = *i;
    let mut n: u64 = 0;
    while *i < f.len() && f[*i].is_ascii_digit() {
        n = n.saturating_mul(10).saturating_add((f[*i] - b'0') as u64);
        *i += 1;
    }
    if *i == start {
        return Ok(None);
    }
    Ok(Some(field(n)?))
}

/// The largest field width or precision formatted. C allows up to
/// `INT_MAX`, but a gigabyte of padding is a bug, not output, and would
/// exhaust parc's memory.
const MAX_FIELD: u64 = 1 << 24;

fn field(n: u64) -> Result<u64, Fault> {
    if n > MAX_FIELD {
        return Err(Fault::msg(format!(
            "printf: field width or precision {n} is too large (the interpreter formats at most {MAX_FIELD})"
        )));
    }
    Ok(n)
}

/// Formats one conversion with the C library and appends the result.
fn snprintf(out: &mut Vec<u8>, spec: &CStr, arg: &CArg) -> Result<(), Fault> {
    let call = |buf: *mut c_char, size: usize| -> c_int {
        // SAFETY: `spec` is a single conversion whose type matches `arg`
        // (the match in `format` builds them together), and `buf` has room
        // for `size` bytes.
        unsafe {
            match arg {
                CArg::Int(v) => libc::snprintf(buf, size, spec.as_ptr(), *v),
                CArg::UInt(v) => libc::snprintf(buf, size, spec.as_ptr(), *v),
                CArg::Double(v) => libc::snprintf(buf, size, spec.as_ptr(), *v),
                CArg::Char(v) => libc::snprintf(buf, size, spec.as_ptr(), *v),
                CArg::Str(s) => libc::snprintf(buf, size, spec.as_ptr(), s.as_ptr()),
                CArg::Ptr(p) => libc::snprintf(buf, size, spec.as_ptr(), *p as *const c_void),
            }
        }
    };
    let mut small = [0u8; 256];
    let n = call(small.as_mut_ptr().cast(), small.len());
    if n < 0 {
        return Err(Fault::msg(
            "printf: the C library could not format a conversion",
        ));
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

/// A copy of the C string at `addr`, for the libc string functions.
fn c_string(mem: &Memory, addr: u64) -> Result<CString, Fault> {
    if addr == 0 {
        return Err(Fault::msg("null pointer passed as a string"));
    }
    let s = mem.read_cstr(addr, None)?;
    Ok(CString::new(s).expect("read_cstr stops at the first NUL"))
}

/// The text of a `runtime_error`'s message (a string the front end made).
pub(crate) fn message(mem: &Memory, addr: u64) -> Result<String, Fault> {
    Ok(c_string(mem, addr)?.to_string_lossy().into_owned())
}

/// `atoi`: glibc's, i.e. `(int) strtol(s, NULL, 10)`.
pub(crate) fn atoi(mem: &Memory, addr: u64) -> Result<i32, Fault> {
    let s = c_string(mem, addr)?;
    // SAFETY: `s` is a valid NUL-terminated string.
    Ok(unsafe { libc::atoi(s.as_ptr()) })
}

pub(crate) fn atol(mem: &Memory, addr: u64) -> Result<i64, Fault> {
    let s = c_string(mem, addr)?;
    // SAFETY: as above.
    Ok(unsafe { libc::atol(s.as_ptr()) } as i64)
}

pub(crate) fn atof(mem: &Memory, addr: u64) -> Result<f64, Fault> {
    let s = c_string(mem, addr)?;
    // SAFETY: as above.
    Ok(unsafe { libc::atof(s.as_ptr()) })
}

pub(crate) fn strcmp(mem: &Memory, a: u64, b: u64) -> Result<i32, Fault> {
    let a = c_string(mem, a)?;
    let b = c_string(mem, b)?;
    // SAFETY: both are valid NUL-terminated strings.
    Ok(unsafe { libc::strcmp(a.as_ptr(), b.as_ptr()) })
}
