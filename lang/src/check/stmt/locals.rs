//! Declarations in a block: locals and their initializers, `extern`
//! declarations, `static` and `__shared__` locals (hoisted to globals
//! named `function.variable`), typedefs and tags in block scope.

use crate::ast::{self};
use crate::check::{Checker, Sym, var_is_const};
use crate::diag::Diagnostic;
use crate::hir::{GlobalVar, Stmt, StmtKind};

impl Checker {
    pub(super) fn local_decl(&mut self, d: &ast::Decl) -> Vec<Stmt> {
        let q = d.quals;
        if q.is_typedef {
            self.typedef_decl(d);
            return Vec::new();
        }
        if d.declarators.is_empty() {
            self.tag_declaration(&d.ty.spec);
            return Vec::new();
        }
        if q.is_extern {
            for decl in &d.declarators {
                if let Some(init) = &decl.init {
                    let span = init.span();
                    self.push(
                        Diagnostic::error(
                            span,
                            "an `extern` declaration in a block cannot have an initializer",
                        )
                        .with_label("an initializer")
                        .with_help("initialize the variable where it is defined"),
                    );
                    continue;
                }
                self.extern_declarator(d, decl);
            }
            return Vec::new();
        }
        if q.is_global || q.is_device {
            self.push(
                Diagnostic::error(
                    d.span,
                    "`__global__` and `__device__` apply to functions, not variables",
                )
                .with_label("a variable")
                .with_help("remove the qualifier"),
            );
        }
        if q.is_shared && !self.in_gpu_code() {
            self.push(
                Diagnostic::error(
                    d.span,
                    "`__shared__` variables can only be declared in \
                    kernels and `__device__` functions",
                )
                .with_label("in host code")
                .with_help(
                    "use an ordinary local variable, or move this code into a \
                        `__global__` function",
                ),
            );
        }
        let mut out = Vec::new();
        for decl in &d.declarators {
            let name = decl.name.name.as_str();
            let is_const = var_is_const(d, decl);
            if !(q.is_shared || q.is_static) {
                let mut id = None;
                let span = decl.name.span;
                let (_, init) = self.object_type_and_init(d, decl, |c, ty| {
                    id = Some(c.new_local(name, ty.clone(), is_const, span));
                });
                // The lengths in its type and initializer, before it.
                out.extend(self.take_vla_lengths());
                if let Some(id) = id {
                    let ty = self.fx().map(|f| f.locals[id.0 as usize].ty.clone());
                    if let Some(ty) = ty.filter(|t| t.has_variable_size()) {
                        out.extend(self.vla_checks(&ty, name, span));
                        self.enter_vla_scope(id, span);
                    }
                    out.push(Stmt {
                        kind: StmtKind::Decl(id, init),
                        span: decl.span,
                    });
                }
                continue;
            }
            let (ty, init) = self.object_type_and_init(d, decl, |_, _| {});
            if crate::check::vla::is_variably_modified(&ty) {
                let what = if q.is_shared { "__shared__" } else { "static" };
                self.push(
                    Diagnostic::error(
                        decl.name.span,
                        format!("a `{what}` variable cannot have a variable-length array type"),
                    )
                    .with_label("its type depends on a length computed at run time")
                    .with_help("declare it without `static`, or use a plain pointer"),
                );
                continue;
            }
            {
                // One object for the whole program (or per GPU block):
                // hoisted to a global named `function.variable`.
                let init = if q.is_shared {
                    if let Some(init) = &decl.init {
                        let span = init.span();
                        self.push(
                            Diagnostic::error(
                                span,
                                "`__shared__` variables cannot have an initializer",
                            )
                            .with_label("an initializer")
                            .with_help("assign them in the kernel, then call `__syncthreads()`"),
                        );
                    }
                    None
                } else {
                    init.map(|i| self.const_init(&i, name))
                };
                let g = self.hoisted_global(GlobalVar {
                    name: name.to_string(),
                    ty,
                    is_const,
                    is_shared: q.is_shared,
                    is_extern: false,
                    is_static: true,
                    init,
                    span: decl.name.span,
                });
                self.declare_local_name(name, Sym::Global(g), decl.name.span);
            }
        }
        out
    }
}
