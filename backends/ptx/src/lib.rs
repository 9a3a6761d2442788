//! parc's PTX backend: parir → PTX text (ISA 7.8) for NVIDIA GPUs.
//!
//! # What is emitted
//!
//! [`emit`] translates every kernel of a module and every function a
//! kernel reaches through calls (`__device__` functions, plain functions
//! called from kernels, the gradient kernels `k.fwd`/`k.bwd` and the
//! bodies they call) into one PTX module for [`PtxOptions::arch`]
//! (`sm_70`, `sm_80` or `sm_90`). Host code is not translated: it stays
//! native (the CPU backend), and launches reach the GPU through the
//! runtime, which loads this text with the CUDA driver.
//!
//! - Kernels are `.visible .entry` functions, everything else `.func`
//!   with the PTX calling convention (`.param` space, `call`); names are
//!   [`symbol`] of parir's (`.` is not a PTX identifier character).
//! - `__shared__` globals are module-scope `.shared` arrays (one per
//!   block); other globals device code uses (string literals, constant
//!   tables) are `.global` arrays with their initial bytes. A kernel that
//!   uses shared memory zeroes it at entry, as the CPU runtime and the
//!   interpreter give every block zeroed shared memory.
//! - Values are virtual registers, one per parir value (`%p` for `i1`,
//!   `%rs` 16-bit for `i8`, `%r` for `i32`, `%rd` for `i64` and `ptr`,
//!   `%f`/`%fd` for floats); block parameters are registers assigned on
//!   each edge (PTX registers are not SSA). Memory accesses use the
//!   state space that [`space`] proves (`ld.global`, `ld.shared`,
//!   `ld.local`), generic addressing otherwise, and always at `-O0`
//!   ([`PtxOptions::opt_level`]).
//! - Floating arithmetic is IEEE with explicit rounding (`add.rn` ...),
//!   which PTX never contracts into fused multiply-adds: results equal
//!   the CPU's bit for bit. `sqrt fabs fmin fmax floor ceil` are
//!   instructions; the other math functions call the device math library
//!   (`device_math`), linked into the module first.
//! - `__syncthreads` is `barrier.sync 0`, the form that is correct
//!   whether or not the warp is converged when its threads arrive (a
//!   barrier inside a loop or a branch whose condition differs between a
//!   warp's threads).
//! - Run-time errors the CPU reports (integer division by zero, falling
//!   off a non-void function, the device heap exhausted) print the same
//!   message through `vprintf` and `trap`: the launch fails, and the
//!   runtime ends the program with the driver's error.
//!
//! # What is refused
//!
//! A construct device code cannot contain on the GPU is a [`PtxError`]
//! naming it and its source position, never invalid PTX: a call of a
//! function defined outside the module, function addresses, `exit`,
//! the C library functions (`Intrinsic::C`), the CUDA memory calls,
//! launches, Tapir terminators, the host runtime's worker ids,
//! globals holding addresses, and vector values (which the verifier
//! already keeps out of device code: the loop vectorizer is for the CPU).

mod func;
mod helpers;
pub mod math;
pub mod space;

pub use parc_ir::OptLevel;
use parc_ir::{AddrSpace, FuncId, FuncKind, GlobalId, InstKind, Linkage, Module, SrcLoc};
use std::collections::{BTreeSet, HashMap};
use std::fmt::{self, Write};

/// The GPU architectures parc emits PTX for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GpuArch {
    /// Volta (the default): independent thread scheduling, `f64` atomics.
    #[default]
    Sm70,
    /// Ampere.
    Sm80,
    /// Hopper.
    Sm90,
}

impl GpuArch {
    pub const ALL: [GpuArch; 3] = [GpuArch::Sm70, GpuArch::Sm80, GpuArch::Sm90];

    /// The `.target` name, `sm_70` ...
    pub fn name(self) -> &'static str {
        match self {
            GpuArch::Sm70 => "sm_70",
            GpuArch::Sm80 => "sm_80",
            GpuArch::Sm90 => "sm_90",
        }
    }

    pub fn from_name(name: &str) -> Option<GpuArch> {
        GpuArch::ALL.into_iter().find(|a| a.name() == name)
    }

    /// The architecture a device of compute capability `major.minor` runs
    /// best: the newest of ours it supports (`None` below 7.0).
    pub fn for_capability(major: i32, minor: i32) -> Option<GpuArch> {
        let cc = major * 10 + minor;
        GpuArch::ALL
            .into_iter()
            .rev()
            .find(|a| cc >= a.capability())
    }

    /// The compute capability as `10 * major + minor`.
    pub fn capability(self) -> i32 {
        match self {
            GpuArch::Sm70 => 70,
            GpuArch::Sm80 => 80,
            GpuArch::Sm90 => 90,
        }
    }
}

/// How the PTX backend translates a module (the shape of
/// `parc_cpu::Options`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PtxOptions {
    pub arch: GpuArch,
    /// At `-O0` the backend translates without optimizing, as the CPU
    /// backend does: it proves no state space, so every access through a
    /// pointer is generic (`ld`, `st`, `atom` without `.global`,
    /// `.shared` or `.local`; frame slots stay `.local`), the direct
    /// translation against which the state-space proof (`space`) can be
    /// checked. Any other level proves spaces. The level does not reach
    /// the CUDA driver's JIT, which optimizes the PTX at its default
    /// level either way.
    pub opt_level: OptLevel,
}

/// A construct the PTX backend cannot emit, at its source position.
#[derive(Clone, Debug, PartialEq)]
pub struct PtxError {
    /// The function it is in (the source function, where inlining moved
    /// it).
    pub function: String,
    pub loc: SrcLoc,
    /// Names the construct, e.g. "a call to `extern` function `f`".
    pub message: String,
}

impl fmt::Display for PtxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot run `{}` on the GPU: {}",
            self.function, self.message
        )
    }
}

impl std::error::Error for PtxError {}

/// True if the module defines a kernel.
pub fn has_kernels(module: &Module) -> bool {
    module
        .funcs
        .values()
        .any(|f| f.kind == FuncKind::Kernel && !f.is_declaration())
}

/// The PTX name of the parir function or kernel `name`: `.` (in generated
/// names such as `k.fwd`) becomes `$`, which no ParC name contains; names
/// the PTX module declares for itself get a prefix.
pub fn symbol(name: &str) -> String {
    let mangled = name.replace('.', "$");
    if helpers::RESERVED.contains(&mangled.as_str()) {
        format!("$f${mangled}")
    } else {
        mangled
    }
}

/// The PTX name of global `name` (a namespace apart from functions').
pub fn global_symbol(name: &str) -> String {
    format!("$g${}", name.replace('.', "$"))
}

/// The functions the module's kernels reach through calls, kernels
/// first, in module order.
pub fn device_functions(module: &Module) -> Vec<FuncId> {
    let mut seen: BTreeSet<FuncId> = BTreeSet::new();
    let mut stack: Vec<FuncId> = module
        .funcs
        .iter()
        .filter(|(_, f)| f.kind == FuncKind::Kernel && !f.is_declaration())
        .map(|(id, _)| id)
        .collect();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let f = &module.funcs[id];
        for (_, i) in f.placed_insts() {
            if let InstKind::Call { func, .. } = f.inst(i)
                && !seen.contains(func)
            {
                stack.push(*func);
            }
        }
    }
    let mut order: Vec<FuncId> = seen.into_iter().collect();
    order.sort_by_key(|&id| (module.funcs[id].kind != FuncKind::Kernel, id));
    order
}

/// The PTX text of the module's kernels and the functions they call (see
/// the crate doc). A module without kernels gives a module without
/// entries; ask [`has_kernels`] first where that deserves a message.
pub fn emit(module: &Module, options: &PtxOptions) -> Result<String, PtxError> {
    let funcs = device_functions(module);
    let mut cx = ModuleCx::new(module, options.opt_level);
    let mut bodies = Vec::new();
    for &id in &funcs {
        let f = &module.funcs[id];
        if f.is_declaration() || f.linkage == Linkage::Import {
            return Err(PtxError {
                function: f.name.clone(),
                loc: SrcLoc::default(),
                message: format!(
                    "`{}` is defined outside this program (an `extern` function), and kernels can call only functions defined in it",
                    f.name
                ),
            });
        }
        bodies.push(func::emit_function(&mut cx, id)?);
    }
    let oom = cx.needs.malloc.then(|| cx.message(helpers::OOM_MESSAGE));
    let mut out = String::new();
    let _ = writeln!(
        out,
        "//\n// Generated by parc {}\n//\n",
        env!("CARGO_PKG_VERSION")
    );
    let _ = writeln!(out, ".version 7.8");
    let _ = writeln!(out, ".target {}", options.arch.name());
    let _ = writeln!(out, ".address_size 64\n");
    for decl in helpers::declarations(&cx.needs) {
        out.push_str(&decl);
    }
    cx.emit_globals(&mut out)?;
    for &id in &funcs {
        let f = &module.funcs[id];
        if f.kind != FuncKind::Kernel {
            let _ = writeln!(out, "{};", func::prototype(module, id));
        }
    }
    out.push('\n');
    for body in helpers::definitions(&cx.needs, oom.as_deref()) {
        out.push_str(&body);
        out.push('\n');
    }
    for body in bodies {
        out.push_str(&body);
        out.push('\n');
    }
    Ok(out)
}

/// What the device runtime helpers a module needs (see `helpers`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Needs {
    pub vprintf: bool,
    pub malloc: bool,
}

/// Module-wide state of one emission: the globals device code uses, the
/// messages of run-time errors, the helpers needed.
pub(crate) struct ModuleCx<'m> {
    pub module: &'m Module,
    pub opt_level: OptLevel,
    pub used_globals: BTreeSet<GlobalId>,
    /// Run-time error messages, by text: their global's symbol.
    messages: HashMap<String, String>,
    message_order: Vec<(String, String)>,
    pub needs: Needs,
}

impl<'m> ModuleCx<'m> {
    fn new(module: &'m Module, opt_level: OptLevel) -> ModuleCx<'m> {
        ModuleCx {
            module,
            opt_level,
            used_globals: BTreeSet::new(),
            messages: HashMap::new(),
            message_order: Vec::new(),
            needs: Needs::default(),
        }
    }

    /// The symbol of a `.global` C string holding `text` (a `vprintf`
    /// format: `%` is doubled).
    pub fn message(&mut self, text: &str) -> String {
        self.raw_message(&text.replace('%', "%%"))
    }

    /// The symbol of a `.global` C string holding the `vprintf` format
    /// `format` as it is.
    pub fn raw_message(&mut self, format: &str) -> String {
        let format = format.to_string();
        if let Some(sym) = self.messages.get(&format) {
            return sym.clone();
        }
        let sym = format!("$msg${}", self.message_order.len());
        self.messages.insert(format.clone(), sym.clone());
        self.message_order.push((sym.clone(), format));
        self.needs.vprintf = true;
        sym
    }

    fn emit_globals(&self, out: &mut String) -> Result<(), PtxError> {
        for &g in &self.used_globals {
            let data = &self.module.globals[g];
            let sym = global_symbol(&data.name);
            if data.space == AddrSpace::Shared {
                // Whole 4-byte words, so that kernels zero them word by
                // word.
                let _ = writeln!(
                    out,
                    ".shared .align {} .b8 {sym}[{}];",
                    data.align.max(4),
                    data.size.max(1).next_multiple_of(4)
                );
                continue;
            }
            if !data.relocs.is_empty() {
                return Err(PtxError {
                    function: String::new(),
                    loc: SrcLoc::default(),
                    message: format!(
                        "the global `{}` holds addresses of other globals, which device code cannot use",
                        data.name
                    ),
                });
            }
            if let Some(&(_, f)) = data.func_relocs.first() {
                return Err(PtxError {
                    function: String::new(),
                    loc: SrcLoc::default(),
                    message: format!(
                        "the global `{}` holds the address of function `{}`, which device code cannot call through; initialize it on the host or call the function directly",
                        data.name, self.module.funcs[f].name
                    ),
                });
            }
            let _ = write!(
                out,
                ".global .align {} .b8 {sym}[{}]",
                data.align,
                data.size.max(1)
            );
            if data.init.iter().any(|&b| b != 0) {
                let bytes: Vec<String> = (0..data.size.max(1) as usize)
                    .map(|i| data.init.get(i).copied().unwrap_or(0).to_string())
                    .collect();
                let _ = write!(out, " = {{{}}}", bytes.join(", "));
            }
            out.push_str(";\n");
        }
        for (sym, text) in &self.message_order {
            let mut bytes: Vec<String> = text.bytes().map(|b| b.to_string()).collect();
            bytes.push("0".into());
            let _ = writeln!(
                out,
                ".global .align 1 .b8 {sym}[{}] = {{{}}};",
                bytes.len(),
                bytes.join(", ")
            );
        }
        out.push('\n');
        Ok(())
    }
}

#[cfg(test)]
mod tests;
