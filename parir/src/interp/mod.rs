//! The reference interpreter: the semantic oracle of the whole compiler.
//!
//! It executes the **serial projection** of a [`Module`]: a `detach` runs
//! its task to the task's `reattach` and then continues at the detach's
//! continuation; a `sync` simply continues (every task detached before it
//! has already finished). Tasks are blocks of the function that detaches
//! them, so they share its frame and its SSA values; each frame keeps the
//! continuations of the detaches it is inside, and a `reattach` must name
//! the innermost one (a `return` inside a task is an error): this catches
//! task structure the verifier should have rejected.
//!
//! # Machine
//!
//! Calls do not use Rust recursion: a thread (`exec.rs`) is a `Vec` of
//! frames, so deep user recursion cannot overflow parc's own stack and is
//! reported at [`Config::max_call_depth`] ("stack overflow"). A frame holds
//! one `u64` register per SSA value of its function, indexed by the value's
//! number:
//! - integers are kept sign-extended from their width (`i8`/`i32` as in
//!   [`sign_extend`](crate::sign_extend)), `i1` is 0 or 1, and every integer
//!   operation wraps and re-canonicalizes; shift amounts are taken modulo
//!   the width; division by zero is an error and `MIN / -1` wraps;
//! - `f32` values are their IEEE bits in the low 32 bits, `f64` their bits;
//!   float arithmetic is Rust's, i.e. IEEE-754 with no fusing, and
//!   float-to-integer casts saturate (NaN gives 0);
//! - pointers are addresses in the encoding below.
//!
//! # Memory
//!
//! Checked (`memory.rs`). Every allocation — `alloca`, `malloc`/`calloc`/
//! `cuda_malloc`, each global, each block's instance of a `__shared__`
//! global, the `argv` strings — is an object with its own bytes, a kind
//! and an allocation site. A pointer is `(slot + 1) << 32 | (offset + 2^31)`:
//! null and everything within 4 GiB of it is the null page, offsets from
//! -2^31 to 2^31 still name their object (so faults say "offset -8 of ..."),
//! and pointer arithmetic, differences, comparisons, `ptrtoint` and
//! `inttoptr` work as on real addresses within an object. All memory starts
//! zeroed (`malloc`'s too), is little-endian, and dies when freed, when its
//! function returns (stack), or when its block ends (shared); dead slots are
//! quarantined for 65536 deaths before reuse. Every fault (null, freed,
//! returned stack memory, out of bounds, read-only, double or invalid free,
//! out of memory) is a [`RunError`] naming the function and source position
//! of the faulting instruction and describing the object with its
//! allocation site.
//!
//! # GPU kernels
//!
//! A `launch` runs the grid's blocks one after another (x fastest). The
//! threads of a block are coroutines, each with its own frame stack: thread
//! 0 runs until it reaches a barrier or finishes, then thread 1, and so on;
//! when all are waiting at the *same* barrier instruction they are released
//! together, and anything else (some finished, or waiting at different
//! barriers) is reported as barrier divergence. `__shared__` globals get a
//! fresh zeroed instance per block, which dies with the block (`gpu.rs`).
//!
//! # C library
//!
//! `printf`, `atoi`, `atol`, `atof` and `strcmp` go through the host libc
//! (`clib.rs`, formats through `parc-cformat`) so output matches gcc-built programs byte for byte;
//! `sscanf`/`fscanf` scan through `parc-cformat` too (`scanf.rs`); the
//! math intrinsics are Rust's `f64`/`f32` methods, which call the system
//! libm. Output goes to the writer given to [`run_main`] /
//! [`Interp::with_output`], or is captured ([`Interp::stdout`]).

mod callback;
mod clib;
mod clock;
mod cstring;
mod exec;
mod files;
mod getopt;
mod gpu;
mod lanes;
mod memory;
mod scanf;
#[cfg(test)]
mod tests;

use crate::entities::{FuncId, GlobalId, Inst};
use crate::function::{AddrSpace, Module, SrcLoc};
use crate::types::Type;
use cranelift_entity::EntityRef;
use exec::{Frame, Stop, Thread};
use memory::{Kind, MemFault, Memory, Site, State};
use std::fmt;
use std::io::Write;

/// Limits and inputs of a run.
#[derive(Clone, Debug)]
pub struct Config {
    /// The command line, `argv[0]` included. Empty means `argv[0]` is the
    /// module's source name (or `a.out`) and there are no arguments.
    pub args: Vec<String>,
    /// Stop with an error after this many instructions (`None`: never).
    pub max_steps: Option<u64>,
    /// Deepest call stack (per thread) before "stack overflow".
    pub max_call_depth: usize,
    /// Most bytes live at once, all objects together.
    pub max_memory: u64,
    /// Print the gradient tape's peak bytes on stderr when `main` ends
    /// (`PARC_AD_STATS`; see [`TapeStats`]).
    pub ad_stats: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            args: Vec::new(),
            max_steps: None,
            max_call_depth: 1_000_000,
            max_memory: 4 << 30,
            ad_stats: false,
        }
    }
}

/// A value passed to or returned from [`Interp::call`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Val {
    /// Any integer type (`i1`, `i8`, `i32`, `i64`); truncated to the
    /// parameter's width on the way in, sign-extended on the way out.
    I(i64),
    F32(f32),
    F64(f64),
    /// An interpreter address (see [`Interp::alloc`]).
    Ptr(u64),
}

impl Val {
    pub fn as_i64(self) -> Option<i64> {
        match self {
            Val::I(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_f64(self) -> Option<f64> {
        match self {
            Val::F64(v) => Some(v),
            Val::F32(v) => Some(v as f64),
            _ => None,
        }
    }

    pub fn as_ptr(self) -> Option<u64> {
        match self {
            Val::Ptr(v) => Some(v),
            _ => None,
        }
    }

    /// The register form for a parameter of type `ty`, if the kinds agree.
    fn to_bits(self, ty: Type) -> Option<u64> {
        match (self, ty) {
            (Val::I(v), Type::I1 | Type::I8 | Type::I16 | Type::I32 | Type::I64) => {
                Some(crate::sign_extend(v, ty) as u64)
            }
            (Val::F32(v), Type::F32) => Some(v.to_bits() as u64),
            (Val::F64(v), Type::F64) => Some(v.to_bits()),
            (Val::Ptr(v), Type::Ptr) => Some(v),
            _ => None,
        }
    }

    fn from_bits(bits: u64, ty: Type) -> Val {
        match ty {
            Type::I1 | Type::I8 | Type::I16 | Type::I32 | Type::I64 => Val::I(bits as i64),
            Type::F32 => Val::F32(f32::from_bits(bits as u32)),
            Type::F64 => Val::F64(f64::from_bits(bits)),
            Type::Ptr => Val::Ptr(bits),
            Type::F64x2 | Type::F32x4 | Type::I64x2 | Type::I32x4 => {
                unreachable!("no signature has a vector type (verifier)")
            }
        }
    }
}

/// How a call through [`Interp::call`] ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Completion {
    /// The function returned (with its value, if it has one).
    Returned(Option<Val>),
    /// The program called `exit(status)`.
    Exited(i32),
}

impl Completion {
    /// The returned value (`None` for `void` or after `exit`).
    pub fn value(self) -> Option<Val> {
        match self {
            Completion::Returned(v) => v,
            Completion::Exited(_) => None,
        }
    }
}

/// A caller's position in the stack of a [`RunError`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallSite {
    pub function: String,
    pub loc: Option<SrcLoc>,
}

/// A run-time error: what went wrong, in which function, at which source
/// position (when known), and the callers (innermost first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunError {
    pub message: String,
    /// Empty for errors of the embedding API itself.
    pub function: String,
    pub loc: Option<SrcLoc>,
    /// The file `loc` is in, when that is not the program's own file (a
    /// header, another file of the program).
    pub file: Option<String>,
    pub backtrace: Vec<CallSite>,
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("run-time error")?;
        if !self.function.is_empty() {
            write!(f, " in function `{}`", self.function)?;
        }
        if let Some(loc) = self.loc {
            write!(f, " at line {}:{}", loc.line, loc.col)?;
            if let Some(file) = &self.file {
                write!(f, " of {file}")?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for RunError {}

/// Why an instruction failed, before it is placed (function, position).
#[derive(Debug)]
pub(crate) enum Fault {
    Mem(MemFault),
    Msg(String),
}

impl Fault {
    fn msg(m: impl Into<String>) -> Fault {
        Fault::Msg(m.into())
    }
}

impl From<MemFault> for Fault {
    fn from(f: MemFault) -> Fault {
        Fault::Mem(f)
    }
}

/// Runs `main` with `config.args` and returns its exit status (main's
/// result, 0 for a `void` main, or the argument of `exit`). Output is
/// written to `out` and flushed.
pub fn run_main(module: &Module, config: &Config, out: &mut dyn Write) -> Result<i32, RunError> {
    let Some(main) = module.func_by_name("main") else {
        return Err(RunError {
            message: "the program has no `main` function".into(),
            function: String::new(),
            loc: None,
            file: None,
            backtrace: Vec::new(),
        });
    };
    let mut interp = Interp::with_output(module, config.clone(), out)?;
    let sig = &module.funcs[main].sig;
    let args = match sig.params.as_slice() {
        [] => Vec::new(),
        [Type::I32, Type::Ptr] => {
            let (argc, argv) = interp.make_argv()?;
            vec![Val::I(argc), Val::Ptr(argv)]
        }
        _ => {
            return Err(interp.api_error(
                main,
                "`main` must take no parameters or (int argc, char **argv)",
            ));
        }
    };
    let mut status = match interp.call(main, &args)? {
        Completion::Returned(Some(Val::I(v))) => v as i32,
        Completion::Returned(_) => 0,
        Completion::Exited(code) => code,
    };
    // C's `exit`, and returning from `main`, run the `atexit` functions,
    // the last registered first; one that calls `exit` ends the program
    // there with its status.
    while let Some(f) = interp.atexit.pop().filter(|_| !interp.aborted) {
        if let Completion::Exited(code) = interp.call(f, &[])? {
            status = code;
            break;
        }
    }
    if let Some(stats) = interp.tape_stats().filter(|_| config.ad_stats) {
        eprintln!("{}", stats.line());
    }
    Ok(status)
}

/// The bytes of gradient tapes over a run, from the `ad_tape_note`s the
/// AD emits where tape memory changes: records (8-byte slots and the
/// per-iteration tape headers of parallel loops, what `--explain-tape`
/// counts) and heap (capacity included). The native runtime keeps the
/// same counters (`parc-runtime`'s `adstats.rs`) and prints the same line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TapeStats {
    pub live_recorded: i64,
    pub peak_recorded: i64,
    pub live_allocated: i64,
    pub peak_allocated: i64,
    /// Every byte recorded over the run (the sum of the growths).
    pub total_recorded: i64,
}

impl TapeStats {
    fn note(&mut self, recorded: i64, allocated: i64) {
        self.live_recorded += recorded;
        self.peak_recorded = self.peak_recorded.max(self.live_recorded);
        self.total_recorded += recorded.max(0);
        self.live_allocated += allocated;
        self.peak_allocated = self.peak_allocated.max(self.live_allocated);
    }

    /// The line `PARC_AD_STATS` prints (the runtime's words exactly).
    pub fn line(&self) -> String {
        format!(
            "PARC_AD_STATS: gradient tape peak {} bytes recorded \
             ({} bytes allocated), {} bytes recorded in all",
            self.peak_recorded, self.peak_allocated, self.total_recorded
        )
    }
}

/// An interpreter instance: the module, its memory (globals initialized),
/// and the output. Memory persists across [`Interp::call`]s, so tests and
/// gradient checks can allocate arrays, call functions on them and read
/// the results back.
pub struct Interp<'a> {
    module: &'a Module,
    config: Config,
    mem: Memory,
    /// Base address of each global; 0 for `__shared__` ones, which have an
    /// instance per thread block instead.
    globals: Vec<u64>,
    out: Option<&'a mut dyn Write>,
    captured: Vec<u8>,
    /// The program's stderr, captured when its stdout is.
    captured_err: Vec<u8>,
    steps: u64,
    /// Block-argument staging (a branch's arguments are read before any
    /// parameter is written).
    scratch: Vec<u64>,
    /// Frames of returned calls, kept for their buffers.
    frame_pool: Vec<Frame>,
    /// `printf`'s output buffer and argument list, kept for their buffers.
    line: Vec<u8>,
    printf_args: Vec<parc_cformat::Slot>,
    /// The C library's own state (`rand`'s).
    clib: clib::State,
    /// `getopt`'s, and the C variables it sets.
    getopt: getopt::Getopt,
    /// How many `qsort`/`bsearch` comparators are running, one inside
    /// another.
    callback_depth: u32,
    /// The files the program opened.
    files: files::Files,
    /// The functions `atexit` registered, in order.
    atexit: Vec<FuncId>,
    /// The program ended by `abort` (no `atexit` function runs).
    aborted: bool,
    /// The thread block being run, during a launch.
    gpu: Option<gpu::BlockCtx>,
    /// Gradient tape bytes; `None` until the first `ad_tape_note`.
    tape: Option<TapeStats>,
}

impl<'a> Interp<'a> {
    /// An interpreter whose output is captured (see [`Interp::stdout`]).
    pub fn new(module: &'a Module, config: Config) -> Result<Interp<'a>, RunError> {
        let mut interp = Interp {
            module,
            mem: Memory::new(config.max_memory),
            config,
            globals: Vec::new(),
            out: None,
            captured: Vec::new(),
            captured_err: Vec::new(),
            steps: 0,
            scratch: Vec::new(),
            frame_pool: Vec::new(),
            line: Vec::new(),
            printf_args: Vec::new(),
            clib: clib::State::default(),
            getopt: getopt::Getopt::default(),
            callback_depth: 0,
            files: files::Files::default(),
            atexit: Vec::new(),
            aborted: false,
            gpu: None,
            tape: None,
        };
        interp.init_globals()?;
        Ok(interp)
    }

    /// The gradient tape's bytes so far, if any gradient noted its tape.
    pub fn tape_stats(&self) -> Option<&TapeStats> {
        self.tape.as_ref()
    }

    /// An interpreter that writes the program's output to `out`.
    pub fn with_output(
        module: &'a Module,
        config: Config,
        out: &'a mut dyn Write,
    ) -> Result<Interp<'a>, RunError> {
        let mut interp = Interp::new(module, config)?;
        interp.out = Some(out);
        Ok(interp)
    }

    fn init_globals(&mut self) -> Result<(), RunError> {
        let module = self.module;
        for (g, data) in module.globals.iter() {
            // Shared globals get an instance per GPU block; imported ones
            // live outside the program (see `Interp::shared_addr`), but for
            // the C library's variables the interpreter keeps (`optind`).
            let addr = if data.is_import {
                self.getopt
                    .var(&mut self.mem, &data.name)
                    .map_err(|f| self.global_error(g, f))?
                    .unwrap_or(0)
            } else if data.space == AddrSpace::Shared {
                0
            } else {
                let kind = if data.is_const {
                    Kind::Const
                } else {
                    Kind::Global
                };
                let addr = self
                    .mem
                    .alloc(data.size, kind, Site::Global(g))
                    .map_err(|f| self.global_error(g, f.into()))?;
                let n = data.init.len().min(data.size as usize);
                self.mem
                    .write_init(addr, &data.init[..n])
                    .map_err(|f| self.global_error(g, f.into()))?;
                addr
            };
            self.globals.push(addr);
        }
        for (g, data) in module.globals.iter() {
            for &(offset, target, addend) in &data.relocs {
                let base = self.globals[g.index()];
                let value = self.globals[target.index()];
                if base == 0 || value == 0 {
                    let what = if module.globals[target].is_import {
                        format!(
                            "it holds the address of `{}`, which is defined outside this program (the interpreter runs no C code)",
                            module.globals[target].name
                        )
                    } else {
                        "a relocation involves a `__shared__` global".to_string()
                    };
                    return Err(self.global_error(g, Fault::msg(what)));
                }
                let value = value.wrapping_add(addend as u64);
                self.mem
                    .write_init(base.wrapping_add(offset), &value.to_le_bytes())
                    .map_err(|f| self.global_error(g, f.into()))?;
            }
            // A function's address is the same token `func_addr` gives.
            for &(offset, f) in &data.func_relocs {
                let base = self.globals[g.index()];
                let value = memory::func_address(f);
                self.mem
                    .write_init(base.wrapping_add(offset), &value.to_le_bytes())
                    .map_err(|f| self.global_error(g, f.into()))?;
            }
        }
        Ok(())
    }

    fn global_error(&self, g: GlobalId, fault: Fault) -> RunError {
        RunError {
            message: format!(
                "initializing global `{}`: {}",
                self.module.globals[g].name,
                self.describe(fault)
            ),
            function: String::new(),
            loc: None,
            file: None,
            backtrace: Vec::new(),
        }
    }

    /// Builds `argv` from `config.args` in interpreter memory: an array of
    /// `argc + 1` pointers to NUL-terminated strings, the last one null.
    pub fn make_argv(&mut self) -> Result<(i64, u64), RunError> {
        let mut args = self.config.args.clone();
        if args.is_empty() {
            args.push(
                self.module
                    .source_name
                    .clone()
                    .unwrap_or_else(|| "a.out".to_string()),
            );
        }
        let array = self
            .mem
            .alloc(
                (args.len() as u64 + 1) * 8,
                Kind::Argv,
                Site::Argv(u32::MAX),
            )
            .map_err(|f| self.host_error(f.into()))?;
        for (i, arg) in args.iter().enumerate() {
            let mut bytes = arg.as_bytes().to_vec();
            bytes.push(0);
            let s = self
                .mem
                .alloc(bytes.len() as u64, Kind::Argv, Site::Argv(i as u32))
                .map_err(|f| self.host_error(f.into()))?;
            self.mem
                .write_init(s, &bytes)
                .and_then(|()| self.mem.write_init(array + 8 * i as u64, &s.to_le_bytes()))
                .map_err(|f| self.host_error(f.into()))?;
        }
        Ok((args.len() as i64, array))
    }

    /// Calls `func` with `args` (checked against its signature) and runs it
    /// to completion, kernels launched from it included. Stack objects of
    /// the call die when it returns; heap memory stays.
    pub fn call(&mut self, func: FuncId, args: &[Val]) -> Result<Completion, RunError> {
        let module = self.module;
        let Some(f) = module.funcs.get(func) else {
            return Err(self.host_error(Fault::msg(format!("no function {func} in the module"))));
        };
        if args.len() != f.sig.params.len() {
            return Err(self.api_error(
                func,
                &format!(
                    "called with {} arguments but it takes {}",
                    args.len(),
                    f.sig.params.len()
                ),
            ));
        }
        let mut bits = Vec::with_capacity(args.len());
        for (i, (&a, &ty)) in args.iter().zip(&f.sig.params).enumerate() {
            let Some(b) = a.to_bits(ty) else {
                return Err(self.api_error(
                    func,
                    &format!(
                        "argument {} is {a:?} but the parameter has type {ty}",
                        i + 1
                    ),
                ));
            };
            bits.push(b);
        }
        let frame = self
            .new_frame(func, bits.iter().copied())
            .map_err(|f| self.error_in(func, None, f))?;
        let mut th = Thread {
            frames: vec![frame],
            tid: None,
        };
        let result = self.run_thread(&mut th);
        self.unwind(&mut th);
        let flushed = self.flush();
        let stop = result?;
        flushed?;
        Ok(match stop {
            Stop::Finished(v) => Completion::Returned(match (v, f.sig.ret) {
                (Some(b), Some(ty)) => Some(Val::from_bits(b, ty)),
                _ => None,
            }),
            Stop::Exit(code) => Completion::Exited(code),
            Stop::Barrier(..) => unreachable!("a host thread never stops at a barrier"),
        })
    }

    /// Launches `kernel` on a grid of `grid` blocks of `block` threads, as
    /// the `launch` instruction does.
    pub fn launch(
        &mut self,
        kernel: FuncId,
        grid: [i32; 3],
        block: [i32; 3],
        args: &[Val],
    ) -> Result<Completion, RunError> {
        let module = self.module;
        let Some(f) = module.funcs.get(kernel) else {
            return Err(self.host_error(Fault::msg(format!("no function {kernel} in the module"))));
        };
        let mut bits = Vec::with_capacity(args.len());
        for (i, (&a, &ty)) in args.iter().zip(&f.sig.params).enumerate() {
            let Some(b) = a.to_bits(ty) else {
                return Err(self.api_error(
                    kernel,
                    &format!(
                        "argument {} is {a:?} but the parameter has type {ty}",
                        i + 1
                    ),
                ));
            };
            bits.push(b);
        }
        if let Err(fault) = gpu::check_config(grid, block) {
            return Err(self.error_in(kernel, None, fault));
        }
        let result = self.run_launch(kernel, grid, block, &bits);
        let flushed = self.flush();
        let exit = result?;
        flushed?;
        Ok(match exit {
            Some(code) => Completion::Exited(code),
            None => Completion::Returned(None),
        })
    }

    /// Allocates `bytes` zeroed bytes of heap memory (which the program may
    /// `free`) and returns the address.
    pub fn alloc(&mut self, bytes: u64) -> Result<u64, RunError> {
        self.mem
            .alloc(bytes, Kind::Heap, Site::Host)
            .map_err(|f| self.host_error(f.into()))
    }

    /// Frees memory from [`Interp::alloc`] (or the program's `malloc`).
    pub fn free(&mut self, ptr: u64) -> Result<(), RunError> {
        self.mem
            .free(ptr, Site::Host)
            .map_err(|f| self.host_error(f.into()))
    }

    /// The address of a (non-`__shared__`) global.
    pub fn global_addr(&self, g: GlobalId) -> Option<u64> {
        self.globals.get(g.index()).copied().filter(|&a| a != 0)
    }

    pub fn write_bytes(&mut self, ptr: u64, bytes: &[u8]) -> Result<(), RunError> {
        match self.mem.write(ptr, bytes.len() as u64) {
            Ok(dst) => {
                dst.copy_from_slice(bytes);
                Ok(())
            }
            Err(f) => Err(self.host_error(f.into())),
        }
    }

    pub fn read_bytes(&self, ptr: u64, len: u64) -> Result<Vec<u8>, RunError> {
        self.mem
            .read(ptr, len)
            .map(<[u8]>::to_vec)
            .map_err(|f| self.host_error(f.into()))
    }

    pub fn write_f64s(&mut self, ptr: u64, values: &[f64]) -> Result<(), RunError> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.write_bytes(ptr, &bytes)
    }

    pub fn read_f64s(&self, ptr: u64, n: usize) -> Result<Vec<f64>, RunError> {
        let b = self.read_bytes(ptr, n as u64 * 8)?;
        Ok(b.chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect())
    }

    pub fn write_f32s(&mut self, ptr: u64, values: &[f32]) -> Result<(), RunError> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.write_bytes(ptr, &bytes)
    }

    pub fn read_f32s(&self, ptr: u64, n: usize) -> Result<Vec<f32>, RunError> {
        let b = self.read_bytes(ptr, n as u64 * 4)?;
        Ok(b.chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect())
    }

    pub fn write_i32s(&mut self, ptr: u64, values: &[i32]) -> Result<(), RunError> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.write_bytes(ptr, &bytes)
    }

    pub fn read_i32s(&self, ptr: u64, n: usize) -> Result<Vec<i32>, RunError> {
        let b = self.read_bytes(ptr, n as u64 * 4)?;
        Ok(b.chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect())
    }

    pub fn write_i64s(&mut self, ptr: u64, values: &[i64]) -> Result<(), RunError> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.write_bytes(ptr, &bytes)
    }

    pub fn read_i64s(&self, ptr: u64, n: usize) -> Result<Vec<i64>, RunError> {
        let b = self.read_bytes(ptr, n as u64 * 8)?;
        Ok(b.chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect())
    }

    /// The output captured so far (empty when writing to a writer).
    pub fn stdout(&self) -> &[u8] {
        &self.captured
    }

    /// What the program wrote to stderr, captured with its stdout (empty
    /// when writing to a writer: stderr is then the process's).
    pub fn stderr(&self) -> &[u8] {
        &self.captured_err
    }

    /// Takes the captured output.
    pub fn take_stdout(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.captured)
    }

    /// Instructions executed so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Writes `bytes` to the program's file descriptor `fd`: 1 is its
    /// stdout (captured or the writer), 2 its stderr (captured when stdout
    /// is, else the process's, unbuffered as C's).
    fn emit_to(&mut self, fd: i32, bytes: &[u8]) -> Result<(), Fault> {
        match fd {
            1 => self.emit(bytes),
            2 if self.out.is_none() => {
                self.captured_err.extend_from_slice(bytes);
                Ok(())
            }
            2 => std::io::stderr()
                .write_all(bytes)
                .map_err(|e| Fault::msg(format!("cannot write the program's stderr: {e}"))),
            _ => Err(Fault::msg(format!(
                "file descriptor {fd} is not an open stream"
            ))),
        }
    }

    fn emit(&mut self, bytes: &[u8]) -> Result<(), Fault> {
        match &mut self.out {
            Some(out) => out
                .write_all(bytes)
                .map_err(|e| Fault::msg(format!("cannot write the program's output: {e}"))),
            None => {
                self.captured.extend_from_slice(bytes);
                Ok(())
            }
        }
    }

    /// `fflush`: writes out the program's stdout writer.
    fn flush_output(&mut self) -> Result<(), Fault> {
        match &mut self.out {
            Some(out) => out
                .flush()
                .map_err(|e| Fault::msg(format!("cannot write the program's output: {e}"))),
            None => Ok(()),
        }
    }

    fn flush(&mut self) -> Result<(), RunError> {
        if let Some(out) = &mut self.out
            && let Err(e) = out.flush()
        {
            return Err(self.host_error(Fault::msg(format!(
                "cannot write the program's output: {e}"
            ))));
        }
        Ok(())
    }

    /// An error of the embedding API (no instruction to blame).
    fn host_error(&self, fault: Fault) -> RunError {
        RunError {
            message: self.describe(fault),
            function: String::new(),
            loc: None,
            file: None,
            backtrace: Vec::new(),
        }
    }

    fn api_error(&self, func: FuncId, message: &str) -> RunError {
        RunError {
            message: message.to_string(),
            function: self.module.funcs[func].name.clone(),
            loc: None,
            file: None,
            backtrace: Vec::new(),
        }
    }

    /// An error at `inst` of `func` (no call stack).
    fn error_in(&self, func: FuncId, inst: Option<Inst>, fault: Fault) -> RunError {
        let loc = inst.and_then(|i| self.loc(func, i));
        RunError {
            message: self.describe(fault),
            function: self.module.funcs[func].name.clone(),
            loc,
            file: self.file_of(loc),
            backtrace: Vec::new(),
        }
    }

    /// The source position of an instruction, if known.
    fn loc(&self, func: FuncId, inst: Inst) -> Option<SrcLoc> {
        let loc = self.module.funcs[func].locs[inst];
        loc.is_known().then_some(loc)
    }

    /// The file `loc` is in, when that is not the program's own.
    pub(crate) fn file_of(&self, loc: Option<SrcLoc>) -> Option<String> {
        loc.and_then(|l| self.module.file_of(l)).map(str::to_string)
    }

    /// "at line 7:3 in `f`" (or "at line 7:3 of util.h in `f`") or "in `f`".
    fn site_text(&self, site: Site) -> String {
        match site {
            Site::Inst(f, i) => match self.loc(f, i) {
                Some(l) => format!(
                    "at line {}:{}{} in `{}`",
                    l.line,
                    l.col,
                    self.file_of(Some(l))
                        .map_or(String::new(), |file| format!(" of {file}")),
                    self.module.funcs[f].name
                ),
                None => format!("in `{}`", self.module.funcs[f].name),
            },
            Site::Host => "by the embedding program".to_string(),
            _ => String::new(),
        }
    }

    /// The function whose address `func_addr` gave `addr`, if any.
    fn func_at(&self, addr: u64) -> Option<&str> {
        let off = addr.checked_sub(memory::FUNC_BASE)?;
        let f = FuncId::new((off / 16) as usize);
        (off % 16 == 0)
            .then(|| self.module.funcs.get(f))
            .flatten()
            .map(|f| f.name.as_str())
    }

    /// "a 40-byte heap block allocated at line 7:3 in `main`" and the like.
    fn describe_object(&self, slot: u32) -> String {
        let o = &self.mem.objects[slot as usize];
        let size = o.size;
        let alloc_site = match self.site_text(o.site) {
            s if s.is_empty() => String::new(),
            s => format!(" allocated {s}"),
        };
        let global_name = |g: GlobalId| &self.module.globals[g].name;
        match (o.kind, o.site) {
            (Kind::Stack, _) => format!("a {size}-byte stack object{alloc_site}"),
            (Kind::Heap, _) => format!("a {size}-byte heap block{alloc_site}"),
            (Kind::Global, Site::Global(g)) => {
                format!("the {size}-byte global `{}`", global_name(g))
            }
            (Kind::Const, Site::Global(g)) => {
                format!("the {size}-byte constant `{}`", global_name(g))
            }
            (Kind::Shared, Site::Shared(g, [x, y, z])) => format!(
                "the {size}-byte shared array `{}` of block ({x},{y},{z})",
                global_name(g)
            ),
            (Kind::Argv, Site::Argv(u32::MAX)) => format!("the {size}-byte argv array"),
            (Kind::Argv, Site::Argv(i)) => format!("the {size}-byte string argv[{i}]"),
            (Kind::Env, _) => format!("the {size}-byte environment string from `getenv`"),
            _ => format!("a {size}-byte object"),
        }
    }

    fn describe(&self, fault: Fault) -> String {
        let m = match fault {
            Fault::Msg(m) => return m,
            Fault::Mem(m) => m,
        };
        let bytes = |n: u64| {
            if n == 1 {
                "1 byte".to_string()
            } else {
                format!("{n} bytes")
            }
        };
        match m {
            MemFault::Null { addr: 0 } => "null pointer dereference".to_string(),
            MemFault::Null { addr } => format!("null pointer dereference (address {addr:#x})"),
            MemFault::Wild { addr } => match self.func_at(addr) {
                Some(name) => format!("access through a pointer to function `{name}`"),
                None => format!("access through an invalid pointer {addr:#x}"),
            },
            MemFault::Dead { slot, len } => {
                let o = &self.mem.objects[slot as usize];
                let what = self.describe_object(slot);
                match o.state {
                    State::Freed => {
                        let at = match self.site_text(o.freed_at) {
                            s if s.is_empty() => String::new(),
                            s => format!(", freed {s}"),
                        };
                        format!("use after free: {}-byte access to {what}{at}", len)
                    }
                    State::Returned => format!(
                        "use of stack memory after its function returned: {len}-byte access to {what}"
                    ),
                    State::TaskEnded => format!(
                        "use of stack memory after its task (a spawned call or a parallel_for iteration) ended: {len}-byte access to {what}"
                    ),
                    State::BlockEnded => format!(
                        "use of shared memory after its thread block finished: {len}-byte access to {what}"
                    ),
                    State::Live => format!("access to {what}"),
                }
            }
            MemFault::OutOfBounds { slot, offset, len } => format!(
                "out-of-bounds access: {} at offset {offset} of {}",
                bytes(len),
                self.describe_object(slot)
            ),
            MemFault::ReadOnly { slot } => {
                format!("write to read-only memory: {}", self.describe_object(slot))
            }
            MemFault::Unterminated { slot } => format!(
                "string runs past the end of {} without a terminating NUL",
                self.describe_object(slot)
            ),
            MemFault::DoubleFree { slot } => {
                let o = &self.mem.objects[slot as usize];
                let at = match self.site_text(o.freed_at) {
                    s if s.is_empty() => String::new(),
                    s => format!(", already freed {s}"),
                };
                format!("double free of {}{at}", self.describe_object(slot))
            }
            MemFault::FreeNotHeap { slot } | MemFault::FreeDead { slot } => format!(
                "invalid free: the pointer is to {}, not to memory from malloc",
                self.describe_object(slot)
            ),
            MemFault::FreeInterior { slot, offset } => format!(
                "invalid free: the pointer is {offset} bytes into {}; free needs the address malloc returned",
                self.describe_object(slot)
            ),
            MemFault::FreeWild { addr } => {
                format!("invalid free: {addr:#x} is not an address malloc returned")
            }
            MemFault::OutOfMemory {
                requested,
                per_object: true,
                ..
            } => format!(
                "out of memory: cannot allocate {requested} bytes (one object holds at most 2 GiB in the interpreter)"
            ),
            MemFault::OutOfMemory {
                requested, limit, ..
            } => format!(
                "out of memory: allocating {requested} bytes would exceed the limit of {limit} bytes"
            ),
        }
    }
}
