//! What the pure scalar instructions compute: `fneg`, the binary
//! operators, `icmp`, `fcmp` and the casts, on values in *register form*.
//! The one definition of their semantics: the reference interpreter runs
//! them, and the optimizer's constant folding (`parc_opt::fold`) folds
//! with them, so a folded constant is what the program would have
//! computed.
//!
//! Register form: an integer is sign-extended from its width to 64 bits
//! (an `i1` is 0 or 1, [`sign_extend`]'s canonical form), an `f32` is its
//! 32 IEEE bits, an `f64` its 64 bits, a pointer its address.
//!
//! Integer arithmetic wraps (`INT_MIN / -1` is `INT_MIN`); shift amounts
//! are taken modulo the width of the shifted operand; float arithmetic is
//! IEEE with rounding to nearest (Rust's); float-to-integer conversions
//! saturate, NaN giving 0, as C's casts do on the targets parc compiles
//! for. Integer division and remainder by zero are [`DivisionByZero`]: a
//! trap at run time, never a value.

use crate::builder::sign_extend;
use crate::inst::{BinaryOp, CastOp, FloatCC, IntCC};
use crate::types::Type;

/// An integer division or remainder by zero (it traps at run time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DivisionByZero;

/// All-ones in the low bits of `ty`'s register width.
#[inline]
pub fn mask(ty: Type) -> u64 {
    match ty {
        Type::I1 => 1,
        Type::I8 => 0xff,
        Type::I16 => 0xffff,
        Type::I32 | Type::F32 => 0xffff_ffff,
        _ => u64::MAX,
    }
}

/// The register form of the integer `v` of type `ty`.
#[inline]
pub fn canon(v: i64, ty: Type) -> u64 {
    sign_extend(v, ty) as u64
}

/// The signed value of an integer register (`i1` true is -1, as LLVM's
/// signed view of a one-bit integer).
#[inline]
pub fn signed(bits: u64, ty: Type) -> i64 {
    if ty == Type::I1 {
        -(bits as i64)
    } else {
        bits as i64
    }
}

/// The `f32` a register holds in its low 32 bits.
#[inline]
pub(crate) fn f32_of(bits: u64) -> f32 {
    f32::from_bits(bits as u32)
}

/// The register bits of an `f32` (zero-extended).
#[inline]
pub(crate) fn f32_bits(x: f32) -> u64 {
    x.to_bits() as u64
}

/// A float register of type `ty` widened to `f64` (exact).
#[inline]
pub fn float_value(ty: Type, bits: u64) -> f64 {
    if ty == Type::F32 {
        f32_of(bits) as f64
    } else {
        f64::from_bits(bits)
    }
}

/// `fneg` of a float register of type `ty`: its sign bit flipped.
#[inline]
pub fn fneg(ty: Type, x: u64) -> u64 {
    let sign = if ty == Type::F32 { 1 << 31 } else { 1 << 63 };
    x ^ sign
}

/// A binary operator on two registers of type `ty`.
#[inline]
pub fn binary(op: BinaryOp, ty: Type, x: u64, y: u64) -> Result<u64, DivisionByZero> {
    use BinaryOp::*;
    let (a, b) = (x as i64, y as i64);
    let bits = ty.bits().max(1);
    let amount = (y as u32) & (bits - 1);
    let r = match op {
        Iadd => a.wrapping_add(b),
        Isub => a.wrapping_sub(b),
        Imul => a.wrapping_mul(b),
        // Registers are sign-extended, so 64-bit division gives the
        // narrow result (INT_MIN / -1 overflows only the narrow type, and
        // re-canonicalizing wraps it); 64-bit MIN / -1 wraps here.
        Sdiv | Srem => {
            if b == 0 {
                return Err(DivisionByZero);
            }
            if op == Sdiv {
                a.wrapping_div(b)
            } else {
                a.wrapping_rem(b)
            }
        }
        Udiv | Urem => {
            let (ua, ub) = (x & mask(ty), y & mask(ty));
            if ub == 0 {
                return Err(DivisionByZero);
            }
            (if op == Udiv { ua / ub } else { ua % ub }) as i64
        }
        And => a & b,
        Or => a | b,
        Xor => a ^ b,
        Shl => a.wrapping_shl(amount),
        Lshr => ((x & mask(ty)) >> amount) as i64,
        Ashr => a >> amount,
        Fadd | Fsub | Fmul | Fdiv => {
            return Ok(if ty == Type::F32 {
                let (p, q) = (f32_of(x), f32_of(y));
                f32_bits(match op {
                    Fadd => p + q,
                    Fsub => p - q,
                    Fmul => p * q,
                    _ => p / q,
                })
            } else {
                let (p, q) = (f64::from_bits(x), f64::from_bits(y));
                (match op {
                    Fadd => p + q,
                    Fsub => p - q,
                    Fmul => p * q,
                    _ => p / q,
                })
                .to_bits()
            });
        }
    };
    Ok(canon(r, ty))
}

/// `icmp` of two integer (or pointer) registers of type `ty`.
#[inline]
pub fn icmp(cc: IntCC, ty: Type, x: u64, y: u64) -> bool {
    match cc {
        IntCC::Eq => x == y,
        IntCC::Ne => x != y,
        IntCC::Slt => signed(x, ty) < signed(y, ty),
        IntCC::Sle => signed(x, ty) <= signed(y, ty),
        IntCC::Sgt => signed(x, ty) > signed(y, ty),
        IntCC::Sge => signed(x, ty) >= signed(y, ty),
        // Sign extension keeps the unsigned order within a width, so
        // registers compare directly.
        IntCC::Ult => x < y,
        IntCC::Ule => x <= y,
        IntCC::Ugt => x > y,
        IntCC::Uge => x >= y,
    }
}

/// `fcmp` of two float registers of type `ty` (ordered: false with a NaN,
/// except `ne`).
#[inline]
pub fn fcmp(cc: FloatCC, ty: Type, x: u64, y: u64) -> bool {
    let (x, y) = (float_value(ty, x), float_value(ty, y));
    match cc {
        FloatCC::Eq => x == y,
        FloatCC::Ne => x != y,
        FloatCC::Lt => x < y,
        FloatCC::Le => x <= y,
        FloatCC::Gt => x > y,
        FloatCC::Ge => x >= y,
    }
}

/// A conversion of the register `x` of type `from` to type `to`.
pub fn cast(op: CastOp, from: Type, to: Type, x: u64) -> u64 {
    match op {
        CastOp::Sext => canon(signed(x, from), to),
        CastOp::Zext => canon((x & mask(from)) as i64, to),
        CastOp::Trunc | CastOp::PtrToInt => canon(x as i64, to),
        CastOp::IntToPtr => x & mask(from),
        // Straight from the 64-bit integer, so an `f32` result is rounded
        // once.
        CastOp::SiToFp => {
            let v = signed(x, from);
            if to == Type::F32 {
                f32_bits(v as f32)
            } else {
                (v as f64).to_bits()
            }
        }
        CastOp::UiToFp => {
            let v = x & mask(from);
            if to == Type::F32 {
                f32_bits(v as f32)
            } else {
                (v as f64).to_bits()
            }
        }
        CastOp::FpToSi => {
            let f = float_value(from, x);
            match to {
                Type::I1 => (f as i64 & 1) as u64,
                Type::I8 => f as i8 as i64 as u64,
                Type::I16 => f as i16 as i64 as u64,
                Type::I32 => f as i32 as i64 as u64,
                _ => f as i64 as u64,
            }
        }
        CastOp::FpToUi => {
            let f = float_value(from, x);
            match to {
                Type::I1 => (f as u8 & 1) as u64,
                Type::I8 => canon(f as u8 as i64, to),
                Type::I16 => canon(f as u16 as i64, to),
                Type::I32 => canon(f as u32 as i64, to),
                _ => f as u64,
            }
        }
        CastOp::FpExt => float_value(from, x).to_bits(),
        CastOp::FpTrunc => {
            if from == Type::F32 {
                x
            } else {
                f32_bits(f64::from_bits(x) as f32)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_wrap_in_their_width() {
        let i32max = canon(i32::MAX as i64, Type::I32);
        let one = canon(1, Type::I32);
        assert_eq!(
            binary(BinaryOp::Iadd, Type::I32, i32max, one),
            Ok(canon(i32::MIN as i64, Type::I32))
        );
        let min = canon(i32::MIN as i64, Type::I32);
        let minus_one = canon(-1, Type::I32);
        assert_eq!(binary(BinaryOp::Sdiv, Type::I32, min, minus_one), Ok(min));
        assert_eq!(binary(BinaryOp::Srem, Type::I64, 7, 0), Err(DivisionByZero));
        assert_eq!(
            binary(BinaryOp::Urem, Type::I8, canon(-1, Type::I8), 0),
            Err(DivisionByZero)
        );
        // 255u8 / 2 = 127: unsigned division sees the width's bits.
        assert_eq!(
            binary(BinaryOp::Udiv, Type::I8, canon(-1, Type::I8), 2),
            Ok(127)
        );
        // Shift amounts are taken modulo the width: 1 << 33 in i32 is 2.
        assert_eq!(binary(BinaryOp::Shl, Type::I32, 1, 33), Ok(2));
        assert_eq!(
            binary(BinaryOp::Lshr, Type::I8, canon(-128, Type::I8), 7),
            Ok(1)
        );
    }

    #[test]
    fn comparisons_read_signed_and_unsigned_views() {
        let m1 = canon(-1, Type::I32);
        assert!(icmp(IntCC::Slt, Type::I32, m1, 0));
        assert!(icmp(IntCC::Ugt, Type::I32, m1, 0));
        // `i1` true is -1 signed.
        assert!(icmp(IntCC::Slt, Type::I1, 1, 0));
        let nan = f64::NAN.to_bits();
        assert!(!fcmp(FloatCC::Eq, Type::F64, nan, nan));
        assert!(fcmp(FloatCC::Ne, Type::F64, nan, nan));
        let half = f32_bits(0.5);
        assert!(fcmp(FloatCC::Lt, Type::F32, half, f32_bits(1.0)));
    }

    #[test]
    fn casts_saturate_and_round_once() {
        let big = 3e9f64.to_bits();
        assert_eq!(
            cast(CastOp::FpToSi, Type::F64, Type::I32, big),
            canon(i32::MAX as i64, Type::I32)
        );
        assert_eq!(
            cast(CastOp::FpToSi, Type::F64, Type::I64, f64::NAN.to_bits()),
            0
        );
        assert_eq!(
            cast(CastOp::FpToUi, Type::F64, Type::I8, (-5.0f64).to_bits()),
            0
        );
        // 2^53 + 1 rounds once to f32, not via f64.
        let v = (1u64 << 53) + 1;
        assert_eq!(
            cast(CastOp::SiToFp, Type::I64, Type::F32, v),
            f32_bits(v as f32)
        );
        assert_eq!(
            cast(CastOp::Zext, Type::I8, Type::I32, canon(-1, Type::I8)),
            255
        );
        assert_eq!(
            cast(CastOp::Sext, Type::I1, Type::I32, 1),
            canon(-1, Type::I32)
        );
        assert_eq!(fneg(Type::F32, f32_bits(1.0)), f32_bits(-1.0));
    }
}
