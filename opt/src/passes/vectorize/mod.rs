//! `vectorize`: the loop vectorizer. An innermost counted loop whose
//! iterations read and write consecutive elements becomes a loop that runs
//! `W` iterations at once in 128-bit vectors (`W` = 2 for `f64`/`i64`, 4
//! for `f32`/`i32`), followed by the original loop for the remaining
//! iterations.
//!
//! # Not part of `pipeline()`
//! It runs in [`codegen_prepare`](crate::codegen_prepare), after the last
//! optimization and so after the AD (whose reverse loops it vectorizes as
//! any loop; the AD never sees a vector), after `loop-unswitch` and before
//! `loop-rotate`, which then rotates the vector loop and the remainder
//! loop alike.
//!
//! # What is vectorized
//! An innermost natural loop of a host function such that
//! - it is two blocks: a header `H` that ends in the counted loop's test
//!   ([`counted_loop`](crate::analysis::tripcount::counted_loop), exact,
//!   with a `<`/`<=` test that cannot wrap and a positive step, or a
//!   `>`/`>=`/`!=` test and a negative one: see "Loops that count down"), whose
//!   other instructions are pure arithmetic (treated as the body's
//!   first), and a body `B` that ends in the one
//!   back edge `jump H(..)`; the header has a preheader that ends in
//!   `jump H(..)`;
//! - every parameter of `H` is an induction variable (the back edge
//!   passes `p + c` for a constant `c`), an invariant (the back edge
//!   passes `p` itself: uniform) or an integer *reduction*: the
//!   back edge passes `r = p OP x` (`OP` one of `iadd imul and or xor`,
//!   either operand order, or `isub` with `p` on the left), `r` is the
//!   back edge's alone and `p`'s one use in the loop is `r` (the header's
//!   exit edge may pass `p` out). Integer `OP`s are associative and
//!   commutative (wrapping), so `W` partial results, one per lane,
//!   combined after the vector loop give the scalar loop's value exactly
//!   (a difference's lanes hold what they subtracted, negated, and are
//!   added). Float sums and products (`fadd fmul`, `fsub` as `isub`) are
//!   kept in order (their rounding depends on it), so such loops are left
//!   scalar (`float-reduction`) unless reassociation is allowed
//!   ([`PassOptions::reassociate_floats`]: `-ffast-math`,
//!   `-fassociative-math`); then they are summed in lanes as integers are,
//!   each lane starting from `-0.0` (sums) or `1.0` (products); or a
//!   minimum or maximum, `p = x > p ? x : p` as a compare and a `select`
//!   in any operand order (integers always, floats under
//!   `reassociate_floats`: see `reduction.rs`);
//! - every instruction of `B` is one of
//!   - *uniform*: pure, all its operands defined outside the loop or
//!     uniform (kept as it is: its value is the same for every lane);
//!   - *affine*: integer or pointer arithmetic (`iadd isub`, `imul`/`shl`
//!     by a constant, `ptradd`, `ptrtoint`/`inttoptr` between 64-bit
//!     integers and pointers, and `sext`/`zext` of an induction variable
//!     whose test has the same signedness) on induction variables and
//!     uniform values, whose value grows by a constant *stride* per
//!     iteration (kept: it computes lane 0's value); also `sext` of a
//!     32-bit affine index (C's `a[i * n + j]` with `int`s) when the
//!     counter is 32 bits, with a test before the loop that the index
//!     does not wrap in the iterations the vector loop runs (and `trunc`
//!     to 32 bits of an affine value, which only such an extension may
//!     use);
//!   - a `load` from a uniform address (the same element in every
//!     iteration, as `a[i][k]` in `c[i][j] += a[i][k] * b[k][j]` over
//!     `j`): uniform, in a group of its own for the dependences below;
//!   - *varying*: a `load` of `f64 f32 i64 i32` from an affine address
//!     whose stride is the loaded size (consecutive elements), or a
//!     lane-wise operator
//!     ([`BinaryOp::is_lanewise`](parc_ir::BinaryOp::is_lanewise), `fneg`)
//!     on varying and uniform operands (uniform ones are splatted), or an
//!     `icmp`/`fcmp` of them (a mask) and a `select` by such a mask, or
//!     C's `fmin`/`fmax` of them (lane-wise intrinsics,
//!     [`Intrinsic::is_lanewise`](parc_ir::Intrinsic::is_lanewise): each
//!     lane exactly the scalar call, so `c[i] = fmax(a[i], b[i])` needs no
//!     flag; as a reduction, `m = fmax(m, a[i])`, they are refused,
//!     `min-max-call`: their NaN tests on the loop-carried chain made the
//!     f64x2 loop no faster than the scalar one);
//!   - a `store` of a varying or uniform value of one of those types to an
//!     affine address whose stride is its size;
//! - all varying values have one number of lanes `W`, and a constant trip
//!   count, if known, is at least `W`;
//! - its memory accesses allow it (below).
//!
//! # Loops that count down
//! The AD's reverse of a counted loop runs its iterations backwards
//! (`k = n, ..., 1` on the test `k != 0`, the body on `k - 1`), so the
//! adjoint updates of `for (i = 0; i < n; i++) dw[i] += d * x[i]` walk
//! down the arrays. Such a loop (a negative step with `>`, `>=` or `!=`)
//! is vectorized with its lanes in the opposite order to its iterations:
//! a vector iteration runs `W` scalar iterations, lane 0 being the last
//! of them. Every stride is then per lane (an iteration's step negated),
//! so an element a scalar iteration after the next reads one below is
//! the next lane's, one up: consecutive lanes are consecutive elements,
//! loaded and stored as vectors like an ascending loop's. The vector
//! header's counters hold lane 0's values (`W - 1` steps ahead of the
//! scalar loop's; the remainder loop gets them back), and vector
//! iterations go down by `W` steps, in the scalar loop's order. Lanes
//! are independent, so their order matters only to what combines them:
//! integer reductions (exact in any order) and float ones under
//! `reassociate_floats`. The dependences below read "ahead" as down the
//! addresses, the overlap tests take a moving group's bytes from `nv - 1`
//! elements below its first iteration's, and a 32-bit index's no-wrap
//! test is against `i32::MIN`.
//!
//! # The cost model
//! A loop that qualifies is vectorized only when its vector loop is
//! estimated to pay (`cost.rs`): a vector iteration must cost less than
//! the scalar iterations it does, and the vector path, whose tests and
//! set-up cost once per run of the loop, is taken only from a number of
//! iterations on (tested before the loop; a constant trip count below it
//! leaves the loop scalar, `not-profitable`). It also chooses whether the
//! vector loop runs two copies of its body per iteration (interleaving:
//! one test and counter step for both, and two chains for each
//! reduction).
//!
//! # Dependences
//! Addresses are linear forms over atoms (values the form does not look
//! into: parameters, uniform values, casts); accesses whose forms have the
//! same atoms with the same coefficients form a *group*, and within a
//! group two addresses differ by a known constant `d`. Within a group, a
//! store and another access are fine together if `d = 0` (the same element
//! in the same iteration, whose order the vector body keeps), `|d| >= W *
//! size` (the other access touches the element in another vector
//! iteration, in the same order as the scalar loop), or the other access
//! is a load that reads ahead (`d > 0`) and comes first in the body (it
//! reads what later iterations overwrite, before they do). Anything else
//! is refused: a dependence the vector body would break.
//!
//! Between groups nothing is known, so for each group with a store and
//! each other group, a test before the loop checks at run time that the
//! bytes they touch in the iterations the vector loop runs (for a
//! uniform load, its one element) do not overlap; if any may, the
//! original loop runs all iterations (the scalar fallback). A loop with
//! no store needs no test. The no-wrap tests of 32-bit indices join them.
//!
//! # The rewrite
//! ```text
//! P:  n = trip count; nv = n & -(U*W); brif n >= T, C, R(inits)
//! C:  overlap tests;                brif ok, V, R(inits)   (no C without tests)
//! V:  uniform values; splats; e = i0 + nv*s; jump VH(inits, 0)
//! VH(ivs, k):                       brif i != e, VB, X     (or k <u nv)
//! VB: the body on vectors, U times; ivs + U*W*c, k + U*W; jump VH(..)
//! X:  reductions' lanes combined;   jump R(ivs)
//! R(ivs):                           jump H(ivs)            (the original loop)
//! ```
//! `T` is the cost model's minimum trip count, at least `U*W` (the guard
//! is `nv != 0` when it is `U*W`). `U`, the interleave count, is 1 or 2
//! (the cost model's choice, `cost.rs`): with 2 the vector body runs
//! twice per iteration, the second copy on the `W` iterations after the
//! first's (its addresses the first's plus `W` strides), as the next
//! iteration of the plain vector loop would; each reduction then has an
//! accumulator per copy (parameters of `VH` after the counters), combined
//! lane by lane in `X` before the lanes are. The vector loop tests the
//! loop's own counter `i` (step `s`) against its value after `nv`
//! iterations, `e`, when that counter is 64-bit (`e` cannot wrap: the
//! scalar loop's last step, further on, does not); otherwise it counts
//! with `k` of its own.
//! The body's uniform values (pure, or loads of elements no store of
//! the loop touches, by the tests) are computed once, in `V`: the vector
//! loop runs at least one iteration, so nothing runs that the scalar loop
//! would not.
//! A reduction's vector starts as the splat of `OP`'s identity; `X`
//! combines its lanes (`reduce_OP`) and the initial value (after the
//! copies' accumulators).
//! Each lane computes exactly the scalar iteration's value with the same
//! operations, so the results are bit-identical to the scalar loop's
//! (floats included), except for float reductions under
//! `reassociate_floats`. The remainder is the original
//! loop, entered from `R` (its new preheader) with the induction
//! variables where the vector loop left them.
//!
//! Statistics: `vectorize.loops` (vectorized), `vectorize.checked`
//! (vectorized with run-time overlap tests), and
//! `vectorize.missed.REASON` for each loop of a host function that was
//! not, by the first reason found (`outer-loop` and `parallel-loop` for
//! loops that are not candidates, `not-profitable` for those the cost
//! model refuses). Each loop also gets one
//! [`Remark`] (its exit test's position; vectorized with its width and
//! the model's estimate, or the reason and [`explain`]'s words for it), which `--explain-vec`,
//! `-Rpass=loop-vectorize` and `-fopt-info-vec` print. `-fno-vectorize`
//! ([`PassOptions::vectorize`](crate::PassOptions)) turns the pass off.

//!
//! # Files
//! - `plan.rs`: which loops qualify and how each value varies across
//!   lanes (the `Plan` the rewrite follows);
//! - `reduction.rs`: the reductions a vector loop may carry in lanes;
//! - `dependence.rs`: addresses as linear forms, the dependences between
//!   accesses and the run-time overlap tests;
//! - `rewrite.rs`: the vector loop, its tests and its exit, built from a
//!   plan;
//! - `cost.rs`: the cost model, whether the vector loop pays and from how
//!   many iterations on;
//! - `report.rs`: what the pass tells the user (statistics, remarks, the
//!   words for each reason).

mod cost;
mod dependence;
mod plan;
mod reduction;
mod report;
mod rewrite;

pub use cost::Estimate;
pub use report::{Report, explain};

use crate::remarks::{Outcome, Remark};
use crate::{PassContext, PassOptions};
use cranelift_entity::EntitySet;
use parc_ir::analysis::{FunctionAnalyses, Loop};
use parc_ir::{Block, FuncId, FuncKind, Function, InstKind, Module};
use std::collections::{HashMap, HashSet};

/// The most instructions a loop body may have (the pass copies it).
pub const MAX_BODY_INSTS: usize = 80;

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    if !ctx.options.vectorize {
        return false;
    }
    let names: HashMap<FuncId, String> = module
        .funcs
        .iter()
        .map(|(id, f)| (id, f.name.clone()))
        .collect();
    let mut report = Report::default();
    let mut changed = false;
    for func in module.funcs.values_mut() {
        if func.is_declaration() || func.kind != FuncKind::Host {
            continue;
        }
        let before = report.loops.len();
        changed |= run_function(func, &ctx.options, &mut report) > 0;
        for l in &mut report.loops[before..] {
            let source = l.loc.func.and_then(|f| names.get(&f));
            l.function = source.unwrap_or(&func.name).clone();
            l.holder = func.name.clone();
        }
    }
    ctx.count("vectorize.loops", report.vectorized);
    ctx.count("vectorize.checked", report.checked);
    for (reason, n) in &report.missed {
        ctx.count(&format!("vectorize.missed.{reason}"), *n);
    }
    ctx.remarks.extend(report.loops);
    changed
}

/// Vectorizes the loops of `func` it can; returns how many.
pub fn run_function(func: &mut Function, options: &PassOptions, report: &mut Report) -> u64 {
    let mut done: HashSet<Block> = HashSet::new();
    let mut count = 0;
    let limit = FunctionAnalyses::compute(func).loops.len();
    for _ in 0..limit {
        let an = FunctionAnalyses::compute(func);
        let parallel = loops_that_detach(func, &an);
        let mut found = None;
        for lp in an.loops.loops() {
            let header = an.loops.data(lp).header;
            if done.contains(&header) {
                continue;
            }
            done.insert(header);
            let loc = report::loop_loc(func, &an, lp);
            if parallel.contains(lp) {
                report.missed(loc, "parallel-loop");
                continue;
            }
            if !an.loops.is_innermost(lp) {
                report.missed(loc, "outer-loop");
                continue;
            }
            match plan::plan(func, &an, lp, options) {
                Ok(p) => {
                    let trips = p.counted.constant(func);
                    let cost = cost::estimate(func, &p, trips);
                    if !cost.pays() || trips.is_some_and(|n| n < cost.min_trip) {
                        report.unprofitable(loc, p.vector, cost, trips);
                        continue;
                    }
                    found = Some((p, cost, loc));
                    break;
                }
                Err(reason) => report.missed(loc, reason),
            }
        }
        let Some((p, cost, loc)) = found else { break };
        let vheader = rewrite::rewrite(func, &p, cost.min_trip, cost.unroll);
        done.insert(vheader);
        let checked = !p.checks.is_empty() || !p.wraps.is_empty();
        report.vectorized += 1;
        report.checked += u64::from(checked);
        report.loops.push(Remark {
            loc,
            function: String::new(),
            holder: String::new(),
            outcome: Outcome::Vectorized {
                vector: p.vector,
                lanes: p.lanes,
                checked,
                reassociated: p.reductions.values().any(|(red, _)| red.is_float()),
                cost,
            },
        });
        count += 1;
    }
    count
}

/// The loops that are `parallel_for`s': those that spawn their
/// iterations, a `detach` among their blocks (loops inside a task's body
/// are serial loops of their own).
fn loops_that_detach(func: &Function, an: &FunctionAnalyses) -> EntitySet<Loop> {
    let detaching = an.cfg.rpo().iter().copied().filter(|&b| {
        func.terminator(b)
            .is_some_and(|t| matches!(func.inst(t), InstKind::Detach { .. }))
    });
    an.loops.loops_containing(detaching)
}
