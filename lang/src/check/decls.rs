//! Written types: a declaration's base (keywords, `struct`/`union`/`enum`
//! specifiers with or without their members, names declared by
//! `typedef`) and the parts its declarators derive from it (pointers,
//! arrays, functions); struct and union layouts (x86-64); enumeration
//! constants; and the scopes of tags and type names.
//!
//! A specifier that defines a struct (`struct S { ... }`) is part of every
//! declarator's type in its declaration, so it is resolved once per
//! declarator: definitions are remembered by their source position and
//! defined only the first time. Tags live in block scopes as C says; a
//! `struct S` naming no visible tag declares an incomplete struct in the
//! current scope, which a later definition in the same scope completes.

use std::collections::HashMap;

use super::bitfield;
use super::consts::ArrayLen;
use super::types::{self, UNSIZED};
use super::{Checker, Sym, err_ty, is_err};
use crate::ast::{self, Span};
use crate::diag::Diagnostic;
use crate::hir::{self, CType, FuncType, StructId};
use crate::stdtypes::{StdType, std_type};

/// What a tag names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tag {
    Record(StructId),
    /// An enumeration (its type is `int`), and where it was declared.
    Enum(Span),
}

/// How a parameter's type is adjusted (C99 6.7.5.3): arrays become
/// pointers to their elements, functions pointers to functions.
pub(super) fn adjust_param(t: CType) -> CType {
    match t {
        CType::Array(e, _) | CType::VarArray(e, _) => e.ptr_to(),
        f @ CType::Func(_) => f.ptr_to(),
        other => other,
    }
}

fn std_ctype(t: StdType) -> CType {
    match t {
        StdType::SChar => CType::Char,
        StdType::UChar => CType::UChar,
        StdType::Short => CType::Short,
        StdType::UShort => CType::UShort,
        StdType::Int => CType::Int,
        StdType::UInt => CType::UInt,
        StdType::Long => CType::Long,
        StdType::ULong => CType::ULong,
    }
}

impl Checker {
    /// The type a type name (a cast, a parameter, a member, ...) denotes.
    /// `what` names the declared thing in messages (`array `a``).
    pub(super) fn resolve_type(&mut self, tn: &ast::TypeName) -> CType {
        let base = self.resolve_spec(&tn.spec);
        self.apply_derived(base, &tn.derived, "")
    }

    /// The type of a declarator of a declaration with base type `base`
    /// (already resolved), named `name` in messages.
    pub(super) fn declarator_type(&mut self, base: &CType, decl: &ast::Declarator) -> CType {
        self.apply_derived(base.clone(), &decl.derived, &decl.name.name)
    }

    /// The base type of specifiers: defines the struct, union or enum they
    /// define, and looks up tags and type names.
    pub(super) fn resolve_spec(&mut self, spec: &ast::TypeSpec) -> CType {
        match spec {
            ast::TypeSpec::Void => CType::Void,
            ast::TypeSpec::Bool => CType::Bool,
            ast::TypeSpec::Char => CType::Char,
            ast::TypeSpec::UChar => CType::UChar,
            ast::TypeSpec::Short => CType::Short,
            ast::TypeSpec::UShort => CType::UShort,
            ast::TypeSpec::Int => CType::Int,
            ast::TypeSpec::Unsigned => CType::UInt,
            ast::TypeSpec::Long => CType::Long,
            ast::TypeSpec::UnsignedLong => CType::ULong,
            ast::TypeSpec::Float => CType::Float,
            ast::TypeSpec::Double => CType::Double,
            ast::TypeSpec::Dim3 => CType::Dim3,
            ast::TypeSpec::Record(r) => self.record_type(r),
            ast::TypeSpec::Enum(e) => self.enum_type(e),
            ast::TypeSpec::TypeofExpr(e) => self.typeof_expr(e),
            ast::TypeSpec::TypeofType(tn) => self.resolve_type(tn),
            ast::TypeSpec::Typedef(name) => match self.lookup(&name.name) {
                Some(Sym::Typedef(t)) => self.typedef_type(t),
                _ => match std_type(&name.name) {
                    Some(t) => std_ctype(t),
                    None => {
                        // The parser re-tags only names a typedef declared,
                        // so this is a name that went out of scope.
                        self.push(
                            Diagnostic::error(
                                name.span,
                                format!("unknown type name `{}`", name.name),
                            )
                            .with_label("no type with this name is in scope here"),
                        );
                        err_ty()
                    }
                },
            },
        }
    }

    /// `typeof(e)`: the type of `e`, which is not evaluated (like
    /// `sizeof`'s operand); an array keeps its array type, and a function
    /// name gives the function's type, as in gcc.
    fn typeof_expr(&mut self, e: &ast::Expr) -> CType {
        let v = self.expr(e);
        if is_err(&v.ty) {
            return err_ty();
        }
        if self.refuse_bit_field(&v, "typeof", "write the bit-field's declared type instead") {
            return err_ty();
        }
        match v.kind {
            hir::ExprKind::FuncAddr(_) => v.ty.pointee().cloned().unwrap_or(v.ty),
            _ => v.ty,
        }
    }

    /// Applies a declarator's parts to a base type, reporting the
    /// combinations C forbids (arrays of functions, functions returning
    /// arrays or functions, arrays of incomplete types).
    fn apply_derived(&mut self, base: CType, derived: &[ast::Derived], name: &str) -> CType {
        let mut t = base;
        for d in derived {
            if is_err(&t) {
                // Check array lengths and parameters for their own errors.
                if let ast::Derived::Func { params, .. } = d {
                    self.param_list(params, false);
                }
                continue;
            }
            t = match d {
                ast::Derived::Pointer { .. } => t.ptr_to(),
                ast::Derived::VarLenStar { span } => {
                    if self.params_unevaluated > 0 {
                        CType::VarArray(Box::new(t), None)
                    } else {
                        self.push(
                            Diagnostic::error(
                                *span,
                                "`[*]` is only allowed in the parameters of a prototype",
                            )
                            .with_label("a length that is not given")
                            .with_help("write the length: the name of an earlier parameter"),
                        );
                        err_ty()
                    }
                }
                ast::Derived::Array { len, quals, span } => {
                    if quals.any() && (self.outer_param_array != Some(*span)) {
                        self.push(
                            Diagnostic::error(
                                *span,
                                "`static` and qualifiers inside `[]` are only allowed in \
                                 the outermost array of a parameter",
                            )
                            .with_label("not a parameter's outermost array")
                            .with_help("remove them, or declare a pointer: `double *restrict p`"),
                        );
                    }
                    let what = if name.is_empty() {
                        "the elements of an array".to_string()
                    } else {
                        format!("the elements of `{name}`")
                    };
                    if !self.require_complete(&t, *span, &what) {
                        err_ty()
                    } else {
                        match len {
                            None => CType::Array(Box::new(t), UNSIZED),
                            Some(e) => match self.array_len(e, name) {
                                Some(ArrayLen::Const(n)) => CType::Array(Box::new(t), n),
                                Some(ArrayLen::Var(k)) => CType::VarArray(Box::new(t), k),
                                None => err_ty(),
                            },
                        }
                    }
                }
                ast::Derived::Func {
                    params,
                    variadic,
                    span,
                } => {
                    let ps = self.param_list(params, false);
                    if matches!(t, CType::Array(..) | CType::VarArray(..) | CType::Func(_)) {
                        let what = if matches!(t, CType::Func(_)) {
                            "a function"
                        } else {
                            "an array"
                        };
                        self.push(
                            Diagnostic::error(*span, format!("a function cannot return {what}"))
                                .with_label("returns this")
                                .with_help("return a pointer instead"),
                        );
                        err_ty()
                    } else if ps.iter().any(|p| is_err(&p.0)) {
                        err_ty()
                    } else {
                        CType::Func(Box::new(FuncType {
                            ret: t,
                            params: ps.into_iter().map(|p| p.0).collect(),
                            variadic: *variadic,
                        }))
                    }
                }
            };
        }
        t
    }

    /// A parameter list's types (adjusted), names and spans; `(void)` is
    /// empty. A definition's parameters must have complete types.
    pub(super) fn param_list(
        &mut self,
        params: &[ast::Param],
        is_definition: bool,
    ) -> Vec<(CType, String, Span)> {
        if let [p] = params
            && p.name.is_none()
            && p.ty.is_plain_void()
        {
            return Vec::new();
        }
        let mut out = Vec::new();
        // Lengths naming parameters are not evaluated here (see `vla`).
        self.params_unevaluated += 1;
        for p in params {
            let ty = self.resolve_param_type(p);
            let name = p.name.as_ref().map(|n| n.name.clone()).unwrap_or_default();
            let what = if name.is_empty() {
                "a parameter".to_string()
            } else {
                format!("parameter `{name}`")
            };
            let mut ty = adjust_param(ty);
            if is_definition && !self.require_complete(&ty, p.span, &what) {
                ty = err_ty();
            } else if ty == CType::Void {
                self.require_complete(&ty, p.span, &what);
                ty = err_ty();
            }
            let span = p.name.as_ref().map_or(p.span, |n| n.span);
            out.push((ty, name, span));
        }
        self.params_unevaluated -= 1;
        out
    }

    /// A parameter's type as written (before adjustment), where its
    /// outermost array may have qualifiers and `static` in its brackets.
    pub(super) fn resolve_param_type(&mut self, p: &ast::Param) -> CType {
        let outer = match p.ty.derived.last() {
            Some(ast::Derived::Array { span, .. }) => Some(*span),
            _ => None,
        };
        let saved = std::mem::replace(&mut self.outer_param_array, outer);
        let ty = self.resolve_type(&p.ty);
        self.outer_param_array = saved;
        ty
    }

    // ------------------------------------------------------------- tags

    pub(super) fn lookup_tag(&self, name: &str) -> Option<Tag> {
        if let Some(fx) = &self.fx {
            for scope in fx.tags.iter().rev() {
                if let Some(t) = scope.get(name) {
                    return Some(*t);
                }
            }
        }
        self.file_tags.get(name).copied()
    }

    /// The tag declared in the innermost scope, if it is there.
    fn tag_in_current_scope(&self, name: &str) -> Option<Tag> {
        match &self.fx {
            Some(fx) => fx.tags.last().and_then(|s| s.get(name).copied()),
            None => self.file_tags.get(name).copied(),
        }
    }

    fn declare_tag(&mut self, name: &str, tag: Tag) {
        match self.fx.as_mut() {
            Some(fx) => {
                if let Some(s) = fx.tags.last_mut() {
                    s.insert(name.to_string(), tag);
                }
            }
            None => {
                self.file_tags.insert(name.to_string(), tag);
            }
        }
    }

    fn new_struct(&mut self, name: &str, is_union: bool, span: Span) -> StructId {
        let id = StructId(self.structs.len() as u32);
        self.structs.push(super::StructInfo {
            layout: hir::StructLayout {
                name: name.to_string(),
                is_union,
                fields: Vec::new(),
                size: 0,
                align: 1,
            },
            span,
            declared: false,
            complete: false,
        });
        id
    }

    /// A declaration of only a struct, union or enum: `struct S { ... };`,
    /// `struct S;` (which declares `S` in this scope even if an outer one
    /// has a struct of that name, as C says).
    pub(super) fn tag_declaration(&mut self, spec: &ast::TypeSpec) {
        if let ast::TypeSpec::Record(r) = spec
            && r.fields.is_none()
            && let Some(tag) = &r.tag
        {
            match self.tag_in_current_scope(&tag.name) {
                Some(Tag::Record(id)) => {
                    if self.structs[id.0 as usize].layout.is_union != r.is_union {
                        self.wrong_tag_kind(tag, Self::record_word(r.is_union));
                    }
                    self.structs[id.0 as usize].declared = true;
                }
                Some(Tag::Enum(_)) => self.wrong_tag_kind(tag, Self::record_word(r.is_union)),
                None => {
                    let id = self.new_struct(&tag.name, r.is_union, tag.span);
                    self.structs[id.0 as usize].declared = true;
                    self.declare_tag(&tag.name, Tag::Record(id));
                }
            }
            return;
        }
        self.resolve_spec(spec);
    }

    fn record_word(is_union: bool) -> &'static str {
        if is_union { "union" } else { "struct" }
    }

    /// `struct S`, `union U { ... }`, `struct { ... }`.
    fn record_type(&mut self, r: &ast::RecordSpec) -> CType {
        let word = Self::record_word(r.is_union);
        if let Some(&id) = self.record_defs.get(&r.span.start) {
            return CType::Struct(id);
        }
        let Some(fields) = &r.fields else {
            // A reference: to the visible tag, or a new incomplete one.
            let Some(tag) = &r.tag else { return err_ty() };
            return match self.lookup_tag(&tag.name) {
                Some(Tag::Record(id)) => {
                    if self.structs[id.0 as usize].layout.is_union != r.is_union {
                        self.wrong_tag_kind(tag, word);
                    }
                    CType::Struct(id)
                }
                Some(Tag::Enum(_)) => {
                    self.wrong_tag_kind(tag, word);
                    err_ty()
                }
                None => {
                    let id = self.new_struct(&tag.name, r.is_union, tag.span);
                    self.declare_tag(&tag.name, Tag::Record(id));
                    CType::Struct(id)
                }
            };
        };
        // A definition: completes a tag declared in this scope, or declares
        // a new one (hiding any outer tag of the same name).
        let id = match &r.tag {
            Some(tag) => match self.tag_in_current_scope(&tag.name) {
                Some(Tag::Record(id)) if !self.structs[id.0 as usize].complete => {
                    if self.structs[id.0 as usize].layout.is_union != r.is_union {
                        self.wrong_tag_kind(tag, word);
                    }
                    self.structs[id.0 as usize].span = tag.span;
                    id
                }
                Some(Tag::Record(id)) => {
                    let first = self.structs[id.0 as usize].span;
                    self.push(
                        Diagnostic::error(
                            tag.span,
                            format!("redefinition of {word} `{}`", tag.name),
                        )
                        .with_label("defined again here")
                        .with_secondary(first, "first defined here")
                        .with_help(format!("give the second {word} another name")),
                    );
                    self.record_defs.insert(r.span.start, id);
                    return CType::Struct(id);
                }
                Some(Tag::Enum(_)) => {
                    self.wrong_tag_kind(tag, word);
                    return err_ty();
                }
                None => {
                    let id = self.new_struct(&tag.name, r.is_union, tag.span);
                    self.declare_tag(&tag.name, Tag::Record(id));
                    id
                }
            },
            None => self.new_struct(&format!("<anonymous {word}>"), r.is_union, r.span),
        };
        self.record_defs.insert(r.span.start, id);
        self.define_record(id, fields, r);
        CType::Struct(id)
    }

    fn wrong_tag_kind(&mut self, tag: &ast::Ident, used_as: &str) {
        self.push(
            Diagnostic::error(tag.span, format!("`{}` is not a {used_as} tag", tag.name))
                .with_label("declared as another kind of tag")
                .with_help("struct, union and enum tags share one name space; rename one"),
        );
    }

    /// Lays out a struct or union's members (x86-64: natural alignment,
    /// bit-fields as gcc places them, see `bitfield`).
    fn define_record(&mut self, id: StructId, fields: &[ast::Field], r: &ast::RecordSpec) {
        let word = Self::record_word(r.is_union);
        let name = self.structs[id.0 as usize].layout.name.clone();
        let mut out: Vec<hir::FieldLayout> = Vec::new();
        let mut seen: HashMap<&str, Span> = HashMap::new();
        // `bits`: the next free bit; `size`: bytes used so far.
        let (mut bits, mut align, mut size) = (0u64, 1u64, 0u64);
        let last = fields.len().saturating_sub(1);
        for (k, f) in fields.iter().enumerate() {
            let mut ty = self.resolve_type(&f.ty);
            let fname = f.name.as_ref().map_or("", |n| n.name.as_str());
            if ty == CType::Struct(id) {
                self.push(
                    Diagnostic::error(f.span, format!("{word} `{name}` cannot contain itself"))
                        .with_label("this member would make it infinitely large")
                        .with_help(format!("use a pointer: `{word} {name} *{fname};`")),
                );
                ty = err_ty();
            }
            // C99's flexible array member: `double data[];` last in a struct.
            let flexible = matches!(ty, CType::Array(_, UNSIZED))
                && k == last
                && !r.is_union
                && k > 0
                && f.width.is_none();
            if flexible {
                if let CType::Array(e, _) = ty {
                    ty = CType::Array(e, 0);
                }
            } else if !self.require_complete(&ty, f.span, &format!("member `{fname}`")) {
                ty = err_ty();
            } else if super::vla::is_variably_modified(&ty) {
                self.push(
                    Diagnostic::error(
                        f.span,
                        format!("member `{fname}` has a variable-length array type"),
                    )
                    .with_label("its type depends on a length computed at run time")
                    .with_help(
                        "C allows them only for variables and parameters; use a plain pointer",
                    ),
                );
                ty = err_ty();
            }
            // A refused width leaves an ordinary member of the declared
            // type, so that its uses report nothing more.
            let width = match &f.width {
                Some(w) => self.bit_width(f, w, &ty),
                None => None,
            };
            if let Some(n) = &f.name {
                if let Some(prev) = seen.get(n.name.as_str()) {
                    self.push(
                        Diagnostic::error(
                            n.span,
                            format!("duplicate member `{n}` in {word} `{name}`"),
                        )
                        .with_label("declared again here")
                        .with_secondary(*prev, "first declared here"),
                    );
                    continue;
                }
                seen.insert(&n.name, n.span);
            }
            let (sz, al) = (self.size_of(&ty), self.align_of(&ty));
            if let Some(w) = width {
                let at = if r.is_union {
                    0
                } else {
                    bitfield::place(bits, w, sz)
                };
                bits = at + w;
                size = size.max(bits.div_ceil(8));
                let Some(n) = &f.name else { continue };
                align = align.max(al);
                let signed = self.bit_field_signed(&f.ty, &ty);
                let value_ty = bitfield::value_type(&ty, w);
                let (offset, bf) = bitfield::access(at, w, sz, signed, ty);
                out.push(hir::FieldLayout {
                    name: n.name.clone(),
                    ty: value_ty,
                    offset,
                    bits: Some(bf),
                });
                continue;
            }
            let Some(n) = &f.name else { continue };
            let at = if r.is_union {
                0
            } else {
                types::align_up(bits.div_ceil(8), al)
            };
            out.push(hir::FieldLayout {
                name: n.name.clone(),
                ty,
                offset: at,
                bits: None,
            });
            let end = at.saturating_add(if flexible { 0 } else { sz });
            bits = end.saturating_mul(8);
            size = size.max(end);
            align = align.max(al);
        }
        let size = types::align_up(size, align);
        if size > types::MAX_OBJECT_SIZE {
            self.push(
                Diagnostic::error(
                    r.span,
                    format!("{word} `{name}` is too large ({size} bytes)"),
                )
                .with_label("too large"),
            );
        }
        if out.is_empty() && !fields.is_empty() {
            // Every member was in error; keep the struct usable.
            self.structs[id.0 as usize].complete = true;
            self.structs[id.0 as usize].declared = true;
            return;
        }
        let info = &mut self.structs[id.0 as usize];
        info.declared = true;
        info.layout.fields = out;
        info.layout.size = size;
        info.layout.align = align;
        info.complete = !fields.is_empty();
    }

    // ------------------------------------------------------------- enums

    /// `enum E`, `enum E { A, B = 3 }`: the type is `int`; the constants
    /// are declared in the current scope.
    fn enum_type(&mut self, e: &ast::EnumSpec) -> CType {
        if self.enum_defs.contains(&e.span.start) {
            return CType::Int;
        }
        let Some(items) = &e.items else {
            if let Some(tag) = &e.tag {
                match self.lookup_tag(&tag.name) {
                    Some(Tag::Enum(_)) => {}
                    Some(Tag::Record(_)) => self.wrong_tag_kind(tag, "enum"),
                    // C forbids using an enum before its definition; gcc
                    // allows it as an incomplete type. Say it plainly.
                    None => self.push(
                        Diagnostic::error(tag.span, format!("unknown enum `{}`", tag.name))
                            .with_label("no enum with this name is defined before here")
                            .with_help("define the enum before using it"),
                    ),
                }
            }
            return CType::Int;
        };
        self.enum_defs.insert(e.span.start);
        if let Some(tag) = &e.tag {
            match self.tag_in_current_scope(&tag.name) {
                Some(Tag::Enum(first)) => {
                    self.push(
                        Diagnostic::error(tag.span, format!("redefinition of enum `{}`", tag.name))
                            .with_label("defined again here")
                            .with_secondary(first, "first defined here"),
                    );
                }
                Some(Tag::Record(_)) => self.wrong_tag_kind(tag, "enum"),
                None => self.declare_tag(&tag.name, Tag::Enum(tag.span)),
            }
        }
        let mut next: i64 = 0;
        let mut min: i64 = 0;
        for item in items {
            let value = match &item.value {
                Some(v) => self.enum_value(v, &item.name.name).unwrap_or(next),
                None => next,
            };
            if !(i64::from(i32::MIN)..=i64::from(i32::MAX)).contains(&value) {
                self.push(
                    Diagnostic::error(
                        item.name.span,
                        format!(
                            "the value of `{}` ({value}) does not fit in an `int`",
                            item.name
                        ),
                    )
                    .with_label("out of range"),
                );
            }
            self.declare_ordinary(&item.name.name, Sym::EnumConst(value), item.name.span);
            min = min.min(value);
            next = value.wrapping_add(1);
        }
        self.note_enum_sign(e, min);
        CType::Int
    }

    fn enum_value(&mut self, e: &ast::Expr, name: &str) -> Option<i64> {
        let v = self.rvalue(e);
        if is_err(&v.ty) {
            return None;
        }
        match self.eval(&v) {
            Some(super::consts::Cv::I(n)) if v.ty.is_integer() => Some(n),
            _ => {
                self.push(
                    Diagnostic::error(
                        e.span,
                        format!("the value of `{name}` is not an integer constant"),
                    )
                    .with_label("not an integer constant"),
                );
                None
            }
        }
    }

    /// Declares an ordinary identifier (variable, function, typedef name,
    /// enumeration constant) in the current scope, reporting a conflict with
    /// one declared there before.
    pub(super) fn declare_ordinary(&mut self, name: &str, sym: Sym, span: Span) {
        if self.fx.is_some() {
            self.declare_local_name(name, sym, span);
            return;
        }
        if let Some(prev) = self.file_syms.get(name).copied() {
            let same_typedef = match (prev, sym) {
                (Sym::Typedef(a), Sym::Typedef(b)) => {
                    types::compatible(&self.typedef_type(a), &self.typedef_type(b))
                }
                _ => false,
            };
            if !same_typedef {
                let at = self.file_sym_spans.get(name).copied();
                let mut d = Diagnostic::error(span, format!("redefinition of `{name}`"))
                    .with_label("declared again here");
                if let Some(at) = at {
                    d = d.with_secondary(at, "first declared here");
                }
                self.push(d);
            }
            return;
        }
        self.file_syms.insert(name.to_string(), sym);
        self.file_sym_spans.insert(name.to_string(), span);
    }

    /// `typedef T name;`: `name` stands for `ty` from here to the end of
    /// the scope. Declaring it again with the same type is allowed (C11).
    pub(super) fn declare_typedef(&mut self, name: &ast::Ident, ty: CType, id: super::TypedefId) {
        if let Some(t) = std_type(&name.name)
            && self.fx.is_none()
            && !self.file_syms.contains_key(&name.name)
        {
            let std = std_ctype(t);
            if !types::compatible(&std, &ty) && !is_err(&ty) {
                let (a, b) = (self.ty_name(&ty), self.ty_name(&std));
                self.push(
                    Diagnostic::error(
                        name.span,
                        format!("conflicting types for `{name}`: `{a}` here, `{b}` in parc"),
                    )
                    .with_label("declared with another type")
                    .with_help(format!(
                        "`{name}` is a standard type name; use another name"
                    )),
                );
                return;
            }
        }
        if self.fx.is_none()
            && let Some(Sym::Typedef(prev)) = self.file_syms.get(&name.name).copied()
            && let prev = self.typedef_type(prev)
            && !types::compatible(&prev, &ty)
            && !is_err(&ty)
            && !is_err(&prev)
        {
            let (a, b) = (self.ty_name(&ty), self.ty_name(&prev));
            self.push(
                Diagnostic::error(
                    name.span,
                    format!("conflicting types for `{name}`: `{a}` here, `{b}` before"),
                )
                .with_label("declared again with another type"),
            );
            return;
        }
        self.declare_ordinary(&name.name, Sym::Typedef(id), name.span);
    }
}
