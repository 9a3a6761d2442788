//! The whole program: structs, globals, the functions (plain,
//! divide-and-conquer, parallel sums, bump) and `main` with its epilogue
//! that prints every result.

use super::{
    Access, Ctx, E, Elem, FN_BUDGET, Field, Func, Gen, MAIN_BUDGET, MAX_RANGE, Param, Role, STORED,
    Shape, Span, StructDef, Ty, Var, braced, elem_c, indent,
};

impl Gen {
    pub(super) fn program(&mut self, seed: u64) -> (String, i64) {
        let arg = self.rng.range(-50, 950);
        self.arg = arg;
        let mut out = vec![
            format!(
                "// parc-fuzz program {seed}: a random valid ParC program (see fuzz/src/lib.rs)"
            ),
            format!("// args: {arg}"),
            String::new(),
        ];
        for _ in 0..self.rng.range(0, 3) {
            out.extend(self.struct_def());
            out.push(String::new());
        }
        let globals = self.globals(&mut out);
        out.push(String::new());
        let mut has_bump = false;
        for _ in 0..self.rng.range(1, 4) {
            out.extend(self.function(&globals, &mut has_bump));
            out.push(String::new());
        }
        out.extend(self.main(globals));
        let mut text = out.join("\n");
        text.push('\n');
        (text, arg)
    }

    pub(super) fn struct_def(&mut self) -> Vec<String> {
        let name = self.name("S");
        let mut fields = Vec::new();
        for _ in 0..self.rng.range(2, 5) {
            let fname = self.name("m");
            let f = match self
                .rng
                .weighted(&[6, 2, if self.structs.is_empty() { 0 } else { 2 }])
            {
                0 => Field::S(self.ty()),
                1 => Field::Arr(self.ty(), self.rng.range(2, 4) as u32),
                _ => Field::St(self.rng.index(self.structs.len())),
            };
            fields.push((fname, f));
        }
        let mut out = vec![format!("struct {name} {{")];
        for (fname, f) in &fields {
            out.push(match *f {
                Field::S(t) => format!("    {} {fname};", t.c()),
                Field::Arr(t, n) => format!("    {} {fname}[{n}];", t.c()),
                Field::St(s) => format!("    struct {} {fname};", self.structs[s].name),
            });
        }
        out.push("};".into());
        self.structs.push(StructDef { name, fields });
        out
    }

    /// A brace initializer of constants for a struct (C99 zero-fills the
    /// fields a partial list leaves out).
    pub(super) fn struct_init(&mut self, sid: usize) -> String {
        let fields = self.structs[sid].fields.clone();
        let n = if self.rng.one_in(3) {
            self.rng.range(1, fields.len() as i64) as usize
        } else {
            fields.len()
        };
        let items: Vec<String> = fields[..n]
            .iter()
            .map(|(_, f)| match *f {
                Field::S(t) => self.lit(t).s,
                Field::Arr(t, k) => {
                    let xs: Vec<String> = (0..k).map(|_| self.lit(t).s).collect();
                    format!("{{{}}}", xs.join(", "))
                }
                Field::St(s) => self.struct_init(s),
            })
            .collect();
        format!("{{{}}}", items.join(", "))
    }

    pub(super) fn globals(&mut self, out: &mut Vec<String>) -> Vec<Var> {
        let mut vars = Vec::new();
        for _ in 0..self.rng.range(1, 4) {
            let t = self.ty();
            let name = self.name("g");
            let init = self.lit(t).s;
            out.push(format!("{} {name} = {init};", t.c()));
            let mut v = Var::new(
                name,
                Shape::Scalar(t),
                self.root(),
                Access::Write(Span::All),
                Role::Plain,
            );
            v.global = true;
            vars.push(v);
        }
        for _ in 0..self.rng.range(1, 3) {
            let (elem, len) = self.array_elem_len();
            let name = self.name("ga");
            match elem {
                Elem::S(t) => {
                    let k = self.rng.range(0, i64::from(len)) as u32;
                    if k == 0 {
                        out.push(format!("{} {name}[{len}];", t.c()));
                    } else {
                        let xs: Vec<String> = (0..k).map(|_| self.lit(t).s).collect();
                        out.push(format!("{} {name}[{len}] = {{{}}};", t.c(), xs.join(", ")));
                    }
                }
                Elem::St(s) => out.push(format!("struct {} {name}[{len}];", self.structs[s].name)),
            }
            let mut v = Var::new(
                name,
                Shape::Array(elem, len),
                self.root(),
                Access::Write(Span::All),
                Role::Plain,
            );
            v.global = true;
            vars.push(v);
        }
        if !self.structs.is_empty() && self.rng.one_in(2) {
            let sid = self.rng.index(self.structs.len());
            let name = self.name("gs");
            let init = self.struct_init(sid);
            out.push(format!(
                "struct {} {name} = {init};",
                self.structs[sid].name
            ));
            let mut v = Var::new(
                name,
                Shape::Struct(sid),
                self.root(),
                Access::Write(Span::All),
                Role::Plain,
            );
            v.global = true;
            vars.push(v);
        }
        if self.rng.one_in(2) {
            // A constant table: read-only everywhere, even in functions.
            let t = *self.rng.pick(&[Ty::Int, Ty::Long, Ty::Double, Ty::UInt]);
            let len = *self.rng.pick(&[4u32, 8, 16]);
            let name = self.name("ct");
            let xs: Vec<String> = (0..len).map(|_| self.lit(t).s).collect();
            out.push(format!(
                "const {} {name}[{len}] = {{{}}};",
                t.c(),
                xs.join(", ")
            ));
            let mut v = Var::new(
                name,
                Shape::Array(Elem::S(t), len),
                self.root(),
                Access::Read(Span::All),
                Role::Fixed,
            );
            v.global = true;
            vars.push(v);
        }
        vars
    }

    pub(super) fn array_elem_len(&mut self) -> (Elem, u32) {
        if !self.structs.is_empty() && self.rng.one_in(5) {
            let s = self.rng.index(self.structs.len());
            (Elem::St(s), *self.rng.pick(&[2u32, 3, 4, 8]))
        } else {
            (
                Elem::S(self.ty()),
                *self.rng.pick(&[2u32, 4, 8, 8, 16, 16, 32, 6, 12, 3]),
            )
        }
    }

    pub(super) fn base_ctx(&self, scopes: Vec<Vec<Var>>) -> Ctx {
        Ctx {
            scopes,
            in_loop: false,
            can_return: false,
            ret: None,
            loop_depth: 0,
            pfor_depth: 0,
            depth: 0,
            callable: self.funcs.len(),
            globals_free: false,
            rec: false,
        }
    }

    // ---- functions ------------------------------------------------------

    pub(super) fn function(&mut self, globals: &[Var], has_bump: &mut bool) -> Vec<String> {
        match self
            .rng
            .weighted(&[60, 14, 14, if *has_bump { 0 } else { 12 }])
        {
            0 => self.plain_function(globals),
            1 => self.dac_function(),
            2 => self.dsum_function(),
            _ => {
                *has_bump = true;
                self.bump_function(globals)
            }
        }
    }

    /// Parameter declarations and the variables they become.
    pub(super) fn param_vars(&mut self, params: &[Param]) -> (Vec<String>, Vec<Var>) {
        let mut decls = Vec::new();
        let mut vars = Vec::new();
        for p in params {
            match *p {
                Param::Depth => {
                    let n = self.name("d");
                    decls.push(format!("int {n}"));
                    let mut v = Var::new(
                        n,
                        Shape::Scalar(Ty::Int),
                        self.root(),
                        Access::Read(Span::All),
                        Role::Fixed,
                    );
                    v.range = Some((0, 3));
                    vars.push(v);
                }
                Param::S(t) => {
                    let n = self.name("p");
                    decls.push(format!("{} {n}", t.c()));
                    vars.push(Var::new(
                        n,
                        Shape::Scalar(t),
                        self.root(),
                        Access::Write(Span::All),
                        Role::Plain,
                    ));
                }
                Param::SVal(s) => {
                    let n = self.name("p");
                    decls.push(format!("struct {} {n}", self.structs[s].name));
                    vars.push(Var::new(
                        n,
                        Shape::Struct(s),
                        self.root(),
                        Access::Write(Span::All),
                        Role::Plain,
                    ));
                }
                Param::In(elem, len) | Param::Out(elem, len) => {
                    let n = self.name("p");
                    decls.push(format!("{} *{n}", elem_c(elem, &self.structs)));
                    let access = if matches!(p, Param::In(..)) {
                        Access::Read(Span::All)
                    } else {
                        Access::Write(Span::All)
                    };
                    let mut v =
                        Var::new(n, Shape::Array(elem, len), self.root(), access, Role::Plain);
                    v.is_ptr = true;
                    vars.push(v);
                }
                Param::InRange(_) | Param::OutRange(_) => {
                    unreachable!("range parameters only in templates")
                }
            }
        }
        (decls, vars)
    }

    pub(super) fn const_globals(globals: &[Var]) -> Vec<Var> {
        globals
            .iter()
            .filter(|v| v.role == Role::Fixed)
            .cloned()
            .collect()
    }

    pub(super) fn plain_function(&mut self, globals: &[Var]) -> Vec<String> {
        let name = self.name("f");
        let mut ret = if self.rng.percent(80) {
            Some(self.ty())
        } else {
            None
        };
        let n_out = if ret.is_none() || self.rng.percent(20) {
            1
        } else {
            0
        };
        if n_out == 0 && ret.is_none() {
            ret = Some(Ty::Int);
        }
        let rec = n_out == 0 && self.rng.percent(35);
        let mut params = Vec::new();
        for _ in 0..self.rng.range(0, 3) {
            params.push(Param::S(self.ty()));
        }
        for _ in 0..self.rng.weighted(&[4, 3, 1]) {
            let (elem, len) = self.array_elem_len();
            params.push(Param::In(elem, len));
        }
        for _ in 0..n_out {
            let (elem, len) = self.array_elem_len();
            params.push(Param::Out(elem, len));
        }
        if !self.structs.is_empty() && self.rng.one_in(4) {
            params.push(Param::SVal(self.rng.index(self.structs.len())));
        }
        // Shuffle, recursion depth first.
        for i in (1..params.len()).rev() {
            let j = self.rng.index(i + 1);
            params.swap(i, j);
        }
        if rec {
            params.insert(0, Param::Depth);
        }
        let (decls, pvars) = self.param_vars(&params);
        let sig = Func {
            name: name.clone(),
            params: params.clone(),
            ret,
            cost: 0,
            bump: false,
        };
        self.current = Some(sig.clone());
        let mut cx = self.base_ctx(vec![Self::const_globals(globals), pvars.clone()]);
        cx.can_return = true;
        cx.ret = ret;
        let mut body = Vec::new();
        let mut cost = 0;
        if rec {
            self.expr_budget = FN_BUDGET / 4;
            let e = self.expr(&cx, ret.unwrap_or(Ty::Int), 2);
            let e = self.fit(e);
            cost += e.cost;
            self.depth_name = pvars[0].name.clone();
            body.push(format!("if ({} <= 0)", pvars[0].name));
            body.push(format!("    return {};", e.s));
            self.rec_sites = 2;
            cx.rec = true;
        }
        let n = self.rng.range(2, 5) as usize;
        let (lines, c) = self.stmts(&mut cx, n, FN_BUDGET);
        body.extend(lines);
        cost += c;
        if let Some(t) = ret {
            self.expr_budget = FN_BUDGET / 4;
            let e = self.expr(&cx, t, 3);
            let e = self.fit(e);
            cost += e.cost;
            body.push(format!("return {};", e.s));
        }
        self.current = None;
        self.rec_sites = 0;
        let cost = (cost + 5) * if rec { 15 } else { 1 };
        let head = format!("{} {name}({})", ret.map_or("void", Ty::c), decls.join(", "));
        let mut out = Vec::new();
        if self.rng.one_in(4) {
            // A prototype first, as C programs often have.
            out.push(format!("{head};"));
        }
        out.push(head);
        out.push("{".into());
        out.extend(indent(body));
        out.push("}".into());
        self.funcs.push(Func { cost, ..sig });
        out
    }

    /// `void d(T *p, int lo, int hi, S s)`: writes `p[lo..hi)`, splitting
    /// the range in two halves, the first one spawned (no explicit sync:
    /// the implicit one at return joins it).
    pub(super) fn dac_function(&mut self) -> Vec<String> {
        let name = self.name("dac");
        let t = self.ty();
        let st = self.ty();
        let leaf = self.rng.range(1, 4);
        let (p, lo, hi, s, k, mid) = (
            self.name("p"),
            self.name("lo"),
            self.name("hi"),
            self.name("s"),
            self.name("k"),
            self.name("mid"),
        );
        let fixed = |g: &mut Gen, n: &str| {
            Var::new(
                n.to_string(),
                Shape::Scalar(Ty::Int),
                g.root(),
                Access::Read(Span::All),
                Role::Fixed,
            )
        };
        let p_root = self.root();
        let mut pv = Var::new(
            p.clone(),
            Shape::Array(Elem::S(t), 1),
            p_root,
            Access::Write(Span::Sub(k.clone(), 1)),
            Role::Plain,
        );
        pv.is_ptr = true;
        let sv = Var::new(
            s.clone(),
            Shape::Scalar(st),
            self.root(),
            Access::Write(Span::All),
            Role::Plain,
        );
        let lov = fixed(self, &lo);
        let hiv = fixed(self, &hi);
        let kv = fixed(self, &k);
        let sig = Func {
            name: name.clone(),
            params: vec![Param::OutRange(t), Param::S(st)],
            ret: None,
            cost: 0,
            bump: false,
        };
        // The leaf loop: the iteration owns p[k].
        let mut cx = self.base_ctx(vec![vec![
            sv.clone(),
            lov.clone(),
            hiv.clone(),
            kv,
            pv.clone(),
        ]]);
        cx.in_loop = true;
        cx.loop_depth = 1;
        let n = self.rng.range(0, 2) as usize;
        let (mut leaf_body, c) = self.stmts(&mut cx, n, FN_BUDGET / MAX_RANGE);
        self.expr_budget = FN_BUDGET / MAX_RANGE;
        let pl = self.place_in(&cx, &pv);
        let e = self.expr(&cx, t, 3);
        let e = self.fit(e);
        let per_elem = c + e.cost + pl.cost + 3;
        leaf_body.push(format!("{} = {};", pl.s, e.s));
        // The split: p is not touched by the caller's strand any more.
        let mut pv_none = pv.clone();
        pv_none.access = Access::None;
        let midv = fixed(self, &mid);
        let cx2 = self.base_ctx(vec![vec![sv, lov, hiv, midv, pv_none]]);
        self.expr_budget = 0;
        let a1 = self.expr(&cx2, st, 2);
        let a1 = self.fit(a1);
        let a2 = self.expr(&cx2, st, 2);
        let a2 = self.fit(a2);
        let mut body = Vec::new();
        let mut lp = Vec::new();
        braced(
            &mut lp,
            format!("for (int {k} = {lo}; {k} < {hi}; {k}++)"),
            leaf_body,
        );
        lp.push("return;".into());
        braced(&mut body, format!("if ({hi} - {lo} <= {leaf})"), lp);
        body.push(format!("int {mid} = {lo} + ({hi} - {lo}) / 2;"));
        body.push(format!("spawn {name}({p}, {lo}, {mid}, {});", a1.s));
        body.push(format!("{name}({p}, {mid}, {hi}, {});", a2.s));
        if self.rng.one_in(2) {
            body.push("sync;".into());
        }
        let mut out = vec![format!(
            "void {name}({} *{p}, int {lo}, int {hi}, {} {s})",
            t.c(),
            st.c()
        )];
        out.push("{".into());
        out.extend(indent(body));
        out.push("}".into());
        let cost = MAX_RANGE * per_elem + 2 * MAX_RANGE * (a1.cost + a2.cost + 10);
        self.funcs.push(Func { cost, ..sig });
        out
    }

    /// `R r(T *p, int lo, int hi)`: a fold of `p[lo..hi)`, the left half
    /// spawned into a local that is read only after `sync`. The combining
    /// order is fixed by the recursion, not by scheduling.
    pub(super) fn dsum_function(&mut self) -> Vec<String> {
        let name = self.name("red");
        let t = self.ty();
        let r = self.ty();
        let leaf = self.rng.range(1, 4);
        let (p, lo, hi, k, mid, acc, left, right) = (
            self.name("p"),
            self.name("lo"),
            self.name("hi"),
            self.name("k"),
            self.name("mid"),
            self.name("acc"),
            self.name("left"),
            self.name("right"),
        );
        let fixed = |g: &mut Gen, n: &str| {
            Var::new(
                n.to_string(),
                Shape::Scalar(Ty::Int),
                g.root(),
                Access::Read(Span::All),
                Role::Fixed,
            )
        };
        let mut pv = Var::new(
            p.clone(),
            Shape::Array(Elem::S(t), 1),
            self.root(),
            Access::Read(Span::Sub(k.clone(), 1)),
            Role::Plain,
        );
        pv.is_ptr = true;
        let accv = Var::new(
            acc.clone(),
            Shape::Scalar(r),
            self.root(),
            Access::Write(Span::All),
            Role::Plain,
        );
        let lov = fixed(self, &lo);
        let hiv = fixed(self, &hi);
        let kv = fixed(self, &k);
        let cx = self.base_ctx(vec![vec![accv, lov.clone(), hiv.clone(), kv]]);
        self.expr_budget = 0;
        let elem = E {
            s: format!("{p}[{k}]"),
            ty: t,
            b: STORED,
            cost: 2,
        };
        let elem = self.conv(elem, r);
        let acc_e = E {
            s: acc.clone(),
            ty: r,
            b: STORED,
            cost: 1,
        };
        let step = self.combine(acc_e, elem);
        let extra = self.expr(&cx, r, 1);
        let step = if self.rng.one_in(2) {
            self.combine(step, extra)
        } else {
            step
        };
        let step = self.fit(step);
        let init = self.lit(r);
        let mut body = Vec::new();
        let mut lp = vec![format!("{} {acc} = {};", r.c(), init.s)];
        braced(
            &mut lp,
            format!("for (int {k} = {lo}; {k} < {hi}; {k}++)"),
            vec![format!("{acc} = {};", step.s)],
        );
        lp.push(format!("return {acc};"));
        braced(&mut body, format!("if ({hi} - {lo} <= {leaf})"), lp);
        body.push(format!("int {mid} = {lo} + ({hi} - {lo}) / 2;"));
        body.push(format!("{} {left} = 0;", r.c()));
        body.push(format!("{left} = spawn {name}({p}, {lo}, {mid});"));
        body.push(format!("{} {right} = {name}({p}, {mid}, {hi});", r.c()));
        body.push("sync;".into());
        let le = E {
            s: left,
            ty: r,
            b: STORED,
            cost: 1,
        };
        let re = E {
            s: right,
            ty: r,
            b: STORED,
            cost: 1,
        };
        let both = self.combine(le, re);
        let both = self.fit(both);
        body.push(format!("return {};", both.s));
        let mut out = vec![format!(
            "{} {name}({} *{p}, int {lo}, int {hi})",
            r.c(),
            t.c()
        )];
        out.push("{".into());
        out.extend(indent(body));
        out.push("}".into());
        let cost = MAX_RANGE * (step.cost + 3) + 2 * MAX_RANGE * 12;
        self.funcs.push(Func {
            name,
            params: vec![Param::InRange(t)],
            ret: Some(r),
            cost,
            bump: false,
        });
        out
    }

    /// `a op b` for two values of the same type `t`, as a value of type `t`.
    pub(super) fn combine(&mut self, a: E, b: E) -> E {
        let t = a.ty;
        let cost = a.cost + b.cost + 1;
        if t.is_float() {
            let (op, bound) = match self.rng.below(3) {
                0 => ("+", a.b + b.b),
                1 => ("-", a.b + b.b),
                _ => ("*", a.b * b.b),
            };
            let e = E {
                s: format!("({} {op} {})", a.s, b.s),
                ty: t,
                b: bound,
                cost,
            };
            self.norm(e)
        } else if t == Ty::Bool {
            let op = *self.rng.pick(&["&&", "||", "!="]);
            self.conv(
                E {
                    s: format!("({} {op} {})", a.s, b.s),
                    ty: Ty::Int,
                    b: 0.0,
                    cost,
                },
                t,
            )
        } else {
            let op = *self.rng.pick(&["+", "-", "*", "^", "|"]);
            let s = if op == "*" {
                format!("({} * 31{} + {})", a.s, t.suffix(), b.s)
            } else {
                format!("({} {op} {})", a.s, b.s)
            };
            self.int_result(s, t, cost)
        }
    }

    /// A function that reads and writes globals, called only from `main`.
    pub(super) fn bump_function(&mut self, globals: &[Var]) -> Vec<String> {
        let name = self.name("bump");
        let ret = if self.rng.one_in(2) {
            Some(self.int_ty())
        } else {
            None
        };
        let params: Vec<Param> = (0..self.rng.range(1, 2))
            .map(|_| Param::S(self.ty()))
            .collect();
        let (decls, pvars) = self.param_vars(&params);
        let mut cx = self.base_ctx(vec![globals.to_vec(), pvars]);
        cx.can_return = true;
        cx.ret = ret;
        let n = self.rng.range(1, 4) as usize;
        let (mut body, mut cost) = self.stmts(&mut cx, n, FN_BUDGET);
        if let Some(t) = ret {
            self.expr_budget = FN_BUDGET / 4;
            let e = self.expr(&cx, t, 2);
            cost += e.cost;
            body.push(format!("return {};", e.s));
        }
        let mut out = vec![format!(
            "{} {name}({})",
            ret.map_or("void", Ty::c),
            decls.join(", ")
        )];
        out.push("{".into());
        out.extend(indent(body));
        out.push("}".into());
        self.funcs.push(Func {
            name,
            params,
            ret,
            cost: cost + 5,
            bump: true,
        });
        out
    }

    // ---- main -----------------------------------------------------------

    pub(super) fn main(&mut self, globals: Vec<Var>) -> Vec<String> {
        let mut seed = Var::new(
            "seed".into(),
            Shape::Scalar(Ty::Int),
            self.root(),
            Access::Read(Span::All),
            Role::Fixed,
        );
        seed.range = None;
        let mut cx = self.base_ctx(vec![globals, vec![seed]]);
        cx.globals_free = true;
        // The seed comes from the command line, so no compiler can fold
        // the whole program to constants.
        let mut body = if self.rng.one_in(3) {
            // Sometimes a compile-time constant instead: the optimizers
            // (and gcc's) may then fold most of the program.
            vec![format!("int seed = {};", self.arg)]
        } else {
            vec![
                "int seed = 1;".to_string(),
                "if (argc > 1)".into(),
                "    seed = atoi(argv[1]);".into(),
            ]
        };
        let mut cost = 0;
        for _ in 0..self.rng.range(1, 2) {
            let n = self.name("sc");
            body.push(format!("int {n} = 0;"));
            cx.declare(Var::new(
                n,
                Shape::Scalar(Ty::Int),
                self.root(),
                Access::Write(Span::All),
                Role::Counter,
            ));
        }
        for _ in 0..self.rng.range(2, 5) {
            let (l, c) = self
                .decl_scalar(&mut cx)
                .expect("a declaration always fits");
            body.extend(l);
            cost += c;
        }
        for _ in 0..self.rng.range(1, 3) {
            if let Some((l, c)) = self.decl_array(&mut cx, true) {
                body.extend(l);
                cost += c;
            }
        }
        if !self.structs.is_empty() {
            for _ in 0..self.rng.range(0, 2) {
                if let Some((l, c)) = self.decl_struct(&mut cx) {
                    body.extend(l);
                    cost += c;
                }
            }
        }
        let n = self.rng.range(4, 9) as usize;
        let (lines, _) = self.stmts(&mut cx, n, MAIN_BUDGET.saturating_sub(cost));
        body.extend(lines);
        body.extend(self.epilogue(&cx));
        let mut out = vec!["int main(int argc, char **argv)".to_string(), "{".into()];
        out.extend(indent(body));
        out.push("}".into());
        out
    }

    /// Prints every variable in scope at the end of `main` (globals
    /// included): integers hashed, floating values with `%.17g`, so that
    /// every last bit is compared. The exit status is a hash too.
    pub(super) fn epilogue(&mut self, cx: &Ctx) -> Vec<String> {
        let h = self.name("hash");
        let mut out = vec![String::new(), format!("unsigned long {h} = 0;")];
        let vars: Vec<Var> = cx
            .vars()
            .filter(|v| !v.is_ptr && v.name != "seed")
            .cloned()
            .collect();
        for v in vars {
            let leaves = match v.shape {
                Shape::Scalar(t) => vec![(String::new(), t)],
                Shape::Struct(s) | Shape::Array(Elem::St(s), _) => self.leaves(s, String::new()),
                Shape::Array(Elem::S(t), _) => vec![(String::new(), t)],
            };
            match v.shape {
                Shape::Scalar(_) | Shape::Struct(_) => {
                    for (path, t) in leaves {
                        let lv = format!("{}{path}", v.name);
                        out.push(format!("printf(\"{lv} = {}\\n\", {lv});", t.printf()));
                        if !t.is_float() {
                            out.push(format!("{h} = {h} * 31UL + (unsigned long){lv};"));
                        }
                    }
                }
                Shape::Array(elem, len) => {
                    let k = self.name("k");
                    let t = self.name("t");
                    let mut body = Vec::new();
                    for (path, lt) in &leaves {
                        let lv = format!("{}[{k}]{path}", v.name);
                        if lt.is_float() {
                            body.push(format!(
                                "printf(\"{}[%d]{path} = %.17g\\n\", {k}, {lv});",
                                v.name
                            ));
                        } else {
                            body.push(format!("{t} = {t} * 1000003UL + (unsigned long){lv};"));
                        }
                    }
                    let ints = leaves.iter().any(|(_, t)| !t.is_float());
                    if ints {
                        out.push(format!("unsigned long {t} = 0;"));
                    }
                    braced(
                        &mut out,
                        format!("for (int {k} = 0; {k} < {len}; {k}++)"),
                        body,
                    );
                    if ints {
                        let what = match elem {
                            Elem::S(_) => "",
                            Elem::St(_) => " (integer fields)",
                        };
                        out.push(format!("printf(\"{}{what}: %lu\\n\", {t});", v.name));
                        out.push(format!("{h} = {h} * 31UL + {t};"));
                    }
                }
            }
        }
        out.push(format!("printf(\"hash = %lu\\n\", {h});"));
        out.push(format!("return 10 + (int)({h} % 64UL);"));
        out
    }

    /// The scalar leaves of a struct: (`.a.b[1]`, type).
    pub(super) fn leaves(&self, sid: usize, prefix: String) -> Vec<(String, Ty)> {
        let mut out = Vec::new();
        for (name, f) in &self.structs[sid].fields {
            match *f {
                Field::S(t) => out.push((format!("{prefix}.{name}"), t)),
                Field::Arr(t, n) => {
                    for i in 0..n {
                        out.push((format!("{prefix}.{name}[{i}]"), t));
                    }
                }
                Field::St(s) => out.extend(self.leaves(s, format!("{prefix}.{name}"))),
            }
        }
        out
    }
}
