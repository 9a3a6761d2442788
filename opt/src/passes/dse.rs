//! `dse`: dead store elimination within a block. A store is dead when a
//! later store in the same block writes the same bytes (must-alias, same
//! size) and nothing between the two may read them.
//!
//! The gradient's reverse sweep is where this matters: the adjoint of
//! `C[j] += a * B[j]` reads `d_C[j]`, zeroes it (the store's reverse) and
//! adds the load's adjoint back (the load's reverse); once `gvn` forwards
//! the zero to that add, the zeroing store is overwritten unread.
//!
//! Scanning each block backwards, the pass keeps the locations a later
//! store overwrites before anything reads them. An instruction that may
//! read memory (a load, a call that reads, `memcpy`, an atomic, `printf`,
//! a barrier, `exit`: [`inst_effects`]) drops every kept location its
//! reads may overlap. Nothing else can observe a store's bytes before the
//! next store in the block:
//! - a fault or `exit` between the two ends the program, after which no
//!   code reads memory (`exit` is treated as reading everything anyway);
//! - another strand reading the bytes in between would race with the
//!   stores (undefined behaviour), since no Tapir terminator, hence no
//!   `detach` or `sync`, lies inside a block; and a call that spawns syncs
//!   its tasks before returning, so its summary covers what they read.

use crate::HashSet;
use crate::PassContext;
use crate::analysis::alias::{AliasAnalysis, AliasResult, GlobalFacts, type_size};
use crate::analysis::modref::{Loc, MemSet, ModRefAnalysis, inst_effects, may_overlap};
use parc_ir::{Function, InstKind, Module};

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let modref = ModRefAnalysis::compute(module);
    let globals = GlobalFacts::new(module);
    let mut removed = 0;
    let changed = crate::for_each_function(module, |f| {
        let n = run_function(f, &modref, &globals);
        removed += n;
        n > 0
    });
    ctx.count("dse.removed", removed);
    changed
}

/// Removes the dead stores of `func`; returns how many.
pub fn run_function(func: &mut Function, modref: &ModRefAnalysis, globals: &GlobalFacts) -> u64 {
    let aa = modref.alias_analysis(func, globals);
    let mut removed = 0;
    for b in func.layout.clone() {
        let dead = dead_stores(func, &aa, modref, b);
        if !dead.is_empty() {
            removed += dead.len() as u64;
            func.blocks[b].insts.retain(|i| !dead.contains(i));
        }
    }
    removed
}

/// The stores of block `b` that a later store of the block overwrites
/// unread.
fn dead_stores(
    func: &Function,
    aa: &AliasAnalysis,
    modref: &ModRefAnalysis,
    b: parc_ir::Block,
) -> HashSet<parc_ir::Inst> {
    // Locations written later in the block and not read since.
    let mut overwritten: Vec<Loc> = Vec::new();
    let mut dead = HashSet::default();
    for &inst in func.blocks[b].insts.iter().rev() {
        if let InstKind::Store { value, ptr } = *func.inst(inst) {
            let size = Some(type_size(func.value_type(value)));
            let covered = overwritten
                .iter()
                .any(|l| aa.alias(func, ptr, size, l.ptr, l.size) == AliasResult::MustAlias);
            if covered {
                dead.insert(inst);
            } else {
                overwritten.push(Loc { ptr, size });
            }
            continue;
        }
        let reads = inst_effects(modref, func, inst).reads;
        if reads.is_empty() {
            continue;
        }
        overwritten.retain(|l| {
            let one = MemSet {
                locs: vec![*l],
                any: false,
            };
            !may_overlap(aa, func, &reads, &one)
        });
    }
    dead
}
