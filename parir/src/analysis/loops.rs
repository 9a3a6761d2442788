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
use std::sync::Arc;

/// A natural loop of one function.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loop(u32);
entity_impl!(Loop, "loop");

#[derive(Clone, Debug)]
pub struct LoopData {
    pub header: Block,
    /// The loop's blocks: the header first, then an order in which every
    /// edge that is not a back edge goes forward (as in a reverse
    /// postorder), and in which the blocks of each inner loop are
    /// contiguous. A view of one order of the function's blocks shared by
    /// all its loops, so the loops of a deep nest cost no more memory than
    /// the blocks.
    pub blocks: LoopBlocks,
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
    /// Blocks outside the loop with a predecessor inside it, in the order
    /// of their first such predecessor in `blocks`.
    pub exits: Vec<Block>,
    /// The loop's blocks with a successor outside it (the sources of the
    /// edges to `exits`), in the order of `blocks`.
    pub exiting: Vec<Block>,
}

impl LoopData {
    /// True if `block` is one of the loop's blocks (constant time).
    pub fn contains(&self, block: Block) -> bool {
        self.blocks.has(block)
    }
}

/// The reachable blocks of a function in loop order (see
/// [`LoopData::blocks`]), and each block's position in it.
#[derive(Debug, Default)]
struct Order {
    blocks: Vec<Block>,
    /// Position in `blocks`; `u32::MAX` for blocks not in it.
    position: SecondaryMap<Block, u32>,
}

/// The blocks of one loop: a range of the shared loop order. Dereferences
/// to a slice of blocks.
#[derive(Clone)]
pub struct LoopBlocks {
    order: Arc<Order>,
    start: u32,
    end: u32,
}

impl LoopBlocks {
    /// True if `block` is in the range (constant time; `contains` on the
    /// slice is linear).
    pub fn has(&self, block: Block) -> bool {
        let p = self.order.position[block];
        self.start <= p && p < self.end
    }
}

impl std::ops::Deref for LoopBlocks {
    type Target = [Block];
    fn deref(&self) -> &[Block] {
        &self.order.blocks[self.start as usize..self.end as usize]
    }
}

impl<'a> IntoIterator for &'a LoopBlocks {
    type Item = &'a Block;
    type IntoIter = std::slice::Iter<'a, Block>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl std::fmt::Debug for LoopBlocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq<[Block]> for LoopBlocks {
    fn eq(&self, other: &[Block]) -> bool {
        **self == *other
    }
}

/// An entry of a loop's list in the making of the loop order.
#[derive(Clone, Copy)]
enum Item {
    Block(Block),
    Loop(Loop),
}

#[derive(Clone, Debug, Default)]
pub struct LoopAnalysis {
    loops: PrimaryMap<Loop, LoopData>,
    innermost: SecondaryMap<Block, PackedOption<Loop>>,
    /// Loops that are some loop's parent.
    has_child: EntitySet<Loop>,
    /// Each loop's blocks that are in no inner loop, in loop order.
    own: SecondaryMap<Loop, Vec<Block>>,
}

/// Union-find over blocks: each block points towards the header of the
/// outermost loop found so far that contains it, so finding loops
/// innermost first never walks an inner loop's blocks again (Havlak's
/// loop-nesting forest; linear up to the inverse Ackermann factor where
/// flooding each loop's blocks afresh was quadratic in the nesting depth).
struct Collapsed {
    up: SecondaryMap<Block, PackedOption<Block>>,
}

impl Collapsed {
    fn find(&mut self, b: Block) -> Block {
        let mut root = b;
        while let Some(u) = self.up[root].expand() {
            root = u;
        }
        // Path compression.
        let mut cur = b;
        while let Some(u) = self.up[cur].expand() {
            if u != root {
                self.up[cur] = root.into();
            }
            cur = u;
        }
        root
    }
}

impl LoopAnalysis {
    pub fn compute(cfg: &ControlFlowGraph, domtree: &DominatorTree) -> LoopAnalysis {
        let rpo = cfg.rpo();
        // Headers in reverse postorder: an enclosing loop's header dominates
        // an inner one's and comes first, so loop ids number parents before
        // their children.
        let mut loops: PrimaryMap<Loop, LoopData> = PrimaryMap::new();
        let mut headed: SecondaryMap<Block, PackedOption<Loop>> = SecondaryMap::new();
        let empty = Arc::new(Order::default());
        for &h in rpo {
            let latches: Vec<Block> = cfg
                .preds(h)
                .iter()
                .copied()
                .filter(|&p| domtree.dominates(h, p))
                .collect();
            if latches.is_empty() {
                continue;
            }
            let lp = loops.push(LoopData {
                header: h,
                blocks: LoopBlocks {
                    order: empty.clone(),
                    start: 0,
                    end: 0,
                },
                latches,
                parent: None,
                depth: 1,
                preheader: None,
                exits: Vec::new(),
                exiting: Vec::new(),
            });
            headed[h] = lp.into();
        }

        // Innermost loops first: flood backwards from the latches to the
        // header; a block already in an inner loop stands for that loop's
        // outermost header found so far, which becomes a child.
        let mut innermost: SecondaryMap<Block, PackedOption<Loop>> = SecondaryMap::new();
        let mut collapsed = Collapsed {
            up: SecondaryMap::new(),
        };
        let mut work: Vec<Block> = Vec::new();
        for lp in loops.keys().rev() {
            let h = loops[lp].header;
            innermost[h] = lp.into();
            for &l in &loops[lp].latches {
                let r = collapsed.find(l);
                if r != h {
                    collapsed.up[r] = h.into();
                    work.push(r);
                }
            }
            while let Some(r) = work.pop() {
                match headed[r].expand() {
                    Some(inner) => loops[inner].parent = Some(lp),
                    None => innermost[r] = lp.into(),
                }
                for &p in cfg.preds(r) {
                    // Unreachable predecessors are not part of any loop.
                    if !domtree.is_reachable(p) {
                        continue;
                    }
                    let q = collapsed.find(p);
                    if q != h {
                        collapsed.up[q] = h.into();
                        work.push(q);
                    }
                }
            }
        }
        let mut has_child: EntitySet<Loop> = EntitySet::new();
        for lp in loops.keys() {
            if let Some(p) = loops[lp].parent {
                has_child.insert(p);
                loops[lp].depth = loops[p].depth + 1;
            }
        }

        // The loop order: each loop's items (its own blocks and its child
        // loops, by the position of the block or the child's header in the
        // reverse postorder, which lists them in that order here), with
        // every child expanded in place.
        let mut items: SecondaryMap<Loop, Vec<Item>> = SecondaryMap::new();
        let mut top: Vec<Item> = Vec::new();
        for &b in rpo {
            let item = match headed[b].expand() {
                Some(lp) => {
                    items[lp].push(Item::Block(b));
                    (Item::Loop(lp), loops[lp].parent)
                }
                None => (Item::Block(b), innermost[b].expand()),
            };
            match item.1 {
                Some(owner) => items[owner].push(item.0),
                None => top.push(item.0),
            }
        }
        let mut order = Order {
            blocks: Vec::with_capacity(rpo.len()),
            position: SecondaryMap::with_default(u32::MAX),
        };
        let mut ranges: SecondaryMap<Loop, (u32, u32)> = SecondaryMap::new();
        // (the loop being listed, or none for the function; next item)
        let mut stack: Vec<(Option<Loop>, usize)> = vec![(None, 0)];
        while let Some(&(owner, next)) = stack.last() {
            let list = match owner {
                Some(lp) => &items[lp],
                None => &top,
            };
            match list.get(next) {
                Some(&item) => {
                    stack.last_mut().expect("not empty").1 += 1;
                    match item {
                        Item::Block(b) => {
                            order.position[b] = order.blocks.len() as u32;
                            order.blocks.push(b);
                        }
                        Item::Loop(lp) => {
                            ranges[lp].0 = order.blocks.len() as u32;
                            stack.push((Some(lp), 0));
                        }
                    }
                }
                None => {
                    if let Some(lp) = owner {
                        ranges[lp].1 = order.blocks.len() as u32;
                    }
                    stack.pop();
                }
            }
        }
        let order = Arc::new(order);
        let mut own: SecondaryMap<Loop, Vec<Block>> = SecondaryMap::new();
        for lp in loops.keys() {
            own[lp] = items[lp]
                .iter()
                .filter_map(|&item| match item {
                    Item::Block(b) => Some(b),
                    Item::Loop(_) => None,
                })
                .collect();
        }
        for (lp, data) in loops.iter_mut() {
            let (start, end) = ranges[lp];
            data.blocks = LoopBlocks {
                order: order.clone(),
                start,
                end,
            };
        }

        // Preheaders and exits. An edge leaving a block's innermost loop is
        // an exit of that loop and of every enclosing one that does not
        // contain its target.
        for data in loops.values_mut() {
            let h = data.header;
            let mut outside = cfg
                .preds(h)
                .iter()
                .copied()
                .filter(|&p| !data.contains(p) && domtree.is_reachable(p));
            data.preheader = match (outside.next(), outside.next()) {
                (Some(p), None) if cfg.succs(p) == [h] => Some(p),
                _ => None,
            };
        }
        for &b in &order.blocks {
            let Some(inner) = innermost[b].expand() else {
                continue;
            };
            for &s in cfg.succs(b) {
                let mut cur = Some(inner);
                while let Some(lp) = cur {
                    if loops[lp].contains(s) {
                        break;
                    }
                    loops[lp].exits.push(s);
                    if loops[lp].exiting.last() != Some(&b) {
                        loops[lp].exiting.push(b);
                    }
                    cur = loops[lp].parent;
                }
            }
        }
        let mut seen: SecondaryMap<Block, PackedOption<Loop>> = SecondaryMap::new();
        for (lp, data) in loops.iter_mut() {
            data.exits.retain(|&s| {
                let fresh = seen[s].expand() != Some(lp);
                seen[s] = lp.into();
                fresh
            });
        }
        LoopAnalysis {
            loops,
            innermost,
            has_child,
            own,
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

    /// The blocks of `lp` that are in no inner loop (those whose innermost
    /// loop is `lp`), in the order of [`LoopData::blocks`].
    pub fn own_blocks(&self, lp: Loop) -> &[Block] {
        &self.own[lp]
    }

    /// The enclosing loops of `lp`, from `lp` itself outwards.
    pub fn ancestors(&self, lp: Loop) -> impl Iterator<Item = Loop> + '_ {
        std::iter::successors(Some(lp), |&l| self.loops[l].parent)
    }

    /// The loops that contain at least one of `blocks`: each block's
    /// innermost loop and the loops around it, in one walk up the loop
    /// tree per block that stops at a loop already found (linear, where
    /// asking each loop whether one of its blocks is among them is
    /// quadratic in the depth of a nest).
    pub fn loops_containing(&self, blocks: impl IntoIterator<Item = Block>) -> EntitySet<Loop> {
        let mut set = EntitySet::new();
        for b in blocks {
            let mut cur = self.innermost(b);
            while let Some(lp) = cur {
                if set.contains(lp) {
                    break;
                }
                set.insert(lp);
                cur = self.loops[lp].parent;
            }
        }
        set
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
        assert_eq!(o.exiting, vec![bs[1]]);
        let mut ob = o.blocks.to_vec();
        ob.sort();
        assert_eq!(ob, vec![bs[1], bs[2], bs[3], bs[4]]);
        let i = la.data(inner);
        assert_eq!(i.parent, Some(outer));
        assert_eq!(i.depth, 2);
        assert_eq!(i.latches, vec![bs[3]]);
        assert_eq!(i.exits, vec![bs[4]]);
        assert_eq!(i.exiting, vec![bs[2]]);
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
