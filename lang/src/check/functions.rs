//! Function definitions and prototypes at file scope: qualifiers
//! (`__global__`, `__device__`, ...), parameters, redeclarations that
//! must agree, and the body.

use std::collections::HashMap;

use super::{Checker, FnCtx, FuncInfo, Sym, is_err};
use super::{calls, types};
use crate::ast::{self};
use crate::diag::Diagnostic;
use crate::hir::{self, CType, FuncKind, FuncRef};

impl Checker {
    pub(super) fn func_item(&mut self, f: &ast::FuncDef) {
        let name = f.name.name.as_str();
        let q = f.quals;
        let kind = if q.is_global {
            FuncKind::Kernel
        } else if q.is_device {
            FuncKind::Device
        } else {
            FuncKind::Host
        };
        if q.is_global && q.is_device {
            self.push(
                Diagnostic::error(
                    f.name.span,
                    format!(
                        "`{name}` cannot be both \
                    `__global__` and `__device__`"
                    ),
                )
                .with_label("two GPU qualifiers")
                .with_help(
                    "`__global__` declares a kernel launched from the host; \
                        `__device__` a helper called from kernels",
                ),
            );
        }
        if q.is_shared {
            self.push(
                Diagnostic::error(
                    f.name.span,
                    "`__shared__` applies to variables, not functions",
                )
                .with_label("a function"),
            );
        }
        let ret = self.resolve_type(&f.ret);
        if kind == FuncKind::Kernel && ret != CType::Void && !is_err(&ret) {
            self.push(
                Diagnostic::error(f.ret.span, "kernels must return `void`")
                    .with_label(format!("`{name}` returns `{}`", self.ty_name(&ret)))
                    .with_help("write results through a pointer argument"),
            );
        }
        if matches!(ret, CType::Struct(_)) && f.body.is_some() {
            self.require_complete(&ret, f.ret.span, &format!("the result of `{name}`"));
        }
        let params = self.param_list(&f.params, f.body.is_some());

        if f.variadic && kind != FuncKind::Host {
            self.push(
                Diagnostic::error(
                    f.name.span,
                    format!("`{name}` is declared with `...`: GPU functions cannot be variadic"),
                )
                .with_label("variadic")
                .with_help("pass an array and a count instead"),
            );
            return;
        }
        if calls::is_builtin_name(name) {
            if f.body.is_some() {
                self.push(
                    Diagnostic::error(f.name.span, format!("redefinition of builtin `{name}`"))
                        .with_label("ParC provides this function")
                        .with_help("rename your function"),
                );
            } else {
                let tys: Vec<CType> = params.iter().map(|p| p.0.clone()).collect();
                self.builtin_prototype(name, &ret, &tys, f.span);
            }
            return;
        }

        if self.declared_as_other_kind(&f.name) {
            return;
        }
        let fref = match self.file_syms.get(name).copied() {
            Some(Sym::Func(fr)) => {
                let prev = &self.funcs[fr.0 as usize];
                let same = types::compatible(&prev.ret, &ret)
                    && prev.kind == kind
                    && prev.variadic == f.variadic
                    && prev.params.len() == params.len()
                    && prev.params.iter().zip(&params).all(|(l, p)| {
                        prev.locals
                            .get(l.0 as usize)
                            .is_some_and(|l| types::compatible(&l.ty, &p.0) || is_err(&p.0))
                    });
                let info = &self.func_info[fr.0 as usize];
                if !same && !is_err(&ret) {
                    let prev_sig = self.signature(fr);
                    let ps: Vec<String> = params.iter().map(|p| self.ty_name(&p.0)).collect();
                    let ps = if ps.is_empty() {
                        "void".to_string()
                    } else {
                        ps.join(", ")
                    };
                    let new_sig = format!("{} {name}({ps})", self.ty_name(&ret));
                    let decl = info.decl_span;
                    self.push(
                        Diagnostic::error(f.name.span, format!("conflicting types for `{name}`"))
                            .with_label(format!("declared here as `{new_sig}`"))
                            .with_secondary(decl, format!("previously declared as `{prev_sig}`"))
                            .with_help("make the declarations agree"),
                    );
                    return;
                }
                // C99 6.2.2: a declaration without a storage class takes
                // the linkage of one before it, but `static` after an
                // external declaration gives the name two linkages.
                if q.is_static && !prev.is_static {
                    let decl = info.decl_span;
                    self.push(
                        Diagnostic::error(
                            f.name.span,
                            format!(
                                "static declaration of `{name}` follows non-static declaration"
                            ),
                        )
                        .with_label("declared `static` here")
                        .with_secondary(decl, "declared without `static` here")
                        .with_help("add `static` to the first declaration, or remove it here"),
                    );
                    return;
                }
                if f.body.is_some()
                    && let Some(def) = info.def_span
                {
                    self.push(
                        Diagnostic::error(f.name.span, format!("redefinition of `{name}`"))
                            .with_label("defined again here")
                            .with_secondary(def, "first defined here")
                            .with_help("remove one of the definitions, or rename one"),
                    );
                    return;
                }
                fr
            }
            Some(Sym::Global(g)) => {
                let span = self.globals[g.0 as usize].span;
                self.other_kind(
                    name,
                    f.name.span,
                    span,
                    "a global variable with this name is declared here",
                );
                return;
            }
            _ => {
                let fr = FuncRef(self.funcs.len() as u32);
                self.funcs.push(hir::Func {
                    name: name.to_string(),
                    ret: ret.clone(),
                    params: Vec::new(),
                    restrict_params: Vec::new(),
                    locals: Vec::new(),
                    kind,
                    is_static: q.is_static,
                    variadic: f.variadic,
                    va_args: None,
                    body: None,
                    span: f.span,
                });
                self.func_info.push(FuncInfo {
                    decl_span: f.name.span,
                    def_span: None,
                    param_names: Vec::new(),
                    param_spans: Vec::new(),
                    fork_join: None,
                });
                self.file_syms.insert(name.to_string(), Sym::Func(fr));
                fr
            }
        };

        // Parameters become the first locals; a definition's names win.
        let fx = FnCtx {
            name: name.to_string(),
            ret: ret.clone(),
            kind,
            locals: Vec::new(),
            local_info: Vec::new(),
            scopes: super::scopes::Scopes::new(),
            tags: vec![HashMap::new()],
            loops: Vec::new(),
            pfors: Vec::new(),
            pfor_count: 0,
            labels: HashMap::new(),
            switches: Vec::new(),
            label_count: 0,
            fork_join: None,
            pending: Vec::new(),
            teams: Vec::new(),
            critical: 0,
            vlas: Vec::new(),
            vla_marks: vec![0],
            va_args: None,
        };
        // Functions do not nest, so there is no outer context to restore.
        self.fx = Some(fx);
        self.reported_unknown.clear();
        let mut param_ids = Vec::new();
        for ((ty, pname, span), p) in params.iter().zip(&f.params) {
            let id = if f.body.is_some() {
                // `const int n` makes the parameter read-only in the body.
                let is_const = p.ty.is_const_param();
                // `double A[n][m]`: the lengths name earlier parameters.
                let ty = self.redo_variable_param(ty, p);
                self.new_local(pname, ty, is_const, *span)
            } else {
                // Prototypes: parameter names have no scope.
                self.new_local("", ty.clone(), false, *span)
            };
            param_ids.push(id);
        }
        // The address of the variadic arguments, which `va_start` reads.
        let va_args = (f.variadic && f.body.is_some())
            .then(|| self.new_local("", CType::Char.ptr_to(), false, f.name.span));
        if let Some(fx) = self.fx.as_mut() {
            fx.va_args = va_args;
        }
        let idx = fref.0 as usize;
        if f.body.is_some() || self.func_info[idx].def_span.is_none() {
            self.func_info[idx].param_names = params.iter().map(|p| p.1.clone()).collect();
            self.func_info[idx].param_spans = params.iter().map(|p| p.2).collect();
        }
        // The parameters are known before the body, which may recurse.
        if f.body.is_some() || self.func_info[idx].def_span.is_none() {
            self.funcs[idx].params = param_ids.clone();
            self.funcs[idx].locals = self.fx().map(|fx| fx.locals.clone()).unwrap_or_default();
        }
        // The parameters' variable lengths are evaluated on entry.
        let lengths = self.take_vla_lengths();
        let body = f.body.as_ref().map(|b| {
            self.func_info[idx].def_span = Some(f.name.span);
            self.funcs[idx].span = f.span;
            let mut body = lengths;
            body.extend(self.block_stmts(&b.stmts));
            body
        });
        self.check_labels();
        let Some(fx) = self.fx.take() else { return };
        self.reported_unknown.clear();
        if body.is_some() || self.funcs[idx].body.is_none() {
            let func = &mut self.funcs[idx];
            func.params = param_ids;
            func.restrict_params = (0u32..)
                .zip(&f.params)
                .filter(|(_, p)| p.ty.is_restrict())
                .map(|(i, _)| i)
                .collect();
            func.locals = fx.locals;
            func.is_static |= q.is_static;
            if body.is_some() {
                func.body = body;
                func.va_args = va_args;
            }
            self.func_info[idx].fork_join = self.func_info[idx].fork_join.or(fx.fork_join);
        }
    }

    /// `double sqrt(double)` for messages.
    pub(super) fn signature(&self, f: FuncRef) -> String {
        let func = &self.funcs[f.0 as usize];
        let params: Vec<String> = func
            .params
            .iter()
            .filter_map(|l| func.locals.get(l.0 as usize))
            .map(|l| self.ty_name(&l.ty))
            .collect();
        let params = if params.is_empty() {
            "void".to_string()
        } else {
            params.join(", ")
        };
        format!("{} {}({params})", self.ty_name(&func.ret), func.name)
    }
}
