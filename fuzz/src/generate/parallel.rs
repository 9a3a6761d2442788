//! Parallel statements: `parallel_for` over disjoint slices and `spawn`
//! regions and loops, each strand writing only what it owns.

use super::{
    Access, Ctx, Elem, Func, Gen, Param, Role, Shape, Span, Ty, Var, braced, gcd, guard, indent,
    join_index,
};

impl Gen {
    /// A `parallel_for` over disjoint slices of one to three arrays this
    /// strand may write. With trip count `T` and a writable span of width
    /// `w` (a multiple of `T`), iteration `i` owns elements
    /// `base + i*(w/T) .. base + (i+1)*(w/T)`; a stepped loop
    /// (`i += s`, one width `w` for all arrays) owns `base + i .. base + i + s`.
    pub(super) fn pfor(&mut self, cx: &Ctx, budget: u64) -> Option<(Vec<String>, u64)> {
        let mut cands: Vec<(String, usize, u32, String)> = Vec::new(); // name, root, width, base
        for v in cx.vars() {
            if v.role != Role::Plain {
                continue;
            }
            if let (Shape::Array(_, len), Some(span)) = (v.shape, v.access.writable()) {
                let (w, base) = match span {
                    Span::All => (len, String::new()),
                    Span::Sub(b, w) => (*w, b.clone()),
                };
                if w >= 2 && !cands.iter().any(|c| c.1 == v.root) {
                    cands.push((v.name.clone(), v.root, w, base));
                }
            }
        }
        if cands.is_empty() {
            return None;
        }
        let want = self.rng.range(1, 3.min(cands.len() as i64)) as usize;
        let mut chosen = Vec::new();
        for _ in 0..want {
            let c = cands.remove(self.rng.index(cands.len()));
            let g = chosen
                .iter()
                .fold(c.2, |g, x: &(String, usize, u32, String)| gcd(g, x.2));
            if chosen.is_empty() || g >= 2 {
                chosen.push(c);
            }
        }
        let g = chosen.iter().fold(0, |g, x| gcd(g, x.2));
        let same_width = chosen.iter().all(|c| c.2 == chosen[0].2);
        let i = self.name("i");
        let divisors: Vec<u32> = (2..=g).filter(|d| g % d == 0).collect();
        let stepped = same_width && self.rng.one_in(5);
        let (trips, step) = if stepped {
            let w = chosen[0].2;
            let steps: Vec<u32> = (1..=w / 2).filter(|d| w % d == 0).collect();
            let s = *self.rng.pick(&steps);
            (w / s, s)
        } else {
            (*self.rng.pick(&divisors), 1)
        };
        let per = budget / u64::from(trips);
        if per < 10 {
            return None;
        }
        let lo = if !stepped && trips > 2 && self.rng.one_in(4) {
            self.rng.range(1, 2) as u32
        } else {
            0
        };
        // The bound may be a variable (ParC evaluates it once; the serial
        // projection re-evaluates it, so it must not change: it is Fixed).
        let mut pre = Vec::new();
        let limit = if stepped { chosen[0].2 } else { trips };
        let bound = if self.rng.one_in(3) {
            let n = self.name("n");
            if self.rng.one_in(2) {
                pre.push(format!("int {n} = {limit};"));
            } else {
                // A run-time trip count in 1..=limit: fewer iterations own
                // fewer slices, still disjoint and in bounds.
                let e = self.expr(cx, Ty::Int, 2);
                pre.push(format!("int {n} = {} + 1;", guard(&e.s, limit)));
            }
            n
        } else {
            limit.to_string()
        };
        let head = if stepped {
            let st = if self.rng.one_in(2) {
                let n = self.name("st");
                pre.push(format!("int {n} = {step};"));
                n
            } else {
                step.to_string()
            };
            format!("parallel_for (int {i} = 0; {i} < {bound}; {i} += {st})")
        } else if self.rng.one_in(4) && bound.chars().all(|c| c.is_ascii_digit()) {
            format!("parallel_for (int {i} = {lo}; {i} <= {}; {i}++)", limit - 1)
        } else {
            format!("parallel_for (int {i} = {lo}; {i} < {bound}; {i}++)")
        };
        // The body's view: own slices writable, everything else shared
        // read-only (aliases of a written array: not at all).
        let mut body = cx.clone();
        let own: Vec<(String, usize, String, u32)> = chosen
            .iter()
            .map(|(name, root, w, base)| {
                let k = if stepped { step } else { w / trips };
                let term = if stepped || k == 1 {
                    i.clone()
                } else {
                    format!("{i} * {k}")
                };
                (name.clone(), *root, join_index(base, &term), k)
            })
            .collect();
        for v in body.vars_mut() {
            if let Some((name, _, own_base, k)) = own.iter().find(|o| o.1 == v.root) {
                v.access = if &v.name == name {
                    Access::Write(Span::Sub(own_base.clone(), *k))
                } else {
                    Access::None
                };
            } else if let Access::Write(s) = &v.access {
                v.access = Access::Read(s.clone());
            }
        }
        body.in_loop = false;
        body.can_return = false;
        body.globals_free = false;
        body.pfor_depth += 1;
        body.loop_depth += 1;
        body.depth += 1;
        body.scopes.push(Vec::new());
        let mut iv = Var::new(
            i.clone(),
            Shape::Scalar(Ty::Int),
            self.root(),
            Access::Read(Span::All),
            Role::Fixed,
        );
        iv.range = Some(if stepped {
            (0, i64::from(chosen[0].2) - 1)
        } else {
            (i64::from(lo), i64::from(trips) - 1)
        });
        body.declare(iv);
        let nst = self.rng.range(0, 3) as usize;
        let (mut lines, mut c) = self.stmts(&mut body, nst, per.saturating_sub(10));
        // Every chosen array is written by every iteration.
        for (name, ..) in &own {
            let v = body.vars().find(|v| &v.name == name).cloned();
            if let Some(v) = v {
                self.expr_budget = per / 4;
                let p = self.place_in(&body, &v);
                let e = self.expr(&body, p.ty, 3);
                let e = self.fit(e);
                c += p.cost + e.cost + 1;
                lines.push(format!("{} = {};", p.s, e.s));
            }
        }
        let mut out = Vec::new();
        braced(&mut out, head, lines);
        let total = u64::from(trips) * (c + 5);
        if pre.is_empty() {
            Some((out, total))
        } else {
            pre.extend(out);
            Some((
                vec!["{".into()]
                    .into_iter()
                    .chain(indent(pre))
                    .chain(["}".to_string()])
                    .collect(),
                total,
            ))
        }
    }

    /// `x = spawn f(...)`, `spawn g(...)` (or a loop of spawns over
    /// disjoint chunks), a continuation that keeps off everything the
    /// spawned calls write (and only reads what they read), then `sync`.
    pub(super) fn spawn_region(&mut self, cx: &mut Ctx, budget: u64) -> Option<(Vec<String>, u64)> {
        let mut pre = Vec::new();
        let mut body = Vec::new();
        let mut region = cx.clone();
        let mut cost = 0;
        let mut any = false;
        for _ in 0..self.rng.range(1, 3) {
            if self.rng.one_in(4)
                && let Some((lines, c)) = self.spawn_loop(&mut region, budget.saturating_sub(cost))
            {
                body.extend(lines);
                cost += c;
                any = true;
                continue;
            }
            let mut cands: Vec<Func> = self.funcs[..cx.callable]
                .iter()
                .filter(|f| !f.bump && f.cost + cost <= budget)
                .cloned()
                .collect();
            let recursive =
                cx.rec && self.rec_sites > 0 && cx.loop_depth == 0 && cx.pfor_depth == 0;
            if recursive && let Some(f) = &self.current {
                cands.push(f.clone());
            }
            if cands.is_empty() {
                continue;
            }
            let f = cands[self.rng.index(cands.len())].clone();
            let is_self = self.current.as_ref().is_some_and(|c| c.name == f.name);
            self.expr_budget = 0;
            if is_self {
                // Taken before the arguments, which might recurse too.
                self.rec_sites -= 1;
            }
            let Some(args) = self.call_args(&region, &f, is_self, 2) else {
                continue;
            };
            cost += args.cost + if is_self { 2 } else { f.cost + 2 };
            for &r in &args.outs {
                region.lock(r, true);
            }
            for &r in &args.ins {
                region.lock(r, false);
            }
            let text = args.texts.join(", ");
            match f.ret {
                Some(t) if self.rng.percent(70) => {
                    let x = self.name("x");
                    pre.push(format!("{} {x} = 0;", t.c()));
                    let root = self.root();
                    cx.declare(Var::new(
                        x.clone(),
                        Shape::Scalar(t),
                        root,
                        Access::Write(Span::All),
                        Role::Plain,
                    ));
                    region.declare(Var::new(
                        x.clone(),
                        Shape::Scalar(t),
                        root,
                        Access::None,
                        Role::Plain,
                    ));
                    body.push(format!("{x} = spawn {}({text});", f.name));
                }
                _ => body.push(format!("spawn {}({text});", f.name)),
            }
            any = true;
        }
        if !any {
            return None;
        }
        region.in_loop = false;
        region.can_return = false;
        let n = self.rng.range(0, 3) as usize;
        let (b, c) = self.block(&region, n, budget.saturating_sub(cost));
        body.extend(b);
        body.push("sync;".into());
        cost += c;
        let mut out = pre;
        out.push("{".into());
        out.extend(indent(body));
        out.push("}".into());
        Some((out, cost + 2))
    }

    /// `for (k...) spawn f(a + k*c ...)`: one spawned call per disjoint
    /// chunk of an array this strand may write.
    pub(super) fn spawn_loop(
        &mut self,
        region: &mut Ctx,
        budget: u64,
    ) -> Option<(Vec<String>, u64)> {
        let fs: Vec<Func> = self.funcs[..region.callable]
            .iter()
            .filter(|f| {
                !f.bump
                    && f.params
                        .iter()
                        .filter(|p| matches!(p, Param::Out(..) | Param::OutRange(_)))
                        .count()
                        == 1
            })
            .cloned()
            .collect();
        if fs.is_empty() {
            return None;
        }
        let f = fs[self.rng.index(fs.len())].clone();
        let out_idx = f
            .params
            .iter()
            .position(|p| matches!(p, Param::Out(..) | Param::OutRange(_)))?;
        let (elem, need) = match f.params[out_idx] {
            Param::Out(e, len) => (e, len),
            Param::OutRange(t) => (Elem::S(t), 1),
            _ => return None,
        };
        let cands: Vec<(String, usize, u32, String)> = region
            .vars()
            .filter(|v| v.role == Role::Plain)
            .filter_map(|v| match (v.shape, v.access.writable()) {
                (Shape::Array(e, n), Some(span)) if e == elem => Some(match span {
                    Span::All => (v.name.clone(), v.root, n, String::new()),
                    Span::Sub(b, w) => (v.name.clone(), v.root, *w, b.clone()),
                }),
                _ => None,
            })
            .filter(|c| c.2 >= 2 * need)
            .collect();
        if cands.is_empty() {
            return None;
        }
        let (name, root, w, base) = cands[self.rng.index(cands.len())].clone();
        // Chunks of `chunk >= need` elements, `parts` of them.
        let max_parts = w / need;
        let parts = self.rng.range(2, i64::from(max_parts.min(8))) as u32;
        let chunk = w / parts;
        let k = self.name("k");
        let mut inner = region.clone();
        inner.scopes.push(Vec::new());
        let mut kv = Var::new(
            k.clone(),
            Shape::Scalar(Ty::Int),
            self.root(),
            Access::Read(Span::All),
            Role::Fixed,
        );
        kv.range = Some((0, i64::from(parts) - 1));
        inner.declare(kv);
        // Other array arguments must not be the chunked array.
        inner.lock(root, true);
        self.expr_budget = 0;
        let mut args = self.call_args(
            &inner,
            &Func {
                params: f
                    .params
                    .iter()
                    .map(|p| {
                        if matches!(p, Param::Out(..) | Param::OutRange(_)) {
                            Param::S(Ty::Int)
                        } else {
                            *p
                        }
                    })
                    .collect(),
                ..f.clone()
            },
            false,
            1,
        )?;
        let start = join_index(&base, &format!("{k} * {chunk}"));
        args.texts[out_idx] = match f.params[out_idx] {
            Param::OutRange(_) => format!("{name}, {start}, {start} + {chunk}"),
            _ => format!("&{name}[{start}]"),
        };
        let cost = u64::from(parts) * (f.cost + args.cost + 3);
        if cost > budget {
            return None;
        }
        region.lock(root, true);
        for &r in &args.ins {
            region.lock(r, false);
        }
        let mut out = Vec::new();
        braced(
            &mut out,
            format!("for (int {k} = 0; {k} < {parts}; {k}++)"),
            vec![format!("spawn {}({});", f.name, args.texts.join(", "))],
        );
        Some((out, cost))
    }
}
