//! Trip counts of checked loops, and `collapse(n)`: one loop over the
//! product space of a loop nest.

use super::builders::{bin, int, local, long};
use super::{CheckedLoop, Level};
use crate::check::Checker;
use crate::check::expr::mk;
use crate::hir::{BinaryOp, CType, Expr, ExprKind, Init, LocalId, Stmt, StmtKind};

/// The trip count of a checked loop: its bounds and step, each evaluated
/// once as `parallel_for` evaluates them, and the count (`long`).
pub(super) struct Trip {
    pub(super) lo: LocalId,
    pub(super) step: LocalId,
    pub(super) n: LocalId,
}

impl Checker {
    pub(super) fn decl_temp(&mut self, ty: &CType, init: Expr, out: &mut Vec<Stmt>) -> LocalId {
        let span = init.span;
        let id = self.new_local("", ty.clone(), false, span);
        out.push(Stmt {
            kind: StmtKind::Decl(id, Some(Init::Expr(init))),
            span,
        });
        id
    }

    /// The loop's bounds, step and trip count, declared in `out`.
    pub(super) fn trip(&mut self, l: &mut CheckedLoop, out: &mut Vec<Stmt>) -> Trip {
        let span = l.span;
        let placeholder = || int(0, span);
        let lo = self.decl_temp(&l.var_ty, std::mem::replace(&mut l.lo, placeholder()), out);
        let hi_ty = l.hi.ty.clone();
        let hi = self.decl_temp(&hi_ty, std::mem::replace(&mut l.hi, placeholder()), out);
        let step = self.decl_temp(
            &l.var_ty,
            std::mem::replace(&mut l.step, placeholder()),
            out,
        );
        let (lo_l, hi_l, step_l) = (
            long(local(lo, &l.var_ty, span)),
            long(local(hi, &hi_ty, span)),
            long(local(step, &l.var_ty, span)),
        );
        let (nonempty, span_len) = if l.inclusive {
            (
                bin(BinaryOp::Ge, hi_l.clone(), lo_l.clone()),
                bin(
                    BinaryOp::Add,
                    bin(
                        BinaryOp::Div,
                        bin(BinaryOp::Sub, hi_l, lo_l),
                        step_l.clone(),
                    ),
                    long(int(1, span)),
                ),
            )
        } else {
            (
                bin(BinaryOp::Gt, hi_l.clone(), lo_l.clone()),
                bin(
                    BinaryOp::Div,
                    bin(
                        BinaryOp::Sub,
                        bin(
                            BinaryOp::Add,
                            bin(BinaryOp::Sub, hi_l, lo_l),
                            step_l.clone(),
                        ),
                        long(int(1, span)),
                    ),
                    step_l,
                ),
            )
        };
        let trip = mk(
            ExprKind::Cond(
                Box::new(nonempty),
                Box::new(span_len),
                Box::new(long(int(0, span))),
            ),
            CType::Long,
            span,
        );
        let n = self.decl_temp(&CType::Long, trip, out);
        Trip { lo, step, n }
    }

    /// `collapse(n)`: the loop `outer` and the loops `inner` nested in it
    /// (checked; their bounds do not depend on each other's indices) as
    /// one loop over `k` in `0..n0*n1*...`, whose iteration declares each
    /// index from `k` (the last loop varying fastest, as the serial nest
    /// runs them) before the body. Returns the declarations of the bounds,
    /// steps and trip counts, evaluated once before the loop, and the loop.
    pub(in crate::check) fn collapsed(
        &mut self,
        mut outer: CheckedLoop,
        inner: Vec<Level>,
    ) -> (Vec<Stmt>, CheckedLoop) {
        let span = outer.span;
        let lng = CType::Long;
        let body = std::mem::replace(
            &mut outer.body,
            Stmt {
                kind: StmtKind::Block(Vec::new()),
                span,
            },
        );
        let mut levels = vec![Level {
            var: outer.var,
            var_ty: outer.var_ty.clone(),
            lo: outer.lo,
            hi: outer.hi,
            inclusive: outer.inclusive,
            step: outer.step,
        }];
        levels.extend(inner);
        let mut out = Vec::new();
        let mut trips = Vec::new();
        for lv in levels {
            let mut l = CheckedLoop {
                var: lv.var,
                var_ty: lv.var_ty,
                lo: lv.lo,
                hi: lv.hi,
                inclusive: lv.inclusive,
                step: lv.step,
                step_check: None,
                body: Stmt {
                    kind: StmtKind::Block(Vec::new()),
                    span,
                },
                span,
            };
            let t = self.trip(&mut l, &mut out);
            trips.push((t, l.var, l.var_ty));
        }
        // stride[l]: how many iterations of `k` one of loop l's takes.
        let mut strides = vec![None; trips.len()];
        let mut total: Option<LocalId> = None;
        for (l, (t, _, _)) in trips.iter().enumerate().rev() {
            strides[l] = total;
            let n = local(t.n, &lng, span);
            let product = match total {
                Some(s) => bin(BinaryOp::Mul, local(s, &lng, span), n),
                None => n,
            };
            total = Some(self.decl_temp(&lng, product, &mut out));
        }
        let k = self.new_local("", lng.clone(), false, span);
        let mut iteration = Vec::new();
        for (l, (t, var, ty)) in trips.iter().enumerate() {
            let mut idx = local(k, &lng, span);
            if let Some(s) = strides[l] {
                idx = bin(BinaryOp::Div, idx, local(s, &lng, span));
            }
            if l > 0 {
                idx = bin(BinaryOp::Rem, idx, local(t.n, &lng, span));
            }
            let value = bin(
                BinaryOp::Add,
                local(t.lo, ty, span),
                bin(
                    BinaryOp::Mul,
                    mk(ExprKind::Convert(Box::new(idx)), ty.clone(), span),
                    local(t.step, ty, span),
                ),
            );
            iteration.push(Stmt {
                kind: StmtKind::Decl(*var, Some(Init::Expr(value))),
                span,
            });
        }
        iteration.push(body);
        let total = total.map_or_else(|| long(int(0, span)), |t| local(t, &lng, span));
        let l = CheckedLoop {
            var: k,
            var_ty: lng.clone(),
            lo: mk(ExprKind::IntConst(0), lng.clone(), span),
            hi: total,
            inclusive: false,
            step: mk(ExprKind::IntConst(1), lng, span),
            step_check: None,
            body: Stmt {
                kind: StmtKind::Block(iteration),
                span,
            },
            span,
        };
        (out, l)
    }
}
