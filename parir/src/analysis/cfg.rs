//! The control-flow graph: successors and predecessors of each placed block,
//! a reverse postorder from the entry, and reachability.
//!
//! Only blocks in the layout take part. Edges to blocks that are not in the
//! layout (or not in the arena) are dropped, and a block listed twice in the
//! layout counts once, so the analysis never panics on malformed IR; the
//! verifier reports those defects itself.

use crate::entities::Block;
use crate::function::Function;
use crate::inst::InstKind;
use cranelift_entity::{EntitySet, SecondaryMap};

#[derive(Clone, Debug, Default)]
pub struct ControlFlowGraph {
    entry: Option<Block>,
    /// Placed blocks in layout order, each once.
    blocks: Vec<Block>,
    placed: EntitySet<Block>,
    succs: SecondaryMap<Block, Vec<Block>>,
    preds: SecondaryMap<Block, Vec<Block>>,
    rpo: Vec<Block>,
    /// Position in `rpo` plus one; 0 for blocks unreachable from the entry.
    rpo_number: SecondaryMap<Block, u32>,
}

/// The terminator of `block`, without panicking on dangling references.
pub(crate) fn terminator_kind(func: &Function, block: Block) -> Option<&InstKind> {
    let last = *func.blocks.get(block)?.insts.last()?;
    let kind = &func.insts.get(last)?.kind;
    kind.is_terminator().then_some(kind)
}

impl ControlFlowGraph {
    pub fn compute(func: &Function) -> ControlFlowGraph {
        let mut cfg = ControlFlowGraph::default();
        for &b in &func.layout {
            if func.blocks.is_valid(b) && cfg.placed.insert(b) {
                cfg.blocks.push(b);
            }
        }
        cfg.entry = cfg.blocks.first().copied();
        for i in 0..cfg.blocks.len() {
            let b = cfg.blocks[i];
            let mut succs: Vec<Block> = Vec::new();
            if let Some(term) = terminator_kind(func, b) {
                for s in term.successors() {
                    // A `brif` to one block twice is one edge: the analyses
                    // reason about which blocks follow, not about arguments.
                    if cfg.placed.contains(s) && !succs.contains(&s) {
                        succs.push(s);
                    }
                }
            }
            for &s in &succs {
                cfg.preds[s].push(b);
            }
            cfg.succs[b] = succs;
        }
        cfg.compute_rpo();
        cfg
    }

    /// Iterative depth-first search (deep CFGs must not overflow the stack);
    /// successors are visited in terminator order, so the reverse postorder
    /// lists a detach's task before its continuation.
    fn compute_rpo(&mut self) {
        let Some(entry) = self.entry else { return };
        let mut visited = EntitySet::<Block>::new();
        let mut post = Vec::new();
        let mut stack: Vec<(Block, usize)> = vec![(entry, 0)];
        visited.insert(entry);
        while let Some(top) = stack.last_mut() {
            let (b, next) = *top;
            if let Some(&s) = self.succs[b].get(next) {
                top.1 += 1;
                if visited.insert(s) {
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
        post.reverse();
        for (i, &b) in post.iter().enumerate() {
            self.rpo_number[b] = i as u32 + 1;
        }
        self.rpo = post;
    }

    /// The entry block (the first placed block), if the function has a body.
    pub fn entry(&self) -> Option<Block> {
        self.entry
    }

    /// The placed blocks in layout order.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    pub fn is_placed(&self, block: Block) -> bool {
        self.placed.contains(block)
    }

    /// Distinct successors in terminator order (a detach lists its task first).
    pub fn succs(&self, block: Block) -> &[Block] {
        &self.succs[block]
    }

    /// Distinct predecessors, in layout order.
    pub fn preds(&self, block: Block) -> &[Block] {
        &self.preds[block]
    }

    /// The blocks reachable from the entry, in reverse postorder.
    pub fn rpo(&self) -> &[Block] {
        &self.rpo
    }

    /// The blocks reachable from the entry, in postorder.
    pub fn postorder(&self) -> impl DoubleEndedIterator<Item = Block> + '_ {
        self.rpo.iter().rev().copied()
    }

    /// Position of `block` in the reverse postorder, if reachable.
    pub fn rpo_index(&self, block: Block) -> Option<usize> {
        match self.rpo_number[block] {
            0 => None,
            n => Some(n as usize - 1),
        }
    }

    pub fn is_reachable(&self, block: Block) -> bool {
        self.rpo_number[block] != 0
    }

    /// The blocks reachable from `starts` (included), not following the
    /// out-edges of blocks for which `stop` returns true (those blocks are
    /// still included). Used for task bodies (stop at the reattach) and for
    /// "is a return reachable before a sync" questions.
    pub fn reach(&self, starts: &[Block], mut stop: impl FnMut(Block) -> bool) -> EntitySet<Block> {
        let mut seen = EntitySet::new();
        let mut work: Vec<Block> = Vec::new();
        for &s in starts {
            if self.is_placed(s) && seen.insert(s) {
                work.push(s);
            }
        }
        while let Some(b) = work.pop() {
            if stop(b) {
                continue;
            }
            for &s in self.succs(b) {
                if seen.insert(s) {
                    work.push(s);
                }
            }
        }
        seen
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::{FuncBuilder, new_function};
    use crate::function::Signature;
    use crate::inst::{BlockCall, IntCC};
    use crate::types::Type;

    /// entry -> (b1 | b2) -> b3; b4 is placed but unreachable.
    fn diamond() -> (Function, [Block; 5]) {
        let mut f = new_function(
            "d",
            Signature {
                params: vec![Type::I32],
                ret: Some(Type::I32),
            },
        );
        let b0 = f.layout[0];
        let x = f.blocks[b0].params[0];
        let mut b = FuncBuilder::new(&mut f);
        let (b1, b2, b3, b4) = (
            b.create_block(),
            b.create_block(),
            b.create_block(),
            b.create_block(),
        );
        b.switch_to(b0);
        let zero = b.iconst(Type::I32, 0);
        let c = b.icmp(IntCC::Slt, x, zero);
        b.brif(c, BlockCall::to(b1), BlockCall::to(b2));
        b.switch_to(b1);
        b.jump(b3, vec![]);
        b.switch_to(b2);
        b.jump(b3, vec![]);
        b.switch_to(b4);
        b.jump(b3, vec![]);
        b.switch_to(b3);
        b.ret(Some(x));
        (f, [b0, b1, b2, b3, b4])
    }

    #[test]
    fn preds_succs_rpo() {
        let (f, [b0, b1, b2, b3, b4]) = diamond();
        let cfg = ControlFlowGraph::compute(&f);
        assert_eq!(cfg.entry(), Some(b0));
        assert_eq!(cfg.succs(b0), &[b1, b2]);
        assert_eq!(cfg.preds(b3), &[b1, b2, b4]);
        assert_eq!(cfg.rpo(), &[b0, b2, b1, b3]);
        assert_eq!(cfg.postorder().next(), Some(b3));
        assert!(!cfg.is_reachable(b4));
        assert!(cfg.is_placed(b4));
        assert_eq!(cfg.rpo_index(b0), Some(0));
        assert_eq!(cfg.rpo_index(b4), None);
        let r = cfg.reach(&[b1], |_| false);
        assert!(r.contains(b1) && r.contains(b3) && !r.contains(b2));
        let r = cfg.reach(&[b0], |b| b == b1);
        assert!(r.contains(b1) && r.contains(b3), "b3 still reached via b2");
        let r = cfg.reach(&[b1], |b| b == b1);
        assert!(r.contains(b1) && !r.contains(b3));
    }

    #[test]
    fn dangling_edges_are_dropped() {
        let (mut f, [_, b1, ..]) = diamond();
        let ghost = f.create_block(); // never placed
        let t = *f.blocks[b1].insts.last().unwrap();
        *f.inst_mut(t) = InstKind::Jump(BlockCall::to(ghost));
        f.layout.push(b1); // listed twice
        let cfg = ControlFlowGraph::compute(&f);
        assert!(cfg.succs(b1).is_empty());
        assert_eq!(cfg.blocks().len(), 5);
    }
}
