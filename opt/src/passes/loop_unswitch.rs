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
//!   little code (n-body's reverse inner loop, three coordinates' updates
//!   each with its atomic way, has 88);
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
//! copy `jump E` (to `E`'s copy when `E` is in the loop), and so for every
//! other branch of the loop on the same `c` (the reverse of a loop that
//! updates several arrays, or several components of one, tests it once per
//! update: n-body's three coordinates), and the
//! preheader's `jump H(args)` becomes `brif c, P(args), P'(args)`, where
//! `P` and `P'` are each copy's new preheader (`P(xs): jump H(xs)`: the
//! vectorizer, which runs next, takes only loops entered by a `jump`). Both
//! copies exit to the same blocks; values used below an exit reach it as
//! its new parameters. Blocks
//! only the dropped edges reached become unreachable; `simplify-cfg`
//! removes them. Each copy runs exactly the instructions the loop ran for
//! its value of `c`, in the same order, so nothing runs more or less
//! often, and nothing moves across a task boundary (the loop has none).
//! `simplify-cfg` runs right after it in the prepare stage: a branch
//! made a jump leaves the block it jumped to with the way not taken
//! as a second, unreachable predecessor, and the vectorizer wants the
//! body as one block.
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
pub const MAX_LOOP_INSTS: usize = 128;

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
    /// The invariant condition the first such branch tests; every branch
    /// of the loop on it is unswitched.
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
    let cond = data.blocks.iter().find_map(|&b| match term(b)? {
        InstKind::Brif {
            cond,
            then_dest,
            else_dest,
        } if then_dest.block != else_dest.block && !in_loop(*cond) => Some(*cond),
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
    // Each copy takes one way of every branch on the condition: it is the
    // same in every iteration.
    for &b in &plan.blocks {
        if branches_on(func, b, plan.cond) {
            crate::copy::take_way(func, b, true);
            crate::copy::take_way(func, blocks[&b], false);
        }
    }
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
    let copy_header = blocks[&plan.header];
    // Each copy gets its own preheader (`crate::preheader`).
    let ph = crate::preheader::make_preheader(func, plan.header);
    let then_dest = BlockCall::new(ph, entry.args.clone());
    let ph = crate::preheader::make_preheader(func, copy_header);
    let else_dest = BlockCall::new(ph, entry.args);
    *func.inst_mut(t) = InstKind::Brif {
        cond: plan.cond,
        then_dest,
        else_dest,
    };
    copy_header
}

/// Whether `block` ends in `brif cond, ..`.
fn branches_on(func: &Function, block: Block, cond: Value) -> bool {
    func.terminator(block)
        .is_some_and(|t| matches!(func.inst(t), InstKind::Brif { cond: c, .. } if *c == cond))
}
