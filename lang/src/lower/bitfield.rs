//! Bit-fields: reading one out of its unit (shift, then sign- or
//! zero-extend) and writing one into it (load the unit, clear the field's
//! bits, or in the new ones, store), as gcc does. The unit is the access
//! the checker chose ([`BitField`]): an integer of 1, 2, 4 or 8 bytes.

use super::func::FnLowerer;
use crate::hir::{BitField, CType, Expr, ExprKind, scalar_type};
use parc_ir::{BinaryOp, Type, Value};

/// The bit-field an lvalue designates, if it is one.
pub(super) fn bit_field(e: &Expr) -> Option<&BitField> {
    match &e.kind {
        ExprKind::Member { bits, .. } => bits.as_ref(),
        _ => None,
    }
}

/// The IR integer type of a bit-field's unit.
pub(super) fn unit_type(bits: &BitField) -> Type {
    match bits.unit {
        1 => Type::I8,
        2 => Type::I16,
        4 => Type::I32,
        _ => Type::I64,
    }
}

impl FnLowerer<'_, '_> {
    /// The value of bit-field `bits` of the unit at `addr`, as C type `ty`.
    pub(super) fn bit_read(&mut self, addr: Value, bits: &BitField, ty: &CType) -> Value {
        let ut = unit_type(bits);
        let unit = self.b.load(ut, addr);
        let top = ut.bits() - u32::from(bits.shift) - u32::from(bits.width);
        let raised = self.shift(BinaryOp::Shl, unit, top);
        self.extend_field(raised, bits, u32::from(bits.shift) + top, ty)
    }

    /// Stores `v` (of C type `ty`) into bit-field `bits` of the unit at
    /// `addr`; returns the value the field holds afterwards (as `ty`),
    /// which is what an assignment to it yields.
    pub(super) fn bit_write(
        &mut self,
        addr: Value,
        bits: &BitField,
        v: Value,
        ty: &CType,
    ) -> Value {
        let ut = unit_type(bits);
        let nv = self.int_resize(v, ut, false);
        let placed = self.shift(BinaryOp::Shl, nv, u32::from(bits.shift));
        let mask = self.b.iconst(ut, bits.mask() as i64);
        let field = self.b.binary(BinaryOp::And, placed, mask);
        let old = self.b.load(ut, addr);
        let keep = self.b.iconst(ut, !bits.mask() as i64);
        let kept = self.b.binary(BinaryOp::And, old, keep);
        let new = self.b.binary(BinaryOp::Or, kept, field);
        self.b.store(new, addr);
        // What was stored, read back from the register: the field's bits
        // at the top of the unit, shifted down with extension.
        let top = ut.bits() - u32::from(bits.width);
        let raised = self.shift(BinaryOp::Shl, nv, top);
        self.extend_field(raised, bits, top, ty)
    }

    /// Shifts the field at the top of a unit value down to bit 0 (by
    /// `down` bits), extending by its signedness, then resizes it to `ty`.
    fn extend_field(&mut self, raised: Value, bits: &BitField, down: u32, ty: &CType) -> Value {
        let op = if bits.signed {
            BinaryOp::Ashr
        } else {
            BinaryOp::Lshr
        };
        let v = self.shift(op, raised, down);
        let t = scalar_type(ty).unwrap_or(Type::I32);
        self.int_resize(v, t, bits.signed)
    }

    fn shift(&mut self, op: BinaryOp, v: Value, by: u32) -> Value {
        if by == 0 {
            return v;
        }
        let t = self.b.func.value_type(v);
        let n = self.b.iconst(t, i64::from(by));
        self.b.binary(op, v, n)
    }
}
