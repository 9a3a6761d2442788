//! `loop-unswitch`: a loop that branches on a condition it does not change
//! becomes two loops, one for each way, chosen once before them
//! (`for (..) { if (c) A else B }` into `if (c) for (..) A else for (..)
//! B`), as LLVM's and gcc's loop unswitching do.
//!
//! The case that matters here is the AD's: the reverse of a parallel loop
//! whose updates of an array reduction are plain adds where a test before
//! the loop showed that no offset wraps, atomic ones otherwise
//! (`ad/src/reverse/ploops.rs`). That test's branch sits in the reverse's
//! innermost loop, with the compare-and-swap loop of the atomic way beside
//! the plain add: matmul's reverse `j` loop spanned three 64-byte blocks of
//! code for two adds and two multiplies.
//!
//! # Not part of `pipeline()`
//! It runs in [`codegen_prepare`](crate::codegen_prepare), after the last
//! optimization (the AD recognizes its loops by their shape, and a copy
//! would be a second loop to differentiate), before `loop-rotate`.
//!
//! # What is unswitched
//! An innermost natural loop such that
//! - it has a preheader that ends in a `jump` to its header (not a Tapir
//!   edge), and no `detach`, `reattach` or `sync` among its blocks;
//! - it has at most [`MAX_LOOP_INSTS`] instructions, so the copy costs
//!   little code;
//! - it holds no convergent operation (a `barrier`, or a call of a
//!   function that may reach one; see [`parc_ir::convergent`]): each copy
//!   runs under the hoisted branch, so threads of a block that disagree on
//!   its condition would wait at different copies of one barrier (a kernel
//!   whose loop branches on `threadIdx` around its `__syncthreads`);
//! - one of its blocks ends in `brif c, T, E` with `T` and `E` different
//!   blocks and `c` defined outside the loop (the first such branch, in
//!   the loop's block order);
//! - every value the loop defines that is used outside it is used only
//!   below one exit `X` (in blocks `X` dominates) that is entered from the
//!   loop alone: `X` then gets a parameter for it, to which each copy
//!   passes its own (a reverse loop's sum, used after it).
//!
//! # The rewrite
//! The loop's blocks are copied (instructions, parameters, source
//! positions); the original keeps `jump T` in place of the branch, the
//! copy `jump E` (to `E`'s copy when `E` is in the loop), and the
//! preheader's `jump H(args)` becomes `brif c, H(args), H'(args)`. Both
//! copies exit to the same blocks; values used below an exit reach it as
//! its new parameters. Blocks
//! only the dropped edges reached become unreachable; `simplify-cfg`
//! removes them. Each copy runs exactly the instructions the loop ran for
//! its value of `c`, in the same order, so nothing runs more or less
//! often, and nothing moves across a task boundary (the loop has none).
//! Each loop is unswitched at most once (a copy is not unswitched again),
//! so code grows at most by the loops' sizes.
//!
//! Statistics: `loop-unswitch.unswitched`.

use crate::PassContext;
use crate::{HashMap, HashSet};
use parc_ir::analysis::{FunctionAnalyses, Loop};
use parc_ir::convergent::Convergence;
use parc_ir::{Block, BlockCall, Function, Inst, InstKind, Module, Value, ValueDef};

/// The most instructions a loop may have to be copied.
pub const MAX_LOOP_INSTS: usize = 80;

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let ids = crate::functions_with_loops(module, &mut ctx.analyses);
    if ids.is_empty() {
        return false;
    }
    let mut unswitched = 0;
    let conv = Convergence::of(module);
    let changed = crate::for_each_of(module, &ids, |f| {
        let n = run_function(f, &conv);
        unswitched += n;
        n > 0
    });
    ctx.count("loop-unswitch.unswitched", unswitched);
    changed
}

/// Unswitches the loops of `func`; returns how many. `conv`: the module's
/// convergent functions.
pub fn run_function(func: &mut Function, conv: &Convergence) -> u64 {
    // One loop at a time, since each rewrite changes the CFG; the headers
    // of loops done (both copies) are not looked at again.
    let mut done: HashSet<Block> = HashSet::default();
    let mut unswitched = 0;
    let limit = FunctionAnalyses::compute(func).loops.len();
    for _ in 0..limit {
        let an = FunctionAnalyses::compute(func);
        let Some(plan) = an
            .loops
            .loops()
            .find_map(|lp| plan(func, &an, lp, &done, conv))
        else {
            break;
        };
        let copy = unswitch(func, &plan);
        done.insert(plan.header);
        done.insert(copy);
        unswitched += 1;
    }
    unswitched
}

/// A loop to unswitch.
struct Plan {
    header: Block,
    preheader: Block,
    /// In the loop's order, header first.
    blocks: Vec<Block>,
    /// The block ending in the invariant branch.
    branching: Block,
    cond: Value,
    /// Per exit, the loop's values used below it, which become its
    /// parameters, and the blocks below it (which it dominates).
    leaving: Vec<Leaving>,
}

/// An exit below which values of the loop are used.
struct Leaving {
    exit: Block,
    values: Vec<Value>,
    below: Vec<Block>,
}

fn plan(
    func: &Function,
    an: &FunctionAnalyses,
    lp: Loop,
    done: &HashSet<Block>,
    conv: &Convergence,
) -> Option<Plan> {
    let data = an.loops.data(lp);
    if done.contains(&data.header) {
        return None;
    }
    if !an.loops.is_innermost(lp) {
        return None;
    }
    let preheader = data.preheader?;
    let term = |b: Block| func.terminator(b).map(|t| func.inst(t));
    if !matches!(term(preheader), Some(InstKind::Jump(_))) {
        return None;
    }
    let size: usize = data.blocks.iter().map(|&b| func.block_insts(b).len()).sum();
    if size > MAX_LOOP_INSTS {
        return None;
    }
    if data.blocks.iter().any(|&b| func.ends_in_tapir(b)) {
        return None;
    }
    if conv.any_in(func, data.blocks.iter().copied()) {
        return None;
    }
    let home: HashMap<Inst, Block> = func.placed_insts().map(|(b, i)| (i, b)).collect();
    let in_loop = |v: Value| match func.value_def(v) {
        ValueDef::Param(b, _) => data.contains(b),
        ValueDef::Result(i) => home.get(&i).is_some_and(|&b| data.contains(b)),
    };
    let (branching, cond) = data.blocks.iter().find_map(|&b| match term(b)? {
        InstKind::Brif {
            cond,
            then_dest,
            else_dest,
        } if then_dest.block != else_dest.block && !in_loop(*cond) => Some((b, *cond)),
        _ => None,
    })?;
    // Where the loop's values are used outside it.
    let mut used_in: HashMap<Value, Vec<Block>> = HashMap::default();
    for (b, i) in func.placed_insts() {
        if data.contains(b) {
            continue;
        }
        func.inst(i).for_each_operand(|v| {
            if in_loop(v) {
                used_in.entry(v).or_default().push(b);
            }
        });
    }
    let mut leaving: Vec<Leaving> = Vec::new();
    let mut values: Vec<Value> = used_in.keys().copied().collect();
    values.sort();
    for v in values {
        let uses = &used_in[&v];
        let exit = data.exits.iter().copied().find(|&x| {
            an.cfg.preds(x).iter().all(|&p| data.contains(p))
                && uses.iter().all(|&b| an.domtree.dominates(x, b))
        })?;
        match leaving.iter_mut().find(|l| l.exit == exit) {
            Some(l) => l.values.push(v),
            None => leaving.push(Leaving {
                exit,
                values: vec![v],
                below: an
                    .cfg
                    .rpo()
                    .iter()
                    .copied()
                    .filter(|&b| an.domtree.dominates(exit, b))
                    .collect(),
            }),
        }
    }
    Some(Plan {
        header: data.header,
        preheader,
        blocks: data.blocks.to_vec(),
        branching,
        cond,
        leaving,
    })
}

/// Rewrites as the module doc says; returns the copy's header.
fn unswitch(func: &mut Function, plan: &Plan) -> Block {
    let after = func
        .layout
        .iter()
        .rposition(|b| plan.blocks.contains(b))
        .map_or(func.layout.len(), |p| p + 1);
    let copy = crate::copy::copy_blocks(func, &plan.blocks, after);
    let (blocks, values) = (&copy.blocks, &copy.values);
    // Each copy takes one way of the branch.
    crate::copy::take_way(func, plan.branching, true);
    crate::copy::take_way(func, blocks[&plan.branching], false);
    // Values used below an exit reach it as parameters, from either copy.
    for Leaving {
        exit,
        values: leaving,
        below,
    } in &plan.leaving
    {
        let mut params: HashMap<Value, Value> = HashMap::default();
        for &v in leaving {
            let p = func.append_block_param(*exit, func.value_type(v));
            params.insert(v, p);
        }
        for &b in &plan.blocks {
            for (from, map) in [(b, None), (blocks[&b], Some(values))] {
                let Some(t) = func.terminator(from) else {
                    continue;
                };
                for call in func.inst_mut(t).block_calls_mut() {
                    if call.block == *exit {
                        call.args.extend(
                            leaving
                                .iter()
                                .map(|v| map.map_or(*v, |m| m.get(v).copied().unwrap_or(*v))),
                        );
                    }
                }
            }
        }
        for &b in below {
            for &i in &func.blocks[b].insts.clone() {
                func.inst_mut(i)
                    .map_operands(|v| params.get(&v).copied().unwrap_or(v));
            }
        }
    }
    // The preheader chooses.
    let t = func
        .terminator(plan.preheader)
        .expect("the preheader ends in a jump");
    let InstKind::Jump(entry) = func.inst(t).clone() else {
        unreachable!("planned on a jump");
    };
    let copy_entry = BlockCall::new(blocks[&plan.header], entry.args.clone());
    *func.inst_mut(t) = InstKind::Brif {
        cond: plan.cond,
        then_dest: entry,
        else_dest: copy_entry,
    };
    blocks[&plan.header]
}

#[cfg(test)]
mod tests {
    use parc_ir::convergent::Convergence;
    use parc_ir::interp::{Config, Interp, Val};
    use parc_ir::read::read_module;

    /// A sum over `i < n` of `a[i]` or of `2 a[i]`, by a flag the loop
    /// does not change; a loop whose branch depends on the counter (left
    /// alone); one whose counter is used after it; and one whose counter
    /// is used below both of its exits (left alone).
    const PROGRAM: &str = "
        func @sum(ptr, i32, i1) -> f64 {
        block0(v0: ptr, v1: i32, v2: i1):
            v3 = iconst.i32 0
            v4 = fconst.f64 0.0
            v5 = iconst.i32 1
            v6 = iconst.i64 3
            v7 = fconst.f64 2.0
            jump block1(v3, v4)
        block1(v8: i32, v9: f64):
            v10 = icmp slt v8, v1
            brif v10, block2, block5(v9)
        block2:
            v11 = sext.i64 v8
            v12 = shl v11, v6
            v13 = ptradd v0, v12
            v14 = load.f64 v13
            brif v2, block3, block4
        block3:
            v15 = fadd v9, v14
            v16 = iadd v8, v5
            jump block1(v16, v15)
        block4:
            v17 = fmul v14, v7
            v18 = fadd v9, v17
            v19 = iadd v8, v5
            jump block1(v19, v18)
        block5(v20: f64):
            return v20
        }

        func @odd(i32) -> i32 {
        block0(v0: i32):
            v1 = iconst.i32 0
            v2 = iconst.i32 1
            jump block1(v1, v1)
        block1(v3: i32, v4: i32):
            v5 = icmp slt v3, v0
            brif v5, block2, block4
        block2:
            v6 = and v3, v2
            v7 = icmp ne v6, v1
            v8 = iadd v3, v2
            brif v7, block3, block1(v8, v4)
        block3:
            v9 = iadd v4, v3
            jump block1(v8, v9)
        block4:
            return v4
        }

        func @last(i32, i1) -> i32 {
        block0(v0: i32, v1: i1):
            v2 = iconst.i32 0
            v3 = iconst.i32 1
            jump block1(v2)
        block1(v4: i32):
            v5 = icmp slt v4, v0
            brif v5, block2, block4
        block2:
            brif v1, block3, block5
        block3:
            v6 = iadd v4, v3
            jump block1(v6)
        block5:
            v7 = iadd v4, v3
            v8 = iadd v7, v3
            jump block1(v8)
        block4:
            return v4
        }

        func @two_exits(i32, i1) -> i32 {
        block0(v0: i32, v1: i1):
            v2 = iconst.i32 0
            v3 = iconst.i32 1
            jump block1(v2)
        block1(v4: i32):
            v5 = icmp slt v4, v0
            brif v5, block2, block4
        block2:
            v6 = icmp eq v4, v3
            brif v6, block6, block7
        block7:
            brif v1, block3, block5
        block3:
            v7 = iadd v4, v3
            jump block1(v7)
        block5:
            v8 = iadd v4, v3
            v9 = iadd v8, v3
            jump block1(v9)
        block6:
            jump block8
        block4:
            jump block8
        block8:
            return v4
        }
    ";

    fn run(m: &parc_ir::Module, f: &str, args: &[Val]) -> Val {
        let id = m.func_by_name(f).expect("function");
        let mut it = Interp::new(m, Config::default()).expect("interp");
        it.call(id, args).expect("runs").value().expect("a result")
    }

    fn sum(m: &parc_ir::Module, flag: bool) -> f64 {
        let id = m.func_by_name("sum").expect("sum");
        let mut it = Interp::new(m, Config::default()).expect("interp");
        let a = it.alloc(8 * 5).expect("alloc");
        it.write_f64s(a, &[1.0, 2.5, -3.0, 4.0, 0.5])
            .expect("write");
        it.call(id, &[Val::Ptr(a), Val::I(5), Val::I(flag as i64)])
            .expect("runs")
            .value()
            .and_then(|v| v.as_f64())
            .expect("a float")
    }

    #[test]
    fn an_invariant_branch_splits_the_loop_in_two() {
        let before = read_module(PROGRAM).expect("reads");
        let mut after = before.clone();
        let sum_id = after.func_by_name("sum").expect("sum");
        assert_eq!(
            super::run_function(&mut after.funcs[sum_id], &Convergence::default()),
            1
        );
        parc_ir::verify::verify_module(&after).expect("verifies");
        for flag in [false, true] {
            assert_eq!(sum(&before, flag), sum(&after, flag));
        }
        // Two loops, and the branch on the flag now in the preheader only.
        let f = &after.funcs[sum_id];
        let an = parc_ir::analysis::FunctionAnalyses::compute(f);
        assert_eq!(
            an.loops.len(),
            2,
            "{}",
            parc_ir::print::print_function(&after, sum_id)
        );
        let flag_branches = f
            .placed_insts()
            .filter(|&(b, i)| {
                an.cfg.rpo().contains(&b)
                    && matches!(f.inst(i), parc_ir::InstKind::Brif { cond, .. }
                        if *cond == f.block_params(f.layout[0])[2])
            })
            .count();
        assert_eq!(
            flag_branches,
            1,
            "{}",
            parc_ir::print::print_function(&after, sum_id)
        );
    }

    #[test]
    fn a_branch_on_the_counter_stays() {
        let mut m = read_module(PROGRAM).expect("reads");
        let odd = m.func_by_name("odd").expect("odd");
        assert_eq!(
            super::run_function(&mut m.funcs[odd], &Convergence::default()),
            0
        );
        assert_eq!(run(&m, "odd", &[Val::I(9)]), Val::I(16));
    }

    /// `last` returns its counter's final value, a value of the loop used
    /// after it: the exit gets a parameter, which each copy passes its own.
    #[test]
    fn values_used_after_the_loop_reach_its_exit_from_both_copies() {
        let before = read_module(PROGRAM).expect("reads");
        let mut after = before.clone();
        let last = after.func_by_name("last").expect("last");
        assert_eq!(
            super::run_function(&mut after.funcs[last], &Convergence::default()),
            1
        );
        parc_ir::verify::verify_module(&after).expect("verifies");
        for flag in [0, 1] {
            let args = [Val::I(7), Val::I(flag)];
            assert_eq!(run(&after, "last", &args), run(&before, "last", &args));
        }
        assert_eq!(run(&after, "last", &[Val::I(7), Val::I(0)]), Val::I(8));
    }

    /// `two_exits` returns its counter below a block both exits reach:
    /// neither exit alone leads there, so the loop stays.
    #[test]
    fn a_value_used_below_two_exits_keeps_the_loop() {
        let mut m = read_module(PROGRAM).expect("reads");
        let f = m.func_by_name("two_exits").expect("two_exits");
        assert_eq!(
            super::run_function(&mut m.funcs[f], &Convergence::default()),
            0
        );
        assert_eq!(run(&m, "two_exits", &[Val::I(7), Val::I(0)]), Val::I(8));
        assert_eq!(run(&m, "two_exits", &[Val::I(7), Val::I(1)]), Val::I(1));
    }
}
