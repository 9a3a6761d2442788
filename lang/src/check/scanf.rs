//! `scanf`, `fscanf` and `sscanf`: the format string, when it is a
//! literal, is checked against the arguments as `gcc -Wformat` does (each
//! argument a pointer to what its conversion stores, a missing `&`, too
//! few or too many arguments, unknown conversions). `scanf(fmt, ...)` is
//! `fscanf(stdin, fmt, ...)`.

use super::expr::{err_expr, int_const, mk};
use super::printf::{FormatArity, int_call};
use super::{Checker, is_err};
use crate::ast::{self, Span};
use crate::diag::Diagnostic;
use crate::hir::{CType, Expr, ExprKind};
use parc_cformat::{ScanArg, ScanPiece};
use parc_ir::Intrinsic;

/// True if a pointer to `t` fits what a conversion stores (signedness
/// may differ, as gcc's -Wformat allows).
fn accepts(want: ScanArg, t: &CType) -> bool {
    match want {
        ScanArg::Int(1) | ScanArg::Chars => matches!(t, CType::Char | CType::UChar),
        ScanArg::Int(2) => matches!(t, CType::Short | CType::UShort),
        ScanArg::Int(4) => matches!(t, CType::Int | CType::UInt),
        ScanArg::Int(_) => matches!(t, CType::Long | CType::ULong),
        ScanArg::Float => *t == CType::Float,
        ScanArg::Double => *t == CType::Double,
        // Any object pointer, as gcc's -Wformat takes `%p` with `void **`
        // and warns only about other pointee types.
        ScanArg::Ptr => t.is_pointer(),
    }
}

/// The conversion to suggest for a pointer to `t`.
fn suggestion(t: &CType) -> Option<&'static str> {
    Some(match t {
        CType::Char | CType::UChar => "%c` or `%s",
        CType::Short => "%hd",
        CType::UShort => "%hu",
        CType::Int => "%d",
        CType::UInt => "%u",
        CType::Long => "%ld",
        CType::ULong => "%lu",
        CType::Float => "%f",
        CType::Double => "%lf",
        _ => return None,
    })
}

impl Checker {
    /// `scanf(fmt, ...)` (`op` `None`), `fscanf(stream, fmt, ...)` or
    /// `sscanf(string, fmt, ...)`.
    pub(super) fn scanf(&mut self, name: &str, args: &[ast::Expr], span: Span) -> Expr {
        let op = if name == "sscanf" {
            Intrinsic::Sscanf
        } else {
            Intrinsic::Fscanf
        };
        let fixed = if name == "scanf" { 1 } else { 2 };
        if args.len() < fixed {
            let (what, example) = match name {
                "fscanf" => ("a stream and a format string", "fscanf(f, \"%d\", &n)"),
                "sscanf" => ("a string and a format string", "sscanf(s, \"%d\", &n)"),
                _ => ("a format string", "scanf(\"%d\", &n)"),
            };
            self.push(
                Diagnostic::error(span, format!("`{name}` needs {what}"))
                    .with_label("too few arguments")
                    .with_help(format!("write `{example}`")),
            );
            self.check_only(args);
            return err_expr(span);
        }
        let mut ok = true;
        let mut out = Vec::new();
        match name {
            "scanf" => out.push(mk(
                ExprKind::Convert(Box::new(int_const(1, CType::Long, span))),
                CType::Void.ptr_to(),
                span,
            )),
            "fscanf" => {
                let (stream, good) = self.stream_arg(
                    &args[0],
                    "`fscanf` reads",
                    "pass `stdin` or a stream `fopen` returned",
                );
                ok &= good;
                out.push(stream);
            }
            _ => {
                let s = self.rvalue(&args[0]);
                let s = self.builtin_arg(s, &CType::Char.ptr_to(), name, 1);
                ok &= !is_err(&s.ty);
                out.push(s);
            }
        }
        let fmt_arg = &args[fixed - 1];
        let fmt = self.rvalue(fmt_arg);
        let fmt = self.builtin_arg(fmt, &CType::Char.ptr_to(), name, fixed);
        ok &= !is_err(&fmt.ty);
        out.push(fmt);
        let mut values = Vec::new();
        for a in &args[fixed..] {
            let v = self.rvalue(a);
            ok &= !is_err(&v.ty);
            values.push((v, a.span));
        }
        if ok && let ast::ExprKind::StrLit(bytes) = &fmt_arg.kind {
            ok = self.check_scan_format(name, bytes, fmt_arg.span, &values, fixed + 1, span);
        } else if ok {
            // Without a literal format, every argument must at least be a
            // pointer.
            for (k, (v, vspan)) in values.iter().enumerate() {
                if !v.ty.is_pointer() {
                    self.not_a_pointer(name, None, v, *vspan, k + fixed + 1);
                    ok = false;
                }
            }
        }
        if !ok {
            return err_expr(span);
        }
        out.extend(values.into_iter().map(|(v, _)| v));
        int_call(op, out, span)
    }

    /// Reports argument `index` (of type `v.ty`), which a conversion
    /// (`spec`, when the format is known) stores through, but is not a
    /// pointer: a missing `&`.
    fn not_a_pointer(
        &mut self,
        name: &str,
        spec: Option<(&str, ScanArg)>,
        v: &Expr,
        span: Span,
        index: usize,
    ) {
        let t = self.ty_name(&v.ty);
        let what = match spec {
            Some((text, want)) => format!("format `{text}` expects {} argument", want.describe()),
            None => format!("`{name}` stores through its arguments after the format"),
        };
        self.push(
            Diagnostic::error(
                span,
                format!("{what}, but argument {index} has type `{t}`, which is not a pointer"),
            )
            .with_label(format!("this has type `{t}`"))
            .with_help(format!(
                "pass the address of the variable to store into: `&x`, not `x` (`{name}` cannot change a copy)"
            )),
        );
    }

    /// Checks the arguments (the first is argument `first` of the call,
    /// counting from 1) against a literal format; reports and returns
    /// false on a mismatch.
    fn check_scan_format(
        &mut self,
        name: &str,
        fmt: &[u8],
        fmt_span: Span,
        values: &[(Expr, Span)],
        first: usize,
        call: Span,
    ) -> bool {
        let pieces = match parc_cformat::parse_scan(fmt) {
            Ok(p) => p,
            Err(parc_cformat::Error::Unknown(text)) => {
                self.push(
                    Diagnostic::error(
                        fmt_span,
                        format!("unknown conversion `{text}` in the format string"),
                    )
                    .with_label(format!("`{text}` is not a conversion {name} knows"))
                    .with_help(
                        "ParC's scanf supports %d %i %u %o %x %f %e %g %s %c %[...] %n %p \
                         (with hh, h, l, ll for integers, l for double) and %%",
                    ),
                );
                return false;
            }
            Err(_) => {
                self.push(
                    Diagnostic::error(
                        fmt_span,
                        "the format string ends in the middle of a conversion",
                    )
                    .with_label("an unfinished `%` conversion or `[` set")
                    .with_help("write `%%` for a literal percent sign, and close `%[` with `]`"),
                );
                return false;
            }
        };
        let mut specs = Vec::new();
        for p in &pieces {
            if let ScanPiece::Conv(c) = p
                && let Ok(Some(want)) = c.arg(fmt)
            {
                specs.push((c.text(fmt), want));
            }
        }
        let mut ok = true;
        for (k, ((text, want), (v, vspan))) in specs.iter().zip(values).enumerate() {
            let Some(pointee) = v.ty.pointee() else {
                self.not_a_pointer(name, Some((text, *want)), v, *vspan, k + first);
                ok = false;
                continue;
            };
            if accepts(*want, pointee) {
                continue;
            }
            let t = self.ty_name(&v.ty);
            let mut d = Diagnostic::error(
                *vspan,
                format!(
                    "format `{text}` expects {} argument, but argument {} has type `{t}`",
                    want.describe(),
                    k + first
                ),
            )
            .with_label(format!("this has type `{t}`"))
            .with_secondary(fmt_span, "the format string");
            if let Some(s) = suggestion(pointee) {
                d = d.with_help(format!("use `{s}` to store into `{t}`"));
            }
            self.push(d);
            ok = false;
        }
        ok &= self.format_arity(
            call,
            fmt_span,
            specs.get(values.len()).map(|s| s.0.as_str()),
            specs.len(),
            values,
            &FormatArity::SCANF,
        );
        ok
    }
}
