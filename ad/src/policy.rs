//! The race-aware accumulation policy: how an adjoint update `d[p] += v` in
//! the reverse of a parallel loop's task is made safe, most to least
//! efficient (see the crate doc):
//!
//! - *local*: `p` is task-private (an `alloca` of the task) — plain add;
//! - *disjoint*: `p = base + c·iv + invariant` with `|c|·step` at least the
//!   access size, in a loop not nested in another parallel loop, and no
//!   other load of the task through a different pointer into possibly the
//!   same object updates per-iteration addresses — plain add (iterations
//!   touch different bytes, and nobody else touches them during the loop;
//!   another site's *reduction* goes to per-worker slots combined after the
//!   sync, so it does not conflict);
//!   Also disjoint: `p = base + iv·(k·B) + j·c` where `B` is a loop-invariant
//!   value, `j` the index of a loop inside the task that runs over `[lo, B)`
//!   (`lo ≥ 0`, tested `j < B` before the access) and `size ≤ c ≤ k`: each
//!   iteration stays inside its own `k·B` bytes (row-major rows, as in
//!   `c[i*n + j]` with `0 ≤ j < n`);
//! - *reduction*: `p` is the same in every iteration — per-worker partial
//!   sums, combined after the reverse loop's sync;
//! - *atomic*: anything else — `atomic_add`.
//!
//! SSA adjoints of values defined outside the task are reductions; those of
//! values defined inside it live in task-private slots (local). Serial code
//! is never classified: it has no concurrent updates.

use crate::AccumulationClass;
use crate::activity::{ActivityInfo, Root};
use crate::parallel::{PLoop, affine};
use parc_ir::analysis::FunctionAnalyses;
use parc_ir::{BinaryOp, Block, CastOp, Function, InstKind, IntCC, Value, ValueDef};

/// The class of `d[p] += ...` (an access of `size` bytes) in the reverse
/// of loop `l`'s task, and the reason in words.
#[allow(clippy::too_many_arguments)]
pub fn classify(
    p: &Function,
    an: &FunctionAnalyses,
    act: &ActivityInfo,
    l: &PLoop,
    nested: bool,
    ptr: Value,
    at: Block,
    size: u32,
    name: &str,
) -> (AccumulationClass, String) {
    let private = act.roots(ptr).all(|r| match r {
        Root::Alloca(i) => l.task_blocks.iter().any(|b| p.block_insts(*b).contains(&i)),
        _ => false,
    }) && act.roots(ptr).next().is_some();
    if private {
        return (
            AccumulationClass::Local,
            format!("`d_{name}`: memory private to the task"),
        );
    }
    match affine(p, l, ptr, 0) {
        Some(0) => (
            AccumulationClass::Reduction,
            format!("`d_{name}`: the same address in every iteration"),
        ),
        Some(c) => {
            let step = match p.value_def(l.step) {
                ValueDef::Result(i) => match p.inst(i) {
                    InstKind::Iconst(s) if *s > 0 => *s,
                    _ => 1,
                },
                _ => 1,
            };
            let stride = c.unsigned_abs().saturating_mul(step as u64);
            if nested {
                (
                    AccumulationClass::Atomic,
                    format!(
                        "`d_{name}`: affine in the loop index, but the loop is nested in another parallel loop"
                    ),
                )
            } else if stride >= size as u64 {
                match conflicting_site(p, act, l, ptr) {
                    Some(line) => (
                        AccumulationClass::Atomic,
                        format!(
                            "`d_{name}`: affine in the loop index, but the access at line {line} may update the same shadow from other iterations"
                        ),
                    ),
                    None => (
                        AccumulationClass::Disjoint,
                        format!(
                            "`d_{name}`: address affine in the loop index (stride {stride} bytes)"
                        ),
                    ),
                }
            } else {
                (
                    AccumulationClass::Atomic,
                    format!("`d_{name}`: stride {stride} bytes is less than the access size"),
                )
            }
        }
        None if !nested
            && rows_disjoint(p, an, l, ptr, at, size)
            && conflicting_site(p, act, l, ptr).is_none() =>
        {
            (
                AccumulationClass::Disjoint,
                format!(
                    "`d_{name}`: each iteration stays in its own row (index · stride + an inner index below the row length)"
                ),
            )
        }
        None => (
            AccumulationClass::Atomic,
            format!("`d_{name}`: address not affine in the loop index"),
        ),
    }
}

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

fn konst(p: &Function, v: Value) -> Option<i64> {
    match p.value_def(v) {
        ValueDef::Result(i) => match p.inst(i) {
            InstKind::Iconst(c) => Some(*c),
            _ => None,
        },
        _ => None,
    }
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
                let c = konst(p, b)?;
                if !(0..32).contains(&c) {
                    return None;
                }
                rows(p, l, a, depth + 1)?.scale(1 << c)
            }
            InstKind::Binary(BinaryOp::Imul, a, b) => {
                for (x, y) in [(a, b), (b, a)] {
                    if let Some(c) = konst(p, y) {
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
fn rows_disjoint(
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
    let ValueDef::Param(h, n) = p.value_def(j) else {
        return false;
    };
    // `j` starts at a constant `lo ≥ 0` and only grows.
    for &pred in an.cfg.preds(h) {
        let Some(t) = p.terminator(pred) else {
            return false;
        };
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
            _ => return false,
        };
        for a in args {
            let a = forwarded(p, an, a);
            let grows = match p.value_def(a) {
                ValueDef::Result(i) => match *p.inst(i) {
                    InstKind::Iconst(lo) => lo >= 0,
                    InstKind::Binary(BinaryOp::Iadd, x, y) => {
                        (x == j && konst(p, y).is_some_and(|s| s > 0))
                            || (y == j && konst(p, x).is_some_and(|s| s > 0))
                    }
                    _ => false,
                },
                _ => false,
            };
            if !grows {
                return false;
            }
        }
    }
    // The header tests `j < B` and the access is on the true side.
    let Some(t) = p.terminator(h) else {
        return false;
    };
    let InstKind::Brif {
        cond, then_dest, ..
    } = p.inst(t)
    else {
        return false;
    };
    let ValueDef::Result(ci) = p.value_def(*cond) else {
        return false;
    };
    let InstKind::Icmp(IntCC::Slt | IntCC::Ult, x, bound) = *p.inst(ci) else {
        return false;
    };
    x == j
        && peel(p, bound) == sym
        && an.cfg.preds(then_dest.block) == [h]
        && an.domtree.dominates(then_dest.block, at)
}

/// The source line of another load in `l`'s task whose adjoint update may
/// touch, from another iteration, the shadow bytes that `ptr` updates: a
/// load through a different pointer that may point into the same object and
/// is not the same address in every iteration (a reduction). Primal stores
/// need no check: a store and a load of one location in different
/// iterations would be a determinacy race in the primal program.
fn conflicting_site(p: &Function, act: &ActivityInfo, l: &PLoop, ptr: Value) -> Option<u32> {
    let mine: Vec<Root> = act.roots(ptr).collect();
    let vague = |r: &Root| matches!(r, Root::Unknown | Root::Loaded(_));
    for &b in &l.task_blocks {
        for &i in p.block_insts(b) {
            let InstKind::Load(q) = *p.inst(i) else {
                continue;
            };
            let is_float = p.result(i).is_some_and(|r| p.value_type(r).is_float());
            if q == ptr || !is_float || !act.is_shadowed(q) {
                continue;
            }
            let theirs: Vec<Root> = act.roots(q).collect();
            let overlap =
                theirs.iter().any(|r| vague(r) || mine.contains(r)) || mine.iter().any(vague);
            if overlap && affine(p, l, q, 0) != Some(0) {
                return Some(p.locs[i].line);
            }
        }
    }
    None
}
