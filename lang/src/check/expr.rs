//! Expressions: names, operators, lvalues and `const`, pointer arithmetic,
//! decay, casts, `sizeof`, GPU indices, and the determinacy-race rule for
//! assignments inside `parallel_for`.

use super::{Checker, Sym, err_ty, is_err};
use crate::ast::{self, Span};
use crate::diag::Diagnostic;
use crate::hir::{BinaryOp as HB, CType, Expr, ExprKind, GpuIndex};

mod access;
mod assign;
mod operators;
mod race;

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
            ast::ExprKind::Elvis(a, b) => self.elvis(a, b, span),
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
            ast::ExprKind::AlignofType(tn) => {
                let t = self.resolve_type(tn);
                if is_err(&t) || !self.require_complete(&t, tn.span, "the operand of `_Alignof`") {
                    return err_expr(span);
                }
                int_const(self.align_of(&t) as i64, CType::Long, span)
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
                if self.refuse_bit_field(&v, "sizeof", "take the size of its declared type instead")
                {
                    return err_expr(span);
                }
                self.sizeof_value(&v.ty, span)
            }
            ast::ExprKind::Offsetof(tn, path) => self.offsetof(tn, path, span),
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
                if super::calls::is_builtin_name(name)
                    && let Some(e) = self.builtin_addr(name, span)
                {
                    return e;
                }
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
        } else if let Some((header, _)) =
            crate::pp::headers::declaring(name).filter(|_| parc_ir::CFn::from_name(name).is_some())
        {
            // A C library function used as a value before any declaration.
            Diagnostic::error(span, format!("use of undeclared function `{name}`"))
                .with_label("not declared before this use")
                .with_help(format!("include <{header}>, which declares it"))
        } else if super::calls::is_builtin_name(name) {
            Diagnostic::error(span, format!("builtin `{name}` used as a value"))
                .with_label("used as a value here")
                .with_help(format!(
                    "`{name}` has no fixed signature (variadic, type-generic or special), so no \
                     address: call it, `{name}(...)`, or wrap it in a function of your own and \
                     take that one's address"
                ))
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
}
