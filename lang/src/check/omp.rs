//! OpenMP directives (and ParC's `parallel_reduce`): what each means in
//! parc, in terms the rest of the checker already knows.
//!
//! - `parallel for` on a canonical `for` loop is a `parallel_for`. The
//!   loop index may be a variable declared before the loop (each iteration
//!   gets its own, as OpenMP makes it private). `private(x)` declares a
//!   fresh `x` in each iteration, `firstprivate(x)` one initialized from
//!   the `x` outside; `shared`, `default` and `schedule` change nothing
//!   parc does (its scheduler balances load by itself).
//! - `reduction(op: x)`: the iterations run in at most 256 blocks of
//!   consecutive iterations; each block accumulates into its own `x`
//!   (from `op`'s identity) and leaves it in its slot of an array, and the
//!   slots are combined into `x` after the loop, in block order (see
//!   [`Checker::omp_loop`]). Written as ordinary HIR, race-free as Tapir
//!   defines it, so lowering, the optimizer and the AD see ordinary code
//!   (the AD: a parallel loop with disjoint writes), and a floating-point
//!   sum is the same at any number of workers.
//! - Constructs parc runs serially (`parallel` regions, a `for` outside a
//!   parallel loop, `task`, `sections`, ...) get a warning that says so; in
//!   serial code `atomic`, `critical`, `single`, `master`, `barrier` and
//!   `flush` are what they are on one thread. Inside a parallel loop, an
//!   `atomic` `x += e` (or `-=`, `++`, `--`) is an atomic add; what parc
//!   cannot do there (`critical`, other atomics) is an error.

use super::expr::mk;
use super::{Checker, is_err};
use crate::ast::{self, Span};
use crate::diag::Diagnostic;
use crate::hir::{BinaryOp, Builtin, CType, Expr, ExprKind, Init, LocalId, Stmt, StmtKind};
use crate::omp::{Clause, Pragma, RedOp};
use parc_ir::Intrinsic;

/// What an OpenMP loop asks of the `parallel_for` it becomes.
#[derive(Default)]
pub(super) struct OmpLoop {
    /// `private` (`None`) and `firstprivate` (`Some(outer)`) variables:
    /// name, type, span of the clause's name.
    pub privates: Vec<(String, CType, Option<LocalId>, Span)>,
    /// Reductions: operator, name, the variable outside, its type.
    pub reductions: Vec<(RedOp, String, LocalId, CType, Span)>,
}

/// The locals an OpenMP loop declared inside its scope: each iteration's
/// private copies (their declarations), and each reduction's accumulator.
pub(super) struct OmpParts {
    pub prologue: Vec<Stmt>,
    /// Operator, the accumulator, the variable outside, type.
    pub reductions: Vec<(RedOp, LocalId, LocalId, CType, Span)>,
}

/// The loop `parallel_for` checked, for [`Checker::omp_loop`].
pub(super) struct CheckedLoop {
    pub var: LocalId,
    pub var_ty: CType,
    pub lo: Expr,
    pub hi: Expr,
    pub inclusive: bool,
    pub step: Expr,
    pub step_check: Option<usize>,
    pub body: Stmt,
    pub span: Span,
}

/// Most chunks a reduction loop is cut into: enough to keep 64 workers
/// busy, and fixed, so that a floating-point reduction adds in the same
/// order at any number of workers (the result does not depend on them).
const REDUCTION_CHUNKS: i64 = 256;

fn local(id: LocalId, ty: &CType, span: Span) -> Expr {
    mk(ExprKind::Local(id), ty.clone(), span)
}

fn int(v: i64, span: Span) -> Expr {
    mk(ExprKind::IntConst(v), CType::Int, span)
}

fn long(e: Expr) -> Expr {
    let span = e.span;
    if e.ty == CType::Long {
        return e;
    }
    mk(ExprKind::Convert(Box::new(e)), CType::Long, span)
}

fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    let ty = match op {
        BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge | BinaryOp::Eq | BinaryOp::Ne => {
            CType::Int
        }
        _ => a.ty.clone(),
    };
    let span = a.span;
    mk(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty, span)
}

fn assign(lhs: Expr, rhs: Expr) -> Stmt {
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

fn increment(id: LocalId, ty: &CType, span: Span) -> Expr {
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

fn builtin(func: Builtin, args: Vec<Expr>, ty: CType, span: Span) -> Expr {
    mk(ExprKind::Builtin { func, args }, ty, span)
}

fn size_of(ty: &CType) -> u64 {
    match ty {
        CType::Long | CType::ULong | CType::Double => 8,
        _ => 4,
    }
}

/// `op`'s identity in type `ty`.
fn identity(op: RedOp, ty: &CType, span: Span) -> Expr {
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
fn combine(op: RedOp, a: Expr, b: Expr) -> Expr {
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

impl Checker {
    /// `#pragma omp ...` (or `parallel_reduce`) applied to `stmt`.
    pub(super) fn omp(&mut self, pragma: &Pragma, stmt: &ast::Stmt) -> Vec<Stmt> {
        let in_parallel = self.fx.as_ref().is_some_and(|f| !f.pfors.is_empty());
        match pragma.construct.as_str() {
            "parallel for" | "parallel for simd" => {
                let ast::StmtKind::For {
                    init,
                    cond,
                    step,
                    body,
                    ..
                } = &stmt.kind
                else {
                    self.push(
                        Diagnostic::error(
                            pragma.span,
                            "`#pragma omp parallel for` must be followed by a `for` loop",
                        )
                        .with_label("no loop follows"),
                    );
                    return self.stmt(stmt);
                };
                let Some(omp) = self.omp_clauses(pragma) else {
                    return self.stmt(stmt);
                };
                self.parallel_for(
                    init.as_deref(),
                    cond.as_ref(),
                    step.as_ref(),
                    body,
                    stmt.span,
                    Some(&omp),
                )
            }
            "atomic" | "atomic update" if in_parallel => self.omp_atomic(pragma, stmt),
            "critical" | "atomic" | "atomic update" | "atomic read" | "atomic write"
            | "atomic capture" | "single" | "master" | "ordered" | "barrier" | "flush"
                if in_parallel =>
            {
                self.push(
                    Diagnostic::error(
                        pragma.span,
                        format!(
                            "`#pragma omp {}` inside a parallel loop is not supported",
                            pragma.construct
                        ),
                    )
                    .with_label("parc cannot run this in parallel code")
                    .with_help(
                        "accumulate with `reduction(...)` on the loop, or `atomic` on `x += e`",
                    ),
                );
                // Its statement's writes would only repeat the error as races.
                Vec::new()
            }
            // One thread: these are what they say, with nothing to wait for.
            "atomic" | "atomic update" | "atomic read" | "atomic write" | "atomic capture"
            | "critical" | "single" | "master" | "barrier" | "flush" | "taskwait" => {
                self.stmt(stmt)
            }
            other => {
                let what = match other {
                    "parallel" => "`#pragma omp parallel` regions run on one thread in parc: the \
                                   region runs once, serially"
                        .to_string(),
                    "for" => "`#pragma omp for` outside a parallel loop runs serially (parc runs \
                              `parallel` regions on one thread)"
                        .to_string(),
                    _ => format!(
                        "`#pragma omp {other}` is not run in parallel by parc: the code runs \
                         serially, as written"
                    ),
                };
                self.push(
                    Diagnostic::warning(pragma.span, what)
                        .with_label("runs serially")
                        .with_help("`#pragma omp parallel for` on a loop runs it in parallel"),
                );
                self.stmt(stmt)
            }
        }
    }

    /// The clauses of a `parallel for`, checked; `None` after an error.
    fn omp_clauses(&mut self, pragma: &Pragma) -> Option<OmpLoop> {
        let mut omp = OmpLoop::default();
        let mut ok = true;
        for c in &pragma.clauses {
            match &c.clause {
                Clause::Reduction(op, vars) => {
                    for v in vars {
                        let Some((id, ty)) = self.omp_var(v, "reduction") else {
                            ok = false;
                            continue;
                        };
                        let int_only = matches!(
                            op,
                            RedOp::BitAnd | RedOp::BitOr | RedOp::BitXor
                        );
                        let fits = match ty {
                            CType::Int | CType::UInt | CType::Long | CType::ULong => true,
                            CType::Float | CType::Double => !int_only,
                            _ => false,
                        };
                        if !fits {
                            let t = self.ty_name(&ty);
                            self.push(
                                Diagnostic::error(
                                    v.span,
                                    format!("`reduction({}: ...)` on `{}` of type `{t}`", op.spelling(), v.name),
                                )
                                .with_label("not a reduction parc supports")
                                .with_help("reductions are on `int`, `unsigned`, `long`, `unsigned long` (any operator) and `float`, `double` (+ * - min max && ||)"),
                            );
                            ok = false;
                            continue;
                        }
                        omp.reductions.push((*op, v.name.clone(), id, ty, v.span));
                    }
                }
                Clause::Private(vars) | Clause::FirstPrivate(vars) => {
                    let first = matches!(c.clause, Clause::FirstPrivate(_));
                    for v in vars {
                        let Some((id, ty)) = self.omp_var(v, if first { "firstprivate" } else { "private" }) else {
                            ok = false;
                            continue;
                        };
                        omp.privates.push((v.name.clone(), ty, first.then_some(id), v.span));
                    }
                }
                Clause::Shared(_) | Clause::Default | Clause::Schedule | Clause::Nowait => {}
                Clause::Collapse(1) => {}
                Clause::Collapse(n) => self.push(
                    Diagnostic::warning(c.span, format!("`collapse({n})`: parc runs the outer loop in parallel and the {} inner in each of its iterations", if *n == 2 { "loop" } else { "loops" }))
                        .with_label("the loops are not merged")
                        .with_help("the result is the same; write `parallel_for` on an inner loop to run it in parallel too"),
                ),
                Clause::NumThreads | Clause::If => self.push(
                    Diagnostic::warning(c.span, "this clause is ignored: parc runs the loop in parallel on all its workers (`PARC_NUM_THREADS`)")
                        .with_label("ignored"),
                ),
                Clause::LastPrivate(_) | Clause::Ordered | Clause::Other(_) => {
                    let name = match &c.clause {
                        Clause::LastPrivate(_) => "lastprivate".to_string(),
                        Clause::Ordered => "ordered".to_string(),
                        Clause::Other(n) => n.clone(),
                        _ => String::new(),
                    };
                    self.push(
                        Diagnostic::error(c.span, format!("the `{name}` clause is not supported"))
                            .with_label("parc cannot honour this clause")
                            .with_help("remove it and write the loop without it"),
                    );
                    ok = false;
                }
            }
        }
        ok.then_some(omp)
    }

    /// A variable a clause names: a local of the enclosing function.
    fn omp_var(&mut self, v: &crate::ast::Ident, clause: &str) -> Option<(LocalId, CType)> {
        match self.lookup(&v.name) {
            Some(super::Sym::Local(id)) => {
                let ty = self.fx.as_ref()?.locals.get(id.0 as usize)?.ty.clone();
                (!is_err(&ty)).then_some((id, ty))
            }
            Some(_) => {
                self.push(
                    Diagnostic::error(
                        v.span,
                        format!("`{clause}({})`: only local variables are supported", v.name),
                    )
                    .with_label("not a local variable")
                    .with_help("copy it into a local before the loop and back after"),
                );
                None
            }
            None => {
                self.push(
                    Diagnostic::error(v.span, format!("use of undeclared identifier `{}`", v.name))
                        .with_label("not found in this scope"),
                );
                None
            }
        }
    }

    /// Declares a loop's private copies and reduction accumulators
    /// (inside the loop's scope, after its index, so that the body's
    /// writes to them are its own).
    pub(super) fn omp_parts(&mut self, omp: &OmpLoop) -> OmpParts {
        let mut parts = OmpParts {
            prologue: Vec::new(),
            reductions: Vec::new(),
        };
        for (name, ty, outer, at) in &omp.privates {
            let id = self.new_local(name, ty.clone(), false, *at);
            let init = outer.map(|o| Init::Expr(local(o, ty, *at)));
            parts.prologue.push(Stmt {
                kind: StmtKind::Decl(id, init),
                span: *at,
            });
        }
        for (op, name, outer, ty, at) in &omp.reductions {
            let acc = self.new_local(name, ty.clone(), false, *at);
            parts.reductions.push((*op, acc, *outer, ty.clone(), *at));
        }
        parts
    }

    /// The statements an OpenMP loop becomes. Without reductions: the
    /// `parallel_for`, each iteration declaring its private copies first.
    /// With reductions, the iterations are cut into at most
    /// [`REDUCTION_CHUNKS`] blocks of consecutive iterations, run in
    /// parallel; each block runs its iterations in order on its own
    /// accumulators (starting at the operator's identity) and stores them
    /// in its slot of an array; after the loop the slots are combined into
    /// the variables in block order. Every write is to memory of one block
    /// only, so the code is race-free as Tapir defines it (the AD
    /// differentiates it as any parallel loop with disjoint writes), and
    /// the result is the same at any number of workers.
    pub(super) fn omp_loop(&mut self, parts: OmpParts, l: CheckedLoop) -> Vec<Stmt> {
        let span = l.span;
        let mut inner_body = parts.prologue;
        inner_body.push(l.body);
        if parts.reductions.is_empty() {
            return vec![Stmt {
                kind: StmtKind::ParallelFor {
                    var: l.var,
                    lo: l.lo,
                    hi: l.hi,
                    inclusive: l.inclusive,
                    step: l.step,
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
        let decl = |c: &mut Checker, ty: &CType, init: Expr, out: &mut Vec<Stmt>| {
            let id = c.new_local("", ty.clone(), false, span);
            out.push(Stmt {
                kind: StmtKind::Decl(id, Some(Init::Expr(init))),
                span,
            });
            id
        };
        // Bounds and step once, as `parallel_for` evaluates them; the trip
        // count in `long`.
        let lo = decl(self, &l.var_ty, l.lo, &mut out);
        let hi_ty = l.hi.ty.clone();
        let hi = decl(self, &hi_ty, l.hi, &mut out);
        let step = decl(self, &l.var_ty, l.step, &mut out);
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
        let zero = long(int(0, span));
        let trip = mk(
            ExprKind::Cond(
                Box::new(nonempty),
                Box::new(span_len),
                Box::new(zero.clone()),
            ),
            lng.clone(),
            span,
        );
        let n = decl(self, &lng, trip, &mut out);
        let max_chunks = long(int(REDUCTION_CHUNKS, span));
        let chunks = mk(
            ExprKind::Cond(
                Box::new(bin(BinaryOp::Lt, local(n, &lng, span), max_chunks.clone())),
                Box::new(local(n, &lng, span)),
                Box::new(max_chunks),
            ),
            lng.clone(),
            span,
        );
        let nc = decl(self, &lng, chunks, &mut out);
        // One slot per block and reduction (at least one, for calloc).
        let mut slots = Vec::new();
        for (_, _, _, ty, at) in &parts.reductions {
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
            slots.push(decl(self, &ptr_ty, mem, &mut out));
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
        // The block: accumulators at the identity, its iterations in
        // order, the accumulators into its slots.
        let c = self.new_local("", lng.clone(), false, span);
        let k = self.new_local("", lng.clone(), false, span);
        let mut block = Vec::new();
        for (op, acc, _, ty, at) in &parts.reductions {
            block.push(Stmt {
                kind: StmtKind::Decl(*acc, Some(Init::Expr(identity(*op, ty, *at)))),
                span: *at,
            });
        }
        let bound = |c: &mut Checker, which: Expr, block: &mut Vec<Stmt>| {
            // which * n / nc
            let v = bin(
                BinaryOp::Div,
                bin(BinaryOp::Mul, which, local(n, &lng, span)),
                local(nc, &lng, span),
            );
            decl(c, &lng, v, block)
        };
        let first = bound(self, local(c, &lng, span), &mut block);
        let last = bound(
            self,
            bin(BinaryOp::Add, local(c, &lng, span), long(int(1, span))),
            &mut block,
        );
        let index = bin(
            BinaryOp::Add,
            local(lo, &l.var_ty, span),
            bin(
                BinaryOp::Mul,
                mk(
                    ExprKind::Convert(Box::new(local(k, &lng, span))),
                    l.var_ty.clone(),
                    span,
                ),
                local(step, &l.var_ty, span),
            ),
        );
        let mut iteration = vec![Stmt {
            kind: StmtKind::Decl(l.var, Some(Init::Expr(index))),
            span,
        }];
        iteration.extend(inner_body);
        block.push(Stmt {
            kind: StmtKind::For {
                init: Some(Box::new(Stmt {
                    kind: StmtKind::Decl(k, Some(Init::Expr(local(first, &lng, span)))),
                    span,
                })),
                cond: Some(bin(
                    BinaryOp::Lt,
                    local(k, &lng, span),
                    local(last, &lng, span),
                )),
                step: Some(increment(k, &lng, span)),
                body: Box::new(Stmt {
                    kind: StmtKind::Block(iteration),
                    span,
                }),
            },
            span,
        });
        for ((_, acc, _, ty, _), &ptr) in parts.reductions.iter().zip(&slots) {
            block.push(assign(
                slot(ptr, ty, local(c, &lng, span)),
                local(*acc, ty, span),
            ));
        }
        // A step not known to be positive is checked at run time as
        // `parallel_for` checks it: the blocks' loop steps by 1, or by the
        // user's step when that is not positive, which the check reports.
        let block_step = match l.step_check {
            None => long(int(1, span)),
            Some(_) => {
                let user = long(local(step, &l.var_ty, span));
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
        out.push(Stmt {
            kind: StmtKind::ParallelFor {
                var: c,
                lo: zero,
                hi: local(nc, &lng, span),
                inclusive: false,
                step: block_step,
                step_check: l.step_check,
                body: Box::new(Stmt {
                    kind: StmtKind::Block(block),
                    span,
                }),
            },
            span,
        });
        // The blocks' results, in block order; then the slots go.
        for ((op, _, outer, ty, _), &ptr) in parts.reductions.iter().zip(&slots) {
            let j = self.new_local("", lng.clone(), false, span);
            let x = local(*outer, ty, span);
            out.push(Stmt {
                kind: StmtKind::For {
                    init: Some(Box::new(Stmt {
                        kind: StmtKind::Decl(j, Some(Init::Expr(long(int(0, span))))),
                        span,
                    })),
                    cond: Some(bin(
                        BinaryOp::Lt,
                        local(j, &lng, span),
                        local(nc, &lng, span),
                    )),
                    step: Some(increment(j, &lng, span)),
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
        vec![Stmt {
            kind: StmtKind::Block(out),
            span,
        }]
    }

    /// `#pragma omp atomic` on `x += e`, `x -= e`, `x++`, `x--` (also
    /// `x = x + e`) inside a parallel loop: an atomic add.
    fn omp_atomic(&mut self, pragma: &Pragma, stmt: &ast::Stmt) -> Vec<Stmt> {
        let unsupported = |c: &mut Checker| {
            c.push(
                Diagnostic::error(stmt.span, "parc supports `#pragma omp atomic` only on `x += e`, `x -= e`, `x++` and `x--`")
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

impl Checker {
    /// The OpenMP runtime functions parc provides (`omp.h` names them):
    /// `None` if `name` is not one. In parc the OpenMP threads are the
    /// workers: inside a parallel loop (of this function) a thread's
    /// number is its worker's and the team is every worker; outside one,
    /// the one thread of a serial region.
    pub(super) fn omp_call(&mut self, name: &str, args: &[ast::Expr], span: Span) -> Option<Expr> {
        let in_parallel = self.fx.as_ref().is_some_and(|f| !f.pfors.is_empty());
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
            return Some(super::expr::err_expr(span));
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
            "omp_get_thread_num" if in_parallel => builtin(
                Builtin::Intrinsic(Intrinsic::WorkerId),
                vec![],
                CType::Int,
                span,
            ),
            "omp_get_thread_num" => int(0, span),
            "omp_get_num_threads" | "omp_in_parallel" if !in_parallel => {
                int(i64::from(name == "omp_get_num_threads"), span)
            }
            "omp_get_num_threads" | "omp_get_max_threads" | "omp_get_num_procs" => workers(),
            "omp_in_parallel" => int(1, span),
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
}
