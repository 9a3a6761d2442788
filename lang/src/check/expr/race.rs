//! The determinacy races the checker can see: in a `parallel_for` body,
//! assigning a variable declared outside the body (or a global), or
//! writing unconditionally to a location that is the same in every
//! iteration (`a[0]`, `*p`).

use super::{keyword, lvalue_root};
use crate::ast::Span;
use crate::check::{Checker, Sym};
use crate::diag::Diagnostic;
use crate::hir::{Expr, ExprKind};

impl Checker {
    /// The determinacy-race rule of LANGUAGE.md: inside a `parallel_for`
    /// body, a variable declared outside the body (or a global) may not be
    /// assigned, since every iteration would write the same location.
    /// Elements reached through arrays or pointers are not checked: whether
    /// iterations touch disjoint elements is not decidable here.
    pub(in crate::check) fn check_race(&mut self, lv: &Expr, span: Span) {
        let Some(fx) = self.fx.as_ref() else { return };
        // A `critical` section's lock, or an OpenMP lock set in this
        // body, orders its writes.
        if fx.pfors.is_empty() || fx.critical > 0 || fx.pfors.last().is_some_and(|p| p.locks > 0) {
            return;
        }
        let (name, decl, depth) = match lvalue_root(lv) {
            Some(Sym::Local(l)) => {
                let (Some(local), Some(info)) =
                    (fx.locals.get(l.0 as usize), fx.local_info.get(l.0 as usize))
                else {
                    return;
                };
                if info.pfor_depth >= fx.pfors.len() {
                    return;
                }
                // Declared just outside a team's loop, written once by
                // one of its threads.
                if info.pfor_depth + 1 == fx.pfors.len()
                    && fx.pfors.last().is_some_and(|pf| pf.once > 0)
                {
                    return;
                }
                let pf = &fx.pfors[info.pfor_depth];
                if pf.var == l {
                    let d = Diagnostic::error(
                        span,
                        format!(
                            "the index `{}` of a \
                        parallel_for is assigned in its body",
                            local.name
                        ),
                    )
                    .with_label("assigned here")
                    .with_secondary(keyword(pf.span), "the loop is here")
                    .with_help(format!(
                        "iterations run in parallel and each has its own `{}`; only the \
                                loop header advances it",
                        local.name
                    ));
                    self.push(d);
                    return;
                }
                (local.name.clone(), local.span, info.pfor_depth)
            }
            Some(Sym::Global(g)) => match self.globals.get(g.0 as usize) {
                Some(gv) if !gv.is_shared => (gv.name.clone(), gv.span, 0),
                _ => return,
            },
            None => {
                self.check_invariant_write(lv, span);
                return;
            }
            _ => return,
        };
        let pf_span = fx.pfors[depth].span;
        let d = Diagnostic::error(
            span,
            format!(
                "determinacy race: `{name}` is declared outside this parallel_for and \
                assigned in its body"
            ),
        )
        .with_label("every iteration writes this variable")
        .with_secondary(decl, "declared here")
        .with_secondary(keyword(pf_span), "iterations of this loop run in parallel")
        .with_help(format!(
            "write to a per-iteration location such as `a[i]`, or make it a reduction: \
            `parallel_reduce(+: {name}) (...)` (OpenMP: `reduction(+: {name})`)"
        ));
        self.push(d);
    }

    /// Counts the OpenMP locks the innermost `parallel_for` body holds at
    /// a call of `name` (see `PforInfo::locks`): a lock set in the body
    /// and unset later in it, as OpenMP requires of a lock a loop's
    /// iterations share. A lock taken in a function the body calls is
    /// not seen.
    pub(in crate::check) fn note_lock_call(&mut self, name: &str) {
        let Some(pf) = self.fx.as_mut().and_then(|fx| fx.pfors.last_mut()) else {
            return;
        };
        match name {
            "omp_set_lock" | "omp_test_lock" | "omp_set_nest_lock" | "omp_test_nest_lock" => {
                pf.locks += 1
            }
            "omp_unset_lock" | "omp_unset_nest_lock" => pf.locks = pf.locks.saturating_sub(1),
            _ => {}
        }
    }

    /// A write through an array or pointer whose address is the same in
    /// every iteration of the innermost `parallel_for` (built only from
    /// constants and variables declared outside the loop, which the body
    /// cannot change) is a race when it is not under a condition.
    fn check_invariant_write(&mut self, lv: &Expr, span: Span) {
        let Some(fx) = self.fx.as_ref() else { return };
        let Some(pf) = fx.pfors.last() else { return };
        if pf.conditional > 0 || pf.once > 0 || !self.invariant_addr(lv) {
            return;
        }
        let var = fx
            .locals
            .get(pf.var.0 as usize)
            .map(|l| l.name.clone())
            .unwrap_or_default();
        let d = Diagnostic::error(
            span,
            "determinacy race: every iteration of this parallel_for writes the same location",
        )
        .with_label(format!("this location does not depend on `{var}`"))
        .with_secondary(keyword(pf.span), "iterations of this loop run in parallel")
        .with_help(format!(
            "write to a per-iteration location such as `a[{var}]`, or accumulate with atomicAdd"
        ));
        self.push(d);
    }

    /// Whether an lvalue designates the same shared object in every
    /// iteration of the innermost `parallel_for`.
    fn invariant_addr(&self, e: &Expr) -> bool {
        let Some(fx) = self.fx.as_ref() else {
            return false;
        };
        match &e.kind {
            // A variable declared in the body is private to the iteration.
            ExprKind::Local(l) => fx
                .local_info
                .get(l.0 as usize)
                .is_some_and(|i| i.pfor_depth < fx.pfors.len()),
            ExprKind::Global(g) => self.globals.get(g.0 as usize).is_some_and(|g| !g.is_shared),
            ExprKind::Member { base, .. } => self.invariant_addr(base),
            ExprKind::Index { base, index, .. } => {
                self.invariant_val(base) && self.invariant_val(index)
            }
            ExprKind::Deref(p) => self.invariant_val(p),
            _ => false,
        }
    }

    /// Whether a value is the same in every iteration of the innermost
    /// `parallel_for`. Reads of memory and calls count as varying.
    fn invariant_val(&self, e: &Expr) -> bool {
        let Some(fx) = self.fx.as_ref() else {
            return false;
        };
        let Some(pf) = fx.pfors.last() else {
            return false;
        };
        match &e.kind {
            ExprKind::IntConst(_) | ExprKind::FloatConst(_) | ExprKind::Null | ExprKind::Str(_) => {
                true
            }
            ExprKind::Local(l) => {
                *l != pf.var
                    && fx
                        .local_info
                        .get(l.0 as usize)
                        .is_some_and(|i| i.pfor_depth < fx.pfors.len())
            }
            ExprKind::Global(g) => self.globals.get(g.0 as usize).is_some_and(|g| g.is_const),
            ExprKind::Convert(x) | ExprKind::Unary(_, x) => self.invariant_val(x),
            ExprKind::Binary(_, a, b) => self.invariant_val(a) && self.invariant_val(b),
            ExprKind::PtrOffset { ptr, index, .. } => {
                self.invariant_val(ptr) && self.invariant_val(index)
            }
            ExprKind::Decay(lv) | ExprKind::AddrOf(lv) => self.invariant_addr(lv),
            _ => false,
        }
    }
}
