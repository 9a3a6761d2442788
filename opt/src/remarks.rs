//! Optimization remarks: what a pass did or did not do to a piece of the
//! program, by source position, for the user (`--explain-vec`, clang's
//! `-Rpass=loop-vectorize` and `-Rpass-missed=loop-vectorize`, gcc's
//! `-fopt-info-vec`). Passes push them onto [`PassContext::remarks`]
//! (crate::PassContext::remarks); the driver sorts them, finds each one's
//! file and prints them in the spelling asked for ([`Remark::render`]).

use crate::passes::vectorize::Estimate;
use parc_ir::{SrcLoc, Type};

/// One remark about one loop.
#[derive(Clone, Debug, PartialEq)]
pub struct Remark {
    /// Where the loop is: its exit test's position (`line == 0`: unknown,
    /// as in code the AD made without a position).
    pub loc: SrcLoc,
    /// The function the position is in, as the programmer wrote it (the
    /// callee for a loop inlined elsewhere), for finding its file.
    pub function: String,
    /// The function that now holds the loop (a gradient's name for its
    /// reverse loops), said when the position is unknown.
    pub holder: String,
    pub outcome: Outcome,
}

/// What the vectorizer did to a loop.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Runs `lanes` iterations at once in vectors of `vector`; `checked`:
    /// behind run-time tests (overlap of arrays, wrapping of indices).
    /// `reassociated`: a float reduction sums in lanes (allowed by
    /// `-ffast-math`), so its rounding differs from the scalar loop's.
    /// `cost`: the cost model's estimate.
    Vectorized {
        vector: Type,
        lanes: u32,
        checked: bool,
        reassociated: bool,
        cost: Estimate,
    },
    /// Left as it is because the cost model says the vector loop (in
    /// vectors of `vector`) would not pay: per iteration, or over the
    /// constant trip count `trips`.
    Unprofitable {
        vector: Type,
        cost: Estimate,
        trips: Option<u64>,
    },
    /// Left as it is, for the reason named (`vectorize.missed.REASON` in
    /// `--stats`), explained in words.
    Missed {
        reason: &'static str,
        why: &'static str,
    },
}

/// How remarks are spelt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// `--explain-vec`: every loop, vectorized or why not.
    Parc,
    /// clang's `-Rpass=loop-vectorize`: vectorized loops.
    ClangPassed,
    /// clang's `-Rpass-missed=loop-vectorize` (and `-Rpass-analysis`):
    /// loops not vectorized, with the reason.
    ClangMissed,
    /// gcc's `-fopt-info-vec` (`-optimized`): vectorized loops.
    GccOptimized,
    /// gcc's `-fopt-info-vec-missed`: loops not vectorized.
    GccMissed,
}

impl Remark {
    /// The remark as a line in `style` (`None` when the style does not
    /// report this outcome), with `path` the file of [`Remark::function`].
    pub fn render(&self, path: &str, style: Style) -> Option<String> {
        let at = if self.loc.is_known() {
            format!("{path}:{}:{}: ", self.loc.line, self.loc.col)
        } else {
            format!("{path}: in `{}`: ", self.holder)
        };
        let text = match (&self.outcome, style) {
            (
                Outcome::Vectorized {
                    vector,
                    lanes,
                    checked,
                    reassociated,
                    cost,
                },
                Style::Parc,
            ) => format!(
                "vectorized: {lanes} iterations at once ({vector}){}{}{}; {}",
                if cost.unroll > 1 {
                    format!(
                        ", interleaved by {} ({} iterations per vector-loop iteration{})",
                        cost.unroll,
                        cost.unroll * lanes,
                        if cost.chain > 0 {
                            ", an accumulator per copy"
                        } else {
                            ""
                        }
                    )
                } else {
                    String::new()
                },
                if *checked {
                    ", behind run-time tests (else the scalar loop runs)"
                } else {
                    ""
                },
                if *reassociated {
                    ", a float reduction summed in lanes (reassociated: rounds unlike the loop in order)"
                } else {
                    ""
                },
                figures(cost)
            ),
            (
                Outcome::Unprofitable {
                    vector,
                    cost,
                    trips,
                },
                Style::Parc,
            ) => match trips {
                Some(n) if cost.pays() => format!(
                    "not vectorized: its {n} iterations would not pay for entering the \
                     vector loop ({vector}; {}) [not-profitable]",
                    figures(cost)
                ),
                _ => format!(
                    "not vectorized: the vector loop ({vector}) would not be faster (cost \
                     model: {} per iteration scalar, {} per {} iterations in vectors) \
                     [not-profitable]",
                    cost.scalar, cost.vector, cost.lanes
                ),
            },
            (Outcome::Unprofitable { .. }, Style::ClangMissed) => "remark: loop not vectorized: \
                 the cost-model indicates that vectorization is not beneficial \
                 [-Rpass-missed=loop-vectorize]"
                .to_string(),
            (Outcome::Unprofitable { .. }, Style::GccMissed) => {
                "missed: not vectorized: vectorization not profitable.".to_string()
            }
            (Outcome::Vectorized { lanes, cost, .. }, Style::ClangPassed) => format!(
                "remark: vectorized loop (vectorization width: {lanes}, interleaved count: {}) \
                 [-Rpass=loop-vectorize]",
                cost.unroll
            ),
            (Outcome::Vectorized { vector, .. }, Style::GccOptimized) => format!(
                "optimized: loop vectorized using {} byte vectors",
                vector.bytes()
            ),
            (Outcome::Missed { reason, why }, Style::Parc) => {
                format!("not vectorized: {why} [{reason}]")
            }
            (Outcome::Missed { why, .. }, Style::ClangMissed) => {
                format!("remark: loop not vectorized: {why} [-Rpass-missed=loop-vectorize]")
            }
            (Outcome::Missed { why, .. }, Style::GccMissed) => {
                format!("missed: couldn't vectorize loop: {why}")
            }
            _ => return None,
        };
        Some(format!("{at}{text}\n"))
    }
}

/// The cost model's figures, in words.
fn figures(cost: &Estimate) -> String {
    let interleaved = if cost.unroll > 1 {
        format!(
            ", {} per {} interleaved",
            cost.unrolled,
            cost.unroll * cost.lanes
        )
    } else {
        String::new()
    };
    let chain = if cost.chain > 0 {
        format!(" (a reduction's chain: {} per iteration)", cost.chain)
    } else {
        String::new()
    };
    format!(
        "cost model: {} per iteration scalar, {} per {} iterations in vectors{interleaved}{chain}, \
         {} to enter them: vectors from {} iterations on",
        cost.scalar, cost.vector, cost.lanes, cost.setup, cost.min_trip
    )
}
