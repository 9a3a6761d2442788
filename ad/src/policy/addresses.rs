//! Addresses in terms of a parallel loop's index, for the accumulation
//! policy: the coefficient of the index (`affine` in `parallel.rs`),
//! rows of a run-time stride, the [`Region`] an address ranges over, and
//! the band of iterations a region's updates stay within.

use crate::activity::{ActivityInfo, Root};
use crate::parallel::{PLoop, affine};
use parc_ir::analysis::FunctionAnalyses;
use parc_ir::{BinaryOp, Block, CastOp, Function, Inst, InstKind, IntCC, Value, ValueDef};

/// An address in terms of the loop index: `iv·k·sym + Σ j·c + invariant`
/// (bytes), `sym` a loop-invariant value (none: the coefficient is `k`),
/// each `j` an index of an inner loop.
#[derive(Clone, Debug, Default)]
struct Rows {
    k: i64,
    sym: Option<Value>,
    inner: Vec<(Value, i64)>,
}

impl Rows {
    fn scale(mut self, c: i64) -> Option<Rows> {
        self.k = self.k.checked_mul(c)?;
        for t in &mut self.inner {
            t.1 = t.1.checked_mul(c)?;
        }
        Some(self)
    }

    fn add(mut self, o: Rows, sign: i64) -> Option<Rows> {
        let ok = o.k == 0 || self.k == 0 || self.sym == o.sym;
        if !ok {
            return None;
        }
        if self.k == 0 {
            self.sym = o.sym;
        }
        self.k = self.k.checked_add(o.k.checked_mul(sign)?)?;
        for (j, c) in o.inner {
            self.inner.push((j, c.checked_mul(sign)?));
        }
        Some(self)
    }
}

/// `v` without sign and zero extensions (symbols compare by their source).
fn peel(p: &Function, mut v: Value) -> Value {
    while let ValueDef::Result(i) = p.value_def(v) {
        match p.inst(i) {
            InstKind::Cast(CastOp::Sext | CastOp::Zext, x) => v = *x,
            _ => break,
        }
    }
    v
}

fn defined_outside(p: &Function, l: &PLoop, v: Value) -> bool {
    match p.value_def(v) {
        ValueDef::Param(b, _) => !l.loop_blocks.contains(&b),
        ValueDef::Result(i) => !l.loop_blocks.iter().any(|b| p.block_insts(*b).contains(&i)),
    }
}

fn rows(p: &Function, l: &PLoop, v: Value, depth: u32) -> Option<Rows> {
    if v == l.iv {
        return Some(Rows {
            k: 1,
            ..Rows::default()
        });
    }
    if depth > 16 {
        return None;
    }
    if defined_outside(p, l, v) {
        return Some(Rows::default());
    }
    match p.value_def(v) {
        ValueDef::Param(b, _) if l.task_blocks.contains(&b) => Some(Rows {
            inner: vec![(v, 1)],
            ..Rows::default()
        }),
        ValueDef::Param(..) => None,
        ValueDef::Result(i) => match *p.inst(i) {
            InstKind::Iconst(_) => Some(Rows::default()),
            InstKind::Cast(CastOp::Sext | CastOp::Zext, x) => rows(p, l, x, depth + 1),
            InstKind::Binary(BinaryOp::Iadd, a, b) | InstKind::PtrAdd(a, b) => {
                rows(p, l, a, depth + 1)?.add(rows(p, l, b, depth + 1)?, 1)
            }
            InstKind::Binary(BinaryOp::Isub, a, b) => {
                rows(p, l, a, depth + 1)?.add(rows(p, l, b, depth + 1)?, -1)
            }
            InstKind::Binary(BinaryOp::Shl, a, b) => {
                let c = p.const_int(b)?;
                if !(0..32).contains(&c) {
                    return None;
                }
                rows(p, l, a, depth + 1)?.scale(1 << c)
            }
            InstKind::Binary(BinaryOp::Imul, a, b) => {
                for (x, y) in [(a, b), (b, a)] {
                    if let Some(c) = p.const_int(y) {
                        return rows(p, l, x, depth + 1)?.scale(c);
                    }
                }
                // index · invariant: the row stride.
                for (x, y) in [(a, b), (b, a)] {
                    if defined_outside(p, l, y) {
                        let r = rows(p, l, x, depth + 1)?;
                        if r.sym.is_none() && r.inner.is_empty() && r.k != 0 {
                            return Some(Rows {
                                sym: Some(peel(p, y)),
                                ..r
                            });
                        }
                    }
                }
                None
            }
            _ => None,
        },
    }
}

/// `v` itself, or what it forwards: the argument that the only
/// predecessor of the block whose parameter `v` is passes (as a block that
/// only splits an edge does).
fn forwarded(p: &Function, an: &FunctionAnalyses, mut v: Value) -> Value {
    for _ in 0..8 {
        let ValueDef::Param(b, n) = p.value_def(v) else {
            break;
        };
        let [pred] = an.cfg.preds(b) else { break };
        let Some(t) = p.terminator(*pred) else { break };
        let arg = match p.inst(t) {
            InstKind::Jump(d) if d.block == b => d.args.get(n as usize).copied(),
            InstKind::Brif {
                then_dest,
                else_dest,
                ..
            } if (then_dest.block == b) != (else_dest.block == b) => {
                let d = if then_dest.block == b {
                    then_dest
                } else {
                    else_dest
                };
                d.args.get(n as usize).copied()
            }
            _ => None,
        };
        match arg {
            Some(a) => v = a,
            None => break,
        }
    }
    v
}

/// True if `ptr` (accessed with `size` bytes in block `at`) is
/// `base + iv·k·B + j·c` with the inner index `j` in `[lo, B)`, `lo ≥ 0`,
/// and `size ≤ c ≤ k` (see the module doc).
pub(super) fn rows_disjoint(
    p: &Function,
    an: &FunctionAnalyses,
    l: &PLoop,
    ptr: Value,
    at: Block,
    size: u32,
) -> bool {
    let Some(r) = rows(p, l, ptr, 0) else {
        return false;
    };
    let (Some(sym), [(j, c)]) = (r.sym, &r.inner[..]) else {
        return false;
    };
    let (j, c) = (*j, *c);
    if r.k <= 0 || c < size as i64 || c > r.k {
        return false;
    }
    index_bound(p, an, l, j, at).is_some_and(|(_, bound)| peel(p, bound) == sym)
}

/// The source line (and `call` or `access`) of another access in `l`'s task whose adjoint update
/// may touch, from another iteration, the shadow bytes that `ptr` updates:
/// a call that may reach the same object (see [`overlapping_call`]), or a
/// load through a different pointer that may point into the same object and
/// is not the same address in every iteration (a reduction). Primal stores
/// need no check: a store and a load of one location in different
/// iterations would be a determinacy race in the primal program.
pub(super) fn conflicting_site(
    p: &Function,
    an: &FunctionAnalyses,
    act: &ActivityInfo,
    l: &PLoop,
    ptr: Value,
) -> Option<(u32, &'static str)> {
    if let Some(call) = overlapping_call(p, act, l, ptr) {
        return Some((p.locs[call].line, "call"));
    }
    overlapping_loads(p, act, l, ptr)
        .find(|&(b, _, q, q_size)| {
            // Updates through `q` go to per-worker copies (an array
            // reduction: combined after the loop) or stay in this
            // iteration's own stride. (An address not affine in the index
            // and not a row becomes atomic, and then an array reduction if
            // it has a region.)
            let array_reduced = affine(p, l, q, 0).is_none()
                && !rows_disjoint(p, an, l, q, b, q_size)
                && region(p, an, l, q, b, q_size).is_some();
            let apart = array_reduced || same_stride_apart(p, l, ptr, q);
            !apart && affine(p, l, q, 0) != Some(0)
        })
        .map(|(_, i, _, _)| (p.locs[i].line, "access"))
}

/// The first call of `l`'s task (of a function or an intrinsic) whose
/// reverse may update the shadow object `ptr`'s update touches: one with a
/// shadowed pointer argument whose roots and `ptr`'s share one (or either
/// side's are unknown), or a function's call at all when `ptr` may be a
/// global's (the callee reaches globals without arguments). A callee of
/// parallel code updates shadows atomically, and a plain add of another
/// iteration beside those atomic adds would lose some of them.
fn overlapping_call(p: &Function, act: &ActivityInfo, l: &PLoop, ptr: Value) -> Option<Inst> {
    let mine = RootsOf::new(act, ptr);
    let mine_global = mine.roots.iter().any(|r| matches!(r, Root::Global));
    task_insts(p, l).map(|(_, i)| i).find(|&i| {
        let (args, function) = match p.inst(i) {
            InstKind::Call { args, .. } => (args, true),
            InstKind::CallIndirect { args, .. } => (args, true),
            InstKind::Intrinsic { args, .. } => (args, false),
            _ => return false,
        };
        (function && mine_global)
            || args
                .iter()
                .any(|&a| act.is_shadowed(a) && mine.may_share(act, a))
    })
}

/// The roots of an updated address, to ask whether another pointer may
/// point into the same object: they share a root, or either side's roots
/// are unknown (a loaded pointer, an `inttoptr`, a call's result).
struct RootsOf {
    roots: Vec<Root>,
    vague: bool,
}

impl RootsOf {
    fn new(act: &ActivityInfo, ptr: Value) -> RootsOf {
        let roots: Vec<Root> = act.roots(ptr).collect();
        let vague = roots.iter().any(Self::is_vague);
        RootsOf { roots, vague }
    }

    fn is_vague(r: &Root) -> bool {
        matches!(r, Root::Unknown | Root::Loaded(_) | Root::Returned(_))
    }

    fn may_share(&self, act: &ActivityInfo, q: Value) -> bool {
        self.vague
            || act
                .roots(q)
                .any(|r| Self::is_vague(&r) || self.roots.contains(&r))
    }
}

/// The instructions of `l`'s task, block by block in block-number order
/// (so that a reason names the same site every time).
fn task_insts<'a>(p: &'a Function, l: &PLoop) -> impl Iterator<Item = (Block, Inst)> + 'a {
    let mut blocks: Vec<Block> = l.task_blocks.iter().copied().collect();
    blocks.sort();
    blocks
        .into_iter()
        .flat_map(move |b| p.block_insts(b).iter().map(move |&i| (b, i)))
}

/// The other float loads of `l`'s task whose adjoint updates may touch the
/// shadow object `ptr`'s update touches (their roots and `ptr`'s share one,
/// or either side's are unknown): `(block, load, address, size)`.
fn overlapping_loads<'a>(
    p: &'a Function,
    act: &'a ActivityInfo,
    l: &'a PLoop,
    ptr: Value,
) -> impl Iterator<Item = (Block, Inst, Value, u32)> + 'a {
    let mine = RootsOf::new(act, ptr);
    // In order: `conflicting_site` names the first load found in its reason.
    task_insts(p, l).filter_map(move |(b, i)| {
        let InstKind::Load(q) = *p.inst(i) else {
            return None;
        };
        let ty = p.value_type(p.result(i)?);
        if q == ptr || !ty.is_float() || !act.is_shadowed(q) {
            return None;
        }
        mine.may_share(act, q).then_some((b, i, q, ty.bytes()))
    })
}

/// The region of a *banded* update `d[ptr] += ..` (an access of `size`
/// bytes in block `at`) in the reverse of loop `l`, if it is one: `ptr`
/// has a [`Region`] with a term in the loop index (see [`band_term`]),
/// offsets that are not zero-extended, and every other float load of the
/// task that may read the same object (see `overlapping_loads`
/// overlap) is either the same address in every iteration (a per-worker
/// sum, combined after the loop) or has a band with the same base and
/// the same loop-index term — banded too, or disjoint (a plain add as
/// well): the band of the whole loop is the union of all of theirs, so
/// every plain add in the loop stays inside it. The task
/// must hold no call and no detach (their reverses may update the same
/// shadow atomically, or from tasks the chunk schedule does not order).
pub fn banded(
    p: &Function,
    an: &FunctionAnalyses,
    act: &ActivityInfo,
    l: &PLoop,
    ptr: Value,
    at: Block,
    size: u32,
) -> Option<Region> {
    let (mine, term) = band_of(p, an, l, ptr, at, size)?;
    let spawns_or_calls = l.task_blocks.iter().any(|&b| {
        p.block_insts(b)
            .iter()
            .any(|&i| matches!(p.inst(i), InstKind::Call { .. } | InstKind::Detach { .. }))
    });
    if spawns_or_calls {
        return None;
    }
    let all_fellows = overlapping_loads(p, act, l, ptr).all(|(b, _, q, q_size)| {
        affine(p, l, q, 0) == Some(0)
            || band_of(p, an, l, q, b, q_size)
                .is_some_and(|(r, t)| r.base == mine.base && same_term(&t, &term))
    });
    all_fellows.then_some(mine)
}

/// The region of `ptr` (accessed with `size` bytes in block `at`) and its
/// loop-index term, if the region could be a band: offsets not
/// zero-extended, and `narrow`.
pub fn band_of(
    p: &Function,
    an: &FunctionAnalyses,
    l: &PLoop,
    ptr: Value,
    at: Block,
    size: u32,
) -> Option<(Region, Term)> {
    let r = region(p, an, l, ptr, at, size)?;
    let term = band_term(&r, l)?;
    (r.narrowing != Narrowing::Unsigned && narrow(p, &r, &term)).then_some((r, term))
}

/// The loop-index term of `r` (`iv · k · sym`, `k ≠ 0`), if it has one.
pub fn band_term(r: &Region, l: &PLoop) -> Option<Term> {
    r.terms
        .iter()
        .find(|t| t.index == l.iv && t.k != 0)
        .copied()
}

/// True if region `r`'s band is a few iterations wide, judged by its
/// shape (the exact width is computed at run time): with `S` the loop
/// index term's symbol (`iv · k · S`), the spread of `r`'s address around
/// `iv · k · S` is at most `4|k|·S + 64|k|` bytes, counting an inner index
/// below `S` (or `S − c`) or a constant bound at its whole range, an invariant term
/// `±S` twice (sites may differ in its sign) and the constants twice.
/// Anything else — a column `x[j*n + i]` over the loop index `i`, an
/// offset by another run-time value — may be as wide as the loop, which
/// would run the reverse as a handful of chunks: those stay array
/// reductions, whose per-worker copies keep every iteration parallel.
fn narrow(p: &Function, r: &Region, iv: &Term) -> bool {
    let sym = iv.sym.map(|s| peel(p, s));
    let k = iv.k.unsigned_abs();
    let (mut per_sym, mut fixed) = (0u64, 2 * r.abs_offset.unsigned_abs());
    for t in &r.terms {
        if t.index == iv.index {
            continue;
        }
        let c = t.k.unsigned_abs();
        let of_sym = |v: Value| sym.is_some_and(|s| peel(p, v) == s);
        // `S`, or `S − c` with a constant `c ≥ 0`.
        let below_sym = |v: Value| {
            of_sym(v)
                || match p.value_def(peel(p, v)) {
                    ValueDef::Result(i) => match *p.inst(i) {
                        InstKind::Binary(BinaryOp::Isub, x, c) => {
                            of_sym(x) && p.const_int(c).is_some_and(|c| c >= 0)
                        }
                        InstKind::Binary(BinaryOp::Iadd, x, c) => {
                            of_sym(x) && p.const_int(c).is_some_and(|c| c <= 0)
                        }
                        _ => false,
                    },
                    ValueDef::Param(..) => false,
                }
        };
        match (t.lower, t.upper, t.sym) {
            // An invariant value: a point, `±S` at most.
            (Lower::Value(lo), Upper::AtMost(hi), None) if lo == hi && of_sym(lo) => {
                per_sym = per_sym.saturating_add(c.saturating_mul(2))
            }
            (Lower::Const(lo), Upper::Below(b), None) if below_sym(b) && lo >= 0 => {
                per_sym = per_sym.saturating_add(c)
            }
            (Lower::Const(lo), Upper::Below(b), None) => match p.const_int(b) {
                Some(b) if b > lo => {
                    fixed = fixed.saturating_add(c.saturating_mul((b - lo) as u64))
                }
                _ => return false,
            },
            _ => return false,
        }
    }
    per_sym <= k.saturating_mul(4) && fixed <= k.saturating_mul(64)
}

/// True if two loop-index terms are the same multiple of the index (band
/// groups share a base and a term).
pub fn same_term(a: &Term, b: &Term) -> bool {
    a.k == b.k && a.sym == b.sym
}

/// `(base, offset)` if `v` is `ptradd base, offset` with `base` invariant.
fn invariant_base(p: &Function, l: &PLoop, v: Value) -> Option<(Value, Value)> {
    let ValueDef::Result(i) = p.value_def(v) else {
        return None;
    };
    let InstKind::PtrAdd(base, off) = *p.inst(i) else {
        return None;
    };
    defined_outside(p, l, base).then_some((base, off))
}

/// `base + c·iv + o` with `base` invariant and constant `c`, `o`.
fn strided(p: &Function, l: &PLoop, v: Value) -> Option<(Value, i64, i64)> {
    let (base, off) = invariant_base(p, l, v)?;
    let mut w = Walk::default();
    offsets(p, l, off, (1, None), &mut w, 0)?;
    match w.terms[..] {
        [(iv, (c, None))] if iv == l.iv => Some((base, c, w.offset)),
        _ => None,
    }
}

/// True if `a` and `b` are `base + c·iv + o_a` and `base + c·iv + o_b`
/// with `|o_a − o_b| + 8 ≤ |c|·step`: within one iteration's stride, so
/// never the bytes of another iteration (8 bytes bound every access).
fn same_stride_apart(p: &Function, l: &PLoop, a: Value, b: Value) -> bool {
    let (Some((ba, ca, oa)), Some((bb, cb, ob))) = (strided(p, l, a), strided(p, l, b)) else {
        return false;
    };
    let step = p.const_int(l.step).filter(|s| *s > 0).unwrap_or(1);
    ba == bb
        && ca == cb
        && ca != 0
        && (oa - ob)
            .unsigned_abs()
            .checked_add(8)
            .is_some_and(|d| d <= ca.unsigned_abs().saturating_mul(step as u64))
}

/// An address that is the same set of addresses in every iteration of a
/// parallel loop: `base + offset + Σ c·j` with `base` invariant, constant
/// `offset`, each coefficient `c` a constant times at most one invariant
/// value, each `j` the index of a loop inside the task running over
/// `[lo, bound)` (`lo ≥ 0`, `bound` invariant, tested before the access).
/// Every iteration may update anywhere between `base + offset + Σ
/// min(0, c·(bound − 1))` and `base + offset + size + Σ max(0, c·(bound −
/// 1))`: per-worker copies of that region, combined after the loop, make
/// the updates plain adds (an array reduction).
///
/// The loop index itself may be a term (a stencil's neighbours `x[i*n + j ±
/// 1]`, `x[(i ± 1)*n + j]`): then the region is the union over all
/// iterations, and the copies still make every update a plain add.
#[derive(Clone, Debug)]
pub struct Region {
    pub base: Value,
    pub offset: i64,
    pub terms: Vec<Term>,
    /// The sum of the magnitudes of the offset's constant parts.
    pub abs_offset: i64,
    /// How the address computation narrows (see [`Narrowing`]).
    pub narrowing: Narrowing,
}

/// Whether the primal computes part of an offset in a narrower integer
/// that it then widens (`sext(i * n + j)` with `int` indices). Wrapping
/// arithmetic is exact modulo 2^bits, so a widened value is the true one
/// (which the region assumes) exactly when the true value fits the narrow
/// type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Narrowing {
    /// All in 64 bits: every address is the true one.
    #[default]
    None,
    /// Sign-extended from integers of (at least) this many bits: the
    /// addresses are the true ones if every partial sum fits in them, which
    /// a bound on the terms' and constants' magnitudes shows at run time.
    Signed(u32),
    /// Some part is zero-extended: not shown (a negative true value would
    /// widen to a large one).
    Unsigned,
}

/// `k · sym · index` (`k · index` without `sym`), `lower ≤ index ≤ upper`.
#[derive(Clone, Copy, Debug)]
pub struct Term {
    pub index: Value,
    pub k: i64,
    pub sym: Option<Value>,
    pub lower: Lower,
    pub upper: Upper,
    /// The index is of an unsigned loop (widen with zero extension).
    pub unsigned: bool,
}

#[derive(Clone, Copy, Debug)]
pub enum Lower {
    Const(i64),
    Value(Value),
}

#[derive(Clone, Copy, Debug)]
pub enum Upper {
    /// `index < bound`.
    Below(Value),
    /// `index ≤ bound`.
    AtMost(Value),
}

/// The region `ptr` (accessed with `size` bytes in block `at`) ranges
/// over, if it is one whose offsets are multiples of `size`.
pub fn region(
    p: &Function,
    an: &FunctionAnalyses,
    l: &PLoop,
    ptr: Value,
    at: Block,
    size: u32,
) -> Option<Region> {
    let (base, off) = invariant_base(p, l, ptr)?;
    let mut w = Walk::default();
    offsets(p, l, off, (1, None), &mut w, 0)?;
    let Walk {
        terms,
        offset,
        abs_offset,
        narrowing,
    } = w;
    if terms.is_empty() {
        return None;
    }
    let size = size as i64;
    if offset % size != 0 || terms.iter().any(|t| t.1.0 % size != 0) {
        return None;
    }
    let mut out = Vec::new();
    for (j, (k, sym)) in terms {
        let (lower, upper) = if defined_outside(p, l, j) {
            (Lower::Value(j), Upper::AtMost(j))
        } else if j == l.iv {
            let upper = if l.inclusive {
                Upper::AtMost(l.hi)
            } else {
                Upper::Below(l.hi)
            };
            (Lower::Value(l.lo), upper)
        } else {
            let (lo, bound) = index_bound(p, an, l, j, at)?;
            (Lower::Const(lo), Upper::Below(bound))
        };
        out.push(Term {
            index: j,
            k,
            sym,
            lower,
            upper,
            unsigned: j == l.iv && !l.signed,
        });
    }
    Some(Region {
        base,
        offset,
        terms: out,
        abs_offset,
        narrowing,
    })
}

type Scale = (i64, Option<Value>);

/// What [`offsets`] collects from an offset expression.
#[derive(Default)]
struct Walk {
    terms: Vec<(Value, Scale)>,
    /// The constant part.
    offset: i64,
    /// The sum of the constants' magnitudes.
    abs_offset: i64,
    narrowing: Narrowing,
}

/// Adds integer `v · scale` to `terms` and `offset`.
fn offsets(
    p: &Function,
    l: &PLoop,
    v: Value,
    scale: Scale,
    w: &mut Walk,
    depth: u32,
) -> Option<()> {
    if depth > 16 {
        return None;
    }
    if v == l.iv {
        if w.terms.iter().any(|t| t.0 == v) {
            return None;
        }
        w.terms.push((v, scale));
        return Some(());
    }
    if let Some(c) = p.const_int(v) {
        if scale.1.is_some() {
            return None;
        }
        let c = c.checked_mul(scale.0)?;
        w.offset = w.offset.checked_add(c)?;
        w.abs_offset = w.abs_offset.checked_add(c.checked_abs()?)?;
        return Some(());
    }
    let times = |c: i64| Some((scale.0.checked_mul(c)?, scale.1));
    let invariant = defined_outside(p, l, v);
    match p.value_def(v) {
        // An index of a loop inside the task, or an invariant (a term
        // whose range is the one value).
        ValueDef::Param(b, _) if l.task_blocks.contains(&b) || invariant => {
            if w.terms.iter().any(|t| t.0 == v) {
                return None;
            }
            w.terms.push((v, scale));
            Some(())
        }
        ValueDef::Param(..) => None,
        ValueDef::Result(_) if invariant && p.value_type(v).is_int() => {
            if w.terms.iter().any(|t| t.0 == v) {
                return None;
            }
            w.terms.push((v, scale));
            Some(())
        }
        ValueDef::Result(i) => match *p.inst(i) {
            InstKind::Cast(CastOp::Sext | CastOp::Zext, x) => {
                let bits = p.value_type(x).bits();
                w.narrowing = match (w.narrowing, p.inst(i)) {
                    (Narrowing::Unsigned, _) | (_, InstKind::Cast(CastOp::Zext, _)) => {
                        Narrowing::Unsigned
                    }
                    (Narrowing::Signed(b), _) => Narrowing::Signed(b.min(bits)),
                    (Narrowing::None, _) => Narrowing::Signed(bits),
                };
                offsets(p, l, x, scale, w, depth + 1)
            }
            InstKind::Binary(BinaryOp::Iadd, a, b) => {
                offsets(p, l, a, scale, w, depth + 1)?;
                offsets(p, l, b, scale, w, depth + 1)
            }
            InstKind::Binary(BinaryOp::Isub, a, b) => {
                offsets(p, l, a, scale, w, depth + 1)?;
                let neg = (scale.0.checked_neg()?, scale.1);
                offsets(p, l, b, neg, w, depth + 1)
            }
            InstKind::Binary(BinaryOp::Imul, a, b) => {
                for (x, y) in [(a, b), (b, a)] {
                    if let Some(c) = p.const_int(y) {
                        return offsets(p, l, x, times(c)?, w, depth + 1);
                    }
                }
                for (x, y) in [(a, b), (b, a)] {
                    if scale.1.is_none() && defined_outside(p, l, y) {
                        return offsets(p, l, x, (scale.0, Some(y)), w, depth + 1);
                    }
                }
                None
            }
            InstKind::Binary(BinaryOp::Shl, a, b) => {
                let c = p.const_int(b)?;
                if !(0..32).contains(&c) {
                    return None;
                }
                offsets(p, l, a, times(1 << c)?, w, depth + 1)
            }
            _ => None,
        },
    }
}

/// `lo ≥ 0` and the invariant `bound` with `lo ≤ j < bound` at block
/// `at` (`j` a block parameter that starts at constants and only grows,
/// and whose block tests `j < bound` on the way to `at`).
fn index_bound(
    p: &Function,
    an: &FunctionAnalyses,
    l: &PLoop,
    j: Value,
    at: Block,
) -> Option<(i64, Value)> {
    let mut lo = i64::MAX;
    let ValueDef::Param(h, n) = p.value_def(j) else {
        return None;
    };
    for &pred in an.cfg.preds(h) {
        let t = p.terminator(pred)?;
        let args: Vec<Value> = match p.inst(t) {
            InstKind::Jump(d) => vec![d.args[n as usize]],
            InstKind::Brif {
                then_dest,
                else_dest,
                ..
            } => [then_dest, else_dest]
                .iter()
                .filter(|d| d.block == h)
                .map(|d| d.args[n as usize])
                .collect(),
            _ => return None,
        };
        for a in args {
            let a = forwarded(p, an, a);
            let grows = match p.value_def(a) {
                ValueDef::Result(i) => match *p.inst(i) {
                    InstKind::Iconst(c) => {
                        lo = lo.min(c);
                        c >= 0
                    }
                    InstKind::Binary(BinaryOp::Iadd, x, y) => {
                        (x == j && p.const_int(y).is_some_and(|s| s > 0))
                            || (y == j && p.const_int(x).is_some_and(|s| s > 0))
                    }
                    _ => false,
                },
                _ => false,
            };
            if !grows {
                return None;
            }
        }
    }
    if lo == i64::MAX {
        return None;
    }
    let t = p.terminator(h)?;
    let InstKind::Brif {
        cond, then_dest, ..
    } = p.inst(t)
    else {
        return None;
    };
    let ValueDef::Result(ci) = p.value_def(*cond) else {
        return None;
    };
    let InstKind::Icmp(IntCC::Slt | IntCC::Ult, x, bound) = *p.inst(ci) else {
        return None;
    };
    (x == j
        && defined_outside(p, l, bound)
        && an.cfg.preds(then_dest.block) == [h]
        && an.domtree.dominates(then_dest.block, at))
    .then_some((lo, bound))
}
