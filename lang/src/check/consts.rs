//! Constant folding and constant initializers.
//!
//! Integer and floating operations on constants are folded as the target
//! computes them (two's-complement wrapping, `float` rounding after every
//! operation) by `parc_ir::eval`, the arithmetic the interpreter runs and
//! the optimizer folds with, so the HIR holds `IntConst`/`FloatConst` for
//! every constant expression. Operations whose result C leaves undefined (division by
//! zero, over-wide shifts, out-of-range float-to-integer conversions) are
//! left unfolded for the run time to report. As an extension, `const`
//! integer and floating globals with constant initializers count as
//! constants (for array sizes and other globals' initializers).

use super::expr::{err_expr, mk};
use super::{Checker, is_err};
use crate::ast;
use crate::diag::Diagnostic;
use crate::hir::{
    BinaryOp as HB, CType, ConstInit, Expr, ExprKind, GlobalVarId, Init, IrOp, UnaryOp as HU,
};
use parc_ir::{Type, eval};

/// A constant arithmetic value (integers hold their bits sign- or
/// zero-extended from their type, `unsigned long` as `i64` bits).
#[derive(Clone, Copy, Debug)]
/// The length of an array declarator.
pub(super) enum ArrayLen {
    Const(u64),
    /// Computed at run time into a hidden local (`None` in a prototype):
    /// see `vla`.
    Var(Option<crate::hir::LocalId>),
}

pub(super) enum Cv {
    I(i64),
    F(f64),
}

/// Wraps an integer to the representation of an integer type.
pub(super) fn wrap(t: &CType, v: i64) -> i64 {
    match t {
        CType::Bool => i64::from(v != 0),
        CType::Char => v as i8 as i64,
        CType::UChar => v as u8 as i64,
        CType::Short => v as i16 as i64,
        CType::UShort => v as u16 as i64,
        CType::Int => v as i32 as i64,
        CType::UInt => v as u32 as i64,
        _ => v,
    }
}

fn bits(t: &CType) -> u32 {
    match t {
        CType::Bool | CType::Char | CType::UChar => 8,
        CType::Short | CType::UShort => 16,
        CType::Int | CType::UInt => 32,
        _ => 64,
    }
}

fn round(t: &CType, f: f64) -> f64 {
    if *t == CType::Float {
        f as f32 as f64
    } else {
        f
    }
}

/// Converts a constant from one arithmetic type to another, or `None` where
/// C leaves the result undefined.
fn cast(v: Cv, from: &CType, to: &CType) -> Option<Cv> {
    match (v, to.is_integer()) {
        (Cv::I(i), true) => Some(Cv::I(wrap(to, i))),
        (Cv::F(f), true) => {
            if *to == CType::Bool {
                return Some(Cv::I(i64::from(f != 0.0)));
            }
            let t = f.trunc();
            let (lo, hi) = match to {
                CType::Char => (-128.0, 128.0),
                CType::UChar => (0.0, 256.0),
                CType::Short => (-32768.0, 32768.0),
                CType::UShort => (0.0, 65536.0),
                CType::Int => (-2147483648.0, 2147483648.0),
                CType::UInt => (0.0, 4294967296.0),
                CType::Long => (-(2f64.powi(63)), 2f64.powi(63)),
                _ => (0.0, 2f64.powi(64)),
            };
            if !(t >= lo && t < hi) {
                return None;
            }
            Some(Cv::I(if *to == CType::ULong {
                t as u64 as i64
            } else {
                t as i64
            }))
        }
        (Cv::I(i), false) => {
            let f = if *from == CType::ULong {
                i as u64 as f64
            } else {
                i as f64
            };
            let f = if *to == CType::Float {
                if *from == CType::ULong {
                    i as u64 as f32 as f64
                } else {
                    i as f32 as f64
                }
            } else {
                f
            };
            Some(Cv::F(f))
        }
        (Cv::F(f), false) => Some(Cv::F(round(to, f))),
    }
}

/// The parir integer type that holds the bits of C integer type `t`.
fn ir_int(t: &CType) -> Type {
    match bits(t) {
        8 => Type::I8,
        16 => Type::I16,
        32 => Type::I32,
        _ => Type::I64,
    }
}

/// `a op b` on integers of type `t`, computed by `parc_ir::eval` (the
/// interpreter's and the optimizer's arithmetic), or `None` where C leaves
/// the result undefined: division by zero, a negative or over-wide shift.
fn int_binop(op: HB, t: &CType, a: i64, b: i64) -> Option<i64> {
    let ty = ir_int(t);
    let (x, y) = (eval::canon(a, ty), eval::canon(b, ty));
    if matches!(op, HB::Shl | HB::Shr) && (b < 0 || b >= i64::from(bits(t))) {
        return None;
    }
    match op.ir(false, t.is_unsigned())? {
        IrOp::Icmp(cc) => Some(i64::from(eval::icmp(cc, ty, x, y))),
        IrOp::Binary(ir) => Some(wrap(t, eval::binary(ir, ty, x, y).ok()? as i64)),
        IrOp::Fcmp(_) => None,
    }
}

/// `a op b` on floats of type `t` (`float` arithmetic rounds to `float`),
/// computed by `parc_ir::eval`.
fn float_binop(op: HB, t: &CType, a: f64, b: f64) -> Option<Cv> {
    let ty = if *t == CType::Float {
        Type::F32
    } else {
        Type::F64
    };
    let reg = |f: f64| {
        if ty == Type::F32 {
            u64::from((f as f32).to_bits())
        } else {
            f.to_bits()
        }
    };
    let (x, y) = (reg(a), reg(b));
    match op.ir(true, false)? {
        IrOp::Fcmp(cc) => Some(Cv::I(i64::from(eval::fcmp(cc, ty, x, y)))),
        IrOp::Binary(ir) => Some(Cv::F(eval::float_value(
            ty,
            eval::binary(ir, ty, x, y).ok()?,
        ))),
        IrOp::Icmp(_) => None,
    }
}

fn truthy(v: Cv) -> bool {
    match v {
        Cv::I(i) => i != 0,
        Cv::F(f) => f != 0.0,
    }
}

impl Checker {
    /// The value of a constant arithmetic expression.
    pub(super) fn eval(&self, e: &Expr) -> Option<Cv> {
        if !e.ty.is_arithmetic() {
            return None;
        }
        match &e.kind {
            ExprKind::IntConst(v) => Some(Cv::I(*v)),
            ExprKind::FloatConst(f) => Some(Cv::F(*f)),
            ExprKind::Global(g) => self.const_global(*g),
            ExprKind::Convert(x) => {
                if !x.ty.is_arithmetic() {
                    return None;
                }
                cast(self.eval(x)?, &x.ty, &e.ty)
            }
            ExprKind::Unary(op, x) => {
                let v = self.eval(x)?;
                match (op, v) {
                    (HU::Not, v) => Some(Cv::I(i64::from(!truthy(v)))),
                    (HU::Neg, Cv::I(i)) => Some(Cv::I(wrap(&e.ty, i.wrapping_neg()))),
                    (HU::Neg, Cv::F(f)) => Some(Cv::F(-f)),
                    (HU::BitNot, Cv::I(i)) => Some(Cv::I(wrap(&e.ty, !i))),
                    (HU::BitNot, Cv::F(_)) => None,
                }
            }
            ExprKind::Binary(op, a, b) => {
                let t = &a.ty;
                match (self.eval(a)?, self.eval(b)?) {
                    (Cv::I(x), Cv::I(y)) => int_binop(*op, t, x, y).map(Cv::I),
                    (Cv::F(x), Cv::F(y)) => float_binop(*op, t, x, y),
                    _ => None,
                }
            }
            ExprKind::Logical { is_and, lhs, rhs } => {
                let l = truthy(self.eval(lhs)?);
                if *is_and != l {
                    return Some(Cv::I(i64::from(l)));
                }
                Some(Cv::I(i64::from(truthy(self.eval(rhs)?))))
            }
            ExprKind::Cond(c, a, b) => {
                if truthy(self.eval(c)?) {
                    self.eval(a)
                } else {
                    self.eval(b)
                }
            }
            ExprKind::Elvis(a, b) => match self.eval(a)? {
                Cv::I(i) if i != 0 => Some(Cv::I(i)),
                Cv::F(f) if f != 0.0 => Some(Cv::F(f)),
                _ => self.eval(b),
            },
            _ => None,
        }
    }

    /// The value of a `const` global with a constant initializer (extension).
    fn const_global(&self, g: GlobalVarId) -> Option<Cv> {
        let gv = self.globals.get(g.0 as usize)?;
        if !gv.is_const || !gv.ty.is_arithmetic() {
            return None;
        }
        match &gv.init {
            Some(ConstInit::Int(i)) => Some(Cv::I(*i)),
            Some(ConstInit::Float(f)) => Some(Cv::F(*f)),
            None => Some(if gv.ty.is_integer() {
                Cv::I(0)
            } else {
                Cv::F(0.0)
            }),
            _ => None,
        }
    }

    /// Replaces an arithmetic expression over constant operands with its
    /// value. Operands were folded when they were built, so only the
    /// immediate children are looked at.
    pub(super) fn fold(&self, e: Expr) -> Expr {
        if !e.ty.is_arithmetic() {
            return e;
        }
        let leaf = |x: &Expr| matches!(x.kind, ExprKind::IntConst(_) | ExprKind::FloatConst(_));
        let all_const = match &e.kind {
            ExprKind::Convert(x) | ExprKind::Unary(_, x) => leaf(x),
            ExprKind::Binary(_, a, b) => leaf(a) && leaf(b),
            ExprKind::Logical { lhs, .. } => leaf(lhs),
            ExprKind::Cond(c, ..) => leaf(c),
            _ => false,
        };
        if !all_const {
            return e;
        }
        match self.eval(&e) {
            Some(Cv::I(v)) if e.ty.is_integer() => mk(ExprKind::IntConst(v), e.ty, e.span),
            Some(Cv::F(f)) if e.ty.is_floating() => mk(ExprKind::FloatConst(f), e.ty, e.span),
            _ => e,
        }
    }

    /// The length of an array declarator: a positive integer constant, or
    /// a variable length (see `vla`).
    pub(super) fn array_len(&mut self, e: &ast::Expr, name: &str) -> Option<ArrayLen> {
        let diags_before = self.diags.len();
        let v = self.rvalue(e);
        if is_err(&v.ty) {
            if self.params_unevaluated > 0 {
                // Perhaps an earlier parameter (`double A[n]`), not in
                // scope yet: the definition looks again.
                return self
                    .variable_length(e, v, name, diags_before)
                    .map(ArrayLen::Var);
            }
            return None;
        }
        if !v.ty.is_integer() {
            let t = self.ty_name(&v.ty);
            self.push(
                Diagnostic::error(
                    e.span,
                    format!("the size of array `{name}` has type `{t}`; it must be an integer"),
                )
                .with_label("not an integer"),
            );
            return None;
        }
        let Some(Cv::I(n)) = self.eval(&v) else {
            return self
                .variable_length(e, v, name, diags_before)
                .map(ArrayLen::Var);
        };
        let n = if v.ty == CType::ULong {
            n as u64 as i128
        } else {
            n as i128
        };
        if n <= 0 {
            self.push(
                Diagnostic::error(
                    e.span,
                    format!("array `{name}` must have a positive size, not {n}"),
                )
                .with_label("this size is not positive")
                .with_help("ParC arrays have at least one element"),
            );
            return None;
        }
        Some(ArrayLen::Const(n as u64))
    }

    /// Turns a checked initializer of a global (or `static` local) into a
    /// constant one, reporting parts that are computed at run time.
    pub(super) fn const_init(&mut self, init: &Init, name: &str) -> ConstInit {
        match init {
            Init::List(items) => ConstInit::List(
                items
                    .iter()
                    .map(|(k, i)| (*k, self.const_init(i, name)))
                    .collect(),
            ),
            Init::Expr(e) => match self.const_value(e) {
                Some(c) => c,
                None => {
                    if !is_err(&e.ty) {
                        self.push(
                            Diagnostic::error(
                                e.span,
                                format!(
                                    "the initializer of global \
                                `{name}` is not a constant"
                                ),
                            )
                            .with_label("computed at run time")
                            .with_help(
                                "globals are initialized before `main` runs; assign the \
                                        value at the start of `main` instead",
                            ),
                        );
                    }
                    ConstInit::Int(0)
                }
            },
        }
    }

    fn const_value(&self, e: &Expr) -> Option<ConstInit> {
        if is_err(&e.ty) {
            return Some(ConstInit::Int(0));
        }
        match &e.ty {
            t if t.is_integer() => match self.eval(e)? {
                Cv::I(i) => Some(ConstInit::Int(i)),
                Cv::F(_) => None,
            },
            t if t.is_floating() => match self.eval(e)? {
                Cv::F(f) => Some(ConstInit::Float(f)),
                Cv::I(_) => None,
            },
            CType::Ptr(_) => self.const_ptr(e),
            CType::Dim3 => match &e.kind {
                ExprKind::Dim3(a, b, c) => Some(ConstInit::List(vec![
                    (0, self.const_value(a)?),
                    (1, self.const_value(b)?),
                    (2, self.const_value(c)?),
                ])),
                _ => None,
            },
            _ => None,
        }
    }

    /// An address constant: null, a string literal, a function, or a
    /// global's address plus an offset.
    fn const_ptr(&self, e: &Expr) -> Option<ConstInit> {
        match &e.kind {
            ExprKind::Null => Some(ConstInit::Null),
            ExprKind::Str(i) => Some(ConstInit::Str(*i)),
            ExprKind::FuncAddr(f) => Some(ConstInit::FuncAddr(*f)),
            ExprKind::Convert(x) if x.ty.is_pointer() => self.const_ptr(x),
            ExprKind::Decay(lv) | ExprKind::AddrOf(lv) => {
                let (g, off) = self.const_addr(lv)?;
                Some(ConstInit::GlobalAddr(g, off))
            }
            ExprKind::PtrOffset {
                ptr,
                index,
                elem_size,
            } => {
                let ConstInit::GlobalAddr(g, off) = self.const_ptr(ptr)? else {
                    return None;
                };
                let Cv::I(i) = self.eval(index)? else {
                    return None;
                };
                Some(ConstInit::GlobalAddr(
                    g,
                    off.wrapping_add(i.wrapping_mul(*elem_size as i64)),
                ))
            }
            _ => None,
        }
    }

    fn const_addr(&self, lv: &Expr) -> Option<(GlobalVarId, i64)> {
        match &lv.kind {
            ExprKind::Global(g) if !self.globals.get(g.0 as usize)?.is_shared => Some((*g, 0)),
            ExprKind::Member {
                base,
                offset,
                bits: None,
            } => {
                let (g, o) = self.const_addr(base)?;
                Some((g, o.wrapping_add(*offset as i64)))
            }
            ExprKind::Index {
                base,
                index,
                elem_size,
            } => {
                let ConstInit::GlobalAddr(g, o) = self.const_ptr(base)? else {
                    return None;
                };
                let Cv::I(i) = self.eval(index)? else {
                    return None;
                };
                Some((g, o.wrapping_add(i.wrapping_mul(*elem_size as i64))))
            }
            ExprKind::Deref(p) => match self.const_ptr(p)? {
                ConstInit::GlobalAddr(g, o) => Some((g, o)),
                _ => None,
            },
            _ => None,
        }
    }

    /// The zero value of a scalar type, for `T x = {};`.
    pub(super) fn zero_of(&self, t: &CType, span: crate::ast::Span) -> Expr {
        match t {
            t if t.is_integer() => mk(ExprKind::IntConst(0), t.clone(), span),
            t if t.is_floating() => mk(ExprKind::FloatConst(0.0), t.clone(), span),
            CType::Ptr(_) => mk(ExprKind::Null, t.clone(), span),
            _ => err_expr(span),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_folding_wraps_like_the_target() {
        assert_eq!(
            int_binop(HB::Add, &CType::Int, i32::MAX as i64, 1),
            Some(i32::MIN as i64)
        );
        assert_eq!(
            int_binop(HB::Sub, &CType::UInt, 0, 1),
            Some(u32::MAX as i64)
        );
        assert_eq!(int_binop(HB::Div, &CType::Int, -7, 2), Some(-3));
        assert_eq!(int_binop(HB::Rem, &CType::Int, -7, 2), Some(-1));
        assert_eq!(int_binop(HB::Div, &CType::Int, 1, 0), None);
        assert_eq!(int_binop(HB::Shl, &CType::Int, 1, 32), None);
        assert_eq!(int_binop(HB::Shl, &CType::Long, 1, 40), Some(1 << 40));
        assert_eq!(
            int_binop(HB::Shr, &CType::UInt, u32::MAX as i64, 4),
            Some(0x0FFF_FFFF)
        );
        assert_eq!(int_binop(HB::Shr, &CType::Int, -16, 2), Some(-4));
        assert_eq!(int_binop(HB::Lt, &CType::UInt, u32::MAX as i64, 1), Some(0));
        assert_eq!(int_binop(HB::Lt, &CType::ULong, -1, 1), Some(0));
        assert_eq!(
            int_binop(HB::Div, &CType::Int, i32::MIN as i64, -1),
            Some(i32::MIN as i64)
        );
    }

    #[test]
    fn conversions() {
        assert!(matches!(
            cast(Cv::F(3.99), &CType::Double, &CType::Int),
            Some(Cv::I(3))
        ));
        assert!(matches!(
            cast(Cv::F(-3.99), &CType::Double, &CType::Int),
            Some(Cv::I(-3))
        ));
        assert!(cast(Cv::F(1e20), &CType::Double, &CType::Int).is_none());
        assert!(matches!(
            cast(Cv::I(300), &CType::Int, &CType::Char),
            Some(Cv::I(44))
        ));
        assert!(matches!(
            cast(Cv::I(-1), &CType::Int, &CType::UInt),
            Some(Cv::I(4294967295))
        ));
        assert!(matches!(
            cast(Cv::I(7), &CType::Int, &CType::Bool),
            Some(Cv::I(1))
        ));
        match cast(Cv::F(0.1), &CType::Double, &CType::Float) {
            Some(Cv::F(f)) => assert_eq!(f, 0.1f32 as f64),
            _ => panic!("expected a float"),
        }
    }
}
