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

#[cfg(test)]
mod tests {
    use super::*;
    use parc_ir::{BinaryOp, FuncBuilder, Signature, Type, new_function};

    #[test]
    fn removes_unused_arithmetic_chains_but_keeps_effects() {
        let mut f = new_function(
            "f",
            Signature {
                params: vec![Type::I32, Type::Ptr],
                ret: Some(Type::I32),
            },
        );
        let entry = f.entry().unwrap();
        let (x, p) = (f.block_params(entry)[0], f.block_params(entry)[1]);
        let mut b = FuncBuilder::new(&mut f);
        b.switch_to(entry);
        let one = b.iconst(Type::I32, 1);
        let dead1 = b.binary(BinaryOp::Iadd, x, one);
        let _dead2 = b.binary(BinaryOp::Imul, dead1, dead1);
        let _dead_load = b.load(Type::I32, p);
        let zero = b.iconst(Type::I32, 0);
        let _trapping = b.binary(BinaryOp::Sdiv, x, zero);
        b.store(x, p);
        b.ret(Some(x));
        assert_eq!(run_function(&mut f), 4, "iconst 1, iadd, imul and the load");
        let kinds: Vec<String> = f
            .block_insts(entry)
            .iter()
            .map(|&i| format!("{:?}", f.inst(i)))
            .collect();
        // The constant 0 stays because the division that may trap uses it.
        assert_eq!(kinds.len(), 4, "{kinds:?}");
        assert!(kinds[0].starts_with("Iconst(0)"));
        assert!(kinds[1].starts_with("Binary(Sdiv"));
        assert!(kinds[2].starts_with("Store"));
        assert!(kinds[3].starts_with("Return"));
        assert_eq!(run_function(&mut f), 0, "a second run finds nothing");
    }
}
