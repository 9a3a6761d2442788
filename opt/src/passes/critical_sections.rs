//! `critical-sections`: every `#pragma omp critical` name of the program
//! gets one implementation, wherever its sections are written.
//!
//! The front end brackets every section with `__parc_critical_begin(name)`
//! and `__parc_critical_end(name)` (the name a constant hash); a section
//! that is one update `x += e` (`-=`, `++`, `--`) holds an `atomic_add`
//! there. When every section of a name in the module is such a bracket —
//! in one block, an `atomic_add` and otherwise instructions that write
//! nothing and call nothing — the brackets of that name are removed: each
//! section is its atomic add, which excludes the others' (and is
//! differentiable). When one section of the name is anything else, every
//! section keeps the lock, so that they all exclude each other: an atomic
//! add does not wait for a thread inside a locked section.
//!
//! The driver runs this on the whole program, before the optimizer and
//! the AD, at every `-O` level: the files of `parc build a.c b.c` and the
//! parc objects of `parc cc` are linked first, so that sections of one
//! name in different files agree. (A native object, `parc build -c`,
//! decides for its own file.) A bracket whose name is not a constant (IR
//! written by hand) keeps every lock.

use crate::PassContext;
use crate::{HashMap, HashSet};
use parc_ir::{CFn, Function, Inst, InstKind, Intrinsic, Module};

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    // Per name: whether every section seen so far is one atomic add.
    let mut atomic: HashMap<i64, bool> = HashMap::default();
    let mut unnamed_constant = false;
    let mut brackets: Vec<(parc_ir::FuncId, i64, Inst, Inst)> = Vec::new();
    for (id, f) in module.funcs.iter() {
        for &b in &f.layout {
            let insts = f.block_insts(b);
            for (k, &i) in insts.iter().enumerate() {
                let Some(name) = bracket(f, i, CFn::CriticalBegin) else {
                    continue;
                };
                let Some(name) = name else {
                    unnamed_constant = true;
                    continue;
                };
                match one_atomic_add(f, &insts[k + 1..], name) {
                    Some(end) => {
                        atomic.entry(name).or_insert(true);
                        brackets.push((id, name, i, end));
                    }
                    None => {
                        atomic.insert(name, false);
                    }
                }
            }
        }
    }
    if unnamed_constant {
        return false;
    }
    let mut removed: HashMap<parc_ir::FuncId, HashSet<Inst>> = HashMap::default();
    for (id, name, begin, end) in brackets {
        if atomic.get(&name) == Some(&true) {
            removed.entry(id).or_default().extend([begin, end]);
        }
    }
    let mut n = 0;
    for (id, dead) in &removed {
        let f = &mut module.funcs[*id];
        for b in f.layout.clone() {
            f.blocks[b].insts.retain(|i| !dead.contains(i));
        }
        n += dead.len() as u64 / 2;
    }
    ctx.count("critical-sections.atomic", n);
    n > 0
}

/// `Some(name)` if `inst` calls `which` (`Some(None)`: with a name that is
/// not a constant).
fn bracket(f: &Function, inst: Inst, which: CFn) -> Option<Option<i64>> {
    match f.inst(inst) {
        InstKind::Intrinsic {
            op: Intrinsic::C(c),
            args,
        } if *c == which => Some(args.first().and_then(|&a| f.const_int(a))),
        _ => None,
    }
}

/// The `__parc_critical_end(name)` closing a section that starts the
/// slice `rest` and is one `atomic_add` (see the module doc), if it is.
fn one_atomic_add(f: &Function, rest: &[Inst], name: i64) -> Option<Inst> {
    let mut adds = 0;
    for &i in rest {
        if let Some(end) = bracket(f, i, CFn::CriticalEnd) {
            return (end == Some(name) && adds == 1).then_some(i);
        }
        match f.inst(i) {
            InstKind::Intrinsic {
                op: Intrinsic::AtomicAdd,
                ..
            } => adds += 1,
            InstKind::Load(_) => {}
            k if k.has_side_effects() => return None,
            _ => {}
        }
    }
    None
}
