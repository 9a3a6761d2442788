//! C's `scanf` formats: the grammar of a directive ([`parse_scan`]), what
//! each conversion stores ([`ScanConv::arg`]), and scanning ([`scan`]),
//! as C99 7.19.6.2 and glibc do it.
//!
//! The checker reads a literal format to check the pointers passed; the
//! interpreter and the runtime scan with [`scan`], each giving it their
//! own input (a string in memory, or a stream) and memory through the
//! [`Scanner`] trait, so both read input the same way.
//!
//! Supported: `%d %i %u %o %x %X %f %F %e %E %g %G %a %A %s %c %[...]
//! %[^...] %n %p %%`, widths, `*` suppression, length modifiers `hh h l
//! ll z j t` on integers and `l L` on floating conversions. `%p` reads
//! what glibc's `printf` writes: a hexadecimal number (`0x` optional, as
//! `%lx` reads it) or `(nil)`, a null pointer. Not supported: wide
//! characters (`%ls`, `%lc`), `%m`, positional arguments.

use crate::{Error, Length};

/// One directive of a `scanf` format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScanPiece {
    /// One or more white-space characters: skips any white space.
    Space,
    /// An ordinary byte, which the input must match.
    Byte(u8),
    Conv(ScanConv),
}

/// One conversion specification, `%` to the conversion character (or to
/// the `]` closing a scan set).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScanConv {
    /// `fmt[start..end]` is its text.
    pub start: usize,
    pub end: usize,
    /// `*`: read, but store nothing and take no argument.
    pub suppress: bool,
    pub width: Option<u64>,
    pub length: Length,
    /// The conversion character; `[` for a scan set, `%` for `%%`.
    pub conv: u8,
    /// A scan set: which bytes it matches (the `^` already applied).
    pub set: Option<Box<[bool; 256]>>,
}

/// What a conversion stores through its argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanArg {
    /// An integer of this many bytes (`%hhd`: 1, `%hd`: 2, `%d`: 4,
    /// `%ld`: 8); `%n` too.
    Int(u8),
    /// A `float` (`%f`).
    Float,
    /// A `double` (`%lf`, `%Lf`).
    Double,
    /// Bytes into a `char` array (`%s`, `%c`, `%[`).
    Chars,
    /// A pointer (`%p`): 8 bytes.
    Ptr,
}

impl ScanArg {
    /// The pointer it needs, in words, for diagnostics.
    pub fn describe(self) -> &'static str {
        match self {
            ScanArg::Int(1) => "a `char*`",
            ScanArg::Int(2) => "a `short*`",
            ScanArg::Int(4) => "an `int*`",
            ScanArg::Int(_) => "a `long*`",
            ScanArg::Float => "a `float*`",
            ScanArg::Double => "a `double*`",
            ScanArg::Chars => "a `char*` array",
            ScanArg::Ptr => "a `void**`",
        }
    }
}

impl ScanConv {
    /// The conversion as written, e.g. `%*10[^,]`.
    pub fn text(&self, fmt: &[u8]) -> String {
        String::from_utf8_lossy(&fmt[self.start..self.end]).into_owned()
    }

    /// What it stores, `None` for `%%` and suppressed conversions (they
    /// take no argument), or [`Error::Unknown`] for a combination parc
    /// does not scan (see the module doc).
    pub fn arg(&self, fmt: &[u8]) -> Result<Option<ScanArg>, Error> {
        // `%*n` stores nothing, as glibc reads it.
        Ok(self.stores(fmt)?.filter(|_| !self.suppress))
    }

    /// What it reads, whether or not it is suppressed.
    fn stores(&self, fmt: &[u8]) -> Result<Option<ScanArg>, Error> {
        use Length as L;
        let int = |l: Length| match l {
            L::Hh => Some(1),
            L::H => Some(2),
            L::None => Some(4),
            L::L | L::Ll => Some(8),
            L::LongDouble => None,
        };
        let arg = match self.conv {
            b'd' | b'i' | b'u' | b'o' | b'x' | b'X' | b'n' => int(self.length).map(ScanArg::Int),
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => match self.length {
                L::None => Some(ScanArg::Float),
                L::L | L::LongDouble => Some(ScanArg::Double),
                _ => None,
            },
            b's' | b'c' | b'[' if self.length == L::None => Some(ScanArg::Chars),
            b'p' if self.length == L::None => Some(ScanArg::Ptr),
            b'%' if self.length == L::None && self.width.is_none() && !self.suppress => {
                return Ok(None);
            }
            _ => None,
        };
        arg.map(Some).ok_or_else(|| Error::Unknown(self.text(fmt)))
    }
}

/// The directives of `fmt` in order; the first error if it is malformed
/// or has a conversion parc does not scan.
pub fn parse_scan(fmt: &[u8]) -> Result<Vec<ScanPiece>, Error> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        if c.is_ascii_whitespace() {
            while fmt.get(i).is_some_and(u8::is_ascii_whitespace) {
                i += 1;
            }
            out.push(ScanPiece::Space);
            continue;
        }
        if c != b'%' {
            out.push(ScanPiece::Byte(c));
            i += 1;
            continue;
        }
        let conv = scan_conv(fmt, &mut i)?;
        conv.arg(fmt)?;
        out.push(ScanPiece::Conv(conv));
    }
    Ok(out)
}

fn scan_conv(f: &[u8], i: &mut usize) -> Result<ScanConv, Error> {
    let start = *i;
    let incomplete = || Error::Incomplete(String::from_utf8_lossy(&f[start..]).into_owned());
    *i += 1;
    let suppress = f.get(*i) == Some(&b'*');
    if suppress {
        *i += 1;
    }
    let digits = *i;
    let mut width: u64 = 0;
    while let Some(d) = f.get(*i).filter(|c| c.is_ascii_digit()) {
        width = width.saturating_mul(10).saturating_add(u64::from(d - b'0'));
        *i += 1;
    }
    let width = (*i > digits).then_some(width);
    let length = crate::length_modifier(f, i, true);
    let &conv = f.get(*i).ok_or_else(incomplete)?;
    *i += 1;
    let mut set = None;
    if conv == b'[' {
        let negated = f.get(*i) == Some(&b'^');
        if negated {
            *i += 1;
        }
        let mut members = Box::new([false; 256]);
        // A `]` first is a member, not the end.
        if f.get(*i) == Some(&b']') {
            members[usize::from(b']')] = true;
            *i += 1;
        }
        loop {
            let &c = f.get(*i).ok_or_else(incomplete)?;
            *i += 1;
            if c == b']' {
                break;
            }
            // `a-z` is a range, as glibc reads it; `-` first or last is
            // itself.
            if f.get(*i) == Some(&b'-') && f.get(*i + 1).is_some_and(|&h| h != b']' && h >= c) {
                for b in c..=f[*i + 1] {
                    members[usize::from(b)] = true;
                }
                *i += 2;
            } else {
                members[usize::from(c)] = true;
            }
        }
        if negated {
            for m in members.iter_mut() {
                *m = !*m;
            }
        }
        set = Some(members);
    }
    Ok(ScanConv {
        start,
        end: *i,
        suppress,
        width,
        length,
        conv,
        set,
    })
}

/// The input and the memory of one `scanf` call.
pub trait Scanner {
    /// The caller's error: its own faults (a bad store) and [`Error`].
    type Error: From<Error>;

    /// The next input byte, `None` at the end of the input.
    fn next(&mut self) -> Result<Option<u8>, Self::Error>;

    /// Gives back the byte [`Scanner::next`] returned last.
    fn unget(&mut self, byte: u8) -> Result<(), Self::Error>;

    /// Stores `bytes` at `addr` (an argument of the call).
    fn store(&mut self, addr: u64, bytes: &[u8]) -> Result<(), Self::Error>;
}

/// Why scanning stopped early.
enum Stop {
    /// The input ended (or failed).
    Input,
    /// The input did not match.
    Matching,
}

/// Input as a conversion reads it: counts bytes, stops at its width.
struct Reader<'a, S: Scanner> {
    s: &'a mut S,
    /// Bytes consumed so far by the call (for `%n`).
    count: u64,
    /// Bytes this field may still read.
    left: u64,
    /// Whether [`Reader::peek`] met the end of the input.
    eof: bool,
}

impl<S: Scanner> Reader<'_, S> {
    /// The next byte if the field may read it, without consuming it.
    fn peek(&mut self) -> Result<Option<u8>, S::Error> {
        if self.left == 0 {
            return Ok(None);
        }
        match self.s.next()? {
            Some(b) => {
                self.s.unget(b)?;
                Ok(Some(b))
            }
            None => {
                self.eof = true;
                Ok(None)
            }
        }
    }

    /// Consumes the byte [`Reader::peek`] returned.
    fn take(&mut self) -> Result<u8, S::Error> {
        let b = self.s.next()?.ok_or(Error::Libc)?;
        self.count += 1;
        self.left -= 1;
        Ok(b)
    }

    /// Consumes the next byte if `want` accepts it.
    fn take_if(&mut self, want: impl Fn(u8) -> bool) -> Result<Option<u8>, S::Error> {
        match self.peek()? {
            Some(b) if want(b) => self.take().map(Some),
            _ => Ok(None),
        }
    }

    fn eof_reset(&mut self) -> &mut Self {
        self.eof = false;
        self
    }

    fn skip_space(&mut self) -> Result<(), S::Error> {
        let left = std::mem::replace(&mut self.left, u64::MAX);
        while self.take_if(|b| b.is_ascii_whitespace())?.is_some() {}
        self.left = left;
        Ok(())
    }
}

/// Scans the input of `s` as `fmt` says, storing through `args` (the
/// pointers after the format, in order): the number of items assigned,
/// or `EOF` (-1) if the input ended before anything was assigned, as
/// glibc returns.
pub fn scan<S: Scanner>(fmt: &[u8], s: &mut S, args: &[u64]) -> Result<i32, S::Error> {
    let pieces = parse_scan(fmt)?;
    let mut r = Reader {
        s,
        count: 0,
        left: u64::MAX,
        eof: false,
    };
    let mut args = args.iter();
    let mut assigned = 0;
    for p in &pieces {
        let stop = match p {
            ScanPiece::Space => {
                r.skip_space()?;
                None
            }
            ScanPiece::Byte(b) => match r.eof_reset().take_if(|c| c == *b)? {
                Some(_) => None,
                None if r.eof => Some(Stop::Input),
                None => Some(Stop::Matching),
            },
            ScanPiece::Conv(c) => {
                let dest = match c.arg(fmt)? {
                    Some(_) => Some(*args.next().ok_or(Error::MissingArgument)?),
                    None => None,
                };
                match convert(c, &mut r, dest)? {
                    Ok(stored) => {
                        if stored && c.conv != b'n' {
                            assigned += 1;
                        }
                        None
                    }
                    Err(stop) => Some(stop),
                }
            }
        };
        match stop {
            None => {}
            Some(Stop::Input) if assigned == 0 => return Ok(-1),
            Some(_) => break,
        }
    }
    Ok(assigned)
}

/// One conversion: whether it stored, or why it stopped the call.
fn convert<S: Scanner>(
    c: &ScanConv,
    r: &mut Reader<'_, S>,
    dest: Option<u64>,
) -> Result<Result<bool, Stop>, S::Error> {
    if !matches!(c.conv, b'[' | b'c' | b'n') {
        r.skip_space()?;
    }
    let bytes_of = |v: u64, n: usize| v.to_le_bytes()[..n].to_vec();
    if c.conv == b'n' {
        if let (Some(d), Some(ScanArg::Int(n))) = (dest, c.arg(&[]).ok().flatten()) {
            store(r.s, d, &bytes_of(r.count, usize::from(n)))?;
        }
        return Ok(Ok(dest.is_some()));
    }
    r.left = c.width.filter(|&w| w > 0).unwrap_or(match c.conv {
        b'c' => 1,
        _ => u64::MAX,
    });
    r.eof = false;
    let mut text = Vec::new();
    let what = match c.conv {
        b'%' => {
            return Ok(match r.take_if(|b| b == b'%')? {
                Some(_) => Ok(false),
                None if r.eof => Err(Stop::Input),
                None => Err(Stop::Matching),
            });
        }
        b'c' => {
            while let Some(b) = r.take_if(|_| true)? {
                text.push(b);
            }
            Field::Bytes
        }
        b's' => {
            while let Some(b) = r.take_if(|b| !b.is_ascii_whitespace())? {
                text.push(b);
            }
            Field::String
        }
        b'[' => {
            let set = c.set.as_deref().ok_or(Error::Libc)?;
            while let Some(b) = r.take_if(|b| set[usize::from(b)])? {
                text.push(b);
            }
            Field::String
        }
        b'd' => integer(r, 10, &mut text)?,
        b'i' => integer(r, 0, &mut text)?,
        b'u' => integer(r, 10, &mut text)?,
        b'o' => integer(r, 8, &mut text)?,
        b'x' | b'X' => integer(r, 16, &mut text)?,
        b'p' => {
            let field = integer(r, 16, &mut text)?;
            // No number, not even a sign: glibc takes `(nil)` (any case)
            // as the null pointer its `printf` writes, when the width
            // leaves room for it.
            if text.is_empty() && r.left >= 5 && r.take_if(|b| b == b'(')?.is_some() {
                for want in *b"nil" {
                    if r.take_if(|b| b.to_ascii_lowercase() == want)?.is_none() {
                        return Ok(Err(Stop::Matching));
                    }
                }
                if r.take_if(|b| b == b')')?.is_none() {
                    return Ok(Err(Stop::Matching));
                }
                text.push(b'0');
            }
            field
        }
        _ => floating(r, &mut text)?,
    };
    r.left = u64::MAX;
    if text.is_empty() {
        return Ok(Err(if r.eof { Stop::Input } else { Stop::Matching }));
    }
    let stored = match (what, c.stores(&[]).ok().flatten()) {
        (Field::Bytes, _) => text,
        (Field::String, _) => {
            text.push(0);
            text
        }
        (Field::Int { radix, signed }, Some(ScanArg::Int(n))) => {
            match to_int(&text, radix, signed) {
                Some(v) => bytes_of(v, usize::from(n)),
                None => return Ok(Err(Stop::Matching)),
            }
        }
        (Field::Int { radix, signed }, Some(ScanArg::Ptr)) => match to_int(&text, radix, signed) {
            Some(v) => bytes_of(v, 8),
            None => return Ok(Err(Stop::Matching)),
        },
        (Field::Float, Some(a)) => {
            let s = std::str::from_utf8(&text).unwrap_or("");
            let (neg, body) = match s.as_bytes().first() {
                Some(b'-') => (true, &s[1..]),
                Some(b'+') => (false, &s[1..]),
                _ => (false, s),
            };
            let parsed = parse_float(body);
            let Some(v) = parsed.map(|v| if neg { -v } else { v }) else {
                return Ok(Err(Stop::Matching));
            };
            if a == ScanArg::Float {
                // Rounded once, from the text, as `strtof` does.
                let f = body
                    .parse::<f32>()
                    .map_or(v as f32, |f| if neg { -f } else { f });
                f.to_le_bytes().to_vec()
            } else {
                v.to_le_bytes().to_vec()
            }
        }
        _ => return Err(Error::Libc.into()),
    };
    let Some(d) = dest else {
        return Ok(Ok(false));
    };
    store(r.s, d, &stored)?;
    Ok(Ok(true))
}

/// Stores through argument `addr`, which must not be null.
fn store<S: Scanner>(s: &mut S, addr: u64, bytes: &[u8]) -> Result<(), S::Error> {
    if addr == 0 {
        return Err(Error::NullArgument.into());
    }
    s.store(addr, bytes)
}

/// What a field's text is.
enum Field {
    /// `%c`: the bytes as they are.
    Bytes,
    /// `%s`, `%[`: the bytes and a NUL.
    String,
    /// An integer in `radix` (0: as C writes it, `%i`).
    Int {
        radix: u32,
        signed: bool,
    },
    Float,
}

/// Reads the longest prefix of an integer in `radix` (0: decimal, octal
/// after `0`, hexadecimal after `0x`) into `text`.
fn integer<S: Scanner>(
    r: &mut Reader<'_, S>,
    mut radix: u32,
    text: &mut Vec<u8>,
) -> Result<Field, S::Error> {
    let signed = radix == 10 || radix == 0;
    if let Some(b) = r.take_if(|b| b == b'+' || b == b'-')? {
        text.push(b);
    }
    if (radix == 0 || radix == 16)
        && let Some(z) = r.take_if(|b| b == b'0')?
    {
        text.push(z);
        if let Some(x) = r.take_if(|b| b == b'x' || b == b'X')? {
            text.push(x);
            radix = 16;
        } else if radix == 0 {
            radix = 8;
        }
    }
    if radix == 0 {
        radix = 10;
    }
    while let Some(d) = r.take_if(|b| (b as char).is_digit(radix))? {
        text.push(d);
    }
    Ok(Field::Int { radix, signed })
}

/// The value of an integer's text, saturated as `strtol` (signed) or
/// `strtoul` does; `None` if it has no digits.
fn to_int(text: &[u8], radix: u32, signed: bool) -> Option<u64> {
    let (neg, mut body) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if radix == 16 && body.len() >= 2 && body[0] == b'0' && matches!(body[1], b'x' | b'X') {
        body = &body[2..];
        if body.is_empty() {
            // `0x` with no digit: glibc reads the `0`.
            return Some(0);
        }
    }
    let mut v: u128 = 0;
    for &b in body {
        v = v * u128::from(radix) + u128::from((b as char).to_digit(radix)?);
        v = v.min(u128::from(u64::MAX) + 1);
    }
    if body.is_empty() {
        return None;
    }
    Some(if signed {
        let v = if neg { -(v as i128) } else { v as i128 };
        v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64 as u64
    } else if v > u128::from(u64::MAX) {
        u64::MAX
    } else if neg {
        (v as u64).wrapping_neg()
    } else {
        v as u64
    })
}

/// Reads the longest prefix of a floating constant (decimal, `inf`,
/// `nan`) into `text`.
fn floating<S: Scanner>(r: &mut Reader<'_, S>, text: &mut Vec<u8>) -> Result<Field, S::Error> {
    if let Some(b) = r.take_if(|b| b == b'+' || b == b'-')? {
        text.push(b);
    }
    let digits = |r: &mut Reader<'_, S>, text: &mut Vec<u8>| -> Result<usize, S::Error> {
        let mut n = 0;
        while let Some(d) = r.take_if(|b| b.is_ascii_digit())? {
            text.push(d);
            n += 1;
        }
        Ok(n)
    };
    if let Some(first) = r.take_if(|b| matches!(b.to_ascii_lowercase(), b'i' | b'n'))? {
        text.push(first);
        let rest: &[u8] = if first.eq_ignore_ascii_case(&b'i') {
            b"nfinity"
        } else {
            b"an"
        };
        for (k, &want) in rest.iter().enumerate() {
            match r.take_if(|b| b.to_ascii_lowercase() == want)? {
                Some(b) => text.push(b),
                // `inf` is complete after three letters.
                None if first.eq_ignore_ascii_case(&b'i') && k == 2 => break,
                None => {
                    text.push(b'!');
                    break;
                }
            }
        }
        return Ok(Field::Float);
    }
    let mut n = digits(r, text)?;
    if let Some(dot) = r.take_if(|b| b == b'.')? {
        text.push(dot);
        n += digits(r, text)?;
    }
    if n == 0 {
        if !text.is_empty() {
            text.push(b'!');
        }
        return Ok(Field::Float);
    }
    if let Some(e) = r.take_if(|b| b == b'e' || b == b'E')? {
        text.push(e);
        if let Some(s) = r.take_if(|b| b == b'+' || b == b'-')? {
            text.push(s);
        }
        if digits(r, text)? == 0 {
            text.push(b'!');
        }
    }
    Ok(Field::Float)
}

/// The value of a floating field's text without its sign; `None` if it
/// is not a whole number (a `!` marks text read that cannot be one).
fn parse_float(body: &str) -> Option<f64> {
    if body.contains('!') {
        return None;
    }
    let lower = body.to_ascii_lowercase();
    match lower.as_str() {
        "inf" | "infinity" => Some(f64::INFINITY),
        "nan" => Some(f64::NAN),
        _ => body.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A string and a memory of cells, addressed by index + 1 (0 is
    /// null).
    struct Str<'a> {
        input: &'a [u8],
        at: usize,
        cells: Vec<Vec<u8>>,
    }

    impl Scanner for Str<'_> {
        type Error = Error;
        fn next(&mut self) -> Result<Option<u8>, Error> {
            let b = self.input.get(self.at).copied();
            self.at += usize::from(b.is_some());
            Ok(b)
        }
        fn unget(&mut self, _: u8) -> Result<(), Error> {
            self.at -= 1;
            Ok(())
        }
        fn store(&mut self, addr: u64, bytes: &[u8]) -> Result<(), Error> {
            self.cells[addr as usize - 1] = bytes.to_vec();
            Ok(())
        }
    }

    fn run(input: &str, fmt: &str, n: usize) -> (i32, Vec<Vec<u8>>) {
        let mut s = Str {
            input: input.as_bytes(),
            at: 0,
            cells: vec![Vec::new(); n],
        };
        let args: Vec<u64> = (1..=n as u64).collect();
        let r = scan(fmt.as_bytes(), &mut s, &args).unwrap();
        (r, s.cells)
    }

    fn int(cell: &[u8]) -> i32 {
        i32::from_le_bytes(cell.try_into().unwrap())
    }

    #[test]
    fn integers_and_counts() {
        let (r, c) = run(" 12 -7 0x1f 017", "%d%d%i%i", 4);
        assert_eq!(r, 4);
        assert_eq!(
            [int(&c[0]), int(&c[1]), int(&c[2]), int(&c[3])],
            [12, -7, 31, 15]
        );
        let (r, c) = run("abc", "%d", 1);
        assert_eq!((r, c[0].len()), (0, 0));
        assert_eq!(run("", "%d", 1).0, -1);
        assert_eq!(run("   ", "%d", 1).0, -1);
        assert_eq!(run("5", "%d %d", 2).0, 1);
        let (r, c) = run("12345", "%2d%n", 2);
        assert_eq!((r, int(&c[0]), int(&c[1])), (1, 12, 2));
    }

    #[test]
    fn strings_sets_and_chars() {
        let (r, c) = run("ab,cd x", "%[^,],%s %c", 3);
        assert_eq!(r, 3);
        assert_eq!(c[0], b"ab\0");
        assert_eq!(c[1], b"cd\0");
        assert_eq!(c[2], b"x");
        let (r, c) = run("hello", "%3s", 1);
        assert_eq!((r, c[0].as_slice()), (1, &b"hel\0"[..]));
        assert_eq!(run(",x", "%[a-z]", 1).0, 0);
        assert_eq!(run("a1", "%*[a-z]%d", 1).0, 1);
    }

    #[test]
    fn floats() {
        let (r, c) = run("2.5e1 -inf x", "%lf %f", 2);
        assert_eq!(r, 2);
        assert_eq!(f64::from_le_bytes(c[0].clone().try_into().unwrap()), 25.0);
        assert_eq!(
            f32::from_le_bytes(c[1].clone().try_into().unwrap()),
            f32::NEG_INFINITY
        );
        assert_eq!(run(".x", "%lf", 1).0, 0);
    }

    #[test]
    fn pointers_as_glibc_prints_them() {
        let ptr = |cell: &[u8]| u64::from_le_bytes(cell.try_into().unwrap());
        let (r, c) = run("0x7ffd1f (nil) 1f -1 (NIL)", "%p %p %p %p %p", 5);
        assert_eq!(r, 5);
        let got: Vec<u64> = c.iter().map(|c| ptr(c)).collect();
        assert_eq!(got, [0x7ffd1f, 0, 0x1f, u64::MAX, 0]);
        // A broken `(nil)`, or a width too small for it, does not match.
        assert_eq!(run("(nul)", "%p", 1).0, 0);
        assert_eq!(run("(nil)", "%4p", 1).0, 0);
        assert_eq!(run("x", "%p", 1).0, 0);
    }

    #[test]
    fn a_null_argument_is_an_error() {
        let mut s = Str {
            input: b"1",
            at: 0,
            cells: vec![],
        };
        assert_eq!(scan(b"%d", &mut s, &[0]), Err(Error::NullArgument));
        assert_eq!(scan(b"%d", &mut s, &[]), Err(Error::MissingArgument));
    }

    #[test]
    fn what_each_conversion_stores() {
        let args = |f: &str| -> Result<Vec<Option<ScanArg>>, Error> {
            parse_scan(f.as_bytes())?
                .iter()
                .filter_map(|p| match p {
                    ScanPiece::Conv(c) => Some(c.arg(f.as_bytes())),
                    _ => None,
                })
                .collect()
        };
        use ScanArg::*;
        assert_eq!(
            args("%d %hhd %hd %ld %lld %f %lf %s %*d %%"),
            Ok(vec![
                Some(Int(4)),
                Some(Int(1)),
                Some(Int(2)),
                Some(Int(8)),
                Some(Int(8)),
                Some(Float),
                Some(Double),
                Some(Chars),
                None,
                None
            ])
        );
        assert_eq!(args("%p %*p"), Ok(vec![Some(Ptr), None]));
        assert_eq!(args("%lp"), Err(Error::Unknown("%lp".into())));
        assert_eq!(args("%ls"), Err(Error::Unknown("%ls".into())));
        assert_eq!(args("%[abc"), Err(Error::Incomplete("%[abc".into())));
        assert_eq!(args("%"), Err(Error::Incomplete("%".into())));
    }
}
