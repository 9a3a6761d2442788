//! Arithmetic, comparisons and casts: their edge cases.
//!
//! Shifts use CLIF's `ishl`/`ushr`/`sshr`,
//! which take the amount modulo the width, as parir says. Integer division
//! and remainder check the divisor (see the fault protocol) and never trap
//! in hardware: `INT_MIN / -1` is `INT_MIN` and `INT_MIN % -1` is 0
//! (wrapping, as gcc `-fwrapv`), computed by dividing by 1 instead when the
//! divisor is -1. Float → integer casts saturate (NaN → 0) at the target
//! width, including `i8`; `fcmp ne` is unordered-or-not-equal and the
//! other predicates are ordered, as C's operators.

use super::abi::clif_type;
use super::function::FnTranslator;
use super::{FAULT_DIV_ZERO, iconst, resize_int};
use crate::BackendError;
use cranelift_codegen::ir::{self as cl, InstBuilder, condcodes, types};
use cranelift_frontend::FunctionBuilder;
use cranelift_module::Module as ClModule;
use parc_ir::{BinaryOp, CastOp, FloatCC, IntCC, Type, Value};

impl<'a, 'b, 'c, M: ClModule> FnTranslator<'a, 'b, 'c, M> {
    /// A lane-wise operator ([`BinaryOp::is_lanewise`]) on CLIF values of
    /// one (scalar or vector) type.
    pub(super) fn lane_op(&mut self, op: BinaryOp, x: cl::Value, y: cl::Value) -> cl::Value {
        use BinaryOp::*;
        match op {
            Iadd => self.b.ins().iadd(x, y),
            Isub => self.b.ins().isub(x, y),
            Imul => self.b.ins().imul(x, y),
            And => self.b.ins().band(x, y),
            Or => self.b.ins().bor(x, y),
            Xor => self.b.ins().bxor(x, y),
            Fadd => self.b.ins().fadd(x, y),
            Fsub => self.b.ins().fsub(x, y),
            Fmul => self.b.ins().fmul(x, y),
            _ => self.b.ins().fdiv(x, y),
        }
    }

    pub(super) fn binary(
        &mut self,
        op: BinaryOp,
        a: Value,
        b: Value,
    ) -> Result<cl::Value, BackendError> {
        use BinaryOp::*;
        if self.ty(a).is_vector() {
            if !op.is_lanewise() {
                return Err(self.err(format!("`{}` of vectors", op.name())));
            }
            let (x, y) = (self.val(a)?, self.val(b)?);
            return Ok(self.lane_op(op, x, y));
        }
        let ty = self.ty(a);
        let (x, y) = (self.val(a)?, self.val(b)?);
        let r = match op {
            Iadd => self.b.ins().iadd(x, y),
            Isub => self.b.ins().isub(x, y),
            Imul => self.b.ins().imul(x, y),
            And => self.b.ins().band(x, y),
            Or => self.b.ins().bor(x, y),
            Xor => self.b.ins().bxor(x, y),
            // An `i1` shift amount is taken modulo 1: always 0.
            Shl | Lshr | Ashr if ty == Type::I1 => x,
            Shl => self.b.ins().ishl(x, y),
            Lshr => self.b.ins().ushr(x, y),
            Ashr => self.b.ins().sshr(x, y),
            Sdiv | Udiv | Srem | Urem => self.divide(op, ty, x, y, b)?,
            Fadd => self.b.ins().fadd(x, y),
            Fsub => self.b.ins().fsub(x, y),
            Fmul => self.b.ins().fmul(x, y),
            Fdiv => self.b.ins().fdiv(x, y),
        };
        Ok(if ty == Type::I1 && matches!(op, Iadd | Isub | Imul) {
            self.b.ins().band_imm_u(r, 1)
        } else {
            r
        })
    }

    /// Division and remainder with the zero check and without the hardware
    /// trap of `MIN / -1` (see the module doc).
    pub(super) fn divide(
        &mut self,
        op: BinaryOp,
        ty: Type,
        x: cl::Value,
        y: cl::Value,
        divisor: Value,
    ) -> Result<cl::Value, BackendError> {
        let known = self.f.const_int(divisor);
        if known.is_none_or(|c| c == 0) {
            self.fault_unless(y, FAULT_DIV_ZERO)?;
        }
        // `i1` values are 0 or 1, so signed and unsigned agree on them.
        let signed = matches!(op, BinaryOp::Sdiv | BinaryOp::Srem) && ty != Type::I1;
        if !signed {
            return Ok(if op == BinaryOp::Udiv || op == BinaryOp::Sdiv {
                self.b.ins().udiv(x, y)
            } else {
                self.b.ins().urem(x, y)
            });
        }
        if known.is_some_and(|c| c != -1) {
            return Ok(if op == BinaryOp::Sdiv {
                self.b.ins().sdiv(x, y)
            } else {
                self.b.ins().srem(x, y)
            });
        }
        // Divide by 1 instead of -1: x / -1 = -x (wrapping), x % -1 = x % 1 = 0.
        let ct = clif_type(ty);
        let minus_one = iconst(&mut self.b, ct, -1);
        let is_m1 = self.b.ins().icmp(condcodes::IntCC::Equal, y, minus_one);
        let one = iconst(&mut self.b, ct, 1);
        let safe = self.b.ins().select(is_m1, one, y);
        Ok(if op == BinaryOp::Sdiv {
            let q = self.b.ins().sdiv(x, safe);
            let neg = self.b.ins().ineg(x);
            self.b.ins().select(is_m1, neg, q)
        } else {
            self.b.ins().srem(x, safe)
        })
    }

    pub(super) fn cast(
        &mut self,
        op: CastOp,
        a: Value,
        to: Type,
    ) -> Result<cl::Value, BackendError> {
        let from = self.ty(a);
        let x = self.val(a)?;
        let ct = clif_type(to);
        let b = &mut self.b;
        let mask1 = |b: &mut FunctionBuilder, v| b.ins().band_imm_u(v, 1);
        Ok(match op {
            CastOp::Sext => {
                // An `i1` is -1 or 0 when read as signed.
                let x = if from == Type::I1 { b.ins().ineg(x) } else { x };
                resize_int(b, x, ct, true)
            }
            CastOp::Zext | CastOp::IntToPtr => resize_int(b, x, ct, false),
            CastOp::Trunc | CastOp::PtrToInt => {
                let v = resize_int(b, x, ct, false);
                if to == Type::I1 { mask1(b, v) } else { v }
            }
            CastOp::SiToFp => {
                let x = match from {
                    Type::I1 => {
                        let n = b.ins().ineg(x);
                        b.ins().sextend(types::I32, n)
                    }
                    Type::I8 | Type::I16 => b.ins().sextend(types::I32, x),
                    _ => x,
                };
                b.ins().fcvt_from_sint(ct, x)
            }
            CastOp::UiToFp => {
                let x = if matches!(from, Type::I1 | Type::I8 | Type::I16) {
                    b.ins().uextend(types::I32, x)
                } else {
                    x
                };
                b.ins().fcvt_from_uint(ct, x)
            }
            CastOp::FpToSi => match to {
                Type::I32 | Type::I64 | Type::Ptr => b.ins().fcvt_to_sint_sat(ct, x),
                Type::I8 | Type::I16 => {
                    let (lo, hi) = if to == Type::I8 {
                        (-128, 127)
                    } else {
                        (-32768, 32767)
                    };
                    let w = b.ins().fcvt_to_sint_sat(types::I32, x);
                    let lo = b.ins().iconst(types::I32, lo);
                    let hi = b.ins().iconst(types::I32, hi);
                    let w = b.ins().smax(w, lo);
                    let w = b.ins().smin(w, hi);
                    b.ins().ireduce(ct, w)
                }
                Type::I1 => {
                    let w = b.ins().fcvt_to_sint_sat(types::I64, x);
                    let w = b.ins().ireduce(types::I8, w);
                    mask1(b, w)
                }
                _ => return Err(self.err(format!("fptosi to {to}"))),
            },
            CastOp::FpToUi => match to {
                Type::I32 | Type::I64 | Type::Ptr => b.ins().fcvt_to_uint_sat(ct, x),
                Type::I8 | Type::I1 => {
                    let w = b.ins().fcvt_to_uint_sat(types::I32, x);
                    let hi = b.ins().iconst(types::I32, 255);
                    let w = b.ins().umin(w, hi);
                    let w = b.ins().ireduce(types::I8, w);
                    if to == Type::I1 { mask1(b, w) } else { w }
                }
                Type::I16 => {
                    let w = b.ins().fcvt_to_uint_sat(types::I32, x);
                    let hi = b.ins().iconst(types::I32, 65535);
                    let w = b.ins().umin(w, hi);
                    b.ins().ireduce(types::I16, w)
                }
                _ => return Err(self.err(format!("fptoui to {to}"))),
            },
            CastOp::FpExt => {
                if from == to {
                    x
                } else {
                    b.ins().fpromote(ct, x)
                }
            }
            CastOp::FpTrunc => {
                if from == to {
                    x
                } else {
                    b.ins().fdemote(ct, x)
                }
            }
        })
    }
}

pub(super) fn int_cc(cc: IntCC) -> condcodes::IntCC {
    use condcodes::IntCC as C;
    match cc {
        IntCC::Eq => C::Equal,
        IntCC::Ne => C::NotEqual,
        IntCC::Slt => C::SignedLessThan,
        IntCC::Sle => C::SignedLessThanOrEqual,
        IntCC::Sgt => C::SignedGreaterThan,
        IntCC::Sge => C::SignedGreaterThanOrEqual,
        IntCC::Ult => C::UnsignedLessThan,
        IntCC::Ule => C::UnsignedLessThanOrEqual,
        IntCC::Ugt => C::UnsignedGreaterThan,
        IntCC::Uge => C::UnsignedGreaterThanOrEqual,
    }
}

/// C's comparison operators: ordered, except `!=` (true on NaN).
pub(super) fn float_cc(cc: FloatCC) -> condcodes::FloatCC {
    use condcodes::FloatCC as C;
    match cc {
        FloatCC::Eq => C::Equal,
        FloatCC::Ne => C::NotEqual,
        FloatCC::Lt => C::LessThan,
        FloatCC::Le => C::LessThanOrEqual,
        FloatCC::Gt => C::GreaterThan,
        FloatCC::Ge => C::GreaterThanOrEqual,
    }
}
