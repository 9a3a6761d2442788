//! `<math.h>`'s macros that are not functions: the classification macros
//! (`isnan isinf isfinite isnormal signbit fpclassify`, on `float` and
//! `double` alike) and the constants `INFINITY`, `NAN` and `HUGE_VAL`.
//! parc's `math.h` spells them with gcc's builtins, as glibc's does
//! (`#define INFINITY (__builtin_inff())`), so those builtins are what
//! the checker knows; `isnan` and `isinf` are also ParC builtins of their
//! own (no header needed).

use super::expr::{err_expr, mk};
use super::{Checker, consts::Cv, is_err};
use crate::ast::{self, Span};
use crate::diag::Diagnostic;
use crate::hir::{Builtin, CType, Expr, ExprKind, FpTest};

/// What each builtin of this module is.
#[derive(Clone, Copy)]
enum Kind {
    /// A test of one floating operand.
    Test(FpTest),
    /// `__builtin_fpclassify(nan, infinite, normal, subnormal, zero, x)`.
    Fpclassify,
    /// A constant infinity (`__builtin_inf()`), `float` or `double`.
    Infinity(Prec),
    /// A quiet NaN, from `("")` (`__builtin_nan("")`).
    Nan(Prec),
}

/// The type of a constant builtin.
#[derive(Clone, Copy)]
enum Prec {
    Float,
    Double,
}

impl Prec {
    fn ctype(self) -> CType {
        match self {
            Prec::Float => CType::Float,
            Prec::Double => CType::Double,
        }
    }
}

const BUILTINS: [(&str, Kind); 14] = [
    ("isnan", Kind::Test(FpTest::IsNan)),
    ("isinf", Kind::Test(FpTest::IsInf)),
    ("__builtin_isnan", Kind::Test(FpTest::IsNan)),
    ("__builtin_isinf_sign", Kind::Test(FpTest::IsInf)),
    ("__builtin_isfinite", Kind::Test(FpTest::IsFinite)),
    ("__builtin_isnormal", Kind::Test(FpTest::IsNormal)),
    ("__builtin_signbit", Kind::Test(FpTest::SignBit)),
    ("__builtin_fpclassify", Kind::Fpclassify),
    ("__builtin_inf", Kind::Infinity(Prec::Double)),
    ("__builtin_inff", Kind::Infinity(Prec::Float)),
    ("__builtin_huge_val", Kind::Infinity(Prec::Double)),
    ("__builtin_huge_valf", Kind::Infinity(Prec::Float)),
    ("__builtin_nan", Kind::Nan(Prec::Double)),
    ("__builtin_nanf", Kind::Nan(Prec::Float)),
];

/// The names of this module's builtins.
pub(super) fn names() -> impl Iterator<Item = &'static str> {
    BUILTINS.iter().map(|(n, _)| *n)
}

fn kind(name: &str) -> Option<Kind> {
    BUILTINS.iter().find(|(n, _)| *n == name).map(|(_, k)| *k)
}

impl Checker {
    /// A call of one of this module's builtins; `None` when `callee` is
    /// not one.
    pub(super) fn fp_builtin(
        &mut self,
        callee: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Expr> {
        let name = callee.name.as_str();
        let e = match kind(name)? {
            Kind::Test(test) => self.fp_test(name, test, args, span),
            Kind::Fpclassify => self.fpclassify(args, span),
            Kind::Infinity(ty) => {
                if self.fp_arity(name, 0, args, span) {
                    mk(ExprKind::FloatConst(f64::INFINITY), ty.ctype(), span)
                } else {
                    err_expr(span)
                }
            }
            Kind::Nan(ty) => self.nan(name, ty.ctype(), args, span),
        };
        Some(e)
    }

    /// Reports a call with other than `n` arguments; true when it has `n`.
    fn fp_arity(&mut self, name: &str, n: usize, args: &[ast::Expr], span: Span) -> bool {
        if args.len() == n {
            return true;
        }
        self.arity_error(&format!("`{name}`"), n, args, span, None);
        self.check_only(args);
        false
    }

    fn fp_test(&mut self, name: &str, test: FpTest, args: &[ast::Expr], span: Span) -> Expr {
        if !self.fp_arity(name, 1, args, span) {
            return err_expr(span);
        }
        match self.floating_operand(name, &args[0]) {
            Some(x) => mk(
                ExprKind::Builtin {
                    func: Builtin::FpTest(test),
                    args: vec![x],
                },
                CType::Int,
                span,
            ),
            None => err_expr(span),
        }
    }

    /// The operand of a classification macro: a `float` or `double`.
    fn floating_operand(&mut self, name: &str, arg: &ast::Expr) -> Option<Expr> {
        let x = self.rvalue(arg);
        if is_err(&x.ty) {
            return None;
        }
        if x.ty.is_floating() {
            return Some(x);
        }
        let shown = name.strip_prefix("__builtin_").unwrap_or(name);
        let t = self.ty_name(&x.ty);
        self.push(
            Diagnostic::error(
                arg.span,
                format!("`{shown}` needs a `float` or `double`, but this has type `{t}`"),
            )
            .with_label("not a floating value")
            .with_help(format!("convert it: `{shown}((double)x)`")),
        );
        None
    }

    /// `__builtin_fpclassify(nan, infinite, normal, subnormal, zero, x)`,
    /// the five results integer constants.
    fn fpclassify(&mut self, args: &[ast::Expr], span: Span) -> Expr {
        let name = "__builtin_fpclassify";
        if !self.fp_arity(name, 6, args, span) {
            return err_expr(span);
        }
        let mut results = [0i32; 5];
        let mut ok = true;
        for (slot, arg) in results.iter_mut().zip(args) {
            let v = self.rvalue(arg);
            match (v.ty.is_integer(), self.eval(&v)) {
                (true, Some(Cv::I(k))) if i32::try_from(k).is_ok() => *slot = k as i32,
                _ if is_err(&v.ty) => ok = false,
                _ => {
                    ok = false;
                    self.push(
                        Diagnostic::error(
                            arg.span,
                            "the first five arguments of `__builtin_fpclassify` must be `int` constants",
                        )
                        .with_label("not an integer constant")
                        .with_help("use `fpclassify(x)` from <math.h>"),
                    );
                }
            }
        }
        let x = self.floating_operand("fpclassify", &args[5]);
        match (ok, x) {
            (true, Some(x)) => mk(
                ExprKind::Builtin {
                    func: Builtin::FpTest(FpTest::Classify(results)),
                    args: vec![x],
                },
                CType::Int,
                span,
            ),
            _ => err_expr(span),
        }
    }

    /// `__builtin_nan("")`: a quiet NaN, its sign bit clear. Other
    /// strings (gcc reads a NaN payload from them) are refused.
    fn nan(&mut self, name: &str, ty: CType, args: &[ast::Expr], span: Span) -> Expr {
        if !self.fp_arity(name, 1, args, span) {
            return err_expr(span);
        }
        if !matches!(&args[0].kind, ast::ExprKind::StrLit(s) if s.is_empty()) {
            self.push(
                Diagnostic::error(args[0].span, format!("`{name}` takes only \"\" here"))
                    .with_label("a NaN payload is not supported")
                    .with_help("write `NAN` (from <math.h>) or `__builtin_nan(\"\")`"),
            );
            self.check_only(args);
            return err_expr(span);
        }
        mk(ExprKind::FloatConst(f64::NAN), ty, span)
    }
}
