//! The cost model: whether the vector loop of a [`Plan`] pays, and from
//! how many iterations on.
//!
//! Every instruction of the loop gets a cost in rough cycles of an x86-64
//! core (reciprocal throughputs; [`scalar_cost`], [`vector_cost`]), as it
//! runs in one iteration of the scalar loop and in one iteration of the
//! vector loop, which does `W` scalar iterations:
//! - a *varying* instruction runs once per iteration of either loop, at its
//!   scalar or its vector cost (most vector operations cost what their
//!   scalar ones do, so a vector iteration costs about one scalar one;
//!   integer multiplies, selects and unsigned 64-bit compares cost more in
//!   lanes);
//! - an *affine* one (address arithmetic) once per iteration of either
//!   loop: the vector loop computes lane 0's value only;
//! - a *uniform* one once per iteration of the scalar loop, where it still
//!   is (LICM hoisted what it could; a load stays when the loop stores and
//!   may overwrite it), and once before the vector loop;
//! - each loop pays [`LOOP`] per iteration for its test and branch, and 1
//!   per counter (the vector loop has one more, unless it tests the
//!   loop's own 64-bit counter against its value at the vector loop's
//!   end).
//!
//! Address arithmetic that x86's addressing modes absorb (`ptradd`, shifts
//! by up to 3) and truncations cost nothing.
//!
//! Entering the vector path costs [`SETUP`] (the trip count, the guard,
//! and a vector loop and a remainder loop that exit, each a branch the
//! predictor may miss, where the scalar loop has one), plus each run-time
//! overlap test ([`PER_CHECK`]) and no-wrap test ([`PER_WRAP`]), each
//! value splatted or hoisted, and each reduction's lanes combined.
//!
//! With `S` per scalar iteration, `V` per vector iteration and `C` to
//! enter, `n` iterations cost `n S` scalar and about `C + n V / W` in
//! vectors. The loop is vectorized only when `V < W S` (the vector loop
//! is faster per iteration at all), and its vector path is taken when `n >
//! C W / (W S - V)`, the [`Estimate::min_trip`], tested before the loop
//! (with a constant trip count, at compile time). The constants were
//! measured on a loop `c[r*m + j] += a[r*m + j] * b[j]` over `j < m` with
//! two overlap tests: the vector path was slower up to `m = 5` and
//! faster from `m = 6` on, which the model reproduces (`S = 10`, `V = 10`,
//! `C = 28`: from 6 on).
//!
//! # Interleaving
//! The vector loop may run two copies of its body per iteration
//! ([`Estimate::unroll`] = 2, as clang's interleave count): the copies
//! share one test, branch and counter step, and each reduction gets a
//! second accumulator, so that two chains of it run side by side. One
//! iteration of a loop costs the larger of its instructions' cost and the
//! latency of its longest reduction chain (`L`, [`chain_latency`]: a
//! float sum waits for the previous one's result), so with `O` the loop's
//! own overhead (test, branch, counters), `2 W` iterations cost `2 max(V,
//! L)` in a plain vector loop and `max(2 V - O, L)` interleaved. The
//! saving `D` buys a longer remainder: the scalar loop then runs up to
//! `2 W - 1` iterations instead of `W - 1`, `W / 2` more on average, so a
//! loop is interleaved when its trip count is unknown or at least `W^2
//! S / D`, and when its body has at most [`MAX_INTERLEAVED`] instructions
//! (each is copied once more).

use super::plan::{Plan, Shape};
use super::reduction::Reduction;
use parc_ir::{BinaryOp, CastOp, Function, InstKind, IntCC, Intrinsic, Type, Value};
use std::collections::HashSet;

/// A loop's test and branch, per iteration (each counter's step adds 1).
const LOOP: u32 = 1;
/// Entering the vector path: the trip count, the guard, two more loop
/// exits.
const SETUP: u32 = 12;
/// One run-time overlap test (two addresses, two compares, two logic
/// operations).
const PER_CHECK: u32 = 8;
/// One no-wrap test of a 32-bit index.
const PER_WRAP: u32 = 6;
/// The most instructions a vector body may have to be interleaved.
const MAX_INTERLEAVED: usize = 32;

/// What the model says of one loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Estimate {
    /// One iteration of the scalar loop.
    pub scalar: u32,
    /// One iteration of the vector loop (`lanes` scalar iterations).
    pub vector: u32,
    pub lanes: u32,
    /// Entering the vector path, once per run of the loop.
    pub setup: u32,
    /// The latency of the loop's longest reduction chain, per iteration
    /// (0 without reductions).
    pub chain: u32,
    /// Copies of the body per vector-loop iteration (1, or 2 when
    /// interleaved).
    pub unroll: u32,
    /// One iteration of the vector loop as made (`unroll * lanes` scalar
    /// iterations), latency included.
    pub unrolled: u32,
    /// The fewest iterations for which the vector path is taken (at least
    /// `unroll * lanes`; meaningless when the loop does not
    /// [`pay`](Self::pays)).
    pub min_trip: u64,
}

impl Estimate {
    /// Whether a vector iteration costs less than its scalar iterations.
    pub fn pays(&self) -> bool {
        self.vector < self.scalar * self.lanes
    }
}

/// The model's estimate for the loop of `p`, whose trip count is the
/// constant `trips` if known.
pub(super) fn estimate(func: &Function, p: &Plan, trips: Option<u64>) -> Estimate {
    let shape = |v: Value| p.shapes.get(&v).copied().unwrap_or(Shape::Uniform);
    let body = func.block_insts(p.body);
    let copied = p.header_extras.len() + body.len().saturating_sub(1);
    let insts = p
        .header_extras
        .iter()
        .chain(&body[..body.len().saturating_sub(1)]);
    // The counters' steps are the loops' own overhead, counted apart: the
    // vector loop has one more counter.
    let steps: HashSet<Value> = p
        .ivs
        .iter()
        .filter(|&&(v, step)| step != 0 && !p.reductions.contains_key(&v))
        .filter_map(|&(v, _)| func.block_params(p.header).iter().position(|&x| x == v))
        .filter_map(|k| back_edge_args(func, p).and_then(|a| a.get(k).copied()))
        .collect();
    let counters = steps.len() as u32;
    // The vector loop tests the loop's counter, or one of its own.
    let own = u32::from(p.own_counter(func).is_none());
    let (mut scalar, mut vector) = (LOOP + counters, LOOP + counters + own);
    // Each reduction: its vector's start, and its lanes combined after.
    let mut setup = SETUP
        + PER_CHECK * p.checks.len() as u32
        + PER_WRAP * p.wraps.len() as u32
        + (2 + p.lanes) * p.reductions.len() as u32;
    let mut splatted: HashSet<Value> = HashSet::new();
    for &i in insts {
        if func.result(i).is_some_and(|r| steps.contains(&r)) {
            continue;
        }
        let kind = func.inst(i);
        let ty = func
            .result(i)
            .map(|r| func.value_type(r))
            .or_else(|| match kind {
                InstKind::Store { value, .. } => Some(func.value_type(*value)),
                _ => None,
            })
            .unwrap_or(Type::I64);
        let s = scalar_cost(func, kind, ty);
        let sh = match (kind, func.result(i)) {
            (InstKind::Store { .. }, _) => Shape::Varying,
            (_, Some(r)) => shape(r),
            (_, None) => Shape::Uniform,
        };
        match sh {
            Shape::Uniform => {
                scalar += s;
                setup += s.min(1);
            }
            Shape::Affine(_) => {
                scalar += s;
                vector += s;
            }
            Shape::Varying => {
                scalar += s;
                vector += vector_cost(kind, ty, p.vector);
                // Uniform operands are splatted once, before the loop.
                for o in kind.operands() {
                    if shape(o) == Shape::Uniform && splatted.insert(o) {
                        setup += 1;
                    }
                }
            }
        }
    }
    let chain = p
        .reductions
        .values()
        .map(|&(red, _)| chain_latency(red))
        .max()
        .unwrap_or(0);
    let mut e = Estimate {
        scalar,
        vector,
        lanes: p.lanes,
        setup,
        chain,
        unroll: 1,
        unrolled: vector.max(chain),
        min_trip: u64::MAX,
    };
    if !e.pays() {
        return e;
    }
    // Interleaving: the vector loop's overhead is its test and branch and
    // its counters' steps.
    let overhead = LOOP + counters + own;
    let interleaved = (2 * vector - overhead).max(chain);
    let saving = 2 * vector.max(chain) - interleaved;
    // The scalar loop waits for its reductions' chains too.
    let per_scalar = u64::from(scalar.max(chain));
    let w = u64::from(p.lanes);
    let long = |n: u64| n.saturating_mul(u64::from(saving)) >= w * w * per_scalar;
    // A loop that counts down keeps one copy: its copies would run the
    // lanes' addresses the other way (see `rewrite`).
    if saving > 0 && !p.descending && copied <= MAX_INTERLEAVED && trips.is_none_or(long) {
        e.unroll = 2;
        e.unrolled = interleaved;
        // Each reduction's second accumulator: its start and one more
        // combination.
        e.setup += 2 * p.reductions.len() as u32;
    }
    // `n` iterations cost `n S` scalar, `C + n U / (u W)` in vectors.
    let lanes = u64::from(e.unroll) * w;
    let (total, one) = (lanes * per_scalar, u64::from(e.unrolled));
    e.min_trip = match total.checked_sub(one) {
        Some(saving) if saving > 0 => (u64::from(e.setup) * lanes / saving + 1).max(lanes),
        _ => u64::MAX,
    };
    e
}

/// The latency, in rough cycles, of one step of a reduction's chain: the
/// time from one iteration's value to the next's.
fn chain_latency(red: Reduction) -> u32 {
    match red {
        Reduction::Op(BinaryOp::Fadd | BinaryOp::Fsub | BinaryOp::Fmul) => 4,
        Reduction::Op(BinaryOp::Imul) => 3,
        Reduction::Op(_) => 1,
        // A compare and a blend.
        Reduction::MinMax { float: true, .. } => 4,
        Reduction::MinMax { .. } => 2,
    }
}

/// The arguments the loop's back edge passes to the header.
fn back_edge_args<'f>(func: &'f Function, p: &Plan) -> Option<&'f [Value]> {
    let latch = *func.block_insts(p.body).last()?;
    match func.inst(latch) {
        InstKind::Jump(back) => Some(&back.args),
        _ => None,
    }
}

/// One scalar instruction's cost. Address arithmetic that x86's
/// addressing modes absorb (`base + index * 1, 2, 4 or 8`) and
/// truncations (a narrower view of a register) cost nothing.
fn scalar_cost(func: &Function, kind: &InstKind, ty: Type) -> u32 {
    match kind {
        InstKind::Iconst(_) | InstKind::Fconst(_) => 0,
        InstKind::PtrAdd(..) | InstKind::Cast(CastOp::Trunc, _) => 0,
        InstKind::Binary(BinaryOp::Shl, _, b) if func.const_int(*b).is_some_and(|c| c <= 3) => 0,
        InstKind::Binary(BinaryOp::Fdiv, ..) => 4,
        InstKind::Select(..) if ty.is_float() => 2,
        InstKind::Intrinsic { op, .. } if op.is_lanewise() => 4,
        _ => 1,
    }
}

/// One vector instruction's cost, on vectors of type `vt`.
fn vector_cost(kind: &InstKind, ty: Type, vt: Type) -> u32 {
    let wide_ints = vt.lanes() == 2 && !ty.is_float();
    match kind {
        InstKind::Binary(BinaryOp::Fdiv, ..) => 4,
        // pmulld is two micro-ops; 64-bit lanes need AVX-512's vpmullq or
        // a sequence of 32-bit multiplies.
        InstKind::Binary(BinaryOp::Imul, ..) => {
            if wide_ints {
                3
            } else {
                2
            }
        }
        // A blend.
        InstKind::Select(..) => 2,
        // x86 compares lanes as signed: an unsigned order flips sign bits
        // first.
        InstKind::Icmp(IntCC::Ult | IntCC::Ule | IntCC::Ugt | IntCC::Uge, ..) => 3,
        InstKind::Intrinsic {
            op: Intrinsic::Fmin | Intrinsic::Fmax,
            ..
        } => 4,
        _ => 1,
    }
}
