//! Builtins used as values: `size_t (*f)(const char *) = strlen;`,
//! `double (*ops[])(double) = {sin, cos};`.
//!
//! A builtin is an intrinsic of the IR, not a function with an address.
//! Used as a value, one with a fixed C signature (the math functions,
//! and the C library's once a header or the program declares them)
//! becomes the address of a `static` wrapper function the checker adds
//! to the file, once per builtin: `__parc_builtin_NAME`, whose parameters
//! are the builtin's and whose body returns the builtin called on them.
//! Calls through the pointer and comparisons of two such pointers then
//! work as for any function of the program. The variadic builtins (`printf` and the rest), the
//! classification macros (`isnan`), `atomicAdd`, the CUDA calls and
//! `__enzyme_autodiff` have no such signature and stay errors.

use super::calls::{Decl, fixed_builtin};
use super::{Checker, FuncInfo};
use crate::ast::Span;
use crate::hir::{self, Builtin, CType, Expr, ExprKind, FuncKind, FuncRef, Stmt, StmtKind};
use parc_ir::Intrinsic;

impl Checker {
    /// The address of builtin `name`'s wrapper, or `None` if the builtin
    /// has no fixed signature (or is not declared yet).
    pub(super) fn builtin_addr(&mut self, name: &str, span: Span) -> Option<Expr> {
        let (b, params, ret) =
            fixed_builtin(name).or_else(|| self.libc_decls.get(name).cloned())?;
        if matches!(
            b,
            Builtin::FpTest(_)
                | Builtin::Intrinsic(
                    Intrinsic::CudaFree | Intrinsic::CudaDeviceSynchronize | Intrinsic::Barrier
                )
        ) {
            return None;
        }
        let f = match self.builtin_wrappers.get(name) {
            Some(&f) => f,
            None => {
                let f = self.add_wrapper(name, (b, params, ret), span);
                self.builtin_wrappers.insert(name.to_string(), f);
                f
            }
        };
        Some(self.func_addr(f, span))
    }

    /// Adds the wrapper of builtin `name` (see the module doc).
    fn add_wrapper(&mut self, name: &str, (b, params, ret): Decl, span: Span) -> FuncRef {
        let locals: Vec<hir::Local> = (params.iter().enumerate())
            .map(|(i, ty)| hir::Local {
                name: format!("a{i}"),
                ty: ty.clone(),
                address_taken: false,
                span,
            })
            .collect();
        let ids: Vec<hir::LocalId> = (0..locals.len()).map(|i| hir::LocalId(i as u32)).collect();
        let args = (ids.iter().zip(&params))
            .map(|(&l, ty)| Expr {
                kind: ExprKind::Local(l),
                ty: ty.clone(),
                span,
            })
            .collect();
        let call = Expr {
            kind: ExprKind::Builtin { func: b, args },
            ty: ret.clone(),
            span,
        };
        let body = if ret == CType::Void {
            vec![
                Stmt {
                    kind: StmtKind::Expr(call),
                    span,
                },
                Stmt {
                    kind: StmtKind::Return(None),
                    span,
                },
            ]
        } else {
            vec![Stmt {
                kind: StmtKind::Return(Some(call)),
                span,
            }]
        };
        let f = FuncRef(self.funcs.len() as u32);
        self.funcs.push(hir::Func {
            name: format!("__parc_builtin_{name}"),
            ret,
            params: ids,
            restrict_params: Vec::new(),
            locals,
            kind: FuncKind::Host,
            is_static: true,
            variadic: false,
            va_args: None,
            body: Some(body),
            span,
        });
        self.func_info.push(FuncInfo {
            decl_span: span,
            def_span: Some(span),
            param_names: (0..params.len()).map(|i| format!("a{i}")).collect(),
            param_spans: vec![span; params.len()],
            fork_join: None,
        });
        f
    }
}
