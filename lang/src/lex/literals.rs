//! The values of literals: integer and floating constants (decimal,
//! octal, hexadecimal, hexadecimal floats, suffixes; C's rules for an
//! integer constant's type), and character and string literals after C's
//! escape processing. A malformed literal is reported and still yields a
//! value, so the parser sees a token.

use super::{Number, Token};
use crate::ast::{IntSuffix, Span};
use crate::diag::Diagnostic;
use logos::Lexer;

/// Classifies and converts a numeric literal (see the regex on
/// [`Token::Number`]). Malformed literals are reported and become `0`.
pub(super) fn lex_number(lex: &mut Lexer<Token>) -> Number {
    let text = lex.slice();
    let span = Span::new(lex.span().start, lex.span().end);
    match convert_number(text) {
        Ok(n) => n,
        Err((message, help)) => {
            let mut d = Diagnostic::error(span, message).with_label("invalid number");
            if let Some(h) = help {
                d = d.with_help(h);
            }
            lex.extras.push(d);
            Number::Int {
                value: 0,
                suffix: IntSuffix::None,
                decimal: true,
            }
        }
    }
}

type NumError = (String, Option<String>);

/// Converts the text of a numeric literal.
fn convert_number(text: &str) -> Result<Number, NumError> {
    let bytes = text.as_bytes();
    if bytes.len() >= 2 && bytes[0] == b'0' && (bytes[1] == b'x' || bytes[1] == b'X') {
        if text.contains(['p', 'P']) || text.contains('.') {
            return hex_float(text);
        }
        let digits_end = 2 + bytes[2..]
            .iter()
            .take_while(|b| b.is_ascii_hexdigit())
            .count();
        if digits_end == 2 {
            return Err((
                "hexadecimal literal has no digits".to_owned(),
                Some("write digits after `0x`, e.g. `0x1F`".to_owned()),
            ));
        }
        let value = accumulate(&text[2..digits_end], 16)?;
        let suffix = int_suffix(&text[digits_end..])?;
        return Ok(Number::Int {
            value,
            suffix,
            decimal: false,
        });
    }
    // Decimal or octal integer, or decimal floating literal:
    // digits [. digits] [e[+-]digits] suffix
    let int_end = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    let mut end = int_end;
    let mut is_float_syntax = false;
    if bytes.get(end) == Some(&b'.') {
        is_float_syntax = true;
        end += 1;
        end += bytes[end..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
    }
    if matches!(bytes.get(end), Some(b'e' | b'E')) {
        let mut e = end + 1;
        if matches!(bytes.get(e), Some(b'+' | b'-')) {
            e += 1;
        }
        let exp_digits = bytes[e.min(bytes.len())..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if exp_digits > 0 {
            is_float_syntax = true;
            end = e + exp_digits;
        } else {
            return Err((
                format!("exponent of `{text}` has no digits"),
                Some("write digits after the `e`, e.g. `1e-3`".to_owned()),
            ));
        }
    }
    let number = &text[..end];
    let suffix = &text[end..];
    if is_float_syntax {
        let is_float = match suffix {
            "" => false,
            "f" | "F" => true,
            // `long double` is `double` in parc (LANGUAGE.md).
            "l" | "L" => false,
            _ => {
                return Err((
                    format!("invalid suffix `{suffix}` on floating literal"),
                    Some(
                        "the floating suffixes are `f` (for `float`) and `L` (`long double`)"
                            .to_owned(),
                    ),
                ));
            }
        };
        // Rust's float parser accepts exactly C's decimal forms here
        // (`1.`, `.5`, `1e3`, `1.e3`) and rounds correctly.
        let value = if is_float {
            number.parse::<f32>().map(f64::from)
        } else {
            number.parse::<f64>()
        };
        return match value {
            Ok(v) if v.is_infinite() => Err((
                format!(
                    "floating literal `{text}` is too large for `{}`",
                    if is_float { "float" } else { "double" }
                ),
                None,
            )),
            Ok(value) => Ok(Number::Float { value, is_float }),
            Err(_) => Err((format!("invalid floating literal `{text}`"), None)),
        };
    }
    if suffix.starts_with(['f', 'F']) {
        return Err((
            format!("invalid suffix `{suffix}` on integer literal"),
            Some(format!("write `{number}.0{suffix}` for a `float`")),
        ));
    }
    let suffix = int_suffix(suffix)?;
    let decimal = !(number.len() > 1 && number.starts_with('0'));
    let value = if !decimal {
        if let Some(bad) = number.chars().find(|c| !('0'..='7').contains(c)) {
            return Err((
                format!("invalid digit `{bad}` in octal literal `{number}`"),
                Some(
                    "a leading `0` makes a literal octal; remove it for a decimal number"
                        .to_owned(),
                ),
            ));
        }
        accumulate(&number[1..], 8)?
    } else {
        accumulate(number, 10)?
    };
    Ok(Number::Int {
        value,
        suffix,
        decimal,
    })
}

/// A hexadecimal floating literal (C99): `0x1.8p3`, `0x.4p-2f`. The value
/// is the hexadecimal mantissa times two to the binary exponent; the
/// mantissa converts to the literal's type with one rounding (Rust's
/// integer-to-float casts round correctly) and the power of two scales it
/// exactly unless the result is subnormal.
fn hex_float(text: &str) -> Result<Number, NumError> {
    let body = &text[2..];
    let p = body.find(['p', 'P']).ok_or_else(|| {
        (
            format!("hexadecimal floating literal `{text}` has no exponent"),
            Some("write a binary exponent after the digits, e.g. `0x1.8p3`".to_owned()),
        )
    })?;
    let (mantissa, rest) = (&body[..p], &body[p + 1..]);
    let (int_digits, frac_digits) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int_digits.is_empty() && frac_digits.is_empty() {
        return Err((
            format!("hexadecimal floating literal `{text}` has no digits"),
            None,
        ));
    }
    let exp_len = rest
        .char_indices()
        .take_while(|&(i, c)| c.is_ascii_digit() || (i == 0 && (c == '+' || c == '-')))
        .count();
    let (exp_text, suffix) = rest.split_at(exp_len);
    let exp: i64 = exp_text.parse().map_err(|_| {
        (
            format!("exponent of `{text}` has no digits"),
            Some("write digits after the `p`, e.g. `0x1p-3`".to_owned()),
        )
    })?;
    let is_float = match suffix {
        "" | "l" | "L" => false,
        "f" | "F" => true,
        _ => {
            return Err((
                format!("invalid suffix `{suffix}` on floating literal"),
                Some(
                    "the floating suffixes are `f` (for `float`) and `L` (`long double`)"
                        .to_owned(),
                ),
            ));
        }
    };
    // Leading zeros do not count; a mantissa beyond 128 bits keeps its
    // leading 30 hexadecimal digits (far beyond a double's precision).
    let digits: String = format!("{int_digits}{frac_digits}")
        .trim_start_matches('0')
        .to_owned();
    let kept = digits.len().min(30);
    let dropped = (digits.len() - kept) as i64;
    let m = accumulate(&digits[..kept], 16)?;
    let scale = exp
        .saturating_sub(4 * frac_digits.len() as i64)
        .saturating_add(4 * dropped);
    let value = if is_float {
        f64::from(scale2_f32(m as f32, scale))
    } else {
        scale2(m as f64, scale)
    };
    if value.is_infinite() {
        return Err((
            format!(
                "floating literal `{text}` is too large for `{}`",
                if is_float { "float" } else { "double" }
            ),
            None,
        ));
    }
    Ok(Number::Float { value, is_float })
}

/// `x * 2^e`, in steps whose factors are exact powers of two.
fn scale2(mut x: f64, mut e: i64) -> f64 {
    while e != 0 && x != 0.0 && x.is_finite() {
        let step = e.clamp(-1000, 1000);
        x *= f64::from_bits(((step + 1023) as u64) << 52);
        e -= step;
    }
    x
}

fn scale2_f32(mut x: f32, mut e: i64) -> f32 {
    while e != 0 && x != 0.0 && x.is_finite() {
        let step = e.clamp(-120, 120);
        x *= f32::from_bits(((step + 127) as u32) << 23);
        e -= step;
    }
    x
}

pub(super) fn accumulate(digits: &str, radix: u32) -> Result<u128, NumError> {
    let mut value: u128 = 0;
    for c in digits.chars() {
        let d = c.to_digit(radix).unwrap_or(0);
        value = value
            .checked_mul(u128::from(radix))
            .and_then(|v| v.checked_add(u128::from(d)))
            .ok_or_else(|| ("integer literal is too large".to_owned(), None))?;
    }
    Ok(value)
}

fn int_suffix(suffix: &str) -> Result<IntSuffix, NumError> {
    match suffix.to_ascii_lowercase().as_str() {
        "" => Ok(IntSuffix::None),
        "u" => Ok(IntSuffix::Unsigned),
        "l" | "ll" => Ok(IntSuffix::Long),
        "ul" | "lu" | "ull" | "llu" => Ok(IntSuffix::UnsignedLong),
        _ => Err((
            format!("invalid suffix `{suffix}` on integer literal"),
            Some("integer suffixes are `u`, `l`, `ul`, `ll` and `ull`".to_owned()),
        )),
    }
}

/// Reads one escape sequence starting at `rest[i] == b'\\'`; `base` is the
/// byte offset of `rest` in the source (for spans). Pushes the value's bytes
/// to `out` and returns the index after the sequence. `i + 1 < rest.len()`
/// is guaranteed by the callers.
pub(super) fn escape(
    rest: &str,
    base: usize,
    i: usize,
    out: &mut Vec<u8>,
    diags: &mut Vec<Diagnostic>,
) -> usize {
    let bytes = rest.as_bytes();
    let c = bytes[i + 1];
    let simple = match c {
        b'n' => Some(b'\n'),
        b't' => Some(b'\t'),
        b'r' => Some(b'\r'),
        b'a' => Some(7),
        b'b' => Some(8),
        b'f' => Some(12),
        b'v' => Some(11),
        b'\\' => Some(b'\\'),
        b'\'' => Some(b'\''),
        b'"' => Some(b'"'),
        b'?' => Some(b'?'),
        _ => None,
    };
    if let Some(v) = simple {
        out.push(v);
        return i + 2;
    }
    match c {
        b'0'..=b'7' => {
            let n = bytes[i + 1..]
                .iter()
                .take(3)
                .take_while(|b| (b'0'..=b'7').contains(*b))
                .count();
            let mut value: u32 = 0;
            for &b in &bytes[i + 1..i + 1 + n] {
                value = value * 8 + u32::from(b - b'0');
            }
            if value > 255 {
                diags.push(
                    Diagnostic::error(
                        Span::new(base + i, base + i + 1 + n),
                        "octal escape sequence out of range",
                    )
                    .with_label("larger than 255")
                    .with_help("the largest octal escape is `\\377`"),
                );
            }
            out.push(value as u8);
            i + 1 + n
        }
        b'x' => {
            let n = bytes[i + 2..]
                .iter()
                .take_while(|b| b.is_ascii_hexdigit())
                .count();
            let span = Span::new(base + i, base + i + 2 + n);
            if n == 0 {
                diags.push(
                    Diagnostic::error(span, "`\\x` escape has no hexadecimal digits")
                        .with_label("invalid escape")
                        .with_help("write e.g. `\\x41`"),
                );
                return i + 2;
            }
            let mut value: u32 = 0;
            for &b in &bytes[i + 2..i + 2 + n] {
                let d = char::from(b).to_digit(16).unwrap_or(0);
                value = value.saturating_mul(16).saturating_add(d);
            }
            if value > 255 {
                diags.push(
                    Diagnostic::error(span, "hexadecimal escape sequence out of range")
                        .with_label("larger than 255")
                        .with_help("a `\\x` escape must fit in one byte (at most `\\xFF`)"),
                );
            }
            out.push(value as u8);
            i + 2 + n
        }
        _ => {
            // Unknown escape: C says the behaviour is undefined and gcc warns
            // and keeps the character; so do we.
            let ch = rest[i + 1..].chars().next().unwrap_or('?');
            let len = ch.len_utf8();
            diags.push(
                Diagnostic::warning(
                    Span::new(base + i, base + i + 1 + len),
                    format!("unknown escape sequence `\\{}`", ch.escape_debug()),
                )
                .with_label("unknown escape")
                .with_help("write `\\\\` for a backslash"),
            );
            let mut buf = [0; 4];
            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            i + 1 + len
        }
    }
}

/// `"..."`: reads up to the closing quote. A string cannot span lines
/// (except through a backslash-newline splice); an unterminated one ends at
/// the end of its line so lexing resumes on the next line.
pub(super) fn lex_string(lex: &mut Lexer<Token>) -> Vec<u8> {
    let start = lex.span().start;
    let base = lex.span().end;
    let rest = lex.remainder();
    let bytes = rest.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    loop {
        match bytes.get(i) {
            None | Some(b'\n') => {
                let end = if i > 0 && bytes[i - 1] == b'\r' {
                    i - 1
                } else {
                    i
                };
                lex.extras.push(
                    Diagnostic::error(Span::new(start, base + end), "unterminated string literal")
                        .with_label("this string is never closed")
                        .with_help("add a closing `\"`"),
                );
                lex.bump(i);
                return out;
            }
            Some(b'"') => {
                lex.bump(i + 1);
                return out;
            }
            Some(b'\\') => match bytes.get(i + 1) {
                None => i += 1,
                Some(b'\n') => i += 2,
                Some(b'\r') if bytes.get(i + 2) == Some(&b'\n') => i += 3,
                Some(_) => i = escape(rest, base, i, &mut out, &mut lex.extras),
            },
            Some(&b) => {
                out.push(b);
                i += 1;
            }
        }
    }
}

/// `'c'`: exactly one character or escape. Errors keep the token (value 0 or
/// the first character) so the parser sees a literal where one was meant.
pub(super) fn lex_char(lex: &mut Lexer<Token>) -> u8 {
    let start = lex.span().start;
    let base = lex.span().end;
    let rest = lex.remainder();
    let bytes = rest.as_bytes();
    let unterminated = |at: usize| {
        Diagnostic::error(
            Span::new(start, base + at),
            "unterminated character literal",
        )
        .with_label("this character literal is never closed")
        .with_help("add a closing `'`")
    };
    let mut value = Vec::new();
    let i = match bytes.first() {
        Some(b'\'') => {
            lex.extras.push(
                Diagnostic::error(Span::new(start, base + 1), "empty character literal")
                    .with_label("no character between the quotes")
                    .with_help("write `'\\0'` for a NUL character, or `'\\''` for a quote"),
            );
            lex.bump(1);
            return 0;
        }
        None | Some(b'\n' | b'\r') => {
            lex.extras.push(unterminated(0));
            return 0;
        }
        Some(b'\\') if bytes.len() >= 2 && bytes[1] != b'\n' => {
            escape(rest, base, 0, &mut value, &mut lex.extras)
        }
        Some(b'\\') => {
            lex.extras.push(unterminated(1));
            lex.bump(1);
            return 0;
        }
        Some(_) => {
            let ch = rest.chars().next().unwrap_or('\0');
            let mut buf = [0; 4];
            value.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            ch.len_utf8()
        }
    };
    if bytes.get(i) == Some(&b'\'') {
        lex.bump(i + 1);
        if value.len() > 1 {
            lex.extras.push(
                Diagnostic::error(
                    Span::new(start, base + i + 1),
                    "character literal does not fit in a `char`",
                )
                .with_label("more than one byte")
                .with_help("a `char` holds one byte; use a string literal for non-ASCII text"),
            );
        }
        return value.first().copied().unwrap_or(0);
    }
    // More text before a closing quote on this line: a multi-character
    // literal. Otherwise the quote is missing; consume only the one character
    // so that what follows (often `;` or `)`) still parses.
    let line_end = bytes
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(bytes.len());
    let tail = bytes.get(i..line_end).unwrap_or(&[]);
    match tail.iter().position(|&b| b == b'\'') {
        Some(close) => {
            let end = i + close + 1;
            lex.extras.push(
                Diagnostic::error(
                    Span::new(start, base + end),
                    "character literal contains more than one character",
                )
                .with_label("more than one character")
                .with_help("use double quotes for a string: `\"...\"`"),
            );
            lex.bump(end);
        }
        None => {
            lex.extras.push(unterminated(i));
            lex.bump(i);
        }
    }
    value.first().copied().unwrap_or(0)
}
