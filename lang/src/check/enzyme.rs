//! `__enzyme_autodiff(f, args...)`, checked by Enzyme's activity rules
//! (LANGUAGE.md "Gradients"). [`Checker::autodiff_call`] walks the
//! arguments against `f`'s parameters and returns an [`AutodiffCall`]
//! describing each argument's activity; a valid call becomes an
//! [`ExprKind::Autodiff`] node, which lowering turns into a call of a
//! gradient declaration plus a request for the AD to define it.

use super::expr::{ConvCtx, ENZYME_MARKERS, err_expr, mk};
use super::{Checker, Sym, is_err};
use crate::ast::{self, Span};
use crate::diag::Diagnostic;
use crate::hir::{AutodiffArg, CType, Expr, ExprKind, FuncKind, FuncRef};

pub use crate::hir::Activity;

/// The activity Enzyme gives a parameter of this type when no marker is
/// written, or `None` for types it cannot differentiate through (structs).
pub fn default_activity(ty: &CType) -> Option<Activity> {
    match ty {
        CType::Ptr(_) => Some(Activity::Dup),
        t if t.is_floating() => Some(Activity::Active),
        t if t.is_integer() => Some(Activity::Const),
        _ => None,
    }
}

/// One parameter's argument(s) in a checked `__enzyme_autodiff` call.
#[derive(Clone, Debug)]
pub struct AdArg {
    /// The parameter's index in `f`.
    pub param: usize,
    pub activity: Activity,
    /// The primal value, converted to the parameter's type.
    pub value: Expr,
    /// The shadow for `Dup`/`DupNoNeed`, converted to the parameter's type.
    pub shadow: Option<Expr>,
}

/// A checked `__enzyme_autodiff(f, ...)` call.
#[derive(Clone, Debug)]
pub struct AutodiffCall {
    pub func: FuncRef,
    pub args: Vec<AdArg>,
    /// The call's result: the type of the one active scalar, or `void`.
    pub ret: CType,
}

fn marker(e: &ast::Expr) -> Option<Activity> {
    match &e.kind {
        ast::ExprKind::Ident(n) => match n.as_str() {
            "enzyme_const" => Some(Activity::Const),
            "enzyme_dup" => Some(Activity::Dup),
            "enzyme_dupnoneed" => Some(Activity::DupNoNeed),
            "enzyme_out" => Some(Activity::Active),
            _ => None,
        },
        _ => None,
    }
}

fn marker_name(a: Activity) -> &'static str {
    match a {
        Activity::Const => ENZYME_MARKERS[0],
        Activity::Dup => ENZYME_MARKERS[1],
        Activity::DupNoNeed => ENZYME_MARKERS[2],
        Activity::Active => ENZYME_MARKERS[3],
    }
}

/// The function named by the first argument: `f` or `(void*)f`.
fn function_name(e: &ast::Expr) -> Option<&ast::Expr> {
    match &e.kind {
        ast::ExprKind::Ident(_) => Some(e),
        ast::ExprKind::Cast(_, inner) => function_name(inner),
        _ => None,
    }
}

impl Checker {
    pub(super) fn autodiff(&mut self, args: &[ast::Expr], span: Span) -> Expr {
        let Some(call) = self.autodiff_call(args, span) else {
            return err_expr(span);
        };
        // The gradient runs wherever the call is: from GPU code, the same
        // rule as for a call of `f` applies (no parallel constructs).
        if self.in_gpu_code() && self.funcs[call.func.0 as usize].kind == FuncKind::Host {
            self.gpu_calls.push((call.func, span));
        }
        let args = call
            .args
            .into_iter()
            .map(|a| AutodiffArg {
                activity: a.activity,
                value: a.value,
                shadow: a.shadow,
            })
            .collect();
        mk(
            ExprKind::Autodiff {
                func: call.func,
                args,
            },
            call.ret,
            span,
        )
    }

    /// Checks a call by Enzyme's rules; `None` after reporting an error.
    pub(super) fn autodiff_call(&mut self, args: &[ast::Expr], span: Span) -> Option<AutodiffCall> {
        let Some(first) = args.first() else {
            self.push(
                Diagnostic::error(
                    span,
                    "`__enzyme_autodiff` needs the function to differentiate as its first argument",
                )
                .with_label("no function to differentiate")
                .with_help("write `__enzyme_autodiff(f, x)`"),
            );
            return None;
        };
        let f = self.autodiff_target(first, &args[1..])?;
        let fname = self.funcs[f.0 as usize].name.clone();
        if self.funcs[f.0 as usize].variadic {
            let decl = self.func_info[f.0 as usize].decl_span;
            self.push(
                Diagnostic::error(
                    first.span,
                    format!("`{fname}` is variadic: its gradient cannot be requested"),
                )
                .with_label("differentiated here")
                .with_secondary(decl, format!("`{fname}` declared with `...` here"))
                .with_help(format!(
                    "differentiate a function with fixed parameters that calls `{fname}`"
                )),
            );
            return None;
        }
        let (params, spans) = self.param_types(f);
        let names = self.func_info[f.0 as usize].param_names.clone();
        let pname = |i: usize| match names.get(i) {
            Some(n) if !n.is_empty() => format!("`{n}`"),
            _ => format!("{}", i + 1),
        };
        let rest = &args[1..];
        let mut i = 0;
        let mut out = Vec::new();
        let mut ok = true;
        for (pi, pty) in params.iter().enumerate() {
            let mut explicit = None;
            if let Some(a) = rest.get(i)
                && let Some(m) = marker(a)
            {
                explicit = Some((m, a.span));
                i += 1;
            }
            let Some(arg) = rest.get(i) else {
                let mut d = match explicit {
                    Some((m, ms)) => Diagnostic::error(
                        ms,
                        format!(
                            "`{}` must be followed \
                        by an argument",
                            marker_name(m)
                        ),
                    )
                    .with_label("nothing follows this marker"),
                    None => Diagnostic::error(
                        span,
                        format!(
                            "`__enzyme_autodiff` of `{fname}` is missing an argument \
                            for parameter {}",
                            pname(pi)
                        ),
                    )
                    .with_label("too few arguments"),
                };
                if let Some(s) = spans.get(pi) {
                    d = d.with_secondary(*s, "parameter declared here");
                }
                self.push(d);
                return None;
            };
            if let Some(m) = marker(arg) {
                self.push(
                    Diagnostic::error(
                        arg.span,
                        format!(
                            "expected a value for parameter {} of `{fname}`, found `{}`",
                            pname(pi),
                            marker_name(m)
                        ),
                    )
                    .with_label("a value is expected here")
                    .with_help("each marker applies to the one argument after it"),
                );
                return None;
            }
            i += 1;
            let ctx = |k: usize| ConvCtx::Arg {
                func: "__enzyme_autodiff",
                index: k,
                param: spans.get(pi).copied(),
            };
            let v = self.rvalue(arg);
            let value = self.assign_conv(v, pty, ctx(i + 1));
            ok &= !is_err(&value.ty);
            if is_err(pty) {
                ok = false;
                continue;
            }
            let activity = match explicit.map(|e| e.0).or_else(|| default_activity(pty)) {
                Some(a) => a,
                None => {
                    let t = self.ty_name(pty);
                    self.push(
                        Diagnostic::error(
                            arg.span,
                            format!(
                                "parameter {} of `{fname}` has \
                            type `{t}`, which gradients do not support",
                                pname(pi)
                            ),
                        )
                        .with_label(format!("this argument has type `{t}`"))
                        .with_help("pass the struct through a pointer (and its shadow)"),
                    );
                    ok = false;
                    continue;
                }
            };
            let t = self.ty_name(pty);
            match activity {
                Activity::Dup | Activity::DupNoNeed if !pty.is_pointer() => {
                    let m = marker_name(activity);
                    self.push(
                        Diagnostic::error(
                            arg.span,
                            format!(
                                "`{m}` needs a pointer, but \
                            parameter {} of `{fname}` has type `{t}`",
                                pname(pi)
                            ),
                        )
                        .with_label(format!("this argument has type `{t}`"))
                        .with_help("use `enzyme_out` for an active scalar, or `enzyme_const`"),
                    );
                    ok = false;
                    continue;
                }
                Activity::Active if !pty.is_floating() => {
                    self.push(
                        Diagnostic::error(
                            arg.span,
                            format!(
                                "`enzyme_out` needs a `float` \
                            or `double`, but parameter {} of `{fname}` has type `{t}`",
                                pname(pi)
                            ),
                        )
                        .with_label(format!("this argument has type `{t}`"))
                        .with_help(
                            "mark it `enzyme_const`, or pass a pointer and its \
                                shadow with `enzyme_dup`",
                        ),
                    );
                    ok = false;
                    continue;
                }
                _ => {}
            }
            let mut shadow = None;
            if matches!(activity, Activity::Dup | Activity::DupNoNeed) {
                // A non-pointer where the shadow should be is most likely
                // the next parameter's value: the shadow was forgotten.
                let candidate = match rest.get(i) {
                    Some(s) if marker(s).is_none() => {
                        let v = self.rvalue(s);
                        (is_err(&v.ty) || v.ty.is_pointer()).then_some(v)
                    }
                    _ => None,
                };
                match candidate {
                    Some(v) => {
                        i += 1;
                        let sv = self.assign_conv(v, pty, ctx(i + 1));
                        ok &= !is_err(&sv.ty);
                        shadow = Some(sv);
                    }
                    None => {
                        let n = names
                            .get(pi)
                            .filter(|n| !n.is_empty())
                            .cloned()
                            .unwrap_or_else(|| format!("{}", pi + 1));
                        self.push(
                            Diagnostic::error(
                                arg.span,
                                format!(
                                    "pointer argument `{n}` of `{fname}` needs a shadow: \
                                     pass its gradient buffer next, or mark it `enzyme_const`"
                                ),
                            )
                            .with_label("this pointer is differentiated by default"),
                        );
                        ok = false;
                        continue;
                    }
                }
            }
            out.push(AdArg {
                param: pi,
                activity,
                value,
                shadow,
            });
        }
        if ok && let Some(extra) = rest.get(i) {
            let decl = self.func_info[f.0 as usize].decl_span;
            self.push(
                Diagnostic::error(
                    extra.span.to(rest[rest.len() - 1].span),
                    format!(
                        "too many arguments in `__enzyme_autodiff` of `{fname}`, which has {}",
                        super::plural(params.len(), "parameter")
                    ),
                )
                .with_label("extra arguments")
                .with_secondary(decl, format!("`{fname}` declared here"))
                .with_help(
                    "each parameter takes one value, plus a shadow for a duplicated pointer",
                ),
            );
            ok = false;
        }
        if !ok {
            return None;
        }
        // What the AD cannot differentiate (a kernel, a struct result,
        // several active scalars) is `parc_ir::gradient::refusal`'s rule,
        // checked on the lowered request; the result has the type of the
        // (first) active scalar.
        let active: Vec<&AdArg> = out
            .iter()
            .filter(|a| a.activity == Activity::Active)
            .collect();
        let ret = active
            .first()
            .map_or(CType::Void, |a| params[a.param].clone());
        Some(AutodiffCall {
            func: f,
            args: out,
            ret,
        })
    }

    /// The function being differentiated.
    fn autodiff_target(&mut self, first: &ast::Expr, rest: &[ast::Expr]) -> Option<FuncRef> {
        let bad = |c: &mut Checker, msg: String| {
            c.push(
                Diagnostic::error(first.span, msg)
                    .with_label("not a function")
                    .with_help("write the function's name: `__enzyme_autodiff(f, ...)`"),
            );
            c.check_only(rest);
            None
        };
        let Some(name_expr) = function_name(first) else {
            if matches!(first.kind, ast::ExprKind::Error) {
                return None;
            }
            return bad(
                self,
                "the first argument of `__enzyme_autodiff` must be a function name".into(),
            );
        };
        let ast::ExprKind::Ident(name) = &name_expr.kind else {
            return None;
        };
        match self.lookup(name) {
            // Whether its body is in the program is known once the
            // program's files are linked, and whether it may run where it
            // is differentiated once its calls are lowered: both are
            // `parc_ir::gradient::refusal`'s questions.
            Some(Sym::Func(f)) => Some(f),
            Some(_) => bad(self, format!("`{name}` is a variable, not a function")),
            None if super::calls::is_builtin_name(name) => {
                self.push(
                    Diagnostic::error(
                        first.span,
                        format!(
                            "builtin `{name}` cannot be \
                        differentiated directly"
                        ),
                    )
                    .with_label("a builtin")
                    .with_help(format!(
                        "wrap it in a function, e.g. `double \
                            my_{name}(double x) {{ return {name}(x); }}`"
                    )),
                );
                self.check_only(rest);
                None
            }
            None => {
                self.undeclared_function(&ast::Ident {
                    name: name.clone(),
                    span: name_expr.span,
                });
                self.check_only(rest);
                None
            }
        }
    }
}
