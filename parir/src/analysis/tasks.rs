//! The task tree: which blocks each detached task consists of, how tasks
//! nest, and where each sync region is detached, reattached and synced.
//!
//! The task of `detach within sr, T, C` (in block `D`) is the set of blocks
//! reachable from `T` without following the out-edge of a block that ends in
//! `reattach within _, C` (the task's exits), and without entering a block
//! that `T` does not dominate. In valid IR (the verifier's rule T1) the
//! second restriction changes nothing; in invalid IR it keeps a stray branch
//! out of a task from swallowing the parent's blocks, and the edge is
//! recorded in [`TaskData::escapes`] for the verifier to report.
//!
//! A task nested in another (a detach inside a task) is a subset of its
//! parent's blocks; each block's *innermost* task is the smallest task
//! containing it, and blocks in no task belong to the function body
//! (`None`). The continuation `C` is never part of the task.

use super::cfg::{ControlFlowGraph, terminator_kind};
use super::dom::DominatorTree;
use crate::entities::{Block, Inst, SyncRegion};
use crate::function::Function;
use crate::inst::InstKind;
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{EntityRef, EntitySet, PrimaryMap, SecondaryMap, entity_impl};

/// One detached task of a function (identified by its detach).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Task(u32);
entity_impl!(Task, "task");

#[derive(Clone, Debug)]
pub struct TaskData {
    /// The block ending in the detach, and the detach itself.
    pub detach_block: Block,
    pub detach: Inst,
    pub region: SyncRegion,
    /// The detach's task block, where the task starts.
    pub entry: Block,
    /// The detach's continuation.
    pub cont: Block,
    /// Blocks of the task that end in a `reattach` to `cont`, in layout
    /// order.
    pub reattaches: Vec<Block>,
    /// Blocks of the task that end in `return`, in layout order.
    pub returns: Vec<Block>,
    /// Edges `(from, to)` from a task block to a block outside the task
    /// other than a reattach to `cont`: branches out of the task.
    pub escapes: Vec<(Block, Block)>,
    /// The innermost task containing the detach (none: the function body).
    pub parent: Option<Task>,
    /// 1 for a task detached by the function body itself.
    pub depth: u32,
    /// The task's blocks: `TaskTree::order[start..end]`.
    start: u32,
    end: u32,
}

/// Where one sync region is used: blocks ending in a detach, reattach or
/// sync within it, in layout order.
#[derive(Clone, Debug, Default)]
pub struct RegionInfo {
    pub detaches: Vec<Block>,
    pub reattaches: Vec<Block>,
    pub syncs: Vec<Block>,
}

/// How the tasks' blocks are stored.
#[derive(Clone, Debug, Default)]
enum Form {
    /// Each task is the subtree of its entry in the dominator tree (see
    /// [`TaskTree::compute`]), so every task is a range of one list, the
    /// tree's preorder, and `index` places each block in it (plus one; 0:
    /// unreachable). Size and time linear in the function, however deep
    /// the tasks nest.
    #[default]
    Nested,
    /// Malformed IR: each task's blocks found by a search of their own,
    /// listed separately in layout order, with a membership set each.
    Separate(Vec<EntitySet<Block>>),
}

#[derive(Clone, Debug, Default)]
pub struct TaskTree {
    tasks: PrimaryMap<Task, TaskData>,
    order: Vec<Block>,
    index: SecondaryMap<Block, u32>,
    form: Form,
    /// Position of each placed block in the layout.
    layout: SecondaryMap<Block, u32>,
    innermost: SecondaryMap<Block, PackedOption<Task>>,
    by_detach: SecondaryMap<Block, PackedOption<Task>>,
    regions: SecondaryMap<SyncRegion, RegionInfo>,
}

impl TaskTree {
    /// The task of `detach within sr, T, C` is defined by a search (see the
    /// module doc). In IR where every task's entry `T` is immediately
    /// dominated by its detach's block and does not dominate `C`, that
    /// search finds exactly the blocks `T` dominates: each of them is
    /// reached from `T` by a path of blocks `T` dominates, which passes no
    /// reattach to `C` as `C` is not one of them. If moreover no task has a
    /// `return` or branches out, the tasks are computed as dominator
    /// subtrees in linear time; otherwise (malformed IR, for the verifier
    /// to report) each task's search runs on its own.
    pub fn compute(func: &Function, cfg: &ControlFlowGraph, domtree: &DominatorTree) -> TaskTree {
        let mut tree = TaskTree::default();
        for (i, &b) in cfg.blocks().iter().enumerate() {
            tree.layout[b] = i as u32;
        }
        for &b in cfg.blocks() {
            let Some(term) = terminator_kind(func, b) else {
                continue;
            };
            let (region, list) = match *term {
                InstKind::Detach { region, .. } => (region, 0),
                InstKind::Reattach { region, .. } => (region, 1),
                InstKind::Sync { region, .. } => (region, 2),
                _ => continue,
            };
            // A region number outside the arena is the verifier's to report;
            // indexing a side table with it could allocate without bound.
            if func.sync_regions.is_valid(region) {
                let info = &mut tree.regions[region];
                [&mut info.detaches, &mut info.reattaches, &mut info.syncs][list].push(b);
            }
            let InstKind::Detach {
                region, task, cont, ..
            } = *term
            else {
                continue;
            };
            let detach = *func.blocks[b].insts.last().expect("a terminator exists");
            let t = tree.tasks.push(TaskData {
                detach_block: b,
                detach,
                region,
                entry: task,
                cont,
                reattaches: Vec::new(),
                returns: Vec::new(),
                escapes: Vec::new(),
                parent: None,
                depth: 1,
                start: 0,
                end: 0,
            });
            tree.by_detach[b] = t.into();
        }
        if !tree.nest(func, cfg, domtree) {
            tree.search(func, cfg, domtree);
        }
        tree
    }

    /// Whether `task` has a block and thus a range of the dominator tree.
    fn has_blocks(cfg: &ControlFlowGraph, td: &TaskData) -> bool {
        cfg.is_placed(td.entry) && td.entry != td.cont
    }

    /// The [`Form::Nested`] tree, if the IR allows it (see [`compute`]);
    /// false leaves `self` to [`search`](Self::search).
    fn nest(&mut self, func: &Function, cfg: &ControlFlowGraph, domtree: &DominatorTree) -> bool {
        let mut entry_of: SecondaryMap<Block, PackedOption<Task>> = SecondaryMap::new();
        for (t, td) in self.tasks.iter_mut() {
            if !Self::has_blocks(cfg, td) {
                continue;
            }
            if domtree.idom(td.entry) != Some(td.detach_block)
                || domtree.dominates(td.entry, td.cont)
            {
                return false;
            }
            // Unique: a block has one immediate dominator, ending in one
            // detach.
            entry_of[td.entry] = t.into();
            let range = domtree.subtree(td.entry);
            (td.start, td.end) = (range.start as u32, range.end as u32);
        }
        self.order = domtree.preorder().to_vec();
        for (i, &b) in self.order.iter().enumerate() {
            self.index[b] = i as u32 + 1;
            // A parent precedes its children in the preorder.
            self.innermost[b] = match entry_of[b].expand() {
                Some(t) => t.into(),
                None => domtree
                    .idom(b)
                    .map_or(PackedOption::default(), |d| self.innermost[d]),
            };
        }
        // Tasks with blocks in preorder of their entries (parents first),
        // then those without.
        let with_blocks = self.order.iter().filter_map(|&b| entry_of[b].expand());
        let without: Vec<Task> = self
            .tasks
            .iter()
            .filter(|(_, td)| !Self::has_blocks(cfg, td))
            .map(|(t, _)| t)
            .collect();
        for t in with_blocks.collect::<Vec<_>>().into_iter().chain(without) {
            let parent = self.innermost[self.tasks[t].detach_block].expand();
            self.tasks[t].parent = parent;
            self.tasks[t].depth = parent.map_or(1, |p| self.tasks[p].depth + 1);
        }
        // A branch out of a task, or a return in one, is the search's to
        // describe. An edge leaves every task that holds its source but
        // not its target, innermost first; it is that task's exit when
        // the source reattaches to its continuation.
        for &x in &self.order {
            let term = terminator_kind(func, x);
            if matches!(term, Some(InstKind::Return(_))) && self.innermost[x].is_some() {
                return false;
            }
            let reattach_to = match term {
                Some(InstKind::Reattach { cont, .. }) => Some(*cont),
                _ => None,
            };
            for &s in cfg.succs(x) {
                let mut t = self.innermost[x].expand();
                while let Some(u) = t.filter(|&u| !self.contains(u, s)) {
                    if reattach_to != Some(self.tasks[u].cont) {
                        return false;
                    }
                    t = self.tasks[u].parent;
                }
            }
        }
        let mut by_cont: SecondaryMap<Block, Vec<Task>> = SecondaryMap::new();
        for (t, td) in self.tasks.iter() {
            if Self::has_blocks(cfg, td) {
                by_cont[td.cont].push(t);
            }
        }
        for &x in cfg.blocks() {
            if let Some(InstKind::Reattach { cont, .. }) = terminator_kind(func, x) {
                for &t in &by_cont[*cont] {
                    if self.contains(t, x) {
                        self.tasks[t].reattaches.push(x);
                    }
                }
            }
        }
        true
    }

    /// The [`Form::Separate`] tree: each task's blocks by a search from its
    /// entry, for IR [`nest`](Self::nest) refuses.
    fn search(&mut self, func: &Function, cfg: &ControlFlowGraph, domtree: &DominatorTree) {
        self.order.clear();
        self.index = SecondaryMap::new();
        self.innermost = SecondaryMap::new();
        let mut sets = Vec::with_capacity(self.tasks.len());
        for td in self.tasks.values_mut() {
            let (task, cont) = (td.entry, td.cont);
            let is_exit = |x: Block| {
                matches!(terminator_kind(func, x),
                    Some(InstKind::Reattach { cont: c, .. }) if *c == cont)
            };
            let mut members = EntitySet::new();
            let mut blocks: Vec<Block> = Vec::new();
            td.escapes.clear();
            (td.parent, td.depth) = (None, 1);
            if Self::has_blocks(cfg, td) {
                members.insert(task);
                blocks.push(task);
                let mut work = vec![task];
                while let Some(x) = work.pop() {
                    if is_exit(x) {
                        continue;
                    }
                    for &s in cfg.succs(x) {
                        if members.contains(s) {
                            continue;
                        }
                        if s != cont && domtree.dominates(task, s) {
                            members.insert(s);
                            blocks.push(s);
                            work.push(s);
                        } else {
                            td.escapes.push((x, s));
                        }
                    }
                }
            }
            blocks.sort_unstable_by_key(|&x| self.layout[x]);
            td.reattaches = blocks.iter().copied().filter(|&x| is_exit(x)).collect();
            td.returns = blocks
                .iter()
                .copied()
                .filter(|&x| matches!(terminator_kind(func, x), Some(InstKind::Return(_))))
                .collect();
            td.start = self.order.len() as u32;
            self.order.extend(blocks);
            td.end = self.order.len() as u32;
            sets.push(members);
        }
        self.form = Form::Separate(sets);

        // Nesting, as for loops: visit tasks from largest to smallest, so a
        // parent's depth is known before its children's and the last task
        // to claim a block is its innermost. The parent is then the last
        // task visited that contains the detach, which is the one that
        // claimed the detach's block last.
        let mut by_size: Vec<Task> = self.tasks.keys().collect();
        by_size.sort_by_key(|&t| std::cmp::Reverse(self.blocks(t).len()));
        for &t in &by_size {
            let d = self.tasks[t].detach_block;
            if let Some(p) = self.innermost[d].expand() {
                self.tasks[t].parent = Some(p);
                self.tasks[t].depth = self.tasks[p].depth + 1;
            }
            let td = &self.tasks[t];
            for &x in &self.order[td.start as usize..td.end as usize] {
                self.innermost[x] = t.into();
            }
        }
    }

    pub fn tasks(&self) -> impl Iterator<Item = Task> + '_ {
        self.tasks.keys()
    }

    pub fn data(&self, task: Task) -> &TaskData {
        &self.tasks[task]
    }

    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// The innermost task containing `block` (none: the function body).
    pub fn innermost(&self, block: Block) -> Option<Task> {
        self.innermost[block].expand()
    }

    /// The task started by the detach that ends `block`.
    pub fn task_of_detach(&self, block: Block) -> Option<Task> {
        self.by_detach[block].expand()
    }

    /// The blocks of `task` (its entry included, its continuation never)
    /// in no particular order: [`blocks_in_layout`](Self::blocks_in_layout)
    /// sorts them.
    pub fn blocks(&self, task: Task) -> &[Block] {
        let td = &self.tasks[task];
        &self.order[td.start as usize..td.end as usize]
    }

    /// The blocks of `task` in layout order.
    pub fn blocks_in_layout(&self, task: Task) -> Vec<Block> {
        let mut blocks = self.blocks(task).to_vec();
        blocks.sort_unstable_by_key(|&b| self.layout[b]);
        blocks
    }

    /// True if every task is the subtree of its entry in the dominator
    /// tree (see [`compute`](Self::compute)): so in valid IR, where a task
    /// is entered only from its detach and left only by its reattaches.
    pub fn are_subtrees(&self) -> bool {
        matches!(self.form, Form::Nested)
    }

    pub fn contains(&self, task: Task, block: Block) -> bool {
        match &self.form {
            Form::Nested => {
                let (td, i) = (&self.tasks[task], self.index[block]);
                td.start < i && i <= td.end
            }
            Form::Separate(sets) => sets[task.index()].contains(block),
        }
    }

    /// True if `outer` is `inner` or one of its ancestors (none, the
    /// function body, encloses everything).
    pub fn encloses(&self, outer: Option<Task>, inner: Option<Task>) -> bool {
        let Some(outer) = outer else { return true };
        let mut cur = inner;
        while let Some(t) = cur {
            if t == outer {
                return true;
            }
            cur = self.tasks[t].parent;
        }
        false
    }

    /// Uses of `region` (empty if it is never used or out of range).
    pub fn region(&self, region: SyncRegion) -> &RegionInfo {
        &self.regions[region]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::{FuncBuilder, new_function};
    use crate::function::Signature;
    use crate::types::Type;

    /// b0: detach sr0, b1, b4
    ///   b1: detach sr1, b2, b3        (nested task)
    ///     b2: reattach sr1, b3
    ///   b3: sync sr1, b5 ; b5: reattach sr0, b4
    /// b4: sync sr0, b6 ; b6: return
    fn nested() -> (Function, Vec<Block>) {
        let mut f = new_function("t", Signature::default());
        let b0 = f.layout[0];
        let sr0 = f.create_sync_region();
        let sr1 = f.create_sync_region();
        let mut b = FuncBuilder::new(&mut f);
        let bs: Vec<Block> = std::iter::once(b0)
            .chain((0..6).map(|_| b.create_block()))
            .collect();
        b.switch_to(bs[0]);
        b.detach(sr0, bs[1], bs[4]);
        b.switch_to(bs[1]);
        b.detach(sr1, bs[2], bs[3]);
        b.switch_to(bs[2]);
        b.iconst(Type::I32, 1);
        b.reattach(sr1, bs[3]);
        b.switch_to(bs[3]);
        b.sync(sr1, bs[5]);
        b.switch_to(bs[5]);
        b.reattach(sr0, bs[4]);
        b.switch_to(bs[4]);
        b.sync(sr0, bs[6]);
        b.switch_to(bs[6]);
        b.ret(None);
        (f, bs)
    }

    #[test]
    fn task_tree() {
        let (f, bs) = nested();
        let cfg = ControlFlowGraph::compute(&f);
        let dt = DominatorTree::compute(&cfg);
        let tt = TaskTree::compute(&f, &cfg, &dt);
        assert_eq!(tt.len(), 2);
        let outer = tt.task_of_detach(bs[0]).unwrap();
        let inner = tt.task_of_detach(bs[1]).unwrap();
        let o = tt.data(outer);
        assert_eq!(tt.blocks_in_layout(outer), vec![bs[1], bs[2], bs[3], bs[5]]);
        assert_eq!(o.reattaches, vec![bs[5]]);
        assert_eq!(
            (o.entry, o.cont, o.depth, o.parent),
            (bs[1], bs[4], 1, None)
        );
        assert!(o.escapes.is_empty() && o.returns.is_empty());
        let i = tt.data(inner);
        assert_eq!(tt.blocks(inner), [bs[2]]);
        assert_eq!((i.parent, i.depth), (Some(outer), 2));
        assert_eq!(tt.innermost(bs[2]), Some(inner));
        assert_eq!(tt.innermost(bs[3]), Some(outer));
        assert_eq!(tt.innermost(bs[1]), Some(outer));
        assert_eq!(tt.innermost(bs[4]), None);
        assert_eq!(tt.innermost(bs[0]), None);
        assert!(tt.encloses(Some(outer), Some(inner)));
        assert!(!tt.encloses(Some(inner), Some(outer)));
        assert!(tt.encloses(None, Some(inner)));
        assert!(!tt.encloses(Some(inner), None));
        let r0 = tt.region(SyncRegion::from_u32(0));
        assert_eq!(r0.detaches, vec![bs[0]]);
        assert_eq!(r0.reattaches, vec![bs[5]]);
        assert_eq!(r0.syncs, vec![bs[4]]);
        assert!(tt.region(SyncRegion::from_u32(7)).detaches.is_empty());
    }

    #[test]
    fn escapes_and_returns_are_recorded() {
        let (mut f, bs) = nested();
        // The inner task jumps to the outer continuation instead of
        // reattaching, and the outer task's exit becomes a return.
        let t = *f.blocks[bs[2]].insts.last().unwrap();
        *f.inst_mut(t) = InstKind::Jump(crate::inst::BlockCall::to(bs[4]));
        let t = *f.blocks[bs[5]].insts.last().unwrap();
        *f.inst_mut(t) = InstKind::Return(None);
        let cfg = ControlFlowGraph::compute(&f);
        let dt = DominatorTree::compute(&cfg);
        let tt = TaskTree::compute(&f, &cfg, &dt);
        let outer = tt.task_of_detach(bs[0]).unwrap();
        let inner = tt.task_of_detach(bs[1]).unwrap();
        assert_eq!(tt.data(inner).escapes, vec![(bs[2], bs[4])]);
        assert_eq!(tt.data(outer).escapes, vec![(bs[2], bs[4])]);
        assert_eq!(tt.data(outer).returns, vec![bs[5]]);
        assert!(tt.data(outer).reattaches.is_empty());
    }

    /// The two forms agree wherever the nested one applies: every function
    /// with a detach in the filetests, computed both ways.
    #[test]
    fn nested_form_matches_the_search() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/filetests");
        let mut dirs = vec![std::path::PathBuf::from(root)];
        let (mut nested, mut separate) = (0, 0);
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                if path.extension().is_none_or(|e| e != "pir") || !text.contains("detach") {
                    continue;
                }
                let Ok(m) = crate::read::read_module(&text) else {
                    continue;
                };
                for f in m.funcs.values() {
                    let cfg = ControlFlowGraph::compute(f);
                    let dt = DominatorTree::compute(&cfg);
                    let fast = TaskTree::compute(f, &cfg, &dt);
                    let mut slow = fast.clone();
                    slow.search(f, &cfg, &dt);
                    match fast.form {
                        Form::Nested => nested += 1,
                        Form::Separate(_) => separate += 1,
                    }
                    let at = format!("{} in {}", f.name, path.display());
                    for t in fast.tasks() {
                        let (a, b) = (fast.data(t), slow.data(t));
                        assert_eq!(fast.blocks_in_layout(t), slow.blocks(t), "{at}");
                        assert_eq!(
                            (&a.reattaches, &a.returns, &a.escapes, a.parent, a.depth),
                            (&b.reattaches, &b.returns, &b.escapes, b.parent, b.depth),
                            "{at}"
                        );
                        for &x in cfg.blocks() {
                            assert_eq!(fast.contains(t, x), slow.contains(t, x), "{at}");
                        }
                    }
                    for &x in cfg.blocks() {
                        assert_eq!(fast.innermost(x), slow.innermost(x), "{at}");
                    }
                }
            }
        }
        // Both forms were exercised (the verifier's filetests hold
        // malformed tasks).
        assert!(
            nested > 20 && separate > 0,
            "{nested} nested, {separate} separate"
        );
    }

    /// A parallel loop: the task is the loop body, inside the natural loop.
    #[test]
    fn parallel_loop_task_inside_loop() {
        let m = crate::read::read_module(include_str!(
            "../../../tests/filetests/verify/parallel_loop.pir"
        ))
        .unwrap();
        let f = &m.funcs[crate::FuncId::from_u32(0)];
        let a = crate::analysis::FunctionAnalyses::compute(f);
        let b = |n| Block::from_u32(n);
        assert_eq!(a.tasks.len(), 1);
        let t = a.tasks.task_of_detach(b(2)).unwrap();
        assert_eq!(a.tasks.blocks(t), [b(3)]);
        assert_eq!(a.tasks.data(t).cont, b(4));
        assert_eq!(a.tasks.innermost(b(4)), None);
        let lp = a.loops.loop_headed_by(b(1)).unwrap();
        let mut blocks = a.loops.data(lp).blocks.to_vec();
        blocks.sort();
        assert_eq!(blocks, vec![b(1), b(2), b(3), b(4)]);
        assert_eq!(a.loops.data(lp).exits, vec![b(5)]);
        assert_eq!(a.loops.data(lp).preheader, Some(b(0)));
        assert_eq!(a.loops.data(lp).latches, vec![b(4)]);
        let r = a.tasks.region(SyncRegion::from_u32(0));
        assert_eq!(
            (r.detaches.clone(), r.syncs.clone()),
            (vec![b(2)], vec![b(5)])
        );
    }
}
