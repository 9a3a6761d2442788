//! What the primal alone says about getting each of its values again in
//! the reverse ([`Recompute`], the plan's `recompute` table): whether a
//! value needs no record at all, can be computed again from its operands
//! or read again from memory nothing overwrites, or must be recorded
//! where the reverse needs it (and why). The record-or-recompute
//! decisions of the reverse walk ([`super::Sweep`]) read this table for every forward copy of a
//! primal value. Which loop's exit records a value a reverse block needs
//! ([`Plan::record_site`]) and which induction variables a reverse block
//! recomputes ([`Plan::induction`]) are plan queries by block. What
//! depends on the order of the reverse's needs (what a block has popped
//! already, and the minimum cut over what a recorded value is computed
//! from, which leaves those out) is decided by the plan's dry run of the
//! reverse walk (`needs.rs`).

use super::{Iv, is_position};
use crate::plan::{Mode, Plan};
use parc_ir::{Block, InstKind, Intrinsic, Type, Value};
use std::collections::HashMap;

/// True for the instructions the reverse computes again on their operands
/// whatever they are: integer and float arithmetic, casts, compares,
/// selects and address arithmetic (no memory, no call).
pub(crate) fn is_pure(kind: &InstKind) -> bool {
    matches!(
        kind,
        InstKind::Binary(..)
            | InstKind::Unary(..)
            | InstKind::Cast(..)
            | InstKind::PtrAdd(..)
            | InstKind::Icmp(..)
            | InstKind::Fcmp(..)
            | InstKind::Select(..)
    )
}

/// Why a block parameter the reverse needs is recorded.
pub(crate) const BLOCK_PARAMETER: &str = "a block parameter: which value depends on the way taken";

/// How the reverse gets a primal value again, wherever it needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recompute {
    /// No record: a parameter of the entry, a constant, an address of a
    /// global or function, where the thread is in its grid, or (combined
    /// mode) a value of a block that dominates every return outside any
    /// loop, which the reverse uses directly.
    Free,
    /// An induction variable of a counted or parallel loop: `lo + k·step`
    /// from the iteration its loop's reverse is in (elsewhere a block
    /// parameter, recorded).
    Induction,
    /// A parameter of a join whose way in follows from a branch condition
    /// (`Plan::joins`): `select` on that condition, where both arguments
    /// can be computed again without faulting.
    ByCondition,
    /// Computed again from its operands, where they can be obtained:
    /// integer and float arithmetic, casts, compares, selects, address
    /// arithmetic and the intrinsics that are a few machine instructions.
    FromOperands,
    /// A `sin x` or `cos x` whose adjoint rule computes the other of the
    /// two in the reverse anyway: computed again beside it (one `sincos`).
    PairedTrig,
    /// A load of memory that nothing writes before the reverse reads it:
    /// read again (its address obtained as any value).
    Reload(&'static str),
    /// Recorded where the reverse needs it (or the values of a cheapest cut
    /// it is computed from): the reason, where the value has one of its own.
    Record(Option<String>),
}

impl Recompute {
    /// The words `Plan`'s text prints.
    pub fn describe(&self) -> String {
        match self {
            Recompute::Free => "free".into(),
            Recompute::Induction => {
                "an induction variable: from the iteration its loop's reverse is in".into()
            }
            Recompute::ByCondition => {
                "a join's parameter: a select on the condition that chose the way in".into()
            }
            Recompute::FromOperands => "recomputed from its operands".into(),
            Recompute::PairedTrig => {
                "recomputed beside its adjoint's call of the other of sin and cos".into()
            }
            Recompute::Reload(why) => format!("read again: {why}"),
            Recompute::Record(None) => "recorded where the reverse needs it".into(),
            Recompute::Record(Some(why)) => format!("recorded where the reverse needs it: {why}"),
        }
    }
}

/// The plan's `recompute` table: every parameter and result of the
/// plan's reachable blocks. Needs the plan's activity, control (`avail`,
/// `joins`), loops and memory facts.
pub(crate) fn plan_recompute(plan: &Plan) -> HashMap<Value, Recompute> {
    let p = &plan.p;
    let entry = p.layout[0];
    let combined = plan.mode == Mode::Combined;
    let mut out = HashMap::new();
    for &b in &plan.rpo {
        let direct = combined && plan.avail.contains(&b);
        for &v in &p.blocks[b].params {
            let how = if b == entry || direct {
                Recompute::Free
            } else if plan.counted.iter().any(|c| c.ivs.contains_key(&v))
                || plan.ploops.iter().any(|l| l.iv == v)
            {
                Recompute::Induction
            } else if plan.joins.contains_key(&b) {
                Recompute::ByCondition
            } else {
                Recompute::Record(Some(BLOCK_PARAMETER.into()))
            };
            out.insert(v, how);
        }
        for &i in p.block_insts(b) {
            let Some(r) = p.result(i) else { continue };
            let kind = p.inst(i);
            let how = if is_position(kind) || direct {
                Recompute::Free
            } else {
                match kind {
                    _ if is_pure(kind) => Recompute::FromOperands,
                    InstKind::Load(ptr) => match reload_why(plan, *ptr, p.value_type(r)) {
                        Some(why) => Recompute::Reload(why),
                        None => Recompute::Record(Some(
                            "memory that may be overwritten before the reverse reads it".into(),
                        )),
                    },
                    InstKind::Intrinsic { op, .. } if op.is_cheap_arithmetic() => {
                        Recompute::FromOperands
                    }
                    InstKind::Intrinsic {
                        op: Intrinsic::Sin | Intrinsic::Cos,
                        ..
                    } if plan.act.is_varied(r) => Recompute::PairedTrig,
                    InstKind::Intrinsic { op, .. } => Recompute::Record(Some(format!(
                        "`{}` is not recomputed (a library call)",
                        op.name()
                    ))),
                    InstKind::Call { .. } | InstKind::CallIndirect { .. } => {
                        Recompute::Record(Some("the result of a call".into()))
                    }
                    _ => Recompute::Record(None),
                }
            };
            out.insert(r, how);
        }
    }
    out
}

/// Whether primal value `v` ([`Recompute`] `how`) has an instruction the
/// reverse may repeat on its operands.
pub(crate) fn repeats(how: &Recompute) -> bool {
    matches!(
        how,
        Recompute::FromOperands | Recompute::PairedTrig | Recompute::Reload(_)
    )
}

/// Why a load of type `ty` through primal pointer `ptr` may be read
/// again in the reverse, if it may: memory no code of the run writes
/// (`readonly.rs`), or, in combined mode, memory this function does not
/// write (in split mode the caller runs between `.aug` and `.rev`);
/// either as far as C's effective-type rule tells (`strict_aliasing.rs`).
pub(crate) fn reload_why(plan: &Plan, ptr: Value, ty: Type) -> Option<&'static str> {
    if plan.readonly.unchanged(&plan.p, &plan.act, ptr, ty) {
        Some("no code of the run writes its memory")
    } else if plan.mode == Mode::Combined && plan.writes.unchanged(&plan.act, ptr, ty) {
        Some("the function does not write its memory")
    } else {
        None
    }
}

impl Plan {
    /// Where a value defined in primal block `def` and needed by the
    /// reverse of `b` is better recorded: at the exit of the outermost
    /// loop around `b` that does not define it (once per execution of the
    /// loop instead of once per iteration); `None` for the frame of `b`.
    /// Spawned tasks are a barrier: their reverse runs on a tape of their
    /// own while the parent's is in use.
    pub fn record_site(&self, b: Block, def: Block) -> Option<Block> {
        let mut around: Vec<(usize, Option<Block>, bool)> = Vec::new();
        for c in &self.counted {
            if c.blocks.contains(&b) {
                around.push((c.blocks.len(), Some(c.exit), c.blocks.contains(&def)));
            }
        }
        for l in &self.ploops {
            if l.task_blocks.contains(&b) {
                around.push((
                    l.loop_blocks.len(),
                    Some(l.exit),
                    l.loop_blocks.contains(&def),
                ));
            }
        }
        for sp in &self.spawns {
            if sp.task_blocks.contains(&b) {
                around.push((sp.task_blocks.len(), None, true));
            }
        }
        around.sort_by_key(|a| a.0);
        let mut target = None;
        for (_, exit, defines) in around {
            match exit {
                Some(x) if !defines => target = Some(x),
                _ => break,
            }
        }
        target
    }

    /// The counted loop or parallel loop of which primal value `v` is an
    /// induction variable that the reverse of `b` recomputes (`b` is in
    /// the loop).
    pub fn induction(&self, b: Block, v: Value) -> Option<Iv> {
        for (i, c) in self.counted.iter().enumerate() {
            if c.ivs.contains_key(&v) && c.blocks.contains(&b) {
                return Some(Iv::Counted(i, v));
            }
        }
        for (i, l) in self.ploops.iter().enumerate() {
            if l.iv == v && l.task_blocks.contains(&b) {
                return Some(Iv::Parallel(i));
            }
        }
        None
    }
}
