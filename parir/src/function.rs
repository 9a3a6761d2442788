//! Functions and modules: arenas of entities, with block order kept apart
//! from instruction data (as Cranelift's `dfg.rs`/`layout.rs` do).
//!
//! A [`Function`] owns three arenas — values, instructions, blocks — plus
//! the order: `layout` lists the blocks in order (the first is the entry)
//! and each block lists its instructions. An instruction or block that is
//! not in the order is dead and ignored by every consumer; passes remove
//! things from the order and never compact the arenas.
//!
//! SSA form uses **block parameters**, not phis: a branch passes arguments
//! to its target's parameters.

use crate::entities::{Block, FuncId, GlobalId, Inst, SyncRegion, Value};
use crate::inst::InstKind;
use crate::types::Type;
use cranelift_entity::{PrimaryMap, SecondaryMap};
use std::collections::HashMap;

/// Where in the ParC source an instruction came from (1-based; 0 = unknown).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SrcLoc {
    pub line: u32,
    pub col: u32,
    /// The function the source position is in, when that is not the
    /// function holding the instruction: inlining and outlining move code
    /// between functions, and run-time errors must still name the function
    /// the programmer wrote. `None`: the holding function.
    pub func: Option<FuncId>,
    /// The file: 0 is the module's `source_name`, `k` is
    /// `Module::files[k - 1]` (a header, or another file of a linked
    /// program), so run-time errors name the file the code is in.
    pub file: u32,
}

impl SrcLoc {
    pub fn new(line: u32, col: u32) -> SrcLoc {
        SrcLoc {
            line,
            col,
            func: None,
            file: 0,
        }
    }

    /// This position in file `file` (see [`SrcLoc::file`]).
    pub fn in_file(self, file: u32) -> SrcLoc {
        SrcLoc { file, ..self }
    }

    /// This position, attributed to `func` unless it already names one.
    pub fn moved_from(self, func: FuncId) -> SrcLoc {
        SrcLoc {
            func: self.func.or(Some(func)),
            ..self
        }
    }

    pub fn is_known(self) -> bool {
        self.line != 0
    }
}

/// How a value came to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueDef {
    /// The result of an instruction.
    Result(Inst),
    /// Parameter number `n` of a block.
    Param(Block, u32),
}

#[derive(Clone, Debug)]
pub struct ValueData {
    pub ty: Type,
    pub def: ValueDef,
}

#[derive(Clone, Debug)]
pub struct InstData {
    pub kind: InstKind,
    pub result: Option<Value>,
}

#[derive(Clone, Debug, Default)]
pub struct BlockData {
    pub params: Vec<Value>,
    pub insts: Vec<Inst>,
}

/// Where a function runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FuncKind {
    /// Ordinary host code.
    #[default]
    Host,
    /// `__global__`: launched over a grid; returns nothing.
    Kernel,
    /// `__device__`: called from kernels.
    Device,
}

/// Who can see a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Linkage {
    /// Defined here, visible to C callers (`--emit lib`).
    #[default]
    Export,
    /// Defined here, `static`.
    Local,
    /// Declared here, defined elsewhere (an `extern` function).
    Import,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Signature {
    pub params: Vec<Type>,
    pub ret: Option<Type>,
}

#[derive(Clone, Debug, Default)]
pub struct Function {
    pub name: String,
    pub sig: Signature,
    pub kind: FuncKind,
    pub linkage: Linkage,
    /// May reach a barrier (LLVM's `convergent`): which threads run a
    /// call of it must not change (see [`crate::convergent`]). Required on
    /// every function with a convergent operation; allowed on others.
    pub convergent: bool,
    pub values: PrimaryMap<Value, ValueData>,
    pub insts: PrimaryMap<Inst, InstData>,
    pub blocks: PrimaryMap<Block, BlockData>,
    /// Block order; `layout[0]` is the entry, whose parameters are the
    /// function's parameters.
    pub layout: Vec<Block>,
    pub sync_regions: PrimaryMap<SyncRegion, ()>,
    /// Source positions of instructions, where known.
    pub locs: SecondaryMap<Inst, SrcLoc>,
    /// Indices of `ptr` parameters declared `noalias` (C's `restrict`):
    /// while the function runs, memory accessed through such a parameter
    /// (or a pointer derived from it) and modified by anyone is accessed
    /// through no pointer that is not derived from it. Sorted, no
    /// duplicates.
    pub noalias: Vec<u32>,
    /// The parameters' names in the source, for messages (the AD's
    /// explanations, C headers): empty, or one per parameter (`""` where
    /// a parameter has none). Nothing depends on them for meaning.
    pub param_names: Vec<String>,
    /// The source names of locals that `alloca`s hold, by `alloca`
    /// instruction, for messages (nothing depends on them for meaning).
    pub local_names: HashMap<Inst, String>,
    /// The C signature, for functions from ParC source (see [`crate::cabi`]).
    pub c_sig: Option<Box<crate::cabi::CSignature>>,
    /// Declared with `...` (a declaration only: a C function such as
    /// `printf`): calls may pass more arguments than `sig.params`, of the
    /// types C's default argument promotions give (`i32`, `i64`, `f64`,
    /// `ptr`).
    pub variadic: bool,
}

impl Function {
    pub fn new(name: impl Into<String>, sig: Signature) -> Function {
        Function {
            name: name.into(),
            sig,
            ..Function::default()
        }
    }

    /// The constant `v` is, if an `iconst` defines it.
    pub fn const_int(&self, v: Value) -> Option<i64> {
        match self.value_def(v) {
            ValueDef::Result(i) => match self.inst(i) {
                InstKind::Iconst(k) => Some(*k),
                _ => None,
            },
            ValueDef::Param(..) => None,
        }
    }

    /// Parameter `index`'s source name, if it has one.
    pub fn param_name(&self, index: usize) -> Option<&str> {
        self.param_names
            .get(index)
            .map(String::as_str)
            .filter(|n| !n.is_empty())
    }

    /// True if parameter `index` is declared `noalias`.
    pub fn param_noalias(&self, index: usize) -> bool {
        u32::try_from(index).is_ok_and(|i| self.noalias.binary_search(&i).is_ok())
    }

    /// A declaration has no body.
    pub fn is_declaration(&self) -> bool {
        self.layout.is_empty()
    }

    pub fn entry(&self) -> Option<Block> {
        self.layout.first().copied()
    }

    pub fn value_type(&self, v: Value) -> Type {
        self.values[v].ty
    }

    pub fn value_def(&self, v: Value) -> ValueDef {
        self.values[v].def
    }

    pub fn inst(&self, inst: Inst) -> &InstKind {
        &self.insts[inst].kind
    }

    pub fn inst_mut(&mut self, inst: Inst) -> &mut InstKind {
        &mut self.insts[inst].kind
    }

    pub fn result(&self, inst: Inst) -> Option<Value> {
        self.insts[inst].result
    }

    pub fn block_params(&self, block: Block) -> &[Value] {
        &self.blocks[block].params
    }

    pub fn block_insts(&self, block: Block) -> &[Inst] {
        &self.blocks[block].insts
    }

    /// The terminator of a block, if it has one yet.
    pub fn terminator(&self, block: Block) -> Option<Inst> {
        let last = *self.blocks[block].insts.last()?;
        self.insts[last].kind.is_terminator().then_some(last)
    }

    /// The blocks entered through a Tapir terminator: a detach's task and
    /// continuation, a reattach's continuation, a sync's successor. They
    /// take no block parameters (the verifier's rule), so passes must not
    /// give them any. A block may be listed more than once.
    pub fn tapir_targets(&self) -> impl Iterator<Item = Block> + '_ {
        self.layout
            .iter()
            .filter_map(|&b| self.terminator(b))
            .filter(|&t| self.insts[t].kind.is_tapir())
            .flat_map(|t| self.insts[t].kind.successors())
    }

    /// True if a block ends in `detach`, `reattach` or `sync`.
    pub fn ends_in_tapir(&self, block: Block) -> bool {
        self.terminator(block)
            .is_some_and(|t| self.insts[t].kind.is_tapir())
    }

    /// The successors of a block, in the terminator's order.
    pub fn successors(&self, block: Block) -> Vec<Block> {
        self.terminator(block)
            .map(|t| self.insts[t].kind.successors())
            .unwrap_or_default()
    }

    /// Creates a block that is not yet in the layout.
    pub fn create_block(&mut self) -> Block {
        self.blocks.push(BlockData::default())
    }

    /// Appends `block` to the layout.
    pub fn append_block(&mut self, block: Block) {
        debug_assert!(!self.layout.contains(&block));
        self.layout.push(block);
    }

    pub fn append_block_param(&mut self, block: Block, ty: Type) -> Value {
        let n = self.blocks[block].params.len() as u32;
        let v = self.values.push(ValueData {
            ty,
            def: ValueDef::Param(block, n),
        });
        self.blocks[block].params.push(v);
        v
    }

    /// Creates an instruction, not yet placed in any block, with a result
    /// of type `result` if given.
    pub fn make_inst(&mut self, kind: InstKind, result: Option<Type>) -> Inst {
        let inst = self.insts.push(InstData { kind, result: None });
        if let Some(ty) = result {
            let v = self.values.push(ValueData {
                ty,
                def: ValueDef::Result(inst),
            });
            self.insts[inst].result = Some(v);
        }
        inst
    }

    /// Creates an instruction at the end of `block`.
    pub fn append_inst(&mut self, block: Block, kind: InstKind, result: Option<Type>) -> Inst {
        let inst = self.make_inst(kind, result);
        self.blocks[block].insts.push(inst);
        inst
    }

    pub fn create_sync_region(&mut self) -> SyncRegion {
        self.sync_regions.push(())
    }

    /// Replaces every use of `from` by `to` in the placed instructions.
    pub fn replace_uses(&mut self, from: Value, to: Value) {
        for &block in &self.layout {
            for &inst in &self.blocks[block].insts {
                self.insts[inst]
                    .kind
                    .map_operands(|v| if v == from { to } else { v });
            }
        }
    }

    /// The functions its placed instructions name: callees, launched
    /// kernels and functions whose address it takes.
    pub fn referenced_functions(&self) -> impl Iterator<Item = FuncId> + '_ {
        self.placed_insts().filter_map(|(_, i)| match self.inst(i) {
            InstKind::Call { func, .. } => Some(*func),
            InstKind::FuncAddr(func) => Some(*func),
            InstKind::Launch { kernel, .. } => Some(*kernel),
            _ => None,
        })
    }

    /// Drops the body of a function nothing calls or takes the address of
    /// any more (its copies were inlined, or nothing reached it). What
    /// remains is its name, for the source positions of code inlined from
    /// it ([`SrcLoc::func`]), which name it in run-time errors: a *retired*
    /// function, `local` without a body ([`Function::is_retired`]).
    /// Backends emit nothing for it, and the verifier refuses any
    /// instruction that names it.
    pub fn retire(&mut self) {
        *self = Function {
            name: std::mem::take(&mut self.name),
            sig: std::mem::take(&mut self.sig),
            kind: self.kind,
            linkage: Linkage::Local,
            ..Function::default()
        };
    }

    /// True for a function [`Function::retire`] emptied.
    pub fn is_retired(&self) -> bool {
        self.linkage == Linkage::Local && self.is_declaration()
    }

    /// Iterates over `(block, inst)` for every placed instruction, in order.
    pub fn placed_insts(&self) -> impl Iterator<Item = (Block, Inst)> + '_ {
        self.layout
            .iter()
            .flat_map(move |&b| self.blocks[b].insts.iter().map(move |&i| (b, i)))
    }
}

/// Which memory a global lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AddrSpace {
    /// Host memory (and GPU global memory for data the kernels use).
    #[default]
    Global,
    /// GPU shared memory: one instance per block of a kernel launch.
    Shared,
}

#[derive(Clone, Debug, Default)]
pub struct GlobalData {
    pub name: String,
    pub size: u64,
    pub align: u32,
    /// Initial bytes; shorter than `size` means the rest is zero.
    pub init: Vec<u8>,
    /// Pointers to other globals stored in the initial image:
    /// `(byte offset, target, addend)`.
    pub relocs: Vec<(u64, GlobalId, i64)>,
    /// Function addresses stored in the initial image (C's
    /// `int (*op)(int) = inc;`, tables of handlers): `(byte offset,
    /// function)`, each an 8-byte pointer. A reference like `func_addr`:
    /// the function is used. Text form: `reloc 8 = func_addr @f`.
    pub func_relocs: Vec<(u64, FuncId)>,
    pub is_const: bool,
    pub space: AddrSpace,
    /// C's internal linkage (`static`): the global belongs to its module,
    /// and linking keeps it apart from any other module's global of the
    /// same name (see [`crate::link`]). Text form: `local`.
    pub is_local: bool,
    /// Declared here and defined elsewhere (C's `extern int optind;`,
    /// defined by the C library or another module): no storage and no
    /// initial image here; references resolve by name when the program is
    /// linked. Only in global memory.
    pub is_import: bool,
}

impl GlobalData {
    /// A constant C string: `bytes` and a terminating NUL, in global memory.
    pub fn c_string(name: String, bytes: &[u8]) -> GlobalData {
        let mut init = bytes.to_vec();
        init.push(0);
        GlobalData {
            name,
            size: init.len() as u64,
            align: 1,
            init,
            relocs: Vec::new(),
            func_relocs: Vec::new(),
            is_const: true,
            space: AddrSpace::Global,
            is_local: false,
            is_import: false,
        }
    }
}

/// How one parameter of a differentiated function takes part in its
/// gradient (Enzyme's activities).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Activity {
    /// No derivative flows through it; the gradient function takes the value.
    Const,
    /// A pointer followed by its shadow: gradients are added into the
    /// shadow's memory.
    Dup,
    /// Like `Dup`, but the primal values written through the pointer are
    /// not needed by the caller.
    DupNoNeed,
    /// A floating scalar whose gradient the gradient function returns.
    Active,
}

/// A request for the reverse-mode gradient of `primal`, recorded by the
/// front end (`__enzyme_autodiff`, `--grad`) and fulfilled by the AD.
///
/// Until the AD runs, `grad` is a declaration (`Linkage::Import`, no body)
/// whose signature is the gradient's: for each primal parameter in order,
/// `Const` and `Active` give one parameter of the primal's type, `Dup` and
/// `DupNoNeed` give two pointers (value, then shadow); the result is the
/// type of the `Active` parameter if there is exactly one, else nothing.
/// The AD gives `grad` a body and the linkage `linkage`.
#[derive(Clone, Debug, PartialEq)]
pub struct GradRequest {
    pub primal: FuncId,
    pub grad: FuncId,
    /// One per parameter of `primal`.
    pub activities: Vec<Activity>,
    /// `Export` for `--grad` (a C-callable `grad_f`), `Local` for
    /// `__enzyme_autodiff` calls.
    pub linkage: Linkage,
    /// Where it was asked for (the `__enzyme_autodiff` call), if in source.
    pub loc: SrcLoc,
}

/// The signature of the gradient of a function with signature `primal`
/// under `activities` (see [`GradRequest`]), or why there is none.
pub fn gradient_signature(
    primal: &Signature,
    activities: &[Activity],
) -> Result<Signature, String> {
    if activities.len() != primal.params.len() {
        return Err(format!(
            "{} activities for {} parameters",
            activities.len(),
            primal.params.len()
        ));
    }
    let mut params = Vec::new();
    let mut active = Vec::new();
    for (i, (&ty, &act)) in primal.params.iter().zip(activities).enumerate() {
        match act {
            Activity::Const => params.push(ty),
            Activity::Dup | Activity::DupNoNeed if ty == Type::Ptr => {
                params.extend([Type::Ptr, Type::Ptr]);
            }
            Activity::Active if ty.is_float() => {
                params.push(ty);
                active.push(ty);
            }
            _ => return Err(format!("parameter {i} of type {ty} cannot be {act:?}")),
        }
    }
    if active.len() > 1 {
        return Err(format!(
            "{} active scalar parameters; at most one is supported",
            active.len()
        ));
    }
    Ok(Signature {
        params,
        ret: active.first().copied(),
    })
}

/// The parameter names of the gradient of `primal` under `activities`, in
/// the order of [`gradient_signature`]: each parameter's own name, and
/// `d_NAME` for the shadow after a duplicated one (empty if `primal` has
/// no names).
pub fn gradient_param_names(primal: &Function, activities: &[Activity]) -> Vec<String> {
    if primal.param_names.is_empty() {
        return Vec::new();
    }
    let mut names = Vec::new();
    for (i, &act) in activities.iter().enumerate() {
        let name = primal.param_name(i).unwrap_or_default();
        names.push(name.to_string());
        if matches!(act, Activity::Dup | Activity::DupNoNeed) {
            names.push(if name.is_empty() {
                String::new()
            } else {
                format!("d_{name}")
            });
        }
    }
    names
}

/// A whole program.
#[derive(Clone, Debug, Default)]
pub struct Module {
    pub funcs: PrimaryMap<FuncId, Function>,
    pub globals: PrimaryMap<GlobalId, GlobalData>,
    /// The ParC file it was compiled from, for messages.
    pub source_name: Option<String>,
    /// The other files instructions came from (headers, the other files
    /// of a linked program): `SrcLoc::file` `k` is `files[k - 1]`.
    pub files: Vec<String>,
    /// Gradients to generate; empty once the AD has run.
    pub grad_requests: Vec<GradRequest>,
    /// C definitions of the source's structs (forward declarations first,
    /// then the definitions in source order), for a library's header.
    pub c_structs: String,
}

impl Module {
    pub fn new() -> Module {
        Module::default()
    }

    /// The functions whose addresses globals' initial images hold: used
    /// like `func_addr` (taken, reachable through a pointer).
    pub fn funcs_in_data(&self) -> impl Iterator<Item = FuncId> + '_ {
        self.globals
            .values()
            .flat_map(|g| g.func_relocs.iter().map(|&(_, f)| f))
    }

    /// The functions used other than from a function body: the primals
    /// and gradients of gradient requests (the AD reads them) and the
    /// functions whose addresses globals' images hold. With the functions
    /// reached from live code, these are what a whole program keeps.
    pub fn funcs_used_outside_code(&self) -> impl Iterator<Item = FuncId> + '_ {
        self.grad_requests
            .iter()
            .flat_map(|r| [r.primal, r.grad])
            .chain(self.funcs_in_data())
    }

    /// The functions used other than by a direct call, whose uses a pass
    /// therefore cannot all see: [`Module::funcs_used_outside_code`] and
    /// every `func_addr` target (a code pointer may be called from
    /// anywhere).
    pub fn funcs_used_beyond_calls(&self) -> cranelift_entity::EntitySet<FuncId> {
        let mut used = cranelift_entity::EntitySet::with_capacity(self.funcs.len());
        for g in self.funcs_used_outside_code() {
            used.insert(g);
        }
        for f in self.funcs.values() {
            for (_, i) in f.placed_insts() {
                if let InstKind::FuncAddr(g) = f.inst(i) {
                    used.insert(*g);
                }
            }
        }
        used
    }

    /// `base`, or `base.1`, `base.2`, ... : the first that names no
    /// function of the module (for functions a pass adds).
    pub fn fresh_func_name(&self, base: &str) -> String {
        let mut name = base.to_string();
        let mut n = 1;
        while self.func_by_name(&name).is_some() {
            name = format!("{base}.{n}");
            n += 1;
        }
        name
    }

    /// The name of the file `loc` is in, when that is not the module's
    /// own source file.
    pub fn file_of(&self, loc: SrcLoc) -> Option<&str> {
        let k = loc.file.checked_sub(1)?;
        self.files.get(k as usize).map(String::as_str)
    }

    /// The file number of `name` (see [`SrcLoc::file`]), added to
    /// [`Module::files`] if new.
    pub fn intern_file(&mut self, name: &str) -> u32 {
        if self.source_name.as_deref() == Some(name) {
            return 0;
        }
        if let Some(k) = self.files.iter().position(|f| f == name) {
            return k as u32 + 1;
        }
        self.files.push(name.to_string());
        self.files.len() as u32
    }

    pub fn func_by_name(&self, name: &str) -> Option<FuncId> {
        self.funcs
            .iter()
            .find(|(_, f)| f.name == name)
            .map(|(id, _)| id)
    }

    /// Whether `hit` holds for one of the functions `from`, or for one they
    /// reach through direct calls. Each function is looked at once, and
    /// with a work list, so a call chain of any depth costs no stack.
    pub fn reaches(
        &self,
        from: impl IntoIterator<Item = FuncId>,
        mut hit: impl FnMut(&Function) -> bool,
    ) -> bool {
        let mut seen = cranelift_entity::EntitySet::<FuncId>::new();
        let mut work: Vec<FuncId> = from.into_iter().collect();
        while let Some(id) = work.pop() {
            if seen.contains(id) {
                continue;
            }
            seen.insert(id);
            let f = &self.funcs[id];
            if hit(f) {
                return true;
            }
            work.extend(f.placed_insts().filter_map(|(_, i)| match f.inst(i) {
                InstKind::Call { func, .. } => Some(*func),
                _ => None,
            }));
        }
        false
    }

    pub fn global_by_name(&self, name: &str) -> Option<GlobalId> {
        self.globals
            .iter()
            .find(|(_, g)| g.name == name)
            .map(|(id, _)| id)
    }
}
