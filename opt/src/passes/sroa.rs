//! Scalar replacement of aggregates (`sroa`): splits a small struct or
//! array local into one local per field, so that `mem2reg` can promote the
//! fields.
//!
//! An `alloca` of at most [`MAX_SIZE`] bytes is split when every use of its
//! address is, directly or through a chain of `ptradd`s by constant offsets
//! (constant after folding, e.g. `imul (sext 2), 4`):
//! - a `load.T` or a `store` (as the address, never as the stored value) at
//!   a constant offset, or
//! - a `memset` of the whole object to byte 0 (a struct declaration's zero
//!   initialization), which becomes a store of zero to each field;
//!
//! and the accessed `(offset, type)` pairs are inside the object and do not
//! overlap unless equal. Each distinct pair becomes an `alloca` of the
//! type's size, at the original's position (so a slot at the top of a
//! task's first block stays per task); loads and stores address it
//! directly; the `ptradd`s and the original go. Bytes nobody accesses by
//! field are never read, so dropping them changes nothing, and every new
//! `alloca` is zero-filled as the original was.
//!
//! Refused (left alone): an address that escapes (a call, a `memcpy` — the
//! front end's struct copies — an address stored as a value, a variable
//! offset), an access out of bounds (it must still fault at run time),
//! overlapping accesses of different types (type punning), and objects
//! that are already a single scalar accessed directly (`mem2reg` handles
//! those as they are).
//!
//! Tapir: splitting only renames memory — each field is private exactly
//! where the original was — so it is valid wherever the accesses are;
//! whether a field may then become an SSA value is `mem2reg`'s decision
//! (every store in the slot's own task).
//!
//! Statistics: `sroa.split` (aggregates split), `sroa.fields` (the allocas
//! made for them).

use crate::PassContext;
use crate::fold::{Const, fold};
use parc_ir::{Block, Function, Inst, InstKind, Intrinsic, Module, Type, Value, ValueDef};
use std::collections::{HashMap, HashSet};

/// The largest object split, in bytes.
pub const MAX_SIZE: u32 = 64;

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let (mut split, mut fields) = (0, 0);
    let changed = crate::for_each_function(module, |f| {
        let (s, n) = run_function(f);
        split += s;
        fields += n;
        s > 0
    });
    ctx.count("sroa.split", split);
    ctx.count("sroa.fields", fields);
    changed
}

/// The constant `v` computes, folding pure instructions over constants
/// (a few levels deep: offsets are short expressions).
pub(crate) fn const_value(func: &Function, v: Value, depth: u32) -> Option<Const> {
    let ValueDef::Result(i) = func.value_def(v) else {
        return None;
    };
    let kind = func.inst(i);
    if kind.has_side_effects() && !matches!(kind, InstKind::Binary(..)) {
        return None;
    }
    let ty = func.value_type(v);
    if let Some(c) = Const::of_inst(kind, ty) {
        return Some(c);
    }
    if depth == 0 {
        return None;
    }
    if !matches!(
        kind,
        InstKind::Unary(..)
            | InstKind::Binary(..)
            | InstKind::Icmp(..)
            | InstKind::Fcmp(..)
            | InstKind::Cast(..)
            | InstKind::Select(..)
    ) {
        return None;
    }
    let mut args = Vec::new();
    for op in kind.operands() {
        args.push(const_value(func, op, depth - 1)?);
    }
    fold(kind, &args, ty)
}

/// How one aggregate is used.
#[derive(Default)]
struct Uses {
    /// Loads and stores with their offset and access type.
    accesses: Vec<(Inst, i64, Type)>,
    /// `ptradd`s on the way (removed after the split).
    ptradds: Vec<Inst>,
    /// Whole-object `memset`s to zero.
    memsets: Vec<Inst>,
}

/// The uses of the aggregate at `base` (of `size` bytes), or `None` if it
/// cannot be split.
fn collect_uses(
    func: &Function,
    users: &HashMap<Value, Vec<Inst>>,
    base: Value,
    size: u32,
) -> Option<Uses> {
    let mut uses = Uses::default();
    let mut work: Vec<(Value, i64)> = vec![(base, 0)];
    while let Some((p, off)) = work.pop() {
        for &u in users.get(&p).map_or(&[][..], |v| &v[..]) {
            match *func.inst(u) {
                InstKind::Load(_) => {
                    let ty = func.value_type(func.result(u)?);
                    uses.accesses.push((u, off, ty));
                }
                InstKind::Store { value, ptr } if ptr == p && value != p => {
                    uses.accesses.push((u, off, func.value_type(value)));
                }
                InstKind::PtrAdd(b, o) if b == p && o != p => {
                    let c = const_value(func, o, 4)?.as_i64();
                    let r = func.result(u)?;
                    uses.ptradds.push(u);
                    work.push((r, off.checked_add(c)?));
                }
                InstKind::Intrinsic {
                    op: Intrinsic::Memset,
                    ref args,
                } if p == base && args[0] == p && args[1] != p && args[2] != p => {
                    let byte = const_value(func, args[1], 4)?;
                    let len = const_value(func, args[2], 4)?;
                    if !byte.is_zero() || len.as_i64() != size as i64 {
                        return None;
                    }
                    uses.memsets.push(u);
                }
                _ => return None,
            }
        }
    }
    Some(uses)
}

/// The fields of an aggregate: distinct, in bounds and non-overlapping
/// `(offset, type)` pairs, sorted by offset.
fn fields(uses: &Uses, size: u32) -> Option<Vec<(i64, Type)>> {
    let mut fields: Vec<(i64, Type)> = uses.accesses.iter().map(|&(_, o, t)| (o, t)).collect();
    fields.sort_by_key(|&(o, t)| (o, t.bytes(), t.name()));
    fields.dedup();
    for &(o, t) in &fields {
        if o < 0 || o + t.bytes() as i64 > size as i64 {
            return None;
        }
    }
    for w in fields.windows(2) {
        let ((o1, t1), (o2, _)) = (w[0], w[1]);
        if o1 + t1.bytes() as i64 > o2 {
            return None;
        }
    }
    Some(fields)
}

/// Splits what can be split in `func`; returns (aggregates, fields).
fn run_function(func: &mut Function) -> (u64, u64) {
    let mut users: HashMap<Value, Vec<Inst>> = HashMap::new();
    let mut allocas: Vec<(Inst, Value, u32)> = Vec::new();
    for (_, i) in func.placed_insts() {
        let kind = func.inst(i);
        kind.for_each_operand(|v| {
            let list = users.entry(v).or_default();
            if list.last() != Some(&i) {
                list.push(i);
            }
        });
        if let InstKind::Alloca { size, .. } = *kind
            && size <= MAX_SIZE
            && let Some(r) = func.result(i)
        {
            allocas.push((i, r, size));
        }
    }

    // Edits, applied in one sweep at the end: instructions to drop, and
    // new instructions to put in place of an old one.
    let mut remove: HashSet<Inst> = HashSet::new();
    let mut replace: HashMap<Inst, Vec<Inst>> = HashMap::new();
    let (mut split, mut made) = (0, 0);
    for (alloca, base, size) in allocas {
        let Some(uses) = collect_uses(func, &users, base, size) else {
            continue;
        };
        let Some(fields) = fields(&uses, size) else {
            continue;
        };
        // One scalar at offset 0, no ptradd, no memset: mem2reg's already.
        if fields.len() <= 1 && uses.ptradds.is_empty() && uses.memsets.is_empty() {
            continue;
        }
        let loc = func.locs[alloca];
        let mut field_ptr: HashMap<(i64, Type), Value> = HashMap::new();
        let mut new_allocas = Vec::new();
        for &(o, t) in &fields {
            let a = func.make_inst(
                InstKind::Alloca {
                    size: t.bytes(),
                    align: t.bytes(),
                },
                Some(Type::Ptr),
            );
            func.locs[a] = loc;
            new_allocas.push(a);
            field_ptr.insert((o, t), func.result(a).expect("an alloca has a result"));
        }
        replace.insert(alloca, new_allocas);
        for &(u, o, t) in &uses.accesses {
            let np = field_ptr[&(o, t)];
            match func.inst_mut(u) {
                InstKind::Load(p) => *p = np,
                InstKind::Store { ptr, .. } => *ptr = np,
                _ => unreachable!("accesses are loads and stores"),
            }
        }
        for &m in &uses.memsets {
            let mloc = func.locs[m];
            let mut seq = Vec::new();
            for &(o, t) in &fields {
                let z = func.make_inst(Const::zero(t).to_inst(), Some(t));
                let zv = func.result(z).expect("a constant has a result");
                let s = func.make_inst(
                    InstKind::Store {
                        value: zv,
                        ptr: field_ptr[&(o, t)],
                    },
                    None,
                );
                func.locs[z] = mloc;
                func.locs[s] = mloc;
                seq.extend([z, s]);
            }
            replace.insert(m, seq);
        }
        remove.extend(uses.ptradds.iter().copied());
        split += 1;
        made += fields.len() as u64;
    }
    if split == 0 {
        return (0, 0);
    }
    let layout: Vec<Block> = func.layout.clone();
    for b in layout {
        let old = std::mem::take(&mut func.blocks[b].insts);
        let mut new = Vec::with_capacity(old.len());
        for i in old {
            if let Some(seq) = replace.get(&i) {
                new.extend(seq.iter().copied());
            } else if !remove.contains(&i) {
                new.push(i);
            }
        }
        func.blocks[b].insts = new;
    }
    (split, made)
}
