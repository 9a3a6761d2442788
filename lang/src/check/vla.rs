//! Variable-length arrays (C99 6.7.5.2) as parameters and pointees:
//! `void f(int n, int m, double A[n][m])`, `double (*A)[m]`, casts to
//! `(double (*)[m])`, `sizeof(double[n])`, block-scope typedefs of them.
//!
//! An array declarator whose length is not a constant, in a function,
//! gets a hidden `long` local that holds the length, assigned where the
//! declarator is (C evaluates the length there, once): the type is
//! [`CType::VarArray`] naming that local. Statements that assign the
//! hidden locals wait in [`Checker::vla_lengths`] until the enclosing
//! statement is known, and go just before it (the parameters' before the
//! body); a length written in a cast inside a loop condition is therefore
//! evaluated once, before the loop, not at each test.
//!
//! Indexing and pointer arithmetic through such a type multiply the index
//! by the hidden locals (see [`ElemSize`]), so the HIR's pointer
//! arithmetic keeps a constant element size and lowering needs nothing
//! new. Objects of variable size (`double V[n][m];` as a local) are
//! allocated where they are declared: the checker adds a run-time check
//! of each length before the declaration (see [`Checker::vla_checks`]),
//! and lowering takes the bytes from the heap and frees them when the
//! declaration runs again or the function (task) ends. In GPU code they
//! are refused.
//!
//! In a prototype (and in the first look at a definition's parameters,
//! before they are in scope) a length is not evaluated: the type is
//! C's `[*]` (`VarArray(_, None)`), compatible with any length.

use super::Checker;
use super::expr::{int_const, mk};
use crate::ast::{self, Span};
use crate::diag::Diagnostic;
use crate::hir::{BinaryOp, Builtin, CType, Expr, ExprKind, Init, LocalId, Stmt, StmtKind};
use parc_ir::Intrinsic;

/// The size of the object a pointer points to: `bytes` times the value
/// of `count`, a `long` expression of hidden length locals, when the
/// object is a variable-length array.
pub(super) struct ElemSize {
    pub bytes: u64,
    pub count: Option<Expr>,
}

impl ElemSize {
    /// `index` in elements scaled to the units of `bytes`: `index * count`.
    pub(super) fn scale(&self, index: Expr) -> Expr {
        match &self.count {
            None => index,
            Some(c) => mul(index, c.clone()),
        }
    }
}

/// `a * b` on two `long`s.
fn mul(a: Expr, b: Expr) -> Expr {
    let span = a.span;
    mk(
        ExprKind::Binary(BinaryOp::Mul, Box::new(a), Box::new(b)),
        CType::Long,
        span,
    )
}

/// A type whose size depends on a variable length (arrays of, and
/// pointers to, variable-length arrays; not function types, whose
/// parameters have their own scope).
pub(super) fn is_variably_modified(t: &CType) -> bool {
    match t {
        CType::VarArray(..) => true,
        CType::Ptr(e) | CType::Array(e, _) => is_variably_modified(e),
        _ => false,
    }
}

impl Checker {
    /// The variable length `e` of an array declarator `name`, already
    /// checked (`v`) and not a constant: a hidden local in a function,
    /// `None` (`[*]`) in a prototype, an error (`None` outside) at file
    /// scope. `diags_before` is where the diagnostics of `e` start.
    pub(super) fn variable_length(
        &mut self,
        e: &ast::Expr,
        v: Expr,
        name: &str,
        diags_before: usize,
    ) -> Option<Option<LocalId>> {
        if self.params_unevaluated > 0 {
            // Names of earlier parameters are not in scope yet; the
            // definition looks again (`redo_variable_param`).
            self.diags.truncate(diags_before);
            return Some(None);
        }
        if self.fx.is_none() {
            self.push(
                Diagnostic::error(
                    e.span,
                    format!("the size of array `{name}` is not a constant"),
                )
                .with_label("computed at run time")
                .with_help(
                    "variable-length arrays exist only in functions; \
                     give the array a constant size, or allocate it with `malloc`",
                ),
            );
            return None;
        }
        let v = self.convert(v, &CType::Long);
        let k = self.new_local("", CType::Long, true, e.span);
        if let ast::ExprKind::Ident(n) = &e.kind
            && let Some(fx) = self.fx.as_mut()
        {
            // For messages (`double (*)[m]`); the local is not in scope.
            fx.locals[k.0 as usize].name = n.clone();
        }
        self.vla_lengths.push((k, v));
        Some(Some(k))
    }

    /// The assignments of the hidden length locals made since the last
    /// call, as declarations to run before the statement that made them.
    pub(super) fn take_vla_lengths(&mut self) -> Vec<Stmt> {
        std::mem::take(&mut self.vla_lengths)
            .into_iter()
            .map(|(k, v)| {
                let span = v.span;
                Stmt {
                    kind: StmtKind::Decl(k, Some(Init::Expr(v))),
                    span,
                }
            })
            .collect()
    }

    /// The size of `t` where it may be a variable-length array, or `None`
    /// after reporting a length that is not known (`[*]` outside a
    /// prototype).
    pub(super) fn vla_size(&mut self, t: &CType, span: Span) -> Option<ElemSize> {
        match t {
            CType::VarArray(e, Some(k)) => {
                let inner = self.vla_size(e, span)?;
                let len = mk(ExprKind::Local(*k), CType::Long, span);
                let count = match inner.count {
                    None => len,
                    Some(c) => mul(len, c),
                };
                Some(ElemSize {
                    bytes: inner.bytes,
                    count: Some(count),
                })
            }
            CType::VarArray(_, None) => {
                self.push(
                    Diagnostic::error(
                        span,
                        "the length of this variable-length array is not known here",
                    )
                    .with_label("declared with an unevaluated length (`[*]`)")
                    .with_help("use the parameter of the function's definition"),
                );
                None
            }
            CType::Array(e, n) if is_variably_modified(e) => {
                let inner = self.vla_size(e, span)?;
                Some(ElemSize {
                    bytes: inner.bytes.saturating_mul(*n),
                    count: inner.count,
                })
            }
            _ => Some(ElemSize {
                bytes: self.size_of(t),
                count: None,
            }),
        }
    }

    /// `sizeof` of a type that may have a variable length.
    pub(super) fn sizeof_value(&mut self, t: &CType, span: Span) -> Expr {
        match self.vla_size(t, span) {
            Some(ElemSize { bytes, count: None }) => int_const(bytes as i64, CType::Long, span),
            Some(ElemSize {
                bytes,
                count: Some(c),
            }) => mul(c, int_const(bytes as i64, CType::Long, span)),
            None => super::expr::err_expr(span),
        }
    }

    /// The run-time checks of the lengths of `ty`, the type of the
    /// variable-length array `name` about to be allocated: a negative
    /// length stops the program with a message (UBSan's
    /// `-fsanitize=vla-bound` does the same; a length of 0 is accepted,
    /// as gcc does without it).
    pub(super) fn vla_checks(&mut self, ty: &CType, name: &str, span: Span) -> Vec<Stmt> {
        let mut out = Vec::new();
        let mut t = ty;
        loop {
            match t {
                CType::VarArray(e, k) => {
                    if let Some(k) = k {
                        out.push(self.negative_length_check(*k, name, span));
                    }
                    t = e;
                }
                CType::Array(e, _) => t = e,
                _ => return out,
            }
        }
    }

    /// `if (k < 0) runtime_error("...")`.
    fn negative_length_check(&mut self, k: LocalId, name: &str, span: Span) -> Stmt {
        let text = format!("variable-length array `{name}` has a negative length");
        let s = self.intern_string(text.as_bytes());
        let cond = mk(
            ExprKind::Binary(
                BinaryOp::Lt,
                Box::new(mk(ExprKind::Local(k), CType::Long, span)),
                Box::new(int_const(0, CType::Long, span)),
            ),
            CType::Int,
            span,
        );
        let fail = mk(
            ExprKind::Builtin {
                func: Builtin::Intrinsic(Intrinsic::RuntimeError),
                args: vec![mk(
                    ExprKind::Str(s),
                    CType::Ptr(Box::new(CType::Char)),
                    span,
                )],
            },
            CType::Void,
            span,
        );
        Stmt {
            kind: StmtKind::If {
                cond,
                then: Box::new(Stmt {
                    kind: StmtKind::Expr(fail),
                    span,
                }),
                els: None,
            },
            span,
        }
    }

    /// Refuses an object of variable size where parc cannot allocate one:
    /// a compound literal (C99 6.5.2.5p1 forbids them) and a local in GPU
    /// code (kernels have no allocator to take it from); says whether `ty`
    /// was fine. `name` is `None` for a compound literal.
    pub(super) fn refuse_variable_object(
        &mut self,
        ty: &CType,
        name: Option<&str>,
        span: Span,
    ) -> bool {
        if !ty.has_variable_size() {
            return true;
        }
        let d = match name {
            None => Diagnostic::error(
                span,
                "a compound literal cannot have a variable-length array type",
            )
            .with_label("its size is computed at run time")
            .with_help("declare a variable-length array and assign its elements"),
            Some(name) if self.in_gpu_code() => Diagnostic::error(
                span,
                format!("`{name}` is a variable-length array: GPU code cannot allocate them"),
            )
            .with_label("its size is computed at run time")
            .with_help("give it a constant size, or pass the kernel a buffer from `cudaMalloc`"),
            Some(_) => return true,
        };
        self.push(d);
        false
    }

    /// A parameter type of a definition looked at again with the earlier
    /// parameters in scope, when the first look (`param_list`) found a
    /// variable length in it.
    pub(super) fn redo_variable_param(&mut self, ty: &CType, p: &ast::Param) -> CType {
        if !is_variably_modified(ty) {
            return ty.clone();
        }
        super::decls::adjust_param(self.resolve_param_type(p))
    }
}
