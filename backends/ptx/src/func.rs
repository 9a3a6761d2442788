//! One function's PTX: registers, instructions, control flow.
//!
//! Blocks are emitted in layout order (those reachable from the entry),
//! each under a label `$L__BB<n>`; a branch to the next block falls
//! through. A branch's arguments are moved into its target's parameter
//! registers on the edge; when an argument is itself a parameter of the
//! target (a loop rotating its values), all of them go through
//! temporaries first, so the moves act as one parallel copy.
//!
//! An `alloca` of 1, 4 or 8 bytes that is only ever the address of
//! loads and stores of its whole size is not memory but a register of
//! that width (PTX registers are mutable): stores move into it, loads
//! out of it, whatever the types (a `double` stored and read back as a
//! `long` is a bit copy). Other `alloca`s live in the function's local
//! frame (`.local` depot), zeroed where the instruction stands, each
//! time it executes.
//!
//! `i8` values live in 16-bit registers whose upper bits are unspecified:
//! operations whose result depends on them (comparisons, division,
//! right shifts, widening) extend first. `i1` values are predicates;
//! in memory and across calls they are bytes / 32-bit words 0 or 1.

use crate::space::{self, Space};
use crate::{ModuleCx, PtxError, global_symbol, symbol};
use parc_ir::{
    BinaryOp, Block, BlockCall, CastOp, FloatCC, FuncId, FuncKind, Function, Inst, InstKind, IntCC,
    Intrinsic, SrcLoc, Type, UnaryOp, Value, ValueDef,
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
                        Atoi | Atol | Atof => {
                            "string-to-number conversion (`atoi`, `atol`, `atof`)"
                        }
                        Strcmp => "`strcmp`",
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

    /// Chooses which `alloca`s are registers and where the others sit in
    /// the frame.
    fn layout_allocas(&mut self) {
        let f = self.f;
        let mut uses: HashMap<Value, Vec<(Type, bool)>> = HashMap::new();
        let mut escapes: HashSet<Value> = HashSet::new();
        for (_, i) in f.placed_insts() {
            match f.inst(i) {
                InstKind::Load(p) => {
                    let ty = f.value_type(f.result(i).expect("a load has a result"));
                    uses.entry(*p).or_default().push((ty, false));
                }
                InstKind::Store { value, ptr } => {
                    uses.entry(*ptr)
                        .or_default()
                        .push((f.value_type(*value), true));
                    escapes.insert(*value);
                }
                other => other.for_each_operand(|v| {
                    escapes.insert(v);
                }),
            }
        }
        for (_, i) in f.placed_insts() {
            let InstKind::Alloca { size, align } = *f.inst(i) else {
                continue;
            };
            let v = f.result(i).expect("an alloca has a result");
            let promotable = !escapes.contains(&v)
                && slot_class(size).is_some()
                && uses
                    .get(&v)
                    .is_none_or(|u| u.iter().all(|(ty, _)| ty.bytes() == size));
            if promotable && let Some(class) = slot_class(size) {
                let reg = self.temp(class);
                self.slots.insert(v, reg);
                continue;
            }
            let align = align.max(1);
            self.frame_align = self.frame_align.max(align);
            let at = self.frame_size.next_multiple_of(align);
            self.frame.insert(v, at);
            self.frame_size = at + size;
        }
        // The printf buffer: room for the most arguments one call passes.
        let mut most = 0u32;
        for (_, i) in f.placed_insts() {
            match f.inst(i) {
                InstKind::Intrinsic {
                    op: Intrinsic::Printf,
                    args,
                } => most = most.max(8 * args.len().saturating_sub(1) as u32),
                // Its message pointer is vprintf's argument.
                InstKind::Intrinsic {
                    op: Intrinsic::RuntimeError,
                    ..
                } => most = most.max(8),
                _ => {}
            }
        }
        if most > 0 {
            let at = self.frame_size.next_multiple_of(8);
            self.printf_area = Some(at);
            self.frame_size = at + most;
        }
    }

    /// The pointers whose space-specific address an access uses.
    fn find_conversions(&mut self) {
        let f = self.f;
        let mut want = Vec::new();
        for (_, i) in f.placed_insts() {
            let addr = match f.inst(i) {
                InstKind::Load(p) => *p,
                InstKind::Store { ptr, .. } => *ptr,
                InstKind::Intrinsic {
                    op: Intrinsic::AtomicAdd,
                    args,
                } => args[0],
                _ => continue,
            };
            if self.slots.contains_key(&addr) {
                continue;
            }
            let (base, _) = self.address(addr);
            if self.space_of(base) != Space::Generic {
                want.push(base);
            }
        }
        self.needs_conv.extend(want);
    }

    fn space_of(&self, v: Value) -> Space {
        self.space.get(&v).copied().unwrap_or(Space::Generic)
    }

    /// `v` as a base and a constant displacement: `ptradd q, c` with `q`
    /// in the same space and `c` a 32-bit constant gives `(q, c)`.
    fn address(&self, v: Value) -> (Value, i64) {
        if let ValueDef::Result(i) = self.f.value_def(v)
            && let InstKind::PtrAdd(q, off) = self.f.inst(i)
            && let Some(c) = self.f.const_int(*off)
            && i32::try_from(c).is_ok()
            && self.space_of(*q) == self.space_of(v)
            && !self.slots.contains_key(q)
        {
            return (*q, c);
        }
        (v, 0)
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

    /// Zeroes the shared arrays this kernel and its callees use, then
    /// waits for the block (see the crate doc).
    fn zero_shared(&mut self) {
        let module = self.cx.module;
        let mut shared: Vec<parc_ir::GlobalId> = Vec::new();
        let mut seen: HashSet<FuncId> = HashSet::new();
        let mut stack = vec![self.id];
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            let g = &module.funcs[id];
            for (_, i) in g.placed_insts() {
                match g.inst(i) {
                    InstKind::GlobalAddr(gl)
                        if module.globals[*gl].space == parc_ir::AddrSpace::Shared
                            && !shared.contains(gl) =>
                    {
                        shared.push(*gl);
                    }
                    InstKind::Call { func, .. } => stack.push(*func),
                    _ => {}
                }
            }
        }
        if shared.is_empty() {
            return;
        }
        shared.sort();
        let (tid, n) = (self.temp(Class::B32), self.temp(Class::B32));
        let (a, b) = (self.temp(Class::B32), self.temp(Class::B32));
        // Linear thread number and block size.
        self.line(format!("mov.u32 {tid}, %tid.z;"));
        self.line(format!("mov.u32 {a}, %ntid.y;"));
        self.line(format!("mov.u32 {b}, %tid.y;"));
        self.line(format!("mad.lo.s32 {tid}, {tid}, {a}, {b};"));
        self.line(format!("mov.u32 {a}, %ntid.x;"));
        self.line(format!("mov.u32 {b}, %tid.x;"));
        self.line(format!("mad.lo.s32 {tid}, {tid}, {a}, {b};"));
        self.line(format!("mov.u32 {n}, %ntid.y;"));
        self.line(format!("mul.lo.s32 {n}, {n}, {a};"));
        self.line(format!("mov.u32 {a}, %ntid.z;"));
        self.line(format!("mul.lo.s32 {n}, {n}, {a};"));
        for g in shared {
            let data = &module.globals[g];
            let words = data.size.max(1).div_ceil(4);
            let sym = global_symbol(&data.name);
            let (i, p) = (self.temp(Class::B32), self.temp(Class::Pred));
            let (off, addr) = (self.temp(Class::B32), self.temp(Class::B32));
            let (top, done) = (self.label("zero"), self.label("zeroed"));
            self.line(format!("mov.u32 {i}, {tid};"));
            self.put_label(&top);
            self.line(format!("setp.ge.u32 {p}, {i}, {words};"));
            self.line(format!("@{p} bra {done};"));
            self.line(format!("shl.b32 {off}, {i}, 2;"));
            self.line(format!("mov.u32 {addr}, {sym};"));
            self.line(format!("add.s32 {addr}, {addr}, {off};"));
            self.line(format!("st.shared.u32 [{addr}], 0;"));
            self.line(format!("add.s32 {i}, {i}, {n};"));
            self.line(format!("bra {top};"));
            self.put_label(&done);
            self.cx.used_globals.insert(g);
        }
        self.line("barrier.sync 0;");
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

    /// Stores zeros over `size` bytes of the frame at `at`.
    fn zero_frame(&mut self, at: u32, size: u32) {
        let mut off = at;
        let end = at + size;
        if size > 256 {
            let (i, p, a) = (
                self.temp(Class::B64),
                self.temp(Class::Pred),
                self.temp(Class::B64),
            );
            let whole = (end - off) / 8 * 8;
            let (top, done) = (self.label("clear"), self.label("cleared"));
            let start = off.next_multiple_of(8);
            // Bytes before the first aligned word.
            while off < start {
                self.line(format!("st.local.u8 [%SPL+{off}], 0;"));
                off += 1;
            }
            let whole = whole.min((end - start) / 8 * 8);
            self.line(format!("mov.u64 {i}, 0;"));
            self.put_label(&top);
            self.line(format!("setp.ge.u64 {p}, {i}, {whole};"));
            self.line(format!("@{p} bra {done};"));
            self.line(format!("add.s64 {a}, %SPL, {i};"));
            self.line(format!("st.local.u64 [{a}+{start}], 0;"));
            self.line(format!("add.s64 {i}, {i}, 8;"));
            self.line(format!("bra {top};"));
            self.put_label(&done);
            off = start + whole;
        }
        while off < end {
            let (w, t) = if off.is_multiple_of(8) && end - off >= 8 {
                (8, ".u64")
            } else if off.is_multiple_of(4) && end - off >= 4 {
                (4, ".u32")
            } else if off.is_multiple_of(2) && end - off >= 2 {
                (2, ".u16")
            } else {
                (1, ".u8")
            };
            self.line(format!("st.local{t} [%SPL+{off}], 0;"));
            off += w;
        }
    }

    /// `[base+disp]` for an access at `p`, and its state space.
    fn operand(&self, p: Value) -> (String, Space) {
        let (base, disp) = self.address(p);
        let space = self.space_of(base);
        let reg = if space == Space::Generic {
            self.reg(base)
        } else {
            self.conv_reg(base)
        };
        let text = if disp == 0 {
            format!("[{reg}]")
        } else {
            format!("[{reg}+{disp}]")
        };
        (text, space)
    }

    fn load(&mut self, i: Inst, d: &str, ty: Type, p: Value) {
        let _ = i;
        if let Some(slot) = self.slots.get(&p).cloned() {
            match ty {
                Type::I1 => self.line(format!("setp.ne.b16 {d}, {slot}, 0;")),
                _ => self.line(format!("mov{} {d}, {slot};", bits_type(ty))),
            }
            return;
        }
        let (addr, space) = self.operand(p);
        let s = space.suffix();
        match ty {
            Type::I1 => {
                let t = self.temp(Class::B16);
                self.line(format!("ld{s}.u8 {t}, {addr};"));
                self.line(format!("and.b16 {t}, {t}, 1;"));
                self.line(format!("setp.ne.b16 {d}, {t}, 0;"));
            }
            _ => self.line(format!("ld{s}{} {d}, {addr};", mem_type(ty))),
        }
    }

    fn store(&mut self, value: Value, p: Value) {
        let ty = self.f.value_type(value);
        let v = self.reg(value);
        if let Some(slot) = self.slots.get(&p).cloned() {
            match ty {
                Type::I1 => self.line(format!("selp.u16 {slot}, 1, 0, {v};")),
                _ => self.line(format!("mov{} {slot}, {v};", bits_type(ty))),
            }
            return;
        }
        let (addr, space) = self.operand(p);
        let s = space.suffix();
        match ty {
            Type::I1 => {
                let t = self.temp(Class::B16);
                self.line(format!("selp.u16 {t}, 1, 0, {v};"));
                self.line(format!("st{s}.u8 {addr}, {t};"));
            }
            _ => self.line(format!("st{s}{} {addr}, {v};", mem_type(ty))),
        }
    }

    /// `v` widened to 16 bits as the signed or unsigned `i8` (or `i1`) it is.
    fn small_int(&mut self, v: Value, signed: bool) -> String {
        let r = self.reg(v);
        let t = self.temp(Class::B16);
        match self.f.value_type(v) {
            Type::I1 => {
                let one = if signed { "-1" } else { "1" };
                self.line(format!("selp.u16 {t}, {one}, 0, {r};"));
            }
            _ if signed => self.line(format!("cvt.s16.s8 {t}, {r};")),
            _ => self.line(format!("and.b16 {t}, {r}, 255;")),
        }
        t
    }

    /// An operand of an integer operation where the upper bits of a
    /// narrow value matter: extended for `i1`/`i8`, the register otherwise.
    fn int_operand(&mut self, v: Value, signed: bool) -> String {
        match self.f.value_type(v) {
            Type::I1 | Type::I8 => self.small_int(v, signed),
            _ => self.reg(v),
        }
    }

    fn binary(
        &mut self,
        i: Inst,
        op: BinaryOp,
        d: &str,
        a: Value,
        b: Value,
    ) -> Result<(), PtxError> {
        use BinaryOp::*;
        let ty = self.f.value_type(a);
        if op.is_float() {
            let ft = if ty == Type::F32 { ".f32" } else { ".f64" };
            let name = match op {
                Fadd => "add.rn",
                Fsub => "sub.rn",
                Fmul => "mul.rn",
                _ => "div.rn",
            };
            let (a, b) = (self.reg(a), self.reg(b));
            self.line(format!("{name}{ft} {d}, {a}, {b};"));
            return Ok(());
        }
        if ty == Type::I1 && matches!(op, Iadd | Isub | Xor | Imul | And | Or) {
            let name = match op {
                Iadd | Isub | Xor => "xor",
                Imul | And => "and",
                _ => "or",
            };
            let (a, b) = (self.reg(a), self.reg(b));
            self.line(format!("{name}.pred {d}, {a}, {b};"));
            return Ok(());
        }
        if ty == Type::I1 {
            // Division, remainder and shifts of one-bit values: in 16 bits.
            let signed = matches!(op, Sdiv | Srem | Ashr);
            let (x, y) = (self.small_int(a, signed), self.small_int(b, signed));
            let t = self.temp(Class::B16);
            self.int_op16(i, op, &t, &x, &y, signed)?;
            self.line(format!("and.b16 {t}, {t}, 1;"));
            self.line(format!("setp.ne.b16 {d}, {t}, 0;"));
            return Ok(());
        }
        let w = ty.bits();
        let bt = bits_type(ty);
        match op {
            Iadd | Isub | Imul | And | Or | Xor => {
                let name = match op {
                    Iadd => format!("add{}", int_type(ty, true)),
                    Isub => format!("sub{}", int_type(ty, true)),
                    Imul => format!("mul.lo{}", int_type(ty, true)),
                    And => format!("and{bt}"),
                    Or => format!("or{bt}"),
                    _ => format!("xor{bt}"),
                };
                let (a, b) = (self.reg(a), self.reg(b));
                self.line(format!("{name} {d}, {a}, {b};"));
            }
            Shl | Lshr | Ashr => {
                let amount = self.shift_amount(b, w);
                let x = match (op, ty) {
                    (Lshr, Type::I8) => self.small_int(a, false),
                    (Ashr, Type::I8) => self.small_int(a, true),
                    _ => self.reg(a),
                };
                let name = match op {
                    Shl => format!("shl{bt}"),
                    Lshr => format!("shr{}", int_type(ty, false)),
                    _ => format!("shr{}", int_type(ty, true)),
                };
                self.line(format!("{name} {d}, {x}, {amount};"));
            }
            Sdiv | Srem | Udiv | Urem => {
                let signed = matches!(op, Sdiv | Srem);
                if ty == Type::I8 {
                    let (x, y) = (self.small_int(a, signed), self.small_int(b, signed));
                    self.int_op16(i, op, d, &x, &y, signed)?;
                } else if ty == Type::I16 {
                    // In 32 bits, where `-32768 / -1` is exact, then
                    // truncated: the wrap parir promises.
                    let it = if signed { "s16" } else { "u16" };
                    let wide = if signed { "s32" } else { "u32" };
                    let (x, y) = (self.temp(Class::B32), self.temp(Class::B32));
                    let (ra, rb) = (self.reg(a), self.reg(b));
                    self.line(format!("cvt.{wide}.{it} {x}, {ra};"));
                    self.line(format!("cvt.{wide}.{it} {y}, {rb};"));
                    let q = self.temp(Class::B32);
                    self.divide(i, op, &q, Type::I32, &x, &y);
                    self.line(format!("cvt.u16.u32 {d}, {q};"));
                } else {
                    let (x, y) = (self.reg(a), self.reg(b));
                    self.divide(i, op, d, ty, &x, &y);
                }
            }
            _ => unreachable!("float operators handled above"),
        }
        Ok(())
    }

    /// Division or remainder of 16-bit extended values (`i8`, `i1`), where
    /// no quotient overflows.
    fn int_op16(
        &mut self,
        i: Inst,
        op: BinaryOp,
        d: &str,
        x: &str,
        y: &str,
        signed: bool,
    ) -> Result<(), PtxError> {
        use BinaryOp::*;
        let it = if signed { ".s16" } else { ".u16" };
        match op {
            Sdiv | Udiv | Srem | Urem => {
                let p = self.temp(Class::Pred);
                let fault = self.fault(i, "integer division by zero");
                self.line(format!("setp.eq.s16 {p}, {y}, 0;"));
                self.line(format!("@{p} bra {fault};"));
                let name = if matches!(op, Sdiv | Udiv) {
                    "div"
                } else {
                    "rem"
                };
                self.line(format!("{name}{it} {d}, {x}, {y};"));
            }
            Shl | Lshr | Ashr => {
                // A one-bit value shifted by its amount modulo 1: itself.
                self.line(format!("mov.b16 {d}, {x};"));
            }
            _ => unreachable!("only division and shifts of i1 come here"),
        }
        Ok(())
    }

    /// `x / y` or `x % y` of `i32`/`i64`, C's way with `-fwrapv`: a zero
    /// divisor is a run-time error, `MIN / -1` wraps to `MIN` and
    /// `MIN % -1` is 0 (the divisor -1 divides by 1 and negates).
    fn divide(&mut self, i: Inst, op: BinaryOp, d: &str, ty: Type, x: &str, y: &str) {
        use BinaryOp::*;
        let st = int_type(ty, true);
        let bt = bits_type(ty);
        let p = self.temp(Class::Pred);
        let fault = self.fault(i, "integer division by zero");
        self.line(format!("setp.eq{st} {p}, {y}, 0;"));
        self.line(format!("@{p} bra {fault};"));
        match op {
            Udiv => self.line(format!("div{} {d}, {x}, {y};", int_type(ty, false))),
            Urem => self.line(format!("rem{} {d}, {x}, {y};", int_type(ty, false))),
            Sdiv | Srem => {
                let class = if ty == Type::I32 {
                    Class::B32
                } else {
                    Class::B64
                };
                let (m1, safe, q) = (self.temp(Class::Pred), self.temp(class), self.temp(class));
                self.line(format!("setp.eq{st} {m1}, {y}, -1;"));
                self.line(format!("selp{bt} {safe}, 1, {y}, {m1};"));
                if op == Sdiv {
                    self.line(format!("div{st} {q}, {x}, {safe};"));
                    let n = self.temp(class);
                    self.line(format!("neg{st} {n}, {q};"));
                    self.line(format!("selp{bt} {d}, {n}, {q}, {m1};"));
                } else {
                    self.line(format!("rem{st} {q}, {x}, {safe};"));
                    self.line(format!("selp{bt} {d}, 0, {q}, {m1};"));
                }
            }
            _ => unreachable!("only divisions come here"),
        }
    }

    /// A shift amount as a `.u32` register, modulo the width `w`.
    fn shift_amount(&mut self, b: Value, w: u32) -> String {
        if let Some(c) = self.f.const_int(b) {
            return (c.rem_euclid(i64::from(w))).to_string();
        }
        let r = self.reg(b);
        let t = self.temp(Class::B32);
        match self.f.value_type(b) {
            Type::I1 => self.line(format!("selp.u32 {t}, 1, 0, {r};")),
            Type::I8 | Type::I16 => self.line(format!("cvt.u32.u16 {t}, {r};")),
            Type::I32 => self.line(format!("mov.b32 {t}, {r};")),
            _ => self.line(format!("cvt.u32.u64 {t}, {r};")),
        }
        self.line(format!("and.b32 {t}, {t}, {};", w - 1));
        t
    }

    fn icmp(&mut self, d: &str, cc: IntCC, a: Value, b: Value) {
        use IntCC::*;
        let ty = self.f.value_type(a);
        let signed = matches!(cc, Slt | Sle | Sgt | Sge);
        let c = match cc {
            Eq => "eq",
            Ne => "ne",
            Slt => "lt",
            Sle => "le",
            Sgt => "gt",
            Sge => "ge",
            Ult => "lo",
            Ule => "ls",
            Ugt => "hi",
            Uge => "hs",
        };
        let (x, y) = (self.int_operand(a, signed), self.int_operand(b, signed));
        let t = int_type(ty, signed);
        self.line(format!("setp.{c}{t} {d}, {x}, {y};"));
    }

    fn cast(&mut self, i: Inst, op: CastOp, d: &str, to: Type, a: Value) -> Result<(), PtxError> {
        use CastOp::*;
        let from = self.f.value_type(a);
        let r = self.reg(a);
        let fty = |t: Type| if t == Type::F32 { "f32" } else { "f64" };
        // The PTX integer type of a width (i8 as its 8 bits).
        let ity = |t: Type, signed: bool| -> &'static str {
            match (t, signed) {
                (Type::I8, true) => "s8",
                (Type::I8, false) => "u8",
                (Type::I16, true) => "s16",
                (Type::I16, false) => "u16",
                (Type::I32, true) => "s32",
                (Type::I32, false) => "u32",
                (_, true) => "s64",
                (_, false) => "u64",
            }
        };
        // The register width's type of a destination (i8 lives in 16 bits).
        let rty = |t: Type, signed: bool| -> &'static str {
            match t {
                Type::I8 => {
                    if signed {
                        "s16"
                    } else {
                        "u16"
                    }
                }
                _ => ity(t, signed),
            }
        };
        match op {
            Sext | Zext => {
                let signed = op == Sext;
                if from == Type::I1 {
                    let one = if signed { "-1" } else { "1" };
                    self.line(format!("selp{} {d}, {one}, 0, {r};", bits_type(to)));
                } else {
                    self.line(format!(
                        "cvt.{}.{} {d}, {r};",
                        rty(to, signed),
                        ity(from, signed)
                    ));
                }
            }
            Trunc => {
                if to == Type::I1 {
                    let t = self.temp(Class::of(from));
                    let bt = bits_type(from);
                    self.line(format!("and{bt} {t}, {r}, 1;"));
                    self.line(format!("setp.ne{bt} {d}, {t}, 0;"));
                } else {
                    self.line(format!(
                        "cvt.{}.{} {d}, {r};",
                        rty(to, false),
                        rty(from, false)
                    ));
                }
            }
            SiToFp | UiToFp => {
                let signed = op == SiToFp;
                if from == Type::I1 {
                    let one = if signed { -1.0 } else { 1.0 };
                    self.line(format!(
                        "selp.{} {d}, {}, {}, {r};",
                        fty(to),
                        float_imm(to, one),
                        float_imm(to, 0.0)
                    ));
                } else {
                    let src = if from == Type::I8 {
                        self.small_int(a, signed)
                    } else {
                        r
                    };
                    self.line(format!(
                        "cvt.rn.{}.{} {d}, {src};",
                        fty(to),
                        rty(from, signed)
                    ));
                }
            }
            FpToSi | FpToUi => {
                let signed = op == FpToSi;
                if to == Type::I1 {
                    return Err(
                        self.error(i, "a conversion of a floating value to a one-bit integer")
                    );
                }
                // PTX clamps float-to-integer conversions to the
                // destination's range and turns NaN into 0: the
                // saturation parir promises.
                self.line(format!(
                    "cvt.rzi.{}.{} {d}, {r};",
                    ity(to, signed),
                    fty(from)
                ));
            }
            FpExt => self.line(format!("cvt.f64.f32 {d}, {r};")),
            FpTrunc => self.line(format!("cvt.rn.f32.f64 {d}, {r};")),
            PtrToInt | IntToPtr => self.line(format!("mov.b64 {d}, {r};")),
        }
        Ok(())
    }

    fn intrinsic(
        &mut self,
        i: Inst,
        op: Intrinsic,
        d: &str,
        rt: Option<Type>,
        args: &[Value],
    ) -> Result<(), PtxError> {
        use Intrinsic::*;
        let fty = |t: Option<Type>| if t == Some(Type::F32) { ".f32" } else { ".f64" };
        let regs: Vec<String> = args.iter().map(|&a| self.reg(a)).collect();
        let arg = |k: usize| regs[k].clone();
        match op {
            Sqrt => {
                let a = arg(0);
                self.line(format!("sqrt.rn{} {d}, {a};", fty(rt)));
            }
            Fabs => {
                let a = arg(0);
                self.line(format!("abs{} {d}, {a};", fty(rt)));
            }
            Fmin | Fmax => {
                // PTX's min/max return the other operand when one is NaN,
                // as C's fmin/fmax do.
                let name = if op == Fmin { "min" } else { "max" };
                let (a, b) = (arg(0), arg(1));
                self.line(format!("{name}{} {d}, {a}, {b};", fty(rt)));
            }
            Floor | Ceil | Trunc => {
                let mode = match op {
                    Floor => "rmi",
                    Ceil => "rpi",
                    _ => "rzi",
                };
                let t = fty(rt);
                let a = arg(0);
                self.line(format!("cvt.{mode}{t}{t} {d}, {a};"));
            }
            Round => {
                // Half away from zero: trunc(x), plus the sign of x where
                // the part dropped (exact) is at least one half.
                let ty = rt.unwrap_or(Type::F64);
                let t = fty(rt);
                let class = if ty == Type::F32 {
                    Class::F32
                } else {
                    Class::F64
                };
                let a = arg(0);
                let (whole, frac, step) = (self.temp(class), self.temp(class), self.temp(class));
                let half = self.temp(Class::Pred);
                self.line(format!("cvt.rzi{t}{t} {whole}, {a};"));
                self.line(format!("sub{t} {frac}, {a}, {whole};"));
                self.line(format!("abs{t} {frac}, {frac};"));
                self.line(format!(
                    "setp.ge{t} {half}, {frac}, {};",
                    float_imm(ty, 0.5)
                ));
                self.line(format!("copysign{t} {step}, {a}, {};", float_imm(ty, 1.0)));
                self.line(format!(
                    "selp{t} {step}, {step}, {}, {half};",
                    float_imm(ty, 0.0)
                ));
                self.line(format!("add{t} {d}, {whole}, {step};"));
            }
            Abs => {
                let a = arg(0);
                self.line(format!("abs.s32 {d}, {a};"));
            }
            Labs => {
                let a = arg(0);
                self.line(format!("abs.s64 {d}, {a};"));
            }
            ThreadIdx(dim) | BlockIdx(dim) | BlockDim(dim) | GridDim(dim) => {
                let reg = match op {
                    ThreadIdx(_) => "tid",
                    BlockIdx(_) => "ctaid",
                    BlockDim(_) => "ntid",
                    _ => "nctaid",
                };
                self.line(format!("mov.u32 {d}, %{reg}.{};", dim.name()));
            }
            Barrier => self.line("barrier.sync 0;"),
            AtomicAdd => {
                let ty = self.f.value_type(args[1]);
                let t = match ty {
                    Type::I32 => ".u32",
                    Type::I64 => ".u64",
                    Type::F32 => ".f32",
                    _ => ".f64",
                };
                let (addr, space) = self.operand(args[0]);
                let s = space.suffix();
                let v = self.reg(args[1]);
                if self.f.result(i).is_some_and(|r| self.used(r)) {
                    self.line(format!("atom{s}.add{t} {d}, {addr}, {v};"));
                } else if self.uniform(args[0], 0) {
                    // Every thread adds into the same place (a gradient's
                    // sum over the threads): the warp sums first.
                    self.warp_reduce_add(ty, &addr, s, t, &v);
                } else {
                    // Nobody reads the old value: a reduction, which the
                    // memory system performs without a round trip.
                    self.line(format!("red{s}.add{t} {addr}, {v};"));
                }
            }
            Printf => self.printf(d, args),
            Malloc | Calloc | Realloc | Free => {
                self.cx.needs.malloc = true;
                let (helper, ret) = match op {
                    Malloc | Calloc => (crate::helpers::MALLOC, true),
                    Realloc => (crate::helpers::REALLOC, true),
                    _ => (crate::helpers::FREE, false),
                };
                let bytes = if op == Calloc {
                    let n = self.temp(Class::B64);
                    let (a, b) = (arg(0), arg(1));
                    self.line(format!("mul.lo.s64 {n}, {a}, {b};"));
                    Some(n)
                } else {
                    None
                };
                self.line("{");
                let mut params = Vec::new();
                let regs: Vec<String> = match (&bytes, op) {
                    (Some(n), _) => vec![n.clone()],
                    _ => args.iter().map(|&a| self.reg(a)).collect(),
                };
                for (k, r) in regs.iter().enumerate() {
                    let p = format!("param{k}");
                    self.line(format!(".param .b64 {p};"));
                    self.line(format!("st.param.b64 [{p}], {r};"));
                    params.push(p);
                }
                if ret {
                    self.line(".param .b64 retval0;");
                    self.line(format!(
                        "call (retval0), {helper}, ({});",
                        params.join(", ")
                    ));
                    self.line(format!("ld.param.b64 {d}, [retval0];"));
                } else {
                    self.line(format!("call {helper}, ({});", params.join(", ")));
                }
                self.line("}");
                if let Some(n) = bytes {
                    self.fill(d, None, &n);
                }
            }
            Memcpy => {
                let (dst, src, n) = (arg(0), arg(1), arg(2));
                self.fill(&dst, Some(&src), &n);
            }
            Memset => {
                let (dst, byte, n) = (arg(0), arg(1), arg(2));
                let b = self.temp(Class::B16);
                self.line(format!("cvt.u16.u32 {b}, {byte};"));
                self.fill_with(&dst, &b, &n);
            }
            Wtime => {
                let t = self.temp(Class::B64);
                self.line(format!("mov.u64 {t}, %globaltimer;"));
                self.line(format!("cvt.rn.f64.u64 {d}, {t};"));
                self.line(format!(
                    "mul.rn.f64 {d}, {d}, {};",
                    float_imm(Type::F64, 1e-9)
                ));
            }
            RuntimeError => {
                // The report with the message (a C string) as `%s`.
                let prefix = self.report(i, "").replace('%', "%%");
                let format = self.cx.raw_message(&format!("{prefix}%s\n"));
                let label = self.label("fault");
                let m = arg(0);
                self.faults.push((label.clone(), format, Some(m)));
                self.line(format!("bra {label};"));
            }
            Exit
            | Atoi
            | Atol
            | Atof
            | Strcmp
            | WorkerId
            | NumWorkers
            | CudaMalloc
            | CudaMemcpy(_)
            | CudaFree
            | CudaDeviceSynchronize => {
                unreachable!("refused by `check`")
            }
            // The math functions PTX has no instruction for (`exp log pow`
            // ...: `math::in_library`): calls of the device math library;
            // `check` refused the others.
            _ if crate::math::in_library(op) => {
                let Some(ty) = rt.filter(|t| t.is_float()) else {
                    return Err(self.error(i, format!("`{}` has no GPU implementation", op.name())));
                };
                let name = crate::math::routine(op, ty);
                if self.cx.module.func_by_name(&name).is_none() {
                    return Err(self.error(
                        i,
                        format!(
                            "`{}` on the GPU needs parc's device math library, which was not linked into this module",
                            op.name()
                        ),
                    ));
                }
                let sym = symbol(&name);
                let ft = param_type(ty);
                self.line("{");
                let mut params = Vec::new();
                for (k, &a) in args.iter().enumerate() {
                    let p = format!("param{k}");
                    self.line(format!(".param {ft} {p};"));
                    self.store_param(a, &p);
                    params.push(p);
                }
                self.line(format!(".param {ft} retval0;"));
                self.line(format!("call (retval0), {sym}, ({});", params.join(", ")));
                self.load_param(ty, d, "retval0");
                self.line("}");
            }
            _ => {
                return Err(self.error(i, format!("`{}` has no GPU implementation", op.name())));
            }
        }
        Ok(())
    }

    /// True if `v` is the same in every thread of a launch: computed
    /// from a kernel's parameters, constants, globals' addresses and the
    /// block's ids and dimensions by arithmetic (never from `threadIdx`,
    /// memory or a join).
    fn uniform(&self, v: Value, depth: u32) -> bool {
        if depth > 32 {
            return false;
        }
        match self.f.value_def(v) {
            ValueDef::Param(b, _) => self.is_kernel && b == self.f.layout[0],
            ValueDef::Result(i) => match self.f.inst(i) {
                InstKind::Iconst(_) | InstKind::Fconst(_) | InstKind::GlobalAddr(_) => true,
                InstKind::Intrinsic { op, .. } => matches!(
                    op,
                    Intrinsic::BlockIdx(_) | Intrinsic::BlockDim(_) | Intrinsic::GridDim(_)
                ),
                InstKind::PtrAdd(a, b) | InstKind::Binary(_, a, b) => {
                    self.uniform(*a, depth + 1) && self.uniform(*b, depth + 1)
                }
                InstKind::Cast(_, a) | InstKind::Unary(_, a) => self.uniform(*a, depth + 1),
                _ => false,
            },
        }
    }

    /// `red.add [addr], v` where every thread's `addr` is the same: when
    /// the whole warp is here, its 32 values are summed by butterfly
    /// shuffles and lane 0 makes the one atomic add; otherwise each
    /// thread adds its own (the issue's GPU mapping of a reduction).
    fn warp_reduce_add(&mut self, ty: Type, addr: &str, s: &str, t: &str, v: &str) {
        let (mask, full) = (self.temp(Class::B32), self.temp(Class::Pred));
        let (plain, done) = (self.label("alone"), self.label("summed"));
        self.line(format!("activemask.b32 {mask};"));
        self.line(format!("setp.eq.b32 {full}, {mask}, -1;"));
        self.line(format!("@!{full} bra {plain};"));
        let class = Class::of(ty);
        let acc = self.temp(class);
        self.line(format!("mov{} {acc}, {v};", class.decl()));
        let wide = ty.bytes() == 8;
        let add = match ty {
            Type::F32 => "add.rn.f32",
            Type::F64 => "add.rn.f64",
            Type::I32 => "add.s32",
            _ => "add.s64",
        };
        for off in [16, 8, 4, 2, 1] {
            let other = self.temp(class);
            if wide {
                let (lo, hi) = (self.temp(Class::B32), self.temp(Class::B32));
                self.line(format!("mov.b64 {{{lo}, {hi}}}, {acc};"));
                self.line(format!("shfl.sync.bfly.b32 {lo}, {lo}, {off}, 31, -1;"));
                self.line(format!("shfl.sync.bfly.b32 {hi}, {hi}, {off}, 31, -1;"));
                self.line(format!("mov.b64 {other}, {{{lo}, {hi}}};"));
            } else {
                let x = self.temp(Class::B32);
                self.line(format!("mov.b32 {x}, {acc};"));
                self.line(format!("shfl.sync.bfly.b32 {x}, {x}, {off}, 31, -1;"));
                self.line(format!("mov.b32 {other}, {x};"));
            }
            self.line(format!("{add} {acc}, {acc}, {other};"));
        }
        let (lane, rest) = (self.temp(Class::B32), self.temp(Class::Pred));
        self.line(format!("mov.u32 {lane}, %laneid;"));
        self.line(format!("setp.ne.u32 {rest}, {lane}, 0;"));
        self.line(format!("@{rest} bra {done};"));
        self.line(format!("red{s}.add{t} {addr}, {acc};"));
        self.line(format!("bra {done};"));
        self.put_label(&plain);
        self.line(format!("red{s}.add{t} {addr}, {v};"));
        self.put_label(&done);
    }

    /// True if some placed instruction reads `v`.
    fn used(&self, v: Value) -> bool {
        self.f.placed_insts().any(|(_, i)| {
            let mut hit = false;
            self.f.inst(i).for_each_operand(|u| hit |= u == v);
            hit
        })
    }

    /// `memcpy(dst, src, n)` byte by byte, or (no `src`) zeroing.
    fn fill(&mut self, dst: &str, src: Option<&str>, n: &str) {
        match src {
            Some(src) => {
                let (i, p, a, b) = (
                    self.temp(Class::B64),
                    self.temp(Class::Pred),
                    self.temp(Class::B64),
                    self.temp(Class::B16),
                );
                let (top, done) = (self.label("copy"), self.label("copied"));
                self.line(format!("mov.u64 {i}, 0;"));
                self.put_label(&top);
                self.line(format!("setp.ge.u64 {p}, {i}, {n};"));
                self.line(format!("@{p} bra {done};"));
                self.line(format!("add.s64 {a}, {src}, {i};"));
                self.line(format!("ld.u8 {b}, [{a}];"));
                self.line(format!("add.s64 {a}, {dst}, {i};"));
                self.line(format!("st.u8 [{a}], {b};"));
                self.line(format!("add.s64 {i}, {i}, 1;"));
                self.line(format!("bra {top};"));
                self.put_label(&done);
            }
            None => {
                let z = self.temp(Class::B16);
                self.line(format!("mov.b16 {z}, 0;"));
                self.fill_with(dst, &z, n);
            }
        }
    }

    /// `memset(dst, byte, n)` byte by byte.
    fn fill_with(&mut self, dst: &str, byte: &str, n: &str) {
        let (i, p, a) = (
            self.temp(Class::B64),
            self.temp(Class::Pred),
            self.temp(Class::B64),
        );
        let (top, done) = (self.label("set"), self.label("setdone"));
        self.line(format!("mov.u64 {i}, 0;"));
        self.put_label(&top);
        self.line(format!("setp.ge.u64 {p}, {i}, {n};"));
        self.line(format!("@{p} bra {done};"));
        self.line(format!("add.s64 {a}, {dst}, {i};"));
        self.line(format!("st.u8 [{a}], {byte};"));
        self.line(format!("add.s64 {i}, {i}, 1;"));
        self.line(format!("bra {top};"));
        self.put_label(&done);
    }

    /// `printf` through `vprintf`: the arguments in a local buffer, each
    /// at its natural alignment (CUDA's layout).
    fn printf(&mut self, d: &str, args: &[Value]) {
        self.cx.needs.vprintf = true;
        let fmt = self.reg(args[0]);
        let buf = if args.len() > 1 {
            let base = self.printf_area.expect("printf's buffer is laid out");
            let mut off = 0u32;
            for &a in &args[1..] {
                let ty = self.f.value_type(a);
                let size = if ty == Type::I32 { 4 } else { 8 };
                off = off.next_multiple_of(size);
                let r = self.reg(a);
                let t = match ty {
                    Type::I32 => ".u32",
                    Type::F64 => ".f64",
                    _ => ".u64",
                };
                self.line(format!("st.local{t} [%SPL+{}], {r};", base + off));
                off += size;
            }
            let t = self.temp(Class::B64);
            self.line(format!("add.u64 {t}, %SP, {base};"));
            t
        } else {
            "0".to_string()
        };
        self.line("{");
        self.line(".param .b64 param0;");
        self.line(format!("st.param.b64 [param0], {fmt};"));
        self.line(".param .b64 param1;");
        self.line(format!("st.param.b64 [param1], {buf};"));
        self.line(".param .b32 retval0;");
        self.line("call (retval0), vprintf, (param0, param1);");
        if !d.is_empty() {
            self.line(format!("ld.param.b32 {d}, [retval0];"));
        }
        self.line("}");
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
