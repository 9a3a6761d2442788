//! Assignment: what may be assigned (lvalues, `const`), compound
//! assignment, and the conversions to a declared type at assignments,
//! initializers, arguments and returns.

use super::{ConvCtx, err_expr, hir_binop, int_const, is_lvalue, is_null_const, mk, object_root};
use crate::ast::{self, Span};
use crate::check::types::{AssignProblem, assign_problem, promote, usual_arith};
use crate::check::{Checker, Sym, is_err};
use crate::diag::Diagnostic;
use crate::hir::{CType, Expr, ExprKind};

impl Checker {
    /// Reports why an lvalue cannot be assigned, if it cannot.
    pub(in crate::check) fn check_assignable(&mut self, lv: &Expr, span: Span) -> bool {
        if is_err(&lv.ty) {
            return false;
        }
        if !is_lvalue(lv) {
            let mut d = Diagnostic::error(span, "expression is not assignable").with_secondary(
                lv.span,
                "this is a value, not a variable or memory location",
            );
            if matches!(lv.kind, ExprKind::Gpu(..)) {
                d = d.with_help("`threadIdx`, `blockIdx`, `blockDim` and `gridDim` are read-only");
            }
            self.push(d);
            return false;
        }
        if let CType::Array(..) | CType::VarArray(..) = lv.ty {
            let t = self.ty_name(&lv.ty);
            self.push(
                Diagnostic::error(span, format!("an array (`{t}`) is not assignable"))
                    .with_label("an array")
                    .with_help("assign its elements one by one, or copy it with `memcpy`"),
            );
            return false;
        }
        let root = object_root(lv);
        let (is_const, name, decl) = match root {
            Some(Sym::Local(l)) => match self.fx.as_ref() {
                Some(fx) => (
                    fx.local_info.get(l.0 as usize).is_some_and(|i| i.is_const),
                    fx.locals
                        .get(l.0 as usize)
                        .map(|l| l.name.clone())
                        .unwrap_or_default(),
                    fx.locals
                        .get(l.0 as usize)
                        .map(|l| l.span)
                        .unwrap_or_default(),
                ),
                None => (false, String::new(), span),
            },
            Some(Sym::Global(g)) => match self.globals.get(g.0 as usize) {
                Some(gv) => (gv.is_const, gv.name.clone(), gv.span),
                None => (false, String::new(), span),
            },
            _ => (false, String::new(), span),
        };
        // Writes through pointers are not checked: ParC checks `const` on
        // variables only (see `ast::TypeName::is_const`).
        if is_const {
            self.push(
                Diagnostic::error(
                    span,
                    format!("cannot assign to `{name}`: it is declared `const`"),
                )
                .with_label("assignment to a `const` variable")
                .with_secondary(decl, "declared `const` here")
                .with_help("remove `const` from its declaration, or assign to another variable"),
            );
            return false;
        }
        true
    }

    pub(super) fn assign(
        &mut self,
        op: Option<ast::BinaryOp>,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
    ) -> Expr {
        let l = self.expr(lhs);
        let r = self.rvalue(rhs);
        if is_err(&l.ty) || is_err(&r.ty) {
            return err_expr(span);
        }
        if !self.check_assignable(&l, span) {
            return err_expr(span);
        }
        let Some(op) = op else {
            let ty = l.ty.clone();
            let r = self.assign_conv(r, &ty, ConvCtx::Assign);
            if is_err(&r.ty) {
                return err_expr(span);
            }
            self.check_race(&l, span);
            return mk(
                ExprKind::Assign {
                    lhs: Box::new(l),
                    rhs: Box::new(r),
                },
                ty,
                span,
            );
        };
        let (lt, rt) = (l.ty.clone(), r.ty.clone());
        use ast::BinaryOp as A;
        let (op_ty, rhs, elem_size) =
            if lt.is_pointer() && matches!(op, A::Add | A::Sub) && rt.is_integer() {
                let Some(size) = lt
                    .pointee()
                    .cloned()
                    .and_then(|p| self.pointee_size(&p, span))
                else {
                    return err_expr(span);
                };
                let r = self.convert(r, &CType::Long);
                (lt.clone(), size.scale(r), size.bytes)
            } else {
                let ok = match op {
                    A::Add | A::Sub | A::Mul | A::Div => lt.is_arithmetic() && rt.is_arithmetic(),
                    A::Rem | A::Shl | A::Shr | A::BitAnd | A::BitOr | A::BitXor => {
                        lt.is_integer() && rt.is_integer()
                    }
                    _ => false,
                };
                if !ok {
                    let (ln, rn) = (self.ty_name(&lt), self.ty_name(&rt));
                    self.push(
                        Diagnostic::error(
                            span,
                            format!("invalid operands to `{}=`: `{ln}` and `{rn}`", op.symbol()),
                        )
                        .with_secondary(l.span, format!("`{ln}`"))
                        .with_secondary(r.span, format!("`{rn}`")),
                    );
                    return err_expr(span);
                }
                let op_ty = if matches!(op, A::Shl | A::Shr) {
                    promote(&lt)
                } else {
                    usual_arith(&lt, &rt)
                };
                let r = self.convert(r, &op_ty);
                (op_ty, r, 0)
            };
        self.check_race(&l, span);
        mk(
            ExprKind::CompoundAssign {
                op: hir_binop(op),
                lhs: Box::new(l),
                rhs: Box::new(rhs),
                op_ty,
                elem_size,
            },
            lt,
            span,
        )
    }

    /// Converts argument `index` (1-based) of the builtin `func`, whose
    /// parameter has no name, as a call does.
    pub(in crate::check) fn builtin_arg(
        &mut self,
        e: Expr,
        to: &CType,
        func: &str,
        index: usize,
    ) -> Expr {
        self.assign_conv(
            e,
            to,
            ConvCtx::Arg {
                func,
                index,
                param: None,
            },
        )
    }

    /// Converts for assignment, initialization, argument passing or return,
    /// enforcing C's simple-assignment constraints (ParC makes the
    /// integer↔pointer case an error).
    pub(in crate::check) fn assign_conv(&mut self, e: Expr, to: &CType, ctx: ConvCtx<'_>) -> Expr {
        if is_err(&e.ty) || is_err(to) {
            return err_expr(e.span);
        }
        let Some(problem) = assign_problem(to, &e.ty, is_null_const(&e)) else {
            return self.convert(e, to);
        };
        let (tn, fname) = (self.ty_name(to), self.ty_name(&e.ty));
        let mut d = match &ctx {
            ConvCtx::Assign => Diagnostic::error(
                e.span,
                format!("cannot assign a value of type `{fname}` to an object of type `{tn}`"),
            ),
            ConvCtx::Init(name) => Diagnostic::error(
                e.span,
                format!("cannot initialize `{name}` of type `{tn}` with a value of type `{fname}`"),
            ),
            ConvCtx::Arg { func, index, param } => {
                let d = Diagnostic::error(
                    e.span,
                    format!(
                        "argument {index} of `{func}` has type `{fname}`, but the parameter \
                            has type `{tn}`"
                    ),
                );
                match param {
                    Some(p) => d.with_secondary(*p, "parameter declared here"),
                    None => d,
                }
            }
            ConvCtx::Return(func) => Diagnostic::error(
                e.span,
                format!("`{func}` returns `{tn}`, but this value has type `{fname}`"),
            ),
        };
        d = d.with_label(format!("this has type `{fname}`"));
        d = match problem {
            AssignProblem::IntPtr => {
                d.with_help(format!("add a cast if this is intended: `({tn})`"))
            }
            AssignProblem::PtrMismatch => d.with_help(format!(
                "the pointers point to different types; add a cast `({tn})` if this is intended"
            )),
            AssignProblem::Incompatible if e.ty == CType::Void => {
                d.with_help("this expression has no value (`void`)")
            }
            AssignProblem::Incompatible => d,
        };
        self.push(d);
        err_expr(e.span)
    }

    /// An explicit conversion the caller has already validated (or that C
    /// performs implicitly). Folds constants, turns null pointer constants
    /// into `Null` and integers into `dim3(n, 1, 1)`.
    pub(in crate::check) fn convert(&mut self, e: Expr, to: &CType) -> Expr {
        if e.ty == *to || is_err(&e.ty) || is_err(to) {
            return e;
        }
        let span = e.span;
        if to.is_pointer() && is_null_const(&e) {
            return mk(ExprKind::Null, to.clone(), span);
        }
        if *to == CType::Dim3 && e.ty.is_integer() {
            let x = self.convert(e, &CType::UInt);
            let one = || int_const(1, CType::UInt, span);
            return mk(
                ExprKind::Dim3(Box::new(x), Box::new(one()), Box::new(one())),
                CType::Dim3,
                span,
            );
        }
        self.fold(mk(ExprKind::Convert(Box::new(e)), to.clone(), span))
    }
}
