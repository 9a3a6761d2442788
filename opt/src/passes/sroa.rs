//! Scalar replacement of aggregates (`sroa`): splits a small struct or
//! array local into one local per field, so that `mem2reg` can promote the
//! fields.
//!
//! An `alloca` of at most [`MAX_SIZE`] bytes is a candidate when every use
//! of its address is, directly or through a chain of `ptradd`s by constant
//! offsets (constant after folding, e.g. `imul (sext 2), 4`):
//! - a `load.T` or a `store` (as the address, never as the stored value) at
//!   a constant offset,
//! - a `memset` of the whole object to byte 0 (a struct declaration's zero
//!   initialization), which becomes a store of zero to each field, or
//! - a `memcpy` of a constant length inside the object, to or from it (the
//!   front end's struct copies: assignment, arguments and results passed by
//!   value), which becomes one load and one store per field in the copied
//!   range.
//!
//! The fields of a candidate are its accessed `(offset, type)` pairs. A
//! copy between two candidates carries each one's fields in the copied
//! range over to the other (to a fixed point), so that both split alike
//! and the copy becomes field-to-field moves. A copy between a candidate
//! and other memory must move every byte of its range, so bytes there that
//! no field covers get integer fields of their own (`i64`, `i32` or `i8`
//! pieces, aligned within the object); otherwise bytes nobody accesses by
//! field are never read, so dropping them changes nothing. The fields must
//! then be inside the object, must not overlap unless equal, and no copy
//! may cut a field; a candidate that fails is left alone, and copies
//! between it and the others count as copies to other memory (so the
//! check repeats until every remaining candidate passes). Each field
//! becomes an `alloca` of the type's size, at the original's position (so
//! a slot at the top of a task's first block stays per task); loads and
//! stores address it directly; the `ptradd`s and the original go. Every
//! new `alloca` is zero-filled as the original was.
//!
//! Refused (left alone): an address that escapes (a call, an address stored
//! as a value, a variable offset, a copy of a variable length), an access
//! or copy out of bounds (it must still fault at run time), overlapping
//! accesses of different types (type punning), a copy within one object,
//! an `i1` field that a copy moves (a byte copy keeps any value, a
//! `load.i1` makes it 0 or 1), and objects that are already a single
//! scalar accessed directly (`mem2reg` handles those as they are).
//!
//! Tapir: splitting only renames memory — each field is private exactly
//! where the original was — and a copy to or from other memory touches the
//! same bytes at the same point, only piecewise, so it is valid wherever
//! the accesses are; whether a field may then become an SSA value is
//! `mem2reg`'s decision (every store in the slot's own task).
//!
//! Statistics: `sroa.split` (aggregates split), `sroa.fields` (the allocas
//! made for them), `sroa.copies` (memcpys turned into field moves).

use crate::PassContext;
use crate::fold::{Const, fold};
use crate::{HashMap, HashSet};
use parc_ir::{Block, Function, Inst, InstKind, Intrinsic, Module, Type, Value, ValueDef};

/// The largest object split, in bytes (at most 64: a candidate's covered
/// bytes are a `u64` mask).
pub const MAX_SIZE: u32 = 64;

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let mut stats = Stats::default();
    let changed = crate::for_each_function(module, |f| {
        let before = stats.split;
        run_function(f, &mut stats);
        stats.split > before
    });
    ctx.count("sroa.split", stats.split);
    ctx.count("sroa.fields", stats.fields);
    ctx.count("sroa.copies", stats.copies);
    changed
}

#[derive(Default)]
struct Stats {
    split: u64,
    fields: u64,
    copies: u64,
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

/// A `memcpy` that touches a candidate: the candidate's bytes
/// `off..off + len` are its destination (`dst`) or its source.
#[derive(Clone, Copy)]
struct Copy {
    inst: Inst,
    off: i64,
    len: i64,
    dst: bool,
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
    /// `memcpy`s to or from the object.
    copies: Vec<Copy>,
    /// Every pointer into the object (the base and the `ptradd` results)
    /// with its offset.
    ptrs: Vec<(Value, i64)>,
}

/// A small `alloca` whose uses allow a split.
struct Candidate {
    alloca: Inst,
    size: u32,
    uses: Uses,
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
        uses.ptrs.push((p, off));
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
                // A copy within the object itself (both operands `p`) is
                // refused here; one between two pointers into it is found
                // when the copies are matched up.
                InstKind::Intrinsic {
                    op: Intrinsic::Memcpy,
                    ref args,
                } if (args[0] == p) != (args[1] == p) && args[2] != p => {
                    let len = const_value(func, args[2], 4)?.as_i64();
                    if off < 0 || len < 0 || off.checked_add(len)? > size as i64 {
                        return None;
                    }
                    uses.copies.push(Copy {
                        inst: u,
                        off,
                        len,
                        dst: args[0] == p,
                    });
                }
                _ => return None,
            }
        }
    }
    Some(uses)
}

/// The operands (destination, source) of a `memcpy`.
fn copy_operands(func: &Function, inst: Inst) -> (Value, Value) {
    match func.inst(inst) {
        InstKind::Intrinsic {
            op: Intrinsic::Memcpy,
            args,
        } => (args[0], args[1]),
        _ => unreachable!("copies are memcpys"),
    }
}

/// Adds `(o, t)` to `fields` unless present; true if added.
fn add_field(fields: &mut Vec<(i64, Type)>, o: i64, t: Type) -> bool {
    if fields.contains(&(o, t)) {
        return false;
    }
    fields.push((o, t));
    true
}

/// The bytes of `0..64` that `fields` cover, as a mask (bytes outside are
/// ignored: such a field fails the bounds check anyway).
fn covered(fields: &[(i64, Type)]) -> u64 {
    let mut mask = 0u64;
    for &(o, t) in fields {
        for b in o..o + t.bytes() as i64 {
            if (0..64).contains(&b) {
                mask |= 1 << b;
            }
        }
    }
    mask
}

/// Integer fields for the bytes of `start..end` that no field covers:
/// the largest of `i64`, `i32`, `i8` that is aligned (within the object)
/// and fits the hole. True if any was added.
fn fill_gaps(fields: &mut Vec<(i64, Type)>, start: i64, end: i64) -> bool {
    let mask = covered(fields);
    let free = |from: i64, n: i64| (from..from + n).all(|b| b < 64 && mask & (1 << b) == 0);
    let mut added = false;
    let mut p = start;
    while p < end {
        if !free(p, 1) {
            p += 1;
            continue;
        }
        let (n, t) = [(8, Type::I64), (4, Type::I32), (1, Type::I8)]
            .into_iter()
            .find(|&(n, _)| p % n == 0 && p + n <= end && free(p, n))
            .expect("a free byte fits an i8");
        added |= add_field(fields, p, t);
        p += n;
    }
    added
}

/// The fields of every live candidate, to a fixed point: its own accesses,
/// those a copy from or to another live candidate carries over, and gap
/// fillers for copies to or from other memory. `owner` maps each pointer
/// into a live candidate to (candidate, offset).
fn gather_fields(
    func: &Function,
    cands: &[Candidate],
    alive: &[bool],
    owner: &HashMap<Value, (usize, i64)>,
) -> Vec<Vec<(i64, Type)>> {
    let mut fields: Vec<Vec<(i64, Type)>> = cands
        .iter()
        .map(|c| {
            let mut f: Vec<(i64, Type)> = Vec::new();
            for &(_, o, t) in &c.uses.accesses {
                add_field(&mut f, o, t);
            }
            f
        })
        .collect();
    loop {
        let mut changed = false;
        // Carry fields across copies between live candidates (each copy
        // is seen from its destination; fields go both ways).
        for (ci, c) in cands.iter().enumerate() {
            if !alive[ci] {
                continue;
            }
            for cp in c.uses.copies.iter().filter(|cp| cp.dst) {
                let (_, src) = copy_operands(func, cp.inst);
                let Some(&(si, soff)) = owner.get(&src) else {
                    continue;
                };
                if si == ci {
                    continue;
                }
                let in_range =
                    |o: i64, t: Type, at: i64| o >= at && o + t.bytes() as i64 <= at + cp.len;
                let from_src: Vec<_> = fields[si]
                    .iter()
                    .filter(|&&(o, t)| in_range(o, t, soff))
                    .map(|&(o, t)| (o - soff + cp.off, t))
                    .collect();
                let from_dst: Vec<_> = fields[ci]
                    .iter()
                    .filter(|&&(o, t)| in_range(o, t, cp.off))
                    .map(|&(o, t)| (o - cp.off + soff, t))
                    .collect();
                for (o, t) in from_src {
                    changed |= add_field(&mut fields[ci], o, t);
                }
                for (o, t) in from_dst {
                    changed |= add_field(&mut fields[si], o, t);
                }
            }
        }
        if changed {
            continue;
        }
        // Copies to or from other memory move every byte of their range.
        for (ci, c) in cands.iter().enumerate() {
            if !alive[ci] {
                continue;
            }
            for cp in &c.uses.copies {
                let (dst, src) = copy_operands(func, cp.inst);
                let other = if cp.dst { src } else { dst };
                if !owner.contains_key(&other) {
                    changed |= fill_gaps(&mut fields[ci], cp.off, cp.off + cp.len);
                }
            }
        }
        if !changed {
            return fields;
        }
    }
}

/// Whether candidate `ci` can be split into `fields`: fields in bounds,
/// not overlapping unless equal, no copy cuts a field or moves an `i1`,
/// and no copy within the object.
fn valid(
    func: &Function,
    c: &Candidate,
    ci: usize,
    fields: &[(i64, Type)],
    owner: &HashMap<Value, (usize, i64)>,
) -> bool {
    let mut sorted = fields.to_vec();
    sorted.sort_by_key(|&(o, t)| (o, t.bytes(), t.name()));
    if sorted
        .iter()
        .any(|&(o, t)| o < 0 || o + t.bytes() as i64 > c.size as i64)
    {
        return false;
    }
    if sorted
        .windows(2)
        .any(|w| w[0].0 + w[0].1.bytes() as i64 > w[1].0)
    {
        return false;
    }
    c.uses.copies.iter().all(|cp| {
        let (dst, src) = copy_operands(func, cp.inst);
        let other = if cp.dst { src } else { dst };
        let (start, end) = (cp.off, cp.off + cp.len);
        owner.get(&other).is_none_or(|&(oi, _)| oi != ci)
            && sorted.iter().all(|&(o, t)| {
                let e = o + t.bytes() as i64;
                let inside = o >= start && e <= end;
                let outside = e <= start || o >= end;
                (inside && t != Type::I1) || outside
            })
    })
}

/// Splits what can be split in `func`.
fn run_function(func: &mut Function, stats: &mut Stats) {
    let mut users: HashMap<Value, Vec<Inst>> = HashMap::default();
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
    let cands: Vec<Candidate> = allocas
        .into_iter()
        .filter_map(|(alloca, base, size)| {
            let uses = collect_uses(func, &users, base, size)?;
            Some(Candidate { alloca, size, uses })
        })
        .collect();

    // Drop the candidates that fail until all the others pass: a dropped
    // one turns its copies with the others into copies to other memory,
    // which may change their fields.
    let mut alive = vec![true; cands.len()];
    let (owner, fields) = loop {
        let mut owner: HashMap<Value, (usize, i64)> = HashMap::default();
        for (ci, c) in cands.iter().enumerate() {
            if alive[ci] {
                owner.extend(c.uses.ptrs.iter().map(|&(p, o)| (p, (ci, o))));
            }
        }
        let fields = gather_fields(func, &cands, &alive, &owner);
        let mut dropped = false;
        for (ci, c) in cands.iter().enumerate() {
            if alive[ci] && !valid(func, c, ci, &fields[ci], &owner) {
                alive[ci] = false;
                dropped = true;
            }
        }
        if !dropped {
            break (owner, fields);
        }
    };

    // Edits, applied in one sweep at the end: instructions to drop, and
    // new instructions to put in place of an old one.
    let mut remove: HashSet<Inst> = HashSet::default();
    let mut replace: HashMap<Inst, Vec<Inst>> = HashMap::default();
    let mut field_ptr: Vec<HashMap<(i64, Type), Value>> = vec![HashMap::default(); cands.len()];
    let mut split = vec![false; cands.len()];
    for (ci, c) in cands.iter().enumerate() {
        let uses = &c.uses;
        // One scalar at offset 0, no ptradd, memset or copy: mem2reg's
        // already.
        if !alive[ci]
            || (fields[ci].len() <= 1
                && uses.ptradds.is_empty()
                && uses.memsets.is_empty()
                && uses.copies.is_empty())
        {
            continue;
        }
        split[ci] = true;
        let mut sorted = fields[ci].clone();
        sorted.sort_by_key(|&(o, _)| o);
        let loc = func.locs[c.alloca];
        let mut new_allocas = Vec::new();
        for &(o, t) in &sorted {
            let a = func.make_inst(
                InstKind::Alloca {
                    size: t.bytes(),
                    align: t.bytes(),
                },
                Some(Type::Ptr),
            );
            func.locs[a] = loc;
            new_allocas.push(a);
            field_ptr[ci].insert((o, t), func.result(a).expect("an alloca has a result"));
        }
        replace.insert(c.alloca, new_allocas);
        for &(u, o, t) in &uses.accesses {
            let np = field_ptr[ci][&(o, t)];
            match func.inst_mut(u) {
                InstKind::Load(p) => *p = np,
                InstKind::Store { ptr, .. } => *ptr = np,
                _ => unreachable!("accesses are loads and stores"),
            }
        }
        for &m in &uses.memsets {
            let mloc = func.locs[m];
            let mut seq = Vec::new();
            for &(o, t) in &sorted {
                let z = func.make_inst(Const::zero(t).to_inst(), Some(t));
                let zv = func.result(z).expect("a constant has a result");
                let s = func.make_inst(
                    InstKind::Store {
                        value: zv,
                        ptr: field_ptr[ci][&(o, t)],
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
        stats.split += 1;
        stats.fields += sorted.len() as u64;
    }

    // Copies become field moves (each once, though two candidates may
    // list it). Both sides of a copy between two split candidates have the
    // same fields in its range (`gather_fields`), so either side's list
    // drives it; a copy between two unsplit objects is not touched.
    for (ci, c) in cands.iter().enumerate() {
        if !split[ci] {
            continue;
        }
        for cp in &c.uses.copies {
            if replace.contains_key(&cp.inst) {
                continue;
            }
            let (dst, src) = copy_operands(func, cp.inst);
            let other = if cp.dst { src } else { dst };
            // The other side: a split candidate's field pointers, or an
            // address in other memory.
            let other_cand = owner.get(&other).copied().filter(|&(oi, _)| split[oi]);
            let mloc = func.locs[cp.inst];
            let mut seq = Vec::new();
            let mut in_range: Vec<(i64, Type)> = fields[ci]
                .iter()
                .copied()
                .filter(|&(o, t)| o >= cp.off && o + t.bytes() as i64 <= cp.off + cp.len)
                .collect();
            in_range.sort_by_key(|&(o, _)| o);
            for (o, t) in in_range {
                let rel = o - cp.off;
                let mine = field_ptr[ci][&(o, t)];
                let theirs = match other_cand {
                    Some((oi, ooff)) => field_ptr[oi][&(ooff + rel, t)],
                    None if rel == 0 => other,
                    None => {
                        let k = func.make_inst(InstKind::Iconst(rel), Some(Type::I64));
                        let kv = func.result(k).expect("a constant has a result");
                        let a = func.make_inst(InstKind::PtrAdd(other, kv), Some(Type::Ptr));
                        func.locs[k] = mloc;
                        func.locs[a] = mloc;
                        seq.extend([k, a]);
                        func.result(a).expect("a ptradd has a result")
                    }
                };
                let (from, to) = if cp.dst {
                    (theirs, mine)
                } else {
                    (mine, theirs)
                };
                let l = func.make_inst(InstKind::Load(from), Some(t));
                let v = func.result(l).expect("a load has a result");
                let s = func.make_inst(InstKind::Store { value: v, ptr: to }, None);
                func.locs[l] = mloc;
                func.locs[s] = mloc;
                seq.extend([l, s]);
            }
            replace.insert(cp.inst, seq);
            stats.copies += 1;
        }
    }

    if !split.iter().any(|&s| s) {
        return;
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
}
