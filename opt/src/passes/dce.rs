//! Dead code elimination: removes instructions whose result nobody uses and
//! that have no effect besides computing it.
//!
//! An instruction is removable when `InstKind::has_side_effects` is false
//! (so stores, calls, integer divisions that may trap, and terminators
//! stay). Loads are removable: a load whose value is unused can only matter
//! by faulting, and a faulting load is undefined behaviour in ParC.

use crate::HashMap;
use crate::PassContext;
use parc_ir::{Function, Module, Value};

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let mut removed = 0;
    let changed = crate::for_each_function(module, |f| {
        let n = run_function(f);
        removed += n;
        n > 0
    });
    ctx.count("dce.removed", removed);
    changed
}

/// Removes dead instructions from `func`; returns how many.
pub fn run_function(func: &mut Function) -> u64 {
    let mut total = 0;
    loop {
        let mut uses: HashMap<Value, u32> = HashMap::default();
        for (_, inst) in func.placed_insts() {
            func.inst(inst)
                .for_each_operand(|v| *uses.entry(v).or_default() += 1);
        }
        let mut removed = false;
        for &block in &func.layout {
            let insts = &func.blocks[block].insts;
            let keep: Vec<_> = insts
                .iter()
                .copied()
                .filter(|&inst| {
                    let data = &func.insts[inst];
                    let dead = !data.kind.has_side_effects()
                        && data.result.is_none_or(|r| !uses.contains_key(&r));
                    !dead
                })
                .collect();
            if keep.len() != insts.len() {
                removed = true;
                total += (insts.len() - keep.len()) as u64;
                func.blocks[block].insts = keep;
            }
        }
        if !removed {
            return total;
        }
    }
}
