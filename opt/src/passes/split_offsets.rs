//! `split-offsets`: moves a constant offset out of an address's index and
//! into a final `ptradd`, where the backend folds it into the memory
//! access's displacement (as LLVM's `separate-const-offset-from-gep`).
//! `a[j + 1]` over `double`s is `ptradd a, shl(iadd j, 1), 3`: the index
//! `j + 1` is computed, then scaled; as `ptradd (ptradd a, shl j, 3), 8`
//! it is the address `8(a, j, 8)`, and the scaled `j` is the one `a[j]`
//! and `a[j - 1]` use too (`gvn` merges them). Together with `iv-widen`,
//! which turns `sext(j + 1)` into `J + 1`, this gives a stencil's
//! neighbours their addresses for free.
//!
//! # The rewrite
//! `ptradd p, o` becomes `ptradd (ptradd p, o'), k` where
//! - `o = iadd x, c` (or `iadd c, x`, or `isub x, -c`): `o' = x`, `k = c`;
//! - `o = shl (iadd x, c), s`: `o' = shl x, s`, `k = c << s`;
//! - `o = imul (iadd x, c), m`: `o' = imul x, m`, `k = c * m`;
//!
//! with `c`, `s`, `m` constants and `k` a nonzero 32-bit displacement. All
//! of these are exact in wrapping 64-bit arithmetic (multiplication and
//! left shifts distribute over addition modulo 2^64). It applies only to a
//! `ptradd` whose every use is the address of a load or store, directly or
//! through more constant displacements (`s[j + 2].y`), which is where the
//! backend folds `k` and the scaling; elsewhere it would only trade one
//! addition for another.
//!
//! New instructions go right before the `ptradd` they replace (whose
//! operands dominate it), so nothing crosses a task boundary. Run
//! `instcombine` after it (it adds up chains of constant displacements),
//! `gvn` (the new `shl x, s` often exists already) and `adce` (the old
//! index may be dead). It runs in the final stage
//! ([`prepare_pipeline`](crate::prepare_pipeline)), after `iv-widen`
//! makes such offsets appear.
//!
//! Statistics: `split-offsets.split`.

use crate::HashMap;
use crate::PassContext;
use parc_ir::{BinaryOp, Function, Inst, InstKind, Module, Type, Value, ValueDef};

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let mut split = 0;
    let changed = crate::for_each_function(module, |f| {
        let n = run_function(f);
        split += n;
        n > 0
    });
    ctx.count("split-offsets.split", split);
    changed
}

/// What replaces `ptradd p, o`: `ptradd (ptradd p, index), k`, where
/// `index` is `x` itself or `op x, amount`.
struct Split {
    x: Value,
    scale: Option<(BinaryOp, Value)>,
    k: i64,
}

/// `x + c` with a constant `c`.
fn plus_constant(func: &Function, v: Value) -> Option<(Value, i64)> {
    let ValueDef::Result(i) = func.value_def(v) else {
        return None;
    };
    match *func.inst(i) {
        InstKind::Binary(BinaryOp::Iadd, x, c) if func.const_int(c).is_some() => {
            Some((x, func.const_int(c)?))
        }
        InstKind::Binary(BinaryOp::Iadd, c, x) if func.const_int(c).is_some() => {
            Some((x, func.const_int(c)?))
        }
        InstKind::Binary(BinaryOp::Isub, x, c) => Some((x, func.const_int(c)?.wrapping_neg())),
        _ => None,
    }
}

fn split_of(func: &Function, offset: Value) -> Option<Split> {
    if func.value_type(offset) != Type::I64 {
        return None;
    }
    let (x, scale, k) = match plus_constant(func, offset) {
        Some((x, c)) => (x, None, c),
        None => {
            let ValueDef::Result(i) = func.value_def(offset) else {
                return None;
            };
            let InstKind::Binary(op @ (BinaryOp::Shl | BinaryOp::Imul), inner, amount) =
                *func.inst(i)
            else {
                return None;
            };
            let a = func.const_int(amount)?;
            let (x, c) = plus_constant(func, inner)?;
            let k = match op {
                BinaryOp::Shl => c.wrapping_shl((a & 63) as u32),
                _ => c.wrapping_mul(a),
            };
            (x, Some((op, amount)), k)
        }
    };
    (k != 0 && i32::try_from(k).is_ok()).then_some(Split { x, scale, k })
}

/// The values used only as addresses of loads and stores, directly or
/// through `ptradd v, c` (a constant `c`) whose results are.
fn addresses_only(func: &Function) -> HashMap<Value, bool> {
    // `v` -> the results of the `ptradd v, c` it feeds, if every use of `v`
    // is an address or such a `ptradd`; `None` if some other use reads it.
    let mut uses: HashMap<Value, Option<Vec<Value>>> = HashMap::default();
    for (_, i) in func.placed_insts() {
        let kind = func.inst(i);
        let displaced = match *kind {
            InstKind::PtrAdd(p, c) if func.const_int(c).is_some() => Some(p),
            _ => None,
        };
        kind.for_each_operand(|v| {
            let entry = uses.entry(v).or_insert_with(|| Some(Vec::new()));
            let address = match kind {
                InstKind::Load(p) => *p == v,
                InstKind::Store { value, ptr } => *ptr == v && *value != v,
                _ => false,
            };
            if displaced == Some(v) {
                if let (Some(list), Some(r)) = (entry.as_mut(), func.result(i)) {
                    list.push(r);
                }
            } else if !address {
                *entry = None;
            }
        });
    }
    // Resolved in rounds: a value is an address only once everything it
    // is displaced into is (chains are short).
    let mut only: HashMap<Value, bool> = HashMap::default();
    let mut changed = true;
    while changed {
        changed = false;
        for (&v, next) in &uses {
            if only.contains_key(&v) {
                continue;
            }
            let verdict = match next {
                None => Some(false),
                Some(rs) if rs.iter().any(|r| only.get(r) == Some(&false)) => Some(false),
                Some(rs)
                    if rs
                        .iter()
                        .all(|r| only.get(r) == Some(&true) || !uses.contains_key(r)) =>
                {
                    Some(true)
                }
                Some(_) => None,
            };
            if let Some(b) = verdict {
                only.insert(v, b);
                changed = true;
            }
        }
    }
    only
}

/// Splits the addresses of `func`; returns how many.
pub fn run_function(func: &mut Function) -> u64 {
    let address_only = addresses_only(func);
    let candidates: Vec<(Inst, Value, Split)> = func
        .placed_insts()
        .filter_map(|(_, i)| {
            let InstKind::PtrAdd(p, o) = *func.inst(i) else {
                return None;
            };
            let r = func.result(i)?;
            if !address_only.get(&r).copied().unwrap_or(false) {
                return None;
            }
            Some((i, p, split_of(func, o)?))
        })
        .collect();
    let home: HashMap<Inst, parc_ir::Block> = func.placed_insts().map(|(b, i)| (i, b)).collect();
    let count = candidates.len() as u64;
    for (i, p, split) in candidates {
        let block = home[&i];
        let mut new = Vec::new();
        let index = match split.scale {
            None => split.x,
            Some((op, amount)) => {
                let s = func.make_inst(InstKind::Binary(op, split.x, amount), Some(Type::I64));
                new.push(s);
                func.result(s).expect("made with a result type")
            }
        };
        let base = func.make_inst(InstKind::PtrAdd(p, index), Some(Type::Ptr));
        new.push(base);
        let k = func.make_inst(InstKind::Iconst(split.k), Some(Type::I64));
        new.push(k);
        let (base, k) = (
            func.result(base).expect("made with a result type"),
            func.result(k).expect("made with a result type"),
        );
        *func.inst_mut(i) = InstKind::PtrAdd(base, k);
        let at = func.blocks[block]
            .insts
            .iter()
            .position(|&x| x == i)
            .expect("placed in its block");
        for (n, &inst) in new.iter().enumerate() {
            func.blocks[block].insts.insert(at + n, inst);
            func.locs[inst] = func.locs[i];
        }
    }
    count
}
