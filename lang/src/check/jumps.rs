//! `switch` with `case` and `default`, named labels and `goto`.
//!
//! Rules beyond C's: a `goto` may not jump into or out of a
//! `parallel_for` body (as `break` and `return` may not leave one), and
//! neither may a `switch` to a `case` inside such a body; the iterations
//! are separate tasks, so the jump would have no meaning.
//!
//! As in C (C99 6.8.4.2p2, 6.8.6.1p1), no jump may enter the scope of a
//! variable-length array from outside it: its declaration would not run.

use super::expr::ConvCtx;
use super::types::promote;
use super::{Checker, LoopKind, is_err};
use crate::ast::{self, Span};
use crate::diag::Diagnostic;
use crate::hir::{CType, ExprKind, LabelId, LocalId, Stmt, StmtKind};

/// A named label of the function being checked.
pub(super) struct LabelInfo {
    id: LabelId,
    /// Where it is defined, and the `parallel_for` body it is in.
    defined: Option<(Span, Option<u32>)>,
    /// The variable-length arrays in scope at the label.
    vlas: Vec<(LocalId, Span)>,
    /// The `goto`s to it: where, the `parallel_for` body they are in and
    /// the variable-length arrays in scope there.
    gotos: Vec<(Span, Option<u32>, Vec<LocalId>)>,
}

/// A `switch` being checked.
pub(super) struct SwitchInfo {
    /// The promoted type of the controlling expression.
    ty: CType,
    cases: Vec<(i64, LabelId, Span)>,
    default: Option<(LabelId, Span)>,
    /// The `parallel_for` body the `switch` is in.
    pfor: Option<u32>,
    /// How many variable-length arrays are in scope at the `switch`.
    vlas: usize,
}

impl Checker {
    fn new_label(&mut self) -> LabelId {
        match self.fx.as_mut() {
            Some(fx) => {
                fx.label_count += 1;
                LabelId(fx.label_count - 1)
            }
            None => LabelId(0),
        }
    }

    /// The innermost `parallel_for` body around the statement being checked.
    fn current_pfor(&self) -> Option<u32> {
        self.fx().and_then(|f| f.pfors.last()).map(|p| p.serial)
    }

    pub(super) fn switch(&mut self, cond: &ast::Expr, body: &ast::Stmt, span: Span) -> Vec<Stmt> {
        let c = self.rvalue(cond);
        let ok = !is_err(&c.ty);
        if ok && !c.ty.is_integer() {
            let t = self.ty_name(&c.ty);
            self.push(
                Diagnostic::error(
                    cond.span,
                    format!("a `switch` needs an integer, but this has type `{t}`"),
                )
                .with_label("not an integer")
                .with_help("compare other values with an `if` / `else if` chain"),
            );
        }
        let ty = promote(&c.ty);
        let c = self.convert(c, &ty);
        let pfor = self.current_pfor();
        if let Some(fx) = self.fx.as_mut() {
            fx.switches.push(SwitchInfo {
                ty: ty.clone(),
                cases: Vec::new(),
                default: None,
                pfor,
                vlas: fx.vlas.len(),
            });
            fx.loops.push(LoopKind::Switch);
        }
        // Every case is reached only when its value matches.
        let before = self.pending();
        self.enter_branch(1);
        let body = self.sub_stmt(body);
        self.enter_branch(-1);
        self.add_pending(before);
        let info = self.fx.as_mut().and_then(|fx| {
            fx.loops.pop();
            fx.switches.pop()
        });
        let Some(info) = info else { return Vec::new() };
        if !ok || !ty.is_integer() {
            return Vec::new();
        }
        vec![Stmt {
            kind: StmtKind::Switch {
                cond: Box::new(c),
                cases: info.cases.into_iter().map(|(v, l, _)| (v, l)).collect(),
                default: info.default.map(|d| d.0),
                body: Box::new(body),
            },
            span,
        }]
    }

    /// `case value:` (or `default:` for `None`) before a statement.
    pub(super) fn case_label(&mut self, value: Option<&ast::Expr>, span: Span) -> Vec<Stmt> {
        let word = if value.is_some() { "case" } else { "default" };
        let Some((ty, pfor)) = self
            .fx()
            .and_then(|f| f.switches.last())
            .map(|s| (s.ty.clone(), s.pfor))
        else {
            if let Some(v) = value {
                self.rvalue(v);
            }
            self.push(
                Diagnostic::error(span, format!("`{word}` label outside of a `switch`"))
                    .with_label("not inside a `switch`")
                    .with_help(format!("`{word}` labels belong in the body of a `switch`")),
            );
            return Vec::new();
        };
        if pfor != self.current_pfor() {
            self.push(
                Diagnostic::error(span, format!("a `switch` cannot jump to a `{word}` inside a parallel_for body"))
                    .with_label("inside a parallel_for body")
                    .with_help("put the whole `switch` inside the parallel_for body, or the loop inside the case"),
            );
            return Vec::new();
        }
        let entered = self.fx().and_then(|f| {
            let at_switch = f.switches.last()?.vlas;
            f.vlas.get(at_switch).cloned()
        });
        if let Some((vla, decl)) = entered {
            let name = self.local_name(vla);
            // `case VALUE` or `default`, not the statement after it.
            let end = value.map_or(span.start + "default".len() as u32, |v| v.span.end);
            let at = Span {
                start: span.start,
                end: end.min(span.end),
            };
            self.push(
                Diagnostic::error(
                    at,
                    format!(
                        "a `switch` cannot jump into the scope of variable-length array `{name}`"
                    ),
                )
                .with_label(format!(
                    "the `switch` jumps here, past the declaration of `{name}`"
                ))
                .with_secondary(decl, "declared here")
                .with_help(format!(
                    "put `{name}` in a block of its own inside the case"
                )),
            );
            return Vec::new();
        }
        let id = self.new_label();
        match value {
            Some(v) => {
                let e = self.rvalue(v);
                if is_err(&e.ty) || is_err(&ty) {
                    return Vec::new();
                }
                let constant =
                    e.ty.is_integer() && matches!(self.eval(&e), Some(super::consts::Cv::I(_)));
                if !constant {
                    self.push(
                        Diagnostic::error(v.span, "a `case` value must be an integer constant")
                            .with_label("not an integer constant")
                            .with_help(
                                "use an `if` to compare with a value known only at run time",
                            ),
                    );
                    return Vec::new();
                }
                let e = self.assign_conv(e, &ty, ConvCtx::Assign);
                let n = match self.fold(e).kind {
                    ExprKind::IntConst(n) => n,
                    _ => return Vec::new(),
                };
                let dup = self
                    .fx()
                    .and_then(|f| f.switches.last())
                    .and_then(|s| s.cases.iter().find(|c| c.0 == n).map(|c| c.2));
                if let Some(first) = dup {
                    self.push(
                        Diagnostic::error(v.span, format!("duplicate `case` value {n}"))
                            .with_label("this value has a case already")
                            .with_secondary(first, "first used here"),
                    );
                    return Vec::new();
                }
                if let Some(s) = self.fx.as_mut().and_then(|f| f.switches.last_mut()) {
                    s.cases.push((n, id, v.span));
                }
            }
            None => {
                let first = self
                    .fx()
                    .and_then(|f| f.switches.last())
                    .and_then(|s| s.default);
                if let Some((_, first)) = first {
                    self.push(
                        Diagnostic::error(span, "a `switch` has two `default` labels")
                            .with_label("second `default`")
                            .with_secondary(first, "first `default` here"),
                    );
                    return Vec::new();
                }
                if let Some(s) = self.fx.as_mut().and_then(|f| f.switches.last_mut()) {
                    s.default = Some((id, span));
                }
            }
        }
        vec![Stmt {
            kind: StmtKind::Label(id),
            span,
        }]
    }

    fn label_id(&mut self, name: &str) -> LabelId {
        if let Some(l) = self.fx().and_then(|f| f.labels.get(name)) {
            return l.id;
        }
        let id = self.new_label();
        if let Some(fx) = self.fx.as_mut() {
            fx.labels.insert(
                name.to_string(),
                LabelInfo {
                    id,
                    defined: None,
                    vlas: Vec::new(),
                    gotos: Vec::new(),
                },
            );
        }
        id
    }

    /// `name:` before a statement.
    pub(super) fn named_label(&mut self, name: &ast::Ident) -> Vec<Stmt> {
        let id = self.label_id(&name.name);
        let pfor = self.current_pfor();
        let vlas = self.fx().map(|f| f.vlas.clone()).unwrap_or_default();
        let Some(info) = self.fx.as_mut().and_then(|f| f.labels.get_mut(&name.name)) else {
            return Vec::new();
        };
        if let Some((first, _)) = info.defined {
            self.push(
                Diagnostic::error(name.span, format!("redefinition of label `{name}`"))
                    .with_label("defined again here")
                    .with_secondary(first, "first defined here"),
            );
            return Vec::new();
        }
        info.defined = Some((name.span, pfor));
        info.vlas = vlas;
        vec![Stmt {
            kind: StmtKind::Label(id),
            span: name.span,
        }]
    }

    pub(super) fn goto(&mut self, name: &ast::Ident, span: Span) -> Vec<Stmt> {
        let id = self.label_id(&name.name);
        let pfor = self.current_pfor();
        let vlas = self.fx().map(|f| f.vlas.iter().map(|v| v.0).collect());
        if let Some(info) = self.fx.as_mut().and_then(|f| f.labels.get_mut(&name.name)) {
            info.gotos.push((span, pfor, vlas.unwrap_or_default()));
        }
        vec![Stmt {
            kind: StmtKind::Goto(id),
            span,
        }]
    }

    /// At the end of a function: every `goto` has its label, in the same
    /// `parallel_for` body, and enters the scope of no variable-length
    /// array.
    pub(super) fn check_labels(&mut self) {
        let Some(fx) = self.fx.as_mut() else { return };
        let mut labels: Vec<(String, LabelInfo)> = fx.labels.drain().collect();
        labels.sort_by_key(|(_, l)| l.id.0);
        for (name, info) in labels {
            let Some((at, pfor)) = info.defined else {
                if let Some((span, ..)) = info.gotos.first() {
                    self.push(
                        Diagnostic::error(*span, format!("label `{name}` is used but not defined"))
                            .with_label("no such label in this function"),
                    );
                }
                continue;
            };
            for (span, from, in_scope) in info.gotos {
                if let Some((vla, decl)) = info.vlas.iter().find(|v| !in_scope.contains(&v.0)) {
                    let vla_name = self.local_name(*vla);
                    self.push(
                        Diagnostic::error(
                            span,
                            format!(
                                "`goto` cannot jump into the scope of variable-length array `{vla_name}`"
                            ),
                        )
                        .with_label(format!("jumps to `{name}`"))
                        .with_secondary(*decl, format!("`{vla_name}` is declared here, before the label"))
                        .with_help(format!(
                            "end the scope of `{vla_name}` before the label (put it in a block), \
                             or move the label before its declaration"
                        )),
                    );
                    continue;
                }
                if from != pfor {
                    let what = if from.is_some() { "out of" } else { "into" };
                    self.push(
                        Diagnostic::error(
                            span,
                            format!("`goto` cannot jump {what} a parallel_for body"),
                        )
                        .with_label(format!("jumps to `{name}`"))
                        .with_secondary(at, "the label is here")
                        .with_help("iterations run in parallel; use a flag and `continue`"),
                    );
                }
            }
        }
    }
}
