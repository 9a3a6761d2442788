//! Loops: values carried through loop headers.
//!
//! A loop's exit is the taken side of its branch, and a
//! loop-invariant `x op constant` or float constant the loop uses (a bound
//! such as `n - 1`, a coefficient such as `0.25`) is carried through the
//! loop header as an extra block parameter (see [`invariants_to_thread`]):
//! Cranelift would otherwise rematerialize it inside the loop on every
//! iteration.

use super::memory::displaced;
use parc_ir::{BinaryOp, Block, Function, Inst, InstKind, Value};
use std::collections::{HashMap, HashSet};

/// Per loop header, the values defined outside the loop that the loop uses
/// and that Cranelift would rematerialize inside it: `x op c` (`op` one of
/// `iadd isub and or xor ptradd`, `c` a constant) and float constants other
/// than +0.0. Cranelift rematerializes such an instruction in every block
/// that uses it, which puts a loop-invariant bound like `n - 1` back into
/// the loop header, and a float constant such as the stencil's `0.25` (a
/// 64-bit immediate moved into a general register, then into a vector
/// register) into the loop body, once per iteration; carried as a header
/// parameter instead, it stays in a register. (Read from the constant pool
/// as the multiplication's memory operand instead, the stencil's `0.25`
/// made the serial stencil 0.38 s against 0.31 s in a register.) Left
/// alone: integer constants (immediates of the instructions that use
/// them), +0.0 (one register-clearing instruction, whereas a carried value
/// the register allocator has to spill costs a load and a store per
/// iteration, as it did in the reverse of `normalize`), and a displaced
/// address's `ptradd` (see [`displaced`]), which the access does not read.
/// Headers in block order; each list in the order the loop's blocks use
/// the values.
pub(super) fn invariants_to_thread(
    f: &Function,
    loops: &parc_ir::analysis::loops::LoopAnalysis,
) -> Vec<(Block, Vec<Value>)> {
    use parc_ir::ValueDef;
    let is_const = |v: Value| f.const_int(v).is_some();
    let remat = |v: Value| match f.value_def(v) {
        ValueDef::Result(i) => match f.inst(i) {
            InstKind::Binary(
                BinaryOp::Iadd | BinaryOp::Isub | BinaryOp::And | BinaryOp::Or | BinaryOp::Xor,
                x,
                y,
            )
            | InstKind::PtrAdd(x, y) => is_const(*x) || is_const(*y),
            // +0.0 is one register-clearing instruction, cheaper than a
            // register held across the loop.
            InstKind::Fconst(x) => x.to_bits() != 0,
            _ => false,
        },
        ValueDef::Param(..) => false,
    };
    let def_block: HashMap<Inst, Block> = f.placed_insts().map(|(b, i)| (i, b)).collect();
    // Each use, in block order, adds the value to the loops around it that
    // do not hold its definition (up the loop tree from the use's innermost
    // loop), once per loop: the cost of the lists, where scanning each
    // loop's blocks cost the sum of the loops' sizes.
    let mut lists: HashMap<parc_ir::analysis::Loop, Vec<Value>> = HashMap::new();
    let mut listed: HashSet<(parc_ir::analysis::Loop, Value)> = HashSet::new();
    let mut blocks: Vec<Block> = f
        .layout
        .iter()
        .copied()
        .filter(|&b| loops.innermost(b).is_some())
        .collect();
    blocks.sort();
    blocks.dedup();
    for b in blocks {
        for &i in &f.blocks[b].insts {
            let mut used = |v: Value| {
                let ValueDef::Result(d) = f.value_def(v) else {
                    return;
                };
                let Some(&db) = def_block.get(&d) else {
                    return;
                };
                if !remat(v) {
                    return;
                }
                let mut cur = loops.innermost(b);
                while let Some(lp) = cur {
                    if loops.contains(lp, db) || !listed.insert((lp, v)) {
                        break;
                    }
                    lists.entry(lp).or_default().push(v);
                    cur = loops.data(lp).parent;
                }
            };
            // A displaced address is its base, read by the access
            // itself (see `displaced`).
            let base = |p: Value| displaced(f, p).map_or(p, |(q, _)| q);
            match *f.inst(i) {
                InstKind::Load(p) => used(base(p)),
                InstKind::Store { value, ptr } => {
                    used(value);
                    used(base(ptr));
                }
                ref other => other.for_each_operand(used),
            }
        }
    }
    let mut out: Vec<(Block, Vec<Value>)> = lists
        .into_iter()
        .map(|(lp, vs)| (loops.data(lp).header, vs))
        .collect();
    out.sort_by_key(|&(header, _)| header);
    out
}

#[cfg(test)]
mod threading_tests {
    use super::invariants_to_thread;
    use parc_ir::analysis::{cfg::ControlFlowGraph, dom::DominatorTree, loops::LoopAnalysis};
    use parc_ir::interp::{Config, Interp, Val};
    use parc_ir::{Block, FuncId, Value};

    fn loops_of(f: &parc_ir::Function) -> LoopAnalysis {
        let cfg = ControlFlowGraph::compute(f);
        let dom = DominatorTree::compute(&cfg);
        LoopAnalysis::compute(&cfg, &dom)
    }

    /// `for (i = 0; i < n - 1; i++) s += p[2] + n * 3;` with `n - 1`,
    /// `n * 3` and `p + 8` hoisted: the bound `n - 1` goes to the header;
    /// `p + 8` does not, as the load reads `p` displaced by 8 (see
    /// `displaced`), nor do `n * 3` (not a remat pattern) and `i + 1`
    /// (defined in the loop); `p + 8` stored is a value like any other.
    #[test]
    fn loop_invariant_constant_ops_are_threaded_through_the_header() {
        let m = parc_ir::read::read_module(
            "func @f(ptr, i32) -> i32 {
             block0(v0: ptr, v1: i32):
                 v2 = iconst.i32 1
                 v3 = isub v1, v2
                 v4 = iconst.i32 3
                 v5 = imul v1, v4
                 v6 = iconst.i64 8
                 v7 = ptradd v0, v6
                 v8 = iconst.i32 0
                 jump block1(v8, v8)
             block1(v9: i32, v10: i32):
                 v11 = icmp slt v9, v3
                 brif v11, block2, block3
             block2:
                 v12 = load.i32 v7
                 v13 = iadd v10, v12
                 v14 = iadd v13, v5
                 v15 = iadd v9, v2
                 jump block1(v15, v14)
             block3:
                 return v10
             }",
        )
        .expect("reads");
        let f = &m.funcs[FuncId::from_u32(0)];
        let loops = loops_of(f);
        assert_eq!(
            invariants_to_thread(f, &loops),
            [(Block::from_u32(1), vec![Value::from_u32(3)])]
        );
        // Stored, `p + 8` is a value the loop uses.
        let text = parc_ir::print::print_module(&m)
            .replace("v12 = load.i32 v7", "v12 = load.i32 v0\n    store v7, v0");
        let m = parc_ir::read::read_module(&text).expect("reads");
        let f = &m.funcs[FuncId::from_u32(0)];
        let loops = loops_of(f);
        assert_eq!(
            invariants_to_thread(f, &loops),
            [(
                Block::from_u32(1),
                vec![Value::from_u32(3), Value::from_u32(7)]
            )]
        );
    }

    /// Float constants defined in the entry block, used in an inner and an
    /// outer loop: `0.25 / s`, `-0.0 - x` and `3.0 * x` in the inner loop
    /// and `1.0 - s` in the outer one ride through the headers of the
    /// loops that use them (the inner header gets the three the inner loop
    /// uses, the outer header all four); `x + 0.0` (+0.0 is cheap to make)
    /// and a constant defined in the loop (`2.0`) do not. The JIT's
    /// results, where the carried values cross the back edges as `-(-x)`,
    /// match the interpreter's bit for bit (`-0.0`, infinities and NaN
    /// included).
    #[test]
    fn loop_invariant_float_constants_are_threaded_through_the_header() {
        let m = parc_ir::read::read_module(
            "func @f(i32, f64) -> f64 {
             block0(v0: i32, v1: f64):
                 v2 = fconst.f64 0.25
                 v3 = fconst.f64 -0.0
                 v4 = fconst.f64 1.0
                 v20 = fconst.f64 0.0
                 v21 = fconst.f64 3.0
                 v5 = iconst.i32 0
                 v6 = iconst.i32 1
                 jump block1(v5, v1)
             block1(v7: i32, v8: f64):
                 v9 = icmp slt v7, v0
                 brif v9, block2(v5, v8), block5
             block2(v10: i32, v11: f64):
                 v12 = icmp slt v10, v7
                 brif v12, block3, block4
             block3:
                 v13 = fdiv v2, v11
                 v14 = fsub v3, v13
                 v15 = fconst.f64 2.0
                 v16 = fmul v21, v14
                 v22 = fadd v16, v20
                 v23 = fmul v22, v15
                 v17 = iadd v10, v6
                 jump block2(v17, v23)
             block4:
                 v18 = fsub v4, v11
                 v19 = iadd v7, v6
                 jump block1(v19, v18)
             block5:
                 return v8
             }",
        )
        .expect("reads");
        let f = &m.funcs[FuncId::from_u32(0)];
        let loops = loops_of(f);
        let v = Value::from_u32;
        assert_eq!(
            invariants_to_thread(f, &loops),
            [
                (Block::from_u32(1), vec![v(2), v(3), v(21), v(4)]),
                (Block::from_u32(2), vec![v(2), v(3), v(21)]),
            ]
        );
        let jit =
            crate::jit::JitProgram::compile(&m, parc_ir::OptLevel::O2, true).expect("compiles");
        let p = jit.function("f").expect("compiled");
        // SAFETY: `@f` is `(i32, f64) -> f64` with the C calling convention.
        let run: extern "C" fn(i32, f64) -> f64 = unsafe { std::mem::transmute(p) };
        for (n, x) in [
            (0, 3.0),
            (1, -0.0),
            (4, 3.0),
            (7, -5.5),
            (3, f64::NAN),
            (2, 0.0),
            (5, f64::INFINITY),
        ] {
            let mut it = Interp::new(&m, Config::default()).expect("interp");
            let want = it
                .call(FuncId::from_u32(0), &[Val::I(n), Val::F64(x)])
                .expect("runs")
                .value()
                .and_then(|v| v.as_f64())
                .expect("a double");
            assert_eq!(run(n as i32, x).to_bits(), want.to_bits(), "n={n} x={x}");
        }
    }
}
