//! Bit-fields: their widths, where gcc puts them on x86-64 (System V),
//! the type their value has, and which enumerations count as unsigned.
//!
//! The layout is gcc's: a bit-field of declared type `T` goes at the next
//! free bit unless it would straddle a `sizeof(T)`-aligned unit, in which
//! case it starts the next such unit; `T : 0` moves to the next unit; a
//! named bit-field gives the struct `T`'s alignment, an unnamed one none.
//! Reading one sign-extends when `T` is signed (an enumeration is unsigned
//! when none of its values is negative, as gcc's underlying type), and its
//! value has gcc's promoted type ([`value_type`]).

use super::types::align_up;
use super::{Checker, Sym, decls::Tag, is_err};
use crate::ast;
use crate::diag::Diagnostic;
use crate::hir::{BitField, CType, Expr, ExprKind};

/// The first bit at or after `pos` where a bit-field of `width` bits of
/// a `size`-byte type may start (the next unit for `width` 0).
pub(super) fn place(pos: u64, width: u64, size: u64) -> u64 {
    let unit = size.max(1) * 8;
    if width == 0 || pos / unit != (pos + width - 1) / unit {
        align_up(pos, unit)
    } else {
        pos
    }
}

/// The byte offset and access of a bit-field of `width` bits at bit `at`
/// of its struct, declared with a `size`-byte type: the smallest naturally
/// aligned unit of at most `size` bytes that holds every bit (one exists,
/// as [`place`] never lets a field straddle a `size`-aligned unit).
pub(super) fn access(
    at: u64,
    width: u64,
    size: u64,
    signed: bool,
    declared: CType,
) -> (u64, BitField) {
    let mut n: u64 = 1;
    while n < size && at / (8 * n) != (at + width - 1) / (8 * n) {
        n *= 2;
    }
    let offset = at / (8 * n) * n;
    let bits = BitField {
        unit: n as u8,
        shift: (at - offset * 8) as u8,
        width: width as u8,
        signed,
        declared,
    };
    (offset, bits)
}

/// The type of a bit-field's value, as gcc types it: `_Bool` stays
/// `_Bool`; narrower than 32 bits it is `int` (even when declared
/// unsigned, since `int` holds every value); exactly 32 bits an `int` or
/// `unsigned`; wider, the declared `long` type.
pub(super) fn value_type(declared: &CType, width: u64) -> CType {
    match declared {
        CType::Bool => CType::Bool,
        _ if width < 32 => CType::Int,
        _ if width == 32 && declared.is_unsigned() => CType::UInt,
        _ if width == 32 => CType::Int,
        other => other.clone(),
    }
}

/// Whether `e` is a bit-field (`s.flags`, `p->flags`).
pub(super) fn is_bit_field(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Member { bits: Some(_), .. })
}

impl Checker {
    /// Reports `op` (`&`, `sizeof`, ...) applied to bit-field `e`, which has
    /// no address and no size in bytes; says whether it was one.
    pub(super) fn refuse_bit_field(&mut self, e: &Expr, op: &str, help: &str) -> bool {
        if !is_bit_field(e) {
            return false;
        }
        self.push(
            Diagnostic::error(e.span, format!("`{op}` cannot be applied to a bit-field"))
                .with_label("a bit-field: bits inside a unit, with no address or size of its own")
                .with_help(help.to_string()),
        );
        true
    }

    /// The width of bit-field `f` of type `ty`, checked: an integer type,
    /// an integer constant from 0 (unnamed only) to the type's bits.
    /// `None` after an error.
    pub(super) fn bit_width(
        &mut self,
        f: &ast::Field,
        width: &ast::Expr,
        ty: &CType,
    ) -> Option<u64> {
        let what = match &f.name {
            Some(n) => format!("bit-field `{n}`"),
            None => "an unnamed bit-field".to_string(),
        };
        if is_err(ty) {
            return None;
        }
        if !ty.is_integer() {
            let t = self.ty_name(ty);
            self.push(
                Diagnostic::error(
                    f.ty.span,
                    format!("{what} has type `{t}`, which is not an integer type"),
                )
                .with_label("a bit-field needs an integer type")
                .with_help("declare it `int`, `unsigned` or `_Bool`, or remove the width"),
            );
            return None;
        }
        let v = self.rvalue(width);
        if is_err(&v.ty) {
            return None;
        }
        let n = match self.eval(&v) {
            Some(super::consts::Cv::I(n)) if v.ty.is_integer() => n,
            _ => {
                self.push(
                    Diagnostic::error(
                        width.span,
                        format!("the width of {what} is not an integer constant"),
                    )
                    .with_label("not an integer constant")
                    .with_help("write the number of bits, e.g. `: 3`"),
                );
                return None;
            }
        };
        let bits = self.size_of(ty) * 8;
        let t = self.ty_name(ty);
        let problem = if n < 0 {
            Some((
                format!("the width of {what} is negative ({n})"),
                "a width counts bits, from 1".to_string(),
            ))
        } else if n as u64 > bits {
            Some((
                format!("the width of {what} ({n} bits) exceeds its type `{t}` ({bits} bits)"),
                format!("use at most {bits} bits, or a wider type"),
            ))
        } else if n == 0 && f.name.is_some() {
            Some((
                format!("{what} has width 0"),
                "only an unnamed bit-field may have width 0 (`int : 0;` ends the unit)".to_string(),
            ))
        } else {
            None
        };
        if let Some((msg, help)) = problem {
            self.push(
                Diagnostic::error(width.span, msg)
                    .with_label("invalid width")
                    .with_help(help),
            );
            return None;
        }
        Some(n as u64)
    }

    /// Where member `name` of `t` is, if it is a bit-field.
    pub(super) fn field_bits(&self, t: &CType, name: &str) -> Option<BitField> {
        let CType::Struct(id) = t else { return None };
        let s = self.structs.get(id.0 as usize)?;
        s.layout
            .fields
            .iter()
            .find(|f| f.name == name)?
            .bits
            .clone()
    }

    /// Whether a bit-field declared with `tn` (of type `ty`) reads signed.
    pub(super) fn bit_field_signed(&mut self, tn: &ast::TypeName, ty: &CType) -> bool {
        if *ty == CType::Int && tn.derived.is_empty() && self.is_unsigned_enum(&tn.spec) {
            return false;
        }
        !ty.is_unsigned()
    }

    /// Whether `spec` names an enumeration none of whose values is negative.
    fn is_unsigned_enum(&self, spec: &ast::TypeSpec) -> bool {
        match spec {
            ast::TypeSpec::Enum(e) if e.items.is_some() => {
                self.unsigned_enums.contains(&e.span.start)
            }
            ast::TypeSpec::Enum(e) => match e.tag.as_ref().and_then(|t| self.lookup_tag(&t.name)) {
                Some(Tag::Enum(at)) => self.unsigned_enums.contains(&at.start),
                _ => false,
            },
            ast::TypeSpec::Typedef(name) => match self.lookup(&name.name) {
                Some(Sym::Typedef(t)) => self.unsigned_enum_typedefs.contains(&t.0),
                _ => false,
            },
            _ => false,
        }
    }

    /// Records that enumeration `e`, whose smallest value is `min`, is
    /// unsigned (when `min` is not negative).
    pub(super) fn note_enum_sign(&mut self, e: &ast::EnumSpec, min: i64) {
        if min >= 0 {
            self.unsigned_enums.insert(e.span.start);
            if let Some(tag) = &e.tag {
                self.unsigned_enums.insert(tag.span.start);
            }
        }
    }

    /// Records that typedef `id`, declared with `spec` as type `ty`, is an
    /// unsigned enumeration.
    pub(super) fn note_enum_typedef(
        &mut self,
        id: super::TypedefId,
        spec: &ast::TypeSpec,
        ty: &CType,
    ) {
        if *ty == CType::Int && self.is_unsigned_enum(spec) {
            self.unsigned_enum_typedefs.insert(id.0);
        }
    }
}
