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
