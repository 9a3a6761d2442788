//! Scratch memory of a segment (`outline.rs`): what a checkpoint's
//! snapshot may leave out.
//!
//! A root the segment writes (`writes.rs`) is *scratch* when every
//! iteration of its loop writes every byte of it that the iteration reads
//! before reading it: a segment run again from a snapshot then computes
//! the same whatever the root held when it started, so the snapshot need
//! not keep it (the time loop of an explicit simulation fills its array
//! of forces from the positions in every step before it reads it).
//!
//! The proof, per root: every read of it anywhere in the segment function
//! (a `load`, an intrinsic's read, a callee's read where it is called) is
//! *covered*: inside the time loop and dominated there by a *sure write*
//! of exactly the same extent (`[lo, hi)` and condition, as expressions of
//! the parameters) that is done by then. A sure write is
//! - a `store` at `root + k·i + c` where `i` counts up by 1 from an
//!   invariant start below an invariant bound in a loop `L` that leaves
//!   only from its header, `k` is the size stored, and the store runs in
//!   every iteration of `L` (its block dominates `L`'s latches, or it is
//!   the whole task a detach in such a block starts, as a `parallel_for`
//!   lowers): it is done at `L`'s exit; or
//! - a call of a function whose summary has it: a function's sure writes
//!   are those of its outermost loops whose exits dominate its returns,
//!   done when the call returns.
//!
//! Anything the analysis cannot follow (a read through a pointer loaded
//! from memory or computed, an indirect call, an intrinsic that may read
//! any memory, recursion) leaves every root in the snapshot: the answer
//! errs only towards keeping memory.

use super::writes::{Expr, Root, Walk, Written};
use parc_ir::intrinsic::Extent as Touch;
use parc_ir::{Block, FuncId, Inst, InstKind, Module, Value, ValueDef};
use std::collections::HashMap;

/// What a function reads (every extent it may read) and what it surely
/// writes before it returns.
#[derive(Clone, Default)]
struct Access {
    reads: Vec<Written>,
    sure: Vec<Written>,
}

/// Access summaries of the functions analysed so far (`None` while one is
/// analysed, or where it cannot be followed).
#[derive(Default)]
pub struct Accesses {
    done: HashMap<FuncId, Option<Access>>,
}

impl Accesses {
    fn of(&mut self, m: &Module, f: FuncId) -> Option<Access> {
        if let Some(a) = self.done.get(&f) {
            return a.clone();
        }
        self.done.insert(f, None);
        let a = events(m, f, self).map(|(walk, evs)| {
            let returns: Vec<Block> = walk
                .f
                .layout
                .iter()
                .copied()
                .filter(|&b| {
                    walk.f
                        .terminator(b)
                        .is_some_and(|t| matches!(walk.f.inst(t), InstKind::Return(_)))
                })
                .collect();
            let mut acc = Access::default();
            for e in evs {
                match e.kind {
                    Kind::Read => acc.reads.push(e.w),
                    Kind::Sure { outer: None } => {
                        if returns
                            .iter()
                            .all(|&r| walk.an.domtree.dominates(e.block, r))
                        {
                            acc.sure.push(e.w);
                        }
                    }
                    Kind::Sure { .. } | Kind::Called => {}
                }
            }
            acc
        });
        self.done.insert(f, a.clone());
        a
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Read,
    /// A store's sure write, done at `block` (its loop's exit); `outer`:
    /// the loop around its loop.
    Sure {
        outer: Option<parc_ir::analysis::Loop>,
    },
    /// A callee's sure write, done at its call.
    Called,
}

/// A read or a sure write at instruction `at` of `block` (a store's sure
/// write: at the start of its loop's exit).
struct Event {
    block: Block,
    at: usize,
    kind: Kind,
    w: Written,
}

/// Every read and sure write of function `fid`, or `None` if one cannot
/// be followed.
fn events<'m>(m: &'m Module, fid: FuncId, acc: &mut Accesses) -> Option<(Walk<'m>, Vec<Event>)> {
    let mut walk = Walk::new(m, fid);
    let f = walk.f;
    let mut out = Vec::new();
    let blocks: Vec<Block> = f.layout.clone();
    for b in blocks {
        if !walk.an.cfg.is_reachable(b) {
            continue;
        }
        for (at, &i) in f.blocks[b].insts.iter().enumerate() {
            let read = |walk: &mut Walk, ptr: Value, len: Expr| -> Option<Option<Written>> {
                let Some((root, off)) = walk.root(ptr, i).ok()? else {
                    return Some(None);
                };
                let mut w = walk.range(b, i, off).ok()?;
                w.root = root;
                w.hi = Expr::add(w.hi, len);
                Some(Some(w))
            };
            match f.inst(i).clone() {
                InstKind::Load(ptr) => {
                    let size = f.value_type(f.result(i)?).bytes() as i64;
                    if let Some(w) = read(&mut walk, ptr, Expr::Const(size))? {
                        out.push(Event {
                            block: b,
                            at,
                            kind: Kind::Read,
                            w,
                        });
                    }
                }
                InstKind::Store { value, ptr } => {
                    let size = f.value_type(value).bytes() as i64;
                    if let Some((w, exit, outer)) = sure_store(&mut walk, b, i, ptr, size) {
                        out.push(Event {
                            block: exit,
                            at: 0,
                            kind: Kind::Sure { outer },
                            w,
                        });
                    }
                }
                InstKind::Intrinsic { op, args } => {
                    let e = op.effects();
                    if e.any_memory {
                        return None;
                    }
                    for t in e.reads {
                        let w = match *t {
                            Touch::Sized { ptr, len } => {
                                let len = walk.invariant(args[len], i).ok()?;
                                read(&mut walk, args[ptr], len)?
                            }
                            Touch::Fixed { ptr, size } => {
                                read(&mut walk, args[ptr], Expr::Const(size as i64))?
                            }
                            Touch::TypeOf { ptr, like } => {
                                let size = f.value_type(args[like]).bytes() as i64;
                                read(&mut walk, args[ptr], Expr::Const(size))?
                            }
                            Touch::Unsized(_) | Touch::Pointers { .. } => return None,
                        };
                        if let Some(w) = w {
                            out.push(Event {
                                block: b,
                                at,
                                kind: Kind::Read,
                                w,
                            });
                        }
                    }
                }
                InstKind::Call { func, args } => {
                    let callee = acc.of(m, func)?;
                    for (ws, kind) in [(callee.reads, Kind::Read), (callee.sure, Kind::Called)] {
                        for w in ws {
                            if let Some(w) = walk.instance(b, i, &args, &w).ok()? {
                                out.push(Event {
                                    block: b,
                                    at,
                                    kind,
                                    w,
                                });
                            }
                        }
                    }
                }
                InstKind::CallIndirect { .. } | InstKind::Launch { .. } => return None,
                _ => {}
            }
        }
    }
    Some((walk, out))
}

/// The extent a `store` of `size` bytes at `ptr` surely writes (module
/// doc), with its loop's exit and the loop around that loop.
fn sure_store(
    walk: &mut Walk,
    b: Block,
    i: Inst,
    ptr: Value,
    size: i64,
) -> Option<(Written, Block, Option<parc_ir::analysis::Loop>)> {
    let (root, off) = walk.root(ptr, i).ok()??;
    let [(iv, Expr::Const(k))] = off.terms[..] else {
        return None;
    };
    if k != size || walk.iv_range(iv, i).ok()?.step != 1 {
        return None;
    }
    let f = walk.f;
    let ValueDef::Param(h, _) = f.value_def(iv) else {
        return None;
    };
    let lp = walk.an.loops.loop_headed_by(h)?;
    let ld = walk.an.loops.data(lp);
    let [exit] = ld.exits[..] else { return None };
    let from_header = walk
        .an
        .cfg
        .preds(exit)
        .iter()
        .all(|&p| p == h || !ld.contains(p));
    let every = |blk: Block| {
        ld.latches
            .iter()
            .all(|&l| walk.an.domtree.dominates(blk, l))
    };
    let runs = every(b)
        || (f
            .terminator(b)
            .is_some_and(|t| matches!(f.inst(t), InstKind::Reattach { .. }))
            && ld.blocks.iter().any(|&d| {
                f.terminator(d).is_some_and(
                    |t| matches!(f.inst(t), InstKind::Detach { task, .. } if *task == b),
                ) && every(d)
            }));
    if !from_header || !runs {
        return None;
    }
    let outer = ld.parent;
    let mut w = walk.range(b, i, off).ok()?;
    w.root = root;
    w.hi = Expr::add(w.hi, Expr::Const(size));
    Some((w, exit, outer))
}

/// The roots of `writes` that segment function `seg` only uses as
/// scratch (module doc); none if its time loop cannot be found. Extents
/// are compared after `seg`'s parameter `i` is replaced by `args[i]`
/// (what its caller passes, where known: a bound the caller computed
/// once, `n - 1`, then equals the one a callee computes from `n`).
pub fn scratch(
    m: &Module,
    seg: FuncId,
    writes: &[Written],
    args: &[Expr],
    acc: &mut Accesses,
) -> Vec<Root> {
    let Some((walk, mut evs)) = events(m, seg, acc) else {
        return Vec::new();
    };
    if args.len() == m.funcs[seg].sig.params.len() {
        for e in &mut evs {
            e.w.lo = e.w.lo.subst(args);
            e.w.hi = e.w.hi.subst(args);
            e.w.ne = e.w.ne.subst(args);
        }
    }
    let an = &walk.an;
    let Some(time) = an
        .loops
        .loops()
        .find(|&l| an.loops.data(l).parent.is_none())
    else {
        return Vec::new();
    };
    let td = an.loops.data(time);
    let done_by = |w: &Event, r: &Event| {
        td.contains(w.block)
            && td.contains(r.block)
            && an.domtree.dominates(w.block, r.block)
            && (w.block != r.block || w.at < r.at)
            && match w.kind {
                Kind::Sure { outer } => outer == Some(time),
                Kind::Called => true,
                Kind::Read => false,
            }
            && w.w == r.w
    };
    let mut roots: Vec<Root> = Vec::new();
    for w in writes {
        if !roots.contains(&w.root) {
            roots.push(w.root);
        }
    }
    roots.retain(|&root| {
        evs.iter()
            .filter(|r| r.kind == Kind::Read && r.w.root == root)
            .all(|r| evs.iter().any(|w| done_by(w, r)))
    });
    roots
}
