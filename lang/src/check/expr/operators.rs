//! Operators: unary and binary arithmetic, increment and decrement,
//! pointer arithmetic and comparison, `?:` and casts.

use super::{err_expr, hir_binop, is_lvalue, is_null_const, mk};
use crate::ast::{self, Span};
use crate::check::types::{compatible, compatible_pointers, promote, usual_arith};
use crate::check::vla::ElemSize;
use crate::check::{Checker, is_err};
use crate::diag::Diagnostic;
use crate::hir::{BinaryOp as HB, CType, Expr, ExprKind, UnaryOp as HU};

fn op_name(op: ast::UnaryOp) -> &'static str {
    match op {
        ast::UnaryOp::Neg => "-",
        ast::UnaryOp::Plus => "+",
        ast::UnaryOp::Not => "!",
        ast::UnaryOp::BitNot => "~",
        ast::UnaryOp::Deref => "*",
        ast::UnaryOp::AddrOf => "&",
        ast::UnaryOp::PreInc | ast::UnaryOp::PostInc => "++",
        ast::UnaryOp::PreDec | ast::UnaryOp::PostDec => "--",
    }
}

impl Checker {
    pub(super) fn unary(&mut self, op: ast::UnaryOp, x: &ast::Expr, span: Span) -> Expr {
        use ast::UnaryOp as U;
        match op {
            U::PreInc | U::PreDec | U::PostInc | U::PostDec => {
                let lv = self.expr(x);
                let is_inc = matches!(op, U::PreInc | U::PostInc);
                let is_prefix = matches!(op, U::PreInc | U::PreDec);
                self.incdec(lv, is_inc, is_prefix, span)
            }
            U::AddrOf => {
                let v = self.expr(x);
                if is_err(&v.ty) {
                    return err_expr(span);
                }
                // `&f` of a function is its address, as `f` alone is.
                if let ExprKind::FuncAddr(_) = v.kind {
                    return Expr { span, ..v };
                }
                if !is_lvalue(&v) {
                    self.push(
                        Diagnostic::error(span, "cannot take the address of an rvalue")
                            .with_label("this value is not stored in a variable")
                            .with_help(
                                "store it in a variable first, then take that variable's address",
                            ),
                    );
                    return err_expr(span);
                }
                if self.refuse_bit_field(
                    &v,
                    "&",
                    "copy the bit-field into a variable and take that variable's address",
                ) {
                    return err_expr(span);
                }
                self.mark_address_taken(&v);
                let ty = v.ty.clone().ptr_to();
                mk(ExprKind::AddrOf(Box::new(v)), ty, span)
            }
            U::Deref => {
                let v = self.rvalue(x);
                match v.ty.clone() {
                    t if is_err(&t) => err_expr(span),
                    CType::Ptr(inner) if *inner == CType::Void => {
                        self.push(
                            Diagnostic::error(
                                span,
                                "cannot dereference a \
                                `void*`",
                            )
                            .with_label("this points to `void`")
                            .with_help(
                                "cast it to a pointer to the stored type first, \
                                    e.g. `*(int*)p`",
                            ),
                        );
                        err_expr(span)
                    }
                    // `*fp` is the function, which decays back to `fp`.
                    CType::Ptr(inner) if matches!(*inner, CType::Func(_)) => Expr { span, ..v },
                    CType::Ptr(inner) => mk(ExprKind::Deref(Box::new(v)), *inner, span),
                    t => {
                        let name = self.ty_name(&t);
                        self.push(
                            Diagnostic::error(
                                span,
                                format!("cannot dereference a value of type `{name}`"),
                            )
                            .with_secondary(
                                x.span,
                                format!("this has type `{name}`, not a pointer type"),
                            ),
                        );
                        err_expr(span)
                    }
                }
            }
            U::Not => {
                let v = self.condition(x);
                if is_err(&v.ty) {
                    return err_expr(span);
                }
                self.fold(mk(ExprKind::Unary(HU::Not, Box::new(v)), CType::Int, span))
            }
            U::Neg | U::Plus | U::BitNot => {
                let v = self.rvalue(x);
                if is_err(&v.ty) {
                    return err_expr(span);
                }
                let ok = if op == U::BitNot {
                    v.ty.is_integer()
                } else {
                    v.ty.is_arithmetic()
                };
                if !ok {
                    let t = self.ty_name(&v.ty);
                    let need = if op == U::BitNot {
                        "an integer"
                    } else {
                        "a number"
                    };
                    self.push(
                        Diagnostic::error(
                            span,
                            format!(
                                "`{}` needs {need} operand, but this has type `{t}`",
                                op_name(op)
                            ),
                        )
                        .with_secondary(x.span, format!("this has type `{t}`")),
                    );
                    return err_expr(span);
                }
                let t = promote(&v.ty);
                let v = self.convert(v, &t);
                if op == U::Plus {
                    return Expr { span, ..v };
                }
                let hop = if op == U::Neg { HU::Neg } else { HU::BitNot };
                self.fold(mk(ExprKind::Unary(hop, Box::new(v)), t, span))
            }
        }
    }

    fn incdec(&mut self, lv: Expr, is_inc: bool, is_prefix: bool, span: Span) -> Expr {
        if is_err(&lv.ty) || !self.check_assignable(&lv, span) {
            return err_expr(span);
        }
        let elem_size = match &lv.ty {
            t if t.is_arithmetic() => 0,
            CType::Ptr(inner) => match self.pointee_size(inner, span) {
                Some(ElemSize { bytes, count: None }) => bytes,
                Some(ElemSize {
                    bytes,
                    count: Some(count),
                }) => return self.vla_incdec(lv, is_inc, is_prefix, bytes, count, span),
                None => return err_expr(span),
            },
            t => {
                let name = self.ty_name(t);
                let op = if is_inc { "++" } else { "--" };
                self.push(
                    Diagnostic::error(
                        span,
                        format!("`{op}` needs a number or a pointer, but this has type `{name}`"),
                    )
                    .with_label(format!("this has type `{name}`")),
                );
                return err_expr(span);
            }
        };
        self.check_race(&lv, span);
        let ty = lv.ty.clone();
        mk(
            ExprKind::IncDec {
                lvalue: Box::new(lv),
                is_inc,
                is_prefix,
                elem_size,
            },
            ty,
            span,
        )
    }

    /// `++p` and `p--` on a pointer to a variable-length array, which
    /// steps by `count` elements of `bytes`: `p += count`, and for the
    /// postfix forms the new value moved back by `count`.
    fn vla_incdec(
        &mut self,
        lv: Expr,
        is_inc: bool,
        is_prefix: bool,
        bytes: u64,
        count: Expr,
        span: Span,
    ) -> Expr {
        self.check_race(&lv, span);
        let ty = lv.ty.clone();
        let op = if is_inc { HB::Add } else { HB::Sub };
        let step = mk(
            ExprKind::CompoundAssign {
                op,
                lhs: Box::new(lv),
                rhs: Box::new(count.clone()),
                op_ty: ty.clone(),
                elem_size: bytes,
            },
            ty.clone(),
            span,
        );
        if is_prefix {
            return step;
        }
        let back = if is_inc {
            mk(ExprKind::Unary(HU::Neg, Box::new(count)), CType::Long, span)
        } else {
            count
        };
        mk(
            ExprKind::PtrOffset {
                ptr: Box::new(step),
                index: Box::new(back),
                elem_size: bytes,
            },
            ty,
            span,
        )
    }

    /// The size of a pointer's target for pointer arithmetic, or an error
    /// for `void*` and pointers to incomplete structs.
    pub(in crate::check) fn pointee_size(&mut self, inner: &CType, span: Span) -> Option<ElemSize> {
        if is_err(inner) {
            return None;
        }
        if *inner == CType::Void {
            self.push(
                Diagnostic::error(span, "arithmetic on a `void*` pointer")
                    .with_label("the size of `void` is unknown")
                    .with_help(
                        "cast it to `char*` to count in bytes, or to a pointer to the stored type",
                    ),
            );
            return None;
        }
        if !self.is_complete(inner) {
            self.require_complete(inner, span, "the pointed-to object");
            return None;
        }
        self.vla_size(inner, span)
    }

    pub(super) fn binary(
        &mut self,
        op: ast::BinaryOp,
        a: &ast::Expr,
        b: &ast::Expr,
        span: Span,
    ) -> Expr {
        use ast::BinaryOp as A;
        if matches!(op, A::And | A::Or) {
            let l = self.condition(a);
            let r = self.condition(b);
            if is_err(&l.ty) || is_err(&r.ty) {
                return err_expr(span);
            }
            let e = mk(
                ExprKind::Logical {
                    is_and: op == A::And,
                    lhs: Box::new(l),
                    rhs: Box::new(r),
                },
                CType::Int,
                span,
            );
            return self.fold(e);
        }
        let l = self.rvalue(a);
        let r = self.rvalue(b);
        if is_err(&l.ty) || is_err(&r.ty) {
            return err_expr(span);
        }
        self.binary_values(op, l, r, span)
    }

    /// A binary operator on checked operands (also used by compound
    /// assignment's validity check).
    fn binary_values(&mut self, op: ast::BinaryOp, l: Expr, r: Expr, span: Span) -> Expr {
        use ast::BinaryOp as A;
        let (lt, rt) = (l.ty.clone(), r.ty.clone());
        let both_arith = lt.is_arithmetic() && rt.is_arithmetic();
        let both_int = lt.is_integer() && rt.is_integer();
        match op {
            A::Add | A::Sub if lt.is_pointer() || rt.is_pointer() => {
                self.pointer_arith(op, l, r, span)
            }
            A::Add | A::Sub | A::Mul | A::Div if both_arith => self.arith(op, l, r, span),
            A::Rem | A::BitAnd | A::BitOr | A::BitXor if both_int => self.arith(op, l, r, span),
            A::Shl | A::Shr if both_int => {
                // Each operand is promoted on its own; the result has the
                // left operand's type. The count is converted to it too so
                // the operands share one type, as the HIR requires.
                let t = promote(&lt);
                let l = self.convert(l, &t);
                let r = self.convert(r, &t);
                self.fold(mk(
                    ExprKind::Binary(hir_binop(op), Box::new(l), Box::new(r)),
                    t,
                    span,
                ))
            }
            A::Lt | A::Le | A::Gt | A::Ge | A::Eq | A::Ne => self.compare(op, l, r, span),
            _ => {
                let (ln, rn) = (self.ty_name(&lt), self.ty_name(&rt));
                let mut d = Diagnostic::error(
                    span,
                    format!("invalid operands to `{}`: `{ln}` and `{rn}`", op.symbol()),
                )
                .with_secondary(l.span, format!("`{ln}`"))
                .with_secondary(r.span, format!("`{rn}`"));
                if op == A::Rem && both_arith {
                    d = d.with_help(
                        "`%` needs integers; for floating values compute `a - b * floor(a / b)`",
                    );
                } else if matches!(op, A::Shl | A::Shr | A::BitAnd | A::BitOr | A::BitXor)
                    && both_arith
                {
                    d = d.with_help(format!(
                        "`{}` needs integer operands; cast them with `(long)`",
                        op.symbol()
                    ));
                }
                self.push(d);
                err_expr(span)
            }
        }
    }

    /// Arithmetic in the usual arithmetic conversion of both operands.
    pub(super) fn arith(&mut self, op: ast::BinaryOp, l: Expr, r: Expr, span: Span) -> Expr {
        let t = usual_arith(&l.ty, &r.ty);
        let l = self.convert(l, &t);
        let r = self.convert(r, &t);
        self.fold(mk(
            ExprKind::Binary(hir_binop(op), Box::new(l), Box::new(r)),
            t,
            span,
        ))
    }

    fn pointer_arith(&mut self, op: ast::BinaryOp, l: Expr, r: Expr, span: Span) -> Expr {
        use ast::BinaryOp as A;
        let (lt, rt) = (l.ty.clone(), r.ty.clone());
        match (op, lt.is_pointer(), rt.is_pointer()) {
            (A::Add, true, true) => {
                self.push(
                    Diagnostic::error(span, "cannot add two pointers")
                        .with_secondary(l.span, format!("`{}`", self.ty_name(&lt)))
                        .with_secondary(r.span, format!("`{}`", self.ty_name(&rt)))
                        .with_help(
                            "subtract them for the distance in elements (`p - q`), \
                            or add an integer offset",
                        ),
                );
                err_expr(span)
            }
            (A::Sub, true, true) => {
                // Equal pointee types, up to variable lengths.
                if !compatible_pointers(&lt, &rt) || !compatible(&lt, &rt) {
                    let (ln, rn) = (self.ty_name(&lt), self.ty_name(&rt));
                    self.push(
                        Diagnostic::error(
                            span,
                            format!(
                                "cannot subtract pointers of different types `{ln}` and `{rn}`"
                            ),
                        )
                        .with_label("the pointers point to different types")
                        .with_help("both pointers must point into the same array"),
                    );
                    return err_expr(span);
                }
                let Some(size) = lt
                    .pointee()
                    .cloned()
                    .and_then(|p| self.pointee_size(&p, span))
                else {
                    return err_expr(span);
                };
                let diff = mk(
                    ExprKind::PtrDiff {
                        a: Box::new(l),
                        b: Box::new(r),
                        elem_size: size.bytes,
                    },
                    CType::Long,
                    span,
                );
                match size.count {
                    None => diff,
                    Some(count) => mk(
                        ExprKind::Binary(HB::Div, Box::new(diff), Box::new(count)),
                        CType::Long,
                        span,
                    ),
                }
            }
            (_, true, false) if rt.is_integer() => self.ptr_offset(l, r, op == A::Sub, span),
            (A::Add, false, true) if lt.is_integer() => self.ptr_offset(r, l, false, span),
            (A::Sub, false, true) => {
                self.push(
                    Diagnostic::error(span, "cannot subtract a pointer from an integer")
                        .with_label("integer minus pointer")
                        .with_help("write `p - n` to move a pointer back by `n` elements"),
                );
                err_expr(span)
            }
            _ => {
                let (ln, rn) = (self.ty_name(&lt), self.ty_name(&rt));
                self.push(
                    Diagnostic::error(
                        span,
                        format!("invalid operands to `{}`: `{ln}` and `{rn}`", op.symbol()),
                    )
                    .with_label("a pointer and a non-integer")
                    .with_help("a pointer can only be offset by an integer"),
                );
                err_expr(span)
            }
        }
    }

    /// `ptr ± index` in elements.
    fn ptr_offset(&mut self, ptr: Expr, index: Expr, negate: bool, span: Span) -> Expr {
        let Some(size) = ptr
            .ty
            .pointee()
            .cloned()
            .and_then(|p| self.pointee_size(&p, span))
        else {
            return err_expr(span);
        };
        let mut index = self.convert(index, &CType::Long);
        if negate {
            let s = index.span;
            index = self.fold(mk(
                ExprKind::Unary(HU::Neg, Box::new(index)),
                CType::Long,
                s,
            ));
        }
        let ty = ptr.ty.clone();
        mk(
            ExprKind::PtrOffset {
                ptr: Box::new(ptr),
                index: Box::new(size.scale(index)),
                elem_size: size.bytes,
            },
            ty,
            span,
        )
    }

    pub(super) fn compare(&mut self, op: ast::BinaryOp, l: Expr, r: Expr, span: Span) -> Expr {
        let (lt, rt) = (l.ty.clone(), r.ty.clone());
        let (l, r) = if lt.is_arithmetic() && rt.is_arithmetic() {
            let t = usual_arith(&lt, &rt);
            (self.convert(l, &t), self.convert(r, &t))
        } else if lt.is_pointer() && (compatible_pointers(&lt, &rt) || is_null_const(&r)) {
            let r = self.convert(r, &lt);
            (l, r)
        } else if rt.is_pointer() && is_null_const(&l) {
            let l = self.convert(l, &rt);
            (l, r)
        } else {
            let (ln, rn) = (self.ty_name(&lt), self.ty_name(&rt));
            let mut d = Diagnostic::error(span, format!("cannot compare `{ln}` with `{rn}`"))
                .with_secondary(l.span, format!("`{ln}`"))
                .with_secondary(r.span, format!("`{rn}`"));
            d = if lt.is_pointer() && rt.is_pointer() {
                d.with_help(
                    "the pointers point to different types; cast one of them if this is intended",
                )
            } else if lt.is_pointer() || rt.is_pointer() {
                d.with_help(
                    "a pointer can be compared with another pointer or with `NULL`; \
                    add a cast if this is intended",
                )
            } else {
                d.with_help("only numbers and pointers can be compared")
            };
            self.push(d);
            return err_expr(span);
        };
        self.fold(mk(
            ExprKind::Binary(hir_binop(op), Box::new(l), Box::new(r)),
            CType::Int,
            span,
        ))
    }

    pub(super) fn conditional(
        &mut self,
        c: &ast::Expr,
        a: &ast::Expr,
        b: &ast::Expr,
        span: Span,
    ) -> Expr {
        let c = self.condition(c);
        let a = self.rvalue(a);
        let b = self.rvalue(b);
        if is_err(&c.ty) {
            return err_expr(span);
        }
        match self.branches(a, b, span) {
            Some((a, b, ty)) => self.fold(mk(
                ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
                ty,
                span,
            )),
            None => err_expr(span),
        }
    }

    /// GNU C's `a ?: b`: `a` is the condition and, converted to the type
    /// the two branches have (which never loses whether it is zero: the
    /// usual arithmetic conversions only widen), the value when nonzero.
    pub(super) fn elvis(&mut self, a: &ast::Expr, b: &ast::Expr, span: Span) -> Expr {
        let at = a.span;
        let a = self.rvalue(a);
        if !is_err(&a.ty) && !a.ty.is_scalar() {
            let t = self.ty_name(&a.ty);
            self.push(
                Diagnostic::error(
                    at,
                    format!(
                        "the condition of `?:` has type `{t}`, which is not a number or pointer"
                    ),
                )
                .with_label("not a scalar"),
            );
            return err_expr(span);
        }
        let b = self.rvalue(b);
        match self.branches(a, b, span) {
            Some((a, b, ty)) => mk(ExprKind::Elvis(Box::new(a), Box::new(b)), ty, span),
            None => err_expr(span),
        }
    }

    /// The common type of the branches of `?:`, and both converted to it;
    /// `None` after an error.
    fn branches(&mut self, a: Expr, b: Expr, span: Span) -> Option<(Expr, Expr, CType)> {
        if is_err(&a.ty) || is_err(&b.ty) {
            return None;
        }
        let (at, bt) = (a.ty.clone(), b.ty.clone());
        let ty = if at.is_arithmetic() && bt.is_arithmetic() {
            Some(usual_arith(&at, &bt))
        } else if at == bt || (at.is_pointer() && is_null_const(&b)) {
            Some(at.clone())
        } else if bt.is_pointer() && is_null_const(&a) {
            Some(bt.clone())
        } else if at.is_pointer() && bt.is_pointer() && compatible_pointers(&at, &bt) {
            Some(CType::Void.ptr_to())
        } else {
            None
        };
        let Some(ty) = ty else {
            let (an, bn) = (self.ty_name(&at), self.ty_name(&bt));
            self.push(
                Diagnostic::error(
                    span,
                    format!("the branches of `?:` have incompatible types `{an}` and `{bn}`"),
                )
                .with_secondary(a.span, format!("`{an}`"))
                .with_secondary(b.span, format!("`{bn}`"))
                .with_help("convert one branch with a cast so that both have the same type"),
            );
            return None;
        };
        let a = self.convert(a, &ty);
        let b = self.convert(b, &ty);
        Some((a, b, ty))
    }

    pub(super) fn cast(&mut self, tn: &ast::TypeName, x: &ast::Expr, span: Span) -> Expr {
        let to = self.resolve_type(tn);
        let v = self.rvalue(x);
        if is_err(&to) || is_err(&v.ty) {
            return err_expr(span);
        }
        let from = v.ty.clone();
        if to == CType::Void {
            // `(void)e`: evaluate and discard.
            return mk(ExprKind::Convert(Box::new(v)), CType::Void, span);
        }
        let ok = to.is_scalar()
            && from.is_scalar()
            && !(to.is_pointer() && from.is_floating())
            && !(to.is_floating() && from.is_pointer());
        if !ok {
            let (tn2, fname) = (self.ty_name(&to), self.ty_name(&from));
            let mut d = Diagnostic::error(span, format!("cannot cast `{fname}` to `{tn2}`"))
                .with_label("invalid cast");
            d = if !to.is_scalar() {
                d.with_help(
                    "only numbers and pointers can be cast; structs are copied by assignment",
                )
            } else if from == CType::Void {
                d.with_help("this expression has no value (`void`)")
            } else if !from.is_scalar() {
                d.with_help("only numbers and pointers can be cast; cast a field instead")
            } else {
                d.with_help("pointers convert only to and from integers and other pointers")
            };
            self.push(d);
            return err_expr(span);
        }
        let e = self.convert(v, &to);
        Expr { span, ..e }
    }
}
