//! Mod/ref: what memory an instruction or a whole function may read and
//! write, and which pointer parameters a function may capture.
//!
//! # Function summaries
//! [`ModRefAnalysis::compute`] infers a [`ModRefSummary`] per function,
//! bottom-up over the call graph: strongly connected components (Tarjan)
//! in callee-first order, each iterated to a fixpoint from the optimistic
//! start "touches nothing, captures nothing" (so mutual recursion that only
//! reads stays read-only). Every step only adds effects, so the iteration
//! ends. A declaration (an imported function) gets the worst summary.
//!
//! A function's effects are the union of its placed instructions' effects
//! ([`inst_effects`]), classified by the base of each accessed location
//! ([`super::alias`]):
//! - memory of the function's own `alloca`s is invisible to callers (it
//!   dies at return; a function syncs its tasks before returning), and so
//!   is memory it allocated and never let escape;
//! - an access through a pointer based on a parameter counts as `args`
//!   (the caller maps it to the memory its pointer arguments reach);
//! - anything else (globals, loaded pointers, "any memory") is `other`.
//!
//! `allocates` and `side_effects` of an intrinsic are its row's in
//! `parc_ir::intrinsic` (allocation and freeing; output, the clock,
//! `exit`, `barrier`, atomics, CUDA copies and synchronization), and
//! launches have both. A **read-only** function ([`ModRefSummary::is_read_only`])
//! writes nothing its caller can see, allocates nothing and has no side
//! effect: calling it twice with the same arguments and the same memory
//! gives the same result, so GVN may merge such calls and LICM may hoist
//! them. It may still fault or fail to terminate, so LICM only hoists it to
//! a place where it would have run anyway (see `passes/licm.rs`).
//!
//! A pointer parameter is **captured** if a pointer derived from it is
//! stored as a value, returned, passed to a block parameter, `select`,
//! `ptrtoint`, a launch or a capturing parameter (the rules of
//! [`super::alias`]'s "Capture").
//!
//! # Instruction effects
//! [`inst_effects`] lists the locations an instruction may read and write:
//! a load or store its bytes; an intrinsic the extents its row of
//! `parc_ir::intrinsic` gives (`memcpy`/`memset` their ranges, of unknown
//! extent unless the length is a constant; `free` the freed object; the C
//! string readers and `printf` what their pointer arguments reach; an
//! atomic its operand). A call reads/writes the memory its pointer arguments
//! reach where the callee's summary says `args`, and "any memory" where it
//! says `other`. `exit`, `barrier`, `cuda_device_synchronize`, launches and
//! calls through function pointers (`call_indirect`, whose callee nothing
//! here knows) read and write any memory and have side effects; they also
//! capture their pointer arguments. "Any memory" ([`MemSet::any`]) is every
//! byte except uncaptured local objects that no other task writes (which
//! only the function's own accesses, and calls it hands them to, can
//! reach; see [`super::alias`]'s "Objects shared by parallel strands").
//! `detach`, `reattach` and `sync` have no effects here: the passes treat
//! them as edges (see `passes/gvn.rs` and `passes/licm.rs`).

use super::alias::{AliasAnalysis, AliasResult, Base, GlobalFacts, type_size};
use crate::HashMap;
use parc_ir::{Extent, FuncId, Function, Inst, InstKind, Linkage, Module, Type, Value};

/// Which memory a function reaches, from its caller's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Access {
    /// Memory reached through its pointer parameters.
    pub args: bool,
    /// Any other memory (globals, pointers loaded from memory).
    pub other: bool,
}

impl Access {
    pub fn any(self) -> bool {
        self.args || self.other
    }

    fn union(self, o: Access) -> Access {
        Access {
            args: self.args || o.args,
            other: self.other || o.other,
        }
    }
}

/// The effects of calling one function (see the module doc).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModRefSummary {
    pub reads: Access,
    pub writes: Access,
    /// Allocates or frees memory.
    pub allocates: bool,
    /// Output, exit, time, barriers, atomics, launches, CUDA calls.
    pub side_effects: bool,
    /// Per parameter: may the function capture it (false for non-pointers)?
    pub captures: Vec<bool>,
}

impl ModRefSummary {
    /// What an unknown function may do.
    pub fn unknown(params: &[Type]) -> ModRefSummary {
        let all = Access {
            args: true,
            other: true,
        };
        ModRefSummary {
            reads: all,
            writes: all,
            allocates: true,
            side_effects: true,
            captures: params.iter().map(|&t| t == Type::Ptr).collect(),
        }
    }

    /// Writes nothing a caller sees, allocates nothing, no side effect.
    pub fn is_read_only(&self) -> bool {
        !self.writes.any() && !self.allocates && !self.side_effects
    }

    /// Read-only and reads no memory either: a function of its arguments.
    pub fn is_pure(&self) -> bool {
        self.is_read_only() && !self.reads.any()
    }

    pub fn captures(&self, param: usize) -> bool {
        self.captures.get(param).copied().unwrap_or(true)
    }
}

/// Summaries of every function of a module.
#[derive(Clone, Debug, Default)]
pub struct ModRefAnalysis {
    summaries: Vec<ModRefSummary>,
}

impl ModRefAnalysis {
    pub fn compute(module: &Module) -> ModRefAnalysis {
        let globals = GlobalFacts::new(module);
        let summaries: Vec<ModRefSummary> = module
            .funcs
            .values()
            .map(|f| {
                if f.is_declaration() || f.linkage == Linkage::Import {
                    ModRefSummary::unknown(&f.sig.params)
                } else {
                    ModRefSummary {
                        captures: vec![false; f.sig.params.len()],
                        ..ModRefSummary::default()
                    }
                }
            })
            .collect();
        let mut table = ModRefAnalysis { summaries };
        for scc in call_graph_sccs(module) {
            loop {
                let mut changed = false;
                for &fid in &scc {
                    let func = &module.funcs[fid];
                    if func.is_declaration() {
                        continue;
                    }
                    let new = summarize(func, &globals, &table);
                    if new != table.summaries[fid.as_u32() as usize] {
                        table.summaries[fid.as_u32() as usize] = new;
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
            }
        }
        table
    }

    /// The summary of `func` (the worst one for an id out of range).
    pub fn summary(&self, func: FuncId) -> ModRefSummary {
        self.summaries
            .get(func.as_u32() as usize)
            .cloned()
            .unwrap_or_else(|| ModRefSummary::unknown(&[]))
    }

    pub fn is_read_only(&self, func: FuncId) -> bool {
        self.summaries
            .get(func.as_u32() as usize)
            .is_some_and(ModRefSummary::is_read_only)
    }

    /// May `func` capture its parameter `param`?
    pub fn captures(&self, func: FuncId, param: usize) -> bool {
        self.summaries
            .get(func.as_u32() as usize)
            .is_none_or(|s| s.captures(param))
    }

    /// Alias analysis of `func` with this analysis's capture facts.
    pub fn alias_analysis(&self, func: &Function, globals: &GlobalFacts) -> AliasAnalysis {
        AliasAnalysis::compute(func, globals, &|f, i| self.captures(f, i))
    }
}

/// One function's summary given its callees' current summaries.
fn summarize(func: &Function, globals: &GlobalFacts, table: &ModRefAnalysis) -> ModRefSummary {
    let aa = table.alias_analysis(func, globals);
    let mut s = ModRefSummary {
        captures: vec![false; func.sig.params.len()],
        ..ModRefSummary::default()
    };
    let classify = |set: &MemSet| -> Access {
        let mut acc = Access {
            args: false,
            other: set.any,
        };
        for loc in &set.locs {
            match aa.base(func, loc.ptr) {
                Base::Alloca(_) => {}
                b @ Base::Fresh(_) if aa.is_uncaptured_local(b) => {}
                Base::Param(_) => acc.args = true,
                _ => acc.other = true,
            }
        }
        acc
    };
    for (_, inst) in func.placed_insts() {
        let e = inst_effects(table, func, inst);
        s.reads = s.reads.union(classify(&e.reads));
        s.writes = s.writes.union(classify(&e.writes));
        s.allocates |= e.allocates;
        s.side_effects |= e.side_effects;
    }
    // Parameter capture: the escape walk of alias analysis from each
    // pointer parameter.
    if let Some(entry) = func.entry() {
        let mut users: HashMap<Value, Vec<Inst>> = HashMap::default();
        for (_, inst) in func.placed_insts() {
            func.inst(inst).for_each_operand(|v| {
                let list = users.entry(v).or_default();
                if list.last() != Some(&inst) {
                    list.push(inst);
                }
            });
        }
        for (i, &p) in func.block_params(entry).iter().enumerate() {
            if func.value_type(p) != Type::Ptr || i >= s.captures.len() {
                continue;
            }
            s.captures[i] = param_escapes(func, &users, p, table);
        }
    }
    s
}

fn param_escapes(
    func: &Function,
    users: &HashMap<Value, Vec<Inst>>,
    root: Value,
    table: &ModRefAnalysis,
) -> bool {
    use super::alias::{PointerUse, pointer_use};
    let mut seen = vec![root];
    let mut work = vec![root];
    while let Some(d) = work.pop() {
        for &user in users.get(&d).map_or(&[][..], |u| &u[..]) {
            match pointer_use(func.inst(user), d, &|f, i| table.captures(f, i)) {
                PointerUse::Harmless => {}
                PointerUse::Captures => return true,
                PointerUse::Derives => {
                    if let Some(r) = func.result(user)
                        && !seen.contains(&r)
                    {
                        seen.push(r);
                        work.push(r);
                    }
                }
            }
        }
    }
    false
}

/// Strongly connected components of the call graph (direct calls), each
/// listed after every component it calls: Tarjan's algorithm, iterative.
fn call_graph_sccs(module: &Module) -> Vec<Vec<FuncId>> {
    let n = module.funcs.len();
    let callees: Vec<Vec<usize>> = module
        .funcs
        .values()
        .map(|f| {
            let mut c: Vec<usize> = f
                .placed_insts()
                .filter_map(|(_, i)| match f.inst(i) {
                    InstKind::Call { func, .. } if (func.as_u32() as usize) < n => {
                        Some(func.as_u32() as usize)
                    }
                    _ => None,
                })
                .collect();
            c.sort_unstable();
            c.dedup();
            c
        })
        .collect();
    const NONE: usize = usize::MAX;
    let mut index = vec![NONE; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut next = 0;
    let mut out = Vec::new();
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        // (node, next callee position)
        let mut frames: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut pos)) = frames.last_mut() {
            if let Some(&w) = callees[v].get(*pos) {
                *pos += 1;
                if index[w] == NONE {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    frames.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            frames.pop();
            if let Some(&(parent, _)) = frames.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut scc = Vec::new();
                loop {
                    let w = stack.pop().expect("v is on the stack");
                    on_stack[w] = false;
                    scc.push(FuncId::from_u32(w as u32));
                    if w == v {
                        break;
                    }
                }
                out.push(scc);
            }
        }
    }
    out
}

/// `size` bytes at `ptr` (`None`: unknown extent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loc {
    pub ptr: Value,
    pub size: Option<u64>,
}

/// A set of memory locations: the listed ones, plus every byte but
/// private local objects ([`AliasAnalysis::is_private_local`]) when `any`
/// is set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemSet {
    pub locs: Vec<Loc>,
    pub any: bool,
}

impl MemSet {
    pub fn is_empty(&self) -> bool {
        !self.any && self.locs.is_empty()
    }

    fn loc(&mut self, ptr: Value, size: Option<u64>) {
        self.locs.push(Loc { ptr, size });
    }
}

/// What one instruction may do to memory (see the module doc).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InstEffects {
    pub reads: MemSet,
    pub writes: MemSet,
    pub allocates: bool,
    pub side_effects: bool,
}

impl InstEffects {
    fn everything() -> InstEffects {
        InstEffects {
            reads: MemSet {
                locs: Vec::new(),
                any: true,
            },
            writes: MemSet {
                locs: Vec::new(),
                any: true,
            },
            allocates: false,
            side_effects: true,
        }
    }
}

/// The memory effects of `inst` in `func`.
pub fn inst_effects(modref: &ModRefAnalysis, func: &Function, inst: Inst) -> InstEffects {
    let mut e = InstEffects::default();
    let ptr_args = |args: &[Value]| -> Vec<Value> {
        args.iter()
            .copied()
            .filter(|&a| func.value_type(a) == Type::Ptr)
            .collect()
    };
    let len = |v: Value| func.const_int(v).and_then(|k| u64::try_from(k).ok());
    match func.inst(inst) {
        InstKind::Load(p) => {
            let ty = func.result(inst).map(|r| func.value_type(r));
            e.reads.loc(*p, ty.map(type_size));
        }
        InstKind::Store { value, ptr } => {
            e.writes.loc(*ptr, Some(type_size(func.value_type(*value))));
        }
        InstKind::Call { func: callee, args } => {
            let s = modref.summary(*callee);
            for a in ptr_args(args) {
                if s.reads.args {
                    e.reads.loc(a, None);
                }
                if s.writes.args {
                    e.writes.loc(a, None);
                }
            }
            e.reads.any = s.reads.other;
            e.writes.any = s.writes.other;
            e.allocates = s.allocates;
            e.side_effects = s.side_effects;
        }
        // The callee is unknown: it may do anything, with any memory its
        // pointer arguments reach too.
        InstKind::CallIndirect { args, .. } | InstKind::Launch { args, .. } => {
            e = InstEffects::everything();
            for a in ptr_args(args) {
                e.reads.loc(a, None);
                e.writes.loc(a, None);
            }
        }
        InstKind::Intrinsic { op, args } => {
            let fx = op.effects();
            let add = |set: &mut MemSet, x: &Extent| match *x {
                Extent::Sized { ptr, len: n } => set.loc(args[ptr], len(args[n])),
                Extent::Fixed { ptr, size } => set.loc(args[ptr], Some(u64::from(size))),
                Extent::TypeOf { ptr, like } => {
                    set.loc(args[ptr], Some(type_size(func.value_type(args[like]))))
                }
                Extent::Unsized(ptr) => set.loc(args[ptr], None),
                Extent::Pointers { first } => {
                    for a in ptr_args(args.get(first..).unwrap_or_default()) {
                        set.loc(a, None);
                    }
                }
            };
            for x in fx.reads {
                add(&mut e.reads, x);
            }
            for x in fx.writes {
                add(&mut e.writes, x);
            }
            e.reads.any |= fx.any_memory;
            e.writes.any |= fx.any_memory;
            e.allocates |= fx.allocates;
            e.side_effects |= fx.side_effects;
        }
        _ => {}
    }
    e
}

/// May some location of `x` overlap some location of `y`?
pub fn may_overlap(aa: &AliasAnalysis, func: &Function, x: &MemSet, y: &MemSet) -> bool {
    if x.is_empty() || y.is_empty() {
        return false;
    }
    if x.any && y.any {
        return true;
    }
    let reaches_any = |set: &MemSet| {
        set.locs
            .iter()
            .any(|l| !aa.is_private_local(aa.base(func, l.ptr)))
    };
    if (x.any && reaches_any(y)) || (y.any && reaches_any(x)) {
        return true;
    }
    x.locs.iter().any(|a| {
        y.locs
            .iter()
            .any(|b| aa.alias(func, a.ptr, a.size, b.ptr, b.size) != AliasResult::NoAlias)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use parc_ir::read::read_module;

    fn analyze(text: &str) -> (Module, ModRefAnalysis) {
        let m = read_module(text).unwrap();
        parc_ir::verify::verify_module(&m).unwrap();
        let mr = ModRefAnalysis::compute(&m);
        (m, mr)
    }

    fn sum(m: &Module, mr: &ModRefAnalysis, name: &str) -> ModRefSummary {
        mr.summary(m.func_by_name(name).unwrap())
    }

    const MAG: &str = "
        func @mag(ptr, i32) -> f64 {
        block0(v0: ptr, v1: i32):
            v2 = iconst.i32 0
            v3 = fconst.f64 0.0
            jump block1(v2, v3)
        block1(v4: i32, v5: f64):
            v6 = icmp slt v4, v1
            brif v6, block2, block3
        block2:
            v7 = sext.i64 v4
            v8 = iconst.i64 8
            v9 = imul v7, v8
            v10 = ptradd v0, v9
            v11 = load.f64 v10
            v12 = fmul v11, v11
            v13 = fadd v5, v12
            v14 = iconst.i32 1
            v15 = iadd v4, v14
            jump block1(v15, v13)
        block3:
            v16 = sqrt.f64 v5
            return v16
        }";

    #[test]
    fn read_only_through_args() {
        let (m, mr) = analyze(MAG);
        let s = sum(&m, &mr, "mag");
        assert!(s.is_read_only() && !s.is_pure());
        assert_eq!(
            s.reads,
            Access {
                args: true,
                other: false
            }
        );
        assert_eq!(s.captures, vec![false, false]);
    }

    #[test]
    fn locals_do_not_count_and_spilled_params_read_other() {
        // The front end's -O0 shape: the parameter is spilled to an alloca
        // and reloaded, so reads go through a loaded pointer (`other`);
        // stores to the function's own allocas are invisible.
        let (m, mr) = analyze(
            "func @get(ptr) -> f64 {
             block0(v0: ptr):
                 v1 = alloca 8, align 8
                 store v0, v1
                 v2 = load.ptr v1
                 v3 = load.f64 v2
                 return v3
             }",
        );
        let s = sum(&m, &mr, "get");
        assert!(s.is_read_only());
        assert_eq!(
            s.reads,
            Access {
                args: false,
                other: true
            }
        );
        // Conservative: storing a pointer anywhere, even into an own
        // alloca, captures it (what is loaded back is not followed).
        assert_eq!(s.captures, vec![true]);
    }

    #[test]
    fn writers_effects_and_captures() {
        let (m, mr) = analyze(
            "global @g size 8 align 8 = zeroinit
             global @fmt const size 3 align 1 = \"%d\\00\"
             declare @ext(ptr)
             func @setg(ptr) {
             block0(v0: ptr):
                 v1 = global_addr @g
                 store v0, v1
                 return
             }
             func @setarg(ptr) {
             block0(v0: ptr):
                 v1 = iconst.i32 1
                 store v1, v0
                 return
             }
             func @say(i32) {
             block0(v0: i32):
                 v1 = global_addr @fmt
                 v2 = printf v1, v0
                 return
             }
             func @alloc() -> ptr {
             block0:
                 v0 = iconst.i64 8
                 v1 = malloc v0
                 return v1
             }
             func @callsext(ptr) {
             block0(v0: ptr):
                 call @ext(v0)
                 return
             }
             func @local() -> i32 {
             block0:
                 v0 = alloca 4, align 4
                 call @setarg(v0)
                 v1 = load.i32 v0
                 return v1
             }",
        );
        let setg = sum(&m, &mr, "setg");
        assert_eq!(
            setg.writes,
            Access {
                args: false,
                other: true
            }
        );
        assert_eq!(setg.captures, vec![true], "stored as a value");
        let setarg = sum(&m, &mr, "setarg");
        assert_eq!(
            setarg.writes,
            Access {
                args: true,
                other: false
            }
        );
        assert_eq!(setarg.captures, vec![false]);
        let say = sum(&m, &mr, "say");
        assert!(say.side_effects && !say.writes.any());
        assert!(!say.is_read_only());
        assert!(sum(&m, &mr, "alloc").allocates);
        let callsext = sum(&m, &mr, "callsext");
        assert!(callsext.writes.other && callsext.captures[0]);
        // Writing its own alloca through a non-capturing callee leaves
        // `local` read-only, indeed pure.
        let local = sum(&m, &mr, "local");
        assert!(local.is_pure(), "{local:?}");
        let ext = sum(&m, &mr, "ext");
        assert_eq!(ext, ModRefSummary::unknown(&[Type::Ptr]));
    }

    #[test]
    fn recursion_reaches_a_fixpoint() {
        // even/odd read through their argument and call each other; `w`
        // writes and calls itself.
        let (m, mr) = analyze(
            "func @even(ptr, i32) -> i32 {
             block0(v0: ptr, v1: i32):
                 v2 = load.i32 v0
                 v3 = call @odd(v0, v2)
                 return v3
             }
             func @odd(ptr, i32) -> i32 {
             block0(v0: ptr, v1: i32):
                 v2 = call @even(v0, v1)
                 return v2
             }
             func @w(ptr) {
             block0(v0: ptr):
                 store v0, v0
                 call @w(v0)
                 return
             }",
        );
        for f in ["even", "odd"] {
            let s = sum(&m, &mr, f);
            assert!(s.is_read_only(), "{f}: {s:?}");
            assert_eq!(
                s.reads,
                Access {
                    args: true,
                    other: false
                }
            );
            assert_eq!(s.captures, vec![false, false]);
        }
        let w = sum(&m, &mr, "w");
        assert!(w.writes.args && w.captures[0]);
    }

    #[test]
    fn sccs_are_callee_first() {
        let (m, _) = analyze(&format!(
            "{MAG}
             func @top(ptr) -> f64 {{
             block0(v0: ptr):
                 v1 = iconst.i32 4
                 v2 = call @mag(v0, v1)
                 return v2
             }}"
        ));
        let sccs = call_graph_sccs(&m);
        let pos = |name| {
            let id = m.func_by_name(name).unwrap();
            sccs.iter().position(|s| s.contains(&id)).unwrap()
        };
        assert!(pos("mag") < pos("top"));
    }

    #[test]
    fn instruction_effects_overlap() {
        let (m, mr) = analyze(&format!(
            "{MAG}
             func @f(ptr, ptr) -> f64 {{
             block0(v0: ptr, v1: ptr):
                 v2 = alloca 8, align 8
                 v3 = iconst.i32 4
                 v4 = call @mag(v0, v3)
                 v5 = fconst.f64 1.0
                 store v5, v1
                 store v5, v2
                 v6 = iconst.i64 8
                 v7 = iconst.i32 0
                 memset v2, v7, v6
                 return v4
             }}"
        ));
        let fid = m.func_by_name("f").unwrap();
        let f = &m.funcs[fid];
        let aa = mr.alias_analysis(f, &GlobalFacts::new(&m));
        let insts: Vec<Inst> = f.block_insts(f.entry().unwrap()).to_vec();
        let call = inst_effects(&mr, f, insts[2]);
        let store_param = inst_effects(&mr, f, insts[4]);
        let store_local = inst_effects(&mr, f, insts[5]);
        let memset = inst_effects(&mr, f, insts[8]);
        assert!(call.writes.is_empty() && !call.reads.any);
        assert_eq!(
            call.reads.locs,
            vec![Loc {
                ptr: Value::from_u32(0),
                size: None
            }]
        );
        assert!(
            may_overlap(&aa, f, &call.reads, &store_param.writes),
            "two params"
        );
        assert!(
            !may_overlap(&aa, f, &call.reads, &store_local.writes),
            "param vs alloca"
        );
        assert_eq!(memset.writes.locs[0].size, Some(8));
        let any = MemSet {
            locs: vec![],
            any: true,
        };
        assert!(
            !may_overlap(&aa, f, &any, &store_local.writes),
            "uncaptured alloca"
        );
        assert!(may_overlap(&aa, f, &any, &store_param.writes));
    }
}
