//! Statements: blocks, assignments, declarations, `if`, loops, `break`/
//! `continue`, pointer walks, `memcpy`/`memset`, `return`.

use super::{
    Access, Ctx, E, Elem, Gen, Place, Role, STORED, Shape, Span, Ty, Var, braced, elem_c, flit,
    guard, indent,
};

impl Gen {
    /// Up to `n` statements in the current scope of `cx`.
    pub(super) fn stmts(&mut self, cx: &mut Ctx, n: usize, budget: u64) -> (Vec<String>, u64) {
        let mut lines = Vec::new();
        let mut cost = 0;
        for _ in 0..n {
            if cost >= budget {
                break;
            }
            let (l, c) = self.stmt(cx, budget - cost);
            lines.extend(l);
            cost += c;
        }
        (lines, cost)
    }

    /// Statements in a new scope (the caller adds the braces).
    pub(super) fn block(&mut self, cx: &Ctx, n: usize, budget: u64) -> (Vec<String>, u64) {
        let mut inner = cx.clone();
        inner.scopes.push(Vec::new());
        inner.depth += 1;
        self.stmts(&mut inner, n, budget)
    }

    pub(super) fn stmt(&mut self, cx: &mut Ctx, budget: u64) -> (Vec<String>, u64) {
        let declared = cx.scopes.last().map_or(0, Vec::len);
        for _ in 0..8 {
            self.expr_budget = budget / 2;
            let nested = cx.depth < 4;
            let weights = [
                24,                                          // assign
                10,                                          // compound
                5,                                           // ++/--
                10,                                          // declaration
                if cx.depth < 3 { 3 } else { 0 },            // local array
                if self.structs.is_empty() { 0 } else { 2 }, // local struct
                if nested { 10 } else { 0 },                 // if
                if nested { 8 } else { 0 },                  // for
                if nested { 3 } else { 0 },                  // while
                if nested { 3 } else { 0 },                  // do-while
                if cx.in_loop { 4 } else { 0 },              // break/continue
                if nested { 8 } else { 0 },                  // parallel_for
                if nested { 6 } else { 0 },                  // spawn ... sync
                7,                                           // call
                if nested { 3 } else { 0 },                  // pointer block
                if nested { 2 } else { 0 },                  // pointer walk
                2,                                           // struct copy
                2,                                           // memset/memcpy
                if cx.can_return { 2 } else { 0 },           // return
                if nested { 2 } else { 0 },                  // block
            ];
            let k = self.rng.weighted(&weights);
            let r = match k {
                0 => self.assign(cx),
                1 => self.compound(cx),
                2 => self.incdec(cx),
                3 => self.decl_scalar(cx),
                4 => self.decl_array(cx, false),
                5 => self.decl_struct(cx),
                6 => self.if_stmt(cx, budget),
                7 => self.for_stmt(cx, budget),
                8 => self.while_stmt(cx, budget, false),
                9 => self.while_stmt(cx, budget, true),
                10 => self.jump(cx),
                11 => self.pfor(cx, budget),
                12 => self.spawn_region(cx, budget),
                13 => self.call_stmt(cx),
                14 => self.ptr_block(cx, budget),
                15 => self.ptr_walk(cx),
                16 => self.struct_copy(cx),
                17 => self.mem_stmt(cx),
                18 => self.return_stmt(cx),
                _ => {
                    let n = self.rng.range(1, 3) as usize;
                    let (b, c) = self.block(cx, n, budget);
                    let mut out = vec!["{".to_string()];
                    out.extend(indent(b));
                    out.push("}".into());
                    Some((out, c))
                }
            };
            if let Some((lines, cost)) = r
                && cost <= budget
            {
                return (lines, cost);
            }
            // A rejected statement's declarations are not in the program.
            cx.scopes.last_mut().expect("a scope").truncate(declared);
        }
        (vec![";".into()], 0)
    }

    pub(super) fn assign(&mut self, cx: &Ctx) -> Option<(Vec<String>, u64)> {
        let p = self.scalar_place(cx, true)?;
        let e = self.expr(cx, p.ty, 3);
        let e = self.fit(e);
        Some((vec![format!("{} = {};", p.s, e.s)], p.cost + e.cost + 1))
    }

    pub(super) fn compound(&mut self, cx: &Ctx) -> Option<(Vec<String>, u64)> {
        let p = self.scalar_place(cx, true)?;
        let t = p.ty;
        let f = t.fsuffix();
        let c = |v: f64| flit(v, t);
        let (s, cost) = if t.is_float() {
            // Only operations that cannot grow the magnitude: stored
            // values stay within STORED.
            match self.rng.below(3) {
                0 => (
                    format!(
                        "{} *= {};",
                        p.s,
                        c(*self.rng.pick(&[0.5, -0.75, 0.125, -1.0, 0.9]))
                    ),
                    1,
                ),
                1 => {
                    let e = self.expr(cx, t, 2);
                    (
                        format!("{} /= (fabs{f}({}) + {});", p.s, e.s, c(1.0)),
                        e.cost + 3,
                    )
                }
                _ => (
                    format!("{} /= {};", p.s, c(*self.rng.pick(&[2.0, -3.0, 1.5, 10.0]))),
                    1,
                ),
            }
        } else {
            let rt = if self.rng.one_in(4) {
                self.int_ty()
            } else if t == Ty::Bool {
                Ty::Int
            } else {
                t
            };
            let op = *self
                .rng
                .pick(&["+=", "-=", "*=", "&=", "|=", "^=", "/=", "%=", "<<=", ">>="]);
            match op {
                "/=" | "%=" => {
                    let (d, dc) = self.divisor(cx, rt, 2);
                    (format!("{} {op} {d};", p.s), dc + 2)
                }
                "<<=" | ">>=" => {
                    let e = self.expr(cx, rt, 2);
                    let m = if t.is_wide() { 63 } else { 31 };
                    (format!("{} {op} (({}) & {m});", p.s, e.s), e.cost + 2)
                }
                _ => {
                    let e = self.expr(cx, rt, 3);
                    (format!("{} {op} {};", p.s, e.s), e.cost + 2)
                }
            }
        };
        Some((vec![s], cost + p.cost))
    }

    pub(super) fn incdec(&mut self, cx: &Ctx) -> Option<(Vec<String>, u64)> {
        let p = self.scalar_place(cx, true)?;
        if p.ty.is_float() {
            return None;
        }
        let s = match self.rng.below(4) {
            0 => format!("{}++;", p.s),
            1 => format!("++{};", p.s),
            2 => format!("{}--;", p.s),
            _ => format!("--{};", p.s),
        };
        Some((vec![s], p.cost + 1))
    }

    pub(super) fn decl_scalar(&mut self, cx: &mut Ctx) -> Option<(Vec<String>, u64)> {
        let t = self.ty();
        let e = self.expr(cx, t, 3);
        let e = self.fit(e);
        let name = self.name("v");
        let line = format!("{} {name} = {};", t.c(), e.s);
        let root = self.root();
        cx.declare(Var::new(
            name,
            Shape::Scalar(t),
            root,
            Access::Write(Span::All),
            Role::Plain,
        ));
        Some((vec![line], e.cost + 1))
    }

    /// A local array, initialized by a (possibly partial) brace list or
    /// `memset`, and maybe filled by a loop.
    pub(super) fn decl_array(&mut self, cx: &mut Ctx, fill: bool) -> Option<(Vec<String>, u64)> {
        let (elem, len) = self.array_elem_len();
        let name = self.name("a");
        let mut out = Vec::new();
        match elem {
            Elem::S(Ty::Char) if self.rng.one_in(4) => {
                let k = self.rng.range(0, i64::from(len) - 1) as usize;
                let word: String = (0..k)
                    .map(|_| (b'a' + self.rng.below(26) as u8) as char)
                    .collect();
                out.push(format!("char {name}[{len}] = \"{word}\";"));
            }
            Elem::S(t) => {
                let k = self.rng.range(1, i64::from(len)) as usize;
                let xs: Vec<String> = (0..k).map(|_| self.lit(t).s).collect();
                out.push(format!("{} {name}[{len}] = {{{}}};", t.c(), xs.join(", ")));
            }
            Elem::St(s) => {
                out.push(format!("struct {} {name}[{len}];", self.structs[s].name));
                out.push(format!("memset({name}, 0, sizeof({name}));"));
            }
        }
        let root = self.root();
        let var = Var::new(
            name.clone(),
            Shape::Array(elem, len),
            root,
            Access::Write(Span::All),
            Role::Plain,
        );
        let mut cost = u64::from(len);
        if fill || self.rng.one_in(2) {
            // The fill loop sees the array itself (fully initialized).
            let k = self.name("k");
            let mut inner = cx.clone();
            inner.declare(var.clone());
            let mut kv = Var::new(
                k.clone(),
                Shape::Scalar(Ty::Int),
                self.root(),
                Access::Read(Span::All),
                Role::Fixed,
            );
            kv.range = Some((0, i64::from(len) - 1));
            inner.declare(kv);
            inner.loop_depth += 1;
            self.expr_budget = 200;
            let p = match elem {
                Elem::S(t) => Place {
                    s: format!("{name}[{k}]"),
                    ty: t,
                    cost: 1,
                },
                Elem::St(s) => self.field_path(&inner, s, format!("{name}[{k}].")),
            };
            let e = self.expr(&inner, p.ty, 2);
            let e = self.fit(e);
            cost += u64::from(len) * (e.cost + p.cost + 2);
            braced(
                &mut out,
                format!("for (int {k} = 0; {k} < {len}; {k}++)"),
                vec![format!("{} = {};", p.s, e.s)],
            );
        }
        cx.declare(var);
        Some((out, cost))
    }

    pub(super) fn decl_struct(&mut self, cx: &mut Ctx) -> Option<(Vec<String>, u64)> {
        if self.structs.is_empty() {
            return None;
        }
        let sid = self.rng.index(self.structs.len());
        let sname = self.structs[sid].name.clone();
        let name = self.name("s");
        let mut out = Vec::new();
        let mut cost = 4;
        match self.rng.below(4) {
            0 => {
                out.push(format!("struct {sname} {name};"));
                out.push(format!("memset(&{name}, 0, sizeof({name}));"));
            }
            1 => match self.struct_place(cx, sid, false) {
                Some((src, c)) => {
                    cost += c;
                    out.push(format!("struct {sname} {name} = {src};"));
                }
                None => out.push(format!("struct {sname} {name} = {{0}};")),
            },
            _ => {
                let init = self.struct_init(sid);
                out.push(format!("struct {sname} {name} = {init};"));
            }
        }
        let root = self.root();
        cx.declare(Var::new(
            name,
            Shape::Struct(sid),
            root,
            Access::Write(Span::All),
            Role::Plain,
        ));
        Some((out, cost))
    }

    pub(super) fn if_stmt(&mut self, cx: &Ctx, budget: u64) -> Option<(Vec<String>, u64)> {
        let mut out = Vec::new();
        let mut worst = 0;
        let mut conds = 0;
        let arms = self.rng.weighted(&[5, 4, 2]);
        for arm in 0..=arms {
            let c = if arm == 0 && self.rng.one_in(4) {
                self.side_cond(cx).unwrap_or_else(|| self.cond(cx, 2))
            } else {
                self.cond(cx, 2)
            };
            conds += c.cost;
            let n = self.rng.range(1, 3) as usize;
            let (b, bc) = self.block(cx, n, budget.saturating_sub(conds));
            worst = worst.max(bc);
            out.push(if arm == 0 {
                format!("if ({}) {{", c.s)
            } else {
                format!("}} else if ({}) {{", c.s)
            });
            out.extend(indent(b));
        }
        if self.rng.one_in(2) {
            let n = self.rng.range(1, 3) as usize;
            let (b, bc) = self.block(cx, n, budget.saturating_sub(conds));
            worst = worst.max(bc);
            out.push("} else {".into());
            out.extend(indent(b));
        }
        out.push("}".into());
        Some((out, worst + conds + 1))
    }

    /// Loop trips that fit the budget, or None.
    pub(super) fn trips(&mut self, budget: u64) -> Option<i64> {
        let max = (budget / 30).min(16) as i64;
        if max < 2 {
            None
        } else {
            Some(self.rng.range(2, max))
        }
    }

    pub(super) fn loop_ctx(&self, cx: &Ctx) -> Ctx {
        let mut inner = cx.clone();
        inner.scopes.push(Vec::new());
        inner.depth += 1;
        inner.loop_depth += 1;
        inner.in_loop = true;
        inner
    }

    pub(super) fn for_stmt(&mut self, cx: &Ctx, budget: u64) -> Option<(Vec<String>, u64)> {
        let trips = self.trips(budget)?;
        let t = *self
            .rng
            .pick(&[Ty::Int, Ty::Int, Ty::Int, Ty::Long, Ty::UInt]);
        let k = self.name("k");
        // The bound: a constant, or a run-time value in 1..=trips kept in
        // a variable nothing assigns (loop optimizations see an unknown
        // trip count; the loop still runs at most `trips` times).
        let mut pre = Vec::new();
        let mut sfx = t.suffix();
        let mut bound = trips.to_string();
        if self.rng.one_in(3) {
            let n = self.name("n");
            let e = self.expr(cx, Ty::Int, 2);
            pre.push(format!("int {n} = {} + 1;", guard(&e.s, trips as u32)));
            bound = n;
            sfx = "";
        }
        let trips_text = bound;
        let form = self.rng.below(if t.is_signed() { 4 } else { 3 });
        let (head, range, n) = match form {
            0 => (
                format!("for ({} {k} = 0; {k} < {trips_text}{sfx}; {k}++)", t.c()),
                (0, trips - 1),
                trips,
            ),
            1 => (
                format!("for ({} {k} = 0; {k} < {trips_text}{sfx}; {k} += 2)", t.c()),
                (0, trips - 1),
                (trips + 1) / 2,
            ),
            2 => (
                format!("for ({} {k} = 1; {k} <= {trips_text}{sfx}; {k}++)", t.c()),
                (1, trips),
                trips,
            ),
            _ => (
                if pre.is_empty() {
                    format!("for ({} {k} = {}{sfx}; {k} >= 0; {k}--)", t.c(), trips - 1)
                } else {
                    format!("for ({} {k} = {trips_text} - 1; {k} >= 0; {k}--)", t.c())
                },
                (0, trips - 1),
                trips,
            ),
        };
        let mut inner = self.loop_ctx(cx);
        let mut kv = Var::new(
            k,
            Shape::Scalar(t),
            self.root(),
            Access::Read(Span::All),
            Role::Fixed,
        );
        kv.range = Some(range);
        inner.declare(kv);
        let nst = self.rng.range(1, 4) as usize;
        let (b, c) = self.stmts(&mut inner, nst, budget / n as u64);
        let mut out = Vec::new();
        braced(&mut out, head, b);
        let cost = n as u64 * (c + 2);
        if pre.is_empty() {
            Some((out, cost))
        } else {
            pre.extend(out);
            let mut wrapped = vec!["{".to_string()];
            wrapped.extend(indent(pre));
            wrapped.push("}".into());
            Some((wrapped, cost + 5))
        }
    }

    /// `while` / `do-while` with a counter advanced first thing in the
    /// body, so `continue` cannot skip it: the loop runs at most `trips`
    /// times whatever the body does.
    pub(super) fn while_stmt(
        &mut self,
        cx: &Ctx,
        budget: u64,
        do_while: bool,
    ) -> Option<(Vec<String>, u64)> {
        let trips = self.trips(budget)?;
        let w = self.name("w");
        let mut inner = self.loop_ctx(cx);
        let mut wv = Var::new(
            w.clone(),
            Shape::Scalar(Ty::Int),
            self.root(),
            Access::Read(Span::All),
            Role::Fixed,
        );
        wv.range = Some((0, trips));
        inner.declare(wv);
        let mut cond = format!("{w} < {trips}");
        if self.rng.one_in(3)
            && let Some(sc) = self.side_cond(&inner)
        {
            cond = format!("{cond} && {}", sc.s);
        }
        let nst = self.rng.range(1, 4) as usize;
        let (b, c) = self.stmts(&mut inner, nst, budget / trips as u64);
        let mut body = vec![format!("{w}++;")];
        body.extend(b);
        let mut out = vec!["{".to_string(), format!("    int {w} = 0;")];
        let mut lp = Vec::new();
        if do_while {
            lp.push("do {".into());
            lp.extend(indent(body));
            lp.push(format!("}} while ({cond});"));
        } else if self.rng.one_in(4) {
            let mut b2 = vec![format!("if (!({cond}))"), "    break;".into()];
            b2.extend(body);
            braced(&mut lp, "while (1)".into(), b2);
        } else {
            braced(&mut lp, format!("while ({cond})"), body);
        }
        out.extend(indent(lp));
        out.push("}".into());
        Some((out, trips as u64 * (c + 4)))
    }

    pub(super) fn jump(&mut self, cx: &Ctx) -> Option<(Vec<String>, u64)> {
        if !cx.in_loop {
            return None;
        }
        let word = if self.rng.one_in(2) {
            "break"
        } else {
            "continue"
        };
        if self.rng.one_in(8) {
            return Some((vec![format!("{word};")], 0));
        }
        let c = self.cond(cx, 2);
        Some((
            vec![format!("if ({})", c.s), format!("    {word};")],
            c.cost + 1,
        ))
    }

    /// `T *p = a + c;` and statements that use `p` (aliasing `a`).
    pub(super) fn ptr_block(&mut self, cx: &Ctx, budget: u64) -> Option<(Vec<String>, u64)> {
        let cands: Vec<Var> = cx
            .vars()
            .filter(|v| {
                matches!(v.shape, Shape::Array(..) | Shape::Struct(_))
                    && v.access.readable() == Some(&Span::All)
                    && v.role == Role::Plain
            })
            .cloned()
            .collect();
        if cands.is_empty() {
            return None;
        }
        let base = cands[self.rng.index(cands.len())].clone();
        let p = self.name("q");
        let (decl, shape, ptr_of) = match base.shape {
            Shape::Struct(s) => (
                format!("struct {} *{p} = &{};", self.structs[s].name, base.name),
                Shape::Array(Elem::St(s), 1),
                None,
            ),
            Shape::Array(elem, len) => {
                let off = self.rng.below(u64::from(len)) as u32;
                let init = match (off, self.rng.below(2)) {
                    (0, 0) => base.name.clone(),
                    (_, 0) => format!("{} + {off}", base.name),
                    _ => format!("&{}[{off}]", base.name),
                };
                let ptr_of = (!base.is_ptr).then(|| (base.name.clone(), off));
                (
                    format!("{} *{p} = {init};", elem_c(elem, &self.structs)),
                    Shape::Array(elem, len - off),
                    ptr_of,
                )
            }
            Shape::Scalar(_) => return None,
        };
        let mut inner = cx.clone();
        inner.scopes.push(Vec::new());
        inner.depth += 1;
        let mut pv = Var::new(p, shape, base.root, base.access.clone(), Role::Plain);
        pv.is_ptr = true;
        pv.ptr_of = ptr_of;
        pv.global = base.global;
        inner.declare(pv);
        let n = self.rng.range(1, 3) as usize;
        let (b, c) = self.stmts(&mut inner, n, budget);
        let mut out = vec!["{".to_string(), format!("    {decl}")];
        out.extend(indent(b));
        out.push("}".into());
        Some((out, c + 1))
    }

    /// Walks an array with `q++`, folding it into a fresh local or
    /// storing into it.
    pub(super) fn ptr_walk(&mut self, cx: &mut Ctx) -> Option<(Vec<String>, u64)> {
        let cands: Vec<Var> = cx
            .vars()
            .filter(|v| {
                matches!(v.shape, Shape::Array(Elem::S(_), _))
                    && v.access.readable() == Some(&Span::All)
                    && v.role == Role::Plain
            })
            .cloned()
            .collect();
        if cands.is_empty() {
            return None;
        }
        let a = cands[self.rng.index(cands.len())].clone();
        let Shape::Array(Elem::S(t), len) = a.shape else {
            return None;
        };
        let q = self.name("q");
        let k = self.name("k");
        let mut out = Vec::new();
        let mut lines = vec![format!("{} *{q} = {};", t.c(), a.name)];
        let write = a.access.writable().is_some() && a.role == Role::Plain && self.rng.one_in(3);
        let body: Vec<String>;
        let per;
        if write {
            let mut inner = cx.clone();
            inner.scopes.push(Vec::new());
            let mut kv = Var::new(
                k.clone(),
                Shape::Scalar(Ty::Int),
                self.root(),
                Access::Read(Span::All),
                Role::Fixed,
            );
            kv.range = Some((0, i64::from(len) - 1));
            inner.declare(kv);
            self.expr_budget = 0;
            let e = self.expr(&inner, t, 2);
            let e = self.fit(e);
            per = e.cost + 3;
            body = if self.rng.one_in(2) {
                vec![format!("*{q} = {};", e.s), format!("{q}++;")]
            } else {
                vec![format!("*{q}++ = {};", e.s)]
            };
        } else {
            let w = self.name("w");
            out.push(format!("long {w} = 0;"));
            let root = self.root();
            cx.declare(Var::new(
                w.clone(),
                Shape::Scalar(Ty::Long),
                root,
                Access::Write(Span::All),
                Role::Plain,
            ));
            let star = if self.rng.one_in(2) {
                format!("*{q}++")
            } else {
                format!("*{q}")
            };
            let e = E {
                s: star.clone(),
                ty: t,
                b: STORED,
                cost: 1,
            };
            let e = self.conv(e, Ty::Long);
            per = e.cost + 3;
            body = if star.ends_with("++") {
                vec![format!("{w} = {w} * 31L + {};", e.s)]
            } else {
                vec![format!("{w} = {w} * 31L + {};", e.s), format!("{q} += 1;")]
            };
        }
        braced(
            &mut lines,
            format!("for (int {k} = 0; {k} < {len}; {k}++)"),
            body,
        );
        out.push("{".into());
        out.extend(indent(lines));
        out.push("}".into());
        Some((out, u64::from(len) * per))
    }

    pub(super) fn struct_copy(&mut self, cx: &Ctx) -> Option<(Vec<String>, u64)> {
        if self.structs.is_empty() {
            return None;
        }
        let sid = self.rng.index(self.structs.len());
        let (dst, c1) = self.struct_place(cx, sid, true)?;
        let (src, c2) = self.struct_place(cx, sid, false)?;
        Some((vec![format!("{dst} = {src};")], c1 + c2 + 4))
    }

    pub(super) fn mem_stmt(&mut self, cx: &Ctx) -> Option<(Vec<String>, u64)> {
        let writable: Vec<Var> = cx
            .vars()
            .filter(|v| {
                matches!(v.shape, Shape::Array(..))
                    && v.access.writable().is_some()
                    && v.role == Role::Plain
            })
            .cloned()
            .collect();
        if writable.is_empty() {
            return None;
        }
        let d = writable[self.rng.index(writable.len())].clone();
        let Shape::Array(elem, len) = d.shape else {
            return None;
        };
        let ec = elem_c(elem, &self.structs);
        let (start, width) = match d.access.writable() {
            Some(Span::Sub(b, w)) => (format!("&{}[{b}]", d.name), *w),
            _ => (d.name.clone(), len),
        };
        if self.rng.one_in(2) && d.access.writable() == Some(&Span::All) {
            // memcpy from a different object: the ranges cannot overlap.
            let srcs: Vec<Var> = cx
                .vars()
                .filter(|v| {
                    v.root != d.root
                        && v.role == Role::Plain
                        && v.access.readable() == Some(&Span::All)
                        && matches!(v.shape, Shape::Array(e, _) if e == elem)
                })
                .cloned()
                .collect();
            if !srcs.is_empty() {
                let s = srcs[self.rng.index(srcs.len())].clone();
                let Shape::Array(_, slen) = s.shape else {
                    return None;
                };
                let n = len.min(slen);
                return Some((
                    vec![format!(
                        "memcpy({}, {}, {n} * sizeof({ec}));",
                        d.name, s.name
                    )],
                    u64::from(n) * 2,
                ));
            }
        }
        let byte =
            if self.rng.one_in(3) && matches!(elem, Elem::S(t) if !t.is_float() && t != Ty::Bool) {
                self.rng.below(256)
            } else {
                0
            };
        Some((
            vec![format!("memset({start}, {byte}, {width} * sizeof({ec}));")],
            u64::from(width),
        ))
    }

    pub(super) fn return_stmt(&mut self, cx: &Ctx) -> Option<(Vec<String>, u64)> {
        if !cx.can_return {
            return None;
        }
        let c = self.cond(cx, 2);
        let value = match cx.ret {
            Some(t) => {
                let e = self.expr(cx, t, 2);
                let e = self.fit(e);
                format!("return {};", e.s)
            }
            None => "return;".into(),
        };
        Some((
            vec![format!("if ({})", c.s), format!("    {value}")],
            c.cost + 2,
        ))
    }
}
