//! `#define`: a macro's name, parameters and replacement list, the
//! constraints C99 6.10.3 puts on them, and redefinitions (the same one
//! again is fine; another is a warning).

use super::expand::Macro;
use super::lexer::PpTok;
use super::{Pp, span_of, span_over};
use crate::ast::Span;
use crate::diag::Diagnostic;
use std::rc::Rc;

impl Pp<'_> {
    pub(super) fn define(&mut self, rest: &[PpTok], at: Span) {
        let Some(name) = rest.first().filter(|t| t.is_ident()) else {
            self.error(
                Diagnostic::error(span_over(rest, at), "`#define` needs a macro name")
                    .with_label("expected an identifier")
                    .with_help("write `#define NAME value`"),
            );
            return;
        };
        if name.is("defined") || name.is("__VA_ARGS__") {
            self.error(
                Diagnostic::error(
                    span_of(name),
                    format!("`{}` cannot be a macro name", name.text),
                )
                .with_label("reserved"),
            );
            return;
        }
        let mut i = 1;
        let mut params = None;
        let mut variadic = false;
        if rest.get(1).is_some_and(|t| t.is("(") && !t.space) {
            let mut ps: Vec<Rc<str>> = Vec::new();
            i = 2;
            let mut ok = false;
            if rest.get(i).is_some_and(|t| t.is(")")) {
                ok = true;
                i += 1;
            } else {
                while let Some(t) = rest.get(i) {
                    if t.is("...") {
                        variadic = true;
                        ps.push("__VA_ARGS__".into());
                        i += 1;
                    } else if t.is_ident() && !t.is("__VA_ARGS__") {
                        if ps.contains(&t.text) {
                            self.error(
                                Diagnostic::error(
                                    span_of(t),
                                    format!("duplicate macro parameter `{}`", t.text),
                                )
                                .with_label("already a parameter"),
                            );
                            return;
                        }
                        ps.push(t.text.clone());
                        i += 1;
                        // GNU named variadic parameter: `args...`.
                        if rest.get(i).is_some_and(|t| t.is("...")) {
                            variadic = true;
                            i += 1;
                        }
                    } else {
                        break;
                    }
                    match rest.get(i) {
                        Some(t) if t.is(",") && !variadic => i += 1,
                        Some(t) if t.is(")") => {
                            ok = true;
                            i += 1;
                            break;
                        }
                        _ => break,
                    }
                }
            }
            if !ok {
                let bad = rest.get(i).map_or(at, span_of);
                self.error(
                    Diagnostic::error(
                        bad,
                        format!("malformed parameter list of macro `{}`", name.text),
                    )
                    .with_label("expected a parameter name, `...` or `)`")
                    .with_help("write `#define NAME(a, b) ...` (no space before the `(`)"),
                );
                return;
            }
            params = Some(ps);
        }
        let mut body: Vec<PpTok> = rest[i..].to_vec();
        if let Some(first) = body.first_mut() {
            first.space = false;
        }
        for t in &mut body {
            t.bol = false;
        }
        if let Some(ps) = &params {
            for (k, t) in body.iter().enumerate() {
                if t.is("#") {
                    let next = body.get(k + 1);
                    let is_param = next.is_some_and(|n| {
                        n.is_ident() && (ps.contains(&n.text) || (variadic && n.is("__VA_ARGS__")))
                    });
                    if !is_param {
                        self.error(
                            Diagnostic::error(
                                span_of(t),
                                "`#` is not followed by a macro parameter",
                            )
                            .with_label("`#` makes a string of a parameter")
                            .with_help("write `#param`, or `##` to paste tokens"),
                        );
                        return;
                    }
                }
            }
        }
        if body.first().is_some_and(|t| t.is("##")) || body.last().is_some_and(|t| t.is("##")) {
            let t = if body.first().is_some_and(|t| t.is("##")) {
                &body[0]
            } else {
                &body[body.len() - 1]
            };
            self.error(
                Diagnostic::error(span_of(t), "`##` cannot be at either end of a macro")
                    .with_label("nothing to paste on this side"),
            );
            return;
        }
        if !variadic && body.iter().any(|t| t.is("__VA_ARGS__")) {
            let t = body.iter().find(|t| t.is("__VA_ARGS__")).cloned();
            if let Some(t) = t {
                self.error(
                    Diagnostic::error(span_of(&t), "`__VA_ARGS__` outside a variadic macro")
                        .with_label("only in the body of a macro declared with `...`"),
                );
                return;
            }
        }
        let m = Macro {
            params,
            variadic,
            body,
            def: name.pos,
            builtin: None,
        };
        if let Some(old) = self.macros.get(&name.text) {
            if old.builtin.is_some() {
                self.error(
                    Diagnostic::warning(
                        span_of(name),
                        format!("redefining builtin macro `{}`", name.text),
                    )
                    .with_label("redefined here"),
                );
            } else if !old.same_as(&m) {
                let prev = Span::new(old.def as usize, old.def as usize + name.text.len());
                self.error(
                    Diagnostic::warning(span_of(name), format!("`{}` redefined", name.text))
                        .with_label("this definition replaces the earlier one")
                        .with_secondary(prev, "the earlier definition")
                        .with_help("`#undef` it first if the change is meant"),
                );
            }
        }
        self.macros.insert(name.text.clone(), m);
    }
}
