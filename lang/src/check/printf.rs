//! `printf`: the format string, when it is a literal, is checked against the
//! arguments as `gcc -Wformat` does (wrong argument types, too few or too
//! many arguments, unknown conversions); variadic arguments get C's default
//! argument promotions (`float` to `double`, `char` and `bool` to `int`).
//! `vfprintf` and `vsnprintf` take a `va_list` instead, whose arguments no
//! check can see (as with gcc's -Wformat): only a literal format's
//! conversions are checked.

use super::expr::{err_expr, mk};
use super::types::default_promotion;
use super::{Checker, is_err};
use crate::ast::{self, Span};
use crate::diag::Diagnostic;
use crate::hir::{Builtin, CType, Expr, ExprKind};
use parc_cformat::Arg;
use parc_ir::Intrinsic;

/// True if a promoted argument of type `t` fits what a conversion reads.
/// The call of the C library intrinsic `op` on `args`, an `int` (what the
/// printf and scanf families return).
pub(super) fn int_call(op: Intrinsic, args: Vec<Expr>, span: Span) -> Expr {
    mk(
        ExprKind::Builtin {
            func: Builtin::Intrinsic(op),
            args,
        },
        CType::Int,
        span,
    )
}

fn accepts(want: Arg, t: &CType) -> bool {
    match want {
        // Signedness may differ, as gcc's -Wformat allows.
        Arg::Int => matches!(t, CType::Int | CType::UInt),
        Arg::Long => matches!(t, CType::Long | CType::ULong),
        Arg::Double => *t == CType::Double,
        Arg::Str => *t == CType::Char.ptr_to(),
        Arg::Ptr => t.is_pointer(),
    }
}

/// One argument a format string asks for.
struct Spec {
    /// The conversion as written, e.g. `%-8.3ld` (or `*` for a width).
    text: String,
    want: Arg,
}

/// The arguments a format asks for, in order (`*` fields first).
fn specs(fmt: &[u8]) -> Result<Vec<Spec>, parc_cformat::Error> {
    let mut out = Vec::new();
    for (c, want) in parc_cformat::conversions(fmt)? {
        for _ in 0..c.stars() {
            out.push(Spec {
                text: "*".into(),
                want: Arg::Int,
            });
        }
        out.push(Spec {
            text: c.text(fmt),
            want,
        });
    }
    Ok(out)
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
        self.printf_family(Intrinsic::Printf, args, span)
    }

    pub(super) fn fprintf(&mut self, args: &[ast::Expr], span: Span) -> Expr {
        self.printf_family(Intrinsic::Fprintf, args, span)
    }

    pub(super) fn sprintf(&mut self, args: &[ast::Expr], span: Span) -> Expr {
        self.printf_family(Intrinsic::Sprintf, args, span)
    }

    pub(super) fn snprintf(&mut self, args: &[ast::Expr], span: Span) -> Expr {
        self.printf_family(Intrinsic::Snprintf, args, span)
    }

    /// `vfprintf(stream, fmt, ap)` or `vsnprintf(buffer, size, fmt, ap)`,
    /// `ap` a `va_list` (`<stdio.h>` makes `vprintf` and `vsprintf` of
    /// them).
    pub(super) fn vprintf_family(&mut self, op: Intrinsic, args: &[ast::Expr], span: Span) -> Expr {
        let name = op.name();
        let n = op.info().params.len();
        if args.len() != n {
            let example = match op {
                Intrinsic::Vfprintf => "vfprintf(stderr, fmt, ap)",
                _ => "vsnprintf(buf, sizeof buf, fmt, ap)",
            };
            self.push(
                Diagnostic::error(
                    span,
                    format!(
                        "`{name}` takes {n} arguments, but {} {} given",
                        args.len(),
                        if args.len() == 1 { "was" } else { "were" }
                    ),
                )
                .with_label("wrong number of arguments")
                .with_help(format!(
                    "write `{example}`, with `ap` a `va_list` that `va_start` set"
                )),
            );
            self.check_only(args);
            return err_expr(span);
        }
        let mut out = Vec::new();
        let mut ok = self.printf_destination(op, args, &mut out);
        // The format, then the `va_list` (a `char *`, see <stdarg.h>).
        let fmt = self.rvalue(&args[n - 2]);
        out.push(self.builtin_arg(fmt, &CType::Char.ptr_to(), &name, n - 1));
        let ap = self.rvalue(&args[n - 1]);
        if !is_err(&ap.ty) && !ap.ty.is_pointer() {
            let t = self.ty_name(&ap.ty);
            self.push(
                Diagnostic::error(
                    args[n - 1].span,
                    format!("argument {n} of `{name}` is a `va_list`, but this has type `{t}`"),
                )
                .with_label("not a `va_list`")
                .with_help(
                    "pass the `va_list` (from <stdarg.h>) that `va_start` set in a function \
                     declared with `...`",
                ),
            );
            return err_expr(span);
        }
        out.push(self.builtin_arg(ap, &CType::Char.ptr_to(), &name, n));
        ok &= !out.iter().any(|e| is_err(&e.ty));
        if ok && let ast::ExprKind::StrLit(bytes) = &args[n - 2].kind {
            ok = self.format_specs(bytes, args[n - 2].span).is_some();
        }
        if !ok {
            return err_expr(span);
        }
        int_call(op, out, span)
    }

    /// `printf(fmt, ...)`, `fprintf(stream, fmt, ...)`, `sprintf(buffer,
    /// fmt, ...)` or `snprintf(buffer, size, fmt, ...)`.
    fn printf_family(&mut self, op: Intrinsic, args: &[ast::Expr], span: Span) -> Expr {
        let name = op.name();
        let fixed = op.info().params.len();
        if args.len() < fixed {
            let (what, example) = match op {
                Intrinsic::Fprintf => (
                    "a stream and a format string",
                    "fprintf(stderr, \"...\\n\", ...)",
                ),
                Intrinsic::Sprintf => {
                    ("a buffer and a format string", "sprintf(buf, \"...\", ...)")
                }
                Intrinsic::Snprintf => (
                    "a buffer, its size and a format string",
                    "snprintf(buf, sizeof buf, \"...\", ...)",
                ),
                _ => ("a format string", "printf(\"...\\n\", ...)"),
            };
            self.push(
                Diagnostic::error(span, format!("`{name}` needs {what}"))
                    .with_label("too few arguments")
                    .with_help(format!("write `{example}`")),
            );
            self.check_only(args);
            return err_expr(span);
        }
        let mut out = Vec::new();
        let mut ok = self.printf_destination(op, args, &mut out);
        let fmt_arg = &args[fixed - 1];
        let fmt = self.rvalue(fmt_arg);
        let fmt = self.builtin_arg(fmt, &CType::Char.ptr_to(), &name, fixed);
        ok &= !is_err(&fmt.ty);
        out.push(fmt);
        let mut values = Vec::new();
        for a in &args[fixed..] {
            let v = self.rvalue(a);
            if is_err(&v.ty) {
                ok = false;
                continue;
            }
            if !v.ty.is_scalar() {
                let t = self.ty_name(&v.ty);
                let mut d = Diagnostic::error(
                    a.span,
                    format!("a value of type `{t}` cannot be printed with `{name}`"),
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
            ok = self.check_format(bytes, fmt_arg.span, &values, fixed + 1, span);
        }
        if !ok {
            return err_expr(span);
        }
        out.extend(values.into_iter().map(|(v, _)| v));
        int_call(op, out, span)
    }

    /// The arguments of a `printf`-family call before its format, appended
    /// to `out`: the stream of `fprintf` and `vfprintf`, the buffer of
    /// `sprintf`, the buffer and size of `snprintf` and `vsnprintf`; false
    /// after an error.
    fn printf_destination(
        &mut self,
        op: Intrinsic,
        args: &[ast::Expr],
        out: &mut Vec<Expr>,
    ) -> bool {
        let name = op.name();
        let mut ok = true;
        match op {
            Intrinsic::Fprintf | Intrinsic::Vfprintf => {
                let (stream, good) = self.stream_arg(
                    &args[0],
                    &format!("`{name}` writes to"),
                    "pass `stdout` or `stderr` (from <stdio.h>)",
                );
                ok &= good;
                out.push(stream);
            }
            Intrinsic::Sprintf | Intrinsic::Snprintf | Intrinsic::Vsnprintf => {
                let buf = self.rvalue(&args[0]);
                out.push(self.builtin_arg(buf, &CType::Char.ptr_to(), &name, 1));
                if op != Intrinsic::Sprintf {
                    let size = self.rvalue(&args[1]);
                    out.push(self.builtin_arg(size, &CType::ULong, &name, 2));
                }
                ok &= !out.iter().any(|e| is_err(&e.ty));
            }
            _ => {}
        }
        ok
    }

    /// Checks the promoted arguments (the first is argument `first` of the
    /// call, counting from 1) against a literal format; reports and
    /// returns false on a mismatch.
    /// The stream argument of `fprintf`/`fscanf` (`does`: "`fprintf`
    /// writes to"), and whether it is one: a pointer, else an error.
    pub(super) fn stream_arg(&mut self, arg: &ast::Expr, does: &str, help: &str) -> (Expr, bool) {
        let stream = self.rvalue(arg);
        if is_err(&stream.ty) {
            return (stream, false);
        }
        if !stream.ty.is_pointer() {
            let t = self.ty_name(&stream.ty);
            self.push(
                Diagnostic::error(
                    arg.span,
                    format!("{does} a stream (`FILE *`), but this has type `{t}`"),
                )
                .with_label("not a stream")
                .with_help(help.to_string()),
            );
            return (stream, false);
        }
        (stream, true)
    }

    /// The arguments a literal format asks for, or `None` after reporting
    /// an unknown conversion or a format that ends inside one.
    fn format_specs(&mut self, fmt: &[u8], fmt_span: Span) -> Option<Vec<Spec>> {
        match specs(fmt) {
            Ok(s) => Some(s),
            Err(parc_cformat::Error::Unknown(text)) => {
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
                        "ParC's printf supports %d %i %u %x %X %o %c %s %p %f %e %g %a \
                            (with `l` for long) and %%",
                    ),
                );
                None
            }
            // `conversions` reports nothing else.
            Err(_) => {
                self.push(
                    Diagnostic::error(
                        fmt_span,
                        "the format string ends in the middle of a conversion",
                    )
                    .with_label("this format ends with `%`")
                    .with_help("write `%%` for a literal percent sign"),
                );
                None
            }
        }
    }

    fn check_format(
        &mut self,
        fmt: &[u8],
        fmt_span: Span,
        values: &[(Expr, Span)],
        first: usize,
        call: Span,
    ) -> bool {
        let Some(specs) = self.format_specs(fmt, fmt_span) else {
            return false;
        };
        let mut ok = true;
        for (k, (spec, (v, vspan))) in specs.iter().zip(values).enumerate() {
            if accepts(spec.want, &v.ty) {
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
                    k + first
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
        ok &= self.format_arity(
            call,
            fmt_span,
            specs.get(values.len()).map(|s| s.text.as_str()),
            specs.len(),
            values,
            &FormatArity::PRINTF,
        );
        ok
    }
}

/// How a format's conversions are counted against its arguments, in the
/// words of `printf` (which uses values) or `scanf` (which stores through
/// pointers).
pub(super) struct FormatArity {
    verb: &'static str,
    noun: &'static str,
    drop_hint: &'static str,
}

impl FormatArity {
    pub(super) const PRINTF: FormatArity = FormatArity {
        verb: "uses",
        noun: "value",
        drop_hint: "",
    };
    pub(super) const SCANF: FormatArity = FormatArity {
        verb: "stores",
        noun: "pointer",
        drop_hint: " (`%*d` reads without storing)",
    };
}

impl Checker {
    /// Reports a format with more conversions than arguments (`missing`
    /// is the first unmatched conversion's text) or more arguments than
    /// conversions; returns whether the counts agree.
    pub(super) fn format_arity(
        &mut self,
        call: Span,
        fmt_span: Span,
        missing: Option<&str>,
        wanted: usize,
        values: &[(Expr, Span)],
        how: &FormatArity,
    ) -> bool {
        let FormatArity {
            verb,
            noun,
            drop_hint,
        } = how;
        if let Some(missing) = missing.filter(|_| wanted > values.len()) {
            self.push(
                Diagnostic::error(call, format!("format `{missing}` has no matching argument"))
                    .with_label(format!(
                        "{} given for {}",
                        super::plural(values.len(), noun),
                        super::plural(wanted, "conversion")
                    ))
                    .with_secondary(fmt_span, format!("the format {verb} {wanted} values"))
                    .with_help(format!(
                        "pass {} more, or remove the conversion{drop_hint}",
                        wanted - values.len()
                    )),
            );
            return false;
        }
        if values.len() > wanted {
            let extra = values[wanted].1.to(values[values.len() - 1].1);
            self.push(
                Diagnostic::error(
                    extra,
                    format!(
                        "too many arguments for the format: it {verb} {wanted}, but {} were given",
                        values.len()
                    ),
                )
                .with_label("not used by the format")
                .with_secondary(fmt_span, "the format string")
                .with_help("add a conversion such as `%d` for each extra argument, or remove them"),
            );
            return false;
        }
        true
    }
}
