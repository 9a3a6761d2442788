//! Places an expression reads or a statement writes: scalars, struct
//! fields and array elements with in-range indices.

use super::{Ctx, E, Elem, Field, Gen, Place, Role, Shape, Span, Ty, Var, guard, join_index};

impl Gen {
    pub(super) fn scalar_place(&mut self, cx: &Ctx, write: bool) -> Option<Place> {
        let cands: Vec<&Var> = cx
            .vars()
            .filter(|v| {
                if write {
                    v.access.writable().is_some() && v.role == Role::Plain
                } else {
                    v.access.readable().is_some() && v.role != Role::Counter
                }
            })
            .collect();
        if cands.is_empty() {
            return None;
        }
        let v = cands[self.rng.index(cands.len())].clone();
        Some(self.place_in(cx, &v))
    }

    /// A scalar lvalue inside variable `v`, within its accessible span.
    pub(super) fn place_in(&mut self, cx: &Ctx, v: &Var) -> Place {
        let span = v.access.readable().cloned().unwrap_or(Span::All);
        match v.shape {
            Shape::Scalar(t) => Place {
                s: v.name.clone(),
                ty: t,
                cost: 1,
            },
            Shape::Struct(s) => {
                let p = self.field_path(cx, s, format!("{}.", v.name));
                Place {
                    cost: p.cost + 1,
                    ..p
                }
            }
            Shape::Array(elem, len) => {
                let (idx, c) = self.index(cx, &span, len);
                let ptr_form = v.is_ptr && self.rng.one_in(3);
                match elem {
                    Elem::S(t) => {
                        let s = if !ptr_form {
                            format!("{}[{idx}]", v.name)
                        } else if idx == "0" {
                            format!("(*{})", v.name)
                        } else {
                            format!("(*({} + {idx}))", v.name)
                        };
                        Place {
                            s,
                            ty: t,
                            cost: c + 2,
                        }
                    }
                    Elem::St(s) => {
                        let prefix = if !ptr_form {
                            format!("{}[{idx}].", v.name)
                        } else if idx == "0" {
                            format!("{}->", v.name)
                        } else {
                            format!("({} + {idx})->", v.name)
                        };
                        let p = self.field_path(cx, s, prefix);
                        Place {
                            cost: p.cost + c + 2,
                            ..p
                        }
                    }
                }
            }
        }
    }

    pub(super) fn field_path(&mut self, cx: &Ctx, sid: usize, prefix: String) -> Place {
        let fields = &self.structs[sid].fields;
        let (name, f) = fields[self.rng.index(fields.len())].clone();
        match f {
            Field::S(t) => Place {
                s: format!("{prefix}{name}"),
                ty: t,
                cost: 1,
            },
            Field::Arr(t, n) => {
                let (idx, c) = self.index(cx, &Span::All, n);
                Place {
                    s: format!("{prefix}{name}[{idx}]"),
                    ty: t,
                    cost: c + 1,
                }
            }
            Field::St(s) => self.field_path(cx, s, format!("{prefix}{name}.")),
        }
    }

    /// An expression for an index. Indices nest (`a[b[c[...]]]`): past
    /// two levels only literals, so that generation terminates.
    pub(super) fn index_expr(&mut self, cx: &Ctx, t: Ty) -> E {
        if self.index_nesting >= 2 {
            return self.lit(t);
        }
        self.index_nesting += 1;
        let e = self.expr(cx, t, 1);
        self.index_nesting -= 1;
        e
    }

    /// An index into `span` of an array of `len` elements, always in bounds.
    pub(super) fn index(&mut self, cx: &Ctx, span: &Span, len: u32) -> (String, u64) {
        match span {
            Span::All => {
                let loops: Vec<String> = cx
                    .vars()
                    .filter(|v| {
                        matches!(v.shape, Shape::Scalar(t) if !t.is_float())
                            && v.access.readable().is_some()
                            && v.range
                                .is_some_and(|(lo, hi)| lo >= 0 && hi < i64::from(len))
                    })
                    .map(|v| v.name.clone())
                    .collect();
                match self
                    .rng
                    .weighted(&[3, if loops.is_empty() { 0 } else { 5 }, 4])
                {
                    0 => (self.rng.below(u64::from(len)).to_string(), 0),
                    1 => (self.rng.pick(&loops).clone(), 1),
                    _ => {
                        let t = self.int_ty();
                        let e = self.index_expr(cx, t);
                        (guard(&e.s, len), e.cost + 1)
                    }
                }
            }
            Span::Sub(base, w) => {
                let off = if *w == 1 {
                    "0".to_string()
                } else if self.rng.one_in(2) {
                    self.rng.below(u64::from(*w)).to_string()
                } else {
                    let t = self.int_ty();
                    let e = self.index_expr(cx, t);
                    guard(&e.s, *w)
                };
                (join_index(base, &off), 2)
            }
        }
    }

    /// Paths (`""`, `.a`, `.a.b`) from a struct of type `from` to one of
    /// type `to` nested in it.
    pub(super) fn struct_paths(&self, from: usize, to: usize) -> Vec<String> {
        let mut out = Vec::new();
        if from == to {
            out.push(String::new());
        }
        for (name, f) in &self.structs[from].fields {
            if let Field::St(s) = *f {
                for p in self.struct_paths(s, to) {
                    out.push(format!(".{name}{p}"));
                }
            }
        }
        out
    }

    /// A struct-valued lvalue of type `sid`.
    pub(super) fn struct_place(
        &mut self,
        cx: &Ctx,
        sid: usize,
        write: bool,
    ) -> Option<(String, u64)> {
        let cands: Vec<(Var, Vec<String>)> = cx
            .vars()
            .filter(|v| {
                if write {
                    v.access.writable().is_some() && v.role == Role::Plain
                } else {
                    v.access.readable().is_some()
                }
            })
            .filter_map(|v| match v.shape {
                Shape::Struct(s) | Shape::Array(Elem::St(s), _) => {
                    let paths = self.struct_paths(s, sid);
                    (!paths.is_empty()).then(|| (v.clone(), paths))
                }
                _ => None,
            })
            .collect();
        if cands.is_empty() {
            return None;
        }
        let (v, paths) = cands[self.rng.index(cands.len())].clone();
        let path = self.rng.pick(&paths).clone();
        match v.shape {
            Shape::Array(_, len) => {
                let span = v.access.readable().cloned().unwrap_or(Span::All);
                let (idx, c) = self.index(cx, &span, len);
                Some((format!("{}[{idx}]{path}", v.name), c + 2))
            }
            _ => Some((format!("{}{path}", v.name), 1)),
        }
    }
}
