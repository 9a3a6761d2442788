//! Dominators (Cooper, Harvey and Kennedy, "A Simple, Fast Dominance
//! Algorithm") and dominance frontiers.
//!
//! Block `a` dominates block `b` if every path from the entry to `b` passes
//! through `a`; every block dominates itself. Only blocks reachable from the
//! entry have dominators: an unreachable block is dominated by nothing but
//! itself and dominates nothing else.

use super::cfg::ControlFlowGraph;
use crate::entities::Block;
use cranelift_entity::SecondaryMap;
use cranelift_entity::packed_option::PackedOption;

#[derive(Clone, Debug, Default)]
pub struct DominatorTree {
    /// Immediate dominator; none for the entry and unreachable blocks.
    idom: SecondaryMap<Block, PackedOption<Block>>,
    /// Reverse-postorder number plus one (0: unreachable), so an ancestor in
    /// the tree always has a smaller number than its descendants.
    rpo_number: SecondaryMap<Block, u32>,
    children: SecondaryMap<Block, Vec<Block>>,
    rpo: Vec<Block>,
    /// Preorder number of each reachable block in the tree, and the
    /// largest preorder number in its subtree: `a` dominates `b` when
    /// `b`'s number lies in `a`'s interval, an answer in constant time
    /// where walking up from `b` takes the depth of the tree (thousands of
    /// blocks in long straight-line functions).
    pre: SecondaryMap<Block, u32>,
    last: SecondaryMap<Block, u32>,
    /// The reachable blocks in that preorder: each block's subtree is the
    /// range `pre..=last` of it.
    preorder: Vec<Block>,
}

impl DominatorTree {
    pub fn compute(cfg: &ControlFlowGraph) -> DominatorTree {
        let rpo = cfg.rpo().to_vec();
        let mut rpo_number = SecondaryMap::new();
        for (i, &b) in rpo.iter().enumerate() {
            rpo_number[b] = i as u32 + 1;
        }
        // Working idoms: `doms[b] == b` marks the entry; none = not yet known.
        let mut doms: SecondaryMap<Block, PackedOption<Block>> = SecondaryMap::new();
        if let Some(&entry) = rpo.first() {
            doms[entry] = entry.into();
        }
        let intersect =
            |doms: &SecondaryMap<Block, PackedOption<Block>>, mut a: Block, mut b: Block| {
                while a != b {
                    while rpo_number[a] > rpo_number[b] {
                        a = doms[a].expect("processed blocks have a dominator");
                    }
                    while rpo_number[b] > rpo_number[a] {
                        b = doms[b].expect("processed blocks have a dominator");
                    }
                }
                a
            };
        let mut changed = true;
        while changed {
            changed = false;
            for &b in rpo.iter().skip(1) {
                let mut new_idom: Option<Block> = None;
                for &p in cfg.preds(b) {
                    // Unreachable predecessors and ones not processed yet
                    // (back edges on the first sweep) do not constrain `b`.
                    if doms[p].is_none() {
                        continue;
                    }
                    new_idom = Some(match new_idom {
                        None => p,
                        Some(cur) => intersect(&doms, p, cur),
                    });
                }
                if let Some(n) = new_idom
                    && doms[b].expand() != Some(n)
                {
                    doms[b] = n.into();
                    changed = true;
                }
            }
        }
        let mut tree = DominatorTree {
            idom: SecondaryMap::new(),
            rpo_number,
            children: SecondaryMap::new(),
            rpo,
            pre: SecondaryMap::new(),
            last: SecondaryMap::new(),
            preorder: Vec::new(),
        };
        for &b in tree.rpo.iter().skip(1) {
            if let Some(d) = doms[b].expand() {
                tree.idom[b] = d.into();
                tree.children[d].push(b);
            }
        }
        tree.number_preorder();
        tree
    }

    /// Fills `pre` and `last` by an iterative walk of the tree (deep trees
    /// must not overflow the stack).
    fn number_preorder(&mut self) {
        let Some(&root) = self.rpo.first() else {
            return;
        };
        let mut next = 0u32;
        let mut stack: Vec<(Block, usize)> = vec![(root, 0)];
        self.pre[root] = next;
        self.preorder.push(root);
        while let Some(top) = stack.last_mut() {
            let (b, i) = *top;
            if let Some(&c) = self.children[b].get(i) {
                top.1 += 1;
                next += 1;
                self.pre[c] = next;
                self.preorder.push(c);
                stack.push((c, 0));
            } else {
                self.last[b] = next;
                stack.pop();
            }
        }
    }

    /// The immediate dominator (none for the entry and unreachable blocks).
    pub fn idom(&self, block: Block) -> Option<Block> {
        self.idom[block].expand()
    }

    pub fn is_reachable(&self, block: Block) -> bool {
        self.rpo_number[block] != 0
    }

    /// True if `a` dominates `b` (reflexive).
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        if a == b {
            return true;
        }
        if self.rpo_number[a] == 0 || self.rpo_number[b] == 0 {
            return false;
        }
        self.pre[a] <= self.pre[b] && self.pre[b] <= self.last[a]
    }

    pub fn strictly_dominates(&self, a: Block, b: Block) -> bool {
        a != b && self.dominates(a, b)
    }

    /// The blocks `block` immediately dominates, in reverse postorder.
    pub fn children(&self, block: Block) -> &[Block] {
        &self.children[block]
    }

    /// The reachable blocks in reverse postorder (a topological order of the
    /// dominator tree).
    pub fn rpo(&self) -> &[Block] {
        &self.rpo
    }

    /// The reachable blocks in a preorder of the tree (children in reverse
    /// postorder), so that the blocks `block` dominates are one range of
    /// it: [`subtree`](Self::subtree).
    pub fn preorder(&self) -> &[Block] {
        &self.preorder
    }

    /// The positions in [`preorder`](Self::preorder) of the blocks `block`
    /// dominates (itself first); empty if `block` is unreachable.
    pub fn subtree(&self, block: Block) -> std::ops::Range<usize> {
        if self.rpo_number[block] == 0 {
            return 0..0;
        }
        self.pre[block] as usize..self.last[block] as usize + 1
    }
}

/// Dominance frontiers: `b` is in the frontier of `a` if `a` dominates a
/// predecessor of `b` but does not strictly dominate `b`. Where SSA
/// construction would put block parameters for a value defined in `a`.
#[derive(Clone, Debug, Default)]
pub struct DominanceFrontiers {
    df: SecondaryMap<Block, Vec<Block>>,
}

impl DominanceFrontiers {
    pub fn compute(cfg: &ControlFlowGraph, domtree: &DominatorTree) -> DominanceFrontiers {
        let mut df: SecondaryMap<Block, Vec<Block>> = SecondaryMap::new();
        for &b in cfg.rpo() {
            let preds: Vec<Block> = cfg
                .preds(b)
                .iter()
                .copied()
                .filter(|&p| domtree.is_reachable(p))
                .collect();
            if preds.len() < 2 {
                continue;
            }
            let Some(idom) = domtree.idom(b) else {
                // The entry with incoming back edges: its frontier is itself
                // for each predecessor chain; walk to the root.
                for p in preds {
                    let mut runner = Some(p);
                    while let Some(r) = runner {
                        if !df[r].contains(&b) {
                            df[r].push(b);
                        }
                        runner = domtree.idom(r);
                    }
                }
                continue;
            };
            for p in preds {
                let mut runner = p;
                while runner != idom {
                    if !df[runner].contains(&b) {
                        df[runner].push(b);
                    }
                    match domtree.idom(runner) {
                        Some(d) => runner = d,
                        None => break,
                    }
                }
            }
        }
        DominanceFrontiers { df }
    }

    pub fn frontier(&self, block: Block) -> &[Block] {
        &self.df[block]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::{FuncBuilder, new_function};
    use crate::function::{Function, Signature};
    use crate::inst::BlockCall;
    use crate::types::Type;

    /// b0 -> b1; b1 -> b2 | b3; b2 -> b1 (loop); b3 -> b4 | b5; b4, b5 -> b6.
    /// b7 unreachable -> b6.
    fn sample() -> (Function, Vec<Block>) {
        let mut f = new_function(
            "s",
            Signature {
                params: vec![Type::I1],
                ret: None,
            },
        );
        let b0 = f.layout[0];
        let c = f.blocks[b0].params[0];
        let mut b = FuncBuilder::new(&mut f);
        let bs: Vec<Block> = std::iter::once(b0)
            .chain((0..7).map(|_| b.create_block()))
            .collect();
        let br = |b: &mut FuncBuilder, from: Block, t: Block, e: Block| {
            b.switch_to(from);
            b.brif(c, BlockCall::to(t), BlockCall::to(e));
        };
        b.switch_to(bs[0]);
        b.jump(bs[1], vec![]);
        br(&mut b, bs[1], bs[2], bs[3]);
        b.switch_to(bs[2]);
        b.jump(bs[1], vec![]);
        br(&mut b, bs[3], bs[4], bs[5]);
        b.switch_to(bs[4]);
        b.jump(bs[6], vec![]);
        b.switch_to(bs[5]);
        b.jump(bs[6], vec![]);
        b.switch_to(bs[6]);
        b.ret(None);
        b.switch_to(bs[7]);
        b.jump(bs[6], vec![]);
        (f, bs)
    }

    #[test]
    fn idoms_and_dominance() {
        let (f, bs) = sample();
        let cfg = ControlFlowGraph::compute(&f);
        let dt = DominatorTree::compute(&cfg);
        assert_eq!(dt.idom(bs[0]), None);
        assert_eq!(dt.idom(bs[1]), Some(bs[0]));
        assert_eq!(dt.idom(bs[2]), Some(bs[1]));
        assert_eq!(dt.idom(bs[3]), Some(bs[1]));
        assert_eq!(dt.idom(bs[4]), Some(bs[3]));
        assert_eq!(dt.idom(bs[6]), Some(bs[3]));
        assert_eq!(dt.idom(bs[7]), None);
        assert!(dt.dominates(bs[1], bs[6]));
        assert!(dt.dominates(bs[6], bs[6]));
        assert!(!dt.dominates(bs[4], bs[6]));
        assert!(!dt.dominates(bs[2], bs[3]));
        assert!(
            !dt.dominates(bs[0], bs[7]),
            "unreachable: dominated by nothing"
        );
        assert!(!dt.dominates(bs[7], bs[6]));
        assert!(dt.strictly_dominates(bs[0], bs[1]));
        assert!(!dt.strictly_dominates(bs[1], bs[1]));
        let mut kids = dt.children(bs[3]).to_vec();
        kids.sort();
        assert_eq!(kids, vec![bs[4], bs[5], bs[6]]);
    }

    #[test]
    fn frontiers() {
        let (f, bs) = sample();
        let cfg = ControlFlowGraph::compute(&f);
        let dt = DominatorTree::compute(&cfg);
        let df = DominanceFrontiers::compute(&cfg, &dt);
        assert_eq!(df.frontier(bs[4]), &[bs[6]]);
        assert_eq!(df.frontier(bs[5]), &[bs[6]]);
        assert_eq!(df.frontier(bs[2]), &[bs[1]]);
        assert_eq!(df.frontier(bs[1]), &[bs[1]]);
        assert!(df.frontier(bs[3]).is_empty());
        assert!(df.frontier(bs[0]).is_empty());
    }

    #[test]
    fn empty_function() {
        let f = Function::new("decl", Signature::default());
        let cfg = ControlFlowGraph::compute(&f);
        let dt = DominatorTree::compute(&cfg);
        assert!(dt.rpo().is_empty());
    }
}
