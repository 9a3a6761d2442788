//! The per-function analyses ([`FunctionAnalyses`]: CFG, dominator tree,
//! loops, task tree) of the pipeline's functions, kept between passes.
//!
//! Invariant: a cached entry is handed out only if the function's
//! [`Shape`] — everything those analyses read — equals the shape it was
//! computed from, compared exactly (no hash). The analyses read the
//! layout, and of each placed block its last instruction's id and, if
//! that is a terminator, its kind, successors and sync region (the task
//! tree also keeps the detach instruction's id), and whether sync region
//! numbers are in the arena. So validity does not depend on passes
//! reporting their changes: a pass that rewrites instructions but no
//! terminator (GVN, DSE, SCCP without folding a branch) keeps the entry,
//! and any edit of the CFG makes the next lookup compute afresh. Checking
//! costs one walk over the layout, far less than computing the analyses,
//! which is what makes the many passes with nothing to do on a function
//! (loop passes on a function without loops, Tapir passes on one without
//! tasks) cheap: they ask the cache and move on.

use parc_ir::analysis::FunctionAnalyses;
use parc_ir::{FuncId, Function, InstKind};
use std::rc::Rc;

/// The analyses of the functions seen so far, each with its [`Shape`].
#[derive(Debug, Default)]
pub struct AnalysisCache {
    entries: Vec<Option<(Shape, Rc<FunctionAnalyses>)>>,
    /// Lookups answered from the cache and computed afresh (`--stats`).
    pub hits: u64,
    pub misses: u64,
}

impl AnalysisCache {
    /// The analyses of `func`, the body of function `id`: the cached ones
    /// if `func` still has the shape they were computed from.
    pub fn get(&mut self, id: FuncId, func: &Function) -> Rc<FunctionAnalyses> {
        let shape = Shape::of(func);
        let i = id.as_u32() as usize;
        if i >= self.entries.len() {
            self.entries.resize_with(i + 1, || None);
        }
        if let Some((cached, an)) = &self.entries[i]
            && *cached == shape
        {
            self.hits += 1;
            return Rc::clone(an);
        }
        self.misses += 1;
        let an = Rc::new(FunctionAnalyses::compute(func));
        self.entries[i] = Some((shape, Rc::clone(&an)));
        an
    }
}

/// What [`FunctionAnalyses::compute`] reads of a function (see the module
/// doc), flattened into numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape(Vec<u32>);

/// No instruction, no region.
const NONE: u32 = u32::MAX;

impl Shape {
    pub fn of(func: &Function) -> Shape {
        let mut s = Vec::with_capacity(2 + 4 * func.layout.len());
        s.push(func.layout.len() as u32);
        s.push(func.sync_regions.len() as u32);
        for &b in &func.layout {
            s.push(b.as_u32());
            let last = func
                .blocks
                .get(b)
                .and_then(|data| data.insts.last().copied());
            let Some(last) = last else {
                s.push(NONE);
                continue;
            };
            s.push(last.as_u32());
            let Some(data) = func.insts.get(last) else {
                s.push(0);
                continue;
            };
            match data.kind {
                InstKind::Jump(ref d) => s.extend([1, d.block.as_u32()]),
                InstKind::Brif {
                    ref then_dest,
                    ref else_dest,
                    ..
                } => s.extend([2, then_dest.block.as_u32(), else_dest.block.as_u32()]),
                InstKind::Return(_) => s.push(3),
                InstKind::Unreachable => s.push(4),
                InstKind::Detach { region, task, cont } => {
                    s.extend([5, region.as_u32(), task.as_u32(), cont.as_u32()])
                }
                InstKind::Reattach { region, cont } => {
                    s.extend([6, region.as_u32(), cont.as_u32()])
                }
                InstKind::Sync { region, next } => s.extend([7, region.as_u32(), next.as_u32()]),
                // Not a terminator: the block has none.
                _ => s.push(0),
            }
        }
        Shape(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parc_ir::read::read_module;

    /// A loop (block1 jumps back to itself) and an exit.
    const LOOP: &str = "func @f(i32) -> i32 {
         block0(v0: i32):
             jump block1(v0)
         block1(v1: i32):
             v2 = iconst.i32 1
             v3 = isub v1, v2
             v4 = icmp sgt v3, v2
             brif v4, block1(v3), block2
         block2:
             return v1
         }";

    fn loop_headers(an: &FunctionAnalyses) -> Vec<u32> {
        an.loops
            .loops()
            .map(|l| an.loops.data(l).header.as_u32())
            .collect()
    }

    #[test]
    fn keeps_the_analyses_while_the_cfg_is_unchanged_and_recomputes_after() {
        let mut m = read_module(LOOP).unwrap();
        let id = m.funcs.keys().next().unwrap();
        let mut cache = AnalysisCache::default();
        let first = cache.get(id, &m.funcs[id]);
        assert_eq!(loop_headers(&first), vec![1]);
        assert_eq!((cache.hits, cache.misses), (0, 1));

        // A change of a non-terminator keeps them (as GVN's would).
        let f = &mut m.funcs[id];
        let sub = f.blocks[f.layout[1]].insts[1];
        f.insts[sub].kind = InstKind::Iconst(7);
        let again = cache.get(id, &m.funcs[id]);
        assert!(Rc::ptr_eq(&first, &again));
        assert_eq!((cache.hits, cache.misses), (1, 1));

        // Retargeting the back edge to the exit removes the loop: the cache
        // must see it and agree with analyses computed afresh.
        let f = &mut m.funcs[id];
        let (b1, b2) = (f.layout[1], f.layout[2]);
        let term = f.terminator(b1).unwrap();
        if let InstKind::Brif { then_dest, .. } = &mut f.insts[term].kind {
            then_dest.block = b2;
            then_dest.args.clear();
        }
        let after = cache.get(id, &m.funcs[id]);
        assert_eq!((cache.hits, cache.misses), (1, 2));
        assert!(loop_headers(&after).is_empty());
        let fresh = FunctionAnalyses::compute(&m.funcs[id]);
        assert_eq!(format!("{:?}", *after), format!("{fresh:?}"));
    }

    #[test]
    fn a_new_terminator_instruction_is_a_new_shape() {
        // Same kind and targets but another instruction id: the task tree
        // keeps detach ids, so the shape must differ.
        let mut m = read_module(LOOP).unwrap();
        let id = m.funcs.keys().next().unwrap();
        let before = Shape::of(&m.funcs[id]);
        let f = &mut m.funcs[id];
        let b2 = f.layout[2];
        let old = f.terminator(b2).unwrap();
        let kind = f.insts[old].kind.clone();
        let new = f.make_inst(kind, Default::default());
        *f.blocks[b2].insts.last_mut().unwrap() = new;
        assert_ne!(before, Shape::of(&m.funcs[id]));
    }
}
