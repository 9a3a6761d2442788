//! What the lowering decides before it changes any function: for each
//! task of each host function, whether it is a parallel loop, the helper
//! it becomes (its name and id), and the order in which tasks are lowered.
//!
//! # Innermost first
//!
//! Tasks are lowered in a post-order of each function's task tree, as
//! OpenCilk's TapirToTarget processes them, and all in the function that
//! detaches them: when a task is outlined, the tasks nested in it already
//! are, so its helper receives only the task's own blocks (and what
//! lowering its children put there), each block moves once, and the
//! function's analyses, computed once, serve every task. Outlining the
//! outermost task first made each helper a copy of the whole nest below it,
//! to be analysed and outlined again: quadratic in the nesting depth.
//!
//! Each task's loop shape is matched (and the pure code above its detach
//! sunk into it, see `loops.rs`) before anything is lowered, parents before
//! children, as outermost-first lowering did: the matcher asks about the
//! code as the front end and the optimizer left it.
//!
//! # Helpers
//!
//! Helpers are named and numbered in the order outermost-first lowering
//! made them: breadth first over the module — the helpers of every
//! function's outermost tasks, then those of the tasks nested in them, and
//! so on. A task's helper is `<parent>.task<N>` (a spawn) or
//! `<parent>.loop<N>` (a parallel loop's body), where `<parent>` is the
//! function or the enclosing task's helper, and its children are numbered
//! in the layout order of their detaches, except that a child detached
//! right at the start of its parent comes first (the parent's first block
//! becomes its helper's entry). So names and the order of functions in an
//! object do not depend on the order of lowering. Each helper enters the
//! module at once as an empty function (name, parameters, entry block),
//! which the lowering fills.

use super::outline::{entry_mergeable, new_helper};
use super::places::Places;
use super::{Names, loops};
use parc_ir::analysis::{FunctionAnalyses, TapirLoop, Task};
use parc_ir::{Block, FuncId, FuncKind, Function, InstKind, Module, Type};
use std::collections::{HashMap, VecDeque};

/// One function's plan.
pub(crate) struct FuncPlan {
    pub id: FuncId,
    /// Computed once, before the first task is lowered (see
    /// `lower_function` for why they stay valid).
    pub an: FunctionAnalyses,
    /// The loop shape of each task matched as a parallel loop.
    pub shapes: HashMap<Task, TapirLoop>,
    /// The helper each task becomes.
    pub helpers: HashMap<Task, FuncId>,
    /// The tasks the function body detaches, then those each task
    /// detaches, in the order their helpers are numbered.
    top: Vec<Task>,
    children: HashMap<Task, Vec<Task>>,
    /// The blocks whose innermost task each task is, in layout order.
    own: HashMap<Task, Vec<Block>>,
}

impl FuncPlan {
    /// The tasks detached by `frame` (the function body when `None`).
    pub fn children(&self, frame: Option<Task>) -> &[Task] {
        match frame {
            None => &self.top,
            Some(t) => self.children.get(&t).map_or(&[], Vec::as_slice),
        }
    }

    /// The blocks of `task` outside the tasks nested in it, in layout
    /// order, as the analyses saw them.
    pub fn own_blocks(&self, task: Task) -> &[Block] {
        self.own.get(&task).map_or(&[], Vec::as_slice)
    }

    /// Every task, children before their parents, siblings in the order of
    /// their helpers.
    pub fn post_order(&self) -> Vec<Task> {
        let mut out = Vec::with_capacity(self.an.tasks.len());
        let mut stack: Vec<(Option<Task>, usize)> = vec![(None, 0)];
        while let Some(&mut (frame, ref mut next)) = stack.last_mut() {
            let kids = self.children(frame);
            if let Some(&child) = kids.get(*next) {
                *next += 1;
                stack.push((Some(child), 0));
            } else {
                stack.pop();
                out.extend(frame);
            }
        }
        out
    }
}

pub(crate) fn has_tapir(f: &Function) -> bool {
    f.placed_insts().any(|(_, i)| {
        matches!(
            f.inst(i),
            InstKind::Detach { .. } | InstKind::Reattach { .. } | InstKind::Sync { .. }
        )
    })
}

/// Plans every host function with a detach, reattach or sync (in module
/// order) and adds their helpers to `module` (see the module doc). Each
/// plan comes with the places of its function, as planning left it.
pub(crate) fn plan_module(module: &mut Module, names: &mut Names) -> Vec<(FuncPlan, Places)> {
    let ids: Vec<FuncId> = module
        .funcs
        .iter()
        .filter(|(_, f)| f.kind == FuncKind::Host && !f.is_declaration() && has_tapir(f))
        .map(|(id, _)| id)
        .collect();
    let mut plans: Vec<(FuncPlan, Places)> = ids
        .into_iter()
        .map(|id| plan_function(id, &mut module.funcs[id]))
        .collect();
    // Breadth first, as outermost-first lowering appended helpers to the
    // module and then lowered them in turn.
    let mut queue: VecDeque<(usize, Option<Task>, String)> = plans
        .iter()
        .enumerate()
        .map(|(p, (plan, _))| (p, None, module.funcs[plan.id].name.clone()))
        .collect();
    while let Some((p, frame, parent)) = queue.pop_front() {
        let plan = &mut plans[p].0;
        for k in 0..plan.children(frame).len() {
            let child = plan.children(frame)[k];
            let (kind, params) = if plan.shapes.contains_key(&child) {
                ("loop", vec![Type::Ptr, Type::I64, Type::I64])
            } else {
                ("task", vec![Type::Ptr])
            };
            let name = names.fresh(&parent, kind);
            let id = module.funcs.push(new_helper(name.clone(), params));
            plan.helpers.insert(child, id);
            queue.push_back((p, Some(child), name));
        }
    }
    plans
}

/// Drops unreachable blocks, computes the analyses, sinks pure code into
/// the tasks and matches their loop shapes (parents first), and lists each
/// task's children and own blocks.
fn plan_function(id: FuncId, func: &mut Function) -> (FuncPlan, Places) {
    drop_unreachable(func);
    let an = FunctionAnalyses::compute(func);
    let mut places = Places::new(func);
    let tasks = &an.tasks;
    let mut top = Vec::new();
    let mut children: HashMap<Task, Vec<Task>> = HashMap::new();
    let mut own: HashMap<Task, Vec<Block>> = HashMap::new();
    for &b in &func.layout {
        if let Some(t) = tasks.innermost(b) {
            own.entry(t).or_default().push(b);
        }
        if let Some(child) = tasks.task_of_detach(b) {
            match tasks.data(child).parent {
                None => top.push(child),
                Some(p) => children.entry(p).or_default().push(child),
            }
        }
    }
    // A parent's first block becomes its helper's entry when it can be
    // merged into it: a child detached there is met first.
    for (&parent, kids) in &mut children {
        let entry = tasks.data(parent).entry;
        if entry_mergeable(&an, parent)
            && let Some(k) = kids
                .iter()
                .position(|&c| tasks.data(c).detach_block == entry)
        {
            kids[..=k].rotate_right(1);
        }
    }
    let mut shapes = HashMap::new();
    let mut pre_order: Vec<Task> = top.iter().rev().copied().collect();
    while let Some(task) = pre_order.pop() {
        loops::sink_into_task(func, &an, task, &mut places);
        if let Some(shape) = loops::match_parallel_for(func, &an, task, &places) {
            shapes.insert(task, shape);
        }
        pre_order.extend(children.get(&task).into_iter().flatten().rev());
    }
    let plan = FuncPlan {
        id,
        an,
        shapes,
        helpers: HashMap::new(),
        top,
        children,
        own,
    };
    (plan, places)
}

/// Removes blocks unreachable from the entry: the task tree and dominance
/// say nothing useful about them, and they cannot run.
fn drop_unreachable(func: &mut Function) {
    let cfg = parc_ir::analysis::ControlFlowGraph::compute(func);
    func.layout.retain(|&b| cfg.is_reachable(b));
}
