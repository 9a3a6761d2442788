//! The OpenMP runtime functions parc provides (`omp_get_thread_num`,
//! `omp_get_num_threads`, ...), answered from the team a call is written
//! in.

use super::builders::{bin, builtin, int, local, long};
use crate::ast::{self, Span};
use crate::check::Checker;
use crate::check::expr::mk;
use crate::diag::Diagnostic;
use crate::hir::{BinaryOp, Builtin, CType, Expr, ExprKind};
use parc_ir::Intrinsic;

impl Checker {
    /// The OpenMP runtime functions parc provides (`omp.h` names them):
    /// `None` if `name` is not one. A thread's number and its team's size
    /// are those of the team the call is written in (see the module's
    /// documentation); the number of threads a region gets is the number
    /// of workers.
    pub(in crate::check) fn omp_call(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Expr> {
        let arity = match name {
            "omp_set_num_threads" => 1,
            "omp_get_thread_num"
            | "omp_get_num_threads"
            | "omp_get_max_threads"
            | "omp_get_num_procs"
            | "omp_in_parallel"
            | "omp_get_wtime" => 0,
            _ => return None,
        };
        if args.len() != arity {
            self.push(
                Diagnostic::error(
                    span,
                    format!(
                        "`{name}` takes {arity} argument{}",
                        if arity == 1 { "" } else { "s" }
                    ),
                )
                .with_label("wrong number of arguments"),
            );
            self.check_only(args);
            return Some(crate::check::expr::err_expr(span));
        }
        let workers = || {
            builtin(
                Builtin::Intrinsic(Intrinsic::NumWorkers),
                vec![],
                CType::Int,
                span,
            )
        };
        Some(match name {
            "omp_get_thread_num" | "omp_get_num_threads" | "omp_in_parallel" => {
                self.omp_team_call(name, span)
            }
            "omp_get_max_threads" | "omp_get_num_procs" => workers(),
            "omp_get_wtime" => builtin(
                Builtin::Intrinsic(Intrinsic::Wtime),
                vec![],
                CType::Double,
                span,
            ),
            _ => {
                // omp_set_num_threads(n): evaluated, without effect.
                let n = self.rvalue(&args[0]);
                let n = self.convert(n, &CType::Int);
                self.push(
                    Diagnostic::warning(span, "`omp_set_num_threads` has no effect in parc")
                        .with_label("the number of workers is fixed when the program starts")
                        .with_help("set `PARC_NUM_THREADS` in the environment instead"),
                );
                mk(
                    ExprKind::Comma(Box::new(n), Box::new(int(0, span))),
                    CType::Int,
                    span,
                )
            }
        })
    }

    /// `omp_get_thread_num()`, `omp_get_num_threads()`, `omp_in_parallel()`:
    /// from the team the call is written directly in; 0, 1 and 0 in
    /// serial code of `main`; an error where parc cannot tell.
    fn omp_team_call(&mut self, name: &str, span: Span) -> Expr {
        let int_of = |e: Expr| mk(ExprKind::Convert(Box::new(e)), CType::Int, span);
        let lng = CType::Long;
        let here = self.fx.as_mut().and_then(|f| {
            let depth = f.pfors.len();
            f.teams.last_mut().filter(|t| t.pfors == depth)
        });
        if let Some(t) = here {
            t.used = true;
            let (tid, size) = (t.tid, t.size);
            return match name {
                "omp_get_thread_num" => int_of(local(tid, &lng, span)),
                "omp_get_num_threads" => int_of(local(size, &lng, span)),
                _ => bin(BinaryOp::Gt, local(size, &lng, span), long(int(1, span))),
            };
        }
        let (in_parallel, fname) = self
            .fx
            .as_ref()
            .map(|f| (!f.pfors.is_empty(), f.name.clone()))
            .unwrap_or_default();
        if !in_parallel && fname == "main" {
            return int(i64::from(name == "omp_get_num_threads"), span);
        }
        let d = if in_parallel {
            Diagnostic::error(
                span,
                format!(
                    "`{name}()` in a `parallel_for` or `spawn` that is not an OpenMP construct"
                ),
            )
            .with_label("its iterations are not OpenMP threads")
            .with_help(
                "call it directly in the `#pragma omp parallel` region or `parallel for` loop",
            )
        } else {
            Diagnostic::error(
                span,
                format!(
                    "parc cannot tell which OpenMP thread runs `{fname}`: `{name}()` is known only \
                     where a `#pragma omp parallel` region or loop is written (and in `main`)"
                ),
            )
            .with_label("not inside an OpenMP construct of this function")
            .with_help(format!(
                "call it in the parallel region or loop and pass the result to `{fname}` as a parameter"
            ))
        };
        self.push(d);
        crate::check::expr::err_expr(span)
    }
}
