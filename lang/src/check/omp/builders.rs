//! HIR builders for the code the OpenMP constructs become: locals,
//! constants, operators and assignments, and each reduction operator's
//! identity and combination.

use crate::ast::Span;
use crate::check::expr::mk;
use crate::hir::{BinaryOp, Builtin, CType, Expr, ExprKind, LocalId, Stmt, StmtKind};
use crate::omp::RedOp;
use parc_ir::Intrinsic;

pub(super) fn local(id: LocalId, ty: &CType, span: Span) -> Expr {
    mk(ExprKind::Local(id), ty.clone(), span)
}

pub(super) fn int(v: i64, span: Span) -> Expr {
    mk(ExprKind::IntConst(v), CType::Int, span)
}

pub(super) fn long(e: Expr) -> Expr {
    let span = e.span;
    if e.ty == CType::Long {
        return e;
    }
    mk(ExprKind::Convert(Box::new(e)), CType::Long, span)
}

pub(super) fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    let ty = match op {
        BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge | BinaryOp::Eq | BinaryOp::Ne => {
            CType::Int
        }
        _ => a.ty.clone(),
    };
    let span = a.span;
    mk(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty, span)
}

pub(super) fn assign(lhs: Expr, rhs: Expr) -> Stmt {
    let span = lhs.span;
    let ty = lhs.ty.clone();
    Stmt {
        kind: StmtKind::Expr(mk(
            ExprKind::Assign {
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            ty,
            span,
        )),
        span,
    }
}

pub(super) fn increment(id: LocalId, ty: &CType, span: Span) -> Expr {
    mk(
        ExprKind::IncDec {
            lvalue: Box::new(local(id, ty, span)),
            is_inc: true,
            is_prefix: true,
            elem_size: 0,
        },
        ty.clone(),
        span,
    )
}

pub(super) fn builtin(func: Builtin, args: Vec<Expr>, ty: CType, span: Span) -> Expr {
    mk(ExprKind::Builtin { func, args }, ty, span)
}

pub(super) fn size_of(ty: &CType) -> u64 {
    match ty {
        CType::Long | CType::ULong | CType::Double => 8,
        _ => 4,
    }
}

/// `op`'s identity in type `ty`.
pub(super) fn identity(op: RedOp, ty: &CType, span: Span) -> Expr {
    let float = matches!(ty, CType::Float | CType::Double);
    let c = |v: i64| mk(ExprKind::IntConst(v), ty.clone(), span);
    let f = |v: f64| mk(ExprKind::FloatConst(v), ty.clone(), span);
    match op {
        RedOp::Add | RedOp::Sub | RedOp::BitOr | RedOp::BitXor | RedOp::Or if float => f(0.0),
        RedOp::Add | RedOp::Sub | RedOp::BitOr | RedOp::BitXor | RedOp::Or => c(0),
        RedOp::Mul | RedOp::And if float => f(1.0),
        RedOp::Mul | RedOp::And => c(1),
        RedOp::BitAnd => c(-1),
        RedOp::Min if float => f(f64::INFINITY),
        RedOp::Max if float => f(f64::NEG_INFINITY),
        RedOp::Min => c(match ty {
            CType::Int => i64::from(i32::MAX),
            CType::UInt => i64::from(u32::MAX),
            CType::Long => i64::MAX,
            _ => -1, // unsigned long: all ones
        }),
        RedOp::Max => c(match ty {
            CType::Int => i64::from(i32::MIN),
            CType::Long => i64::MIN,
            _ => 0,
        }),
    }
}

/// `a op b` for reduction `op`, in `a`'s type.
pub(super) fn combine(op: RedOp, a: Expr, b: Expr) -> Expr {
    let ty = a.ty.clone();
    let span = a.span;
    let float = matches!(ty, CType::Float | CType::Double);
    match op {
        RedOp::Add | RedOp::Sub => bin(BinaryOp::Add, a, b),
        RedOp::Mul => bin(BinaryOp::Mul, a, b),
        RedOp::BitAnd => bin(BinaryOp::BitAnd, a, b),
        RedOp::BitOr => bin(BinaryOp::BitOr, a, b),
        RedOp::BitXor => bin(BinaryOp::BitXor, a, b),
        RedOp::Min | RedOp::Max if float => {
            let f = if op == RedOp::Min {
                Builtin::Intrinsic(Intrinsic::Fmin)
            } else {
                Builtin::Intrinsic(Intrinsic::Fmax)
            };
            builtin(f, vec![a, b], ty, span)
        }
        RedOp::Min | RedOp::Max => {
            let cmp = if op == RedOp::Min {
                BinaryOp::Lt
            } else {
                BinaryOp::Gt
            };
            let c = bin(cmp, a.clone(), b.clone());
            mk(
                ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
                ty,
                span,
            )
        }
        RedOp::And | RedOp::Or => {
            let l = mk(
                ExprKind::Logical {
                    is_and: op == RedOp::And,
                    lhs: Box::new(a),
                    rhs: Box::new(b),
                },
                CType::Int,
                span,
            );
            if ty == CType::Int {
                l
            } else {
                mk(ExprKind::Convert(Box::new(l)), ty, span)
            }
        }
    }
}
