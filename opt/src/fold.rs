//! Constant folding: what one instruction computes when its operands are
//! constants, exactly as the reference interpreter (`parc_ir::interp`)
//! computes it at run time: both evaluate with `parc_ir::eval`, the one
//! definition of the scalar instructions' semantics. SCCP, instcombine and
//! any other pass that evaluates instructions fold here, and a test checks
//! the result against the interpreter on random operands.
//!
//! Constants are kept in the interpreter's *register form* ([`Const::bits`]):
//! an integer sign-extended from its width to 64 bits (an `i1` is 0 or 1,
//! the canonical form of `parc_ir::sign_extend`), an `f32` as its 32 IEEE
//! bits, an `f64` as its 64 bits, a pointer as its address. Two constants
//! are equal when their bits are, so `-0.0` differs from `0.0` and a NaN
//! equals the same NaN.
//!
//! What is folded: `iconst`/`fconst`, `fneg`, every binary operator, `icmp`,
//! `fcmp`, every cast and `select`. What is not:
//! - `sdiv`/`udiv`/`srem`/`urem` by zero: they trap at run time, and the
//!   trap (with its source position) must stay;
//! - everything that reads memory or has an effect, and the math
//!   intrinsics (libm results are the interpreter's host's business);
//! - an `f32` result that is a NaN whose payload would not survive the trip
//!   through `fconst`'s `f64` immediate (never produced by arithmetic).
//!
//! Integer arithmetic wraps (`INT_MIN / -1` is `INT_MIN`), shift amounts are
//! taken modulo the width (of the shifted operand), float arithmetic is
//! Rust's (IEEE, round to nearest), and float-to-integer conversions
//! saturate with NaN giving 0, as the interpreter's do.

use parc_ir::eval::{self, mask, signed};
use parc_ir::{InstKind, Type, UnaryOp, sign_extend};

/// A constant of type `ty` in register form (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Const {
    pub ty: Type,
    pub bits: u64,
}

impl Const {
    /// The integer (or pointer) constant `v` of type `ty`, canonicalized.
    pub fn int(ty: Type, v: i64) -> Const {
        Const {
            ty,
            bits: sign_extend(v, ty) as u64,
        }
    }

    /// The float constant `v` of type `ty` (rounded to `f32` if `ty` is).
    pub fn float(ty: Type, v: f64) -> Const {
        let bits = if ty == Type::F32 {
            (v as f32).to_bits() as u64
        } else {
            v.to_bits()
        };
        Const { ty, bits }
    }

    /// Zero of any type (`0.0` for floats, null for pointers): what a load
    /// of freshly allocated (zero-filled) memory reads.
    pub fn zero(ty: Type) -> Const {
        Const { ty, bits: 0 }
    }

    /// The constant an `iconst`/`fconst` of result type `ty` defines.
    pub fn of_inst(kind: &InstKind, ty: Type) -> Option<Const> {
        match *kind {
            InstKind::Iconst(v) => Some(Const::int(ty, v)),
            InstKind::Fconst(v) => Some(Const::float(ty, v)),
            _ => None,
        }
    }

    /// The instruction that defines this constant (its result type is
    /// `self.ty`).
    pub fn to_inst(self) -> InstKind {
        match self.ty {
            Type::F32 => InstKind::Fconst(f32::from_bits(self.bits as u32) as f64),
            Type::F64 => InstKind::Fconst(f64::from_bits(self.bits)),
            _ => InstKind::Iconst(self.bits as i64),
        }
    }

    /// The signed value of an integer constant.
    pub fn as_i64(self) -> i64 {
        signed(self.bits, self.ty)
    }

    /// The value as an unsigned number of the type's width.
    pub fn as_u64(self) -> u64 {
        self.bits & mask(self.ty)
    }

    pub fn is_zero(self) -> bool {
        self.as_u64() == 0
    }

    /// True for an integer 1 (an `i1` true included).
    pub fn is_one(self) -> bool {
        self.ty.is_int() && self.as_u64() == 1
    }

    /// True for an integer with every bit of its width set.
    pub fn is_all_ones(self) -> bool {
        self.ty.is_int() && self.as_u64() == mask(self.ty)
    }
}

/// The result of `kind` applied to the constant operands `args` (in
/// [`InstKind::operands`] order), whose result has type `result_ty`; `None`
/// if it cannot or must not be folded (see the module doc). `iconst` and
/// `fconst` fold to themselves.
pub fn fold(kind: &InstKind, args: &[Const], result_ty: Type) -> Option<Const> {
    let c = match *kind {
        InstKind::Iconst(_) | InstKind::Fconst(_) => Const::of_inst(kind, result_ty)?,
        InstKind::Unary(UnaryOp::Fneg, _) => {
            let [a] = *args else { return None };
            Const {
                ty: a.ty,
                bits: eval::fneg(a.ty, a.bits),
            }
        }
        InstKind::Binary(op, ..) => {
            let [a, b] = *args else { return None };
            // By zero: it traps at run time, and the trap stays.
            let bits = eval::binary(op, a.ty, a.bits, b.bits).ok()?;
            Const { ty: a.ty, bits }
        }
        InstKind::Icmp(cc, ..) => {
            let [a, b] = *args else { return None };
            Const::int(Type::I1, eval::icmp(cc, a.ty, a.bits, b.bits) as i64)
        }
        InstKind::Fcmp(cc, ..) => {
            let [a, b] = *args else { return None };
            Const::int(Type::I1, eval::fcmp(cc, a.ty, a.bits, b.bits) as i64)
        }
        InstKind::Cast(op, _) => {
            let [a] = *args else { return None };
            Const {
                ty: result_ty,
                bits: eval::cast(op, a.ty, result_ty, a.bits),
            }
        }
        InstKind::Select(..) => {
            let [c, a, b] = *args else { return None };
            if c.bits & 1 != 0 { a } else { b }
        }
        _ => return None,
    };
    // An `f32` constant is stored as an `f64` immediate: only fold what
    // comes back bit for bit.
    if c.ty == Type::F32 {
        let back = Const::of_inst(&c.to_inst(), Type::F32)?;
        if back != c {
            return None;
        }
    }
    Some(c)
}

#[cfg(test)]
mod tests {
    //! `fold` against the interpreter: for every foldable operation and
    //! type, random operands (with the interesting edge values mixed in)
    //! are run through a one-instruction function in `parc_ir::interp` and
    //! through `fold`; the results must be bit for bit the same, and `fold`
    //! must refuse exactly the operations that trap.

    use super::*;
    use parc_ir::interp::{Config, Interp, Val};
    use parc_ir::{BinaryOp, CastOp, FloatCC, IntCC};
    use parc_ir::{FuncBuilder, Module, Signature, new_function};

    /// xorshift64*: deterministic, no dependency.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        /// A random constant of `ty`, edge values one time in three.
        fn value(&mut self, ty: Type) -> Const {
            let edge = self.next().is_multiple_of(3);
            match ty {
                Type::F32 => {
                    let specials = [
                        0.0f32,
                        -0.0,
                        1.0,
                        -1.0,
                        0.5,
                        f32::INFINITY,
                        f32::NEG_INFINITY,
                        f32::NAN,
                        f32::MAX,
                        f32::MIN_POSITIVE,
                        1e-45,
                        3e9,
                        -3e9,
                        2.5,
                        -2.5,
                        255.9,
                    ];
                    let v = if edge {
                        specials[(self.next() % specials.len() as u64) as usize]
                    } else if self.next().is_multiple_of(2) {
                        f32::from_bits(self.next() as u32)
                    } else {
                        (self.next() % 20_001) as f32 / 8.0 - 1250.0
                    };
                    Const {
                        ty,
                        bits: v.to_bits() as u64,
                    }
                }
                Type::F64 => {
                    let specials = [
                        0.0f64,
                        -0.0,
                        1.0,
                        -1.0,
                        f64::INFINITY,
                        f64::NEG_INFINITY,
                        f64::NAN,
                        f64::MAX,
                        f64::MIN_POSITIVE,
                        5e-324,
                        1e19,
                        -1e19,
                        9.3e18,
                        4294967296.5,
                        -2147483649.0,
                        0.1,
                    ];
                    let v = if edge {
                        specials[(self.next() % specials.len() as u64) as usize]
                    } else if self.next().is_multiple_of(2) {
                        f64::from_bits(self.next())
                    } else {
                        (self.next() % 2_000_001) as f64 / 16.0 - 62500.0
                    };
                    Const {
                        ty,
                        bits: v.to_bits(),
                    }
                }
                _ => {
                    let specials = [
                        0i64,
                        1,
                        -1,
                        2,
                        7,
                        8,
                        31,
                        32,
                        63,
                        64,
                        i8::MIN as i64,
                        i8::MAX as i64,
                        i32::MIN as i64,
                        i32::MAX as i64,
                        i64::MIN,
                        i64::MAX,
                    ];
                    let v = if edge {
                        specials[(self.next() % specials.len() as u64) as usize]
                    } else if self.next().is_multiple_of(2) {
                        self.next() as i64
                    } else {
                        (self.next() % 41) as i64 - 20
                    };
                    Const::int(ty, v)
                }
            }
        }
    }

    fn to_val(c: Const) -> Val {
        match c.ty {
            Type::F32 => Val::F32(f32::from_bits(c.bits as u32)),
            Type::F64 => Val::F64(f64::from_bits(c.bits)),
            Type::Ptr => Val::Ptr(c.bits),
            _ => Val::I(c.bits as i64),
        }
    }

    fn from_val(v: Val, ty: Type) -> Const {
        match v {
            Val::F32(x) => Const {
                ty,
                bits: x.to_bits() as u64,
            },
            Val::F64(x) => Const {
                ty,
                bits: x.to_bits(),
            },
            Val::Ptr(p) => Const { ty, bits: p },
            Val::I(i) => Const { ty, bits: i as u64 },
        }
    }

    /// Runs `make(params)` as the body of a function of `args`' types
    /// returning `ret`, in the interpreter: `Err` if it faulted.
    fn interp(
        args: &[Const],
        ret: Type,
        make: impl FnOnce(&mut FuncBuilder, &[parc_ir::Value]) -> parc_ir::Value,
    ) -> Result<Const, String> {
        let mut m = Module::new();
        let mut f = new_function(
            "f",
            Signature {
                params: args.iter().map(|a| a.ty).collect(),
                ret: Some(ret),
            },
        );
        let entry = f.entry().unwrap();
        let params = f.block_params(entry).to_vec();
        let mut b = FuncBuilder::new(&mut f);
        b.switch_to(entry);
        let r = make(&mut b, &params);
        b.ret(Some(r));
        let id = m.funcs.push(f);
        parc_ir::verify::verify_module(&m).map_err(|e| format!("{e:?}"))?;
        let mut it = Interp::new(&m, Config::default()).map_err(|e| e.to_string())?;
        let vals: Vec<Val> = args.iter().map(|&a| to_val(a)).collect();
        let out = it.call(id, &vals).map_err(|e| e.to_string())?;
        Ok(from_val(out.value().unwrap(), ret))
    }

    fn check(kind: &InstKind, args: &[Const], ret: Type, got: Result<Const, String>) {
        let folded = fold(kind, args, ret);
        match (got, folded) {
            (Ok(want), Some(f)) => assert_eq!(
                f, want,
                "{kind:?} on {args:?}: fold gives {f:?}, the interpreter {want:?}"
            ),
            (Err(e), None) => assert!(e.contains("division by zero"), "{e}"),
            (Err(e), Some(f)) => panic!("{kind:?} on {args:?}: folded to {f:?} but it traps: {e}"),
            (Ok(want), None) => {
                // Only an f32 NaN whose payload an `fconst` cannot hold may
                // be refused.
                assert!(
                    want.ty == Type::F32 && f32::from_bits(want.bits as u32).is_nan(),
                    "{kind:?} on {args:?}: not folded, the interpreter gives {want:?}"
                );
            }
        }
    }

    const INTS: [Type; 5] = [Type::I1, Type::I8, Type::I16, Type::I32, Type::I64];
    const FLOATS: [Type; 2] = [Type::F32, Type::F64];
    const ROUNDS: usize = 60;

    #[test]
    fn binary_ops_match_the_interpreter() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for op in BinaryOp::ALL {
            let types: &[Type] = if op.is_float() { &FLOATS } else { &INTS };
            for &ty in types {
                for round in 0..ROUNDS {
                    let a = rng.value(ty);
                    // Shifts may take an amount of another integer type.
                    let bty = if matches!(op, BinaryOp::Shl | BinaryOp::Lshr | BinaryOp::Ashr) {
                        INTS[round % 4]
                    } else {
                        ty
                    };
                    let b = rng.value(bty);
                    let kind = InstKind::Binary(op, a_val(), b_val());
                    let got = interp(&[a, b], ty, |bd, p| bd.binary(op, p[0], p[1]));
                    check(&kind, &[a, b], ty, got);
                }
            }
        }
    }

    /// Placeholder operands: `fold` reads only the constants.
    fn a_val() -> parc_ir::Value {
        parc_ir::Value::from_u32(0)
    }

    fn b_val() -> parc_ir::Value {
        parc_ir::Value::from_u32(1)
    }

    #[test]
    fn compares_match_the_interpreter() {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        for cc in IntCC::ALL {
            for ty in INTS.into_iter().chain([Type::Ptr]) {
                for _ in 0..ROUNDS {
                    let (a, b) = (rng.value(ty), rng.value(ty));
                    // Equal operands one time in four.
                    let b = if rng.next().is_multiple_of(4) { a } else { b };
                    let kind = InstKind::Icmp(cc, a_val(), b_val());
                    let got = interp(&[a, b], Type::I1, |bd, p| bd.icmp(cc, p[0], p[1]));
                    check(&kind, &[a, b], Type::I1, got);
                }
            }
        }
        for cc in FloatCC::ALL {
            for ty in FLOATS {
                for _ in 0..ROUNDS {
                    let (a, b) = (rng.value(ty), rng.value(ty));
                    let b = if rng.next().is_multiple_of(4) { a } else { b };
                    let kind = InstKind::Fcmp(cc, a_val(), b_val());
                    let got = interp(&[a, b], Type::I1, |bd, p| bd.fcmp(cc, p[0], p[1]));
                    check(&kind, &[a, b], Type::I1, got);
                }
            }
        }
    }

    #[test]
    fn casts_match_the_interpreter() {
        let mut rng = Rng(0xdead_beef_cafe_f00d);
        let all = Type::ALL;
        for op in CastOp::ALL {
            for from in all {
                for to in all {
                    let ok = match op {
                        CastOp::Sext | CastOp::Zext => {
                            from.is_int() && to.is_int() && to.bits() > from.bits()
                        }
                        CastOp::Trunc => from.is_int() && to.is_int() && to.bits() < from.bits(),
                        CastOp::SiToFp | CastOp::UiToFp => from.is_int() && to.is_float(),
                        CastOp::FpToSi | CastOp::FpToUi => from.is_float() && to.is_int(),
                        CastOp::FpExt => from == Type::F32 && to == Type::F64,
                        CastOp::FpTrunc => from == Type::F64 && to == Type::F32,
                        CastOp::PtrToInt => from == Type::Ptr && to == Type::I64,
                        CastOp::IntToPtr => from == Type::I64 && to == Type::Ptr,
                    };
                    if !ok {
                        continue;
                    }
                    for _ in 0..ROUNDS {
                        let a = rng.value(from);
                        let kind = InstKind::Cast(op, a_val());
                        let got = interp(&[a], to, |bd, p| bd.cast(op, p[0], to));
                        check(&kind, &[a], to, got);
                    }
                }
            }
        }
    }

    #[test]
    fn fneg_and_select_match_the_interpreter() {
        let mut rng = Rng(42);
        for ty in FLOATS {
            for _ in 0..ROUNDS {
                let a = rng.value(ty);
                let kind = InstKind::Unary(UnaryOp::Fneg, a_val());
                let got = interp(&[a], ty, |bd, p| bd.unary(UnaryOp::Fneg, p[0]));
                check(&kind, &[a], ty, got);
            }
        }
        for ty in INTS.into_iter().chain(FLOATS) {
            for _ in 0..ROUNDS {
                let (c, a, b) = (rng.value(Type::I1), rng.value(ty), rng.value(ty));
                let kind = InstKind::Select(a_val(), a_val(), b_val());
                let got = interp(&[c, a, b], ty, |bd, p| bd.select(p[0], p[1], p[2]));
                check(&kind, &[c, a, b], ty, got);
            }
        }
    }

    #[test]
    fn constants_round_trip_through_instructions() {
        for c in [
            Const::int(Type::I32, -1),
            Const::int(Type::I1, 1),
            Const::int(Type::I8, 200),
            Const::float(Type::F32, 0.1),
            Const::float(Type::F64, -0.0),
            Const::zero(Type::Ptr),
        ] {
            assert_eq!(Const::of_inst(&c.to_inst(), c.ty), Some(c));
        }
        assert_eq!(Const::int(Type::I8, 200).as_i64(), -56);
        assert_eq!(Const::int(Type::I8, 200).as_u64(), 200);
        assert!(Const::int(Type::I32, -1).is_all_ones());
        assert!(Const::int(Type::I1, 1).is_one());
    }

    #[test]
    fn traps_and_wraps() {
        let i32c = |v| Const::int(Type::I32, v);
        let div = InstKind::Binary(BinaryOp::Sdiv, a_val(), b_val());
        assert_eq!(fold(&div, &[i32c(7), i32c(0)], Type::I32), None);
        assert_eq!(
            fold(&div, &[i32c(i32::MIN as i64), i32c(-1)], Type::I32),
            Some(i32c(i32::MIN as i64))
        );
        let shl = InstKind::Binary(BinaryOp::Shl, a_val(), b_val());
        assert_eq!(fold(&shl, &[i32c(1), i32c(33)], Type::I32), Some(i32c(2)));
    }
}
