//! Formatting: each conversion is formatted by the host C library's
//! `snprintf`, one conversion at a time, so that output agrees byte for
//! byte with the same program built by gcc against the same libc
//! (rounding of `%f`/`%e`/`%g`, `%p`, padding rules).
//!
//! Integer conversions are normalized first: the argument is narrowed as
//! its length modifier says (`%d` to `int`, `%hhu` to `unsigned char`,
//! `%ld` untouched) and printed with `ll`, so libc never reads a vararg of
//! the wrong size. A `%s` string is copied out of the program's memory
//! (the interpreter's checked memory, or a raw pointer natively) before
//! libc sees it.

use crate::{Arg, Count, Error, Length, MAX_FIELD, Piece, parse};
use std::ffi::{CStr, CString, c_char, c_int, c_longlong, c_ulonglong, c_void};

/// One argument of a formatting call, as generated code passes it (after
/// C's default argument promotions).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Slot {
    /// Any integer, sign-extended (or zero-extended: only the bits the
    /// conversion reads matter).
    Int(i64),
    Double(f64),
    /// An address (`%s`, `%p`).
    Ptr(u64),
}

impl Slot {
    /// As an integer; a double is converted, as C would if the front end
    /// had inserted the cast.
    fn int(self) -> i64 {
        match self {
            Slot::Int(v) => v,
            Slot::Double(d) => d as i64,
            Slot::Ptr(p) => p as i64,
        }
    }

    fn double(self) -> f64 {
        match self {
            Slot::Double(d) => d,
            Slot::Int(v) => v as f64,
            Slot::Ptr(p) => p as f64,
        }
    }
}

/// The memory `%s` arguments point into: the interpreter's checked
/// memory, or the process's own natively.
pub trait Memory {
    /// The caller's error: its own faults (a bad memory access while
    /// reading a string) and this crate's [`Error`].
    type Error: From<Error>;

    /// The bytes of the NUL-terminated string at `addr` (not null),
    /// without the NUL, reading at most `limit` bytes when given (a `%s`
    /// precision: the string need not be terminated then).
    fn string(&mut self, addr: u64, limit: Option<usize>) -> Result<Vec<u8>, Self::Error>;
}

/// The arguments, taken in order.
struct Args<'a>(std::slice::Iter<'a, Slot>);

impl Args<'_> {
    fn next(&mut self) -> Result<Slot, Error> {
        self.0.next().copied().ok_or(Error::MissingArgument)
    }

    fn int(&mut self) -> Result<i64, Error> {
        Ok(self.next()?.int())
    }
}

/// One argument handed to `snprintf`.
enum CArg {
    Int(c_longlong),
    UInt(c_ulonglong),
    Double(f64),
    Char(c_int),
    Str(CString),
    Ptr(u64),
}

/// Formats `fmt` with `args` and appends the bytes to `out`; `%s`
/// strings are read from `mem`.
pub fn format<M: Memory>(
    fmt: &[u8],
    args: &[Slot],
    mem: &mut M,
    out: &mut Vec<u8>,
) -> Result<(), M::Error> {
    let mut args = Args(args.iter());
    let mut spec: Vec<u8> = Vec::with_capacity(24);
    for piece in parse(fmt) {
        let c = match piece? {
            Piece::Text { start, end } => {
                out.extend_from_slice(&fmt[start..end]);
                continue;
            }
            Piece::Percent => {
                out.push(b'%');
                continue;
            }
            Piece::Conv(c) => c,
        };
        let arg = c.arg(fmt)?;
        spec.clear();
        spec.push(b'%');
        spec.extend_from_slice(&c.flags);
        match c.width {
            Some(Count::Star) => {
                let w = args.int()? as i32;
                if w < 0 {
                    // A negative `*` width is the `-` flag and the width.
                    spec.push(b'-');
                }
                push_field(&mut spec, u64::from(w.unsigned_abs()))?;
            }
            Some(Count::Given(w)) => push_field(&mut spec, w)?,
            None => {}
        }
        let precision = match c.precision {
            // A negative `*` precision is taken as if it were omitted.
            Some(Count::Star) => u64::try_from(args.int()? as i32).ok(),
            Some(Count::Given(p)) => Some(p),
            None => None,
        };
        if let Some(p) = precision {
            spec.push(b'.');
            push_field(&mut spec, p)?;
        }
        let value = match (arg, c.conv) {
            (Arg::Int | Arg::Long, b'd' | b'i') => {
                let v = args.int()?;
                spec.extend_from_slice(b"lld");
                CArg::Int(match c.length {
                    Length::H => v as i16 as i64,
                    Length::Hh => v as i8 as i64,
                    Length::L | Length::Ll => v,
                    Length::None | Length::LongDouble => v as i32 as i64,
                })
            }
            (Arg::Int | Arg::Long, b'c') => {
                spec.push(b'c');
                CArg::Char(args.int()? as c_int)
            }
            (Arg::Int | Arg::Long, conv) => {
                let v = args.int()? as u64;
                spec.extend_from_slice(b"ll");
                spec.push(conv);
                CArg::UInt(match c.length {
                    Length::H => v as u16 as u64,
                    Length::Hh => v as u8 as u64,
                    Length::L | Length::Ll => v,
                    Length::None | Length::LongDouble => v as u32 as u64,
                })
            }
            (Arg::Double, conv) => {
                spec.push(conv);
                CArg::Double(args.next()?.double())
            }
            (Arg::Str, _) => {
                let p = args.next()?.int() as u64;
                if p == 0 {
                    return Err(Error::NullString.into());
                }
                let limit = precision.map(|p| p as usize);
                let mut s = mem.string(p, limit)?;
                // A string read up to `limit` may hold a NUL the C library
                // would have stopped at.
                if let Some(n) = s.iter().position(|&b| b == 0) {
                    s.truncate(n);
                }
                spec.push(b's');
                CArg::Str(CString::new(s).expect("NUL bytes were cut off"))
            }
            (Arg::Ptr, _) => {
                spec.push(b'p');
                CArg::Ptr(args.next()?.int() as u64)
            }
        };
        spec.push(0);
        let spec = CStr::from_bytes_with_nul(&spec).expect("one NUL, at the end");
        snprintf(out, spec, &value)?;
    }
    Ok(())
}

fn push_field(spec: &mut Vec<u8>, n: u64) -> Result<(), Error> {
    if n > MAX_FIELD {
        return Err(Error::FieldTooLarge(n));
    }
    spec.extend_from_slice(n.to_string().as_bytes());
    Ok(())
}

/// Formats one conversion with the C library and appends the result.
fn snprintf(out: &mut Vec<u8>, spec: &CStr, arg: &CArg) -> Result<(), Error> {
    let call = |buf: *mut c_char, size: usize| -> c_int {
        // SAFETY: `spec` is a single conversion whose type matches `arg`
        // (`format` builds them together), a string argument is a valid
        // C string, and `buf` has room for `size` bytes.
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
    let n = usize::try_from(n).map_err(|_| Error::Libc)?;
    if n < small.len() {
        out.extend_from_slice(&small[..n]);
    } else {
        let mut big = vec![0u8; n + 1];
        call(big.as_mut_ptr().cast(), big.len());
        out.extend_from_slice(&big[..n]);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use Slot::*;

    /// Strings addressed by index + 1.
    struct Strings(Vec<&'static str>);

    impl Memory for Strings {
        type Error = Error;
        fn string(&mut self, addr: u64, limit: Option<usize>) -> Result<Vec<u8>, Error> {
            let s = self.0[addr as usize - 1].as_bytes();
            Ok(s[..limit.unwrap_or(s.len()).min(s.len())].to_vec())
        }
    }

    fn run(fmt: &str, args: Vec<Slot>, strings: Vec<&'static str>) -> Result<String, Error> {
        let mut out = Vec::new();
        format(fmt.as_bytes(), &args, &mut Strings(strings), &mut out)?;
        Ok(String::from_utf8(out).unwrap())
    }

    #[test]
    fn formats_as_the_c_library_does() {
        assert_eq!(
            run(
                "[%5d|%-5d|%05d|%+d]",
                vec![Int(42), Int(42), Int(-42), Int(7)],
                vec![]
            ),
            Ok("[   42|42   |-0042|+7]".into())
        );
        assert_eq!(
            run(
                "%.3f %e %g %a",
                vec![Double(1.23456), Double(1e-7), Double(0.0001), Double(1.0)],
                vec![]
            ),
            Ok("1.235 1.000000e-07 0.0001 0x1p+0".into())
        );
        assert_eq!(
            run(
                "%x %X %o %#x %lu",
                vec![Int(255), Int(255), Int(8), Int(255), Int(-1)],
                vec![]
            ),
            Ok("ff FF 10 0xff 18446744073709551615".into())
        );
        assert_eq!(
            run(
                "%s|%.2s|%-4s|%c",
                vec![Ptr(1), Ptr(1), Ptr(2), Int(65)],
                vec!["hello", "ab"]
            ),
            Ok("hello|he|ab  |A".into())
        );
        assert_eq!(run("100%%", vec![], vec![]), Ok("100%".into()));
    }

    #[test]
    fn integers_are_narrowed_by_their_length_modifier() {
        assert_eq!(
            run(
                "%d %u %hd %hhu %ld",
                vec![
                    Int(1 << 32 | 5),
                    Int(-1),
                    Int(70000),
                    Int(511),
                    Int(1 << 40)
                ],
                vec![]
            ),
            Ok(format!("5 4294967295 4464 255 {}", 1i64 << 40))
        );
    }

    #[test]
    fn star_fields() {
        let args = vec![
            Int(4),
            Int(1),
            Int(-4),
            Int(2),
            Int(2),
            Double(1.005),
            Int(-1),
            Double(0.5),
        ];
        assert_eq!(
            run("[%*d|%-*d|%.*f|%.*f]", args, vec![]),
            Ok("[   1|2   |1.00|0.500000]".into())
        );
    }

    #[test]
    fn errors() {
        assert_eq!(
            run("%d %d", vec![Int(1)], vec![]),
            Err(Error::MissingArgument)
        );
        assert_eq!(run("%s", vec![Ptr(0)], vec![]), Err(Error::NullString));
        assert_eq!(
            run("%y", vec![Int(1)], vec![]),
            Err(Error::Unknown("%y".into()))
        );
        assert_eq!(
            run("%99999999d", vec![Int(1)], vec![]),
            Err(Error::FieldTooLarge(99_999_999))
        );
    }
}
