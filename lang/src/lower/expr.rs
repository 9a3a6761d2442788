//! Expressions: values, addresses of lvalues, C conversions, short-circuit
//! operators, calls, built-ins and kernel launches.
//!
//! An expression of scalar type lowers to its value; one of aggregate type
//! (struct, `dim3`, array) to the address of its bytes. After any
//! expression the current block is open (an `exit` continues in a fresh,
//! unreachable block), so callers can keep appending.

use super::bitfield::bit_field;
use super::func::FnLowerer;
use super::scalar_type;
use crate::hir::{
    Activity, BinaryOp as HOp, Builtin, CType, Expr, ExprKind, FpTest, GpuIndex, IrOp, UnaryOp,
};
use parc_ir::{
    BinaryOp, BlockCall, CastOp, Dim, FloatCC, IntCC, Intrinsic, OperandType, Type, Value,
};

impl FnLowerer<'_, '_> {
    /// Lowers `e`; `None` for `void`. Instructions carry `e`'s position.
    pub(super) fn eval(&mut self, e: &Expr) -> Option<Value> {
        let outer = self.loc;
        self.set_span(e.span);
        let mine = self.loc;
        let v = self.eval_kind(e, mine);
        self.set_loc(outer);
        v
    }

    /// Lowers `e`, which must have a value.
    pub(super) fn value(&mut self, e: &Expr) -> Value {
        match self.eval(e) {
            Some(v) => v,
            // A `void` used as a value is a checker error; keep going.
            None => self.b.iconst(Type::I32, 0),
        }
    }

    /// `e` as an `i1` truth value (compared with zero).
    pub(super) fn cond(&mut self, e: &Expr) -> Value {
        // A comparison is used directly instead of widening to `int` and
        // comparing again.
        if let ExprKind::Binary(op, a, b) = &e.kind
            && is_comparison(*op)
        {
            let outer = self.loc;
            self.set_span(e.span);
            let mine = self.loc;
            let (x, y) = (self.value(a), self.value(b));
            self.set_loc(mine);
            let c = self.compare(*op, x, y, &a.ty);
            self.set_loc(outer);
            return c;
        }
        let v = self.value(e);
        self.truth(v, &e.ty)
    }

    /// `v != 0` for a scalar of C type `ty`.
    fn truth(&mut self, v: Value, ty: &CType) -> Value {
        let t = self.b.func.value_type(v);
        if t == Type::I1 {
            return v;
        }
        let zero = self.zero(t);
        if ty.is_floating() || t.is_float() {
            self.b.fcmp(FloatCC::Ne, v, zero)
        } else {
            self.b.icmp(IntCC::Ne, v, zero)
        }
    }

    fn eval_kind(&mut self, e: &Expr, loc: parc_ir::SrcLoc) -> Option<Value> {
        let layout = &self.cx.layout;
        let ty = &e.ty;
        Some(match &e.kind {
            ExprKind::IntConst(v) => {
                let t = scalar_type(ty).unwrap_or(Type::I32);
                if t.is_float() {
                    self.b.fconst(t, *v as f64)
                } else {
                    self.b.iconst(t, *v)
                }
            }
            ExprKind::FloatConst(f) => {
                let t = scalar_type(ty).unwrap_or(Type::F64);
                if t.is_float() {
                    self.b.fconst(t, *f)
                } else {
                    self.b.iconst(t, *f as i64)
                }
            }
            ExprKind::Str(i) => self.b.global_addr(self.cx.strings[*i]),
            ExprKind::Null => self.b.null(),
            ExprKind::Local(_)
            | ExprKind::Global(_)
            | ExprKind::Deref(_)
            | ExprKind::Index { .. }
            | ExprKind::Member { .. }
            | ExprKind::CompoundLit { .. } => {
                let addr = self.lvalue(e);
                if let Some(bits) = bit_field(e) {
                    self.set_loc(loc);
                    return Some(self.bit_read(addr, bits, ty));
                }
                match scalar_type(ty) {
                    Some(t) => {
                        self.set_loc(loc);
                        self.b.load(t, addr)
                    }
                    // Aggregates are their address.
                    None => addr,
                }
            }
            ExprKind::Convert(inner) => {
                let v = self.eval(inner)?;
                if *ty == CType::Void {
                    return None;
                }
                self.set_loc(loc);
                self.convert(v, &inner.ty, ty)
            }
            ExprKind::Decay(inner) => self.lvalue(inner),
            ExprKind::Unary(op, a) => {
                let v = self.value(a);
                self.set_loc(loc);
                let t = self.b.func.value_type(v);
                match op {
                    UnaryOp::Neg if t.is_float() => self.b.unary(parc_ir::UnaryOp::Fneg, v),
                    UnaryOp::Neg => {
                        let zero = self.zero(t);
                        self.b.binary(BinaryOp::Isub, zero, v)
                    }
                    UnaryOp::BitNot => {
                        let ones = self.b.iconst(t, -1);
                        self.b.binary(BinaryOp::Xor, v, ones)
                    }
                    UnaryOp::Not => {
                        let c = self.truth(v, &a.ty);
                        let one = self.b.iconst(Type::I1, 1);
                        let not = self.b.binary(BinaryOp::Xor, c, one);
                        self.widen_bool(not, ty)
                    }
                }
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.value(a);
                let y = self.value(b);
                self.set_loc(loc);
                if is_comparison(*op) {
                    let c = self.compare(*op, x, y, &a.ty);
                    self.widen_bool(c, ty)
                } else {
                    self.arith(*op, x, y, &a.ty)
                }
            }
            ExprKind::PtrOffset {
                ptr,
                index,
                elem_size,
            } => {
                let p = self.value(ptr);
                let i = self.value(index);
                self.set_loc(loc);
                let off = self.scale(i, &index.ty, *elem_size);
                self.b.ptradd(p, off)
            }
            ExprKind::PtrDiff { a, b, elem_size } => {
                let x = self.value(a);
                let y = self.value(b);
                self.set_loc(loc);
                let xi = self.b.cast(CastOp::PtrToInt, x, Type::I64);
                let yi = self.b.cast(CastOp::PtrToInt, y, Type::I64);
                let bytes = self.b.binary(BinaryOp::Isub, xi, yi);
                let diff = if *elem_size > 1 {
                    let size = self.iconst64(*elem_size as i64);
                    self.b.binary(BinaryOp::Sdiv, bytes, size)
                } else {
                    bytes
                };
                let t = scalar_type(ty).unwrap_or(Type::I64);
                self.int_resize(diff, t, true)
            }
            ExprKind::Logical { is_and, lhs, rhs } => {
                let t = scalar_type(ty).unwrap_or(Type::I32);
                let l = self.cond(lhs);
                self.set_loc(loc);
                let rhs_b = self.b.create_block();
                let join = self.b.create_block();
                let result = self.b.param(join, t);
                // The left side decides alone: 0 for `&&`, 1 for `||`.
                let decided = self.b.iconst(t, if *is_and { 0 } else { 1 });
                let (then_d, else_d) = if *is_and {
                    (BlockCall::to(rhs_b), BlockCall::new(join, vec![decided]))
                } else {
                    (BlockCall::new(join, vec![decided]), BlockCall::to(rhs_b))
                };
                self.b.brif(l, then_d, else_d);
                self.b.switch_to(rhs_b);
                let r = self.cond(rhs);
                self.set_loc(loc);
                let r = self.widen_bool(r, ty);
                self.b.jump(join, vec![r]);
                self.b.switch_to(join);
                result
            }
            ExprKind::AddrOf(inner) => self.lvalue(inner),
            ExprKind::Assign { lhs, rhs } => {
                let addr = self.lvalue(lhs);
                let v = self.value(rhs);
                self.set_loc(loc);
                if let Some(bits) = bit_field(lhs) {
                    self.bit_write(addr, bits, v, &lhs.ty)
                } else if layout.is_aggregate(&lhs.ty) {
                    let size = layout.size_of(&lhs.ty);
                    self.copy_bytes(addr, v, size);
                    addr
                } else {
                    self.b.store(v, addr);
                    v
                }
            }
            ExprKind::CompoundAssign {
                op,
                lhs,
                rhs,
                op_ty,
                elem_size,
            } => {
                let addr = self.lvalue(lhs);
                // The right side first, so `s += f()` sees what `f` did to `s`
                // (as gcc does).
                let r = self.value(rhs);
                self.set_loc(loc);
                let lt = scalar_type(&lhs.ty).unwrap_or(Type::I32);
                let bits = bit_field(lhs);
                let old = match bits {
                    Some(bits) => self.bit_read(addr, bits, &lhs.ty),
                    None => self.b.load(lt, addr),
                };
                let new = if lhs.ty.is_pointer() {
                    let mut off = self.scale(r, &rhs.ty, *elem_size);
                    if *op == HOp::Sub {
                        let zero = self.iconst64(0);
                        off = self.b.binary(BinaryOp::Isub, zero, off);
                    }
                    self.b.ptradd(old, off)
                } else {
                    let x = self.convert(old, &lhs.ty, op_ty);
                    let y = self.arith(*op, x, r, op_ty);
                    self.convert(y, op_ty, &lhs.ty)
                };
                match bits {
                    Some(bits) => self.bit_write(addr, bits, new, &lhs.ty),
                    None => {
                        self.b.store(new, addr);
                        new
                    }
                }
            }
            ExprKind::IncDec {
                lvalue,
                is_inc,
                is_prefix,
                elem_size,
            } => {
                let addr = self.lvalue(lvalue);
                self.set_loc(loc);
                let t = scalar_type(&lvalue.ty).unwrap_or(Type::I32);
                let bits = bit_field(lvalue);
                let old = match bits {
                    Some(bits) => self.bit_read(addr, bits, &lvalue.ty),
                    None => self.b.load(t, addr),
                };
                let new = match &lvalue.ty {
                    CType::Ptr(_) => {
                        let step = *elem_size as i64;
                        let off = self.iconst64(if *is_inc { step } else { -step });
                        self.b.ptradd(old, off)
                    }
                    // `b++` makes a bool true; `b--` flips it (C: b - 1 != 0).
                    CType::Bool if *is_inc => self.b.iconst(Type::I8, 1),
                    CType::Bool => {
                        let one = self.b.iconst(Type::I8, 1);
                        self.b.binary(BinaryOp::Xor, old, one)
                    }
                    _ if t.is_float() => {
                        let one = self.b.fconst(t, 1.0);
                        let op = if *is_inc {
                            BinaryOp::Fadd
                        } else {
                            BinaryOp::Fsub
                        };
                        self.b.binary(op, old, one)
                    }
                    _ => {
                        let one = self.b.iconst(t, 1);
                        let op = if *is_inc {
                            BinaryOp::Iadd
                        } else {
                            BinaryOp::Isub
                        };
                        self.b.binary(op, old, one)
                    }
                };
                let new = match bits {
                    Some(bits) => self.bit_write(addr, bits, new, &lvalue.ty),
                    None => {
                        self.b.store(new, addr);
                        new
                    }
                };
                if *is_prefix { new } else { old }
            }
            ExprKind::Cond(c, a, b) => {
                let cv = self.cond(c);
                self.set_loc(loc);
                let then_b = self.b.create_block();
                let else_b = self.b.create_block();
                let join = self.b.create_block();
                let result = match ty {
                    CType::Void => None,
                    _ => Some(self.b.param(join, layout.value_type(ty))),
                };
                self.b
                    .brif(cv, BlockCall::to(then_b), BlockCall::to(else_b));
                for (block, arm) in [(then_b, a), (else_b, b)] {
                    self.b.switch_to(block);
                    let v = self.eval(arm);
                    let args = match (result, v) {
                        (Some(_), Some(v)) => vec![v],
                        (Some(r), None) => {
                            let t = self.b.func.value_type(r);
                            vec![self.zero(t)]
                        }
                        (None, _) => Vec::new(),
                    };
                    self.b.jump(join, args);
                }
                self.b.switch_to(join);
                return result;
            }
            ExprKind::Elvis(a, b) => {
                let v = self.value(a);
                self.set_loc(loc);
                let c = self.truth(v, ty);
                let else_b = self.b.create_block();
                let join = self.b.create_block();
                let result = self.b.param(join, layout.value_type(ty));
                self.b
                    .brif(c, BlockCall::new(join, vec![v]), BlockCall::to(else_b));
                self.b.switch_to(else_b);
                let w = self.value(b);
                self.set_loc(loc);
                self.b.jump(join, vec![w]);
                self.b.switch_to(join);
                result
            }
            ExprKind::Call { func, args } => {
                let index = func.0 as usize;
                let mut values = Vec::new();
                let sret = self.cx.sret[index];
                for arg in args {
                    // Struct arguments pass their address; the callee copies.
                    let v = self.value(arg);
                    values.push(v);
                }
                self.set_loc(loc);
                let callee = &self.cx.prog.funcs[index];
                if callee.variadic {
                    self.pack_variadic(&mut values, args, callee.params.len());
                }
                let out = if sret {
                    let ret = &self.cx.prog.funcs[index].ret;
                    let (size, align) = (layout.size_of(ret), layout.align_of(ret));
                    let tmp = self.frame_alloca(size, align);
                    values.insert(0, tmp);
                    Some(tmp)
                } else {
                    None
                };
                let r = self
                    .b
                    .call(self.cx.func(*func), self.cx.rets[index], values);
                return if sret { out } else { r };
            }
            ExprKind::FuncAddr(f) => self.b.func_addr(self.cx.func(*f)),
            ExprKind::CallIndirect { callee, args } => {
                let target = self.value(callee);
                let mut values: Vec<Value> = args.iter().map(|a| self.value(a)).collect();
                self.set_loc(loc);
                // Every function a pointer to a variadic function type can
                // reach is one parc defines (the checker refuses others).
                if let Some(ft) = callee.ty.func_pointee()
                    && ft.variadic
                {
                    self.pack_variadic(&mut values, args, ft.params.len());
                }
                // A struct result comes back through a hidden first pointer,
                // as for direct calls (see the parent module's doc).
                if layout.is_aggregate(ty) {
                    let tmp = self.frame_alloca(layout.size_of(ty), layout.align_of(ty));
                    values.insert(0, tmp);
                    self.b.call_indirect(target, Some(Type::Ptr), values);
                    return Some(tmp);
                }
                return self.b.call_indirect(target, scalar_type(ty), values);
            }
            ExprKind::Builtin { func, args } => return self.builtin(*func, args, ty, loc),
            ExprKind::Autodiff { func, args } => {
                let mut values = Vec::new();
                let mut activities = Vec::new();
                for a in args {
                    values.push(self.value(&a.value));
                    if let Some(shadow) = &a.shadow {
                        values.push(self.value(shadow));
                    }
                    activities.push(match a.activity {
                        Activity::Const => parc_ir::Activity::Const,
                        Activity::Dup => parc_ir::Activity::Dup,
                        Activity::DupNoNeed => parc_ir::Activity::DupNoNeed,
                        Activity::Active => parc_ir::Activity::Active,
                    });
                }
                self.set_loc(loc);
                let grad = self.cx.gradient(*func, activities, loc);
                return self.b.call(grad, scalar_type(ty), values);
            }
            ExprKind::Launch {
                kernel,
                grid,
                block,
                args,
            } => {
                let g = self.dim3_parts(grid);
                let bl = self.dim3_parts(block);
                let values = args.iter().map(|a| self.value(a)).collect();
                self.set_loc(loc);
                self.b.launch(self.cx.func(*kernel), g, bl, values);
                return None;
            }
            ExprKind::Dim3(x, y, z) => {
                let parts = [self.value(x), self.value(y), self.value(z)];
                self.set_loc(loc);
                let tmp = self.frame_alloca(12, 4);
                for (i, v) in parts.into_iter().enumerate() {
                    let v = self.int_resize(v, Type::I32, false);
                    let at = self.offset(tmp, 4 * i as u64);
                    self.b.store(v, at);
                }
                tmp
            }
            ExprKind::Gpu(which, dim) => {
                let d = match dim {
                    0 => Dim::X,
                    1 => Dim::Y,
                    _ => Dim::Z,
                };
                let op = match which {
                    GpuIndex::ThreadIdx => Intrinsic::ThreadIdx(d),
                    GpuIndex::BlockIdx => Intrinsic::BlockIdx(d),
                    GpuIndex::BlockDim => Intrinsic::BlockDim(d),
                    GpuIndex::GridDim => Intrinsic::GridDim(d),
                };
                let v = self.b.intrinsic(op, Some(Type::I32), Vec::new())?;
                let t = scalar_type(ty).unwrap_or(Type::I32);
                self.int_resize(v, t, false)
            }
            ExprKind::Comma(a, b) => {
                self.eval(a);
                return self.eval(b);
            }
        })
    }

    /// Replaces the arguments after the first `fixed` by the address of
    /// their slots, for a variadic function parc defines (see
    /// [`crate::hir::VA_SLOT`] for the layout).
    fn pack_variadic(&mut self, values: &mut Vec<Value>, args: &[Expr], fixed: usize) {
        let extra = values.split_off(fixed.min(values.len()));
        let slot = crate::hir::VA_SLOT;
        let block = self.frame_alloca(slot * (extra.len() as u64 + 1), 8);
        for (i, (v, a)) in extra.into_iter().zip(&args[fixed..]).enumerate() {
            use parc_cformat::va::{DOUBLE, INT, PTR};
            let (kind, v) = match self.b.func.value_type(v) {
                Type::F64 => (DOUBLE, v),
                Type::F32 => (DOUBLE, self.b.cast(CastOp::FpExt, v, Type::F64)),
                Type::Ptr => (PTR, v),
                _ => (INT, self.int_resize(v, Type::I64, !a.ty.is_unsigned())),
            };
            let at = self.offset(block, slot * i as u64);
            let k = self.iconst64(kind as i64);
            self.b.store(k, at);
            let at = self.offset(at, 8);
            self.b.store(v, at);
        }
        let end = self.offset(block, slot * (args.len() - fixed) as u64);
        let k = self.iconst64(crate::hir::VA_END as i64);
        self.b.store(k, end);
        values.push(block);
    }

    /// The address an lvalue designates.
    pub(super) fn lvalue(&mut self, e: &Expr) -> Value {
        let outer = self.loc;
        self.set_span(e.span);
        let loc = self.loc;
        let addr = match &e.kind {
            ExprKind::Local(id) => self.local_addr(*id),
            ExprKind::Global(g) => self.b.global_addr(self.cx.global(*g)),
            ExprKind::Deref(p) => self.value(p),
            ExprKind::Index {
                base,
                index,
                elem_size,
            } => {
                let p = self.value(base);
                let i = self.value(index);
                self.set_loc(loc);
                let off = self.scale(i, &index.ty, *elem_size);
                self.b.ptradd(p, off)
            }
            ExprKind::Member { base, offset, .. } => {
                // An aggregate base (lvalue or not) evaluates to its address.
                let p = self.value(base);
                self.set_loc(loc);
                self.offset(p, *offset)
            }
            ExprKind::CompoundLit { local, init } => {
                let addr = self.local_addr(*local);
                let ty = e.ty.clone();
                self.set_loc(loc);
                self.init(addr, &ty, init, true);
                addr
            }
            // Not an lvalue (the checker never asks); an aggregate rvalue is
            // an address anyway.
            _ => self.value(e),
        };
        self.set_loc(outer);
        addr
    }

    /// `index * elem_size` as an `i64` byte offset.
    fn scale(&mut self, index: Value, index_ty: &CType, elem_size: u64) -> Value {
        let i = self.int_resize(index, Type::I64, !index_ty.is_unsigned());
        if elem_size == 1 {
            return i;
        }
        let size = self.iconst64(elem_size as i64);
        self.b.binary(BinaryOp::Imul, i, size)
    }

    /// An `i1` as the C `int` (or other integer type) `ty`.
    fn widen_bool(&mut self, c: Value, ty: &CType) -> Value {
        let t = scalar_type(ty).unwrap_or(Type::I32);
        self.b.cast(CastOp::Zext, c, t)
    }

    /// Changes an integer's width (sign- or zero-extending).
    pub(super) fn int_resize(&mut self, v: Value, to: Type, signed: bool) -> Value {
        let from = self.b.func.value_type(v);
        if from == to {
            v
        } else if from.bits() > to.bits() {
            self.b.cast(CastOp::Trunc, v, to)
        } else if signed {
            self.b.cast(CastOp::Sext, v, to)
        } else {
            self.b.cast(CastOp::Zext, v, to)
        }
    }

    /// Converts `v` from C type `from` to `to` as C does.
    pub(super) fn convert(&mut self, v: Value, from: &CType, to: &CType) -> Value {
        let (Some(ft), Some(tt)) = (scalar_type(from), scalar_type(to)) else {
            // Aggregate to the same aggregate (or to void): nothing to do.
            return v;
        };
        let ft = if self.b.func.value_type(v) == Type::I1 {
            Type::I1
        } else {
            ft
        };
        if *to == CType::Bool {
            let c = self.truth(v, from);
            return self.b.cast(CastOp::Zext, c, Type::I8);
        }
        let signed = !from.is_unsigned() && ft != Type::I1;
        match (ft, tt) {
            (a, b) if a == b => v,
            (Type::Ptr, t) if t.is_int() => {
                let i = self.b.cast(CastOp::PtrToInt, v, Type::I64);
                self.int_resize(i, t, false)
            }
            (Type::Ptr, _) => v,
            (f, Type::Ptr) if f.is_int() => {
                let i = self.int_resize(v, Type::I64, signed);
                self.b.cast(CastOp::IntToPtr, i, Type::Ptr)
            }
            (f, t) if f.is_int() && t.is_int() => self.int_resize(v, t, signed),
            (f, t) if f.is_int() && t.is_float() => {
                let op = if signed {
                    CastOp::SiToFp
                } else {
                    CastOp::UiToFp
                };
                self.b.cast(op, v, t)
            }
            (f, t) if f.is_float() && t.is_int() => {
                let op = if to.is_unsigned() {
                    CastOp::FpToUi
                } else {
                    CastOp::FpToSi
                };
                self.b.cast(op, v, t)
            }
            (Type::F32, Type::F64) => self.b.cast(CastOp::FpExt, v, Type::F64),
            (Type::F64, Type::F32) => self.b.cast(CastOp::FpTrunc, v, Type::F32),
            _ => v,
        }
    }

    /// Arithmetic on two operands of C type `ty` (comparisons excluded).
    fn arith(&mut self, op: HOp, x: Value, y: Value, ty: &CType) -> Value {
        let t = self.b.func.value_type(x);
        let unsigned = ty.is_unsigned() || ty.is_pointer();
        let op = match op.ir(t.is_float(), unsigned) {
            Some(IrOp::Binary(op)) => op,
            // Comparisons are `compare`'s, and the checker refuses `%` and
            // the bit operators on floats.
            _ if t.is_float() => BinaryOp::Fdiv,
            _ => BinaryOp::Iadd,
        };
        if t.is_float() {
            return self.b.binary(op, x, y);
        }
        // A shift count keeps its own type in C; give it the left operand's
        // width (only its low bits matter).
        let y = if matches!(op, BinaryOp::Shl | BinaryOp::Lshr | BinaryOp::Ashr) {
            self.int_resize(y, t, false)
        } else {
            y
        };
        self.b.binary(op, x, y)
    }

    /// A comparison of two operands of C type `ty`, as an `i1`.
    fn compare(&mut self, op: HOp, x: Value, y: Value, ty: &CType) -> Value {
        let t = self.b.func.value_type(x);
        // Pointers compare as unsigned addresses.
        let unsigned = ty.is_unsigned() || ty.is_pointer() || t == Type::Ptr;
        match op.ir(t.is_float(), unsigned) {
            Some(IrOp::Fcmp(cc)) => self.b.fcmp(cc, x, y),
            Some(IrOp::Icmp(cc)) => self.b.icmp(cc, x, y),
            // Only comparisons come here.
            _ if t.is_float() => self.b.fcmp(FloatCC::Ne, x, y),
            _ => self.b.icmp(IntCC::Ne, x, y),
        }
    }

    /// The three `i32` components of a `dim3` expression.
    fn dim3_parts(&mut self, e: &Expr) -> [Value; 3] {
        if let ExprKind::Dim3(x, y, z) = &e.kind {
            let parts = [self.value(x), self.value(y), self.value(z)];
            return parts.map(|v| self.int_resize(v, Type::I32, false));
        }
        let addr = self.value(e);
        [0, 4, 8].map(|off| {
            let at = self.offset(addr, off);
            self.b.load(Type::I32, at)
        })
    }

    fn builtin(
        &mut self,
        func: Builtin,
        args: &[Expr],
        ty: &CType,
        loc: parc_ir::SrcLoc,
    ) -> Option<Value> {
        let mut values: Vec<Value> = args.iter().map(|a| self.value(a)).collect();
        self.set_loc(loc);
        let op = match func {
            Builtin::Intrinsic(op) => op,
            Builtin::FpTest(test) => return Some(self.fp_test(test, values[0])),
        };
        let ret = match op.info().result {
            None => None,
            Some(OperandType::Fixed(t)) => Some(t),
            // An atomic's result has its value operand's type.
            Some(_) if op == Intrinsic::AtomicAdd => {
                values.get(1).map(|&v| self.b.func.value_type(v))
            }
            // Math: the call's floating type (`double` where the checker
            // made it something else).
            Some(_) => Some(
                scalar_type(ty)
                    .filter(|t| t.is_float())
                    .unwrap_or(Type::F64),
            ),
        };
        match op {
            Intrinsic::Memcpy | Intrinsic::Memset => {
                self.b.intrinsic(op, None, values.clone());
                // C's memcpy/memset return their destination.
                return values.first().copied().filter(|_| ty.is_pointer());
            }
            Intrinsic::Exit => {
                self.b.intrinsic(op, None, values);
                // Nothing after it runs; what follows is lowered into a
                // block with no predecessors and pruned.
                self.b.unreachable();
                self.ensure_open();
                return None;
            }
            _ if op.is_variadic() => {
                // Defensive default argument promotions (the checker makes
                // them explicit already).
                let fixed = op.info().params.len();
                for (v, a) in values.iter_mut().zip(args).skip(fixed) {
                    match self.b.func.value_type(*v) {
                        Type::F32 => *v = self.b.cast(CastOp::FpExt, *v, Type::F64),
                        Type::I1 | Type::I8 => {
                            *v = self.int_resize(*v, Type::I32, !a.ty.is_unsigned())
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        let r = self.b.intrinsic(op, ret, values);
        // A result the program does not use as a value (`void` context).
        if *ty == CType::Void { None } else { r }
    }

    /// `<math.h>`'s classification macros as comparisons of `x` (see
    /// [`FpTest`] for the values).
    fn fp_test(&mut self, test: FpTest, x: Value) -> Value {
        let t = self.b.func.value_type(x);
        let inf = self.b.fconst(t, f64::INFINITY);
        let min_normal = if t == Type::F32 {
            f64::from(f32::MIN_POSITIVE)
        } else {
            f64::MIN_POSITIVE
        };
        let int = |this: &mut Self, k: i32| this.b.iconst(Type::I32, i64::from(k));
        match test {
            FpTest::IsNan => {
                let nan = self.b.fcmp(FloatCC::Ne, x, x);
                self.b.cast(CastOp::Zext, nan, Type::I32)
            }
            FpTest::IsInf => {
                let neg_inf = self.b.fconst(t, f64::NEG_INFINITY);
                let pos = self.b.fcmp(FloatCC::Eq, x, inf);
                let neg = self.b.fcmp(FloatCC::Eq, x, neg_inf);
                let (one, minus_one, zero) = (int(self, 1), int(self, -1), int(self, 0));
                let sign = self.b.select(neg, minus_one, zero);
                self.b.select(pos, one, sign)
            }
            FpTest::IsFinite => {
                let a = self.fabs(x);
                let finite = self.b.fcmp(FloatCC::Lt, a, inf);
                self.b.cast(CastOp::Zext, finite, Type::I32)
            }
            FpTest::IsNormal => {
                let a = self.fabs(x);
                let min = self.b.fconst(t, min_normal);
                let big_enough = self.b.fcmp(FloatCC::Ge, a, min);
                let finite = self.b.fcmp(FloatCC::Lt, a, inf);
                let finite = self.b.cast(CastOp::Zext, finite, Type::I32);
                let zero = int(self, 0);
                self.b.select(big_enough, finite, zero)
            }
            FpTest::SignBit => {
                // The sign of a NaN is only in its bits: through memory, as
                // C reads a union (parir has no bit cast).
                let (bits_ty, size) = if t == Type::F32 {
                    (Type::I32, 4)
                } else {
                    (Type::I64, 8)
                };
                let slot = self.frame_alloca(size, size);
                self.b.store(x, slot);
                let bits = self.b.load(bits_ty, slot);
                if t == Type::F32 {
                    let mask = int(self, i32::MIN);
                    self.b.binary(BinaryOp::And, bits, mask)
                } else {
                    let shift = self.b.iconst(Type::I64, 63);
                    let sign = self.b.binary(BinaryOp::Lshr, bits, shift);
                    self.b.cast(CastOp::Trunc, sign, Type::I32)
                }
            }
            FpTest::Classify([nan, infinite, normal, subnormal, zero]) => {
                let a = self.fabs(x);
                let min = self.b.fconst(t, min_normal);
                let fzero = self.b.fconst(t, 0.0);
                let is_nan = self.b.fcmp(FloatCC::Ne, x, x);
                let is_inf = self.b.fcmp(FloatCC::Eq, a, inf);
                let is_zero = self.b.fcmp(FloatCC::Eq, x, fzero);
                let is_subnormal = self.b.fcmp(FloatCC::Lt, a, min);
                let [nan, infinite, normal, subnormal, zero] =
                    [nan, infinite, normal, subnormal, zero].map(|k| int(self, k));
                let finite = self.b.select(is_subnormal, subnormal, normal);
                let finite = self.b.select(is_zero, zero, finite);
                let number = self.b.select(is_inf, infinite, finite);
                self.b.select(is_nan, nan, number)
            }
        }
    }

    fn fabs(&mut self, x: Value) -> Value {
        let t = self.b.func.value_type(x);
        self.b
            .intrinsic(Intrinsic::Fabs, Some(t), vec![x])
            .expect("fabs has a result")
    }
}

fn is_comparison(op: HOp) -> bool {
    matches!(
        op,
        HOp::Lt | HOp::Le | HOp::Gt | HOp::Ge | HOp::Eq | HOp::Ne
    )
}
