//! `_Static_assert(cond, "message")` (C11 6.7.10; gcc accepts it in C99
//! code): `cond` must be an integer constant expression, and the program
//! is refused, with the message, where it is zero.

use super::Checker;
use super::consts::Cv;
use super::is_err;
use crate::ast;
use crate::diag::Diagnostic;

impl Checker {
    pub(super) fn static_assert(&mut self, a: &ast::StaticAssert) {
        let v = self.rvalue(&a.cond);
        if is_err(&v.ty) {
            return;
        }
        match self.eval(&v) {
            Some(Cv::I(0)) => {
                let message = a
                    .message
                    .as_deref()
                    .map(|m| String::from_utf8_lossy(m).into_owned());
                let headline = match &message {
                    Some(m) => format!("static assertion failed: \"{m}\""),
                    None => "static assertion failed".to_string(),
                };
                self.push(
                    Diagnostic::error(a.cond.span, headline)
                        .with_label("this condition is zero"),
                );
            }
            Some(Cv::I(_)) => {}
            _ if !v.ty.is_integer() => {
                let t = self.ty_name(&v.ty);
                self.push(
                    Diagnostic::error(
                        a.cond.span,
                        format!("the condition of `_Static_assert` has type `{t}`; it must be an integer"),
                    )
                    .with_label("not an integer"),
                );
            }
            _ => self.push(
                Diagnostic::error(
                    a.cond.span,
                    "the condition of `_Static_assert` is not a constant",
                )
                .with_label("computed at run time")
                .with_help("use integer constants, `sizeof`, `_Alignof`, `offsetof` and enum values; check values known only at run time with `assert`"),
            ),
        }
    }
}
