//! The accumulation of a parallel loop's reverse: per-worker partial
//! sums of adjoints every iteration updates (`reduce`), per-worker copies
//! of array regions every iteration gathers from (`reduce_array`, sized
//! and combined after the loop), and the width of the band of iterations
//! within which banded updates meet (`band_width`).

use super::*;

impl Gen<'_> {
    /// The worker running loop `l`'s reverse task, as an `i64`.
    pub(super) fn task_worker(&mut self, l: usize) -> Value {
        if let Some(w) = self.rl[l].worker {
            return w;
        }
        let id = self.g.make_inst(
            InstKind::Intrinsic {
                op: Intrinsic::WorkerId,
                args: vec![],
            },
            Some(Type::I32),
        );
        let idv = self.g.result(id).expect("worker_id has a result");
        let wide = self
            .g
            .make_inst(InstKind::Cast(CastOp::Sext, idv), Some(Type::I64));
        let w = self.g.result(wide).expect("sext has a result");
        let task = self.rl[l].task;
        self.g.blocks[task].insts.splice(0..0, [id, wide]);
        self.rl[l].worker = Some(w);
        w
    }

    /// Adds `a` to the running worker's copy of the region in loop `l`.
    ///
    /// The place in the copy comes from the update's own shadow address
    /// `sp` (what the primal's arithmetic gives, narrow wrapping included):
    /// `buf + row + (sp - origin)`, with `origin` the region's start in the
    /// shadow and `row - origin` invariant in the task, so an update costs
    /// one add more than a plain one. When the primal computes the offset
    /// in 64 bits, `sp` lies in the region by construction. When it widens
    /// a narrower integer, `sp` lies there if nothing wrapped, which the
    /// loop's `pre` shows once (`nowrap`, see `size_arrays`); if it cannot,
    /// every such update adds atomically into the shadow instead.
    pub(super) fn reduce_array(
        &mut self,
        l: usize,
        region: &crate::policy::Region,
        ty: Type,
        a: Value,
        sp: Value,
    ) {
        let found = self.rl[l]
            .arrays
            .iter()
            .position(|r| r.base == region.base && r.ty == ty);
        let idx = match found {
            Some(i) => i,
            None => {
                let placeholder =
                    |g: &mut Gen, ty: Type| g.g.make_inst(InstKind::Iconst(0), Some(ty));
                let start = placeholder(self, Type::I64);
                let extent = placeholder(self, Type::I64);
                let buf = placeholder(self, Type::Ptr);
                let origin = placeholder(self, Type::I64);
                let nowrap = placeholder(self, Type::I1);
                self.rl[l].arrays.push(ArrayReduction {
                    base: region.base,
                    ty,
                    regions: Vec::new(),
                    buf,
                    start,
                    extent,
                    origin,
                    nowrap,
                    copies: None,
                });
                self.rl[l].arrays.len() - 1
            }
        };
        self.rl[l].arrays[idx].regions.push(region.clone());
        let [buf, extent, origin, nowrap] = {
            let r = &self.rl[l].arrays[idx];
            [r.buf, r.extent, r.origin, r.nowrap].map(|i| self.g.result(i).expect("placeholder"))
        };
        let w = self.task_worker(l);
        let stride = self.row_stride(extent, ty);
        let row = self.binop(BinaryOp::Imul, w, stride);
        let delta = self.binop(BinaryOp::Isub, row, origin);
        let at = self.ev(InstKind::Cast(CastOp::PtrToInt, sp), Type::I64);
        let mut off = self.binop(BinaryOp::Iadd, at, delta);
        if region.narrowing != crate::policy::Narrowing::None {
            // Unshown, a detour adds to the shadow atomically and sends the
            // private add to the row's spare element (never combined). The
            // private add, on both paths, is where the adjoint is computed
            // on the shown one: Cranelift computes a value that only two
            // arms use once in each arm (n-body's forces: a square root
            // per arm), and a select of the place on every update costs
            // more than the branch.
            let direct = self.new_block(false);
            let add = self.new_block(false);
            let place = self.g.append_block_param(add, Type::I64);
            let head = self.cur;
            self.emit(
                InstKind::Brif {
                    cond: nowrap,
                    then_dest: BlockCall::new(add, vec![off]),
                    else_dest: BlockCall::to(direct),
                },
                None,
            );
            self.cur = direct;
            self.atomic_add_to(sp, a);
            let spare = self.binop(BinaryOp::Iadd, row, extent);
            self.emit(InstKind::Jump(BlockCall::new(add, vec![spare])), None);
            self.rejoin(head, add);
            off = place;
        }
        let p = self.ev(InstKind::PtrAdd(buf, off), Type::Ptr);
        self.add_to(p, a);
    }

    /// Bytes between two workers' copies of an array reduction's region of
    /// `extent` bytes: the region and one spare element (see
    /// `reduce_array`).
    pub(super) fn row_stride(&mut self, extent: Value, ty: Type) -> Value {
        let size = self.iconst(Type::I64, ty.bytes() as i64);
        self.binop(BinaryOp::Iadd, extent, size)
    }

    /// Continues emission in `join`, the end of a diamond that `head`
    /// opened: what `head` recomputed dominates `join` and is reused there.
    /// (Otherwise the next update recomputes it again, and the optimizer
    /// cannot merge the copies when a load between them sits behind an
    /// atomic add to a shadow it cannot tell apart from the primal.)
    pub(super) fn rejoin(&mut self, head: Block, join: Block) {
        if let Some(known) = self.recomputed.get(&head).cloned() {
            self.recomputed.entry(join).or_default().extend(known);
        }
        self.cur = join;
    }

    /// In loop `l`'s reverse `pre`: each array reduction's region (the
    /// union of its sites' regions; empty where no site's loops run) and
    /// its buffer of one copy per worker, in place of the placeholders.
    pub(super) fn size_arrays(&mut self, l: usize) -> Result<(), AdError> {
        let saved = (self.cur, self.cur_rev, self.ctx_loop);
        self.cur = self.rl[l].pre;
        self.cur_rev = Some(self.plan.ploops[l].exit);
        self.ctx_loop = self.plan.ploops[l].parent;
        for a in 0..self.rl[l].arrays.len() {
            let (ty, regions) = {
                let r = &self.rl[l].arrays[a];
                (r.ty, r.regions.clone())
            };
            let size = ty.bytes() as i64;
            let (start, extent) = self.union_of(&regions, size, None)?;
            let nowrap = self.nowrap(&regions)?;
            let sb = self.shadow[&self.rl[l].arrays[a].base];
            let sb = self.need(sb)?;
            let sb = self.ev(InstKind::Cast(CastOp::PtrToInt, sb), Type::I64);
            let origin = self.binop(BinaryOp::Iadd, sb, start);
            let nw = self.rl[l].nw;
            // One worker: no copy (Enzyme's serial gradient has none
            // either). The buffer is null and the origin 0, so an update
            // adds at `sp` itself, on the path that does not detour
            // (where `sp` need not lie in the region).
            let one = self.iconst(Type::I64, 1);
            let alone = self.ev(InstKind::Icmp(IntCC::Eq, nw, one), Type::I1);
            let zero = self.iconst(Type::I64, 0);
            let rows = self.ev(InstKind::Select(alone, zero, nw), Type::I64);
            let stride = self.row_stride(extent, ty);
            let copies = self.ev(
                InstKind::Intrinsic {
                    op: Intrinsic::Calloc,
                    args: vec![rows, stride],
                },
                Type::Ptr,
            );
            let null = self.iconst(Type::Ptr, 0);
            let buf = self.ev(InstKind::Select(alone, null, copies), Type::Ptr);
            let origin = self.ev(InstKind::Select(alone, zero, origin), Type::I64);
            let nowrap = self.binop(BinaryOp::Or, nowrap, alone);
            self.rl[l].arrays[a].copies = Some((copies, rows));
            let pre = self.rl[l].pre;
            let (bi, si, ei, oi, ni) = {
                let r = &self.rl[l].arrays[a];
                (r.buf, r.start, r.extent, r.origin, r.nowrap)
            };
            let zero_p = self.iconst(Type::I64, 0);
            let yes = self.iconst(Type::I1, 1);
            *self.g.inst_mut(bi) = InstKind::PtrAdd(buf, zero_p);
            *self.g.inst_mut(si) = InstKind::Binary(BinaryOp::Iadd, start, zero_p);
            *self.g.inst_mut(ei) = InstKind::Binary(BinaryOp::Iadd, extent, zero_p);
            *self.g.inst_mut(oi) = InstKind::Binary(BinaryOp::Iadd, origin, zero_p);
            *self.g.inst_mut(ni) = InstKind::Binary(BinaryOp::And, nowrap, yes);
            self.g.blocks[pre].insts.extend([bi, si, ei, oi, ni]);
        }
        (self.cur, self.cur_rev, self.ctx_loop) = saved;
        Ok(())
    }

    /// The union of `regions` (accesses of `size` bytes) as `(start,
    /// extent)` in bytes from their base: `(0, 0)` if no site's loops run.
    /// With `skip`, that index's terms are left out: the offsets relative
    /// to `c·skip`, so one iteration's band when `skip` is the loop index.
    pub(super) fn union_of(
        &mut self,
        regions: &[crate::policy::Region],
        size: i64,
        skip: Option<Value>,
    ) -> Result<(Value, Value), AdError> {
        let mut lo_all = self.iconst(Type::I64, i64::MAX);
        let mut hi_all = self.iconst(Type::I64, i64::MIN);
        for region in regions {
            let mut start = self.iconst(Type::I64, region.offset);
            let mut end = self.iconst(Type::I64, region.offset + size);
            let mut runs = self.iconst(Type::I1, 1);
            for t in &region.terms {
                let c = self.coefficient(t.k, t.sym)?;
                let (first, last) = self.term_range(t)?;
                let some = self.ev(InstKind::Icmp(IntCC::Sge, last, first), Type::I1);
                runs = self.binop(BinaryOp::And, runs, some);
                if skip == Some(t.index) {
                    continue;
                }
                let x = self.binop(BinaryOp::Imul, c, first);
                let y = self.binop(BinaryOp::Imul, c, last);
                let lt = self.ev(InstKind::Icmp(IntCC::Slt, x, y), Type::I1);
                let mn = self.ev(InstKind::Select(lt, x, y), Type::I64);
                let mx = self.ev(InstKind::Select(lt, y, x), Type::I64);
                start = self.binop(BinaryOp::Iadd, start, mn);
                end = self.binop(BinaryOp::Iadd, end, mx);
            }
            // A site whose loops run no iteration touches nothing.
            let lower = self.ev(InstKind::Icmp(IntCC::Slt, start, lo_all), Type::I1);
            let lower = self.binop(BinaryOp::And, lower, runs);
            lo_all = self.ev(InstKind::Select(lower, start, lo_all), Type::I64);
            let higher = self.ev(InstKind::Icmp(IntCC::Sgt, end, hi_all), Type::I1);
            let higher = self.binop(BinaryOp::And, higher, runs);
            hi_all = self.ev(InstKind::Select(higher, end, hi_all), Type::I64);
        }
        let some = self.ev(InstKind::Icmp(IntCC::Slt, lo_all, hi_all), Type::I1);
        let span = self.binop(BinaryOp::Isub, hi_all, lo_all);
        let zero = self.iconst(Type::I64, 0);
        let extent = self.ev(InstKind::Select(some, span, zero), Type::I64);
        let start = self.ev(InstKind::Select(some, lo_all, zero), Type::I64);
        Ok((start, extent))
    }

    /// The first and last value of a region term's index, as `i64`s.
    pub(super) fn term_range(
        &mut self,
        t: &crate::policy::Term,
    ) -> Result<(Value, Value), AdError> {
        use crate::policy::{Lower, Upper};
        let first = match t.lower {
            Lower::Const(lo) => self.iconst(Type::I64, lo),
            Lower::Value(lo) => self.need_int(lo, t.unsigned)?,
        };
        let last = match t.upper {
            Upper::Below(b) => {
                let b = self.need_int(b, t.unsigned)?;
                let one = self.iconst(Type::I64, 1);
                self.binop(BinaryOp::Isub, b, one)
            }
            Upper::AtMost(b) => self.need_int(b, t.unsigned)?,
        };
        Ok((first, last))
    }

    /// In loop `l`'s reverse `pre`, for a loop with banded updates: the
    /// least chunk size, in iterations, that keeps chunks two apart out of
    /// each other's band — `w = ⌈⌈extent / |c|⌉ / |step|⌉` for each group
    /// of bands with one base and loop-index term `iv·c` (the nested
    /// ceilings equal `⌈extent / |c·step|⌉` without forming the product),
    /// the largest over the groups — and whether the bands are shown: no
    /// narrow offset wraps (`nowrap`) and no `c` or `step` is zero.
    pub(super) fn band_width(&mut self, l: usize) -> Result<Option<(Value, Value)>, AdError> {
        let bands = self.rl[l].bands.clone();
        if bands.is_empty() {
            return Ok(None);
        }
        let lp = self.plan.ploops[l].clone();
        let saved = (self.cur_rev, self.ctx_loop);
        self.cur_rev = Some(lp.exit);
        self.ctx_loop = lp.parent;
        let mut groups: Vec<(Value, crate::policy::Term, Vec<crate::policy::Region>)> = Vec::new();
        for r in bands.iter() {
            let t = crate::policy::band_term(r, &lp).expect("banded regions have the term");
            match groups
                .iter_mut()
                .find(|g| g.0 == r.base && crate::policy::same_term(&g.1, &t))
            {
                Some(g) => g.2.push(r.clone()),
                None => groups.push((r.base, t, vec![r.clone()])),
            }
        }
        let mut shown = bands.clone();
        for r in self.rl[l].plain.clone() {
            let t = crate::policy::band_term(&r, &lp).expect("band_of regions have the term");
            if let Some(g) = groups
                .iter_mut()
                .find(|g| g.0 == r.base && crate::policy::same_term(&g.1, &t))
            {
                shown.push(r.clone());
                g.2.push(r);
            }
        }
        let zero = self.iconst(Type::I64, 0);
        let one = self.iconst(Type::I64, 1);
        let step = self.need_int(lp.step, !lp.signed)?;
        let step = self.magnitude(step);
        let step_ok = self.ev(InstKind::Icmp(IntCC::Ne, step, zero), Type::I1);
        let mut ok = self.nowrap(&shown)?;
        ok = self.binop(BinaryOp::And, ok, step_ok);
        let mut width = zero;
        for (_, t, regions) in &groups {
            // Every banded access is 8 bytes or less; the widest bounds all.
            let (_, extent) = self.union_of(regions, 8, Some(lp.iv))?;
            let c = self.coefficient(t.k, t.sym)?;
            let c = self.magnitude(c);
            let c_ok = self.ev(InstKind::Icmp(IntCC::Ne, c, zero), Type::I1);
            ok = self.binop(BinaryOp::And, ok, c_ok);
            let c = self.ev(InstKind::Select(c_ok, c, one), Type::I64);
            let s = self.ev(InstKind::Select(step_ok, step, one), Type::I64);
            let rows = self.ceil_div(extent, c);
            let w = self.ceil_div(rows, s);
            let wider = self.ev(InstKind::Icmp(IntCC::Ugt, w, width), Type::I1);
            width = self.ev(InstKind::Select(wider, w, width), Type::I64);
        }
        (self.cur_rev, self.ctx_loop) = saved;
        Ok(Some((width, ok)))
    }

    /// `⌈a / b⌉` of nonnegative `a` and positive `b`.
    pub(super) fn ceil_div(&mut self, a: Value, b: Value) -> Value {
        let q = self.binop(BinaryOp::Udiv, a, b);
        let back = self.binop(BinaryOp::Imul, q, b);
        let short = self.ev(InstKind::Icmp(IntCC::Ult, back, a), Type::I1);
        let one = self.iconst(Type::I64, 1);
        let zero = self.iconst(Type::I64, 0);
        let up = self.ev(InstKind::Select(short, one, zero), Type::I64);
        self.binop(BinaryOp::Iadd, q, up)
    }

    /// In a reverse loop's `pre`: true if no site among `regions` whose
    /// offset widens a narrow integer can see it wrap. Wrapping arithmetic
    /// is exact modulo 2^bits, so it suffices that every partial sum of
    /// the offset fits in `bits - 1` bits (plus sign); each is at most the
    /// sum of the constants' magnitudes and of `|c|·max(|first|, |last|)`
    /// over the terms (a coefficient widened outside the narrow part only
    /// scales by a factor of magnitude at least 1, or by 0, which hides
    /// any wrap). Each product and partial sum is compared as it is formed,
    /// with every factor checked first, so the test itself cannot
    /// overflow.
    pub(super) fn nowrap(&mut self, regions: &[crate::policy::Region]) -> Result<Value, AdError> {
        use crate::policy::Narrowing;
        let mut ok = self.iconst(Type::I1, 1);
        for region in regions {
            let bits = match region.narrowing {
                Narrowing::None => continue,
                Narrowing::Unsigned => return Ok(self.iconst(Type::I1, 0)),
                Narrowing::Signed(bits) => bits,
            };
            let limit = (1i64 << (bits.min(63) - 1)) - 1;
            if region.abs_offset > limit
                || region
                    .terms
                    .iter()
                    .any(|t| t.k.unsigned_abs() > limit as u64)
            {
                return Ok(self.iconst(Type::I1, 0));
            }
            let lim = self.iconst(Type::I64, limit);
            let mut sum = self.iconst(Type::I64, region.abs_offset);
            for t in &region.terms {
                let (first, last) = self.term_range(t)?;
                let mut factors = vec![first, last];
                if let Some(sym) = t.sym {
                    let sym = self.need_int(sym, false)?;
                    factors.push(sym);
                }
                let mut abs = Vec::new();
                for f in factors {
                    let a = self.magnitude(f);
                    let fits = self.ev(InstKind::Icmp(IntCC::Ule, a, lim), Type::I1);
                    ok = self.binop(BinaryOp::And, ok, fits);
                    abs.push(a);
                }
                // |k · sym · j| for j = first and last, all factors ≤ 2^31.
                let first_last = self.ev(InstKind::Icmp(IntCC::Ult, abs[0], abs[1]), Type::I1);
                let big = self.ev(InstKind::Select(first_last, abs[1], abs[0]), Type::I64);
                let k = self.iconst(Type::I64, t.k.abs());
                let mut term = self.binop(BinaryOp::Imul, k, big);
                let fits = self.ev(InstKind::Icmp(IntCC::Ule, term, lim), Type::I1);
                ok = self.binop(BinaryOp::And, ok, fits);
                if let Some(&s) = abs.get(2) {
                    term = self.binop(BinaryOp::Imul, term, s);
                    let fits = self.ev(InstKind::Icmp(IntCC::Ule, term, lim), Type::I1);
                    ok = self.binop(BinaryOp::And, ok, fits);
                }
                sum = self.binop(BinaryOp::Iadd, sum, term);
                let fits = self.ev(InstKind::Icmp(IntCC::Ule, sum, lim), Type::I1);
                ok = self.binop(BinaryOp::And, ok, fits);
            }
        }
        Ok(ok)
    }

    /// `|x|` of an `i64`, as an unsigned value (`i64::MIN` stays 2^63).
    pub(super) fn magnitude(&mut self, x: Value) -> Value {
        let zero = self.iconst(Type::I64, 0);
        let neg = self.ev(InstKind::Icmp(IntCC::Slt, x, zero), Type::I1);
        let minus = self.binop(BinaryOp::Isub, zero, x);
        self.ev(InstKind::Select(neg, minus, x), Type::I64)
    }

    /// After loop `l`'s reverse: every worker's copy of each region added
    /// into the shadow (entries no worker touched are skipped, so the
    /// shadow keeps even the sign of its zeros; at one worker there is no
    /// copy, the updates went into the shadow), then freed.
    pub(super) fn combine_arrays(&mut self, l: usize) -> Result<(), AdError> {
        let arrays = std::mem::take(&mut self.rl[l].arrays);
        for r in &arrays {
            let (copies, rows) = r.copies.expect("sized before the loop's reverse");
            let (start, extent) = (
                self.g.result(r.start).expect("placeholder"),
                self.g.result(r.extent).expect("placeholder"),
            );
            let sp = self.shadow[&r.base];
            let sp = self.need(sp)?;
            let size = self.iconst(Type::I64, r.ty.bytes() as i64);
            let n = self.binop(BinaryOp::Udiv, extent, size);
            let ty = r.ty;
            let stride = self.row_stride(extent, ty);
            self.emit_for(rows, |g, w| {
                let row = g.binop(BinaryOp::Imul, w, stride);
                g.emit_for(n, |g, e| {
                    let eo = g.binop(BinaryOp::Imul, e, size);
                    let so = g.binop(BinaryOp::Iadd, row, eo);
                    let src = g.ev(InstKind::PtrAdd(copies, so), Type::Ptr);
                    let v = g.ev(InstKind::Load(src), ty);
                    let fz = g.fconst_(ty, 0.0);
                    let nz = g.ev(InstKind::Fcmp(FloatCC::Ne, v, fz), Type::I1);
                    let add = g.new_block(false);
                    let next = g.new_block(false);
                    g.brif(nz, add, next);
                    g.cur = add;
                    let d = g.binop(BinaryOp::Iadd, start, eo);
                    let dst = g.ev(InstKind::PtrAdd(sp, d), Type::Ptr);
                    let old = g.ev(InstKind::Load(dst), ty);
                    let new = g.ev(InstKind::Binary(BinaryOp::Fadd, old, v), ty);
                    g.emit(
                        InstKind::Store {
                            value: new,
                            ptr: dst,
                        },
                        None,
                    );
                    g.emit(InstKind::Jump(BlockCall::to(next)), None);
                    g.cur = next;
                });
            });
            self.effect(Intrinsic::Free, vec![copies]);
        }
        Ok(())
    }

    /// `for i in 0..n { body(i) }` in the reverse code (`i` an `i64`):
    /// `body` starts in the loop's body block and may leave the builder in
    /// another, where the loop continues; afterwards the builder is after
    /// the loop.
    pub(super) fn emit_for(&mut self, n: Value, body: impl FnOnce(&mut Self, Value)) {
        let zero = self.iconst(Type::I64, 0);
        let head = self.new_block(false);
        let i = self.g.append_block_param(head, Type::I64);
        let first = self.new_block(false);
        let done = self.new_block(false);
        self.emit(InstKind::Jump(BlockCall::new(head, vec![zero])), None);
        self.cur = head;
        let more = self.ev(InstKind::Icmp(IntCC::Slt, i, n), Type::I1);
        self.brif(more, first, done);
        self.cur = first;
        body(self, i);
        let one = self.iconst(Type::I64, 1);
        let next = self.binop(BinaryOp::Iadd, i, one);
        self.emit(InstKind::Jump(BlockCall::new(head, vec![next])), None);
        self.cur = done;
    }

    /// Adds `x` to worker `worker_id`'s partial sum for `target` in loop `l`.
    pub(super) fn reduce(&mut self, l: usize, target: RedTarget, ty: Type, x: Value) {
        let key = match target {
            RedTarget::Ssa(v) => (Some(v), None),
            RedTarget::Mem { ptr, .. } => (None, Some(ptr)),
        };
        let existing = self.rl[l]
            .reductions
            .iter()
            .find(|r| r.key == key)
            .map(|r| r.local);
        let local = match existing {
            Some(b) => b,
            None => {
                let pre = self.rl[l].pre;
                let nw = self.rl[l].nw;
                let stride =
                    self.g
                        .append_inst(pre, InstKind::Iconst(SLOT_STRIDE), Some(Type::I64));
                let stride = self.g.result(stride).expect("iconst");
                let c = self.g.append_inst(
                    pre,
                    InstKind::Intrinsic {
                        op: Intrinsic::Calloc,
                        args: vec![nw, stride],
                    },
                    Some(Type::Ptr),
                );
                let buf = self.g.result(c).expect("calloc");
                // The chunk's sum starts at zero: a fresh slot of each
                // reverse task, first in its entry block.
                let local = self.slot_in(self.rl[l].task, ty, None);
                self.rl[l].reductions.push(Reduction {
                    key,
                    buf,
                    local,
                    ty,
                    target,
                });
                local
            }
        };
        let old = self.ev(InstKind::Load(local), ty);
        let new = self.ev(InstKind::Binary(BinaryOp::Fadd, old, x), ty);
        self.emit(
            InstKind::Store {
                value: new,
                ptr: local,
            },
            None,
        );
    }
}
