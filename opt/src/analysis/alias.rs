//! Alias analysis: may two memory accesses touch the same bytes?
//!
//! # Pointers
//! A pointer value is decomposed ([`AliasAnalysis::pointer`]) into a
//! **base** plus an offset, by walking `ptradd` chains: an `iconst` offset
//! adds to a constant part, any other offset value joins a sorted list of
//! symbolic terms. Bases ([`Base`]):
//! - `Alloca(v)`: the result of an `alloca` — an object of this invocation;
//! - `Global(g)`: the address of a global;
//! - `Fresh(v)`: the result of `malloc`/`calloc` — an object that did not
//!   exist before the allocation;
//! - `Param(v)`: a parameter of the function (the entry block's);
//! - `Unknown(v)`: anything else (a loaded pointer, a call's result, a
//!   block parameter, a `select`, `inttoptr`, a null constant, and the
//!   device pointer `cuda_malloc` stores to memory, which is read back by
//!   a load).
//!
//! `alloca`s, globals and fresh allocations are *identified objects*.
//!
//! # Capture
//! An `alloca` or fresh allocation is **captured** if some pointer derived
//! from it (through `ptradd`) is used other than as the address of a load,
//! a store or a memory intrinsic (`memcpy`, `memset`, `free`, `atomic_add`,
//! the C string readers, `printf`, the `cuda_*` memory calls), as an
//! operand of a comparison, or as an argument for a parameter that the
//! callee does not capture ([`super::modref`] infers that). Storing it as a
//! value, returning it, passing it to a block parameter, a `select`,
//! `ptrtoint`, a launch or a capturing parameter captures it. No pointer
//! that the function loads, receives from a call or computes by `inttoptr`
//! can point into an uncaptured object: the only way to reach it is through
//! the SSA values derived from it here. (A call that receives it as a
//! non-capturing argument can reach it *during* that call, which is why
//! [`super::modref::inst_effects`] lists pointer arguments as locations.)
//!
//! # Objects shared by parallel strands
//! An uncaptured object that an instruction in a task writes, where that
//! task is not the innermost task of the object's `alloca` (or `malloc`),
//! is **shared**: logically parallel strands (the iterations of a
//! parallel loop) write it. In a race-free program they are ordered by
//! synchronization, and every way to synchronize is a call (`omp_set_lock`,
//! `__parc_critical_begin` and their releases, or a function calling
//! them): a strand that takes a lock sees what the strand that released
//! it wrote, although no instruction of the function touched the object
//! in between. So a shared object is not private to the function's own
//! accesses: "any memory" (what a call with unknown effects reads and
//! writes, [`super::modref::MemSet::any`]) includes it
//! ([`AliasAnalysis::is_private_local`]). It stays uncaptured: no pointer
//! the function loads or receives can point into it. (A parent's write
//! in a continuation that runs in parallel with a task would need the
//! same care, but ParC's continuations of a detach hold no program code:
//! a `parallel_for`'s is its loop control, a `spawn`'s the code after the
//! call, which cannot reach the callee's locals but through a captured
//! pointer.)
//!
//! # What `alias` proves
//! [`AliasAnalysis::alias`] answers, for accesses of `size_a` and `size_b`
//! bytes (`None`: unknown extent) at `a` and `b` **evaluated at the same
//! point of one execution**:
//! - `MustAlias`: the same address and the same known size;
//! - `NoAlias`, when one of these holds:
//!   1. same base, same symbolic terms, and the constant byte ranges are
//!      disjoint;
//!   2. two different identified objects (distinct `alloca`s, distinct
//!      globals, distinct fresh allocations, or one of each kind);
//!   3. an `alloca` or fresh allocation against a parameter: the object was
//!      created after the parameter's value was fixed, so the parameter
//!      cannot point into it (using a freed pointer is undefined);
//!   4. an uncaptured `alloca` or fresh allocation against an `Unknown`
//!      base;
//!   5. a `shared` (GPU shared memory) global against a kernel's
//!      parameter: kernel arguments come from the host, which cannot see
//!      shared memory (rule 2 already separates it from other globals);
//!   6. a `noalias` (C `restrict`) parameter against another parameter or
//!      a global: if their objects overlapped and either access wrote, an
//!      object modified during the call would be reached through a pointer
//!      not based on the restricted one, which C leaves undefined. (An
//!      `Unknown` base may be derived from the parameter — a loop's pointer
//!      or a select — so it is not separated.)
//! - `MayAlias` otherwise.
//!
//! Rule 1 compares SSA values, so it is exact at one point of an
//! execution. A pass that compares accesses from different iterations of a
//! loop (LICM) only asks about loop-invariant addresses, where one value is
//! one address in every iteration; GVN only compares accesses along paths
//! that do not cross a back edge.

use crate::{HashMap, HashSet};
use parc_ir::analysis::{ControlFlowGraph, DominatorTree, TaskTree};
use parc_ir::{
    AddrSpace, Block, FuncId, FuncKind, Function, GlobalId, InstKind, Intrinsic, Module, Type,
    Value, ValueDef,
};

/// What a pointer is derived from (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Base {
    Alloca(Value),
    Global(GlobalId),
    Fresh(Value),
    Param(Value),
    Unknown(Value),
}

impl Base {
    /// An `alloca`, a global or a fresh allocation.
    pub fn is_identified(self) -> bool {
        matches!(self, Base::Alloca(_) | Base::Global(_) | Base::Fresh(_))
    }

    /// An object created by this invocation (`alloca` or fresh allocation).
    pub fn is_local_object(self) -> bool {
        matches!(self, Base::Alloca(_) | Base::Fresh(_))
    }
}

/// A decomposed pointer: `base + sum(terms) + offset`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pointer {
    pub base: Base,
    /// Non-constant `ptradd` offsets, sorted.
    pub terms: Vec<Value>,
    /// The sum of the constant `ptradd` offsets, in bytes.
    pub offset: i64,
}

/// The answer of [`AliasAnalysis::alias`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AliasResult {
    NoAlias,
    MayAlias,
    MustAlias,
}

/// Sizes and address spaces of a module's globals: all alias analysis
/// needs of the module besides the function (so a pass can hold it while
/// it mutates a function). Shared, not copied, by every function's
/// [`AliasAnalysis`]: a copy per function made a pass over a module
/// cost functions × globals.
#[derive(Clone, Debug, Default)]
pub struct GlobalFacts(std::sync::Arc<GlobalTable>);

#[derive(Debug, Default)]
struct GlobalTable {
    sizes: HashMap<GlobalId, u64>,
    shared: HashSet<GlobalId>,
}

impl GlobalFacts {
    pub fn new(module: &Module) -> GlobalFacts {
        let mut table = GlobalTable::default();
        for (g, data) in module.globals.iter() {
            table.sizes.insert(g, data.size);
            if data.space == AddrSpace::Shared {
                table.shared.insert(g);
            }
        }
        GlobalFacts(std::sync::Arc::new(table))
    }

    pub fn size(&self, g: GlobalId) -> Option<u64> {
        self.0.sizes.get(&g).copied()
    }

    pub fn is_shared(&self, g: GlobalId) -> bool {
        self.0.shared.contains(&g)
    }
}

/// How deep `pointer` follows `ptradd` chains before giving up (the chain
/// is then an `Unknown` base at that point, which is sound).
const MAX_CHAIN: usize = 64;

/// Alias facts of one function: which identified local objects are
/// captured, plus what the queries need of the module.
#[derive(Clone, Debug, Default)]
pub struct AliasAnalysis {
    captured: HashSet<Value>,
    /// Uncaptured objects that tasks nested below their own write (see
    /// "Objects shared by parallel strands").
    shared: HashSet<Value>,
    /// The function's `noalias` (C `restrict`) parameters.
    noalias: HashSet<Value>,
    kernel: bool,
    globals: GlobalFacts,
}

impl AliasAnalysis {
    /// Computes capture facts for `func`; `captures(f, i)` says whether
    /// function `f` may capture its `i`th parameter (use
    /// [`ModRefAnalysis::captures`](super::modref::ModRefAnalysis::captures)).
    pub fn compute(
        func: &Function,
        globals: &GlobalFacts,
        captures: &dyn Fn(FuncId, usize) -> bool,
    ) -> AliasAnalysis {
        let mut users: HashMap<Value, Vec<parc_ir::Inst>> = HashMap::default();
        for (_, inst) in func.placed_insts() {
            func.inst(inst).for_each_operand(|v| {
                let list = users.entry(v).or_default();
                if list.last() != Some(&inst) {
                    list.push(inst);
                }
            });
        }
        let mut captured = HashSet::default();
        for (_, inst) in func.placed_insts() {
            let Some(root) = func.result(inst) else {
                continue;
            };
            let is_object = match func.inst(inst) {
                InstKind::Alloca { .. } => true,
                InstKind::Intrinsic { op, .. } => {
                    matches!(op, Intrinsic::Malloc | Intrinsic::Calloc)
                }
                _ => false,
            };
            if is_object && derived_values_escape(func, &users, root, captures) {
                captured.insert(root);
            }
        }
        let shared = shared_objects(func, &users, &captured);
        let noalias = func
            .entry()
            .map(|e| {
                (func.blocks[e].params.iter().enumerate())
                    .filter(|&(i, _)| func.param_noalias(i))
                    .map(|(_, &v)| v)
                    .collect()
            })
            .unwrap_or_default();
        AliasAnalysis {
            captured,
            shared,
            noalias,
            kernel: func.kind == FuncKind::Kernel,
            globals: globals.clone(),
        }
    }

    /// The module's global facts this analysis was computed with.
    pub fn globals(&self) -> &GlobalFacts {
        &self.globals
    }

    /// Decomposes `ptr` into base, symbolic terms and constant offset.
    pub fn pointer(&self, func: &Function, ptr: Value) -> Pointer {
        let mut terms = Vec::new();
        let mut offset: i64 = 0;
        let mut cur = ptr;
        for _ in 0..MAX_CHAIN {
            let base = match func.value_def(cur) {
                ValueDef::Param(b, _) if Some(b) == func.entry() => Base::Param(cur),
                ValueDef::Param(..) => Base::Unknown(cur),
                ValueDef::Result(inst) => match func.inst(inst) {
                    InstKind::Alloca { .. } => Base::Alloca(cur),
                    InstKind::GlobalAddr(g) => Base::Global(*g),
                    InstKind::Intrinsic {
                        op: Intrinsic::Malloc | Intrinsic::Calloc,
                        ..
                    } => Base::Fresh(cur),
                    InstKind::PtrAdd(p, o) => {
                        match func.const_int(*o) {
                            Some(k) => offset = offset.wrapping_add(k),
                            None => terms.push(*o),
                        }
                        cur = *p;
                        continue;
                    }
                    _ => Base::Unknown(cur),
                },
            };
            terms.sort();
            return Pointer {
                base,
                terms,
                offset,
            };
        }
        terms.sort();
        Pointer {
            base: Base::Unknown(cur),
            terms,
            offset,
        }
    }

    /// The base of `ptr` (see [`AliasAnalysis::pointer`]).
    pub fn base(&self, func: &Function, ptr: Value) -> Base {
        self.pointer(func, ptr).base
    }

    /// True if `base` is an `alloca` or fresh allocation whose address is
    /// never captured: only this function's own accesses through values
    /// derived from it (and calls it is passed to, during the call) reach it.
    pub fn is_uncaptured_local(&self, base: Base) -> bool {
        match base {
            Base::Alloca(v) | Base::Fresh(v) => !self.captured.contains(&v),
            _ => false,
        }
    }

    /// True if `base` is an uncaptured `alloca` or fresh allocation that
    /// no task but its own writes: only the function's own accesses
    /// change it, never a call that does not receive it (see "Objects
    /// shared by parallel strands").
    pub fn is_private_local(&self, base: Base) -> bool {
        self.is_uncaptured_local(base)
            && match base {
                Base::Alloca(v) | Base::Fresh(v) => !self.shared.contains(&v),
                _ => false,
            }
    }

    /// True if an access of `size` bytes at `ptr` stays inside an
    /// `alloca` or a global, so a load there cannot fault and may be
    /// executed speculatively.
    pub fn is_dereferenceable(&self, func: &Function, ptr: Value, size: u64) -> bool {
        let p = self.pointer(func, ptr);
        if !p.terms.is_empty() || p.offset < 0 {
            return false;
        }
        let object = match p.base {
            Base::Alloca(v) => match func.value_def(v) {
                ValueDef::Result(i) => match func.inst(i) {
                    InstKind::Alloca { size, .. } => Some(u64::from(*size)),
                    _ => None,
                },
                ValueDef::Param(..) => None,
            },
            Base::Global(g) => self.globals.size(g),
            _ => None,
        };
        object.is_some_and(|n| {
            (p.offset as u64)
                .checked_add(size)
                .is_some_and(|end| end <= n)
        })
    }

    /// May `size_a` bytes at `a` overlap `size_b` bytes at `b` (both
    /// evaluated at one point)? `None` sizes are unknown extents.
    pub fn alias(
        &self,
        func: &Function,
        a: Value,
        size_a: Option<u64>,
        b: Value,
        size_b: Option<u64>,
    ) -> AliasResult {
        if a == b {
            return match (size_a, size_b) {
                (Some(x), Some(y)) if x == y => AliasResult::MustAlias,
                _ => AliasResult::MayAlias,
            };
        }
        let pa = self.pointer(func, a);
        let pb = self.pointer(func, b);
        if pa.base == pb.base {
            if pa.terms != pb.terms {
                return AliasResult::MayAlias;
            }
            return compare_ranges(pa.offset, size_a, pb.offset, size_b);
        }
        if self.distinct_bases(pa.base, pb.base) {
            AliasResult::NoAlias
        } else {
            AliasResult::MayAlias
        }
    }

    /// True if no pointer based on `x` can point into the object of a
    /// pointer based on `y` (rules 2 to 5 of the module doc).
    fn distinct_bases(&self, x: Base, y: Base) -> bool {
        if x == y {
            return false;
        }
        if x.is_identified() && y.is_identified() {
            return true;
        }
        let one_way = |l: Base, other: Base| match (l, other) {
            (Base::Alloca(_) | Base::Fresh(_), Base::Param(_)) => true,
            (Base::Alloca(_) | Base::Fresh(_), Base::Unknown(_)) => self.is_uncaptured_local(l),
            (Base::Global(g), Base::Param(_)) => self.kernel && self.globals.is_shared(g),
            (Base::Param(p), Base::Param(_) | Base::Global(_)) => self.noalias.contains(&p),
            _ => false,
        };
        one_way(x, y) || one_way(y, x)
    }
}

/// Constant-offset ranges of one base: disjoint, identical or overlapping.
fn compare_ranges(oa: i64, sa: Option<u64>, ob: i64, sb: Option<u64>) -> AliasResult {
    if oa == ob && sa.is_some() && sa == sb {
        return AliasResult::MustAlias;
    }
    // [oa, oa + sa) and [ob, ob + sb) in i128, so nothing overflows.
    let end = |o: i64, s: Option<u64>| s.map(|s| o as i128 + s as i128);
    let a_before_b = end(oa, sa).is_some_and(|e| e <= ob as i128);
    let b_before_a = end(ob, sb).is_some_and(|e| e <= oa as i128);
    if a_before_b || b_before_a {
        AliasResult::NoAlias
    } else {
        AliasResult::MayAlias
    }
}

/// Does some value derived from `root` by `ptradd` escape (see "Capture"
/// in the module doc)?
fn derived_values_escape(
    func: &Function,
    users: &HashMap<Value, Vec<parc_ir::Inst>>,
    root: Value,
    captures: &dyn Fn(FuncId, usize) -> bool,
) -> bool {
    let mut seen: HashSet<Value> = HashSet::from_iter([root]);
    let mut work = vec![root];
    while let Some(d) = work.pop() {
        for &user in users.get(&d).map_or(&[][..], |u| &u[..]) {
            match pointer_use(func.inst(user), d, captures) {
                PointerUse::Harmless => {}
                PointerUse::Captures => return true,
                PointerUse::Derives => {
                    if let Some(r) = func.result(user)
                        && seen.insert(r)
                    {
                        work.push(r);
                    }
                }
            }
        }
    }
    false
}

/// The uncaptured objects of `func` (`alloca`s and fresh allocations
/// not in `captured`) that an instruction in a task other than the
/// object's own innermost task may write through: every use of a pointer
/// derived from it but a load, a comparison or a `ptradd` counts as a
/// write (see "Objects shared by parallel strands").
fn shared_objects(
    func: &Function,
    users: &HashMap<Value, Vec<parc_ir::Inst>>,
    captured: &HashSet<Value>,
) -> HashSet<Value> {
    let mut shared = HashSet::default();
    let has_tasks = func
        .placed_insts()
        .any(|(_, i)| matches!(func.inst(i), InstKind::Detach { .. }));
    if !has_tasks {
        return shared;
    }
    let cfg = ControlFlowGraph::compute(func);
    let domtree = DominatorTree::compute(&cfg);
    let tasks = TaskTree::compute(func, &cfg, &domtree);
    let block_of: HashMap<parc_ir::Inst, Block> =
        func.placed_insts().map(|(b, i)| (i, b)).collect();
    let task_of = |i: parc_ir::Inst| block_of.get(&i).and_then(|&b| tasks.innermost(b));
    for (b, inst) in func.placed_insts() {
        let is_object = match func.inst(inst) {
            InstKind::Alloca { .. } => true,
            InstKind::Intrinsic { op, .. } => matches!(op, Intrinsic::Malloc | Intrinsic::Calloc),
            _ => false,
        };
        let Some(root) = func
            .result(inst)
            .filter(|r| is_object && !captured.contains(r))
        else {
            continue;
        };
        let own = tasks.innermost(b);
        let mut seen: HashSet<Value> = HashSet::from_iter([root]);
        let mut work = vec![root];
        'walk: while let Some(d) = work.pop() {
            for &user in users.get(&d).map_or(&[][..], |u| &u[..]) {
                match func.inst(user) {
                    InstKind::Load(_) | InstKind::Icmp(..) => {}
                    InstKind::PtrAdd(..) => {
                        if let Some(r) = func.result(user)
                            && seen.insert(r)
                        {
                            work.push(r);
                        }
                    }
                    _ if task_of(user) != own => {
                        shared.insert(root);
                        break 'walk;
                    }
                    _ => {}
                }
            }
        }
    }
    shared
}

/// How an instruction uses pointer `p` (one of its operands).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PointerUse {
    /// Reads or writes through it, compares it, or hands it to a call that
    /// does not keep it.
    Harmless,
    /// Its result is derived from `p` (`ptradd p, _`).
    Derives,
    /// `p` may be kept or become reachable from elsewhere.
    Captures,
}

/// Classifies one use of `p` by `kind` (the capture rules of the module
/// doc; shared with [`super::modref`]'s parameter capture inference).
pub(crate) fn pointer_use(
    kind: &InstKind,
    p: Value,
    captures: &dyn Fn(FuncId, usize) -> bool,
) -> PointerUse {
    match kind {
        InstKind::Load(_) | InstKind::Icmp(..) => PointerUse::Harmless,
        InstKind::Store { value, .. } => {
            if *value == p {
                PointerUse::Captures
            } else {
                PointerUse::Harmless
            }
        }
        InstKind::PtrAdd(base, off) => {
            if *off == p {
                PointerUse::Captures
            } else {
                debug_assert_eq!(*base, p);
                PointerUse::Derives
            }
        }
        InstKind::Call { func, args } => {
            let kept = args
                .iter()
                .enumerate()
                .any(|(i, &a)| a == p && captures(*func, i));
            if kept {
                PointerUse::Captures
            } else {
                PointerUse::Harmless
            }
        }
        InstKind::Intrinsic { op, .. } => {
            if op.effects().captures {
                PointerUse::Captures
            } else {
                PointerUse::Harmless
            }
        }
        _ => PointerUse::Captures,
    }
}

/// Size in bytes of a value of type `ty` in memory.
pub fn type_size(ty: Type) -> u64 {
    u64::from(ty.bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use parc_ir::read::read_module;

    fn setup(text: &str) -> (Module, AliasAnalysis) {
        let m = read_module(text).unwrap();
        let f = &m.funcs[FuncId::from_u32(m.funcs.len() as u32 - 1)];
        let aa = AliasAnalysis::compute(f, &GlobalFacts::new(&m), &|_, _| true);
        (m, aa)
    }

    fn v(n: u32) -> Value {
        Value::from_u32(n)
    }

    fn last(m: &Module) -> &Function {
        &m.funcs[FuncId::from_u32(m.funcs.len() as u32 - 1)]
    }

    use AliasResult::*;

    #[test]
    fn offsets_from_one_base() {
        let (m, aa) = setup(
            "func @f(ptr, i64) {
             block0(v0: ptr, v1: i64):
                 v2 = iconst.i64 8
                 v3 = ptradd v0, v2
                 v4 = iconst.i64 4
                 v5 = ptradd v0, v4
                 v6 = ptradd v5, v4
                 v7 = ptradd v0, v1
                 v8 = ptradd v7, v2
                 v9 = ptradd v0, v1
                 return
             }",
        );
        let f = last(&m);
        let p = aa.pointer(f, v(6));
        assert_eq!((p.base, p.offset), (Base::Param(v(0)), 8));
        assert_eq!(aa.alias(f, v(3), Some(8), v(6), Some(8)), MustAlias);
        assert_eq!(aa.alias(f, v(3), Some(8), v(6), Some(4)), MayAlias);
        assert_eq!(aa.alias(f, v(0), Some(8), v(3), Some(8)), NoAlias);
        assert_eq!(aa.alias(f, v(0), Some(9), v(3), Some(8)), MayAlias);
        assert_eq!(aa.alias(f, v(0), None, v(3), Some(8)), MayAlias);
        assert_eq!(aa.alias(f, v(5), Some(4), v(0), Some(4)), NoAlias);
        // Same symbolic term: constant parts decide.
        assert_eq!(aa.alias(f, v(7), Some(8), v(8), Some(8)), NoAlias);
        assert_eq!(aa.alias(f, v(7), Some(8), v(9), Some(8)), MustAlias);
        // A symbolic term against none: unknown.
        assert_eq!(aa.alias(f, v(7), Some(8), v(3), Some(8)), MayAlias);
        assert!(!aa.is_dereferenceable(f, v(3), 8));
    }

    #[test]
    fn identified_objects_and_parameters() {
        let (m, aa) = setup(
            "global @g size 16 align 8 = zeroinit
             global @h size 8 align 8 = zeroinit
             declare @keep(ptr)
             func @f(ptr, ptr) {
             block0(v0: ptr, v1: ptr):
                 v2 = alloca 8, align 8
                 v3 = alloca 8, align 8
                 v4 = global_addr @g
                 v5 = global_addr @h
                 v6 = iconst.i64 16
                 v7 = malloc v6
                 v8 = load.ptr v1
                 v9 = alloca 8, align 8
                 call @keep(v9)
                 v10 = iconst.i64 8
                 v11 = ptradd v4, v10
                 return
             }",
        );
        let f = last(&m);
        let s = Some(8);
        assert_eq!(aa.alias(f, v(2), s, v(3), s), NoAlias, "two allocas");
        assert_eq!(aa.alias(f, v(4), s, v(5), s), NoAlias, "two globals");
        assert_eq!(aa.alias(f, v(2), s, v(4), s), NoAlias, "alloca, global");
        assert_eq!(aa.alias(f, v(7), s, v(4), s), NoAlias, "fresh, global");
        assert_eq!(aa.alias(f, v(7), s, v(0), s), NoAlias, "fresh, param");
        assert_eq!(aa.alias(f, v(2), s, v(0), s), NoAlias, "alloca, param");
        assert_eq!(aa.alias(f, v(0), s, v(1), s), MayAlias, "two params");
        assert_eq!(aa.alias(f, v(4), s, v(0), s), MayAlias, "global, param");
        assert_eq!(aa.alias(f, v(4), s, v(8), s), MayAlias, "global, loaded");
        assert_eq!(
            aa.alias(f, v(2), s, v(8), s),
            NoAlias,
            "uncaptured alloca, loaded"
        );
        assert_eq!(
            aa.alias(f, v(7), s, v(8), s),
            NoAlias,
            "uncaptured fresh, loaded"
        );
        assert_eq!(
            aa.alias(f, v(9), s, v(8), s),
            MayAlias,
            "captured alloca, loaded"
        );
        assert_eq!(
            aa.alias(f, v(9), s, v(0), s),
            NoAlias,
            "captured alloca, param"
        );
        assert!(aa.is_uncaptured_local(Base::Alloca(v(2))));
        assert!(!aa.is_uncaptured_local(Base::Alloca(v(9))));
        assert!(aa.is_dereferenceable(f, v(2), 8));
        assert!(!aa.is_dereferenceable(f, v(2), 9));
        assert!(aa.is_dereferenceable(f, v(11), 8));
        assert!(!aa.is_dereferenceable(f, v(11), 16));
        assert!(!aa.is_dereferenceable(f, v(7), 8), "malloc may return null");
    }

    #[test]
    fn restrict_parameters() {
        let (m, aa) = setup(
            "global @g size 8 align 8 = zeroinit
             func @f(ptr noalias, ptr, ptr) {
             block0(v0: ptr, v1: ptr, v2: ptr):
                 v3 = global_addr @g
                 v4 = load.ptr v1
                 v5 = iconst.i64 8
                 v6 = ptradd v0, v5
                 return
             }",
        );
        let f = last(&m);
        let s = Some(8);
        assert_eq!(aa.alias(f, v(0), s, v(1), s), NoAlias, "restrict, param");
        assert_eq!(
            aa.alias(f, v(2), s, v(6), s),
            NoAlias,
            "param, restrict + 8"
        );
        assert_eq!(aa.alias(f, v(0), s, v(3), s), NoAlias, "restrict, global");
        assert_eq!(aa.alias(f, v(1), s, v(2), s), MayAlias, "two plain params");
        // A loaded pointer may have been derived from the restricted one.
        assert_eq!(aa.alias(f, v(0), s, v(4), s), MayAlias, "restrict, loaded");
    }

    #[test]
    fn capture_rules() {
        let (m, aa) = setup(
            "declare @nocap(ptr)
             func @f(ptr) -> ptr {
             block0(v0: ptr):
                 v1 = alloca 8, align 8
                 v2 = alloca 8, align 8
                 v3 = alloca 8, align 8
                 v4 = alloca 8, align 8
                 v5 = alloca 8, align 8
                 v6 = iconst.i64 0
                 v7 = ptradd v1, v6
                 store v6, v7
                 v8 = load.i64 v7
                 store v2, v0
                 v9 = ptrtoint.i64 v3
                 v10 = iconst.i32 0
                 v11 = iconst.i64 8
                 memset v4, v10, v11
                 call @nocap(v5)
                 return v5
             }",
        );
        let f = last(&m);
        let cap = |n| !aa.is_uncaptured_local(Base::Alloca(v(n)));
        assert!(!cap(1), "loads and stores through a ptradd");
        assert!(cap(2), "stored as a value");
        assert!(cap(3), "ptrtoint");
        assert!(!cap(4), "memset");
        assert!(cap(5), "returned");
        let _ = f;
        // With a capture oracle that says @nocap keeps nothing, the call
        // alone does not capture.
        let m2 = read_module(
            "declare @nocap(ptr)
             func @f() {
             block0:
                 v0 = alloca 8, align 8
                 call @nocap(v0)
                 return
             }",
        )
        .unwrap();
        let f2 = &m2.funcs[FuncId::from_u32(1)];
        let g = GlobalFacts::new(&m2);
        let aa2 = AliasAnalysis::compute(f2, &g, &|_, _| false);
        assert!(aa2.is_uncaptured_local(Base::Alloca(v(0))));
        let aa3 = AliasAnalysis::compute(f2, &g, &|_, _| true);
        assert!(!aa3.is_uncaptured_local(Base::Alloca(v(0))));
    }

    #[test]
    fn shared_global_and_kernel_params() {
        let m = read_module(
            "global @buf shared size 64 align 8 = zeroinit
             func kernel @k(ptr) {
             block0(v0: ptr):
                 v1 = global_addr @buf
                 return
             }
             func device @d(ptr) {
             block0(v0: ptr):
                 v1 = global_addr @buf
                 return
             }",
        )
        .unwrap();
        let g = GlobalFacts::new(&m);
        for (i, expect) in [(0, NoAlias), (1, MayAlias)] {
            let f = &m.funcs[FuncId::from_u32(i)];
            let aa = AliasAnalysis::compute(f, &g, &|_, _| true);
            assert_eq!(aa.alias(f, v(0), Some(8), v(1), Some(8)), expect);
        }
    }
}
