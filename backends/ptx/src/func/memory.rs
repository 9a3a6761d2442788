//! Memory: `alloca`s, state-space addresses, loads, stores, zeroing.
//!
//! An `alloca` of 1, 4 or 8 bytes that is only ever the address of
//! loads and stores of its whole size is not memory but a register of
//! that width (PTX registers are mutable): stores move into it, loads
//! out of it, whatever the types (a `double` stored and read back as a
//! `long` is a bit copy). Other `alloca`s live in the function's local
//! frame (`.local` depot), zeroed where the instruction stands, each
//! time it executes.

use super::{Class, FnCx, bits_type, mem_type, slot_class};
use crate::global_symbol;
use crate::space::Space;
use parc_ir::{FuncId, Inst, InstKind, Intrinsic, Type, Value, ValueDef};
use std::collections::{HashMap, HashSet};

impl FnCx<'_, '_> {
    /// Chooses which `alloca`s are registers and where the others sit in
    /// the frame.
    pub(super) fn layout_allocas(&mut self) {
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
    pub(super) fn find_conversions(&mut self) {
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

    pub(super) fn space_of(&self, v: Value) -> Space {
        self.space.get(&v).copied().unwrap_or(Space::Generic)
    }

    /// `v` as a base and a constant displacement: `ptradd q, c` with `q`
    /// in the same space and `c` a 32-bit constant gives `(q, c)`.
    pub(super) fn address(&self, v: Value) -> (Value, i64) {
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

    /// Zeroes the shared arrays this kernel and its callees use, then
    /// waits for the block (see the crate doc).
    pub(super) fn zero_shared(&mut self) {
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

    /// Stores zeros over `size` bytes of the frame at `at`.
    pub(super) fn zero_frame(&mut self, at: u32, size: u32) {
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
    pub(super) fn operand(&self, p: Value) -> (String, Space) {
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

    pub(super) fn load(&mut self, i: Inst, d: &str, ty: Type, p: Value) {
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

    pub(super) fn store(&mut self, value: Value, p: Value) {
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
}
