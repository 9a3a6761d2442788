//! Work-sharing loops: the iterations in blocks of consecutive ones, each
//! block with its own private copies, reduction accumulators and
//! lastprivate copy-out, and the reductions combined after the loop in
//! block order.

use super::builders::{
    assign, bin, builtin, combine, identity, increment, int, local, long, size_of,
};
use super::collapse::Trip;
use super::{CheckedLoop, LastPrivates, OmpLoop, OmpParts, REDUCTION_CHUNKS, Reduction, Team};
use crate::ast::Span;
use crate::check::Checker;
use crate::check::expr::mk;
use crate::hir::{BinaryOp, Builtin, CType, Expr, ExprKind, Init, LocalId, Stmt, StmtKind};
use parc_ir::Intrinsic;

impl Checker {
    /// Block `c` of `nc`'s share of the loop's iterations, in order:
    /// `for (k = c*n/nc; k < (c+1)*n/nc; k++) { T i = lo + k*step; body }`.
    ///
    /// The block's `lastprivate` copies are declared before its loop; the
    /// block that runs the last iteration (the last block: the blocks
    /// reach `n`) copies them out after it.
    pub(super) fn share(
        &mut self,
        c: LocalId,
        nc: LocalId,
        trip: &Trip,
        l: &CheckedLoop,
        body: Vec<Stmt>,
        lastprivate: LastPrivates,
    ) -> Vec<Stmt> {
        let span = l.span;
        let lng = CType::Long;
        let mut out = Vec::new();
        let bound = |ch: &mut Checker, which: Expr, out: &mut Vec<Stmt>| {
            let v = bin(
                BinaryOp::Div,
                bin(BinaryOp::Mul, which, local(trip.n, &lng, span)),
                local(nc, &lng, span),
            );
            ch.decl_temp(&lng, v, out)
        };
        let first = bound(self, local(c, &lng, span), &mut out);
        let last = bound(
            self,
            bin(BinaryOp::Add, local(c, &lng, span), long(int(1, span))),
            &mut out,
        );
        let k = self.new_local("", lng.clone(), false, span);
        // Iteration `k`'s index: lo + k*step.
        let index_at = |k: LocalId| {
            bin(
                BinaryOp::Add,
                local(trip.lo, &l.var_ty, span),
                bin(
                    BinaryOp::Mul,
                    mk(
                        ExprKind::Convert(Box::new(local(k, &lng, span))),
                        l.var_ty.clone(),
                        span,
                    ),
                    local(trip.step, &l.var_ty, span),
                ),
            )
        };
        let mut iteration = vec![Stmt {
            kind: StmtKind::Decl(l.var, Some(Init::Expr(index_at(k)))),
            span,
        }];
        let copy_out = !lastprivate.is_empty();
        out.extend(lastprivate.decls);
        iteration.extend(body);
        out.push(Stmt {
            kind: StmtKind::For {
                init: Some(Box::new(Stmt {
                    kind: StmtKind::Decl(k, Some(Init::Expr(local(first, &lng, span)))),
                    span,
                })),
                cond: Some(Box::new(bin(
                    BinaryOp::Lt,
                    local(k, &lng, span),
                    local(last, &lng, span),
                ))),
                step: Some(Box::new(increment(k, &lng, span))),
                body: Box::new(Stmt {
                    kind: StmtKind::Block(iteration),
                    span,
                }),
            },
            span,
        });
        if copy_out {
            let mut copies = Vec::new();
            for (copy, outer, ty) in &lastprivate.copies {
                copies.push(assign(local(*outer, ty, span), local(*copy, ty, span)));
            }
            if let Some(outer) = lastprivate.index {
                // The index after the loop: lo + n*step.
                let ty = self.local_ty(outer);
                let after = self.convert(index_at(trip.n), &ty);
                copies.push(assign(local(outer, &ty, span), after));
            }
            let is_last = mk(
                ExprKind::Logical {
                    is_and: true,
                    lhs: Box::new(bin(
                        BinaryOp::Eq,
                        local(c, &lng, span),
                        bin(BinaryOp::Sub, local(nc, &lng, span), long(int(1, span))),
                    )),
                    rhs: Box::new(bin(
                        BinaryOp::Gt,
                        local(trip.n, &lng, span),
                        long(int(0, span)),
                    )),
                },
                CType::Int,
                span,
            );
            out.push(Stmt {
                kind: StmtKind::If {
                    cond: is_last,
                    then: Box::new(Stmt {
                        kind: StmtKind::Block(copies),
                        span,
                    }),
                    els: None,
                },
                span,
            });
        }
        out
    }

    fn local_ty(&self, id: LocalId) -> CType {
        self.fx
            .as_ref()
            .and_then(|f| f.locals.get(id.0 as usize))
            .map_or(CType::Int, |l| l.ty.clone())
    }

    /// Appends to `out` `parallel_for (c = 0; c < nc; c += step) {
    /// accumulators at their operator's identity; body; slots[c] =
    /// accumulators }` and then the slots combined into the variables
    /// outside, in block order. Every write is to memory of one block
    /// only, so the code is race-free as Tapir defines it (the AD
    /// differentiates it as any parallel loop with disjoint writes), and
    /// the result depends on `nc` only, not on the workers.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn blocks(
        &mut self,
        out: &mut Vec<Stmt>,
        c: LocalId,
        nc: LocalId,
        reductions: &[Reduction],
        body: Vec<Stmt>,
        step: Expr,
        step_check: Option<usize>,
        span: Span,
    ) {
        let lng = CType::Long;
        // One slot per block and reduction (at least one, for calloc).
        let mut slots = Vec::new();
        for (_, _, _, ty, at) in reductions {
            let ptr_ty = ty.clone().ptr_to();
            let count = bin(BinaryOp::Add, local(nc, &lng, *at), long(int(1, *at)));
            let mem = builtin(
                Builtin::Intrinsic(Intrinsic::Calloc),
                vec![
                    count,
                    mk(ExprKind::IntConst(size_of(ty) as i64), lng.clone(), *at),
                ],
                CType::Void.ptr_to(),
                *at,
            );
            let mem = mk(ExprKind::Convert(Box::new(mem)), ptr_ty.clone(), *at);
            slots.push(self.decl_temp(&ptr_ty, mem, out));
        }
        let slot = |ptr: LocalId, ty: &CType, k: Expr| {
            mk(
                ExprKind::Index {
                    base: Box::new(local(ptr, &ty.clone().ptr_to(), span)),
                    index: Box::new(long(k)),
                    elem_size: size_of(ty),
                },
                ty.clone(),
                span,
            )
        };
        let mut block = Vec::new();
        for (op, acc, _, ty, at) in reductions {
            block.push(Stmt {
                kind: StmtKind::Decl(*acc, Some(Init::Expr(identity(*op, ty, *at)))),
                span: *at,
            });
        }
        block.extend(body);
        for ((_, acc, _, ty, _), &ptr) in reductions.iter().zip(&slots) {
            block.push(assign(
                slot(ptr, ty, local(c, &lng, span)),
                local(*acc, ty, span),
            ));
        }
        out.push(Stmt {
            kind: StmtKind::ParallelFor {
                var: c,
                lo: Box::new(long(int(0, span))),
                hi: Box::new(local(nc, &lng, span)),
                inclusive: false,
                step: Box::new(step),
                step_check,
                body: Box::new(Stmt {
                    kind: StmtKind::Block(block),
                    span,
                }),
            },
            span,
        });
        // The blocks' results, in block order; then the slots go.
        for ((op, _, outer, ty, _), &ptr) in reductions.iter().zip(&slots) {
            let j = self.new_local("", lng.clone(), false, span);
            let x = local(*outer, ty, span);
            out.push(Stmt {
                kind: StmtKind::For {
                    init: Some(Box::new(Stmt {
                        kind: StmtKind::Decl(j, Some(Init::Expr(long(int(0, span))))),
                        span,
                    })),
                    cond: Some(Box::new(bin(
                        BinaryOp::Lt,
                        local(j, &lng, span),
                        local(nc, &lng, span),
                    ))),
                    step: Some(Box::new(increment(j, &lng, span))),
                    body: Box::new(assign(
                        x.clone(),
                        combine(*op, x, slot(ptr, ty, local(j, &lng, span))),
                    )),
                },
                span,
            });
            out.push(Stmt {
                kind: StmtKind::Expr(builtin(
                    Builtin::Intrinsic(Intrinsic::Free),
                    vec![mk(
                        ExprKind::Convert(Box::new(local(ptr, &ty.clone().ptr_to(), span))),
                        CType::Void.ptr_to(),
                        span,
                    )],
                    CType::Void,
                    span,
                )),
                span,
            });
        }
    }

    /// The statements an OpenMP `parallel for` becomes. Without
    /// reductions or thread numbers: the `parallel_for`, each iteration
    /// declaring its private copies first. Otherwise the iterations are
    /// cut into blocks of consecutive iterations run in parallel (see
    /// [`Checker::blocks`]), each running its iterations in order on its
    /// own accumulators: at most [`REDUCTION_CHUNKS`] blocks, so that the
    /// result is the same at any number of workers, or, when the body asks
    /// for its thread number, one block per thread of the team (the block
    /// is the thread).
    pub(in crate::check) fn omp_loop(
        &mut self,
        parts: OmpParts,
        mut l: CheckedLoop,
        team: Option<Team>,
        omp: &OmpLoop,
    ) -> Vec<Stmt> {
        let span = l.span;
        let mut inner_body = parts.prologue;
        inner_body.push(std::mem::replace(
            &mut l.body,
            Stmt {
                kind: StmtKind::Block(Vec::new()),
                span,
            },
        ));
        let used = team.as_ref().is_some_and(|t| t.used);
        if parts.reductions.is_empty() && parts.last.is_empty() && !used && !omp.ordered {
            return vec![Stmt {
                kind: StmtKind::ParallelFor {
                    var: l.var,
                    lo: Box::new(l.lo),
                    hi: Box::new(l.hi),
                    inclusive: l.inclusive,
                    step: Box::new(l.step),
                    step_check: l.step_check,
                    body: Box::new(Stmt {
                        kind: StmtKind::Block(inner_body),
                        span,
                    }),
                },
                span,
            }];
        }
        let lng = CType::Long;
        let mut out = Vec::new();
        let trip = self.trip(&mut l, &mut out);
        let (c, nc) = match &team {
            Some(t) => (t.tid, t.size),
            None => (
                self.new_local("", lng.clone(), false, span),
                self.new_local("", lng.clone(), false, span),
            ),
        };
        let blocks = if omp.ordered {
            long(int(1, span))
        } else if used {
            let nested = team.as_ref().is_some_and(|t| t.nested);
            self.team_size(omp, nested, span)
        } else {
            let max_chunks = long(int(REDUCTION_CHUNKS, span));
            mk(
                ExprKind::Cond(
                    Box::new(bin(
                        BinaryOp::Lt,
                        local(trip.n, &lng, span),
                        max_chunks.clone(),
                    )),
                    Box::new(local(trip.n, &lng, span)),
                    Box::new(max_chunks),
                ),
                lng.clone(),
                span,
            )
        };
        out.push(Stmt {
            kind: StmtKind::Decl(nc, Some(Init::Expr(blocks))),
            span,
        });
        let body = self.share(c, nc, &trip, &l, inner_body, parts.last);
        // A step not known to be positive is checked at run time as
        // `parallel_for` checks it: the blocks' loop steps by 1, or by the
        // user's step when that is not positive, which the check reports.
        let block_step = match l.step_check {
            None => long(int(1, span)),
            Some(_) => {
                let user = long(local(trip.step, &l.var_ty, span));
                mk(
                    ExprKind::Cond(
                        Box::new(bin(BinaryOp::Gt, user.clone(), long(int(0, span)))),
                        Box::new(long(int(1, span))),
                        Box::new(user),
                    ),
                    lng.clone(),
                    span,
                )
            }
        };
        self.blocks(
            &mut out,
            c,
            nc,
            &parts.reductions,
            body,
            block_step,
            l.step_check,
            span,
        );
        vec![Stmt {
            kind: StmtKind::Block(out),
            span,
        }]
    }
}
