//! Copying a set of blocks within a function: what loop unswitching (a
//! second copy of a loop) and full unrolling (one copy per iteration)
//! share.
//!
//! Invariants: the copy has the same instructions, block parameters and
//! source positions as the original, in the same order. Operands defined
//! in the set are renamed to their copies; operands defined outside it
//! are kept (so the set must be dominated by its first block, or the
//! caller must rename afterwards). Branches to blocks of the set go to
//! their copies; branches out of it are kept. The original is unchanged.

use crate::HashMap;
use parc_ir::{Block, Function, Inst, InstKind, Value};

/// What [`copy_blocks`] made.
pub struct BlockCopy {
    /// Each original block's copy.
    pub blocks: HashMap<Block, Block>,
    /// Each value defined in the set (parameters and results), its copy's.
    pub values: HashMap<Value, Value>,
}

impl BlockCopy {
    /// The copy of `v`, or `v` itself where it is defined outside the set.
    pub fn value(&self, v: Value) -> Value {
        self.values.get(&v).copied().unwrap_or(v)
    }
}

/// Copies `blocks` (in an order where each definition comes before the
/// uses it dominates, such as reverse postorder) into new blocks placed in
/// the layout at `at`.
pub fn copy_blocks(func: &mut Function, blocks: &[Block], at: usize) -> BlockCopy {
    let mut copy = BlockCopy {
        blocks: HashMap::default(),
        values: HashMap::default(),
    };
    // Blocks and parameters first, so that branches and uses anywhere in
    // the set can be renamed.
    for (n, &b) in blocks.iter().enumerate() {
        let new = func.create_block();
        func.layout.insert(at + n, new);
        for p in func.block_params(b).to_vec() {
            let q = func.append_block_param(new, func.value_type(p));
            copy.values.insert(p, q);
        }
        copy.blocks.insert(b, new);
    }
    // Definitions come before the uses they dominate, so only uses across
    // a back edge (block arguments to a header) need a second renaming.
    let mut made: Vec<Inst> = Vec::new();
    for &b in blocks {
        for &i in &func.block_insts(b).to_vec() {
            let mut kind = func.inst(i).clone();
            kind.map_operands(|v| copy.value(v));
            let ty = func.result(i).map(|r| func.value_type(r));
            let new = func.append_inst(copy.blocks[&b], kind, ty);
            func.locs[new] = func.locs[i];
            if let (Some(old), Some(res)) = (func.result(i), func.result(new)) {
                copy.values.insert(old, res);
            }
            made.push(new);
        }
    }
    for i in made {
        let kind = func.inst_mut(i);
        kind.map_operands(|v| copy.values.get(&v).copied().unwrap_or(v));
        for call in kind.block_calls_mut() {
            if let Some(&to) = copy.blocks.get(&call.block) {
                call.block = to;
            }
        }
    }
    copy
}

/// Replaces the `brif` that ends `block` with a `jump` along its then-way
/// (`then`) or its else-way, with that way's arguments: what a copy of a
/// loop does where it knows the branch's outcome.
pub fn take_way(func: &mut Function, block: Block, then: bool) {
    let t = func.terminator(block).expect("the block ends in a brif");
    let InstKind::Brif {
        then_dest,
        else_dest,
        ..
    } = func.inst(t).clone()
    else {
        unreachable!("take_way on a block that does not end in brif");
    };
    *func.inst_mut(t) = InstKind::Jump(if then { then_dest } else { else_dest });
}
