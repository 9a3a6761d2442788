//! Tests of the reference interpreter on IR built with `FuncBuilder`.
//!
//! Length: a list of independent scenarios, one test each.

use super::*;
use crate::builder::{c_string as cstr, define, printf};
use crate::{
    AddrSpace, BinaryOp, BlockCall, CFn, CastOp, Dim, FloatCC, FuncBuilder, FuncId, GlobalData,
    GlobalId, IntCC, Intrinsic, Module, Signature, SrcLoc, Type, UnaryOp, Value,
};

// ---- helpers ---------------------------------------------------------------

fn run_with(m: &Module, config: Config) -> (Result<i32, RunError>, String) {
    let mut out = Vec::new();
    let r = run_main(m, &config, &mut out);
    (r, String::from_utf8_lossy(&out).into_owned())
}

fn run(m: &Module) -> (Result<i32, RunError>, String) {
    run_with(m, Config::default())
}

fn run_err(m: &Module) -> RunError {
    run(m).0.expect_err("the program should fail")
}

fn at(line: u32, col: u32) -> SrcLoc {
    SrcLoc::new(line, col)
}

fn i32c(b: &mut FuncBuilder, v: i64) -> Value {
    b.iconst(Type::I32, v)
}

fn i64c(b: &mut FuncBuilder, v: i64) -> Value {
    b.iconst(Type::I64, v)
}

/// `f(a, b) = a op b` on type `ty`, called with `a` and `b`.
fn binop(op: BinaryOp, ty: Type, a: Val, b: Val) -> Result<Val, RunError> {
    let mut m = Module::new();
    let f = define(&mut m, "f", &[ty, ty], Some(ty), |bd, p| {
        bd.set_loc(at(3, 7));
        let r = bd.binary(op, p[0], p[1]);
        bd.ret(Some(r));
    });
    let mut it = Interp::new(&m, Config::default())?;
    Ok(it.call(f, &[a, b])?.value().unwrap())
}

fn cast1(op: CastOp, from: Type, to: Type, a: Val) -> Val {
    let mut m = Module::new();
    let f = define(&mut m, "f", &[from], Some(to), |bd, p| {
        let r = bd.cast(op, p[0], to);
        bd.ret(Some(r));
    });
    let mut it = Interp::new(&m, Config::default()).unwrap();
    it.call(f, &[a]).unwrap().value().unwrap()
}

// ---- arithmetic ------------------------------------------------------------

#[test]
fn integer_arithmetic_wraps() {
    use BinaryOp::*;
    use Type::*;
    let i = Val::I;
    let cases: &[(BinaryOp, Type, i64, i64, i64)] = &[
        (Iadd, I32, i32::MAX as i64, 1, i32::MIN as i64),
        (Isub, I32, i32::MIN as i64, 1, i32::MAX as i64),
        (Imul, I32, 65536, 65536, 0),
        (Imul, I32, 123456789, 1000, -1097262584),
        (Sdiv, I32, i32::MIN as i64, -1, i32::MIN as i64),
        (Srem, I32, i32::MIN as i64, -1, 0),
        (Sdiv, I32, -7, 2, -3),
        (Srem, I32, -7, 2, -1),
        (Udiv, I32, -1, 2, 0x7fff_ffff),
        (Urem, I32, -1, 10, 5),
        (Shl, I32, 1, 33, 2),
        (Shl, I32, 1, 31, i32::MIN as i64),
        (Lshr, I32, -8, 1, 0x7fff_fffc),
        (Ashr, I32, -8, 1, -4),
        (Ashr, I32, -8, 32, -8),
        (And, I32, 0xf0f0, 0xff00, 0xf000),
        (Xor, I32, -1, 0x0f, -16),
        (Shl, I8, 1, 7, -128),
        (Iadd, I8, 127, 1, -128),
        (Lshr, I8, -1, 4, 15),
        (Sdiv, I64, i64::MIN, -1, i64::MIN),
        (Srem, I64, i64::MIN, -1, 0),
        (Lshr, I64, -1, 65, i64::MAX),
        (Imul, I64, i64::MAX, 2, -2),
        (Udiv, I64, -1, 3, (u64::MAX / 3) as i64),
        (Iadd, I1, 1, 1, 0),
        (Xor, I1, 1, 1, 0),
    ];
    for &(op, ty, a, b, want) in cases {
        let got = binop(op, ty, i(a), i(b)).unwrap();
        assert_eq!(got, i(want), "{op:?} {ty} {a} {b}");
    }
}

#[test]
fn division_by_zero_is_an_error() {
    for op in [
        BinaryOp::Sdiv,
        BinaryOp::Srem,
        BinaryOp::Udiv,
        BinaryOp::Urem,
    ] {
        let e = binop(op, Type::I32, Val::I(5), Val::I(0)).unwrap_err();
        assert_eq!(e.message, "integer division by zero");
        assert_eq!(e.function, "f");
        assert_eq!(e.loc, Some(at(3, 7)));
        assert_eq!(
            e.to_string(),
            "run-time error in function `f` at line 3:7: integer division by zero"
        );
    }
}

#[test]
fn comparisons() {
    let mut m = Module::new();
    // Returns a bit mask of comparison results of (a, b) on i32.
    let ccs = [
        IntCC::Eq,
        IntCC::Ne,
        IntCC::Slt,
        IntCC::Sle,
        IntCC::Sgt,
        IntCC::Sge,
        IntCC::Ult,
        IntCC::Ule,
        IntCC::Ugt,
        IntCC::Uge,
    ];
    let f = define(
        &mut m,
        "f",
        &[Type::I32, Type::I32],
        Some(Type::I32),
        |b, p| {
            let mut acc = i32c(b, 0);
            for (k, cc) in ccs.iter().enumerate() {
                let c = b.icmp(*cc, p[0], p[1]);
                let z = b.cast(CastOp::Zext, c, Type::I32);
                let sh = i32c(b, k as i64);
                let bit = b.binary(BinaryOp::Shl, z, sh);
                acc = b.binary(BinaryOp::Or, acc, bit);
            }
            b.ret(Some(acc));
        },
    );
    let mut it = Interp::new(&m, Config::default()).unwrap();
    let mut mask = |a: i64, b: i64| it.call(f, &[Val::I(a), Val::I(b)]).unwrap().value();
    // -1 vs 1: signed less, unsigned greater.
    // Eq0 Ne1 Slt1 Sle1 Sgt0 Sge0 Ult0 Ule0 Ugt1 Uge1
    assert_eq!(mask(-1, 1), Some(Val::I(0b11_0000_1110)));
    assert_eq!(mask(3, 3), Some(Val::I(0b10_1010_1001)));
}

// ---- casts -----------------------------------------------------------------

#[test]
fn casts_convert_as_c() {
    use CastOp::*;
    use Type::*;
    let i = Val::I;
    assert_eq!(cast1(Sext, I8, I32, i(-1)), i(-1));
    assert_eq!(cast1(Zext, I8, I32, i(-1)), i(255));
    assert_eq!(cast1(Zext, I32, I64, i(-1)), i(0xffff_ffff));
    assert_eq!(cast1(Zext, I1, I32, i(1)), i(1));
    assert_eq!(cast1(Sext, I1, I32, i(1)), i(-1));
    assert_eq!(cast1(Trunc, I64, I32, i(0x1_0000_0005)), i(5));
    assert_eq!(cast1(Trunc, I64, I32, i(0xffff_ffff)), i(-1));
    assert_eq!(cast1(Trunc, I32, I8, i(300)), i(44));
    assert_eq!(cast1(Trunc, I32, I1, i(6)), i(0));
    assert_eq!(cast1(SiToFp, I32, F64, i(-3)), Val::F64(-3.0));
    assert_eq!(cast1(UiToFp, I32, F64, i(-1)), Val::F64(4294967295.0));
    assert_eq!(
        cast1(UiToFp, I64, F64, i(-1)),
        Val::F64(18446744073709551615.0)
    );
    // Rounded once, straight from the integer: 2^53 + 2^29 + 1 is just
    // above the midpoint between two floats (through f64 it would round
    // twice and give 2^53).
    let v = (1i64 << 53) + (1 << 29) + 1;
    assert_eq!(
        cast1(SiToFp, I64, F32, i(v)),
        Val::F32(((1u64 << 53) + (1 << 30)) as f32)
    );
    assert_eq!(cast1(FpToSi, F64, I32, Val::F64(f64::NAN)), i(0));
    assert_eq!(cast1(FpToSi, F64, I32, Val::F64(1e10)), i(i32::MAX as i64));
    assert_eq!(cast1(FpToSi, F64, I32, Val::F64(-1e10)), i(i32::MIN as i64));
    assert_eq!(cast1(FpToSi, F64, I32, Val::F64(-3.9)), i(-3));
    assert_eq!(cast1(FpToSi, F32, I64, Val::F32(2.5e9)), i(2_500_000_000));
    assert_eq!(cast1(FpToSi, F64, I8, Val::F64(200.0)), i(127));
    assert_eq!(
        cast1(FpToUi, F64, I32, Val::F64(3e9)),
        i(3_000_000_000u32 as i32 as i64)
    );
    assert_eq!(cast1(FpToUi, F64, I32, Val::F64(-1.0)), i(0));
    assert_eq!(
        cast1(FpExt, F32, F64, Val::F32(0.1)),
        Val::F64(0.1f32 as f64)
    );
    assert_eq!(cast1(FpTrunc, F64, F32, Val::F64(0.1)), Val::F32(0.1));
}

#[test]
fn pointers_behave_like_addresses() {
    let mut m = Module::new();
    define(&mut m, "main", &[], Some(Type::I32), |b, _| {
        let p = b.alloca(32, 8);
        let n24 = i64c(b, 24);
        let q = b.ptradd(p, n24);
        // (q - p) through ptrtoint.
        let pi = b.cast(CastOp::PtrToInt, p, Type::I64);
        let qi = b.cast(CastOp::PtrToInt, q, Type::I64);
        let d = b.binary(BinaryOp::Isub, qi, pi);
        // Store through an inttoptr'ed address, read back through q.
        let n8 = i64c(b, 8);
        let ri = b.binary(BinaryOp::Isub, qi, n8);
        let r = b.cast(CastOp::IntToPtr, ri, Type::Ptr);
        let v = i32c(b, 77);
        b.store(v, r);
        let n16 = i64c(b, 16);
        let s = b.ptradd(p, n16);
        let w = b.load(Type::I32, s);
        // p < q, unsigned and signed.
        let lt = b.icmp(IntCC::Ult, p, q);
        let ltz = b.cast(CastOp::Zext, lt, Type::I32);
        let d32 = b.cast(CastOp::Trunc, d, Type::I32);
        let sum = b.binary(BinaryOp::Iadd, d32, w);
        let sum = b.binary(BinaryOp::Iadd, sum, ltz);
        b.ret(Some(sum));
    });
    assert_eq!(run(&m).0, Ok(24 + 77 + 1));
}

// ---- floats ----------------------------------------------------------------

#[test]
fn float_arithmetic_is_ieee() {
    use BinaryOp::*;
    let f = |op, a: f64, b: f64| binop(op, Type::F64, Val::F64(a), Val::F64(b)).unwrap();
    assert_eq!(f(Fadd, 0.1, 0.2), Val::F64(0.30000000000000004));
    assert_eq!(f(Fdiv, 1.0, 0.0), Val::F64(f64::INFINITY));
    assert_eq!(f(Fmul, 1e308, 10.0), Val::F64(f64::INFINITY));
    let g = |op, a: f32, b: f32| binop(op, Type::F32, Val::F32(a), Val::F32(b)).unwrap();
    assert_eq!(g(Fadd, 16777216.0, 1.0), Val::F32(16777216.0));
    assert_eq!(g(Fadd, 0.1, 0.2), Val::F32(0.1f32 + 0.2f32));
    assert_eq!(g(Fsub, 1.0, 0.99999994), Val::F32(1.0f32 - 0.99999994f32));
    let Val::F64(nan) = f(Fsub, f64::INFINITY, f64::INFINITY) else {
        panic!()
    };
    assert!(nan.is_nan());
}

#[test]
fn float_compare_negate_and_math() {
    let mut m = Module::new();
    // Returns Ne(nan, nan) + Lt(nan, 1) + Eq(-0, 0): 1 + 0 + 1.
    let cmp = define(&mut m, "cmp", &[], Some(Type::I32), |b, _| {
        let nan = b.fconst(Type::F64, f64::NAN);
        let one = b.fconst(Type::F64, 1.0);
        let zero = b.fconst(Type::F64, 0.0);
        let nz = b.unary(UnaryOp::Fneg, zero);
        let mut acc = i32c(b, 0);
        for (cc, x, y) in [
            (FloatCC::Ne, nan, nan),
            (FloatCC::Lt, nan, one),
            (FloatCC::Eq, nz, zero),
        ] {
            let c = b.fcmp(cc, x, y);
            let z = b.cast(CastOp::Zext, c, Type::I32);
            acc = b.binary(BinaryOp::Iadd, acc, z);
        }
        b.ret(Some(acc));
    });
    let neg = define(&mut m, "neg", &[Type::F32], Some(Type::F32), |b, p| {
        let r = b.unary(UnaryOp::Fneg, p[0]);
        b.ret(Some(r));
    });
    let math = |m: &mut Module, name: &str, op: Intrinsic, ty: Type, n: usize| {
        define(m, name, &vec![ty; n], Some(ty), |b, p| {
            let r = b.intrinsic(op, Some(ty), p.to_vec()).unwrap();
            b.ret(Some(r));
        })
    };
    let pow = math(&mut m, "pow", Intrinsic::Pow, Type::F64, 2);
    let fmin = math(&mut m, "fmin", Intrinsic::Fmin, Type::F64, 2);
    let fmax = math(&mut m, "fmax", Intrinsic::Fmax, Type::F64, 2);
    let sqrtf = math(&mut m, "sqrtf", Intrinsic::Sqrt, Type::F32, 1);
    let exp = math(&mut m, "exp", Intrinsic::Exp, Type::F64, 1);
    let floor = math(&mut m, "floor", Intrinsic::Floor, Type::F64, 1);
    let abs = define(&mut m, "abs", &[Type::I32], Some(Type::I32), |b, p| {
        let r = b
            .intrinsic(Intrinsic::Abs, Some(Type::I32), vec![p[0]])
            .unwrap();
        b.ret(Some(r));
    });
    let mut it = Interp::new(&m, Config::default()).unwrap();
    let mut call = |f, args: &[Val]| it.call(f, args).unwrap().value().unwrap();
    assert_eq!(call(cmp, &[]), Val::I(2));
    let Val::F32(z) = call(neg, &[Val::F32(0.0)]) else {
        panic!()
    };
    assert_eq!(z.to_bits(), (-0.0f32).to_bits());
    assert_eq!(
        call(pow, &[Val::F64(2.0), Val::F64(0.5)]),
        Val::F64(2f64.powf(0.5))
    );
    assert_eq!(
        call(fmin, &[Val::F64(f64::NAN), Val::F64(1.0)]),
        Val::F64(1.0)
    );
    assert_eq!(
        call(fmax, &[Val::F64(-2.0), Val::F64(f64::NAN)]),
        Val::F64(-2.0)
    );
    assert_eq!(call(sqrtf, &[Val::F32(2.0)]), Val::F32(2f32.sqrt()));
    assert_eq!(call(exp, &[Val::F64(1.0)]), Val::F64(1f64.exp()));
    assert_eq!(call(floor, &[Val::F64(-2.5)]), Val::F64(-3.0));
    assert_eq!(
        call(abs, &[Val::I(i32::MIN as i64)]),
        Val::I(i32::MIN as i64)
    );
    assert_eq!(call(abs, &[Val::I(-5)]), Val::I(5));
}

// ---- memory ----------------------------------------------------------------

/// `main` mallocs 40 bytes at line 7:13, then runs `body(b, p)`.
fn heap_program(body: impl FnOnce(&mut FuncBuilder, Value)) -> Module {
    let mut m = Module::new();
    define(&mut m, "main", &[], Some(Type::I32), |b, _| {
        let n = i64c(b, 40);
        b.set_loc(at(7, 13));
        let p = b
            .intrinsic(Intrinsic::Malloc, Some(Type::Ptr), vec![n])
            .unwrap();
        b.set_loc(at(8, 5));
        body(b, p);
        let z = i32c(b, 0);
        b.ret(Some(z));
    });
    m
}

#[test]
fn null_dereference() {
    let mut m = Module::new();
    define(&mut m, "main", &[], Some(Type::I32), |b, _| {
        let p = b.null();
        b.set_loc(at(4, 9));
        let v = b.load(Type::I32, p);
        b.ret(Some(v));
    });
    let e = run_err(&m);
    assert_eq!(
        e.to_string(),
        "run-time error in function `main` at line 4:9: null pointer dereference"
    );
}

#[test]
fn out_of_bounds_names_the_allocation() {
    let m = heap_program(|b, p| {
        let off = i64c(b, 40);
        let q = b.ptradd(p, off);
        b.set_loc(at(9, 3));
        b.load(Type::F64, q);
    });
    let e = run_err(&m);
    assert_eq!(e.loc, Some(at(9, 3)));
    assert_eq!(
        e.message,
        "out-of-bounds access: 8 bytes at offset 40 of a 40-byte heap block allocated at line 7:13 in `main`"
    );
    // Partially out of bounds, and before the start.
    let m = heap_program(|b, p| {
        let off = i64c(b, 36);
        let q = b.ptradd(p, off);
        b.load(Type::I64, q);
    });
    assert!(
        run_err(&m)
            .message
            .contains("8 bytes at offset 36 of a 40-byte")
    );
    let m = heap_program(|b, p| {
        let off = i64c(b, -4);
        let q = b.ptradd(p, off);
        let v = i32c(b, 1);
        b.store(v, q);
    });
    assert!(
        run_err(&m)
            .message
            .contains("4 bytes at offset -4 of a 40-byte heap block")
    );
}

#[test]
fn use_after_free_and_double_free() {
    let m = heap_program(|b, p| {
        b.intrinsic(Intrinsic::Free, None, vec![p]);
        b.set_loc(at(10, 2));
        b.load(Type::I32, p);
    });
    let e = run_err(&m);
    assert_eq!(e.loc, Some(at(10, 2)));
    assert_eq!(
        e.message,
        "use after free: 4-byte access to a 40-byte heap block allocated at line 7:13 in `main`, freed at line 8:5 in `main`"
    );
    let m = heap_program(|b, p| {
        b.intrinsic(Intrinsic::Free, None, vec![p]);
        b.set_loc(at(11, 2));
        b.intrinsic(Intrinsic::Free, None, vec![p]);
    });
    let e = run_err(&m);
    assert_eq!(e.loc, Some(at(11, 2)));
    assert!(
        e.message.starts_with("double free of a 40-byte heap block"),
        "{}",
        e.message
    );
    assert!(e.message.ends_with("already freed at line 8:5 in `main`"));
}

#[test]
fn invalid_frees() {
    let m = heap_program(|b, p| {
        let off = i64c(b, 8);
        let q = b.ptradd(p, off);
        b.intrinsic(Intrinsic::Free, None, vec![q]);
    });
    let e = run_err(&m);
    assert!(
        e.message
            .starts_with("invalid free: the pointer is 8 bytes into a 40-byte heap block")
    );
    let m = heap_program(|b, _| {
        let s = b.alloca(4, 4);
        b.intrinsic(Intrinsic::Free, None, vec![s]);
    });
    let e = run_err(&m);
    assert!(
        e.message
            .starts_with("invalid free: the pointer is to a 4-byte stack object"),
        "{}",
        e.message
    );
    // free(NULL) is fine.
    let m = heap_program(|b, _| {
        let z = b.null();
        b.intrinsic(Intrinsic::Free, None, vec![z]);
    });
    assert_eq!(run(&m).0, Ok(0));
}

#[test]
fn stack_memory_dies_with_its_function() {
    let mut m = Module::new();
    let g = define(&mut m, "g", &[], Some(Type::Ptr), |b, _| {
        b.set_loc(at(2, 9));
        let x = b.alloca(4, 4);
        b.ret(Some(x));
    });
    define(&mut m, "main", &[], Some(Type::I32), |b, _| {
        let p = b.call(g, Some(Type::Ptr), vec![]).unwrap();
        b.set_loc(at(6, 12));
        let v = b.load(Type::I32, p);
        b.ret(Some(v));
    });
    let e = run_err(&m);
    assert_eq!(
        e.to_string(),
        "run-time error in function `main` at line 6:12: use of stack memory after its function returned: 4-byte access to a 4-byte stack object allocated at line 2:9 in `g`"
    );
}

#[test]
fn constants_are_read_only() {
    let mut m = Module::new();
    let s = cstr(&mut m, "hi");
    define(&mut m, "main", &[], Some(Type::I32), |b, _| {
        let p = b.global_addr(s);
        let v = b.iconst(Type::I8, 72);
        b.store(v, p);
        let z = i32c(b, 0);
        b.ret(Some(z));
    });
    assert_eq!(
        run_err(&m).message,
        "write to read-only memory: the 3-byte constant `.str0`"
    );
}

#[test]
fn memcpy_and_memset_check_both_ranges() {
    let m = heap_program(|b, p| {
        let dst = b.alloca(16, 8);
        let n = i64c(b, 24);
        b.intrinsic(Intrinsic::Memcpy, None, vec![dst, p, n]);
    });
    assert!(
        run_err(&m)
            .message
            .contains("24 bytes at offset 0 of a 16-byte stack object")
    );
    let m = heap_program(|b, p| {
        let c = i32c(b, 7);
        let n = i64c(b, 41);
        b.intrinsic(Intrinsic::Memset, None, vec![p, c, n]);
    });
    assert!(
        run_err(&m)
            .message
            .contains("41 bytes at offset 0 of a 40-byte heap block")
    );
    // Working copy: memset then memcpy, read back.
    let m = heap_program(|b, p| {
        let c = i32c(b, 0x11);
        let n = i64c(b, 40);
        b.intrinsic(Intrinsic::Memset, None, vec![p, c, n]);
        let dst = b.alloca(40, 8);
        b.intrinsic(Intrinsic::Memcpy, None, vec![dst, p, n]);
        let off = i64c(b, 32);
        let q = b.ptradd(dst, off);
        let v = b.load(Type::I64, q);
        let fmt_dummy = b.cast(CastOp::Trunc, v, Type::I32);
        let _ = fmt_dummy;
    });
    assert_eq!(run(&m).0, Ok(0));
}

#[test]
fn out_of_memory() {
    let mut m = Module::new();
    define(&mut m, "main", &[], Some(Type::I32), |b, _| {
        let n = i64c(b, 1 << 40);
        b.intrinsic(Intrinsic::Malloc, Some(Type::Ptr), vec![n]);
        let z = i32c(b, 0);
        b.ret(Some(z));
    });
    assert!(run_err(&m).message.starts_with("out of memory"));
    let m = heap_program(|_, _| {});
    let config = Config {
        max_memory: 39,
        ..Config::default()
    };
    let e = run_with(&m, config).0.unwrap_err();
    assert_eq!(
        e.message,
        "out of memory: allocating 40 bytes would exceed the limit of 39 bytes"
    );
}

#[test]
fn errors_carry_a_backtrace() {
    let mut m = Module::new();
    let g = define(&mut m, "g", &[Type::Ptr], Some(Type::I32), |b, p| {
        b.set_loc(at(2, 3));
        let v = b.load(Type::I32, p[0]);
        b.ret(Some(v));
    });
    define(&mut m, "main", &[], Some(Type::I32), |b, _| {
        let z = b.null();
        b.set_loc(at(5, 10));
        let v = b.call(g, Some(Type::I32), vec![z]).unwrap();
        b.ret(Some(v));
    });
    let e = run_err(&m);
    assert_eq!(e.function, "g");
    assert_eq!(
        e.backtrace,
        vec![CallSite {
            function: "main".into(),
            loc: Some(at(5, 10))
        }]
    );
}

// ---- printf and the C library ----------------------------------------------

enum A {
    I(i32),
    L(i64),
    D(f64),
    S(&'static str),
}

#[test]
fn printf_matches_libc() {
    use A::*;
    let pi = std::f64::consts::PI;
    let cases: Vec<(&str, Vec<A>, &str)> = vec![
        (
            "%d|%5d|%-5d|%05d|%+d|% d|%i\n",
            vec![I(42), I(42), I(42), I(42), I(42), I(42), I(-7)],
            "42|   42|42   |00042|+42| 42|-7\n",
        ),
        ("%u %u\n", vec![I(-1), I(17)], "4294967295 17\n"),
        (
            "%ld %lu %lld %li\n",
            vec![L(-1234567890123), L(-1), L(i64::MIN), L(5)],
            "-1234567890123 18446744073709551615 -9223372036854775808 5\n",
        ),
        (
            "%x %X %#x %o %#o %08x\n",
            vec![I(255), I(255), I(255), I(255), I(255), I(-1)],
            "ff FF 0xff 377 0377 ffffffff\n",
        ),
        (
            "%hhd %hd %hu %zu\n",
            vec![I(300), I(70000), I(-1), L(12)],
            "44 4464 65535 12\n",
        ),
        (
            "[%.3d] [%6.4d] [%-6.2d|]\n",
            vec![I(7), I(42), I(3)],
            "[007] [  0042] [03    |]\n",
        ),
        (
            "%f %.0f %.2f %10.4f|%-10.1f|%+.3f %010.2f\n",
            vec![D(pi), D(pi), D(pi), D(pi), D(pi), D(pi), D(-pi)],
            "3.141593 3 3.14     3.1416|3.1       |+3.142 -000003.14\n",
        ),
        (
            "%.0f %.0f %.0f %.1f\n",
            vec![D(0.5), D(1.5), D(2.5), D(0.25)],
            "0 2 2 0.2\n",
        ),
        (
            "%e %.3E %12.4e|%+e\n",
            vec![D(12345.6789), D(12345.6789), D(0.000123456), D(pi)],
            "1.234568e+04 1.235E+04   1.2346e-04|+3.141593e+00\n",
        ),
        (
            "%g %g %g %g %g %#g %.3g %g\n",
            vec![
                D(0.0001),
                D(1e-5),
                D(123456789.0),
                D(100.0),
                D(1e16),
                D(1.0),
                D(pi),
                D(0.5),
            ],
            "0.0001 1e-05 1.23457e+08 100 1e+16 1.00000 3.14 0.5\n",
        ),
        (
            "%f %f %e\n",
            vec![D(f64::INFINITY), D(-f64::INFINITY), D(1e300 * 1e300)],
            "inf -inf inf\n",
        ),
        (
            "%s|%10s|%-10s|%.2s|%6.3s|\n",
            vec![S("ParC"), S("ParC"), S("ParC"), S("ParC"), S("ParC")],
            "ParC|      ParC|ParC      |Pa|   Par|\n",
        ),
        (
            "%c%c%3c|%-3c|\n",
            vec![I(120), I(65), I(121), I(122)],
            "xA  y|z  |\n",
        ),
        ("100%% done %d%%\n", vec![I(0)], "100% done 0%\n"),
        (
            "%*d|%-*d|%.*f\n",
            vec![I(6), I(42), I(-6), I(42), I(2), D(pi)],
            "    42|42    |3.14\n",
        ),
        ("%5.1f%%\n", vec![D(99.44)], " 99.4%\n"),
        ("%d %f\n", vec![L(1 << 33), I(3)], "0 3.000000\n"),
    ];
    let mut m = Module::new();
    let mut globals = Vec::new();
    for (fmt, args, _) in &cases {
        let f = cstr(&mut m, fmt);
        let strs: Vec<Option<GlobalId>> = args
            .iter()
            .map(|a| match a {
                S(s) => Some(cstr(&mut m, s)),
                _ => None,
            })
            .collect();
        globals.push((f, strs));
    }
    define(&mut m, "main", &[], Some(Type::I32), |b, _| {
        for ((_, args, _), (f, strs)) in cases.iter().zip(&globals) {
            let vals: Vec<Value> = args
                .iter()
                .zip(strs)
                .map(|(a, s)| match a {
                    I(v) => i32c(b, *v as i64),
                    L(v) => i64c(b, *v),
                    D(v) => b.fconst(Type::F64, *v),
                    S(_) => b.global_addr(s.unwrap()),
                })
                .collect();
            printf(b, *f, &vals);
        }
        let z = i32c(b, 0);
        b.ret(Some(z));
    });
    let (r, out) = run(&m);
    assert_eq!(r, Ok(0));
    let want: String = cases.iter().map(|c| c.2).collect();
    for (got, want) in out.lines().zip(want.lines()) {
        assert_eq!(got, want);
    }
    assert_eq!(out, want);
}

#[test]
fn printf_returns_the_byte_count_and_prints_nul_chars() {
    let mut m = Module::new();
    let abc = cstr(&mut m, "abc");
    let d = cstr(&mut m, "%d\n");
    let c = cstr(&mut m, "<%c>");
    define(&mut m, "main", &[], Some(Type::I32), |b, _| {
        let n = printf(b, abc, &[]);
        printf(b, d, &[n]);
        let z = i32c(b, 0);
        let k = printf(b, c, &[z]);
        b.ret(Some(k));
    });
    let (r, out) = run(&m);
    assert_eq!(out, "abc3\n<\0>");
    assert_eq!(r, Ok(3));
}

#[test]
fn printf_string_faults() {
    let mut m = Module::new();
    let s = cstr(&mut m, "%s\n");
    define(&mut m, "main", &[], Some(Type::I32), |b, _| {
        let z = b.null();
        b.set_loc(at(3, 5));
        let n = printf(b, s, &[z]);
        b.ret(Some(n));
    });
    let e = run_err(&m);
    assert_eq!(e.message, "printf: the argument of `%s` is a null pointer");
    assert_eq!(e.loc, Some(at(3, 5)));
    // An unterminated string.
    let mut m = Module::new();
    let s = cstr(&mut m, "%s\n");
    define(&mut m, "main", &[], Some(Type::I32), |b, _| {
        let p = b.alloca(4, 1);
        let v = i32c(b, 0x41414141);
        b.store(v, p);
        let n = printf(b, s, &[p]);
        b.ret(Some(n));
    });
    assert!(run_err(&m).message.contains("without a terminating NUL"));
}

#[test]
fn string_functions() {
    let mut m = Module::new();
    let strs: Vec<GlobalId> = ["  -42abc", "123456789012", "1e2x", "hello", "help", "hello"]
        .iter()
        .map(|s| cstr(&mut m, s))
        .collect();
    let fmt = cstr(&mut m, "%d %ld %.1f %d %d %d\n");
    define(&mut m, "main", &[], Some(Type::I32), |b, _| {
        let p: Vec<Value> = strs.iter().map(|&g| b.global_addr(g)).collect();
        let a = b
            .intrinsic(Intrinsic::C(CFn::Atoi), Some(Type::I32), vec![p[0]])
            .unwrap();
        let l = b
            .intrinsic(Intrinsic::C(CFn::Atol), Some(Type::I64), vec![p[1]])
            .unwrap();
        let f = b
            .intrinsic(Intrinsic::C(CFn::Atof), Some(Type::F64), vec![p[2]])
            .unwrap();
        let c1 = b
            .intrinsic(Intrinsic::C(CFn::Strcmp), Some(Type::I32), vec![p[3], p[5]])
            .unwrap();
        let c2 = b
            .intrinsic(Intrinsic::C(CFn::Strcmp), Some(Type::I32), vec![p[3], p[4]])
            .unwrap();
        let z = i32c(b, 0);
        let neg = b.icmp(IntCC::Slt, c2, z);
        let neg = b.cast(CastOp::Zext, neg, Type::I32);
        let c3 = b
            .intrinsic(Intrinsic::C(CFn::Strcmp), Some(Type::I32), vec![p[4], p[3]])
            .unwrap();
        let pos = b.icmp(IntCC::Sgt, c3, z);
        let pos = b.cast(CastOp::Zext, pos, Type::I32);
        printf(b, fmt, &[a, l, f, c1, neg, pos]);
        b.ret(Some(z));
    });
    assert_eq!(run(&m).1, "-42 123456789012 100.0 0 1 1\n");
}

// ---- calls -----------------------------------------------------------------

/// `fib(n)`: naive recursion.
fn fib_module() -> (Module, FuncId) {
    let mut m = Module::new();
    let fib = m.funcs.next_key();
    define(&mut m, "fib", &[Type::I32], Some(Type::I32), |b, p| {
        let n = p[0];
        let two = i32c(b, 2);
        let small = b.icmp(IntCC::Slt, n, two);
        let base = b.create_block();
        let rec = b.create_block();
        b.brif(small, BlockCall::to(base), BlockCall::to(rec));
        b.switch_to(base);
        b.ret(Some(n));
        b.switch_to(rec);
        let one = i32c(b, 1);
        let n1 = b.binary(BinaryOp::Isub, n, one);
        let n2 = b.binary(BinaryOp::Isub, n, two);
        let a = b.call(fib, Some(Type::I32), vec![n1]).unwrap();
        let c = b.call(fib, Some(Type::I32), vec![n2]).unwrap();
        let s = b.binary(BinaryOp::Iadd, a, c);
        b.ret(Some(s));
    });
    (m, fib)
}

#[test]
fn recursion_uses_explicit_frames() {
    let (m, fib) = fib_module();
    let mut it = Interp::new(&m, Config::default()).unwrap();
    assert_eq!(
        it.call(fib, &[Val::I(20)]).unwrap().value(),
        Some(Val::I(6765))
    );
    assert!(it.steps() > 100_000);
}

#[test]
fn deep_recursion_and_the_depth_limit() {
    // sum(n) = n == 0 ? 0 : n + sum(n - 1), with a local on every level.
    let mut m = Module::new();
    let sum = m.funcs.next_key();
    define(&mut m, "sum", &[Type::I64], Some(Type::I64), |b, p| {
        let x = b.alloca(8, 8);
        b.store(p[0], x);
        let z = i64c(b, 0);
        let done = b.icmp(IntCC::Eq, p[0], z);
        let base = b.create_block();
        let rec = b.create_block();
        b.brif(done, BlockCall::to(base), BlockCall::to(rec));
        b.switch_to(base);
        b.ret(Some(z));
        b.switch_to(rec);
        let one = i64c(b, 1);
        let n1 = b.binary(BinaryOp::Isub, p[0], one);
        b.set_loc(at(4, 16));
        let r = b.call(sum, Some(Type::I64), vec![n1]).unwrap();
        let v = b.load(Type::I64, x);
        let s = b.binary(BinaryOp::Iadd, v, r);
        b.ret(Some(s));
    });
    let mut it = Interp::new(&m, Config::default()).unwrap();
    // Far deeper than parc's own stack would allow with Rust recursion.
    let n = 90_000i64;
    assert_eq!(
        it.call(sum, &[Val::I(n)]).unwrap().value(),
        Some(Val::I(n * (n + 1) / 2))
    );
    let config = Config {
        max_call_depth: 1000,
        ..Config::default()
    };
    let mut it = Interp::new(&m, config).unwrap();
    let e = it.call(sum, &[Val::I(5000)]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "run-time error in function `sum` at line 4:16: stack overflow: call depth exceeded 1000 (infinite recursion?)"
    );
    assert_eq!(e.backtrace.len(), 999);
    // The interpreter stays usable after an error.
    assert_eq!(
        it.call(sum, &[Val::I(10)]).unwrap().value(),
        Some(Val::I(55))
    );
}

#[test]
fn calling_an_import_is_an_error() {
    let mut m = Module::new();
    let ext = m.funcs.push(crate::Function::new(
        "foo",
        Signature {
            params: vec![],
            ret: Some(Type::I32),
        },
    ));
    m.funcs[ext].linkage = crate::Linkage::Import;
    define(&mut m, "main", &[], Some(Type::I32), |b, _| {
        b.set_loc(at(3, 12));
        let v = b.call(ext, Some(Type::I32), vec![]).unwrap();
        b.ret(Some(v));
    });
    assert_eq!(
        run_err(&m).to_string(),
        "run-time error in function `main` at line 3:12: cannot call external function `foo` in the interpreter: it has no definition in this program"
    );
}

#[test]
fn unreachable_and_step_limit() {
    let mut m = Module::new();
    define(&mut m, "main", &[], Some(Type::I32), |b, _| {
        b.set_loc(at(9, 1));
        b.unreachable();
    });
    assert_eq!(
        run_err(&m).message,
        "control reached end of non-void function"
    );
    let mut m = Module::new();
    define(&mut m, "main", &[], Some(Type::I32), |b, _| {
        let l = b.create_block();
        b.jump(l, vec![]);
        b.switch_to(l);
        b.jump(l, vec![]);
    });
    let config = Config {
        max_steps: Some(1000),
        ..Config::default()
    };
    let e = run_with(&m, config).0.unwrap_err();
    assert!(
        e.message.starts_with("step limit exceeded"),
        "{}",
        e.message
    );
}

#[test]
fn block_arguments_are_a_parallel_copy() {
    // Loop (a, b) -> (b, a + b) ten times starting from (0, 1): fib(10).
    let mut m = Module::new();
    define(&mut m, "main", &[], Some(Type::I32), |b, _| {
        let head = b.create_block();
        let x = b.param(head, Type::I32);
        let y = b.param(head, Type::I32);
        let k = b.param(head, Type::I32);
        let exit = b.create_block();
        let (z, one, ten) = (i32c(b, 0), i32c(b, 1), i32c(b, 10));
        b.jump(head, vec![z, one, z]);
        b.switch_to(head);
        let s = b.binary(BinaryOp::Iadd, x, y);
        let k1 = b.binary(BinaryOp::Iadd, k, one);
        let more = b.icmp(IntCC::Slt, k1, ten);
        b.brif(
            more,
            BlockCall::new(head, vec![y, s, k1]),
            BlockCall::to(exit),
        );
        b.switch_to(exit);
        b.ret(Some(y));
    });
    assert_eq!(run(&m).0, Ok(55));
}

// ---- program-level: argv, exit, globals --------------------------------------

#[test]
fn argc_and_argv() {
    let mut m = Module::new();
    let fmt = cstr(&mut m, "argc=%d %s last=%ld\n");
    define(
        &mut m,
        "main",
        &[Type::I32, Type::Ptr],
        Some(Type::I32),
        |b, p| {
            let eight = i64c(b, 8);
            let a1p = b.ptradd(p[1], eight);
            let a1 = b.load(Type::Ptr, a1p);
            let sixteen = i64c(b, 16);
            let a2p = b.ptradd(p[1], sixteen);
            let a2 = b.load(Type::Ptr, a2p);
            let n = b
                .intrinsic(Intrinsic::C(CFn::Atoi), Some(Type::I32), vec![a2])
                .unwrap();
            // argv[argc] is NULL.
            let argc = b.cast(CastOp::Sext, p[0], Type::I64);
            let off = b.binary(BinaryOp::Imul, argc, eight);
            let lastp = b.ptradd(p[1], off);
            let last = b.load(Type::Ptr, lastp);
            let last = b.cast(CastOp::PtrToInt, last, Type::I64);
            printf(b, fmt, &[p[0], a1, last]);
            b.ret(Some(n));
        },
    );
    let config = Config {
        args: vec!["prog".into(), "hello".into(), "42".into()],
        ..Config::default()
    };
    let (r, out) = run_with(&m, config);
    assert_eq!(out, "argc=3 hello last=0\n");
    assert_eq!(r, Ok(42));
}

#[test]
fn exit_ends_the_program_and_keeps_output() {
    let mut m = Module::new();
    let before = cstr(&mut m, "before\n");
    let after = cstr(&mut m, "after\n");
    let g = define(&mut m, "g", &[], None, |b, _| {
        printf(b, before, &[]);
        let three = i32c(b, 3);
        b.intrinsic(Intrinsic::Exit, None, vec![three]);
        b.unreachable();
    });
    define(&mut m, "main", &[], Some(Type::I32), |b, _| {
        let x = b.alloca(4, 4);
        let _ = x;
        b.call(g, None, vec![]);
        printf(b, after, &[]);
        let z = i32c(b, 0);
        b.ret(Some(z));
    });
    assert_eq!(run(&m), (Ok(3), "before\n".to_string()));
}

#[test]
fn globals_with_relocations() {
    let mut m = Module::new();
    let s = cstr(&mut m, "pointed-to");
    let table = m.globals.push(GlobalData {
        name: "table".into(),
        size: 16,
        align: 8,
        init: vec![0; 8],
        relocs: vec![(8, s, 3)],
        func_relocs: Vec::new(),
        is_const: false,
        space: AddrSpace::Global,
        is_local: false,
        is_import: false,
    });
    let fmt = cstr(&mut m, "%s\n");
    define(&mut m, "main", &[], Some(Type::I32), |b, _| {
        let t = b.global_addr(table);
        let eight = i64c(b, 8);
        let slot = b.ptradd(t, eight);
        let p = b.load(Type::Ptr, slot);
        printf(b, fmt, &[p]);
        let z = i32c(b, 0);
        b.ret(Some(z));
    });
    assert_eq!(run(&m), (Ok(0), "nted-to\n".to_string()));
}

// ---- tasks (serial projection) ---------------------------------------------

#[test]
fn detach_runs_the_task_then_the_continuation() {
    // pfib(n): x = spawn pfib(n-1); y = pfib(n-2); sync; return x + y.
    let mut m = Module::new();
    let pfib = m.funcs.next_key();
    define(&mut m, "pfib", &[Type::I32], Some(Type::I32), |b, p| {
        let n = p[0];
        let two = i32c(b, 2);
        let small = b.icmp(IntCC::Slt, n, two);
        let (base, rec) = (b.create_block(), b.create_block());
        b.brif(small, BlockCall::to(base), BlockCall::to(rec));
        b.switch_to(base);
        b.ret(Some(n));
        b.switch_to(rec);
        let x = b.alloca(4, 4);
        let sr = b.func.create_sync_region();
        let (task, cont, after) = (b.create_block(), b.create_block(), b.create_block());
        b.detach(sr, task, cont);
        b.switch_to(task);
        let one = i32c(b, 1);
        let n1 = b.binary(BinaryOp::Isub, n, one);
        let r = b.call(pfib, Some(Type::I32), vec![n1]).unwrap();
        b.store(r, x);
        b.reattach(sr, cont);
        b.switch_to(cont);
        let n2 = b.binary(BinaryOp::Isub, n, two);
        let y = b.call(pfib, Some(Type::I32), vec![n2]).unwrap();
        b.sync(sr, after);
        b.switch_to(after);
        let xv = b.load(Type::I32, x);
        let s = b.binary(BinaryOp::Iadd, xv, y);
        b.ret(Some(s));
    });
    let mut it = Interp::new(&m, Config::default()).unwrap();
    assert_eq!(
        it.call(pfib, &[Val::I(15)]).unwrap().value(),
        Some(Val::I(610))
    );
}

#[test]
fn parallel_loop_of_detaches() {
    // for i in 0..10: detach { a[i] = i * i }; sync; print the sum.
    let mut m = Module::new();
    let fmt = cstr(&mut m, "%d\n");
    define(&mut m, "main", &[], Some(Type::I32), |b, _| {
        let a = b.alloca(40, 4);
        let sr = b.func.create_sync_region();
        let head = b.create_block();
        let i = b.param(head, Type::I32);
        let (task, cont, done, after) = (
            b.create_block(),
            b.create_block(),
            b.create_block(),
            b.create_block(),
        );
        let z = i32c(b, 0);
        b.jump(head, vec![z]);
        b.switch_to(head);
        b.detach(sr, task, cont);
        b.switch_to(task);
        let sq = b.binary(BinaryOp::Imul, i, i);
        let i64_ = b.cast(CastOp::Sext, i, Type::I64);
        let four = i64c(b, 4);
        let off = b.binary(BinaryOp::Imul, i64_, four);
        let p = b.ptradd(a, off);
        b.store(sq, p);
        b.reattach(sr, cont);
        b.switch_to(cont);
        let one = i32c(b, 1);
        let ten = i32c(b, 10);
        let i1 = b.binary(BinaryOp::Iadd, i, one);
        let more = b.icmp(IntCC::Slt, i1, ten);
        b.brif(more, BlockCall::new(head, vec![i1]), BlockCall::to(done));
        b.switch_to(done);
        b.sync(sr, after);
        b.switch_to(after);
        let mut acc = i32c(b, 0);
        for k in 0..10 {
            let off = i64c(b, 4 * k);
            let p = b.ptradd(a, off);
            let v = b.load(Type::I32, p);
            acc = b.binary(BinaryOp::Iadd, acc, v);
        }
        printf(b, fmt, &[acc]);
        b.ret(Some(z));
    });
    assert_eq!(run(&m), (Ok(0), "285\n".to_string()));
}

#[test]
fn return_inside_a_task_is_rejected() {
    let mut m = Module::new();
    define(&mut m, "main", &[], Some(Type::I32), |b, _| {
        let sr = b.func.create_sync_region();
        let (task, cont) = (b.create_block(), b.create_block());
        b.detach(sr, task, cont);
        b.switch_to(task);
        let z = i32c(b, 0);
        b.ret(Some(z));
        b.switch_to(cont);
        b.ret(Some(z));
    });
    assert!(run_err(&m).message.contains("inside a task"));
}

// ---- kernels ---------------------------------------------------------------

fn shared_global(m: &mut Module, name: &str, size: u64) -> GlobalId {
    m.globals.push(GlobalData {
        name: name.into(),
        size,
        align: 8,
        init: Vec::new(),
        relocs: Vec::new(),
        func_relocs: Vec::new(),
        is_const: false,
        space: AddrSpace::Shared,
        is_local: false,
        is_import: false,
    })
}

/// `block_sum(in, partial, total)`: a tree reduction of each block's
/// elements in shared memory, one barrier per level; thread 0 stores the
/// block's sum in `partial[blockIdx.x]` and adds it to `*total` atomically.
fn reduction_kernel(m: &mut Module, threads: u64) -> FuncId {
    let sh = shared_global(m, "sh", 8 * threads);
    define(
        m,
        "block_sum",
        &[Type::Ptr, Type::Ptr, Type::Ptr],
        None,
        |b, p| {
            b.func.kind = crate::FuncKind::Kernel;
            let sh = b.global_addr(sh);
            let tid = b
                .intrinsic(Intrinsic::ThreadIdx(Dim::X), Some(Type::I32), vec![])
                .unwrap();
            let bid = b
                .intrinsic(Intrinsic::BlockIdx(Dim::X), Some(Type::I32), vec![])
                .unwrap();
            let bdim = b
                .intrinsic(Intrinsic::BlockDim(Dim::X), Some(Type::I32), vec![])
                .unwrap();
            let base = b.binary(BinaryOp::Imul, bid, bdim);
            let i = b.binary(BinaryOp::Iadd, base, tid);
            let eight = i64c(b, 8);
            let i64_ = b.cast(CastOp::Sext, i, Type::I64);
            let off = b.binary(BinaryOp::Imul, i64_, eight);
            let src = b.ptradd(p[0], off);
            let v = b.load(Type::F64, src);
            let t64 = b.cast(CastOp::Sext, tid, Type::I64);
            let toff = b.binary(BinaryOp::Imul, t64, eight);
            let mine = b.ptradd(sh, toff);
            b.store(v, mine);
            b.set_loc(at(20, 5));
            b.intrinsic(Intrinsic::Barrier, None, vec![]);
            let (head, body, add, join, done, lead, end) = (
                b.create_block(),
                b.create_block(),
                b.create_block(),
                b.create_block(),
                b.create_block(),
                b.create_block(),
                b.create_block(),
            );
            let s = b.param(head, Type::I32);
            let one = i32c(b, 1);
            let half = b.binary(BinaryOp::Ashr, bdim, one);
            b.jump(head, vec![half]);
            b.switch_to(head);
            let z = i32c(b, 0);
            let go = b.icmp(IntCC::Sgt, s, z);
            b.brif(go, BlockCall::to(body), BlockCall::to(done));
            b.switch_to(body);
            let active = b.icmp(IntCC::Slt, tid, s);
            b.brif(active, BlockCall::to(add), BlockCall::to(join));
            b.switch_to(add);
            let other = b.binary(BinaryOp::Iadd, tid, s);
            let o64 = b.cast(CastOp::Sext, other, Type::I64);
            let ooff = b.binary(BinaryOp::Imul, o64, eight);
            let theirs = b.ptradd(sh, ooff);
            let x = b.load(Type::F64, mine);
            let y = b.load(Type::F64, theirs);
            let sum = b.binary(BinaryOp::Fadd, x, y);
            b.store(sum, mine);
            b.jump(join, vec![]);
            b.switch_to(join);
            b.set_loc(at(25, 9));
            b.intrinsic(Intrinsic::Barrier, None, vec![]);
            let s2 = b.binary(BinaryOp::Ashr, s, one);
            b.jump(head, vec![s2]);
            b.switch_to(done);
            let first = b.icmp(IntCC::Eq, tid, z);
            b.brif(first, BlockCall::to(lead), BlockCall::to(end));
            b.switch_to(lead);
            let total = b.load(Type::F64, sh);
            let b64 = b.cast(CastOp::Sext, bid, Type::I64);
            let boff = b.binary(BinaryOp::Imul, b64, eight);
            let dst = b.ptradd(p[1], boff);
            b.store(total, dst);
            b.intrinsic(Intrinsic::AtomicAdd, Some(Type::F64), vec![p[2], total]);
            b.jump(end, vec![]);
            b.switch_to(end);
            b.ret(None);
        },
    )
}

#[test]
fn kernel_tree_reduction_with_shared_memory_and_barriers() {
    let mut m = Module::new();
    let k = reduction_kernel(&mut m, 64);
    let fmt = cstr(&mut m, "total=%.1f partials=%.0f %.0f %.0f %.0f\n");
    // Host: cuda_malloc three buffers, fill `in` with 1..=256, launch 4x64,
    // print the results.
    define(&mut m, "main", &[], Some(Type::I32), |b, _| {
        let slots = b.alloca(24, 8);
        let sizes = [256 * 8, 4 * 8, 8];
        let mut bufs = Vec::new();
        for (j, size) in sizes.into_iter().enumerate() {
            let off = i64c(b, 8 * j as i64);
            let slot = b.ptradd(slots, off);
            let n = i64c(b, size);
            b.intrinsic(Intrinsic::CudaMalloc, Some(Type::I32), vec![slot, n]);
            bufs.push(b.load(Type::Ptr, slot));
        }
        let host = {
            let n = i64c(b, 256 * 8);
            b.intrinsic(Intrinsic::Malloc, Some(Type::Ptr), vec![n])
                .unwrap()
        };
        let head = b.create_block();
        let i = b.param(head, Type::I64);
        let done = b.create_block();
        let z = i64c(b, 0);
        b.jump(head, vec![z]);
        b.switch_to(head);
        let one = i64c(b, 1);
        let i1 = b.binary(BinaryOp::Iadd, i, one);
        let v = b.cast(CastOp::SiToFp, i1, Type::F64);
        let eight = i64c(b, 8);
        let off = b.binary(BinaryOp::Imul, i, eight);
        let p = b.ptradd(host, off);
        b.store(v, p);
        let n = i64c(b, 256);
        let more = b.icmp(IntCC::Slt, i1, n);
        b.brif(more, BlockCall::new(head, vec![i1]), BlockCall::to(done));
        b.switch_to(done);
        let bytes = i64c(b, 256 * 8);
        b.intrinsic(
            Intrinsic::CudaMemcpy(crate::CopyKind::HostToDevice),
            Some(Type::I32),
            vec![bufs[0], host, bytes],
        );
        let (g1, four, t64) = (i32c(b, 1), i32c(b, 4), i32c(b, 64));
        b.launch(k, [four, g1, g1], [t64, g1, g1], bufs.clone());
        b.intrinsic(Intrinsic::CudaDeviceSynchronize, Some(Type::I32), vec![]);
        let total = b.load(Type::F64, bufs[2]);
        let mut args = vec![total];
        for j in 0..4 {
            let off = i64c(b, 8 * j);
            let p = b.ptradd(bufs[1], off);
            args.push(b.load(Type::F64, p));
        }
        printf(b, fmt, &args);
        for buf in bufs {
            b.intrinsic(Intrinsic::CudaFree, Some(Type::I32), vec![buf]);
        }
        let z = i32c(b, 0);
        b.ret(Some(z));
    });
    // Block j sums 64j+1 ..= 64j+64 = 4096j + 2080.
    assert_eq!(
        run(&m),
        (
            Ok(0),
            "total=32896.0 partials=2080 6176 10272 14368\n".to_string()
        )
    );
}

#[test]
fn kernel_through_the_api_and_fresh_shared_memory_per_block() {
    // count(out): shared counter; every thread adds 1 to it; after a
    // barrier thread 0 stores it in out[block]. Each block must see its own
    // zeroed instance.
    let mut m = Module::new();
    let c = shared_global(&mut m, "counter", 4);
    let k = define(&mut m, "count", &[Type::Ptr], None, |b, p| {
        let cp = b.global_addr(c);
        let one = i32c(b, 1);
        b.intrinsic(Intrinsic::AtomicAdd, Some(Type::I32), vec![cp, one]);
        b.intrinsic(Intrinsic::Barrier, None, vec![]);
        let tx = b
            .intrinsic(Intrinsic::ThreadIdx(Dim::X), Some(Type::I32), vec![])
            .unwrap();
        let ty = b
            .intrinsic(Intrinsic::ThreadIdx(Dim::Y), Some(Type::I32), vec![])
            .unwrap();
        let t = b.binary(BinaryOp::Or, tx, ty);
        let z = i32c(b, 0);
        let first = b.icmp(IntCC::Eq, t, z);
        let (lead, end) = (b.create_block(), b.create_block());
        b.brif(first, BlockCall::to(lead), BlockCall::to(end));
        b.switch_to(lead);
        let bx = b
            .intrinsic(Intrinsic::BlockIdx(Dim::X), Some(Type::I32), vec![])
            .unwrap();
        let by = b
            .intrinsic(Intrinsic::BlockIdx(Dim::Y), Some(Type::I32), vec![])
            .unwrap();
        let gx = b
            .intrinsic(Intrinsic::GridDim(Dim::X), Some(Type::I32), vec![])
            .unwrap();
        let row = b.binary(BinaryOp::Imul, by, gx);
        let idx = b.binary(BinaryOp::Iadd, row, bx);
        let idx = b.cast(CastOp::Sext, idx, Type::I64);
        let four = i64c(b, 4);
        let off = b.binary(BinaryOp::Imul, idx, four);
        let dst = b.ptradd(p[0], off);
        let v = b.load(Type::I32, cp);
        b.store(v, dst);
        b.jump(end, vec![]);
        b.switch_to(end);
        b.ret(None);
    });
    let mut it = Interp::new(&m, Config::default()).unwrap();
    let out = it.alloc(6 * 4).unwrap();
    let r = it
        .launch(k, [3, 2, 1], [4, 3, 1], &[Val::Ptr(out)])
        .unwrap();
    assert_eq!(r, Completion::Returned(None));
    assert_eq!(it.read_i32s(out, 6).unwrap(), vec![12; 6]);
    // Configurations CUDA rejects.
    let e = it
        .launch(k, [0, 1, 1], [4, 1, 1], &[Val::Ptr(out)])
        .unwrap_err();
    assert!(
        e.message.starts_with("invalid launch configuration"),
        "{}",
        e.message
    );
    let e = it
        .launch(k, [1, 1, 1], [64, 32, 1], &[Val::Ptr(out)])
        .unwrap_err();
    assert!(e.message.contains("2048 threads"), "{}", e.message);
}

/// `threadIdx.x < 2`.
fn below_two(b: &mut FuncBuilder) -> Value {
    let tid = b
        .intrinsic(Intrinsic::ThreadIdx(Dim::X), Some(Type::I32), vec![])
        .unwrap();
    let two = i32c(b, 2);
    b.icmp(IntCC::Slt, tid, two)
}

#[test]
fn barrier_divergence_is_detected() {
    // if (threadIdx.x < 2) __syncthreads();
    let mut m = Module::new();
    let k = define(&mut m, "k", &[], None, |b, _| {
        let low = below_two(b);
        let (sync, end) = (b.create_block(), b.create_block());
        b.brif(low, BlockCall::to(sync), BlockCall::to(end));
        b.switch_to(sync);
        b.set_loc(at(5, 9));
        b.intrinsic(Intrinsic::Barrier, None, vec![]);
        b.jump(end, vec![]);
        b.switch_to(end);
        b.ret(None);
    });
    let mut it = Interp::new(&m, Config::default()).unwrap();
    let e = it.launch(k, [2, 1, 1], [4, 1, 1], &[]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "run-time error in function `k` at line 5:9: barrier divergence in kernel `k`: thread (0,0,0) of block (0,0,0) reached the barrier at line 5:9 but thread (2,0,0) finished without reaching it"
    );
    // Two different barriers.
    let mut m = Module::new();
    let k = define(&mut m, "k2", &[], None, |b, _| {
        let low = below_two(b);
        let (s1, s2, end) = (b.create_block(), b.create_block(), b.create_block());
        b.brif(low, BlockCall::to(s1), BlockCall::to(s2));
        b.switch_to(s1);
        b.set_loc(at(5, 9));
        b.intrinsic(Intrinsic::Barrier, None, vec![]);
        b.jump(end, vec![]);
        b.switch_to(s2);
        b.set_loc(at(7, 9));
        b.intrinsic(Intrinsic::Barrier, None, vec![]);
        b.jump(end, vec![]);
        b.switch_to(end);
        b.ret(None);
    });
    let mut it = Interp::new(&m, Config::default()).unwrap();
    let e = it.launch(k, [1, 1, 1], [4, 1, 1], &[]).unwrap_err();
    assert!(
        e.message.ends_with(
            "reached the barrier at line 5:9 but thread (2,0,0) waits at the barrier at line 7:9"
        ),
        "{}",
        e.message
    );
}

/// Threads meet at a barrier only through the same calls: `wait`'s one
/// barrier, reached from two call sites by different threads, diverges
/// (inlining `wait` would make it two barriers; see `crate::convergent`).
#[test]
fn a_barrier_reached_through_different_calls_diverges() {
    let mut m = Module::new();
    let wait = define(&mut m, "wait", &[], None, |b, _| {
        b.set_loc(at(3, 5));
        b.intrinsic(Intrinsic::Barrier, None, vec![]);
        b.ret(None);
    });
    let k = define(&mut m, "k", &[], None, |b, _| {
        let low = below_two(b);
        let (c1, c2, end) = (b.create_block(), b.create_block(), b.create_block());
        b.brif(low, BlockCall::to(c1), BlockCall::to(c2));
        for (block, line) in [(c1, 8), (c2, 10)] {
            b.switch_to(block);
            b.set_loc(at(line, 9));
            b.call(wait, None, vec![]);
            b.jump(end, vec![]);
        }
        b.switch_to(end);
        b.ret(None);
    });
    // The same call from every thread is no divergence.
    let same = define(&mut m, "same", &[], None, |b, _| {
        b.call(wait, None, vec![]);
        b.ret(None);
    });
    let mut it = Interp::new(&m, Config::default()).unwrap();
    let e = it.launch(k, [1, 1, 1], [4, 1, 1], &[]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "run-time error in function `wait` at line 3:5: barrier divergence in kernel `k`: thread (0,0,0) of block (0,0,0) reached the barrier at line 3:5 but thread (2,0,0) reached it through another call (the call at line 10:9 rather than the call at line 8:9)"
    );
    let mut it = Interp::new(&m, Config::default()).unwrap();
    it.launch(same, [1, 1, 1], [4, 1, 1], &[])
        .expect("no divergence");
}

#[test]
fn faults_in_kernels_name_the_thread() {
    let mut m = Module::new();
    let k = define(&mut m, "k", &[Type::Ptr], None, |b, p| {
        let tid = b
            .intrinsic(Intrinsic::ThreadIdx(Dim::X), Some(Type::I32), vec![])
            .unwrap();
        let t = b.cast(CastOp::Sext, tid, Type::I64);
        let four = i64c(b, 4);
        let off = b.binary(BinaryOp::Imul, t, four);
        let q = b.ptradd(p[0], off);
        b.set_loc(at(3, 5));
        b.store(tid, q);
        b.ret(None);
    });
    let mut it = Interp::new(&m, Config::default()).unwrap();
    let buf = it.alloc(12).unwrap();
    let e = it
        .launch(k, [2, 1, 1], [4, 1, 1], &[Val::Ptr(buf)])
        .unwrap_err();
    assert_eq!(
        e.message,
        "out-of-bounds access: 4 bytes at offset 12 of a 12-byte heap block allocated by the embedding program (GPU thread (3,0,0) of block (0,0,0))"
    );
    // Thread ids outside a kernel.
    let mut m = Module::new();
    define(&mut m, "main", &[], Some(Type::I32), |b, _| {
        let t = b
            .intrinsic(Intrinsic::ThreadIdx(Dim::X), Some(Type::I32), vec![])
            .unwrap();
        b.ret(Some(t));
    });
    assert_eq!(run_err(&m).message, "`thread_idx.x` used outside a kernel");
}

// ---- the embedding API -----------------------------------------------------

#[test]
fn api_arrays_in_and_out() {
    // scale(x, n, a): x[i] *= a for i < n; returns the sum of the new x.
    let mut m = Module::new();
    let scale = define(
        &mut m,
        "scale",
        &[Type::Ptr, Type::I64, Type::F64],
        Some(Type::F64),
        |b, p| {
            let head = b.create_block();
            let i = b.param(head, Type::I64);
            let acc = b.param(head, Type::F64);
            let (body, done) = (b.create_block(), b.create_block());
            let z = i64c(b, 0);
            let fz = b.fconst(Type::F64, 0.0);
            b.jump(head, vec![z, fz]);
            b.switch_to(head);
            let more = b.icmp(IntCC::Slt, i, p[1]);
            b.brif(more, BlockCall::to(body), BlockCall::to(done));
            b.switch_to(body);
            let eight = i64c(b, 8);
            let off = b.binary(BinaryOp::Imul, i, eight);
            let q = b.ptradd(p[0], off);
            let v = b.load(Type::F64, q);
            let w = b.binary(BinaryOp::Fmul, v, p[2]);
            b.store(w, q);
            let acc2 = b.binary(BinaryOp::Fadd, acc, w);
            let one = i64c(b, 1);
            let i1 = b.binary(BinaryOp::Iadd, i, one);
            b.jump(head, vec![i1, acc2]);
            b.switch_to(done);
            b.ret(Some(acc));
        },
    );
    let mut it = Interp::new(&m, Config::default()).unwrap();
    let x = it.alloc(4 * 8).unwrap();
    it.write_f64s(x, &[1.0, 2.0, 3.0, 4.0]).unwrap();
    let r = it
        .call(scale, &[Val::Ptr(x), Val::I(4), Val::F64(0.5)])
        .unwrap();
    assert_eq!(r, Completion::Returned(Some(Val::F64(5.0))));
    assert_eq!(it.read_f64s(x, 4).unwrap(), vec![0.5, 1.0, 1.5, 2.0]);
    // Type-checked arguments, checked reads.
    let e = it
        .call(scale, &[Val::I(0), Val::I(4), Val::F64(0.5)])
        .unwrap_err();
    assert!(
        e.message.contains("parameter has type ptr"),
        "{}",
        e.message
    );
    assert!(it.read_f64s(x, 5).is_err());
    it.free(x).unwrap();
    assert!(
        it.read_f64s(x, 1)
            .unwrap_err()
            .message
            .starts_with("use after free")
    );
}

/// Throughput of calls and arithmetic (about 19M steps):
/// `cargo test -p parc-ir --release bench_fib -- --ignored --nocapture`.
#[test]
#[ignore]
fn bench_fib() {
    let (m, fib) = fib_module();
    let mut it = Interp::new(&m, Config::default()).unwrap();
    let t = std::time::Instant::now();
    assert_eq!(
        it.call(fib, &[Val::I(30)]).unwrap().value(),
        Some(Val::I(832040))
    );
    eprintln!("{} steps in {:?}", it.steps(), t.elapsed());
}

#[test]
fn dead_slots_are_recycled_after_the_quarantine() {
    // main calls g 200000 times; g makes a local each time.
    let mut m = Module::new();
    let g = define(&mut m, "g", &[Type::I32], None, |b, p| {
        let x = b.alloca(4, 4);
        b.store(p[0], x);
        b.ret(None);
    });
    define(&mut m, "main", &[], Some(Type::I32), |b, _| {
        let head = b.create_block();
        let i = b.param(head, Type::I32);
        let done = b.create_block();
        let z = i32c(b, 0);
        b.jump(head, vec![z]);
        b.switch_to(head);
        b.call(g, None, vec![i]);
        let one = i32c(b, 1);
        let i1 = b.binary(BinaryOp::Iadd, i, one);
        let n = i32c(b, 200_000);
        let more = b.icmp(IntCC::Slt, i1, n);
        b.brif(more, BlockCall::new(head, vec![i1]), BlockCall::to(done));
        b.switch_to(done);
        b.ret(Some(z));
    });
    let main = m.func_by_name("main").unwrap();
    let mut it = Interp::new(&m, Config::default()).unwrap();
    assert_eq!(
        it.call(main, &[]).unwrap(),
        Completion::Returned(Some(Val::I(0)))
    );
    let objects = it.mem.objects.len();
    assert!((65_536..70_000).contains(&objects), "{objects} objects");
}

#[test]
fn huge_sizes_are_errors_not_crashes() {
    let m = heap_program(|b, p| {
        let n = i64c(b, -1);
        b.intrinsic(Intrinsic::Memcpy, None, vec![p, p, n]);
    });
    assert!(
        run_err(&m)
            .message
            .starts_with("out-of-bounds access: 18446744073709551615 bytes")
    );
    let mut m = Module::new();
    let fmt = cstr(&mut m, "%*d");
    define(&mut m, "main", &[], Some(Type::I32), |b, _| {
        let w = i32c(b, i32::MAX as i64);
        let z = i32c(b, 0);
        let n = printf(b, fmt, &[w, z]);
        b.ret(Some(n));
    });
    assert!(run_err(&m).message.contains("is too large"));
}
