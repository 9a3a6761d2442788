//! Activity analysis: which floating values carry derivatives (*varied*)
//! and which pointers carry a shadow (*shadowed*).
//!
//! A forward fixpoint over the function, monotone in every fact:
//! - a floating value is varied if it is an `Active` parameter, a load
//!   through a shadowed pointer, or computed (arithmetic, `fpext`/`fptrunc`,
//!   `select`, math intrinsics, block parameters) from a varied value, or the
//!   result of a call with a varied or shadowed argument;
//! - every pointer has a set of *roots* (where its memory came from: a
//!   parameter, an `alloca`, a heap allocation, a load, a global, something
//!   unknown), propagated through `ptradd`, `select` and block parameters;
//! - a root is *active memory* if it is a `Dup` parameter, or an
//!   `alloca`/`malloc`/`calloc`/`__shared__` array into which a varied value or a shadowed
//!   pointer is stored (directly, by `memcpy` from shadowed memory, or by a
//!   call or kernel launch that receives varied or shadowed arguments), or a pointer loaded
//!   through a shadowed pointer;
//! - a pointer is shadowed if one of its roots is active memory. Roots that
//!   are not active give a null shadow (their memory has no derivative);
//! - a pointer a call returns has its own root: it becomes active memory
//!   like an allocation does, and also when a pointer argument of the call
//!   is shadowed (the result may point into that memory); the callee's
//!   augmented forward then returns the result's shadow beside it (as
//!   Enzyme's augmented forward returns a shadow return), which makes
//!   every pointer the callee returns active memory in its own analysis
//!   (`ret_shadow`), so that an allocating helper allocates a shadow;
//! - a pointer loaded from a *slot* (an `alloca` whose address is only
//!   loaded from and stored to, as every local is before `mem2reg`) has the
//!   roots of the pointers stored into the slot, as it would once promoted:
//!   a `const` argument spilled to its slot at `-O0` stays without a shadow
//!   instead of reading its slot's (null) one.
//!
//! Only varied values get adjoints; integer code is inactive and copied as
//! is. After the fixpoint, float arithmetic whose every chain of uses ends
//! in comparisons or float-to-integer conversions is dropped from the
//! varied values (no derivative depends on it: [`ActivityInfo::compute`]'s
//! last step). Otherwise the analysis is conservative: a varied value that
//! does not influence the result (one stored to memory nothing reads, say)
//! only costs adjoint code whose contributions are zero.

use parc_ir::analysis::ControlFlowGraph;
use parc_ir::{Activity, Block, Function, GlobalId, Inst, InstKind, Intrinsic, Type, Value};
use std::collections::{BTreeSet, HashSet};

/// Where a pointer's memory comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Root {
    /// A pointer parameter (its index among the primal's parameters).
    Param(u32),
    Alloca(Inst),
    /// `malloc`, `calloc` or `realloc`.
    Heap(Inst),
    /// A pointer loaded from memory.
    Loaded(Inst),
    /// A `__shared__` array: one per block of a kernel, so like a local
    /// it gets a shadow (another `__shared__` array) once a varied value is
    /// stored into it.
    Shared(GlobalId),
    Global,
    /// The pointer a call returns (the call): where it points is the
    /// callee's, which returns its shadow when it is active memory.
    Returned(Inst),
    /// `inttoptr`, a constant address, a pointer from an intrinsic.
    Unknown,
}

/// The activity facts of one function under one assignment of parameter
/// activities.
#[derive(Clone, Debug, Default)]
pub struct ActivityInfo {
    /// The module's `__shared__` globals.
    shared: HashSet<GlobalId>,
    varied: HashSet<Value>,
    roots: std::collections::HashMap<Value, BTreeSet<Root>>,
    active_roots: HashSet<Root>,
    /// The pointers stored into each slot (see the module doc), by the
    /// slot's address.
    slots: std::collections::HashMap<Value, Vec<Value>>,
    /// The function returns its pointer result's shadow (a split pair
    /// made for a call whose result is active memory): the memory of
    /// every pointer it returns is active.
    ret_shadow: bool,
}

impl ActivityInfo {
    /// Runs the fixpoint. `acts` has one entry per parameter of `func`;
    /// `ret_shadow` asks for the shadow of the pointer it returns.
    pub fn compute(
        func: &Function,
        acts: &[Activity],
        ret_shadow: bool,
        cfg: &ControlFlowGraph,
        shared: HashSet<GlobalId>,
    ) -> ActivityInfo {
        let mut a = ActivityInfo {
            shared,
            slots: pointer_slots(func),
            ret_shadow,
            ..ActivityInfo::default()
        };
        let Some(entry) = func.entry() else {
            return a;
        };
        for (i, (&p, &act)) in func.blocks[entry].params.iter().zip(acts).enumerate() {
            match act {
                Activity::Active if func.value_type(p).is_float() => {
                    a.varied.insert(p);
                }
                Activity::Dup | Activity::DupNoNeed => {
                    a.add_roots(p, [Root::Param(i as u32)]);
                    a.active_roots.insert(Root::Param(i as u32));
                }
                _ => {
                    if func.value_type(p) == Type::Ptr {
                        a.add_roots(p, [Root::Param(i as u32)]);
                    }
                }
            }
        }
        let blocks: Vec<Block> = cfg.rpo().to_vec();
        loop {
            let mut changed = false;
            for &b in &blocks {
                for &inst in func.block_insts(b) {
                    changed |= a.transfer(func, inst);
                }
            }
            if !changed {
                break;
            }
        }
        a.drop_useless(func);
        a
    }

    /// Drops from the varied values the results of float arithmetic
    /// (unary and binary operations, `select`, float casts, math
    /// intrinsics) whose every chain of uses ends in comparisons or
    /// float-to-integer conversions: no derivative depends on them
    /// (Enzyme's *useful* half of activity), so they get no adjoint code
    /// and the reverse needs none of their operands for it. RSBench's
    /// `c_abs(Z) < 6.0` otherwise costs every call of `fast_nuclear_W` a
    /// square root, a division and the records of `Z` in its reverse.
    /// Parameters, loads, calls and block parameters stay varied.
    fn drop_useless(&mut self, func: &Function) {
        // The operands whose derivative follows from their user's
        // result's, and whether the user's result can be dropped.
        let derived = |kind: &InstKind| -> Option<Vec<Value>> {
            match kind {
                InstKind::Unary(_, x) => Some(vec![*x]),
                InstKind::Cast(parc_ir::CastOp::FpExt | parc_ir::CastOp::FpTrunc, x) => {
                    Some(vec![*x])
                }
                InstKind::Binary(op, x, y) if op.is_float() => Some(vec![*x, *y]),
                InstKind::Select(_, x, y) => Some(vec![*x, *y]),
                InstKind::Intrinsic { op, args } if crate::rules::is_math(*op) => {
                    Some(args.clone())
                }
                _ => None,
            }
        };
        let mut useful: HashSet<Value> = HashSet::new();
        let mut work: Vec<Value> = Vec::new();
        for (_, inst) in func.placed_insts() {
            let kind = func.inst(inst);
            if derived(kind).is_some() && func.result(inst).is_some_and(|r| self.is_varied(r)) {
                continue;
            }
            let sinks = match kind {
                // A comparison or a conversion to an integer has no
                // derivative to pass back.
                InstKind::Fcmp(..)
                | InstKind::Cast(parc_ir::CastOp::FpToSi | parc_ir::CastOp::FpToUi, _) => {
                    Vec::new()
                }
                InstKind::Select(c, _, _) => vec![*c],
                _ => kind.operands(),
            };
            for v in sinks {
                if self.is_varied(v) && useful.insert(v) {
                    work.push(v);
                }
            }
        }
        // Every varied value defined otherwise than by such arithmetic is
        // kept (and what it is computed from, by the rules above).
        for v in self.varied.iter().copied().collect::<Vec<_>>() {
            let keep = match func.value_def(v) {
                parc_ir::ValueDef::Result(i) => derived(func.inst(i)).is_none(),
                _ => true,
            };
            if keep && useful.insert(v) {
                work.push(v);
            }
        }
        while let Some(v) = work.pop() {
            let parc_ir::ValueDef::Result(i) = func.value_def(v) else {
                continue;
            };
            for x in derived(func.inst(i)).unwrap_or_default() {
                if self.is_varied(x) && useful.insert(x) {
                    work.push(x);
                }
            }
        }
        self.varied.retain(|v| useful.contains(v));
    }

    pub fn is_varied(&self, v: Value) -> bool {
        self.varied.contains(&v)
    }

    pub fn roots(&self, v: Value) -> impl Iterator<Item = Root> + '_ {
        self.roots.get(&v).into_iter().flatten().copied()
    }

    pub fn is_active_root(&self, r: Root) -> bool {
        self.active_roots.contains(&r)
    }

    /// True if `v` is a pointer with a shadow.
    pub fn is_shadowed(&self, v: Value) -> bool {
        self.roots(v).any(|r| self.active_roots.contains(&r))
    }

    /// True if `v` carries a derivative: a varied float or a shadowed pointer.
    pub fn is_active_value(&self, v: Value) -> bool {
        self.is_varied(v) || self.is_shadowed(v)
    }

    fn add_roots(&mut self, v: Value, rs: impl IntoIterator<Item = Root>) -> bool {
        let set = self.roots.entry(v).or_default();
        let mut changed = false;
        for r in rs {
            changed |= set.insert(r);
        }
        changed
    }

    fn copy_roots(&mut self, to: Value, from: Value) -> bool {
        let rs: Vec<Root> = self.roots(from).collect();
        self.add_roots(to, rs)
    }

    fn vary(&mut self, func: &Function, v: Value) -> bool {
        func.value_type(v).is_float() && self.varied.insert(v)
    }

    /// Makes the memory `p` points into active: allocations get shadows,
    /// and a pointer loaded from memory gets one if the memory it was loaded
    /// from can hold shadows (which is made so, recursively).
    fn activate_roots_of(&mut self, func: &Function, p: Value) -> bool {
        self.activate_rec(func, p, &mut HashSet::new())
    }

    fn activate_rec(&mut self, func: &Function, p: Value, seen: &mut HashSet<Inst>) -> bool {
        let rs: Vec<Root> = self.roots(p).collect();
        let mut changed = false;
        for r in rs {
            match r {
                Root::Alloca(_) | Root::Heap(_) | Root::Shared(_) => {
                    changed |= self.active_roots.insert(r)
                }
                Root::Returned(call) if seen.insert(call) => {
                    changed |= self.active_roots.insert(r);
                    // The result may point into an argument's memory.
                    if let InstKind::Call { args, .. } = func.inst(call) {
                        for &x in args {
                            if func.value_type(x) == Type::Ptr {
                                changed |= self.activate_rec(func, x, seen);
                            }
                        }
                    }
                }
                Root::Loaded(l) if !self.active_roots.contains(&r) && seen.insert(l) => {
                    if let InstKind::Load(from) = func.inst(l) {
                        let from = *from;
                        changed |= self.activate_rec(func, from, seen);
                        if self.is_shadowed(from) {
                            changed |= self.active_roots.insert(r);
                        }
                    }
                }
                _ => {}
            }
        }
        changed
    }

    fn transfer(&mut self, func: &Function, inst: Inst) -> bool {
        let res = func.result(inst);
        let mut changed = false;
        match func.inst(inst) {
            InstKind::Unary(_, x) | InstKind::Cast(_, x) => {
                if let Some(r) = res {
                    if self.is_varied(*x) {
                        if let InstKind::Cast(op, _) = func.inst(inst) {
                            use parc_ir::CastOp::*;
                            if matches!(op, FpExt | FpTrunc) {
                                changed |= self.vary(func, r);
                            }
                        } else {
                            changed |= self.vary(func, r);
                        }
                    }
                    if let InstKind::Cast(parc_ir::CastOp::IntToPtr, _) = func.inst(inst) {
                        changed |= self.add_roots(r, [Root::Unknown]);
                    }
                }
            }
            InstKind::Binary(op, x, y) => {
                if let Some(r) = res
                    && op.is_float()
                    && (self.is_varied(*x) || self.is_varied(*y))
                {
                    changed |= self.vary(func, r);
                }
            }
            InstKind::Select(_, x, y) => {
                if let Some(r) = res {
                    if self.is_varied(*x) || self.is_varied(*y) {
                        changed |= self.vary(func, r);
                    }
                    if func.value_type(r) == Type::Ptr {
                        changed |= self.copy_roots(r, *x);
                        changed |= self.copy_roots(r, *y);
                    }
                }
            }
            InstKind::Alloca { .. } => {
                if let Some(r) = res {
                    changed |= self.add_roots(r, [Root::Alloca(inst)]);
                }
            }
            InstKind::GlobalAddr(g) => {
                if let Some(r) = res {
                    let root = if self.shared.contains(g) {
                        Root::Shared(*g)
                    } else {
                        Root::Global
                    };
                    changed |= self.add_roots(r, [root]);
                }
            }
            InstKind::Iconst(_) | InstKind::FuncAddr(_) => {
                if let Some(r) = res
                    && func.value_type(r) == Type::Ptr
                {
                    changed |= self.add_roots(r, [Root::Unknown]);
                }
            }
            InstKind::PtrAdd(p, _) => {
                if let Some(r) = res {
                    changed |= self.copy_roots(r, *p);
                }
            }
            InstKind::Load(p) => {
                if let Some(r) = res {
                    let ty = func.value_type(r);
                    if ty.is_float() && self.is_shadowed(*p) {
                        changed |= self.vary(func, r);
                    }
                    if ty == Type::Ptr {
                        if let Some(stored) = self.slots.get(p).cloned() {
                            for v in stored {
                                changed |= self.copy_roots(r, v);
                            }
                        } else {
                            changed |= self.add_roots(r, [Root::Loaded(inst)]);
                            if self.is_shadowed(*p) {
                                changed |= self.active_roots.insert(Root::Loaded(inst));
                            }
                        }
                    }
                }
            }
            InstKind::Store { value, ptr } => {
                if self.is_varied(*value) || self.is_shadowed(*value) {
                    changed |= self.activate_roots_of(func, *ptr);
                }
                // A pointer stored into memory that has a shadow needs a
                // shadow itself (loads of it will look for one).
                if func.value_type(*value) == Type::Ptr && self.is_shadowed(*ptr) {
                    changed |= self.activate_roots_of(func, *value);
                }
            }
            InstKind::Intrinsic { op, args } => match op {
                Intrinsic::Malloc | Intrinsic::Calloc | Intrinsic::Realloc => {
                    if let Some(r) = res {
                        changed |= self.add_roots(r, [Root::Heap(inst)]);
                    }
                    if *op == Intrinsic::Realloc && self.is_shadowed(args[0]) {
                        changed |= self.activate_roots_of(func, res.unwrap_or(args[0]));
                    }
                }
                Intrinsic::Memcpy => {
                    if args.len() == 3 && self.is_shadowed(args[1]) {
                        changed |= self.activate_roots_of(func, args[0]);
                    }
                }
                Intrinsic::AtomicAdd => {
                    if let Some(r) = res
                        && args.len() == 2
                        && self.is_varied(args[1])
                    {
                        changed |= self.vary(func, r);
                        changed |= self.activate_roots_of(func, args[0]);
                    }
                }
                _ if crate::rules::is_math(*op) => {
                    if let Some(r) = res
                        && args.iter().any(|&x| self.is_varied(x))
                    {
                        changed |= self.vary(func, r);
                    }
                }
                _ => {
                    if let Some(r) = res
                        && func.value_type(r) == Type::Ptr
                    {
                        changed |= self.add_roots(r, [Root::Unknown]);
                    }
                }
            },
            InstKind::Launch { args, .. } if args.iter().any(|&x| self.is_active_value(x)) => {
                for &x in args {
                    if func.value_type(x) == Type::Ptr {
                        changed |= self.activate_roots_of(func, x);
                    }
                }
            }
            InstKind::Call { args, .. } => {
                if args.iter().any(|&x| self.is_active_value(x)) {
                    for &x in args {
                        if func.value_type(x) == Type::Ptr {
                            changed |= self.activate_roots_of(func, x);
                        }
                    }
                    if let Some(r) = res {
                        changed |= self.vary(func, r);
                    }
                }
                if let Some(r) = res
                    && func.value_type(r) == Type::Ptr
                {
                    changed |= self.add_roots(r, [Root::Returned(inst)]);
                    if args.iter().any(|&x| self.is_shadowed(x)) {
                        changed |= self.active_roots.insert(Root::Returned(inst));
                    }
                }
            }
            InstKind::Return(Some(v)) if self.ret_shadow && func.value_type(*v) == Type::Ptr => {
                changed |= self.activate_roots_of(func, *v);
            }
            InstKind::Jump(_) | InstKind::Brif { .. } => {
                for (dest, args) in branch_dests(func.inst(inst)) {
                    for (&p, &x) in func.blocks[dest].params.iter().zip(args) {
                        if self.is_varied(x) {
                            changed |= self.vary(func, p);
                        }
                        if func.value_type(p) == Type::Ptr {
                            changed |= self.copy_roots(p, x);
                        }
                    }
                }
            }
            _ => {}
        }
        changed
    }
}

/// The slots of `func` (allocas whose address is used only as the address
/// of loads and stores), each with the pointers stored into it; slots that
/// hold no pointer are left out.
fn pointer_slots(func: &Function) -> std::collections::HashMap<Value, Vec<Value>> {
    let mut allocas = HashSet::new();
    let mut escaped = HashSet::new();
    let mut stored: std::collections::HashMap<Value, Vec<Value>> = Default::default();
    for &b in &func.layout {
        for &inst in func.block_insts(b) {
            let kind = func.inst(inst);
            if let InstKind::Alloca { .. } = kind {
                if let Some(r) = func.result(inst) {
                    allocas.insert(r);
                }
                continue;
            }
            match kind {
                InstKind::Load(_) => {}
                InstKind::Store { value, ptr } => {
                    escaped.insert(*value);
                    if func.value_type(*value) == Type::Ptr {
                        stored.entry(*ptr).or_default().push(*value);
                    }
                }
                other => other.for_each_operand(|v| {
                    escaped.insert(v);
                }),
            }
        }
    }
    stored.retain(|slot, _| allocas.contains(slot) && !escaped.contains(slot));
    stored
}

/// The `(target, arguments)` pairs of a `jump` or `brif`.
pub fn branch_dests(kind: &InstKind) -> Vec<(Block, &[Value])> {
    kind.block_calls()
        .into_iter()
        .map(|c| (c.block, &c.args[..]))
        .collect()
}
