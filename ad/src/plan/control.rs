//! The plan's control facts: the incoming edges of each block in a fixed
//! order, the returns, the blocks with reverse code, the blocks whose
//! values the reverse of a combined gradient uses directly, and the
//! joins whose way in the reverse recomputes from a branch condition.

use super::{Mode, Plan, err};
use crate::AdError;
use crate::activity::branch_dests;
use parc_ir::{Block, InstKind, Value};
use std::collections::{HashMap, HashSet};

impl Plan {
    /// The edges, returns, reversed blocks and (combined mode) directly
    /// available blocks; the joins whose way in follows from a condition.
    pub(super) fn control(&mut self) -> Result<(), AdError> {
        let p = &self.p;
        for &b in &self.rpo {
            if let Some(t) = p.terminator(b) {
                for (slot, (dest, _)) in branch_dests(p.inst(t)).into_iter().enumerate() {
                    self.edges.entry(dest).or_default().push((b, slot));
                }
                if let InstKind::Sync { next, .. } = p.inst(t) {
                    self.edges.entry(*next).or_default().push((b, 0));
                }
                if matches!(p.inst(t), InstKind::Return(_)) {
                    self.returns.push(b);
                }
            }
        }
        for sp in &self.spawns {
            self.edges.insert(sp.cont, vec![(sp.detach, 0)]);
        }
        let mut reversed: HashSet<Block> = self.returns.iter().copied().collect();
        let mut work: Vec<Block> = self.returns.clone();
        while let Some(b) = work.pop() {
            for &pb in self.an.cfg.preds(b) {
                if self.an.cfg.is_reachable(pb) && reversed.insert(pb) {
                    work.push(pb);
                }
            }
        }
        for l in &self.ploops {
            for b in [l.header, l.spawn, l.latch] {
                reversed.remove(&b);
            }
        }
        self.reversed = reversed;
        if self.mode == Mode::Combined {
            for &b in &self.rpo {
                if self.an.loops.innermost(b).is_none()
                    && self
                        .returns
                        .iter()
                        .all(|&r| self.an.domtree.dominates(b, r))
                {
                    self.avail.insert(b);
                }
            }
        }
        // A block with several incoming edges records the one it was
        // entered by; a `sync` cannot say which.
        for &b in &self.rpo {
            let counted_header = self.counted.iter().any(|c| c.header == b);
            if b == self.p.layout[0]
                || counted_header
                || self.edges.get(&b).is_none_or(|e| e.len() < 2)
            {
                continue;
            }
            if self.an.cfg.preds(b).iter().any(|&pb| {
                self.p
                    .terminator(pb)
                    .is_some_and(|t| matches!(self.p.inst(t), InstKind::Sync { .. }))
            }) {
                return Err(err(
                    &self.p,
                    self.p.terminator(b),
                    "a block entered both by a `sync` and by branches cannot be differentiated yet",
                ));
            }
        }
        let joins: HashMap<Block, (Value, usize, usize)> = self
            .edges
            .iter()
            .filter_map(|(&b, edges)| Some((b, self.edge_by_condition(b, edges)?)))
            .collect();
        self.joins = joins;
        Ok(())
    }

    /// A join whose entering edge follows from one branch condition: `b`'s
    /// immediate dominator `d` ends in `brif c, T, E`, and of `b`'s two
    /// incoming edges one is `d`'s then-edge or leaves a block that only
    /// `T` (entered from `d` alone) dominates, the other likewise for `E`.
    /// The latest `d` before `b` then decided the way in, so the reverse
    /// can recompute `c` instead of recording the edge. Returns `c` and
    /// the indices (into `edges`) of the true and false edges.
    fn edge_by_condition(
        &self,
        b: Block,
        edges: &[(Block, usize)],
    ) -> Option<(Value, usize, usize)> {
        if edges.len() != 2 {
            return None;
        }
        let d = self.an.domtree.idom(b)?;
        let t = self.p.terminator(d)?;
        let InstKind::Brif {
            cond,
            then_dest,
            else_dest,
        } = self.p.inst(t)
        else {
            return None;
        };
        let (tb, eb) = (then_dest.block, else_dest.block);
        if tb == eb {
            return None;
        }
        let single_entry = |x: Block| x != b && self.an.cfg.preds(x) == [d];
        let side = |&(pred, slot): &(Block, usize)| -> Option<bool> {
            if pred == d {
                return Some(slot == 0);
            }
            if single_entry(tb) && self.an.domtree.dominates(tb, pred) {
                return Some(true);
            }
            if single_entry(eb) && self.an.domtree.dominates(eb, pred) {
                return Some(false);
            }
            None
        };
        match (side(&edges[0])?, side(&edges[1])?) {
            (true, false) => Some((*cond, 0, 1)),
            (false, true) => Some((*cond, 1, 0)),
            _ => None,
        }
    }
}
