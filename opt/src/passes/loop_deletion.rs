//! `loop-deletion`: removes loops that compute nothing anyone uses and
//! certainly end. Dead code elimination empties such loops but leaves
//! their control flow (`adce` keeps every branch); a gradient's forward
//! sweep whose results the gradient does not need leaves them behind
//! (n-body's loop over the other bodies, counting to `n` for nothing).
//!
//! A natural loop `L` is deleted when
//! - it is innermost (a loop inside it might not end) and entered from
//!   outside (not through the function's entry);
//! - its instructions have no effects and no loads (a load may fault,
//!   which `adce` keeps as a way out of a loop), no Tapir terminators;
//! - no value defined in `L` is used outside it;
//! - it is a counted loop (`analysis::tripcount`) whose header is its only
//!   exit and whose induction variable cannot wrap before the test fails:
//!   its trip count is finite, so it ends.
//!
//! Every edge from outside `L` into `H` then goes to the exit block
//! instead, with the exit edge's arguments (defined outside `L`, so they
//! dominate `H` and its entering edges). `L`'s blocks become unreachable;
//! `simplify-cfg` drops them.

use crate::PassContext;
use crate::analysis::tripcount::counted_loop;
use crate::{HashMap, HashSet};
use parc_ir::analysis::FunctionAnalyses;
use parc_ir::{Block, BlockCall, Function, Inst, InstKind, Module, Value, ValueDef};

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let ids = crate::functions_with_loops(module, &mut ctx.analyses);
    if ids.is_empty() {
        return false;
    }
    let mut deleted = 0;
    let changed = crate::for_each_of(module, &ids, |f| {
        let n = run_function(f);
        deleted += n;
        n > 0
    });
    ctx.count("loop-deletion.deleted", deleted);
    changed
}

/// Most work, in blocks and instructions of the function summed over the
/// rounds of [`run_function`]: a round deletes every dead innermost loop
/// and a loop around deleted ones becomes innermost for the next, so a
/// dead nest thousands deep would take as many rounds; past the budget
/// its outer loops stay (they run, and compute nothing).
pub const WORK_BUDGET: u64 = 4_000_000;

/// Deletes the dead loops of `func`, innermost first; returns how many.
pub fn run_function(func: &mut Function) -> u64 {
    let mut deleted = 0;
    let mut work = 0u64;
    loop {
        work += func
            .layout
            .iter()
            .map(|&b| 1 + func.block_insts(b).len() as u64)
            .sum::<u64>();
        if work > WORK_BUDGET {
            break;
        }
        // Each deletion makes its loop unreachable, so the next round
        // cannot find it again.
        let dead = find_dead_loops(func);
        if dead.is_empty() {
            break;
        }
        for d in dead {
            redirect_entries(func, &d);
            deleted += 1;
        }
    }
    deleted
}

/// A deletable loop: its header, the branches entering it from outside,
/// and the exit edge's target and arguments.
struct DeadLoop {
    header: Block,
    entries: Vec<Block>,
    exit: BlockCall,
}

/// The dead innermost loops of `func` (see the module doc), each of whose
/// entries and exit no other one's deletion changes.
fn find_dead_loops(func: &Function) -> Vec<DeadLoop> {
    let an = FunctionAnalyses::compute(func);
    let mut placed: HashMap<Inst, Block> = HashMap::default();
    let mut users: HashMap<Value, Vec<Block>> = HashMap::default();
    for (b, i) in func.placed_insts() {
        placed.insert(i, b);
        func.inst(i)
            .for_each_operand(|v| users.entry(v).or_default().push(b));
    }
    let def_block = |v: Value| -> Option<Block> {
        match func.value_def(v) {
            ValueDef::Param(b, _) => Some(b),
            ValueDef::Result(i) => placed.get(&i).copied(),
        }
    };
    // Innermost first: smaller loops before the loops around them.
    let mut loops: Vec<_> = an.loops.loops().collect();
    loops.sort_by_key(|&lp| an.loops.data(lp).blocks.len());
    let mut dead = Vec::new();
    // Blocks whose branches a deletion of this round changes or targets.
    let mut touched: HashSet<Block> = HashSet::default();
    'next: for lp in loops {
        let data = an.loops.data(lp);
        let h = data.header;
        // Innermost only (a loop inside might not end; once it is gone,
        // the loop around it is innermost), entered from outside.
        let entries: Vec<Block> = an
            .cfg
            .preds(h)
            .iter()
            .copied()
            .filter(|&p| !data.contains(p))
            .collect();
        if !an.loops.is_innermost(lp) || entries.is_empty() || func.entry() == Some(h) {
            continue;
        }
        for &b in &data.blocks {
            for &i in &func.blocks[b].insts {
                let kind = func.inst(i);
                let terminator_ok = matches!(kind, InstKind::Jump(_) | InstKind::Brif { .. });
                if kind.is_terminator() && !terminator_ok {
                    continue 'next;
                }
                if !kind.is_terminator()
                    && (kind.has_side_effects() || matches!(kind, InstKind::Load(_)))
                {
                    continue 'next;
                }
            }
        }
        // No value of the loop used outside it.
        for &b in &data.blocks {
            let params = func.block_params(b).iter().copied();
            let results = func.block_insts(b).iter().filter_map(|&i| func.result(i));
            for v in params.chain(results) {
                if users
                    .get(&v)
                    .is_some_and(|us| us.iter().any(|&u| !data.contains(u)))
                {
                    continue 'next;
                }
            }
        }
        // A counted loop whose header is the only way out and whose
        // variable cannot wrap: it ends.
        let Some(counted) = counted_loop(func, &an, lp) else {
            continue;
        };
        if !counted.exact || counted.may_wrap(func) {
            continue;
        }
        let Some(t) = func.terminator(h) else {
            continue;
        };
        let Some(exit) = func
            .inst(t)
            .block_calls()
            .into_iter()
            .find(|c| c.block == counted.exit)
        else {
            continue;
        };
        if exit
            .args
            .iter()
            .any(|&a| def_block(a).is_some_and(|d| data.contains(d)))
        {
            continue;
        }
        if std::iter::once(&h)
            .chain(&entries)
            .chain([&exit.block])
            .any(|b| touched.contains(b))
        {
            continue;
        }
        touched.extend(entries.iter().copied().chain([h, exit.block]));
        dead.push(DeadLoop {
            header: h,
            entries,
            exit: exit.clone(),
        });
    }
    dead
}

/// Sends every branch into the loop's header from outside it to its exit
/// instead.
fn redirect_entries(func: &mut Function, dead: &DeadLoop) {
    for &p in &dead.entries {
        let Some(t) = func.terminator(p) else {
            continue;
        };
        // Only jumps and brifs can enter it: the header has parameters,
        // which Tapir's targets may not.
        for c in func.inst_mut(t).block_calls_mut() {
            if c.block == dead.header {
                *c = dead.exit.clone();
            }
        }
    }
}
