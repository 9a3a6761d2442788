//! Emission helpers of the generator: instructions appended to the block
//! being emitted (`Gen::cur`), constants, arithmetic, adds into memory,
//! new blocks, and the forward copies and shadows of primal values.

use super::*;

impl Gen<'_> {
    pub(super) fn emit(&mut self, kind: InstKind, ty: Option<Type>) -> Option<Value> {
        let inst = self.g.append_inst(self.cur, kind, ty);
        let r = self.g.result(inst);
        if let (Some(r), Some(b)) = (r, self.cur_fwd) {
            self.origin.insert(r, b);
        }
        r
    }

    pub(super) fn ev(&mut self, kind: InstKind, ty: Type) -> Value {
        self.emit(kind, Some(ty))
            .expect("typed instruction has a result")
    }

    /// An intrinsic with no result (`memset`, `free`, a barrier, ...).
    pub(super) fn effect(&mut self, op: Intrinsic, args: Vec<Value>) {
        self.emit(InstKind::Intrinsic { op, args }, None);
    }

    /// Notes `count · per` bytes recorded and `allocated` bytes of tape
    /// heap (see `crate::tape::note`).
    pub(super) fn note_tape(&mut self, count: Value, per: i64, allocated: Option<Value>) {
        let k = self.iconst(Type::I64, per);
        let recorded = self.binop(BinaryOp::Imul, count, k);
        let allocated = match allocated {
            Some(a) => a,
            None => self.iconst(Type::I64, 0),
        };
        self.effect(Intrinsic::AdTapeNote, vec![recorded, allocated]);
    }

    pub(super) fn iconst(&mut self, ty: Type, v: i64) -> Value {
        self.ev(InstKind::Iconst(parc_ir::sign_extend(v, ty)), ty)
    }

    pub(super) fn fconst_(&mut self, ty: Type, v: f64) -> Value {
        let v = if ty == Type::F32 { v as f32 as f64 } else { v };
        self.ev(InstKind::Fconst(v), ty)
    }

    pub(super) fn binop(&mut self, op: BinaryOp, a: Value, b: Value) -> Value {
        let ty = self.g.value_type(a);
        self.ev(InstKind::Binary(op, a, b), ty)
    }

    /// `*p += x`, a plain read-modify-write; `*p -= y` where `x` is
    /// `-y` (the rules' `dy -= a`: one subtraction instead of a sign flip
    /// and an add, which the optimizer may not fold, as `a + -y` and
    /// `a - y` differ in the sign of a NaN).
    pub(super) fn add_to(&mut self, p: Value, x: Value) {
        let ty = self.g.value_type(x);
        let old = self.ev(InstKind::Load(p), ty);
        let (op, x) = match self.g.value_def(x) {
            ValueDef::Result(i) => match *self.g.inst(i) {
                InstKind::Unary(UnaryOp::Fneg, y) => (BinaryOp::Fsub, y),
                _ => (BinaryOp::Fadd, x),
            },
            ValueDef::Param(..) => (BinaryOp::Fadd, x),
        };
        let new = self.ev(InstKind::Binary(op, old, x), ty);
        self.emit(InstKind::Store { value: new, ptr: p }, None);
    }

    /// `*p += x`, atomically.
    pub(super) fn atomic_add_to(&mut self, p: Value, x: Value) {
        let ty = self.g.value_type(x);
        self.emit(
            InstKind::Intrinsic {
                op: Intrinsic::AtomicAdd,
                args: vec![p, x],
            },
            Some(ty),
        );
    }

    pub(super) fn offset(&mut self, base: Value, off: i64) -> Value {
        let o = self.iconst(Type::I64, off);
        self.ev(InstKind::PtrAdd(base, o), Type::Ptr)
    }

    pub(super) fn new_block(&mut self, forward: bool) -> Block {
        let b = self.g.create_block();
        self.g.append_block(b);
        if forward {
            self.fwd_layout.push(b);
        } else {
            self.rev_layout.push(b);
        }
        b
    }

    pub(super) fn fv(&self, v: Value) -> Value {
        self.fwd[&v]
    }

    /// The forward shadow of primal pointer `v` (null if it has none).
    pub(super) fn sh(&mut self, v: Value) -> Value {
        match self.shadow.get(&v) {
            Some(&s) => s,
            None => self.iconst(Type::Ptr, 0),
        }
    }

    /// Primal integer `v`'s forward value as an `i64` (sign- or
    /// zero-extended).
    pub(super) fn fwd_i64(&mut self, v: Value, signed: bool) -> Value {
        // A loop's bound or step may be a constant left inside the loop
        // (`find_loops` accepts it), used before the forward copy of its
        // block exists: constants are made where they are needed.
        let f = match self.plan.p.const_int(v) {
            Some(k) => self.iconst(self.plan.p.value_type(v), k),
            None => self.fv(v),
        };
        self.widen_i64(f, signed)
    }

    /// Integer `v` (of the forward sweep) as an `i64`.
    pub(super) fn widen_i64(&mut self, v: Value, signed: bool) -> Value {
        match self.g.value_type(v) {
            Type::I64 => v,
            _ => {
                let op = if signed { CastOp::Sext } else { CastOp::Zext };
                self.ev(InstKind::Cast(op, v), Type::I64)
            }
        }
    }
}
