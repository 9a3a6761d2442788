//! The tape frames of the reverse sweep: each forward block's records
//! pushed before its terminator and popped by its reverse block, and the
//! counted loops that reserve their records before they start and place
//! iteration `k`'s records by `k` (see [`super::Indexed`]).

use super::*;

impl Gen<'_> {
    /// Before counted loop `i` starts (in the forward copy of its
    /// preheader), room on the tape for every record of its iterations, so
    /// that its blocks push without a capacity check. Only for an innermost
    /// loop without branches in its body that calls no augmented forward
    /// (its records per iteration are then the frames of its blocks), whose
    /// header tests
    /// `iv < bound` (or `≤`) with a growing induction variable and an
    /// invariant bound, and leaves the loop exactly when the test fails.
    pub(super) fn reserve_loop(&mut self, i: usize) {
        let Some(test) = self.plan.reserved[i] else {
            return;
        };
        let runs = self.recording_runs(i, test);
        let (slots, si) = self.slots_placeholder();
        let n = self.binop(BinaryOp::Imul, runs, slots);
        let tape = self.fwd_tape(Some(self.plan.counted[i].pre.0));
        self.emit(
            InstKind::Call {
                func: self.tape_fns.reserve,
                args: vec![tape, n],
            },
            None,
        );
        let reserve_call = *self.g.blocks[self.cur]
            .insts
            .last()
            .expect("the reserve call was just emitted");
        let lp = self.offset(tape, crate::tape::LEN);
        let len0_fwd = self.ev(InstKind::Load(lp), Type::I64);
        let dp = self.offset(tape, crate::tape::DATA);
        let data_fwd = self.ev(InstKind::Load(dp), Type::Ptr);
        let mut slot_consts = vec![si];
        let by_iv = match test.step {
            1 => {
                let (s, si) = self.slots_placeholder();
                slot_consts.push(si);
                let lo = self.fwd_i64(test.lo, test.signed);
                let before = self.binop(BinaryOp::Imul, lo, s);
                let at = self.binop(BinaryOp::Isub, len0_fwd, before);
                let eight = self.iconst(Type::I64, 8);
                let bytes = self.binop(BinaryOp::Imul, at, eight);
                let frame0 = self.ev(InstKind::PtrAdd(data_fwd, bytes), Type::Ptr);
                Some(IvFrames {
                    frame0,
                    iv: test.iv,
                    lo: test.lo,
                    signed: test.signed,
                })
            }
            _ => None,
        };
        self.indexed[i] = Some(Indexed {
            len0_fwd,
            data_fwd,
            len0_rev: None,
            data_rev: None,
            slot_consts,
            reserve_call,
            release_call: None,
            by_iv,
            header_records: true,
        });
    }

    /// In the current block, the most runs of counted loop `i`'s header
    /// (exit test `test`) that have a place for their iterations' records
    /// (see `header_runs`): every run, or, where the header records
    /// nothing, every run but the last, which only leaves the loop (for a
    /// loop over a node's edges, a whole iteration's records per node).
    pub(super) fn recording_runs(&mut self, i: usize, test: crate::cache::ExitTest) -> Value {
        let runs = self.header_runs(test);
        let one = self.iconst(Type::I64, 1);
        let iterations = self.binop(BinaryOp::Isub, runs, one);
        let last = self.last_run_placeholder(i);
        self.binop(BinaryOp::Iadd, iterations, last)
    }

    /// A placeholder for whether counted loop `i`'s exit test's last run
    /// has a place (1, its header records) or not (0), patched by
    /// `place_indexed_frames` (1 until then: a place too many is safe).
    pub(super) fn last_run_placeholder(&mut self, i: usize) -> Value {
        let v = self.iconst(Type::I64, 1);
        let ValueDef::Result(inst) = self.g.value_def(v) else {
            unreachable!("an instruction result")
        };
        self.last_run[i].push(inst);
        v
    }

    /// In the current block, the most times the header of a counted loop
    /// with exit test `test` runs, `ceil((bound - lo [+ 1]) / step) + 1`.
    pub(super) fn header_runs(&mut self, test: crate::cache::ExitTest) -> Value {
        let crate::cache::ExitTest {
            lo,
            step,
            bound,
            inclusive,
            signed,
            ..
        } = test;
        let lo = self.fwd_i64(lo, signed);
        let hi = self.fwd_i64(bound, signed);
        let span = self.binop(BinaryOp::Isub, hi, lo);
        let span = if inclusive {
            let one = self.iconst(Type::I64, 1);
            self.binop(BinaryOp::Iadd, span, one)
        } else {
            span
        };
        let zero = self.iconst(Type::I64, 0);
        let pos = self.ev(InstKind::Icmp(IntCC::Sgt, span, zero), Type::I1);
        let span = self.ev(InstKind::Select(pos, span, zero), Type::I64);
        let stepc = self.iconst(Type::I64, step);
        let up = self.iconst(Type::I64, step - 1);
        let t = self.binop(BinaryOp::Iadd, span, up);
        let trips = self.binop(BinaryOp::Udiv, t, stepc);
        let one = self.iconst(Type::I64, 1);
        self.binop(BinaryOp::Iadd, trips, one)
    }

    /// A slot count not known until every frame is: an `iconst 0` in the
    /// current block, patched later, and its instruction.
    pub(super) fn slots_placeholder(&mut self) -> (Value, Inst) {
        let slots = self
            .emit(InstKind::Iconst(0), Some(Type::I64))
            .expect("iconst has a result");
        let ValueDef::Result(si) = self.g.value_def(slots) else {
            unreachable!("an instruction result")
        };
        (slots, si)
    }

    /// The slots the frames of the blocks `of` record, all together.
    pub(super) fn frame_slots(&self, of: impl Fn(Block) -> bool) -> i64 {
        self.frames
            .iter()
            .filter(|(b, _)| of(**b))
            .map(|(_, f)| f.len() as i64)
            .sum()
    }

    /// The slots per iteration of each sized task tape (see
    /// `sized_task`): the frames of its blocks outside its loops (each
    /// runs at most once per iteration), and each counted loop's records
    /// per iteration, which its reservation also counts.
    pub(super) fn size_fixed_tapes(&mut self) {
        for i in 0..self.rl.len() {
            let Some(si) = self.rl[i].fixed_slots else {
                continue;
            };
            let loops = self.rl[i].loop_slots.clone();
            let in_loops = |g: &Self, b: Block| {
                loops
                    .iter()
                    .any(|&(j, _)| g.plan.counted[j].blocks.contains(&b))
            };
            let fixed = self.frame_slots(|b| {
                self.plan.task_of(Some(b)) == Some(TaskOf::Loop(i)) && !in_loops(self, b)
            });
            *self.g.inst_mut(si) = InstKind::Iconst(fixed);
            if let Some(sr) = self.rl[i].slots_rev {
                *self.g.inst_mut(sr) = InstKind::Iconst(fixed);
            }
            for &(j, sj) in &loops {
                let per_iteration = self.frame_slots(|b| self.plan.counted[j].blocks.contains(&b));
                *self.g.inst_mut(sj) = InstKind::Iconst(per_iteration);
            }
            let flat = self.is_flat(i) && fixed > 0;
            for si in self.rl[i].note_slots.clone() {
                *self.g.inst_mut(si) = InstKind::Iconst(fixed);
            }
            for fi in self.rl[i].note_flat.clone() {
                *self.g.inst_mut(fi) = InstKind::Iconst(i64::from(flat));
            }
            // (A counted loop reads its tape's header even when it records
            // nothing, so a task with one keeps the header array.)
            if self.is_flat(i) && fixed > 0 {
                // Every frame of the task has a fixed place in its part of
                // the buffer (`flat_frame`): no tape header per iteration
                // (its set-up goes once the frames are in place, which
                // `frame_pos` counts with it).
                if let Some(v) = self.rl[i].tapes_fwd
                    && let ValueDef::Result(alloc) = self.g.value_def(v)
                {
                    *self.g.inst_mut(alloc) = InstKind::Iconst(0);
                }
            } else if fixed == 0 && loops.is_empty() {
                // The task records nothing: no buffer, no tape array (null,
                // which the reverse only frees), no per-iteration set-up.
                let setup = std::mem::take(&mut self.rl[i].fixed_setup);
                for b in self.g.layout.clone() {
                    self.g.blocks[b].insts.retain(|x| !setup.contains(x));
                }
                for v in [self.rl[i].tapes_fwd, self.rl[i].data_fwd]
                    .into_iter()
                    .flatten()
                {
                    if let ValueDef::Result(alloc) = self.g.value_def(v) {
                        *self.g.inst_mut(alloc) = InstKind::Iconst(0);
                    }
                }
            }
        }
    }

    /// Fills in every frame: the pushes at the end of forward blocks and
    /// the pops at the start of reverse blocks.
    pub(super) fn finish_frames(&mut self) {
        let place = self.place_indexed_frames();
        let fixed = self.fixed_frames().unwrap_or_default();
        let flat = self.flat_frames();
        // Sorted: the order decides the value numbers of the pushes and
        // pops, so of the output.
        let mut blocks: Vec<Block> = self.rpop.keys().copied().collect();
        blocks.sort();
        for b in blocks {
            let rp = self.rpop[&b];
            let body = self.rbody(b);
            let frame = self.frames.remove(&b).unwrap_or_default();
            self.cur = rp;
            if let (false, Some(&(i, off))) = (frame.is_empty(), flat.get(&b)) {
                self.flat_frame(b, i, off, &frame);
            } else if let (false, Some(&(i, off, slots))) = (frame.is_empty(), place.get(&b)) {
                self.indexed_frame(b, i, off, slots, &frame);
            } else if let Some(&off) = fixed.get(&b) {
                self.fixed_frame(b, off, &frame);
            } else if !frame.is_empty() {
                let n = frame.len() as i64;
                self.frame_slots += n as u64;
                let nc = self.iconst(Type::I64, n);
                let rtape = self.rev_tape(Some(b));
                let base = self
                    .emit(
                        InstKind::Call {
                            func: self.tape_fns.pop,
                            args: vec![rtape, nc],
                        },
                        Some(Type::Ptr),
                    )
                    .expect("pop returns a pointer");
                for (k, &(_, l)) in frame.iter().enumerate() {
                    let a = self.offset(base, 8 * k as i64);
                    *self.g.inst_mut(l) = InstKind::Load(a);
                    self.g.blocks[rp].insts.push(l);
                }
                // The pushes, before the forward block's terminator (and
                // anything the terminator needed).
                let ftape = self.fwd_tape(Some(b));
                let code = self.apart(|g| {
                    let nc = g.iconst(Type::I64, n);
                    let base = g
                        .emit(
                            InstKind::Call {
                                func: g.tape_fns.push,
                                args: vec![ftape, nc],
                            },
                            Some(Type::Ptr),
                        )
                        .expect("push returns a pointer");
                    for (k, &(gv, _)) in frame.iter().enumerate() {
                        let a = g.offset(base, 8 * k as i64);
                        g.emit(InstKind::Store { value: gv, ptr: a }, None);
                    }
                });
                let pos = self.frame_pos[&b];
                self.insert_forward(b, pos, code);
            }
            self.cur = rp;
            self.emit(InstKind::Jump(BlockCall::to(body)), None);
        }
        // The flat tasks that record: their tape headers go (see
        // `size_fixed_tapes`), now that no frame position counts them.
        let mut flat_tasks: Vec<usize> = flat.values().map(|&(i, _)| i).collect();
        flat_tasks.sort();
        flat_tasks.dedup();
        for i in flat_tasks {
            let setup = std::mem::take(&mut self.rl[i].fixed_setup);
            for b in self.g.layout.clone() {
                self.g.blocks[b].insts.retain(|x| !setup.contains(x));
            }
        }
    }

    /// Whether parallel loop `i`'s task records at fixed places of its
    /// iteration's part of the buffer (see `RevLoop::flat`): a sized task
    /// without loops whose reverse exists.
    fn is_flat(&self, i: usize) -> bool {
        self.rl[i].flat && self.rl[i].slots_rev.is_some() && self.rl[i].mine_fwd.is_some()
    }

    /// The frames of flat tasks (see [`Self::is_flat`]): block -> (loop,
    /// offset in slots within an iteration's records), in block order. Each
    /// block of such a task runs at most once per iteration (`sized_task`).
    fn flat_frames(&self) -> HashMap<Block, (usize, i64)> {
        let mut out = HashMap::new();
        for i in 0..self.rl.len() {
            if !self.is_flat(i) {
                continue;
            }
            let mut blocks: Vec<(Block, i64)> = self
                .frames
                .iter()
                .filter(|(b, f)| {
                    !f.is_empty() && self.plan.task_of(Some(**b)) == Some(TaskOf::Loop(i))
                })
                .map(|(&b, f)| (b, f.len() as i64))
                .collect();
            blocks.sort();
            let mut next = 0;
            for (b, n) in blocks {
                out.insert(b, (i, next));
                next += n;
            }
        }
        out
    }

    /// Block `b`'s frame in flat task `i` (see [`Self::flat_frames`]): at
    /// `mine + 8 off` in both sweeps, `mine` the iteration's part of the
    /// buffer.
    fn flat_frame(&mut self, b: Block, i: usize, off: i64, frame: &[(Value, Inst)]) {
        let mine = self.rl[i].mine;
        for (k, &(_, l)) in frame.iter().enumerate() {
            let a = self.offset(mine, 8 * (off + k as i64));
            *self.g.inst_mut(l) = InstKind::Load(a);
            self.g.blocks[self.cur].insts.push(l);
        }
        let mine_fwd = self.rl[i].mine_fwd.expect("a flat task has its part");
        let code = self.apart(|g| {
            for (k, &(gv, _)) in frame.iter().enumerate() {
                let a = g.offset(mine_fwd, 8 * (off + k as i64));
                g.emit(InstKind::Store { value: gv, ptr: a }, None);
            }
        });
        let pos = self.frame_pos[&b];
        self.insert_forward(b, pos, code);
    }

    /// Block `b`'s frame at its fixed place (see [`Gen::fixed_frames`]):
    /// loaded from and stored at `data + 8 off`.
    fn fixed_frame(&mut self, b: Block, off: i64, frame: &[(Value, Inst)]) {
        self.frame_slots += frame.len() as u64;
        let rtape = self.rev_tape(Some(b));
        let dp = self.offset(rtape, crate::tape::DATA);
        let data = self.ev(InstKind::Load(dp), Type::Ptr);
        for (k, &(_, l)) in frame.iter().enumerate() {
            let a = self.offset(data, 8 * (off + k as i64));
            *self.g.inst_mut(l) = InstKind::Load(a);
            self.g.blocks[self.cur].insts.push(l);
        }
        let ftape = self.fwd_tape(Some(b));
        let code = self.apart(|g| {
            let dp = g.offset(ftape, crate::tape::DATA);
            let data = g.ev(InstKind::Load(dp), Type::Ptr);
            for (k, &(gv, _)) in frame.iter().enumerate() {
                let a = g.offset(data, 8 * (off + k as i64));
                g.emit(InstKind::Store { value: gv, ptr: a }, None);
            }
        });
        let pos = self.frame_pos[&b];
        self.insert_forward(b, pos, code);
    }

    pub(super) fn rbody(&self, b: Block) -> Block {
        self.rbodies[&b]
    }

    /// For each indexed loop (see [`Indexed`]): its slots per iteration
    /// `S` (patched into the placeholders), each recording block's offset
    /// within an iteration (in block order), and the start of `F(exit)`
    /// setting the tape's length past the last iteration. Returns
    /// `block -> (loop, offset, S)`.
    pub(super) fn place_indexed_frames(&mut self) -> HashMap<Block, (usize, i64, i64)> {
        let mut place = HashMap::new();
        for i in 0..self.plan.counted.len() {
            let Some(ix) = &self.indexed[i] else { continue };
            let (len0, consts, call) = (ix.len0_fwd, ix.slot_consts.clone(), ix.reserve_call);
            let release = ix.release_call;
            let mut blocks: Vec<Block> = self.plan.counted[i].blocks.iter().copied().collect();
            blocks.sort();
            let mut offsets = Vec::new();
            let mut slots = 0i64;
            for &b in &blocks {
                let n = self.frames.get(&b).map_or(0, |f| f.len() as i64);
                if n > 0 {
                    offsets.push((b, slots));
                    slots += n;
                }
            }
            for (b, off) in offsets {
                place.insert(b, (i, off, slots));
            }
            for si in consts {
                *self.g.inst_mut(si) = InstKind::Iconst(slots);
            }
            let header = self.plan.counted[i].header;
            let header_records = self.frames.get(&header).is_some_and(|f| !f.is_empty());
            for li in std::mem::take(&mut self.last_run[i]) {
                *self.g.inst_mut(li) = InstKind::Iconst(i64::from(header_records));
            }
            if let Some(ix) = self.indexed[i].as_mut() {
                ix.header_records = header_records;
            }
            if slots == 0 {
                // Nothing recorded per iteration: nothing to reserve, and
                // nothing to release in the reverse.
                for b in self.g.layout.clone() {
                    self.g.blocks[b]
                        .insts
                        .retain(|&x| x != call && Some(x) != release);
                }
                continue;
            }
            let by_iv = self.indexed[i].as_ref().and_then(|ix| ix.by_iv);
            let k = self.counter_fwd[i].expect("a counted loop has its counter");
            let exit = self.plan.counted[i].exit;
            let tape = self.fwd_tape(Some(exit));
            let code = self.apart(|g| {
                let k = match by_iv {
                    // The header ran `iv − lo + 1` times.
                    Some(v) => {
                        let iv = g.fwd_i64(v.iv, v.signed);
                        let lo = g.fwd_i64(v.lo, v.signed);
                        g.binop(BinaryOp::Isub, iv, lo)
                    }
                    None => k,
                };
                let last = g.iconst(Type::I64, i64::from(header_records));
                let runs = g.binop(BinaryOp::Iadd, k, last);
                let s = g.iconst(Type::I64, slots);
                let used = g.binop(BinaryOp::Imul, runs, s);
                let len = g.binop(BinaryOp::Iadd, len0, used);
                let lp = g.offset(tape, crate::tape::LEN);
                g.emit(
                    InstKind::Store {
                        value: len,
                        ptr: lp,
                    },
                    None,
                );
                g.note_tape(used, 8, None);
            });
            if let Some(pos) = self.frame_pos.get_mut(&exit) {
                *pos += code.len();
            }
            self.insert_forward(exit, 0, code);
        }
        place
    }

    /// Block `b`'s frame in indexed loop `i` (see [`Indexed`]): stored at
    /// and loaded from `data + 8 (len0 + k·slots + off)` without touching
    /// the tape's length; `P(b)` (the current block) reads `k` from the
    /// loop's reverse counter.
    pub(super) fn indexed_frame(
        &mut self,
        b: Block,
        i: usize,
        off: i64,
        slots: i64,
        frame: &[(Value, Inst)],
    ) {
        let ix = self.indexed[i].as_ref().expect("an indexed loop");
        let (len0_fwd, data_fwd, by_iv) = (ix.len0_fwd, ix.data_fwd, ix.by_iv);
        let (Some(len0_rev), Some(data_rev)) = (ix.len0_rev, ix.data_rev) else {
            unreachable!("a block with a reverse lies in a loop whose exit has one")
        };
        // Reverse: the loads.
        let slot = self.counter_slot(i);
        let k = self.ev(InstKind::Load(slot), Type::I64);
        let base = self.indexed_base(len0_rev, data_rev, k, slots, off);
        for (n, &(_, l)) in frame.iter().enumerate() {
            let a = self.offset(base, 8 * n as i64);
            *self.g.inst_mut(l) = InstKind::Load(a);
            self.g.blocks[self.cur].insts.push(l);
        }
        // Forward: the stores, before F(b)'s terminator.
        let k = self.counter_fwd[i].expect("a counted loop has its counter");
        let code = self.apart(|g| {
            let base = match by_iv {
                Some(v) => {
                    let iv = g.fwd_i64(v.iv, v.signed);
                    let stride = g.iconst(Type::I64, 8 * slots);
                    let at = g.binop(BinaryOp::Imul, iv, stride);
                    let frame = g.ev(InstKind::PtrAdd(v.frame0, at), Type::Ptr);
                    g.offset(frame, 8 * off)
                }
                None => g.indexed_base(len0_fwd, data_fwd, k, slots, off),
            };
            for (n, &(gv, _)) in frame.iter().enumerate() {
                let a = g.offset(base, 8 * n as i64);
                g.emit(InstKind::Store { value: gv, ptr: a }, None);
            }
        });
        let pos = self.frame_pos[&b];
        self.insert_forward(b, pos, code);
    }

    /// The instructions `emit` makes, emitted apart (in a block outside
    /// the layout) for placing with [`Self::insert_forward`].
    fn apart(&mut self, emit: impl FnOnce(&mut Self)) -> Vec<Inst> {
        let saved = self.cur;
        let scratch = self.g.create_block();
        self.cur = scratch;
        emit(self);
        self.cur = saved;
        std::mem::take(&mut self.g.blocks[scratch].insts)
    }

    /// Puts `code` at position `pos` of primal block `b`'s forward copy.
    fn insert_forward(&mut self, b: Block, pos: usize, code: Vec<Inst>) {
        let insts = &mut self.g.blocks[self.fblock[&b]].insts;
        let tail = insts.split_off(pos);
        insts.extend(code);
        insts.extend(tail);
    }

    /// `data + 8 (len0 + k·slots + off)` in the current block.
    pub(super) fn indexed_base(
        &mut self,
        len0: Value,
        data: Value,
        k: Value,
        slots: i64,
        off: i64,
    ) -> Value {
        let s = self.iconst(Type::I64, slots);
        let ks = self.binop(BinaryOp::Imul, k, s);
        let at = self.binop(BinaryOp::Iadd, len0, ks);
        let o = self.iconst(Type::I64, off);
        let at = self.binop(BinaryOp::Iadd, at, o);
        let eight = self.iconst(Type::I64, 8);
        let bytes = self.binop(BinaryOp::Imul, at, eight);
        self.ev(InstKind::PtrAdd(data, bytes), Type::Ptr)
    }
}

impl Gen<'_> {
    /// What this function's generated code records, from the records made
    /// (`tape_log`), the calls of split pairs, and the per-iteration tape
    /// headers of parallel loops that still record (see `tape_report.rs`).
    pub(super) fn tape_report(&self, module: &Module) -> FunctionTape {
        use crate::tape_report::{TapeCall, TapeRecord, runs};
        let plan = self.plan;
        let block_loc = |b: Block| {
            plan.p
                .terminator(b)
                .map(|t| plan.p.locs[t])
                .unwrap_or_default()
        };
        let mut records = Vec::new();
        // The block each record and call is made in, for `serial_loops`.
        let mut record_blocks = Vec::new();
        let mut call_blocks = Vec::new();
        for &(at, gv, ref why) in &self.tape_log {
            record_blocks.push(at);
            let pv = self.fwd_inv.get(&gv).copied();
            let (what, loc) = match pv {
                Some(pv) => (
                    crate::tape_report::unwrapped(crate::explain::value_name(plan, pv)),
                    match plan.p.value_def(pv) {
                        ValueDef::Result(i) => plan.p.locs[i],
                        ValueDef::Param(b, _) => block_loc(b),
                    },
                ),
                None => (self.generated_value_name(gv), block_loc(at)),
            };
            let reason = match why {
                Why::Invariant => {
                    "loop-invariant: recorded once per run of the loop that needs it, at its exit"
                        .to_string()
                }
                Why::CutFor(v) => {
                    let name = crate::tape_report::unwrapped(
                        self.fwd_inv
                            .get(v)
                            .map(|&p| crate::explain::value_name(plan, p))
                            .unwrap_or_else(|| v.to_string()),
                    );
                    let line = match self.fwd_inv.get(v).map(|&p| plan.p.value_def(p)) {
                        Some(ValueDef::Result(i)) if plan.p.locs[i].is_known() => {
                            format!(" (line {})", plan.p.locs[i].line)
                        }
                        _ => String::new(),
                    };
                    format!(
                        "min cut: the cheapest record from which the reverse recomputes `{name}`{line}"
                    )
                }
                Why::NotRecomputable if pv.is_none() => {
                    "kept for the reverse of the code that made it".to_string()
                }
                Why::NotRecomputable => self.sweep().why_not_recomputable(gv),
            };
            records.push(TapeRecord {
                loc,
                what,
                bytes: 8,
                runs: runs(plan, at),
                reason,
            });
        }
        for (i, l) in plan.ploops.iter().enumerate() {
            let Some(tapes) = self.rl.get(i).and_then(|r| r.tapes_fwd) else {
                continue;
            };
            let allocated = matches!(
                self.g.value_def(tapes),
                ValueDef::Result(a) if matches!(
                    self.g.inst(a),
                    InstKind::Intrinsic { op: Intrinsic::Calloc | Intrinsic::Malloc, .. }
                )
            );
            if !allocated {
                continue;
            }
            let reason = if self.rl[i].fixed_slots.is_some() {
                "each iteration of a parallel loop records onto a tape of its own \
                 (data, length, capacity), its records in one buffer of the loop's"
            } else {
                "each iteration of a parallel loop records onto a tape of its own \
                 (data, length, capacity), grown by realloc (at least 16 slots)"
            };
            record_blocks.push(l.task_entry);
            records.push(TapeRecord {
                loc: block_loc(l.header),
                what: "the tape of each iteration".into(),
                bytes: u64::from(HEADER_BYTES),
                runs: runs(plan, l.task_entry),
                reason: reason.into(),
            });
        }
        // A loop that places iteration `k`'s records at `k · S` moves the
        // tape's length past its exit test's last run, which has a place
        // of `S` slots too (see `place_indexed_frames`).
        for (i, ix) in self.indexed.iter().enumerate() {
            let Some(ix) = ix.as_ref().filter(|ix| ix.header_records) else {
                continue;
            };
            let slots = match ix.slot_consts.first().map(|&si| self.g.inst(si)) {
                Some(InstKind::Iconst(s)) if *s > 0 => *s as u64,
                _ => continue,
            };
            let c = &plan.counted[i];
            record_blocks.push(c.pre.0);
            records.push(TapeRecord {
                loc: block_loc(c.header),
                what: "the place of the exit test's last run".into(),
                bytes: 8 * slots,
                runs: runs(plan, c.pre.0),
                reason: "a loop that reserves its records places them by the runs of its exit \
                         test, one more than its iterations: the run that leaves the loop has a \
                         place too"
                    .into(),
            });
        }
        let mut calls = Vec::new();
        let mut sites: Vec<(&Inst, &Pair)> = self.calls.iter().collect();
        sites.sort_by_key(|(i, _)| **i);
        for (&inst, pair) in sites {
            let InstKind::Call { func, args } = plan.p.inst(inst) else {
                continue;
            };
            let callee = &module.funcs[*func];
            let args = args
                .iter()
                .enumerate()
                .filter_map(|(k, &a)| {
                    let p = callee.param_name(k)?;
                    Some((p.to_string(), crate::explain::value_name(plan, a)))
                })
                .collect();
            let block = plan.inst_block.get(&inst).copied();
            call_blocks.push(block);
            calls.push(TapeCall {
                callee: module.funcs[pair.aug].name.clone(),
                loc: plan.p.locs[inst],
                runs: block.map(|b| runs(plan, b)).unwrap_or_default(),
                args,
            });
        }
        FunctionTape {
            primal: plan.p.name.clone(),
            function: String::new(),
            gradient: false,
            records,
            calls,
            loops: self.serial_loops(module, &record_blocks, &call_blocks),
        }
    }

    /// The outermost serial counted loops outside parallel tasks (see
    /// `tape_report::SerialLoop`), with what their iterations record
    /// (the records and calls made in `record_blocks`, `call_blocks`) and
    /// overwrite.
    fn serial_loops(
        &self,
        module: &Module,
        record_blocks: &[Block],
        call_blocks: &[Option<Block>],
    ) -> Vec<crate::tape_report::SerialLoop> {
        let plan = self.plan;
        let mut out = Vec::new();
        for (i, c) in plan.counted.iter().enumerate() {
            let nested = plan
                .counted
                .iter()
                .any(|o| o.blocks.len() > c.blocks.len() && o.blocks.contains(&c.header));
            if nested || plan.task_of(Some(c.header)).is_some() {
                continue;
            }
            let records = (0..record_blocks.len())
                .filter(|&k| c.blocks.contains(&record_blocks[k]))
                .collect();
            let calls = (0..call_blocks.len())
                .filter(|&k| call_blocks[k].is_some_and(|b| c.blocks.contains(&b)))
                .collect();
            let mut blocks: Vec<Block> = c.blocks.iter().copied().collect();
            blocks.sort();
            let mut writes = Vec::new();
            for b in blocks {
                for &inst in &plan.p.blocks[b].insts {
                    let what = match plan.p.inst(inst) {
                        InstKind::Store { ptr, .. } => {
                            crate::tape_report::unwrapped(crate::explain::value_name(plan, *ptr))
                        }
                        InstKind::Call { func, .. } => format!("`{}`", module.funcs[*func].name),
                        _ => continue,
                    };
                    if !writes.contains(&what) {
                        writes.push(what);
                    }
                }
            }
            out.push(crate::tape_report::SerialLoop {
                loc: plan
                    .p
                    .terminator(c.header)
                    .map(|t| plan.p.locs[t])
                    .unwrap_or_default(),
                trip: crate::tape_report::counted_trip(plan, i),
                records,
                calls,
                writes,
            });
        }
        out
    }

    /// A name for a recorded value the generator made (no primal value).
    fn generated_value_name(&self, gv: Value) -> String {
        if let Some(i) = self.counter_fwd.iter().position(|c| *c == Some(gv)) {
            let line = self
                .plan
                .p
                .terminator(self.plan.counted[i].header)
                .map(|t| self.plan.p.locs[t].line)
                .unwrap_or(0);
            return format!("the iteration count of the loop at line {line}");
        }
        if self.edge_param.values().any(|&e| e == gv) {
            return "the edge a join was entered by".into();
        }
        for r in &self.rl {
            if r.tapes_fwd == Some(gv) {
                return "a parallel loop's array of tapes".into();
            }
            if r.trip_fwd == Some(gv) {
                return "a parallel loop's trip count".into();
            }
            if r.data_fwd == Some(gv) {
                return "a parallel loop's record buffer".into();
            }
        }
        "a value of the AD's own (a task's tapes or their count)".into()
    }
}
