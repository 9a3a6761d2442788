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
//! - A `parallel` region is a team of threads, one per worker (or
//!   `num_threads(n)`; one when `if(c)` is 0 or the region is nested in
//!   parallel code, as OpenMP's nested regions are inactive by default):
//!   a `parallel_for` over the thread numbers whose body is the region.
//!   Inside it, `omp for` gives each thread its static share of the loop's
//!   iterations (consecutive blocks, as `schedule(static)`), `single` and
//!   `master` run on thread 0, `reduction`s (of the region or of its `omp
//!   for` loops) accumulate per thread and combine after the region.
//!   Threads of a team are not simultaneous in parc (a worker may run
//!   several one after another), so a barrier cannot be kept: `barrier` is
//!   an error, and so is any statement after an `omp for` or `single`
//!   without `nowait` (its implicit barrier); the region's end is the
//!   `parallel_for`'s end and keeps its barrier.
//! - `omp_get_thread_num()` and `omp_get_num_threads()` are the team's
//!   thread number and size, known where the construct is written: in a
//!   `parallel` region, or in a `parallel for` (which then runs as a team
//!   of one block of iterations per worker, so that no two iterations that
//!   run at once share a number, whatever the body does). In `main`
//!   outside them, they are 0 and 1; in any other function parc cannot tell
//!   which thread calls it, and the call is an error, as are the
//!   constructs that bind to a team there (`for`, `single`, `critical`,
//!   ...: "orphaned" constructs).
//! - `lastprivate` copies are per block of iterations; the last block
//!   copies them out after its loop ([`Checker::share`]). A loop with the
//!   `ordered` clause is a team of one block (serial, in order), in which
//!   `ordered` is its statement. `collapse(n)` is one loop over the nest's
//!   product space ([`Checker::collapsed`]). `sections` in a region: thread `k %
//!   threads` runs section `k`; `parallel sections` is a region of them.
//! - Constructs parc runs serially (`task`, `simd`, `sections` outside a
//!   region, ...) get a warning that says so; in serial code of `main`
//!   `critical`, `single`, `master`, `barrier` and `flush` are what they
//!   are on one thread. An `atomic` `x += e` (or `-=`, `++`, `--`) is an
//!   atomic add wherever it may run in parallel, as is a `critical`
//!   section that is one such update; what parc cannot do in parallel
//!   code (other `critical` sections, other atomics) is an error.

use super::expr::mk;
use super::{Checker, LoopKind, is_err};
use crate::ast::{self, Span};
use crate::diag::Diagnostic;
use crate::hir::{BinaryOp, Builtin, CType, Expr, ExprKind, Init, LocalId, Stmt, StmtKind};
use crate::omp::{Clause, Pragma, RedOp};
use parc_ir::Intrinsic;

/// A reduction: operator, the accumulator, the variable outside, its
/// type, the clause's span.
pub(super) type Reduction = (RedOp, LocalId, LocalId, CType, Span);

/// What an OpenMP loop or region asks of the code it becomes.
#[derive(Default)]
pub(super) struct OmpLoop {
    /// `private` (`None`) and `firstprivate` (`Some(outer)`) variables:
    /// name, type, span of the clause's name.
    pub privates: Vec<(String, CType, Option<LocalId>, Span)>,
    /// Reductions: operator, name, the variable outside, its type.
    pub reductions: Vec<(RedOp, String, LocalId, CType, Span)>,
    /// `lastprivate` variables: name, type, the variable outside, span.
    pub lastprivates: Vec<(String, CType, LocalId, Span)>,
    /// The `ordered` clause: the loop runs serially, in iteration order.
    pub ordered: bool,
    /// `collapse(n)`: the loop and the `n - 1` loops nested in it are one
    /// loop over their iterations' product.
    pub collapse: u32,
    /// An `omp for` inside a `parallel` region: the loop is shared out
    /// among the region's threads rather than run as a `parallel_for`.
    pub worksharing: bool,
    /// `nowait`: no barrier at the end of the construct.
    pub nowait: bool,
    /// `num_threads(n)` and `if(c)`, checked (`long`, `int`).
    pub threads: Option<Expr>,
    pub if_cond: Option<Expr>,
}

/// The locals an OpenMP loop declared inside its scope: each iteration's
/// private copies (their declarations), and each reduction's accumulator.
pub(super) struct OmpParts {
    pub prologue: Vec<Stmt>,
    pub reductions: Vec<Reduction>,
    pub last: LastPrivates,
}

/// `lastprivate` copies: declared once per block of iterations (a thread's
/// own copy, as OpenMP's), and copied out by the block that runs the last
/// iteration, after it.
#[derive(Default)]
pub(super) struct LastPrivates {
    /// The copies' declarations.
    pub decls: Vec<Stmt>,
    /// Copy and the variable outside, with their type.
    pub copies: Vec<(LocalId, LocalId, CType)>,
    /// `lastprivate` of the loop's own index: the variable outside gets
    /// the value the index has after the loop, as a serial loop leaves it.
    pub index: Option<LocalId>,
}

impl LastPrivates {
    fn is_empty(&self) -> bool {
        self.copies.is_empty() && self.index.is_none()
    }
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

/// A loop nested in a `collapse(n)` loop, its header checked.
pub(super) struct Level {
    pub var: LocalId,
    pub var_ty: CType,
    pub lo: Expr,
    pub hi: Expr,
    pub inclusive: bool,
    pub step: Expr,
}

/// An OpenMP team being checked: a `parallel` region's threads, or the
/// blocks of a `parallel for`.
pub(super) struct Team {
    /// The thread's number and the team's size (`long` locals: the
    /// `parallel_for` index over the team, and its bound).
    pub tid: LocalId,
    pub size: LocalId,
    /// A `parallel` region (worksharing constructs bind to it), not a
    /// `parallel for`.
    pub region: bool,
    /// Inside other parallel code: a team of one thread.
    pub nested: bool,
    /// `omp_get_thread_num()` or `omp_get_num_threads()` was called in it.
    pub used: bool,
    /// `fx.pfors.len()` and `fx.loops.len()` directly inside the team.
    pub pfors: usize,
    pub loops: usize,
    /// A construct whose implicit barrier parc cannot keep (its span and
    /// name), once checked: a statement after it is an error.
    pub barrier: Option<(Span, String)>,
    /// Reductions of the `omp for` loops of a region, accumulated per
    /// thread over the whole region.
    pub reductions: Vec<Reduction>,
    /// A loop with the `ordered` clause, which parc runs as a team of one
    /// thread: an `ordered` construct directly in it is its statement.
    pub ordered: bool,
}

/// Where an OpenMP construct or call is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Directly in a `parallel` region (not in a loop nested in it).
    Region,
    /// In a parallel loop (OpenMP's or ParC's) or a region's nested loop.
    Parallel,
    /// Serial code of `main`.
    Main,
    /// Serial code of another function, which may be called anywhere.
    Unknown,
}

/// Which construct a clause list belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Construct {
    ParallelFor,
    Region,
    For,
    Single,
    Sections,
}

/// Constructs that bind to the innermost team: run by every thread of a
/// region they would repeat, so parc runs them serially only in `main`.
const TEAM_BOUND: [&str; 4] = ["workshare", "distribute", "loop", "scope"];

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

/// The trip count of a checked loop: its bounds and step, each evaluated
/// once as `parallel_for` evaluates them, and the count (`long`).
struct Trip {
    lo: LocalId,
    step: LocalId,
    n: LocalId,
}

impl Checker {
    /// `#pragma omp ...` (or `parallel_reduce`) applied to `stmt`.
    pub(super) fn omp(&mut self, pragma: &Pragma, stmt: &ast::Stmt) -> Vec<Stmt> {
        let place = self.omp_place();
        let construct = pragma.construct.as_str();
        match construct {
            "parallel for" | "parallel for simd" => {
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
                let (omp, ok) = self.omp_clauses(pragma, Construct::ParallelFor);
                if !ok {
                    return self.stmt(stmt);
                }
                self.parallel_for(
                    init.as_deref(),
                    cond.as_ref(),
                    step.as_ref(),
                    body,
                    stmt.span,
                    Some(&omp),
                )
            }
            "parallel" => self.omp_region(pragma, stmt, false),
            "parallel sections" => self.omp_region(pragma, stmt, true),
            "sections" => match place {
                Place::Region => self.omp_sections(pragma, stmt),
                Place::Parallel => self.omp_in_parallel(pragma),
                Place::Main => {
                    self.serial_outside_region(
                        pragma,
                        "sections",
                        "`#pragma omp parallel sections` runs its sections in parallel",
                    );
                    self.sections_serial(pragma, stmt)
                }
                Place::Unknown => {
                    self.orphaned(pragma);
                    self.sections_serial(pragma, stmt)
                }
            },
            "section" => {
                self.push(
                    Diagnostic::error(
                        pragma.span,
                        "`#pragma omp section` outside a `sections` construct",
                    )
                    .with_label("not directly in the block of `#pragma omp sections`")
                    .with_help("put the sections in `#pragma omp parallel sections { ... }`"),
                );
                self.stmt(stmt)
            }
            // In a loop with the `ordered` clause, which runs serially.
            "ordered" if self.in_ordered_loop() => self.stmt(stmt),
            "for" | "for simd" => match place {
                Place::Region => self.omp_for(pragma, stmt),
                Place::Parallel => self.omp_in_parallel(pragma),
                Place::Main => {
                    self.serial_outside_region(
                        pragma,
                        "for",
                        "`#pragma omp parallel for` on a loop runs it in parallel",
                    );
                    self.stmt(stmt)
                }
                Place::Unknown => self.omp_orphan(pragma, stmt),
            },
            "single" | "master" | "masked" => match place {
                Place::Region => self.omp_single(pragma, stmt),
                Place::Parallel => self.omp_in_parallel(pragma),
                Place::Main => self.stmt(stmt),
                Place::Unknown => self.omp_orphan(pragma, stmt),
            },
            // An atomic add is right on one thread too: wherever the code
            // may run in parallel, it is one.
            "atomic" | "atomic update" if place != Place::Main => self.omp_atomic(pragma, stmt),
            // A critical section that is one update `x += e` is that
            // update done atomically: the same effect, and no lock.
            "critical" if place != Place::Main && atomic_add_form(stmt).is_some() => {
                let update = atomic_add_form(stmt).unwrap_or(stmt);
                self.omp_atomic(pragma, update)
            }
            "critical" | "atomic" | "atomic update" | "atomic read" | "atomic write"
            | "atomic capture" | "ordered" | "barrier" => match place {
                Place::Region | Place::Parallel => self.omp_in_parallel(pragma),
                // One thread: these are what they say, with nothing to wait for.
                Place::Main => self.stmt(stmt),
                Place::Unknown => self.omp_orphan(pragma, stmt),
            },
            "flush" | "taskwait" | "taskyield" => self.stmt(stmt),
            c if TEAM_BOUND.contains(&c) && place != Place::Main => match place {
                Place::Unknown => self.omp_orphan(pragma, stmt),
                _ => self.omp_in_parallel(pragma),
            },
            other => {
                self.push(
                    Diagnostic::warning(
                        pragma.span,
                        format!(
                            "`#pragma omp {other}` is not run in parallel by parc: the code runs \
                             serially, as written"
                        ),
                    )
                    .with_label("runs serially")
                    .with_help(
                        "`#pragma omp parallel for` on a loop, or a `parallel` region with \
                         `omp for` in it, runs in parallel",
                    ),
                );
                self.stmt(stmt)
            }
        }
    }

    fn not_a_loop(&mut self, pragma: &Pragma) {
        self.push(
            Diagnostic::error(
                pragma.span,
                format!(
                    "`#pragma omp {}` must be followed by a `for` loop",
                    pragma.construct
                ),
            )
            .with_label("no loop follows"),
        );
    }

    /// Where OpenMP code being checked runs.
    fn omp_place(&self) -> Place {
        let Some(fx) = self.fx.as_ref() else {
            return Place::Unknown;
        };
        match fx.teams.last() {
            Some(t) if t.region && t.pfors == fx.pfors.len() => Place::Region,
            _ if !fx.pfors.is_empty() => Place::Parallel,
            _ if fx.name == "main" => Place::Main,
            _ => Place::Unknown,
        }
    }

    /// A construct parc cannot run in parallel code.
    /// The warning for a worksharing construct met outside any `parallel`
    /// region: as in OpenMP, a team of one thread runs it.
    fn serial_outside_region(&mut self, pragma: &Pragma, construct: &str, help: &str) {
        self.push(
            Diagnostic::warning(
                pragma.span,
                format!(
                    "`#pragma omp {construct}` outside a `parallel` region runs serially (a \
                     team of one thread, as in OpenMP)"
                ),
            )
            .with_label("runs serially")
            .with_help(help.to_string()),
        );
    }

    fn omp_in_parallel(&mut self, pragma: &Pragma) -> Vec<Stmt> {
        let c = &pragma.construct;
        let (label, help) = match c.as_str() {
            "barrier" => (
                "parc cannot keep a barrier: the threads of a team do not run at the same time",
                "end the `parallel` region here and begin another (its end waits for every thread)"
                    .to_string(),
            ),
            "ordered" => (
                "parc runs `ordered` blocks only directly in a loop with the `ordered` clause",
                "add `ordered` to the loop's `#pragma omp parallel for` (parc then runs the loop \
                 serially, in order)"
                    .to_string(),
            ),
            "for" | "for simd" | "single" | "master" | "masked" | "sections" => (
                "parc runs these only directly in a `parallel` region",
                format!(
                    "put `#pragma omp {c}` directly in the `parallel` region, not in a parallel loop"
                ),
            ),
            "critical" => (
                "parc runs a `critical` section in parallel code only when it is one update \
                 `x += e`, `x -= e`, `x++` or `x--` (as an atomic add)",
                "accumulate with `reduction(...)` on the loop or region (also for `min` and \
                 `max`), or make the section one `x += e`"
                    .to_string(),
            ),
            _ => (
                "parc cannot run this in parallel code",
                "accumulate with `reduction(...)` on the loop or region, or `atomic` on `x += e`"
                    .to_string(),
            ),
        };
        self.push(
            Diagnostic::error(
                pragma.span,
                format!("`#pragma omp {c}` inside a parallel region or loop is not supported"),
            )
            .with_label(label)
            .with_help(help),
        );
        // Its statement's writes would only repeat the error as races.
        Vec::new()
    }

    /// A construct that binds to a team, outside any in a function other
    /// than `main`: parc cannot tell whether a region calls it.
    fn omp_orphan(&mut self, pragma: &Pragma, stmt: &ast::Stmt) -> Vec<Stmt> {
        self.orphaned(pragma);
        self.stmt(stmt)
    }

    fn orphaned(&mut self, pragma: &Pragma) {
        let f = self.fx.as_ref().map(|f| f.name.clone()).unwrap_or_default();
        self.push(
            Diagnostic::error(
                pragma.span,
                format!(
                    "`#pragma omp {}` outside a parallel construct of `{f}`: parc cannot tell \
                     whether `{f}` runs in a `parallel` region",
                    pragma.construct
                ),
            )
            .with_label("an orphaned construct")
            .with_help(
                "write the construct in the function that has the `#pragma omp parallel` \
                 region (in `main` outside any region it runs serially)",
            ),
        );
    }

    /// Directly in the body of a loop with the `ordered` clause.
    fn in_ordered_loop(&self) -> bool {
        self.fx.as_ref().is_some_and(|f| {
            f.teams
                .last()
                .is_some_and(|t| t.ordered && t.pfors == f.pfors.len())
        })
    }

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

    fn section(&mut self, section: &[&ast::Stmt], span: Span) -> Stmt {
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
    fn sections_serial(&mut self, pragma: &Pragma, stmt: &ast::Stmt) -> Vec<Stmt> {
        let sections = self.sections_of(pragma, stmt);
        sections
            .iter()
            .map(|sec| self.section(sec, stmt.span))
            .collect()
    }

    /// The sections of a construct in a team (thread `tid` of `nc`):
    /// thread `k % nc` runs section `k`, once.
    fn sections_shared(
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
    fn omp_sections(&mut self, pragma: &Pragma, stmt: &ast::Stmt) -> Vec<Stmt> {
        let Some((tid, nc)) = self
            .fx
            .as_ref()
            .and_then(|f| f.teams.last())
            .map(|t| (t.tid, t.size))
        else {
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

    /// Reports a statement after a construct whose barrier parc cannot
    /// keep, in the same `parallel` region.
    pub(super) fn omp_after_barrier(&mut self, s: &ast::Stmt) {
        if matches!(s.kind, ast::StmtKind::Empty) {
            return;
        }
        let Some(team) = self.fx.as_mut().and_then(|f| f.teams.last_mut()) else {
            return;
        };
        let Some((at, construct)) = team.barrier.take() else {
            return;
        };
        self.push(
            Diagnostic::error(
                s.span,
                format!(
                    "parc cannot keep the barrier at the end of `#pragma omp {construct}`: a \
                     statement follows it in the `parallel` region"
                ),
            )
            .with_label("this would not wait for the other threads")
            .with_secondary(at, "its implicit barrier")
            .with_help(
                "end the `parallel` region after it (the region's end waits for every thread), \
                 or add `nowait` if what follows does not need its results",
            ),
        );
    }

    /// The clauses of a construct, checked, and whether they all were.
    fn omp_clauses(&mut self, pragma: &Pragma, construct: Construct) -> (OmpLoop, bool) {
        use Construct as C;
        let mut omp = OmpLoop::default();
        let mut ok = true;
        let is_loop = matches!(construct, C::ParallelFor | C::For);
        let is_parallel = matches!(construct, C::ParallelFor | C::Region);
        for c in &pragma.clauses {
            let applies = match &c.clause {
                Clause::Private(_) | Clause::FirstPrivate(_) => true,
                Clause::Reduction(..) => construct != C::Single,
                Clause::Shared(_) | Clause::Default | Clause::NumThreads(_) | Clause::If(_) => {
                    is_parallel
                }
                Clause::Schedule | Clause::Collapse(_) | Clause::Ordered => is_loop,
                Clause::Nowait => matches!(construct, C::For | C::Single | C::Sections),
                Clause::LastPrivate(_) => {
                    is_loop || construct == C::Sections || pragma.is("parallel sections")
                }
                Clause::Other(_) => true,
            };
            if !applies {
                let name = pragma_clause_name(&c.clause);
                self.push(
                    Diagnostic::error(
                        c.span,
                        format!(
                            "the `{name}` clause does not apply to `#pragma omp {}`",
                            pragma.construct
                        ),
                    )
                    .with_label("not a clause of this construct"),
                );
                ok = false;
                continue;
            }
            match &c.clause {
                Clause::Reduction(op, vars) => {
                    for v in vars {
                        let Some((id, ty)) = self.omp_var(v, "reduction") else {
                            ok = false;
                            continue;
                        };
                        let int_only = matches!(op, RedOp::BitAnd | RedOp::BitOr | RedOp::BitXor);
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
                        let Some((id, ty)) =
                            self.omp_var(v, if first { "firstprivate" } else { "private" })
                        else {
                            ok = false;
                            continue;
                        };
                        omp.privates
                            .push((v.name.clone(), ty, first.then_some(id), v.span));
                    }
                }
                Clause::Shared(_) | Clause::Default | Clause::Schedule => {}
                Clause::Nowait => omp.nowait = true,
                Clause::NumThreads(e) => match self.omp_integer(e, "num_threads") {
                    Some(v) => omp.threads = Some(v),
                    None => ok = false,
                },
                Clause::If(e) => match self.omp_integer(e, "if") {
                    Some(v) => omp.if_cond = Some(bin(BinaryOp::Ne, v, long(int(0, e.span)))),
                    None => ok = false,
                },
                Clause::Collapse(n) => omp.collapse = *n,
                Clause::LastPrivate(vars) if is_loop => {
                    for v in vars {
                        let Some((id, ty)) = self.omp_var(v, "lastprivate") else {
                            ok = false;
                            continue;
                        };
                        if matches!(ty, CType::Array(..)) {
                            self.push(
                                Diagnostic::error(
                                    v.span,
                                    format!("`lastprivate({})`: parc does not copy arrays out of a loop", v.name),
                                )
                                .with_label("an array")
                                .with_help("make the loop write the array's elements directly (each iteration its own)"),
                            );
                            ok = false;
                            continue;
                        }
                        omp.lastprivates.push((v.name.clone(), ty, id, v.span));
                    }
                }
                Clause::Ordered if construct == C::ParallelFor => {
                    omp.ordered = true;
                    self.push(
                        Diagnostic::warning(c.span, "parc runs a loop with the `ordered` clause serially, in iteration order")
                            .with_label("this loop runs on one thread")
                            .with_help("its `#pragma omp ordered` blocks then run in order, as OpenMP requires; without `ordered` the loop runs in parallel"),
                    );
                }
                Clause::Ordered => {
                    self.push(
                        Diagnostic::error(c.span, "the `ordered` clause on `#pragma omp for` in a `parallel` region is not supported")
                            .with_label("parc cannot order the iterations of a region's threads")
                            .with_help("write `#pragma omp parallel for ordered` on the loop instead (parc runs it serially, in order)"),
                    );
                    ok = false;
                }
                Clause::LastPrivate(_) => {
                    self.push(
                        Diagnostic::error(c.span, "`lastprivate` on `sections` is not supported")
                            .with_label("parc copies out only from loops")
                            .with_help("declare the variable before the construct and assign it in the last section"),
                    );
                    ok = false;
                }
                Clause::Other(_) => {
                    let name = pragma_clause_name(&c.clause);
                    self.push(
                        Diagnostic::error(c.span, format!("the `{name}` clause is not supported"))
                            .with_label("parc cannot honour this clause")
                            .with_help("remove it and write the loop without it"),
                    );
                    ok = false;
                }
            }
        }
        (omp, ok)
    }

    /// The integer argument of `num_threads(...)` or `if(...)`, as `long`.
    fn omp_integer(&mut self, e: &ast::Expr, clause: &str) -> Option<Expr> {
        let v = self.rvalue(e);
        if is_err(&v.ty) {
            return None;
        }
        if !v.ty.is_integer() {
            self.push(
                Diagnostic::error(e.span, format!("`{clause}` needs an integer"))
                    .with_label("not an integer"),
            );
            return None;
        }
        Some(self.convert(v, &CType::Long))
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
    /// writes to them are its own). `private` of the loop's own `index`
    /// (`#pragma omp parallel for private(i)` over `i`, as PolyBench
    /// writes it) declares nothing: the index is already each
    /// iteration's own.
    pub(super) fn omp_parts(&mut self, omp: &OmpLoop, indices: &[String]) -> OmpParts {
        let index = indices.first().map(String::as_str);
        let mut parts = OmpParts {
            prologue: Vec::new(),
            reductions: Vec::new(),
            last: LastPrivates::default(),
        };
        let is_last = |name: &String| omp.lastprivates.iter().any(|l| &l.0 == name);
        for (name, ty, outer, at) in &omp.privates {
            // A `lastprivate` variable is private to its block already.
            if (outer.is_none() && indices.contains(name)) || is_last(name) {
                continue;
            }
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
        for (name, ty, outer, at) in &omp.lastprivates {
            if index == Some(name.as_str()) {
                parts.last.index = Some(*outer);
                continue;
            }
            let id = self.new_local(name, ty.clone(), false, *at);
            // Also `firstprivate`: the block's copy starts from the
            // variable outside.
            let first = omp
                .privates
                .iter()
                .any(|(n, _, from, _)| n == name && from.is_some());
            let init = first.then(|| Init::Expr(local(*outer, ty, *at)));
            parts.last.decls.push(Stmt {
                kind: StmtKind::Decl(id, init),
                span: *at,
            });
            parts.last.copies.push((id, *outer, ty.clone()));
        }
        parts
    }

    /// Starts a team (before its body is checked): its thread number and
    /// size are locals the body's `omp_get_thread_num()` reads.
    pub(super) fn push_team(&mut self, region: bool, nested: bool, span: Span) {
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

    pub(super) fn pop_team(&mut self) -> Option<Team> {
        self.fx.as_mut().and_then(|f| f.teams.pop())
    }

    /// The number of threads of a team (`long`): `num_threads(n)` or one
    /// per worker; one if `if(c)` is false or the team is nested in
    /// parallel code (OpenMP's nested regions are inactive by default).
    fn team_size(&mut self, omp: &OmpLoop, nested: bool, span: Span) -> Expr {
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

    fn decl_temp(&mut self, ty: &CType, init: Expr, out: &mut Vec<Stmt>) -> LocalId {
        let span = init.span;
        let id = self.new_local("", ty.clone(), false, span);
        out.push(Stmt {
            kind: StmtKind::Decl(id, Some(Init::Expr(init))),
            span,
        });
        id
    }

    /// The loop's bounds, step and trip count, declared in `out`.
    fn trip(&mut self, l: &mut CheckedLoop, out: &mut Vec<Stmt>) -> Trip {
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
    pub(super) fn collapsed(
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

    /// Block `c` of `nc`'s share of the loop's iterations, in order:
    /// `for (k = c*n/nc; k < (c+1)*n/nc; k++) { T i = lo + k*step; body }`.
    ///
    /// The block's `lastprivate` copies are declared before its loop; the
    /// block that runs the last iteration (the last block: the blocks
    /// reach `n`) copies them out after it.
    fn share(
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
    fn blocks(
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
                lo: long(int(0, span)),
                hi: local(nc, &lng, span),
                inclusive: false,
                step,
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
    pub(super) fn omp_loop(
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

    /// `#pragma omp parallel`: a team of threads, each running the region
    /// (see the module's documentation).
    /// `parallel sections` is a region whose body is the sections, shared
    /// out among its threads.
    fn omp_region(&mut self, pragma: &Pragma, stmt: &ast::Stmt, sections: bool) -> Vec<Stmt> {
        let span = pragma.span;
        let nested = self.fx.as_ref().is_some_and(|f| !f.pfors.is_empty());
        let (omp, _) = self.omp_clauses(pragma, Construct::Region);
        self.fork_join("#pragma omp parallel", span);
        let size = self.team_size(&omp, nested, span);
        self.push_team(true, nested, span);
        let Some((tid, nc)) = self
            .fx
            .as_ref()
            .and_then(|f| f.teams.last())
            .map(|t| (t.tid, t.size))
        else {
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
    fn omp_for(&mut self, pragma: &Pragma, stmt: &ast::Stmt) -> Vec<Stmt> {
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
            cond.as_ref(),
            step.as_ref(),
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
    fn omp_barrier_in_loop(&mut self, pragma: &Pragma, nowait: bool) {
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

    fn omp_set_barrier(&mut self, pragma: &Pragma) {
        if let Some(t) = self.fx.as_mut().and_then(|f| f.teams.last_mut()) {
            t.barrier = Some((pragma.span, pragma.construct.clone()));
        }
    }

    /// An `omp for` loop in a region, checked: thread `tid` of the team
    /// runs its block of consecutive iterations (`schedule(static)`).
    /// Reductions accumulate per thread over the region and combine at its
    /// end (the loop's barrier, which parc keeps only there).
    pub(super) fn omp_share(&mut self, parts: OmpParts, mut l: CheckedLoop) -> Vec<Stmt> {
        let span = l.span;
        let Some((tid, nc)) = self
            .fx
            .as_ref()
            .and_then(|f| f.teams.last())
            .map(|t| (t.tid, t.size))
        else {
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
    fn team_reductions(&mut self, reductions: &[Reduction]) {
        let Some(pfors) = self
            .fx
            .as_ref()
            .and_then(|f| f.teams.last())
            .map(|t| t.pfors)
        else {
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
    fn omp_single(&mut self, pragma: &Pragma, stmt: &ast::Stmt) -> Vec<Stmt> {
        let span = pragma.span;
        let Some(tid) = self.fx.as_ref().and_then(|f| f.teams.last()).map(|t| t.tid) else {
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

    /// `#pragma omp atomic` on `x += e`, `x -= e`, `x++`, `x--` (also
    /// `x = x + e`) inside a parallel loop: an atomic add.
    fn omp_atomic(&mut self, pragma: &Pragma, stmt: &ast::Stmt) -> Vec<Stmt> {
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
fn atomic_add_form(stmt: &ast::Stmt) -> Option<&ast::Stmt> {
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

/// A clause's name, for messages.
fn pragma_clause_name(c: &Clause) -> String {
    match c {
        Clause::Reduction(..) => "reduction",
        Clause::Private(_) => "private",
        Clause::FirstPrivate(_) => "firstprivate",
        Clause::LastPrivate(_) => "lastprivate",
        Clause::Shared(_) => "shared",
        Clause::Default => "default",
        Clause::Schedule => "schedule",
        Clause::Collapse(_) => "collapse",
        Clause::NumThreads(_) => "num_threads",
        Clause::If(_) => "if",
        Clause::Nowait => "nowait",
        Clause::Ordered => "ordered",
        Clause::Other(n) => n.as_str(),
    }
    .to_string()
}

impl Checker {
    /// The OpenMP runtime functions parc provides (`omp.h` names them):
    /// `None` if `name` is not one. A thread's number and its team's size
    /// are those of the team the call is written in (see the module's
    /// documentation); the number of threads a region gets is the number
    /// of workers.
    pub(super) fn omp_call(&mut self, name: &str, args: &[ast::Expr], span: Span) -> Option<Expr> {
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
        super::expr::err_expr(span)
    }
}
