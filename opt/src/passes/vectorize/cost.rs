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
//!   per counter (the vector loop has one more).
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

use super::plan::{Plan, Shape};
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
    /// The fewest iterations for which the vector path is taken (at least
    /// `lanes`; meaningless when the loop does not [`pay`](Self::pays)).
    pub min_trip: u64,
}

impl Estimate {
    /// Whether a vector iteration costs less than its scalar iterations.
    pub fn pays(&self) -> bool {
        self.vector < self.scalar * self.lanes
    }
}

/// The model's estimate for the loop of `p`.
pub(super) fn estimate(func: &Function, p: &Plan) -> Estimate {
    let shape = |v: Value| p.shapes.get(&v).copied().unwrap_or(Shape::Uniform);
    let body = func.block_insts(p.body);
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
    let (mut scalar, mut vector) = (LOOP + counters, LOOP + counters + 1);
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
    let mut e = Estimate {
        scalar,
        vector,
        lanes: p.lanes,
        setup,
        min_trip: u64::MAX,
    };
    if e.pays() {
        let (w, saving) = (u64::from(p.lanes), u64::from(scalar * p.lanes - vector));
        e.min_trip = (u64::from(setup) * w / saving + 1).max(w);
    }
    e
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
