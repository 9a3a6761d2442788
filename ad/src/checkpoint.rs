//! Checkpointing of serial loops (issue 26 §3): which loops of the
//! generated functions a checkpointing reverse would cut into segments,
//! and what each records per iteration.
//!
//! A candidate is an outermost serial counted loop outside parallel tasks
//! (`tape_report::SerialLoop`) whose iterations each record an amount
//! that grows with another size (`16·(n - 2) + 32` bytes): the time loop
//! of an explicit simulation around its loops over space. (A loop whose
//! iterations record a few values each is left recorded: a snapshot
//! would cost as much as the records it saves.) Its records grow with its trip
//! count; checkpointing keeps instead snapshots of what the iterations
//! overwrite at chosen iterations and, in the reverse, runs each segment
//! forward again from its snapshot (recording only that segment) before
//! reversing it.
//!
//! The scheme meant for it is binomial checkpointing (Griewank's
//! Revolve): with `c` snapshots, each iteration recomputed at most `r`
//! times covers `binom(c + r, c)` iterations, so a memory budget fixes `c`
//! and the trip count `r`; `sqrt(n)` segments (one recomputation, `2
//! sqrt(n)` states and segments' records) cannot reach the target
//! of a tenth of the memory on a loop whose state per iteration is as
//! large as its records (timestep: both `16·n` bytes), where Revolve with
//! four snapshots can.
//!
//! Invariant: this module plans and reports; it changes no code. The
//! generator does not checkpoint yet (snapshots need the extent of what a
//! loop's callees write, which no analysis gives), so a request for it
//! (`--checkpoint N`, `--tape-budget BYTES`) is refused at the first
//! candidate loop rather than ignored.

use crate::tape_report::{FunctionTape, SerialLoop, Size, per_iteration, show_size};
use parc_ir::SrcLoc;

/// What the user asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    /// `--checkpoint N`: a snapshot every `N` iterations.
    Every(u64),
    /// `--tape-budget BYTES`: checkpoint loops whose records would
    /// exceed it.
    Budget(u64),
}

/// A loop checkpointing would segment.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The generated function the loop is in, and its primal.
    pub function: String,
    pub primal: String,
    pub loc: SrcLoc,
    pub trip: String,
    /// Bytes one iteration records (its calls' included) and all of the
    /// loop's iterations together.
    pub per_iteration: Size,
    pub total: Size,
    /// What the iterations may overwrite (`x[..]`, `` `forces` ``).
    pub writes: Vec<String>,
}

/// Every candidate loop of the generated functions `tapes` describes.
/// Loops whose callees recurse are left out: their records per
/// iteration have no bound.
pub fn candidates(tapes: &[FunctionTape]) -> Vec<Candidate> {
    let mut out = Vec::new();
    for t in tapes {
        for l in &t.loops {
            let (per, recursive) = per_iteration(tapes, t, l);
            let grows = per.iter().any(|(factors, &b)| b > 0 && !factors.is_empty());
            if recursive || !grows {
                continue;
            }
            out.push(candidate(t, l, per));
        }
    }
    out
}

fn candidate(t: &FunctionTape, l: &SerialLoop, per: Size) -> Candidate {
    let mut total = Size::new();
    for (factors, bytes) in &per {
        let mut f = factors.clone();
        f.push(l.trip.clone());
        f.sort();
        *total.entry(f).or_default() += bytes;
    }
    Candidate {
        function: t.function.clone(),
        primal: t.primal.clone(),
        loc: l.loc,
        trip: l.trip.clone(),
        per_iteration: per,
        total,
        writes: l.writes.clone(),
    }
}

impl Candidate {
    /// One line of `--explain-tape` (after `at`, the position).
    pub fn describe(&self) -> String {
        format!(
            "serial loop of `{}` in `{}` ({}): {} bytes recorded per iteration, {} in all; \
             its iterations overwrite {}; checkpointing it (binomial, see --checkpoint) is not \
             implemented yet: every iteration is recorded",
            self.trip,
            self.function,
            self.primal,
            show_size(&self.per_iteration),
            show_size(&self.total),
            self.writes_or("nothing")
        )
    }

    /// What the iterations overwrite, listed, or `none` if nothing.
    fn writes_or(&self, none: &str) -> String {
        if self.writes.is_empty() {
            none.to_string()
        } else {
            self.writes.join(", ")
        }
    }

    /// Why a request for checkpointing is refused at this loop.
    pub fn refusal(&self, request: Request) -> String {
        let asked = match request {
            Request::Every(n) => format!("`--checkpoint {n}`"),
            Request::Budget(b) => format!("`--tape-budget {b}`"),
        };
        format!(
            "{asked} asks to checkpoint the serial loop of `{}` iterations here ({} bytes recorded \
             per iteration, {} in all), but parc cannot checkpoint loops yet: a snapshot needs the \
             extent of the memory the iterations overwrite ({}), which parc does not compute; drop \
             the option, or differentiate fewer iterations per call of the gradient",
            self.trip,
            show_size(&self.per_iteration),
            show_size(&self.total),
            self.writes_or("none found")
        )
    }
}
