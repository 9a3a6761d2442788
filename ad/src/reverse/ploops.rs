//! The reverse of parallel loops: the per-iteration tapes of the forward
//! sweep and the reverse loop over chunks of iterations (their
//! reductions are in `reductions.rs`).

use super::*;

impl Gen<'_> {
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
                let runs = self.recording_runs(j, test);
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
        self.forward_slabs(i, trip);
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
        self.rl[i].slab_k = Some(k);
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
            slabs: Vec::new(),
            slab_k: None,
            slabs_rev: Vec::new(),
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
    pub(super) fn finish_rev_loop(&mut self, i: usize) -> Result<(), AdError> {
        let l = self.plan.ploops[i].clone();
        let (Some(tapes), Some(trip)) = (self.rl[i].tapes_rev, self.rl[i].trip_rev) else {
            return Ok(()); // the loop's exit reaches no return: no reverse
        };
        let r = &self.rl[i];
        let (pre, header, chunk, spawn, task, exit, after, nw) = (
            r.pre, r.header, r.chunk, r.spawn, r.task, r.exit, r.after, r.nw,
        );
        let (ihead, k, ibody, flush, sr, latch) = (r.ihead, r.k, r.ibody, r.flush, r.sr, r.latch);
        self.size_arrays(i)?;
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
        let band = self.band_width(i)?;
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
        self.combine_arrays(i)?;
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
                RedTarget::Ssa(v) => self.add_adj(v, sum)?,
                RedTarget::Mem { inst, ptr } => {
                    let sp = self.shadow[&ptr];
                    let sp = self.need(sp)?;
                    self.accumulate(inst, sp, sum)?;
                }
            }
        }
        self.note_loop_tapes(i, tapes, trip, false);
        self.effect(Intrinsic::Free, vec![tapes]);
        if let Some(data) = self.rl[i].data_rev {
            self.effect(Intrinsic::Free, vec![data]);
        }
        self.free_pool(i);
        for slab in std::mem::take(&mut self.rl[i].slabs_rev) {
            self.effect(Intrinsic::Free, vec![slab]);
        }
        let rp = self.rpop[&l.pre];
        self.emit(InstKind::Jump(BlockCall::to(rp)), None);
        self.cur_rev = None;
        self.ctx_loop = None;
        Ok(())
    }
}
