//! Statements: blocks and scopes, local declarations (`const`, `static`,
//! `__shared__`), conditions, loops with `break`/`continue`, `return`
//! against the function's type, and fork-join parallelism: `spawn` (only of
//! calls of user functions, into local variables), `sync`, and the
//! canonical form of `parallel_for` with the rules for its body.

use super::expr::ConvCtx;
use super::{Checker, LoopKind, is_err};
use crate::ast::{self, Span};
use crate::diag::Diagnostic;
use crate::hir::{CType, FuncKind, LocalId, Stmt, StmtKind};

mod locals;
mod parallel_for;
mod spawn;

impl Checker {
    /// Statements of a block whose scope the caller manages.
    pub(super) fn block_stmts(&mut self, stmts: &[ast::Stmt]) -> Vec<Stmt> {
        let mut out = Vec::new();
        for s in stmts {
            let v = self.stmt(s);
            // Variable array lengths met in the statement go before it.
            out.extend(self.take_vla_lengths());
            out.extend(v);
        }
        out
    }

    /// A sub-statement (a loop or `if` body): its own scope, one statement.
    pub(super) fn sub_stmt(&mut self, s: &ast::Stmt) -> Stmt {
        self.push_scope();
        let mut v = self.stmt(s);
        self.pop_scope();
        if v.len() == 1
            && let Some(one) = v.pop()
        {
            return one;
        }
        Stmt {
            kind: StmtKind::Block(v),
            span: s.span,
        }
    }

    pub(super) fn stmt(&mut self, s: &ast::Stmt) -> Vec<Stmt> {
        self.omp_after_barrier(s);
        let span = s.span;
        let one = |kind| vec![Stmt { kind, span }];
        match &s.kind {
            ast::StmtKind::Empty => Vec::new(),
            ast::StmtKind::StaticAssert(a) => {
                self.static_assert(a);
                Vec::new()
            }
            ast::StmtKind::Expr(e) => {
                let e = self.rvalue(e);
                one(StmtKind::Expr(e))
            }
            ast::StmtKind::Decl(d) => self.local_decl(d),
            ast::StmtKind::Block(b) => {
                self.push_scope();
                let v = self.block_stmts(&b.stmts);
                self.pop_scope();
                one(StmtKind::Block(v))
            }
            ast::StmtKind::If { cond, then, els } => {
                let cond = self.condition(cond);
                // Each branch starts from the spawns pending before the
                // `if`; afterwards, a spawn of either may be pending.
                let before = self.pending();
                self.enter_branch(1);
                let then = Box::new(self.sub_stmt(then));
                let after_then = std::mem::replace(self.pending_mut(), before);
                let els = els.as_ref().map(|e| Box::new(self.sub_stmt(e)));
                self.enter_branch(-1);
                self.add_pending(after_then);
                one(StmtKind::If { cond, then, els })
            }
            ast::StmtKind::While { cond, body } => {
                let cond = self.condition(cond);
                let before = self.pending();
                let body = Box::new(self.loop_body(body, LoopKind::Ordinary));
                self.add_pending(before);
                one(StmtKind::While { cond, body })
            }
            ast::StmtKind::DoWhile { body, cond } => {
                let body = Box::new(self.loop_body(body, LoopKind::Ordinary));
                let cond = self.condition(cond);
                one(StmtKind::DoWhile { body, cond })
            }
            ast::StmtKind::For {
                parallel: false,
                init,
                cond,
                step,
                body,
            } => {
                self.push_scope();
                let init = init.as_ref().map(|i| {
                    let mut v = self.stmt(i);
                    let st = if v.len() == 1 {
                        v.pop().unwrap_or(Stmt {
                            kind: StmtKind::Block(Vec::new()),
                            span: i.span,
                        })
                    } else {
                        Stmt {
                            kind: StmtKind::Block(v),
                            span: i.span,
                        }
                    };
                    Box::new(st)
                });
                let cond = cond.as_ref().map(|c| self.condition(c));
                let before = self.pending();
                let body = Box::new(self.loop_body(body, LoopKind::Ordinary));
                let step = step.as_ref().map(|e| self.rvalue(e));
                self.add_pending(before);
                self.pop_scope();
                one(StmtKind::For {
                    init,
                    cond: cond.map(Box::new),
                    step: step.map(Box::new),
                    body,
                })
            }
            ast::StmtKind::For {
                parallel: true,
                init,
                cond,
                step,
                body,
            } => self.parallel_for(
                init.as_deref(),
                cond.as_deref(),
                step.as_deref(),
                body,
                span,
                None,
            ),
            ast::StmtKind::Omp { pragma, stmt } => self.omp(pragma, stmt),
            ast::StmtKind::Break | ast::StmtKind::Continue => {
                let is_break = matches!(s.kind, ast::StmtKind::Break);
                let word = if is_break { "break" } else { "continue" };
                // `continue` belongs to the innermost loop, `break` to the
                // innermost loop or `switch`.
                let target = self.fx().and_then(|f| {
                    f.loops
                        .iter()
                        .rev()
                        .find(|k| is_break || **k != LoopKind::Switch)
                        .copied()
                });
                match target {
                    None => {
                        let (what, places) = if is_break {
                            ("a loop or `switch`", "loops and `switch` statements")
                        } else {
                            ("a loop", "`for`, `while` or `do` loops")
                        };
                        self.push(
                            Diagnostic::error(span, format!("`{word}` outside of {what}"))
                                .with_label(format!("not inside {what}"))
                                .with_help(format!("`{word}` can only appear inside {places}")),
                        );
                        Vec::new()
                    }
                    Some(LoopKind::ParallelBody) if is_break => {
                        self.push(
                            Diagnostic::error(span, "`break` cannot leave a parallel_for body")
                                .with_label("this would leave the parallel_for body")
                                .with_help("iterations run in parallel; use a flag and `continue`"),
                        );
                        Vec::new()
                    }
                    Some(_) => one(if is_break {
                        StmtKind::Break
                    } else {
                        StmtKind::Continue
                    }),
                }
            }
            ast::StmtKind::Switch { cond, body } => self.switch(cond, body, span),
            ast::StmtKind::Case { value, body } => {
                let mut v = self.case_label(Some(value), span);
                v.extend(self.stmt(body));
                v
            }
            ast::StmtKind::Default(body) => {
                let mut v = self.case_label(None, span);
                v.extend(self.stmt(body));
                v
            }
            ast::StmtKind::Label { name, body } => {
                let mut v = self.named_label(name);
                v.extend(self.stmt(body));
                v
            }
            ast::StmtKind::Goto(name) => self.goto(name, span),
            ast::StmtKind::Return(e) => self.return_stmt(e.as_ref(), span),
            ast::StmtKind::Spawn { dest, call } => self.spawn(dest.as_deref(), call, span),
            ast::StmtKind::Sync => {
                self.fork_join("sync", span);
                self.pending_mut().clear();
                one(StmtKind::Sync)
            }
        }
    }

    pub(super) fn pending(&self) -> Vec<(LocalId, Span)> {
        self.fx().map(|f| f.pending.clone()).unwrap_or_default()
    }

    pub(super) fn pending_mut(&mut self) -> &mut Vec<(LocalId, Span)> {
        match self.fx.as_mut() {
            Some(fx) => &mut fx.pending,
            None => &mut self.no_pending,
        }
    }

    pub(super) fn add_pending(&mut self, more: Vec<(LocalId, Span)>) {
        let p = self.pending_mut();
        for m in more {
            if !p.iter().any(|q| q.0 == m.0) {
                p.push(m);
            }
        }
    }

    /// Enters (+1) or leaves (-1) a conditional branch inside the innermost
    /// `parallel_for` body.
    pub(super) fn enter_branch(&mut self, delta: i32) {
        if let Some(pf) = self.fx.as_mut().and_then(|f| f.pfors.last_mut()) {
            pf.conditional = pf.conditional.saturating_add_signed(delta);
        }
    }

    /// Enters (+1) or leaves (-1) code that one thread of the innermost
    /// team runs once (see `PforInfo::once`).
    pub(super) fn enter_once(&mut self, delta: i32) {
        if let Some(pf) = self.fx.as_mut().and_then(|f| f.pfors.last_mut()) {
            pf.once = pf.once.saturating_add_signed(delta);
        }
    }

    fn loop_body(&mut self, body: &ast::Stmt, kind: LoopKind) -> Stmt {
        if let Some(fx) = self.fx.as_mut() {
            fx.loops.push(kind);
        }
        let b = self.sub_stmt(body);
        if let Some(fx) = self.fx.as_mut() {
            fx.loops.pop();
        }
        b
    }

    fn return_stmt(&mut self, e: Option<&ast::Expr>, span: Span) -> Vec<Stmt> {
        let Some((name, ret, in_pfor)) = self.fx().map(|f| {
            (
                f.name.clone(),
                f.ret.clone(),
                f.loops.contains(&LoopKind::ParallelBody),
            )
        }) else {
            return Vec::new();
        };
        if in_pfor {
            self.push(
                Diagnostic::error(
                    span,
                    "`return` cannot leave a parallel_for \
                    body",
                )
                .with_label("this would leave the parallel_for body")
                .with_help(
                    "iterations run in parallel; record the result in memory and \
                        use `continue`",
                ),
            );
        }
        let value = match (e, ret == CType::Void) {
            (Some(e), true) => {
                let v = self.rvalue(e);
                if !is_err(&v.ty) {
                    self.push(
                        Diagnostic::error(
                            e.span,
                            format!("void function `{name}` should not return a value"),
                        )
                        .with_label("a value returned from a `void` function")
                        .with_help("remove the value, or change the function's return type"),
                    );
                }
                return Vec::new();
            }
            (None, false) => {
                if !is_err(&ret) {
                    let t = self.ty_name(&ret);
                    self.push(
                        Diagnostic::error(
                            span,
                            format!("non-void function `{name}` should return a value"),
                        )
                        .with_label("`return` without a value")
                        .with_help(format!("return a value of type `{t}`: `return <value>;`")),
                    );
                }
                return Vec::new();
            }
            (None, true) => None,
            (Some(e), false) => {
                let v = self.rvalue(e);
                Some(self.assign_conv(v, &ret, ConvCtx::Return(&name)))
            }
        };
        if in_pfor {
            return Vec::new();
        }
        vec![Stmt {
            kind: StmtKind::Return(value),
            span,
        }]
    }

    /// Records a fork-join construct; GPU code cannot fork.
    pub(super) fn fork_join(&mut self, what: &str, span: Span) {
        let kind = self.cur_kind();
        if let Some(fx) = self.fx.as_mut()
            && fx.fork_join.is_none()
        {
            fx.fork_join = Some(span);
        }
        let who = match kind {
            FuncKind::Host => return,
            FuncKind::Kernel => "kernels",
            FuncKind::Device => "`__device__` functions",
        };
        self.push(
            Diagnostic::error(span, format!("{who} cannot use fork-join parallelism"))
                .with_label(format!("`{what}` here"))
                .with_help("GPU threads cannot spawn tasks; launch more threads instead"),
        );
    }
}
