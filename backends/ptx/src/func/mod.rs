//! One function's PTX: registers, instructions, control flow.
//!
//! Blocks are emitted in layout order (those reachable from the entry),
//! each under a label `$L__BB<n>`; a branch to the next block falls
//! through. A branch's arguments are moved into its target's parameter
//! registers on the edge; when an argument is itself a parameter of the
//! target (a loop rotating its values), all of them go through
//! temporaries first, so the moves act as one parallel copy.
//!
//! Beside this file: `memory` (`alloca`s as registers or in the local
//! frame, state-space addresses, loads, stores, zeroing), `arith`
//! (integer and float arithmetic, comparisons, casts) and `intrinsic`
//! (GPU ids, atomics, device math library calls, `memcpy`/`memset`,
//! `printf`); each module doc has its rules.

mod arith;
mod intrinsic;
mod memory;

use crate::space::{self, Space};
use crate::{ModuleCx, PtxError, global_symbol, symbol};
use parc_ir::{
    Block, BlockCall, FloatCC, FuncId, FuncKind, Function, Inst, InstKind, Intrinsic, SrcLoc, Type,
    UnaryOp, Value,
};
use std::collections::{HashMap, HashSet};
use std::fmt::Write;

/// A PTX register class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Class {
    Pred,
    B16,
    B32,
    B64,
    F32,
    F64,
}

impl Class {
    fn of(ty: Type) -> Class {
        match ty {
            Type::I1 => Class::Pred,
            Type::I8 | Type::I16 => Class::B16,
            Type::I32 => Class::B32,
            Type::I64 | Type::Ptr => Class::B64,
            Type::F32 => Class::F32,
            Type::F64 => Class::F64,
            // Refused by `check` before any register is made.
            Type::F64x2 | Type::F32x4 | Type::I64x2 | Type::I32x4 => Class::B64,
        }
    }

    fn prefix(self) -> &'static str {
        match self {
            Class::Pred => "p",
            Class::B16 => "rs",
            Class::B32 => "r",
            Class::B64 => "rd",
            Class::F32 => "f",
            Class::F64 => "fd",
        }
    }

    fn decl(self) -> &'static str {
        match self {
            Class::Pred => ".pred",
            Class::B16 => ".b16",
            Class::B32 => ".b32",
            Class::B64 => ".b64",
            Class::F32 => ".f32",
            Class::F64 => ".f64",
        }
    }

    const ALL: [Class; 6] = [
        Class::Pred,
        Class::B16,
        Class::B32,
        Class::B64,
        Class::F32,
        Class::F64,
    ];
}

/// The `.param` type a value of `ty` crosses a call as (`i1`, `i8` and
/// `i16` widen to 32 bits, as the PTX ABI does).
fn param_type(ty: Type) -> &'static str {
    match ty {
        Type::I1 | Type::I8 | Type::I16 | Type::I32 => ".b32",
        Type::I64 | Type::Ptr => ".b64",
        Type::F32 => ".f32",
        Type::F64 => ".f64",
        Type::F64x2 | Type::F32x4 | Type::I64x2 | Type::I32x4 => {
            unreachable!("no signature has a vector type (verifier)")
        }
    }
}

/// The `.func` line of a device function, without a body.
pub(crate) fn prototype(module: &parc_ir::Module, id: FuncId) -> String {
    let f = &module.funcs[id];
    let name = symbol(&f.name);
    let ret = f
        .sig
        .ret
        .map(|t| format!("(.param {} func_retval0) ", param_type(t)))
        .unwrap_or_default();
    let params: Vec<String> = f
        .sig
        .params
        .iter()
        .enumerate()
        .map(|(k, &t)| format!(".param {} {name}_param_{k}", param_type(t)))
        .collect();
    format!(".func {ret}{name} ({})", params.join(", "))
}

/// The suffix of a memory access of `ty` (`i1` is a byte).
fn mem_type(ty: Type) -> &'static str {
    match ty {
        Type::I1 | Type::I8 => ".u8",
        Type::I16 => ".u16",
        Type::I32 => ".u32",
        Type::I64 | Type::Ptr => ".u64",
        Type::F32 => ".f32",
        Type::F64 => ".f64",
        // Refused by `check` before any access is emitted.
        Type::F64x2 | Type::F32x4 | Type::I64x2 | Type::I32x4 => ".b64",
    }
}

/// The integer type suffix of width `ty` (`i8` computes in 16 bits).
fn int_type(ty: Type, signed: bool) -> &'static str {
    match (ty, signed) {
        (Type::I1 | Type::I8 | Type::I16, true) => ".s16",
        (Type::I1 | Type::I8 | Type::I16, false) => ".u16",
        (Type::I32, true) => ".s32",
        (Type::I32, false) => ".u32",
        (_, true) => ".s64",
        (_, false) => ".u64",
    }
}

fn bits_type(ty: Type) -> &'static str {
    match ty {
        Type::I1 | Type::I8 | Type::I16 => ".b16",
        Type::I32 | Type::F32 => ".b32",
        _ => ".b64",
    }
}

/// A float constant in PTX's exact hexadecimal form.
fn float_imm(ty: Type, x: f64) -> String {
    if ty == Type::F32 {
        format!("0f{:08X}", (x as f32).to_bits())
    } else {
        format!("0d{:016X}", x.to_bits())
    }
}

/// Where a promoted `alloca` lives: a register of this class.
fn slot_class(size: u32) -> Option<Class> {
    match size {
        1 => Some(Class::B16),
        4 => Some(Class::B32),
        8 => Some(Class::B64),
        _ => None,
    }
}

struct FnCx<'a, 'm> {
    cx: &'a mut ModuleCx<'m>,
    f: &'m Function,
    id: FuncId,
    is_kernel: bool,
    body: String,
    /// Temporaries per class: the next free number.
    temps: HashMap<Class, u32>,
    /// `alloca`s kept in registers: their register.
    slots: HashMap<Value, String>,
    /// `alloca`s in the local frame: their offset.
    frame: HashMap<Value, u32>,
    frame_size: u32,
    frame_align: u32,
    /// The printf argument buffer's offset in the frame, if any.
    printf_area: Option<u32>,
    space: HashMap<Value, Space>,
    /// Pointer values whose space-specific address some access uses.
    needs_conv: HashSet<Value>,
    /// Fault stubs to emit after the body: label, message symbol, and for
    /// `runtime_error` the register holding its message.
    faults: Vec<(String, String, Option<String>)>,
    labels: u32,
}

/// Emits the definition of `id` (a kernel's `.entry` or a `.func`).
pub(crate) fn emit_function(cx: &mut ModuleCx<'_>, id: FuncId) -> Result<String, PtxError> {
    let module = cx.module;
    let f = &module.funcs[id];
    let is_kernel = f.kind == FuncKind::Kernel;
    let mut fx = FnCx {
        cx,
        f,
        id,
        is_kernel,
        body: String::new(),
        temps: HashMap::new(),
        slots: HashMap::new(),
        frame: HashMap::new(),
        frame_size: 0,
        frame_align: 8,
        printf_area: None,
        space: HashMap::new(),
        needs_conv: HashSet::new(),
        faults: Vec::new(),
        labels: 0,
    };
    fx.check()?;
    fx.layout_allocas();
    let slots: HashSet<Value> = fx.slots.keys().copied().collect();
    if !fx.cx.opt_level.is_none() {
        fx.space = space::infer(module, f, is_kernel, &|v| !slots.contains(&v));
    }
    fx.find_conversions();
    fx.emit_body()?;
    Ok(fx.finish())
}

impl FnCx<'_, '_> {
    fn name(&self) -> String {
        symbol(&self.f.name)
    }

    /// The source function of `inst` (inlining moves code between
    /// functions; messages name the one written).
    fn source_func(&self, inst: Option<Inst>) -> String {
        let loc = inst.map(|i| self.f.locs[i]).unwrap_or_default();
        match loc.func {
            Some(fid) => self.cx.module.funcs[fid].name.clone(),
            None => self.f.name.clone(),
        }
    }

    fn error(&self, inst: Inst, message: impl Into<String>) -> PtxError {
        PtxError {
            function: self.source_func(Some(inst)),
            loc: self.f.locs[inst],
            message: message.into(),
        }
    }

    /// Refuses what device code cannot contain (see the crate doc).
    fn check(&self) -> Result<(), PtxError> {
        let module = self.cx.module;
        for (_, i) in self.f.placed_insts() {
            let refuse = |what: &str| Err(self.error(i, what.to_string()));
            // The verifier keeps vectors out of device code; the loop
            // vectorizer, which makes them, leaves it alone.
            let vector = |v: Value| self.f.value_type(v).is_vector();
            if self.f.result(i).is_some_and(vector)
                || self.f.inst(i).operands().into_iter().any(vector)
            {
                return refuse(
                    "vector values (parc's loop vectorizer makes them for the CPU only)",
                );
            }
            match self.f.inst(i) {
                InstKind::Detach { .. } | InstKind::Reattach { .. } | InstKind::Sync { .. } => {
                    return refuse("`spawn`, `sync` and `parallel_for` cannot run on the GPU");
                }
                InstKind::Launch { .. } => {
                    return refuse("a kernel launch inside device code");
                }
                InstKind::CallIndirect { .. } => {
                    return refuse("a call through a function pointer (device code has none)");
                }
                InstKind::FuncAddr(g) => {
                    return refuse(&format!(
                        "the address of function `{}` (device code has no function pointers)",
                        module.funcs[*g].name
                    ));
                }
                InstKind::Call { func, .. } if module.funcs[*func].is_declaration() => {
                    return refuse(&format!(
                        "a call to `extern` function `{}`, which is not defined in this program",
                        module.funcs[*func].name
                    ));
                }
                InstKind::Intrinsic { op, .. } => {
                    use Intrinsic::*;
                    let what = match op {
                        Exit => "`exit` (a GPU thread cannot end the program)",
                        Fprintf => "`fprintf` (GPU code prints with `printf`)",
                        Sprintf => "`sprintf` (a C library function)",
                        Snprintf => "`snprintf` (a C library function)",
                        Vfprintf => "`vfprintf` (a C library function)",
                        Vsnprintf => "`vsnprintf` (a C library function)",
                        Sscanf => "`sscanf` (a C library function)",
                        Fscanf => "`fscanf` (a C library function)",
                        C(f) => {
                            return refuse(&format!(
                                "`{}` (a C library function) cannot run on the GPU",
                                f.name()
                            ));
                        }
                        CudaMalloc | CudaMemcpy(_) | CudaFree | CudaDeviceSynchronize => {
                            "a CUDA memory call inside device code"
                        }
                        WorkerId | NumWorkers => {
                            "the CPU runtime's worker ids (a gradient made for the CPU; compile it for the GPU)"
                        }
                        op if op.is_math() && !crate::math::on_the_gpu(*op) => {
                            return refuse(&format!(
                                "`{}` cannot run on the GPU yet: parc's device math library has {} (compute it on the host, or write it in the kernel)",
                                op.info().c_name.map_or(op.name(), str::to_string),
                                crate::math::LIBRARY_NAMES
                            ));
                        }
                        _ => continue,
                    };
                    return refuse(&format!("{what} cannot run on the GPU"));
                }
                InstKind::GlobalAddr(g) => {
                    let data = &module.globals[*g];
                    if data.space == parc_ir::AddrSpace::Global
                        && !data.is_const
                        && !self.only_read(i)
                    {
                        return refuse(&format!(
                            "the global variable `{}` is written by device code: the GPU has its own copy, which the host would not see (pass an array allocated with `cudaMalloc` instead)",
                            data.name
                        ));
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// True if the address `global_addr` defines is only read through
    /// (loads, possibly after `ptradd`).
    fn only_read(&self, inst: Inst) -> bool {
        let Some(root) = self.f.result(inst) else {
            return true;
        };
        let mut derived: HashSet<Value> = HashSet::from([root]);
        let mut ok = true;
        let mut grew = true;
        while grew {
            grew = false;
            for (_, i) in self.f.placed_insts() {
                let kind = self.f.inst(i);
                match kind {
                    InstKind::PtrAdd(p, _) if derived.contains(p) => {
                        if let Some(r) = self.f.result(i) {
                            grew |= derived.insert(r);
                        }
                    }
                    InstKind::Load(_) => {}
                    _ => kind.for_each_operand(|v| ok &= !derived.contains(&v)),
                }
            }
        }
        ok
    }

    fn reg(&self, v: Value) -> String {
        let class = Class::of(self.f.value_type(v));
        format!("%{}{}", class.prefix(), v.as_u32())
    }

    /// The space-specific address register of pointer `v`.
    fn conv_reg(&self, v: Value) -> String {
        format!("%rd_s{}", v.as_u32())
    }

    fn temp(&mut self, class: Class) -> String {
        let n = self.temps.entry(class).or_insert(0);
        let name = format!("%{}t{}", class.prefix(), n);
        *n += 1;
        name
    }

    fn label(&mut self, what: &str) -> String {
        self.labels += 1;
        format!("$L__{what}{}", self.labels)
    }

    fn line(&mut self, text: impl AsRef<str>) {
        self.body.push('\t');
        self.body.push_str(text.as_ref());
        self.body.push('\n');
    }

    fn put_label(&mut self, label: &str) {
        let _ = writeln!(self.body, "{label}:");
    }

    fn block_label(&self, b: Block) -> String {
        format!("$L__BB{}", b.as_u32())
    }

    /// The blocks reachable from the entry, in layout order.
    fn reachable(&self) -> Vec<Block> {
        let f = self.f;
        let mut seen: HashSet<Block> = HashSet::new();
        let mut stack = vec![f.layout[0]];
        while let Some(b) = stack.pop() {
            if seen.insert(b) {
                stack.extend(f.successors(b));
            }
        }
        f.layout
            .iter()
            .copied()
            .filter(|b| seen.contains(b))
            .collect()
    }

    fn emit_body(&mut self) -> Result<(), PtxError> {
        let f = self.f;
        let entry = f.layout[0];
        if self.frame_size > 0 {
            self.line(format!("mov.u64 %SPL, __local_depot{};", self.id.as_u32()));
            self.line("cvta.local.u64 %SP, %SPL;");
        }
        let name = self.name();
        for (k, &p) in f.block_params(entry).iter().enumerate() {
            let ty = f.value_type(p);
            let r = self.reg(p);
            let param = format!("{name}_param_{k}");
            if self.is_kernel {
                match ty {
                    Type::I1 => {
                        let t = self.temp(Class::B16);
                        self.line(format!("ld.param.u8 {t}, [{param}];"));
                        self.line(format!("setp.ne.b16 {r}, {t}, 0;"));
                    }
                    _ => self.line(format!("ld.param{} {r}, [{param}];", mem_type(ty))),
                }
            } else {
                self.load_param(ty, &r, &param);
            }
            self.after_def(p);
        }
        if self.is_kernel {
            self.zero_shared();
        }
        let blocks = self.reachable();
        for (n, &b) in blocks.iter().enumerate() {
            let next = blocks.get(n + 1).copied();
            if b != entry {
                let label = self.block_label(b);
                self.put_label(&label);
                for &p in f.block_params(b) {
                    self.after_def(p);
                }
            }
            for &i in f.block_insts(b) {
                self.emit_inst(i, next)?;
            }
        }
        Ok(())
    }

    /// Reads a `.func`'s parameter into `r`.
    fn load_param(&mut self, ty: Type, r: &str, param: &str) {
        match ty {
            Type::I1 => {
                let t = self.temp(Class::B32);
                self.line(format!("ld.param.b32 {t}, [{param}];"));
                self.line(format!("setp.ne.b32 {r}, {t}, 0;"));
            }
            Type::I8 | Type::I16 => {
                let t = self.temp(Class::B32);
                self.line(format!("ld.param.b32 {t}, [{param}];"));
                self.line(format!("cvt.u16.u32 {r}, {t};"));
            }
            _ => self.line(format!("ld.param{} {r}, [{param}];", param_type(ty))),
        }
    }

    /// Writes `v` into `.param` `param` (widening `i1`/`i8`).
    fn store_param(&mut self, v: Value, param: &str) {
        let ty = self.f.value_type(v);
        let r = self.reg(v);
        match ty {
            Type::I1 => {
                let t = self.temp(Class::B32);
                self.line(format!("selp.u32 {t}, 1, 0, {r};"));
                self.line(format!("st.param.b32 [{param}], {t};"));
            }
            Type::I8 | Type::I16 => {
                let t = self.temp(Class::B32);
                let from = if ty == Type::I8 { "s8" } else { "s16" };
                self.line(format!("cvt.s32.{from} {t}, {r};"));
                self.line(format!("st.param.b32 [{param}], {t};"));
            }
            _ => self.line(format!("st.param{} [{param}], {r};", param_type(ty))),
        }
    }

    /// After `v` is defined: its space-specific address, if accesses use it.
    fn after_def(&mut self, v: Value) {
        if !self.needs_conv.contains(&v) {
            return;
        }
        let s = self.space_of(v);
        let (c, r) = (self.conv_reg(v), self.reg(v));
        self.line(format!("cvta.to{}.u64 {c}, {r};", s.suffix()));
    }

    /// A fault stub's label: the thread prints `message` (the CPU's
    /// report for this instruction) and traps.
    fn fault(&mut self, inst: Inst, message: &str) -> String {
        let text = format!("{}\n", self.report(inst, message));
        let sym = self.cx.message(&text);
        let label = self.label("fault");
        self.faults.push((label.clone(), sym, None));
        label
    }

    /// The one-line report of a run-time error at `inst`, as the runtime
    /// words it (`run-time error in function `f` at line L:C: ...`).
    fn report(&self, inst: Inst, message: &str) -> String {
        let loc: SrcLoc = self.f.locs[inst];
        let mut s = format!(
            "run-time error in function `{}`",
            self.source_func(Some(inst))
        );
        if loc.is_known() {
            let _ = write!(s, " at line {}:{}", loc.line, loc.col);
            if let Some(file) = self.cx.module.file_of(loc) {
                let _ = write!(s, " of {file}");
            }
        }
        let _ = write!(s, ": {message}");
        s
    }

    fn emit_inst(&mut self, i: Inst, next: Option<Block>) -> Result<(), PtxError> {
        let f = self.f;
        let kind = f.inst(i).clone();
        let res = f.result(i);
        let rt = res.map(|r| f.value_type(r));
        let d = res.map(|r| self.reg(r)).unwrap_or_default();
        match kind {
            InstKind::Splat(_)
            | InstKind::ExtractLane(..)
            | InstKind::InsertLane(..)
            | InstKind::Reduce(..) => {
                return Err(self.error(
                    i,
                    "vector values (parc's loop vectorizer makes them for the CPU only)",
                ));
            }
            InstKind::Iconst(k) => {
                let ty = rt.expect("iconst has a result");
                if ty == Type::I1 {
                    self.line(format!("setp.ne.u32 {d}, {}, 0;", k & 1));
                } else {
                    self.line(format!("mov{} {d}, {k};", bits_type(ty)));
                }
            }
            InstKind::Fconst(x) => {
                let ty = rt.expect("fconst has a result");
                let ft = if ty == Type::F32 { ".f32" } else { ".f64" };
                self.line(format!("mov{ft} {d}, {};", float_imm(ty, x)));
            }
            InstKind::GlobalAddr(g) => {
                let data = &self.cx.module.globals[g];
                let sym = global_symbol(&data.name);
                let space = if data.space == parc_ir::AddrSpace::Shared {
                    ".shared"
                } else {
                    ".global"
                };
                self.cx.used_globals.insert(g);
                let t = self.temp(Class::B64);
                self.line(format!("mov.u64 {t}, {sym};"));
                self.line(format!("cvta{space}.u64 {d}, {t};"));
            }
            InstKind::FuncAddr(_) => unreachable!("refused by `check`"),
            InstKind::Unary(UnaryOp::Fneg, a) => {
                let ft = if rt == Some(Type::F32) {
                    ".f32"
                } else {
                    ".f64"
                };
                let a = self.reg(a);
                self.line(format!("neg{ft} {d}, {a};"));
            }
            InstKind::Binary(op, a, b) => self.binary(i, op, &d, a, b)?,
            InstKind::Icmp(cc, a, b) => self.icmp(&d, cc, a, b),
            InstKind::Fcmp(cc, a, b) => {
                let ty = f.value_type(a);
                let c = match cc {
                    FloatCC::Eq => "eq",
                    FloatCC::Ne => "neu",
                    FloatCC::Lt => "lt",
                    FloatCC::Le => "le",
                    FloatCC::Gt => "gt",
                    FloatCC::Ge => "ge",
                };
                let ft = if ty == Type::F32 { ".f32" } else { ".f64" };
                let (a, b) = (self.reg(a), self.reg(b));
                self.line(format!("setp.{c}{ft} {d}, {a}, {b};"));
            }
            InstKind::Cast(op, a) => self.cast(i, op, &d, rt.expect("a cast has a result"), a)?,
            InstKind::Select(c, a, b) => {
                let ty = rt.expect("select has a result");
                let (c, a, b) = (self.reg(c), self.reg(a), self.reg(b));
                if ty == Type::I1 {
                    self.line(format!("@{c} mov.pred {d}, {a};"));
                    self.line(format!("@!{c} mov.pred {d}, {b};"));
                } else {
                    let t = match ty {
                        Type::F32 => ".f32",
                        Type::F64 => ".f64",
                        other => bits_type(other),
                    };
                    self.line(format!("selp{t} {d}, {a}, {b}, {c};"));
                }
            }
            InstKind::Alloca { size, .. } => {
                let v = res.expect("alloca has a result");
                if let Some(slot) = self.slots.get(&v).cloned() {
                    let class = slot_class(size).expect("promoted allocas have a class");
                    self.line(format!("mov{} {slot}, 0;", class.decl()));
                } else {
                    let at = self.frame[&v];
                    self.line(format!("add.u64 {d}, %SP, {at};"));
                    self.zero_frame(at, size);
                }
            }
            InstKind::Load(p) => self.load(i, &d, rt.expect("a load has a result"), p),
            InstKind::Store { value, ptr } => self.store(value, ptr),
            InstKind::PtrAdd(p, o) => {
                let (p, o) = (self.reg(p), self.reg(o));
                self.line(format!("add.s64 {d}, {p}, {o};"));
            }
            InstKind::Call { func, args } => {
                let callee = &self.cx.module.funcs[func];
                let name = symbol(&callee.name);
                let ret_ty = callee.sig.ret;
                self.line("{");
                let mut params = Vec::new();
                for (k, &a) in args.iter().enumerate() {
                    let p = format!("param{k}");
                    self.line(format!(".param {} {p};", param_type(self.f.value_type(a))));
                    self.store_param(a, &p);
                    params.push(p);
                }
                let ret = match ret_ty {
                    Some(t) => {
                        self.line(format!(".param {} retval0;", param_type(t)));
                        "(retval0), "
                    }
                    None => "",
                };
                self.line(format!("call {ret}{name}, ({});", params.join(", ")));
                if let (Some(t), Some(_)) = (ret_ty, res) {
                    self.load_param(t, &d, "retval0");
                }
                self.line("}");
            }
            InstKind::Intrinsic { op, args } => self.intrinsic(i, op, &d, rt, &args)?,
            InstKind::Launch { .. } | InstKind::CallIndirect { .. } => {
                unreachable!("refused by `check`")
            }
            InstKind::Jump(call) => {
                self.edge(&call);
                if Some(call.block) != next {
                    let l = self.block_label(call.block);
                    self.line(format!("bra {l};"));
                }
            }
            InstKind::Brif {
                cond,
                then_dest,
                else_dest,
            } => {
                let c = self.reg(cond);
                let then_label = self.block_label(then_dest.block);
                if Some(then_dest.block) == next
                    && then_dest.args.is_empty()
                    && else_dest.args.is_empty()
                {
                    // Fall into the taken side; branch away otherwise.
                    let l = self.block_label(else_dest.block);
                    self.line(format!("@!{c} bra {l};"));
                } else if then_dest.args.is_empty() {
                    self.line(format!("@{c} bra {then_label};"));
                    self.edge(&else_dest);
                    if Some(else_dest.block) != next {
                        let l = self.block_label(else_dest.block);
                        self.line(format!("bra {l};"));
                    }
                } else {
                    let taken = self.label("then");
                    self.line(format!("@{c} bra {taken};"));
                    self.edge(&else_dest);
                    let l = self.block_label(else_dest.block);
                    self.line(format!("bra {l};"));
                    self.put_label(&taken);
                    self.edge(&then_dest);
                    if Some(then_dest.block) != next {
                        self.line(format!("bra {then_label};"));
                    }
                }
            }
            InstKind::Return(v) => {
                if let Some(v) = v {
                    self.store_param(v, "func_retval0");
                }
                self.line("ret;");
            }
            InstKind::Unreachable => {
                let l = self.fault(i, "control reached end of non-void function");
                self.line(format!("bra {l};"));
            }
            InstKind::Detach { .. } | InstKind::Reattach { .. } | InstKind::Sync { .. } => {
                unreachable!("refused by `check`")
            }
        }
        if let Some(r) = res {
            self.after_def(r);
        }
        Ok(())
    }

    /// Moves a branch's arguments into its target's parameters, as one
    /// parallel copy.
    fn edge(&mut self, call: &BlockCall) {
        let params = self.f.block_params(call.block).to_vec();
        let pairs: Vec<(Value, Value)> = params
            .iter()
            .copied()
            .zip(call.args.iter().copied())
            .filter(|(p, a)| p != a)
            .collect();
        if pairs.is_empty() {
            return;
        }
        let clobbers = pairs.iter().any(|(_, a)| params.contains(a));
        let mut moves: Vec<(String, String, Class)> = Vec::new();
        for &(p, a) in &pairs {
            let class = Class::of(self.f.value_type(p));
            moves.push((self.reg(p), self.reg(a), class));
            if self.needs_conv.contains(&p) {
                // Recomputed from the generic address below.
            }
        }
        if clobbers {
            let mut staged = Vec::new();
            for (dst, src, class) in moves {
                let t = self.temp(class);
                self.line(format!("mov{} {t}, {src};", class.decl()));
                staged.push((dst, t, class));
            }
            for (dst, t, class) in staged {
                self.line(format!("mov{} {dst}, {t};", class.decl()));
            }
        } else {
            for (dst, src, class) in moves {
                self.line(format!("mov{} {dst}, {src};", class.decl()));
            }
        }
    }

    /// The function's text: signature, declarations, body, fault stubs.
    fn finish(mut self) -> String {
        let faults = std::mem::take(&mut self.faults);
        for (label, sym, arg) in faults {
            self.put_label(&label);
            let t = self.temp(Class::B64);
            self.line(format!("mov.u64 {t}, {sym};"));
            self.line(format!("cvta.global.u64 {t}, {t};"));
            let buf = match arg {
                Some(m) => {
                    // The message pointer: vprintf's one argument.
                    let at = self.printf_area.expect("runtime_error reserves the buffer");
                    let b = self.temp(Class::B64);
                    self.line(format!("st.local.u64 [%SPL+{at}], {m};"));
                    self.line(format!("add.u64 {b}, %SP, {at};"));
                    b
                }
                None => "0".to_string(),
            };
            self.line("{");
            self.line(".param .b64 param0;");
            self.line(format!("st.param.b64 [param0], {t};"));
            self.line(".param .b64 param1;");
            self.line(format!("st.param.b64 [param1], {buf};"));
            self.line(".param .b32 retval0;");
            self.line("call (retval0), vprintf, (param0, param1);");
            self.line("}");
            self.line("trap;");
        }
        let f = self.f;
        let name = self.name();
        let mut out = String::new();
        if self.is_kernel {
            let params: Vec<String> = f
                .sig
                .params
                .iter()
                .enumerate()
                .map(|(k, &t)| format!("\t.param {} {name}_param_{k}", mem_type(t)))
                .collect();
            let _ = writeln!(out, ".visible .entry {name}(\n{}\n)", params.join(",\n"));
        } else {
            let _ = writeln!(out, "{}", prototype(self.cx.module, self.id));
        }
        out.push_str("{\n");
        if self.frame_size > 0 {
            let _ = writeln!(
                out,
                "\t.local .align {} .b8 __local_depot{}[{}];",
                self.frame_align,
                self.id.as_u32(),
                self.frame_size
            );
            out.push_str("\t.reg .b64 %SP;\n\t.reg .b64 %SPL;\n");
        }
        // One register per value of each class (numbered by value), the
        // temporaries, and the space-specific addresses.
        let n_values = f.values.len();
        for class in Class::ALL {
            let used = f.values.values().any(|v| Class::of(v.ty) == class);
            if used {
                let _ = writeln!(
                    out,
                    "\t.reg {} %{}<{}>;",
                    class.decl(),
                    class.prefix(),
                    n_values
                );
            }
            if let Some(&n) = self.temps.get(&class)
                && n > 0
            {
                let _ = writeln!(out, "\t.reg {} %{}t<{}>;", class.decl(), class.prefix(), n);
            }
        }
        if !self.needs_conv.is_empty() {
            let _ = writeln!(out, "\t.reg .b64 %rd_s<{n_values}>;");
        }
        out.push_str(&self.body);
        out.push_str("}\n");
        out
    }
}
