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
use parc_ir::analysis::FunctionAnalyses;
use parc_ir::{Block, BlockCall, Function, Inst, InstKind, Module, Value, ValueDef};
use std::collections::{HashMap, HashSet};

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let mut deleted = 0;
    let changed = crate::for_each_function(module, |f| {
        let n = run_function(f);
        deleted += n;
        n > 0
    });
    ctx.count("loop-deletion.deleted", deleted);
    changed
}

/// Deletes the dead loops of `func`, innermost first; returns how many.
pub fn run_function(func: &mut Function) -> u64 {
    let mut deleted = 0;
    // One loop at a time: each deletion changes the CFG, and makes the
    // loop unreachable, so the next search cannot find it again.
    while let Some((header, exit_call)) = find_dead_loop(func) {
        if !redirect_entries(func, header, &exit_call) {
            break;
        }
        deleted += 1;
    }
    deleted
}

/// A deletable loop: its header and the exit edge's target and arguments.
fn find_dead_loop(func: &Function) -> Option<(Block, BlockCall)> {
    let an = FunctionAnalyses::compute(func);
    let placed: HashMap<Inst, Block> = func.placed_insts().map(|(b, i)| (i, b)).collect();
    let def_block = |v: Value| -> Option<Block> {
        match func.value_def(v) {
            ValueDef::Param(b, _) => Some(b),
            ValueDef::Result(i) => placed.get(&i).copied(),
        }
    };
    // Innermost first: smaller loops before the loops around them.
    let mut loops: Vec<_> = an.loops.loops().collect();
    loops.sort_by_key(|&lp| an.loops.data(lp).blocks.len());
    'next: for lp in loops {
        let data = an.loops.data(lp);
        let blocks: HashSet<Block> = data.blocks.iter().copied().collect();
        let h = data.header;
        // Innermost only (a loop inside might not end; once it is gone,
        // the loop around it is innermost), entered from outside.
        let nested = an
            .loops
            .loops()
            .any(|other| other != lp && blocks.contains(&an.loops.data(other).header));
        let entered = an.cfg.preds(h).iter().any(|p| !blocks.contains(p));
        if nested || !entered || func.entry() == Some(h) {
            continue;
        }
        for &b in &blocks {
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
        for (b, i) in func.placed_insts() {
            if blocks.contains(&b) {
                continue;
            }
            let mut escapes = false;
            func.inst(i).for_each_operand(|v| {
                escapes |= def_block(v).is_some_and(|d| blocks.contains(&d));
            });
            if escapes {
                continue 'next;
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
            .any(|&a| def_block(a).is_some_and(|d| blocks.contains(&d)))
        {
            continue;
        }
        return Some((h, exit.clone()));
    }
    None
}

/// Sends every branch into `header` from outside its loop to `exit`
/// instead; false if there was none.
fn redirect_entries(func: &mut Function, header: Block, exit: &BlockCall) -> bool {
    let an = FunctionAnalyses::compute(func);
    let Some(lp) = an.loops.loop_headed_by(header) else {
        return false;
    };
    let inside: HashSet<Block> = an.loops.data(lp).blocks.iter().copied().collect();
    let outside_preds: Vec<Block> = an
        .cfg
        .preds(header)
        .iter()
        .copied()
        .filter(|p| !inside.contains(p))
        .collect();
    let any = !outside_preds.is_empty();
    for p in outside_preds {
        let Some(t) = func.terminator(p) else {
            continue;
        };
        // Only jumps and brifs can enter it: the header has parameters,
        // which Tapir's targets may not.
        for c in func.inst_mut(t).block_calls_mut() {
            if c.block == header {
                *c = exit.clone();
            }
        }
    }
    any
}
