//! Expressions: names, operators, lvalues and `const`, pointer arithmetic,
//! decay, casts, `sizeof`, GPU indices, and the determinacy-race rule for
//! assignments inside `parallel_for`.

use super::types::{
    AssignProblem, assign_problem, compatible, compatible_pointers, promote, usual_arith,
};
use super::vla::ElemSize;
use super::{Checker, Sym, err_ty, is_err};
use crate::ast::{self, Span};
use crate::diag::Diagnostic;
use crate::hir::{BinaryOp as HB, CType, Expr, ExprKind, GpuIndex, UnaryOp as HU};

/// Where a value is converted to a declared type, for messages.
pub(super) enum ConvCtx<'a> {
    Assign,
    Init(&'a str),
    /// Argument `index` (1-based) of function `func`; `param` points at the
    /// parameter's declaration when there is one.
    Arg {
        func: &'a str,
        index: usize,
        param: Option<Span>,
    },
    Return(&'a str),
}

pub(super) fn mk(kind: ExprKind, ty: CType, span: Span) -> Expr {
    Expr { kind, ty, span }
}

/// An expression of the error type (after a reported error).
pub(super) fn err_expr(span: Span) -> Expr {
    mk(ExprKind::IntConst(0), err_ty(), span)
}

pub(super) fn int_const(v: i64, ty: CType, span: Span) -> Expr {
    mk(ExprKind::IntConst(v), ty, span)
}

/// `Local`, `Global`, `Deref`, `Index`, a compound literal, and `Member`
/// of an lvalue.
pub(super) fn is_lvalue(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Local(_)
        | ExprKind::Global(_)
        | ExprKind::Deref(_)
        | ExprKind::Index { .. }
        | ExprKind::CompoundLit { .. } => true,
        ExprKind::Member { base, .. } => is_lvalue(base),
        _ => false,
    }
}

/// A null pointer constant (C99 6.3.2.3): `NULL` or an integer constant 0.
pub(super) fn is_null_const(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Null => true,
        ExprKind::IntConst(0) => e.ty.is_integer(),
        _ => false,
    }
}

/// The span of the `parallel_for` keyword that starts a loop.
pub(super) fn keyword(loop_span: Span) -> Span {
    let len = "parallel_for".len().min(loop_span.range().len());
    Span::new(loop_span.start as usize, loop_span.start as usize + len)
}

/// The variable an lvalue names, through `.` only: `s.a.b` is `s`, while
/// `a[i]` and `*p` name no variable (they reach memory through a pointer).
fn lvalue_root(e: &Expr) -> Option<Sym> {
    match &e.kind {
        ExprKind::Local(l) => Some(Sym::Local(*l)),
        ExprKind::Global(g) => Some(Sym::Global(*g)),
        ExprKind::Member { base, .. } => lvalue_root(base),
        _ => None,
    }
}

/// Like [`lvalue_root`] but also through the elements of array objects,
/// for `const` (`const int a[3]; a[0] = 1;`) and address-taken marking.
fn object_root(e: &Expr) -> Option<Sym> {
    match &e.kind {
        ExprKind::Local(l) => Some(Sym::Local(*l)),
        ExprKind::Global(g) => Some(Sym::Global(*g)),
        ExprKind::Member { base, .. } | ExprKind::Decay(base) => object_root(base),
        ExprKind::Index { base, .. } if matches!(base.kind, ExprKind::Decay(_)) => {
            object_root(base)
        }
        _ => None,
    }
}

fn gpu_index(name: &str) -> Option<GpuIndex> {
    match name {
        "threadIdx" => Some(GpuIndex::ThreadIdx),
        "blockIdx" => Some(GpuIndex::BlockIdx),
        "blockDim" => Some(GpuIndex::BlockDim),
        "gridDim" => Some(GpuIndex::GridDim),
        _ => None,
    }
}

pub(super) const ENZYME_MARKERS: [&str; 4] = [
    "enzyme_const",
    "enzyme_dup",
    "enzyme_dupnoneed",
    "enzyme_out",
];
pub(super) const MEMCPY_KINDS: [&str; 3] = [
    "cudaMemcpyHostToDevice",
    "cudaMemcpyDeviceToHost",
    "cudaMemcpyDeviceToDevice",
];

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

fn hir_binop(op: ast::BinaryOp) -> HB {
    use ast::BinaryOp as A;
    match op {
        A::Add => HB::Add,
        A::Sub => HB::Sub,
        A::Mul => HB::Mul,
        A::Div => HB::Div,
        A::Rem => HB::Rem,
        A::Shl => HB::Shl,
        A::Shr => HB::Shr,
        A::BitAnd => HB::BitAnd,
        A::BitOr => HB::BitOr,
        A::BitXor => HB::BitXor,
        A::Lt => HB::Lt,
        A::Le => HB::Le,
        A::Gt => HB::Gt,
        A::Ge => HB::Ge,
        A::Eq => HB::Eq,
        // `&&`/`||` never reach here (they become `Logical`).
        A::Ne | A::And | A::Or => HB::Ne,
    }
}

impl Checker {
    /// An expression as an object: arrays are not decayed (for `sizeof`,
    /// `&`, assignment targets and `char` array initializers).
    pub(super) fn expr(&mut self, e: &ast::Expr) -> Expr {
        let span = e.span;
        match &e.kind {
            ast::ExprKind::Error => err_expr(span),
            ast::ExprKind::IntLit {
                value,
                suffix,
                decimal,
            } => self.int_lit(*value, *suffix, *decimal, span),
            ast::ExprKind::FloatLit { value, is_float } => {
                if *is_float {
                    mk(
                        ExprKind::FloatConst(*value as f32 as f64),
                        CType::Float,
                        span,
                    )
                } else {
                    mk(ExprKind::FloatConst(*value), CType::Double, span)
                }
            }
            // Character constants are `int` in C; `char` is signed.
            ast::ExprKind::CharLit(c) => int_const(*c as i8 as i64, CType::Int, span),
            ast::ExprKind::StrLit(bytes) => {
                let i = self.intern_string(bytes);
                mk(ExprKind::Str(i), CType::Char.ptr_to(), span)
            }
            // `true`/`false` are the `int` constants 1 and 0 of <stdbool.h>.
            ast::ExprKind::BoolLit(b) => int_const(i64::from(*b), CType::Int, span),
            ast::ExprKind::Null => mk(ExprKind::Null, CType::Void.ptr_to(), span),
            // C99's `__func__`: the enclosing function's name (as a
            // string, not an array: `sizeof(__func__)` is a pointer's).
            ast::ExprKind::Ident(name)
                if name == "__func__" && self.fx.is_some() && self.lookup(name).is_none() =>
            {
                let func = self.fx.as_ref().map(|f| f.name.clone()).unwrap_or_default();
                let i = self.intern_string(func.as_bytes());
                mk(ExprKind::Str(i), CType::Char.ptr_to(), span)
            }
            ast::ExprKind::Ident(name) => self.ident(name, span),
            ast::ExprKind::Unary(op, x) => self.unary(*op, x, span),
            ast::ExprKind::Binary(op, a, b) => self.binary(*op, a, b, span),
            ast::ExprKind::Assign { op, lhs, rhs } => self.assign(*op, lhs, rhs, span),
            ast::ExprKind::Cond(c, a, b) => self.conditional(c, a, b, span),
            ast::ExprKind::Call { callee, args } => self.call(callee, args, span),
            ast::ExprKind::CallPtr { callee, args } => self.call_ptr(callee, args, span),
            ast::ExprKind::CompoundLit(tn, items, list_span) => {
                self.compound_literal(tn, items, *list_span, span)
            }
            ast::ExprKind::Launch {
                kernel,
                grid,
                block,
                args,
            } => self.launch(kernel, grid, block, args, span),
            ast::ExprKind::Index(a, i) => self.index(a, i, span),
            ast::ExprKind::Member(b, f) => self.member(b, f, false, span),
            ast::ExprKind::Arrow(b, f) => self.member(b, f, true, span),
            ast::ExprKind::Cast(tn, x) => self.cast(tn, x, span),
            ast::ExprKind::SizeofType(tn) => {
                let t = self.resolve_type(tn);
                if is_err(&t) || !self.require_complete(&t, tn.span, "the operand of `sizeof`") {
                    return err_expr(span);
                }
                self.sizeof_value(&t, span)
            }
            // A string literal is an array of `char` (with its NUL).
            ast::ExprKind::SizeofExpr(x) if matches!(x.kind, ast::ExprKind::StrLit(_)) => {
                let len = match &x.kind {
                    ast::ExprKind::StrLit(b) => b.len() as i64 + 1,
                    _ => 1,
                };
                int_const(len, CType::Long, span)
            }
            ast::ExprKind::SizeofExpr(x) => {
                // C does not evaluate the operand; only its type matters.
                let v = self.expr(x);
                if is_err(&v.ty) || !self.require_complete(&v.ty, x.span, "the operand of `sizeof`")
                {
                    return err_expr(span);
                }
                self.sizeof_value(&v.ty, span)
            }
            ast::ExprKind::Comma(a, b) => {
                let a = self.rvalue(a);
                let b = self.rvalue(b);
                let ty = b.ty.clone();
                mk(ExprKind::Comma(Box::new(a), Box::new(b)), ty, span)
            }
        }
    }

    /// An expression used for its value: arrays decay to pointers.
    pub(super) fn rvalue(&mut self, e: &ast::Expr) -> Expr {
        let v = self.expr(e);
        self.decay(v)
    }

    pub(super) fn decay(&mut self, e: Expr) -> Expr {
        match &e.ty {
            CType::Array(el, _) | CType::VarArray(el, _) => {
                let ty = (**el).clone().ptr_to();
                self.mark_address_taken(&e);
                let span = e.span;
                mk(ExprKind::Decay(Box::new(e)), ty, span)
            }
            _ => e,
        }
    }

    fn mark_address_taken(&mut self, e: &Expr) {
        if let Some(Sym::Local(l)) = object_root(e)
            && let Some(fx) = self.fx.as_mut()
            && let Some(local) = fx.locals.get_mut(l.0 as usize)
        {
            local.address_taken = true;
        }
    }

    /// A scalar condition (`if`, loops, `!`, `&&`, `||`, `?:`).
    pub(super) fn condition(&mut self, e: &ast::Expr) -> Expr {
        let v = self.rvalue(e);
        if !is_err(&v.ty) && !v.ty.is_scalar() {
            let t = self.ty_name(&v.ty);
            self.push(
                Diagnostic::error(
                    e.span,
                    format!("condition has type `{t}`, which is not a number or a pointer"),
                )
                .with_label("not a number or a pointer")
                .with_help("compare a part of it instead, e.g. `s.x != 0`"),
            );
            return err_expr(e.span);
        }
        v
    }

    fn int_lit(&mut self, v: u128, suffix: ast::IntSuffix, decimal: bool, span: Span) -> Expr {
        use ast::IntSuffix as S;
        // C99 6.4.4.1: the first type of the suffix's list that can hold the
        // value; hexadecimal and octal lists also have the unsigned types.
        let candidates: &[CType] = match (suffix, decimal) {
            (S::None, true) => &[CType::Int, CType::Long],
            (S::None, false) => &[CType::Int, CType::UInt, CType::Long, CType::ULong],
            (S::Unsigned, _) => &[CType::UInt, CType::ULong],
            (S::Long, true) => &[CType::Long],
            (S::Long, false) => &[CType::Long, CType::ULong],
            (S::UnsignedLong, _) => &[CType::ULong],
        };
        let fits = |ty: &CType| match ty {
            CType::Int => v <= i32::MAX as u128,
            CType::UInt => v <= u32::MAX as u128,
            CType::Long => v <= i64::MAX as u128,
            _ => v <= u64::MAX as u128,
        };
        let ty = candidates.iter().find(|t| fits(t)).cloned();
        match ty {
            Some(ty) => int_const(v as u64 as i64, ty, span),
            None if v <= u64::MAX as u128 => {
                let widest = candidates
                    .last()
                    .map_or("long".to_string(), |t| self.ty_name(t));
                self.push(
                    Diagnostic::error(span, "integer literal is too large")
                        .with_label(format!("does not fit in `{widest}`"))
                        .with_help("add a `UL` suffix to make it `unsigned long`"),
                );
                err_expr(span)
            }
            None => {
                self.push(
                    Diagnostic::error(span, "integer literal is too large")
                        .with_label("does not fit in 64 bits")
                        .with_help("the largest integer literal is 18446744073709551615UL"),
                );
                err_expr(span)
            }
        }
    }

    fn ident(&mut self, name: &str, span: Span) -> Expr {
        match self.lookup(name) {
            Some(Sym::Local(l)) => {
                self.check_pending(l, span);
                let ty = self
                    .fx
                    .as_ref()
                    .and_then(|f| f.locals.get(l.0 as usize))
                    .map_or_else(err_ty, |l| l.ty.clone());
                mk(ExprKind::Local(l), ty, span)
            }
            Some(Sym::Global(g)) => {
                let ty = self
                    .globals
                    .get(g.0 as usize)
                    .map_or_else(err_ty, |g| g.ty.clone());
                mk(ExprKind::Global(g), ty, span)
            }
            Some(Sym::Func(f)) => self.func_addr(f, span),
            Some(Sym::EnumConst(v)) => int_const(v, CType::Int, span),
            Some(Sym::Typedef(_)) => {
                self.push(
                    Diagnostic::error(span, format!("`{name}` is a type name, not a value"))
                        .with_label("a type declared by `typedef`"),
                );
                err_expr(span)
            }
            None => {
                self.unknown_ident(name, span);
                err_expr(span)
            }
        }
    }

    /// A use of the target of `x = spawn f()` before `sync` races with
    /// the spawned call, which writes it when it finishes.
    fn check_pending(&mut self, l: crate::hir::LocalId, span: Span) {
        let Some(fx) = self.fx.as_mut() else { return };
        let Some(pos) = fx.pending.iter().position(|p| p.0 == l) else {
            return;
        };
        // Reported once per spawn.
        let (_, spawn) = fx.pending.remove(pos);
        let name = fx
            .locals
            .get(l.0 as usize)
            .map(|l| l.name.clone())
            .unwrap_or_default();
        self.push(
            Diagnostic::error(
                span,
                format!("`{name}` is used before `sync`: the spawned call may not have finished"),
            )
            .with_label("used here")
            .with_secondary(spawn, format!("this call writes `{name}` when it finishes"))
            .with_help(format!("add `sync;` before this use of `{name}`")),
        );
    }

    /// Names that exist only in special positions, or do not exist.
    fn unknown_ident(&mut self, name: &str, span: Span) {
        let d = if gpu_index(name).is_some() {
            if !self.in_gpu_code() {
                self.gpu_only_diag(name, span)
            } else {
                Diagnostic::error(
                    span,
                    format!("`{name}` must be followed by `.x`, `.y` or `.z`"),
                )
                .with_label("needs a field")
                .with_help(format!("write `{name}.x`"))
            }
        } else if ENZYME_MARKERS.contains(&name) {
            Diagnostic::error(
                span,
                format!("`{name}` can only be used as an argument of `__enzyme_autodiff`"),
            )
        } else if MEMCPY_KINDS.contains(&name) {
            Diagnostic::error(
                span,
                format!("`{name}` can only be used as the last argument of `cudaMemcpy`"),
            )
        } else if super::calls::is_builtin_name(name) {
            Diagnostic::error(span, format!("builtin function `{name}` used as a value")).with_help(
                format!("call it: `{name}(...)`; ParC has no function pointers"),
            )
        } else {
            if !self.reported_unknown.insert(name.to_string()) {
                return;
            }
            let mut d = Diagnostic::error(span, format!("use of undeclared identifier `{name}`"))
                .with_label("not found in this scope");
            if let Some(s) = self.suggest(name, &[]) {
                d = d.with_help(format!("did you mean `{s}`?"));
            }
            d
        };
        self.push(d);
    }

    pub(super) fn gpu_only_diag(&self, name: &str, span: Span) -> Diagnostic {
        Diagnostic::error(
            span,
            format!(
                "`{name}` is only available in kernels and \
            `__device__` functions"
            ),
        )
        .with_label("used in host code")
        .with_help(
            "code that runs on GPU threads goes in a `__global__` function \
                launched with `<<<grid, block>>>`",
        )
    }

    // ------------------------------------------------------------ unary

    fn unary(&mut self, op: ast::UnaryOp, x: &ast::Expr, span: Span) -> Expr {
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
    pub(super) fn pointee_size(&mut self, inner: &CType, span: Span) -> Option<ElemSize> {
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

    // ------------------------------------------------------------ binary

    fn binary(&mut self, op: ast::BinaryOp, a: &ast::Expr, b: &ast::Expr, span: Span) -> Expr {
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
    fn arith(&mut self, op: ast::BinaryOp, l: Expr, r: Expr, span: Span) -> Expr {
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
    pub(super) fn ptr_offset(&mut self, ptr: Expr, index: Expr, negate: bool, span: Span) -> Expr {
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

    fn compare(&mut self, op: ast::BinaryOp, l: Expr, r: Expr, span: Span) -> Expr {
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

    // -------------------------------------------------------- assignment

    /// Reports why an lvalue cannot be assigned, if it cannot.
    pub(super) fn check_assignable(&mut self, lv: &Expr, span: Span) -> bool {
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

    fn assign(
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

    /// The determinacy-race rule of LANGUAGE.md: inside a `parallel_for`
    /// body, a variable declared outside the body (or a global) may not be
    /// assigned, since every iteration would write the same location.
    /// Elements reached through arrays or pointers are not checked: whether
    /// iterations touch disjoint elements is not decidable here.
    pub(super) fn check_race(&mut self, lv: &Expr, span: Span) {
        let Some(fx) = self.fx.as_ref() else { return };
        if fx.pfors.is_empty() {
            return;
        }
        let (name, decl, depth) = match lvalue_root(lv) {
            Some(Sym::Local(l)) => {
                let (Some(local), Some(info)) =
                    (fx.locals.get(l.0 as usize), fx.local_info.get(l.0 as usize))
                else {
                    return;
                };
                if info.pfor_depth >= fx.pfors.len() {
                    return;
                }
                // Declared just outside a team's loop, written once by
                // one of its threads.
                if info.pfor_depth + 1 == fx.pfors.len()
                    && fx.pfors.last().is_some_and(|pf| pf.once > 0)
                {
                    return;
                }
                let pf = &fx.pfors[info.pfor_depth];
                if pf.var == l {
                    let d = Diagnostic::error(
                        span,
                        format!(
                            "the index `{}` of a \
                        parallel_for is assigned in its body",
                            local.name
                        ),
                    )
                    .with_label("assigned here")
                    .with_secondary(keyword(pf.span), "the loop is here")
                    .with_help(format!(
                        "iterations run in parallel and each has its own `{}`; only the \
                                loop header advances it",
                        local.name
                    ));
                    self.push(d);
                    return;
                }
                (local.name.clone(), local.span, info.pfor_depth)
            }
            Some(Sym::Global(g)) => match self.globals.get(g.0 as usize) {
                Some(gv) if !gv.is_shared => (gv.name.clone(), gv.span, 0),
                _ => return,
            },
            None => {
                self.check_invariant_write(lv, span);
                return;
            }
            _ => return,
        };
        let pf_span = fx.pfors[depth].span;
        let d = Diagnostic::error(
            span,
            format!(
                "determinacy race: `{name}` is declared outside this parallel_for and \
                assigned in its body"
            ),
        )
        .with_label("every iteration writes this variable")
        .with_secondary(decl, "declared here")
        .with_secondary(keyword(pf_span), "iterations of this loop run in parallel")
        .with_help(format!(
            "write to a per-iteration location such as `a[i]`, or make it a reduction: \
            `parallel_reduce(+: {name}) (...)` (OpenMP: `reduction(+: {name})`)"
        ));
        self.push(d);
    }

    /// A write through an array or pointer whose address is the same in
    /// every iteration of the innermost `parallel_for` (built only from
    /// constants and variables declared outside the loop, which the body
    /// cannot change) is a race when it is not under a condition.
    fn check_invariant_write(&mut self, lv: &Expr, span: Span) {
        let Some(fx) = self.fx.as_ref() else { return };
        let Some(pf) = fx.pfors.last() else { return };
        if pf.conditional > 0 || pf.once > 0 || !self.invariant_addr(lv) {
            return;
        }
        let var = fx
            .locals
            .get(pf.var.0 as usize)
            .map(|l| l.name.clone())
            .unwrap_or_default();
        let d = Diagnostic::error(
            span,
            "determinacy race: every iteration of this parallel_for writes the same location",
        )
        .with_label(format!("this location does not depend on `{var}`"))
        .with_secondary(keyword(pf.span), "iterations of this loop run in parallel")
        .with_help(format!(
            "write to a per-iteration location such as `a[{var}]`, or accumulate with atomicAdd"
        ));
        self.push(d);
    }

    /// Whether an lvalue designates the same shared object in every
    /// iteration of the innermost `parallel_for`.
    fn invariant_addr(&self, e: &Expr) -> bool {
        let Some(fx) = self.fx.as_ref() else {
            return false;
        };
        match &e.kind {
            // A variable declared in the body is private to the iteration.
            ExprKind::Local(l) => fx
                .local_info
                .get(l.0 as usize)
                .is_some_and(|i| i.pfor_depth < fx.pfors.len()),
            ExprKind::Global(g) => self.globals.get(g.0 as usize).is_some_and(|g| !g.is_shared),
            ExprKind::Member { base, .. } => self.invariant_addr(base),
            ExprKind::Index { base, index, .. } => {
                self.invariant_val(base) && self.invariant_val(index)
            }
            ExprKind::Deref(p) => self.invariant_val(p),
            _ => false,
        }
    }

    /// Whether a value is the same in every iteration of the innermost
    /// `parallel_for`. Reads of memory and calls count as varying.
    fn invariant_val(&self, e: &Expr) -> bool {
        let Some(fx) = self.fx.as_ref() else {
            return false;
        };
        let Some(pf) = fx.pfors.last() else {
            return false;
        };
        match &e.kind {
            ExprKind::IntConst(_) | ExprKind::FloatConst(_) | ExprKind::Null | ExprKind::Str(_) => {
                true
            }
            ExprKind::Local(l) => {
                *l != pf.var
                    && fx
                        .local_info
                        .get(l.0 as usize)
                        .is_some_and(|i| i.pfor_depth < fx.pfors.len())
            }
            ExprKind::Global(g) => self.globals.get(g.0 as usize).is_some_and(|g| g.is_const),
            ExprKind::Convert(x) | ExprKind::Unary(_, x) => self.invariant_val(x),
            ExprKind::Binary(_, a, b) => self.invariant_val(a) && self.invariant_val(b),
            ExprKind::PtrOffset { ptr, index, .. } => {
                self.invariant_val(ptr) && self.invariant_val(index)
            }
            ExprKind::Decay(lv) | ExprKind::AddrOf(lv) => self.invariant_addr(lv),
            _ => false,
        }
    }

    /// Converts for assignment, initialization, argument passing or return,
    /// enforcing C's simple-assignment constraints (ParC makes the
    /// integer↔pointer case an error).
    pub(super) fn assign_conv(&mut self, e: Expr, to: &CType, ctx: ConvCtx<'_>) -> Expr {
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
    pub(super) fn convert(&mut self, e: Expr, to: &CType) -> Expr {
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

    // ------------------------------------------------------ other forms

    fn conditional(&mut self, c: &ast::Expr, a: &ast::Expr, b: &ast::Expr, span: Span) -> Expr {
        let c = self.condition(c);
        let a = self.rvalue(a);
        let b = self.rvalue(b);
        if is_err(&c.ty) || is_err(&a.ty) || is_err(&b.ty) {
            return err_expr(span);
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
            return err_expr(span);
        };
        let a = self.convert(a, &ty);
        let b = self.convert(b, &ty);
        self.fold(mk(
            ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
            ty,
            span,
        ))
    }

    fn index(&mut self, a: &ast::Expr, i: &ast::Expr, span: Span) -> Expr {
        let mut base = self.rvalue(a);
        let mut idx = self.rvalue(i);
        if is_err(&base.ty) || is_err(&idx.ty) {
            return err_expr(span);
        }
        // `i[a]` means `a[i]` in C.
        if base.ty.is_integer() && idx.ty.is_pointer() {
            std::mem::swap(&mut base, &mut idx);
        }
        let Some(elem) = base.ty.pointee().cloned() else {
            let t = self.ty_name(&base.ty);
            self.push(
                Diagnostic::error(
                    span,
                    format!("subscripted value of type `{t}` is not an array or a pointer"),
                )
                .with_secondary(base.span, format!("this has type `{t}`")),
            );
            return err_expr(span);
        };
        if !idx.ty.is_integer() {
            let t = self.ty_name(&idx.ty);
            self.push(
                Diagnostic::error(
                    idx.span,
                    format!("array index has type `{t}`; it must be an integer"),
                )
                .with_label("not an integer")
                .with_help("convert it with a cast such as `(int)`"),
            );
            return err_expr(span);
        }
        let Some(size) = self.pointee_size(&elem, span) else {
            return err_expr(span);
        };
        let idx = self.convert(idx, &CType::Long);
        mk(
            ExprKind::Index {
                base: Box::new(base),
                index: Box::new(size.scale(idx)),
                elem_size: size.bytes,
            },
            elem,
            span,
        )
    }

    fn member(&mut self, base: &ast::Expr, field: &ast::Ident, arrow: bool, span: Span) -> Expr {
        if !arrow
            && let ast::ExprKind::Ident(name) = &base.kind
            && let Some(which) = gpu_index(name)
            && self.lookup(name).is_none()
        {
            return self.gpu_builtin(name, which, field, span);
        }
        let b = if arrow {
            self.rvalue(base)
        } else {
            self.expr(base)
        };
        if is_err(&b.ty) {
            return err_expr(span);
        }
        let obj = if arrow {
            match b.ty.clone() {
                CType::Ptr(inner) if matches!(*inner, CType::Struct(_) | CType::Dim3) => {
                    mk(ExprKind::Deref(Box::new(b)), *inner, base.span)
                }
                t => {
                    let name = self.ty_name(&t);
                    let mut d = Diagnostic::error(
                        span,
                        format!("`->` needs a pointer to a struct, but this has type `{name}`"),
                    )
                    .with_secondary(base.span, format!("this has type `{name}`"));
                    if matches!(t, CType::Struct(_) | CType::Dim3) {
                        d = d.with_help(format!(
                            "use `.` to access a field of a struct value: `.{}`",
                            field.name
                        ));
                    }
                    self.push(d);
                    return err_expr(span);
                }
            }
        } else {
            match &b.ty {
                CType::Struct(_) | CType::Dim3 => b,
                t => {
                    let name = self.ty_name(t);
                    let mut d = Diagnostic::error(
                        span,
                        format!("`.` needs a struct, but this has type `{name}`"),
                    )
                    .with_secondary(base.span, format!("this has type `{name}`"));
                    if matches!(t.pointee(), Some(CType::Struct(_) | CType::Dim3)) {
                        d = d.with_help(format!(
                            "use `->` to access a field through a pointer: `->{}`",
                            field.name
                        ));
                    }
                    self.push(d);
                    return err_expr(span);
                }
            }
        };
        if !self.is_complete(&obj.ty) {
            self.require_complete(&obj.ty, base.span, "this struct");
            return err_expr(span);
        }
        let fields = self.fields_of(&obj.ty).unwrap_or_default();
        let Some((_, fty, offset)) = fields.iter().find(|f| f.0 == field.name) else {
            let sname = match &obj.ty {
                CType::Struct(id) => match self.structs.get(id.0 as usize) {
                    Some(s) => format!("struct `{}`", s.layout.name),
                    None => "this struct".to_string(),
                },
                _ => "`dim3`".to_string(),
            };
            let names: Vec<&str> = fields.iter().map(|f| f.0.as_str()).collect();
            let mut d =
                Diagnostic::error(field.span, format!("{sname} has no field `{}`", field.name))
                    .with_label("unknown field");
            d = match super::closest(&field.name, names.iter().copied()) {
                Some(s) => d.with_help(format!("did you mean `{s}`?")),
                None => {
                    let list: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
                    d.with_help(format!("its fields are {}", list.join(", ")))
                }
            };
            self.push(d);
            return err_expr(span);
        };
        mk(
            ExprKind::Member {
                base: Box::new(obj),
                offset: *offset,
            },
            fty.clone(),
            span,
        )
    }

    fn gpu_builtin(&mut self, name: &str, which: GpuIndex, field: &ast::Ident, span: Span) -> Expr {
        if !self.in_gpu_code() {
            let d = self.gpu_only_diag(name, span);
            self.push(d);
            return err_expr(span);
        }
        let dim = match field.name.as_str() {
            "x" => 0,
            "y" => 1,
            "z" => 2,
            other => {
                self.push(
                    Diagnostic::error(field.span, format!("`{name}` has no field `{other}`"))
                        .with_label("unknown field")
                        .with_help("use `.x`, `.y` or `.z`"),
                );
                return err_expr(span);
            }
        };
        mk(ExprKind::Gpu(which, dim), CType::Int, span)
    }

    fn cast(&mut self, tn: &ast::TypeName, x: &ast::Expr, span: Span) -> Expr {
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
