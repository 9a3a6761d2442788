//! Calls: pure calls inside expressions, call statements, and their
//! arguments (the arrays a callee writes or reads, and their ranges).

use super::{
    Access, Args, Ctx, E, Elem, Field, Func, Gen, Param, Role, STORED, Shape, Span, Ty, Var,
    join_index,
};

impl Gen {
    /// A call of a pure function with a result, as an expression.
    pub(super) fn call_expr(&mut self, cx: &Ctx, depth: u32) -> Option<E> {
        let budget = self.expr_budget;
        let mut cands: Vec<Func> = self.funcs[..cx.callable]
            .iter()
            .filter(|f| f.is_pure() && f.ret.is_some() && f.cost + 5 <= budget)
            .cloned()
            .collect();
        let recursive = cx.rec && self.rec_sites > 0 && cx.loop_depth == 0 && cx.pfor_depth == 0;
        if recursive && let Some(f) = &self.current {
            cands.push(f.clone());
        }
        if cands.is_empty() {
            return None;
        }
        let f = cands[self.rng.index(cands.len())].clone();
        let is_self = self.current.as_ref().is_some_and(|c| c.name == f.name);
        if is_self {
            // Taken before the arguments, which might recurse too.
            self.rec_sites -= 1;
        }
        let (args, c) = self.call_args(cx, &f, is_self, depth)?.into_text();
        let ret = f.ret.unwrap_or(Ty::Int);
        let b = if ret.is_float() { STORED } else { 0.0 };
        Some(E {
            s: format!("{}({args})", f.name),
            ty: ret,
            b,
            cost: c + if is_self { 2 } else { f.cost + 2 },
        })
    }

    /// Arguments for a call of `f`: every array argument within what this
    /// strand may touch, no written array passed twice or also as an input
    /// (so a callee's writes never alias its other arguments).
    pub(super) fn call_args(
        &mut self,
        cx: &Ctx,
        f: &Func,
        is_self: bool,
        depth: u32,
    ) -> Option<Args> {
        let mut texts: Vec<Option<String>> = vec![None; f.params.len()];
        let mut outs = Vec::new();
        let mut ins = Vec::new();
        let mut cost = 0;
        // Written arrays first: they exclude their roots from the others.
        for (i, p) in f.params.iter().enumerate() {
            match *p {
                Param::Out(elem, len) => {
                    let (t, root) = self.array_arg(cx, elem, len, true, &outs)?;
                    outs.push(root);
                    texts[i] = Some(t);
                }
                Param::OutRange(t) => {
                    let (s, root) = self.range_arg(cx, t, true, &outs)?;
                    outs.push(root);
                    texts[i] = Some(s);
                }
                _ => {}
            }
        }
        for (i, p) in f.params.iter().enumerate() {
            match *p {
                Param::Depth => {
                    texts[i] = Some(if is_self {
                        format!("{} - 1", self.depth_name)
                    } else if self.rng.one_in(2) {
                        self.rng.range(0, 3).to_string()
                    } else {
                        let e = self.expr(cx, Ty::Int, 1);
                        cost += e.cost;
                        format!("({}) & 3", e.s)
                    });
                }
                Param::S(t) => {
                    let e = self.expr(cx, t, depth.min(2));
                    let e = self.fit(e);
                    cost += e.cost;
                    texts[i] = Some(e.s);
                }
                Param::SVal(s) => {
                    let (t, c) = self.struct_place(cx, s, false)?;
                    cost += c;
                    texts[i] = Some(t);
                }
                Param::In(elem, len) => {
                    let (t, root) = self.array_arg(cx, elem, len, false, &outs)?;
                    ins.push(root);
                    texts[i] = Some(t);
                }
                Param::InRange(t) => {
                    let (s, root) = self.range_arg(cx, t, false, &outs)?;
                    ins.push(root);
                    texts[i] = Some(s);
                }
                Param::Out(..) | Param::OutRange(_) => {}
            }
        }
        Some(Args {
            texts: texts.into_iter().map(|t| t.unwrap_or_default()).collect(),
            outs,
            ins,
            cost,
        })
    }

    /// Arrays (or struct fields that are arrays) with `len` accessible
    /// elements of type `elem`, as a pointer argument, and their root.
    pub(super) fn array_arg(
        &mut self,
        cx: &Ctx,
        elem: Elem,
        len: u32,
        write: bool,
        exclude: &[usize],
    ) -> Option<(String, usize)> {
        let mut cands: Vec<(String, u32, String, usize)> = Vec::new(); // (name, width, base, root)
        for v in cx.vars() {
            if exclude.contains(&v.root) {
                continue;
            }
            let span = if write {
                v.access.writable()
            } else {
                v.access.readable()
            };
            let Some(span) = span else { continue };
            // Const tables are never passed as (non-const) pointers.
            if v.role != Role::Plain {
                continue;
            }
            match v.shape {
                Shape::Array(e, n) if e == elem => {
                    let (w, base) = match span {
                        Span::All => (n, String::new()),
                        Span::Sub(b, w) => (*w, b.clone()),
                    };
                    if w >= len {
                        cands.push((v.name.clone(), w, base, v.root));
                    }
                }
                Shape::Struct(s) if *span == Span::All => {
                    for (fname, f) in &self.structs[s].fields {
                        if let Field::Arr(t, n) = *f
                            && Elem::S(t) == elem
                            && n >= len
                        {
                            cands.push((format!("{}.{fname}", v.name), n, String::new(), v.root));
                        }
                    }
                }
                _ => {}
            }
        }
        if cands.is_empty() {
            return None;
        }
        let (name, w, base, root) = cands[self.rng.index(cands.len())].clone();
        let off = self.rng.below(u64::from(w - len + 1)).to_string();
        let idx = join_index(&base, &off);
        let text = if idx == "0" || idx.is_empty() {
            name
        } else if self.rng.one_in(2) {
            format!("&{name}[{idx}]")
        } else {
            format!("{name} + {idx}")
        };
        Some((text, root))
    }

    /// `a, lo, hi` for a range parameter.
    pub(super) fn range_arg(
        &mut self,
        cx: &Ctx,
        t: Ty,
        write: bool,
        exclude: &[usize],
    ) -> Option<(String, usize)> {
        let cands: Vec<(String, u32, String, usize)> = cx
            .vars()
            .filter(|v| !exclude.contains(&v.root) && v.role == Role::Plain)
            .filter_map(|v| {
                let span = if write {
                    v.access.writable()
                } else {
                    v.access.readable()
                }?;
                match v.shape {
                    Shape::Array(Elem::S(e), n) if e == t => Some(match span {
                        Span::All => (v.name.clone(), n, String::new(), v.root),
                        Span::Sub(b, w) => (v.name.clone(), *w, b.clone(), v.root),
                    }),
                    _ => None,
                }
            })
            .collect();
        if cands.is_empty() {
            return None;
        }
        let (name, w, base, root) = cands[self.rng.index(cands.len())].clone();
        let (lo, hi) = if self.rng.percent(60) {
            (0, w)
        } else {
            let lo = self.rng.below(u64::from(w) + 1) as u32;
            (lo, lo + self.rng.below(u64::from(w - lo) + 1) as u32)
        };
        let lo_s = join_index(&base, &lo.to_string());
        let hi_s = join_index(&base, &hi.to_string());
        let lo_s = if lo_s.is_empty() { "0".into() } else { lo_s };
        Some((format!("{name}, {lo_s}, {hi_s}"), root))
    }

    pub(super) fn call_stmt(&mut self, cx: &mut Ctx) -> Option<(Vec<String>, u64)> {
        let budget = self.expr_budget * 2;
        let cands: Vec<Func> = self.funcs[..cx.callable]
            .iter()
            .filter(|f| (!f.bump || cx.globals_free) && f.cost <= budget)
            .cloned()
            .collect();
        if cands.is_empty() {
            return None;
        }
        let f = cands[self.rng.index(cands.len())].clone();
        self.expr_budget = 0;
        let args = self.call_args(cx, &f, false, 2)?;
        let call = format!("{}({})", f.name, args.texts.join(", "));
        let cost = f.cost + args.cost + 2;
        // A result goes to a fresh local: no other lvalue could be touched
        // by the call itself.
        match f.ret {
            Some(t) if self.rng.percent(70) => {
                let x = self.name("r");
                let root = self.root();
                cx.declare(Var::new(
                    x.clone(),
                    Shape::Scalar(t),
                    root,
                    Access::Write(Span::All),
                    Role::Plain,
                ));
                Some((vec![format!("{} {x} = {call};", t.c())], cost))
            }
            _ => Some((vec![format!("{call};")], cost)),
        }
    }
}
