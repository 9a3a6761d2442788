//! The step loop: frames, instructions and intrinsics.
//!
//! A [`Thread`] is an explicit stack of [`Frame`]s; [`Interp::run_thread`]
//! runs it until it finishes, calls `exit`, or (GPU threads only) reaches a
//! barrier, where it stops with its position just after the barrier so that
//! running it again resumes there. Each frame's `pos` is the index of the
//! instruction being executed in its current block — for a caller, that is
//! its call instruction — so an error can always name the faulting
//! instruction and the call sites above it.

use super::callback::Interrupt;
use super::lanes::{vector, vector_memory};
use super::memory::{Kind, Site, State};
use super::{CallSite, Fault, Interp, RunError, clib};
use crate::entities::{Block, FuncId, Inst, Value};
use crate::eval::{self, canon, f32_bits, f32_of};
use crate::function::{AddrSpace, Function};
use crate::inst::{BinaryOp, BlockCall, InstKind, UnaryOp};
use crate::intrinsic::{CFn, Intrinsic};
use crate::libm;
use crate::types::Type;
use cranelift_entity::EntityRef;

/// One activation of a function.
pub(crate) struct Frame {
    pub func: FuncId,
    pub block: Block,
    /// Index in `block` of the instruction being executed.
    pub pos: usize,
    /// One register per SSA value of the function.
    pub regs: Vec<u64>,
    /// The lanes of vector values, each in its scalar register form; empty
    /// until the activation defines its first vector, then one entry per
    /// SSA value (so functions without vectors pay nothing).
    pub vregs: Vec<[u64; 4]>,
    /// Slots of the `alloca`s made by this activation; they die on return.
    pub allocas: Vec<u32>,
    /// The detaches whose tasks are running (innermost last): the serial
    /// projection's "where to go at the reattach", and how many of
    /// `allocas` were made before the task began (the task's own die at
    /// its reattach, so a long `parallel_for` does not pile them up).
    pub tasks: Vec<(Block, usize)>,
}

/// A stack of frames: the host program, or one GPU thread.
pub(crate) struct Thread {
    pub frames: Vec<Frame>,
    /// The thread's index in its block; `None` for host code.
    pub tid: Option<[i32; 3]>,
}

/// Why [`Interp::run_thread`] stopped.
pub(crate) enum Stop {
    /// The outermost frame returned (with this value).
    Finished(Option<u64>),
    /// Waiting at this barrier (GPU threads only).
    Barrier(FuncId, Inst),
    /// `exit(status)` was called.
    Exit(i32),
}

/// What the inner loop leaves to the outer one (which owns the frame stack).
enum Action {
    Call(Frame),
    Return(Option<u64>),
}

impl<'a> Interp<'a> {
    /// A frame for `func` with `args` in its entry block's parameters.
    pub(crate) fn new_frame(
        &mut self,
        func: FuncId,
        args: impl ExactSizeIterator<Item = u64>,
    ) -> Result<Frame, Fault> {
        let f = &self.module.funcs[func];
        let Some(entry) = f.entry() else {
            return Err(Fault::msg(format!(
                "cannot call external function `{}` in the interpreter: it has no definition in this program",
                f.name
            )));
        };
        let params = &f.blocks[entry].params;
        if params.len() != args.len() {
            return Err(Fault::msg(format!(
                "`{}` called with {} arguments but it takes {}",
                f.name,
                args.len(),
                params.len()
            )));
        }
        let mut frame = self.frame_pool.pop().unwrap_or(Frame {
            func,
            block: entry,
            pos: 0,
            regs: Vec::new(),
            vregs: Vec::new(),
            allocas: Vec::new(),
            tasks: Vec::new(),
        });
        frame.func = func;
        frame.block = entry;
        frame.pos = 0;
        // Registers are not cleared: in valid SSA every value is defined
        // before it is used, so stale contents are never read.
        frame.regs.resize(f.values.len(), 0);
        frame.vregs.clear();
        for (p, a) in params.iter().zip(args) {
            frame.regs[p.index()] = a;
        }
        Ok(frame)
    }

    /// The function a function pointer called with arguments of types
    /// `args` (and a result of type `ret`, if used) points to; calling
    /// anything else, or a function of another signature, is undefined in
    /// C and reported here.
    pub(crate) fn pointer_target(
        &self,
        addr: u64,
        args: &[Type],
        ret: Option<Type>,
    ) -> Result<FuncId, Fault> {
        use cranelift_entity::EntityRef;
        let offset = addr.wrapping_sub(super::memory::FUNC_BASE);
        let index = (offset / 16) as usize;
        let f = if addr >= super::memory::FUNC_BASE
            && offset.is_multiple_of(16)
            && index < self.module.funcs.len()
        {
            FuncId::new(index)
        } else if addr == 0 {
            return Err(Fault::msg(
                "call through a null function pointer".to_string(),
            ));
        } else {
            return Err(Fault::msg(format!(
                "call through a pointer that is not a function's address (0x{addr:x})"
            )));
        };
        let target = &self.module.funcs[f];
        let ret_ok = ret.is_none_or(|r| target.sig.ret == Some(r));
        if target.sig.params != args || !ret_ok {
            return Err(Fault::msg(format!(
                "`{}` called through a pointer to a function of another type",
                target.name
            )));
        }
        Ok(f)
    }

    /// Ends an activation: its stack objects die, its buffers are kept.
    fn release(&mut self, mut frame: Frame) {
        for &slot in &frame.allocas {
            self.mem.kill(slot, State::Returned, Site::Unknown);
        }
        frame.allocas.clear();
        frame.tasks.clear();
        if self.frame_pool.len() < 64 {
            self.frame_pool.push(frame);
        }
    }

    /// Pops every frame (after an error or `exit`).
    pub(crate) fn unwind(&mut self, th: &mut Thread) {
        while let Some(f) = th.frames.pop() {
            self.release(f);
        }
    }

    /// A run-time error at the current instruction of `th`'s top frame.
    pub(crate) fn error(&self, th: &Thread, fault: Fault) -> RunError {
        let mut message = self.describe(fault);
        if let (Some([x, y, z]), Some(b)) = (th.tid, &self.gpu) {
            let [bx, by, bz] = b.block_idx;
            message.push_str(&format!(
                " (GPU thread ({x},{y},{z}) of block ({bx},{by},{bz}))"
            ));
        }
        let at = |f: &Frame| {
            let func = &self.module.funcs[f.func];
            let loc = func.blocks[f.block]
                .insts
                .get(f.pos)
                .and_then(|&i| self.loc(f.func, i));
            // Code inlined or outlined from elsewhere names its origin.
            let origin = loc
                .and_then(|l| l.func)
                .and_then(|o| self.module.funcs.get(o))
                .unwrap_or(func);
            (origin.name.clone(), loc)
        };
        let mut frames = th.frames.iter().rev();
        let (function, loc) = frames.next().map(at).unwrap_or_default();
        let backtrace = frames
            .map(|f| {
                let (function, loc) = at(f);
                CallSite { function, loc }
            })
            .collect();
        RunError {
            message,
            function,
            file: self.file_of(loc),
            loc,
            backtrace,
        }
    }

    /// Runs `th` until it finishes, exits, or reaches a barrier.
    pub(crate) fn run_thread(&mut self, th: &mut Thread) -> Result<Stop, RunError> {
        let module = self.module;
        let max_steps = self.config.max_steps.unwrap_or(u64::MAX);
        let max_depth = self.config.max_call_depth;
        loop {
            let depth = th.frames.len();
            let frame = th.frames.last_mut().expect("a running thread has a frame");
            let fid = frame.func;
            let func: &Function = &module.funcs[fid];
            let mut insts: &[Inst] = &func.blocks[frame.block].insts;

            // Turns a `Result<T, impl Into<Fault>>` into `T` or returns the
            // error, placed at the current instruction.
            macro_rules! tri {
                ($e:expr) => {
                    match $e {
                        Ok(v) => v,
                        Err(f) => return Err(self.error(th, Fault::from(f))),
                    }
                };
            }
            macro_rules! fail {
                ($($arg:tt)*) => {{
                    let message = format!($($arg)*);
                    return Err(self.error(th, Fault::Msg(message)));
                }};
            }

            let action = loop {
                self.steps += 1;
                if self.steps > max_steps {
                    fail!(
                        "step limit exceeded: the program ran more than {max_steps} instructions"
                    );
                }
                let Some(&inst) = insts.get(frame.pos) else {
                    fail!(
                        "block {} of `{}` ends without a terminator",
                        frame.block,
                        func.name
                    );
                };
                let data = &func.insts[inst];
                let regs = &mut frame.regs;
                macro_rules! get {
                    ($v:expr) => {
                        regs[$v.index()]
                    };
                }
                macro_rules! set {
                    ($x:expr) => {{
                        let x = $x;
                        if let Some(r) = data.result {
                            regs[r.index()] = x;
                        }
                    }};
                }
                macro_rules! result_ty {
                    () => {
                        match data.result {
                            Some(r) => func.values[r].ty,
                            None => fail!("instruction {inst} has no result"),
                        }
                    };
                }
                macro_rules! goto {
                    ($dest:expr) => {{
                        frame.block = $dest;
                        frame.pos = 0;
                        insts = &func.blocks[frame.block].insts;
                        continue;
                    }};
                }
                match &data.kind {
                    InstKind::Iconst(c) => set!(*c as u64),
                    InstKind::Fconst(c) => {
                        let bits = if result_ty!() == Type::F32 {
                            f32_bits(*c as f32)
                        } else {
                            c.to_bits()
                        };
                        set!(bits)
                    }
                    InstKind::GlobalAddr(g) => {
                        let a = self.globals[g.index()];
                        let a = if a != 0 {
                            a
                        } else {
                            tri!(self.shared_addr(*g))
                        };
                        set!(a)
                    }
                    InstKind::FuncAddr(f) => set!(super::memory::func_address(*f)),
                    InstKind::Unary(..)
                    | InstKind::Binary(..)
                    | InstKind::Icmp(..)
                    | InstKind::Fcmp(..)
                    | InstKind::Select(..)
                    | InstKind::Intrinsic { .. }
                        if data.result.is_some_and(|r| func.values[r].ty.is_vector()) =>
                    {
                        tri!(vector(frame, func, &data.kind, data.result))
                    }
                    InstKind::Load(_) | InstKind::Store { .. }
                        if load_store_type(func, &data.kind, data.result).is_vector() =>
                    {
                        tri!(vector_memory(
                            frame,
                            func,
                            &mut self.mem,
                            &data.kind,
                            data.result
                        ))
                    }
                    InstKind::Unary(UnaryOp::Fneg, a) => {
                        set!(eval::fneg(func.values[*a].ty, get!(a)))
                    }
                    InstKind::Binary(op, a, b) => {
                        let ty = func.values[*a].ty;
                        let v = tri!(binary(*op, ty, get!(a), get!(b)));
                        set!(v)
                    }
                    InstKind::Icmp(cc, a, b) => {
                        let r = eval::icmp(*cc, func.values[*a].ty, get!(a), get!(b));
                        set!(r as u64)
                    }
                    InstKind::Fcmp(cc, a, b) => {
                        let r = eval::fcmp(*cc, func.values[*a].ty, get!(a), get!(b));
                        set!(r as u64)
                    }
                    InstKind::Cast(op, a) => {
                        let from = func.values[*a].ty;
                        let v = eval::cast(*op, from, result_ty!(), get!(a));
                        set!(v)
                    }
                    InstKind::Select(c, a, b) => {
                        let v = if get!(c) & 1 != 0 { get!(a) } else { get!(b) };
                        set!(v)
                    }
                    InstKind::Alloca { size, .. } => {
                        let addr = tri!(self.mem.alloc(
                            *size as u64,
                            Kind::Stack,
                            Site::Inst(fid, inst)
                        ));
                        frame.allocas.push(((addr >> 32) - 1) as u32);
                        set!(addr)
                    }
                    InstKind::Load(p) => {
                        let ty = result_ty!();
                        let v = tri!(self.mem.load(get!(p), ty));
                        set!(v)
                    }
                    InstKind::Store { value, ptr } => {
                        let ty = func.values[*value].ty;
                        tri!(self.mem.store(get!(ptr), ty, get!(value)));
                    }
                    InstKind::PtrAdd(p, off) => set!(get!(p).wrapping_add(get!(off))),
                    InstKind::Splat(_)
                    | InstKind::ExtractLane(..)
                    | InstKind::InsertLane(..)
                    | InstKind::Reduce(..) => {
                        tri!(vector(frame, func, &data.kind, data.result))
                    }
                    InstKind::Call { func: callee, args } => {
                        if depth >= max_depth {
                            fail!(
                                "stack overflow: call depth exceeded {max_depth} (infinite recursion?)"
                            );
                        }
                        let new =
                            tri!(self.new_frame(*callee, args.iter().map(|a| regs[a.index()])));
                        break Action::Call(new);
                    }
                    InstKind::CallIndirect { callee, args } => {
                        if depth >= max_depth {
                            fail!(
                                "stack overflow: call depth exceeded {max_depth} (infinite recursion?)"
                            );
                        }
                        let arg_tys: Vec<Type> = args.iter().map(|a| func.values[*a].ty).collect();
                        let ret = data.result.map(|r| func.values[r].ty);
                        let target = tri!(self.pointer_target(get!(callee), &arg_tys, ret));
                        let new =
                            tri!(self.new_frame(target, args.iter().map(|a| regs[a.index()])));
                        break Action::Call(new);
                    }
                    InstKind::Intrinsic { op, args } => match op {
                        Intrinsic::Barrier => {
                            if th.tid.is_none() {
                                fail!("`__syncthreads()` executed outside a kernel");
                            }
                            frame.pos += 1;
                            return Ok(Stop::Barrier(fid, inst));
                        }
                        Intrinsic::C(CFn::Abort) => {
                            // SIGABRT's status as a shell reports it; no
                            // `atexit` function runs.
                            self.aborted = true;
                            return Ok(Stop::Exit(ABORT_STATUS));
                        }
                        Intrinsic::C(CFn::AssertFail) => {
                            let ops: Vec<u64> = args.iter().map(|a| get!(a)).collect();
                            let report = tri!(clib::assert_message(&self.mem, &ops));
                            tri!(self.emit_to(2, &report));
                            self.aborted = true;
                            return Ok(Stop::Exit(ABORT_STATUS));
                        }
                        Intrinsic::C(f @ (CFn::Qsort | CFn::Bsearch)) => {
                            let ops: Vec<u64> = args.iter().map(|a| get!(a)).collect();
                            match self.call_back(*f, &ops) {
                                Ok(v) => set!(v.unwrap_or(0)),
                                Err(Interrupt::Exit(code)) => return Ok(Stop::Exit(code)),
                                Err(Interrupt::Fault(e)) => return Err(self.error(th, e)),
                                Err(Interrupt::Error(inner)) => {
                                    let outer = self.error(th, Fault::msg(String::new()));
                                    return Err(self.error_below(inner, outer));
                                }
                            }
                        }
                        Intrinsic::Exit => {
                            let code = match args.first() {
                                Some(a) => get!(a) as i32,
                                None => 0,
                            };
                            return Ok(Stop::Exit(code));
                        }
                        Intrinsic::RuntimeError => {
                            let at = args.first().map_or(0, |a| get!(a));
                            match clib::message(&self.mem, at) {
                                Ok(message) => fail!("{message}"),
                                Err(e) => return Err(self.error(th, e)),
                            }
                        }
                        _ => {
                            let rty = data.result.map(|r| func.values[r].ty);
                            let v =
                                tri!(self.intrinsic(*op, args, regs, func, th.tid, fid, inst, rty));
                            if let Some(v) = v {
                                set!(v)
                            }
                        }
                    },
                    InstKind::Launch {
                        kernel,
                        grid,
                        block,
                        args,
                    } => {
                        if th.tid.is_some() {
                            fail!("a kernel cannot launch another kernel");
                        }
                        let g = grid.map(|v| get!(v) as i32);
                        let b = block.map(|v| get!(v) as i32);
                        tri!(super::gpu::check_config(g, b));
                        let args: Vec<u64> = args.iter().map(|a| get!(a)).collect();
                        if let Some(code) = self.run_launch(*kernel, g, b, &args)? {
                            return Ok(Stop::Exit(code));
                        }
                    }
                    InstKind::Jump(dest) => {
                        tri!(branch(frame, func, dest, &mut self.scratch));
                        insts = &func.blocks[frame.block].insts;
                        continue;
                    }
                    InstKind::Brif {
                        cond,
                        then_dest,
                        else_dest,
                    } => {
                        let dest = if get!(cond) & 1 != 0 {
                            then_dest
                        } else {
                            else_dest
                        };
                        tri!(branch(frame, func, dest, &mut self.scratch));
                        insts = &func.blocks[frame.block].insts;
                        continue;
                    }
                    InstKind::Return(v) => {
                        if !frame.tasks.is_empty() {
                            fail!("`return` inside a task (a task must end with its reattach)");
                        }
                        break Action::Return(v.map(|v| get!(v)));
                    }
                    InstKind::Detach { task, cont, .. } => {
                        // Serial projection: run the task now, remember where
                        // its reattach continues.
                        frame.tasks.push((*cont, frame.allocas.len()));
                        goto!(*task)
                    }
                    InstKind::Reattach { cont, .. } => match frame.tasks.pop() {
                        Some((expected, first)) if expected == *cont => {
                            for &slot in &frame.allocas[first..] {
                                self.mem.kill(slot, State::TaskEnded, Site::Unknown);
                            }
                            frame.allocas.truncate(first);
                            goto!(*cont)
                        }
                        Some((expected, _)) => fail!(
                            "reattach continues at {cont} but the task was detached with continuation {expected}"
                        ),
                        None => fail!("reattach outside a task"),
                    },
                    // Every task detached before it has already run.
                    InstKind::Sync { next, .. } => goto!(*next),
                    InstKind::Unreachable => {
                        if func.sig.ret.is_some() {
                            // The words of native code's fault (the site
                            // names the function, also after inlining).
                            fail!("control reached end of non-void function");
                        }
                        fail!("reached unreachable code");
                    }
                }
                frame.pos += 1;
            };
            match action {
                Action::Call(new) => th.frames.push(new),
                Action::Return(value) => {
                    let done = th.frames.pop().expect("the returning frame");
                    self.release(done);
                    let Some(caller) = th.frames.last_mut() else {
                        return Ok(Stop::Finished(value));
                    };
                    let cf = &module.funcs[caller.func];
                    let call = cf.blocks[caller.block].insts[caller.pos];
                    if let (Some(r), Some(v)) = (cf.insts[call].result, value) {
                        caller.regs[r.index()] = v;
                    }
                    caller.pos += 1;
                }
            }
        }
    }

    /// The current block's instance of a `__shared__` global, made on
    /// first use.
    fn shared_addr(&mut self, g: crate::GlobalId) -> Result<u64, Fault> {
        let data = &self.module.globals[g];
        if data.is_import {
            return Err(Fault::msg(format!(
                "`{}` is defined outside this program (an `extern` variable of C code): the interpreter runs no C code; run the program natively",
                data.name
            )));
        }
        if data.space != AddrSpace::Shared {
            return Err(Fault::msg(format!("global `{}` has no address", data.name)));
        }
        let Some(ctx) = &mut self.gpu else {
            return Err(Fault::msg(format!(
                "shared variable `{}` used outside a kernel",
                data.name
            )));
        };
        let a = ctx.shared[g.index()];
        if a != 0 {
            return Ok(a);
        }
        let a = self
            .mem
            .alloc(data.size, Kind::Shared, Site::Shared(g, ctx.block_idx))?;
        ctx.shared[g.index()] = a;
        Ok(a)
    }

    /// Every intrinsic but `barrier` and `exit`; returns the result.
    #[allow(clippy::too_many_arguments)]
    fn intrinsic(
        &mut self,
        op: Intrinsic,
        args: &[Value],
        regs: &[u64],
        func: &Function,
        tid: Option<[i32; 3]>,
        fid: FuncId,
        inst: Inst,
        rty: Option<Type>,
    ) -> Result<Option<u64>, Fault> {
        use Intrinsic::*;
        let arg = |i: usize| -> Result<u64, Fault> {
            args.get(i)
                .map(|a| regs[a.index()])
                .ok_or_else(|| Fault::msg(format!("`{}` needs more arguments", op.name())))
        };
        let site = Site::Inst(fid, inst);
        let gpu_id = |ids: Option<[i32; 3]>, d: crate::Dim| -> Result<Option<u64>, Fault> {
            match ids {
                Some(ids) => Ok(Some(ids[d.index()] as i64 as u64)),
                None => Err(Fault::msg(format!("`{}` used outside a kernel", op.name()))),
            }
        };
        Ok(match op {
            // Every math function, through the C library's (`libm.rs`).
            Sqrt | Exp | Log | Pow | Sin | Cos | Tan | Tanh | Fabs | Fmin | Fmax | Floor | Ceil
            | Atan | Atan2 | Asin | Acos | Sinh | Cosh | Asinh | Acosh | Atanh | Log10 | Log2
            | Exp2 | Cbrt | Fmod | Round | Trunc | Hypot | Erf => {
                let f = libm::math_fn(op)
                    .ok_or_else(|| Fault::msg(format!("no C function for `{}`", op.name())))?;
                let mut xs = [0u64; 2];
                for (i, x) in xs.iter_mut().enumerate().take(op.info().params.len()) {
                    *x = arg(i)?;
                }
                Some(if rty == Some(Type::F32) {
                    f32_bits(f.f32(&xs.map(f32_of)))
                } else {
                    f.f64(&xs.map(f64::from_bits)).to_bits()
                })
            }
            Abs => Some(canon((arg(0)? as i32).wrapping_abs() as i64, Type::I32)),
            Labs => Some((arg(0)? as i64).wrapping_abs() as u64),
            Malloc => Some(self.mem.alloc(arg(0)?, Kind::Heap, site)?),
            Realloc => Some(self.mem.realloc(arg(0)?, arg(1)?, site)?),
            Calloc => {
                let (n, size) = (arg(0)?, arg(1)?);
                let total = n.saturating_mul(size);
                Some(self.mem.alloc(total, Kind::Heap, site)?)
            }
            Free => {
                self.mem.free(arg(0)?, site)?;
                None
            }
            Memcpy => {
                self.mem.copy(arg(0)?, arg(1)?, arg(2)?)?;
                None
            }
            Memset => {
                self.mem.fill(arg(0)?, arg(1)? as u8, arg(2)?)?;
                None
            }
            Printf | Fprintf | Sprintf | Snprintf | Vfprintf | Vsnprintf => {
                // `vsprintf` is `vsnprintf` without a bound; its faults name
                // the function the program called, as the runtime's do.
                let name = if op == Vsnprintf && arg(1)? == u64::MAX {
                    "vsprintf".into()
                } else {
                    op.name()
                };
                let fixed = op.info().params.len();
                // The `v` functions take a `va_list` after the format.
                let va = matches!(op, Vfprintf | Vsnprintf);
                let fd = match op {
                    // A file's: see below.
                    Fprintf | Vfprintf if arg(0)? > 3 => -1,
                    Fprintf | Vfprintf => clib::stream_fd(&self.mem, arg(0)?, &name)?,
                    _ => 1,
                };
                let fmt = arg(fixed - 1 - usize::from(va))?;
                let mut list = std::mem::take(&mut self.printf_args);
                list.clear();
                if va {
                    clib::va_slots(&name, &self.mem, arg(fixed - 1)?, &mut list)?;
                } else {
                    list.extend(
                        args[fixed..]
                            .iter()
                            .map(|a| clib::slot(regs[a.index()], func.values[*a].ty)),
                    );
                }
                let mut line = std::mem::take(&mut self.line);
                line.clear();
                clib::format(&name, &self.mem, fmt, &list, &mut line)?;
                match op {
                    Sprintf => clib::store_string("sprintf", &mut self.mem, arg(0)?, None, &line)?,
                    Snprintf | Vsnprintf => {
                        clib::store_string(&name, &mut self.mem, arg(0)?, Some(arg(1)?), &line)?
                    }
                    Fprintf | Vfprintf if fd < 0 => self.files.write(arg(0)?, &line)?,
                    _ => self.emit_to(fd, &line)?,
                }
                let n = line.len();
                self.line = line;
                self.printf_args = list;
                Some(canon(n as i64, Type::I32))
            }
            Sscanf | Fscanf => {
                let ptrs: Vec<u64> = args[2..].iter().map(|a| regs[a.index()]).collect();
                let n = self.scanf(op == Fscanf, arg(0)?, arg(1)?, &ptrs)?;
                Some(canon(i64::from(n), Type::I32))
            }
            C(CFn::Fflush) => {
                self.flush_output()?;
                Some(0)
            }
            C(f) => {
                let mut xs = [0u64; crate::CFn::MAX_PARAMS];
                for (i, x) in xs.iter_mut().enumerate().take(f.info().params.len()) {
                    *x = arg(i)?;
                }
                match f {
                    CFn::Atexit => {
                        let handler =
                            self.pointer_target(xs[0], &[], None).map_err(|e| match e {
                                Fault::Msg(m) => Fault::msg(format!("atexit: {m}")),
                                e => e,
                            })?;
                        self.atexit.push(handler);
                        Some(0)
                    }
                    CFn::Fopen
                    | CFn::Fclose
                    | CFn::Fread
                    | CFn::Fwrite
                    | CFn::Fgets
                    | CFn::Feof
                    | CFn::Ferror
                    | CFn::Fseek
                    | CFn::Ftell
                    | CFn::Fgetc
                    | CFn::Ungetc => Some(self.file_call(f, &xs, site)?),
                    CFn::Rewind => {
                        self.file_call(f, &xs, site)?;
                        None
                    }
                    CFn::Getopt | CFn::GetoptLong => Some(self.getopt_call(f, &xs)?),
                    _ => clib::call(&mut self.mem, &mut self.clib, f, &xs, site)?,
                }
            }
            Wtime => Some(wtime().to_bits()),
            AdTapeNote => {
                let (recorded, allocated) = (arg(0)? as i64, arg(1)? as i64);
                self.tape.get_or_insert_default().note(recorded, allocated);
                None
            }
            // The interpreter counts every note: nothing to switch on.
            AdTapeMeasure => Some(self.tape.get_or_insert_default().live_recorded as u64),
            PhysMem => Some(phys_mem() as u64),
            // The interpreter runs the serial projection: one worker.
            WorkerId => Some(0),
            NumWorkers => Some(1),
            ThreadIdx(d) => gpu_id(tid, d)?,
            BlockIdx(d) => gpu_id(self.gpu.as_ref().map(|g| g.block_idx), d)?,
            BlockDim(d) => gpu_id(self.gpu.as_ref().map(|g| g.block), d)?,
            GridDim(d) => gpu_id(self.gpu.as_ref().map(|g| g.grid), d)?,
            AtomicAdd => {
                let (p, v) = (arg(0)?, arg(1)?);
                let ty = func.values[args[1]].ty;
                let old = self.mem.load(p, ty)?;
                let new = match ty {
                    Type::F32 => f32_bits(f32_of(old) + f32_of(v)),
                    Type::F64 => (f64::from_bits(old) + f64::from_bits(v)).to_bits(),
                    _ => canon((old as i64).wrapping_add(v as i64), ty),
                };
                self.mem.store(p, ty, new)?;
                Some(old)
            }
            CudaMalloc => {
                let (out, bytes) = (arg(0)?, arg(1)?);
                let p = self.mem.alloc(bytes, Kind::Heap, site)?;
                self.mem.store(out, Type::Ptr, p)?;
                Some(0)
            }
            CudaMemcpy(_) => {
                self.mem.copy(arg(0)?, arg(1)?, arg(2)?)?;
                Some(0)
            }
            CudaFree => {
                self.mem.free(arg(0)?, site)?;
                Some(0)
            }
            CudaDeviceSynchronize => Some(0),
            Barrier | Exit | RuntimeError => unreachable!("handled by the step loop"),
        })
    }
}

/// The exit status of a program `abort()` ended, as a shell reports one
/// killed by `SIGABRT` (128 + 6).
const ABORT_STATUS: i32 = 134;

/// Passes a branch's arguments to its target's parameters and moves there.
#[inline]
fn branch(
    frame: &mut Frame,
    func: &Function,
    dest: &BlockCall,
    scratch: &mut Vec<u64>,
) -> Result<(), Fault> {
    let params = &func.blocks[dest.block].params;
    if params.len() != dest.args.len() {
        return Err(Fault::msg(format!(
            "branch to {} passes {} arguments for {} parameters",
            dest.block,
            dest.args.len(),
            params.len()
        )));
    }
    if !frame.vregs.is_empty() {
        // Vector lanes first, by the same rule (read all, then write).
        let vregs = &mut frame.vregs;
        let lanes: Vec<[u64; 4]> = dest.args.iter().map(|a| vregs[a.index()]).collect();
        for (p, v) in params.iter().zip(lanes) {
            vregs[p.index()] = v;
        }
    }
    match dest.args.as_slice() {
        [] => {}
        [a] => frame.regs[params[0].index()] = frame.regs[a.index()],
        args => {
            // All arguments are read before any parameter is written: a
            // loop may pass its parameters to themselves permuted.
            scratch.clear();
            scratch.extend(args.iter().map(|a| frame.regs[a.index()]));
            for (p, &v) in params.iter().zip(scratch.iter()) {
                frame.regs[p.index()] = v;
            }
        }
    }
    frame.block = dest.block;
    frame.pos = 0;
    Ok(())
}

/// The type a `load` makes or a `store` writes.
pub(super) fn load_store_type(func: &Function, kind: &InstKind, result: Option<Value>) -> Type {
    match (kind, result) {
        (InstKind::Store { value, .. }, _) => func.values[*value].ty,
        (_, Some(r)) => func.values[r].ty,
        _ => Type::I64,
    }
}

/// A binary operator on registers of type `ty` ([`crate::eval`]'s), a
/// division by zero a fault.
#[inline]
pub(super) fn binary(op: BinaryOp, ty: Type, x: u64, y: u64) -> Result<u64, Fault> {
    eval::binary(op, ty, x, y).map_err(|_| Fault::msg("integer division by zero"))
}

/// What `phys_mem` answers natively (the runtime's `parc_rt_phys_mem`):
/// `PARC_PHYS_MEM` if it is a number of bytes, else the physical pages
/// times their size, 0 if unknown.
// `c_long` is narrower than i64 on 32-bit targets: the casts stay.
#[allow(clippy::unnecessary_cast)]
fn phys_mem() -> i64 {
    if let Some(n) = std::env::var("PARC_PHYS_MEM")
        .ok()
        .and_then(|v| v.trim().parse::<i64>().ok())
    {
        return n.max(0);
    }
    // SAFETY: sysconf only reads the system's configuration.
    let (pages, size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    if pages <= 0 || size <= 0 {
        return 0;
    }
    (pages as i64).saturating_mul(size as i64)
}

/// Monotonic seconds, computed as the ParC prelude's `wtime` does.
fn wtime() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}
