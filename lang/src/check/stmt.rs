//! Statements: blocks and scopes, local declarations (`const`, `static`,
//! `__shared__`), conditions, loops with `break`/`continue`, `return`
//! against the function's type, and fork-join parallelism: `spawn` (only of
//! calls of user functions, into local variables), `sync`, and the
//! canonical form of `parallel_for` with the rules for its body.

use super::expr::{ConvCtx, err_expr, int_const, keyword};
use super::omp;
use super::types::usual_arith;
use super::{Checker, LoopKind, Sym, err_ty, is_err, var_is_const};
use crate::ast::{self, Span};
use crate::diag::Diagnostic;
use crate::hir::{CType, Expr, ExprKind, FuncKind, GlobalVar, LocalId, Stmt, StmtKind};

/// Whether an expression mentions the variable `name` (for loop bounds).
fn mentions(e: &ast::Expr, name: &str) -> bool {
    use ast::ExprKind as K;
    match &e.kind {
        K::Ident(n) => n == name,
        K::Unary(_, x) | K::Member(x, _) | K::Arrow(x, _) | K::Cast(_, x) | K::SizeofExpr(x) => {
            mentions(x, name)
        }
        K::Binary(_, a, b) | K::Index(a, b) | K::Comma(a, b) => {
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

impl Checker {
    /// Statements of a block whose scope the caller manages.
    pub(super) fn block_stmts(&mut self, stmts: &[ast::Stmt]) -> Vec<Stmt> {
        let mut out = Vec::new();
        for s in stmts {
            let v = self.stmt(s);
            // Variable array lengths met in the statement go before it.
            out.extend(self.take_vla_lengths());
            out.extend(v);
        }
        out
    }

    /// A sub-statement (a loop or `if` body): its own scope, one statement.
    pub(super) fn sub_stmt(&mut self, s: &ast::Stmt) -> Stmt {
        self.push_scope();
        let mut v = self.stmt(s);
        self.pop_scope();
        if v.len() == 1
            && let Some(one) = v.pop()
        {
            return one;
        }
        Stmt {
            kind: StmtKind::Block(v),
            span: s.span,
        }
    }

    pub(super) fn stmt(&mut self, s: &ast::Stmt) -> Vec<Stmt> {
        self.omp_after_barrier(s);
        let span = s.span;
        let one = |kind| vec![Stmt { kind, span }];
        match &s.kind {
            ast::StmtKind::Empty => Vec::new(),
            ast::StmtKind::Expr(e) => {
                let e = self.rvalue(e);
                one(StmtKind::Expr(e))
            }
            ast::StmtKind::Decl(d) => self.local_decl(d),
            ast::StmtKind::Block(b) => {
                self.push_scope();
                let v = self.block_stmts(&b.stmts);
                self.pop_scope();
                one(StmtKind::Block(v))
            }
            ast::StmtKind::If { cond, then, els } => {
                let cond = self.condition(cond);
                // Each branch starts from the spawns pending before the
                // `if`; afterwards, a spawn of either may be pending.
                let before = self.pending();
                self.enter_branch(1);
                let then = Box::new(self.sub_stmt(then));
                let after_then = std::mem::replace(self.pending_mut(), before);
                let els = els.as_ref().map(|e| Box::new(self.sub_stmt(e)));
                self.enter_branch(-1);
                self.add_pending(after_then);
                one(StmtKind::If { cond, then, els })
            }
            ast::StmtKind::While { cond, body } => {
                let cond = self.condition(cond);
                let before = self.pending();
                let body = Box::new(self.loop_body(body, LoopKind::Ordinary));
                self.add_pending(before);
                one(StmtKind::While { cond, body })
            }
            ast::StmtKind::DoWhile { body, cond } => {
                let body = Box::new(self.loop_body(body, LoopKind::Ordinary));
                let cond = self.condition(cond);
                one(StmtKind::DoWhile { body, cond })
            }
            ast::StmtKind::For {
                parallel: false,
                init,
                cond,
                step,
                body,
            } => {
                self.push_scope();
                let init = init.as_ref().map(|i| {
                    let mut v = self.stmt(i);
                    let st = if v.len() == 1 {
                        v.pop().unwrap_or(Stmt {
                            kind: StmtKind::Block(Vec::new()),
                            span: i.span,
                        })
                    } else {
                        Stmt {
                            kind: StmtKind::Block(v),
                            span: i.span,
                        }
                    };
                    Box::new(st)
                });
                let cond = cond.as_ref().map(|c| self.condition(c));
                let before = self.pending();
                let body = Box::new(self.loop_body(body, LoopKind::Ordinary));
                let step = step.as_ref().map(|e| self.rvalue(e));
                self.add_pending(before);
                self.pop_scope();
                one(StmtKind::For {
                    init,
                    cond,
                    step,
                    body,
                })
            }
            ast::StmtKind::For {
                parallel: true,
                init,
                cond,
                step,
                body,
            } => self.parallel_for(
                init.as_deref(),
                cond.as_ref(),
                step.as_ref(),
                body,
                span,
                None,
            ),
            ast::StmtKind::Omp { pragma, stmt } => self.omp(pragma, stmt),
            ast::StmtKind::Break | ast::StmtKind::Continue => {
                let is_break = matches!(s.kind, ast::StmtKind::Break);
                let word = if is_break { "break" } else { "continue" };
                // `continue` belongs to the innermost loop, `break` to the
                // innermost loop or `switch`.
                let target = self.fx().and_then(|f| {
                    f.loops
                        .iter()
                        .rev()
                        .find(|k| is_break || **k != LoopKind::Switch)
                        .copied()
                });
                match target {
                    None => {
                        let (what, places) = if is_break {
                            ("a loop or `switch`", "loops and `switch` statements")
                        } else {
                            ("a loop", "`for`, `while` or `do` loops")
                        };
                        self.push(
                            Diagnostic::error(span, format!("`{word}` outside of {what}"))
                                .with_label(format!("not inside {what}"))
                                .with_help(format!("`{word}` can only appear inside {places}")),
                        );
                        Vec::new()
                    }
                    Some(LoopKind::ParallelBody) if is_break => {
                        self.push(
                            Diagnostic::error(span, "`break` cannot leave a parallel_for body")
                                .with_label("this would leave the parallel_for body")
                                .with_help("iterations run in parallel; use a flag and `continue`"),
                        );
                        Vec::new()
                    }
                    Some(_) => one(if is_break {
                        StmtKind::Break
                    } else {
                        StmtKind::Continue
                    }),
                }
            }
            ast::StmtKind::Switch { cond, body } => self.switch(cond, body, span),
            ast::StmtKind::Case { value, body } => {
                let mut v = self.case_label(Some(value), span);
                v.extend(self.stmt(body));
                v
            }
            ast::StmtKind::Default(body) => {
                let mut v = self.case_label(None, span);
                v.extend(self.stmt(body));
                v
            }
            ast::StmtKind::Label { name, body } => {
                let mut v = self.named_label(name);
                v.extend(self.stmt(body));
                v
            }
            ast::StmtKind::Goto(name) => self.goto(name, span),
            ast::StmtKind::Return(e) => self.return_stmt(e.as_ref(), span),
            ast::StmtKind::Spawn { dest, call } => self.spawn(dest.as_ref(), call, span),
            ast::StmtKind::Sync => {
                self.fork_join("sync", span);
                self.pending_mut().clear();
                one(StmtKind::Sync)
            }
        }
    }

    pub(super) fn pending(&self) -> Vec<(LocalId, Span)> {
        self.fx().map(|f| f.pending.clone()).unwrap_or_default()
    }

    pub(super) fn pending_mut(&mut self) -> &mut Vec<(LocalId, Span)> {
        match self.fx.as_mut() {
            Some(fx) => &mut fx.pending,
            None => &mut self.no_pending,
        }
    }

    pub(super) fn add_pending(&mut self, more: Vec<(LocalId, Span)>) {
        let p = self.pending_mut();
        for m in more {
            if !p.iter().any(|q| q.0 == m.0) {
                p.push(m);
            }
        }
    }

    /// Enters (+1) or leaves (-1) a conditional branch inside the innermost
    /// `parallel_for` body.
    pub(super) fn enter_branch(&mut self, delta: i32) {
        if let Some(pf) = self.fx.as_mut().and_then(|f| f.pfors.last_mut()) {
            pf.conditional = pf.conditional.saturating_add_signed(delta);
        }
    }

    /// Enters (+1) or leaves (-1) code that one thread of the innermost
    /// team runs once (see `PforInfo::once`).
    pub(super) fn enter_once(&mut self, delta: i32) {
        if let Some(pf) = self.fx.as_mut().and_then(|f| f.pfors.last_mut()) {
            pf.once = pf.once.saturating_add_signed(delta);
        }
    }

    fn loop_body(&mut self, body: &ast::Stmt, kind: LoopKind) -> Stmt {
        if let Some(fx) = self.fx.as_mut() {
            fx.loops.push(kind);
        }
        let b = self.sub_stmt(body);
        if let Some(fx) = self.fx.as_mut() {
            fx.loops.pop();
        }
        b
    }

    fn return_stmt(&mut self, e: Option<&ast::Expr>, span: Span) -> Vec<Stmt> {
        let Some((name, ret, in_pfor)) = self.fx().map(|f| {
            (
                f.name.clone(),
                f.ret.clone(),
                f.loops.contains(&LoopKind::ParallelBody),
            )
        }) else {
            return Vec::new();
        };
        if in_pfor {
            self.push(
                Diagnostic::error(
                    span,
                    "`return` cannot leave a parallel_for \
                    body",
                )
                .with_label("this would leave the parallel_for body")
                .with_help(
                    "iterations run in parallel; record the result in memory and \
                        use `continue`",
                ),
            );
        }
        let value = match (e, ret == CType::Void) {
            (Some(e), true) => {
                let v = self.rvalue(e);
                if !is_err(&v.ty) {
                    self.push(
                        Diagnostic::error(
                            e.span,
                            format!("void function `{name}` should not return a value"),
                        )
                        .with_label("a value returned from a `void` function")
                        .with_help("remove the value, or change the function's return type"),
                    );
                }
                return Vec::new();
            }
            (None, false) => {
                if !is_err(&ret) {
                    let t = self.ty_name(&ret);
                    self.push(
                        Diagnostic::error(
                            span,
                            format!("non-void function `{name}` should return a value"),
                        )
                        .with_label("`return` without a value")
                        .with_help(format!("return a value of type `{t}`: `return <value>;`")),
                    );
                }
                return Vec::new();
            }
            (None, true) => None,
            (Some(e), false) => {
                let v = self.rvalue(e);
                Some(self.assign_conv(v, &ret, ConvCtx::Return(&name)))
            }
        };
        if in_pfor {
            return Vec::new();
        }
        vec![Stmt {
            kind: StmtKind::Return(value),
            span,
        }]
    }

    /// Records a fork-join construct; GPU code cannot fork.
    pub(super) fn fork_join(&mut self, what: &str, span: Span) {
        let kind = self.cur_kind();
        if let Some(fx) = self.fx.as_mut()
            && fx.fork_join.is_none()
        {
            fx.fork_join = Some(span);
        }
        let who = match kind {
            FuncKind::Host => return,
            FuncKind::Kernel => "kernels",
            FuncKind::Device => "`__device__` functions",
        };
        self.push(
            Diagnostic::error(span, format!("{who} cannot use fork-join parallelism"))
                .with_label(format!("`{what}` here"))
                .with_help("GPU threads cannot spawn tasks; launch more threads instead"),
        );
    }

    // ------------------------------------------------------- declarations

    fn local_decl(&mut self, d: &ast::Decl) -> Vec<Stmt> {
        let q = d.quals;
        if q.is_typedef {
            self.typedef_decl(d);
            return Vec::new();
        }
        if d.declarators.is_empty() {
            self.tag_declaration(&d.ty.spec);
            return Vec::new();
        }
        if q.is_extern {
            for decl in &d.declarators {
                if let Some(init) = &decl.init {
                    let span = init.span();
                    self.push(
                        Diagnostic::error(
                            span,
                            "an `extern` declaration in a block cannot have an initializer",
                        )
                        .with_label("an initializer")
                        .with_help("initialize the variable where it is defined"),
                    );
                    continue;
                }
                self.extern_declarator(d, decl);
            }
            return Vec::new();
        }
        if q.is_global || q.is_device {
            self.push(
                Diagnostic::error(
                    d.span,
                    "`__global__` and `__device__` apply to functions, not variables",
                )
                .with_label("a variable")
                .with_help("remove the qualifier"),
            );
        }
        if q.is_shared && !self.in_gpu_code() {
            self.push(
                Diagnostic::error(
                    d.span,
                    "`__shared__` variables can only be declared in \
                    kernels and `__device__` functions",
                )
                .with_label("in host code")
                .with_help(
                    "use an ordinary local variable, or move this code into a \
                        `__global__` function",
                ),
            );
        }
        let mut out = Vec::new();
        for decl in &d.declarators {
            let name = decl.name.name.as_str();
            let is_const = var_is_const(d, decl);
            if !(q.is_shared || q.is_static) {
                let mut id = None;
                let span = decl.name.span;
                let (_, init) = self.object_type_and_init(d, decl, |c, ty| {
                    id = Some(c.new_local(name, ty.clone(), is_const, span));
                });
                // The lengths in its type and initializer, before it.
                out.extend(self.take_vla_lengths());
                if let Some(id) = id {
                    out.push(Stmt {
                        kind: StmtKind::Decl(id, init),
                        span: decl.span,
                    });
                }
                continue;
            }
            let (ty, init) = self.object_type_and_init(d, decl, |_, _| {});
            if super::vla::is_variably_modified(&ty) {
                let what = if q.is_shared { "__shared__" } else { "static" };
                self.push(
                    Diagnostic::error(
                        decl.name.span,
                        format!("a `{what}` variable cannot have a variable-length array type"),
                    )
                    .with_label("its type depends on a length computed at run time")
                    .with_help("declare it without `static`, or use a plain pointer"),
                );
                continue;
            }
            {
                // One object for the whole program (or per GPU block):
                // hoisted to a global named `function.variable`.
                let init = if q.is_shared {
                    if let Some(init) = &decl.init {
                        let span = init.span();
                        self.push(
                            Diagnostic::error(
                                span,
                                "`__shared__` variables cannot have an initializer",
                            )
                            .with_label("an initializer")
                            .with_help("assign them in the kernel, then call `__syncthreads()`"),
                        );
                    }
                    None
                } else {
                    init.map(|i| self.const_init(&i, name))
                };
                let g = self.hoisted_global(GlobalVar {
                    name: name.to_string(),
                    ty,
                    is_const,
                    is_shared: q.is_shared,
                    is_extern: false,
                    init,
                    span: decl.name.span,
                });
                self.declare_local_name(name, Sym::Global(g), decl.name.span);
            }
        }
        out
    }

    // ------------------------------------------------------ fork-join

    fn spawn(&mut self, dest: Option<&ast::Expr>, call: &ast::Expr, span: Span) -> Vec<Stmt> {
        self.fork_join("spawn", span);
        let call_expr = match &call.kind {
            ast::ExprKind::Call { callee, args } => match self.lookup(&callee.name) {
                Some(Sym::Func(f)) => Some(self.user_call(f, callee, args, call.span)),
                Some(_) => {
                    self.call(callee, args, call.span);
                    None
                }
                None if super::calls::is_builtin_name(&callee.name) || callee.name == "dim3" => {
                    self.push(
                        Diagnostic::error(
                            call.span,
                            format!(
                                "only user functions can be spawned; `{}` is a builtin",
                                callee.name
                            ),
                        )
                        .with_label("a builtin")
                        .with_help("wrap the builtin in a function of your own and spawn that"),
                    );
                    if callee.name == "__enzyme_autodiff" {
                        // Its first argument is a function name, which an
                        // ordinary argument check would report as misused.
                        self.call(callee, args, call.span);
                    } else {
                        self.check_only(args);
                    }
                    None
                }
                None => {
                    self.undeclared_function(callee);
                    self.check_only(args);
                    None
                }
            },
            ast::ExprKind::Launch { .. } => {
                self.push(
                    Diagnostic::error(call.span, "kernel launches cannot be spawned")
                        .with_label("a kernel launch")
                        .with_help("a launch already runs in parallel on the GPU; remove `spawn`"),
                );
                None
            }
            ast::ExprKind::Error => None,
            _ => {
                self.rvalue(call);
                self.push(
                    Diagnostic::error(call.span, "only function calls can be spawned")
                        .with_label("not a function call")
                        .with_help("write `spawn f(...)`"),
                );
                None
            }
        };
        let dest_id = dest.and_then(|d| self.spawn_dest(d, call_expr.as_ref()));
        match call_expr {
            Some(c) if !is_err(&c.ty) && (dest.is_none() || dest_id.is_some()) => {
                if let Some(id) = dest_id {
                    self.add_pending(vec![(id, span)]);
                }
                vec![Stmt {
                    kind: StmtKind::Spawn {
                        dest: dest_id,
                        call: c,
                    },
                    span,
                }]
            }
            _ => Vec::new(),
        }
    }

    /// The target of `x = spawn f()`: a local variable that can hold the
    /// result. The task stores the result there, so it lives in memory.
    fn spawn_dest(&mut self, d: &ast::Expr, call: Option<&Expr>) -> Option<LocalId> {
        let help = "spawn into a local variable, and copy it after `sync`";
        let id = match &d.kind {
            ast::ExprKind::Ident(name) => match self.lookup(name) {
                Some(Sym::Local(l)) => l,
                Some(Sym::Global(_)) => {
                    self.push(
                        Diagnostic::error(
                            d.span,
                            format!(
                                "the target of `= spawn` must be \
                            a local variable; `{name}` is a global"
                            ),
                        )
                        .with_label("a global variable")
                        .with_help(help),
                    );
                    return None;
                }
                _ => {
                    self.expr(d);
                    return None;
                }
            },
            ast::ExprKind::Error => return None,
            _ => {
                self.expr(d);
                self.push(
                    Diagnostic::error(d.span, "the target of `= spawn` must be a local variable")
                        .with_label("not a variable")
                        .with_help(help),
                );
                return None;
            }
        };
        let lv = self.expr(d);
        if !self.check_assignable(&lv, d.span) {
            return None;
        }
        if let Some(fx) = self.fx.as_mut()
            && let Some(local) = fx.locals.get_mut(id.0 as usize)
        {
            local.address_taken = true;
        }
        self.check_race(&lv, d.span);
        let call = call?;
        if is_err(&call.ty) {
            return None;
        }
        if call.ty == CType::Void {
            self.push(
                Diagnostic::error(
                    call.span,
                    "this function returns `void`, so there is no result to assign",
                )
                .with_label("returns `void`")
                .with_help("write `spawn f(...);` without a target"),
            );
            return None;
        }
        // Only check the conversion here; the spawned task performs it.
        let probe = Expr {
            kind: ExprKind::IntConst(1),
            ty: call.ty.clone(),
            span: call.span,
        };
        let converted = self.assign_conv(probe, &lv.ty, ConvCtx::Assign);
        (!is_err(&converted.ty)).then_some(id)
    }

    /// `parallel_for (T i = lo; i < hi; i += step) body` in canonical form;
    /// with `omp`, an OpenMP loop (see `check/omp.rs`).
    pub(super) fn parallel_for(
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
                        lo,
                        hi,
                        inclusive,
                        step,
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
        let dependent = [init_expr, cond.as_ref(), step.as_ref()]
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
        let (hi, inclusive) = self.pfor_bound(cond.as_ref(), &name, &ty, s.span)?;
        let step = self.pfor_step(step.as_ref(), &name, &ty, s.span)?;
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
