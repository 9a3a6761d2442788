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
//! `--checkpoint N` checkpoints periodically: every outermost serial loop
//! of a requested gradient's function that contains other loops (a time
//! loop) is cut into segments of `N` iterations (`checkpoint/outline.rs`);
//! the forward sweep runs each segment's primal after a snapshot of what
//! it may write (`checkpoint/writes.rs` bounds it) but need not keep
//! (`checkpoint/scratch.rs`: memory every iteration fills before it
//! reads it is left out, and kept aside only while a segment runs
//! again), and the reverse
//! restores each segment's snapshot, records the segment again and
//! reverses it at once (`checkpoint/pair.rs`). Memory: the snapshots
//! (`S·steps/N` bytes for a state of `S` bytes) and one segment's records
//! (`R·N`), so `N` near `sqrt(steps·S/R)` keeps the least; time: one more
//! primal run of the loop, plus the copies. A loop whose writes cannot be
//! bounded is refused with the reason and its position, never
//! differentiated with a partial snapshot.
//!
//! Only the loops of the requested function itself are checkpointed (not
//! those of its callees), and the function's code after the loop must not
//! write memory the loop reads: the re-runs in the reverse would read it.
//!
//! `--tape-budget BYTES` cuts the same loops into segments whose length
//! is chosen at run time, when the loop starts (`checkpoint/pair.rs`): its
//! first iteration is recorded and its records measured, and the loop is
//! recorded whole if all its iterations' records fit the budget, else
//! checkpointed with the period that keeps the least tape if that fits,
//! else by the binomial schedule (Griewank's Revolve,
//! `checkpoint/revolve.rs`) with the snapshots that fit (a warning on
//! stderr, once per run, names the loop's file and line and the least
//! budget that would fit, where not even one snapshot fits). A loop it
//! cannot checkpoint is recorded whole, with a warning at compile time
//! ([`NotCheckpointed`]). The budget may be a share of the physical
//! memory ([`Bytes`]), read at run time; without the option it is
//! [`DEFAULT_PERCENT`] percent of it, which warns (once per run) where it
//! checkpoints, and is silent about loops it cannot checkpoint.

mod outline;
mod pair;
mod revolve;
mod scratch;
mod writes;

use crate::AdError;
use crate::reverse::{Ctx, Pair};
use crate::tape_report::{FunctionTape, SerialLoop, Size, per_iteration, show_size};
use parc_ir::{FuncId, InstKind, Linkage, Module, SrcLoc};
use std::collections::HashMap;

/// What the user asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    /// `--checkpoint N`: a snapshot every `N` iterations.
    Every(u64),
    /// `--tape-budget BYTES` (or a fraction of the memory, or the
    /// default): checkpoint loops whose records would exceed it.
    Budget(Bytes),
}

/// A tape budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bytes {
    /// `--tape-budget BYTES`.
    Fixed(u64),
    /// `--tape-budget N%`: `N` percent (1 to 100) of the physical memory,
    /// read when the loop starts (`parc_rt_phys_mem`).
    Percent(u32),
    /// No option: [`DEFAULT_PERCENT`] percent of the physical memory. A
    /// loop it cannot checkpoint is recorded whole without a warning (it
    /// was not asked for); a run that checkpoints says so, once.
    Default,
}

/// The default budget's share of the physical memory, in percent: a
/// quarter. The tape competes with the program's own arrays, their
/// shadows (as large again) and everything else on the machine; a quarter
/// leaves them the rest, and only a gradient that would otherwise come
/// near swapping is checkpointed (its recomputation costs time).
pub const DEFAULT_PERCENT: u32 = 25;

impl Bytes {
    /// The percent of the physical memory, if it is a fraction of it.
    pub fn percent(self) -> Option<u32> {
        match self {
            Bytes::Fixed(_) => None,
            Bytes::Percent(p) => Some(p),
            Bytes::Default => Some(DEFAULT_PERCENT),
        }
    }

    /// How the user spelled it, for messages.
    pub fn asked(self) -> String {
        match self {
            Bytes::Fixed(b) => format!("`--tape-budget {b}`"),
            Bytes::Percent(p) => format!("`--tape-budget {p}%`"),
            Bytes::Default => {
                format!("the default tape budget ({DEFAULT_PERCENT}% of the physical memory)")
            }
        }
    }
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
             its iterations overwrite {}; `--checkpoint N` checkpoints it every N iterations",
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
}

/// A segment function: what it writes, which of those roots are scratch
/// (left out of its snapshots) and, under a budget, how its period is
/// chosen.
#[derive(Clone)]
struct Segment {
    writes: Vec<writes::Written>,
    scratch: Vec<writes::Root>,
    budget: Option<pair::Budget>,
}

/// The segment functions made for checkpointing.
#[derive(Default)]
pub struct Segments {
    writes: HashMap<FuncId, Segment>,
}

/// What the snapshots of one checkpointed loop keep and leave out
/// (`--explain-tape`).
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// The function whose gradient checkpoints the loop, and the loop.
    pub function: String,
    pub loc: SrcLoc,
    /// The roots kept (`x`, a global's name) and the scratch ones.
    pub kept: Vec<String>,
    pub scratch: Vec<String>,
}

impl Snapshot {
    /// One line of `--explain-tape` (after `at`, the position).
    pub fn describe(&self) -> String {
        let list = |v: &[String]| {
            if v.is_empty() {
                "nothing".to_string()
            } else {
                v.iter()
                    .map(|r| format!("`{r}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        };
        format!(
            "checkpointed loop in `{}`: its snapshots keep what it may write of {}; they leave \
             out {} (scratch: every iteration writes it before reading it)",
            self.function,
            list(&self.kept),
            list(&self.scratch)
        )
    }
}

/// The `--explain-tape` lines of `snapshots`, each at its position in
/// file `path`.
pub fn explain_snapshots(path: &str, snapshots: &[Snapshot]) -> String {
    snapshots
        .iter()
        .map(|s| format!("{path}:{}:{}: {}\n", s.loc.line, s.loc.col, s.describe()))
        .collect()
}

impl Segments {
    /// What the snapshots of each segment keep and leave out, in the
    /// order of the loops' positions.
    pub fn snapshots(&self, m: &Module) -> Vec<Snapshot> {
        let mut out: Vec<Snapshot> = Vec::new();
        for (&seg, s) in &self.writes {
            let func = &m.funcs[seg];
            let name = |r: &writes::Root| match *r {
                writes::Root::Param(i) => match func.param_name(i) {
                    Some(n) if !n.is_empty() => n.to_string(),
                    _ => format!("parameter {i}"),
                },
                writes::Root::Global(g) => m.globals[g].name.clone(),
            };
            let mut kept = Vec::new();
            for (root, _) in writes::by_root(&s.writes) {
                if !s.scratch.contains(&root) {
                    kept.push(name(&root));
                }
            }
            let loc = func
                .entry()
                .and_then(|e| func.terminator(e))
                .map(|t| func.locs[t])
                .unwrap_or_default();
            let primal = func.name.split(".ckpt").next().unwrap_or(&func.name);
            out.push(Snapshot {
                function: primal.to_string(),
                loc,
                kept,
                scratch: s.scratch.iter().map(name).collect(),
            });
        }
        out.sort_by_key(|s| (s.loc.line, s.loc.col, s.function.clone()));
        out
    }

    /// Builds the pair of `primal` if it is a segment function; false if
    /// it is not one.
    pub fn build_pair(&self, m: &mut Module, ctx: &mut Ctx, primal: FuncId, p: &Pair) -> bool {
        match self.writes.get(&primal) {
            Some(s) => {
                pair::build(m, ctx, primal, p, &s.writes, &s.scratch, s.budget.as_ref());
                true
            }
            None => false,
        }
    }
}

/// A loop `--tape-budget` leaves recorded: its position and why.
#[derive(Clone, Debug, PartialEq)]
pub struct NotCheckpointed {
    pub function: String,
    pub loc: SrcLoc,
    pub why: String,
}

/// The function whose gradient is built instead of `primal`: a copy with
/// its time loops cut into segments (module doc), or `primal` if it has
/// none. `--checkpoint N` segments them every `N` iterations and refuses
/// a loop it cannot checkpoint; `--tape-budget` chooses each period at
/// run time (`pair.rs`) and leaves a loop it cannot checkpoint recorded,
/// pushing why onto `skipped` (then `primal` is differentiated as it is).
pub fn prepare(
    m: &mut Module,
    segments: &mut Segments,
    primal: FuncId,
    request: Request,
    skipped: &mut Vec<NotCheckpointed>,
) -> Result<FuncId, AdError> {
    let loops = outline::time_loops(m, primal);
    if loops.is_empty() {
        return Ok(primal);
    }
    // A budget leaves a loop it cannot checkpoint recorded: the module as
    // it was.
    let saved = matches!(request, Request::Budget(_)).then(|| (m.clone(), segments.writes.clone()));
    let result = prepare_loops(m, segments, primal, request, loops);
    match (result, saved) {
        (Err(e), Some(saved)) => {
            (*m, segments.writes) = saved;
            if request != Request::Budget(Bytes::Default) {
                skipped.push(NotCheckpointed {
                    function: e.function,
                    loc: e.loc,
                    why: e.message,
                });
            }
            Ok(primal)
        }
        (r, _) => r,
    }
}

fn prepare_loops(
    m: &mut Module,
    segments: &mut Segments,
    primal: FuncId,
    request: Request,
    loops: Vec<(parc_ir::Block, SrcLoc)>,
) -> Result<FuncId, AdError> {
    let name = m.funcs[primal].name.clone();
    let mut copy = m.funcs[primal].clone();
    copy.name = m.fresh_func_name(&format!("{name}.ckpt"));
    copy.linkage = Linkage::Local;
    let copy = m.funcs.push(copy);
    let (every, budget, asked) = match request {
        Request::Every(n) => (n, None, format!("`--checkpoint {n}`")),
        // The caller's period is not used: `seg.aug` chooses its own.
        Request::Budget(b) => (1, Some(b), b.asked()),
    };
    // `the loop`: "this loop" at its position, else where it is.
    let refuse_loop = |loc: SrcLoc, the_loop: &str, why: String| AdError {
        function: name.clone(),
        loc,
        message: match budget {
            None => format!(
                "{asked} cannot checkpoint {the_loop}: {why}; drop the option (the gradient \
                 then records every iteration)"
            ),
            Some(_) => format!(
                "{asked} cannot checkpoint {the_loop}: {why}; the gradient records every \
                 iteration"
            ),
        },
    };
    let refuse = |loc: SrcLoc, why: String| refuse_loop(loc, "this loop", why);
    let mut sums = writes::Summaries::default();
    let mut accesses = scratch::Accesses::default();
    let first = loops.first().map(|l| l.1);
    for (h, loc) in loops {
        let o =
            outline::outline(m, copy, h, every, budget.is_some()).map_err(|e| refuse(loc, e))?;
        let w = sums.of(m, o.seg).map_err(|e| {
            let at = if e.loc.is_known() {
                format!(" (`{}` at line {}:{})", e.function, e.loc.line, e.loc.col)
            } else {
                format!(" (`{}`)", e.function)
            };
            refuse(
                o.loc,
                format!("the snapshot cannot bound what it writes: {}{at}", e.what),
            )
        })?;
        let plan = budget.zip(o.plan).map(|(bytes, slot)| pair::Budget {
            bytes,
            slot,
            loc: o.loc,
            file: file_of(m, o.loc),
            what: format!("the serial loop in `{name}`"),
        });
        let offset = m.funcs[copy].sig.params.len();
        let args = writes::call_args(m, copy, o.seg, offset);
        let scratch = scratch::scratch(m, o.seg, &w, &args, &mut accesses);
        segments.writes.insert(
            o.seg,
            Segment {
                writes: w,
                scratch,
                budget: plan,
            },
        );
    }
    if let Some((loc, what)) = write_after(m, copy, &segments.writes, &mut sums) {
        let the_loop = first.map_or("the loop".to_string(), |l| {
            format!("the loop at line {}:{}", l.line, l.col)
        });
        return Err(refuse_loop(
            loc,
            &the_loop,
            format!(
                "`{name}` {what} here, after the loop, and the loop's re-runs in the reverse \
                 could read it"
            ),
        ));
    }
    Ok(copy)
}

/// The name of the file `loc` is in.
fn file_of(m: &Module, loc: SrcLoc) -> String {
    let name = match loc.file {
        0 => m.source_name.clone(),
        k => m.files.get(k as usize - 1).cloned(),
    };
    name.unwrap_or_else(|| "<input>".to_string())
}

/// A write of `f` (its time loops cut out) that does not come before every
/// segment call (another segment's call included): its position and what
/// it is.
fn write_after<T>(
    m: &Module,
    f: FuncId,
    segs: &HashMap<FuncId, T>,
    sums: &mut writes::Summaries,
) -> Option<(SrcLoc, String)> {
    let func = &m.funcs[f];
    let an = parc_ir::analysis::FunctionAnalyses::compute(func);
    let calls: Vec<(parc_ir::Block, parc_ir::Inst)> = func
        .placed_insts()
        .filter(|&(_, i)| matches!(func.inst(i), InstKind::Call { func: c, .. } if segs.contains_key(c)))
        .collect();
    for (b, i) in func.placed_insts() {
        let what = match func.inst(i) {
            InstKind::Store { .. } => "stores to memory".to_string(),
            InstKind::Call { func: c, .. } if segs.contains_key(c) => {
                "runs another checkpointed loop".to_string()
            }
            InstKind::Call { func: c, .. } => match sums.of(m, *c) {
                Ok(w) if w.is_empty() => continue,
                _ => format!("calls `{}`, which writes memory", m.funcs[*c].name),
            },
            InstKind::Intrinsic { op, .. } => {
                let e = op.effects();
                if e.writes.is_empty() && !e.any_memory {
                    continue;
                }
                format!("calls `{}`", op.name())
            }
            InstKind::CallIndirect { .. } | InstKind::Launch { .. } => {
                "calls code that may write memory".to_string()
            }
            _ => continue,
        };
        let late = calls
            .iter()
            .any(|&(cb, ci)| ci != i && !(an.domtree.dominates(b, cb) && b != cb));
        if late {
            return Some((func.locs[i], what));
        }
    }
    None
}
