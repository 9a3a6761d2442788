//! Tests of the Tapir lowering. The serial target is checked against the
//! reference interpreter (output and status must not change); the runtime
//! target, which the interpreter cannot run, is checked for verifying and
//! for its shape in the printed IR.
//!
//! Length: a list of independent scenarios, one test each.

use super::*;
use parc_ir::interp::{Config, run_main};
use parc_ir::print::{function_to_string, print_module};
use parc_ir::verify::verify_module;
use parc_ir::{
    BinaryOp, BlockCall, CastOp, GlobalData, GlobalId, IntCC, Intrinsic, Signature, Type,
    new_function,
};
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------- harness

fn verified(m: &Module, what: &str) {
    if let Err(errors) = verify_module(m) {
        let list: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        panic!(
            "{what} does not verify:\n{}\n\n{}",
            list.join("\n"),
            print_module(m)
        );
    }
}

fn no_tapir_left(m: &Module) {
    for f in m.funcs.values() {
        for (b, i) in f.placed_insts() {
            assert!(
                !matches!(
                    f.inst(i),
                    InstKind::Detach { .. } | InstKind::Reattach { .. } | InstKind::Sync { .. }
                ),
                "{b} of @{} still has a Tapir terminator",
                f.name
            );
        }
    }
}

/// Runs `main`; the output and, as text, the status or the error (whose
/// message may name an outlined function, so only its presence counts).
fn run(m: &Module, args: &[String]) -> (String, String) {
    let config = Config {
        args: args.to_vec(),
        max_steps: Some(500_000_000),
        ..Config::default()
    };
    let mut out = Vec::new();
    let status = match run_main(m, &config, &mut out) {
        Ok(code) => format!("exit {code}"),
        Err(_) => "run-time error".to_string(),
    };
    (String::from_utf8_lossy(&out).into_owned(), status)
}

fn lowered(m: &Module, target: Target, grain: Option<u64>) -> Module {
    let mut l = m.clone();
    lower_tapir(&mut l, target, &TapirOptions { grain })
        .unwrap_or_else(|e| panic!("{e}\n{}", print_module(m)));
    verified(&l, &format!("the {target:?} lowering (grain {grain:?})"));
    no_tapir_left(&l);
    l
}

/// The whole check for one module: it verifies; the serial lowering (one
/// chunk, and chunks of 1 and 3 iterations) runs exactly as the original
/// does; the runtime lowering verifies. Returns the runtime lowering.
fn check_module(m: &Module, args: &[String]) -> Module {
    verified(m, "the input");
    let expected = run(m, args);
    for grain in [None, Some(1), Some(3)] {
        let s = lowered(m, Target::Serial, grain);
        assert_eq!(
            run(&s, args),
            expected,
            "serial lowering (grain {grain:?}) changed the behaviour of\n{}\nlowered:\n{}",
            print_module(m),
            print_module(&s)
        );
    }
    lowered(m, Target::Runtime, None)
}

/// Asserts that `patterns` occur in `text` in this order.
fn check_in_order(text: &str, patterns: &[&str]) {
    let mut rest = text;
    for p in patterns {
        match rest.find(p) {
            Some(at) => rest = &rest[at + p.len()..],
            None => panic!("`{p}` not found (in order) in:\n{text}"),
        }
    }
}

fn func_text(m: &Module, name: &str) -> String {
    let id = m
        .func_by_name(name)
        .unwrap_or_else(|| panic!("no @{name} in\n{}", print_module(m)));
    function_to_string(m, &m.funcs[id])
}

fn count(text: &str, pat: &str) -> usize {
    text.matches(pat).count()
}

// ------------------------------------------------------------ IR builders

fn add_str(m: &mut Module, s: &str) -> GlobalId {
    let name = format!(".str.{}", m.globals.len());
    m.globals.push(GlobalData::c_string(name, s.as_bytes()))
}

fn printf(b: &mut FuncBuilder, fmt: GlobalId, args: &[Value]) {
    let f = b.global_addr(fmt);
    let mut all = vec![f];
    all.extend_from_slice(args);
    b.intrinsic(Intrinsic::Printf, Some(Type::I32), all);
}

fn sig(params: &[Type], ret: Option<Type>) -> Signature {
    Signature {
        params: params.to_vec(),
        ret,
    }
}

/// Prints the `n` `i64`s at `a`, one line.
fn print_i64s(b: &mut FuncBuilder, m_fmt: (GlobalId, GlobalId), a: Value, n: i64) {
    let (item, nl) = m_fmt;
    let head = b.create_block();
    let body = b.create_block();
    let done = b.create_block();
    let zero = b.iconst(Type::I64, 0);
    b.jump(head, vec![zero]);
    b.switch_to(head);
    let k = b.param(head, Type::I64);
    let limit = b.iconst(Type::I64, n);
    let more = b.icmp(IntCC::Slt, k, limit);
    b.brif(more, BlockCall::to(body), BlockCall::to(done));
    b.switch_to(body);
    let eight = b.iconst(Type::I64, 8);
    let off = b.binary(BinaryOp::Imul, k, eight);
    let p = b.ptradd(a, off);
    let v = b.load(Type::I64, p);
    printf(b, item, &[v]);
    let one = b.iconst(Type::I64, 1);
    let k1 = b.binary(BinaryOp::Iadd, k, one);
    b.jump(head, vec![k1]);
    b.switch_to(done);
    printf(b, nl, &[]);
}

/// `fib(n)` with `x = spawn fib(n-1); y = fib(n-2); sync; return x + y;`,
/// and `main` printing `fib(15)`.
fn fib_module() -> Module {
    let mut m = Module::new();
    let fmt = add_str(&mut m, "fib=%d\n");
    let fib = m
        .funcs
        .push(new_function("fib", sig(&[Type::I32], Some(Type::I32))));
    let main = m
        .funcs
        .push(new_function("main", sig(&[], Some(Type::I32))));
    {
        let f = &mut m.funcs[fib];
        let sr = f.create_sync_region();
        let entry = f.layout[0];
        let n = f.block_params(entry)[0];
        let mut b = FuncBuilder::new(f);
        let [base, rec, task, cont, done] = [(); 5].map(|_| b.create_block());
        b.switch_to(entry);
        let x = b.alloca(4, 4);
        let y = b.alloca(4, 4);
        let two = b.iconst(Type::I32, 2);
        let small = b.icmp(IntCC::Slt, n, two);
        b.brif(small, BlockCall::to(base), BlockCall::to(rec));
        b.switch_to(base);
        b.ret(Some(n));
        b.switch_to(rec);
        let one = b.iconst(Type::I32, 1);
        let n1 = b.binary(BinaryOp::Isub, n, one);
        b.detach(sr, task, cont);
        b.switch_to(task);
        let r = b.call(fib, Some(Type::I32), vec![n1]).unwrap();
        b.store(r, x);
        b.reattach(sr, cont);
        b.switch_to(cont);
        let n2 = b.binary(BinaryOp::Isub, n, two);
        let r2 = b.call(fib, Some(Type::I32), vec![n2]).unwrap();
        b.store(r2, y);
        b.sync(sr, done);
        b.switch_to(done);
        let a = b.load(Type::I32, x);
        let c = b.load(Type::I32, y);
        let s = b.binary(BinaryOp::Iadd, a, c);
        b.ret(Some(s));
    }
    {
        let f = &mut m.funcs[main];
        let entry = f.layout[0];
        let mut b = FuncBuilder::new(f);
        b.switch_to(entry);
        let k = b.iconst(Type::I32, 15);
        let r = b.call(fib, Some(Type::I32), vec![k]).unwrap();
        printf(&mut b, fmt, &[r]);
        let zero = b.iconst(Type::I32, 0);
        b.ret(Some(zero));
    }
    m
}

/// One parallel loop over an integer type.
#[derive(Clone, Copy, Debug)]
struct LoopCase {
    ty: Type,
    /// `iv cc hi` as written in the header (`swapped`: `hi cc' iv`).
    cc: IntCC,
    swapped: bool,
    lo: i64,
    hi: i64,
    step: i64,
    /// The step is a parameter of `fill` rather than a constant.
    step_param: bool,
    /// The task contains a loop.
    spin: bool,
    /// What else the function does with the loop (a shape the recognizer
    /// must refuse).
    twist: Twist,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Twist {
    None,
    /// The exit stores `iv` to memory: `iv` is used after the loop.
    IvUsedAfter,
    /// A spawn before the loop shares the loop's region.
    SharedRegion,
    /// The index arithmetic sits above the detach, in the parent.
    ComputedAboveDetach,
}

impl LoopCase {
    fn new(ty: Type, cc: IntCC, lo: i64, hi: i64, step: i64) -> LoopCase {
        LoopCase {
            ty,
            cc,
            swapped: false,
            lo,
            hi,
            step,
            step_param: false,
            spin: false,
            twist: Twist::None,
        }
    }
}

const CELLS: i64 = 72;

fn is_signed(cc: IntCC) -> bool {
    matches!(cc, IntCC::Slt | IntCC::Sle | IntCC::Sgt | IntCC::Sge)
}

/// `fill(a, lo, hi, step)`: `parallel_for (i = lo; i cc hi; i += step)
/// { long t; a[i - lo] += t + (long)i * i; t = 12345; }` where `t` is a
/// per-iteration local (an `alloca` in the task: must read 0 every time),
/// then `a[CELLS-1] = i` for [`Twist::IvUsedAfter`]. `main` calls it and
/// prints the array.
fn loop_module(case: LoopCase) -> Module {
    let ty = case.ty;
    let ext = if is_signed(case.cc) {
        CastOp::Sext
    } else {
        CastOp::Zext
    };
    let mut m = Module::new();
    let item = add_str(&mut m, "%ld ");
    let nl = add_str(&mut m, "|\n");
    let helper = m.funcs.push(new_function("side", sig(&[Type::Ptr], None)));
    {
        let f = &mut m.funcs[helper];
        let entry = f.layout[0];
        let a = f.block_params(entry)[0];
        let mut b = FuncBuilder::new(f);
        b.switch_to(entry);
        let off = b.iconst(Type::I64, 8 * (CELLS - 2));
        let p = b.ptradd(a, off);
        let v = b.iconst(Type::I64, 777);
        b.store(v, p);
        b.ret(None);
    }
    let fill = m
        .funcs
        .push(new_function("fill", sig(&[Type::Ptr, ty, ty, ty], None)));
    {
        let f = &mut m.funcs[fill];
        let sr = f.create_sync_region();
        let entry = f.layout[0];
        let [a, lo, hi, step_arg] = f.block_params(entry)[..] else {
            unreachable!()
        };
        let mut b = FuncBuilder::new(f);
        let [header, spawn, task, latch, exit, done] = [(); 6].map(|_| b.create_block());
        b.switch_to(entry);
        if case.twist == Twist::SharedRegion {
            let (t, c) = (b.create_block(), b.create_block());
            b.detach(sr, t, c);
            b.switch_to(t);
            b.call(helper, None, vec![a]);
            b.reattach(sr, c);
            b.switch_to(c);
        }
        let step = if case.step_param {
            step_arg
        } else {
            b.iconst(ty, case.step)
        };
        b.jump(header, vec![lo]);

        b.switch_to(header);
        let iv = b.param(header, ty);
        let c = if case.swapped {
            b.icmp(case.cc, hi, iv)
        } else {
            b.icmp(case.cc, iv, hi)
        };
        b.brif(c, BlockCall::to(spawn), BlockCall::to(exit));
        b.switch_to(spawn);
        let early = (case.twist == Twist::ComputedAboveDetach).then(|| {
            let d = b.binary(BinaryOp::Isub, iv, lo);
            b.binary(BinaryOp::Iadd, d, d)
        });
        b.detach(sr, task, latch);

        b.switch_to(task);
        let t = b.alloca(8, 8);
        let idx = match early {
            Some(twice) => {
                let two = b.iconst(ty, 2);
                b.binary(BinaryOp::Udiv, twice, two)
            }
            None => b.binary(BinaryOp::Isub, iv, lo),
        };
        let idx = if ty == Type::I64 {
            idx
        } else {
            b.cast(ext, idx, Type::I64)
        };
        let eight = b.iconst(Type::I64, 8);
        let off = b.binary(BinaryOp::Imul, idx, eight);
        let p = b.ptradd(a, off);
        if case.spin {
            // A loop inside the task: `while (a[idx] < 3) a[idx]++;`.
            let (spin, inc, out) = (b.create_block(), b.create_block(), b.create_block());
            b.jump(spin, Vec::new());
            b.switch_to(spin);
            let cur = b.load(Type::I64, p);
            let three = b.iconst(Type::I64, 3);
            let low = b.icmp(IntCC::Slt, cur, three);
            b.brif(low, BlockCall::to(inc), BlockCall::to(out));
            b.switch_to(inc);
            let one = b.iconst(Type::I64, 1);
            let up = b.binary(BinaryOp::Iadd, cur, one);
            b.store(up, p);
            b.jump(spin, Vec::new());
            b.switch_to(out);
        }
        let v = if ty == Type::I64 {
            iv
        } else {
            b.cast(ext, iv, Type::I64)
        };
        let sq = b.binary(BinaryOp::Imul, v, v);
        let tv = b.load(Type::I64, t);
        let old = b.load(Type::I64, p);
        let sum = b.binary(BinaryOp::Iadd, old, sq);
        let sum = b.binary(BinaryOp::Iadd, sum, tv);
        b.store(sum, p);
        let dirty = b.iconst(Type::I64, 12345);
        b.store(dirty, t);
        b.reattach(sr, latch);

        b.switch_to(latch);
        let next = b.binary(BinaryOp::Iadd, iv, step);
        b.jump(header, vec![next]);

        b.switch_to(exit);
        if case.twist == Twist::IvUsedAfter {
            let off = b.iconst(Type::I64, 8 * (CELLS - 1));
            let p = b.ptradd(a, off);
            let v = if ty == Type::I64 {
                iv
            } else {
                b.cast(ext, iv, Type::I64)
            };
            b.store(v, p);
        }
        b.sync(sr, done);
        b.switch_to(done);
        b.ret(None);
    }
    let main = m
        .funcs
        .push(new_function("main", sig(&[], Some(Type::I32))));
    {
        let f = &mut m.funcs[main];
        let entry = f.layout[0];
        let mut b = FuncBuilder::new(f);
        b.switch_to(entry);
        let n = b.iconst(Type::I64, CELLS);
        let eight = b.iconst(Type::I64, 8);
        let a = b
            .intrinsic(Intrinsic::Calloc, Some(Type::Ptr), vec![n, eight])
            .unwrap();
        let lo = b.iconst(ty, case.lo);
        let hi = b.iconst(ty, case.hi);
        let step = b.iconst(ty, case.step);
        b.call(fill, None, vec![a, lo, hi, step]);
        print_i64s(&mut b, (item, nl), a, CELLS);
        let zero = b.iconst(Type::I32, 0);
        b.ret(Some(zero));
    }
    m
}

/// `outer(a)`: `parallel_for (i = 0; i < 6; i++) { spawn mark(a, i);
/// parallel_for (j = 0; j < 5; j++) a[i*5 + j] = i*10 + j; sync; }`, where
/// `mark` writes `a[40 + i]`; `main` prints the array.
fn nested_module() -> Module {
    let mut m = Module::new();
    let item = add_str(&mut m, "%ld ");
    let nl = add_str(&mut m, "|\n");
    let mark = m
        .funcs
        .push(new_function("mark", sig(&[Type::Ptr, Type::I32], None)));
    {
        let f = &mut m.funcs[mark];
        let entry = f.layout[0];
        let [a, i] = f.block_params(entry)[..] else {
            unreachable!()
        };
        let mut b = FuncBuilder::new(f);
        b.switch_to(entry);
        let i64v = b.cast(CastOp::Sext, i, Type::I64);
        let forty = b.iconst(Type::I64, 40);
        let idx = b.binary(BinaryOp::Iadd, i64v, forty);
        let eight = b.iconst(Type::I64, 8);
        let off = b.binary(BinaryOp::Imul, idx, eight);
        let p = b.ptradd(a, off);
        let hundred = b.iconst(Type::I64, 100);
        let v = b.binary(BinaryOp::Imul, i64v, hundred);
        b.store(v, p);
        b.ret(None);
    }
    let outer = m.funcs.push(new_function("outer", sig(&[Type::Ptr], None)));
    {
        let f = &mut m.funcs[outer];
        let sr_i = f.create_sync_region();
        let sr_body = f.create_sync_region();
        let sr_j = f.create_sync_region();
        let entry = f.layout[0];
        let a = f.block_params(entry)[0];
        let mut b = FuncBuilder::new(f);
        let [h_i, sp_i, t_i, l_i, x_i, done] = [(); 6].map(|_| b.create_block());
        let [t_mark, c_mark, h_j, sp_j, t_j, l_j, x_j, end_body, reatt] =
            [(); 9].map(|_| b.create_block());
        b.switch_to(entry);
        let zero = b.iconst(Type::I32, 0);
        let six = b.iconst(Type::I32, 6);
        b.jump(h_i, vec![zero]);
        b.switch_to(h_i);
        let i = b.param(h_i, Type::I32);
        let c = b.icmp(IntCC::Slt, i, six);
        b.brif(c, BlockCall::to(sp_i), BlockCall::to(x_i));
        b.switch_to(sp_i);
        b.detach(sr_i, t_i, l_i);
        // The body of the outer loop.
        b.switch_to(t_i);
        b.detach(sr_body, t_mark, c_mark);
        b.switch_to(t_mark);
        b.call(mark, None, vec![a, i]);
        b.reattach(sr_body, c_mark);
        b.switch_to(c_mark);
        let z = b.iconst(Type::I32, 0);
        let five = b.iconst(Type::I32, 5);
        b.jump(h_j, vec![z]);
        b.switch_to(h_j);
        let j = b.param(h_j, Type::I32);
        let cj = b.icmp(IntCC::Slt, j, five);
        b.brif(cj, BlockCall::to(sp_j), BlockCall::to(x_j));
        b.switch_to(sp_j);
        b.detach(sr_j, t_j, l_j);
        b.switch_to(t_j);
        let i5 = b.binary(BinaryOp::Imul, i, five);
        let ij = b.binary(BinaryOp::Iadd, i5, j);
        let idx = b.cast(CastOp::Sext, ij, Type::I64);
        let eight = b.iconst(Type::I64, 8);
        let off = b.binary(BinaryOp::Imul, idx, eight);
        let p = b.ptradd(a, off);
        let ten = b.iconst(Type::I32, 10);
        let i10 = b.binary(BinaryOp::Imul, i, ten);
        let v = b.binary(BinaryOp::Iadd, i10, j);
        let v = b.cast(CastOp::Sext, v, Type::I64);
        b.store(v, p);
        b.reattach(sr_j, l_j);
        b.switch_to(l_j);
        let one = b.iconst(Type::I32, 1);
        let j1 = b.binary(BinaryOp::Iadd, j, one);
        b.jump(h_j, vec![j1]);
        b.switch_to(x_j);
        b.sync(sr_j, end_body);
        b.switch_to(end_body);
        b.sync(sr_body, reatt);
        b.switch_to(reatt);
        b.reattach(sr_i, l_i);
        // Back in the function body.
        b.switch_to(l_i);
        let one = b.iconst(Type::I32, 1);
        let i1 = b.binary(BinaryOp::Iadd, i, one);
        b.jump(h_i, vec![i1]);
        b.switch_to(x_i);
        b.sync(sr_i, done);
        b.switch_to(done);
        b.ret(None);
    }
    let main = m
        .funcs
        .push(new_function("main", sig(&[], Some(Type::I32))));
    {
        let f = &mut m.funcs[main];
        let entry = f.layout[0];
        let mut b = FuncBuilder::new(f);
        b.switch_to(entry);
        let n = b.iconst(Type::I64, 48);
        let eight = b.iconst(Type::I64, 8);
        let a = b
            .intrinsic(Intrinsic::Calloc, Some(Type::Ptr), vec![n, eight])
            .unwrap();
        b.call(outer, None, vec![a]);
        print_i64s(&mut b, (item, nl), a, 48);
        let zero = b.iconst(Type::I32, 0);
        b.ret(Some(zero));
    }
    m
}

// ------------------------------------------------------------------ tests

#[test]
fn fib_spawn_is_outlined() {
    let m = fib_module();
    assert_eq!(run(&m, &[]).0, "fib=610\n");
    let r = check_module(&m, &[]);
    let fib = func_text(&r, "fib");
    check_in_order(
        &fib,
        &[
            "alloca 32, align 8",
            "alloca 16, align 8",
            "func_addr @fib.task0",
            "iconst.i64 16",
            "call @parc_rt_spawn(",
            "call @fib(",
            "call @parc_rt_sync(",
            "return",
        ],
    );
    // The task loads the argument and the address of `x`, calls, stores.
    check_in_order(
        &func_text(&r, "fib.task0"),
        &[
            "func local @fib.task0(ptr)",
            "load.ptr",
            "load.i32",
            "call @fib(",
            "store",
            "return",
        ],
    );
    let text = print_module(&r);
    for decl in [
        "declare @parc_rt_spawn(ptr, ptr, ptr, i64)",
        "declare @parc_rt_sync(ptr)",
        "declare @parc_rt_parallel_for(i64, i64, i64, ptr, ptr)",
    ] {
        assert_eq!(count(&text, decl), 1, "{decl} in\n{text}");
    }

    // The serial target calls the task directly.
    let s = lowered(&m, Target::Serial, None);
    let fib = func_text(&s, "fib");
    assert!(fib.contains("call @fib.task0("), "{fib}");
    assert!(!print_module(&s).contains("parc_rt"));
}

#[test]
fn parallel_loops_are_recognized() {
    use IntCC::*;
    let mut cases = vec![
        LoopCase::new(Type::I32, Slt, 0, 10, 1),
        LoopCase::new(Type::I32, Slt, -5, 20, 3),
        LoopCase::new(Type::I32, Sle, -5, 20, 3),
        LoopCase::new(Type::I32, Sle, -5, 19, 3),
        LoopCase::new(Type::I32, Slt, 10, 10, 1),
        LoopCase::new(Type::I32, Slt, 10, 3, 1),
        LoopCase::new(Type::I32, Sle, 7, 7, 4),
        LoopCase::new(Type::I32, Slt, 0, 64, 64),
        LoopCase::new(Type::I32, Slt, 0, 64, 1000),
        LoopCase::new(Type::I64, Slt, -1_000_000_000_000, -999_999_999_950, 1),
        LoopCase::new(Type::I64, Sle, i64::MAX - 20, i64::MAX - 1, 2),
        LoopCase::new(Type::I32, Ult, 3, 40, 5),
        LoopCase::new(Type::I32, Ule, 0, 0, 1),
        // Unsigned bounds above i32::MAX: 0xFFFFFFF0 ..< 0xFFFFFFFE (the
        // last iteration must not wrap around, or the original loops on).
        LoopCase::new(Type::I32, Ult, -16, -2, 2),
        LoopCase::new(Type::I32, Ule, -16, -2, 3),
        LoopCase::new(Type::I64, Ult, -16, -2, 2),
        LoopCase::new(Type::I8, Slt, -3, 60, 7),
        LoopCase::new(Type::I8, Ult, 200, 255, 1),
    ];
    let swapped = [
        (Type::I32, Sgt, 0, 30, 4),
        (Type::I32, Sge, -4, 30, 4),
        (Type::I32, Ugt, 1, 9, 1),
    ];
    for (ty, cc, lo, hi, step) in swapped {
        cases.push(LoopCase {
            swapped: true,
            ..LoopCase::new(ty, cc, lo, hi, step)
        });
    }
    for (ty, cc, lo, hi, step) in [
        (Type::I32, Slt, -10, 50, 7),
        (Type::I32, Sle, 0, 60, 1),
        (Type::I64, Ult, 5, 70, 9),
        (Type::I32, Slt, 5, 4, 3),
    ] {
        cases.push(LoopCase {
            step_param: true,
            ..LoopCase::new(ty, cc, lo, hi, step)
        });
    }
    for case in cases {
        let m = loop_module(case);
        let r = check_module(&m, &[]);
        let fill = func_text(&r, "fill");
        assert_eq!(
            count(&fill, "call @parc_rt_parallel_for("),
            1,
            "{case:?}:\n{fill}"
        );
        assert!(!fill.contains("parc_rt_spawn"), "{case:?}:\n{fill}");
        let body = func_text(&r, "fill.loop0");
        check_in_order(
            &body,
            &[
                "func local @fill.loop0(ptr, i64, i64)",
                "alloca 8, align 8",
                "icmp slt",
                "store", // the per-iteration local is zeroed again
                "return",
            ],
        );
        assert!(!body.contains("parc_rt"), "{case:?}:\n{body}");
    }
}

#[test]
fn loop_trip_counts_run_the_right_iterations() {
    // 0, 3, 6, 9: the cell of each iteration holds i*i.
    let m = loop_module(LoopCase::new(Type::I32, IntCC::Slt, 0, 10, 3));
    let out = run(&lowered(&m, Target::Serial, Some(2)), &[]).0;
    assert!(out.starts_with("0 0 0 9 0 0 36 0 0 81 0 "), "{out}");
    // A variable step that is not positive breaks the language's contract;
    // the lowered loop then runs no iteration rather than trapping.
    let m = loop_module(LoopCase {
        step_param: true,
        ..LoopCase::new(Type::I32, IntCC::Slt, 0, 10, 0)
    });
    let out = run(&lowered(&m, Target::Serial, None), &[]);
    assert_eq!(out.1, "exit 0");
    assert!(out.0.starts_with("0 0 0 0 "), "{out:?}");
}

#[test]
fn other_loop_shapes_spawn_per_iteration() {
    let case = LoopCase {
        twist: Twist::IvUsedAfter,
        ..LoopCase::new(Type::I32, IntCC::Slt, 2, 30, 3)
    };
    let r = check_module(&loop_module(case), &[]);
    let fill = func_text(&r, "fill");
    assert!(!fill.contains("parc_rt_parallel_for"), "{fill}");
    // One spawn per iteration into one group, synced at the exit.
    check_in_order(
        &fill,
        &[
            "alloca 32, align 8",
            "func_addr @fill.task0",
            "call @parc_rt_spawn(",
            "call @parc_rt_sync(",
            "return",
        ],
    );
    assert_eq!(count(&fill, "alloca 32, align 8"), 1, "{fill}");
}

#[test]
fn tasks_with_loops_inside() {
    for twist in [Twist::None, Twist::IvUsedAfter] {
        let case = LoopCase {
            spin: true,
            twist,
            ..LoopCase::new(Type::I32, IntCC::Slt, 2, 30, 3)
        };
        let m = loop_module(case);
        assert!(run(&m, &[]).0.starts_with("7 0 0 28 0 0 67 "));
        let r = check_module(&m, &[]);
        let helper = if twist == Twist::None {
            "fill.loop0"
        } else {
            "fill.task0"
        };
        check_in_order(
            &func_text(&r, helper),
            &["icmp slt", "brif", "iadd", "jump block", "return"],
        );
    }
}

#[test]
fn a_loop_may_share_its_region_with_spawns() {
    // `spawn side(a);` before the loop, in the loop's region: the loop is
    // still one blocking runtime call, and the exit's sync waits for `side`.
    let case = LoopCase {
        twist: Twist::SharedRegion,
        ..LoopCase::new(Type::I32, IntCC::Slt, 2, 30, 3)
    };
    let r = check_module(&loop_module(case), &[]);
    let fill = func_text(&r, "fill");
    check_in_order(
        &fill,
        &[
            "alloca 32, align 8",
            "func_addr @fill.task0",
            "call @parc_rt_spawn(",
            "func_addr @fill.loop0",
            "call @parc_rt_parallel_for(",
            "call @parc_rt_sync(",
            "return",
        ],
    );
}

#[test]
fn pure_code_above_the_detach_is_sunk_into_the_loop_body() {
    let case = LoopCase {
        twist: Twist::ComputedAboveDetach,
        ..LoopCase::new(Type::I32, IntCC::Slt, 2, 30, 3)
    };
    let r = check_module(&loop_module(case), &[]);
    let fill = func_text(&r, "fill");
    assert_eq!(count(&fill, "call @parc_rt_parallel_for("), 1, "{fill}");
    assert!(!fill.contains("parc_rt_spawn"), "{fill}");
}

#[test]
fn group_and_entry_points_match_the_runtime() {
    use parc_runtime::sched::{ParcGroup, TaskFn};
    assert!(abi::GROUP_SIZE as usize >= size_of::<ParcGroup>());
    assert!(abi::GROUP_ALIGN as usize >= align_of::<ParcGroup>());
    // The Rust types of the entry points, against `abi::signature`
    // (pointers are `ptr`, `i64`/`u64` are `i64`).
    let _: unsafe extern "C" fn(*mut ParcGroup, TaskFn, *const u8, u64) =
        parc_runtime::sched::parc_rt_spawn;
    let _: unsafe extern "C" fn(*mut ParcGroup) = parc_runtime::sched::parc_rt_sync;
    let _: unsafe extern "C" fn(i64, i64, i64, parc_runtime::parfor::BodyFn, *mut u8) =
        parc_runtime::parfor::parc_rt_parallel_for;
    use Type::{I64, Ptr};
    assert_eq!(
        abi::signature(abi::SPAWN).unwrap().params,
        [Ptr, Ptr, Ptr, I64]
    );
    assert_eq!(abi::signature(abi::SYNC).unwrap().params, [Ptr]);
    assert_eq!(
        abi::signature(abi::PARALLEL_FOR).unwrap().params,
        [I64, I64, I64, Ptr, Ptr]
    );
}

#[test]
fn negative_constant_step_is_not_a_parallel_loop() {
    // `i += -1` with `i < hi` is outside the language (the step must be
    // positive); lowered generically, it keeps the original meaning. With
    // lo >= hi it runs no iteration, so the interpreter can compare.
    let m = loop_module(LoopCase::new(Type::I32, IntCC::Slt, 5, 5, -1));
    let r = check_module(&m, &[]);
    assert!(!func_text(&r, "fill").contains("parc_rt_parallel_for"));
}

#[test]
fn nested_loops_with_a_spawn_inside() {
    let m = nested_module();
    let expected = run(&m, &[]).0;
    assert!(
        expected.starts_with("0 1 2 3 4 10 11 12 13 14 20 "),
        "{expected}"
    );
    assert!(
        expected.contains(" 0 100 200 300 400 500 0 0 |"),
        "{expected}"
    );
    let r = check_module(&m, &[]);
    let outer = func_text(&r, "outer");
    assert_eq!(count(&outer, "call @parc_rt_parallel_for("), 1, "{outer}");
    assert!(!outer.contains("parc_rt_spawn") && !outer.contains("alloca 32, align 8"));
    // The body spawns `mark` into its own group (in the body's entry),
    // runs the inner loop with one call, then syncs.
    let body = func_text(&r, "outer.loop0");
    check_in_order(
        &body,
        &[
            "alloca 32, align 8",
            "icmp slt",
            "func_addr @outer.loop0.task0",
            "call @parc_rt_spawn(",
            "func_addr @outer.loop0.loop0",
            "call @parc_rt_parallel_for(",
            "call @parc_rt_sync(",
            "return",
        ],
    );
    check_in_order(
        &func_text(&r, "outer.loop0.loop0"),
        &["(ptr, i64, i64)", "store", "return"],
    );
    check_in_order(
        &func_text(&r, "outer.loop0.task0"),
        &["call @mark(", "return"],
    );
}

#[test]
fn grain_override_reaches_the_runtime() {
    let m = loop_module(LoopCase::new(Type::I32, IntCC::Slt, 0, 10, 1));
    let r = lowered(&m, Target::Runtime, Some(7));
    let fill = func_text(&r, "fill");
    check_in_order(
        &fill,
        &[
            "iconst.i64 7",
            "func_addr @fill.loop0",
            "call @parc_rt_parallel_for(",
        ],
    );
    let r = lowered(&m, Target::Runtime, None);
    let fill = func_text(&r, "fill");
    let call = fill
        .lines()
        .find(|l| l.contains("call @parc_rt_parallel_for("))
        .unwrap();
    // parallel_for(0, trip, 0, body, ctx): lo and grain are both the zero.
    let args: Vec<&str> = call
        .split('(')
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap()
        .split(", ")
        .collect();
    assert_eq!(args.len(), 5);
    let zero_def = format!("{} = iconst.i64 0", args[0]);
    assert!(fill.contains(&zero_def), "{fill}");
    let grain_def = format!("{} = iconst.i64 0", args[2]);
    assert!(fill.contains(&grain_def), "{fill}");
}

#[test]
fn missing_sync_before_return_gets_an_implicit_one() {
    // fib without its sync: IR the verifier rejects (T4), but the lowered
    // function must still not return under a running task.
    let mut m = fib_module();
    let fib = m.func_by_name("fib").unwrap();
    let f = &mut m.funcs[fib];
    let sync_block = f
        .layout
        .iter()
        .copied()
        .find(|&b| matches!(f.inst(f.terminator(b).unwrap()), InstKind::Sync { .. }))
        .unwrap();
    let t = f.terminator(sync_block).unwrap();
    let InstKind::Sync { next, .. } = *f.inst(t) else {
        unreachable!()
    };
    *f.inst_mut(t) = InstKind::Jump(BlockCall::to(next));
    let mut r = m.clone();
    lower_tapir(&mut r, Target::Runtime, &TapirOptions::default()).unwrap();
    verified(&r, "the runtime lowering");
    let text = func_text(&r, "fib");
    // Only the return after the spawn waits; the base case does not.
    assert_eq!(count(&text, "call @parc_rt_sync("), 1, "{text}");
    check_in_order(
        &text,
        &["call @parc_rt_spawn(", "call @parc_rt_sync(", "return"],
    );
}

#[test]
fn a_task_that_returns_is_an_error() {
    let mut m = fib_module();
    let fib = m.func_by_name("fib").unwrap();
    let f = &mut m.funcs[fib];
    let reattach = f
        .layout
        .iter()
        .copied()
        .find(|&b| matches!(f.inst(f.terminator(b).unwrap()), InstKind::Reattach { .. }))
        .unwrap();
    let t = f.terminator(reattach).unwrap();
    let v = f.block_params(f.layout[0])[0];
    *f.inst_mut(t) = InstKind::Return(Some(v));
    let err = lower_tapir(&mut m, Target::Serial, &TapirOptions::default()).unwrap_err();
    assert_eq!(err.func, "fib");
    assert!(err.construct.starts_with("detach in block"), "{err}");
    assert!(err.to_string().contains("returns"), "{err}");
}

#[test]
fn modules_without_tapir_and_kernels_are_untouched() {
    let mut m = Module::new();
    let mut k = new_function("k", sig(&[Type::Ptr], None));
    k.kind = FuncKind::Kernel;
    let entry = k.layout[0];
    let mut b = FuncBuilder::new(&mut k);
    b.switch_to(entry);
    b.ret(None);
    m.funcs.push(k);
    let before = print_module(&m);
    lower_tapir(&mut m, Target::Runtime, &TapirOptions::default()).unwrap();
    assert_eq!(print_module(&m), before);

    // Next to a host function with a spawn, the kernel stays as it was.
    let mut m = fib_module();
    let mut k = new_function("k", sig(&[Type::Ptr], None));
    k.kind = FuncKind::Kernel;
    let entry = k.layout[0];
    let mut b = FuncBuilder::new(&mut k);
    b.switch_to(entry);
    b.ret(None);
    let kid = m.funcs.push(k);
    let before = function_to_string(&m, &m.funcs[kid]);
    let r = lowered(&m, Target::Runtime, None);
    assert_eq!(function_to_string(&r, &r.funcs[kid]), before);
}

#[test]
fn helper_names_do_not_clash() {
    let mut m = fib_module();
    let mut taken = new_function("fib.task0", sig(&[], None));
    let entry = taken.layout[0];
    let mut b = FuncBuilder::new(&mut taken);
    b.switch_to(entry);
    b.ret(None);
    m.funcs.push(taken);
    let r = lowered(&m, Target::Runtime, None);
    assert!(func_text(&r, "fib").contains("func_addr @fib.task1"));
}

#[test]
fn runtime_declarations_must_match() {
    let mut m = fib_module();
    let mut f = Function::new(abi::SPAWN, sig(&[Type::Ptr], None));
    f.linkage = parc_ir::Linkage::Import;
    m.funcs.push(f);
    let err = lower_tapir(&mut m, Target::Runtime, &TapirOptions::default()).unwrap_err();
    assert_eq!(err.func, abi::SPAWN);
}

// ------------------------------------------------------------- samples

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Parses, checks and lowers a ParC file; `None` if the front end rejects
/// it (the corpora of bad programs are not ours to test).
fn compile(path: &Path) -> Option<(Module, Vec<String>)> {
    let src = std::fs::read_to_string(path).ok()?;
    let (ast, diags) = parc_lang::parse::parse(&src);
    if diags.iter().any(|d| d.is_error()) {
        return None;
    }
    let (hir, diags) = parc_lang::check::check(ast);
    if diags.iter().any(|d| d.is_error()) {
        return None;
    }
    let name = path.display().to_string();
    let module = parc_lang::lower::lower(hir?, &name, &src);
    let mut args = vec![name];
    if let Some(line) = src.lines().find_map(|l| l.trim().strip_prefix("// args:")) {
        args.extend(line.split_whitespace().map(str::to_string));
    }
    Some((module, args))
}

fn programs_in(dir: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(workspace().join(dir)) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "pc"))
        .collect();
    files.sort();
    files
}

#[test]
fn samples_run_the_same_after_lowering() {
    let mut checked = 0;
    let mut parallel = 0;
    for path in programs_in("samples")
        .into_iter()
        .chain(programs_in("tests/run"))
    {
        let Some((m, args)) = compile(&path) else {
            continue;
        };
        let before = print_module(&m);
        let r = check_module(&m, &args);
        checked += 1;
        if before.contains("detach within") {
            parallel += 1;
            assert!(
                print_module(&r).contains("call @parc_rt_"),
                "{}",
                path.display()
            );
        }
    }
    eprintln!("{checked} programs, {parallel} parallel");
    assert!(checked >= 10, "only {checked} programs compiled");
    assert!(parallel >= 3, "only {parallel} parallel programs");
}
