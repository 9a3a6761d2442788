//! Natural loops.
//!
//! An edge `t -> h` is a back edge if `h` dominates `t`. The natural loop of
//! a header `h` is `h` plus every block that reaches one of `h`'s back-edge
//! sources without passing through `h`; back edges to one header make one
//! loop. Loops nest: a loop's parent is the smallest other loop that
//! contains its header. Irreducible cycles (entered at more than one block)
//! have no header that dominates them and are not loops here.
//!
//! A parallel loop as the front end emits it (a detach in the body whose
//! task reattaches to the latch) is an ordinary natural loop: the task's
//! blocks are loop blocks.

use super::cfg::ControlFlowGraph;
use super::dom::DominatorTree;
use crate::entities::Block;
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{EntitySet, PrimaryMap, SecondaryMap, entity_impl};

/// A natural loop of one function.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loop(u32);
entity_impl!(Loop, "loop");

#[derive(Clone, Debug)]
pub struct LoopData {
    pub header: Block,
    /// The loop's blocks, header first, then in reverse postorder.
    pub blocks: Vec<Block>,
    /// Sources of the back edges to the header.
    pub latches: Vec<Block>,
    /// The innermost enclosing loop.
    pub parent: Option<Loop>,
    /// 1 for an outermost loop.
    pub depth: u32,
    /// The unique predecessor of the header outside the loop, if there is
    /// exactly one and the header is its only successor (where hoisted code
    /// goes).
    pub preheader: Option<Block>,
    /// Blocks outside the loop with a predecessor inside it.
    pub exits: Vec<Block>,
    members: EntitySet<Block>,
}

impl LoopData {
    pub fn contains(&self, block: Block) -> bool {
        self.members.contains(block)
    }
}

#[derive(Clone, Debug, Default)]
pub struct LoopAnalysis {
    loops: PrimaryMap<Loop, LoopData>,
    innermost: SecondaryMap<Block, PackedOption<Loop>>,
    /// Loops that are some loop's parent.
    has_child: EntitySet<Loop>,
}

impl LoopAnalysis {
    pub fn compute(cfg: &ControlFlowGraph, domtree: &DominatorTree) -> LoopAnalysis {
        let mut loops: PrimaryMap<Loop, LoopData> = PrimaryMap::new();
        // Each loop lists its blocks by sorting its members by these
        // positions, not by filtering the whole order per loop (quadratic
        // in a function with thousands of loops).
        let mut rpo_position: SecondaryMap<Block, u32> = SecondaryMap::new();
        for (i, &b) in cfg.rpo().iter().enumerate() {
            rpo_position[b] = i as u32;
        }
        // Headers in reverse postorder, so outer loops come before inner ones
        // when their headers differ.
        for &h in cfg.rpo() {
            let latches: Vec<Block> = cfg
                .preds(h)
                .iter()
                .copied()
                .filter(|&p| domtree.dominates(h, p))
                .collect();
            if latches.is_empty() {
                continue;
            }
            let mut members = EntitySet::new();
            members.insert(h);
            let mut others: Vec<Block> = Vec::new();
            let mut work: Vec<Block> = Vec::new();
            for &l in &latches {
                if members.insert(l) {
                    others.push(l);
                    work.push(l);
                }
            }
            while let Some(b) = work.pop() {
                for &p in cfg.preds(b) {
                    // Unreachable predecessors are not part of any loop.
                    if domtree.is_reachable(p) && members.insert(p) {
                        others.push(p);
                        work.push(p);
                    }
                }
            }
            others.sort_unstable_by_key(|&b| rpo_position[b]);
            let blocks: Vec<Block> = std::iter::once(h).chain(others).collect();
            let outside: Vec<Block> = cfg
                .preds(h)
                .iter()
                .copied()
                .filter(|&p| !members.contains(p) && domtree.is_reachable(p))
                .collect();
            let preheader = match outside[..] {
                [p] if cfg.succs(p) == [h] => Some(p),
                _ => None,
            };
            let mut exits = Vec::new();
            for &b in &blocks {
                for &s in cfg.succs(b) {
                    if !members.contains(s) && !exits.contains(&s) {
                        exits.push(s);
                    }
                }
            }
            loops.push(LoopData {
                header: h,
                blocks,
                latches,
                parent: None,
                depth: 1,
                preheader,
                exits,
                members,
            });
        }

        // Nesting: the parent is the smallest other loop containing the
        // header. Visiting loops from largest to smallest fixes each
        // parent's depth before its children's.
        // The parent is then the last loop visited that contains the
        // header, which is the one that claimed the header last.
        let mut by_size: Vec<Loop> = loops.keys().collect();
        by_size.sort_by_key(|&l| std::cmp::Reverse(loops[l].blocks.len()));
        let mut innermost: SecondaryMap<Block, PackedOption<Loop>> = SecondaryMap::new();
        let mut has_child: EntitySet<Loop> = EntitySet::new();
        for &l in &by_size {
            let header = loops[l].header;
            if let Some(p) = innermost[header].expand() {
                has_child.insert(p);
                loops[l].parent = Some(p);
                loops[l].depth = loops[p].depth + 1;
            }
            // Smaller loops are visited later and overwrite: the last
            // writer is the innermost loop.
            for &b in &loops[l].blocks {
                innermost[b] = l.into();
            }
        }
        LoopAnalysis {
            loops,
            innermost,
            has_child,
        }
    }

    pub fn loops(&self) -> impl Iterator<Item = Loop> + '_ {
        self.loops.keys()
    }

    pub fn data(&self, lp: Loop) -> &LoopData {
        &self.loops[lp]
    }

    pub fn len(&self) -> usize {
        self.loops.len()
    }

    pub fn is_empty(&self) -> bool {
        self.loops.is_empty()
    }

    /// The innermost loop containing `block`.
    pub fn innermost(&self, block: Block) -> Option<Loop> {
        self.innermost[block].expand()
    }

    /// Loop nesting depth of `block` (0: in no loop).
    pub fn depth(&self, block: Block) -> u32 {
        self.innermost(block).map_or(0, |l| self.loops[l].depth)
    }

    /// The loop `block` heads, if any.
    pub fn loop_headed_by(&self, block: Block) -> Option<Loop> {
        self.innermost(block)
            .filter(|&l| self.loops[l].header == block)
    }

    pub fn contains(&self, lp: Loop, block: Block) -> bool {
        self.loops[lp].contains(block)
    }

    /// True if no other loop lies inside `lp`.
    pub fn is_innermost(&self, lp: Loop) -> bool {
        !self.has_child.contains(lp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::{FuncBuilder, new_function};
    use crate::function::{Function, Signature};
    use crate::inst::BlockCall;
    use crate::types::Type;

    /// b0 -> b1 (outer header); b1 -> b2 | b5;
    /// b2 (inner header) -> b3 | b4; b3 -> b2 (inner latch);
    /// b4 -> b1 (outer latch); b5 returns.
    fn nest() -> (Function, Vec<Block>) {
        let mut f = new_function(
            "n",
            Signature {
                params: vec![Type::I1],
                ret: None,
            },
        );
        let b0 = f.layout[0];
        let c = f.blocks[b0].params[0];
        let mut b = FuncBuilder::new(&mut f);
        let bs: Vec<Block> = std::iter::once(b0)
            .chain((0..5).map(|_| b.create_block()))
            .collect();
        b.switch_to(bs[0]);
        b.jump(bs[1], vec![]);
        b.switch_to(bs[1]);
        b.brif(c, BlockCall::to(bs[2]), BlockCall::to(bs[5]));
        b.switch_to(bs[2]);
        b.brif(c, BlockCall::to(bs[3]), BlockCall::to(bs[4]));
        b.switch_to(bs[3]);
        b.jump(bs[2], vec![]);
        b.switch_to(bs[4]);
        b.jump(bs[1], vec![]);
        b.switch_to(bs[5]);
        b.ret(None);
        (f, bs)
    }

    #[test]
    fn nested_loops() {
        let (f, bs) = nest();
        let cfg = ControlFlowGraph::compute(&f);
        let dt = DominatorTree::compute(&cfg);
        let la = LoopAnalysis::compute(&cfg, &dt);
        assert_eq!(la.len(), 2);
        let outer = la.loop_headed_by(bs[1]).unwrap();
        let inner = la.loop_headed_by(bs[2]).unwrap();
        let o = la.data(outer);
        assert_eq!(o.header, bs[1]);
        assert_eq!(o.depth, 1);
        assert_eq!(o.parent, None);
        assert_eq!(o.preheader, Some(bs[0]));
        assert_eq!(o.latches, vec![bs[4]]);
        assert_eq!(o.exits, vec![bs[5]]);
        let mut ob = o.blocks.clone();
        ob.sort();
        assert_eq!(ob, vec![bs[1], bs[2], bs[3], bs[4]]);
        let i = la.data(inner);
        assert_eq!(i.parent, Some(outer));
        assert_eq!(i.depth, 2);
        assert_eq!(i.latches, vec![bs[3]]);
        assert_eq!(i.exits, vec![bs[4]]);
        // The inner header's outside predecessor b1 also branches to b5.
        assert_eq!(i.preheader, None);
        assert_eq!(la.depth(bs[3]), 2);
        assert_eq!(la.depth(bs[4]), 1);
        assert_eq!(la.depth(bs[0]), 0);
        assert_eq!(la.innermost(bs[3]), Some(inner));
        assert!(la.contains(outer, bs[3]));
        assert!(!la.contains(inner, bs[4]));
        assert_eq!(la.loop_headed_by(bs[3]), None);
    }

    #[test]
    fn no_loops() {
        let f = new_function("e", Signature::default());
        let cfg = ControlFlowGraph::compute(&f);
        let dt = DominatorTree::compute(&cfg);
        assert!(LoopAnalysis::compute(&cfg, &dt).is_empty());
    }
}
