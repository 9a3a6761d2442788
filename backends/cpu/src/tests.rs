//! Tests of the Cranelift backend on IR built with `FuncBuilder`.
//!
//! Scalar semantics are checked differentially: each operation is wrapped
//! in `f(ptr in, ptr out)` (operands loaded from 8-byte slots of `in`,
//! the result stored to `out`), run by the JIT and by the reference
//! interpreter on the same inputs, and the results compared bit for bit.
//! Programs that print, exit or fault run in a child process (this test
//! binary re-executed with [`CHILD_ENV`] naming the scenario), whose
//! stdout, stderr and status are checked.
//!
//! Length: a list of independent scenarios, one test each.

use crate::jit::JitProgram;
use crate::{BackendError, OutputKind};
use parc_ir::builder::{c_string as cstr, define, printf};
use parc_ir::interp::{Config, Interp, Val};
use parc_ir::{
    AddrSpace, BinaryOp, BlockCall, CFn, CastOp, Dim, FloatCC, FuncBuilder, FuncKind, GlobalData,
    IntCC, Intrinsic, Linkage, Module, Signature, SrcLoc, Type, UnaryOp, Value, new_function,
};
use std::process::Command;

// ---- helpers ---------------------------------------------------------------

fn verified(m: &Module) {
    if let Err(errors) = parc_ir::verify::verify_module(m) {
        let text: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        panic!("test module does not verify:\n{}", text.join("\n"));
    }
}

/// `f(ptr in, ptr out)` computing `body` on operands of types `tys`.
fn harness(tys: &[Type], body: impl FnOnce(&mut FuncBuilder, &[Value]) -> Value) -> Module {
    let mut m = Module::new();
    define(&mut m, "f", &[Type::Ptr, Type::Ptr], None, |b, p| {
        let ops: Vec<Value> = tys
            .iter()
            .enumerate()
            .map(|(i, &t)| {
                let off = b.iconst(Type::I64, 8 * i as i64);
                let addr = b.ptradd(p[0], off);
                b.load(t, addr)
            })
            .collect();
        let r = body(b, &ops);
        b.store(r, p[1]);
        b.ret(None);
    });
    verified(&m);
    m
}

type Harness = extern "C" fn(*const u64, *mut u64);

/// Runs a harness module on `inputs` in the JIT and in the interpreter;
/// returns both results (the low `bytes` bytes of `out`).
fn both(m: &Module, jit: &JitProgram, inputs: &[u64], bytes: usize) -> (u64, u64) {
    let f: Harness = unsafe { std::mem::transmute(jit.function("f").expect("compiled")) };
    let mut out = 0u64;
    f(inputs.as_ptr(), &mut out);
    let mask = if bytes == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * bytes)) - 1
    };

    let mut interp = Interp::new(m, Config::default()).expect("interpreter");
    let input = interp.alloc(8 * inputs.len().max(1) as u64).unwrap();
    let bytes_in: Vec<u8> = inputs.iter().flat_map(|v| v.to_le_bytes()).collect();
    interp.write_bytes(input, &bytes_in).unwrap();
    let output = interp.alloc(8).unwrap();
    let id = m.func_by_name("f").unwrap();
    interp
        .call(id, &[Val::Ptr(input), Val::Ptr(output)])
        .expect("interpreter run");
    let got = interp.read_bytes(output, 8).unwrap();
    let expected = u64::from_le_bytes(got.try_into().unwrap());
    (out & mask, expected & mask)
}

fn same(ty: Type, jit: u64, interp: u64) -> bool {
    match ty {
        Type::F32 => {
            let (a, b) = (f32::from_bits(jit as u32), f32::from_bits(interp as u32));
            jit == interp || (a.is_nan() && b.is_nan())
        }
        Type::F64 => {
            let (a, b) = (f64::from_bits(jit), f64::from_bits(interp));
            jit == interp || (a.is_nan() && b.is_nan())
        }
        _ => jit == interp,
    }
}

/// Interesting operands of a type, as slot bits.
fn samples(ty: Type) -> Vec<u64> {
    let ints: &[i64] = &[0, 1, -1, 2, -2, 7, -7, 31, 33, 64, 100, -128, 127, 255];
    match ty {
        Type::I1 => vec![0, 1],
        Type::I8 => ints.iter().map(|&v| v as i8 as u8 as u64).collect(),
        Type::I16 => ints
            .iter()
            .copied()
            .chain([i16::MIN as i64, i16::MAX as i64, 12_345])
            .map(|v| v as i16 as u16 as u64)
            .collect(),
        Type::I32 => ints
            .iter()
            .copied()
            .chain([i32::MIN as i64, i32::MAX as i64, 123_456_789])
            .map(|v| v as i32 as u32 as u64)
            .collect(),
        Type::I64 | Type::Ptr => ints
            .iter()
            .copied()
            .chain([i64::MIN, i64::MAX, 1 << 40, -(1 << 35)])
            .map(|v| v as u64)
            .collect(),
        Type::F32 => [
            0.0f32,
            -0.0,
            1.5,
            -2.75,
            1e30,
            -1e-30,
            3e9,
            -3e9,
            300.0,
            -200.7,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ]
        .iter()
        .map(|v| v.to_bits() as u64)
        .collect(),
        Type::F64 => [
            0.0f64,
            -0.0,
            1.5,
            -2.75,
            1e300,
            -1e-300,
            3e9,
            -3e9,
            1e19,
            2e19,
            300.0,
            -200.7,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ]
        .iter()
        .map(|v| v.to_bits())
        .collect(),
        // Vectors have no slot form (no signature carries one).
        Type::F64x2 | Type::F32x4 | Type::I64x2 | Type::I32x4 => Vec::new(),
    }
}

fn is_zero(ty: Type, bits: u64) -> bool {
    bits & (if ty.bytes() == 8 {
        u64::MAX
    } else {
        (1 << (8 * ty.bytes())) - 1
    }) == 0
}

/// Checks a harness over every combination of operand samples.
fn check_all(m: &Module, tys: &[Type], result: Type, what: &str, skip: impl Fn(&[u64]) -> bool) {
    let jit = JitProgram::compile(m, parc_ir::OptLevel::O2, true)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let mut combos: Vec<Vec<u64>> = vec![Vec::new()];
    for &t in tys {
        combos = combos
            .into_iter()
            .flat_map(|c| {
                samples(t).into_iter().map(move |s| {
                    let mut c = c.clone();
                    c.push(s);
                    c
                })
            })
            .collect();
    }
    for inputs in combos {
        if skip(&inputs) {
            continue;
        }
        let (j, i) = both(m, &jit, &inputs, result.bytes() as usize);
        assert!(
            same(result, j, i),
            "{what} on {inputs:x?}: JIT gives {j:#x}, the interpreter {i:#x}"
        );
    }
}

// ---- scalar semantics, differentially ---------------------------------------

#[test]
fn integer_binary_ops_agree_with_the_interpreter() {
    use BinaryOp::*;
    for ty in [Type::I1, Type::I8, Type::I32, Type::I64] {
        for op in [
            Iadd, Isub, Imul, Sdiv, Udiv, Srem, Urem, And, Or, Xor, Shl, Lshr, Ashr,
        ] {
            let m = harness(&[ty, ty], |b, v| b.binary(op, v[0], v[1]));
            let divides = matches!(op, Sdiv | Udiv | Srem | Urem);
            check_all(&m, &[ty, ty], ty, &format!("{} {ty}", op.name()), |ins| {
                divides && is_zero(ty, ins[1])
            });
        }
    }
}

#[test]
fn division_by_a_constant_agrees_with_the_interpreter() {
    use BinaryOp::*;
    for ty in [Type::I32, Type::I64] {
        for op in [Sdiv, Udiv, Srem, Urem] {
            for c in [-1i64, 1, 7, -7, 16] {
                let m = harness(&[ty], |b, v| {
                    let k = b.iconst(ty, c);
                    b.binary(op, v[0], k)
                });
                check_all(&m, &[ty], ty, &format!("{} {ty} by {c}", op.name()), |_| {
                    false
                });
            }
        }
    }
}

#[test]
fn float_ops_agree_with_the_interpreter() {
    use BinaryOp::*;
    for ty in [Type::F32, Type::F64] {
        for op in [Fadd, Fsub, Fmul, Fdiv] {
            let m = harness(&[ty, ty], |b, v| b.binary(op, v[0], v[1]));
            check_all(&m, &[ty, ty], ty, &format!("{} {ty}", op.name()), |_| false);
        }
        let m = harness(&[ty], |b, v| b.unary(UnaryOp::Fneg, v[0]));
        check_all(&m, &[ty], ty, "fneg", |_| false);
        for op in [
            Intrinsic::Sqrt,
            Intrinsic::Fabs,
            Intrinsic::Floor,
            Intrinsic::Ceil,
            Intrinsic::Exp,
            Intrinsic::Log,
            Intrinsic::Sin,
            Intrinsic::Cos,
            Intrinsic::Tan,
            Intrinsic::Tanh,
        ] {
            let m = harness(&[ty], |b, v| b.intrinsic(op, Some(ty), vec![v[0]]).unwrap());
            check_all(&m, &[ty], ty, &op.name(), |_| false);
        }
        for op in [Intrinsic::Pow, Intrinsic::Fmin, Intrinsic::Fmax] {
            let m = harness(&[ty, ty], |b, v| {
                b.intrinsic(op, Some(ty), vec![v[0], v[1]]).unwrap()
            });
            // fmin(-0, +0) may return either zero in C; skip that pair.
            check_all(&m, &[ty, ty], ty, &op.name(), |ins| {
                op != Intrinsic::Pow
                    && ins[0] != ins[1]
                    && is_zero_float(ty, ins[0])
                    && is_zero_float(ty, ins[1])
            });
        }
    }
}

/// `sin x` and `cos x` in one block become one `sincos` call, whose
/// results must be `sin`'s and `cos`'s bit for bit (the interpreter calls
/// those two).
#[test]
fn sin_and_cos_of_one_value_agree_with_the_interpreter() {
    for ty in [Type::F32, Type::F64] {
        let m = harness(&[ty], |b, v| {
            let s = b.intrinsic(Intrinsic::Sin, Some(ty), vec![v[0]]).unwrap();
            let c = b.intrinsic(Intrinsic::Cos, Some(ty), vec![v[0]]).unwrap();
            let scaled = b.binary(BinaryOp::Fmul, c, c);
            b.binary(BinaryOp::Fsub, s, scaled)
        });
        let f = &m.funcs[m.func_by_name("f").unwrap()];
        let pairs = crate::codegen::sincos_pairs(f, f.layout[0]);
        assert_eq!(pairs.len(), 1, "sin and cos of the same value pair up");
        check_all(&m, &[ty], ty, "sin x - cos² x", |_| false);
    }
}

fn is_zero_float(ty: Type, bits: u64) -> bool {
    match ty {
        Type::F32 => f32::from_bits(bits as u32) == 0.0,
        _ => f64::from_bits(bits) == 0.0,
    }
}

#[test]
fn comparisons_agree_with_the_interpreter() {
    for ty in [Type::I8, Type::I32, Type::I64] {
        for cc in IntCC::ALL {
            let m = harness(&[ty, ty], |b, v| b.icmp(cc, v[0], v[1]));
            check_all(
                &m,
                &[ty, ty],
                Type::I1,
                &format!("icmp {}", cc.name()),
                |_| false,
            );
        }
    }
    for ty in [Type::F32, Type::F64] {
        for cc in FloatCC::ALL {
            let m = harness(&[ty, ty], |b, v| b.fcmp(cc, v[0], v[1]));
            check_all(
                &m,
                &[ty, ty],
                Type::I1,
                &format!("fcmp {}", cc.name()),
                |_| false,
            );
        }
    }
}

#[test]
fn casts_agree_with_the_interpreter() {
    use CastOp::*;
    let ints = [Type::I1, Type::I8, Type::I32, Type::I64];
    let floats = [Type::F32, Type::F64];
    let mut cases = Vec::new();
    for &from in &ints {
        for &to in &ints {
            if from.bits() < to.bits() {
                cases.push((Sext, from, to));
                cases.push((Zext, from, to));
            }
            if from.bits() > to.bits() {
                cases.push((Trunc, from, to));
            }
        }
        for &to in &floats {
            cases.push((SiToFp, from, to));
            cases.push((UiToFp, from, to));
            cases.push((FpToSi, to, from));
            cases.push((FpToUi, to, from));
        }
    }
    cases.push((IntToPtr, Type::I64, Type::Ptr));
    cases.push((PtrToInt, Type::Ptr, Type::I64));
    cases.push((FpExt, Type::F32, Type::F64));
    cases.push((FpTrunc, Type::F64, Type::F32));
    for (op, from, to) in cases {
        let m = harness(&[from], |b, v| b.cast(op, v[0], to));
        check_all(
            &m,
            &[from],
            to,
            &format!("{} {from} to {to}", op.name()),
            |_| false,
        );
    }
}

#[test]
fn select_and_abs_agree_with_the_interpreter() {
    for ty in [Type::I32, Type::F64] {
        let m = harness(&[Type::I1, ty, ty], |b, v| b.select(v[0], v[1], v[2]));
        check_all(&m, &[Type::I1, ty, ty], ty, "select", |_| false);
    }
    let m = harness(&[Type::I32], |b, v| {
        b.intrinsic(Intrinsic::Abs, Some(Type::I32), vec![v[0]])
            .unwrap()
    });
    check_all(&m, &[Type::I32], Type::I32, "abs", |_| false);
    let m = harness(&[Type::I64], |b, v| {
        b.intrinsic(Intrinsic::Labs, Some(Type::I64), vec![v[0]])
            .unwrap()
    });
    check_all(&m, &[Type::I64], Type::I64, "labs", |_| false);
}

#[test]
fn integer_atomic_add_returns_the_old_value() {
    for ty in [Type::I32, Type::I64, Type::F32, Type::F64] {
        // f(in, out): *out = atomic_add(in + 0, in[1]) ; the old value of in[0]
        let m = harness(&[ty], |b, v| {
            let cell = b.alloca(8, 8);
            b.store(v[0], cell);
            let old = b
                .intrinsic(Intrinsic::AtomicAdd, Some(ty), vec![cell, v[0]])
                .unwrap();
            let new = b.load(ty, cell);
            // old + new = 3 * v (exact for the sampled values)
            let op = if ty.is_float() {
                BinaryOp::Fadd
            } else {
                BinaryOp::Iadd
            };
            b.binary(op, old, new)
        });
        check_all(&m, &[ty], ty, &format!("atomic_add {ty}"), |_| false);
    }
}

// ---- control flow, memory, calls -------------------------------------------

fn jit_fn<T>(m: &Module, name: &str) -> (JitProgram, T) {
    verified(m);
    let jit = JitProgram::compile(m, parc_ir::OptLevel::O2, true).unwrap_or_else(|e| panic!("{e}"));
    let p = jit.function(name).expect("function compiled");
    assert_eq!(std::mem::size_of::<T>(), std::mem::size_of::<*const u8>());
    // SAFETY: the caller names the function's real signature as `T`.
    let f = unsafe { std::mem::transmute_copy::<*const u8, T>(&p) };
    (jit, f)
}

/// `sum(n) = 0 + 1 + ... + (n-1)` with a loop over block parameters.
#[test]
fn loops_with_block_parameters() {
    let mut m = Module::new();
    define(&mut m, "sum", &[Type::I64], Some(Type::I64), |b, p| {
        let header = b.create_block();
        let body = b.create_block();
        let exit = b.create_block();
        let i = b.param(header, Type::I64);
        let acc = b.param(header, Type::I64);
        let r = b.param(exit, Type::I64);
        let zero = b.iconst(Type::I64, 0);
        b.jump(header, vec![zero, zero]);
        b.switch_to(header);
        let c = b.icmp(IntCC::Slt, i, p[0]);
        b.brif(c, BlockCall::to(body), BlockCall::new(exit, vec![acc]));
        b.switch_to(body);
        let acc2 = b.binary(BinaryOp::Iadd, acc, i);
        let one = b.iconst(Type::I64, 1);
        let i2 = b.binary(BinaryOp::Iadd, i, one);
        // Swapped order on purpose: parallel assignment of parameters.
        b.jump(header, vec![i2, acc2]);
        b.switch_to(exit);
        b.ret(Some(r));
    });
    let (_jit, f): (_, extern "C" fn(i64) -> i64) = jit_fn(&m, "sum");
    assert_eq!(f(0), 0);
    assert_eq!(f(10), 45);
    assert_eq!(f(100_000), 4_999_950_000);
}

#[test]
fn recursion_and_calls() {
    let mut m = Module::new();
    let fib = m.funcs.push(new_function(
        "fib",
        Signature {
            params: vec![Type::I32],
            ret: Some(Type::I32),
        },
    ));
    {
        let f = &mut m.funcs[fib];
        let entry = f.layout[0];
        let n = f.blocks[entry].params[0];
        let mut b = FuncBuilder::new(f);
        b.switch_to(entry);
        let small = b.create_block();
        let big = b.create_block();
        let two = b.iconst(Type::I32, 2);
        let c = b.icmp(IntCC::Slt, n, two);
        b.brif(c, BlockCall::to(small), BlockCall::to(big));
        b.switch_to(small);
        b.ret(Some(n));
        b.switch_to(big);
        let one = b.iconst(Type::I32, 1);
        let a = b.binary(BinaryOp::Isub, n, one);
        let x = b.call(fib, Some(Type::I32), vec![a]).unwrap();
        let c2 = b.binary(BinaryOp::Isub, n, two);
        let y = b.call(fib, Some(Type::I32), vec![c2]).unwrap();
        let s = b.binary(BinaryOp::Iadd, x, y);
        b.ret(Some(s));
    }
    let (_jit, f): (_, extern "C" fn(i32) -> i32) = jit_fn(&m, "fib");
    assert_eq!(f(20), 6765);
}

/// `alloca`s are zero-filled (small inline, large by memset) and hold
/// every type.
#[test]
fn allocas_are_zeroed_and_hold_every_type() {
    let mut m = Module::new();
    define(&mut m, "mem", &[Type::I64], Some(Type::I64), |b, p| {
        let small = b.alloca(13, 1);
        let big = b.alloca(100_000, 16);
        // Sum of the bytes at offsets p and p + 99_000: zero.
        let a = b.ptradd(small, p[0]);
        let x = b.load(Type::I8, a);
        let x = b.cast(CastOp::Zext, x, Type::I64);
        let off = b.iconst(Type::I64, 99_000);
        let far = b.ptradd(big, off);
        let far = b.ptradd(far, p[0]);
        let y = b.load(Type::I64, far);
        // Round trips of every type through memory.
        let mut acc = b.binary(BinaryOp::Iadd, x, y);
        for (ty, v) in [
            (Type::I1, 1i64),
            (Type::I8, -3),
            (Type::I32, -100_000),
            (Type::I64, 1 << 40),
        ] {
            let slot = b.alloca(8, 8);
            let c = b.iconst(ty, v);
            b.store(c, slot);
            let back = b.load(ty, slot);
            let wide = if ty == Type::I64 {
                back
            } else if ty == Type::I1 {
                b.cast(CastOp::Zext, back, Type::I64)
            } else {
                b.cast(CastOp::Sext, back, Type::I64)
            };
            acc = b.binary(BinaryOp::Iadd, acc, wide);
        }
        let fslot = b.alloca(8, 8);
        let fc = b.fconst(Type::F64, 2.5);
        b.store(fc, fslot);
        let fb = b.load(Type::F64, fslot);
        let fi = b.cast(CastOp::FpToSi, fb, Type::I64);
        acc = b.binary(BinaryOp::Iadd, acc, fi);
        b.ret(Some(acc));
    });
    let (_jit, f): (_, extern "C" fn(i64) -> i64) = jit_fn(&m, "mem");
    let expected = 1 - 3 - 100_000 + (1i64 << 40) + 2;
    for off in [0, 5, 12] {
        assert_eq!(f(off), expected);
    }
}

/// `memset` and `memcpy` of a constant length are inline stores (and
/// loads) up to a size, calls beyond it: every length around the limits,
/// at unaligned addresses, writes exactly the bytes the C library's would
/// and none beside them.
#[test]
fn small_constant_memset_and_memcpy_write_exactly_their_bytes() {
    let lengths: Vec<i64> = (0..=20)
        .chain([31, 63, 64, 65, 127, 128, 129, 200])
        .collect();
    let mut m = Module::new();
    for &n in &lengths {
        define(&mut m, &format!("set{n}"), &[Type::Ptr], None, |b, p| {
            let byte = b.iconst(Type::I32, 0x1a5);
            let len = b.iconst(Type::I64, n);
            b.intrinsic(Intrinsic::Memset, None, vec![p[0], byte, len]);
            b.ret(None);
        });
        define(
            &mut m,
            &format!("copy{n}"),
            &[Type::Ptr, Type::Ptr],
            None,
            |b, p| {
                let len = b.iconst(Type::I64, n);
                b.intrinsic(Intrinsic::Memcpy, None, vec![p[0], p[1], len]);
                b.ret(None);
            },
        );
    }
    verified(&m);
    let jit =
        JitProgram::compile(&m, parc_ir::OptLevel::O2, true).unwrap_or_else(|e| panic!("{e}"));
    for &n in &lengths {
        let n = n as usize;
        let set = jit.function(&format!("set{n}")).expect("set compiled");
        let copy = jit.function(&format!("copy{n}")).expect("copy compiled");
        // SAFETY: the functions take one or two pointers and return nothing.
        let set = unsafe { std::mem::transmute::<*const u8, extern "C" fn(*mut u8)>(set) };
        // SAFETY: as above.
        let copy =
            unsafe { std::mem::transmute::<*const u8, extern "C" fn(*mut u8, *const u8)>(copy) };
        for start in [1usize, 8] {
            let mut buf = vec![7u8; n + 16];
            set(buf[start..].as_mut_ptr());
            let mut want = vec![7u8; n + 16];
            want[start..start + n].fill(0xa5);
            assert_eq!(buf, want, "memset of {n} bytes at offset {start}");

            let src: Vec<u8> = (0..n as u32).map(|i| (i * 37 + 11) as u8).collect();
            let mut buf = vec![7u8; n + 16];
            copy(buf[start..].as_mut_ptr(), src.as_ptr());
            let mut want = vec![7u8; n + 16];
            want[start..start + n].copy_from_slice(&src);
            assert_eq!(buf, want, "memcpy of {n} bytes to offset {start}");
        }
    }
}

/// A load or store through `ptradd q, c` addresses `q` displaced by `c`
/// (see `address` in codegen): negative and positive displacements, a
/// scaled index under them, an `i1` load, and displacements too large for
/// one instruction (computed as an addition instead), all reach the same
/// bytes as the plain additions.
#[test]
fn constant_displacements_address_the_same_memory() {
    let mut m = Module::new();
    define(
        &mut m,
        "f",
        &[Type::Ptr, Type::I64],
        Some(Type::I64),
        |b, p| {
            let three = b.iconst(Type::I64, 3);
            let scaled = b.binary(BinaryOp::Shl, p[1], three);
            let row = b.ptradd(p[0], scaled);
            let minus = b.iconst(Type::I64, -8);
            let plus = b.iconst(Type::I64, 8);
            let before = b.ptradd(row, minus);
            let after = b.ptradd(row, plus);
            let x = b.load(Type::I64, before);
            let y = b.load(Type::I64, after);
            let sum = b.binary(BinaryOp::Iadd, x, y);
            b.store(sum, row);
            let bit = b.load(Type::I1, after);
            let bit = b.cast(CastOp::Zext, bit, Type::I64);
            let far = b.iconst(Type::I64, 1 << 33);
            let back = b.iconst(Type::I64, -(1 << 33));
            let away = b.ptradd(row, far);
            let home = b.ptradd(away, back);
            let z = b.load(Type::I64, home);
            let r = b.binary(BinaryOp::Iadd, z, bit);
            b.ret(Some(r));
        },
    );
    let (_jit, f): (_, extern "C" fn(*mut i64, i64) -> i64) = jit_fn(&m, "f");
    let mut data = [10i64, 20, 31, 40, 51];
    // data[2] = data[1] + data[3] = 60; returns it plus data[3]'s low bit.
    assert_eq!(f(data.as_mut_ptr(), 2), 60);
    assert_eq!(data, [10, 20, 60, 40, 51]);
    // data[1] = 10 + 60 = 70; plus data[2]'s low bit (0).
    assert_eq!(f(data.as_mut_ptr(), 1), 70);
    // data[3] = 60 + 51 = 111; plus data[4]'s low bit (1).
    assert_eq!(f(data.as_mut_ptr(), 3), 112);
    assert_eq!(data, [10, 70, 60, 111, 51]);
}

/// Globals: initial images, zero fill, relocations, writes.
#[test]
fn globals_with_relocations() {
    let mut m = Module::new();
    let table = m.globals.push(GlobalData {
        name: "table".into(),
        size: 16,
        align: 4,
        init: [10i32, 20, 30]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect(),
        relocs: Vec::new(),
        func_relocs: Vec::new(),
        is_const: false,
        space: AddrSpace::Global,
        is_local: false,
        is_import: false,
    });
    let ptr = m.globals.push(GlobalData {
        name: "ptr".into(),
        size: 8,
        align: 8,
        init: Vec::new(),
        relocs: vec![(0, table, 8)],
        func_relocs: Vec::new(),
        is_const: true,
        space: AddrSpace::Global,
        is_local: false,
        is_import: false,
    });
    // `free` clashes with the C library: the global must be renamed.
    let counter = m.globals.push(GlobalData {
        name: "free".into(),
        size: 4,
        align: 4,
        ..GlobalData::default()
    });
    define(&mut m, "get", &[], Some(Type::I32), |b, _| {
        let pp = b.global_addr(ptr);
        let p = b.load(Type::Ptr, pp);
        let third = b.load(Type::I32, p); // table[2] = 30
        let t = b.global_addr(table);
        let four = b.iconst(Type::I64, 12);
        let last = b.ptradd(t, four);
        let zero = b.load(Type::I32, last); // zero-filled tail
        let c = b.global_addr(counter);
        let old = b.load(Type::I32, c);
        let one = b.iconst(Type::I32, 1);
        let new = b.binary(BinaryOp::Iadd, old, one);
        b.store(new, c);
        let s = b.binary(BinaryOp::Iadd, third, zero);
        let s = b.binary(BinaryOp::Iadd, s, new);
        b.ret(Some(s));
    });
    let (_jit, f): (_, extern "C" fn() -> i32) = jit_fn(&m, "get");
    assert_eq!(f(), 31);
    assert_eq!(f(), 32);
}

#[test]
fn tapir_terminators_are_rejected() {
    let mut m = Module::new();
    define(&mut m, "f", &[], None, |b, _| {
        let sr = b.func.create_sync_region();
        let task = b.create_block();
        let cont = b.create_block();
        let next = b.create_block();
        b.detach(sr, task, cont);
        b.switch_to(task);
        b.reattach(sr, cont);
        b.switch_to(cont);
        b.sync(sr, next);
        b.switch_to(next);
        b.ret(None);
    });
    match JitProgram::compile(&m, parc_ir::OptLevel::O2, true) {
        Err(BackendError::Invalid(msg)) => assert!(msg.contains("lower_tapir"), "{msg}"),
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("a module with detach was accepted"),
    }
}

#[test]
fn undefined_imports_are_reported() {
    let mut m = Module::new();
    let mut f = parc_ir::Function::new(
        "no_such_function_anywhere",
        Signature {
            params: vec![],
            ret: None,
        },
    );
    f.linkage = Linkage::Import;
    let ext = m.funcs.push(f);
    define(&mut m, "g", &[], None, |b, _| {
        b.call(ext, None, vec![]);
        b.ret(None);
    });
    match JitProgram::compile(&m, parc_ir::OptLevel::O2, true) {
        Err(BackendError::Invalid(msg)) => assert!(msg.contains("no_such_function_anywhere")),
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("an undefined import was accepted"),
    }
}

// ---- whole programs in child processes --------------------------------------

/// Names the scenario a re-executed test binary runs (see [`child`]).
const CHILD_ENV: &str = "PARC_CPU_TEST_CHILD";
/// Printed by the child before the program runs; stdout before it is the
/// test harness's.
const MARKER: &str = "---parc-child---";

/// The module of a named scenario.
fn scenario(name: &str) -> Module {
    let mut m = Module::new();
    match name {
        "div_zero" => {
            let div = define(
                &mut m,
                "divide",
                &[Type::I32, Type::I32],
                Some(Type::I32),
                |b, p| {
                    b.set_loc(SrcLoc::new(3, 14));
                    let q = b.binary(BinaryOp::Sdiv, p[0], p[1]);
                    b.ret(Some(q));
                },
            );
            let before = cstr(&mut m, "before\n");
            define(&mut m, "main", &[], Some(Type::I32), |b, _| {
                printf(b, before, &[]);
                let seven = b.iconst(Type::I32, 7);
                let zero = b.iconst(Type::I32, 0);
                let r = b.call(div, Some(Type::I32), vec![seven, zero]).unwrap();
                b.ret(Some(r));
            });
        }
        "unreachable" => {
            define(&mut m, "main", &[], Some(Type::I32), |b, _| {
                b.set_loc(SrcLoc::new(9, 1));
                b.unreachable();
            });
        }
        "printf" => {
            let fmt = cstr(&mut m, "%d %ld %u %.3f %e %s %c|%5d|%-4d|%%\n");
            let word = cstr(&mut m, "word");
            let fmt2 = cstr(&mut m, "printed %d bytes\n");
            define(&mut m, "main", &[], Some(Type::I32), |b, _| {
                let a = b.iconst(Type::I32, -42);
                let l = b.iconst(Type::I64, 1 << 40);
                let u = b.iconst(Type::I32, -1);
                let d = b.fconst(Type::F64, 3.14209);
                let f = b.fconst(Type::F32, 0.25);
                let f = b.cast(CastOp::FpExt, f, Type::F64);
                let s = b.global_addr(word);
                let c = b.iconst(Type::I32, 'Z' as i64);
                let w = b.iconst(Type::I32, 42);
                let x = b.iconst(Type::I32, 7);
                let n = printf(b, fmt, &[a, l, u, d, f, s, c, w, x]);
                printf(b, fmt2, &[n]);
                let zero = b.iconst(Type::I32, 0);
                b.ret(Some(zero));
            });
        }
        "args" => {
            let fmt = cstr(&mut m, "argc=%d argv[1]=%s atoi=%d\n");
            define(
                &mut m,
                "main",
                &[Type::I32, Type::Ptr],
                Some(Type::I32),
                |b, p| {
                    let eight = b.iconst(Type::I64, 8);
                    let slot = b.ptradd(p[1], eight);
                    let arg1 = b.load(Type::Ptr, slot);
                    let n = b
                        .intrinsic(Intrinsic::C(CFn::Atoi), Some(Type::I32), vec![arg1])
                        .unwrap();
                    printf(b, fmt, &[p[0], arg1, n]);
                    let r = b.binary(BinaryOp::Iadd, p[0], n);
                    b.ret(Some(r));
                },
            );
        }
        "exit" => {
            let fmt = cstr(&mut m, "leaving\n");
            let helper = define(&mut m, "helper", &[], None, |b, _| {
                printf(b, fmt, &[]);
                let s = b.iconst(Type::I32, 7);
                b.intrinsic(Intrinsic::Exit, None, vec![s]);
                b.unreachable();
            });
            define(&mut m, "main", &[], Some(Type::I32), |b, _| {
                b.call(helper, None, vec![]);
                let zero = b.iconst(Type::I32, 0);
                b.ret(Some(zero));
            });
        }
        "kernel" => kernel_module(&mut m),
        "bad_launch" => {
            let k = define(&mut m, "k", &[], None, |b, _| b.ret(None));
            m.funcs[k].kind = FuncKind::Kernel;
            define(&mut m, "main", &[], Some(Type::I32), |b, _| {
                let one = b.iconst(Type::I32, 1);
                let big = b.iconst(Type::I32, 2048);
                b.set_loc(SrcLoc::new(4, 5));
                b.launch(k, [one, one, one], [big, one, one], vec![]);
                b.ret(Some(one));
            });
        }
        other => panic!("no scenario {other}"),
    }
    verified(&m);
    m
}

/// A 2-D launch: every thread adds its linear id into a global counter
/// with `atomic_add` and writes `blockIdx.y * 100 + threadIdx.x` into a
/// `__shared__` array (after a barrier, reads a neighbour's entry). Main
/// prints the counter and a checksum.
fn kernel_module(m: &mut Module) {
    let shared = m.globals.push(GlobalData {
        name: "tile".into(),
        size: 4 * 64,
        align: 4,
        space: AddrSpace::Shared,
        ..GlobalData::default()
    });
    let kernel = define(m, "k", &[Type::Ptr, Type::Ptr], None, |b, p| {
        let tx = b
            .intrinsic(Intrinsic::ThreadIdx(Dim::X), Some(Type::I32), vec![])
            .unwrap();
        let bx = b
            .intrinsic(Intrinsic::BlockIdx(Dim::X), Some(Type::I32), vec![])
            .unwrap();
        let by = b
            .intrinsic(Intrinsic::BlockIdx(Dim::Y), Some(Type::I32), vec![])
            .unwrap();
        let bd = b
            .intrinsic(Intrinsic::BlockDim(Dim::X), Some(Type::I32), vec![])
            .unwrap();
        let gx = b
            .intrinsic(Intrinsic::GridDim(Dim::X), Some(Type::I32), vec![])
            .unwrap();
        // linear block = by * gx + bx; id = linear * bd + tx
        let lb = b.binary(BinaryOp::Imul, by, gx);
        let lb = b.binary(BinaryOp::Iadd, lb, bx);
        let id = b.binary(BinaryOp::Imul, lb, bd);
        let id = b.binary(BinaryOp::Iadd, id, tx);
        let id64 = b.cast(CastOp::Sext, id, Type::I64);
        b.intrinsic(Intrinsic::AtomicAdd, Some(Type::I64), vec![p[0], id64]);
        // tile[tx] = tx; barrier; out[id] = tile[(tx + 1) % bd]
        let base = b.global_addr(shared);
        let four = b.iconst(Type::I64, 4);
        let tx64 = b.cast(CastOp::Sext, tx, Type::I64);
        let off = b.binary(BinaryOp::Imul, tx64, four);
        let slot = b.ptradd(base, off);
        b.store(tx, slot);
        b.intrinsic(Intrinsic::Barrier, None, vec![]);
        let one = b.iconst(Type::I32, 1);
        let nb = b.binary(BinaryOp::Iadd, tx, one);
        let nb = b.binary(BinaryOp::Srem, nb, bd);
        let nb64 = b.cast(CastOp::Sext, nb, Type::I64);
        let noff = b.binary(BinaryOp::Imul, nb64, four);
        let nslot = b.ptradd(base, noff);
        let v = b.load(Type::I32, nslot);
        let ooff = b.binary(BinaryOp::Imul, id64, four);
        let out = b.ptradd(p[1], ooff);
        b.store(v, out);
        b.ret(None);
    });
    m.funcs[kernel].kind = FuncKind::Kernel;
    let fmt = cstr(m, "sum=%ld check=%ld\n");
    define(m, "main", &[], Some(Type::I32), |b, _| {
        let counter = b.alloca(8, 8);
        let n = b.iconst(Type::I64, 4 * 3 * 2 * 8);
        let out = b
            .intrinsic(Intrinsic::Malloc, Some(Type::Ptr), vec![n])
            .unwrap();
        let three = b.iconst(Type::I32, 3);
        let two = b.iconst(Type::I32, 2);
        let one = b.iconst(Type::I32, 1);
        let eight = b.iconst(Type::I32, 8);
        b.launch(
            kernel,
            [three, two, one],
            [eight, one, one],
            vec![counter, out],
        );
        // check = sum of out[i] * (i + 1)
        let header = b.create_block();
        let body = b.create_block();
        let done = b.create_block();
        let i = b.param(header, Type::I64);
        let acc = b.param(header, Type::I64);
        let res = b.param(done, Type::I64);
        let zero = b.iconst(Type::I64, 0);
        b.jump(header, vec![zero, zero]);
        b.switch_to(header);
        let total = b.iconst(Type::I64, 48);
        let c = b.icmp(IntCC::Slt, i, total);
        b.brif(c, BlockCall::to(body), BlockCall::new(done, vec![acc]));
        b.switch_to(body);
        let four = b.iconst(Type::I64, 4);
        let off = b.binary(BinaryOp::Imul, i, four);
        let p = b.ptradd(out, off);
        let v = b.load(Type::I32, p);
        let v = b.cast(CastOp::Sext, v, Type::I64);
        let one64 = b.iconst(Type::I64, 1);
        let w = b.binary(BinaryOp::Iadd, i, one64);
        let prod = b.binary(BinaryOp::Imul, v, w);
        let acc2 = b.binary(BinaryOp::Iadd, acc, prod);
        b.jump(header, vec![w, acc2]);
        b.switch_to(done);
        let sum = b.load(Type::I64, counter);
        printf(b, fmt, &[sum, res]);
        b.intrinsic(Intrinsic::Free, None, vec![out]);
        let z = b.iconst(Type::I32, 0);
        b.ret(Some(z));
    });
}

/// Runs in the re-executed test binary: compiles the scenario named by
/// [`CHILD_ENV`] and runs it with the JIT, then exits with its status.
#[test]
fn child() {
    let Ok(name) = std::env::var(CHILD_ENV) else {
        return;
    };
    let m = scenario(&name);
    println!("{MARKER}");
    use std::io::Write;
    std::io::stdout().flush().unwrap();
    let args = ["prog".to_string(), "12".to_string()];
    let status = match crate::jit_run(m, &args, &crate::Options::default()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("backend error: {e}");
            99
        }
    };
    std::process::exit(status);
}

struct ChildOutput {
    stdout: String,
    stderr: String,
    status: i32,
}

fn run_child(name: &str) -> ChildOutput {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "tests::child", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, name)
        .output()
        .expect("re-executing the test binary");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stdout = match stdout.find(MARKER) {
        Some(i) => stdout[i + MARKER.len() + 1..].to_string(),
        None => panic!(
            "the child did not start: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        ),
    };
    ChildOutput {
        stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        status: out.status.code().unwrap_or(-1),
    }
}

#[test]
fn division_by_zero_faults_with_the_position() {
    let out = run_child("div_zero");
    assert_eq!(out.stdout, "before\n");
    assert_eq!(
        out.stderr.trim_end(),
        "run-time error in function `divide` at line 3:14: integer division by zero"
    );
    assert_eq!(out.status, 1);
}

#[test]
fn unreachable_faults() {
    let out = run_child("unreachable");
    assert_eq!(
        out.stderr.trim_end(),
        "run-time error in function `main` at line 9:1: control reached end of non-void function"
    );
    assert_eq!(out.status, 1);
}

#[test]
fn printf_formats_every_kind() {
    let out = run_child("printf");
    let expected = format!(
        "-42 1099511627776 4294967295 3.142 2.500000e-01 word Z|   42|7   |%\nprinted {} bytes\n",
        "-42 1099511627776 4294967295 3.142 2.500000e-01 word Z|   42|7   |%\n".len()
    );
    assert_eq!(out.stdout, expected, "stderr: {}", out.stderr);
    assert_eq!(out.status, 0);
}

#[test]
fn main_receives_the_command_line() {
    let out = run_child("args");
    assert_eq!(
        out.stdout, "argc=2 argv[1]=12 atoi=12\n",
        "stderr: {}",
        out.stderr
    );
    assert_eq!(out.status, 14);
}

#[test]
fn exit_flushes_and_sets_the_status() {
    let out = run_child("exit");
    assert_eq!(out.stdout, "leaving\n");
    assert_eq!(out.status, 7);
}

fn kernel_expected() -> String {
    // 6 blocks of 8 threads: ids 0..48; out[id] = (tx + 1) % 8.
    let sum: i64 = (0..48).sum();
    let check: i64 = (0..48i64).map(|i| ((i % 8 + 1) % 8) * (i + 1)).sum();
    format!("sum={sum} check={check}\n")
}

#[test]
fn kernels_launch_with_shared_memory_and_barriers() {
    let out = run_child("kernel");
    assert_eq!(out.stdout, kernel_expected(), "stderr: {}", out.stderr);
    assert_eq!(out.status, 0);
}

#[test]
fn bad_launch_configuration_faults_at_the_launch() {
    let out = run_child("bad_launch");
    assert_eq!(
        out.stderr.trim_end(),
        "run-time error in function `main` at line 4:5: invalid launch configuration"
    );
    assert_eq!(out.status, 1);
}

// ---- objects, executables, libraries ---------------------------------------

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("parc-cpu-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn objects_are_elf() {
    let m = scenario("kernel");
    let bytes = crate::emit_object(m, &crate::Options::default()).unwrap();
    assert_eq!(&bytes[..4], b"\x7fELF");
}

#[test]
fn executables_run_like_the_jit() {
    if crate::find_runtime_lib().is_err() {
        eprintln!("skipped: libparc_runtime.a not built");
        return;
    }
    for (name, expected, status) in [
        ("kernel", kernel_expected(), 0),
        ("exit", "leaving\n".to_string(), 7),
        ("args", "argc=2 argv[1]=12 atoi=12\n".to_string(), 14),
    ] {
        let exe = scratch(name);
        crate::build(
            scenario(name),
            OutputKind::Exe,
            &exe,
            &crate::Options::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let out = Command::new(&exe).arg("12").output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected, "{name}");
        assert_eq!(out.status.code(), Some(status), "{name}");
    }
    let exe = scratch("div_zero");
    crate::build(
        scenario("div_zero"),
        OutputKind::Exe,
        &exe,
        &crate::Options::default(),
    )
    .unwrap();
    let out = Command::new(&exe).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "before\n");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "run-time error in function `divide` at line 3:14: integer division by zero"
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn shared_libraries_export_c_functions_with_a_header() {
    if crate::find_runtime_lib().is_err() {
        eprintln!("skipped: libparc_runtime.a not built");
        return;
    }
    let mut m = Module::new();
    define(
        &mut m,
        "scale",
        &[Type::F64, Type::I32],
        Some(Type::F64),
        |b, p| {
            let x = b.cast(CastOp::SiToFp, p[1], Type::F64);
            let r = b.binary(BinaryOp::Fmul, p[0], x);
            b.ret(Some(r));
        },
    );
    let fmt = cstr(&mut m, "hello %d\n");
    define(&mut m, "greet", &[Type::I32], None, |b, p| {
        printf(b, fmt, &[p[0]]);
        b.ret(None);
    });
    let hidden = define(&mut m, "hidden", &[], Some(Type::I32), |b, _| {
        let v = b.iconst(Type::I32, 1);
        b.ret(Some(v));
    });
    m.funcs[hidden].linkage = Linkage::Local;
    let lib = scratch("libdemo.so");
    crate::build(m.clone(), OutputKind::Lib, &lib, &crate::Options::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let header = std::fs::read_to_string(lib.with_extension("h")).unwrap();
    assert!(header.contains("double scale(double, int);"), "{header}");
    assert!(header.contains("void greet(int);"), "{header}");
    assert!(!header.contains("hidden"), "{header}");

    // A C program using the header and the library, when a C compiler
    // is around (the link step needed one anyway).
    let c = scratch("use.c");
    std::fs::write(
        &c,
        "#include \"libdemo.h\"\n#include <stdio.h>\nint main(void) { printf(\"%g\\n\", scale(1.5, 4)); fflush(stdout); greet(5); return 0; }\n",
    )
    .unwrap();
    let exe = scratch("use");
    let status = Command::new("cc")
        .arg("-o")
        .arg(&exe)
        .arg(&c)
        .arg(format!("-I{}", lib.parent().unwrap().display()))
        .arg(&lib)
        .status()
        .unwrap();
    assert!(status.success());
    let out = Command::new(&exe)
        .env("LD_LIBRARY_PATH", lib.parent().unwrap())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "6\nhello 5\n");
    assert!(out.status.success());
}

/// ParC source to a module ready for code generation (front end, then
/// Tapir lowering to the runtime).
fn from_source(src: &str) -> Module {
    let (ast, diags) = parc_lang::parse::parse(src);
    assert!(!diags.iter().any(|d| d.is_error()), "parse: {diags:?}");
    let (hir, diags) = parc_lang::check::check(ast);
    assert!(!diags.iter().any(|d| d.is_error()), "check: {diags:?}");
    let mut m = parc_lang::lower::lower(hir.unwrap(), "test.pc", src);
    verified(&m);
    crate::tapir::lower_tapir(
        &mut m,
        crate::tapir::Target::Runtime,
        &crate::tapir::TapirOptions::default(),
    )
    .unwrap();
    verified(&m);
    m
}

/// An exported function that spawns runs on the worker pool when a C
/// program calls it (through `parc_rt_enter`), and one that prints has
/// its output flushed before it returns.
#[test]
fn library_functions_may_spawn_and_print() {
    if crate::find_runtime_lib().is_err() {
        eprintln!("skipped: libparc_runtime.a not built");
        return;
    }
    let m = from_source(
        "int fib(int n) { if (n < 2) return n; int x = spawn fib(n - 1); int y = fib(n - 2); sync; return x + y; }\n\
         double total(double *a, int n) { double s = 0.0; for (int i = 0; i < n; i++) s += a[i]; return s; }\n\
         void fill(double *a, int n) { parallel_for (int i = 0; i < n; i++) a[i] = i * 0.5; printf(\"filled %d\\n\", n); }\n\
         static int twice(int x) { return 2 * x; }\n\
         int main() { return twice(fib(5)); }\n",
    );
    let lib = scratch("libpar.so");
    crate::build(m.clone(), OutputKind::Lib, &lib, &crate::Options::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let header = std::fs::read_to_string(lib.with_extension("h")).unwrap();
    for proto in [
        "int fib(int n);",
        "double total(double *a, int n);",
        "void fill(double *a, int n);",
    ] {
        assert!(header.contains(proto), "{proto} missing in\n{header}");
    }
    // `twice` is static; the program's `main` is exported only as
    // `parc_main`, so the C program below can have its own `main`.
    assert!(
        header.contains("int parc_main(int argc, void *argv);"),
        "{header}"
    );
    assert!(
        !header.contains("twice") && !header.contains(" main("),
        "{header}"
    );
    let c = scratch("use_par.c");
    std::fs::write(
        &c,
        "#include \"libpar.h\"\n#include <stdio.h>\n\
         int main(void) {\n\
           double a[100];\n\
           printf(\"fib=%d\\n\", fib(22)); fflush(stdout);\n\
           fill(a, 100);\n\
           printf(\"total=%g\\n\", total(a, 100));\n\
           return 0;\n\
         }\n",
    )
    .unwrap();
    let exe = scratch("use_par");
    let status = Command::new("cc")
        .arg("-o")
        .arg(&exe)
        .arg(&c)
        .arg(format!("-I{}", lib.parent().unwrap().display()))
        .arg(&lib)
        .status()
        .unwrap();
    assert!(status.success());
    let out = Command::new(&exe)
        .env("LD_LIBRARY_PATH", lib.parent().unwrap())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "fib=17711\nfilled 100\ntotal=2475\n",
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success());
}

/// `extern` declarations that are never called need no definition.
#[test]
fn unused_extern_declarations_are_fine() {
    let m = from_source(
        "extern int not_defined_anywhere(int x);\nint five() { return 5; }\nint main() { return five(); }\n",
    );
    let (_jit, f): (_, extern "C" fn() -> i32) = jit_fn(&m, "five");
    assert_eq!(f(), 5);
}
