//! Declarations' types and initializers: scalars, brace lists for arrays
//! and structs (nested, with C's brace elision and zero-filled tails), `[]`
//! sizes taken from the initializer, string literals for `char` arrays, and
//! CUDA's `dim3 g(x, y, z)` constructor form.

use super::expr::ConvCtx;
use super::types::MAX_OBJECT_SIZE;
use super::{Checker, err_ty, is_err};
use crate::ast::{self, Span};
use crate::diag::Diagnostic;
use crate::hir::{CType, Expr, ExprKind, Init};

fn is_aggregate(t: &CType) -> bool {
    matches!(t, CType::Array(..) | CType::Struct(_) | CType::Dim3)
}

fn is_char_array(t: &CType) -> bool {
    matches!(t, CType::Array(e, _) if **e == CType::Char)
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
        if let Some(None) = &decl.array_len {
            let base = self.resolve_type(&d.ty, decl.pointers);
            let (ty, init) = if is_err(&base)
                || !self.require_complete(&base, decl.span, &format!("the elements of `{name}`"))
            {
                self.check_init_exprs(decl);
                (err_ty(), None)
            } else {
                self.unsized_array(base, decl)
            };
            declare(self, &ty);
            return (ty, init);
        }
        let ty = self.object_type(d, decl);
        declare(self, &ty);
        if is_err(&ty) {
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

    /// The type of a declared object with a known size.
    fn object_type(&mut self, d: &ast::Decl, decl: &ast::Declarator) -> CType {
        let name = decl.name.name.as_str();
        let base = self.resolve_type(&d.ty, decl.pointers);
        if is_err(&base) {
            return err_ty();
        }
        let ty = match &decl.array_len {
            Some(Some(len)) => {
                if !self.require_complete(&base, decl.span, &format!("the elements of `{name}`")) {
                    return err_ty();
                }
                match self.array_len(len, name) {
                    Some(n) => CType::Array(Box::new(base), n),
                    None => return err_ty(),
                }
            }
            _ => base,
        };
        if !self.require_complete(&ty, decl.name.span, &format!("variable `{name}`")) {
            return err_ty();
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

    /// `T a[] = {...}` or `char s[] = "..."`: the size comes from the initializer.
    fn unsized_array(&mut self, elem: CType, decl: &ast::Declarator) -> (CType, Option<Init>) {
        let name = decl.name.name.as_str();
        match &decl.init {
            Some(ast::Init::List(items, span)) => {
                let mut pos = 0;
                let init = self.aggregate(
                    &CType::Array(Box::new(elem.clone()), u64::MAX),
                    items,
                    &mut pos,
                    name,
                );
                self.excess(items, pos, &CType::Array(Box::new(elem.clone()), 0));
                let n = match &init {
                    Init::List(v) => v.len() as u64,
                    Init::Expr(_) => 1,
                };
                if n == 0 {
                    self.push(
                        Diagnostic::error(*span, format!("array `{name}` has no elements"))
                            .with_label("an empty list")
                            .with_help("give the array a size or at least one initializer"),
                    );
                    return (err_ty(), None);
                }
                (CType::Array(Box::new(elem), n), Some(init))
            }
            Some(ast::Init::Expr(ast::Expr {
                kind: ast::ExprKind::StrLit(bytes),
                span,
            })) if elem == CType::Char => {
                let n = bytes.len() as u64 + 1;
                let ty = CType::Array(Box::new(CType::Char), n);
                let init = self.string_init(bytes, n, *span);
                (ty, Some(init))
            }
            _ => {
                self.push(
                    Diagnostic::error(
                        decl.span,
                        format!("array `{name}` needs an explicit size or an initializer list"),
                    )
                    .with_label("the size is unknown")
                    .with_help(format!("write `{name}[N]` or `{name}[] = {{ ... }}`")),
                );
                (err_ty(), None)
            }
        }
    }

    /// A `char` array initialized from a string: the bytes as `char`
    /// constants (the terminating NUL and the tail are zero-filled).
    fn string_init(&mut self, bytes: &[u8], n: u64, span: Span) -> Init {
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
            bytes
                .iter()
                .take(n as usize)
                .map(|b| Init::Expr(super::expr::int_const(*b as i8 as i64, CType::Char, span)))
                .collect(),
        )
    }

    /// Checks an initializer against the object's type.
    pub(super) fn initializer(&mut self, ty: &CType, init: &ast::Init, name: &str) -> Init {
        match init {
            ast::Init::Expr(e) => {
                if let (true, ast::ExprKind::StrLit(bytes)) = (is_char_array(ty), &e.kind) {
                    let n = match ty {
                        CType::Array(_, n) => *n,
                        _ => 0,
                    };
                    return self.string_init(bytes, n, e.span);
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
                        self.initializer(ty, i, name);
                    }
                    return Init::List(Vec::new());
                }
                if !is_aggregate(ty) {
                    // `int x = { 5 };` is valid C.
                    return match items.as_slice() {
                        [] => Init::Expr(self.zero_of(ty, *span)),
                        [one] => self.initializer(ty, one, name),
                        [_, extra, ..] => {
                            let t = self.ty_name(ty);
                            self.push(
                                Diagnostic::error(
                                    extra_span(extra),
                                    format!("too many initializers for `{t}`"),
                                )
                                .with_label("extra initializer"),
                            );
                            Init::Expr(self.zero_of(ty, *span))
                        }
                    };
                }
                let mut pos = 0;
                let out = self.aggregate(ty, items, &mut pos, name);
                self.excess(items, pos, ty);
                out
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

    fn excess(&mut self, items: &[ast::Init], pos: usize, ty: &CType) {
        if let Some(extra) = items.get(pos) {
            let t = match ty {
                CType::Array(e, 0) => format!("{}[]", self.ty_name(e)),
                t => self.ty_name(t),
            };
            self.push(
                Diagnostic::error(
                    extra_span(extra),
                    format!("too many initializers for `{t}`"),
                )
                .with_label("this element has no place in the object"),
            );
            // Check what is left for errors of its own.
            for i in &items[pos..] {
                self.initializer(&err_ty(), i, "");
            }
        }
    }

    /// Initializes the members of an aggregate from `items[*pos..]`,
    /// consuming as many as it needs (C99 6.7.8: a member that is itself an
    /// aggregate takes its own braces, or else the next items — brace
    /// elision). An array of size `u64::MAX` takes every remaining item.
    fn aggregate(&mut self, ty: &CType, items: &[ast::Init], pos: &mut usize, name: &str) -> Init {
        let fields = match ty {
            CType::Array(..) => None,
            t => Some(self.fields_of(t).unwrap_or_default()),
        };
        let count = match (ty, &fields) {
            (CType::Array(_, n), _) => *n,
            (_, Some(f)) => f.len() as u64,
            _ => 0,
        };
        let mut out = Vec::new();
        let mut k = 0u64;
        while k < count && *pos < items.len() {
            let mty = match (ty, &fields) {
                (CType::Array(e, _), _) => (**e).clone(),
                (_, Some(f)) => f[k as usize].1.clone(),
                _ => err_ty(),
            };
            let item = &items[*pos];
            // A string initializes a `char` array member by itself.
            let is_string = |e: &ast::Expr| matches!(e.kind, ast::ExprKind::StrLit(_));
            let elided = matches!(item, ast::Init::Expr(e)
                if is_aggregate(&mty) && !(is_char_array(&mty) && is_string(e)));
            if elided {
                out.push(self.aggregate(&mty, items, pos, name));
            } else {
                *pos += 1;
                out.push(self.initializer(&mty, item, name));
            }
            k += 1;
        }
        Init::List(out)
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

fn extra_span(i: &ast::Init) -> Span {
    match i {
        ast::Init::Expr(e) => e.span,
        ast::Init::List(_, s) | ast::Init::Ctor(_, s) => *s,
    }
}
