//! A kernel cut at its barriers into barrier-free regions, and the values
//! live across each cut.
//!
//! # Invariants of a [`Split`]
//!
//! - `func` is the kernel with every block that holds a barrier cut right
//!   after it: each barrier is the last instruction before a `jump` (no
//!   arguments) to a fresh block holding what followed the barrier, which
//!   has no parameters and no other predecessor. Nothing else changes, so
//!   values, their types and source positions are the kernel's.
//! - Barrier `j` (in `barriers`, numbered in layout order over the blocks
//!   reachable from the entry) ends block `barriers[j].block`; its exit
//!   code is `j + 1`. Exit code 0 is `return`.
//! - Region 0 starts at the entry; region `c >= 1` starts at the block
//!   after the barrier of exit code `c`. `regions[c]` is `None` when no
//!   thread can get there (its barrier is not reachable from the entry
//!   through other regions).
//! - A region's blocks are those reachable from its start without
//!   passing a barrier (edges out of a barrier's block are not followed),
//!   in reverse postorder of that subgraph, so a block comes after every
//!   block that dominates it there. Its start has no predecessor in the
//!   region (an entry has none at all; a block after a barrier has only
//!   the barrier's block, which ends another path), so the start
//!   dominates the region.
//! - `exits` lists the codes of the barriers and returns in the region,
//!   sorted; `live_in` the values live on entry to the start block
//!   (computed on `func` with the barrier edges in place, so a value used
//!   after a barrier is live across it), sorted.
//!
//! These make the block function's SSA argument work (see `build.rs`): a
//! value defined in a region either dominates its uses in the region or
//! is live into the region's start.

use cranelift_entity::EntityRef;
use parc_ir::{Block, Function, Inst, InstKind, Intrinsic, Value, ValueDef};

/// Barrier `j`: the block it ends and the block it was cut from.
pub(super) struct Barrier {
    pub block: Block,
    pub next: Block,
    pub inst: Inst,
}

pub(super) struct Region {
    pub start: Block,
    pub blocks: Vec<Block>,
    pub exits: Vec<u32>,
    pub live_in: Vec<Value>,
}

impl Region {
    /// Instructions a copy of this region holds.
    pub fn size(&self, f: &Function) -> usize {
        self.blocks.iter().map(|&b| f.block_insts(b).len()).sum()
    }
}

pub(super) struct Split {
    pub func: Function,
    pub barriers: Vec<Barrier>,
    pub regions: Vec<Option<Region>>,
    /// The block of every placed instruction of `func`, by `Inst` index.
    pub inst_block: Vec<Option<Block>>,
}

impl Split {
    /// The block defining `v` in `func`, if it is placed.
    pub fn def_block(&self, v: Value) -> Option<Block> {
        match self.func.value_def(v) {
            ValueDef::Result(i) => self.inst_block.get(i.index()).copied().flatten(),
            ValueDef::Param(b, _) => Some(b),
        }
    }
}

fn is_barrier(f: &Function, i: Inst) -> bool {
    matches!(
        f.inst(i),
        InstKind::Intrinsic {
            op: Intrinsic::Barrier,
            ..
        }
    )
}

/// Cuts `kernel` at its barriers and finds its regions (see the module doc).
pub(super) fn split(kernel: &Function) -> Split {
    let mut func = kernel.clone();
    let reachable = reverse_postorder(&func, func.entry(), |_| true);
    let mut barriers = Vec::new();
    // Cut every reachable block after each barrier; the rest (the new
    // block) is looked at again, as it may hold further barriers.
    let mut work: Vec<Block> = reachable.into_iter().rev().collect();
    while let Some(b) = work.pop() {
        let insts = &func.blocks[b].insts;
        let Some(at) = insts.iter().position(|&i| is_barrier(&func, i)) else {
            continue;
        };
        let inst = insts[at];
        let rest = func.blocks[b].insts.split_off(at + 1);
        let next = func.create_block();
        func.blocks[next].insts = rest;
        func.append_inst(b, InstKind::Jump(parc_ir::BlockCall::to(next)), None);
        let pos = func.layout.iter().position(|&x| x == b).unwrap_or(0);
        func.layout.insert(pos + 1, next);
        barriers.push(Barrier {
            block: b,
            next,
            inst,
        });
        work.push(next);
    }
    // Number barriers in layout order, so that exit codes do not depend
    // on the order of the work list.
    let pos_of = |b: Block| func.layout.iter().position(|&x| x == b);
    barriers.sort_by_key(|bar| pos_of(bar.block));

    let mut inst_block = vec![None; func.insts.len()];
    for (b, i) in func.placed_insts() {
        inst_block[i.index()] = Some(b);
    }
    let barrier_of: std::collections::HashMap<Block, u32> = barriers
        .iter()
        .enumerate()
        .map(|(j, bar)| (bar.block, j as u32 + 1))
        .collect();

    let mut regions: Vec<Option<Region>> = (0..=barriers.len()).map(|_| None).collect();
    let mut queue = vec![0u32];
    while let Some(code) = queue.pop() {
        if regions[code as usize].is_some() {
            continue;
        }
        let start = match code {
            0 => func.entry(),
            c => Some(barriers[c as usize - 1].next),
        };
        let Some(start) = start else { break };
        let blocks = reverse_postorder(&func, Some(start), |b| !barrier_of.contains_key(&b));
        let mut exits = Vec::new();
        for &b in &blocks {
            if let Some(&c) = barrier_of.get(&b) {
                exits.push(c);
                queue.push(c);
            } else if let Some(t) = func.terminator(b)
                && matches!(func.inst(t), InstKind::Return(_))
            {
                exits.push(0);
            }
        }
        exits.sort_unstable();
        exits.dedup();
        regions[code as usize] = Some(Region {
            start,
            blocks,
            exits,
            live_in: Vec::new(),
        });
    }

    let live = Liveness::compute(&func);
    for r in regions.iter_mut().flatten() {
        r.live_in = live.live_in(r.start);
    }
    Split {
        func,
        barriers,
        regions,
        inst_block,
    }
}

/// Blocks reachable from `start`, following the successors of blocks for
/// which `follow` holds, in reverse postorder.
pub(super) fn reverse_postorder(
    f: &Function,
    start: Option<Block>,
    follow: impl Fn(Block) -> bool,
) -> Vec<Block> {
    let Some(start) = start else {
        return Vec::new();
    };
    let mut seen = std::collections::HashSet::from([start]);
    let mut post = Vec::new();
    let mut stack = vec![(start, 0usize)];
    while let Some(&mut (b, ref mut next)) = stack.last_mut() {
        let succs = if follow(b) {
            f.successors(b)
        } else {
            Vec::new()
        };
        if let Some(&s) = succs.get(*next) {
            *next += 1;
            if seen.insert(s) {
                stack.push((s, 0));
            }
        } else {
            post.push(b);
            stack.pop();
        }
    }
    post.reverse();
    post
}

/// A set of values as a bit vector.
#[derive(Clone, PartialEq)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }

    fn insert(&mut self, v: Value) {
        self.0[v.index() / 64] |= 1 << (v.index() % 64);
    }

    fn remove(&mut self, v: Value) {
        self.0[v.index() / 64] &= !(1 << (v.index() % 64));
    }

    fn union_with(&mut self, o: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }

    fn values(&self) -> Vec<Value> {
        let mut out = Vec::new();
        for (w, &word) in self.0.iter().enumerate() {
            let mut rest = word;
            while rest != 0 {
                let bit = rest.trailing_zeros() as usize;
                out.push(Value::from_u32((w * 64 + bit) as u32));
                rest &= rest - 1;
            }
        }
        out
    }
}

/// Live-in sets of the blocks reachable from the entry (SSA liveness:
/// block-call arguments are used at the end of the branching block, a
/// block's parameters are defined at its start).
struct Liveness {
    live_in: std::collections::HashMap<Block, Bits>,
}

impl Liveness {
    fn compute(f: &Function) -> Liveness {
        let order = reverse_postorder(f, f.entry(), |_| true);
        let n = f.values.len();
        // Per block: upward-exposed uses and definitions.
        let mut gen_kill = std::collections::HashMap::new();
        for &b in &order {
            let mut uses = Bits::new(n);
            let mut defs = Bits::new(n);
            for &p in f.block_params(b) {
                defs.insert(p);
            }
            // Backwards, so a use after a definition in the block is not
            // upward-exposed.
            for &i in f.block_insts(b).iter().rev() {
                if let Some(r) = f.result(i) {
                    defs.insert(r);
                    uses.remove(r);
                }
                f.inst(i).for_each_operand(|v| uses.insert(v));
            }
            for &p in f.block_params(b) {
                uses.remove(p);
            }
            gen_kill.insert(b, (uses, defs));
        }
        let mut live_in: std::collections::HashMap<Block, Bits> =
            order.iter().map(|&b| (b, Bits::new(n))).collect();
        let mut changed = true;
        while changed {
            changed = false;
            for &b in order.iter().rev() {
                let mut out = Bits::new(n);
                for s in f.successors(b) {
                    if let Some(l) = live_in.get(&s) {
                        out.union_with(l);
                    }
                }
                let (uses, defs) = &gen_kill[&b];
                for (o, d) in out.0.iter_mut().zip(&defs.0) {
                    *o &= !d;
                }
                out.union_with(uses);
                if live_in[&b] != out {
                    live_in.insert(b, out);
                    changed = true;
                }
            }
        }
        Liveness { live_in }
    }

    fn live_in(&self, b: Block) -> Vec<Value> {
        self.live_in.get(&b).map(Bits::values).unwrap_or_default()
    }
}
