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
//!   constructs that bind to a team there (`for`, `single`, ...:
//!   "orphaned" constructs).
//! - `lastprivate` copies are per block of iterations; the last block
//!   copies them out after its loop ([`Checker::share`]). A loop with the
//!   `ordered` clause is a team of one block (serial, in order), in which
//!   `ordered` is its statement. `collapse(n)` is one loop over the nest's
//!   product space ([`Checker::collapsed`]). `sections` in a region: thread `k %
//!   threads` runs section `k`; `parallel sections` is a region of them.
//! - Constructs parc runs serially (`task`, `simd`, `sections` outside a
//!   region, ...) get a warning that says so; in serial code of `main`
//!   `single`, `master`, `barrier` and `flush` are what they are on one
//!   thread. An `atomic` `x += e` (or `-=`, `++`, `--`) is an atomic add
//!   wherever it may run in parallel; what parc cannot do in parallel
//!   code (other atomics) is an error. A `critical` section, anywhere, is
//!   its block under the runtime's lock of its name (see `critical`).

use super::Checker;
use crate::ast::{self, Span};
use crate::diag::Diagnostic;
use crate::hir::{CType, Expr, LocalId, Stmt};
use crate::omp::{Pragma, RedOp};

mod atomic;
mod builders;
mod clauses;
mod collapse;
mod critical;
mod loops;
mod runtime;
mod sections;
mod team;

use atomic::atomic_add_form;

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
                    cond.as_deref(),
                    step.as_deref(),
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
            // A lock per name (see `critical`); a section that is one
            // update `x += e` may be that update done atomically.
            "critical" => match atomic_add_form(stmt) {
                Some(update) if place != Place::Main => self.omp_critical_atomic(pragma, update),
                _ => self.omp_critical(pragma, stmt),
            },
            "atomic" | "atomic update" | "atomic read" | "atomic write" | "atomic capture"
            | "ordered" | "barrier" => match place {
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

    /// The innermost team whose code is being checked, if any.
    pub(super) fn team(&self) -> Option<&Team> {
        self.fx.as_ref().and_then(|f| f.teams.last())
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
}
