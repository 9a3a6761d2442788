//! What the vectorizer tells the user: its [`Report`] of each function's
//! loops (statistics and one [`Remark`] per loop), where a loop is in the
//! source, and what each `vectorize.missed.REASON` means in words.

use super::cost::Estimate;
use crate::remarks::{Outcome, Remark};
use parc_ir::analysis::{FunctionAnalyses, Loop};
use parc_ir::{Function, InstKind, SrcLoc, Type, ValueDef};
use std::collections::BTreeMap;

/// What the pass did to a function's loops.
#[derive(Debug, Default)]
pub struct Report {
    pub vectorized: u64,
    /// Of those, how many got run-time overlap tests.
    pub checked: u64,
    /// Loops left alone, by reason.
    pub missed: BTreeMap<&'static str, u64>,
    /// One remark per loop (`function` and `holder` left empty, for the
    /// caller, who knows the module, to fill).
    pub loops: Vec<Remark>,
}

impl Report {
    /// A loop the cost model refuses: `trips`, its constant trip count.
    pub(super) fn unprofitable(
        &mut self,
        loc: SrcLoc,
        vector: Type,
        cost: Estimate,
        trips: Option<u64>,
    ) {
        *self.missed.entry("not-profitable").or_default() += 1;
        self.loops.push(Remark {
            loc,
            function: String::new(),
            holder: String::new(),
            outcome: Outcome::Unprofitable {
                vector,
                cost,
                trips,
            },
        });
    }

    pub(super) fn missed(&mut self, loc: SrcLoc, reason: &'static str) {
        *self.missed.entry(reason).or_default() += 1;
        self.loops.push(Remark {
            loc,
            function: String::new(),
            holder: String::new(),
            outcome: Outcome::Missed {
                reason,
                why: explain(reason),
            },
        });
    }
}

/// Where a loop is in the source: its exit test's position, else the
/// first known position in its header, else in its other blocks.
pub(super) fn loop_loc(func: &Function, an: &FunctionAnalyses, lp: Loop) -> SrcLoc {
    let ld = an.loops.data(lp);
    let header = ld.header;
    let test = func.terminator(header).and_then(|br| match func.inst(br) {
        InstKind::Brif { cond, .. } => match func.value_def(*cond) {
            ValueDef::Result(i) => Some(i),
            ValueDef::Param(..) => None,
        },
        _ => None,
    });
    let blocks = std::iter::once(header).chain(ld.blocks.iter().copied().filter(|&b| b != header));
    test.into_iter()
        .chain(blocks.flat_map(|b| func.block_insts(b).iter().copied()))
        .map(|i| func.locs[i])
        .find(|l| l.is_known())
        .unwrap_or_default()
}

/// What a `vectorize.missed.REASON` means, in words for the user.
pub fn explain(reason: &str) -> &'static str {
    match reason {
        "outer-loop" => "not an innermost loop (loops inside it are considered instead)",
        "parallel-loop" => {
            "the loop of a `parallel_for`, whose iterations run as tasks (serial loops \
             inside its body are considered on their own)"
        }
        "control-flow" => {
            "its body branches (an `if`, `break`, `continue` or `&&`/`||` inside it); \
             only loops whose body is one straight block are vectorized"
        }
        "no-preheader" => "the loop is entered from more than one place",
        "not-counted" => {
            "its trip count is not known when it starts (the test must be `i < n` or \
             `i <= n` on a counter with a constant positive step, or `i > n`, `i >= n` or \
             `i != n` on one with a negative step, that cannot wrap)"
        }
        "header-computes" => "its exit test's block computes values used elsewhere",
        "too-large" => "its body has more instructions than the vectorizer copies (80)",
        "element-type" => {
            "it computes on a type with no 128-bit vector form here (only double, float, \
             64-bit and 32-bit integer lanes are)"
        }
        "mixed-widths" => {
            "it mixes element sizes (say float and double, or int and long), and a \
             vectorized loop has one number of lanes"
        }
        "invariant-store" => {
            "it stores to the same address in every iteration (as `c[i][j] += a[i][k] * \
             b[k][j]` over `k`: sum into a local variable and store it after the loop)"
        }
        "stride" => {
            "an access is not to consecutive elements (as `a[2*i]` or `a[i*n]`): \
             strided accesses are not vectorized"
        }
        "stores-index" => {
            "it stores a value computed from the counter (as `a[i] = i`): vectors of \
             indices are not made"
        }
        "operation" => {
            "an operation has no lane-wise vector form here (integer division, shifts, \
             conversions, comparisons of the counter, selects by a condition the same in \
             every iteration)"
        }
        "index-arithmetic" => {
            "it computes with the counter other than by adding it or multiplying it by \
             a constant (as `i % 3`, `i / 2` or `i * n`)"
        }
        "gather" => {
            "an address depends on a loaded value (as `a[idx[i]]`): gathers are not \
             vectorized"
        }
        "index-cast" => {
            "an index is converted in a way that may wrap (a narrower counter or an \
             unsigned/signed mix)"
        }
        "call" => "it calls a function or a math routine",
        "used-after" => {
            "a value computed in the loop (other than a counter or a reduction) is used \
             after it"
        }
        "no-memory" => "it reads and writes no array element",
        "short-trip-count" => "its trip count is below the vector width",
        "not-profitable" => {
            "the cost model estimates that the vector loop would not be faster (per \
             iteration, or over the loop's few iterations once its tests are paid for)"
        }
        "dependence" => {
            "a store and another access to the same array are less than one vector apart \
             (as `a[i+1] = a[i]`): a dependence between iterations"
        }
        "check-address" => {
            "the run-time overlap test would need an address the loop computes from memory"
        }
        "reduction" => {
            "a value carried from one iteration to the next is neither a counter nor a \
             reduction the vectorizer knows (`s = s OP x` with OP one of + - * & | ^ on \
             integers, + - * on floats under -ffast-math; `m = x > m ? x : m` and the \
             other minimums and maximums)"
        }
        "min-max-call" => {
            "a minimum or maximum by `fmin`/`fmax` is not carried in lanes: their NaN \
             tests would lengthen each iteration's chain more than the lanes save; with \
             -ffast-math, `m = a[i] > m ? a[i] : m` is"
        }
        "float-min-max" => {
            "a floating-point minimum or maximum taken in lanes may keep -0.0 where the \
             loop keeps +0.0 (they compare equal) and a NaN where the loop drops it; allow \
             it with -ffast-math or -fassociative-math"
        }
        "float-reduction" => {
            "a floating-point sum or product would be reassociated, which changes its \
             rounding; allow it with -ffast-math or -fassociative-math"
        }
        _ => "the vectorizer cannot handle its shape",
    }
}
