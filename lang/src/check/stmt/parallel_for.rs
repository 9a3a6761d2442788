//! `parallel_for`: its canonical form (an index, bounds and a positive
//! step evaluated once; `collapse`d nests), and the rules for its body.

use crate::ast::{self, Span};
use crate::check::expr::{ConvCtx, err_expr, int_const, keyword};
use crate::check::omp;
use crate::check::types::usual_arith;
use crate::check::{Checker, LoopKind, Sym, err_ty, is_err};
use crate::diag::Diagnostic;
use crate::hir::{CType, Expr, ExprKind, LocalId, Stmt, StmtKind};

impl Checker {
    /// `parallel_for (T i = lo; i < hi; i += step) body` in canonical form;
    /// with `omp`, an OpenMP loop (see `check/omp.rs`).
    pub(in crate::check) fn parallel_for(
        &mut self,
        init: Option<&ast::Stmt>,
        cond: Option<&ast::Expr>,
        step: Option<&ast::Expr>,
        body: &ast::Stmt,
        span: Span,
        omp: Option<&omp::OmpLoop>,
    ) -> Vec<Stmt> {
        // An `omp for` in a region is shared out among the region's
        // threads, inside the region's own parallel loop.
        let worksharing = omp.is_some_and(|o| o.worksharing);
        if !worksharing {
            self.fork_join("parallel_for", keyword(span));
        }
        let nested = self.fx.as_ref().is_some_and(|f| !f.pfors.is_empty());
        self.push_scope();
        let header = self.pfor_index(init, span, omp.is_some());
        let (var, var_name, var_ty, lo) = match header {
            Some(h) => h,
            None => (LocalId(u32::MAX), String::new(), err_ty(), err_expr(span)),
        };
        let ok_index = var.0 != u32::MAX;
        let bound = if ok_index {
            self.pfor_bound(cond, &var_name, &var_ty, span)
        } else {
            None
        };
        let stepv = if ok_index {
            self.pfor_step(step, &var_name, &var_ty, span)
        } else {
            None
        };
        // `collapse(n)`: the nested loops' headers, checked here too.
        let mut indices = vec![var_name.clone()];
        let mut inner = Vec::new();
        let mut body = body;
        let collapse = omp.map_or(1, |o| o.collapse.max(1));
        let mut collapse_ok = true;
        for _ in 1..collapse {
            match self.collapsed_level(body, &indices) {
                Some((level, name, inner_body)) => {
                    inner.push(level);
                    indices.push(name);
                    body = inner_body;
                }
                None => {
                    collapse_ok = false;
                    break;
                }
            }
        }
        if collapse > 1
            && let Some(o) = omp
            && let Some((_, _, _, at)) = o.lastprivates.first()
        {
            self.push(
                Diagnostic::error(*at, "`lastprivate` with `collapse` is not supported")
                    .with_label("parc cannot copy out of collapsed loops")
                    .with_help("assign the variable after the loops instead"),
            );
            collapse_ok = false;
        }
        if collapse > 1
            && stepv
                .as_ref()
                .is_some_and(|s| !matches!(s.kind, ExprKind::IntConst(_)))
        {
            self.push(
                Diagnostic::error(span, "the step of a `collapse`d loop must be a constant")
                    .with_label("the loop's step is known only at run time")
                    .with_help("write a constant step, such as `i++`"),
            );
            collapse_ok = false;
        }
        if let Some(fx) = self.fx.as_mut() {
            fx.loops.push(LoopKind::ParallelBody);
            if !worksharing {
                fx.enter_pfor(span, var);
            }
        }
        let parts = omp.map(|o| self.omp_parts(o, &indices));
        // An OpenMP loop is a team: its body may ask for thread numbers.
        let is_team = omp.is_some() && !worksharing;
        if is_team {
            self.push_team(false, nested, span);
            if let Some(t) = self.fx.as_mut().and_then(|f| f.teams.last_mut()) {
                t.ordered = omp.is_some_and(|o| o.ordered);
            }
        }
        // Each iteration syncs its own spawns when it ends.
        let before = self.pending();
        let body = Box::new(self.sub_stmt(body));
        *self.pending_mut() = before;
        let team = if is_team { self.pop_team() } else { None };
        if let Some(fx) = self.fx.as_mut() {
            fx.loops.pop();
            if !worksharing {
                fx.pfors.pop();
            }
        }
        self.pop_scope();
        match (bound, stepv) {
            (Some((hi, inclusive)), Some(step)) if !is_err(&lo.ty) => {
                // A step known only at run time is checked there: C's loop
                // with a step of 0 or less would not end, and split into
                // chunks it would run no iteration at all.
                let step_check = (!matches!(step.kind, ExprKind::IntConst(_)))
                    .then(|| self.intern_string(b"the step of this parallel_for is not positive"));
                if let (Some(parts), Some(o)) = (parts, omp) {
                    let mut l = omp::CheckedLoop {
                        var,
                        var_ty,
                        lo,
                        hi,
                        inclusive,
                        step,
                        step_check,
                        body: *body,
                        span,
                    };
                    if !collapse_ok {
                        return Vec::new();
                    }
                    let mut prelude = Vec::new();
                    if !inner.is_empty() {
                        (prelude, l) = self.collapsed(l, inner);
                    }
                    let out = if worksharing {
                        self.omp_share(parts, l)
                    } else {
                        self.omp_loop(parts, l, team, o)
                    };
                    if prelude.is_empty() {
                        return out;
                    }
                    prelude.extend(out);
                    return vec![Stmt {
                        kind: StmtKind::Block(prelude),
                        span,
                    }];
                }
                vec![Stmt {
                    kind: StmtKind::ParallelFor {
                        var,
                        lo: Box::new(lo),
                        hi: Box::new(hi),
                        inclusive,
                        step: Box::new(step),
                        step_check,
                        body,
                    },
                    span,
                }]
            }
            _ => Vec::new(),
        }
    }

    /// The loop nested in a `collapse`d loop (`body`, alone in it or in a
    /// block): its header checked (its index declared in the current
    /// scope), its index's name and its body. Its header may not mention
    /// the indices of the loops around it (OpenMP's rectangular nests).
    fn collapsed_level<'a>(
        &mut self,
        body: &'a ast::Stmt,
        indices: &[String],
    ) -> Option<(omp::Level, String, &'a ast::Stmt)> {
        let mut s = body;
        while let ast::StmtKind::Block(b) = &s.kind {
            let mut items = b
                .stmts
                .iter()
                .filter(|s| !matches!(s.kind, ast::StmtKind::Empty));
            match (items.next(), items.next()) {
                (Some(one), None) => s = one,
                _ => break,
            }
        }
        let ast::StmtKind::For {
            parallel: false,
            init,
            cond,
            step,
            body,
        } = &s.kind
        else {
            let at = match &s.kind {
                ast::StmtKind::Block(b) => b.stmts.first().map_or(s.span, |f| f.span),
                _ => s.span,
            };
            self.push(
                Diagnostic::error(
                    at,
                    format!(
                        "`collapse({})` needs that many perfectly nested `for` loops",
                        indices.len() + 1
                    ),
                )
                .with_label("not a `for` loop alone in the loop around it")
                .with_help(
                    "lower the `collapse` count, or nest the loops with nothing between them",
                ),
            );
            return None;
        };
        let init_expr = init.as_deref().and_then(|i| match &i.kind {
            ast::StmtKind::Expr(e) => Some(e),
            ast::StmtKind::Decl(d) => d.declarators.iter().find_map(|v| match &v.init {
                Some(ast::Init::Expr(e)) => Some(e),
                _ => None,
            }),
            _ => None,
        });
        let dependent = [init_expr, cond.as_deref(), step.as_deref()]
            .into_iter()
            .flatten()
            .find(|e| indices.iter().any(|n| mentions(e, n)));
        if let Some(e) = dependent {
            self.push(
                Diagnostic::error(
                    e.span,
                    "the bounds of a `collapse`d loop depend on the index of a loop around it",
                )
                .with_label("parc collapses only rectangular loop nests")
                .with_help(
                    "lower the `collapse` count so that this loop runs inside each iteration",
                ),
            );
            return None;
        }
        let (var, name, ty, lo) = self.pfor_index(init.as_deref(), s.span, true)?;
        let (hi, inclusive) = self.pfor_bound(cond.as_deref(), &name, &ty, s.span)?;
        let step = self.pfor_step(step.as_deref(), &name, &ty, s.span)?;
        if !matches!(step.kind, ExprKind::IntConst(_)) {
            self.push(
                Diagnostic::error(
                    step.span,
                    "the step of a `collapse`d loop must be a constant",
                )
                .with_label("known only at run time")
                .with_help("write a constant step, such as `j++`"),
            );
            return None;
        }
        let level = omp::Level {
            var,
            var_ty: ty,
            lo,
            hi,
            inclusive,
            step,
        };
        Some((level, name, body))
    }

    /// The index declaration `T i = lo` (for an OpenMP loop, `omp`, also
    /// `i = lo` of an integer variable declared before: each iteration
    /// gets its own `i`, as OpenMP makes the index private).
    fn pfor_index(
        &mut self,
        init: Option<&ast::Stmt>,
        span: Span,
        omp: bool,
    ) -> Option<(LocalId, String, CType, Expr)> {
        let help = "write `parallel_for (int i = lo; i < hi; i++)`";
        if omp
            && let Some(ast::StmtKind::Expr(e)) = init.map(|s| &s.kind)
            && let ast::ExprKind::Assign { op: None, lhs, rhs } = &e.kind
            && let ast::ExprKind::Ident(name) = &lhs.kind
            && let Some(Sym::Local(outer)) = self.lookup(name)
        {
            let ty = self
                .fx
                .as_ref()
                .and_then(|f| f.locals.get(outer.0 as usize))
                .map_or(err_ty(), |l| l.ty.clone());
            if matches!(ty, CType::Int | CType::UInt | CType::Long | CType::ULong) {
                let v = self.rvalue(rhs);
                let lo = self.assign_conv(v, &ty, ConvCtx::Init(name));
                let id = self.new_local(name, ty.clone(), false, lhs.span);
                return Some((id, name.clone(), ty, lo));
            }
        }
        let decl = match init.map(|s| &s.kind) {
            Some(ast::StmtKind::Decl(d)) if d.declarators.len() == 1 => Some(d),
            _ => None,
        };
        let Some(d) = decl else {
            let at = init.map_or(span, |s| s.span);
            if let Some(s) = init {
                self.stmt(s);
            }
            self.push(
                Diagnostic::error(at, "parallel_for must declare its index variable")
                    .with_label("not a declaration of the index")
                    .with_help(help),
            );
            return None;
        };
        let decl = &d.declarators[0];
        let name = decl.name.name.clone();
        // On an error below, the index is still declared (with the error
        // type, which silences the uses) so the body is checked without a
        // cascade of "undeclared identifier" errors.
        let declare_anyway = |c: &mut Checker| {
            c.new_local(&name, err_ty(), false, decl.name.span);
        };
        let base = self.resolve_spec(&d.ty.spec);
        let ty = self.declarator_type(&base, decl);
        if is_err(&ty) {
            declare_anyway(self);
            return None;
        }
        if !matches!(ty, CType::Int | CType::UInt | CType::Long | CType::ULong) {
            let t = self.ty_name(&ty);
            self.push(
                Diagnostic::error(
                    decl.span,
                    format!("the index of a parallel_for must be an integer, not `{t}`"),
                )
                .with_label("not an integer index")
                .with_help("use `int`, `unsigned`, `long` or `unsigned long`"),
            );
            declare_anyway(self);
            return None;
        }
        let lo = match &decl.init {
            Some(ast::Init::Expr(e)) => {
                let v = self.rvalue(e);
                self.assign_conv(v, &ty, ConvCtx::Init(&name))
            }
            _ => {
                self.push(
                    Diagnostic::error(
                        decl.span,
                        format!("the index `{name}` of a parallel_for needs a start value"),
                    )
                    .with_label("no start value")
                    .with_help(format!("write `{} {name} = 0`", self.ty_name(&ty))),
                );
                declare_anyway(self);
                return None;
            }
        };
        let id = self.new_local(&name, ty.clone(), false, decl.name.span);
        Some((id, name, ty, lo))
    }

    /// `i < hi` or `i <= hi` (also `hi > i`, `hi >= i`), `hi` not using `i`.
    fn pfor_bound(
        &mut self,
        cond: Option<&ast::Expr>,
        var: &str,
        ty: &CType,
        span: Span,
    ) -> Option<(Expr, bool)> {
        let msg = "parallel_for condition must be `i < end` or `i <= end`";
        let Some(c) = cond else {
            self.push(
                Diagnostic::error(span, msg)
                    .with_label("no condition")
                    .with_help(format!("add a bound: `{var} < n`")),
            );
            return None;
        };
        let shape = match &c.kind {
            ast::ExprKind::Binary(op @ (ast::BinaryOp::Lt | ast::BinaryOp::Le), a, hi)
                if is_var(a, var) =>
            {
                Some((hi, *op == ast::BinaryOp::Le))
            }
            ast::ExprKind::Binary(op @ (ast::BinaryOp::Gt | ast::BinaryOp::Ge), hi, b)
                if is_var(b, var) =>
            {
                Some((hi, *op == ast::BinaryOp::Ge))
            }
            _ => None,
        };
        let Some((hi, inclusive)) = shape else {
            self.condition(c);
            self.push(
                Diagnostic::error(c.span, msg)
                    .with_label("not `i < end` or `i <= end`")
                    .with_help(format!("compare the index with the bound: `{var} < n`")),
            );
            return None;
        };
        if mentions(hi, var) {
            self.push(
                Diagnostic::error(hi.span, msg)
                    .with_label(format!("the bound depends on `{var}`"))
                    .with_help(
                        "the bound is evaluated once, before the loop; it may not \
                        depend on the index",
                    ),
            );
            return None;
        }
        let v = self.rvalue(hi);
        if is_err(&v.ty) {
            return None;
        }
        if !v.ty.is_arithmetic() {
            let t = self.ty_name(&v.ty);
            self.push(
                Diagnostic::error(
                    hi.span,
                    format!(
                        "the bound of a parallel_for must be a number, but this has type `{t}`"
                    ),
                )
                .with_label("not a number"),
            );
            return None;
        }
        // C compares `i < hi` in the usual arithmetic conversions of both
        // types; the bound keeps that type, and the lowering compares as C
        // does (see `hir::StmtKind::ParallelFor`).
        let cmp_ty = usual_arith(ty, &v.ty);
        Some((self.convert(v, &cmp_ty), inclusive))
    }

    /// `i++`, `++i`, `i += c` or `i = i + c`, with `c` positive.
    fn pfor_step(
        &mut self,
        step: Option<&ast::Expr>,
        var: &str,
        ty: &CType,
        span: Span,
    ) -> Option<Expr> {
        let shape_help = format!("write `{var}++`, `{var} += step` or `{var} = {var} + step`");
        let Some(s) = step else {
            self.push(
                Diagnostic::error(span, "parallel_for needs a step")
                    .with_label("no step")
                    .with_help(shape_help),
            );
            return None;
        };
        let down = |c: &mut Checker| {
            c.push(
                Diagnostic::error(
                    s.span,
                    "parallel_for must count \
                    upwards",
                )
                .with_label(format!("this does not increase `{var}`"))
                .with_help(format!(
                    "iterate `{var}` upwards from the low bound and \
                        compute the index you need from it"
                )),
            );
            None
        };
        use ast::ExprKind as K;
        use ast::UnaryOp as U;
        let amount = match &s.kind {
            K::Unary(U::PostInc | U::PreInc, x) if is_var(x, var) => {
                return Some(int_const(1, ty.clone(), s.span));
            }
            K::Unary(U::PostDec | U::PreDec, x) if is_var(x, var) => return down(self),
            K::Assign {
                op: Some(ast::BinaryOp::Add),
                lhs,
                rhs,
            } if is_var(lhs, var) => Some(&**rhs),
            K::Assign {
                op: Some(ast::BinaryOp::Sub),
                lhs,
                ..
            } if is_var(lhs, var) => return down(self),
            K::Assign { op: None, lhs, rhs } if is_var(lhs, var) => match &rhs.kind {
                K::Binary(ast::BinaryOp::Add, a, c) if is_var(a, var) => Some(&**c),
                K::Binary(ast::BinaryOp::Add, c, b) if is_var(b, var) => Some(&**c),
                K::Binary(ast::BinaryOp::Sub, a, _) if is_var(a, var) => return down(self),
                _ => None,
            },
            _ => None,
        };
        let Some(c) = amount else {
            self.rvalue(s);
            self.push(
                Diagnostic::error(s.span, "parallel_for step must increase the index")
                    .with_label("not a step of the index")
                    .with_help(shape_help),
            );
            return None;
        };
        if mentions(c, var) {
            self.push(
                Diagnostic::error(
                    c.span,
                    format!("the step of a parallel_for must not depend on `{var}`"),
                )
                .with_label(format!("depends on `{var}`"))
                .with_help("the step is evaluated once, before the loop"),
            );
            return None;
        }
        let v = self.rvalue(c);
        if is_err(&v.ty) {
            return None;
        }
        if !v.ty.is_integer() {
            let t = self.ty_name(&v.ty);
            self.push(
                Diagnostic::error(
                    c.span,
                    format!(
                        "the step of a parallel_for must be an integer, but this has type `{t}`"
                    ),
                )
                .with_label("not an integer"),
            );
            return None;
        }
        if let ExprKind::IntConst(k) = v.kind {
            let negative = !v.ty.is_unsigned() && k < 0;
            if negative {
                return down(self);
            }
            if k == 0 {
                self.push(
                    Diagnostic::error(c.span, "parallel_for step must be positive")
                        .with_label("a step of 0 never reaches the bound"),
                );
                return None;
            }
        }
        Some(self.convert(v, ty))
    }
}

/// Whether an expression mentions the variable `name` (for loop bounds).
fn mentions(e: &ast::Expr, name: &str) -> bool {
    use ast::ExprKind as K;
    match &e.kind {
        K::Ident(n) => n == name,
        K::Unary(_, x) | K::Member(x, _) | K::Arrow(x, _) | K::Cast(_, x) | K::SizeofExpr(x) => {
            mentions(x, name)
        }
        K::Binary(_, a, b) | K::Index(a, b) | K::Comma(a, b) | K::Elvis(a, b) => {
            mentions(a, name) || mentions(b, name)
        }
        K::Assign { lhs, rhs, .. } => mentions(lhs, name) || mentions(rhs, name),
        K::Cond(a, b, c) => mentions(a, name) || mentions(b, name) || mentions(c, name),
        K::Call { args, .. } => args.iter().any(|a| mentions(a, name)),
        K::Launch {
            grid, block, args, ..
        } => {
            mentions(grid, name) || mentions(block, name) || args.iter().any(|a| mentions(a, name))
        }
        _ => false,
    }
}

fn is_var(e: &ast::Expr, name: &str) -> bool {
    matches!(&e.kind, ast::ExprKind::Ident(n) if n == name)
}
