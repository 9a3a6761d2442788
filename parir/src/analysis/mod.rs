//! Analyses over one function, each in its own file and each a side table
//! (keyed by [`Block`](crate::Block)) computed from a `&Function`:
//!
//! - [`cfg`](mod@cfg): predecessors, successors, reverse postorder, reachability;
//! - [`dom`]: the dominator tree (Cooper–Harvey–Kennedy) and dominance
//!   frontiers;
//! - [`loops`]: natural loops and their nesting;
//! - [`tasks`]: the task tree of detached tasks and the uses of each sync
//!   region;
//! - [`tapir_loops`]: the parallel loops (`parallel_for`'s shape), the one
//!   matcher the optimizer, the CPU backend and the AD share.
//!
//! They are plain data: a pass that changes the CFG recomputes what it needs.
//! None of them panics on malformed IR (dangling block references, missing
//! terminators); they ignore what is not well formed, and the verifier
//! reports it.

pub mod cfg;
pub mod dom;
pub mod loops;
pub mod tapir_loops;
pub mod tasks;

pub use cfg::ControlFlowGraph;
pub use dom::{DominanceFrontiers, DominatorTree};
pub use loops::{Loop, LoopAnalysis, LoopData};
pub use tapir_loops::TapirLoop;
pub use tasks::{RegionInfo, Task, TaskData, TaskTree};

use crate::function::Function;

/// The usual bundle, computed in dependency order.
#[derive(Clone, Debug, Default)]
pub struct FunctionAnalyses {
    pub cfg: ControlFlowGraph,
    pub domtree: DominatorTree,
    pub loops: LoopAnalysis,
    pub tasks: TaskTree,
}

impl FunctionAnalyses {
    pub fn compute(func: &Function) -> FunctionAnalyses {
        let cfg = ControlFlowGraph::compute(func);
        let domtree = DominatorTree::compute(&cfg);
        let loops = LoopAnalysis::compute(&cfg, &domtree);
        let tasks = TaskTree::compute(func, &cfg, &domtree);
        FunctionAnalyses {
            cfg,
            domtree,
            loops,
            tasks,
        }
    }
}
