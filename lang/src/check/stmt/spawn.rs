//! `spawn`: only of calls of user functions, into local variables that
//! are not read before the `sync` that waits for them.

use crate::ast::{self, Span};
use crate::check::expr::ConvCtx;
use crate::check::{Checker, Sym, is_err};
use crate::diag::Diagnostic;
use crate::hir::{CType, Expr, ExprKind, LocalId, Stmt, StmtKind};

impl Checker {
    pub(super) fn spawn(
        &mut self,
        dest: Option<&ast::Expr>,
        call: &ast::Expr,
        span: Span,
    ) -> Vec<Stmt> {
        self.fork_join("spawn", span);
        let call_expr = match &call.kind {
            ast::ExprKind::Call { callee, args } => match self.lookup(&callee.name) {
                Some(Sym::Func(f)) => Some(self.user_call(f, callee, args, call.span)),
                Some(_) => {
                    self.call(callee, args, call.span);
                    None
                }
                None if crate::check::calls::is_builtin_name(&callee.name)
                    || callee.name == "dim3" =>
                {
                    self.push(
                        Diagnostic::error(
                            call.span,
                            format!(
                                "only user functions can be spawned; `{}` is a builtin",
                                callee.name
                            ),
                        )
                        .with_label("a builtin")
                        .with_help("wrap the builtin in a function of your own and spawn that"),
                    );
                    if callee.name == "__enzyme_autodiff" {
                        // Its first argument is a function name, which an
                        // ordinary argument check would report as misused.
                        self.call(callee, args, call.span);
                    } else {
                        self.check_only(args);
                    }
                    None
                }
                None => {
                    self.undeclared_function(callee);
                    self.check_only(args);
                    None
                }
            },
            ast::ExprKind::Launch { .. } => {
                self.push(
                    Diagnostic::error(call.span, "kernel launches cannot be spawned")
                        .with_label("a kernel launch")
                        .with_help("a launch already runs in parallel on the GPU; remove `spawn`"),
                );
                None
            }
            ast::ExprKind::Error => None,
            _ => {
                self.rvalue(call);
                self.push(
                    Diagnostic::error(call.span, "only function calls can be spawned")
                        .with_label("not a function call")
                        .with_help("write `spawn f(...)`"),
                );
                None
            }
        };
        let dest_id = dest.and_then(|d| self.spawn_dest(d, call_expr.as_ref()));
        match call_expr {
            Some(c) if !is_err(&c.ty) && (dest.is_none() || dest_id.is_some()) => {
                if let Some(id) = dest_id {
                    self.add_pending(vec![(id, span)]);
                }
                vec![Stmt {
                    kind: StmtKind::Spawn {
                        dest: dest_id,
                        call: Box::new(c),
                    },
                    span,
                }]
            }
            _ => Vec::new(),
        }
    }

    /// The target of `x = spawn f()`: a local variable that can hold the
    /// result. The task stores the result there, so it lives in memory.
    fn spawn_dest(&mut self, d: &ast::Expr, call: Option<&Expr>) -> Option<LocalId> {
        let help = "spawn into a local variable, and copy it after `sync`";
        let id = match &d.kind {
            ast::ExprKind::Ident(name) => match self.lookup(name) {
                Some(Sym::Local(l)) => l,
                Some(Sym::Global(_)) => {
                    self.push(
                        Diagnostic::error(
                            d.span,
                            format!(
                                "the target of `= spawn` must be \
                            a local variable; `{name}` is a global"
                            ),
                        )
                        .with_label("a global variable")
                        .with_help(help),
                    );
                    return None;
                }
                _ => {
                    self.expr(d);
                    return None;
                }
            },
            ast::ExprKind::Error => return None,
            _ => {
                self.expr(d);
                self.push(
                    Diagnostic::error(d.span, "the target of `= spawn` must be a local variable")
                        .with_label("not a variable")
                        .with_help(help),
                );
                return None;
            }
        };
        let lv = self.expr(d);
        if !self.check_assignable(&lv, d.span) {
            return None;
        }
        if let Some(fx) = self.fx.as_mut()
            && let Some(local) = fx.locals.get_mut(id.0 as usize)
        {
            local.address_taken = true;
        }
        self.check_race(&lv, d.span);
        let call = call?;
        if is_err(&call.ty) {
            return None;
        }
        if call.ty == CType::Void {
            self.push(
                Diagnostic::error(
                    call.span,
                    "this function returns `void`, so there is no result to assign",
                )
                .with_label("returns `void`")
                .with_help("write `spawn f(...);` without a target"),
            );
            return None;
        }
        // Only check the conversion here; the spawned task performs it.
        let probe = Expr {
            kind: ExprKind::IntConst(1),
            ty: call.ty.clone(),
            span: call.span,
        };
        let converted = self.assign_conv(probe, &lv.ty, ConvCtx::Assign);
        (!is_err(&converted.ty)).then_some(id)
    }
}
