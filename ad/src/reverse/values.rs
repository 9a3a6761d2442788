//! How the reverse code gets the forward values it needs: as the plan's
//! `needs` say (see `walk.rs`), emitted here — a pop from a block's frame, a record
//! at a loop's exit, or a recomputation.

use super::*;

impl Gen<'_> {
    /// `gv` (a value of the forward sweep) in the reverse code of the
    /// current block, recorded or recomputed as `cache/` decides: see
    /// the module doc's frame invariant.
    pub(super) fn need(&mut self, gv: Value) -> Result<Value, AdError> {
        let b = self.cur_rev.expect("need() is only called in reverse code");
        Ok(match self.obtain(b, gv)? {
            Obtain::Free => self.free_value(gv).expect("a free value"),
            Obtain::Popped(v) => v,
            Obtain::Recompute => self.rebuild(b, gv)?,
            Obtain::RecordAt(at) => self.record_in(at, b, gv, Why::Invariant),
            Obtain::RecordCut(cut) => {
                for &v in &cut {
                    self.record_in(b, b, v, Why::CutFor(gv));
                }
                if self.cheap(b, gv)? {
                    self.rebuild(b, gv)?
                } else {
                    self.record_in(b, b, gv, Why::NotRecomputable)
                }
            }
            Obtain::Record => self.record_in(b, b, gv, Why::NotRecomputable),
        })
    }

    /// The record-or-recompute decisions' view of what has been made.
    pub(super) fn sweep(&self) -> Sweep<'_> {
        Sweep {
            plan: self.plan,
            g: &self.g,
            fwd: &self.fwd,
            fwd_inv: &self.fwd_inv,
            origin: &self.origin,
            rentry: self.rentry,
            pop_cache: &self.pop_cache,
        }
    }

    /// Constants (re-emitted), parameters, and in combined mode values of
    /// blocks that dominate every return outside loops: no record needed.
    pub(super) fn free_value(&mut self, gv: Value) -> Option<Value> {
        if !self.sweep().is_free(gv) {
            return None;
        }
        if let ValueDef::Result(i) = self.g.value_def(gv) {
            let k = self.g.inst(i).clone();
            if is_position(&k) {
                let ty = self.g.value_type(gv);
                return Some(self.ev(k, ty));
            }
        }
        Some(gv)
    }

    /// Records `gv` in the frame of primal block `at` (whose reverse pops
    /// it, and dominates the reverse of `b`); `why` goes to the tape report.
    pub(super) fn record_in(&mut self, at: Block, b: Block, gv: Value, why: Why) -> Value {
        if let Some(&v) = self.pop_cache.get(&(at, gv)) {
            self.pop_cache.insert((b, gv), v);
            return v;
        }
        let ty = self.g.value_type(gv);
        let l = self.g.make_inst(InstKind::Load(gv), Some(ty));
        let v = self.g.result(l).expect("load has a result");
        self.frames.entry(at).or_default().push((gv, l));
        self.tape_log.push((at, gv, why));
        self.pop_cache.insert((at, gv), v);
        self.pop_cache.insert((b, gv), v);
        v
    }

    /// Emits `gv`'s recomputation (which `cheap` allowed) in the current
    /// reverse block, as [`Sweep::rebuild`] says.
    pub(super) fn rebuild(&mut self, b: Block, gv: Value) -> Result<Value, AdError> {
        if let Some(v) = self.free_value(gv) {
            return Ok(v);
        }
        if let Some(&v) = self.pop_cache.get(&(b, gv)) {
            return Ok(v);
        }
        if let Some(&v) = self.recomputed.get(&self.cur).and_then(|m| m.get(&gv)) {
            return Ok(v);
        }
        let v = match self.rebuild_how(b, gv)? {
            Rebuild::Iv(iv) => self.rebuild_iv(iv)?,
            Rebuild::RecordAt(at) => self.record_in(at, b, gv, Why::Invariant),
            Rebuild::Select(c, t, f) => {
                let c = self.rebuild(b, c)?;
                let t = self.rebuild(b, t)?;
                let f = self.rebuild(b, f)?;
                let ty = self.g.value_type(gv);
                self.ev(InstKind::Select(c, t, f), ty)
            }
            Rebuild::Operands => {
                let ValueDef::Result(i) = self.g.value_def(gv) else {
                    unreachable!("cheap() accepted only instruction results here")
                };
                let mut kind = self.g.inst(i).clone();
                let mut ops = Vec::new();
                kind.map_operands(|v| {
                    ops.push(v);
                    v
                });
                let mut new_ops = Vec::new();
                for op in ops {
                    let v = self.rebuild(b, op)?;
                    new_ops.push(v);
                }
                let mut it = new_ops.into_iter();
                kind.map_operands(|v| it.next().unwrap_or(v));
                let ty = self.g.value_type(gv);
                self.ev(kind, ty)
            }
        };
        self.recomputed.entry(self.cur).or_default().insert(gv, v);
        Ok(v)
    }

    /// `lo + k·step` for the iteration being reversed.
    pub(super) fn rebuild_iv(&mut self, iv: Iv) -> Result<Value, AdError> {
        let (p, k, lo, step) = match iv {
            Iv::Counted(i, p) => {
                let (lo, step) = self.plan.counted[i].ivs[&p];
                let slot = self.counter_slot(i);
                let k = self.ev(InstKind::Load(slot), Type::I64);
                let ty = self.plan.p.value_type(p);
                let step = self.iconst(ty, step);
                (p, k, self.rv(lo)?, step)
            }
            Iv::Parallel(i) => {
                let l = self.plan.ploops[i].clone();
                let k = self.rl[i].k;
                (l.iv, k, self.rv(l.lo)?, self.rv(l.step)?)
            }
        };
        let ty = self.plan.p.value_type(p);
        let k = if ty == Type::I64 {
            k
        } else {
            self.ev(InstKind::Cast(CastOp::Trunc, k), ty)
        };
        let off = self.binop(BinaryOp::Imul, k, step);
        Ok(self.binop(BinaryOp::Iadd, lo, off))
    }

    /// The slot holding the iteration of counted loop `i` being reversed:
    /// private to the reverse task whose code reverses the loop.
    pub(super) fn counter_slot(&mut self, i: usize) -> Value {
        if let Some(s) = self.counter_slot[i] {
            return s;
        }
        let h = self.plan.counted[i].header;
        let home = match self.plan.task_of(Some(h)) {
            Some(TaskOf::Loop(l)) => self.rl[l].task,
            Some(TaskOf::Spawn(sp)) => self.rs[sp].rtask,
            None => self.alloca_block,
        };
        let s = self.slot_in(home, Type::I64, None);
        self.counter_slot[i] = Some(s);
        s
    }

    /// A primal value (its forward copy) in the reverse code.
    pub(super) fn rv(&mut self, v: Value) -> Result<Value, AdError> {
        let f = self.fv(v);
        self.need(f)
    }

    /// `i64` of primal integer `v` (sign- or zero-extended), in the reverse.
    pub(super) fn need_int(&mut self, v: Value, unsigned: bool) -> Result<Value, AdError> {
        let f = self.fv(v);
        let r = self.need(f)?;
        Ok(self.widen_i64(r, !unsigned))
    }
}
