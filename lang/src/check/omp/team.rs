//! `parallel` regions (a team of threads) and the constructs bound to a
//! team: `omp for`, `single`/`master`, barriers and the team's
//! reductions.

use super::builders::{bin, builtin, int, local, long};
use super::{CheckedLoop, Construct, OmpLoop, OmpParts, Reduction, Team};
use crate::ast::{self, Span};
use crate::check::expr::mk;
use crate::check::{Checker, LoopKind};
use crate::diag::Diagnostic;
use crate::hir::{BinaryOp, Builtin, CType, Expr, ExprKind, Init, Stmt, StmtKind};
use crate::omp::Pragma;
use parc_ir::Intrinsic;

impl Checker {
    /// Starts a team (before its body is checked): its thread number and
    /// size are locals the body's `omp_get_thread_num()` reads.
    pub(in crate::check) fn push_team(&mut self, region: bool, nested: bool, span: Span) {
        let tid = self.new_local("", CType::Long, false, span);
        let size = self.new_local("", CType::Long, false, span);
        if let Some(fx) = self.fx.as_mut() {
            fx.teams.push(Team {
                tid,
                size,
                region,
                nested,
                used: false,
                pfors: fx.pfors.len(),
                loops: fx.loops.len(),
                barrier: None,
                reductions: Vec::new(),
                ordered: false,
            });
        }
    }

    pub(in crate::check) fn pop_team(&mut self) -> Option<Team> {
        self.fx.as_mut().and_then(|f| f.teams.pop())
    }

    /// The number of threads of a team (`long`): `num_threads(n)` or one
    /// per worker; one if `if(c)` is false or the team is nested in
    /// parallel code (OpenMP's nested regions are inactive by default).
    pub(super) fn team_size(&mut self, omp: &OmpLoop, nested: bool, span: Span) -> Expr {
        let lng = CType::Long;
        if nested {
            return long(int(1, span));
        }
        let size = match &omp.threads {
            // At least one thread, as OpenMP requires n > 0.
            Some(n) => {
                let n = n.clone();
                let one = long(int(1, span));
                mk(
                    ExprKind::Cond(
                        Box::new(bin(BinaryOp::Gt, n.clone(), one.clone())),
                        Box::new(n),
                        Box::new(one),
                    ),
                    lng.clone(),
                    span,
                )
            }
            None => long(builtin(
                Builtin::Intrinsic(Intrinsic::NumWorkers),
                vec![],
                CType::Int,
                span,
            )),
        };
        match &omp.if_cond {
            Some(c) => mk(
                ExprKind::Cond(
                    Box::new(c.clone()),
                    Box::new(size),
                    Box::new(long(int(1, span))),
                ),
                lng,
                span,
            ),
            None => size,
        }
    }

    /// `#pragma omp parallel`: a team of threads, each running the region
    /// (see the module's documentation).
    /// `parallel sections` is a region whose body is the sections, shared
    /// out among its threads.
    pub(super) fn omp_region(
        &mut self,
        pragma: &Pragma,
        stmt: &ast::Stmt,
        sections: bool,
    ) -> Vec<Stmt> {
        let span = pragma.span;
        let nested = self.fx.as_ref().is_some_and(|f| !f.pfors.is_empty());
        let (omp, _) = self.omp_clauses(pragma, Construct::Region);
        self.fork_join("#pragma omp parallel", span);
        let size = self.team_size(&omp, nested, span);
        self.push_team(true, nested, span);
        let Some((tid, nc)) = self.team().map(|t| (t.tid, t.size)) else {
            return Vec::new();
        };
        if let Some(fx) = self.fx.as_mut() {
            fx.loops.push(LoopKind::ParallelBody);
            fx.enter_pfor(span, tid);
            // The team's body is directly in the new parallel_for.
            if let Some(t) = fx.teams.last_mut() {
                t.pfors = fx.pfors.len();
                t.loops = fx.loops.len();
            }
        }
        self.push_scope();
        let parts = self.omp_parts(&omp, &[]);
        let before = self.pending();
        let body = if sections {
            Stmt {
                kind: StmtKind::Block(self.sections_shared(pragma, stmt, tid, nc)),
                span: stmt.span,
            }
        } else {
            self.sub_stmt(stmt)
        };
        *self.pending_mut() = before;
        self.pop_scope();
        let team = self.pop_team();
        if let Some(fx) = self.fx.as_mut() {
            fx.loops.pop();
            fx.pfors.pop();
        }
        let mut reductions = parts.reductions;
        reductions.extend(team.map(|t| t.reductions).unwrap_or_default());
        let mut out = vec![Stmt {
            kind: StmtKind::Decl(nc, Some(Init::Expr(size))),
            span,
        }];
        let mut block = parts.prologue;
        block.push(body);
        self.blocks(
            &mut out,
            tid,
            nc,
            &reductions,
            block,
            long(int(1, span)),
            None,
            span,
        );
        vec![Stmt {
            kind: StmtKind::Block(out),
            span,
        }]
    }

    /// `#pragma omp for` directly in a `parallel` region: the loop,
    /// checked as a `parallel_for` whose iterations the region's threads
    /// share ([`Checker::omp_share`]).
    pub(super) fn omp_for(&mut self, pragma: &Pragma, stmt: &ast::Stmt) -> Vec<Stmt> {
        let ast::StmtKind::For {
            init,
            cond,
            step,
            body,
            ..
        } = &stmt.kind
        else {
            self.not_a_loop(pragma);
            return self.stmt(stmt);
        };
        let (mut omp, ok) = self.omp_clauses(pragma, Construct::For);
        omp.worksharing = true;
        self.omp_barrier_in_loop(pragma, omp.nowait);
        if !ok {
            return self.stmt(stmt);
        }
        let out = self.parallel_for(
            init.as_deref(),
            cond.as_deref(),
            step.as_deref(),
            body,
            stmt.span,
            Some(&omp),
        );
        if !omp.nowait {
            self.omp_set_barrier(pragma);
        }
        out
    }

    /// A worksharing construct with a barrier in a loop of its region:
    /// every thread would wait at it on every trip.
    pub(super) fn omp_barrier_in_loop(&mut self, pragma: &Pragma, nowait: bool) {
        let in_loop = self
            .fx
            .as_ref()
            .is_some_and(|f| f.teams.last().is_some_and(|t| f.loops.len() > t.loops));
        if nowait || !in_loop {
            return;
        }
        self.push(
            Diagnostic::error(
                pragma.span,
                format!(
                    "parc cannot keep the barrier at the end of `#pragma omp {}` in a loop of a \
                     `parallel` region",
                    pragma.construct
                ),
            )
            .with_label("its threads would have to wait here on every trip")
            .with_help(
                "put the loop around the region instead (`#pragma omp parallel for` on the inner \
                 loop), or add `nowait` if no trip needs another thread's results",
            ),
        );
    }

    pub(super) fn omp_set_barrier(&mut self, pragma: &Pragma) {
        if let Some(t) = self.fx.as_mut().and_then(|f| f.teams.last_mut()) {
            t.barrier = Some((pragma.span, pragma.construct.clone()));
        }
    }

    /// An `omp for` loop in a region, checked: thread `tid` of the team
    /// runs its block of consecutive iterations (`schedule(static)`).
    /// Reductions accumulate per thread over the region and combine at its
    /// end (the loop's barrier, which parc keeps only there).
    pub(in crate::check) fn omp_share(&mut self, parts: OmpParts, mut l: CheckedLoop) -> Vec<Stmt> {
        let span = l.span;
        let Some((tid, nc)) = self.team().map(|t| (t.tid, t.size)) else {
            return Vec::new();
        };
        if l.step_check.is_some() {
            self.push(
                Diagnostic::error(
                    l.step.span,
                    "the step of an `omp for` loop in a `parallel` region must be a constant",
                )
                .with_label("known only at run time")
                .with_help("write a constant step, or `#pragma omp parallel for` on the loop"),
            );
            return Vec::new();
        }
        self.team_reductions(&parts.reductions);
        let mut out = Vec::new();
        let trip = self.trip(&mut l, &mut out);
        let mut body = parts.prologue;
        body.push(std::mem::replace(
            &mut l.body,
            Stmt {
                kind: StmtKind::Block(Vec::new()),
                span,
            },
        ));
        out.extend(self.share(tid, nc, &trip, &l, body, parts.last));
        vec![Stmt {
            kind: StmtKind::Block(out),
            span,
        }]
    }

    /// The reductions of a worksharing construct in a region (`omp for`,
    /// `sections`): each thread accumulates over the whole region, and the
    /// threads' values combine at its end.
    pub(super) fn team_reductions(&mut self, reductions: &[Reduction]) {
        let Some(pfors) = self.team().map(|t| t.pfors) else {
            return;
        };
        for (_, _, outer, _, at) in reductions {
            let private = self.fx.as_ref().is_some_and(|f| {
                f.local_info
                    .get(outer.0 as usize)
                    .is_some_and(|i| i.pfor_depth >= pfors)
            });
            if private {
                self.push(
                    Diagnostic::error(
                        *at,
                        "a reduction variable of a worksharing construct must be shared in its \
                         `parallel` region",
                    )
                    .with_label("declared inside the region: each thread has its own")
                    .with_help("declare it before the region, or accumulate without `reduction`"),
                );
            }
        }
        if let Some(t) = self.fx.as_mut().and_then(|f| f.teams.last_mut()) {
            t.reductions.extend(reductions.iter().cloned());
        }
    }

    /// `single` and `master` directly in a region: thread 0 runs them.
    /// (`single`'s barrier is kept only by the region's end.)
    pub(super) fn omp_single(&mut self, pragma: &Pragma, stmt: &ast::Stmt) -> Vec<Stmt> {
        let span = pragma.span;
        let Some(tid) = self.team().map(|t| t.tid) else {
            return Vec::new();
        };
        let (omp, _) = self.omp_clauses(pragma, Construct::Single);
        let barrier = pragma.is("single") && !omp.nowait;
        if barrier {
            self.omp_barrier_in_loop(pragma, false);
        }
        // One thread runs it: its writes happen once.
        self.enter_once(1);
        self.push_scope();
        let parts = self.omp_parts(&omp, &[]);
        let mut body = parts.prologue;
        body.push(self.sub_stmt(stmt));
        self.pop_scope();
        self.enter_once(-1);
        if barrier {
            self.omp_set_barrier(pragma);
        }
        let lng = CType::Long;
        vec![Stmt {
            kind: StmtKind::If {
                cond: bin(BinaryOp::Eq, local(tid, &lng, span), long(int(0, span))),
                then: Box::new(Stmt {
                    kind: StmtKind::Block(body),
                    span,
                }),
                els: None,
            },
            span,
        }]
    }
}
