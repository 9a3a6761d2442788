//! The reverse of parallel loops: the per-iteration tapes of the forward
//! sweep, the reverse loop over chunks of iterations, and the accumulation
//! of reductions (per-worker slots, array regions copied per worker).

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
    pub(super) fn size_arrays(&mut self, l: usize) {
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
            let (start, extent) = self.union_of(&regions, size, None);
            let nowrap = self.nowrap(&regions);
            let sb = self.shadow[&self.rl[l].arrays[a].base];
            let sb = self.need(sb);
            let sb = self.ev(InstKind::Cast(CastOp::PtrToInt, sb), Type::I64);
            let origin = self.binop(BinaryOp::Iadd, sb, start);
            let nw = self.rl[l].nw;
            let stride = self.row_stride(extent, ty);
            let buf = self.ev(
                InstKind::Intrinsic {
                    op: Intrinsic::Calloc,
                    args: vec![nw, stride],
                },
                Type::Ptr,
            );
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
    }

    /// The union of `regions` (accesses of `size` bytes) as `(start,
    /// extent)` in bytes from their base: `(0, 0)` if no site's loops run.
    /// With `skip`, that index's terms are left out: the offsets relative
    /// to `c·skip`, so one iteration's band when `skip` is the loop index.
    fn union_of(
        &mut self,
        regions: &[crate::policy::Region],
        size: i64,
        skip: Option<Value>,
    ) -> (Value, Value) {
        let mut lo_all = self.iconst(Type::I64, i64::MAX);
        let mut hi_all = self.iconst(Type::I64, i64::MIN);
        for region in regions {
            let mut start = self.iconst(Type::I64, region.offset);
            let mut end = self.iconst(Type::I64, region.offset + size);
            let mut runs = self.iconst(Type::I1, 1);
            for t in &region.terms {
                let c = self.coefficient(t.k, t.sym);
                let (first, last) = self.term_range(t);
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
        (start, extent)
    }

    /// The first and last value of a region term's index, as `i64`s.
    fn term_range(&mut self, t: &crate::policy::Term) -> (Value, Value) {
        use crate::policy::{Lower, Upper};
        let first = match t.lower {
            Lower::Const(lo) => self.iconst(Type::I64, lo),
            Lower::Value(lo) => self.need_int(lo, t.unsigned),
        };
        let last = match t.upper {
            Upper::Below(b) => {
                let b = self.need_int(b, t.unsigned);
                let one = self.iconst(Type::I64, 1);
                self.binop(BinaryOp::Isub, b, one)
            }
            Upper::AtMost(b) => self.need_int(b, t.unsigned),
        };
        (first, last)
    }

    /// In loop `l`'s reverse `pre`, for a loop with banded updates: the
    /// least chunk size, in iterations, that keeps chunks two apart out of
    /// each other's band — `w = ⌈⌈extent / |c|⌉ / |step|⌉` for each group
    /// of bands with one base and loop-index term `iv·c` (the nested
    /// ceilings equal `⌈extent / |c·step|⌉` without forming the product),
    /// the largest over the groups — and whether the bands are shown: no
    /// narrow offset wraps (`nowrap`) and no `c` or `step` is zero.
    fn band_width(&mut self, l: usize) -> Option<(Value, Value)> {
        let bands = self.rl[l].bands.clone();
        if bands.is_empty() {
            return None;
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
        let step = self.need_int(lp.step, !lp.signed);
        let step = self.magnitude(step);
        let step_ok = self.ev(InstKind::Icmp(IntCC::Ne, step, zero), Type::I1);
        let mut ok = self.nowrap(&shown);
        ok = self.binop(BinaryOp::And, ok, step_ok);
        let mut width = zero;
        for (_, t, regions) in &groups {
            // Every banded access is 8 bytes or less; the widest bounds all.
            let (_, extent) = self.union_of(regions, 8, Some(lp.iv));
            let c = self.coefficient(t.k, t.sym);
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
        Some((width, ok))
    }

    /// `⌈a / b⌉` of nonnegative `a` and positive `b`.
    fn ceil_div(&mut self, a: Value, b: Value) -> Value {
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
    fn nowrap(&mut self, regions: &[crate::policy::Region]) -> Value {
        use crate::policy::Narrowing;
        let mut ok = self.iconst(Type::I1, 1);
        for region in regions {
            let bits = match region.narrowing {
                Narrowing::None => continue,
                Narrowing::Unsigned => return self.iconst(Type::I1, 0),
                Narrowing::Signed(bits) => bits,
            };
            let limit = (1i64 << (bits.min(63) - 1)) - 1;
            if region.abs_offset > limit
                || region
                    .terms
                    .iter()
                    .any(|t| t.k.unsigned_abs() > limit as u64)
            {
                return self.iconst(Type::I1, 0);
            }
            let lim = self.iconst(Type::I64, limit);
            let mut sum = self.iconst(Type::I64, region.abs_offset);
            for t in &region.terms {
                let (first, last) = self.term_range(t);
                let mut factors = vec![first, last];
                if let Some(sym) = t.sym {
                    let sym = self.need_int(sym, false);
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
        ok
    }

    /// `|x|` of an `i64`, as an unsigned value (`i64::MIN` stays 2^63).
    fn magnitude(&mut self, x: Value) -> Value {
        let zero = self.iconst(Type::I64, 0);
        let neg = self.ev(InstKind::Icmp(IntCC::Slt, x, zero), Type::I1);
        let minus = self.binop(BinaryOp::Isub, zero, x);
        self.ev(InstKind::Select(neg, minus, x), Type::I64)
    }

    /// After loop `l`'s reverse: every worker's copy of each region added
    /// into the shadow (entries no worker touched are skipped, so the
    /// shadow keeps even the sign of its zeros), then freed.
    pub(super) fn combine_arrays(&mut self, l: usize) {
        let arrays = std::mem::take(&mut self.rl[l].arrays);
        let nw = self.rl[l].nw;
        for r in &arrays {
            let (buf, start, extent) = (
                self.g.result(r.buf).expect("placeholder"),
                self.g.result(r.start).expect("placeholder"),
                self.g.result(r.extent).expect("placeholder"),
            );
            let sp = self.shadow[&r.base];
            let sp = self.need(sp);
            let size = self.iconst(Type::I64, r.ty.bytes() as i64);
            let n = self.binop(BinaryOp::Udiv, extent, size);
            let ty = r.ty;
            let stride = self.row_stride(extent, ty);
            self.emit_for(nw, |g, w| {
                let row = g.binop(BinaryOp::Imul, w, stride);
                g.emit_for(n, |g, e| {
                    let eo = g.binop(BinaryOp::Imul, e, size);
                    let so = g.binop(BinaryOp::Iadd, row, eo);
                    let src = g.ev(InstKind::PtrAdd(buf, so), Type::Ptr);
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
            self.effect(Intrinsic::Free, vec![buf]);
        }
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

    /// In the forward copy of `pre`: the trip count and the tape array.
    pub(super) fn forward_tapes(&mut self, i: usize) {
        let l = self.plan.ploops[i].clone();
        let lo = self.fwd_i64(l.lo, l.signed);
        let hi = self.fwd_i64(l.hi, l.signed);
        let step = self.fwd_i64(l.step, l.signed);
        let one = self.iconst(Type::I64, 1);
        // `pre` may end in the front end's check of a step known only at
        // run time, which faults on one that is not positive; the division
        // below comes before that branch, so it must not trap first.
        let zero = self.iconst(Type::I64, 0);
        let cc = if l.signed { IntCC::Sgt } else { IntCC::Ne };
        let step_ok = self.ev(InstKind::Icmp(cc, step, zero), Type::I1);
        let step = self.ev(InstKind::Select(step_ok, step, one), Type::I64);
        let span = self.binop(BinaryOp::Isub, hi, lo);
        let span = if l.inclusive {
            span
        } else {
            self.binop(BinaryOp::Isub, span, one)
        };
        let q = self.binop(BinaryOp::Udiv, span, step);
        let t = self.binop(BinaryOp::Iadd, q, one);
        let cc = match (l.signed, l.inclusive) {
            (true, false) => IntCC::Slt,
            (true, true) => IntCC::Sle,
            (false, false) => IntCC::Ult,
            (false, true) => IntCC::Ule,
        };
        let c = self.ev(InstKind::Icmp(cc, lo, hi), Type::I1);
        let zero = self.iconst(Type::I64, 0);
        let trip = self.ev(InstKind::Select(c, t, zero), Type::I64);
        let size = self.iconst(Type::I64, HEADER_BYTES as i64);
        let tapes = self.ev(
            InstKind::Intrinsic {
                op: Intrinsic::Calloc,
                args: vec![trip, size],
            },
            Type::Ptr,
        );
        self.rl[i].tapes_fwd = Some(tapes);
        self.rl[i].trip_fwd = Some(trip);
        if let Some(loops) = self.plan.sized_tasks[i].clone() {
            self.rl[i].flat = loops.is_empty() && self.flat_task_tapes;
            let (mut slots, si) = self.slots_placeholder();
            for (j, test) in loops {
                let runs = self.header_runs(test);
                let (s, sj) = self.slots_placeholder();
                let records = self.binop(BinaryOp::Imul, runs, s);
                slots = self.binop(BinaryOp::Iadd, slots, records);
                self.rl[i].loop_slots.push((j, sj));
            }
            self.rl[i].slots_fwd = Some(slots);
            let n = self.binop(BinaryOp::Imul, trip, slots);
            let eight = self.iconst(Type::I64, 8);
            let bytes = self.binop(BinaryOp::Imul, n, eight);
            let data = self.ev(
                InstKind::Intrinsic {
                    op: Intrinsic::Malloc,
                    args: vec![bytes],
                },
                Type::Ptr,
            );
            self.rl[i].fixed_slots = Some(si);
            self.rl[i].data_fwd = Some(data);
        }
        self.note_loop_tapes(i, tapes, trip, true);
        self.forward_pool(i);
    }

    /// Notes parallel loop `i`'s tape memory, given its tape array
    /// `tapes` and trip count: allocated in the forward (`forward`), freed
    /// in the reverse. The headers (`24 · trip`, unless the array went:
    /// null) are records and heap; the buffer of a sized task (`8 · trip
    /// · slots`) is heap, and records too when the task is flat (pushes
    /// onto its iterations' tapes note them otherwise). For a task
    /// without loops, slots and flatness are known only once every frame
    /// is: placeholders (`note_slots`, `note_flat`); a task with counted
    /// loops has its slots in the forward, and the reverse reads them
    /// back from the capacity of the first iteration's tape.
    fn note_loop_tapes(&mut self, i: usize, tapes: Value, trip: Value, forward: bool) {
        let sign = if forward { 1 } else { -1 };
        let null = self.iconst(Type::Ptr, 0);
        let some = self.ev(InstKind::Icmp(IntCC::Ne, tapes, null), Type::I1);
        let h = self.iconst(Type::I64, sign * i64::from(HEADER_BYTES));
        let hb = self.binop(BinaryOp::Imul, trip, h);
        let zero = self.iconst(Type::I64, 0);
        let headers = self.ev(InstKind::Select(some, hb, zero), Type::I64);
        let (recorded, allocated) = if self.rl[i].fixed_slots.is_some() {
            let (slots, flat) = if self.rl[i].loop_slots.is_empty() {
                let (slots, si) = self.slots_placeholder();
                let (flat, fi) = self.slots_placeholder();
                self.rl[i].note_slots.push(si);
                self.rl[i].note_flat.push(fi);
                (slots, flat)
            } else {
                let slots = match self.rl[i].slots_fwd.filter(|_| forward) {
                    Some(s) => s,
                    None => self.first_tape_capacity(tapes, trip),
                };
                (slots, zero)
            };
            let b = self.iconst(Type::I64, sign * 8);
            let per = self.binop(BinaryOp::Imul, slots, b);
            let buffer = self.binop(BinaryOp::Imul, trip, per);
            let records = self.binop(BinaryOp::Imul, buffer, flat);
            (
                self.binop(BinaryOp::Iadd, headers, records),
                self.binop(BinaryOp::Iadd, headers, buffer),
            )
        } else {
            (headers, headers)
        };
        self.effect(Intrinsic::AdTapeNote, vec![recorded, allocated]);
    }

    /// In the reverse: the capacity of the first iteration's tape (a sized
    /// task's slots per iteration), 0 if the loop ran no iteration.
    fn first_tape_capacity(&mut self, tapes: Value, trip: Value) -> Value {
        let zero = self.iconst(Type::I64, 0);
        let ran = self.ev(InstKind::Icmp(IntCC::Sgt, trip, zero), Type::I1);
        let read = self.new_block(false);
        let skip = self.new_block(false);
        let join = self.new_block(false);
        let cap = self.g.append_block_param(join, Type::I64);
        self.brif(ran, read, skip);
        self.cur = skip;
        self.emit(InstKind::Jump(BlockCall::new(join, vec![zero])), None);
        self.cur = read;
        let p = self.offset(tapes, crate::tape::CAP);
        let c = self.ev(InstKind::Load(p), Type::I64);
        self.emit(InstKind::Jump(BlockCall::new(join, vec![c])), None);
        self.cur = join;
        cap
    }

    /// At the start of the forward copy of the task: this iteration's tape.
    pub(super) fn forward_task_tape(&mut self, i: usize) {
        let l = self.plan.ploops[i].clone();
        let iv = self.fwd_i64(l.iv, l.signed);
        let lo = self.fwd_i64(l.lo, l.signed);
        let step = self.fwd_i64(l.step, l.signed);
        let d = self.binop(BinaryOp::Isub, iv, lo);
        let k = self.binop(BinaryOp::Udiv, d, step);
        let size = self.iconst(Type::I64, HEADER_BYTES as i64);
        let off = self.binop(BinaryOp::Imul, k, size);
        let tapes = self.rl[i].tapes_fwd.expect("pre dominates the task");
        let tape = self.ev(InstKind::PtrAdd(tapes, off), Type::Ptr);
        self.rl[i].tape_fwd = Some(tape);
        self.enter_stream(i, tape);
        if let Some(data) = self.rl[i].data_fwd {
            // This iteration's part of the buffer: an empty tape of
            // `slots` capacity that never grows.
            let slots = self.rl[i].slots_fwd.expect("set with the buffer");
            let eight = self.iconst(Type::I64, 8);
            let stride = self.binop(BinaryOp::Imul, slots, eight);
            let at = self.binop(BinaryOp::Imul, k, stride);
            let mine = self.ev(InstKind::PtrAdd(data, at), Type::Ptr);
            self.rl[i].mine_fwd = Some(mine);
            self.emit(
                InstKind::Store {
                    value: mine,
                    ptr: tape,
                },
                None,
            );
            let first = *self.g.blocks[self.cur].insts.last().expect("just emitted");
            let cap = self.offset(tape, crate::tape::CAP);
            self.emit(
                InstKind::Store {
                    value: slots,
                    ptr: cap,
                },
                None,
            );
            let second = *self.g.blocks[self.cur].insts.last().expect("just emitted");
            // The length is 0 already (calloc), but stored so that the
            // optimizer sees it and folds the reservations' room checks.
            let zero = self.iconst(Type::I64, 0);
            let len = self.offset(tape, crate::tape::LEN);
            self.emit(
                InstKind::Store {
                    value: zero,
                    ptr: len,
                },
                None,
            );
            let third = *self.g.blocks[self.cur].insts.last().expect("just emitted");
            self.rl[i].fixed_setup = vec![first, second, third];
        }
    }

    /// Creates the blocks of loop `i`'s reverse (filled in later).
    pub(super) fn create_rev_loop(&mut self, _i: usize) {
        let pre = self.new_block(false);
        let header = self.new_block(false);
        let chunk = self.g.append_block_param(header, Type::I64);
        let spawn = self.new_block(false);
        let task = self.new_block(false);
        let ihead = self.new_block(false);
        let k = self.g.append_block_param(ihead, Type::I64);
        let ibody = self.new_block(false);
        let inext = self.new_block(false);
        let flush = self.new_block(false);
        let latch = self.new_block(false);
        let exit = self.new_block(false);
        let after = self.new_block(false);
        let sr = self.g.create_sync_region();
        let nw = self.g.append_inst(
            pre,
            InstKind::Intrinsic {
                op: Intrinsic::NumWorkers,
                args: vec![],
            },
            Some(Type::I32),
        );
        let nw = self.g.result(nw).expect("num_workers has a result");
        let nw = self
            .g
            .append_inst(pre, InstKind::Cast(CastOp::Sext, nw), Some(Type::I64));
        let nw = self.g.result(nw).expect("sext has a result");
        self.g.append_inst(
            spawn,
            InstKind::Detach {
                region: sr,
                task,
                cont: latch,
            },
            None,
        );
        // Chunks count up; a chunk's iterations count down (see
        // `finish_rev_loop`).
        for (block, var, next, by) in [(latch, chunk, header, 1), (inext, k, ihead, -1)] {
            let one = self
                .g
                .append_inst(block, InstKind::Iconst(by), Some(Type::I64));
            let one = self.g.result(one).expect("iconst");
            let v1 = self.g.append_inst(
                block,
                InstKind::Binary(BinaryOp::Iadd, var, one),
                Some(Type::I64),
            );
            let v1 = self.g.result(v1).expect("iadd");
            self.g
                .append_inst(block, InstKind::Jump(BlockCall::new(next, vec![v1])), None);
        }
        self.g.append_inst(
            exit,
            InstKind::Sync {
                region: sr,
                next: after,
            },
            None,
        );
        let tape_inst = self.g.make_inst(InstKind::PtrAdd(k, k), Some(Type::Ptr));
        let tape = self.g.result(tape_inst).expect("ptradd");
        let mine_inst = self.g.make_inst(InstKind::PtrAdd(k, k), Some(Type::Ptr));
        let mine = self.g.result(mine_inst).expect("ptradd");
        self.rl.push(RevLoop {
            pre,
            header,
            chunk,
            spawn,
            task,
            latch,
            exit,
            after,
            ihead,
            k,
            ibody,
            inext,
            flush,
            sr,
            tape_inst,
            tape,
            nw,
            tapes_fwd: None,
            trip_fwd: None,
            tape_fwd: None,
            tapes_rev: None,
            trip_rev: None,
            fixed_slots: None,
            loop_slots: Vec::new(),
            slots_fwd: None,
            fixed_setup: Vec::new(),
            note_flat: Vec::new(),
            note_slots: Vec::new(),
            data_fwd: None,
            data_rev: None,
            flat: false,
            pooled: self.pooled.get(_i).copied().unwrap_or(false),
            pool_fwd: None,
            stream_fwd: None,
            pool_rev: None,
            mine_fwd: None,
            mine_inst,
            mine,
            slots_rev: None,
            reductions: Vec::new(),
            arrays: Vec::new(),
            bands: Vec::new(),
            plain: Vec::new(),
            worker: None,
        });
    }

    /// Fills in loop `i`'s reverse: the header, the task's tape, and after
    /// the sync the combination of partial sums and the way on to `pre`.
    pub(super) fn finish_rev_loop(&mut self, i: usize) {
        let l = self.plan.ploops[i].clone();
        let (Some(tapes), Some(trip)) = (self.rl[i].tapes_rev, self.rl[i].trip_rev) else {
            return; // the loop's exit reaches no return: no reverse
        };
        let r = &self.rl[i];
        let (pre, header, chunk, spawn, task, exit, after, nw) = (
            r.pre, r.header, r.chunk, r.spawn, r.task, r.exit, r.after, r.nw,
        );
        let (ihead, k, ibody, flush, sr, latch) = (r.ihead, r.k, r.ibody, r.flush, r.sr, r.latch);
        self.size_arrays(i);
        // pre: iterations per chunk g = max(1, ceil(trip / (8 nw))), about
        // eight chunks per worker for balance; chunks = ceil(trip / g).
        self.cur = pre;
        let one = self.iconst(Type::I64, 1);
        let eight = self.iconst(Type::I64, 8);
        let parts = self.binop(BinaryOp::Imul, nw, eight);
        let t = self.binop(BinaryOp::Iadd, trip, parts);
        let t = self.binop(BinaryOp::Isub, t, one);
        let g = self.binop(BinaryOp::Udiv, t, parts);
        let small = self.ev(InstKind::Icmp(IntCC::Slt, g, one), Type::I1);
        let mut g = self.ev(InstKind::Select(small, one, g), Type::I64);
        let band = self.band_width(i);
        if let Some((width, shown)) = band {
            // Chunks at least the band wide; one chunk of everything
            // where the band is not shown.
            let wider = self.ev(InstKind::Icmp(IntCC::Ugt, width, g), Type::I1);
            let banded = self.ev(InstKind::Select(wider, width, g), Type::I64);
            let some = self.ev(InstKind::Icmp(IntCC::Sgt, trip, one), Type::I1);
            let all = self.ev(InstKind::Select(some, trip, one), Type::I64);
            g = self.ev(InstKind::Select(shown, banded, all), Type::I64);
        }
        let t = self.binop(BinaryOp::Iadd, trip, g);
        let t = self.binop(BinaryOp::Isub, t, one);
        let chunks = self.binop(BinaryOp::Udiv, t, g);
        let zero = self.iconst(Type::I64, 0);
        // With bands, a serial loop of two phases around the parallel one:
        // phase p runs chunks p, p + 2, p + 4, ... (its `chunk`-th is
        // chunk `2·chunk + p`), and syncs before the next phase starts.
        let (count, phase) = if band.is_some() {
            let phead = self.new_block(false);
            let p = self.g.append_block_param(phead, Type::I64);
            let ppre = self.new_block(false);
            let platch = self.new_block(false);
            self.emit(InstKind::Jump(BlockCall::new(phead, vec![zero])), None);
            self.cur = phead;
            let two = self.iconst(Type::I64, 2);
            let more = self.ev(InstKind::Icmp(IntCC::Slt, p, two), Type::I1);
            self.brif(more, ppre, after);
            self.cur = ppre;
            let t = self.binop(BinaryOp::Isub, chunks, p);
            let t = self.binop(BinaryOp::Iadd, t, one);
            let count = self.binop(BinaryOp::Udiv, t, two);
            self.emit(InstKind::Jump(BlockCall::new(header, vec![zero])), None);
            let sync = *self.g.blocks[exit]
                .insts
                .last()
                .expect("exit ends in its sync");
            if let InstKind::Sync { next, .. } = self.g.inst_mut(sync) {
                *next = platch;
            }
            self.cur = platch;
            let p1 = self.binop(BinaryOp::Iadd, p, one);
            self.emit(InstKind::Jump(BlockCall::new(phead, vec![p1])), None);
            (count, Some(p))
        } else {
            self.emit(InstKind::Jump(BlockCall::new(header, vec![zero])), None);
            (chunks, None)
        };
        // header(c): brif c < count, spawn, exit
        self.cur = header;
        let c = self.ev(InstKind::Icmp(IntCC::Slt, chunk, count), Type::I1);
        self.brif(c, spawn, exit);
        // task: the chunk's iterations [c g, min(c g + g, trip)), serially,
        // from the last.
        self.cur = task;
        let chunk = match phase {
            Some(p) => {
                let two = self.iconst(Type::I64, 2);
                let c2 = self.binop(BinaryOp::Imul, chunk, two);
                self.binop(BinaryOp::Iadd, c2, p)
            }
            None => chunk,
        };
        let first = self.binop(BinaryOp::Imul, chunk, g);
        let end = self.binop(BinaryOp::Iadd, first, g);
        let short = self.ev(InstKind::Icmp(IntCC::Slt, end, trip), Type::I1);
        let end = self.ev(InstKind::Select(short, end, trip), Type::I64);
        // Last iteration first: the reverse then reads the chunk's tapes,
        // which the forward wrote in ascending order, as one descending
        // stream (each iteration's own records are read backwards), which
        // hardware prefetchers follow; ascending iterations made a short
        // descending run per iteration.
        let last = self.binop(BinaryOp::Isub, end, one);
        self.emit(InstKind::Jump(BlockCall::new(ihead, vec![last])), None);
        self.cur = ihead;
        let more = self.ev(InstKind::Icmp(IntCC::Sge, k, first), Type::I1);
        self.brif(more, ibody, flush);
        // ibody: tape = tapes + 24k; continue with the reverse of the body.
        self.cur = ibody;
        let size = self.iconst(Type::I64, HEADER_BYTES as i64);
        let off = self.binop(BinaryOp::Imul, k, size);
        *self.g.inst_mut(self.rl[i].tape_inst) = InstKind::PtrAdd(tapes, off);
        let ti = self.rl[i].tape_inst;
        self.g.blocks[ibody].insts.push(ti);
        if let (true, Some(data)) = (self.rl[i].flat, self.rl[i].data_rev) {
            let (slots, si) = self.slots_placeholder();
            let eight = self.iconst(Type::I64, 8);
            let stride = self.binop(BinaryOp::Imul, slots, eight);
            let at = self.binop(BinaryOp::Imul, k, stride);
            *self.g.inst_mut(self.rl[i].mine_inst) = InstKind::PtrAdd(data, at);
            let mi = self.rl[i].mine_inst;
            self.g.blocks[ibody].insts.push(mi);
            self.rl[i].slots_rev = Some(si);
        }
        let start = self.rpop[&l.reattach];
        self.emit(InstKind::Jump(BlockCall::to(start)), None);
        // flush: the chunk's partial sums into its worker's slots.
        self.cur = flush;
        let reds: Vec<(Value, Value, Type)> = self.rl[i]
            .reductions
            .iter()
            .map(|r| (r.buf, r.local, r.ty))
            .collect();
        for (buf, local, ty) in reds {
            let w = self.task_worker(i);
            let stride = self.iconst(Type::I64, SLOT_STRIDE);
            let off = self.binop(BinaryOp::Imul, w, stride);
            let p = self.ev(InstKind::PtrAdd(buf, off), Type::Ptr);
            let old = self.ev(InstKind::Load(p), ty);
            let part = self.ev(InstKind::Load(local), ty);
            let new = self.binop(BinaryOp::Fadd, old, part);
            self.emit(InstKind::Store { value: new, ptr: p }, None);
        }
        self.emit(
            InstKind::Reattach {
                region: sr,
                cont: latch,
            },
            None,
        );
        // after: combine the reductions, free the tapes, go on with `pre`.
        self.cur = after;
        self.cur_rev = Some(l.exit);
        self.ctx_loop = l.parent;
        self.combine_arrays(i);
        let reds = std::mem::take(&mut self.rl[i].reductions);
        for red in reds {
            let zero_i = self.iconst(Type::I64, 0);
            let zero_f = self.fconst_(red.ty, 0.0);
            let head = self.new_block(false);
            let w = self.g.append_block_param(head, Type::I64);
            let sum = self.g.append_block_param(head, red.ty);
            let body = self.new_block(false);
            let done = self.new_block(false);
            self.emit(
                InstKind::Jump(BlockCall::new(head, vec![zero_i, zero_f])),
                None,
            );
            self.cur = head;
            let c = self.ev(InstKind::Icmp(IntCC::Slt, w, nw), Type::I1);
            self.brif(c, body, done);
            self.cur = body;
            let stride = self.iconst(Type::I64, SLOT_STRIDE);
            let off = self.binop(BinaryOp::Imul, w, stride);
            let p = self.ev(InstKind::PtrAdd(red.buf, off), Type::Ptr);
            let x = self.ev(InstKind::Load(p), red.ty);
            let s2 = self.binop(BinaryOp::Fadd, sum, x);
            let one = self.iconst(Type::I64, 1);
            let w2 = self.binop(BinaryOp::Iadd, w, one);
            self.emit(InstKind::Jump(BlockCall::new(head, vec![w2, s2])), None);
            self.cur = done;
            self.effect(Intrinsic::Free, vec![red.buf]);
            match red.target {
                RedTarget::Ssa(v) => self.add_adj(v, sum),
                RedTarget::Mem { inst, ptr } => {
                    let sp = self.shadow[&ptr];
                    let sp = self.need(sp);
                    self.accumulate(inst, sp, sum);
                }
            }
        }
        self.note_loop_tapes(i, tapes, trip, false);
        self.effect(Intrinsic::Free, vec![tapes]);
        if let Some(data) = self.rl[i].data_rev {
            self.effect(Intrinsic::Free, vec![data]);
        }
        self.free_pool(i);
        let rp = self.rpop[&l.pre];
        self.emit(InstKind::Jump(BlockCall::to(rp)), None);
        self.cur_rev = None;
        self.ctx_loop = None;
    }
}
