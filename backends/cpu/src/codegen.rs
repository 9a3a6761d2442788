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
//! **Memory.** Loads and stores use `MemFlags::new()` (may trap, no
//! alignment claim): user pointers are not trusted. An address `ptradd q,
//! c` with a 32-bit constant `c` becomes the access's own displacement
//! (`load q + c`), which Cranelift folds into the x64 addressing mode
//! together with a scaled index in `q`. `i1` is stored as a
//! byte and loaded as a byte masked to bit 0. An `alloca` is a CLIF
//! explicit stack slot of its size and alignment, zero-filled where the
//! instruction stands (each time it executes), inline up to
//! [`INLINE_ZERO_MAX`] bytes and by `memset` beyond. One slot per `alloca`
//! instruction: an `alloca` executed again (in a loop) reuses the same
//! memory, fresh zeros included; the front end and Tapir lowering only
//! place `alloca`s in entry blocks and tasks' first blocks, where this is
//! the parir semantics. An `alloca` whose address is only ever the address
//! of loads and stores of one type filling it is not memory at all but a
//! CLIF variable (see `promotable_allocas`): scalar `mem2reg`, so that
//! modules fresh from the front end do not keep every local on the stack.
//!
//! **Arithmetic edge cases.** Shifts use CLIF's `ishl`/`ushr`/`sshr`,
//! which take the amount modulo the width, as parir says. Integer division
//! and remainder check the divisor (see the fault protocol) and never trap
//! in hardware: `INT_MIN / -1` is `INT_MIN` and `INT_MIN % -1` is 0
//! (wrapping, as gcc `-fwrapv`), computed by dividing by 1 instead when the
//! divisor is -1. Float → integer casts saturate (NaN → 0) at the target
//! width, including `i8`; `fcmp ne` is unordered-or-not-equal and the
//! other predicates are ordered, as C's operators. `fmin`/`fmax` follow C
//! (a NaN operand is ignored), built from CLIF's NaN-propagating `fmin`/
//! `fmax` plus two selects. `sqrt`, `fabs`, `floor`, `ceil` are
//! instructions (exact, so equal to libm's); the other math intrinsics call
//! libm (`exp`, `expf`, ...), except that `sin x` and `cos x` of the same
//! value in one block make one `sincos` call (glibc's gives `sin`'s and
//! `cos`'s results bit for bit; a gradient of `sin` needs `cos` of the same
//! argument).
//!
//! **Loops.** A loop's exit is the taken side of its branch, and a
//! loop-invariant `x op constant` or float constant the loop uses (a bound
//! such as `n - 1`, a coefficient such as `0.25`) is carried through the
//! loop header as an extra block parameter (see [`invariants_to_thread`]):
//! Cranelift would otherwise rematerialize it inside the loop on every
//! iteration.
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
//! # Launch ABI
//!
//! Before translation, `crate::kernels` splits every kernel it can at its
//! barriers into a block function `@k.block` (its module doc says which
//! kernels and why not the others); this file translates the module it
//! returns. `launch @k, grid, block, args` becomes, for a split kernel,
//! `parc_rt_launch_blocks(@k.block, args, grid, block, shared_bytes,
//! frame_bytes)`, and otherwise (the coroutine path)
//! `parc_rt_launch(@k.entry, args, grid, block, shared_bytes)`:
//! - `args`: a stack array of `u64` slots, one per argument, integers
//!   sign-extended (`i1` zero-extended), floats as their IEEE bits
//!   (zero-extended for `f32`), pointers as addresses; a block function
//!   reads them back itself, once per block;
//! - `grid`, `block`: stack arrays of three `i32`;
//! - `@k.block`: `extern "C" fn(args, frame, thread)` running one whole
//!   block; `frame_bytes`: the bytes of frame it needs per thread (see
//!   the runtime's `gpu` module);
//! - `@k.entry` (coroutine path only): a generated `extern "C" fn(args:
//!   *const u64)` that reads the slots back at `k`'s parameter types and
//!   calls `k`, once per thread;
//! - `shared_bytes`: the bytes of the module's `__shared__` segment the
//!   kernel needs (`Cx::shared_extent`: up to the end of the last array it
//!   or its callees use; 0 for most kernels). Every
//!   `AddrSpace::Shared` global gets a fixed offset in it (declaration
//!   order, each aligned to its alignment; one layout per module, shared by
//!   all kernels), and `global_addr` of one is
//!   `parc_rt_shared_base() + offset` (the base is fetched once per
//!   function, at entry).
//!
//! GPU ids (`thread_idx.x` ...) call `parc_rt_thread_idx(0)` and friends
//! (a block function has no `thread_idx` left: its loops over the threads
//! count them; it asks for `block_idx` and the dimensions once per block);
//! `barrier` calls `parc_rt_barrier()` (only kernels on the coroutine path
//! and the functions they call still have barriers). `atomic_add` on integers is a CLIF
//! `atomic_rmw add` (sequentially consistent); on floats it calls
//! `parc_rt_atomic_add_f32`/`_f64`.
//!
//! # Other intrinsics
//!
//! `printf(fmt, args...)` fills a stack array of `u64` slots and one of
//! kind bytes (0 integer sign-extended, 1 double bits — an `f32` is
//! promoted —, 2 pointer) and calls `parc_rt_printf(fmt, slots, kinds, n)`.
//! `malloc`/`calloc`/`realloc` call `parc_rt_malloc`/`parc_rt_calloc`/
//! `parc_rt_realloc` (which fault instead of returning null); `free memcpy
//! memset atoi atol atof strcmp` call the C library, except that a
//! `memset` of a constant byte and length up to [`INLINE_ZERO_MAX`] and a
//! `memcpy` of a constant length up to `INLINE_COPY_MAX` are inline
//! stores (loads first, for the copy); `exit` calls
//! `parc_rt_exit`; `wtime`, `worker_id` and `num_workers` call
//! `parc_rt_wtime`, `parc_rt_worker_id` and `parc_rt_num_workers`, the
//! second once, in the CLIF entry block, in a function that makes no other
//! call;
//! `abs`/`labs` are inline (wrapping: `abs(INT_MIN)` is `INT_MIN`); the
//! `cuda_*` calls go to `parc_rt_cuda_*`.
//!
//! # Symbols
//!
//! The program's `main` is always renamed `parc.main` (local); a generated
//! `parc.main_entry(i32 argc, ptr argv) -> i32` adapts it to the runtime's
//! `main` type (`int main()` or `int main(int, char **)`), and for
//! executables and objects a C `main` calls
//! `parc_rt_main(parc.main_entry, argc, argv)`; a library exports the same
//! entry as `int parc_main(int, char **)` (declared in its header) so that a
//! C program linked with it keeps its own `main`. Host functions with
//! `Linkage::Export` keep their names and are exported in objects and
//! libraries; in executables and the JIT every defined function is local,
//! so a program function cannot interpose on a C library symbol the
//! runtime uses. A local function whose name the backend needs for itself
//! (`memcpy`, `pow`, `parc_rt_*` ...) is renamed `parc.fn.NAME`; an
//! exported one is an error. Globals are local data objects (read-only
//! when `is_const`, relocations for their pointer fields).
//!
//! In libraries, an exported function that may spawn (it or a function it
//! reaches calls `parc_rt_spawn`/`parc_rt_sync`) is exported as a wrapper
//! that runs the body on a worker through `parc_rt_enter`, and one that
//! may print calls `parc_rt_flush` before returning, so C callers see the
//! output.

use crate::BackendError;
use crate::intrinsics::{self as ix, ExternFn};
use cranelift_codegen::ir::{
    self as cl, AbiParam, BlockArg, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind,
    TrapCode, UserFuncName, condcodes, types,
};
use cranelift_codegen::isa::TargetIsa;
use cranelift_codegen::{Context, settings};
use cranelift_entity::EntityRef;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_module::{
    DataDescription, DataId, FuncId as ClFuncId, Linkage as ClLinkage, Module as ClModule,
    ModuleError, ModuleReloc,
};
use parc_ir::cabi::{ByValue, Eightbyte, StructPassing};
use parc_ir::{
    AddrSpace, BinaryOp, Block, CastOp, FloatCC, FuncId, FuncKind, Function, Inst, InstKind, IntCC,
    Intrinsic, Linkage, Module, OptLevel, Signature, SrcLoc, Type, UnaryOp, Value,
};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Set (to anything) to print every function's CLIF to stderr before it
/// is compiled; set to `opt`, also after Cranelift's optimizations.
pub(crate) const DUMP_ENV: &str = "PARC_DUMP_CLIF";

/// The global holding the program's PTX, if the driver compiled its
/// kernels for the GPU: the main entry registers it with the runtime.
pub const PTX_GLOBAL: &str = "parc.ptx";

/// `alloca`s up to this size are zeroed with inline stores, and `memset`s
/// of a constant byte and length up to this size are inline stores.
pub(crate) const INLINE_ZERO_MAX: u32 = 128;

/// `memcpy`s of a constant length up to this size are inline loads and
/// stores (a small struct's copy, a local array's).
const INLINE_COPY_MAX: u32 = 64;

/// The pieces (offset, type) that cover `size` bytes with inline accesses:
/// the widest first (x86-64 and AArch64 allow unaligned ones).
fn inline_pieces(size: u32) -> Vec<(u32, cl::Type)> {
    let mut pieces = Vec::new();
    let mut off = 0u32;
    for (width, ty) in [
        (8, types::I64),
        (4, types::I32),
        (2, types::I16),
        (1, types::I8),
    ] {
        while off + width <= size {
            pieces.push((off, ty));
            off += width;
        }
    }
    pieces
}

/// Most threads in one block (CUDA's limit, and the runtime's).
const MAX_THREADS_PER_BLOCK: i64 = 1024;

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

/// Cranelift settings shared by the JIT and objects. At `-O0` Cranelift
/// does not optimize (`opt_level=none`: fast to compile, every value
/// where the instruction selector puts it), keeps frame pointers in every
/// function (so debuggers and profilers walk the stack), and loops are
/// not placed (no block offsets are asked for).
pub(crate) fn isa_flags(pic: bool, opt: OptLevel) -> Vec<(&'static str, &'static str)> {
    let unoptimized = opt.is_none();
    vec![
        ("opt_level", if unoptimized { "none" } else { "speed" }),
        ("is_pic", if pic { "true" } else { "false" }),
        // Large `alloca`s must not jump over a thread's guard page.
        ("enable_probestack", "true"),
        ("probestack_strategy", "inline"),
        (
            "preserve_frame_pointers",
            if unoptimized { "true" } else { "false" },
        ),
        // Block offsets and edges, for placing loops (`placement.rs`).
        (
            "machine_code_cfg_info",
            if unoptimized { "false" } else { "true" },
        ),
    ]
}

/// Most blocks-times-loop-depth (the sum over a function's blocks of the
/// number of loops around each) a function may have to be compiled with
/// Cranelift's optimizer and backtracking register allocator. Their time
/// grows with the values live across each loop of a nest times the
/// blocks inside it, cubically in the depth of a nest (a nest of 1600
/// `for` loops took 18 s, 1.3 s without them); past this budget, far
/// beyond hand-written code (ten thousand blocks ten loops deep is
/// 100,000), the function is compiled with [`light_isa_flags`]: the same
/// semantics, slower code.
pub(crate) const NEST_BUDGET: u64 = 250_000;

/// The sum over `f`'s reachable blocks of their loop depth (see
/// [`NEST_BUDGET`]).
pub(crate) fn nest_weight(f: &parc_ir::Function) -> u64 {
    use parc_ir::analysis::{ControlFlowGraph, DominatorTree, LoopAnalysis};
    let cfg = ControlFlowGraph::compute(f);
    let domtree = DominatorTree::compute(&cfg);
    let loops = LoopAnalysis::compute(&cfg, &domtree);
    if loops.is_empty() {
        return 0;
    }
    cfg.rpo().iter().map(|&b| u64::from(loops.depth(b))).sum()
}

/// The module's [`isa_flags`] (`base`) for functions past
/// [`NEST_BUDGET`]: no mid-end optimization and the single-pass register
/// allocator, both linear; PIC and loop placement as in the module.
pub(crate) fn light_isa_flags(base: &settings::Flags) -> Vec<(&'static str, &'static str)> {
    let opt = if base.opt_level() == settings::OptLevel::None {
        OptLevel::O0
    } else {
        OptLevel::O2
    };
    let mut flags = isa_flags(base.is_pic(), opt);
    for (k, v) in &mut flags {
        if *k == "opt_level" {
            *v = "none";
        }
    }
    flags.push(("regalloc_algorithm", "single_pass"));
    flags
}

/// The host ISA with [`isa_flags`].
pub(crate) fn host_isa(pic: bool, opt: OptLevel) -> Result<Arc<dyn TargetIsa>, BackendError> {
    host_isa_with(&isa_flags(pic, opt))
}

/// The host ISA with `flags`.
fn host_isa_with(
    flags: &[(&'static str, &'static str)],
) -> Result<Arc<dyn TargetIsa>, BackendError> {
    let mut fb = settings::builder();
    for &(k, v) in flags {
        use settings::Configurable;
        fb.set(k, v)
            .map_err(|e| BackendError::Codegen(format!("setting {k}={v}: {e}")))?;
    }
    let isa = cranelift_native::builder()
        .map_err(|e| BackendError::Codegen(format!("host machine not supported: {e}")))?;
    isa.finish(settings::Flags::new(fb))
        .map_err(|e| BackendError::Codegen(format!("host ISA: {e}")))
}

/// The CLIF type of a parir type.
pub(crate) fn clif_type(ty: Type) -> cl::Type {
    match ty {
        Type::I1 | Type::I8 => types::I8,
        Type::I16 => types::I16,
        Type::I32 => types::I32,
        Type::I64 | Type::Ptr => types::I64,
        Type::F32 => types::F32,
        Type::F64 => types::F64,
        Type::F64x2 => types::F64X2,
        Type::F32x4 => types::F32X4,
        Type::I64x2 => types::I64X2,
        Type::I32x4 => types::I32X4,
    }
}

fn abi_param(ty: Type) -> AbiParam {
    let p = AbiParam::new(clif_type(ty));
    match ty {
        Type::I1 => p.uext(),
        Type::I8 | Type::I16 => p.sext(),
        _ => p,
    }
}

/// The C-ABI CLIF signature of parir parameter and result types.
pub(crate) fn clif_signature(
    m: &impl ClModule,
    params: &[Type],
    ret: Option<Type>,
) -> cl::Signature {
    let mut sig = m.make_signature();
    sig.params.extend(params.iter().map(|&t| abi_param(t)));
    sig.returns.extend(ret.map(abi_param));
    sig
}

/// Cranelift cannot call a variadic C function: System V x86-64 wants
/// `%al` to bound the number of vector registers the call passes
/// arguments in, and Cranelift sets no such register. Otherwise the call
/// is an ordinary one with the promoted arguments, so each variadic
/// import gets a stub, called through a pointer with each call's own
/// signature, that sets `%al` to 8 (always a valid bound) and jumps to the
/// function, leaving every argument register as it was:
/// `mov al, 8; jmp *f@GOTPCREL(%rip)` in position-independent objects,
/// `mov al, 8; movabs r11, f; jmp r11` in the JIT.
fn define_variadic_stub(
    m: &mut impl ClModule,
    sym: &str,
    target: ClFuncId,
) -> Result<ClFuncId, BackendError> {
    use cranelift_codegen::binemit::Reloc;
    use cranelift_module::{ModuleReloc, ModuleRelocTarget};
    if m.isa().name() != "x64" {
        return Err(BackendError::Codegen(
            "calls of variadic C functions are only supported on x86-64".into(),
        ));
    }
    let sig = m.make_signature();
    let stub = m
        .declare_function(sym, ClLinkage::Local, &sig)
        .map_err(|e| module_err("declaring a variadic call stub", e))?;
    let pic = m.isa().flags().is_pic();
    let (bytes, kind, offset, addend): (Vec<u8>, Reloc, u32, i64) = if pic {
        (
            vec![0xB0, 0x08, 0xFF, 0x25, 0, 0, 0, 0],
            Reloc::X86GOTPCRel4,
            4,
            -4,
        )
    } else {
        let mut b = vec![0xB0, 0x08, 0x49, 0xBB];
        b.extend([0; 8]);
        b.extend([0x41, 0xFF, 0xE3]);
        (b, Reloc::Abs8, 4, 0)
    };
    let reloc = ModuleReloc {
        offset,
        kind,
        name: ModuleRelocTarget::from(target),
        addend,
    };
    m.define_function_bytes(stub, 16, &bytes, &[reloc])
        .map_err(|e| module_err("defining a variadic call stub", e))?;
    Ok(stub)
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

/// A value of parir type `ty` as a 64-bit slot: integers sign-extended
/// (`i1` zero-extended), floats as bits (zero-extended), pointers as is.
fn to_slot(b: &mut FunctionBuilder, v: cl::Value, ty: Type) -> cl::Value {
    match ty {
        Type::I1 => b.ins().uextend(types::I64, v),
        Type::I8 | Type::I16 | Type::I32 => b.ins().sextend(types::I64, v),
        Type::I64 | Type::Ptr => v,
        Type::F32 => {
            let bits = b.ins().bitcast(types::I32, MemFlagsData::new(), v);
            b.ins().uextend(types::I64, bits)
        }
        Type::F64 => b.ins().bitcast(types::I64, MemFlagsData::new(), v),
        Type::F64x2 | Type::F32x4 | Type::I64x2 | Type::I32x4 => {
            unreachable!("no signature has a vector type (verifier)")
        }
    }
}

/// Reads slot `i` of the `u64` array at `base` back as parir type `ty`.
fn from_slot(b: &mut FunctionBuilder, base: cl::Value, i: usize, ty: Type) -> cl::Value {
    // Little-endian: a narrow value is in the slot's first bytes.
    let v = b
        .ins()
        .load(clif_type(ty), MemFlagsData::trusted(), base, (8 * i) as i32);
    if ty == Type::I1 {
        b.ins().band_imm_u(v, 1)
    } else {
        v
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
    line_sites: Vec<(FuncId, u32, u32)>,
    line_site_ids: HashMap<(FuncId, u32, u32), u32>,
    line_ranges: Vec<(ClFuncId, Vec<CodeRange>)>,
}

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
        let key = (loc.func.unwrap_or(id), loc.line, loc.col);
        let next = self.line_sites.len() as u32;
        let k = *self.line_site_ids.entry(key).or_insert(next);
        if k == next {
            self.line_sites.push(key);
        }
        cl::SourceLoc::new(k)
    }

    /// The bytes of the `__shared__` segment a launch of `kernel` needs:
    /// up to the end of the last `__shared__` global that it or any
    /// function it may call (or take the address of) refers to, a
    /// multiple of 16. The runtime zeroes that much per block, so a
    /// kernel that uses none (most) pays nothing for other kernels'
    /// arrays.
    fn shared_extent(&self, kernel: FuncId) -> u64 {
        let ir = self.ir;
        let mut seen: HashSet<FuncId> = HashSet::from([kernel]);
        let mut work = vec![kernel];
        let mut extent = 0;
        while let Some(f) = work.pop() {
            for (_, i) in ir.funcs[f].placed_insts() {
                let reached = match *ir.funcs[f].inst(i) {
                    InstKind::GlobalAddr(g) if ir.globals[g].space == AddrSpace::Shared => {
                        let end = self.shared_offset[g.as_u32() as usize] + ir.globals[g].size;
                        extent = extent.max(end);
                        None
                    }
                    InstKind::Call { func, .. } | InstKind::FuncAddr(func) => Some(func),
                    _ => None,
                };
                if let Some(callee) = reached
                    && seen.insert(callee)
                {
                    work.push(callee);
                }
            }
        }
        extent.next_multiple_of(16).min(self.shared_bytes)
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

    fn extern_fn(&mut self, m: &mut impl ClModule, e: &ExternFn) -> Result<ClFuncId, BackendError> {
        if let Some(&id) = self.externs.get(e.name) {
            return Ok(id);
        }
        let sig = clif_signature(m, e.params, e.ret);
        let id = m
            .declare_function(e.name, ClLinkage::Import, &sig)
            .map_err(|err| module_err(&format!("declaring `{}`", e.name), err))?;
        self.externs.insert(e.name, id);
        Ok(id)
    }

    /// `"NAME:KINDS"` for `parc_rt_gpu_launch`: the kernel's name and a
    /// letter per parameter (`p` for pointers, `v` for other values).
    fn launch_desc(
        &mut self,
        m: &mut impl ClModule,
        kernel: FuncId,
    ) -> Result<DataId, BackendError> {
        let k = &self.ir.funcs[kernel];
        let kinds: String = k
            .sig
            .params
            .iter()
            .map(|&t| if t == Type::Ptr { 'p' } else { 'v' })
            .collect();
        let text = format!("{}:{kinds}", k.name);
        let sym = self.fresh(&format!("parc.launch.{}", k.name));
        let id = m
            .declare_data(&sym, ClLinkage::Local, false, false)
            .map_err(|e| module_err("declaring a launch descriptor", e))?;
        let mut bytes = text.into_bytes();
        bytes.push(0);
        let mut desc = DataDescription::new();
        desc.define(bytes.into_boxed_slice());
        m.define_data(id, &desc)
            .map_err(|e| module_err("defining a launch descriptor", e))?;
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
        va_stubs: HashMap::new(),
        names: HashMap::new(),
        taken: HashSet::new(),
        line_sites: Vec::new(),
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
        if f.linkage == Linkage::Import {
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
    let mut referenced = HashSet::new();
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
    // Made when a function first needs it (see `NEST_BUDGET`).
    let mut light_isa: Option<Arc<dyn TargetIsa>> = None;
    for (id, f) in ir.funcs.iter() {
        if f.is_declaration() {
            continue;
        }
        let cid = cx.funcs[id.as_u32() as usize].expect("declared above");
        ctx.func.signature = clif_signature(m, &f.sig.params, f.sig.ret);
        ctx.func.name = UserFuncName::user(0, cid.as_u32());
        FnTranslator::run(m, &mut cx, &mut ctx.func, &mut fctx, id)?;
        let mut ranges = Vec::new();
        let light = if nest_weight(f) > NEST_BUDGET {
            if light_isa.is_none() {
                light_isa = Some(host_isa_with(&light_isa_flags(m.isa().flags()))?);
            }
            light_isa.as_deref()
        } else {
            None
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
                    InstKind::Intrinsic {
                        op: Intrinsic::Printf,
                        ..
                    } => prints[i] = true,
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

/// Lays out the `__shared__` segment and defines every global-memory
/// global as a data object.
fn define_globals(m: &mut impl ClModule, cx: &mut Cx) -> Result<(), BackendError> {
    let ir = cx.ir;
    for (id, g) in ir.globals.iter() {
        let i = id.as_u32() as usize;
        match g.space {
            AddrSpace::Shared => {
                let align = u64::from(g.align.max(1));
                let offset = cx.shared_bytes.next_multiple_of(align);
                cx.shared_offset[i] = offset;
                cx.shared_bytes = offset + g.size;
            }
            AddrSpace::Global if g.is_import => {
                // Defined in C or another module: linked by its own name.
                let did = m
                    .declare_data(&g.name, ClLinkage::Import, !g.is_const, false)
                    .map_err(|e| module_err(&format!("declaring global `{}`", g.name), e))?;
                cx.data[i] = Some(did);
            }
            AddrSpace::Global => {
                let base = if ix::is_reserved(&g.name) || cx.taken.contains(&g.name) {
                    format!("parc.data.{}", g.name)
                } else {
                    g.name.clone()
                };
                let sym = cx.fresh(&base);
                let did = m
                    .declare_data(&sym, ClLinkage::Local, !g.is_const, false)
                    .map_err(|e| module_err(&format!("declaring global `{}`", g.name), e))?;
                cx.data[i] = Some(did);
            }
        }
    }
    // The runtime hands out 16-aligned segments; keep the size a multiple.
    cx.shared_bytes = cx.shared_bytes.next_multiple_of(16);

    for (id, g) in ir.globals.iter() {
        let Some(did) = cx.data[id.as_u32() as usize] else {
            continue;
        };
        if g.is_import {
            continue;
        }
        let size = g.size.max(g.init.len() as u64).max(1) as usize;
        let mut desc = DataDescription::new();
        if g.init.iter().all(|&b| b == 0) && g.relocs.is_empty() && !g.is_const {
            desc.define_zeroinit(size);
        } else {
            let mut bytes = g.init.clone();
            bytes.resize(size, 0);
            desc.define(bytes.into_boxed_slice());
        }
        desc.set_align(u64::from(g.align.max(1)));
        for &(offset, target, addend) in &g.relocs {
            let Some(tid) = cx.data[target.as_u32() as usize] else {
                return Err(BackendError::Invalid(format!(
                    "global `{}` holds the address of `__shared__` global `{}`",
                    g.name, ir.globals[target].name
                )));
            };
            let gv = m.declare_data_in_data(tid, &mut desc);
            desc.write_data_addr(offset as u32, gv, addend);
        }
        m.define_data(did, &desc)
            .map_err(|e| module_err(&format!("defining global `{}`", g.name), e))?;
    }
    Ok(())
}

fn define(
    m: &mut impl ClModule,
    id: ClFuncId,
    ctx: &mut Context,
    name: &str,
) -> Result<(), BackendError> {
    define_recording_lines(m, id, ctx, name, &mut Vec::new(), None)
}

/// [`define`], also putting in `lines` the `[start, end)` offsets of the
/// function's code (as placed) with the `SourceLoc` of the instructions
/// there.
fn define_recording_lines(
    m: &mut impl ClModule,
    id: ClFuncId,
    ctx: &mut Context,
    name: &str,
    lines: &mut Vec<CodeRange>,
    isa: Option<&dyn TargetIsa>,
) -> Result<(), BackendError> {
    if std::env::var_os(DUMP_ENV).is_some() {
        eprintln!("; {name}\n{}", ctx.func.display());
    }
    let result = place_function(m, id, ctx, name, lines, isa);
    if std::env::var_os(DUMP_ENV).is_some_and(|v| v == "opt") {
        eprintln!("; {name}, optimized\n{}", ctx.func.display());
    }
    m.clear_context(ctx);
    result
}

/// Compiles `ctx` and defines function `id` with its code placed as
/// `placement.rs` decides: a function with loops starts on a 64-byte
/// boundary after the `nop` padding that makes its innermost loops span
/// the fewest 64-byte blocks (x86-64 only).
fn place_function(
    m: &mut impl ClModule,
    id: ClFuncId,
    ctx: &mut Context,
    name: &str,
    lines: &mut Vec<CodeRange>,
    isa: Option<&dyn TargetIsa>,
) -> Result<(), BackendError> {
    // Loops are placed only where Cranelift reports block offsets (not
    // at -O0).
    let x86 = m.isa().name() == "x64" && m.isa().flags().machine_code_cfg_info();
    if let Err(e) = ctx.compile(isa.unwrap_or(m.isa()), &mut Default::default()) {
        return Err(match e.inner {
            cranelift_codegen::CodegenError::Verifier(errs) => BackendError::Codegen(format!(
                "function `{name}`: Cranelift verifier:\n{}",
                cranelift_codegen::print_errors::pretty_verifier_error(e.func, None, errs)
            )),
            other => module_err(
                &format!("function `{name}`"),
                ModuleError::Compilation(other),
            ),
        });
    }
    let compiled = ctx.compiled_code().expect("just compiled");
    let code = compiled.buffer.data();
    let pad = if x86 {
        crate::placement::padding(code.len() as u32, &compiled.bb_starts, &compiled.bb_edges)
    } else {
        None
    };
    let mut align = u64::from(compiled.buffer.alignment);
    let mut bytes = Vec::new();
    if let Some(p) = pad {
        align = align.max(u64::from(crate::placement::FETCH));
        bytes = crate::placement::x86_nops(p);
    }
    let shift = bytes.len() as u32;
    bytes.extend_from_slice(code);
    for s in compiled.buffer.get_srclocs_sorted() {
        let at = s.loc;
        if at.is_default() {
            continue;
        }
        match lines.last_mut() {
            // Neighbouring instructions of one position: one range.
            Some(last) if last.1 == s.start + shift && last.2 == at.bits() => {
                last.1 = s.end + shift
            }
            _ => lines.push((s.start + shift, s.end + shift, at.bits())),
        }
    }
    let relocs: Vec<ModuleReloc> = compiled
        .buffer
        .relocs()
        .iter()
        .map(|r| {
            let mut r = ModuleReloc::from_mach_reloc(r, &ctx.func, id);
            r.offset += shift;
            r
        })
        .collect();
    m.define_function_bytes(id, align, &bytes, &relocs)
        .map_err(|e| module_err(&format!("function `{name}`"), e))
}

/// Builds and defines a small generated function whose body `body` emits
/// (given the entry block's parameters).
#[allow(clippy::too_many_arguments)]
fn gen_function<M: ClModule>(
    m: &mut M,
    ctx: &mut Context,
    fctx: &mut FunctionBuilderContext,
    id: ClFuncId,
    params: &[Type],
    ret: Option<Type>,
    body: impl FnOnce(&mut M, &mut FunctionBuilder, &[cl::Value]) -> Result<(), BackendError>,
) -> Result<(), BackendError> {
    let sig = clif_signature(m, params, ret);
    gen_function_with(m, ctx, fctx, id, sig, body)
}

/// [`gen_function`] with a Cranelift signature of its own.
fn gen_function_with<M: ClModule>(
    m: &mut M,
    ctx: &mut Context,
    fctx: &mut FunctionBuilderContext,
    id: ClFuncId,
    sig: cl::Signature,
    body: impl FnOnce(&mut M, &mut FunctionBuilder, &[cl::Value]) -> Result<(), BackendError>,
) -> Result<(), BackendError> {
    ctx.func.signature = sig;
    ctx.func.name = UserFuncName::user(0, id.as_u32());
    let cfg = m.target_config();
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let ps = b.block_params(entry).to_vec();
        body(m, &mut b, &ps)?;
        b.seal_all_blocks();
        b.finalize(cfg);
    }
    let name = m
        .declarations()
        .get_function_decl(id)
        .linkage_name(id)
        .into_owned();
    define(m, id, ctx, &name)
}

/// `parc.main_entry(i32 argc, ptr argv) -> i32` calling the program's
/// `main`, and for executables and objects the C `main` around it.
/// Calls `set_lines` (`parc_rt_set_lines` or its `_once` form) with the
/// line table `(table, count)`.
fn register_lines(
    m: &mut impl ClModule,
    b: &mut FunctionBuilder,
    (table, count): LineTable,
    set_lines: ClFuncId,
) {
    let gv = m.declare_data_in_func(table, b.func);
    let table = b.ins().symbol_value(types::I64, gv);
    let count = b.ins().iconst(types::I64, count as i64);
    let set = m.declare_func_in_func(set_lines, b.func);
    b.ins().call(set, &[table, count]);
}

/// Bytes of one entry of the line table (`parc_runtime::lines::LineEntry`).
const LINE_ENTRY_BYTES: usize = 32;

/// The table of source positions of the program's code (see
/// `parc_runtime::lines`), which the main entry and the library wrappers
/// that enter the worker pool register: one entry per
/// range of instructions of one position, `{ func, start, end, name,
/// line, col }`. Returns it and its number of entries.
fn emit_line_table(m: &mut impl ClModule, cx: &mut Cx) -> Result<LineTable, BackendError> {
    let ranges = std::mem::take(&mut cx.line_ranges);
    let count: usize = ranges.iter().map(|(_, r)| r.len()).sum();
    let sym = cx.fresh("parc.lines");
    let table = m
        .declare_data(&sym, ClLinkage::Local, false, false)
        .map_err(|e| module_err("declaring the line table", e))?;
    let mut bytes = vec![0u8; count.max(1) * LINE_ENTRY_BYTES];
    let mut desc = DataDescription::new();
    let mut names: HashMap<FuncId, cl::GlobalValue> = HashMap::new();
    let mut at = 0usize;
    for (func, list) in &ranges {
        let fref = desc.import_function((*func).into());
        for &(start, end, site) in list {
            let (src_func, line, col) = cx.line_sites[site as usize];
            let name = match names.get(&src_func) {
                Some(&gv) => gv,
                None => {
                    let data = cx.name_string(m, src_func)?;
                    let gv = desc.import_global_value(data.into());
                    names.insert(src_func, gv);
                    gv
                }
            };
            desc.write_function_addr(at as u32, fref);
            bytes[at + 8..at + 12].copy_from_slice(&start.to_le_bytes());
            bytes[at + 12..at + 16].copy_from_slice(&end.to_le_bytes());
            desc.write_data_addr((at + 16) as u32, name, 0);
            bytes[at + 24..at + 28].copy_from_slice(&line.to_le_bytes());
            bytes[at + 28..at + 32].copy_from_slice(&col.to_le_bytes());
            at += LINE_ENTRY_BYTES;
        }
    }
    desc.define(bytes.into_boxed_slice());
    desc.set_align(8);
    m.define_data(table, &desc)
        .map_err(|e| module_err("defining the line table", e))?;
    Ok((table, count))
}

fn gen_main<M: ClModule>(
    m: &mut M,
    cx: &mut Cx,
    ctx: &mut Context,
    fctx: &mut FunctionBuilderContext,
    main: FuncId,
    lines: LineTable,
) -> Result<ClFuncId, BackendError> {
    let f = &cx.ir.funcs[main];
    let callee = cx.funcs[main.as_u32() as usize].expect("declared");
    let params = f.sig.params.clone();
    let ret = f.sig.ret;
    let ok = params.len() <= 2
        && params.first().is_none_or(|t| t.is_int())
        && params.get(1).is_none_or(|&t| t == Type::Ptr)
        && ret.is_none_or(|t| t.is_int());
    if !ok {
        return Err(BackendError::Invalid(format!(
            "`main` has an unsupported signature {:?} -> {:?}; use `int main()` or `int main(int argc, char **argv)`",
            params, ret
        )));
    }
    let set_lines = cx.extern_fn(m, &ix::RT_SET_LINES)?;
    // The kernels' PTX, which the driver put in the module as the global
    // `parc.ptx` (see `PTX_GLOBAL`): registered before `main` runs.
    let ptx = match cx.ir.global_by_name(PTX_GLOBAL) {
        Some(g) => {
            let data = cx.data[g.as_u32() as usize]
                .ok_or_else(|| BackendError::Invalid("the PTX global was not defined".into()))?;
            Some((
                data,
                cx.ir.globals[g].size,
                cx.extern_fn(m, &ix::RT_SET_PTX)?,
            ))
        }
        None => None,
    };
    let sym = cx.fresh("parc.main_entry");
    let sig = clif_signature(m, &[Type::I32, Type::Ptr], Some(Type::I32));
    let entry = m
        .declare_function(&sym, ClLinkage::Local, &sig)
        .map_err(|e| module_err("declaring the main entry", e))?;
    gen_function(
        m,
        ctx,
        fctx,
        entry,
        &[Type::I32, Type::Ptr],
        Some(Type::I32),
        |m, b, ps| {
            register_lines(m, b, lines, set_lines);
            if let Some((data, size, set_ptx)) = ptx {
                let gv = m.declare_data_in_func(data, b.func);
                let text = b.ins().symbol_value(types::I64, gv);
                let len = b.ins().iconst(types::I64, size as i64);
                let set = m.declare_func_in_func(set_ptx, b.func);
                b.ins().call(set, &[text, len]);
            }
            let mut args = Vec::new();
            if let Some(&t) = params.first() {
                let v = resize_int(b, ps[0], clif_type(t), true);
                args.push(if t == Type::I1 {
                    b.ins().band_imm_u(v, 1)
                } else {
                    v
                });
            }
            if params.len() == 2 {
                args.push(ps[1]);
            }
            let fref = m.declare_func_in_func(callee, b.func);
            let call = b.ins().call(fref, &args);
            let status = match ret {
                Some(t) => {
                    let r = b.inst_results(call)[0];
                    resize_int(b, r, types::I32, t != Type::I1)
                }
                None => b.ins().iconst(types::I32, 0),
            };
            b.ins().return_(&[status]);
            Ok(())
        },
    )?;

    if let Some(c_name) = cx.flavor.c_main() {
        if cx.taken.contains(c_name) {
            return Err(BackendError::Invalid(format!(
                "the symbol `{c_name}` is already in use"
            )));
        }
        cx.taken.insert(c_name.into());
        let rt_main = cx.extern_fn(m, &ix::RT_MAIN)?;
        let c_main = m
            .declare_function(c_name, ClLinkage::Export, &sig)
            .map_err(|e| module_err(&format!("declaring `{c_name}`"), e))?;
        gen_function(
            m,
            ctx,
            fctx,
            c_main,
            &[Type::I32, Type::Ptr],
            Some(Type::I32),
            |m, b, ps| {
                let entry_ref = m.declare_func_in_func(entry, b.func);
                let addr = b.ins().func_addr(types::I64, entry_ref);
                let rt = m.declare_func_in_func(rt_main, b.func);
                let call = b.ins().call(rt, &[addr, ps[0], ps[1]]);
                let status = b.inst_results(call)[0];
                b.ins().return_(&[status]);
                Ok(())
            },
        )?;
    }
    Ok(entry)
}

/// The exported wrapper of library function `id` (see the module doc),
/// named `name` (local when a C-convention wrapper exports it in turn).
#[allow(clippy::too_many_arguments)]
fn gen_lib_wrapper<M: ClModule>(
    m: &mut M,
    cx: &mut Cx,
    ctx: &mut Context,
    fctx: &mut FunctionBuilderContext,
    id: FuncId,
    effects: &Effects,
    name: &str,
    linkage: ClLinkage,
    lines: LineTable,
) -> Result<ClFuncId, BackendError> {
    let f = &cx.ir.funcs[id];
    let inner = cx.funcs[id.as_u32() as usize].expect("declared");
    let sig = f.sig.clone();
    let n = sig.params.len();
    let i = id.as_u32() as usize;
    let (spawns, prints) = (effects.spawns[i], effects.prints[i]);
    let wrapper = m
        .declare_function(name, linkage, &clif_signature(m, &sig.params, sig.ret))
        .map_err(|e| module_err(&format!("declaring `{}`", f.name), e))?;

    // The thunk the runtime calls on a worker: arguments and result in a
    // `u64` slot array.
    let thunk = if spawns {
        let sym = cx.fresh(&format!("parc.enter.{}", f.name));
        let t = m
            .declare_function(
                &sym,
                ClLinkage::Local,
                &clif_signature(m, &[Type::Ptr], None),
            )
            .map_err(|e| module_err("declaring an entry thunk", e))?;
        let sig = sig.clone();
        gen_function(m, ctx, fctx, t, &[Type::Ptr], None, |m, b, ps| {
            let args: Vec<cl::Value> = (0..n)
                .map(|k| from_slot(b, ps[0], k, sig.params[k]))
                .collect();
            let fref = m.declare_func_in_func(inner, b.func);
            let call = b.ins().call(fref, &args);
            if sig.ret.is_some() {
                let r = b.inst_results(call)[0];
                b.ins()
                    .store(MemFlagsData::trusted(), r, ps[0], (8 * n) as i32);
            }
            b.ins().return_(&[]);
            Ok(())
        })?;
        Some(t)
    } else {
        None
    };
    let enter = if spawns {
        Some(cx.extern_fn(m, &ix::RT_ENTER)?)
    } else {
        None
    };
    let flush = if prints {
        Some(cx.extern_fn(m, &ix::RT_FLUSH)?)
    } else {
        None
    };

    // A wrapper that enters the worker pool (which installs the fault
    // handlers) registers the line table first, as `main` would: faults
    // in the library's code then name their function and line.
    let lines = match thunk {
        Some(_) => Some((lines, cx.extern_fn(m, &ix::RT_SET_LINES_ONCE)?)),
        None => None,
    };
    gen_function(m, ctx, fctx, wrapper, &sig.params, sig.ret, |m, b, ps| {
        if let Some((table, set_lines)) = lines {
            register_lines(m, b, table, set_lines);
        }
        let result = if let (Some(thunk), Some(enter)) = (thunk, enter) {
            let slot = b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                (8 * (n + 1)) as u32,
                3,
            ));
            for (k, &t) in sig.params.iter().enumerate() {
                let bits = to_slot(b, ps[k], t);
                b.ins().stack_store(types::I64, bits, slot, (8 * k) as i32);
            }
            let addr = b.ins().stack_addr(types::I64, slot, 0);
            let tref = m.declare_func_in_func(thunk, b.func);
            let taddr = b.ins().func_addr(types::I64, tref);
            let eref = m.declare_func_in_func(enter, b.func);
            b.ins().call(eref, &[taddr, addr]);
            sig.ret.map(|t| {
                b.ins()
                    .stack_load(types::I64, clif_type(t), slot, (8 * n) as i32)
            })
        } else {
            let fref = m.declare_func_in_func(inner, b.func);
            let call = b.ins().call(fref, ps);
            sig.ret.map(|_| b.inst_results(call)[0])
        };
        if let Some(flush) = flush {
            let fref = m.declare_func_in_func(flush, b.func);
            b.ins().call(fref, &[]);
        }
        b.ins().return_(&result.into_iter().collect::<Vec<_>>());
        Ok(())
    })?;
    Ok(wrapper)
}

/// How the C-convention wrapper receives one parir parameter.
enum CParam {
    /// As itself.
    Scalar(Type),
    /// A struct in registers, one per eightbyte: stored into a stack copy.
    Registers(Vec<Eightbyte>, u32),
    /// A struct copied onto the stack by the caller: its address.
    Stack(u32),
    /// The hidden result pointer of a struct C returns in registers: a
    /// stack slot of the wrapper's.
    Result(u32),
}

/// The exported C-convention wrapper of function `id`, which calls
/// `target` (the function, or its library wrapper) with parir's
/// convention: struct parameters arrive in registers or as stack copies
/// (System V x86-64: at most six general and eight SSE registers; a struct
/// that does not fit in those left goes on the stack whole), and a struct
/// result of at most 16 bytes leaves in registers.
fn gen_c_wrapper<M: ClModule>(
    m: &mut M,
    cx: &mut Cx,
    ctx: &mut Context,
    fctx: &mut FunctionBuilderContext,
    id: FuncId,
    target: ClFuncId,
) -> Result<(), BackendError> {
    let f = &cx.ir.funcs[id];
    let name = f.name.clone();
    let sig = f.sig.clone();
    let Some(csig) = f.c_sig.as_deref().cloned() else {
        return Err(BackendError::Invalid(format!(
            "`{name}` has no C signature"
        )));
    };
    let result_regs = match &csig.ret {
        Some(ByValue {
            passing: StructPassing::Registers(classes),
            size,
            ..
        }) => Some((classes.clone(), *size)),
        _ => None,
    };
    let (mut ints, mut sses) = (6u32, 8u32);
    let mut plan = Vec::with_capacity(sig.params.len());
    for (k, &t) in sig.params.iter().enumerate() {
        let by_value = csig.params.get(k).cloned().flatten();
        plan.push(match by_value {
            None if k == 0 && csig.ret.is_some() => match &result_regs {
                Some((_, size)) => CParam::Result(*size),
                None => {
                    ints = ints.saturating_sub(1);
                    CParam::Scalar(t)
                }
            },
            None => {
                if matches!(t, Type::F32 | Type::F64) {
                    sses = sses.saturating_sub(1);
                } else {
                    ints = ints.saturating_sub(1);
                }
                CParam::Scalar(t)
            }
            Some(ByValue {
                passing: StructPassing::Registers(classes),
                size,
                ..
            }) => {
                let need_int = classes.iter().filter(|&&c| c == Eightbyte::Integer).count() as u32;
                let need_sse = classes.len() as u32 - need_int;
                if need_int <= ints && need_sse <= sses {
                    ints -= need_int;
                    sses -= need_sse;
                    CParam::Registers(classes, size)
                } else {
                    CParam::Stack(size)
                }
            }
            Some(ByValue { size, .. }) => CParam::Stack(size),
        });
    }
    let eightbyte_type = |c: Eightbyte| match c {
        Eightbyte::Integer => types::I64,
        Eightbyte::Sse => types::F64,
    };
    let mut csig_cl = m.make_signature();
    for p in &plan {
        match p {
            CParam::Scalar(t) => csig_cl.params.push(abi_param(*t)),
            CParam::Registers(classes, _) => csig_cl
                .params
                .extend(classes.iter().map(|&c| AbiParam::new(eightbyte_type(c)))),
            // Each stack argument takes a multiple of eight bytes.
            CParam::Stack(size) => csig_cl.params.push(AbiParam::special(
                types::I64,
                cl::ArgumentPurpose::StructArgument(size.next_multiple_of(8)),
            )),
            CParam::Result(_) => {}
        }
    }
    match &result_regs {
        Some((classes, _)) => csig_cl
            .returns
            .extend(classes.iter().map(|&c| AbiParam::new(eightbyte_type(c)))),
        None => csig_cl.returns.extend(sig.ret.map(abi_param)),
    }
    let wrapper = m
        .declare_function(&name, ClLinkage::Export, &csig_cl)
        .map_err(|e| module_err(&format!("declaring `{name}`"), e))?;

    gen_function_with(m, ctx, fctx, wrapper, csig_cl, |m, b, incoming| {
        let mut next = incoming.iter().copied();
        let mut take = || next.next().expect("one block parameter per C parameter");
        let mut args = Vec::with_capacity(plan.len());
        let mut result_slot = None;
        for p in &plan {
            match p {
                CParam::Scalar(_) | CParam::Stack(_) => args.push(take()),
                CParam::Registers(classes, size) => {
                    let bytes = (*size).next_multiple_of(8).max(8 * classes.len() as u32);
                    let slot = b.create_sized_stack_slot(StackSlotData::new(
                        StackSlotKind::ExplicitSlot,
                        bytes,
                        3,
                    ));
                    for j in 0..classes.len() {
                        let v = take();
                        b.ins().stack_store(types::I64, v, slot, (8 * j) as i32);
                    }
                    args.push(b.ins().stack_addr(types::I64, slot, 0));
                }
                CParam::Result(size) => {
                    let slot = b.create_sized_stack_slot(StackSlotData::new(
                        StackSlotKind::ExplicitSlot,
                        (*size).next_multiple_of(8).max(16),
                        3,
                    ));
                    result_slot = Some(slot);
                    args.push(b.ins().stack_addr(types::I64, slot, 0));
                }
            }
        }
        let fref = m.declare_func_in_func(target, b.func);
        let call = b.ins().call(fref, &args);
        let results: Vec<cl::Value> = match (&result_regs, result_slot) {
            (Some((classes, _)), Some(slot)) => classes
                .iter()
                .enumerate()
                .map(|(j, &c)| {
                    b.ins()
                        .stack_load(types::I64, eightbyte_type(c), slot, (8 * j) as i32)
                })
                .collect(),
            _ => b.inst_results(call).to_vec(),
        };
        b.ins().return_(&results);
        Ok(())
    })
}

/// Per loop header, the values defined outside the loop that the loop uses
/// and that Cranelift would rematerialize inside it: `x op c` (`op` one of
/// `iadd isub and or xor ptradd`, `c` a constant) and float constants other
/// than +0.0. Cranelift rematerializes such an instruction in every block
/// that uses it, which puts a loop-invariant bound like `n - 1` back into
/// the loop header, and a float constant such as the stencil's `0.25` (a
/// 64-bit immediate moved into a general register, then into a vector
/// register) into the loop body, once per iteration; carried as a header
/// parameter instead, it stays in a register. (Read from the constant pool
/// as the multiplication's memory operand instead, the stencil's `0.25`
/// made the serial stencil 0.38 s against 0.31 s in a register.) Left
/// alone: integer constants (immediates of the instructions that use
/// them), +0.0 (one register-clearing instruction, whereas a carried value
/// the register allocator has to spill costs a load and a store per
/// iteration, as it did in the reverse of `normalize`), and a displaced
/// address's `ptradd` (see [`displaced`]), which the access does not read.
/// Headers in block order; each list in the order the loop's blocks use
/// the values.
fn invariants_to_thread(
    f: &Function,
    loops: &parc_ir::analysis::loops::LoopAnalysis,
) -> Vec<(Block, Vec<Value>)> {
    use parc_ir::ValueDef;
    let is_const = |v: Value| f.const_int(v).is_some();
    let remat = |v: Value| match f.value_def(v) {
        ValueDef::Result(i) => match f.inst(i) {
            InstKind::Binary(
                BinaryOp::Iadd | BinaryOp::Isub | BinaryOp::And | BinaryOp::Or | BinaryOp::Xor,
                x,
                y,
            )
            | InstKind::PtrAdd(x, y) => is_const(*x) || is_const(*y),
            // +0.0 is one register-clearing instruction, cheaper than a
            // register held across the loop.
            InstKind::Fconst(x) => x.to_bits() != 0,
            _ => false,
        },
        ValueDef::Param(..) => false,
    };
    let def_block: HashMap<Inst, Block> = f.placed_insts().map(|(b, i)| (i, b)).collect();
    // Each use, in block order, adds the value to the loops around it that
    // do not hold its definition (up the loop tree from the use's innermost
    // loop), once per loop: the cost of the lists, where scanning each
    // loop's blocks cost the sum of the loops' sizes.
    let mut lists: HashMap<parc_ir::analysis::Loop, Vec<Value>> = HashMap::new();
    let mut listed: HashSet<(parc_ir::analysis::Loop, Value)> = HashSet::new();
    let mut blocks: Vec<Block> = f
        .layout
        .iter()
        .copied()
        .filter(|&b| loops.innermost(b).is_some())
        .collect();
    blocks.sort();
    blocks.dedup();
    for b in blocks {
        for &i in &f.blocks[b].insts {
            let mut used = |v: Value| {
                let ValueDef::Result(d) = f.value_def(v) else {
                    return;
                };
                let Some(&db) = def_block.get(&d) else {
                    return;
                };
                if !remat(v) {
                    return;
                }
                let mut cur = loops.innermost(b);
                while let Some(lp) = cur {
                    if loops.contains(lp, db) || !listed.insert((lp, v)) {
                        break;
                    }
                    lists.entry(lp).or_default().push(v);
                    cur = loops.data(lp).parent;
                }
            };
            // A displaced address is its base, read by the access
            // itself (see `displaced`).
            let base = |p: Value| displaced(f, p).map_or(p, |(q, _)| q);
            match *f.inst(i) {
                InstKind::Load(p) => used(base(p)),
                InstKind::Store { value, ptr } => {
                    used(value);
                    used(base(ptr));
                }
                ref other => other.for_each_operand(used),
            }
        }
    }
    let mut out: Vec<(Block, Vec<Value>)> = lists
        .into_iter()
        .map(|(lp, vs)| (loops.data(lp).header, vs))
        .collect();
    out.sort_by_key(|&(header, _)| header);
    out
}

/// `(q, c)` if `p` is `ptradd q, c` with a 32-bit constant `c`: a load or
/// store at `p` reads `q` and has `c` as its own displacement, which
/// Cranelift's x64 lowering folds into the addressing mode together with a
/// scaled index in `q`. (It looks through one addition when it sinks a
/// load into arithmetic, so `(q + 8j) + 8` as a value would cost an `lea`
/// of `q + 8j`; as the load's displacement it costs nothing.)
fn displaced(f: &Function, p: Value) -> Option<(Value, i32)> {
    let parc_ir::ValueDef::Result(i) = f.value_def(p) else {
        return None;
    };
    let InstKind::PtrAdd(q, c) = *f.inst(i) else {
        return None;
    };
    Some((q, i32::try_from(f.const_int(c)?).ok()?))
}

/// Blocks reachable from the entry, in reverse postorder.
fn reverse_postorder(f: &Function) -> Vec<Block> {
    let Some(entry) = f.entry() else {
        return Vec::new();
    };
    let mut seen = HashSet::new();
    let mut post = Vec::new();
    // (block, index of the next successor to visit)
    let mut stack = vec![(entry, 0usize)];
    seen.insert(entry);
    while let Some(&mut (block, ref mut next)) = stack.last_mut() {
        let succs = f.successors(block);
        if let Some(&s) = succs.get(*next) {
            *next += 1;
            if seen.insert(s) {
                stack.push((s, 0));
            }
        } else {
            post.push(block);
            stack.pop();
        }
    }
    post.reverse();
    post
}

/// The `alloca`s that can live in a register instead of memory, with
/// their type: their address is used only as the address of loads and
/// stores, all of one type that fills the allocation exactly. Their
/// address cannot escape, so no other code or thread can see the memory,
/// and each load reads the last store (or the zero fill): a CLIF variable
/// (SSA built by cranelift-frontend) is the same thing, without the stack
/// traffic. This is the scalar part of `mem2reg`; it makes unoptimized
/// modules (locals all in `alloca`s) run at register speed.
fn promotable_allocas(f: &Function) -> Vec<(Value, Type)> {
    let mut candidates: HashMap<Value, (u32, Option<Type>)> = HashMap::new();
    for (_, inst) in f.placed_insts() {
        if let InstKind::Alloca { size, .. } = f.inst(inst)
            && let Some(r) = f.result(inst)
        {
            candidates.insert(r, (*size, None));
        }
    }
    let mut escaped = HashSet::new();
    for (_, inst) in f.placed_insts() {
        let kind = f.inst(inst);
        // The type an access through `p` uses, if `p` is used as an address.
        let mut access = |p: Value, ty: Type| {
            if let Some((_, seen)) = candidates.get_mut(&p) {
                match seen {
                    None => *seen = Some(ty),
                    Some(t) if *t == ty => {}
                    Some(_) => {
                        escaped.insert(p);
                    }
                }
            }
        };
        match kind {
            InstKind::Load(p) => {
                let ty = f.result(inst).map(|r| f.value_type(r));
                access(*p, ty.unwrap_or(Type::I64));
            }
            InstKind::Store { value, ptr } => {
                access(*ptr, f.value_type(*value));
                // Storing the address itself lets it escape.
                if candidates.contains_key(value) {
                    escaped.insert(*value);
                }
            }
            other => other.for_each_operand(|v| {
                if candidates.contains_key(&v) {
                    escaped.insert(v);
                }
            }),
        }
    }
    let mut out: Vec<(Value, Type)> = candidates
        .into_iter()
        .filter(|(v, _)| !escaped.contains(v))
        .filter_map(|(v, (size, ty))| {
            let ty = ty?;
            (ty.bytes() == size && !ty.is_vector()).then_some((v, ty))
        })
        .collect();
    out.sort_by_key(|&(v, _)| v);
    out
}

/// The values of which `block` takes both `sin` and `cos`: the first of
/// the two computes both with one `sincos` call (GCC's sincos CSE). Within
/// one block the first dominates the second.
pub(crate) fn sincos_pairs(f: &Function, block: Block) -> HashSet<Value> {
    let mut sin = HashSet::new();
    let mut cos = HashSet::new();
    for &inst in &f.blocks[block].insts {
        if let InstKind::Intrinsic { op, args } = f.inst(inst)
            && let [x] = args[..]
        {
            match op {
                Intrinsic::Sin => sin.insert(x),
                Intrinsic::Cos => cos.insert(x),
                _ => false,
            };
        }
    }
    sin.intersection(&cos).copied().collect()
}

/// The translation of one function.
struct FnTranslator<'a, 'b, 'c, M: ClModule> {
    m: &'a mut M,
    cx: &'a mut Cx<'c>,
    b: FunctionBuilder<'b>,
    f: &'c Function,
    id: FuncId,
    /// CLIF value of each parir value.
    values: Vec<Option<cl::Value>>,
    /// CLIF block of each reachable parir block.
    blocks: HashMap<Block, cl::Block>,
    func_refs: HashMap<ClFuncId, cl::FuncRef>,
    data_refs: HashMap<DataId, cl::GlobalValue>,
    shared_base: Option<cl::Value>,
    /// `worker_id`, read once in the entry (see `translate`).
    worker_id: Option<cl::Value>,
    /// Allocas kept in registers (see [`promotable_allocas`]): the CLIF
    /// variable and the one type they are accessed as.
    promoted: HashMap<Value, (Variable, Type)>,
    /// The instruction being translated (for fault positions).
    inst: Option<Inst>,
    /// The natural loops of `f` (see `brif`), and the block being translated.
    loops: parc_ir::analysis::loops::LoopAnalysis,
    block: Option<Block>,
    /// Loop-invariant `x op constant` values threaded through loop headers
    /// (see [`invariants_to_thread`]): per header, the values and the
    /// header's extra CLIF parameters carrying them.
    threaded: HashMap<Block, Vec<(Value, cl::Value)>>,
    /// The threaded values' CLIF values in the current block: the
    /// parameter of the innermost loop around it that carries them.
    overrides: HashMap<Value, cl::Value>,
    /// Arguments of which the current block takes both `sin` and `cos`
    /// (see [`sincos_pairs`]), and for those already computed, the two.
    sincos_args: HashSet<Value>,
    sincos: HashMap<Value, (cl::Value, cl::Value)>,
}

impl<'a, 'b, 'c, M: ClModule> FnTranslator<'a, 'b, 'c, M> {
    fn run(
        m: &'a mut M,
        cx: &'a mut Cx<'c>,
        func: &'b mut cl::Function,
        fctx: &'b mut FunctionBuilderContext,
        id: FuncId,
    ) -> Result<(), BackendError> {
        let f = &cx.ir.funcs[id];
        let cfg = m.target_config();
        let mut t = FnTranslator {
            m,
            b: FunctionBuilder::new(func, fctx),
            cx,
            f,
            id,
            values: vec![None; f.values.len()],
            blocks: HashMap::new(),
            func_refs: HashMap::new(),
            data_refs: HashMap::new(),
            shared_base: None,
            worker_id: None,
            promoted: HashMap::new(),
            inst: None,
            loops: {
                let cfg = parc_ir::analysis::cfg::ControlFlowGraph::compute(f);
                let dom = parc_ir::analysis::dom::DominatorTree::compute(&cfg);
                parc_ir::analysis::loops::LoopAnalysis::compute(&cfg, &dom)
            },
            block: None,
            threaded: HashMap::new(),
            overrides: HashMap::new(),
            sincos_args: HashSet::new(),
            sincos: HashMap::new(),
        };
        t.translate()?;
        t.b.seal_all_blocks();
        t.b.finalize(cfg);
        Ok(())
    }

    fn err(&self, msg: impl std::fmt::Display) -> BackendError {
        BackendError::Invalid(format!("function `{}`: {msg}", self.f.name))
    }

    fn translate(&mut self) -> Result<(), BackendError> {
        let order = reverse_postorder(self.f);
        for (alloca, ty) in promotable_allocas(self.f) {
            let var = self.b.declare_var(clif_type(ty));
            self.promoted.insert(alloca, (var, ty));
        }
        for &block in &order {
            let cb = self.b.create_block();
            for &p in &self.f.blocks[block].params {
                let v = self
                    .b
                    .append_block_param(cb, clif_type(self.f.value_type(p)));
                self.values[p.index()] = Some(v);
            }
            self.blocks.insert(block, cb);
        }
        for (header, vs) in invariants_to_thread(self.f, &self.loops) {
            let Some(&cb) = self.blocks.get(&header) else {
                continue;
            };
            let params = vs
                .into_iter()
                .map(|v| {
                    (
                        v,
                        self.b
                            .append_block_param(cb, clif_type(self.f.value_type(v))),
                    )
                })
                .collect();
            self.threaded.insert(header, params);
        }

        // A separate CLIF entry for per-function values.
        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.b.switch_to_block(entry);
        let uses_shared = self.f.placed_insts().any(|(_, i)| {
            matches!(self.f.inst(i), InstKind::GlobalAddr(g)
                if self.cx.ir.globals[*g].space == AddrSpace::Shared)
        });
        if uses_shared {
            let r = self.call_extern(&ix::RT_SHARED_BASE, &[])?;
            self.shared_base = r;
        }
        // A strand's worker does not change while a function runs (tasks
        // never migrate; a sync runs other tasks on the same worker), so
        // one call here can serve every `worker_id` of the function. Here
        // only the parameters are live across it; at its place in a task
        // or chunk body, every value loaded from the context would be, and
        // the register allocator would spill them (and reload them in the
        // loops that follow). (This was once done only where it was the
        // function's one call, because moving it made the stencil
        // gradient's reverse loop 10% slower; that was where the loop fell
        // in the instruction cache's 64-byte blocks, see `placement.rs`.
        // With loops placed, hoisting it from a kernel's thread loop makes
        // the kernel gradient 8% faster, the stencil's a little.)
        let uses_worker_id = self.f.placed_insts().any(|(_, i)| {
            matches!(
                self.f.inst(i),
                InstKind::Intrinsic {
                    op: Intrinsic::WorkerId,
                    ..
                }
            )
        });
        if uses_worker_id {
            self.worker_id = self.call_extern(&ix::RT_WORKER_ID, &[])?;
        }
        let first = *self.blocks.get(&order[0]).expect("entry is reachable");
        let params: Vec<BlockArg> = self
            .b
            .block_params(entry)
            .iter()
            .map(|&v| BlockArg::Value(v))
            .collect();
        if params.len() != self.f.blocks[order[0]].params.len() {
            return Err(self.err("the entry block's parameters do not match the signature"));
        }
        self.b.ins().jump(first, &params);

        for &block in &order {
            self.b.switch_to_block(self.blocks[&block]);
            self.block = Some(block);
            // Outermost loop first, so that the innermost's parameter wins.
            self.overrides.clear();
            let mut around: Vec<_> = self
                .loops
                .loops()
                .filter(|&lp| self.loops.contains(lp, block))
                .collect();
            around.sort_by_key(|&lp| std::cmp::Reverse(self.loops.data(lp).blocks.len()));
            for lp in around {
                if let Some(params) = self.threaded.get(&self.loops.data(lp).header) {
                    self.overrides.extend(params.iter().copied());
                }
            }
            self.sincos_args = sincos_pairs(self.f, block);
            self.sincos.clear();
            for &inst in &self.f.blocks[block].insts {
                self.inst = Some(inst);
                let at = self.cx.source_loc(self.id, self.f.locs[inst]);
                self.b.set_srcloc(at);
                self.translate_inst(inst)?;
            }
        }
        Ok(())
    }

    fn val(&self, v: Value) -> Result<cl::Value, BackendError> {
        if let Some(&o) = self.overrides.get(&v) {
            return Ok(o);
        }
        self.values[v.index()].ok_or_else(|| self.err(format!("{v} is used before it is defined")))
    }

    fn vals(&self, vs: &[Value]) -> Result<Vec<cl::Value>, BackendError> {
        vs.iter().map(|&v| self.val(v)).collect()
    }

    fn ty(&self, v: Value) -> Type {
        self.f.value_type(v)
    }

    fn loc(&self) -> SrcLoc {
        self.inst.map(|i| self.f.locs[i]).unwrap_or_default()
    }

    /// A call through the code address `addr` with the signature of the
    /// arguments' types and `ret`; the result, if any.
    fn call_through(
        &mut self,
        addr: cl::Value,
        args: &[Value],
        ret: Option<Type>,
    ) -> Result<Option<cl::Value>, BackendError> {
        let tys: Vec<Type> = args.iter().map(|&a| self.ty(a)).collect();
        let sig = clif_signature(self.m, &tys, ret);
        let sigref = self.b.import_signature(sig);
        let args = self.vals(args)?;
        let call = self.b.ins().call_indirect(sigref, addr, &args);
        Ok(self.b.inst_results(call).first().copied())
    }

    fn func_ref(&mut self, id: ClFuncId) -> cl::FuncRef {
        if let Some(&r) = self.func_refs.get(&id) {
            return r;
        }
        let r = self.m.declare_func_in_func(id, self.b.func);
        self.func_refs.insert(id, r);
        r
    }

    fn data_addr(&mut self, id: DataId) -> cl::Value {
        let gv = match self.data_refs.get(&id) {
            Some(&gv) => gv,
            None => {
                let gv = self.m.declare_data_in_func(id, self.b.func);
                self.data_refs.insert(id, gv);
                gv
            }
        };
        self.b.ins().symbol_value(types::I64, gv)
    }

    fn call_extern(
        &mut self,
        e: &ExternFn,
        args: &[cl::Value],
    ) -> Result<Option<cl::Value>, BackendError> {
        let id = self.cx.extern_fn(self.m, e)?;
        let fref = self.func_ref(id);
        let call = self.b.ins().call(fref, args);
        Ok(self.b.inst_results(call).first().copied())
    }

    /// The address `p` of a load or store as a base and a displacement
    /// (see [`displaced`]): `a[j + 1]`, split by `split-offsets` into
    /// `ptradd (ptradd a, shl j, 3), 8`, is `8(a, j, 8)`.
    fn address(&self, p: Value) -> Result<(cl::Value, i32), BackendError> {
        match displaced(self.f, p) {
            Some((q, c)) => Ok((self.val(q)?, c)),
            None => Ok((self.val(p)?, 0)),
        }
    }

    /// Calls `parc_rt_fault(kind, name, line, col)` and ends the block.
    fn emit_fault(&mut self, kind: i32) -> Result<(), BackendError> {
        let loc = self.loc();
        let name_id = self.cx.name_string(self.m, loc.func.unwrap_or(self.id))?;
        let name = self.data_addr(name_id);
        let kind_v = self.b.ins().iconst(types::I32, i64::from(kind));
        let line = iconst(&mut self.b, types::I32, i64::from(loc.line));
        let col = iconst(&mut self.b, types::I32, i64::from(loc.col));
        self.call_extern(&ix::RT_FAULT, &[kind_v, name, line, col])?;
        self.b.ins().trap(TrapCode::unwrap_user(kind as u8 + 1));
        Ok(())
    }

    /// Continues only if `ok` (an `i8` truth value) holds; otherwise faults
    /// with `kind` in a cold block.
    fn fault_unless(&mut self, ok: cl::Value, kind: i32) -> Result<(), BackendError> {
        let fault = self.b.create_block();
        let cont = self.b.create_block();
        self.b.set_cold_block(fault);
        self.b.ins().brif(ok, cont, &[], fault, &[]);
        self.b.switch_to_block(fault);
        self.emit_fault(kind)?;
        self.b.switch_to_block(cont);
        Ok(())
    }

    /// The CLIF arguments of a branch to `dest`: its own, then the
    /// invariants a loop header carries (see [`invariants_to_thread`]).
    fn block_args(&mut self, dest: &parc_ir::BlockCall) -> Result<Vec<BlockArg>, BackendError> {
        let mut args = self.vals(&dest.args)?;
        let back_edge = self.block.is_some_and(|cur| {
            self.loops
                .loop_headed_by(dest.block)
                .is_some_and(|lp| self.loops.contains(lp, cur))
        });
        for (v, _) in self.threaded.get(&dest.block).cloned().unwrap_or_default() {
            let x = self.val(v)?;
            // Around a back edge the value goes through `x + 0` (a float
            // through `-(-x)`, exact for every value, NaNs included):
            // Cranelift removes a block parameter that only ever receives
            // one value (itself from the latch) before its optimizer would
            // fold the identity away, so the parameter survives to the
            // register allocator.
            let x = if back_edge {
                let ty = self.b.func.dfg.value_type(x);
                if ty.is_float() {
                    let neg = self.b.ins().fneg(x);
                    self.b.ins().fneg(neg)
                } else {
                    let zero = self.b.ins().iconst(ty, 0);
                    self.b.ins().iadd(x, zero)
                }
            } else {
                x
            };
            args.push(x);
        }
        Ok(args.into_iter().map(BlockArg::Value).collect())
    }

    /// True if the current block's branch to `then` stays in the
    /// innermost loop containing the block and the one to `els` leaves it.
    fn leaves_loop_on_else(&self, then: Block, els: Block) -> bool {
        let Some(cur) = self.block else {
            return false;
        };
        let Some(lp) = self.loops.innermost(cur) else {
            return false;
        };
        self.loops.contains(lp, then) && !self.loops.contains(lp, els)
    }

    fn target(&self, block: Block) -> Result<cl::Block, BackendError> {
        self.blocks
            .get(&block)
            .copied()
            .ok_or_else(|| self.err(format!("branch to {block}, which is not reachable")))
    }

    fn translate_inst(&mut self, inst: Inst) -> Result<(), BackendError> {
        let result = self.f.result(inst);
        let rty = result.map(|r| self.f.value_type(r));
        let kind = self.f.inst(inst);
        let value: Option<cl::Value> = match kind {
            InstKind::Iconst(c) => {
                let ty = rty.ok_or_else(|| self.err("iconst without a result"))?;
                let c = if ty == Type::I1 { c & 1 } else { *c };
                Some(iconst(&mut self.b, clif_type(ty), c))
            }
            InstKind::Fconst(x) => Some(match rty {
                Some(Type::F32) => self.b.ins().f32const(*x as f32),
                _ => self.b.ins().f64const(*x),
            }),
            InstKind::GlobalAddr(g) => {
                let i = g.as_u32() as usize;
                match self.cx.data[i] {
                    Some(did) => Some(self.data_addr(did)),
                    None => {
                        let base = self.shared_base.expect("fetched at entry");
                        let off = self.cx.shared_offset[i] as i64;
                        Some(self.b.ins().iadd_imm_s(base, off))
                    }
                }
            }
            InstKind::FuncAddr(func) => {
                let id = self.cx.funcs[func.as_u32() as usize]
                    .ok_or_else(|| self.err("func_addr of an unknown function"))?;
                let r = self.func_ref(id);
                Some(self.b.ins().func_addr(types::I64, r))
            }
            InstKind::Unary(UnaryOp::Fneg, a) if self.ty(*a).is_vector() => {
                let a = self.val(*a)?;
                Some(self.b.ins().fneg(a))
            }
            InstKind::Splat(a) => {
                let ty = rty.ok_or_else(|| self.err("splat without a result"))?;
                let a = self.val(*a)?;
                Some(self.b.ins().splat(clif_type(ty), a))
            }
            InstKind::ExtractLane(v, lane) => {
                let v = self.val(*v)?;
                Some(self.b.ins().extractlane(v, *lane))
            }
            InstKind::InsertLane(v, x, lane) => {
                let (v, x) = (self.val(*v)?, self.val(*x)?);
                Some(self.b.ins().insertlane(v, x, *lane))
            }
            InstKind::Reduce(op, v) => {
                // In lane order, as the interpreter: the rounding of a
                // float reduction is part of its meaning.
                let lanes = self.ty(*v).lanes();
                let v = self.val(*v)?;
                let mut acc = self.b.ins().extractlane(v, 0);
                for i in 1..lanes {
                    let x = self.b.ins().extractlane(v, i as u8);
                    acc = self.lane_op(*op, acc, x);
                }
                Some(acc)
            }
            InstKind::Unary(UnaryOp::Fneg, a) => {
                // `x ^ -0.0` flips the sign bit, as `fneg` does; but x64's
                // `fneg` materializes its mask with two instructions at
                // every use, where uses of one constant share it.
                let a = self.val(*a)?;
                let mask = match self.b.func.dfg.value_type(a) {
                    types::F32 => self.b.ins().f32const(-0.0f32),
                    _ => self.b.ins().f64const(-0.0),
                };
                Some(self.b.ins().bxor(a, mask))
            }
            InstKind::Binary(op, a, b) => Some(self.binary(*op, *a, *b)?),
            InstKind::Icmp(cc, a, b) => {
                let (a, b) = (self.val(*a)?, self.val(*b)?);
                Some(self.b.ins().icmp(int_cc(*cc), a, b))
            }
            InstKind::Fcmp(cc, a, b) => {
                let (a, b) = (self.val(*a)?, self.val(*b)?);
                Some(self.b.ins().fcmp(float_cc(*cc), a, b))
            }
            InstKind::Cast(op, a) => {
                let to = rty.ok_or_else(|| self.err("cast without a result"))?;
                Some(self.cast(*op, *a, to)?)
            }
            InstKind::Select(c, a, b) => {
                let (c, a, b) = (self.val(*c)?, self.val(*a)?, self.val(*b)?);
                Some(self.b.ins().select(c, a, b))
            }
            InstKind::Alloca { .. } if self.promoted.contains_key(&result.expect("a pointer")) => {
                // Zero-filled, as the memory would be.
                let (var, ty) = self.promoted[&result.expect("checked")];
                let zero = match ty {
                    Type::F32 => self.b.ins().f32const(0.0),
                    Type::F64 => self.b.ins().f64const(0.0),
                    other => self.b.ins().iconst(clif_type(other), 0),
                };
                self.b.def_var(var, zero);
                return Ok(());
            }
            InstKind::Alloca { size, align } => Some(self.alloca(*size, *align)?),
            InstKind::Load(p) if self.promoted.contains_key(p) => {
                Some(self.b.use_var(self.promoted[p].0))
            }
            InstKind::Store { value, ptr } if self.promoted.contains_key(ptr) => {
                let v = self.val(*value)?;
                self.b.def_var(self.promoted[ptr].0, v);
                None
            }
            InstKind::Load(p) => {
                let ty = rty.ok_or_else(|| self.err("load without a result"))?;
                let (p, offset) = self.address(*p)?;
                let v = self
                    .b
                    .ins()
                    .load(clif_type(ty), MemFlagsData::new(), p, offset);
                Some(if ty == Type::I1 {
                    self.b.ins().band_imm_u(v, 1)
                } else {
                    v
                })
            }
            InstKind::Store { value, ptr } => {
                let v = self.val(*value)?;
                let (p, offset) = self.address(*ptr)?;
                self.b.ins().store(MemFlagsData::new(), v, p, offset);
                None
            }
            InstKind::PtrAdd(p, off) => {
                let p = self.val(*p)?;
                let off_ty = self.ty(*off);
                let off = self.val(*off)?;
                let off = resize_int(&mut self.b, off, types::I64, off_ty != Type::I1);
                Some(self.b.ins().iadd(p, off))
            }
            InstKind::Call { func, args } if self.cx.va_stubs.contains_key(func) => {
                let stub = self.cx.va_stubs[func];
                let ret = self.cx.ir.funcs[*func].sig.ret;
                let r = self.func_ref(stub);
                let addr = self.b.ins().func_addr(types::I64, r);
                self.call_through(addr, args, ret)?
            }
            InstKind::CallIndirect { callee, args } => {
                let addr = self.val(*callee)?;
                self.call_through(addr, args, rty)?
            }
            InstKind::Call { func, args } => {
                let id = self.cx.funcs[func.as_u32() as usize]
                    .ok_or_else(|| self.err("call of an unknown function"))?;
                let callee = &self.cx.ir.funcs[*func];
                if callee.sig.params.len() != args.len() {
                    return Err(self.err(format!(
                        "call of `{}` with {} arguments for {} parameters",
                        callee.name,
                        args.len(),
                        callee.sig.params.len()
                    )));
                }
                let args = self.vals(args)?;
                let r = self.func_ref(id);
                let call = self.b.ins().call(r, &args);
                self.b.inst_results(call).first().copied()
            }
            InstKind::Intrinsic { op, args } => self.intrinsic(*op, args, rty)?,
            InstKind::Launch {
                kernel,
                grid,
                block,
                args,
            } => {
                self.launch(*kernel, grid, block, args)?;
                None
            }
            InstKind::Jump(dest) => {
                let target = self.target(dest.block)?;
                let args = self.block_args(dest)?;
                self.b.ins().jump(target, &args);
                None
            }
            InstKind::Brif {
                cond,
                then_dest,
                else_dest,
            } => {
                let c = self.val(*cond)?;
                let t = self.target(then_dest.block)?;
                let e = self.target(else_dest.block)?;
                let targs = self.block_args(then_dest)?;
                let eargs = self.block_args(else_dest)?;
                if self.leaves_loop_on_else(then_dest.block, else_dest.block) {
                    // Cranelift elaborates a block's dominator-tree children
                    // in reverse order of their branch position; if a loop
                    // exit came first, the loop body would be elaborated as
                    // if outside the loop and get its invariant code sunk
                    // back into it. So the exit is the taken branch.
                    let nc = self.b.ins().icmp_imm_u(condcodes::IntCC::Equal, c, 0);
                    self.b.ins().brif(nc, e, &eargs, t, &targs);
                } else {
                    self.b.ins().brif(c, t, &targs, e, &eargs);
                }
                None
            }
            InstKind::Return(v) => {
                let vs = match v {
                    Some(v) => vec![self.val(*v)?],
                    None => Vec::new(),
                };
                self.b.ins().return_(&vs);
                None
            }
            InstKind::Unreachable => {
                self.emit_fault(FAULT_UNREACHABLE)?;
                None
            }
            InstKind::Detach { .. } | InstKind::Reattach { .. } | InstKind::Sync { .. } => {
                return Err(self.err("Tapir terminator; run `tapir::lower_tapir` first"));
            }
        };
        if let (Some(r), Some(v)) = (result, value) {
            self.values[r.index()] = Some(v);
        } else if result.is_some() {
            return Err(self.err(format!("{inst} has a result this backend cannot produce")));
        }
        Ok(())
    }

    /// A lane-wise operator ([`BinaryOp::is_lanewise`]) on CLIF values of
    /// one (scalar or vector) type.
    fn lane_op(&mut self, op: BinaryOp, x: cl::Value, y: cl::Value) -> cl::Value {
        use BinaryOp::*;
        match op {
            Iadd => self.b.ins().iadd(x, y),
            Isub => self.b.ins().isub(x, y),
            Imul => self.b.ins().imul(x, y),
            And => self.b.ins().band(x, y),
            Or => self.b.ins().bor(x, y),
            Xor => self.b.ins().bxor(x, y),
            Fadd => self.b.ins().fadd(x, y),
            Fsub => self.b.ins().fsub(x, y),
            Fmul => self.b.ins().fmul(x, y),
            _ => self.b.ins().fdiv(x, y),
        }
    }

    fn binary(&mut self, op: BinaryOp, a: Value, b: Value) -> Result<cl::Value, BackendError> {
        use BinaryOp::*;
        if self.ty(a).is_vector() {
            if !op.is_lanewise() {
                return Err(self.err(format!("`{}` of vectors", op.name())));
            }
            let (x, y) = (self.val(a)?, self.val(b)?);
            return Ok(self.lane_op(op, x, y));
        }
        let ty = self.ty(a);
        let (x, y) = (self.val(a)?, self.val(b)?);
        let r = match op {
            Iadd => self.b.ins().iadd(x, y),
            Isub => self.b.ins().isub(x, y),
            Imul => self.b.ins().imul(x, y),
            And => self.b.ins().band(x, y),
            Or => self.b.ins().bor(x, y),
            Xor => self.b.ins().bxor(x, y),
            // An `i1` shift amount is taken modulo 1: always 0.
            Shl | Lshr | Ashr if ty == Type::I1 => x,
            Shl => self.b.ins().ishl(x, y),
            Lshr => self.b.ins().ushr(x, y),
            Ashr => self.b.ins().sshr(x, y),
            Sdiv | Udiv | Srem | Urem => self.divide(op, ty, x, y, b)?,
            Fadd => self.b.ins().fadd(x, y),
            Fsub => self.b.ins().fsub(x, y),
            Fmul => self.b.ins().fmul(x, y),
            Fdiv => self.b.ins().fdiv(x, y),
        };
        Ok(if ty == Type::I1 && matches!(op, Iadd | Isub | Imul) {
            self.b.ins().band_imm_u(r, 1)
        } else {
            r
        })
    }

    /// Division and remainder with the zero check and without the hardware
    /// trap of `MIN / -1` (see the module doc).
    fn divide(
        &mut self,
        op: BinaryOp,
        ty: Type,
        x: cl::Value,
        y: cl::Value,
        divisor: Value,
    ) -> Result<cl::Value, BackendError> {
        let known = self.f.const_int(divisor);
        if known.is_none_or(|c| c == 0) {
            self.fault_unless(y, FAULT_DIV_ZERO)?;
        }
        // `i1` values are 0 or 1, so signed and unsigned agree on them.
        let signed = matches!(op, BinaryOp::Sdiv | BinaryOp::Srem) && ty != Type::I1;
        if !signed {
            return Ok(if op == BinaryOp::Udiv || op == BinaryOp::Sdiv {
                self.b.ins().udiv(x, y)
            } else {
                self.b.ins().urem(x, y)
            });
        }
        if known.is_some_and(|c| c != -1) {
            return Ok(if op == BinaryOp::Sdiv {
                self.b.ins().sdiv(x, y)
            } else {
                self.b.ins().srem(x, y)
            });
        }
        // Divide by 1 instead of -1: x / -1 = -x (wrapping), x % -1 = x % 1 = 0.
        let ct = clif_type(ty);
        let minus_one = iconst(&mut self.b, ct, -1);
        let is_m1 = self.b.ins().icmp(condcodes::IntCC::Equal, y, minus_one);
        let one = iconst(&mut self.b, ct, 1);
        let safe = self.b.ins().select(is_m1, one, y);
        Ok(if op == BinaryOp::Sdiv {
            let q = self.b.ins().sdiv(x, safe);
            let neg = self.b.ins().ineg(x);
            self.b.ins().select(is_m1, neg, q)
        } else {
            self.b.ins().srem(x, safe)
        })
    }

    fn cast(&mut self, op: CastOp, a: Value, to: Type) -> Result<cl::Value, BackendError> {
        let from = self.ty(a);
        let x = self.val(a)?;
        let ct = clif_type(to);
        let b = &mut self.b;
        let mask1 = |b: &mut FunctionBuilder, v| b.ins().band_imm_u(v, 1);
        Ok(match op {
            CastOp::Sext => {
                // An `i1` is -1 or 0 when read as signed.
                let x = if from == Type::I1 { b.ins().ineg(x) } else { x };
                resize_int(b, x, ct, true)
            }
            CastOp::Zext | CastOp::IntToPtr => resize_int(b, x, ct, false),
            CastOp::Trunc | CastOp::PtrToInt => {
                let v = resize_int(b, x, ct, false);
                if to == Type::I1 { mask1(b, v) } else { v }
            }
            CastOp::SiToFp => {
                let x = match from {
                    Type::I1 => {
                        let n = b.ins().ineg(x);
                        b.ins().sextend(types::I32, n)
                    }
                    Type::I8 | Type::I16 => b.ins().sextend(types::I32, x),
                    _ => x,
                };
                b.ins().fcvt_from_sint(ct, x)
            }
            CastOp::UiToFp => {
                let x = if matches!(from, Type::I1 | Type::I8 | Type::I16) {
                    b.ins().uextend(types::I32, x)
                } else {
                    x
                };
                b.ins().fcvt_from_uint(ct, x)
            }
            CastOp::FpToSi => match to {
                Type::I32 | Type::I64 | Type::Ptr => b.ins().fcvt_to_sint_sat(ct, x),
                Type::I8 | Type::I16 => {
                    let (lo, hi) = if to == Type::I8 {
                        (-128, 127)
                    } else {
                        (-32768, 32767)
                    };
                    let w = b.ins().fcvt_to_sint_sat(types::I32, x);
                    let lo = b.ins().iconst(types::I32, lo);
                    let hi = b.ins().iconst(types::I32, hi);
                    let w = b.ins().smax(w, lo);
                    let w = b.ins().smin(w, hi);
                    b.ins().ireduce(ct, w)
                }
                Type::I1 => {
                    let w = b.ins().fcvt_to_sint_sat(types::I64, x);
                    let w = b.ins().ireduce(types::I8, w);
                    mask1(b, w)
                }
                _ => return Err(self.err(format!("fptosi to {to}"))),
            },
            CastOp::FpToUi => match to {
                Type::I32 | Type::I64 | Type::Ptr => b.ins().fcvt_to_uint_sat(ct, x),
                Type::I8 | Type::I1 => {
                    let w = b.ins().fcvt_to_uint_sat(types::I32, x);
                    let hi = b.ins().iconst(types::I32, 255);
                    let w = b.ins().umin(w, hi);
                    let w = b.ins().ireduce(types::I8, w);
                    if to == Type::I1 { mask1(b, w) } else { w }
                }
                Type::I16 => {
                    let w = b.ins().fcvt_to_uint_sat(types::I32, x);
                    let hi = b.ins().iconst(types::I32, 65535);
                    let w = b.ins().umin(w, hi);
                    b.ins().ireduce(types::I16, w)
                }
                _ => return Err(self.err(format!("fptoui to {to}"))),
            },
            CastOp::FpExt => {
                if from == to {
                    x
                } else {
                    b.ins().fpromote(ct, x)
                }
            }
            CastOp::FpTrunc => {
                if from == to {
                    x
                } else {
                    b.ins().fdemote(ct, x)
                }
            }
        })
    }

    /// `memset(dst, byte, size)` for a small constant `size`: inline
    /// stores of the byte repeated (a call through the PLT costs more than
    /// the stores, and ends the CPU's overlap of the loop around it: an
    /// uninitialized local array in a loop body is zeroed at every
    /// iteration).
    fn inline_fill(&mut self, dst: cl::Value, byte: u8, size: u32) {
        for (off, ty) in inline_pieces(size) {
            let pattern = u64::from_ne_bytes([byte; 8]) >> (64 - ty.bits());
            let v = self.b.ins().iconst(ty, pattern as i64);
            self.b.ins().store(MemFlagsData::new(), v, dst, off as i32);
        }
    }

    /// `memcpy(dst, src, size)` for a small constant `size`: every load
    /// before the first store, so that overlapping blocks (undefined for
    /// `memcpy`) still copy as `memmove` does.
    fn inline_copy(&mut self, dst: cl::Value, src: cl::Value, size: u32) {
        let pieces = inline_pieces(size);
        let values: Vec<cl::Value> = pieces
            .iter()
            .map(|&(off, ty)| self.b.ins().load(ty, MemFlagsData::new(), src, off as i32))
            .collect();
        for (&(off, _), v) in pieces.iter().zip(values) {
            self.b.ins().store(MemFlagsData::new(), v, dst, off as i32);
        }
    }

    fn alloca(&mut self, size: u32, align: u32) -> Result<cl::Value, BackendError> {
        let size = size.max(1);
        let align_shift = align.max(1).next_power_of_two().trailing_zeros() as u8;
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            size,
            align_shift,
        ));
        let addr = self.b.ins().stack_addr(types::I64, slot, 0);
        if size <= INLINE_ZERO_MAX {
            for (off, ty) in inline_pieces(size) {
                let zero = self.b.ins().iconst(ty, 0);
                self.b.ins().stack_store(types::I64, zero, slot, off as i32);
            }
        } else {
            let zero = self.b.ins().iconst(types::I32, 0);
            let n = self.b.ins().iconst(types::I64, i64::from(size));
            self.call_extern(&ix::C_MEMSET, &[addr, zero, n])?;
        }
        Ok(addr)
    }

    /// `sincos(x, &s, &c)` (`sincosf` for `f32`) through two stack slots:
    /// glibc computes both with the code of `sin` and `cos` (the same
    /// results, bit for bit) in little more than the time of one.
    fn sincos_call(
        &mut self,
        x: cl::Value,
        ty: Type,
    ) -> Result<(cl::Value, cl::Value), BackendError> {
        let bytes = ty.bytes();
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            2 * bytes,
            3,
        ));
        let sin_at = self.b.ins().stack_addr(types::I64, slot, 0);
        let cos_at = self.b.ins().stack_addr(types::I64, slot, bytes as i32);
        let e = ix::sincos_fn(ty);
        self.call_extern(&e, &[x, sin_at, cos_at])?;
        let ct = clif_type(ty);
        let sin = self.b.ins().stack_load(types::I64, ct, slot, 0);
        let cos = self.b.ins().stack_load(types::I64, ct, slot, bytes as i32);
        Ok((sin, cos))
    }

    fn intrinsic(
        &mut self,
        op: Intrinsic,
        args: &[Value],
        rty: Option<Type>,
    ) -> Result<Option<cl::Value>, BackendError> {
        use Intrinsic::*;
        let (fixed, _) = op.signature();
        if args.len() < fixed.len() || (!op.is_variadic() && args.len() != fixed.len()) {
            return Err(self.err(format!("`{}` with {} arguments", op.name(), args.len())));
        }
        let a = self.vals(args)?;
        let float_ty = rty.unwrap_or(Type::F64);
        let dim = |d: parc_ir::Dim| d.index() as i64;
        Ok(match op {
            Sqrt => Some(self.b.ins().sqrt(a[0])),
            Fabs => Some(self.b.ins().fabs(a[0])),
            Floor => Some(self.b.ins().floor(a[0])),
            Ceil => Some(self.b.ins().ceil(a[0])),
            Fmin | Fmax => {
                // C: a NaN operand is ignored (CLIF's fmin/fmax propagate it).
                let (x, y) = (a[0], a[1]);
                let m = if op == Fmin {
                    self.b.ins().fmin(x, y)
                } else {
                    self.b.ins().fmax(x, y)
                };
                let x_nan = self.b.ins().fcmp(condcodes::FloatCC::Unordered, x, x);
                let y_nan = self.b.ins().fcmp(condcodes::FloatCC::Unordered, y, y);
                let m = self.b.ins().select(x_nan, y, m);
                Some(self.b.ins().select(y_nan, x, m))
            }
            Sin | Cos if self.sincos_args.contains(&args[0]) => {
                let (sin, cos) = match self.sincos.get(&args[0]) {
                    Some(&pair) => pair,
                    None => {
                        let pair = self.sincos_call(a[0], float_ty)?;
                        self.sincos.insert(args[0], pair);
                        pair
                    }
                };
                Some(if op == Sin { sin } else { cos })
            }
            Trunc => Some(self.b.ins().trunc(a[0])),
            Exp | Log | Pow | Sin | Cos | Tan | Tanh | Atan | Atan2 | Asin | Acos | Sinh | Cosh
            | Asinh | Acosh | Atanh | Log10 | Log2 | Exp2 | Cbrt | Fmod | Round | Hypot | Erf => {
                let e = ix::libm_fn(op, float_ty).expect("a libm function");
                self.call_extern(&e, &a)?
            }
            Abs | Labs => {
                let x = a[0];
                let ct = self.b.func.dfg.value_type(x);
                let zero = self.b.ins().iconst(ct, 0);
                let neg = self.b.ins().isub(zero, x);
                let is_neg = self.b.ins().icmp(condcodes::IntCC::SignedLessThan, x, zero);
                Some(self.b.ins().select(is_neg, neg, x))
            }
            Malloc => self.call_extern(&ix::RT_MALLOC, &a)?,
            Calloc => self.call_extern(&ix::RT_CALLOC, &a)?,
            Realloc => self.call_extern(&ix::RT_REALLOC, &a)?,
            Free => self.call_extern(&ix::C_FREE, &a)?,
            Memcpy => {
                match self.f.const_int(args[2]) {
                    Some(n) if (0..=i64::from(INLINE_COPY_MAX)).contains(&n) => {
                        self.inline_copy(a[0], a[1], n as u32)
                    }
                    _ => {
                        self.call_extern(&ix::C_MEMCPY, &a)?;
                    }
                }
                None
            }
            Memset => {
                match (self.f.const_int(args[1]), self.f.const_int(args[2])) {
                    (Some(byte), Some(n)) if (0..=i64::from(INLINE_ZERO_MAX)).contains(&n) => {
                        self.inline_fill(a[0], byte as u8, n as u32)
                    }
                    _ => {
                        self.call_extern(&ix::C_MEMSET, &a)?;
                    }
                }
                None
            }
            Printf => Some(self.printf(args, &a)?),
            Atoi => self.call_extern(&ix::C_ATOI, &a)?,
            Atol => self.call_extern(&ix::C_ATOL, &a)?,
            Atof => self.call_extern(&ix::C_ATOF, &a)?,
            Strcmp => self.call_extern(&ix::C_STRCMP, &a)?,
            Exit => self.call_extern(&ix::RT_EXIT, &a)?,
            RuntimeError => {
                let loc = self.loc();
                let name_id = self.cx.name_string(self.m, loc.func.unwrap_or(self.id))?;
                let name = self.data_addr(name_id);
                let line = iconst(&mut self.b, types::I32, i64::from(loc.line));
                let col = iconst(&mut self.b, types::I32, i64::from(loc.col));
                let message = *a
                    .first()
                    .ok_or_else(|| self.err("`runtime_error` needs its message"))?;
                self.call_extern(&ix::RT_FAULT_MSG, &[message, name, line, col])?
            }
            Wtime => self.call_extern(&ix::RT_WTIME, &[])?,
            WorkerId => match self.worker_id {
                Some(w) => Some(w),
                None => self.call_extern(&ix::RT_WORKER_ID, &[])?,
            },
            NumWorkers => self.call_extern(&ix::RT_NUM_WORKERS, &[])?,
            ThreadIdx(d) | BlockIdx(d) | BlockDim(d) | GridDim(d) => {
                let e = match op {
                    ThreadIdx(_) => &ix::RT_THREAD_IDX,
                    BlockIdx(_) => &ix::RT_BLOCK_IDX,
                    BlockDim(_) => &ix::RT_BLOCK_DIM,
                    _ => &ix::RT_GRID_DIM,
                };
                let d = self.b.ins().iconst(types::I32, dim(d));
                self.call_extern(e, &[d])?
            }
            Barrier => self.call_extern(&ix::RT_BARRIER, &[])?,
            AtomicAdd => match self.ty(args[1]) {
                ty @ (Type::F32 | Type::F64) => Some(self.float_atomic_add(ty, a[0], a[1])),
                ty => {
                    let ct = clif_type(ty);
                    Some(self.b.ins().atomic_rmw(
                        ct,
                        MemFlagsData::new(),
                        cl::AtomicRmwOp::Add,
                        a[0],
                        a[1],
                    ))
                }
            },
            CudaMalloc => self.call_extern(&ix::RT_CUDA_MALLOC, &a)?,
            CudaMemcpy(_) => self.call_extern(&ix::RT_CUDA_MEMCPY, &a)?,
            CudaFree => self.call_extern(&ix::RT_CUDA_FREE, &a)?,
            CudaDeviceSynchronize => self.call_extern(&ix::RT_CUDA_SYNC, &[])?,
        })
    }

    /// `atomicAdd` of a float: a compare-and-swap loop on the bits, inline
    /// (hardware has no float fetch-add; a call would cost as much as the
    /// loop when uncontended, which is the common case in adjoint code).
    /// Returns the old value. A null pointer faults in the first load.
    fn float_atomic_add(&mut self, ty: Type, p: cl::Value, v: cl::Value) -> cl::Value {
        let (ft, it) = match ty {
            Type::F32 => (types::F32, types::I32),
            _ => (types::F64, types::I64),
        };
        let first = self.b.ins().load(it, MemFlagsData::new(), p, 0);
        let retry = self.b.create_block();
        let cur = self.b.append_block_param(retry, it);
        let done = self.b.create_block();
        let old = self.b.append_block_param(done, it);
        self.b.ins().jump(retry, &[BlockArg::Value(first)]);
        self.b.switch_to_block(retry);
        let f = self.b.ins().bitcast(ft, MemFlagsData::new(), cur);
        let sum = self.b.ins().fadd(f, v);
        let bits = self.b.ins().bitcast(it, MemFlagsData::new(), sum);
        let seen = self.b.ins().atomic_cas(MemFlagsData::new(), p, cur, bits);
        let same = self.b.ins().icmp(condcodes::IntCC::Equal, seen, cur);
        self.b.ins().brif(
            same,
            done,
            &[BlockArg::Value(cur)],
            retry,
            &[BlockArg::Value(seen)],
        );
        self.b.switch_to_block(done);
        self.b.ins().bitcast(ft, MemFlagsData::new(), old)
    }

    /// `printf` through `parc_rt_printf` (see the module doc).
    fn printf(&mut self, args: &[Value], a: &[cl::Value]) -> Result<cl::Value, BackendError> {
        let n = args.len() - 1;
        let (slots, kinds) = if n == 0 {
            let null = self.b.ins().iconst(types::I64, 0);
            (null, null)
        } else {
            let vals = self.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                (8 * n) as u32,
                3,
            ));
            let kinds = self.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                n as u32,
                0,
            ));
            for k in 0..n {
                let ty = self.ty(args[k + 1]);
                let v = a[k + 1];
                let (bits, kind) = match ty {
                    Type::F32 => {
                        let d = self.b.ins().fpromote(types::F64, v);
                        (self.b.ins().bitcast(types::I64, MemFlagsData::new(), d), 1)
                    }
                    Type::F64 => (to_slot(&mut self.b, v, ty), 1),
                    Type::Ptr => (v, 2),
                    _ => (to_slot(&mut self.b, v, ty), 0),
                };
                self.b
                    .ins()
                    .stack_store(types::I64, bits, vals, (8 * k) as i32);
                let kind = self.b.ins().iconst(types::I8, kind);
                self.b.ins().stack_store(types::I64, kind, kinds, k as i32);
            }
            (
                self.b.ins().stack_addr(types::I64, vals, 0),
                self.b.ins().stack_addr(types::I64, kinds, 0),
            )
        };
        let count = self.b.ins().iconst(types::I32, n as i64);
        let r = self.call_extern(&ix::RT_PRINTF, &[a[0], slots, kinds, count])?;
        Ok(r.expect("printf returns a value"))
    }

    /// A kernel launch (see the module doc's launch ABI).
    fn launch(
        &mut self,
        kernel: FuncId,
        grid: &[Value; 3],
        block: &[Value; 3],
        args: &[Value],
    ) -> Result<(), BackendError> {
        let block_launch = self.cx.block_launches.get(&kernel).copied();
        let entry = match block_launch {
            Some(l) => self.cx.funcs[l.block_fn.as_u32() as usize]
                .ok_or_else(|| self.err("a block function that was not declared"))?,
            None => *self
                .cx
                .kernel_entries
                .get(&kernel)
                .ok_or_else(|| self.err("launch of a function that is not a defined kernel"))?,
        };
        let k = &self.cx.ir.funcs[kernel];
        if k.sig.params.len() != args.len() {
            return Err(self.err(format!(
                "launch of `{}` with {} arguments for {} parameters",
                k.name,
                args.len(),
                k.sig.params.len()
            )));
        }
        let dims = self.vals(&[grid.as_slice(), block.as_slice()].concat())?;

        // Every dimension at least 1, at most 1024 threads per block.
        let one = self.b.ins().iconst(types::I32, 1);
        let mut bad = None;
        for &d in &dims {
            let lt = self.b.ins().icmp(condcodes::IntCC::SignedLessThan, d, one);
            bad = Some(match bad {
                None => lt,
                Some(acc) => self.b.ins().bor(acc, lt),
            });
        }
        let mut threads = self.b.ins().sextend(types::I64, dims[3]);
        for &d in &dims[4..6] {
            let w = self.b.ins().sextend(types::I64, d);
            threads = self.b.ins().imul(threads, w);
        }
        let max = self.b.ins().iconst(types::I64, MAX_THREADS_PER_BLOCK);
        let too_many = self
            .b
            .ins()
            .icmp(condcodes::IntCC::SignedGreaterThan, threads, max);
        let bad = self.b.ins().bor(bad.expect("six dimensions"), too_many);
        let ok = self.b.ins().bxor_imm_u(bad, 1);
        self.fault_unless(ok, FAULT_LAUNCH)?;

        let cfg =
            self.b
                .create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 24, 2));
        for (i, &d) in dims.iter().enumerate() {
            self.b.ins().stack_store(types::I64, d, cfg, (4 * i) as i32);
        }
        let arg_ptr = if args.is_empty() {
            self.b.ins().iconst(types::I64, 0)
        } else {
            let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                (8 * args.len()) as u32,
                3,
            ));
            for (i, &v) in args.iter().enumerate() {
                let ty = self.ty(v);
                let x = self.val(v)?;
                let bits = to_slot(&mut self.b, x, ty);
                self.b
                    .ins()
                    .stack_store(types::I64, bits, slot, (8 * i) as i32);
            }
            self.b.ins().stack_addr(types::I64, slot, 0)
        };
        let grid_ptr = self.b.ins().stack_addr(types::I64, cfg, 0);
        let block_ptr = self.b.ins().stack_addr(types::I64, cfg, 12);
        let eref = self.func_ref(entry);
        let entry_addr = self.b.ins().func_addr(types::I64, eref);
        // On the GPU when the runtime chose one and the launch's memory
        // is the GPU's (see the runtime's `cuda`); on the CPU otherwise.
        let desc_id = self.cx.launch_desc(self.m, kernel)?;
        let desc = self.data_addr(desc_id);
        let on_gpu = self
            .call_extern(&ix::RT_GPU_LAUNCH, &[desc, arg_ptr, grid_ptr, block_ptr])?
            .ok_or_else(|| self.err("parc_rt_gpu_launch returns a value"))?;
        let on_cpu = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().brif(on_gpu, done, &[], on_cpu, &[]);
        self.b.switch_to_block(on_cpu);
        let shared = self
            .b
            .ins()
            .iconst(types::I64, self.cx.shared_extent(kernel) as i64);
        match block_launch {
            Some(l) => {
                let frame = self.b.ins().iconst(types::I64, l.frame_bytes as i64);
                self.call_extern(
                    &ix::RT_LAUNCH_BLOCKS,
                    &[entry_addr, arg_ptr, grid_ptr, block_ptr, shared, frame],
                )?;
            }
            None => {
                self.call_extern(
                    &ix::RT_LAUNCH,
                    &[entry_addr, arg_ptr, grid_ptr, block_ptr, shared],
                )?;
            }
        }
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        Ok(())
    }
}

fn int_cc(cc: IntCC) -> condcodes::IntCC {
    use condcodes::IntCC as C;
    match cc {
        IntCC::Eq => C::Equal,
        IntCC::Ne => C::NotEqual,
        IntCC::Slt => C::SignedLessThan,
        IntCC::Sle => C::SignedLessThanOrEqual,
        IntCC::Sgt => C::SignedGreaterThan,
        IntCC::Sge => C::SignedGreaterThanOrEqual,
        IntCC::Ult => C::UnsignedLessThan,
        IntCC::Ule => C::UnsignedLessThanOrEqual,
        IntCC::Ugt => C::UnsignedGreaterThan,
        IntCC::Uge => C::UnsignedGreaterThanOrEqual,
    }
}

/// C's comparison operators: ordered, except `!=` (true on NaN).
fn float_cc(cc: FloatCC) -> condcodes::FloatCC {
    use condcodes::FloatCC as C;
    match cc {
        FloatCC::Eq => C::Equal,
        FloatCC::Ne => C::NotEqual,
        FloatCC::Lt => C::LessThan,
        FloatCC::Le => C::LessThanOrEqual,
        FloatCC::Gt => C::GreaterThan,
        FloatCC::Ge => C::GreaterThanOrEqual,
    }
}

#[cfg(test)]
mod threading_tests {
    use super::invariants_to_thread;
    use parc_ir::analysis::{cfg::ControlFlowGraph, dom::DominatorTree, loops::LoopAnalysis};
    use parc_ir::interp::{Config, Interp, Val};
    use parc_ir::{Block, FuncId, Value};

    fn loops_of(f: &parc_ir::Function) -> LoopAnalysis {
        let cfg = ControlFlowGraph::compute(f);
        let dom = DominatorTree::compute(&cfg);
        LoopAnalysis::compute(&cfg, &dom)
    }

    /// `for (i = 0; i < n - 1; i++) s += p[2] + n * 3;` with `n - 1`,
    /// `n * 3` and `p + 8` hoisted: the bound `n - 1` goes to the header;
    /// `p + 8` does not, as the load reads `p` displaced by 8 (see
    /// `displaced`), nor do `n * 3` (not a remat pattern) and `i + 1`
    /// (defined in the loop); `p + 8` stored is a value like any other.
    #[test]
    fn loop_invariant_constant_ops_are_threaded_through_the_header() {
        let m = parc_ir::read::read_module(
            "func @f(ptr, i32) -> i32 {
             block0(v0: ptr, v1: i32):
                 v2 = iconst.i32 1
                 v3 = isub v1, v2
                 v4 = iconst.i32 3
                 v5 = imul v1, v4
                 v6 = iconst.i64 8
                 v7 = ptradd v0, v6
                 v8 = iconst.i32 0
                 jump block1(v8, v8)
             block1(v9: i32, v10: i32):
                 v11 = icmp slt v9, v3
                 brif v11, block2, block3
             block2:
                 v12 = load.i32 v7
                 v13 = iadd v10, v12
                 v14 = iadd v13, v5
                 v15 = iadd v9, v2
                 jump block1(v15, v14)
             block3:
                 return v10
             }",
        )
        .expect("reads");
        let f = &m.funcs[FuncId::from_u32(0)];
        let loops = loops_of(f);
        assert_eq!(
            invariants_to_thread(f, &loops),
            [(Block::from_u32(1), vec![Value::from_u32(3)])]
        );
        // Stored, `p + 8` is a value the loop uses.
        let text = parc_ir::print::print_module(&m)
            .replace("v12 = load.i32 v7", "v12 = load.i32 v0\n    store v7, v0");
        let m = parc_ir::read::read_module(&text).expect("reads");
        let f = &m.funcs[FuncId::from_u32(0)];
        let loops = loops_of(f);
        assert_eq!(
            invariants_to_thread(f, &loops),
            [(
                Block::from_u32(1),
                vec![Value::from_u32(3), Value::from_u32(7)]
            )]
        );
    }

    /// Float constants defined in the entry block, used in an inner and an
    /// outer loop: `0.25 / s`, `-0.0 - x` and `3.0 * x` in the inner loop
    /// and `1.0 - s` in the outer one ride through the headers of the
    /// loops that use them (the inner header gets the three the inner loop
    /// uses, the outer header all four); `x + 0.0` (+0.0 is cheap to make)
    /// and a constant defined in the loop (`2.0`) do not. The JIT's
    /// results, where the carried values cross the back edges as `-(-x)`,
    /// match the interpreter's bit for bit (`-0.0`, infinities and NaN
    /// included).
    #[test]
    fn loop_invariant_float_constants_are_threaded_through_the_header() {
        let m = parc_ir::read::read_module(
            "func @f(i32, f64) -> f64 {
             block0(v0: i32, v1: f64):
                 v2 = fconst.f64 0.25
                 v3 = fconst.f64 -0.0
                 v4 = fconst.f64 1.0
                 v20 = fconst.f64 0.0
                 v21 = fconst.f64 3.0
                 v5 = iconst.i32 0
                 v6 = iconst.i32 1
                 jump block1(v5, v1)
             block1(v7: i32, v8: f64):
                 v9 = icmp slt v7, v0
                 brif v9, block2(v5, v8), block5
             block2(v10: i32, v11: f64):
                 v12 = icmp slt v10, v7
                 brif v12, block3, block4
             block3:
                 v13 = fdiv v2, v11
                 v14 = fsub v3, v13
                 v15 = fconst.f64 2.0
                 v16 = fmul v21, v14
                 v22 = fadd v16, v20
                 v23 = fmul v22, v15
                 v17 = iadd v10, v6
                 jump block2(v17, v23)
             block4:
                 v18 = fsub v4, v11
                 v19 = iadd v7, v6
                 jump block1(v19, v18)
             block5:
                 return v8
             }",
        )
        .expect("reads");
        let f = &m.funcs[FuncId::from_u32(0)];
        let loops = loops_of(f);
        let v = Value::from_u32;
        assert_eq!(
            invariants_to_thread(f, &loops),
            [
                (Block::from_u32(1), vec![v(2), v(3), v(21), v(4)]),
                (Block::from_u32(2), vec![v(2), v(3), v(21)]),
            ]
        );
        let jit = crate::jit::JitProgram::compile(&m, parc_ir::OptLevel::O2).expect("compiles");
        let p = jit.function("f").expect("compiled");
        // SAFETY: `@f` is `(i32, f64) -> f64` with the C calling convention.
        let run: extern "C" fn(i32, f64) -> f64 = unsafe { std::mem::transmute(p) };
        for (n, x) in [
            (0, 3.0),
            (1, -0.0),
            (4, 3.0),
            (7, -5.5),
            (3, f64::NAN),
            (2, 0.0),
            (5, f64::INFINITY),
        ] {
            let mut it = Interp::new(&m, Config::default()).expect("interp");
            let want = it
                .call(FuncId::from_u32(0), &[Val::I(n), Val::F64(x)])
                .expect("runs")
                .value()
                .and_then(|v| v.as_f64())
                .expect("a double");
            assert_eq!(run(n as i32, x).to_bits(), want.to_bits(), "n={n} x={x}");
        }
    }
}
