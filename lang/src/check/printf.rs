//! `printf`: the format string, when it is a literal, is checked against the
//! arguments as `gcc -Wformat` does (wrong argument types, too few or too
//! many arguments, unknown conversions); variadic arguments get C's default
//! argument promotions (`float` to `double`, `char` and `bool` to `int`).

use super::expr::{ConvCtx, err_expr, mk};
use super::types::default_promotion;
use super::{Checker, is_err};
use crate::ast::{self, Span};
use crate::diag::Diagnostic;
use crate::hir::{Builtin, CType, Expr, ExprKind};

/// What one conversion (or `*` width/precision) consumes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Want {
    /// `int` or `unsigned` (after promotion): `%d %i %u %x %X %o %c`, `*`.
    Int,
    /// `long` or `unsigned long`: with the `l`, `ll`, `z`, `j` or `t` modifier.
    Long,
    /// `double` (floats are promoted): `%f %F %e %E %g %G`.
    Double,
    /// `char*`: `%s`.
    Str,
    /// Any pointer: `%p`.
    Ptr,
}

impl Want {
    fn describe(self) -> &'static str {
        match self {
            Want::Int => "an `int`",
            Want::Long => "a `long`",
            Want::Double => "a `double`",
            Want::Str => "a `char*` string",
            Want::Ptr => "a pointer",
        }
    }

    fn accepts(self, t: &CType) -> bool {
        match self {
            // Signedness may differ, as gcc's -Wformat allows.
            Want::Int => matches!(t, CType::Int | CType::UInt),
            Want::Long => matches!(t, CType::Long | CType::ULong),
            Want::Double => *t == CType::Double,
            Want::Str => *t == CType::Char.ptr_to(),
            Want::Ptr => t.is_pointer(),
        }
    }
}

/// One argument a format string asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Spec {
    /// The conversion as written, e.g. `%-8.3ld` (or `*` for a width).
    pub text: String,
    pub want: Want,
}

/// A malformed format string.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum FormatError {
    /// `%y`, or a modifier that does not go with the conversion.
    Unknown(String),
    /// A `%` at the end of the string.
    Incomplete,
}

/// Reads the conversions of a format string in order.
pub(super) fn parse_format(fmt: &[u8]) -> Result<Vec<Spec>, FormatError> {
    let mut specs = Vec::new();
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        if fmt.get(i) == Some(&b'%') {
            i += 1;
            continue;
        }
        while matches!(fmt.get(i), Some(b'-' | b'+' | b' ' | b'#' | b'0')) {
            i += 1;
        }
        let mut stars = 0;
        if fmt.get(i) == Some(&b'*') {
            stars += 1;
            i += 1;
        }
        while fmt.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            if fmt.get(i) == Some(&b'*') {
                stars += 1;
                i += 1;
            }
            while fmt.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
        let len_start = i;
        while matches!(fmt.get(i), Some(b'h' | b'l' | b'z' | b'j' | b't' | b'L')) {
            i += 1;
        }
        let modifier = &fmt[len_start..i];
        let Some(&conv) = fmt.get(i) else {
            return Err(FormatError::Incomplete);
        };
        i += 1;
        let text = String::from_utf8_lossy(&fmt[start..i]).into_owned();
        let long = match modifier {
            b"" | b"h" | b"hh" => false,
            b"l" | b"ll" | b"z" | b"j" | b"t" => true,
            _ => return Err(FormatError::Unknown(text)),
        };
        let want = match conv {
            b'd' | b'i' | b'u' | b'x' | b'X' | b'o' => {
                if long {
                    Want::Long
                } else {
                    Want::Int
                }
            }
            b'c' if modifier.is_empty() => Want::Int,
            b's' if modifier.is_empty() => Want::Str,
            b'p' if modifier.is_empty() => Want::Ptr,
            // `%lf` means `%f` in C99.
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' if modifier.is_empty() || modifier == b"l" => {
                Want::Double
            }
            _ => return Err(FormatError::Unknown(text)),
        };
        for _ in 0..stars {
            specs.push(Spec {
                text: "*".into(),
                want: Want::Int,
            });
        }
        specs.push(Spec { text, want });
    }
    Ok(specs)
}

/// The conversion to suggest for an argument type.
fn suggestion(t: &CType) -> Option<&'static str> {
    Some(match t {
        CType::Int => "%d",
        CType::UInt => "%u",
        CType::Long => "%ld",
        CType::ULong => "%lu",
        CType::Double => "%f",
        t if *t == CType::Char.ptr_to() => "%s",
        t if t.is_pointer() => "%p",
        _ => return None,
    })
}

impl Checker {
    pub(super) fn printf(&mut self, args: &[ast::Expr], span: Span) -> Expr {
        let Some(fmt_arg) = args.first() else {
            self.push(
                Diagnostic::error(span, "`printf` needs a format string")
                    .with_label("no format string")
                    .with_help("write `printf(\"...\\n\", ...)`"),
            );
            return err_expr(span);
        };
        let fmt = self.rvalue(fmt_arg);
        let fmt = self.assign_conv(
            fmt,
            &CType::Char.ptr_to(),
            ConvCtx::Arg {
                func: "printf",
                index: 1,
                param: None,
            },
        );
        let mut ok = !is_err(&fmt.ty);
        let mut out = vec![fmt];
        let mut values = Vec::new();
        for a in &args[1..] {
            let v = self.rvalue(a);
            if is_err(&v.ty) {
                ok = false;
                continue;
            }
            if !v.ty.is_scalar() {
                let t = self.ty_name(&v.ty);
                let mut d = Diagnostic::error(
                    a.span,
                    format!("a value of type `{t}` cannot be printed with `printf`"),
                )
                .with_label("not printable");
                if v.ty == CType::Void {
                    d = d.with_help("this expression has no value (`void`)");
                } else {
                    d = d.with_help("print its fields one by one");
                }
                self.push(d);
                ok = false;
                continue;
            }
            let t = default_promotion(&v.ty);
            let v = self.convert(v, &t);
            values.push((v, a.span));
        }
        if ok && let ast::ExprKind::StrLit(bytes) = &fmt_arg.kind {
            ok = self.check_format(bytes, fmt_arg.span, &values, span);
        }
        if !ok {
            return err_expr(span);
        }
        out.extend(values.into_iter().map(|(v, _)| v));
        mk(
            ExprKind::Builtin {
                func: Builtin::Printf,
                args: out,
            },
            CType::Int,
            span,
        )
    }

    /// Checks the promoted arguments against a literal format; reports and
    /// returns false on a mismatch.
    fn check_format(
        &mut self,
        fmt: &[u8],
        fmt_span: Span,
        values: &[(Expr, Span)],
        call: Span,
    ) -> bool {
        let specs = match parse_format(fmt) {
            Ok(s) => s,
            Err(FormatError::Unknown(text)) => {
                self.push(
                    Diagnostic::error(
                        fmt_span,
                        format!(
                            "unknown conversion `{text}` in the \
                        format string"
                        ),
                    )
                    .with_label(format!("`{text}` is not a conversion printf knows"))
                    .with_help(
                        "ParC's printf supports %d %i %u %x %o %c %s %p %f %e %g \
                            (with `l` for long) and %%",
                    ),
                );
                return false;
            }
            Err(FormatError::Incomplete) => {
                self.push(
                    Diagnostic::error(
                        fmt_span,
                        "the format string ends in the middle of a conversion",
                    )
                    .with_label("this format ends with `%`")
                    .with_help("write `%%` for a literal percent sign"),
                );
                return false;
            }
        };
        let mut ok = true;
        for (k, (spec, (v, vspan))) in specs.iter().zip(values).enumerate() {
            if spec.want.accepts(&v.ty) {
                continue;
            }
            let t = self.ty_name(&v.ty);
            let what = if spec.text == "*" {
                "a `*` width or precision".to_string()
            } else {
                format!("format `{}`", spec.text)
            };
            let mut d = Diagnostic::error(
                *vspan,
                format!(
                    "{what} expects {} argument, but argument {} has type `{t}`",
                    spec.want.describe(),
                    k + 2
                ),
            )
            .with_label(format!("this has type `{t}`"))
            .with_secondary(fmt_span, "the format string");
            if let Some(s) = suggestion(&v.ty) {
                d = d.with_help(format!(
                    "use `{s}` for `{t}`, or convert the argument with a cast"
                ));
            }
            self.push(d);
            ok = false;
        }
        if specs.len() > values.len() {
            let missing = &specs[values.len()];
            self.push(
                Diagnostic::error(
                    call,
                    format!("format `{}` has no matching argument", missing.text),
                )
                .with_label(format!(
                    "{} given for {}",
                    super::plural(values.len(), "value"),
                    super::plural(specs.len(), "conversion")
                ))
                .with_secondary(fmt_span, format!("the format uses {} values", specs.len()))
                .with_help(format!(
                    "pass {} more, or remove the conversion",
                    specs.len() - values.len()
                )),
            );
            ok = false;
        } else if values.len() > specs.len() {
            let extra = values[specs.len()].1.to(values[values.len() - 1].1);
            self.push(
                Diagnostic::error(
                    extra,
                    format!(
                        "too many arguments for the format: it uses {}, but {} were given",
                        specs.len(),
                        values.len()
                    ),
                )
                .with_label("not used by the format")
                .with_secondary(fmt_span, "the format string")
                .with_help("add a conversion such as `%d` for each extra argument, or remove them"),
            );
            ok = false;
        }
        ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wants(f: &str) -> Vec<Want> {
        parse_format(f.as_bytes())
            .map(|v| v.into_iter().map(|s| s.want).collect())
            .unwrap_or_default()
    }

    #[test]
    fn conversions() {
        assert_eq!(wants("%d %i %u %x %c"), vec![Want::Int; 5]);
        assert_eq!(wants("%ld %lu %lld %zu"), vec![Want::Long; 4]);
        assert_eq!(wants("%f %.3e %10g %-8.2lf"), vec![Want::Double; 4]);
        assert_eq!(wants("100%% %s %p"), vec![Want::Str, Want::Ptr]);
        assert_eq!(wants("%*.*f"), vec![Want::Int, Want::Int, Want::Double]);
        assert_eq!(
            wants("[%+5d] [% d] [%#g] [%08.3f]"),
            vec![Want::Int, Want::Int, Want::Double, Want::Double]
        );
        assert_eq!(parse_format(b"%y"), Err(FormatError::Unknown("%y".into())));
        assert_eq!(
            parse_format(b"%Lf"),
            Err(FormatError::Unknown("%Lf".into()))
        );
        assert_eq!(parse_format(b"50%"), Err(FormatError::Incomplete));
    }
}
