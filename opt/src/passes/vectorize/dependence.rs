//! Dependences between the body's memory accesses. Addresses are linear
//! forms over atoms; accesses whose forms differ by a constant form a
//! group, whose dependences are decided here and now; between groups a
//! [`Check`] tests at run time that the bytes they touch do not overlap
//! (see the pass's module doc, "Dependences").

use parc_ir::{BinaryOp, CastOp, Function, Inst, InstKind, Type, Value, ValueDef};
use std::collections::BTreeMap;

/// An address as a linear form: `sum(coef * atom) + konst`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Linear {
    pub(super) terms: BTreeMap<Value, i64>,
    pub(super) konst: i64,
}

/// One memory access of the body.
#[derive(Clone, Debug)]
pub(super) struct Access {
    pub(super) inst: Inst,
    /// Position in the body.
    pub(super) order: usize,
    pub(super) store: bool,
    /// Whether it moves on by `size` bytes per iteration (else it touches
    /// the same element in every iteration: a load of a loop invariant).
    pub(super) moves: bool,
    pub(super) addr: Value,
    pub(super) size: i64,
    pub(super) form: Linear,
}

/// A run-time test: the bytes group `a` (which stores) and group `b`
/// touch must not overlap.
#[derive(Clone, Debug)]
pub(super) struct Check {
    pub(super) a: Extent,
    pub(super) b: Extent,
}

/// The bytes a group touches: from the address of its access with the
/// lowest constant offset to that of the one with the highest, plus the
/// vector loop's whole span if the group moves, else that access's size.
#[derive(Clone, Copy, Debug)]
pub(super) struct Extent {
    pub(super) lo: Value,
    pub(super) hi: Value,
    /// `None`: the group moves (the span is added); else the bytes after `hi`.
    pub(super) fixed: Option<i64>,
}

/// The run-time overlap tests `accesses` need in a loop of `lanes` lanes,
/// and the accesses' common size (the byte stride of the tests); or why
/// the loop cannot be vectorized.
pub(super) fn overlap_checks(
    func: &Function,
    in_loop: &dyn Fn(Value) -> bool,
    accesses: &[Access],
    lanes: u32,
    descending: bool,
) -> Result<(i64, Vec<Check>), &'static str> {
    let mut moving = accesses.iter().filter(|a| a.moves);
    let stride = moving.next().ok_or("no-memory")?.size;
    if moving.any(|a| a.size != stride) {
        return Err("mixed-widths");
    }
    let mut groups: Vec<Vec<&Access>> = Vec::new();
    for a in accesses {
        match groups.iter_mut().find(|g| g[0].form.terms == a.form.terms) {
            Some(g) => g.push(a),
            None => groups.push(vec![a]),
        }
    }
    let span = i64::from(lanes) * stride;
    for g in &groups {
        // An invariant element and a moving store have different atoms
        // (the counter), so never share a group; refused if they ever do.
        if g.iter().any(|a| a.store) && g.iter().any(|a| !a.moves) {
            return Err("dependence");
        }
        for x in g.iter().filter(|x| x.store) {
            for y in g.iter().filter(|y| y.inst != x.inst) {
                let d = y.form.konst.wrapping_sub(x.form.konst);
                // Ahead is up the addresses, or down where the loop
                // counts down.
                let ahead = if descending { d < 0 } else { d > 0 };
                let fine = d == 0
                    || d.checked_abs().is_some_and(|a| a >= span)
                    || (!y.store && ahead && y.order < x.order);
                if !fine {
                    return Err("dependence");
                }
            }
        }
    }
    let ends = |g: &[&Access]| {
        let lo = g.iter().min_by_key(|a| a.form.konst).expect("non-empty");
        let hi = g
            .iter()
            .max_by_key(|a| a.form.konst.saturating_add(a.size))
            .expect("non-empty");
        Extent {
            lo: lo.addr,
            hi: hi.addr,
            fixed: (!hi.moves).then_some(hi.size),
        }
    };
    let mut checks = Vec::new();
    for (k, g) in groups.iter().enumerate() {
        if !g.iter().any(|a| a.store) {
            continue;
        }
        for (j, h) in groups.iter().enumerate() {
            // Each pair once: a store group against every group after it,
            // and against the load-only groups before it.
            if j == k || (j < k && h.iter().any(|a| a.store)) {
                continue;
            }
            checks.push(Check {
                a: ends(g),
                b: ends(h),
            });
        }
    }
    // Each test's addresses are rebuilt before the loop from the
    // induction variables' initial values.
    for c in &checks {
        for v in [c.a.lo, c.a.hi, c.b.lo, c.b.hi] {
            if !rebuildable(func, in_loop, v) {
                return Err("check-address");
            }
        }
    }
    Ok((stride, checks))
}

/// The linear form of address `v`: through `iadd isub ptradd` and
/// `imul`/`shl` by constants on 64-bit values; anything else is an atom.
pub(super) fn linear(func: &Function, in_loop: &dyn Fn(Value) -> bool, v: Value) -> Linear {
    let atom = |v: Value| Linear {
        terms: BTreeMap::from([(v, 1)]),
        konst: 0,
    };
    if let Some(c) = func.const_int(v) {
        return Linear {
            terms: BTreeMap::new(),
            konst: c,
        };
    }
    let ValueDef::Result(i) = func.value_def(v) else {
        return atom(v);
    };
    if !in_loop(v) || !matches!(func.value_type(v), Type::I64 | Type::Ptr) {
        return atom(v);
    }
    let scaled = |l: Linear, k: i64| Linear {
        terms: l
            .terms
            .into_iter()
            .map(|(a, c)| (a, c.wrapping_mul(k)))
            .filter(|&(_, c)| c != 0)
            .collect(),
        konst: l.konst.wrapping_mul(k),
    };
    let sum = |x: Linear, y: Linear, sign: i64| {
        let mut terms = x.terms;
        for (a, c) in y.terms {
            let e = terms.entry(a).or_insert(0);
            *e = e.wrapping_add(c.wrapping_mul(sign));
        }
        terms.retain(|_, c| *c != 0);
        Linear {
            terms,
            konst: x.konst.wrapping_add(y.konst.wrapping_mul(sign)),
        }
    };
    match *func.inst(i) {
        InstKind::Binary(BinaryOp::Iadd, a, b) | InstKind::PtrAdd(a, b) => {
            sum(linear(func, in_loop, a), linear(func, in_loop, b), 1)
        }
        InstKind::Binary(BinaryOp::Isub, a, b) => {
            sum(linear(func, in_loop, a), linear(func, in_loop, b), -1)
        }
        InstKind::Binary(BinaryOp::Imul, a, b) => match (func.const_int(a), func.const_int(b)) {
            (_, Some(k)) => scaled(linear(func, in_loop, a), k),
            (Some(k), _) => scaled(linear(func, in_loop, b), k),
            _ => atom(v),
        },
        InstKind::Binary(BinaryOp::Shl, a, b) => match func.const_int(b) {
            Some(k) if (0..63).contains(&k) => scaled(linear(func, in_loop, a), 1 << k),
            _ => atom(v),
        },
        // The same 64 bits as a pointer or an integer.
        InstKind::Cast(CastOp::PtrToInt | CastOp::IntToPtr, a)
            if matches!(func.value_type(a), Type::I64 | Type::Ptr) =>
        {
            linear(func, in_loop, a)
        }
        _ => atom(v),
    }
}

/// Whether `v` can be computed before the loop for its first iteration:
/// pure scalar instructions of the loop over values from outside it and
/// the header's parameters.
pub(super) fn rebuildable(func: &Function, in_loop: &dyn Fn(Value) -> bool, v: Value) -> bool {
    if !in_loop(v) {
        return true;
    }
    match func.value_def(v) {
        ValueDef::Param(..) => true,
        ValueDef::Result(i) => {
            let k = func.inst(i);
            !k.has_side_effects()
                && !k.may_read_memory()
                && !matches!(k, InstKind::Alloca { .. })
                && k.operands().iter().all(|&o| rebuildable(func, in_loop, o))
        }
    }
}
