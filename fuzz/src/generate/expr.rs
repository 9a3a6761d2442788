//! Expressions: literals, conversions kept in range, integer, boolean and
//! floating expressions with their magnitude bounds, conditions.

use super::{Ctx, E, EXPR, Gen, Role, STORED, Ty, flit};

impl Gen {
    pub(super) fn lit(&mut self, ty: Ty) -> E {
        let r = &mut self.rng;
        let (s, b) = match ty {
            Ty::Bool => (
                (if r.one_in(2) { "true" } else { "false" }).to_string(),
                0.0,
            ),
            Ty::Char => {
                let v = r.range(-128, 127);
                if (v as u8).is_ascii_alphanumeric() && v >= 0 && r.one_in(2) {
                    (format!("((char)'{}')", v as u8 as char), 0.0)
                } else {
                    (format!("((char){v})"), 0.0)
                }
            }
            Ty::Int => {
                let v: i64 = match r.weighted(&[60, 20, 20]) {
                    0 => r.range(-20, 100),
                    1 => r.range(-100_000, 100_000),
                    _ => *r.pick(&[
                        0,
                        1,
                        -1,
                        2_147_483_647,
                        -2_147_483_648,
                        65_535,
                        255,
                        1 << 30,
                    ]),
                };
                let s = if v == -2_147_483_648 {
                    "(-2147483647 - 1)".to_string()
                } else if v < 0 {
                    format!("({v})")
                } else if v > 9 && r.one_in(5) {
                    format!("0x{v:X}")
                } else {
                    v.to_string()
                };
                (s, 0.0)
            }
            Ty::UInt => {
                let v: u64 = match r.weighted(&[60, 20, 20]) {
                    0 => r.range(0, 100) as u64,
                    1 => r.below(1 << 32),
                    _ => *r.pick(&[0, 1, 0xFFFF_FFFF, 0x8000_0000, 0x7FFF_FFFF]),
                };
                if r.one_in(4) {
                    (format!("0x{v:X}U"), 0.0)
                } else {
                    (format!("{v}U"), 0.0)
                }
            }
            Ty::Long => {
                let v: i64 = match r.weighted(&[60, 20, 20]) {
                    0 => r.range(-20, 100),
                    1 => r.next_u64() as i64,
                    _ => *r.pick(&[0, -1, i64::MAX, i64::MIN, 1 << 32, -(1 << 31)]),
                };
                let s = if v == i64::MIN {
                    "(-9223372036854775807L - 1)".to_string()
                } else if v < 0 {
                    format!("({v}L)")
                } else {
                    format!("{v}L")
                };
                (s, 0.0)
            }
            Ty::ULong => {
                let v: u64 = match r.weighted(&[60, 20, 20]) {
                    0 => r.range(0, 100) as u64,
                    1 => r.next_u64(),
                    _ => *r.pick(&[0, u64::MAX, 1 << 63, 0xFFFF_FFFF]),
                };
                (format!("{v}UL"), 0.0)
            }
            Ty::Double => {
                let v = match r.weighted(&[60, 25, 15]) {
                    0 => r.range(-6400, 6400) as f64 / 64.0,
                    1 => *r.pick(&[0.1, 0.3, 1e-3, 2.5e3, 3.25, -0.7, 1e5, -0.0, 0.2]),
                    _ => r.range(-1_000_000, 1_000_000) as f64 / 7.0,
                };
                (flit(v, Ty::Double), v.abs())
            }
            Ty::Float => {
                // Only values exact in binary32: a decimal constant with an
                // `f` suffix must be rounded once, directly to float, and
                // that is a front-end detail not worth a false alarm.
                let v = r.range(-1600, 1600) as f64 / 16.0;
                (flit(v, Ty::Float), v.abs())
            }
        };
        E { s, ty, b, cost: 0 }
    }

    /// Converts to `to`, C's way, never with undefined behaviour: floating
    /// values go to integers through `long` after clamping to ±1e15, and
    /// huge integers are scaled before they reach the floating bound.
    pub(super) fn conv(&mut self, e: E, to: Ty) -> E {
        if e.ty == to {
            return e;
        }
        let cost = e.cost + 1;
        if to == Ty::Bool {
            return E {
                s: format!("((bool)({}))", e.s),
                ty: to,
                b: 1.0,
                cost,
            };
        }
        if e.ty.is_float() && !to.is_float() {
            let x = if e.b > 1e15 { self.clamp(e, 1e15) } else { e };
            let s = if to == Ty::Long {
                format!("((long)({}))", x.s)
            } else {
                format!("(({})(long)({}))", to.c(), x.s)
            };
            return E {
                s,
                ty: to,
                b: 0.0,
                cost,
            };
        }
        if !e.ty.is_float() && to.is_float() {
            let b = e.ty.bound();
            let s = format!("(({})({}))", to.c(), e.s);
            if b > EXPR {
                return E {
                    s: format!("({s} * {})", flit(1e-9, to)),
                    ty: to,
                    b: b * 1e-9,
                    cost,
                };
            }
            return E { s, ty: to, b, cost };
        }
        E {
            s: format!("(({})({}))", to.c(), e.s),
            ty: to,
            b: e.b,
            cost,
        }
    }

    pub(super) fn clamp(&mut self, e: E, limit: f64) -> E {
        let f = e.ty.fsuffix();
        let l = if e.ty == Ty::Float {
            format!("{limit:e}f")
        } else {
            format!("{limit:e}")
        };
        E {
            s: format!("fmin{f}(fmax{f}({}, -{l}), {l})", e.s),
            ty: e.ty,
            b: e.b.min(limit),
            cost: e.cost + 2,
        }
    }

    /// Keeps a floating expression within [`EXPR`].
    pub(super) fn norm(&mut self, e: E) -> E {
        if e.ty.is_float() && e.b > EXPR {
            self.clamp(e, STORED)
        } else {
            e
        }
    }

    /// Makes a value fit to be stored (within [`STORED`]).
    pub(super) fn fit(&mut self, e: E) -> E {
        if e.ty.is_float() && e.b > STORED {
            self.clamp(e, STORED)
        } else {
            e
        }
    }

    /// Text of type `promoted(t)` as a value of type `t`.
    pub(super) fn int_result(&mut self, s: String, t: Ty, cost: u64) -> E {
        if t.promoted() != t {
            E {
                s: format!("(({})({s}))", t.c()),
                ty: t,
                b: 0.0,
                cost,
            }
        } else {
            E {
                s,
                ty: t,
                b: 0.0,
                cost,
            }
        }
    }

    pub(super) fn expr(&mut self, cx: &Ctx, ty: Ty, depth: u32) -> E {
        if depth == 0 || self.rng.one_in(4) {
            return self.leaf(cx, ty);
        }
        match ty {
            Ty::Bool => self.bool_expr(cx, depth),
            Ty::Float | Ty::Double => self.float_expr(cx, ty, depth),
            _ => self.int_expr(cx, ty, depth),
        }
    }

    pub(super) fn leaf(&mut self, cx: &Ctx, ty: Ty) -> E {
        let ptrs: Vec<(String, String)> = cx
            .vars()
            .filter_map(|v| v.ptr_of.as_ref().map(|(b, _)| (v.name.clone(), b.clone())))
            .collect();
        match self
            .rng
            .weighted(&[8, 20, if ptrs.is_empty() { 0 } else { 2 }, 1])
        {
            1 => match self.scalar_place(cx, false) {
                Some(p) => {
                    let b = if p.ty.is_float() { STORED } else { 0.0 };
                    let e = E {
                        s: p.s,
                        ty: p.ty,
                        b,
                        cost: p.cost,
                    };
                    self.conv(e, ty)
                }
                None => self.lit(ty),
            },
            2 => {
                let (p, base) = self.rng.pick(&ptrs).clone();
                let e = E {
                    s: format!("({p} - {base})"),
                    ty: Ty::Long,
                    b: 0.0,
                    cost: 1,
                };
                self.conv(e, ty)
            }
            3 => {
                // `sizeof` is `long` in ParC but `size_t` in C: only its
                // value is used, through a cast, so both agree.
                let what = match self.rng.below(3) {
                    0 if !self.structs.is_empty() => {
                        let s = self.rng.index(self.structs.len());
                        format!("struct {}", self.structs[s].name)
                    }
                    _ => self.ty().c().to_string(),
                };
                let e = E {
                    s: format!("((long)sizeof({what}))"),
                    ty: Ty::Long,
                    b: 0.0,
                    cost: 0,
                };
                self.conv(e, ty)
            }
            _ => self.lit(ty),
        }
    }

    pub(super) fn int_expr(&mut self, cx: &Ctx, t: Ty, depth: u32) -> E {
        let d = depth - 1;
        match self.rng.weighted(&[30, 8, 8, 6, 6, 12, 6, 6, 2]) {
            0 => {
                let op = *self.rng.pick(&["+", "-", "*", "&", "|", "^"]);
                let a = self.expr(cx, t, d);
                let b = self.expr(cx, t, d);
                self.int_result(format!("({} {op} {})", a.s, b.s), t, a.cost + b.cost + 1)
            }
            1 => {
                // Division and remainder: never by zero, and never
                // MIN / -1 (a trap on x86 whatever -fwrapv says).
                let op = if self.rng.one_in(2) { "/" } else { "%" };
                let a = self.expr(cx, t, d);
                let (div, c) = self.divisor(cx, t, d);
                self.int_result(format!("({} {op} {div})", a.s), t, a.cost + c + 2)
            }
            2 => {
                // Shift amounts within the promoted left operand's width.
                let op = if self.rng.one_in(2) { "<<" } else { ">>" };
                let a = self.expr(cx, t, d);
                let at = self.int_ty();
                let b = self.expr(cx, at, d);
                let m = if t.is_wide() { 63 } else { 31 };
                self.int_result(
                    format!("({} {op} (({}) & {m}))", a.s, b.s),
                    t,
                    a.cost + b.cost + 2,
                )
            }
            3 => {
                let op = if self.rng.one_in(2) { "-" } else { "~" };
                let a = self.expr(cx, t, d);
                self.int_result(format!("({op}{})", a.s), t, a.cost + 1)
            }
            4 => {
                let c = self.cond(cx, d.min(2));
                let a = self.expr(cx, t, d);
                let b = self.expr(cx, t, d);
                self.int_result(
                    format!("({} ? {} : {})", c.s, a.s, b.s),
                    t,
                    c.cost + a.cost.max(b.cost) + 1,
                )
            }
            5 => {
                let mut other = self.ty();
                if other == t {
                    other = Ty::Double;
                }
                let e = self.expr(cx, other, d);
                self.conv(e, t)
            }
            6 => {
                let c = self.cond(cx, d.min(2));
                self.conv(c, t)
            }
            7 => match self.call_expr(cx, d) {
                Some(e) => self.conv(e, t),
                None => self.leaf(cx, t),
            },
            _ => {
                // abs(INT_MIN) is undefined: take it of a remainder.
                let wide = t.is_wide();
                let at = if wide { Ty::Long } else { Ty::Int };
                let a = self.expr(cx, at, d);
                let s = if wide {
                    format!("labs(({}) % 1000L)", a.s)
                } else {
                    format!("abs(({}) % 1000)", a.s)
                };
                let e = E {
                    s,
                    ty: at,
                    b: 0.0,
                    cost: a.cost + 2,
                };
                self.conv(e, t)
            }
        }
    }

    /// A divisor of type `t` that is never 0 and never -1.
    pub(super) fn divisor(&mut self, cx: &Ctx, t: Ty, d: u32) -> (String, u64) {
        if self.rng.one_in(2) {
            let b = self.expr(cx, t, d);
            let s = if t.is_signed() {
                format!("((({}) & 15) + 1)", b.s)
            } else {
                format!("(({}) | 1{})", b.s, t.suffix())
            };
            (s, b.cost + 2)
        } else if t.is_signed() {
            let v = *self.rng.pick(&[2i64, 3, 5, 7, 10, 16, -3, -7, 100]);
            let sfx = if t == Ty::Long { "L" } else { "" };
            (
                if v < 0 {
                    format!("({v}{sfx})")
                } else {
                    format!("{v}{sfx}")
                },
                0,
            )
        } else {
            let v = *self.rng.pick(&[2u64, 3, 5, 7, 10, 16, 1000]);
            (format!("{v}{}", t.suffix()), 0)
        }
    }

    pub(super) fn bool_expr(&mut self, cx: &Ctx, depth: u32) -> E {
        match self.rng.weighted(&[55, 20, 10, 5]) {
            0 | 1 => {
                let c = self.cond(cx, depth.min(2));
                self.conv(c, Ty::Bool)
            }
            2 => {
                let t = self.ty();
                let e = self.expr(cx, t, depth - 1);
                self.conv(e, Ty::Bool)
            }
            _ => {
                let c = self.cond(cx, 1);
                let a = self.expr(cx, Ty::Bool, depth - 1);
                let b = self.expr(cx, Ty::Bool, depth - 1);
                let e = E {
                    s: format!("({} ? {} : {})", c.s, a.s, b.s),
                    ty: Ty::Int,
                    b: 0.0,
                    cost: c.cost + a.cost + b.cost,
                };
                self.conv(e, Ty::Bool)
            }
        }
    }

    pub(super) fn float_expr(&mut self, cx: &Ctx, t: Ty, depth: u32) -> E {
        let d = depth - 1;
        let f = t.fsuffix();
        let c = |v: f64| flit(v, t);
        let e = match self.rng.weighted(&[30, 8, 4, 15, 5, 4, 5, 15, 5]) {
            0 => {
                let a = self.expr(cx, t, d);
                let b = self.expr(cx, t, d);
                let (op, bound) = match self.rng.below(3) {
                    0 => ("+", a.b + b.b),
                    1 => ("-", a.b + b.b),
                    _ => ("*", a.b * b.b),
                };
                E {
                    s: format!("({} {op} {})", a.s, b.s),
                    ty: t,
                    b: bound,
                    cost: a.cost + b.cost + 1,
                }
            }
            1 => {
                let a = self.expr(cx, t, d);
                if self.rng.one_in(2) {
                    // The divisor is at least 1: no infinity, no NaN.
                    let b = self.expr(cx, t, d);
                    E {
                        s: format!("({} / (fabs{f}({}) + {}))", a.s, b.s, c(1.0)),
                        ty: t,
                        b: a.b,
                        cost: a.cost + b.cost + 3,
                    }
                } else {
                    let v = *self.rng.pick(&[2.0, -4.0, 0.5, 3.0, 10.0, 0.25]);
                    E {
                        s: format!("({} / {})", a.s, c(v)),
                        ty: t,
                        b: a.b / f64::abs(v),
                        cost: a.cost + 1,
                    }
                }
            }
            2 => {
                let a = self.expr(cx, t, d);
                E {
                    s: format!("(-{})", a.s),
                    ty: t,
                    b: a.b,
                    cost: a.cost + 1,
                }
            }
            3 => {
                // Every math function on a domain where it is finite.
                let a = self.expr(cx, t, d);
                let (s, b) = match self.rng.below(10) {
                    0 => (format!("sqrt{f}(fabs{f}({}))", a.s), a.b.sqrt() + 1.0),
                    1 => (
                        format!(
                            "exp{f}(fmin{f}(fmax{f}({}, {}), {}))",
                            a.s,
                            c(-20.0),
                            c(20.0)
                        ),
                        4.9e8,
                    ),
                    2 => (
                        format!("log{f}({} + fabs{f}({}))", c(1.0), a.s),
                        a.b.ln_1p() + 1.0,
                    ),
                    3 => (format!("sin{f}({})", a.s), 1.0),
                    4 => (format!("cos{f}({})", a.s), 1.0),
                    5 => (format!("tan{f}(sin{f}({}))", a.s), 2.0),
                    6 => (format!("tanh{f}({})", a.s), 1.0),
                    7 => (format!("fabs{f}({})", a.s), a.b),
                    8 => (format!("floor{f}({})", a.s), a.b + 1.0),
                    _ => (format!("ceil{f}({})", a.s), a.b + 1.0),
                };
                E {
                    s,
                    ty: t,
                    b,
                    cost: a.cost + 20,
                }
            }
            4 => {
                // `+ 0.0` turns the -0.0 that fmin/fmax may pick in either
                // order from a tie of zeros into +0.0.
                let a = self.expr(cx, t, d);
                let b = self.expr(cx, t, d);
                let name = if self.rng.one_in(2) { "fmin" } else { "fmax" };
                E {
                    s: format!("({name}{f}({}, {}) + {})", a.s, b.s, c(0.0)),
                    ty: t,
                    b: a.b.max(b.b),
                    cost: a.cost + b.cost + 3,
                }
            }
            5 => {
                let a = self.expr(cx, t, d);
                if self.rng.one_in(2) {
                    let b = self.expr(cx, t, d);
                    E {
                        s: format!(
                            "pow{f}(fmin{f}(fabs{f}({}), {}), fmin{f}(fabs{f}({}), {}))",
                            a.s,
                            c(10.0),
                            b.s,
                            c(3.0)
                        ),
                        ty: t,
                        b: 1000.0,
                        cost: a.cost + b.cost + 25,
                    }
                } else {
                    let a = if a.b > 1e4 { self.clamp(a, 1e4) } else { a };
                    let k = if self.rng.one_in(2) { 2 } else { 3 };
                    E {
                        s: format!("pow{f}({}, {})", a.s, c(f64::from(k))),
                        ty: t,
                        b: a.b.powi(k),
                        cost: a.cost + 20,
                    }
                }
            }
            6 => {
                let cd = self.cond(cx, d.min(2));
                let a = self.expr(cx, t, d);
                let b = self.expr(cx, t, d);
                E {
                    s: format!("({} ? {} : {})", cd.s, a.s, b.s),
                    ty: t,
                    b: a.b.max(b.b),
                    cost: cd.cost + a.cost.max(b.cost) + 1,
                }
            }
            7 => {
                let mut other = self.ty();
                if other == t {
                    other = Ty::Int;
                }
                let e = self.expr(cx, other, d);
                self.conv(e, t)
            }
            _ => match self.call_expr(cx, d) {
                Some(e) => self.conv(e, t),
                None => self.leaf(cx, t),
            },
        };
        self.norm(e)
    }

    /// A truth value (C type `int`, or any scalar used as a condition).
    pub(super) fn cond(&mut self, cx: &Ctx, depth: u32) -> E {
        let k = if depth == 0 {
            0
        } else {
            self.rng.weighted(&[55, 15, 10, 5])
        };
        match k {
            0 => {
                let t = self.ty();
                let a = self.expr(cx, t, depth.min(2));
                let b = self.expr(cx, t, depth.min(2));
                let op = *self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
                E {
                    s: format!("({} {op} {})", a.s, b.s),
                    ty: Ty::Int,
                    b: 0.0,
                    cost: a.cost + b.cost + 1,
                }
            }
            1 => {
                let a = self.cond(cx, depth - 1);
                let b = self.cond(cx, depth - 1);
                let op = if self.rng.one_in(2) { "&&" } else { "||" };
                E {
                    s: format!("({} {op} {})", a.s, b.s),
                    ty: Ty::Int,
                    b: 0.0,
                    cost: a.cost + b.cost + 1,
                }
            }
            2 => {
                let t = self.int_ty();
                let a = self.expr(cx, t, depth - 1);
                let m = *self.rng.pick(&[1, 3, 7]);
                E {
                    s: format!("(({}) & {m})", a.s),
                    ty: t.promoted(),
                    b: 0.0,
                    cost: a.cost + 1,
                }
            }
            _ => {
                let a = self.cond(cx, depth - 1);
                E {
                    s: format!("(!{})", a.s),
                    ty: Ty::Int,
                    b: 0.0,
                    cost: a.cost + 1,
                }
            }
        }
    }

    /// A condition whose right operand of `&&`/`||` bumps a counter: the
    /// short circuit decides whether the side effect happens.
    pub(super) fn side_cond(&mut self, cx: &Ctx) -> Option<E> {
        let counters: Vec<String> = cx
            .vars()
            .filter(|v| v.role == Role::Counter && v.access.writable().is_some())
            .map(|v| v.name.clone())
            .collect();
        if counters.is_empty() {
            return None;
        }
        let c = self.rng.pick(&counters).clone();
        let base = self.cond(cx, 1);
        let k = self.rng.range(0, 5);
        let se = match self.rng.below(4) {
            0 => format!("(++{c} > {k})"),
            1 => format!("({c}++ % 3 == 0)"),
            2 => format!("(({c} += {k}) > {})", k * 3),
            _ => format!("(--{c} < {k})"),
        };
        let op = if self.rng.one_in(2) { "&&" } else { "||" };
        Some(E {
            s: format!("({} {op} {se})", base.s),
            ty: Ty::Int,
            b: 0.0,
            cost: base.cost + 2,
        })
    }
}
