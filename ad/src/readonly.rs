//! Memory that no code of a differentiated run writes (Enzyme's
//! *uncacheable arguments*, for the whole run at once).
//!
//! A gradient's forward sweep, then its reverse sweep, run the requested
//! functions and everything they call. Memory that none of that code
//! writes (or frees) holds, in the reverse sweep, what it held when the
//! forward read it, so the reverse may load it again instead of recording
//! the value: in any function of the run, also in a split pair's `.rev`,
//! which runs after its caller went on (where `cache/` cannot see the
//! code in between). A pointer to such memory is a parameter of the run
//! (of a requested function) that the run never writes through, passed
//! down from call to call; or, where the run writes nothing but memory it
//! allocates itself, anything loaded through such pointers and the
//! globals.
//!
//! The analysis is context-insensitive over all the module's requests at
//! once (split pairs are shared between them): each function's pointer
//! parameters get the *origins* of every argument passed for them
//! ([`Origin`]); every write of every function reached (stores, the
//! intrinsics' writes and frees by their effects table, calls of
//! functions without a body, launches, calls through pointers) *kills*
//! the origins of its pointer, and those of the parameters of the same
//! requested function that may point into the same object (neither is
//! `restrict`), for the loads of types those writes may modify
//! (`strict_aliasing.rs`: a `double` store through one parameter leaves
//! an `int` array another points to as it was). A parameter of the run
//! is [`ReadOnly`] for a load's type if nothing killed it for that type.

use crate::activity::{ActivityInfo, Root};
use crate::strict_aliasing::WriteTypes;
use parc_ir::analysis::ControlFlowGraph;
use parc_ir::intrinsic::Extent;
use parc_ir::{Activity, FuncId, Function, GlobalId, InstKind, Module, Type, Value};
use std::collections::{BTreeSet, HashMap, HashSet};

/// Where a pointer of the run may point, as far as this analysis tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Origin {
    /// Into the memory of pointer parameter `k` of requested function `f`.
    Top(FuncId, u32),
    /// Into memory reached by loading pointers from `Top` memory.
    Deep,
    /// Anywhere else that is not the run's own allocation (a global, a
    /// pointer a call returned, a pointer loaded from the run's own
    /// memory, an integer).
    Other,
}

/// What one function of the run may reload (see the module doc).
#[derive(Clone, Debug, Default)]
pub struct ReadOnly {
    /// Per parameter: `None` if its memory may be written in the run,
    /// else the writes that may reach it through other pointers (a load
    /// of a type none of them may modify reads what the forward read).
    params: Vec<Option<WriteTypes>>,
    /// The run writes no memory but what it allocates itself: what is
    /// loaded through read-only pointers, and globals, is read-only too.
    deep: bool,
}

impl ReadOnly {
    /// True if what a load of type `ty` through `ptr` (a value of `func`,
    /// whose roots `act` gives) reads is never written in the run.
    pub fn unchanged(&self, func: &Function, act: &ActivityInfo, ptr: Value, ty: Type) -> bool {
        self.unchanged_rec(func, act, ptr, ty, &mut HashSet::new())
    }

    fn unchanged_rec(
        &self,
        func: &Function,
        act: &ActivityInfo,
        ptr: Value,
        ty: Type,
        seen: &mut HashSet<Value>,
    ) -> bool {
        if !seen.insert(ptr) {
            return true;
        }
        let mut any = false;
        let all = act.roots(ptr).all(|r| {
            any = true;
            match r {
                Root::Param(k) => self
                    .params
                    .get(k as usize)
                    .and_then(Option::as_ref)
                    .is_some_and(|w| !w.may_modify(ty)),
                Root::Global => self.deep,
                Root::Loaded(l) => {
                    self.deep
                        && matches!(func.inst(l), InstKind::Load(from)
                            if self.unchanged_rec(func, act, *from, Type::Ptr, seen))
                }
                _ => false,
            }
        });
        any && all
    }
}

/// The read-only memory of each function reached from `requested` (the
/// primals of the module's gradient requests); `strict`: C's
/// effective-type rule holds (no `-fno-strict-aliasing`).
pub fn analyze(module: &Module, requested: &[FuncId], strict: bool) -> HashMap<FuncId, ReadOnly> {
    // The functions of the run, with their pointer roots.
    let shared: HashSet<GlobalId> = module
        .globals
        .iter()
        .filter(|(_, g)| g.space == parc_ir::AddrSpace::Shared)
        .map(|(id, _)| id)
        .collect();
    let mut acts: HashMap<FuncId, ActivityInfo> = HashMap::new();
    let mut stack: Vec<FuncId> = requested.to_vec();
    while let Some(f) = stack.pop() {
        if acts.contains_key(&f) || module.funcs[f].is_declaration() {
            continue;
        }
        let func = &module.funcs[f];
        let consts = vec![Activity::Const; func.sig.params.len()];
        let cfg = ControlFlowGraph::compute(func);
        acts.insert(
            f,
            ActivityInfo::compute(func, &consts, false, &cfg, shared.clone()),
        );
        for (_, i) in func.placed_insts() {
            if let InstKind::Call { func: callee, .. } = func.inst(i) {
                stack.push(*callee);
            }
        }
    }
    // The origins of each function's parameters, to a fixpoint.
    let mut params: HashMap<(FuncId, u32), BTreeSet<Origin>> = HashMap::new();
    for &f in requested {
        for (k, &ty) in module.funcs[f].sig.params.iter().enumerate() {
            if ty == Type::Ptr {
                params
                    .entry((f, k as u32))
                    .or_default()
                    .insert(Origin::Top(f, k as u32));
            }
        }
    }
    let mut funcs: Vec<FuncId> = acts.keys().copied().collect();
    funcs.sort();
    loop {
        let mut changed = false;
        for &f in &funcs {
            let (func, act) = (&module.funcs[f], &acts[&f]);
            for (_, i) in func.placed_insts() {
                let InstKind::Call { func: callee, args } = func.inst(i) else {
                    continue;
                };
                if !acts.contains_key(callee) {
                    continue;
                }
                for (k, &a) in args.iter().enumerate() {
                    if func.value_type(a) != Type::Ptr {
                        continue;
                    }
                    let o = origins(func, act, &params, f, a);
                    let set = params.entry((*callee, k as u32)).or_default();
                    let before = set.len();
                    set.extend(o);
                    changed |= set.len() != before;
                }
            }
        }
        if !changed {
            break;
        }
    }
    // The writes: origins written directly, the types written through
    // each, and those of writes through other pointers (`elsewhere`).
    let mut direct: HashMap<Origin, WriteTypes> = HashMap::new();
    let mut elsewhere = WriteTypes::default();
    for &f in &funcs {
        let (func, act) = (&module.funcs[f], &acts[&f]);
        let mut kill = |p: Value, ty: Option<Type>| {
            for o in origins(func, act, &params, f, p) {
                match o {
                    Origin::Top(..) => direct.entry(o).or_default().add(ty, strict),
                    Origin::Deep | Origin::Other => elsewhere.add(ty, strict),
                }
            }
        };
        let mut everything = false;
        for (_, i) in func.placed_insts() {
            match func.inst(i) {
                InstKind::Store { ptr, value } => kill(*ptr, Some(func.value_type(*value))),
                InstKind::Intrinsic { op, args } => {
                    let effects = op.effects();
                    if effects.any_memory {
                        everything = true;
                    }
                    for e in effects.writes {
                        let ptrs: Vec<Value> = match *e {
                            Extent::Sized { ptr, .. }
                            | Extent::Fixed { ptr, .. }
                            | Extent::TypeOf { ptr, .. }
                            | Extent::Unsized(ptr) => args.get(ptr).copied().into_iter().collect(),
                            Extent::Pointers { first } => {
                                args.iter().skip(first).copied().collect()
                            }
                        };
                        for p in ptrs {
                            if func.value_type(p) == Type::Ptr {
                                kill(p, None);
                            }
                        }
                    }
                }
                InstKind::Call { func: callee, .. } if !acts.contains_key(callee) => {
                    everything = true;
                }
                InstKind::CallIndirect { .. } | InstKind::Launch { .. } => everything = true,
                _ => {}
            }
        }
        if everything {
            elsewhere.extend(&WriteTypes::anything());
        }
    }
    // Parameters of one requested function may point into one object
    // unless either is `restrict`: a write through one may modify what
    // the others point to (for the loads of types it may modify).
    let mut aliased: HashMap<Origin, WriteTypes> = HashMap::new();
    for (o, types) in &direct {
        let Origin::Top(f, k) = *o else { continue };
        let func = &module.funcs[f];
        for (j, &ty) in func.sig.params.iter().enumerate() {
            if j as u32 != k
                && ty == Type::Ptr
                && !func.param_noalias(k as usize)
                && !func.param_noalias(j)
            {
                aliased
                    .entry(Origin::Top(f, j as u32))
                    .or_default()
                    .extend(types);
            }
        }
    }
    let deep = direct.is_empty() && elsewhere.is_empty();
    // What may modify memory of origin `o` other than writes through it
    // (`None`: written through it, or unknown).
    let reaching = |o: &Origin| -> Option<WriteTypes> {
        match o {
            Origin::Top(..) if !direct.contains_key(o) => {
                let mut w = elsewhere.clone();
                if let Some(a) = aliased.get(o) {
                    w.extend(a);
                }
                Some(w)
            }
            Origin::Deep if deep => Some(WriteTypes::default()),
            _ => None,
        }
    };
    funcs
        .iter()
        .map(|&f| {
            let n = module.funcs[f].sig.params.len();
            let ps = (0..n as u32)
                .map(|k| {
                    let os = params.get(&(f, k)).filter(|os| !os.is_empty())?;
                    let mut w = WriteTypes::default();
                    for o in os {
                        w.extend(&reaching(o)?);
                    }
                    Some(w)
                })
                .collect();
            (f, ReadOnly { params: ps, deep })
        })
        .collect()
}

/// The origins of pointer `p` of function `f`: empty where it points only
/// into memory the run allocated.
fn origins(
    func: &Function,
    act: &ActivityInfo,
    params: &HashMap<(FuncId, u32), BTreeSet<Origin>>,
    f: FuncId,
    p: Value,
) -> BTreeSet<Origin> {
    origins_rec(func, act, params, f, p, &mut HashSet::new())
}

fn origins_rec(
    func: &Function,
    act: &ActivityInfo,
    params: &HashMap<(FuncId, u32), BTreeSet<Origin>>,
    f: FuncId,
    p: Value,
    seen: &mut HashSet<Value>,
) -> BTreeSet<Origin> {
    let mut out = BTreeSet::new();
    if !seen.insert(p) {
        return out;
    }
    if act.roots(p).next().is_none() {
        // Nothing known of it (a call through a pointer's result, say).
        out.insert(Origin::Other);
    }
    for r in act.roots(p) {
        match r {
            Root::Param(k) => {
                if let Some(os) = params.get(&(f, k)) {
                    out.extend(os.iter().copied());
                }
            }
            Root::Alloca(_) | Root::Heap(_) | Root::Shared(_) => {}
            Root::Loaded(l) => {
                let from = match func.inst(l) {
                    InstKind::Load(from) => origins_rec(func, act, params, f, *from, seen),
                    _ => BTreeSet::from([Origin::Other]),
                };
                let outside = !from.is_empty() && !from.contains(&Origin::Other);
                out.insert(if outside { Origin::Deep } else { Origin::Other });
            }
            Root::Global | Root::Returned(_) | Root::Unknown => {
                out.insert(Origin::Other);
            }
        }
    }
    out
}
