//! C's `printf` format strings, in one place: the grammar of a conversion
//! ([`parse`]), what argument each conversion reads ([`Conversion::arg`]),
//! and formatting ([`format`]).
//!
//! Three parts of parc read formats and must agree on every one of them:
//! the front end checks a literal format against the arguments as
//! `gcc -Wformat` does, and the reference interpreter and the native
//! runtime format the output of `printf`, `fprintf`, `sprintf` and
//! `snprintf`. A format the checker accepts is formatted the same way by
//! both; a format it cannot see (not a literal) that is malformed is the
//! same run-time error in both.
//!
//! This crate depends on nothing of parc's, so both `parc-ir` (which
//! imports no other crate of ours; the interpreter lives there) and
//! `parc-runtime` (linked into every program parc builds) can use it.
//!
//! Supported: `%d %i %u %o %x %X %f %F %e %E %g %G %a %A %c %s %p %%`,
//! flags `-+ #0`, width and precision (digits or `*`), length modifiers
//! `hh h l ll z j t` on integer conversions, `l` and `L` on floating ones
//! (`long double` is `double` in parc). Not supported: `%n` (it writes
//! through its argument), wide characters (`%lc`, `%ls`), positional
//! arguments (`%1$d`).
//!
//! `scanf` formats are parsed and scanned beside them (see `scan.rs`), for
//! the same three readers: the checker, the interpreter and the runtime.
//!
//! [`va`] is parc's convention for the variadic arguments of functions it
//! defines, which `vfprintf` and `vsnprintf` read from a `va_list`.

mod format;
mod scan;
pub mod va;

pub use format::{Memory, Slot, format};
pub use scan::{ScanArg, ScanConv, ScanPiece, Scanner, parse_scan, scan};

use std::fmt;

/// One piece of a format string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Bytes copied as they are: `fmt[start..end]`.
    Text {
        start: usize,
        end: usize,
    },
    /// `%%`: one `%`.
    Percent,
    Conv(Conversion),
}

/// A field width or precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    /// Written in the format (saturated at `u64::MAX`).
    Given(u64),
    /// `*`: taken from the next argument, an `int`.
    Star,
}

/// A length modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Length {
    None,
    /// `hh`: `char`.
    Hh,
    /// `h`: `short`.
    H,
    /// `l`: `long` (on `%f` and friends: no effect, as C99 says).
    L,
    /// `ll`, `j`, `z`, `t`: 64-bit.
    Ll,
    /// `L`: `long double`, which is `double` in parc.
    LongDouble,
}

/// One conversion specification, `%` to the conversion character.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conversion {
    /// Where it is in the format: `fmt[start..end]` is its text.
    pub start: usize,
    pub end: usize,
    /// The flags `-+ #0` as written.
    pub flags: Vec<u8>,
    pub width: Option<Count>,
    pub precision: Option<Count>,
    pub length: Length,
    /// The conversion character (`d`, `s`, ...).
    pub conv: u8,
}

/// What a conversion reads, after C's default argument promotions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// `int` or `unsigned` (`%d %i %u %o %x %X %c` without a 64-bit
    /// modifier; `char` and `short` arrive promoted to `int`), and every
    /// `*` width or precision.
    Int,
    /// `long` or `unsigned long` (`l`, `ll`, `z`, `j`, `t`).
    Long,
    /// `double` (`float` arrives promoted).
    Double,
    /// A `char*` string.
    Str,
    /// Any pointer (`%p`).
    Ptr,
}

impl Arg {
    /// The argument in words, for diagnostics: "an `int`".
    pub fn describe(self) -> &'static str {
        match self {
            Arg::Int => "an `int`",
            Arg::Long => "a `long`",
            Arg::Double => "a `double`",
            Arg::Str => "a `char*` string",
            Arg::Ptr => "a pointer",
        }
    }
}

/// A malformed format, or a call that does not fit its format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A conversion the C library does not have or parc does not support
    /// (`%y`, `%n`, `%Ld`); the text as written.
    Unknown(String),
    /// The format ends inside a conversion (a lone `%` at the end); the
    /// text of the unfinished conversion.
    Incomplete(String),
    /// The format reads more arguments than the call passes.
    MissingArgument,
    /// A `%s` argument is a null pointer.
    NullString,
    /// A `scanf` argument a conversion stores through is a null pointer.
    NullArgument,
    /// A width or precision above [`MAX_FIELD`].
    FieldTooLarge(u64),
    /// The C library failed to format a conversion.
    Libc,
}

/// The largest field width or precision formatted. C allows up to
/// `INT_MAX`, but a gigabyte of padding is a bug, not output (and would
/// exhaust memory in the interpreter); both parc's interpreter and its
/// runtime report it instead.
pub const MAX_FIELD: u64 = 1 << 24;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Unknown(text) => write!(f, "unsupported conversion `{text}`"),
            Error::Incomplete(text) => {
                write!(f, "the format ends inside the conversion `{text}`")
            }
            Error::MissingArgument => {
                write!(f, "the format needs more arguments than were passed")
            }
            Error::NullString => write!(f, "the argument of `%s` is a null pointer"),
            Error::NullArgument => write!(f, "an argument to store through is a null pointer"),
            Error::FieldTooLarge(n) => write!(
                f,
                "field width or precision {n} is too large (at most {MAX_FIELD} is formatted)"
            ),
            Error::Libc => write!(f, "the C library could not format a conversion"),
        }
    }
}

impl std::error::Error for Error {}

impl Conversion {
    /// The conversion as written, e.g. `%-8.3ld`.
    pub fn text(&self, fmt: &[u8]) -> String {
        String::from_utf8_lossy(&fmt[self.start..self.end]).into_owned()
    }

    /// The number of `*` fields (each reads an `int` before the value).
    pub fn stars(&self) -> usize {
        [self.width, self.precision]
            .iter()
            .filter(|c| **c == Some(Count::Star))
            .count()
    }

    /// What the conversion reads, or [`Error::Unknown`] if the
    /// combination is not one parc formats (see the crate doc).
    pub fn arg(&self, fmt: &[u8]) -> Result<Arg, Error> {
        use Length as L;
        let wide = matches!(self.length, L::L | L::Ll);
        Ok(match (self.conv, self.length) {
            (b'd' | b'i' | b'u' | b'o' | b'x' | b'X', L::None | L::H | L::Hh) => Arg::Int,
            (b'd' | b'i' | b'u' | b'o' | b'x' | b'X', _) if wide => Arg::Long,
            (b'c', L::None) => Arg::Int,
            (b's', L::None) => Arg::Str,
            (b'p', L::None) => Arg::Ptr,
            (
                b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A',
                L::None | L::L | L::LongDouble,
            ) => Arg::Double,
            _ => return Err(Error::Unknown(self.text(fmt))),
        })
    }
}

/// The pieces of `fmt` in order; stops at the first malformed conversion.
pub fn parse(fmt: &[u8]) -> impl Iterator<Item = Result<Piece, Error>> + '_ {
    let mut i = 0;
    let mut failed = false;
    std::iter::from_fn(move || {
        if i >= fmt.len() || failed {
            return None;
        }
        let piece = next_piece(fmt, &mut i);
        failed = piece.is_err();
        Some(piece)
    })
}

/// Every conversion of `fmt` with what it reads, in order; the first
/// error if the format is malformed or has a conversion parc does not
/// support.
pub fn conversions(fmt: &[u8]) -> Result<Vec<(Conversion, Arg)>, Error> {
    let mut out = Vec::new();
    for piece in parse(fmt) {
        if let Piece::Conv(c) = piece? {
            let arg = c.arg(fmt)?;
            out.push((c, arg));
        }
    }
    Ok(out)
}

fn next_piece(f: &[u8], i: &mut usize) -> Result<Piece, Error> {
    let start = *i;
    if f[start] != b'%' {
        let end = f[start..]
            .iter()
            .position(|&c| c == b'%')
            .map_or(f.len(), |n| start + n);
        *i = end;
        return Ok(Piece::Text { start, end });
    }
    *i += 1;
    if f.get(*i) == Some(&b'%') {
        *i += 1;
        return Ok(Piece::Percent);
    }
    let mut flags = Vec::new();
    while let Some(&c @ (b'-' | b'+' | b' ' | b'#' | b'0')) = f.get(*i) {
        flags.push(c);
        *i += 1;
    }
    let width = count(f, i);
    let precision = if f.get(*i) == Some(&b'.') {
        *i += 1;
        Some(count(f, i).unwrap_or(Count::Given(0)))
    } else {
        None
    };
    let length = length_modifier(f, i, false);
    let Some(&conv) = f.get(*i) else {
        return Err(Error::Incomplete(
            String::from_utf8_lossy(&f[start..]).into_owned(),
        ));
    };
    *i += 1;
    Ok(Piece::Conv(Conversion {
        start,
        end: *i,
        flags,
        width,
        precision,
        length,
        conv,
    }))
}

/// A width or precision: `*`, digits, or nothing.
fn count(f: &[u8], i: &mut usize) -> Option<Count> {
    if f.get(*i) == Some(&b'*') {
        *i += 1;
        return Some(Count::Star);
    }
    let start = *i;
    let mut n: u64 = 0;
    while let Some(d) = f.get(*i).filter(|c| c.is_ascii_digit()) {
        n = n.saturating_mul(10).saturating_add(u64::from(d - b'0'));
        *i += 1;
    }
    (*i > start).then_some(Count::Given(n))
}

/// The length modifier at `f[*i..]` (`hh h l ll z j t L`, and `q` as
/// `L` where `q_is_long_double`: scanf's BSD spelling), moving `*i` past it.
pub(crate) fn length_modifier(f: &[u8], i: &mut usize, q_is_long_double: bool) -> Length {
    let mut length = Length::None;
    while let Some(&c) = f.get(*i) {
        length = match (length, c) {
            (Length::None, b'h') => Length::H,
            (Length::H, b'h') => Length::Hh,
            (Length::None, b'l') => Length::L,
            (Length::L, b'l') => Length::Ll,
            (Length::None, b'z' | b'j' | b't') => Length::Ll,
            (Length::None, b'L') => Length::LongDouble,
            (Length::None, b'q') if q_is_long_double => Length::LongDouble,
            _ => break,
        };
        *i += 1;
    }
    length
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(f: &str) -> Result<Vec<Arg>, Error> {
        conversions(f.as_bytes()).map(|v| v.into_iter().map(|(_, a)| a).collect())
    }

    #[test]
    fn what_each_conversion_reads() {
        assert_eq!(args("%d %i %u %x %c %hd %hhu"), Ok(vec![Arg::Int; 7]));
        assert_eq!(args("%ld %lu %lld %zu %jd %td"), Ok(vec![Arg::Long; 6]));
        assert_eq!(
            args("%f %.3e %10g %-8.2lf %La %E"),
            Ok(vec![Arg::Double; 6])
        );
        assert_eq!(args("100%% %s %p"), Ok(vec![Arg::Str, Arg::Ptr]));
        assert_eq!(args("no conversions"), Ok(vec![]));
    }

    #[test]
    fn stars_read_ints_first() {
        let c = conversions(b"%*.*f").unwrap();
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].0.stars(), 2);
        assert_eq!(c[0].0.width, Some(Count::Star));
        assert_eq!(c[0].0.precision, Some(Count::Star));
        assert_eq!(c[0].1, Arg::Double);
    }

    #[test]
    fn fields_and_flags_are_kept() {
        let c = conversions(b"x[%+-08.3ld]").unwrap();
        let (c, _) = &c[0];
        assert_eq!(c.flags, b"+-0");
        assert_eq!(c.width, Some(Count::Given(8)));
        assert_eq!(c.precision, Some(Count::Given(3)));
        assert_eq!(c.length, Length::L);
        assert_eq!(c.text(b"x[%+-08.3ld]"), "%+-08.3ld");
        // An empty precision is zero.
        let c = conversions(b"%.f").unwrap();
        assert_eq!(c[0].0.precision, Some(Count::Given(0)));
    }

    #[test]
    fn malformed_formats() {
        assert_eq!(args("%y"), Err(Error::Unknown("%y".into())));
        assert_eq!(args("%n"), Err(Error::Unknown("%n".into())));
        assert_eq!(args("%Ld"), Err(Error::Unknown("%Ld".into())));
        assert_eq!(args("%ls"), Err(Error::Unknown("%ls".into())));
        assert_eq!(args("%5%"), Err(Error::Unknown("%5%".into())));
        assert_eq!(args("50%"), Err(Error::Incomplete("%".into())));
        assert_eq!(args("%-5l"), Err(Error::Incomplete("%-5l".into())));
    }

    #[test]
    fn text_pieces_cover_the_literal_bytes() {
        let f = b"a%db%%c";
        let pieces: Vec<Piece> = parse(f).map(Result::unwrap).collect();
        assert_eq!(pieces[0], Piece::Text { start: 0, end: 1 });
        assert!(matches!(pieces[1], Piece::Conv(_)));
        assert_eq!(pieces[2], Piece::Text { start: 3, end: 4 });
        assert_eq!(pieces[3], Piece::Percent);
        assert_eq!(pieces[4], Piece::Text { start: 6, end: 7 });
        assert_eq!(pieces.len(), 5);
    }
}
