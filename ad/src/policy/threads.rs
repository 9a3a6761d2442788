//! Kernel threads' accumulation: in the body of kernel launches on 1-D
//! grids, the shadow bytes only one thread updates (its own element of a
//! `restrict` parameter) and the band of threads around its own that may
//! update the same bytes.

use crate::activity::Root;
use crate::plan::Plan;
use parc_ir::{Activity, BinaryOp, CastOp, InstKind, Intrinsic, Type, Value, ValueDef};
use std::collections::HashMap;

/// The threads of a 1-D launch whose reverse updates shadows in a band
/// around each thread's own element (see [`thread_band`]). Where a
/// block's threads run one at a time, the reverse is one launch whose
/// updates are plain adds except near the block's edges
/// (`Gen::banded_update`); where they run concurrently, it is `phases`
/// launches, each for the threads `gid ≡ phase (mod phases)`, and every
/// update is a plain add.
#[derive(Clone, Debug)]
pub struct ThreadBand {
    pub phases: u64,
    /// Per parameter, the band of its shadow that a thread touches.
    pub bands: HashMap<u32, Band>,
}

/// Thread `gid` touches bytes `[stride·gid + lo, stride·gid + hi)` of a
/// parameter's shadow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Band {
    pub stride: i64,
    pub lo: i64,
    pub hi: i64,
}

impl Band {
    /// The threads `gid + d` that may touch the `size` bytes at
    /// `stride·gid + o` (an access of thread `gid`, so `lo ≤ o`,
    /// `o + size ≤ hi`): `d` from the first to the last returned.
    pub fn updaters(&self, o: i64, size: i64) -> (i64, i64) {
        // [stride·d + lo, stride·d + hi) meets [o, o + size).
        let meets = |d: i64| self.stride * d + self.lo < o + size && o < self.stride * d + self.hi;
        let reach = (self.hi - self.lo) / self.stride.abs() + 1;
        let first = (-reach..=0).find(|&d| meets(d)).unwrap_or(0);
        let last = (0..=reach).rev().find(|&d| meets(d)).unwrap_or(0);
        (first, last)
    }
}

/// True if the shadow bytes at `ptr` are updated by no other thread:
/// this function is the body of 1-D launches only, `ptr` is `base +
/// c·gid + k` with `gid = blockIdx.x·blockDim.x + threadIdx.x` (one to
/// one with the threads), `|c|` at least `size`, `k` the same for all
/// threads, `base` a `restrict` parameter (no other pointer reaches its
/// memory, nor its shadow's), and the function accesses that memory
/// only through `ptr` itplan.
pub fn thread_disjoint(plan: &Plan, ptr: Value, size: u32) -> bool {
    if !plan.one_d_body {
        return false;
    }
    let roots: Vec<Root> = plan.act.roots(ptr).collect();
    let [Root::Param(k)] = roots[..] else {
        return false;
    };
    if !plan.p.param_noalias(k as usize) {
        return false;
    }
    match thread_affine(plan, ptr, 0) {
        Some((c, cb)) if c == cb && c.unsigned_abs() >= u64::from(size) => {}
        _ => return false,
    }
    let rooted = |v: Value| {
        plan.p.value_type(v) == Type::Ptr && plan.act.roots(v).any(|r| r == Root::Param(k))
    };
    plan.p.placed_insts().all(|(_, i)| match plan.p.inst(i) {
        InstKind::Load(q) => *q == ptr || !rooted(*q),
        InstKind::Store { value, ptr: q } => (*q == ptr || !rooted(*q)) && !rooted(*value),
        // Addresses derived from the parameter: checked where used.
        InstKind::PtrAdd(..) | InstKind::Select(..) | InstKind::Jump(_) | InstKind::Brif { .. } => {
            true
        }
        other => {
            let mut ok = true;
            other.for_each_operand(|v| ok &= !rooted(v));
            ok
        }
    })
}

/// The band of threads within which the reverse of this kernel body
/// updates shadows near each thread's own element, and the parameters
/// whose shadows it updates so. In the body of 1-D launches without
/// barriers or calls, every access through a duplicated parameter is
/// at `p + c·gid + o` (`p` the parameter, `restrict`;
/// `gid = blockIdx.x·blockDim.x + threadIdx.x`; `c` one per parameter,
/// `o` a constant): thread `gid` touches bytes
/// `[c·gid + o_min, c·gid + o_max + size)` of its shadow, so threads
/// `w = ⌈(o_max + size − o_min) / |c|⌉` or more apart touch different
/// bytes. Only with `2 ≤ w ≤ MAX_PHASES` (a band of one is
/// [`thread_disjoint`]'s), and without barriers, which only part
/// of a block would reach. How the reverse keeps the updates apart
/// depends on the target (see [`ThreadBand`]).
pub fn thread_band(plan: &Plan) -> Option<ThreadBand> {
    const MAX_PHASES: u64 = 8;
    if !plan.one_d_body {
        return None;
    }
    let dup = |k: u32| {
        matches!(
            plan.acts.get(k as usize),
            Some(Activity::Dup | Activity::DupNoNeed)
        )
    };
    let params = |v: Value| -> Vec<u32> {
        if plan.p.value_type(v) != Type::Ptr {
            return Vec::new();
        }
        plan.act
            .roots(v)
            .filter_map(|r| match r {
                Root::Param(k) if dup(k) => Some(k),
                _ => None,
            })
            .collect()
    };
    let mut bands: HashMap<u32, Band> = HashMap::new();
    for (_, i) in plan.p.placed_insts() {
        let (q, ty) = match plan.p.inst(i) {
            InstKind::Intrinsic {
                op: Intrinsic::Barrier,
                ..
            }
            | InstKind::Call { .. }
            | InstKind::Launch { .. } => return None,
            InstKind::Load(q) => (*q, plan.p.value_type(plan.p.result(i)?)),
            InstKind::Store { value, ptr } => {
                if !params(*value).is_empty() {
                    return None;
                }
                (*ptr, plan.p.value_type(*value))
            }
            InstKind::PtrAdd(..)
            | InstKind::Select(..)
            | InstKind::Jump(_)
            | InstKind::Brif { .. } => continue,
            other => {
                let mut escapes = false;
                other.for_each_operand(|v| escapes |= !params(v).is_empty());
                if escapes {
                    return None;
                }
                continue;
            }
        };
        let ks = params(q);
        if ks.is_empty() {
            continue;
        }
        let (&[k], 1) = (&ks[..], plan.act.roots(q).count()) else {
            return None;
        };
        if !plan.p.param_noalias(k as usize) {
            return None;
        }
        let (ct, cb, o) = ptr_offset(plan, q, k, 0)?;
        if ct != cb || ct == 0 {
            return None;
        }
        let end = o.checked_add(i64::from(ty.bytes()))?;
        let band = bands.entry(k).or_insert(Band {
            stride: ct,
            lo: o,
            hi: end,
        });
        if band.stride != ct {
            return None;
        }
        band.lo = band.lo.min(o);
        band.hi = band.hi.max(end);
    }
    let phases = bands
        .values()
        .map(|b| {
            (b.hi - b.lo)
                .unsigned_abs()
                .div_ceil(b.stride.unsigned_abs())
        })
        .max()
        .unwrap_or(1);
    (2..=MAX_PHASES)
        .contains(&phases)
        .then_some(ThreadBand { phases, bands })
}

/// The band `ptr` is in, if it is in one (see [`thread_band`]).
pub fn in_thread_band(plan: &Plan, ptr: Value) -> Option<(u32, Band)> {
    let band = plan.thread_band.as_ref()?;
    let roots: Vec<Root> = plan.act.roots(ptr).collect();
    match roots[..] {
        [Root::Param(k)] => band.bands.get(&k).map(|b| (k, *b)),
        _ => None,
    }
}

/// Pointer `v` as parameter `k` plus `cT·threadIdx.x +
/// cB·(blockIdx.x·blockDim.x) + o` bytes: `(cT, cB, o)`.
pub fn ptr_offset(plan: &Plan, v: Value, k: u32, depth: u32) -> Option<(i64, i64, i64)> {
    if depth > 16 {
        return None;
    }
    match plan.p.value_def(v) {
        ValueDef::Param(b, n) => (b == plan.p.layout[0] && n == k).then_some((0, 0, 0)),
        ValueDef::Result(i) => match plan.p.inst(i) {
            InstKind::PtrAdd(a, off) => {
                let (t0, b0, o0) = ptr_offset(plan, *a, k, depth + 1)?;
                let (t1, b1, o1) = thread_terms(plan, *off, depth + 1)?;
                Some((
                    t0.checked_add(t1)?,
                    b0.checked_add(b1)?,
                    o0.checked_add(o1)?,
                ))
            }
            _ => None,
        },
    }
}

/// Integer `v` as `cT·threadIdx.x + cB·(blockIdx.x·blockDim.x) + o`
/// with `o` a constant: `(cT, cB, o)`.
fn thread_terms(plan: &Plan, v: Value, depth: u32) -> Option<(i64, i64, i64)> {
    use parc_ir::Dim;
    if depth > 16 {
        return None;
    }
    let ValueDef::Result(i) = plan.p.value_def(v) else {
        return None;
    };
    let is = |v: Value, want: Intrinsic| {
        matches!(plan.p.value_def(v), ValueDef::Result(d)
            if matches!(plan.p.inst(d), InstKind::Intrinsic { op, .. } if *op == want))
    };
    let scale = |(t, b, o): (i64, i64, i64), c: i64| {
        Some((t.checked_mul(c)?, b.checked_mul(c)?, o.checked_mul(c)?))
    };
    let add = |(t0, b0, o0): (i64, i64, i64), (t1, b1, o1): (i64, i64, i64)| {
        Some((
            t0.checked_add(t1)?,
            b0.checked_add(b1)?,
            o0.checked_add(o1)?,
        ))
    };
    match plan.p.inst(i) {
        InstKind::Iconst(c) => Some((0, 0, *c)),
        InstKind::Intrinsic {
            op: Intrinsic::ThreadIdx(Dim::X),
            ..
        } => Some((1, 0, 0)),
        InstKind::Cast(CastOp::Sext | CastOp::Zext, x) => thread_terms(plan, *x, depth + 1),
        InstKind::Binary(BinaryOp::Imul, a, b) => {
            let (bx, bd) = (Intrinsic::BlockIdx(Dim::X), Intrinsic::BlockDim(Dim::X));
            if (is(*a, bx) && is(*b, bd)) || (is(*a, bd) && is(*b, bx)) {
                return Some((0, 1, 0));
            }
            if let Some(c) = plan.p.const_int(*b) {
                return scale(thread_terms(plan, *a, depth + 1)?, c);
            }
            let c = plan.p.const_int(*a)?;
            scale(thread_terms(plan, *b, depth + 1)?, c)
        }
        InstKind::Binary(BinaryOp::Shl, a, b) => {
            let c = plan.p.const_int(*b)?;
            if !(0..32).contains(&c) {
                return None;
            }
            scale(thread_terms(plan, *a, depth + 1)?, 1 << c)
        }
        InstKind::Binary(BinaryOp::Iadd, a, b) => add(
            thread_terms(plan, *a, depth + 1)?,
            thread_terms(plan, *b, depth + 1)?,
        ),
        InstKind::Binary(BinaryOp::Isub, a, b) => add(
            thread_terms(plan, *a, depth + 1)?,
            scale(thread_terms(plan, *b, depth + 1)?, -1)?,
        ),
        _ => None,
    }
}

/// `v` as `cT·threadIdx.x + cB·(blockIdx.x·blockDim.x) + k` with `k`
/// the same in every thread of a launch: `(cT, cB)`.
fn thread_affine(plan: &Plan, v: Value, depth: u32) -> Option<(i64, i64)> {
    if depth > 16 {
        return None;
    }
    let entry = plan.p.layout[0];
    let i = match plan.p.value_def(v) {
        ValueDef::Param(b, _) => return (b == entry).then_some((0, 0)),
        ValueDef::Result(i) => i,
    };
    let is = |v: Value, want: Intrinsic| {
        matches!(plan.p.value_def(v), ValueDef::Result(d)
            if matches!(plan.p.inst(d), InstKind::Intrinsic { op, .. } if *op == want))
    };
    use parc_ir::Dim;
    let scale = |(t, b): (i64, i64), c: i64| Some((t.checked_mul(c)?, b.checked_mul(c)?));
    match plan.p.inst(i) {
        InstKind::Iconst(_) => Some((0, 0)),
        InstKind::Intrinsic { op, .. } => match op {
            Intrinsic::ThreadIdx(Dim::X) => Some((1, 0)),
            Intrinsic::BlockDim(_) | Intrinsic::GridDim(_) => Some((0, 0)),
            _ => None,
        },
        InstKind::Cast(CastOp::Sext | CastOp::Zext, x) => thread_affine(plan, *x, depth + 1),
        InstKind::Binary(BinaryOp::Imul, a, b) => {
            let (bx, bd) = (Intrinsic::BlockIdx(Dim::X), Intrinsic::BlockDim(Dim::X));
            if (is(*a, bx) && is(*b, bd)) || (is(*a, bd) && is(*b, bx)) {
                return Some((0, 1));
            }
            if let Some(c) = plan.p.const_int(*b) {
                return scale(thread_affine(plan, *a, depth + 1)?, c);
            }
            if let Some(c) = plan.p.const_int(*a) {
                return scale(thread_affine(plan, *b, depth + 1)?, c);
            }
            let x = thread_affine(plan, *a, depth + 1)?;
            let y = thread_affine(plan, *b, depth + 1)?;
            (x == (0, 0) && y == (0, 0)).then_some((0, 0))
        }
        InstKind::Binary(BinaryOp::Shl, a, b) => {
            let c = plan.p.const_int(*b)?;
            if !(0..32).contains(&c) {
                return None;
            }
            scale(thread_affine(plan, *a, depth + 1)?, 1 << c)
        }
        InstKind::Binary(op @ (BinaryOp::Iadd | BinaryOp::Isub), a, b) => {
            let (x, y) = (
                thread_affine(plan, *a, depth + 1)?,
                thread_affine(plan, *b, depth + 1)?,
            );
            if *op == BinaryOp::Iadd {
                Some((x.0.checked_add(y.0)?, x.1.checked_add(y.1)?))
            } else {
                Some((x.0.checked_sub(y.0)?, x.1.checked_sub(y.1)?))
            }
        }
        InstKind::PtrAdd(a, b) => {
            let (x, y) = (
                thread_affine(plan, *a, depth + 1)?,
                thread_affine(plan, *b, depth + 1)?,
            );
            Some((x.0.checked_add(y.0)?, x.1.checked_add(y.1)?))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::Band;

    /// `Band::updaters` against a search over a wide range of threads:
    /// the plain-or-atomic test of a banded update (`Gen::banded_update`)
    /// is only as right as the first and last thread it names.
    #[test]
    fn band_updaters_are_exactly_the_threads_touching_the_bytes() {
        for stride in [-16i64, -8, 4, 8, 16, 24] {
            for lo in -40i64..=0 {
                for hi in lo + 1..=lo + 48 {
                    let band = Band { stride, lo, hi };
                    for size in [1i64, 4, 8] {
                        for o in lo..=hi - size {
                            let meets = |d: i64| stride * d + lo < o + size && o < stride * d + hi;
                            let touching: Vec<i64> = (-100..=100).filter(|&d| meets(d)).collect();
                            let want = (touching[0], touching[touching.len() - 1]);
                            assert_eq!(
                                band.updaters(o, size),
                                want,
                                "{band:?}, {size} bytes at {o}"
                            );
                        }
                    }
                }
            }
        }
    }
}
