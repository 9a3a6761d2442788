//! parir → Cranelift IR, for any `cranelift_module::Module` (the JIT and
//! object files share this file).
//!
//! # Input
//!
//! A verified module after Tapir lowering: no `detach`/`reattach`/`sync`
//! (checked: [`BackendError::Invalid`] otherwise); parallelism is plain
//! calls of the runtime's imported `parc_rt_*` functions, with `func_addr`
//! for the outlined tasks and loop bodies.
//!
//! # Values and types
//!
//! | parir | CLIF | invariant |
//! |---|---|---|
//! | `i1` | `i8` | holds 0 or 1 (CLIF comparisons produce exactly that); results of `i1` arithmetic are masked back to bit 0 |
//! | `i8` `i32` `i64` | same | two's complement, wrapping |
//! | `f32` `f64` | same | IEEE-754, no fusing (Cranelift never contracts `a*b+c`) |
//! | `ptr` | `i64` | a plain address |
//!
//! Every parir value is one CLIF value; parir block parameters are CLIF
//! block parameters, 1:1, in order. Blocks are translated in reverse
//! postorder from the entry, so every definition is translated before its
//! uses; blocks unreachable from the entry are dropped. The CLIF entry
//! block is a fresh one that computes per-function values (the
//! `__shared__` segment base, sometimes the worker id) and jumps to
//! parir's entry.
//!
//! Function signatures use the platform C calling convention with the
//! table's types; `i8` parameters and results are sign-extended and `i1`
//! ones zero-extended (what C compilers do for `char` and `_Bool`), so
//! every function is callable from C.
//!
//! Memory, arithmetic, loops, launches, intrinsics and the generated
//! entry points are each documented in the file that translates them (see
//! "Files" below).
//!
//! # Fault protocol
//!
//! An instruction that can fail at run time branches, when it does, to a
//! cold block that calls `parc_rt_fault(kind, name, line, col)` and then
//! traps (the call never returns; the trap only ends the block for
//! Cranelift). `name` is a NUL-terminated read-only copy of the parir
//! function's name, `line:col` the instruction's `SrcLoc` (0:0 when
//! unknown). Kinds: 0 integer division or remainder by zero, 1 an
//! `unreachable` reached (control fell off a non-void function), 2 an
//! invalid launch configuration (any grid or block dimension below 1, or
//! more than 1024 threads per block; checked here to report the position,
//! and again by the runtime). Out of memory (3) and barrier divergence (4)
//! are reported by the runtime itself (for block functions, divergence is
//! detected by the generated code, which calls
//! `parc_rt_barrier_divergence`).
//!
//!
//! # Files
//!
//! This file holds the module-wide translation ([`compile`], the `Cx`
//! state, the input check, which functions may spawn or print); beside it:
//!
//! - `isa`: Cranelift settings per [`OptLevel`] and the host ISA;
//! - `abi`: parir types as CLIF types, C signatures, `u64` argument slots,
//!   the stub that calls variadic C functions;
//! - `define`: defining globals and functions in the Cranelift module
//!   (code placement included) and small generated functions;
//! - `lines`: the table of source positions the runtime reports faults with;
//! - `entries`: the program's main entry, library wrappers, C-convention
//!   wrappers (symbols and exports);
//! - `function`: the translation of one function, block by block and
//!   instruction by instruction (`FnTranslator`);
//! - `arith`: integer and float arithmetic, comparisons and casts;
//! - `memory`: addresses, `alloca`s (and which live in registers), inline
//!   `memset`/`memcpy`;
//! - `loops`: loop-invariant values carried through loop headers;
//! - `intrinsic`: math, atomics, `printf` and the other intrinsics;
//! - `launch`: kernel launches and the `__shared__` segment.

mod abi;
mod arith;
mod define;
mod entries;
mod function;
mod intrinsic;
mod isa;
mod launch;
mod lines;
mod loops;
mod memory;

#[cfg(test)]
pub(crate) use intrinsic::sincos_pairs;
pub(crate) use isa::{host_isa, isa_flags};

use self::abi::{clif_signature, define_variadic_stub, from_slot};
use self::define::{define_globals, define_recording_lines, gen_function};
use self::entries::{gen_c_wrapper, gen_lib_wrapper, gen_main};
use self::function::FnTranslator;
use self::isa::{Light, host_isa_with, light_for, light_isa_flags};
use self::lines::emit_line_table;
use crate::BackendError;
use crate::intrinsics::{self as ix, ExternFn};
use cranelift_codegen::ir::{self as cl, InstBuilder, UserFuncName};
use cranelift_codegen::isa::TargetIsa;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{
    DataDescription, DataId, FuncId as ClFuncId, Linkage as ClLinkage, Module as ClModule,
    ModuleError,
};
use parc_ir::{FuncId, FuncKind, Function, InstKind, Linkage, Module, Signature, SrcLoc, Type};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Set (to anything) to print every function's CLIF to stderr before it
/// is compiled; set to `opt`, also after Cranelift's optimizations.
pub(crate) const DUMP_ENV: &str = "PARC_DUMP_CLIF";

/// The global holding the program's PTX, if the driver compiled its
/// kernels for the GPU: the main entry registers it with the runtime.
pub const PTX_GLOBAL: &str = "parc.ptx";

/// Fault kinds of `parc_rt_fault` (the runtime's `fault` module).
const FAULT_DIV_ZERO: i32 = 0;
const FAULT_UNREACHABLE: i32 = 1;
const FAULT_LAUNCH: i32 = 2;

/// The name under which a library exports the program's `main`.
pub(crate) const LIB_MAIN: &str = "parc_main";

/// What the code is for; decides symbol visibility and the generated
/// entry points (see the module doc's "Symbols").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flavor {
    Jit,
    Exe,
    Obj,
    Lib,
}

impl Flavor {
    fn exports(self) -> bool {
        matches!(self, Flavor::Obj | Flavor::Lib)
    }

    /// The symbol of the C-callable entry that runs the program's `main`
    /// on the worker pool: `main` itself for executables and objects;
    /// `parc_main` for libraries, so a C program linked with one keeps its
    /// own `main` and can still run the ParC program's.
    fn c_main(self) -> Option<&'static str> {
        match self {
            Flavor::Exe | Flavor::Obj => Some("main"),
            Flavor::Lib => Some(LIB_MAIN),
            Flavor::Jit => None,
        }
    }
}

/// A function exported to C.
#[derive(Clone, Debug)]
pub(crate) struct Export {
    pub name: String,
    pub sig: Signature,
    /// The parameters' source names (empty, or one per parameter).
    pub param_names: Vec<String>,
    /// The declaration from the source, where the export follows the C
    /// convention for it (see `parc_ir::cabi`).
    pub c_prototype: Option<String>,
}

/// What a compiled module offers to its driver.
pub(crate) struct Compiled {
    /// Exported functions, in module order (objects and libraries).
    pub exports: Vec<Export>,
    /// `parc.main_entry`, the runtime-`main`-shaped adapter, if the module
    /// has `main` (not in libraries).
    pub main_entry: Option<ClFuncId>,
}

fn module_err(what: &str, e: ModuleError) -> BackendError {
    match e {
        ModuleError::IncompatibleDeclaration(name)
        | ModuleError::IncompatibleSignature(name, ..) => BackendError::Invalid(format!(
            "{what}: `{name}` is declared twice with different meanings (a program function or `extern` declaration clashes with a C library or runtime symbol of the same name)"
        )),
        ModuleError::Compilation(cranelift_codegen::CodegenError::Verifier(errs)) => {
            BackendError::Codegen(format!("{what}: Cranelift verifier: {errs}"))
        }
        other => BackendError::Codegen(format!("{what}: {other}")),
    }
}

/// An integer constant of CLIF type `ty` (Cranelift wants the immediate
/// zero-extended from the type's width).
fn iconst(b: &mut FunctionBuilder, ty: cl::Type, imm: i64) -> cl::Value {
    let imm = match ty.bits() {
        8 => imm as u8 as i64,
        16 => imm as u16 as i64,
        32 => imm as u32 as i64,
        _ => imm,
    };
    b.ins().iconst(ty, imm)
}

/// Widens or narrows an integer between CLIF types.
fn resize_int(b: &mut FunctionBuilder, v: cl::Value, to: cl::Type, signed: bool) -> cl::Value {
    let from = b.func.dfg.value_type(v);
    if from == to {
        v
    } else if from.bits() > to.bits() {
        b.ins().ireduce(to, v)
    } else if signed {
        b.ins().sextend(to, v)
    } else {
        b.ins().uextend(to, v)
    }
}

/// The module-wide state of a translation.
struct Cx<'a> {
    ir: &'a Module,
    flavor: Flavor,
    /// Cranelift id of every parir function (`None`: not translated).
    funcs: Vec<Option<ClFuncId>>,
    /// Data object of every global in global memory.
    data: Vec<Option<DataId>>,
    /// Offset of every `__shared__` global in the shared segment.
    shared_offset: Vec<u64>,
    shared_bytes: u64,
    /// `@k.entry` of every kernel that runs as coroutines.
    kernel_entries: HashMap<FuncId, ClFuncId>,
    /// The block function of every kernel split at its barriers.
    block_launches: HashMap<FuncId, crate::kernels::BlockLaunch>,
    /// Runtime and C library functions declared so far.
    externs: HashMap<&'static str, ClFuncId>,
    /// The runtime's `PARC_AD_STATS` state byte, once declared.
    ad_stats_state: Option<DataId>,
    /// For every variadic import that is called, the stub its calls go
    /// through (see `define_variadic_stub`).
    va_stubs: HashMap<FuncId, ClFuncId>,
    /// The NUL-terminated name of each function that can fault.
    names: HashMap<FuncId, DataId>,
    /// Symbols in use.
    taken: HashSet<String>,
    /// Source positions of generated code (see `emit_line_table`): each
    /// distinct `(function, line, col)`, whose index is the Cranelift
    /// `SourceLoc` of the instructions there, and per compiled function
    /// its `[start, end)` code offsets with their `SourceLoc`s.
    line_sites: Vec<LineSite>,
    line_site_ids: HashMap<LineSite, u32>,
    /// The data of each file name (`SrcLoc::file`) faults and the line
    /// table name.
    files: HashMap<u32, DataId>,
    line_ranges: Vec<(ClFuncId, Vec<CodeRange>)>,
}

/// A source position of generated code: the source function, line,
/// column and file (`SrcLoc::file`).
type LineSite = (FuncId, u32, u32, u32);

/// The emitted line table and its number of entries, which the program's
/// entries (its main entry, a library's wrappers) register.
type LineTable = (DataId, usize);

/// `[start, end)` code offsets in a function, and the `SourceLoc` (an
/// index into `Cx::line_sites`) of the instructions there.
type CodeRange = (u32, u32, u32);

impl Cx<'_> {
    /// The Cranelift source location of position `loc` in function `id`.
    fn source_loc(&mut self, id: FuncId, loc: SrcLoc) -> cl::SourceLoc {
        if loc.line == 0 {
            return cl::SourceLoc::default();
        }
        let key = (loc.func.unwrap_or(id), loc.line, loc.col, loc.file);
        let next = self.line_sites.len() as u32;
        let k = *self.line_site_ids.entry(key).or_insert(next);
        if k == next {
            self.line_sites.push(key);
        }
        cl::SourceLoc::new(k)
    }

    /// A symbol based on `base` that nothing uses yet.
    fn fresh(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut n = 1;
        while self.taken.contains(&name) || (ix::is_reserved(&name) && !base.starts_with("parc.")) {
            name = format!("{base}.{n}");
            n += 1;
        }
        self.taken.insert(name.clone());
        name
    }

    /// The runtime's `PARC_AD_STATS` state byte (`parc_rt_ad_stats_state`).
    fn ad_stats_state(&mut self, m: &mut impl ClModule) -> Result<DataId, BackendError> {
        if let Some(id) = self.ad_stats_state {
            return Ok(id);
        }
        let id = m
            .declare_data(ix::RT_AD_STATS_STATE, ClLinkage::Import, false, false)
            .map_err(|err| module_err("declaring the PARC_AD_STATS state", err))?;
        self.ad_stats_state = Some(id);
        Ok(id)
    }

    fn extern_fn(&mut self, m: &mut impl ClModule, e: &ExternFn) -> Result<ClFuncId, BackendError> {
        self.extern_symbol(m, e.name, e.params, e.ret)
    }

    /// The import of external function `name` of C signature `params -> ret`.
    fn extern_symbol(
        &mut self,
        m: &mut impl ClModule,
        name: &'static str,
        params: &[Type],
        ret: Option<Type>,
    ) -> Result<ClFuncId, BackendError> {
        if let Some(&id) = self.externs.get(name) {
            return Ok(id);
        }
        let sig = clif_signature(m, params, ret);
        let id = m
            .declare_function(name, ClLinkage::Import, &sig)
            .map_err(|err| module_err(&format!("declaring `{name}`"), err))?;
        self.externs.insert(name, id);
        Ok(id)
    }

    fn name_string(&mut self, m: &mut impl ClModule, func: FuncId) -> Result<DataId, BackendError> {
        if let Some(&id) = self.names.get(&func) {
            return Ok(id);
        }
        let fname = &self.ir.funcs[func].name;
        let sym = self.fresh(&format!("parc.name.{fname}"));
        let id = m
            .declare_data(&sym, ClLinkage::Local, false, false)
            .map_err(|e| module_err("declaring a function name", e))?;
        let mut bytes = fname.as_bytes().to_vec();
        bytes.push(0);
        let mut desc = DataDescription::new();
        desc.define(bytes.into_boxed_slice());
        m.define_data(id, &desc)
            .map_err(|e| module_err("defining a function name", e))?;
        self.names.insert(func, id);
        Ok(id)
    }

    /// The NUL-terminated name of file `file` (see `SrcLoc::file`); `None`
    /// for the program's own file, which messages do not name.
    fn file_string(
        &mut self,
        m: &mut impl ClModule,
        file: u32,
    ) -> Result<Option<DataId>, BackendError> {
        if let Some(&id) = self.files.get(&file) {
            return Ok(Some(id));
        }
        let ir = self.ir;
        let Some(name) = ir.file_of(SrcLoc::new(1, 1).in_file(file)) else {
            return Ok(None);
        };
        let sym = self.fresh("parc.file");
        let id = m
            .declare_data(&sym, ClLinkage::Local, false, false)
            .map_err(|e| module_err("declaring a file name", e))?;
        let mut bytes = name.as_bytes().to_vec();
        bytes.push(0);
        let mut desc = DataDescription::new();
        desc.define(bytes.into_boxed_slice());
        m.define_data(id, &desc)
            .map_err(|e| module_err("defining a file name", e))?;
        self.files.insert(file, id);
        Ok(Some(id))
    }
}

/// Translates every function and global of `ir` into `m` (see the module
/// doc for what `flavor` changes).
pub(crate) fn compile<M: ClModule>(
    m: &mut M,
    ir: &Module,
    flavor: Flavor,
) -> Result<Compiled, BackendError> {
    check_input(ir)?;
    let fission = crate::kernels::fission(ir);
    if std::env::var_os(DUMP_ENV).is_some() {
        for (k, why) in &fission.refused {
            eprintln!("; kernel `{}`: coroutines ({})", ir.funcs[*k].name, why.0);
        }
    }
    let ir = fission.module.as_ref().unwrap_or(ir);
    if std::env::var_os(DUMP_ENV).is_some() {
        // In kernel order, as the rest of the dump.
        let mut launches: Vec<_> = fission.launches.iter().collect();
        launches.sort_by_key(|&(k, _)| *k);
        for (k, l) in launches {
            eprintln!(
                "; kernel `{}`: block function `{}`, {} frame bytes per thread\n{}",
                ir.funcs[*k].name,
                ir.funcs[l.block_fn].name,
                l.frame_bytes,
                parc_ir::print::print_function(ir, l.block_fn)
            );
        }
    }
    let mut cx = Cx {
        ir,
        flavor,
        funcs: vec![None; ir.funcs.len()],
        data: vec![None; ir.globals.len()],
        shared_offset: vec![0; ir.globals.len()],
        shared_bytes: 0,
        kernel_entries: HashMap::new(),
        block_launches: fission.launches.clone(),
        externs: HashMap::new(),
        ad_stats_state: None,
        va_stubs: HashMap::new(),
        names: HashMap::new(),
        taken: HashSet::new(),
        line_sites: Vec::new(),
        files: HashMap::new(),
        line_site_ids: HashMap::new(),
        line_ranges: Vec::new(),
    };

    // Imports keep their names: they are how the program names C code.
    for (_, f) in ir.funcs.iter() {
        if f.linkage == Linkage::Import {
            cx.taken.insert(f.name.clone());
        }
    }
    let effects = Effects::of(ir);

    // Defined functions: symbols and linkage.
    let mut exports = Vec::new();
    let mut lib_wrappers = Vec::new();
    // Exports whose struct parameters or result the C convention passes
    // otherwise than parir (System V x86-64 only; elsewhere they keep
    // parir's convention, which the header then shows).
    let sysv = m.isa().name() == "x64";
    let c_wrapped = |f: &Function| sysv && f.c_sig.as_ref().is_some_and(|c| c.needs_wrapper());
    let mut c_wrappers: Vec<(FuncId, Option<ClFuncId>)> = Vec::new();
    let main = ir
        .func_by_name("main")
        .filter(|&id| !ir.funcs[id].is_declaration());
    let mut symbols: Vec<(FuncId, String, ClLinkage)> = Vec::new();
    for (id, f) in ir.funcs.iter() {
        // Retired functions are names only (for source positions).
        if f.linkage == Linkage::Import || f.is_retired() {
            continue;
        }
        let exported = flavor.exports()
            && f.linkage == Linkage::Export
            && f.kind == FuncKind::Host
            && Some(id) != main;
        if exported {
            if ix::is_reserved(&f.name) || cx.taken.contains(&f.name) {
                return Err(BackendError::Invalid(format!(
                    "cannot export function `{}`: the name is used by the C library or the parc runtime; rename it or make it `static`",
                    f.name
                )));
            }
            cx.taken.insert(f.name.clone());
            let c_prototype = f
                .c_sig
                .as_ref()
                .filter(|c| sysv || !c.needs_wrapper())
                .map(|c| c.prototype.clone());
            exports.push(Export {
                name: f.name.clone(),
                sig: f.sig.clone(),
                param_names: f.param_names.clone(),
                c_prototype,
            });
            let i = id.as_u32() as usize;
            if flavor == Flavor::Lib && (effects.spawns[i] || effects.prints[i]) {
                // The body becomes local; the export is a wrapper.
                let inner = cx.fresh(&format!("parc.impl.{}", f.name));
                symbols.push((id, inner, ClLinkage::Local));
                lib_wrappers.push(id);
            } else if c_wrapped(f) {
                // The body keeps parir's convention for calls inside the
                // module; the export is a wrapper with C's.
                let inner = cx.fresh(&format!("parc.impl.{}", f.name));
                symbols.push((id, inner, ClLinkage::Local));
                c_wrappers.push((id, None));
            } else {
                symbols.push((id, f.name.clone(), ClLinkage::Export));
            }
        } else {
            let base = if Some(id) == main {
                "parc.main".to_string()
            } else if ix::is_reserved(&f.name) || cx.taken.contains(&f.name) {
                format!("parc.fn.{}", f.name)
            } else {
                f.name.clone()
            };
            let sym = cx.fresh(&base);
            symbols.push((id, sym, ClLinkage::Local));
        }
    }

    // Declare every function; imports only if used, as a C linker would
    // not mind an `extern` declaration of something never called.
    let mut referenced: HashSet<FuncId> = ir.funcs_in_data().collect();
    for (_, f) in ir.funcs.iter() {
        for (_, inst) in f.placed_insts() {
            match f.inst(inst) {
                InstKind::Call { func, .. } | InstKind::FuncAddr(func) => {
                    referenced.insert(*func);
                }
                InstKind::Launch { kernel, .. } => {
                    referenced.insert(*kernel);
                }
                _ => {}
            }
        }
    }
    for (id, f) in ir.funcs.iter() {
        if f.linkage == Linkage::Import && referenced.contains(&id) {
            let sig = clif_signature(m, &f.sig.params, f.sig.ret);
            let cid = m
                .declare_function(&f.name, ClLinkage::Import, &sig)
                .map_err(|e| module_err(&format!("declaring `{}`", f.name), e))?;
            cx.funcs[id.as_u32() as usize] = Some(cid);
            if f.variadic {
                let sym = cx.fresh(&format!("parc.va.{}", f.name));
                let stub = define_variadic_stub(m, &sym, cid)?;
                cx.va_stubs.insert(id, stub);
            }
        }
    }
    for (id, sym, linkage) in &symbols {
        let f = &ir.funcs[*id];
        let sig = clif_signature(m, &f.sig.params, f.sig.ret);
        let cid = m
            .declare_function(sym, *linkage, &sig)
            .map_err(|e| module_err(&format!("declaring `{}`", f.name), e))?;
        cx.funcs[id.as_u32() as usize] = Some(cid);
    }

    define_globals(m, &mut cx)?;

    // Kernel entries are declared before bodies so launches can name them.
    for (id, f) in ir.funcs.iter() {
        if f.kind == FuncKind::Kernel && !f.is_declaration() && !cx.block_launches.contains_key(&id)
        {
            let sym = cx.fresh(&format!("parc.entry.{}", f.name));
            let sig = clif_signature(m, &[Type::Ptr], None);
            let cid = m
                .declare_function(&sym, ClLinkage::Local, &sig)
                .map_err(|e| module_err("declaring a kernel entry", e))?;
            cx.kernel_entries.insert(id, cid);
        }
    }

    let mut ctx = m.make_context();
    let mut fctx = FunctionBuilderContext::new();
    // Made when a function first needs one (see `isa::Light`): for
    // `Light::Linear`, then `Light::NoMidEnd`.
    let mut light_isas: [Option<Arc<dyn TargetIsa>>; 2] = [None, None];
    for (id, f) in ir.funcs.iter() {
        if f.is_declaration() {
            continue;
        }
        let cid = cx.funcs[id.as_u32() as usize].expect("declared above");
        ctx.func.signature = clif_signature(m, &f.sig.params, f.sig.ret);
        ctx.func.name = UserFuncName::user(0, cid.as_u32());
        FnTranslator::run(m, &mut cx, &mut ctx.func, &mut fctx, id)?;
        let mut ranges = Vec::new();
        let light = match light_for(f) {
            Some(light) => {
                let slot = &mut light_isas[usize::from(light == Light::NoMidEnd)];
                if slot.is_none() {
                    *slot = Some(host_isa_with(&light_isa_flags(m.isa().flags(), light))?);
                }
                slot.as_deref()
            }
            None => None,
        };
        define_recording_lines(m, cid, &mut ctx, &f.name, &mut ranges, light)?;
        cx.line_ranges.push((cid, ranges));
    }

    // Sorted: the order in which they are defined is their order in the
    // object file.
    let mut kernels: Vec<(FuncId, ClFuncId)> =
        cx.kernel_entries.iter().map(|(&k, &e)| (k, e)).collect();
    kernels.sort();
    for (kernel, entry) in kernels {
        let f = &ir.funcs[kernel];
        let callee = cx.funcs[kernel.as_u32() as usize].expect("declared");
        let sig = f.sig.clone();
        gen_function(
            m,
            &mut ctx,
            &mut fctx,
            entry,
            &[Type::Ptr],
            None,
            |m, b, params| {
                let args: Vec<cl::Value> = (0..sig.params.len())
                    .map(|i| from_slot(b, params[0], i, sig.params[i]))
                    .collect();
                let fref = m.declare_func_in_func(callee, b.func);
                b.ins().call(fref, &args);
                b.ins().return_(&[]);
                Ok(())
            },
        )?;
    }

    let lines = emit_line_table(m, &mut cx)?;
    let main_entry = match main {
        Some(main) => Some(gen_main(m, &mut cx, &mut ctx, &mut fctx, main, lines)?),
        None => None,
    };
    if main.is_some() && flavor == Flavor::Lib {
        exports.push(Export {
            name: LIB_MAIN.to_string(),
            sig: Signature {
                params: vec![Type::I32, Type::Ptr],
                ret: Some(Type::I32),
            },
            param_names: vec!["argc".into(), "argv".into()],
            c_prototype: None,
        });
    }

    for id in lib_wrappers {
        if c_wrapped(&ir.funcs[id]) {
            let sym = cx.fresh(&format!("parc.enter.{}", ir.funcs[id].name));
            let w = gen_lib_wrapper(
                m,
                &mut cx,
                &mut ctx,
                &mut fctx,
                id,
                &effects,
                &sym,
                ClLinkage::Local,
                lines,
            )?;
            c_wrappers.push((id, Some(w)));
        } else {
            let name = ir.funcs[id].name.clone();
            gen_lib_wrapper(
                m,
                &mut cx,
                &mut ctx,
                &mut fctx,
                id,
                &effects,
                &name,
                ClLinkage::Export,
                lines,
            )?;
        }
    }
    for (id, target) in c_wrappers {
        let target = target.unwrap_or_else(|| cx.funcs[id.as_u32() as usize].expect("declared"));
        gen_c_wrapper(m, &mut cx, &mut ctx, &mut fctx, id, target)?;
    }

    Ok(Compiled {
        exports,
        main_entry,
    })
}

/// Rejects modules this backend does not translate.
fn check_input(ir: &Module) -> Result<(), BackendError> {
    for (_, f) in ir.funcs.iter() {
        for &block in &f.layout {
            let Some(&last) = f.blocks[block].insts.last() else {
                return Err(BackendError::Invalid(format!(
                    "function `{}`: {block} is empty",
                    f.name
                )));
            };
            if !f.inst(last).is_terminator() {
                return Err(BackendError::Invalid(format!(
                    "function `{}`: {block} does not end in a terminator",
                    f.name
                )));
            }
            for &inst in &f.blocks[block].insts {
                if matches!(
                    f.inst(inst),
                    InstKind::Detach { .. } | InstKind::Reattach { .. } | InstKind::Sync { .. }
                ) {
                    return Err(BackendError::Invalid(format!(
                        "function `{}` still contains Tapir terminators (detach/reattach/sync); run `tapir::lower_tapir` before code generation",
                        f.name
                    )));
                }
            }
        }
    }
    Ok(())
}

/// Which functions may spawn or print, directly or through the functions
/// they call or take the address of.
struct Effects {
    spawns: Vec<bool>,
    prints: Vec<bool>,
}

impl Effects {
    fn of(ir: &Module) -> Effects {
        let n = ir.funcs.len();
        let mut spawns = vec![false; n];
        let mut prints = vec![false; n];
        let mut edges: Vec<Vec<usize>> = vec![Vec::new(); n];
        // A call through a pointer may reach any function whose address
        // is taken.
        let taken: Vec<usize> = ir
            .funcs
            .values()
            .flat_map(|f| f.placed_insts().map(move |(_, i)| f.inst(i)))
            .filter_map(|k| match k {
                InstKind::FuncAddr(g) => Some(g.as_u32() as usize),
                _ => None,
            })
            .chain(ir.funcs_in_data().map(|g| g.as_u32() as usize))
            .collect();
        for (id, f) in ir.funcs.iter() {
            let i = id.as_u32() as usize;
            if f.linkage == Linkage::Import && ix::RT_SPAWNING.contains(&f.name.as_str()) {
                spawns[i] = true;
            }
            for (_, inst) in f.placed_insts() {
                match f.inst(inst) {
                    InstKind::Call { func, .. } | InstKind::FuncAddr(func) => {
                        edges[i].push(func.as_u32() as usize)
                    }
                    InstKind::CallIndirect { .. } => edges[i].extend(&taken),
                    InstKind::Launch { kernel, .. } => edges[i].push(kernel.as_u32() as usize),
                    InstKind::Intrinsic { op, .. } if op.is_printf() => prints[i] = true,
                    _ => {}
                }
            }
        }
        let mut changed = true;
        while changed {
            changed = false;
            for i in 0..n {
                for &j in &edges[i] {
                    if spawns[j] && !spawns[i] {
                        spawns[i] = true;
                        changed = true;
                    }
                    if prints[j] && !prints[i] {
                        prints[i] = true;
                        changed = true;
                    }
                }
            }
        }
        Effects { spawns, prints }
    }
}
