//! Variadic functions parc defines: `va_start`, and the uses that would
//! mix parc's convention for their arguments (see [`crate::hir::VA_SLOT`])
//! with C's. Every variadic function a program calls is one parc compiles
//! (the C library's, `printf` and the rest, are builtins), so calls by
//! name, through pointers and from other files of the program all pass
//! the arguments in parc's convention. Hence a variadic function the
//! program does not define cannot be called or have its address taken:
//! this file decides it for a whole program (the driver decides it for
//! the linked files of a program of several, see `check_part`); and a
//! pointer to a variadic function must not be handed to a function parc
//! does not define, which would call it as C.

use super::Checker;
use super::expr::{err_expr, mk};
use crate::ast::{self, Span};
use crate::diag::Diagnostic;
use crate::hir::{CType, Expr, ExprKind, FuncRef};

impl Checker {
    /// `va_start(ap, last)` (`<stdarg.h>` makes it `ap =
    /// __builtin_va_start(last)`): the address of the variadic arguments
    /// of the function being defined.
    pub(super) fn va_start(&mut self, args: &[ast::Expr], span: Span) -> Expr {
        self.check_only(args);
        let (name, va_args) = match &self.fx {
            Some(fx) => (fx.name.clone(), fx.va_args),
            None => (String::new(), None),
        };
        match va_args {
            Some(l) => mk(ExprKind::Local(l), CType::Char.ptr_to(), span),
            None => {
                self.push(
                    Diagnostic::error(span, format!("`va_start` in `{name}`, which has no `...`"))
                        .with_label("no variadic arguments to start at")
                        .with_help(format!(
                            "declare `{name}` with `...` after its last parameter, \
                             or pass it a `va_list`"
                        )),
                );
                err_expr(span)
            }
        }
    }

    /// Notes the arguments of a call of `f` that point to variadic
    /// functions (refused once every body is known if `f` has none).
    pub(super) fn note_variadic_pointer_args(&mut self, f: FuncRef, args: &[Expr]) {
        for a in args {
            if a.ty.func_pointee().is_some_and(|ft| ft.variadic) {
                self.variadic_passed.push((f, a.span));
            }
        }
    }

    /// Refuses, in a whole program, calls and addresses of variadic
    /// functions it does not define, and pointers to variadic functions
    /// passed to functions this file does not define.
    pub(super) fn check_variadic_uses(&mut self) {
        let mut reported = std::collections::HashSet::new();
        for (f, span) in std::mem::take(&mut self.variadic_uses) {
            let func = &self.funcs[f.0 as usize];
            if self.part || func.body.is_some() || !reported.insert(f) {
                continue;
            }
            let name = func.name.clone();
            let decl = self.func_info[f.0 as usize].decl_span;
            self.push(
                Diagnostic::error(
                    span,
                    format!(
                        "variadic function `{name}` is not defined in this program: parc passes \
                         variadic arguments in its own convention, so it calls only the variadic \
                         functions it compiles"
                    ),
                )
                .with_label("used here")
                .with_secondary(decl, "declared with `...` here, defined nowhere")
                .with_help(format!(
                    "define `{name}` in a file of the program (`parc build main.c {name}.c`), \
                     or give it a fixed parameter list"
                )),
            );
        }
        for (f, span) in std::mem::take(&mut self.variadic_passed) {
            let func = &self.funcs[f.0 as usize];
            if func.body.is_some() {
                continue;
            }
            let name = func.name.clone();
            self.push(
                Diagnostic::error(
                    span,
                    format!(
                        "a pointer to a variadic function cannot be passed to `{name}`, \
                         which parc does not define: C code cannot call parc's variadic functions"
                    ),
                )
                .with_label("a pointer to a variadic function")
                .with_help("pass a function with a fixed parameter list instead"),
            );
        }
    }
}
