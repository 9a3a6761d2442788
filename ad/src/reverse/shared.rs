//! `__shared__` arrays with derivatives: a shadow array beside each
//! (one per module), zeroed by the block's threads before the reverse
//! reads it.

use super::*;

impl Ctx {
    /// The shadow of `__shared__` array `g` (declared if new): another
    /// `__shared__` array of its size, zero when each block starts.
    pub(super) fn shared_shadow(&mut self, module: &mut Module, g: GlobalId) -> GlobalId {
        if let Some(&s) = self.shared_shadows.get(&g) {
            return s;
        }
        let primal = &module.globals[g];
        let shadow = parc_ir::GlobalData {
            name: format!("{}.shadow", primal.name),
            size: primal.size,
            align: primal.align,
            init: Vec::new(),
            relocs: Vec::new(),
            func_relocs: Vec::new(),
            is_const: false,
            space: parc_ir::AddrSpace::Shared,
            is_local: false,
            is_import: false,
        };
        let s = module.globals.push(shadow);
        self.shared_shadows.insert(g, s);
        s
    }
}

impl Gen<'_> {
    /// At the forward entry of a function with `__syncthreads` whose
    /// `__shared__` arrays have derivatives: their shadows set to zero, a
    /// slice by each thread of the block between two barriers. The reverse
    /// consumes the adjoints of what the function writes, but adjoints of
    /// shared memory it only reads would stay for the next call in the same
    /// block. The first barrier waits for the reverse of such a call; the
    /// second makes the zeros visible before any reverse adds. (A function
    /// that uses `__syncthreads` is called by every thread of the block.)
    ///
    /// A kernel body's forward and reverse run in launches of their own
    /// (`k.fwd`, `k.bwd`), so zeros the forward wrote would be in the
    /// forward launch's shared memory, not the reverse's: there the
    /// reverse zeroes its shadows at its entry instead, where blocks start
    /// with shared memory of unknown contents (threads that run
    /// concurrently: a GPU), and nothing needs to where every block starts
    /// with zeroed shared memory (threads one at a time: the CPU runtime
    /// and the interpreter both zero it).
    pub(super) fn zero_shared_shadows(&mut self) {
        let has_barrier = self.plan.p.placed_insts().any(|(_, i)| {
            matches!(
                self.plan.p.inst(i),
                InstKind::Intrinsic {
                    op: Intrinsic::Barrier,
                    ..
                }
            )
        });
        if self.shared_shadow.is_empty() || !has_barrier {
            return;
        }
        let mut shadows: Vec<(GlobalId, u64)> = self
            .plan
            .shared
            .iter()
            .map(|s| (self.shared_shadow[&s.global], s.size))
            .collect();
        shadows.sort();
        let barrier = |g: &mut Gen| {
            g.effect(Intrinsic::Barrier, vec![]);
        };
        barrier(self);
        // Linear thread id and block size, x fastest.
        let id = |g: &mut Gen, op: Intrinsic| {
            let v = g.ev(InstKind::Intrinsic { op, args: vec![] }, Type::I32);
            g.widen_i64(v, true)
        };
        use parc_ir::Dim;
        let (tx, ty, tz) = (
            id(self, Intrinsic::ThreadIdx(Dim::X)),
            id(self, Intrinsic::ThreadIdx(Dim::Y)),
            id(self, Intrinsic::ThreadIdx(Dim::Z)),
        );
        let (bx, by, bz) = (
            id(self, Intrinsic::BlockDim(Dim::X)),
            id(self, Intrinsic::BlockDim(Dim::Y)),
            id(self, Intrinsic::BlockDim(Dim::Z)),
        );
        let zy = self.binop(BinaryOp::Imul, tz, by);
        let zy = self.binop(BinaryOp::Iadd, zy, ty);
        let tid = self.binop(BinaryOp::Imul, zy, bx);
        let tid = self.binop(BinaryOp::Iadd, tid, tx);
        let threads = self.binop(BinaryOp::Imul, bx, by);
        let threads = self.binop(BinaryOp::Imul, threads, bz);
        let one = self.iconst(Type::I64, 1);
        let zero32 = self.iconst(Type::I32, 0);
        for (g, size) in shadows {
            let size = self.iconst(Type::I64, size as i64);
            // [min(tid·c, size), min((tid+1)·c, size)), c = ⌈size/threads⌉.
            let c = self.binop(BinaryOp::Iadd, size, threads);
            let c = self.binop(BinaryOp::Isub, c, one);
            let c = self.binop(BinaryOp::Udiv, c, threads);
            let lo = self.binop(BinaryOp::Imul, tid, c);
            let hi = self.binop(BinaryOp::Iadd, lo, c);
            let min = |g: &mut Gen, a: Value, b: Value| {
                let lt = g.ev(InstKind::Icmp(IntCC::Slt, a, b), Type::I1);
                g.ev(InstKind::Select(lt, a, b), Type::I64)
            };
            let lo = min(self, lo, size);
            let hi = min(self, hi, size);
            let n = self.binop(BinaryOp::Isub, hi, lo);
            let base = self.ev(InstKind::GlobalAddr(g), Type::Ptr);
            let at = self.ev(InstKind::PtrAdd(base, lo), Type::Ptr);
            self.effect(Intrinsic::Memset, vec![at, zero32, n]);
        }
        barrier(self);
    }
}
