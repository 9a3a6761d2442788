//! The record-or-recompute decisions of one derivative, in the order its
//! reverse code needs the values: the plan's `needs` table.
//!
//! Which values a reverse block records, and which it computes again,
//! depends on the order it needs them in: a record made for one need is
//! reused by the next (`Obtain::Popped`), and the minimum cut over what a
//! value is computed from leaves out what the block has popped already.
//! That order is the reverse walk's, so the plan makes the walk once
//! before any code is kept (a dry run of the generator, in which
//! `Sweep` answers every question), and keeps each answer here.
//! The generation that follows makes the same walk and only reads the
//! answers back, in order; in debug builds it asserts that each question
//! it asks is the one the plan answered next.

use super::{Obtain, Rebuild};
use parc_ir::{Block, Value};
use std::collections::HashMap;

/// One question the reverse code asks about a forward value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask {
    /// How to get the value (`Sweep::obtain`).
    Obtain,
    /// Whether it can be had without a new record in the block's frame
    /// (`Sweep::cheap`): after a cut is recorded, and for a
    /// join's condition.
    Cheap,
    /// How to compute it again (`Sweep::rebuild`).
    Rebuild,
}

/// The plan's answer to one question.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Obtain(Obtain),
    Cheap(bool),
    Rebuild(Rebuild),
}

impl Answer {
    /// The question this answers.
    pub fn ask(&self) -> Ask {
        match self {
            Answer::Obtain(_) => Ask::Obtain,
            Answer::Cheap(_) => Ask::Cheap,
            Answer::Rebuild(_) => Ask::Rebuild,
        }
    }
}

/// One decision: the primal block whose reverse code asks, the value of
/// the generated function it asks about (a forward value), and the answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Need {
    pub block: Block,
    pub value: Value,
    pub answer: Answer,
}

/// Every decision of the reverse walk, in order (see the module doc).
#[derive(Clone, Debug, Default)]
pub struct Needs {
    pub list: Vec<Need>,
    /// The primal value each forward value of the walk copies, for
    /// printing (values the generator made itself are absent).
    pub primal: HashMap<Value, Value>,
}

impl Needs {
    /// The decision at `at` if it answers question `ask` about `value` in
    /// the reverse of `block`: `None` if the plan lacks it.
    pub fn answer(&self, at: usize, block: Block, value: Value, ask: Ask) -> Option<&Answer> {
        self.list
            .get(at)
            .filter(|n| n.block == block && n.value == value && n.answer.ask() == ask)
            .map(|n| &n.answer)
    }
}
