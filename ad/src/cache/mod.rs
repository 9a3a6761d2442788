//! What the reverse sweep records and what it recomputes.
//!
//! Recording a value costs a tape slot written in the forward sweep and
//! read in the reverse: memory traffic that dominates a gradient's time
//! when a loop records a few values per iteration. So the reverse
//! recomputes what it can get more cheaply (`Sweep::obtain`, which the
//! plan's dry run of the reverse walk asks for every forward value its
//! reverse code needs, noting the answers in `needs.rs`):
//!
//! - *free values*: constants, parameters, and (in combined mode) values of
//!   blocks that dominate every return outside any loop;
//! - *induction variables* of counted loops and parallel loops: `lo + k ·
//!   step` from the iteration number `k`, which the reverse keeps anyway;
//! - *loop invariants*: a value defined outside a loop but needed in its
//!   reverse is recorded once, at the loop's exit, not once per iteration;
//! - *pure instructions* (integer and float arithmetic, casts, compares,
//!   selects, address arithmetic, and the intrinsics that are a few
//!   machine instructions: `sqrt fabs fmin fmax floor ceil abs labs`;
//!   the library calls `exp log pow sin cos tan tanh` are recorded, except
//!   a `sin x` or `cos x` whose adjoint rule computes the other of the two
//!   in the reverse anyway: the backend makes one `sincos` call of the
//!   pair)
//!   whose operands are all obtainable
//!   without a new record: recomputing never adds tape traffic;
//! - *loads of memory nothing overwrites*: in combined mode, a load whose
//!   memory the function never writes (nor frees, nor lets a callee
//!   touch) reads the same value again in the reverse sweep. A `restrict`
//!   parameter (`noalias` in parir) nothing writes through counts as
//!   unwritten even when other pointers are written: C makes it undefined
//!   for another pointer to modify what it points to. So does C's
//!   effective-type rule for a load of a type that none of the writes
//!   through other pointers may modify (`strict_aliasing.rs`: the `int`
//!   indices of a gather are not overwritten by its `double` stores).
//!
//! A value the reverse cannot get that way is recorded, or rather the
//! cheapest set of values it can be recomputed from is: a minimum vertex
//! cut of the graph of what it is computed from (`mincut.rs`, Enzyme's
//! min-cut caching), nearest the inputs on a tie, so that later needs of
//! the same reverse block reuse the records. The cut is made for all the
//! values the block will need (`Plan::ahead`, from a first dry run of the
//! walk, and `Plan::ahead_own`: the generator's own values, such as the
//! shadow addresses a gather adds into, which share their indices and
//! shadow arrays) at once, and the part of it the asked value is computed
//! from is recorded. A loop invariant is recorded once at the loop's exit
//! instead. Recomputing never adds tape traffic beyond the cut, and the
//! joint cut is no larger than the needs it serves, so (as long as the
//! block needs what the first run found) this never records more than
//! recording every needed value would.
//!
//! Counted loops (`loops.rs`) are the other half: a serial loop whose
//! reverse counts its iterations records no edge per iteration.

mod loops;
mod needs;
mod recompute;

pub(crate) use loops::plan_loops;
pub use loops::{CountedLoop, ExitTest, counted_loops, split_loop_exits};
pub use needs::{Answer, Ask, Need, Needs};
pub use recompute::Recompute;
pub(crate) use recompute::plan_recompute;
use recompute::{BLOCK_PARAMETER, is_pure, reload_why, repeats};

use crate::activity::{ActivityInfo, Root, branch_dests};
use crate::plan::{Mode, Plan};
use crate::strict_aliasing::WriteTypes;
use parc_ir::{BinaryOp, Block, Function, InstKind, Intrinsic, Type, Value, ValueDef};
use std::collections::{HashMap, HashSet};

/// The memory a function writes, for deciding which loads the reverse
/// may repeat.
pub struct Writes {
    roots: HashSet<Root>,
    /// Memory reachable from outside the function (parameters, globals,
    /// loaded pointers) may be written.
    external: bool,
    /// The types of those writes.
    external_types: WriteTypes,
    /// `restrict` pointer parameters that nothing writes through and whose
    /// value is not stored to memory (where a loaded copy would be based
    /// on it): no other pointer may modify what they point to.
    restricted: HashSet<u32>,
}

impl Writes {
    /// `strict`: C's effective-type rule holds (`strict_aliasing.rs`).
    pub fn compute(p: &Function, act: &ActivityInfo, strict: bool) -> Writes {
        let mut roots = HashSet::new();
        let mut external = false;
        let mut external_types = WriteTypes::default();
        let mut stored = HashSet::new();
        for (_, i) in p.placed_insts() {
            if let InstKind::Store { value, .. } = p.inst(i)
                && p.value_type(*value) == parc_ir::Type::Ptr
            {
                stored.extend(act.roots(*value));
            }
            let dest = match p.inst(i) {
                InstKind::Store { ptr, value } => Some((*ptr, Some(p.value_type(*value)))),
                InstKind::Intrinsic { op, args } => match op {
                    Intrinsic::Memcpy
                    | Intrinsic::Memset
                    | Intrinsic::Free
                    | Intrinsic::Realloc
                    | Intrinsic::AtomicAdd => args.first().map(|&a| (a, None)),
                    Intrinsic::CudaMemcpy(_) | Intrinsic::CudaFree | Intrinsic::CudaMalloc => {
                        external = true;
                        external_types.add(None, strict);
                        args.first().map(|&a| (a, None))
                    }
                    _ => None,
                },
                InstKind::Call { args, .. } => {
                    // A callee may write through its pointer arguments and
                    // to any memory it can reach.
                    external = true;
                    external_types.add(None, strict);
                    for &a in args {
                        if p.value_type(a) == parc_ir::Type::Ptr {
                            roots.extend(act.roots(a));
                        }
                    }
                    None
                }
                InstKind::Launch { .. } => {
                    external = true;
                    external_types.add(None, strict);
                    None
                }
                _ => None,
            };
            if let Some((d, ty)) = dest {
                if act.roots(d).any(|r| is_external(&r)) {
                    external = true;
                    external_types.add(ty, strict);
                }
                roots.extend(act.roots(d));
            }
        }
        let restricted = (0..p.sig.params.len() as u32)
            .filter(|&k| {
                let r = Root::Param(k);
                p.param_noalias(k as usize) && !roots.contains(&r) && !stored.contains(&r)
            })
            .collect();
        Writes {
            roots,
            external,
            external_types,
            restricted,
        }
    }

    /// True if no write of the function can change what a load of type
    /// `ty` through `ptr` reads.
    pub fn unchanged(&self, act: &ActivityInfo, ptr: Value, ty: Type) -> bool {
        let mut any = false;
        let ok = act.roots(ptr).all(|r| {
            any = true;
            match r {
                Root::Param(k) if self.restricted.contains(&k) => true,
                Root::Param(_) | Root::Global => {
                    !self.external
                        || !self.roots.contains(&r) && !self.external_types.may_modify(ty)
                }
                Root::Alloca(_) | Root::Heap(_) | Root::Shared(_) => !self.roots.contains(&r),
                Root::Loaded(_) | Root::Returned(_) | Root::Unknown => false,
            }
        });
        any && ok
    }
}

/// Memory reachable from outside the function.
fn is_external(r: &Root) -> bool {
    matches!(
        r,
        Root::Param(_) | Root::Global | Root::Loaded(_) | Root::Returned(_) | Root::Unknown
    )
}

// ----- record or recompute, as the reverse walk asks (see `needs.rs`)

/// How deep a chain of instructions the reverse recomputes instead of
/// recording its result: deep enough for an n-body distance (index, address,
/// load, difference, squares, sum, `sqrt`), short enough to keep each
/// reverse iteration's recomputation small.
pub(crate) const MAX_RECOMPUTE_DEPTH: u32 = 16;

/// An instruction whose value the reverse recomputes wherever it needs it:
/// a constant, an address of a global or function, or where the thread
/// is in its grid. The last two must not be recorded: a kernel launch's
/// reverse runs in another launch (see `launches.rs`), whose `__shared__`
/// arrays are at other addresses, on the same threads.
pub(crate) fn is_position(kind: &InstKind) -> bool {
    matches!(
        kind,
        InstKind::Iconst(_)
            | InstKind::Fconst(_)
            | InstKind::GlobalAddr(_)
            | InstKind::FuncAddr(_)
            | InstKind::Intrinsic {
                op: Intrinsic::ThreadIdx(_)
                    | Intrinsic::BlockIdx(_)
                    | Intrinsic::BlockDim(_)
                    | Intrinsic::GridDim(_),
                ..
            }
    )
}

/// An induction variable the reverse recomputes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Iv {
    /// Header parameter `p` of counted loop `i`.
    Counted(usize, Value),
    /// The index of parallel loop `i`.
    Parallel(usize),
}

/// How the reverse code of a block gets a forward value it needs (see
/// the module doc), as [`Sweep::obtain`] decides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Obtain {
    /// No record: a constant (emitted again), a parameter, or a value the
    /// reverse uses directly.
    Free,
    /// Popped from the block's frame already.
    Popped(Value),
    /// Computed again from values obtainable without a new record in the
    /// block's own frame.
    Recompute,
    /// Recorded once at the exit of the loop that starts at `Block` (the
    /// outermost loop around the block that does not define it).
    RecordAt(Block),
    /// The cheapest values to record instead (a minimum cut, `mincut.rs`):
    /// record them in the block's frame, then recompute the value if
    /// [`Sweep::cheap`] allows, else record it too.
    RecordCut(Vec<Value>),
    /// Recorded in the block's own frame.
    Record,
}

/// How the reverse computes again a value that [`Sweep::cheap`] accepted
/// (as [`Sweep::rebuild`] decides).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rebuild {
    /// `lo + k·step` of the iteration being reversed.
    Iv(Iv),
    /// Recorded once at the exit of the loop that starts at `Block`: it
    /// cannot be computed again from values that need no record.
    RecordAt(Block),
    /// `select(c, t, f)`: a join's parameter chosen by a branch condition
    /// (see [`Sweep::param_by_condition`]).
    Select(Value, Value, Value),
    /// Its instruction again, on its operands computed again in turn.
    Operands,
}

/// What the generator has made so far that the record-or-recompute
/// decisions read: the work function, its forward copies of primal
/// values, and what each reverse block has popped.
pub(crate) struct Sweep<'a> {
    pub plan: &'a Plan,
    /// The work function being generated.
    pub g: &'a Function,
    /// Primal values to their forward copies, and back.
    pub fwd: &'a HashMap<Value, Value>,
    pub fwd_inv: &'a HashMap<Value, Value>,
    /// The primal block of each forward value.
    pub origin: &'a HashMap<Value, Block>,
    /// Split mode: the reverse entry, whose parameters are free.
    pub rentry: Option<Block>,
    /// The values each primal block's reverse has popped (or recorded in
    /// an enclosing loop's frame).
    pub pop_cache: &'a HashMap<(Block, Value), Value>,
}

/// The graph of [`Sweep::cheapest_records`]: values (nodes `0..`), edges
/// from an operand to a value computed from it, and the values the
/// reverse cannot compute again (sources).
#[derive(Default)]
struct CutGraph {
    vals: Vec<Value>,
    index: HashMap<Value, usize>,
    edges: Vec<(usize, usize)>,
    sources: Vec<usize>,
}

impl CutGraph {
    /// The node of forward value `v`, added with what the reverse of `b`
    /// would compute it from, down to values it cannot compute again (or
    /// [`MAX_RECOMPUTE_DEPTH`] deep), if it is new; operands the reverse
    /// gets without a record are left out.
    fn node(&mut self, sweep: &Sweep, b: Block, v: Value) -> usize {
        if let Some(&i) = self.index.get(&v) {
            return i;
        }
        self.vals.push(v);
        self.index.insert(v, self.vals.len() - 1);
        let mut stack = vec![(v, 0u32)];
        while let Some((v, depth)) = stack.pop() {
            let i = self.index[&v];
            let ops = sweep
                .recompute_operands(v)
                .filter(|_| depth < MAX_RECOMPUTE_DEPTH);
            let Some(ops) = ops else {
                self.sources.push(i);
                continue;
            };
            for op in ops {
                if sweep.cheap(b, op, 0) {
                    continue;
                }
                let j = match self.index.get(&op) {
                    Some(&j) => j,
                    None => {
                        self.vals.push(op);
                        self.index.insert(op, self.vals.len() - 1);
                        stack.push((op, depth + 1));
                        self.vals.len() - 1
                    }
                };
                self.edges.push((j, i));
            }
        }
        self.index[&v]
    }
}

impl Sweep<'_> {
    /// How the reverse of primal block `b` gets forward value `gv`.
    pub(crate) fn obtain(&self, b: Block, gv: Value) -> Obtain {
        if self.is_free(gv) {
            return Obtain::Free;
        }
        if let Some(&v) = self.pop_cache.get(&(b, gv)) {
            return Obtain::Popped(v);
        }
        if self.cheap(b, gv, 0) {
            return Obtain::Recompute;
        }
        if let Some(at) = self.hoist_target(b, gv) {
            // Once per execution of the loop: cheaper than any cut inside.
            return Obtain::RecordAt(at);
        }
        let cut = self.cheapest_records(b, gv);
        if cut != [gv] {
            return Obtain::RecordCut(cut);
        }
        Obtain::Record
    }

    fn fv(&self, v: Value) -> Value {
        self.fwd[&v]
    }

    /// The values whose records let the reverse of `b` rebuild `gv` most
    /// cheaply (see `mincut.rs`): the graph is what `gv` is computed from
    /// through instructions the reverse may repeat, down to values it
    /// already has (which cost nothing and are left out).
    ///
    /// The cut is that of every value the reverse of `b` will need and
    /// cannot yet get without a record (`Plan::ahead`), each a sink, so
    /// that one set of records serves them all: five needs computed from
    /// one overwritten complex number record its two parts rather than
    /// five values. Of that cut, the values `gv` is computed from are
    /// returned (they alone separate `gv` from the sources); the others'
    /// needs meet them popped, or find the same cut when their turn comes.
    fn cheapest_records(&self, b: Block, gv: Value) -> Vec<Value> {
        let mut graph = CutGraph::default();
        let mut sinks = vec![graph.node(self, b, gv)];
        // `gv`'s cone is complete: what it is computed from.
        let cone = graph.vals.len();
        for &pv in self.plan.ahead.get(&b).into_iter().flatten() {
            let Some(&w) = self.fwd.get(&pv) else {
                continue;
            };
            if self.cheap(b, w, 0) {
                continue;
            }
            // A later need, perhaps one `gv` is computed from.
            let i = graph.node(self, b, w);
            if !sinks.contains(&i) {
                sinks.push(i);
            }
        }
        // The generator's own later needs: forward values (an `origin`)
        // that no primal value copies.
        for &w in self.plan.ahead_own.get(&b).into_iter().flatten() {
            if !self.origin.contains_key(&w) || self.fwd_inv.contains_key(&w) || self.cheap(b, w, 0)
            {
                continue;
            }
            let i = graph.node(self, b, w);
            if !sinks.contains(&i) {
                sinks.push(i);
            }
        }
        let costs = vec![1; graph.vals.len()];
        crate::mincut::cheapest_records(&costs, &graph.edges, &graph.sources, &sinks)
            .into_iter()
            .filter(|&i| i < cone)
            .map(|i| graph.vals[i])
            .collect()
    }

    /// The operands from which the reverse may compute forward value `v`
    /// again (the instructions `cheap` accepts), or `None`: for a copy of
    /// a primal value, as the plan's `recompute` table says; for a value
    /// of the generator's own, pure instructions and cheap intrinsics.
    fn recompute_operands(&self, v: Value) -> Option<Vec<Value>> {
        let ValueDef::Result(i) = self.g.value_def(v) else {
            return None;
        };
        let kind = self.g.inst(i);
        let repeated = match self.planned(v) {
            Some(how) => repeats(how),
            None => match kind {
                InstKind::Intrinsic { op, .. } => op.is_cheap_arithmetic(),
                _ => is_pure(kind),
            },
        };
        if !repeated {
            return None;
        }
        match kind {
            InstKind::Binary(_, x, y)
            | InstKind::PtrAdd(x, y)
            | InstKind::Icmp(_, x, y)
            | InstKind::Fcmp(_, x, y) => Some(vec![*x, *y]),
            InstKind::Unary(_, x) | InstKind::Cast(_, x) => Some(vec![*x]),
            InstKind::Select(c, x, y) => Some(vec![*c, *x, *y]),
            InstKind::Load(ptr) => Some(vec![*ptr]),
            InstKind::Intrinsic { args, .. } => Some(args.clone()),
            _ => None,
        }
    }

    /// The plan's [`Recompute`] of the primal value forward value `gv`
    /// copies, if it copies one.
    fn planned(&self, gv: Value) -> Option<&Recompute> {
        self.fwd_inv
            .get(&gv)
            .and_then(|pv| self.plan.recompute.get(pv))
    }

    /// True if the reverse needs no record of forward value `gv`: as the
    /// plan's `recompute` table says for a copy of a primal value; for a
    /// value of the generator's own, the same rule on `g`.
    pub(crate) fn is_free(&self, gv: Value) -> bool {
        if let Some(how) = self.planned(gv) {
            return *how == Recompute::Free;
        }
        let fentry = self.g.layout[0];
        match self.g.value_def(gv) {
            ValueDef::Param(b, _) if b == fentry || Some(b) == self.rentry => return true,
            ValueDef::Result(i) if is_position(self.g.inst(i)) => return true,
            _ => {}
        }
        self.plan.mode == Mode::Combined
            && self
                .origin
                .get(&gv)
                .is_some_and(|b| self.plan.avail.contains(b))
    }

    /// Where a value needed by the reverse of `b` is better recorded (see
    /// `Plan::record_site`), for a forward value the generator knows the
    /// primal block of.
    pub(crate) fn hoist_target(&self, b: Block, gv: Value) -> Option<Block> {
        self.plan.record_site(b, *self.origin.get(&gv)?)
    }

    /// The counted loop or parallel loop of which `gv` (a forward value)
    /// is an induction variable that the reverse of `b` can recompute (see
    /// `Plan::induction`).
    pub(crate) fn iv_of(&self, b: Block, gv: Value) -> Option<Iv> {
        self.plan.induction(b, *self.fwd_inv.get(&gv)?)
    }

    /// True if the reverse of `b` can obtain `gv` without a new record in
    /// its own frame (see the module doc).
    pub(crate) fn cheap(&self, b: Block, gv: Value, depth: u32) -> bool {
        self.cheap_with(b, gv, depth, true)
    }

    /// [`Self::cheap`], where `hoist` says whether a record at a loop's exit
    /// counts as cheap; without it, only values that need no record at all.
    pub(crate) fn cheap_with(&self, b: Block, gv: Value, depth: u32, hoist: bool) -> bool {
        self.cheap_memo(b, gv, depth, hoist, &mut HashMap::new())
    }

    /// The walk behind [`Self::cheap_with`]; `memo` keeps each value's
    /// answer, so a DAG of shared operands (`x * x`) is walked once.
    fn cheap_memo(
        &self,
        b: Block,
        gv: Value,
        depth: u32,
        hoist: bool,
        memo: &mut HashMap<Value, bool>,
    ) -> bool {
        if let Some(&known) = memo.get(&gv) {
            return known;
        }
        let answer = self.cheap_step(b, gv, depth, hoist, memo);
        memo.insert(gv, answer);
        answer
    }

    fn cheap_step(
        &self,
        b: Block,
        gv: Value,
        depth: u32,
        hoist: bool,
        memo: &mut HashMap<Value, bool>,
    ) -> bool {
        if self.is_free(gv) || self.pop_cache.contains_key(&(b, gv)) {
            return true;
        }
        if depth > MAX_RECOMPUTE_DEPTH {
            return false;
        }
        if (hoist && self.hoist_target(b, gv).is_some()) || self.iv_of(b, gv).is_some() {
            return true;
        }
        if let Some((c, t, f)) = self.param_by_condition(gv) {
            return self.cheap_memo(b, c, depth + 1, hoist, memo)
                && [t, f].into_iter().all(|a| {
                    self.cheap_memo(b, a, depth + 1, hoist, memo) && !self.may_trap(b, a, depth + 1)
                });
        }
        self.recompute_operands(gv).is_some_and(|ops| {
            ops.into_iter()
                .all(|a| self.cheap_memo(b, a, depth + 1, hoist, memo))
        })
    }

    /// A parameter of a join with two incoming edges that the latest
    /// branch on one condition decided (see [`Self::join`]),
    /// as that condition and the arguments of the true and the false edge
    /// (forward values): `gv` is `select(c, t, f)`, as C's `a && b` is.
    /// The argument of the way not taken was never computed, so it may be
    /// recomputed only if that cannot fault ([`Self::may_trap`]).
    pub(crate) fn param_by_condition(&self, gv: Value) -> Option<(Value, Value, Value)> {
        let &pv = self.fwd_inv.get(&gv)?;
        let ValueDef::Param(join, k) = self.plan.p.value_def(pv) else {
            return None;
        };
        if join == self.plan.p.layout[0] || self.iv_of(join, gv).is_some() {
            return None;
        }
        let edges = self.plan.edges.get(&join)?;
        let (c, on_true, on_false) = self.join(join)?;
        let arg = |(pred, slot): (Block, usize)| -> Option<Value> {
            let term = self.plan.p.terminator(pred)?;
            let kind = self.plan.p.inst(term);
            let (_, args) = branch_dests(kind).into_iter().nth(slot)?;
            args.get(k as usize).map(|&a| self.fv(a))
        };
        Some((c, arg(edges[on_true])?, arg(edges[on_false])?))
    }

    /// True if the reverse of `b` recomputing forward value `gv` (which
    /// [`Self::cheap`] allows) may fault: a division, a load.
    fn may_trap(&self, b: Block, gv: Value, depth: u32) -> bool {
        if self.is_free(gv)
            || self.pop_cache.contains_key(&(b, gv))
            || self.iv_of(b, gv).is_some()
            || self.hoist_target(b, gv).is_some()
        {
            return false;
        }
        if depth > MAX_RECOMPUTE_DEPTH {
            return true;
        }
        if let Some((c, t, f)) = self.param_by_condition(gv) {
            return [c, t, f]
                .into_iter()
                .any(|v| self.may_trap(b, v, depth + 1));
        }
        let ValueDef::Result(i) = self.g.value_def(gv) else {
            return true;
        };
        let kind = self.g.inst(i);
        let traps = match kind {
            InstKind::Binary(op, ..) => matches!(
                op,
                BinaryOp::Sdiv | BinaryOp::Udiv | BinaryOp::Srem | BinaryOp::Urem
            ),
            InstKind::Iconst(_) | InstKind::Fconst(_) => false,
            _ if is_pure(kind) => false,
            InstKind::Intrinsic { op, .. } => !op.is_cheap_arithmetic(),
            _ => true,
        };
        let mut ops = Vec::new();
        kind.for_each_operand(|v| ops.push(v));
        traps || ops.into_iter().any(|v| self.may_trap(b, v, depth + 1))
    }

    /// True if forward load `gv` reads memory that nothing writes before
    /// the reverse sweep runs: memory no code of the run writes
    /// (`readonly.rs`), or, in combined mode, memory this function does
    /// not write (in split mode the caller runs between `.aug` and `.rev`).
    pub(crate) fn reloadable(&self, gv: Value) -> bool {
        let Some(&r) = self.fwd_inv.get(&gv) else {
            return false;
        };
        let ValueDef::Result(i) = self.plan.p.value_def(r) else {
            return false;
        };
        let InstKind::Load(ptr) = self.plan.p.inst(i) else {
            return false;
        };
        reload_why(self.plan, *ptr, self.plan.p.value_type(r)).is_some()
    }

    /// The join `b`'s way in as the plan recomputes it from a branch
    /// condition (see `Plan::joins`): the forward condition and the
    /// indices (into `plan.edges`) of the true and false edges.
    pub(crate) fn join(&self, b: Block) -> Option<(Value, usize, usize)> {
        let &(cond, on_true, on_false) = self.plan.joins.get(&b)?;
        Some((self.fv(cond), on_true, on_false))
    }

    /// How the reverse of `b` computes again forward value `gv`, which
    /// [`Self::cheap`] accepted and which is neither free nor popped.
    ///
    /// A value that can be recomputed from values needing no record is
    /// recomputed even where a record at a loop's exit would do: the
    /// optimizer hoists an invariant recomputation out of the reverse
    /// loop, and no tape slot is spent.
    pub(crate) fn rebuild(&self, b: Block, gv: Value) -> Rebuild {
        if let Some(iv) = self.iv_of(b, gv) {
            return Rebuild::Iv(iv);
        }
        if let Some(at) = self
            .hoist_target(b, gv)
            .filter(|_| !self.cheap_with(b, gv, 0, false))
        {
            return Rebuild::RecordAt(at);
        }
        if let Some((c, t, f)) = self.param_by_condition(gv) {
            return Rebuild::Select(c, t, f);
        }
        Rebuild::Operands
    }

    /// Why [`Self::obtain`] found no way to obtain forward value `gv` again
    /// (for the tape report): the plan's reason for it (`Plan::recompute`),
    /// or for a value computed again from its operands, the values it is
    /// computed from that the reverse cannot obtain again (the min cut
    /// over them chose the value itself); free values are not among them.
    pub(crate) fn why_not_recomputable(&self, gv: Value) -> String {
        if let Some(own) = self.unobtainable(gv) {
            return own;
        }
        let mut from = Vec::new();
        let mut stack = vec![(gv, 0u32)];
        let mut seen = HashSet::new();
        while let Some((v, depth)) = stack.pop() {
            if !seen.insert(v) || depth > MAX_RECOMPUTE_DEPTH {
                continue;
            }
            let ValueDef::Result(i) = self.g.value_def(v) else {
                continue;
            };
            if v != gv && self.is_free(v) {
                continue;
            }
            if v != gv
                && let Some(why) = self.unobtainable(v)
            {
                let name = self
                    .fwd_inv
                    .get(&v)
                    .map(|&p| crate::explain::value_name(self.plan, p))
                    .unwrap_or_else(|| v.to_string());
                let name = crate::tape_report::unwrapped(name);
                let item = format!("`{name}` ({why})");
                if !from.contains(&item) {
                    from.push(item);
                }
                continue;
            }
            self.g.inst(i).clone().map_operands(|o| {
                stack.push((o, depth + 1));
                o
            });
        }
        if from.is_empty() {
            return "recomputing it needs a value that is not recorded".into();
        }
        format!(
            "computed from {}: recording this value is the cheapest cut",
            from.join(", ")
        )
    }

    /// Why a value cannot be computed again at all, if it cannot: for a
    /// copy of a primal value, the plan's reason; for a value of the
    /// generator's own, the same rule on `g`.
    fn unobtainable(&self, v: Value) -> Option<String> {
        if let Some(how) = self.planned(v) {
            return match how {
                Recompute::Record(why) => why.clone(),
                Recompute::Induction | Recompute::ByCondition => Some(BLOCK_PARAMETER.into()),
                _ => None,
            };
        }
        match self.g.value_def(v) {
            ValueDef::Param(b, _) if b != self.g.layout[0] => Some(BLOCK_PARAMETER.into()),
            ValueDef::Param(..) => None,
            ValueDef::Result(i) => match self.g.inst(i) {
                InstKind::Load(_) if !self.reloadable(v) => {
                    Some("memory that may be overwritten before the reverse reads it".into())
                }
                InstKind::Call { .. } | InstKind::CallIndirect { .. } => {
                    Some("the result of a call".into())
                }
                InstKind::Intrinsic { op, .. }
                    if !op.is_cheap_arithmetic() && !is_position(self.g.inst(i)) =>
                {
                    Some(format!(
                        "`{}` is not recomputed (a library call)",
                        op.name()
                    ))
                }
                _ => None,
            },
        }
    }
}
