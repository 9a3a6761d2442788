//! Element and member access: `a[i]`, `s.f`, `p->f`, `offsetof`, and the
//! GPU index variables (`threadIdx.x`, ...).

use super::{err_expr, gpu_index, int_const, mk};
use crate::ast::{self, Span};
use crate::check::consts::Cv;
use crate::check::{Checker, is_err};
use crate::diag::Diagnostic;
use crate::hir::{CType, Expr, ExprKind, GpuIndex};

impl Checker {
    pub(super) fn index(&mut self, a: &ast::Expr, i: &ast::Expr, span: Span) -> Expr {
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

    pub(super) fn member(
        &mut self,
        base: &ast::Expr,
        field: &ast::Ident,
        arrow: bool,
        span: Span,
    ) -> Expr {
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
            self.no_such_field(&obj.ty, &fields, field);
            return err_expr(span);
        };
        let bits = self.field_bits(&obj.ty, &field.name);
        mk(
            ExprKind::Member {
                base: Box::new(obj),
                offset: *offset,
                bits,
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

    /// `offsetof(T, m.n[k])`: where that member lies in a `T`, in bytes,
    /// an integer constant of `sizeof`'s type.
    pub(super) fn offsetof(
        &mut self,
        tn: &ast::TypeName,
        path: &[ast::Designator],
        span: Span,
    ) -> Expr {
        let mut ty = self.resolve_type(tn);
        if is_err(&ty) {
            return err_expr(span);
        }
        let mut offset: u64 = 0;
        for step in path {
            match step {
                ast::Designator::Field(name) => {
                    if !matches!(ty, CType::Struct(_)) {
                        let t = self.ty_name(&ty);
                        self.push(
                            Diagnostic::error(
                                name.span,
                                format!("`offsetof` names a member of a struct or union, but this is a `{t}`"),
                            )
                            .with_label("not a member"),
                        );
                        return err_expr(span);
                    }
                    if !self.require_complete(&ty, tn.span, "the type `offsetof` looks into") {
                        return err_expr(span);
                    }
                    let fields = self.fields_of(&ty).unwrap_or_default();
                    let Some((_, fty, at)) = fields.iter().find(|f| f.0 == name.name) else {
                        self.no_such_field(&ty, &fields, name);
                        return err_expr(span);
                    };
                    if self.field_bits(&ty, &name.name).is_some() {
                        self.push(
                            Diagnostic::error(
                                name.span,
                                format!("`offsetof` cannot name bit-field `{name}`"),
                            )
                            .with_label("a bit-field has no byte offset of its own")
                            .with_help("name an ordinary member"),
                        );
                        return err_expr(span);
                    }
                    offset = offset.saturating_add(*at);
                    ty = fty.clone();
                }
                ast::Designator::Index(e, at) => {
                    let CType::Array(elem, _) = &ty else {
                        let t = self.ty_name(&ty);
                        self.push(
                            Diagnostic::error(
                                *at,
                                format!("`[...]` in `offsetof` needs an array member, but this is a `{t}`"),
                            )
                            .with_label("not an array"),
                        );
                        return err_expr(span);
                    };
                    let elem = (**elem).clone();
                    let k = self.rvalue(e);
                    if is_err(&k.ty) {
                        return err_expr(span);
                    }
                    let Some(Cv::I(k)) = self.eval(&k).filter(|_| k.ty.is_integer()) else {
                        self.push(
                            Diagnostic::error(
                                *at,
                                "the index in `offsetof` must be an integer constant",
                            )
                            .with_label("not an integer constant"),
                        );
                        return err_expr(span);
                    };
                    let size = self.size_of(&elem) as i64;
                    offset = (offset as i64).wrapping_add(k.wrapping_mul(size)) as u64;
                    ty = elem;
                }
            }
        }
        int_const(offset as i64, CType::Long, span)
    }

    /// Reports `field`, which `ty` (a struct, a union or `dim3`, whose
    /// `fields` these are) does not have, with the closest name or the list.
    fn no_such_field(&mut self, ty: &CType, fields: &[(String, CType, u64)], field: &ast::Ident) {
        let sname = match ty {
            CType::Struct(id) => match self.structs.get(id.0 as usize) {
                Some(s) => format!("struct `{}`", s.layout.name),
                None => "this struct".to_string(),
            },
            _ => "`dim3`".to_string(),
        };
        let names: Vec<&str> = fields.iter().map(|f| f.0.as_str()).collect();
        let d = Diagnostic::error(field.span, format!("{sname} has no field `{}`", field.name))
            .with_label("unknown field");
        let d = match crate::check::closest(&field.name, names.iter().copied()) {
            Some(s) => d.with_help(format!("did you mean `{s}`?")),
            None => {
                let list: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
                d.with_help(format!("its fields are {}", list.join(", ")))
            }
        };
        self.push(d);
    }
}
