//! Integer and float arithmetic, comparisons and casts.
//!
//! `i8` values live in 16-bit registers whose upper bits are unspecified:
//! operations whose result depends on them (comparisons, division,
//! right shifts, widening) extend first. `i1` values are predicates;
//! in memory and across calls they are bytes / 32-bit words 0 or 1.

use super::{Class, FnCx, bits_type, float_imm, int_type};
use crate::PtxError;
use parc_ir::{BinaryOp, CastOp, Inst, IntCC, Type, Value};

impl FnCx<'_, '_> {
    /// `v` widened to 16 bits as the signed or unsigned `i8` (or `i1`) it is.
    pub(super) fn small_int(&mut self, v: Value, signed: bool) -> String {
        let r = self.reg(v);
        let t = self.temp(Class::B16);
        match self.f.value_type(v) {
            Type::I1 => {
                let one = if signed { "-1" } else { "1" };
                self.line(format!("selp.u16 {t}, {one}, 0, {r};"));
            }
            _ if signed => self.line(format!("cvt.s16.s8 {t}, {r};")),
            _ => self.line(format!("and.b16 {t}, {r}, 255;")),
        }
        t
    }

    /// An operand of an integer operation where the upper bits of a
    /// narrow value matter: extended for `i1`/`i8`, the register otherwise.
    pub(super) fn int_operand(&mut self, v: Value, signed: bool) -> String {
        match self.f.value_type(v) {
            Type::I1 | Type::I8 => self.small_int(v, signed),
            _ => self.reg(v),
        }
    }

    pub(super) fn binary(
        &mut self,
        i: Inst,
        op: BinaryOp,
        d: &str,
        a: Value,
        b: Value,
    ) -> Result<(), PtxError> {
        use BinaryOp::*;
        let ty = self.f.value_type(a);
        if op.is_float() {
            let ft = if ty == Type::F32 { ".f32" } else { ".f64" };
            let name = match op {
                Fadd => "add.rn",
                Fsub => "sub.rn",
                Fmul => "mul.rn",
                _ => "div.rn",
            };
            let (a, b) = (self.reg(a), self.reg(b));
            self.line(format!("{name}{ft} {d}, {a}, {b};"));
            return Ok(());
        }
        if ty == Type::I1 && matches!(op, Iadd | Isub | Xor | Imul | And | Or) {
            let name = match op {
                Iadd | Isub | Xor => "xor",
                Imul | And => "and",
                _ => "or",
            };
            let (a, b) = (self.reg(a), self.reg(b));
            self.line(format!("{name}.pred {d}, {a}, {b};"));
            return Ok(());
        }
        if ty == Type::I1 {
            // Division, remainder and shifts of one-bit values: in 16 bits.
            let signed = matches!(op, Sdiv | Srem | Ashr);
            let (x, y) = (self.small_int(a, signed), self.small_int(b, signed));
            let t = self.temp(Class::B16);
            self.int_op16(i, op, &t, &x, &y, signed)?;
            self.line(format!("and.b16 {t}, {t}, 1;"));
            self.line(format!("setp.ne.b16 {d}, {t}, 0;"));
            return Ok(());
        }
        let w = ty.bits();
        let bt = bits_type(ty);
        match op {
            Iadd | Isub | Imul | And | Or | Xor => {
                let name = match op {
                    Iadd => format!("add{}", int_type(ty, true)),
                    Isub => format!("sub{}", int_type(ty, true)),
                    Imul => format!("mul.lo{}", int_type(ty, true)),
                    And => format!("and{bt}"),
                    Or => format!("or{bt}"),
                    _ => format!("xor{bt}"),
                };
                let (a, b) = (self.reg(a), self.reg(b));
                self.line(format!("{name} {d}, {a}, {b};"));
            }
            Shl | Lshr | Ashr => {
                let amount = self.shift_amount(b, w);
                let x = match (op, ty) {
                    (Lshr, Type::I8) => self.small_int(a, false),
                    (Ashr, Type::I8) => self.small_int(a, true),
                    _ => self.reg(a),
                };
                let name = match op {
                    Shl => format!("shl{bt}"),
                    Lshr => format!("shr{}", int_type(ty, false)),
                    _ => format!("shr{}", int_type(ty, true)),
                };
                self.line(format!("{name} {d}, {x}, {amount};"));
            }
            Sdiv | Srem | Udiv | Urem => {
                let signed = matches!(op, Sdiv | Srem);
                if ty == Type::I8 {
                    let (x, y) = (self.small_int(a, signed), self.small_int(b, signed));
                    self.int_op16(i, op, d, &x, &y, signed)?;
                } else if ty == Type::I16 {
                    // In 32 bits, where `-32768 / -1` is exact, then
                    // truncated: the wrap parir promises.
                    let it = if signed { "s16" } else { "u16" };
                    let wide = if signed { "s32" } else { "u32" };
                    let (x, y) = (self.temp(Class::B32), self.temp(Class::B32));
                    let (ra, rb) = (self.reg(a), self.reg(b));
                    self.line(format!("cvt.{wide}.{it} {x}, {ra};"));
                    self.line(format!("cvt.{wide}.{it} {y}, {rb};"));
                    let q = self.temp(Class::B32);
                    self.divide(i, op, &q, Type::I32, &x, &y);
                    self.line(format!("cvt.u16.u32 {d}, {q};"));
                } else {
                    let (x, y) = (self.reg(a), self.reg(b));
                    self.divide(i, op, d, ty, &x, &y);
                }
            }
            _ => unreachable!("float operators handled above"),
        }
        Ok(())
    }

    /// Division or remainder of 16-bit extended values (`i8`, `i1`), where
    /// no quotient overflows.
    pub(super) fn int_op16(
        &mut self,
        i: Inst,
        op: BinaryOp,
        d: &str,
        x: &str,
        y: &str,
        signed: bool,
    ) -> Result<(), PtxError> {
        use BinaryOp::*;
        let it = if signed { ".s16" } else { ".u16" };
        match op {
            Sdiv | Udiv | Srem | Urem => {
                let p = self.temp(Class::Pred);
                let fault = self.fault(i, "integer division by zero");
                self.line(format!("setp.eq.s16 {p}, {y}, 0;"));
                self.line(format!("@{p} bra {fault};"));
                let name = if matches!(op, Sdiv | Udiv) {
                    "div"
                } else {
                    "rem"
                };
                self.line(format!("{name}{it} {d}, {x}, {y};"));
            }
            Shl | Lshr | Ashr => {
                // A one-bit value shifted by its amount modulo 1: itself.
                self.line(format!("mov.b16 {d}, {x};"));
            }
            _ => unreachable!("only division and shifts of i1 come here"),
        }
        Ok(())
    }

    /// `x / y` or `x % y` of `i32`/`i64`, C's way with `-fwrapv`: a zero
    /// divisor is a run-time error, `MIN / -1` wraps to `MIN` and
    /// `MIN % -1` is 0 (the divisor -1 divides by 1 and negates).
    pub(super) fn divide(&mut self, i: Inst, op: BinaryOp, d: &str, ty: Type, x: &str, y: &str) {
        use BinaryOp::*;
        let st = int_type(ty, true);
        let bt = bits_type(ty);
        let p = self.temp(Class::Pred);
        let fault = self.fault(i, "integer division by zero");
        self.line(format!("setp.eq{st} {p}, {y}, 0;"));
        self.line(format!("@{p} bra {fault};"));
        match op {
            Udiv => self.line(format!("div{} {d}, {x}, {y};", int_type(ty, false))),
            Urem => self.line(format!("rem{} {d}, {x}, {y};", int_type(ty, false))),
            Sdiv | Srem => {
                let class = if ty == Type::I32 {
                    Class::B32
                } else {
                    Class::B64
                };
                let (m1, safe, q) = (self.temp(Class::Pred), self.temp(class), self.temp(class));
                self.line(format!("setp.eq{st} {m1}, {y}, -1;"));
                self.line(format!("selp{bt} {safe}, 1, {y}, {m1};"));
                if op == Sdiv {
                    self.line(format!("div{st} {q}, {x}, {safe};"));
                    let n = self.temp(class);
                    self.line(format!("neg{st} {n}, {q};"));
                    self.line(format!("selp{bt} {d}, {n}, {q}, {m1};"));
                } else {
                    self.line(format!("rem{st} {q}, {x}, {safe};"));
                    self.line(format!("selp{bt} {d}, 0, {q}, {m1};"));
                }
            }
            _ => unreachable!("only divisions come here"),
        }
    }

    /// A shift amount as a `.u32` register, modulo the width `w`.
    pub(super) fn shift_amount(&mut self, b: Value, w: u32) -> String {
        if let Some(c) = self.f.const_int(b) {
            return (c.rem_euclid(i64::from(w))).to_string();
        }
        let r = self.reg(b);
        let t = self.temp(Class::B32);
        match self.f.value_type(b) {
            Type::I1 => self.line(format!("selp.u32 {t}, 1, 0, {r};")),
            Type::I8 | Type::I16 => self.line(format!("cvt.u32.u16 {t}, {r};")),
            Type::I32 => self.line(format!("mov.b32 {t}, {r};")),
            _ => self.line(format!("cvt.u32.u64 {t}, {r};")),
        }
        self.line(format!("and.b32 {t}, {t}, {};", w - 1));
        t
    }

    pub(super) fn icmp(&mut self, d: &str, cc: IntCC, a: Value, b: Value) {
        use IntCC::*;
        let ty = self.f.value_type(a);
        let signed = matches!(cc, Slt | Sle | Sgt | Sge);
        let c = match cc {
            Eq => "eq",
            Ne => "ne",
            Slt => "lt",
            Sle => "le",
            Sgt => "gt",
            Sge => "ge",
            Ult => "lo",
            Ule => "ls",
            Ugt => "hi",
            Uge => "hs",
        };
        let (x, y) = (self.int_operand(a, signed), self.int_operand(b, signed));
        let t = int_type(ty, signed);
        self.line(format!("setp.{c}{t} {d}, {x}, {y};"));
    }

    pub(super) fn cast(
        &mut self,
        i: Inst,
        op: CastOp,
        d: &str,
        to: Type,
        a: Value,
    ) -> Result<(), PtxError> {
        use CastOp::*;
        let from = self.f.value_type(a);
        let r = self.reg(a);
        let fty = |t: Type| if t == Type::F32 { "f32" } else { "f64" };
        // The PTX integer type of a width (i8 as its 8 bits).
        let ity = |t: Type, signed: bool| -> &'static str {
            match (t, signed) {
                (Type::I8, true) => "s8",
                (Type::I8, false) => "u8",
                (Type::I16, true) => "s16",
                (Type::I16, false) => "u16",
                (Type::I32, true) => "s32",
                (Type::I32, false) => "u32",
                (_, true) => "s64",
                (_, false) => "u64",
            }
        };
        // The register width's type of a destination (i8 lives in 16 bits).
        let rty = |t: Type, signed: bool| -> &'static str {
            match t {
                Type::I8 => {
                    if signed {
                        "s16"
                    } else {
                        "u16"
                    }
                }
                _ => ity(t, signed),
            }
        };
        match op {
            Sext | Zext => {
                let signed = op == Sext;
                if from == Type::I1 {
                    let one = if signed { "-1" } else { "1" };
                    self.line(format!("selp{} {d}, {one}, 0, {r};", bits_type(to)));
                } else {
                    self.line(format!(
                        "cvt.{}.{} {d}, {r};",
                        rty(to, signed),
                        ity(from, signed)
                    ));
                }
            }
            Trunc => {
                if to == Type::I1 {
                    let t = self.temp(Class::of(from));
                    let bt = bits_type(from);
                    self.line(format!("and{bt} {t}, {r}, 1;"));
                    self.line(format!("setp.ne{bt} {d}, {t}, 0;"));
                } else {
                    self.line(format!(
                        "cvt.{}.{} {d}, {r};",
                        rty(to, false),
                        rty(from, false)
                    ));
                }
            }
            SiToFp | UiToFp => {
                let signed = op == SiToFp;
                if from == Type::I1 {
                    let one = if signed { -1.0 } else { 1.0 };
                    self.line(format!(
                        "selp.{} {d}, {}, {}, {r};",
                        fty(to),
                        float_imm(to, one),
                        float_imm(to, 0.0)
                    ));
                } else {
                    let src = if from == Type::I8 {
                        self.small_int(a, signed)
                    } else {
                        r
                    };
                    self.line(format!(
                        "cvt.rn.{}.{} {d}, {src};",
                        fty(to),
                        rty(from, signed)
                    ));
                }
            }
            FpToSi | FpToUi => {
                let signed = op == FpToSi;
                if to == Type::I1 {
                    return Err(
                        self.error(i, "a conversion of a floating value to a one-bit integer")
                    );
                }
                // PTX clamps float-to-integer conversions to the
                // destination's range and turns NaN into 0: the
                // saturation parir promises.
                self.line(format!(
                    "cvt.rzi.{}.{} {d}, {r};",
                    ity(to, signed),
                    fty(from)
                ));
            }
            FpExt => self.line(format!("cvt.f64.f32 {d}, {r};")),
            FpTrunc => self.line(format!("cvt.rn.f32.f64 {d}, {r};")),
            PtrToInt | IntToPtr => self.line(format!("mov.b64 {d}, {r};")),
        }
        Ok(())
    }
}
