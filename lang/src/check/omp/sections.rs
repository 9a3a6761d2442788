//! `sections`: serially outside a region, shared out among a team's
//! threads (thread `k % threads` runs section `k`) inside one.

use super::Construct;
use super::builders::{bin, int, local, long};
use crate::ast::{self, Span};
use crate::check::Checker;
use crate::diag::Diagnostic;
use crate::hir::{BinaryOp, CType, LocalId, Stmt, StmtKind};
use crate::omp::Pragma;

impl Checker {
    /// The sections of a `sections` construct's block: each `#pragma omp
    /// section`'s statement, and the statements before the first (whose
    /// pragma OpenMP lets one omit).
    fn sections_of<'a>(&mut self, pragma: &Pragma, stmt: &'a ast::Stmt) -> Vec<Vec<&'a ast::Stmt>> {
        let ast::StmtKind::Block(b) = &stmt.kind else {
            self.push(
                Diagnostic::error(
                    pragma.span,
                    format!(
                        "`#pragma omp {}` must be followed by a `{{ ... }}` block",
                        pragma.construct
                    ),
                )
                .with_label("no block follows")
                .with_help("write `{ #pragma omp section { ... } #pragma omp section { ... } }`"),
            );
            return vec![vec![stmt]];
        };
        let mut out: Vec<Vec<&ast::Stmt>> = Vec::new();
        for s in &b.stmts {
            match &s.kind {
                ast::StmtKind::Omp {
                    pragma: p,
                    stmt: inner,
                } if p.is("section") => {
                    out.push(vec![inner.as_ref()]);
                }
                _ => match out.last_mut() {
                    Some(section) => section.push(s),
                    None => out.push(vec![s]),
                },
            }
        }
        out
    }

    pub(super) fn section(&mut self, section: &[&ast::Stmt], span: Span) -> Stmt {
        self.push_scope();
        let mut body = Vec::new();
        for s in section {
            body.extend(self.stmt(s));
        }
        self.pop_scope();
        Stmt {
            kind: StmtKind::Block(body),
            span,
        }
    }

    /// `sections` on one thread: each section in order.
    pub(super) fn sections_serial(&mut self, pragma: &Pragma, stmt: &ast::Stmt) -> Vec<Stmt> {
        let sections = self.sections_of(pragma, stmt);
        sections
            .iter()
            .map(|sec| self.section(sec, stmt.span))
            .collect()
    }

    /// The sections of a construct in a team (thread `tid` of `nc`):
    /// thread `k % nc` runs section `k`, once.
    pub(super) fn sections_shared(
        &mut self,
        pragma: &Pragma,
        stmt: &ast::Stmt,
        tid: LocalId,
        nc: LocalId,
    ) -> Vec<Stmt> {
        let span = stmt.span;
        let lng = CType::Long;
        let sections = self.sections_of(pragma, stmt);
        let mut out = Vec::new();
        for (k, sec) in sections.iter().enumerate() {
            // One thread runs it: its writes happen once.
            self.enter_once(1);
            let body = self.section(sec, span);
            self.enter_once(-1);
            let owner = bin(
                BinaryOp::Rem,
                long(int(k as i64, span)),
                local(nc, &lng, span),
            );
            out.push(Stmt {
                kind: StmtKind::If {
                    cond: bin(BinaryOp::Eq, local(tid, &lng, span), owner),
                    then: Box::new(body),
                    els: None,
                },
                span,
            });
        }
        out
    }

    /// `#pragma omp sections` directly in a `parallel` region: its
    /// sections shared out among the region's threads; reductions as an
    /// `omp for`'s, and the same implicit barrier.
    pub(super) fn omp_sections(&mut self, pragma: &Pragma, stmt: &ast::Stmt) -> Vec<Stmt> {
        let Some((tid, nc)) = self.team().map(|t| (t.tid, t.size)) else {
            return Vec::new();
        };
        let (omp, _) = self.omp_clauses(pragma, Construct::Sections);
        self.omp_barrier_in_loop(pragma, omp.nowait);
        self.push_scope();
        let parts = self.omp_parts(&omp, &[]);
        self.team_reductions(&parts.reductions);
        let mut out = parts.prologue;
        out.extend(self.sections_shared(pragma, stmt, tid, nc));
        self.pop_scope();
        if !omp.nowait {
            self.omp_set_barrier(pragma);
        }
        vec![Stmt {
            kind: StmtKind::Block(out),
            span: stmt.span,
        }]
    }
}
