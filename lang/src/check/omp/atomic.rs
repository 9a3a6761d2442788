//! `atomic` and `critical`: the updates parc makes atomic adds.

use super::builders::builtin;
use crate::ast::{self};
use crate::check::expr::mk;
use crate::check::{Checker, is_err};
use crate::diag::Diagnostic;
use crate::hir::{Builtin, CType, ExprKind, Stmt, StmtKind};
use crate::omp::Pragma;
use parc_ir::Intrinsic;

impl Checker {
    /// `#pragma omp atomic` on `x += e`, `x -= e`, `x++`, `x--` (also
    /// `x = x + e`) inside a parallel loop: an atomic add.
    pub(super) fn omp_atomic(&mut self, pragma: &Pragma, stmt: &ast::Stmt) -> Vec<Stmt> {
        let unsupported = |c: &mut Checker| {
            c.push(
                Diagnostic::error(stmt.span, format!("parc supports `#pragma omp {}` in parallel code only on `x += e`, `x -= e`, `x++` and `x--`", pragma.construct))
                    .with_label("not an atomic add")
                    .with_secondary(pragma.span, "the pragma")
                    .with_help("use a `reduction(...)` clause on the loop for other operators"),
            );
            Vec::new()
        };
        let ast::StmtKind::Expr(e) = &stmt.kind else {
            return unsupported(self);
        };
        use ast::UnaryOp::{PostDec, PostInc, PreDec, PreInc};
        let (target, value, negate) = match &e.kind {
            ast::ExprKind::Assign {
                op: Some(op @ (ast::BinaryOp::Add | ast::BinaryOp::Sub)),
                lhs,
                rhs,
            } => (lhs.as_ref(), Some(rhs.as_ref()), *op == ast::BinaryOp::Sub),
            ast::ExprKind::Unary(op @ (PreInc | PreDec | PostInc | PostDec), x) => {
                (x.as_ref(), None, matches!(op, PreDec | PostDec))
            }
            _ => return unsupported(self),
        };
        // The target is read and written by one atomic add: no race.
        let lv = self.expr(target);
        if is_err(&lv.ty) {
            return Vec::new();
        }
        if self.refuse_bit_field(
            &lv,
            &format!("#pragma omp {}", pragma.construct),
            "update a whole integer member atomically, or use a `critical` section",
        ) {
            return Vec::new();
        }
        if !matches!(
            lv.ty,
            CType::Int | CType::UInt | CType::Long | CType::ULong | CType::Float | CType::Double
        ) {
            return unsupported(self);
        }
        let ty = lv.ty.clone();
        let mut v = match value {
            Some(r) => {
                let r = self.rvalue(r);
                self.convert(r, &ty)
            }
            None => match ty {
                CType::Float | CType::Double => {
                    mk(ExprKind::FloatConst(1.0), ty.clone(), stmt.span)
                }
                _ => mk(ExprKind::IntConst(1), ty.clone(), stmt.span),
            },
        };
        if negate {
            let span = v.span;
            v = mk(
                ExprKind::Unary(crate::hir::UnaryOp::Neg, Box::new(v)),
                ty.clone(),
                span,
            );
        }
        let addr = mk(
            ExprKind::AddrOf(Box::new(lv)),
            ty.clone().ptr_to(),
            stmt.span,
        );
        vec![Stmt {
            kind: StmtKind::Expr(builtin(
                Builtin::Intrinsic(Intrinsic::AtomicAdd),
                vec![addr, v],
                ty,
                stmt.span,
            )),
            span: stmt.span,
        }]
    }
}

/// The update `x += e`, `x -= e`, `x++` or `x--` that `stmt` is (alone
/// in braces, too), if it is one.
pub(super) fn atomic_add_form(stmt: &ast::Stmt) -> Option<&ast::Stmt> {
    use ast::UnaryOp::{PostDec, PostInc, PreDec, PreInc};
    match &stmt.kind {
        ast::StmtKind::Block(b) => match b.stmts.as_slice() {
            [one] => atomic_add_form(one),
            _ => None,
        },
        ast::StmtKind::Expr(e) => match &e.kind {
            ast::ExprKind::Assign {
                op: Some(ast::BinaryOp::Add | ast::BinaryOp::Sub),
                ..
            }
            | ast::ExprKind::Unary(PreInc | PreDec | PostInc | PostDec, _) => Some(stmt),
            _ => None,
        },
        _ => None,
    }
}
