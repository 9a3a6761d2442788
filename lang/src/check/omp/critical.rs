//! `critical` sections: a lock per name, taken around the section.
//!
//! `#pragma omp critical` and `critical(name)` on any structured block
//! become `__parc_critical_begin(name)`, the block and
//! `__parc_critical_end(name)`, the runtime's lock of that name (a 64-bit
//! hash of it; 0 for the unnamed sections). Assignments in the section to
//! variables shared by the iterations of a parallel loop are not
//! determinacy races: the lock orders them.
//!
//! A section in parallel code that is one update `x += e` (`-=`, `++`,
//! `--`) is that update as an atomic add, between the same calls; `opt`'s
//! `critical-sections` pass, which sees the whole program (every file),
//! removes the calls when every section of the name is such an update
//! (the same effect, no lock, and differentiable), and keeps them all
//! otherwise, so that each section excludes the others.
//!
//! What OpenMP forbids is an error: a jump out of the section (`return`,
//! `break`, `continue`, `goto`), which would leave the lock taken. So is a
//! parallel construct in it, which the worker holding the lock would wait
//! for while running other work that may wait for the lock.

use super::builders::builtin;
use crate::ast::{self, Span};
use crate::check::Checker;
use crate::check::expr::mk;
use crate::diag::Diagnostic;
use crate::hir::{Builtin, CType, ExprKind, Stmt, StmtKind};
use crate::omp::Pragma;
use parc_ir::{CFn, Intrinsic};
use std::collections::HashSet;

/// Calls `f` on `s` and every statement nested in it.
fn each_stmt(s: &ast::Stmt, f: &mut impl FnMut(&ast::Stmt)) {
    use ast::StmtKind as K;
    f(s);
    match &s.kind {
        K::Block(b) => b.stmts.iter().for_each(|s| each_stmt(s, f)),
        K::If { then, els, .. } => {
            each_stmt(then, f);
            if let Some(e) = els {
                each_stmt(e, f);
            }
        }
        K::While { body, .. }
        | K::DoWhile { body, .. }
        | K::Switch { body, .. }
        | K::Case { body, .. }
        | K::Default(body)
        | K::Label { body, .. } => each_stmt(body, f),
        K::For { init, body, .. } => {
            if let Some(i) = init {
                each_stmt(i, f);
            }
            each_stmt(body, f);
        }
        K::Omp { stmt, .. } => each_stmt(stmt, f),
        K::Empty
        | K::StaticAssert(_)
        | K::Expr(_)
        | K::Decl(_)
        | K::Goto(_)
        | K::Break
        | K::Continue
        | K::Return(_)
        | K::Spawn { .. }
        | K::Sync => {}
    }
}

/// The loops and `switch`es a statement of a `critical` section is in,
/// counted from the section's start.
#[derive(Clone, Copy, Default)]
struct Inside {
    loops: usize,
    switches: usize,
}

/// The call of `f` (`__parc_critical_begin` or `_end`) for the sections
/// whose name hashes to `id`.
fn bracket(f: CFn, id: i64, span: Span) -> Stmt {
    Stmt {
        kind: StmtKind::Expr(builtin(
            Builtin::Intrinsic(Intrinsic::C(f)),
            vec![mk(ExprKind::IntConst(id), CType::Long, span)],
            CType::Void,
            span,
        )),
        span,
    }
}

/// The runtime's name for the sections called `name`: FNV-1a of it,
/// never 0 (the unnamed sections').
fn name_hash(name: Option<&str>) -> i64 {
    let Some(name) = name else { return 0 };
    let h = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    h.max(1) as i64
}

impl Checker {
    /// `#pragma omp critical[(name)]` on `update`, one `x += e` (`-=`,
    /// `++`, `--`) in parallel code: the atomic add, bracketed by the
    /// lock's calls, which the `critical-sections` pass removes when every
    /// section of the name in the program is one such update.
    pub(super) fn omp_critical_atomic(&mut self, pragma: &Pragma, update: &ast::Stmt) -> Vec<Stmt> {
        let id = name_hash(pragma.name.as_deref());
        let mut out = vec![bracket(CFn::CriticalBegin, id, pragma.span)];
        out.extend(self.omp_atomic(pragma, update));
        out.push(bracket(CFn::CriticalEnd, id, update.span));
        out
    }

    /// `#pragma omp critical[(name)]` on `stmt`: the block under the
    /// lock of that name.
    pub(super) fn omp_critical(&mut self, pragma: &Pragma, stmt: &ast::Stmt) -> Vec<Stmt> {
        let mut labels = HashSet::new();
        each_stmt(stmt, &mut |s| {
            if let ast::StmtKind::Label { name, .. } = &s.kind {
                labels.insert(name.name.clone());
            }
        });
        self.check_section(stmt, pragma, &labels, Inside::default());
        let id = name_hash(pragma.name.as_deref());
        if let Some(fx) = self.fx.as_mut() {
            fx.critical += 1;
        }
        let body = self.stmt(stmt);
        if let Some(fx) = self.fx.as_mut() {
            fx.critical -= 1;
        }
        // The variables the section shares with other threads need no
        // mark for the optimizer: a local that parallel tasks write is
        // memory the lock's calls may touch (`opt`'s alias analysis,
        // "Objects shared by parallel strands").
        let mut out = vec![bracket(CFn::CriticalBegin, id, pragma.span)];
        out.extend(body);
        out.push(bracket(CFn::CriticalEnd, id, stmt.span));
        out
    }

    /// Reports the jumps out of the section `s` is in (`inside`: the
    /// loops and `switch`es entered inside it) and the parallel
    /// constructs in it.
    fn check_section(
        &mut self,
        s: &ast::Stmt,
        pragma: &Pragma,
        labels: &HashSet<String>,
        inside: Inside,
    ) {
        use ast::StmtKind as K;
        let jump = match &s.kind {
            K::Return(_) => Some("`return`"),
            // `break` leaves the innermost loop or `switch`, `continue`
            // the innermost loop: a `switch` does not keep it inside.
            K::Break if inside.loops + inside.switches == 0 => Some("`break`"),
            K::Continue if inside.loops == 0 => Some("`continue`"),
            K::Goto(l) if !labels.contains(&l.name) => Some("`goto`"),
            _ => None,
        };
        if let Some(what) = jump {
            self.push(
                Diagnostic::error(s.span, format!("{what} out of a `critical` section"))
                    .with_label("leaves the section with its lock taken")
                    .with_secondary(pragma.span, "the section")
                    .with_help(
                        "OpenMP forbids jumps out of a `critical` section: set a flag and \
                         test it after the section",
                    ),
            );
            return;
        }
        let parallel = match &s.kind {
            K::For { parallel: true, .. } => Some("a `parallel_for`".to_string()),
            K::Spawn { .. } => Some("a `spawn`".to_string()),
            K::Omp { pragma: p, .. }
                if p.construct.starts_with("parallel") || p.construct == "task" =>
            {
                Some(format!("`#pragma omp {}`", p.construct))
            }
            _ => None,
        };
        if let Some(what) = parallel {
            self.push(
                Diagnostic::error(s.span, format!("{what} inside a `critical` section"))
                    .with_label("parallel code while the section's lock is held")
                    .with_secondary(pragma.span, "the section")
                    .with_help(
                        "parc cannot run parallel code in a `critical` section (a worker \
                         waiting for it could wait for the lock it holds): move it out of \
                         the section",
                    ),
            );
            return;
        }
        let inner = Inside {
            loops: inside.loops
                + usize::from(matches!(
                    s.kind,
                    K::While { .. } | K::DoWhile { .. } | K::For { .. }
                )),
            switches: inside.switches + usize::from(matches!(s.kind, K::Switch { .. })),
        };
        match &s.kind {
            K::Block(b) => b
                .stmts
                .iter()
                .for_each(|t| self.check_section(t, pragma, labels, inner)),
            K::If { then, els, .. } => {
                self.check_section(then, pragma, labels, inner);
                if let Some(e) = els {
                    self.check_section(e, pragma, labels, inner);
                }
            }
            K::While { body, .. }
            | K::DoWhile { body, .. }
            | K::Switch { body, .. }
            | K::Case { body, .. }
            | K::Default(body)
            | K::Label { body, .. }
            | K::For { body, .. } => self.check_section(body, pragma, labels, inner),
            K::Omp { stmt, .. } => self.check_section(stmt, pragma, labels, inner),
            _ => {}
        }
    }
}
