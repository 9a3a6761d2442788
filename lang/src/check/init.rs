//! Declarations' types and initializers: scalars, brace lists for arrays,
//! structs and unions (nested, with C's brace elision, designators `.x =`
//! and `[i] =`, and zero-filled tails), `[]` sizes taken from the
//! initializer, string literals for `char` arrays, and CUDA's `dim3 g(x,
//! y, z)` constructor form.

use std::collections::BTreeMap;

use super::expr::ConvCtx;
use super::types::{MAX_OBJECT_SIZE, UNSIZED};
use super::{Checker, err_ty, is_err};
use crate::ast::{self, Span};
use crate::diag::Diagnostic;
use crate::hir::{CType, Expr, ExprKind, Init};

fn is_aggregate(t: &CType) -> bool {
    matches!(t, CType::Array(..) | CType::Struct(_) | CType::Dim3)
}

fn is_char_array(t: &CType) -> bool {
    matches!(t, CType::Array(e, _) if matches!(**e, CType::Char | CType::UChar))
}

/// The members being initialized, by index, while a brace list is read.
type Members = BTreeMap<u64, Init>;

fn list(members: Members) -> Init {
    Init::List(members.into_iter().collect())
}

impl Checker {
    /// The type of a declared object and its checked initializer.
    /// `declare` brings the name into scope once the type is known and
    /// before the initializer is checked, as C scopes it (`T *p =
    /// malloc(sizeof *p)`); for `T a[] = {...}` the type needs the
    /// initializer first.
    pub(super) fn object_type_and_init(
        &mut self,
        d: &ast::Decl,
        decl: &ast::Declarator,
        mut declare: impl FnMut(&mut Checker, &CType),
    ) -> (CType, Option<Init>) {
        let name = decl.name.name.as_str();
        let base = self.resolve_spec(&d.ty.spec);
        let ty = self.declarator_type(&base, decl);
        if let CType::Array(elem, UNSIZED) = &ty
            && decl.init.is_some()
        {
            let (ty, init) = self.unsized_array((**elem).clone(), decl);
            declare(self, &ty);
            return (ty, init);
        }
        let automatic = !(d.quals.is_static || d.quals.is_shared || d.quals.is_extern);
        let ty = self.object_type(ty, decl, automatic);
        declare(self, &ty);
        if is_err(&ty) {
            self.check_init_exprs(decl);
            return (ty, None);
        }
        if ty.has_variable_size()
            && let Some(i) = &decl.init
        {
            // C99 6.7.8p3: the size is known only when the declaration runs.
            self.push(
                Diagnostic::error(
                    i.span(),
                    format!("variable-length array `{name}` cannot have an initializer"),
                )
                .with_label("its size is computed at run time")
                .with_help(format!(
                    "assign the elements after the declaration, or give `{name}` a constant size"
                )),
            );
            self.check_init_exprs(decl);
            return (ty, None);
        }
        let init = match &decl.init {
            Some(i) => Some(self.initializer(&ty, i, name)),
            // CUDA's `dim3` constructor makes a declared `dim3` (1, 1, 1).
            None if ty == CType::Dim3 => Some(Init::Expr(self.dim3_value(&[], decl.span))),
            None => None,
        };
        (ty, init)
    }

    /// Checks an initializer's expressions for their own errors only.
    fn check_init_exprs(&mut self, decl: &ast::Declarator) {
        if let Some(init) = &decl.init {
            self.initializer(&err_ty(), init, "");
        }
    }

    /// The type of a declared object, which must have a known size, or a
    /// variable one (a variable-length array) if it is `automatic`.
    fn object_type(&mut self, ty: CType, decl: &ast::Declarator, automatic: bool) -> CType {
        let name = decl.name.name.as_str();
        if is_err(&ty) {
            return ty;
        }
        if let CType::Array(_, UNSIZED) = ty {
            self.size_unknown(decl);
            return err_ty();
        }
        if !self.require_complete(&ty, decl.name.span, &format!("variable `{name}`")) {
            return err_ty();
        }
        if ty.has_variable_size() {
            // `static` and `__shared__` ones are refused by the caller.
            if automatic && !self.refuse_variable_object(&ty, Some(name), decl.name.span) {
                return err_ty();
            }
            return ty;
        }
        if self.size_of(&ty) > MAX_OBJECT_SIZE {
            let t = self.ty_name(&ty);
            self.push(
                Diagnostic::error(
                    decl.name.span,
                    format!(
                        "`{name}` is too large: `{t}` has {} bytes",
                        self.size_of(&ty)
                    ),
                )
                .with_label("too large"),
            );
            return err_ty();
        }
        ty
    }

    fn size_unknown(&mut self, decl: &ast::Declarator) {
        let name = &decl.name.name;
        self.push(
            Diagnostic::error(
                decl.span,
                format!("array `{name}` needs an explicit size or an initializer list"),
            )
            .with_label("the size is unknown")
            .with_help(format!("write `{name}[N]` or `{name}[] = {{ ... }}`")),
        );
    }

    /// `T a[] = {...}` or `char s[] = "..."`: the size comes from the initializer.
    fn unsized_array(&mut self, elem: CType, decl: &ast::Declarator) -> (CType, Option<Init>) {
        let name = decl.name.name.as_str();
        if is_err(&elem) {
            self.check_init_exprs(decl);
            return (err_ty(), None);
        }
        match &decl.init {
            Some(ast::Init::List(items, span)) => {
                let whole = CType::Array(Box::new(elem.clone()), UNSIZED);
                let mut pos = 0;
                let (members, n) = self.braced(&whole, items, &mut pos, name);
                if n == 0 {
                    self.push(
                        Diagnostic::error(*span, format!("array `{name}` has no elements"))
                            .with_label("an empty list")
                            .with_help("give the array a size or at least one initializer"),
                    );
                    return (err_ty(), None);
                }
                let ty = CType::Array(Box::new(elem), n);
                if self.size_of(&ty) > MAX_OBJECT_SIZE {
                    self.push(
                        Diagnostic::error(*span, format!("array `{name}` is too large"))
                            .with_label("too large"),
                    );
                    return (err_ty(), None);
                }
                (ty, Some(list(members)))
            }
            Some(ast::Init::Expr(ast::Expr {
                kind: ast::ExprKind::StrLit(bytes),
                span,
            })) if matches!(elem, CType::Char | CType::UChar) => {
                let n = bytes.len() as u64 + 1;
                let init = self.string_init(bytes, n, &elem, *span);
                let ty = CType::Array(Box::new(elem), n);
                (ty, Some(init))
            }
            _ => {
                self.size_unknown(decl);
                self.check_init_exprs(decl);
                (err_ty(), None)
            }
        }
    }

    /// `(T){ items }`: an unnamed object, a local of the function (a
    /// global at file scope, where its initializer must be constant).
    pub(super) fn compound_literal(
        &mut self,
        tn: &ast::TypeName,
        items: &[ast::InitItem],
        list_span: Span,
        span: Span,
    ) -> Expr {
        let what = "compound literal";
        let mut ty = self.resolve_type(tn);
        if is_err(&ty) {
            for i in items {
                self.initializer(&err_ty(), &i.init, what);
            }
            return super::expr::err_expr(span);
        }
        let init = if let CType::Array(elem, UNSIZED) = &ty {
            let mut pos = 0;
            let (members, n) = self.braced(&ty, items, &mut pos, what);
            ty = CType::Array(elem.clone(), n.max(1));
            list(members)
        } else {
            if !self.require_complete(&ty, tn.span, "a compound literal")
                || !self.refuse_variable_object(&ty, None, tn.span)
            {
                return super::expr::err_expr(span);
            }
            self.initializer(&ty, &ast::Init::List(items.to_vec(), list_span), what)
        };
        if self.fx.is_none() {
            let init = self.const_init(&init, what);
            let g = self.hoisted_global(crate::hir::GlobalVar {
                name: ".compound".to_string(),
                ty: ty.clone(),
                is_const: false,
                is_shared: false,
                is_extern: false,
                is_static: true,
                init: Some(init),
                span,
            });
            return super::expr::mk(ExprKind::Global(g), ty, span);
        }
        let local = self.new_local("", ty.clone(), false, span);
        if let Some(l) = self
            .fx
            .as_mut()
            .and_then(|f| f.locals.get_mut(local.0 as usize))
        {
            l.address_taken = true;
        }
        super::expr::mk(
            ExprKind::CompoundLit {
                local,
                init: Box::new(init),
            },
            ty,
            span,
        )
    }

    /// A `char` array initialized from a string: the bytes as `char`
    /// constants (the terminating NUL and the tail are zero-filled).
    fn string_init(&mut self, bytes: &[u8], n: u64, elem: &CType, span: Span) -> Init {
        if bytes.len() as u64 > n {
            self.push(
                Diagnostic::error(
                    span,
                    format!(
                        "this string ({} characters) is too long for `char[{n}]`",
                        bytes.len()
                    ),
                )
                .with_label("too long")
                .with_help(format!(
                    "make the array at least {} long (one more for the final NUL)",
                    bytes.len() + 1
                )),
            );
        }
        Init::List(
            (0u64..)
                .zip(bytes.iter().take(n as usize))
                .map(|(i, b)| {
                    let v = super::consts::wrap(elem, i64::from(*b));
                    (i, Init::Expr(super::expr::int_const(v, elem.clone(), span)))
                })
                .collect(),
        )
    }

    /// Checks an initializer against the object's type.
    pub(super) fn initializer(&mut self, ty: &CType, init: &ast::Init, name: &str) -> Init {
        match init {
            ast::Init::Expr(e) => {
                if let (true, ast::ExprKind::StrLit(bytes)) = (is_char_array(ty), &e.kind) {
                    let (n, elem) = match ty {
                        CType::Array(e, n) => (*n, (**e).clone()),
                        _ => (0, CType::Char),
                    };
                    return self.string_init(bytes, n, &elem, e.span);
                }
                let v = self.rvalue(e);
                if let CType::Array(..) = ty {
                    if !is_err(&v.ty) {
                        self.push(
                            Diagnostic::error(
                                e.span,
                                format!(
                                    "array `{name}` must be initialized with a list `{{ ... }}`"
                                ),
                            )
                            .with_label("not a list")
                            .with_help("arrays cannot be copied by assignment; list the elements"),
                        );
                    }
                    return Init::List(Vec::new());
                }
                Init::Expr(self.assign_conv(v, ty, ConvCtx::Init(name)))
            }
            ast::Init::List(items, span) => {
                if is_err(ty) {
                    for i in items {
                        self.initializer(ty, &i.init, name);
                    }
                    return Init::List(Vec::new());
                }
                if !is_aggregate(ty) {
                    // `int x = { 5 };` is valid C.
                    return match items.as_slice() {
                        [] => Init::Expr(self.zero_of(ty, *span)),
                        [one] if one.designators.is_empty() => {
                            self.initializer(ty, &one.init, name)
                        }
                        [one] => {
                            self.misplaced_designator(&one.designators[0], ty);
                            Init::Expr(self.zero_of(ty, *span))
                        }
                        [_, extra, ..] => {
                            let t = self.ty_name(ty);
                            self.push(
                                Diagnostic::error(
                                    extra.init.span(),
                                    format!("too many initializers for `{t}`"),
                                )
                                .with_label("extra initializer"),
                            );
                            Init::Expr(self.zero_of(ty, *span))
                        }
                    };
                }
                let mut pos = 0;
                let (members, _) = self.braced(ty, items, &mut pos, name);
                list(members)
            }
            ast::Init::Ctor(args, span) => {
                if *ty != CType::Dim3 {
                    if !is_err(ty) {
                        self.push(
                            Diagnostic::error(
                                *span,
                                "constructor-style initialization is only for `dim3`",
                            )
                            .with_label("not a `dim3`")
                            .with_help(format!("write `{name} = value`")),
                        );
                    }
                    return Init::List(Vec::new());
                }
                Init::Expr(self.dim3_value(args, *span))
            }
        }
    }

    /// The members of an aggregate and how many places it has: fields
    /// (a union has one place, the member designated last or the first),
    /// or array elements (`UNSIZED`: as many as the initializer gives).
    fn places(&self, ty: &CType) -> (Vec<(String, CType)>, u64) {
        match ty {
            CType::Array(_, n) => (Vec::new(), *n),
            t => {
                let fields: Vec<(String, CType)> = self
                    .fields_of(t)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(n, t, _)| (n, t))
                    .collect();
                let n = if self.is_union(t) {
                    1.min(fields.len() as u64)
                } else {
                    fields.len() as u64
                };
                (fields, n)
            }
        }
    }

    fn is_union(&self, t: &CType) -> bool {
        matches!(t, CType::Struct(id) if self.structs.get(id.0 as usize).is_some_and(|s| s.layout.is_union))
    }

    fn member_type(ty: &CType, fields: &[(String, CType)], k: u64) -> CType {
        match ty {
            CType::Array(e, _) => (**e).clone(),
            _ => fields.get(k as usize).map_or_else(err_ty, |f| f.1.clone()),
        }
    }

    /// A brace-enclosed list for an aggregate: its members, and the number
    /// of places used (the length of an unsized array). Designators
    /// (`.x = v`, `[i] = v`, `.a.b[2] = v`) choose where an item goes;
    /// other items go to the place after the previous one, each aggregate
    /// member taking its own braces or, without them, the next items
    /// (brace elision).
    fn braced(
        &mut self,
        ty: &CType,
        items: &[ast::InitItem],
        pos: &mut usize,
        name: &str,
    ) -> (Members, u64) {
        let (fields, count) = self.places(ty);
        let union = self.is_union(ty);
        let mut out = Members::new();
        let mut k = 0u64;
        let mut used = 0u64;
        // After a nested designator (`.a.x = 1`), C continues inside `a`;
        // parc asks for a designator instead (see `after_nested`).
        let mut after_nested: Option<Span> = None;
        while *pos < items.len() {
            let item = &items[*pos];
            if let Some((first, rest)) = item.designators.split_first() {
                let Some(j) = self.designated_place(ty, &fields, first) else {
                    *pos += 1;
                    self.initializer(&err_ty(), &item.init, name);
                    continue;
                };
                if union {
                    out.clear();
                }
                let mty = Self::member_type(ty, &fields, j);
                if rest.is_empty() {
                    let init = self.member_init(&mty, items, pos, name, true);
                    out.insert(j, init);
                    after_nested = None;
                } else {
                    *pos += 1;
                    let entry = out.remove(&j);
                    let sub = self.designated(&mty, rest, &item.init, entry, name);
                    out.insert(j, sub);
                    after_nested = Some(designator_span(first).to(item.init.span()));
                }
                k = j + 1;
                used = used.max(k);
                continue;
            }
            if k >= count {
                break;
            }
            if let Some(at) = after_nested.take() {
                self.push(
                    Diagnostic::error(
                        item.init.span(),
                        "an initializer after a nested designator needs a designator of its own",
                    )
                    .with_label("no designator")
                    .with_secondary(at, "a nested designator")
                    .with_help("write where it goes, e.g. `.a.y = ...`"),
                );
            }
            let mty = Self::member_type(ty, &fields, k);
            let init = self.member_init(&mty, items, pos, name, false);
            out.insert(k, init);
            k += 1;
            used = used.max(k);
            if union {
                k = count;
            }
        }
        if let Some(extra) = items.get(*pos) {
            let t = match ty {
                CType::Array(e, UNSIZED) => format!("{}[]", self.ty_name(e)),
                t => self.ty_name(t),
            };
            self.push(
                Diagnostic::error(
                    extra.init.span(),
                    format!("too many initializers for `{t}`"),
                )
                .with_label("this element has no place in the object"),
            );
            // Check what is left for errors of its own.
            for i in &items[*pos..] {
                self.initializer(&err_ty(), &i.init, "");
            }
            *pos = items.len();
        }
        (out, used)
    }

    /// The member at the next place from `items[*pos]`: its own braces,
    /// a string for a `char` array, a value, or (brace elision) the
    /// following items for an aggregate member given a plain value.
    /// `designated` says the item's designators were already applied.
    fn member_init(
        &mut self,
        mty: &CType,
        items: &[ast::InitItem],
        pos: &mut usize,
        name: &str,
        designated: bool,
    ) -> Init {
        let item = &items[*pos];
        let is_string = |e: &ast::Expr| matches!(e.kind, ast::ExprKind::StrLit(_));
        let elided = match &item.init {
            ast::Init::Expr(e) => {
                is_aggregate(mty)
                    && !(is_char_array(mty) && is_string(e))
                    // A struct may be initialized from a struct value.
                    && !(matches!(mty, CType::Struct(_) | CType::Dim3) && self.is_struct_value(e))
            }
            _ => false,
        };
        if !elided {
            *pos += 1;
            return self.initializer(mty, &item.init, name);
        }
        // Brace elision: the member takes as many items as it needs, up to
        // the next designated one (designators belong to the braces
        // around them).
        let (fields, count) = self.places(mty);
        let mut out = Members::new();
        let mut k = 0;
        let mut first = true;
        while k < count
            && *pos < items.len()
            && (first && designated || items[*pos].designators.is_empty())
        {
            first = false;
            let sub = Self::member_type(mty, &fields, k);
            let init = self.member_init(&sub, items, pos, name, false);
            out.insert(k, init);
            k += 1;
            if self.is_union(mty) {
                break;
            }
        }
        list(out)
    }

    /// Whether an expression given for a struct member is a struct value
    /// (`{ p, q }` with `p` a `struct P`) rather than its first field.
    fn is_struct_value(&mut self, e: &ast::Expr) -> bool {
        // Only the type matters: this check's diagnostics are dropped (the
        // real check of the item reports them).
        let n = self.diags.len();
        let reported = self.reported_unknown.clone();
        let v = self.rvalue(e);
        self.diags.truncate(n);
        self.reported_unknown = reported;
        matches!(v.ty, CType::Struct(_) | CType::Dim3)
    }

    /// The place a designator names in `ty`.
    fn designated_place(
        &mut self,
        ty: &CType,
        fields: &[(String, CType)],
        d: &ast::Designator,
    ) -> Option<u64> {
        match (d, ty) {
            (ast::Designator::Index(e, span), CType::Array(_, n)) => {
                let v = self.rvalue(e);
                if is_err(&v.ty) {
                    return None;
                }
                match self.eval(&v) {
                    Some(super::consts::Cv::I(i)) if v.ty.is_integer() => {
                        let i = if v.ty.is_unsigned() {
                            i as u64 as i128
                        } else {
                            i as i128
                        };
                        if i < 0
                            || (*n != UNSIZED && i >= *n as i128)
                            || i >= MAX_OBJECT_SIZE as i128
                        {
                            let t = self.ty_name(ty);
                            self.push(
                                Diagnostic::error(*span, format!("index {i} is outside `{t}`"))
                                    .with_label("out of bounds"),
                            );
                            return None;
                        }
                        Some(i as u64)
                    }
                    _ => {
                        self.push(
                            Diagnostic::error(
                                *span,
                                "an array designator must be an integer constant",
                            )
                            .with_label("not an integer constant"),
                        );
                        None
                    }
                }
            }
            (ast::Designator::Field(f), CType::Struct(_) | CType::Dim3) => {
                match fields.iter().position(|(n, _)| *n == f.name) {
                    Some(j) => Some(j as u64),
                    None => {
                        let t = self.ty_name(ty);
                        let mut d = Diagnostic::error(f.span, format!("`{t}` has no member `{f}`"))
                            .with_label("no such member");
                        if let Some(s) =
                            super::closest(&f.name, fields.iter().map(|f| f.0.as_str()))
                        {
                            d = d.with_help(format!("did you mean `.{s}`?"));
                        }
                        self.push(d);
                        None
                    }
                }
            }
            (d, ty) => {
                self.misplaced_designator(d, ty);
                None
            }
        }
    }

    fn misplaced_designator(&mut self, d: &ast::Designator, ty: &CType) {
        if is_err(ty) {
            return;
        }
        let t = self.ty_name(ty);
        let (what, help) = match d {
            ast::Designator::Index(..) => (
                "an array designator `[...]`",
                "use `.member =` for a struct",
            ),
            ast::Designator::Field(_) => (
                "a member designator `.name`",
                "use `[index] =` for an array",
            ),
        };
        self.push(
            Diagnostic::error(
                designator_span(d),
                format!("{what} cannot initialize `{t}`"),
            )
            .with_label("does not fit the type")
            .with_help(help),
        );
    }

    /// `rest = init` inside a member whose initializer so far is `prev`
    /// (`.a.x = 1` then `.a.y = 2` build one list for `a`).
    fn designated(
        &mut self,
        ty: &CType,
        rest: &[ast::Designator],
        init: &ast::Init,
        prev: Option<Init>,
        name: &str,
    ) -> Init {
        let Some((first, rest)) = rest.split_first() else {
            return self.initializer(ty, init, name);
        };
        let mut members: Members = match prev {
            Some(Init::List(v)) => v.into_iter().collect(),
            _ => Members::new(),
        };
        if !is_aggregate(ty) {
            self.misplaced_designator(first, ty);
            self.initializer(&err_ty(), init, name);
            return list(members);
        }
        let (fields, _) = self.places(ty);
        let Some(j) = self.designated_place(ty, &fields, first) else {
            self.initializer(&err_ty(), init, name);
            return list(members);
        };
        if self.is_union(ty) {
            members.retain(|&k, _| k == j);
        }
        let mty = Self::member_type(ty, &fields, j);
        let prev = members.remove(&j);
        let sub = self.designated(&mty, rest, init, prev, name);
        members.insert(j, sub);
        list(members)
    }

    /// `dim3(x, y, z)` components: integers converted to `unsigned`, the
    /// missing ones 1.
    pub(super) fn dim3_value(&mut self, args: &[ast::Expr], span: Span) -> Expr {
        if args.len() > 3 {
            self.push(
                Diagnostic::error(
                    args[3].span,
                    format!(
                        "`dim3` takes at most 3 components, but {} were given",
                        args.len()
                    ),
                )
                .with_label("extra component")
                .with_help("write `dim3(x, y, z)`"),
            );
        }
        let mut comps = Vec::new();
        let mut bad = false;
        for a in args.iter().take(3) {
            let v = self.rvalue(a);
            if is_err(&v.ty) {
                bad = true;
                continue;
            }
            if !v.ty.is_integer() {
                let t = self.ty_name(&v.ty);
                self.push(
                    Diagnostic::error(
                        a.span,
                        format!("`dim3` components must be integers, but this has type `{t}`"),
                    )
                    .with_label("not an integer"),
                );
                bad = true;
                continue;
            }
            comps.push(self.convert(v, &CType::UInt));
        }
        if bad {
            return super::expr::err_expr(span);
        }
        while comps.len() < 3 {
            comps.push(super::expr::int_const(1, CType::UInt, span));
        }
        let mut it = comps.into_iter().map(Box::new);
        let (Some(x), Some(y), Some(z)) = (it.next(), it.next(), it.next()) else {
            return super::expr::err_expr(span);
        };
        Expr {
            kind: ExprKind::Dim3(x, y, z),
            ty: CType::Dim3,
            span,
        }
    }
}

fn designator_span(d: &ast::Designator) -> Span {
    match d {
        ast::Designator::Field(f) => f.span,
        ast::Designator::Index(_, s) => *s,
    }
}
