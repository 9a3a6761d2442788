//! `iv-widen`: induction-variable widening. A C loop counts with an `int`
//! and indexes memory with it, so every `a[j]`, `a[j - 1]` and `a[j + 1]`
//! sign-extends its own index to 64 bits, once per iteration, and the
//! constant offsets cannot become part of the address. Where the loop's
//! 32-bit variable `j` provably never wraps, a 64-bit twin `J` (always
//! equal to `j` extended) counts alongside, `sext(j)` becomes `J` and
//! `sext(j + c)` becomes `J + c`, as gcc's and LLVM's `indvars` do.
//!
//! # What is widened
//! A natural loop with no `detach`, `reattach` or `sync` among its blocks
//! (Tapir lowering recognizes a parallel loop by its header, parameters
//! included, so those keep their shape), counted
//! ([`crate::analysis::tripcount::counted_loop`]) by an `i8`
//! or `i32` variable `j` with an ordered compare (`<`, `<=`, `>`, `>=`,
//! signed or unsigned; not `!=`, whose variable may wrap around the whole
//! type) and that certainly does not wrap before the test fails
//! (`CountedLoop::may_wrap`). `K` below is the extension of the compare's
//! signedness (`sext` for a signed compare, `zext` for an unsigned one), so
//! that `J`, the exact value of `j` in that signedness, is `K(j)`.
//!
//! An extension `E(x)` to `i64` (`E` is `sext` or `zext`) is rewritten when
//! - `x` is `j` and `E` is `K`: anywhere (every value `j` takes, including
//!   the one that fails the test, is in the type's range, so `K(j) == J`);
//! - `x` is `j`, `j + c` or `j - c` (`c` a constant) and the extension is in
//!   one of the loop's blocks other than the header, where the test has
//!   passed and `j` lies in `CountedLoop::body_range`: then `E(x)` is
//!   `J + c` exactly when every `j + c` of that range is in the range of
//!   `E`'s signedness (`i` from 1 to `< n` makes both `j - 1` and `j + 1`
//!   safe; `j + 2` is not when `n` may be `INT_MAX`, as with `gcc
//!   -fwrapv`).
//!
//! A loop with no such extension is left alone.
//!
//! # The rewrite
//! - `J` is a new (last) parameter of the header; the entering edge passes
//!   `K(init)` (computed at the end of the entering block, or a constant),
//!   and each back edge `J + step`, computed right after the narrow
//!   `j + step` it mirrors (which dominates the back edge). Every value `J`
//!   takes is one the loop's `j` takes, extended, so the 64-bit addition
//!   never overflows.
//! - The extensions become `J` or `iadd J, c`.
//! - A compare in the loop of `j` with a constant or a value defined
//!   outside the loop, `icmp cc j, x`, becomes `icmp cc J, K(x)` when `K`
//!   keeps `cc`'s order (`sext` keeps signed and unsigned order, `zext`
//!   unsigned order; both keep equality), with `K(x)` made at the end of
//!   the entering block (`x`'s definition dominates it, as it dominates a
//!   use in the loop from outside). The loop's own test is one of these:
//!   the counter the body steps is then the one the test reads, so the
//!   step's result can take the counter's register.
//! - Every other use of `j` (its increment, narrow arithmetic) reads
//!   `trunc J`, made first in the header. The old `j` and its increment are
//!   then a dead cycle, which `adce` removes, so one variable counts, in 64
//!   bits; the truncation costs nothing on a 64-bit machine.
//!
//! The CFG is unchanged; new instructions are pure and placed in blocks of
//! the loop or its entering block, all in the task of the loop.
//!
//! Statistics: `iv-widen.loops`, `iv-widen.extensions`.

use crate::PassContext;
use crate::analysis::tripcount::counted_loop;
use crate::{HashMap, HashSet};
use parc_ir::analysis::{FunctionAnalyses, Loop};
use parc_ir::{
    BinaryOp, Block, CastOp, Function, Inst, InstKind, IntCC, Module, Type, Value, ValueDef,
    sign_extend,
};

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let ids = crate::functions_with_loops(module, &mut ctx.analyses);
    if ids.is_empty() {
        return false;
    }
    let (mut loops, mut exts) = (0, 0);
    let changed = crate::for_each_of(module, &ids, |f| {
        let (l, e) = run_function(f);
        loops += l;
        exts += e;
        l > 0
    });
    ctx.count("iv-widen.loops", loops);
    ctx.count("iv-widen.extensions", exts);
    changed
}

/// Widens the loops of `func`; returns how many and how many extensions
/// went.
pub fn run_function(func: &mut Function) -> (u64, u64) {
    // Nothing here changes the CFG, so one analysis serves every loop; each
    // loop's counted-loop facts are read when its turn comes, after the
    // loops before it rewrote values it may use.
    let an = FunctionAnalyses::compute(func);
    let mut places = Places::new(func, &an);
    let (mut loops, mut exts) = (0, 0);
    for lp in an.loops.loops() {
        if places.tapir.contains(lp) {
            continue;
        }
        if let Some(n) = widen_loop(func, &an, lp, &mut places) {
            loops += 1;
            exts += n;
        }
    }
    (loops, exts)
}

/// Where each instruction is and who reads each value, kept up to date
/// across the loops of one function: made per loop, they cost the size of
/// the function for each loop.
struct Places {
    home: HashMap<Inst, Block>,
    /// The instructions reading each value (possibly listed twice, or no
    /// longer reading it: checked before use).
    users: HashMap<Value, Vec<Inst>>,
    /// Position of each block in the layout.
    rank: HashMap<Block, usize>,
    tapir: cranelift_entity::EntitySet<Loop>,
}

impl Places {
    fn new(func: &Function, an: &FunctionAnalyses) -> Places {
        let mut home = HashMap::default();
        let mut users: HashMap<Value, Vec<Inst>> = HashMap::default();
        for (b, i) in func.placed_insts() {
            home.insert(i, b);
            func.inst(i)
                .for_each_operand(|v| users.entry(v).or_default().push(i));
        }
        let rank = func
            .layout
            .iter()
            .enumerate()
            .map(|(n, &b)| (b, n))
            .collect();
        Places {
            home,
            users,
            rank,
            tapir: parc_ir::analysis::tapir_loops::loops_with_tapir(func, an),
        }
    }

    /// The placed instructions reading `v` now, each once.
    fn users(&self, func: &Function, v: Value) -> Vec<Inst> {
        let mut seen = HashSet::default();
        self.users
            .get(&v)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&i| {
                self.home.contains_key(&i) && func.inst(i).operands().contains(&v) && seen.insert(i)
            })
            .collect()
    }

    /// `insts`, in layout order (block by block, in each block in order).
    fn in_order(&self, func: &Function, insts: HashSet<Inst>) -> Vec<Inst> {
        let mut blocks: Vec<Block> = insts.iter().map(|i| self.home[i]).collect();
        blocks.sort_unstable_by_key(|b| self.rank[b]);
        blocks.dedup();
        blocks
            .into_iter()
            .flat_map(|b| func.block_insts(b).iter().copied())
            .filter(|i| insts.contains(i))
            .collect()
    }
}

/// The range of an integer type of `bits` bits, as `E`'s signedness reads
/// it.
fn ext_range(op: CastOp, bits: u32) -> (i128, i128) {
    if op == CastOp::Sext {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// `c` if `x` is `iv`, `iv + c`, `c + iv` or `iv - c'` (`c = -c'`) with a
/// constant `c`, exact (the constant read at the variable's type).
fn offset_from(func: &Function, x: Value, iv: Value, ty: Type) -> Option<i128> {
    if x == iv {
        return Some(0);
    }
    let ValueDef::Result(i) = func.value_def(x) else {
        return None;
    };
    let k = |v: Value| func.const_int(v).map(|k| i128::from(sign_extend(k, ty)));
    match *func.inst(i) {
        InstKind::Binary(BinaryOp::Iadd, a, b) if a == iv => k(b),
        InstKind::Binary(BinaryOp::Iadd, a, b) if b == iv => k(a),
        InstKind::Binary(BinaryOp::Isub, a, b) if a == iv => k(b).map(|c| -c),
        _ => None,
    }
}

/// The result of an instruction made with a result type.
fn result(func: &Function, inst: Inst) -> Value {
    func.result(inst).expect("made with a result type")
}

/// Where `inst`, placed in `block`, stands in it now.
fn position(func: &Function, block: Block, inst: Inst) -> usize {
    func.blocks[block]
        .insts
        .iter()
        .position(|&i| i == inst)
        .expect("placed in this block (checked before any change)")
}

/// `op(v)` to `i64`, made at the end of `block` (before its branch), or a
/// constant if `v` is one; positioned as `like`.
fn extend_before_exit(
    func: &mut Function,
    places: &mut Places,
    block: Block,
    v: Value,
    op: CastOp,
    like: Inst,
) -> Value {
    let kind = match func.const_int(v) {
        Some(k) => {
            let ty = func.value_type(v);
            let (min, _) = ext_range(op, ty.bits());
            let k = i128::from(sign_extend(k, ty));
            // A zero-extended constant is its bits, unsigned.
            let k = if k < min { k + (1i128 << ty.bits()) } else { k };
            InstKind::Iconst(k as i64)
        }
        None => InstKind::Cast(op, v),
    };
    let inst = func.make_inst(kind, Some(Type::I64));
    let at = func.blocks[block].insts.len().saturating_sub(1);
    insert(func, places, block, at, inst, like);
    result(func, inst)
}

/// Places `inst` at `at` in `block`, with the source position of `like`.
fn insert(
    func: &mut Function,
    places: &mut Places,
    block: Block,
    at: usize,
    inst: Inst,
    like: Inst,
) {
    func.blocks[block].insts.insert(at, inst);
    func.locs[inst] = func.locs[like];
    places.home.insert(inst, block);
    func.inst(inst)
        .for_each_operand(|v| places.users.entry(v).or_default().push(inst));
}

/// Widens `lp` if it qualifies (see the module doc); returns the number of
/// extensions rewritten.
fn widen_loop(
    func: &mut Function,
    an: &FunctionAnalyses,
    lp: Loop,
    places: &mut Places,
) -> Option<u64> {
    let data = an.loops.data(lp);
    let header = data.header;
    let cl = counted_loop(func, an, lp)?;
    let ty = func.value_type(cl.iv);
    if !matches!(ty, Type::I8 | Type::I16 | Type::I32) {
        return None;
    }
    let (lo, hi) = cl.body_range(func)?;
    let wide = if cl.signed() {
        CastOp::Sext
    } else {
        CastOp::Zext
    };
    let entering = an
        .cfg
        .preds(header)
        .iter()
        .copied()
        .find(|&p| !data.contains(p))?;

    let home = &places.home;
    let outside = |v: Value| match func.value_def(v) {
        ValueDef::Param(b, _) => !data.contains(b),
        ValueDef::Result(i) => home.get(&i).is_some_and(|&b| !data.contains(b)),
    };
    // Which compares `K` keeps: `sext` keeps signed and unsigned order,
    // `zext` only unsigned order; both keep equality.
    let keeps = |cc: IntCC| {
        wide == CastOp::Sext || !matches!(cc, IntCC::Slt | IntCC::Sle | IntCC::Sgt | IntCC::Sge)
    };

    // The extensions to rewrite, with their offsets, and the compares of
    // `j` in the loop with a value from outside it: readers of `j` and of
    // `j ± c`, in layout order.
    let mut candidates: HashSet<Inst> = HashSet::default();
    for u in places.users(func, cl.iv) {
        candidates.insert(u);
        if offset_from(func, func.result(u).unwrap_or(cl.iv), cl.iv, ty).is_some()
            && let Some(r) = func.result(u)
        {
            candidates.extend(places.users(func, r));
        }
    }
    let mut exts: Vec<(Inst, i128)> = Vec::new();
    let mut cmps: Vec<Inst> = Vec::new();
    for i in places.in_order(func, candidates) {
        let b = places.home[&i];
        if !an.domtree.dominates(header, b) {
            continue;
        }
        let in_body = b != header && data.contains(b);
        if let InstKind::Icmp(cc, x, y) = *func.inst(i) {
            let other = if x == cl.iv { y } else { x };
            let invariant = func.const_int(other).is_some() || outside(other);
            if data.contains(b) && (x == cl.iv) != (y == cl.iv) && invariant && keeps(cc) {
                cmps.push(i);
            }
            continue;
        }
        let InstKind::Cast(op @ (CastOp::Sext | CastOp::Zext), x) = *func.inst(i) else {
            continue;
        };
        if func.result(i).map(|r| func.value_type(r)) != Some(Type::I64) {
            continue;
        }
        let Some(c) = offset_from(func, x, cl.iv, ty) else {
            continue;
        };
        let (min, max) = ext_range(op, ty.bits());
        let exact = (c == 0 && op == wide) || (in_body && lo + c >= min && hi + c <= max);
        if exact {
            exts.push((i, c));
        }
    }
    if exts.is_empty() {
        return None;
    }
    let header_test = func.terminator(header)?;
    let index = func.block_params(header).iter().position(|&p| p == cl.iv)?;
    // Each edge into the header, in order: `None` for the entering edge,
    // the narrow `j + step` for a back edge, with the instruction making it.
    type Step = Option<(Value, Inst)>;
    let mut edges: Vec<(Block, Vec<Step>)> = Vec::new();
    for &pred in an.cfg.preds(header) {
        let t = func.terminator(pred)?;
        let mut calls = Vec::new();
        for call in func.inst(t).block_calls() {
            if call.block != header {
                continue;
            }
            calls.push(if data.contains(pred) {
                let next = *call.args.get(index)?;
                let ValueDef::Result(def) = func.value_def(next) else {
                    return None;
                };
                Some((next, def))
            } else {
                None
            });
        }
        edges.push((pred, calls));
    }
    // Nothing changes before this point.
    if edges
        .iter()
        .flat_map(|(_, calls)| calls.iter().flatten())
        .any(|(_, def)| !places.home.contains_key(def))
    {
        return None;
    }

    // `K(init)` on the entering edge.
    let wide_init = extend_before_exit(func, places, entering, cl.init, wide, header_test);
    let big = func.append_block_param(header, Type::I64);

    // `J + step` right after each `j + step` a back edge passes.
    let mut stepped: HashMap<Value, Value> = HashMap::default();
    for (pred, calls) in edges {
        let mut args = Vec::new();
        for call in calls {
            let arg = match call {
                None => wide_init,
                Some((next, _)) if stepped.contains_key(&next) => stepped[&next],
                Some((next, def)) => {
                    let b = places.home[&def];
                    let pos = position(func, b, def);
                    let s = func.make_inst(InstKind::Iconst(cl.step), Some(Type::I64));
                    let sv = result(func, s);
                    let add =
                        func.make_inst(InstKind::Binary(BinaryOp::Iadd, big, sv), Some(Type::I64));
                    insert(func, places, b, pos + 1, s, def);
                    insert(func, places, b, pos + 2, add, def);
                    let v = result(func, add);
                    stepped.insert(next, v);
                    v
                }
            };
            args.push(arg);
        }
        let t = func.terminator(pred).expect("checked above");
        let calls = func.inst_mut(t).block_calls_mut().into_iter();
        for (call, arg) in calls.filter(|c| c.block == header).zip(args) {
            call.args.push(arg);
        }
    }

    // The extensions.
    let mut replaced: HashMap<Value, Value> = HashMap::default();
    for &(i, c) in &exts {
        if c == 0 {
            replaced.insert(result(func, i), big);
            continue;
        }
        let b = places.home[&i];
        let pos = position(func, b, i);
        let k = func.make_inst(InstKind::Iconst(c as i64), Some(Type::I64));
        let kv = result(func, k);
        insert(func, places, b, pos, k, i);
        *func.inst_mut(i) = InstKind::Binary(BinaryOp::Iadd, big, kv);
        places.users.entry(big).or_default().push(i);
    }

    // Compares of `j` with invariants compare `J` with their extension,
    // made once before the loop.
    let mut extended: HashMap<Value, Value> = HashMap::default();
    for i in cmps {
        let InstKind::Icmp(cc, x, y) = *func.inst(i) else {
            continue;
        };
        let other = if x == cl.iv { y } else { x };
        let ext = match extended.get(&other) {
            Some(&e) => e,
            None => {
                let e = extend_before_exit(func, places, entering, other, wide, i);
                extended.insert(other, e);
                e
            }
        };
        *func.inst_mut(i) = if x == cl.iv {
            InstKind::Icmp(cc, big, ext)
        } else {
            InstKind::Icmp(cc, ext, big)
        };
        places.users.entry(big).or_default().push(i);
        places.users.entry(ext).or_default().push(i);
    }

    // Every other use of `j` reads `trunc J`.
    let trunc = func.make_inst(InstKind::Cast(CastOp::Trunc, big), Some(ty));
    let narrow = result(func, trunc);
    insert(func, places, header, 0, trunc, header_test);
    replaced.insert(cl.iv, narrow);
    let mut readers: Vec<Inst> = Vec::new();
    for &v in replaced.keys() {
        readers.extend(places.users(func, v));
    }
    for i in readers {
        if i != trunc {
            func.insts[i]
                .kind
                .map_operands(|v| replaced.get(&v).copied().unwrap_or(v));
            func.inst(i)
                .for_each_operand(|v| places.users.entry(v).or_default().push(i));
        }
    }
    Some(exts.len() as u64)
}

#[cfg(test)]
mod tests {
    use parc_ir::interp::{Config, Interp, Val};
    use parc_ir::read::read_module;
    use parc_ir::{FuncId, Module};

    /// `@f(lo, hi) -> i64` over an `i8` variable `j` from `lo` while
    /// `j CC hi`, stepping by `STEP`: sums (weighted by position, so order
    /// matters) `sext` and `zext` of `j`, `j + c` and `j - c` and compares
    /// of `j` with `lo` and `hi` in the body, and `j` and `j + c` after the
    /// loop.
    fn program(cc: &str, step: i64, c: i64) -> String {
        format!(
            "func @f(i8, i8) -> i64 {{
             block0(v0: i8, v1: i8):
                 v2 = iconst.i64 0
                 v30 = iconst.i64 3
                 jump block1(v0, v2)
             block1(v3: i8, v4: i64):
                 v5 = icmp {cc} v3, v1
                 brif v5, block2, block3
             block2:
                 v6 = sext.i64 v3
                 v7 = iconst.i8 {c}
                 v8 = iadd v3, v7
                 v9 = sext.i64 v8
                 v10 = zext.i64 v8
                 v11 = isub v3, v7
                 v12 = zext.i64 v11
                 v13 = sext.i64 v11
                 v14 = zext.i64 v3
                 v15 = imul v4, v30
                 v16 = iadd v15, v6
                 v17 = imul v16, v30
                 v18 = iadd v17, v9
                 v19 = imul v18, v30
                 v20 = iadd v19, v10
                 v21 = imul v20, v30
                 v22 = iadd v21, v12
                 v23 = imul v22, v30
                 v24 = iadd v23, v13
                 v25 = imul v24, v30
                 v26 = iadd v25, v14
                 v42 = icmp ult v3, v1
                 v43 = icmp slt v3, v0
                 v44 = icmp eq v3, v0
                 v45 = zext.i64 v42
                 v46 = zext.i64 v43
                 v47 = zext.i64 v44
                 v48 = iadd v26, v45
                 v49 = imul v46, v30
                 v50 = iadd v48, v49
                 v51 = imul v47, v30
                 v52 = imul v51, v30
                 v53 = iadd v50, v52
                 v27 = iconst.i8 {step}
                 v28 = iadd v3, v27
                 jump block1(v28, v53)
             block3:
                 v31 = sext.i64 v3
                 v32 = zext.i64 v3
                 v33 = iadd v3, v7x
                 v34 = sext.i64 v33
                 v35 = imul v4, v30
                 v36 = iadd v35, v31
                 v37 = imul v36, v30
                 v38 = iadd v37, v32
                 v39 = imul v38, v30
                 v40 = iadd v39, v34
                 return v40
             }}"
        )
        .replace("v7x", "v41")
        .replace("block3:\n", &format!("block3:\n v41 = iconst.i8 {c}\n"))
    }

    fn run(m: &Module, lo: i64, hi: i64) -> Option<i64> {
        let mut it = Interp::new(
            m,
            Config {
                max_steps: Some(100_000),
                ..Config::default()
            },
        )
        .ok()?;
        it.call(FuncId::from_u32(0), &[Val::I(lo), Val::I(hi)])
            .ok()?
            .value()?
            .as_i64()
    }

    /// Widening never changes a result, at the ends of the type included:
    /// every compare, steps of one and two both ways, offsets that may and
    /// may not wrap.
    #[test]
    fn widened_loops_compute_the_same() {
        let ends = [-128, -127, -2, -1, 0, 1, 2, 100, 125, 126, 127];
        let mut widened = 0;
        for cc in ["slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"] {
            for step in [1, 2, -1, -2] {
                for (c, bound) in [1, 2, 127, -128]
                    .into_iter()
                    .flat_map(|c| [None, Some(-128), Some(0), Some(125), Some(127)].map(|b| (c, b)))
                {
                    // A constant bound makes more loops certain not to wrap.
                    let mut text = program(cc, step, c);
                    if let Some(b) = bound {
                        text = text.replace(
                            "block0(v0: i8, v1: i8):",
                            &format!("block0(v0: i8, v99: i8):\n v1 = iconst.i8 {b}"),
                        );
                    }
                    let before = read_module(&text).unwrap();
                    let mut after = before.clone();
                    let (loops, _) = super::run_function(&mut after.funcs[FuncId::from_u32(0)]);
                    widened += loops;
                    parc_ir::verify::verify_module(&after)
                        .unwrap_or_else(|e| panic!("{e:?}\n{text}"));
                    for lo in ends {
                        for hi in ends {
                            let want = run(&before, lo, hi);
                            if want.is_some() {
                                assert_eq!(
                                    run(&after, lo, hi),
                                    want,
                                    "{cc} step {step} c {c}: lo={lo} hi={hi}\n{}",
                                    parc_ir::print::print_module(&after)
                                );
                            }
                        }
                    }
                }
            }
        }
        assert!(widened >= 200, "only {widened} loops widened");
    }
}
