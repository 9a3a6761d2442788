//! `loop-unroll`: a loop whose trip count is a compile-time constant, and
//! small, is replaced by one copy of its body per iteration (full
//! unrolling, as LLVM's `FullUnroll` with a trip count found by
//! evaluating the loop's control on constants, as its
//! `computeExitCountExhaustively` does).
//!
//! Why it matters here: a CUDA-style tree reduction
//! `for (w = 128; w > 0; w /= 2) { if (t < w) s[t] += s[t + w];
//! __syncthreads(); }` has a counter that is no affine function of an
//! iteration number. Differentiated as a loop, every thread records every
//! iteration's `w`, each branch taken and the trip count on its tape and
//! reads them back in reverse; unrolled, every `w` is a constant, the
//! branches are recomputed from `threadIdx` and nothing is recorded. The
//! primal loses the loop's counter and tests too.
//!
//! # What is unrolled
//! An innermost natural loop such that
//! - it is entered by one edge (a preheader's `jump`, or one way of a
//!   `brif` whose other way goes elsewhere) and none of its blocks ends
//!   in `detach`, `reattach` or `sync` (Tapir lowering recognizes
//!   parallel loops by their shape);
//! - it has one latch, and exactly one *exiting* block `E` (a block of the
//!   loop with a successor outside it), which is the header or the latch
//!   and ends in `brif` with one way in the loop and one out;
//! - starting from the constants the entering edge passes to the header,
//!   evaluating `E`'s condition and the latch's arguments to the header
//!   with [`fold`] (exactly the interpreter's arithmetic) decides `E`'s
//!   branch in every iteration, and the loop leaves within
//!   [`MAX_TRIPS`] passes through the header;
//! - the copies add at most [`MAX_GROWTH`] instructions, constants not
//!   counted;
//! - every block holding a convergent operation (a `barrier`, or a call of
//!   a function that may reach one; see [`parc_ir::convergent`])
//!   dominates the latch. Every thread that enters the loop then passes
//!   each such operation once per iteration, the same number of times
//!   (the trip count is a constant and the loop has one exit), so copy
//!   `j`'s barrier is iteration `j`'s for every thread, as the tree
//!   reduction's is. A barrier only some iterations reach would become
//!   copies that threads reaching it in different iterations (which met
//!   at it before) reach apart.
//!
//! # The rewrite
//! If the header runs `k` times, `k - 1` copies of the loop's blocks run
//! the first `k - 1` passes, each entered from the one before (the first
//! from the preheader), and the loop's own blocks run the last pass: the
//! entering edge enters copy 1, copy `j`'s back edge enters copy `j + 1`, the
//! last copy's enters the loop. In each copy `E`'s `brif` becomes a `jump`
//! to its way in the loop; in the loop itself a `jump` out. Nothing runs
//! more or less often or in another order: each copy runs exactly what
//! that iteration ran. The loop's own blocks stay the last iteration, so
//! the values that code after the loop uses are still defined where they
//! were, and dominate their uses (the only way out is `E`'s, in the last
//! iteration). Blocks the last iteration no longer reaches (a body after
//! the header's test) become unreachable; `simplify-cfg` removes them,
//! and `sccp` folds what the now constant counters compute.
//!
//! Statistics: `loop-unroll.unrolled`, `loop-unroll.copies`.

use crate::HashMap;
use crate::PassContext;
use crate::fold::{Const, fold};
use parc_ir::analysis::{FunctionAnalyses, Loop};
use parc_ir::convergent::Convergence;
use parc_ir::{Block, Function, Inst, InstKind, Module, Value, ValueDef};

/// The most passes through a loop's header that are unrolled.
pub const MAX_TRIPS: usize = 32;
/// The most instructions the copies of one loop may add.
pub const MAX_GROWTH: usize = 320;

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let ids = crate::functions_with_loops(module, &mut ctx.analyses);
    if ids.is_empty() {
        return false;
    }
    let (mut unrolled, mut copies) = (0, 0);
    let conv = Convergence::of(module);
    let changed = crate::for_each_of(module, &ids, |f| {
        let (n, c) = run_function(f, &conv);
        unrolled += n;
        copies += c;
        n > 0
    });
    ctx.count("loop-unroll.unrolled", unrolled);
    ctx.count("loop-unroll.copies", copies);
    changed
}

/// Unrolls the loops of `func` it can; returns how many, and how many
/// copies of loop bodies it made. `conv`: the module's convergent
/// functions.
pub fn run_function(func: &mut Function, conv: &Convergence) -> (u64, u64) {
    let (mut unrolled, mut copies) = (0, 0);
    // Unrolling a loop changes no other innermost loop: its copies branch
    // only among themselves and into the loop, and every other loop keeps
    // its blocks, edges and instructions. So one analysis serves all the
    // innermost loops at once (one analysis per unrolled loop made 2000
    // loops in a function take half a minute). Only an enclosing loop
    // changes, and may have become innermost: analyze again after a round
    // that unrolled a nested loop. Each round but the last unrolls a loop,
    // and the nesting depth bounds the rounds.
    loop {
        let an = FunctionAnalyses::compute(func);
        let home: HashMap<Inst, Block> = func.placed_insts().map(|(b, i)| (i, b)).collect();
        let plans: Vec<(Plan, bool)> = an
            .loops
            .loops()
            .filter_map(|lp| {
                Some((
                    plan(func, &an, &home, lp, conv)?,
                    an.loops.data(lp).parent.is_some(),
                ))
            })
            .collect();
        let mut again = false;
        for (plan, nested) in &plans {
            copies += plan.passes as u64 - 1;
            unroll(func, plan);
            unrolled += 1;
            again |= nested;
        }
        if !again {
            return (unrolled, copies);
        }
    }
}

/// A loop to unroll.
struct Plan {
    header: Block,
    /// The block whose branch enters the loop.
    preheader: Block,
    latch: Block,
    /// In the loop's order (reverse postorder), header first.
    blocks: Vec<Block>,
    /// The exiting block and whether its `brif`'s then-way stays in the
    /// loop.
    exiting: Block,
    then_stays: bool,
    /// Passes through the header (at least 1).
    passes: usize,
}

/// `home`: the block of every placed instruction.
fn plan(
    func: &Function,
    an: &FunctionAnalyses,
    home: &HashMap<Inst, Block>,
    lp: Loop,
    conv: &Convergence,
) -> Option<Plan> {
    let data = an.loops.data(lp);
    if !an.loops.is_innermost(lp) {
        return None;
    }
    let term = |b: Block| func.terminator(b).map(|t| func.inst(t));
    // The one edge into the loop: a preheader's jump, or one way of a
    // branch (only that way is redirected to the first copy).
    let mut outside = an
        .cfg
        .preds(data.header)
        .iter()
        .copied()
        .filter(|&p| !data.contains(p) && an.domtree.is_reachable(p));
    let (Some(preheader), None) = (outside.next(), outside.next()) else {
        return None;
    };
    let entry = match term(preheader)? {
        InstKind::Jump(call) => call,
        InstKind::Brif {
            then_dest,
            else_dest,
            ..
        } if (then_dest.block == data.header) != (else_dest.block == data.header) => {
            if then_dest.block == data.header {
                then_dest
            } else {
                else_dest
            }
        }
        _ => return None,
    };
    let [latch] = data.latches[..] else {
        return None;
    };
    if data.blocks.iter().any(|&b| func.ends_in_tapir(b)) {
        return None;
    }
    let leaves = |b: Block| func.successors(b).iter().any(|&s| !data.contains(s));
    let mut exiting = data.blocks.iter().copied().filter(|&b| leaves(b));
    let (Some(exiting), None) = (exiting.next(), exiting.next()) else {
        return None;
    };
    if exiting != data.header && exiting != latch {
        return None;
    }
    let Some(&InstKind::Brif {
        cond,
        ref then_dest,
        ref else_dest,
    }) = term(exiting)
    else {
        return None;
    };
    let then_stays = data.contains(then_dest.block);
    if then_stays == data.contains(else_dest.block) {
        return None;
    }
    // Constants are free: the backend materializes them where used (and
    // `instcombine` adds one beside each strength-reduced operation).
    let size = data
        .blocks
        .iter()
        .flat_map(|&b| func.block_insts(b))
        .filter(|&&i| !matches!(func.inst(i), InstKind::Iconst(_) | InstKind::Fconst(_)))
        .count();
    // The latch's way back (a latch that is also the exiting block takes
    // it on its way in the loop).
    let back = match term(latch)? {
        InstKind::Jump(back) => back.clone(),
        InstKind::Brif {
            then_dest,
            else_dest,
            ..
        } if latch == exiting => if then_stays { then_dest } else { else_dest }.clone(),
        _ => return None,
    };
    if back.block != data.header {
        return None;
    }
    if data
        .blocks
        .iter()
        .any(|&b| conv.any_in(func, [b]) && !an.domtree.dominates(b, latch))
    {
        return None;
    }
    let eval = Eval {
        func,
        home,
        in_loop: &|b| data.contains(b),
        header: data.header,
    };
    let mut params: Vec<Option<Const>> = entry.args.iter().map(|&a| eval.outside(a)).collect();
    for passes in 1..=MAX_TRIPS {
        if (passes - 1) * size > MAX_GROWTH {
            return None;
        }
        let taken = eval.value(cond, &params, &mut HashMap::default())?;
        if taken.is_zero() == then_stays {
            return Some(Plan {
                header: data.header,
                preheader,
                latch,
                blocks: data.blocks.to_vec(),
                exiting,
                then_stays,
                passes,
            });
        }
        let mut memo = HashMap::default();
        params = back
            .args
            .iter()
            .map(|&a| eval.value(a, &params, &mut memo))
            .collect();
    }
    None
}

/// Evaluates the loop's values in one pass through it, given its header's
/// parameters (`None` where unknown).
struct Eval<'a> {
    func: &'a Function,
    home: &'a HashMap<Inst, Block>,
    in_loop: &'a dyn Fn(Block) -> bool,
    header: Block,
}

impl Eval<'_> {
    /// A value defined outside the loop: known if it is a constant.
    fn outside(&self, v: Value) -> Option<Const> {
        match self.func.value_def(v) {
            ValueDef::Result(i) => Const::of_inst(self.func.inst(i), self.func.value_type(v)),
            ValueDef::Param(..) => None,
        }
    }

    fn value(
        &self,
        v: Value,
        params: &[Option<Const>],
        memo: &mut HashMap<Value, Option<Const>>,
    ) -> Option<Const> {
        if let Some(&c) = memo.get(&v) {
            return c;
        }
        let c = match self.func.value_def(v) {
            ValueDef::Param(b, n) if b == self.header => params.get(n as usize).copied().flatten(),
            // Another block's parameter depends on the way taken to it.
            ValueDef::Param(..) => None,
            ValueDef::Result(i) if self.home.get(&i).is_some_and(|&b| (self.in_loop)(b)) => {
                let kind = self.func.inst(i);
                let mut args = Vec::new();
                for a in kind.operands() {
                    args.push(self.value(a, params, memo)?);
                }
                fold(kind, &args, self.func.value_type(v))
            }
            ValueDef::Result(_) => self.outside(v),
        };
        memo.insert(v, c);
        c
    }
}

/// Rewrites as the module doc says.
fn unroll(func: &mut Function, plan: &Plan) {
    // Whether the exiting branch stays in the loop, as a way of its brif.
    let stay = |func: &mut Function, block: Block, stays: bool| {
        crate::copy::take_way(func, block, stays == plan.then_stays)
    };
    let at = func
        .layout
        .iter()
        .position(|&b| b == plan.header)
        .unwrap_or(func.layout.len());
    // Copies in order: copy j enters copy j + 1 (or, the last, the loop).
    let mut next_header = plan.header;
    for _ in 1..plan.passes {
        let copy = crate::copy::copy_blocks(func, &plan.blocks, at);
        let latch = copy.blocks[&plan.latch];
        let t = func.terminator(latch).expect("the latch ends in a branch");
        for call in func.inst_mut(t).block_calls_mut() {
            if call.block == copy.blocks[&plan.header] {
                call.block = next_header;
            }
        }
        stay(func, copy.blocks[&plan.exiting], true);
        next_header = copy.blocks[&plan.header];
    }
    stay(func, plan.exiting, false);
    let t = func
        .terminator(plan.preheader)
        .expect("the loop is entered by a branch");
    for call in func.inst_mut(t).block_calls_mut() {
        if call.block == plan.header {
            call.block = next_header;
        }
    }
}
