//! The clauses of a directive: which ones each construct takes, and what
//! they ask ([`OmpLoop`]): private and firstprivate copies, reductions,
//! lastprivate, `num_threads`, `if`, `collapse`, `nowait`, `ordered`.

use super::builders::{bin, int, local, long};
use super::{Construct, LastPrivates, OmpLoop, OmpParts};
use crate::ast::{self};
use crate::check::{Checker, is_err};
use crate::diag::Diagnostic;
use crate::hir::{BinaryOp, CType, Expr, Init, LocalId, Stmt, StmtKind};
use crate::omp::{Clause, Pragma, RedOp};

impl Checker {
    /// The clauses of a construct, checked, and whether they all were.
    pub(super) fn omp_clauses(&mut self, pragma: &Pragma, construct: Construct) -> (OmpLoop, bool) {
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
            Some(crate::check::Sym::Local(id)) => {
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
    pub(in crate::check) fn omp_parts(&mut self, omp: &OmpLoop, indices: &[String]) -> OmpParts {
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
