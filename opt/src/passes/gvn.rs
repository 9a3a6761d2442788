//! `gvn`: global value numbering over the dominator tree, plus redundant
//! load and read-only call elimination.
//!
//! # Pure expressions
//! Walking the dominator tree in preorder with a scoped table, an
//! instruction is replaced by an earlier one that computes the same
//! expression and dominates it. Expressions are keyed by kind, operands
//! (after earlier replacements) and result type: constants, `global_addr`,
//! `func_addr`, `fneg`, binary operators, compares, casts, `select`,
//! `ptradd` and pure intrinsics (math, GPU ids). Commutative operators
//! order their operands; `icmp`/`fcmp` put the lower-numbered operand first
//! and swap the condition, so `a < b` and `b > a` meet. Integer divisions
//! are included even though they may trap: the dominating copy has run
//! already, with the same operands, so the one removed could not have
//! trapped. Block parameters and `alloca`s (each a fresh object) are never
//! merged.
//!
//! Merging pure values is indifferent to Tapir: a value defined before a
//! detach may be used in the task, and dominance never lets the
//! continuation use a task's value (the continuation is reached from the
//! detach directly). One exception keeps the CPU backend's parallel-loop
//! shape (`parir/src/analysis/tapir_loops.rs`: the task may use no value of
//! the loop header but the induction variable): an expression computed in
//! the header of a parallel loop (a block branching to a block that holds
//! only a detach) is not reused in a different task.
//!
//! # Loads and read-only calls
//! Memory values are tracked along *extended basic blocks*: a block with a
//! single predecessor starts with the state its predecessor ended with;
//! every other block starts empty (no merging at joins, so no value is ever
//! carried around a back edge). The state maps locations to known values:
//! - `store v, p` makes `v` the value of a later `load` of the same type
//!   from an address that must-aliases `p` (store-to-load forwarding);
//! - `v = load.T p` makes `v` the value of a later such load;
//! - `v = call @f(args)` of a read-only function ([`ModRefSummary::is_read_only`](
//!   crate::analysis::modref::ModRefSummary::is_read_only)) makes `v` the
//!   value of a later call of `@f` with the same arguments.
//!
//! Every instruction that may write memory kills the entries whose reads
//! it may overlap ([`inst_effects`] and [`may_overlap`]): stores,
//! `memcpy`/`memset`/`free`, calls of functions that write, atomics,
//! launches, barriers, `exit`.
//!
//! # Tapir: detach, reattach and sync edges clobber
//! The state does not cross a `detach` (into the task or to the
//! continuation), a `reattach` or a `sync` edge, except for entries about
//! *task-private* `alloca`s: uncaptured ones whose every access lies in the
//! innermost task of the `alloca` itself, which no other strand can touch.
//! Crossing a sync edge with a value loaded before it would miss a write by
//! a task the sync waits for; crossing into a continuation would miss a
//! write by the task that may run in parallel (and that the serial
//! projection runs first). Forwarding a parent's store into its task would
//! be valid (the task starts after it, and a parallel write by the
//! continuation would be a race), but it is not done: clearing on every
//! Tapir edge is simpler to trust. (Continuations also have two
//! predecessors, the detach and the reattach, so they start empty anyway.)

use crate::PassContext;
use crate::analysis::alias::{AliasAnalysis, AliasResult, Base, GlobalFacts, type_size};
use crate::analysis::modref::{MemSet, ModRefAnalysis, inst_effects, may_overlap};
use crate::{HashMap, HashSet};
use parc_ir::analysis::FunctionAnalyses;
use parc_ir::{
    BinaryOp, Block, CastOp, FloatCC, FuncId, Function, GlobalId, Inst, InstKind, IntCC, Intrinsic,
    Module, Type, UnaryOp, Value,
};
use std::rc::Rc;

/// What one run removed.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    pub pure: u64,
    pub loads: u64,
    pub calls: u64,
}

impl Stats {
    fn total(self) -> u64 {
        self.pure + self.loads + self.calls
    }
}

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let modref = ModRefAnalysis::compute(module);
    let globals = GlobalFacts::new(module);
    let mut stats = Stats::default();
    let mut changed = false;
    for (id, f) in module.funcs.iter_mut() {
        if f.is_declaration() {
            continue;
        }
        // GVN changes no terminator's targets: the analyses stay valid
        // for the passes after it.
        let an = ctx.analyses.get(id, f);
        let s = run_with(f, an, &globals, &modref);
        stats.pure += s.pure;
        stats.loads += s.loads;
        stats.calls += s.calls;
        changed |= s.total() > 0;
    }
    ctx.count("gvn.pure", stats.pure);
    ctx.count("gvn.loads", stats.loads);
    ctx.count("gvn.calls", stats.calls);
    changed
}

/// A pure expression (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Iconst(i64, Type),
    Fconst(u64, Type),
    GlobalAddr(GlobalId),
    FuncAddr(FuncId),
    Unary(UnaryOp, Value),
    Binary(BinaryOp, Value, Value),
    Icmp(IntCC, Value, Value),
    Fcmp(FloatCC, Value, Value),
    Cast(CastOp, Value, Type),
    Select(Value, Value, Value),
    PtrAdd(Value, Value),
    Intrinsic(Intrinsic, Vec<Value>, Type),
}

fn swap_fcmp(cc: FloatCC) -> FloatCC {
    use FloatCC::*;
    match cc {
        Lt => Gt,
        Gt => Lt,
        Le => Ge,
        Ge => Le,
        Eq | Ne => cc,
    }
}

/// The key of a pure instruction with a result, in canonical form.
fn pure_key(func: &Function, inst: Inst) -> Option<Key> {
    let ty = func.value_type(func.result(inst)?);
    Some(match *func.inst(inst) {
        InstKind::Iconst(k) => Key::Iconst(k, ty),
        InstKind::Fconst(x) => Key::Fconst(x.to_bits(), ty),
        InstKind::GlobalAddr(g) => Key::GlobalAddr(g),
        InstKind::FuncAddr(f) => Key::FuncAddr(f),
        InstKind::Unary(op, a) => Key::Unary(op, a),
        InstKind::Binary(op, a, b) => {
            if op.is_commutative() && b < a {
                Key::Binary(op, b, a)
            } else {
                Key::Binary(op, a, b)
            }
        }
        InstKind::Icmp(cc, a, b) => {
            if b < a {
                Key::Icmp(cc.swapped(), b, a)
            } else {
                Key::Icmp(cc, a, b)
            }
        }
        InstKind::Fcmp(cc, a, b) => {
            if b < a {
                Key::Fcmp(swap_fcmp(cc), b, a)
            } else {
                Key::Fcmp(cc, a, b)
            }
        }
        InstKind::Cast(op, a) => Key::Cast(op, a, ty),
        InstKind::Select(c, a, b) => Key::Select(c, a, b),
        InstKind::PtrAdd(a, b) => Key::PtrAdd(a, b),
        InstKind::Intrinsic { op, ref args } if op.is_pure() => {
            Key::Intrinsic(op, args.clone(), ty)
        }
        _ => return None,
    })
}

/// A known memory value.
#[derive(Clone, Debug)]
enum Avail {
    /// A load of `ty` from `ptr` gives `value`.
    Load { ptr: Value, ty: Type, value: Value },
    /// `call @func(args)` of a read-only function gives `value`; `reads`
    /// is what the call reads.
    Call {
        func: FuncId,
        args: Vec<Value>,
        value: Value,
        reads: MemSet,
    },
}

impl Avail {
    fn reads(&self) -> MemSet {
        match self {
            Avail::Load { ptr, ty, .. } => MemSet {
                locs: vec![crate::analysis::modref::Loc {
                    ptr: *ptr,
                    size: Some(type_size(*ty)),
                }],
                any: false,
            },
            Avail::Call { reads, .. } => reads.clone(),
        }
    }
}

/// Most entries a memory state keeps (the oldest are dropped): bounds the
/// cost of long blocks.
const MAX_AVAIL: usize = 128;

struct Gvn<'a> {
    an: Rc<FunctionAnalyses>,
    aa: AliasAnalysis,
    modref: &'a ModRefAnalysis,
    /// Blocks that head a parallel loop (see the module doc).
    parallel_headers: HashSet<Block>,
    /// Task-private `alloca`s (see the module doc).
    private: HashSet<Value>,
    table: HashMap<Key, Vec<(Value, Block)>>,
    repl: HashMap<Value, Value>,
    out_state: HashMap<Block, Vec<Avail>>,
    stats: Stats,
}

/// Runs GVN on one function; returns what it removed.
pub fn run_function(func: &mut Function, globals: &GlobalFacts, modref: &ModRefAnalysis) -> Stats {
    let an = Rc::new(FunctionAnalyses::compute(func));
    run_with(func, an, globals, modref)
}

/// As [`run_function`], with `func`'s current analyses.
fn run_with(
    func: &mut Function,
    an: Rc<FunctionAnalyses>,
    globals: &GlobalFacts,
    modref: &ModRefAnalysis,
) -> Stats {
    let aa = modref.alias_analysis(func, globals);
    let parallel_headers = parallel_headers(func, &an);
    let private = task_private_allocas(func, &an, &aa);
    let mut g = Gvn {
        an,
        aa,
        modref,
        parallel_headers,
        private,
        table: HashMap::default(),
        repl: HashMap::default(),
        out_state: HashMap::default(),
        stats: Stats::default(),
    };
    let Some(entry) = g.an.cfg.entry() else {
        return g.stats;
    };
    // Iterative preorder walk of the dominator tree; each block's table
    // entries are undone when its subtree is done.
    let mut undo: HashMap<Block, Vec<Key>> = HashMap::default();
    let mut stack = vec![(entry, false)];
    while let Some((b, done)) = stack.pop() {
        if done {
            for key in undo.remove(&b).unwrap_or_default() {
                if let Some(list) = g.table.get_mut(&key) {
                    list.pop();
                }
            }
            continue;
        }
        let pushed = g.block(func, b);
        undo.insert(b, pushed);
        stack.push((b, true));
        for &c in g.an.domtree.children(b).iter().rev() {
            stack.push((c, false));
        }
    }
    if g.stats.total() > 0 {
        let resolve = |mut v: Value| {
            while let Some(&w) = g.repl.get(&v) {
                v = w;
            }
            v
        };
        let blocks = func.layout.clone();
        for b in blocks {
            for i in func.blocks[b].insts.clone() {
                func.inst_mut(i).map_operands(resolve);
            }
        }
    }
    g.stats
}

impl Gvn<'_> {
    /// Processes one block; returns the table keys it pushed.
    fn block(&mut self, func: &mut Function, b: Block) -> Vec<Key> {
        let mut pushed = Vec::new();
        let mut state = self.initial_state(func, b);
        let mut dead: HashSet<Inst> = HashSet::default();
        let task = self.an.tasks.innermost(b);
        for inst in func.blocks[b].insts.clone() {
            let repl = &self.repl;
            func.inst_mut(inst)
                .map_operands(|v| repl.get(&v).copied().unwrap_or(v));
            if func.inst(inst).is_terminator() {
                continue;
            }
            if let Some(key) = pure_key(func, inst) {
                let r = func.result(inst).expect("keys have results");
                let leader = self.table.get(&key).and_then(|l| l.last()).copied();
                let usable = leader.filter(|&(_, def)| {
                    !self.parallel_headers.contains(&def) || self.an.tasks.innermost(def) == task
                });
                if let Some((v, _)) = usable {
                    self.repl.insert(r, v);
                    dead.insert(inst);
                    self.stats.pure += 1;
                } else {
                    self.table.entry(key.clone()).or_default().push((r, b));
                    pushed.push(key);
                }
                continue;
            }
            match func.inst(inst).clone() {
                InstKind::Load(p) => {
                    let r = func.result(inst).expect("a load has a result");
                    let ty = func.value_type(r);
                    let size = Some(type_size(ty));
                    let hit = state.iter().rev().find_map(|a| match *a {
                        Avail::Load { ptr, ty: t, value }
                            if t == ty
                                && self.aa.alias(func, p, size, ptr, size)
                                    == AliasResult::MustAlias =>
                        {
                            Some(value)
                        }
                        _ => None,
                    });
                    if let Some(v) = hit {
                        self.repl.insert(r, v);
                        dead.insert(inst);
                        self.stats.loads += 1;
                    } else {
                        push_avail(
                            &mut state,
                            Avail::Load {
                                ptr: p,
                                ty,
                                value: r,
                            },
                        );
                    }
                }
                InstKind::Call { func: callee, args }
                    if self.modref.is_read_only(callee) && func.result(inst).is_some() =>
                {
                    let r = func.result(inst).expect("checked");
                    let hit = state.iter().rev().find_map(|a| match a {
                        Avail::Call {
                            func: f,
                            args: a,
                            value,
                            ..
                        } if *f == callee && *a == args => Some(*value),
                        _ => None,
                    });
                    if let Some(v) = hit {
                        self.repl.insert(r, v);
                        dead.insert(inst);
                        self.stats.calls += 1;
                    } else {
                        let reads = inst_effects(self.modref, func, inst).reads;
                        push_avail(
                            &mut state,
                            Avail::Call {
                                func: callee,
                                args,
                                value: r,
                                reads,
                            },
                        );
                    }
                }
                kind => {
                    let e = inst_effects(self.modref, func, inst);
                    if !e.writes.is_empty() {
                        state.retain(|a| !may_overlap(&self.aa, func, &a.reads(), &e.writes));
                    }
                    if let InstKind::Store { value, ptr } = kind {
                        push_avail(
                            &mut state,
                            Avail::Load {
                                ptr,
                                ty: func.value_type(value),
                                value,
                            },
                        );
                    }
                }
            }
        }
        if !dead.is_empty() {
            func.blocks[b].insts.retain(|i| !dead.contains(i));
        }
        self.out_state.insert(b, state);
        pushed
    }

    /// The memory state a block starts with (see the module doc).
    fn initial_state(&self, func: &Function, b: Block) -> Vec<Avail> {
        let [p] = self.an.cfg.preds(b) else {
            return Vec::new();
        };
        let Some(state) = self.out_state.get(p) else {
            return Vec::new();
        };
        let ordinary = func
            .terminator(*p)
            .is_some_and(|t| matches!(func.inst(t), InstKind::Jump(_) | InstKind::Brif { .. }));
        if ordinary {
            return state.clone();
        }
        state
            .iter()
            .filter(|a| match a {
                Avail::Load { ptr, .. } => match self.aa.base(func, *ptr) {
                    Base::Alloca(v) => self.private.contains(&v),
                    _ => false,
                },
                Avail::Call { .. } => false,
            })
            .cloned()
            .collect()
    }
}

fn push_avail(state: &mut Vec<Avail>, a: Avail) {
    if state.len() >= MAX_AVAIL {
        state.remove(0);
    }
    state.push(a);
}

/// Blocks ending in a branch to a block that holds only a detach and has
/// no other predecessor: the headers of parallel loops.
fn parallel_headers(func: &Function, an: &FunctionAnalyses) -> HashSet<Block> {
    let mut out = HashSet::default();
    for &b in an.cfg.blocks() {
        for &s in an.cfg.succs(b) {
            let only_detach = matches!(func.block_insts(s), [d]
                if matches!(func.inst(*d), InstKind::Detach { .. }));
            if only_detach && an.cfg.preds(s) == [b] && an.loops.loop_headed_by(b).is_some() {
                out.insert(b);
            }
        }
    }
    out
}

/// Uncaptured `alloca`s all of whose accesses (through values derived by
/// `ptradd`) lie in the innermost task of the `alloca` itself.
fn task_private_allocas(
    func: &Function,
    an: &FunctionAnalyses,
    aa: &AliasAnalysis,
) -> HashSet<Value> {
    let mut users: HashMap<Value, Vec<(Block, Inst)>> = HashMap::default();
    for (b, i) in func.placed_insts() {
        func.inst(i)
            .for_each_operand(|v| users.entry(v).or_default().push((b, i)));
    }
    let mut out = HashSet::default();
    for (b, i) in func.placed_insts() {
        if !matches!(func.inst(i), InstKind::Alloca { .. }) {
            continue;
        }
        let Some(a) = func.result(i) else { continue };
        if !aa.is_uncaptured_local(Base::Alloca(a)) {
            continue;
        }
        let task = an.tasks.innermost(b);
        let mut work = vec![a];
        let mut seen = HashSet::from_iter([a]);
        let mut private = true;
        while let Some(d) = work.pop() {
            for &(ub, ui) in users.get(&d).map_or(&[][..], |u| &u[..]) {
                if an.tasks.innermost(ub) != task {
                    private = false;
                }
                if let InstKind::PtrAdd(base, _) = func.inst(ui)
                    && *base == d
                    && let Some(r) = func.result(ui)
                    && seen.insert(r)
                {
                    work.push(r);
                }
            }
        }
        if private {
            out.insert(a);
        }
    }
    out
}
