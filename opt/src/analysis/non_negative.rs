//! Integers known to be non-negative (as signed numbers) where they are
//! used: from how they are computed, or from the branches that lead there.
//!
//! `while (length > 1) { mid = lo + length / 2; ... }` divides a value the
//! loop's test has just found positive, so the division by two is a shift
//! (`instcombine`): a signed division rounds towards zero, and for a
//! negative dividend needs two more instructions, which a binary search
//! pays on its critical path in every probe.
//!
//! `v` is non-negative in block `B` when
//! - it is an `iconst` of at least 0, a `zext` of a narrower integer, an
//!   `lshr` by a constant of at least 1, an `and` with a non-negative
//!   constant, or a `sext` or `select` of non-negative values; or
//! - a branch that leads to `B` tested it: some block `D` that dominates
//!   `B` (`B` itself included) has a single predecessor, which ends in a
//!   `brif` on `icmp CC v, k` (`k` a constant) whose arm into `D` (the other
//!   arm going elsewhere) is taken only when `v >= 0`: `sgt k >= -1`,
//!   `sge`, `eq`, `ult` or `ule` with `k >= 0` when the condition holds,
//!   `slt k >= 0`, `sle k >= -1` or `ne k >= 0` when it does not; or
//! - it is a block parameter each of whose incoming arguments is
//!   non-negative on its edge (by the rules above, the edge's own branch
//!   included), where a parameter still being examined counts as
//!   non-negative: values on a cycle of parameters start non-negative and
//!   every rule keeps them so.
//!
//! Each question looks at most [`MAX_DEPTH`] definitions and parameters
//! deep. The analysis keeps the blocks' terminators as they were when it
//! was computed, so it may be asked while a pass has a block's
//! instructions out (`instcombine` does): the answers hold as long as no
//! terminator changes but for its operands being replaced by equal values.

use crate::{HashMap, HashSet};
use parc_ir::analysis::{ControlFlowGraph, DominatorTree};
use parc_ir::{Block, CastOp, Function, InstKind, IntCC, Value, ValueDef};

/// How deep one question follows definitions and block parameters.
const MAX_DEPTH: u32 = 8;

pub struct NonNegative {
    cfg: ControlFlowGraph,
    domtree: DominatorTree,
    terminators: HashMap<Block, InstKind>,
}

impl NonNegative {
    pub fn compute(func: &Function) -> NonNegative {
        let cfg = ControlFlowGraph::compute(func);
        let domtree = DominatorTree::compute(&cfg);
        let terminators = func
            .layout
            .iter()
            .filter_map(|&b| Some((b, func.inst(func.terminator(b)?).clone())))
            .collect();
        NonNegative {
            cfg,
            domtree,
            terminators,
        }
    }

    /// True if `v` is known to be at least 0 wherever block `at` uses it.
    pub fn at(&self, func: &Function, v: Value, at: Block) -> bool {
        self.check(func, v, at, MAX_DEPTH, &mut HashSet::default())
    }

    fn check(
        &self,
        func: &Function,
        v: Value,
        at: Block,
        depth: u32,
        open: &mut HashSet<Value>,
    ) -> bool {
        let ty = func.value_type(v);
        if depth == 0 || !ty.is_int() || ty == parc_ir::Type::I1 {
            return false;
        }
        if self.by_definition(func, v, at, depth, open) {
            return true;
        }
        // The branches on the way to `at`.
        let mut cur = Some(at);
        while let Some(d) = cur {
            if !self.domtree.is_reachable(d) {
                return false;
            }
            if let [p] = self.cfg.preds(d)
                && *p != d
                && self.edge_tests(func, *p, d, v)
            {
                return true;
            }
            cur = self.domtree.idom(d);
        }
        false
    }

    fn by_definition(
        &self,
        func: &Function,
        v: Value,
        at: Block,
        depth: u32,
        open: &mut HashSet<Value>,
    ) -> bool {
        let i = match func.value_def(v) {
            ValueDef::Param(b, n) => return self.param(func, v, b, n as usize, depth, open),
            ValueDef::Result(i) => i,
        };
        let konst = |x: Value| func.const_int(x);
        match *func.inst(i) {
            InstKind::Iconst(_) => konst(v).is_some_and(|k| k >= 0),
            InstKind::Cast(CastOp::Zext, x) => {
                func.value_type(x).bits() < func.value_type(v).bits()
            }
            InstKind::Cast(CastOp::Sext, x) => self.check(func, x, at, depth - 1, open),
            InstKind::Binary(parc_ir::BinaryOp::Lshr, _, s) => {
                konst(s).is_some_and(|k| k & i64::from(func.value_type(v).bits() - 1) != 0)
            }
            InstKind::Binary(parc_ir::BinaryOp::And, a, b) => {
                konst(a).is_some_and(|k| k >= 0) || konst(b).is_some_and(|k| k >= 0)
            }
            InstKind::Select(_, a, b) => {
                self.check(func, a, at, depth - 1, open) && self.check(func, b, at, depth - 1, open)
            }
            _ => false,
        }
    }

    /// Parameter `n` of `block`: every incoming argument non-negative on
    /// its edge.
    fn param(
        &self,
        func: &Function,
        v: Value,
        block: Block,
        n: usize,
        depth: u32,
        open: &mut HashSet<Value>,
    ) -> bool {
        if !open.insert(v) {
            return true;
        }
        let preds = self.cfg.preds(block);
        let ok = !preds.is_empty()
            && preds.iter().all(|&p| {
                let Some(t) = self.terminators.get(&p) else {
                    return false;
                };
                let calls = t.block_calls();
                let into: Vec<_> = calls.iter().filter(|c| c.block == block).collect();
                // A `brif` with one arm here tests its condition on the way.
                let tested = into.len() == 1 && calls.len() == 2;
                !into.is_empty()
                    && into.iter().all(|c| {
                        c.args.get(n).is_some_and(|&a| {
                            (tested && self.edge_tests(func, p, block, a))
                                || self.check(func, a, p, depth - 1, open)
                        })
                    })
            });
        open.remove(&v);
        ok
    }

    /// True if the edge `from -> to` (one arm of `from`'s `brif`, the
    /// other going elsewhere) is taken only when `v >= 0`.
    fn edge_tests(&self, func: &Function, from: Block, to: Block, v: Value) -> bool {
        let Some(&InstKind::Brif {
            cond,
            ref then_dest,
            ref else_dest,
        }) = self.terminators.get(&from)
        else {
            return false;
        };
        if then_dest.block == else_dest.block {
            return false;
        }
        let holds = then_dest.block == to;
        let ValueDef::Result(c) = func.value_def(cond) else {
            return false;
        };
        let InstKind::Icmp(cc, x, y) = *func.inst(c) else {
            return false;
        };
        let Some(k) = func.const_int(y) else {
            return false;
        };
        if x != v {
            return false;
        }
        // `k` in the compared type's signed form.
        let k = parc_ir::sign_extend(k, func.value_type(y));
        match (cc, holds) {
            (IntCC::Sgt, true) | (IntCC::Sle, false) => k >= -1,
            (IntCC::Sge, true)
            | (IntCC::Eq, true)
            | (IntCC::Ult, true)
            | (IntCC::Ule, true)
            | (IntCC::Slt, false)
            | (IntCC::Ne, false) => k >= 0,
            _ => false,
        }
    }
}
