//! `#if` expressions (C99 6.10.1): integer constant expressions in
//! `intmax_t`/`uintmax_t` (64 bits here), after `defined` and macro
//! expansion, with every identifier left over read as 0.
//!
//! A precedence-climbing parser that evaluates as it goes; `&&`, `||` and
//! `?:` evaluate only the side they need, so `0 && 1/0` is fine. Nesting is
//! bounded (the parser proper's limit) so a hostile line cannot overflow
//! the stack.

use super::lexer::{Kind, PpTok};
use crate::ast::Span;
use crate::diag::Diagnostic;

const MAX_DEPTH: usize = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Value {
    bits: u64,
    unsigned: bool,
}

impl Value {
    fn signed(v: i64) -> Value {
        Value {
            bits: v as u64,
            unsigned: false,
        }
    }

    fn truth(self) -> bool {
        self.bits != 0
    }
}

struct Parser<'a> {
    toks: &'a [PpTok],
    pos: usize,
    /// Where the directive is, for errors at its end.
    at: Span,
    depth: usize,
}

type Result<T> = std::result::Result<T, Diagnostic>;

/// Evaluates the (expanded) tokens of an `#if` or `#elif`; `at` is the
/// directive's span.
pub fn evaluate(toks: &[PpTok], at: Span) -> Result<bool> {
    if toks.is_empty() {
        return Err(Diagnostic::error(at, "`#if` with no expression")
            .with_label("expected an expression")
            .with_help("write a condition, e.g. `#if N > 1` or `#if defined(X)`"));
    }
    let mut p = Parser {
        toks,
        pos: 0,
        at,
        depth: 0,
    };
    let v = p.expr(0, true)?;
    if let Some(t) = p.toks.get(p.pos) {
        return Err(p.error_at(t, format!("unexpected `{}` in `#if` expression", t.text)));
    }
    Ok(v.truth())
}

fn span_of(t: &PpTok) -> Span {
    Span::new(t.pos as usize, t.pos as usize + t.text.len())
}

/// Binary operators: precedence (higher binds tighter).
fn binary(op: &str) -> Option<u8> {
    Some(match op {
        "*" | "/" | "%" => 10,
        "+" | "-" => 9,
        "<<" | ">>" => 8,
        "<" | ">" | "<=" | ">=" => 7,
        "==" | "!=" => 6,
        "&" => 5,
        "^" => 4,
        "|" => 3,
        "&&" => 2,
        "||" => 1,
        _ => return None,
    })
}

impl Parser<'_> {
    fn error_at(&self, t: &PpTok, message: String) -> Diagnostic {
        // Tokens from an expansion point into the macro; the directive is
        // clearer there.
        let span = if t.expansion.is_some() {
            self.at
        } else {
            span_of(t)
        };
        Diagnostic::error(span, message).with_label("in this `#if` expression")
    }

    fn end_error(&self, what: &str) -> Diagnostic {
        Diagnostic::error(self.at, format!("`#if` expression ends early: {what}"))
            .with_label("incomplete expression")
    }

    fn peek(&self) -> Option<&PpTok> {
        self.toks.get(self.pos)
    }

    fn eat(&mut self, text: &str) -> bool {
        if self.peek().is_some_and(|t| t.is(text)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// `cond ? a : b` and binary operators at or above `min` precedence.
    fn expr(&mut self, min: u8, eval: bool) -> Result<Value> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Diagnostic::error(
                self.at,
                format!("`#if` expression nested more than {MAX_DEPTH} deep"),
            ));
        }
        let mut lhs = self.unary(eval)?;
        while let Some(t) = self.peek() {
            if t.is("?") && min == 0 {
                self.pos += 1;
                let c = lhs.truth();
                let a = self.expr(0, eval && c)?;
                if !self.eat(":") {
                    return Err(self.end_error("`?` without `:`"));
                }
                let b = self.expr(0, eval && !c)?;
                let unsigned = a.unsigned || b.unsigned;
                lhs = Value {
                    bits: if c { a.bits } else { b.bits },
                    unsigned,
                };
                continue;
            }
            if t.is(",") && min == 0 {
                self.pos += 1;
                lhs = self.expr(0, eval)?;
                continue;
            }
            let Some(prec) = (t.kind == Kind::Punct)
                .then(|| binary(&t.text))
                .flatten()
                .filter(|&p| p >= min.max(1))
            else {
                break;
            };
            let op = t.clone();
            self.pos += 1;
            let rhs_eval = match &*op.text {
                "&&" => eval && lhs.truth(),
                "||" => eval && !lhs.truth(),
                _ => eval,
            };
            let rhs = self.expr(prec + 1, rhs_eval)?;
            lhs = self.apply(&op, lhs, rhs, eval)?;
        }
        self.depth -= 1;
        Ok(lhs)
    }

    fn apply(&self, op: &PpTok, a: Value, b: Value, eval: bool) -> Result<Value> {
        let unsigned = a.unsigned || b.unsigned;
        let (x, y) = (a.bits, b.bits);
        let (sx, sy) = (x as i64, y as i64);
        let bool_v = |c: bool| Value::signed(i64::from(c));
        let arith = |bits: u64| Value { bits, unsigned };
        Ok(match &*op.text {
            "*" => arith(x.wrapping_mul(y)),
            "/" | "%" => {
                if y == 0 {
                    if !eval {
                        return Ok(arith(0));
                    }
                    return Err(self.error_at(op, "division by zero in `#if`".to_string()));
                }
                let div = op.is("/");
                arith(match (unsigned, div) {
                    (true, true) => x / y,
                    (true, false) => x % y,
                    (false, true) => sx.wrapping_div(sy) as u64,
                    (false, false) => sx.wrapping_rem(sy) as u64,
                })
            }
            "+" => arith(x.wrapping_add(y)),
            "-" => arith(x.wrapping_sub(y)),
            "<<" => Value {
                bits: if y >= 64 { 0 } else { x << y },
                unsigned: a.unsigned,
            },
            ">>" => Value {
                bits: match (a.unsigned, y >= 64) {
                    (true, true) => 0,
                    (true, false) => x >> y,
                    (false, _) => (sx >> y.min(63)) as u64,
                },
                unsigned: a.unsigned,
            },
            "<" => bool_v(if unsigned { x < y } else { sx < sy }),
            ">" => bool_v(if unsigned { x > y } else { sx > sy }),
            "<=" => bool_v(if unsigned { x <= y } else { sx <= sy }),
            ">=" => bool_v(if unsigned { x >= y } else { sx >= sy }),
            "==" => bool_v(x == y),
            "!=" => bool_v(x != y),
            "&" => arith(x & y),
            "^" => arith(x ^ y),
            "|" => arith(x | y),
            "&&" => bool_v(a.truth() && b.truth()),
            "||" => bool_v(a.truth() || b.truth()),
            _ => return Err(self.error_at(op, format!("`{}` in `#if`", op.text))),
        })
    }

    fn unary(&mut self, eval: bool) -> Result<Value> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Diagnostic::error(
                self.at,
                format!("`#if` expression nested more than {MAX_DEPTH} deep"),
            ));
        }
        let v = self.operand(eval);
        self.depth -= 1;
        v
    }

    fn operand(&mut self, eval: bool) -> Result<Value> {
        let Some(t) = self.peek().cloned() else {
            return Err(self.end_error("expected a value"));
        };
        self.pos += 1;
        match t.kind {
            Kind::Number => number(&t.text).ok_or_else(|| {
                self.error_at(
                    &t,
                    format!(
                        "`{}` is not an integer constant (`#if` takes integers only)",
                        t.text
                    ),
                )
            }),
            Kind::Char => Ok(Value::signed(char_value(&t.text))),
            // Identifiers left after expansion are 0; C23's `true` is 1.
            Kind::Ident => Ok(Value::signed(i64::from(&*t.text == "true"))),
            _ if t.is("(") => {
                let v = self.expr(0, eval)?;
                if !self.eat(")") {
                    return Err(self.end_error("missing `)`"));
                }
                Ok(v)
            }
            _ if t.is("-") => {
                let v = self.unary(eval)?;
                Ok(Value {
                    bits: v.bits.wrapping_neg(),
                    ..v
                })
            }
            _ if t.is("+") => self.unary(eval),
            _ if t.is("~") => {
                let v = self.unary(eval)?;
                Ok(Value { bits: !v.bits, ..v })
            }
            _ if t.is("!") => {
                let v = self.unary(eval)?;
                Ok(Value::signed(i64::from(!v.truth())))
            }
            _ => Err(self.error_at(&t, format!("unexpected `{}` in `#if` expression", t.text))),
        }
    }
}

/// An integer pp-number: decimal, octal, hex or binary with `u`/`l` suffixes.
fn number(text: &str) -> Option<Value> {
    let lower = text.to_ascii_lowercase();
    let digits_end = lower.trim_end_matches(['u', 'l']).len();
    let (digits, suffix) = lower.split_at(digits_end);
    let unsigned = suffix.contains('u');
    let (radix, body) = if let Some(h) = digits.strip_prefix("0x") {
        (16, h)
    } else if let Some(b) = digits.strip_prefix("0b") {
        (2, b)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    let bits = u64::from_str_radix(body, radix).ok()?;
    // A decimal literal too big for `intmax_t` is unsigned, as in gcc.
    let unsigned = unsigned || bits > i64::MAX as u64;
    Some(Value { bits, unsigned })
}

/// The value of a character constant (`int`, as C says).
fn char_value(text: &str) -> i64 {
    let inner = text
        .trim_start_matches(['L', 'u', 'U', '8'])
        .trim_matches('\'');
    let b = inner.as_bytes();
    match b {
        [b'\\', rest @ ..] => match rest {
            [b'n'] => 10,
            [b't'] => 9,
            [b'r'] => 13,
            [b'0'..=b'7', ..] => {
                i64::from_str_radix(std::str::from_utf8(rest).unwrap_or("0"), 8).unwrap_or(0)
            }
            [b'x', hex @ ..] => {
                i64::from_str_radix(std::str::from_utf8(hex).unwrap_or("0"), 16).unwrap_or(0)
            }
            [c, ..] => i64::from(*c),
            [] => 0,
        },
        [c, ..] => i64::from(*c as i8),
        [] => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(src: &str) -> std::result::Result<bool, String> {
        let toks = super::super::lexer::scan(src, 0);
        evaluate(&toks, Span::new(0, 1)).map_err(|d| d.message)
    }

    #[test]
    fn arithmetic_and_precedence() {
        assert_eq!(eval("1 + 2 * 3 == 7"), Ok(true));
        assert_eq!(eval("(1 << 4) - 1 == 0xF && 010 == 8"), Ok(true));
        assert_eq!(eval("-1 < 0"), Ok(true));
        assert_eq!(eval("-1 < 0u"), Ok(false));
        assert_eq!(eval("1 ? 2 : 0"), Ok(true));
        assert_eq!(eval("'A' == 65"), Ok(true));
        assert_eq!(eval("UNDEFINED_NAME"), Ok(false));
        assert_eq!(eval("201112L >= 199901L"), Ok(true));
    }

    #[test]
    fn short_circuit_skips_division_by_zero() {
        assert_eq!(eval("0 && 1 / 0"), Ok(false));
        assert_eq!(eval("1 || 1 % 0"), Ok(true));
        assert!(eval("1 / 0").unwrap_err().contains("division by zero"));
    }

    #[test]
    fn malformed_expressions_are_errors() {
        assert!(eval("1 +").is_err());
        assert!(eval("(1").is_err());
        assert!(eval("1 2").is_err());
        assert!(eval("1.5").is_err());
        assert!(eval(&"(".repeat(1000)).is_err());
    }
}
