//! Declarations at file scope other than functions: globals (with their
//! constant initializers), `extern` declarations, typedefs, and the names
//! that are taken already (builtins, other kinds of declaration).

use super::{Checker, GlobalInfo, Sym, TypedefId, is_err};
use super::{calls, types, var_is_const};
use crate::ast::{self, Span};
use crate::diag::Diagnostic;
use crate::hir::{self, CType, GlobalVarId};

impl Checker {
    pub(super) fn global_decl(&mut self, d: &ast::Decl) {
        let q = d.quals;
        if q.is_shared {
            self.push(
                Diagnostic::error(
                    d.span,
                    "`__shared__` variables can only be declared inside kernels",
                )
                .with_label("a file-scope `__shared__` variable")
                .with_help("declare it at the top of the `__global__` function that uses it"),
            );
        }
        if q.is_global || q.is_device {
            self.push(
                Diagnostic::error(
                    d.span,
                    "`__global__` and `__device__` apply to functions, not variables",
                )
                .with_label("a variable")
                .with_help("remove the qualifier; the variable is visible to host code"),
            );
        }
        if q.is_typedef {
            self.typedef_decl(d);
            return;
        }
        if d.declarators.is_empty() {
            // `struct S { ... };` or `struct S;`: declares the type only.
            self.tag_declaration(&d.ty.spec);
            return;
        }
        for decl in &d.declarators {
            self.global_declarator(d, decl);
        }
    }

    /// `typedef T a, *b;` (at file or block scope).
    pub(crate) fn typedef_decl(&mut self, d: &ast::Decl) {
        let base = self.resolve_spec(&d.ty.spec);
        for decl in &d.declarators {
            let ty = self.declarator_type(&base, decl);
            let id = TypedefId(self.typedefs.len() as u32);
            self.typedefs.push(ty.clone());
            self.note_enum_typedef(id, &d.ty.spec, &ty);
            self.declare_typedef(&decl.name, ty, id);
        }
    }

    /// A global variable named like a builtin function is an error;
    /// returns whether `name` is one.
    fn refuse_builtin_name(&mut self, name: &str, at: Span) -> bool {
        if !calls::is_builtin_name(name) {
            return false;
        }
        self.push(
            Diagnostic::error(at, format!("`{name}` is the name of a builtin function"))
                .with_label("a builtin's name")
                .with_help("choose another name for the variable"),
        );
        true
    }

    /// `name` at `at` redeclares, as another kind of thing, what `prev`
    /// declared (`what` says what is there).
    pub(super) fn other_kind(&mut self, name: &str, at: Span, prev: Span, what: &str) {
        self.push(
            Diagnostic::error(
                at,
                format!("redefinition of `{name}` as a different kind of symbol"),
            )
            .with_label("redeclared here")
            .with_secondary(prev, what.to_string()),
        );
    }

    /// Reports a file-scope name declared before as a type name or an
    /// enumeration constant; true if there was one.
    pub(super) fn declared_as_other_kind(&mut self, name: &ast::Ident) -> bool {
        let what = match self.file_syms.get(&name.name) {
            Some(Sym::Typedef(_)) => "a type name",
            Some(Sym::EnumConst(_)) => "an enumeration constant",
            _ => return false,
        };
        let mut d = Diagnostic::error(
            name.span,
            format!("redefinition of `{name}` as a different kind of symbol"),
        )
        .with_label("redeclared here");
        if let Some(at) = self.file_sym_spans.get(&name.name) {
            d = d.with_secondary(*at, format!("declared as {what} here"));
        }
        self.push(d);
        true
    }

    fn global_declarator(&mut self, d: &ast::Decl, decl: &ast::Declarator) {
        let name = decl.name.name.as_str();
        if d.quals.is_extern && decl.init.is_none() {
            self.extern_declarator(d, decl);
            return;
        }
        let (ty, init) = self.object_type_and_init(d, decl, |_, _| {});
        let is_const = var_is_const(d, decl);
        let init = init.map(|i| self.const_init(&i, name));
        if self.declared_as_other_kind(&decl.name) {
            return;
        }
        if let Some(sym) = self.file_syms.get(name).copied() {
            match sym {
                Sym::Global(g) => {
                    let gi = g.0 as usize;
                    let prev_ty = self.globals[gi].ty.clone();
                    // C99 6.2.2: at file scope an object declared without a
                    // storage class has external linkage, so it and a
                    // `static` one of the same name conflict either way.
                    if self.globals[gi].is_static != d.quals.is_static {
                        let (msg, this, before) = if d.quals.is_static {
                            (
                                format!(
                                    "static declaration of `{name}` follows non-static declaration"
                                ),
                                "declared `static` here",
                                "declared without `static` here",
                            )
                        } else {
                            (
                                format!(
                                    "non-static declaration of `{name}` follows static declaration"
                                ),
                                "declared without `static` here",
                                "declared `static` here",
                            )
                        };
                        let prev = self.globals[gi].span;
                        self.push(
                            Diagnostic::error(decl.name.span, msg)
                                .with_label(this)
                                .with_secondary(prev, before)
                                .with_help("declare it `static` everywhere, or nowhere (`extern` may follow `static`)"),
                        );
                        return;
                    }
                    if self.globals[gi].is_extern && types::compatible(&prev_ty, &ty) {
                        // `extern int x;` then `int x = 1;`: this defines it.
                        self.globals[gi].is_extern = false;
                        self.globals[gi].ty = ty.clone();
                    }
                    if !types::compatible(&prev_ty, &ty) && !is_err(&ty) && !is_err(&prev_ty) {
                        let prev = self.globals[gi].span;
                        let msg = format!(
                            "conflicting types for `{name}`: `{}` here, `{}` before",
                            self.ty_name(&ty),
                            self.ty_name(&prev_ty)
                        );
                        self.push(
                            Diagnostic::error(decl.name.span, msg)
                                .with_secondary(prev, "previously declared here"),
                        );
                        return;
                    }
                    if let Some(init) = init {
                        if let Some(first) = self.global_info[gi].defined_at {
                            self.push(
                                Diagnostic::error(
                                    decl.name.span,
                                    format!("redefinition of `{name}`"),
                                )
                                .with_label("defined again here")
                                .with_secondary(first, "first defined here"),
                            );
                            return;
                        }
                        self.global_info[gi].defined_at = Some(decl.name.span);
                        self.globals[gi].init = Some(init);
                    }
                }
                Sym::Func(f) => {
                    let span = self.func_info[f.0 as usize].decl_span;
                    self.other_kind(
                        name,
                        decl.name.span,
                        span,
                        "a function with this name is declared here",
                    );
                }
                Sym::Local(_) | Sym::Typedef(_) | Sym::EnumConst(_) => {}
            }
            return;
        }
        self.refuse_builtin_name(name, decl.name.span);
        let g = GlobalVarId(self.globals.len() as u32);
        self.global_info.push(GlobalInfo {
            defined_at: init.as_ref().map(|_| decl.name.span),
        });
        self.globals.push(hir::GlobalVar {
            name: name.to_string(),
            ty,
            is_const,
            is_shared: false,
            is_extern: false,
            is_static: d.quals.is_static,
            init,
            span: decl.name.span,
        });
        self.file_syms.insert(name.to_string(), Sym::Global(g));
    }

    /// `extern T x;` (at file or block scope): declares a global defined
    /// elsewhere, or refers to the one declared before. Its type may be
    /// incomplete; a definition later in the file completes it.
    pub(crate) fn extern_declarator(&mut self, d: &ast::Decl, decl: &ast::Declarator) {
        let name = decl.name.name.as_str();
        let base = self.resolve_spec(&d.ty.spec);
        let ty = self.declarator_type(&base, decl);
        if is_err(&ty) {
            return;
        }
        if let CType::Func(_) = ty {
            // `extern int f(int);` in a block: parse reports it.
            return;
        }
        if ty == CType::Void {
            self.require_complete(&ty, decl.name.span, &format!("variable `{name}`"));
            return;
        }
        let local = self.fx.is_some();
        if !local && self.declared_as_other_kind(&decl.name) {
            return;
        }
        let g = match self.file_syms.get(name).copied() {
            Some(Sym::Global(g)) => {
                let gi = g.0 as usize;
                let prev_ty = self.globals[gi].ty.clone();
                if !types::compatible(&prev_ty, &ty) {
                    let msg = format!(
                        "conflicting types for `{name}`: `{}` here, `{}` before",
                        self.ty_name(&ty),
                        self.ty_name(&prev_ty)
                    );
                    let prev = self.globals[gi].span;
                    self.push(
                        Diagnostic::error(decl.name.span, msg)
                            .with_secondary(prev, "previously declared here"),
                    );
                    return;
                }
                // `extern int a[10];` after `extern int a[];` knows more.
                if !self.is_complete(&prev_ty) && self.is_complete(&ty) {
                    self.globals[gi].ty = ty;
                }
                g
            }
            Some(Sym::Func(f)) if !local => {
                let span = self.func_info[f.0 as usize].decl_span;
                self.other_kind(
                    name,
                    decl.name.span,
                    span,
                    "a function with this name is declared here",
                );
                return;
            }
            _ => {
                if self.refuse_builtin_name(name, decl.name.span) {
                    return;
                }
                let g = GlobalVarId(self.globals.len() as u32);
                self.global_info.push(GlobalInfo { defined_at: None });
                self.globals.push(hir::GlobalVar {
                    name: name.to_string(),
                    ty,
                    is_const: var_is_const(d, decl),
                    is_shared: false,
                    is_extern: true,
                    is_static: false,
                    init: None,
                    span: decl.name.span,
                });
                if !local || !self.file_syms.contains_key(name) {
                    self.file_syms.insert(name.to_string(), Sym::Global(g));
                }
                g
            }
        };
        if local {
            self.declare_local_name(name, Sym::Global(g), decl.name.span);
        }
    }

    /// A global variable created for a block-scope `__shared__` or `static`
    /// declaration, named `function.variable` (made unique).
    pub(super) fn hoisted_global(&mut self, var: hir::GlobalVar) -> GlobalVarId {
        let base = format!("{}.{}", self.fx().map_or("", |f| f.name.as_str()), var.name);
        let mut name = base.clone();
        let mut n = 2;
        while self.globals.iter().any(|g| g.name == name) {
            name = format!("{base}.{n}");
            n += 1;
        }
        let g = GlobalVarId(self.globals.len() as u32);
        self.global_info.push(GlobalInfo { defined_at: None });
        self.globals.push(hir::GlobalVar {
            name,
            is_static: true,
            ..var
        });
        g
    }
}
