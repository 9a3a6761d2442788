//! The reverse sweep: the adjoint slots of SSA values, the reverse of
//! each block (its instructions last to first, then the adjoints of its
//! parameters along the edge it was entered by), and the updates of
//! shadow memory as the accumulation plan (`policy.rs`) decides them.

use super::*;

impl Gen<'_> {
    pub(super) fn slot(&mut self, v: Value) -> Value {
        if let Some(&s) = self.adj.get(&v) {
            return s;
        }
        let ty = self.plan.p.value_type(v);
        // Adjoints of a task's values are private to the reverse task.
        let home = self.rev_home(self.plan.task_of(self.plan.def_block(v)));
        // Slots start at -0.0 (see `take_adj`), except those of the
        // parameters, whose final values are the gradient: an untouched
        // one reads +0.0 (the zero an `alloca` starts with).
        let is_param =
            matches!(self.plan.p.value_def(v), ValueDef::Param(b, _) if b == self.plan.p.layout[0]);
        let s = self.slot_in(home, ty, (!is_param).then_some(-0.0));
        self.adj.insert(v, s);
        s
    }

    /// A fresh slot for a `ty` first in block `home` (so that each task
    /// running `home` has its own), set to `init` right after it where
    /// given (otherwise it holds the zero an `alloca` starts with).
    pub(super) fn slot_in(&mut self, home: Block, ty: Type, init: Option<f64>) -> Value {
        let alloca = self.g.make_inst(
            InstKind::Alloca {
                size: ty.bytes(),
                align: ty.bytes(),
            },
            Some(Type::Ptr),
        );
        let s = self.g.result(alloca).expect("alloca has a result");
        let mut code = vec![alloca];
        if let Some(c) = init {
            let z = self.g.make_inst(InstKind::Fconst(c), Some(ty));
            let zv = self.g.result(z).expect("fconst has a result");
            let st = self
                .g
                .make_inst(InstKind::Store { value: zv, ptr: s }, None);
            code.extend([z, st]);
        }
        self.g.blocks[home].insts.splice(0..0, code);
        s
    }

    /// `d_v += x`, where the plan's accumulation decides (`policy.rs`).
    pub(super) fn add_adj(&mut self, v: Value, x: Value) -> Result<(), AdError> {
        if !self.plan.act.is_varied(v) {
            return Ok(());
        }
        let ty = self.plan.p.value_type(v);
        let cx = self.context();
        let Some(d) = self.plan.accumulation.ssa(self.plan, v, cx) else {
            return Err(self.unplanned(None, format!("the update of the adjoint of {v} in {cx:?}")));
        };
        let s = match d.update {
            SsaUpdate::Reduce { lp } => {
                self.reduce(lp, RedTarget::Ssa(v), ty, x);
                return Ok(());
            }
            SsaUpdate::Accumulator { site, atomic } => {
                let a = self.accumulator(site, v);
                if atomic {
                    // Reverse tasks of this site run at once.
                    self.atomic_add_to(a, x);
                    return Ok(());
                }
                a
            }
            SsaUpdate::Slot => self.slot(v),
        };
        self.add_to(s, x);
        Ok(())
    }

    /// Where the current reverse code is, for the plan's accumulation
    /// decisions.
    pub(super) fn context(&self) -> Context {
        Context {
            rev: self.cur_rev,
            lp: self.ctx_loop,
        }
    }

    /// The tape slots of the spawn sites whose innermost enclosing task is
    /// `task` (`None`: outside every task), made in the current block, the
    /// forward copy of that task's entry: null until their detach runs.
    pub(super) fn make_spawn_slots(&mut self, task: Option<TaskOf>) {
        for i in 0..self.plan.spawns.len() {
            if self.plan.task_of(Some(self.plan.spawns[i].detach)) != task {
                continue;
            }
            // A tape list is a tape header of its own (24 bytes).
            let size = if self.plan.spawns[i].multi {
                HEADER_BYTES
            } else {
                8
            };
            let slot = self.ev(InstKind::Alloca { size, align: 8 }, Type::Ptr);
            self.clear_slot(i, slot);
            self.rs[i].slot = Some(slot);
        }
    }

    /// The block whose allocas are private to each reverse instance of
    /// `task`: the reverse task's entry, or the function's.
    pub(super) fn rev_home(&self, task: Option<TaskOf>) -> Block {
        match task {
            Some(TaskOf::Loop(i)) => self.rl[i].task,
            Some(TaskOf::Spawn(i)) => self.rs[i].rtask,
            None => self.alloca_block,
        }
    }

    /// The zero-initialized accumulator of spawn site `i` for the adjoint
    /// of `v` (merged into `v`'s adjoint after the reverse task is synced).
    pub(super) fn accumulator(&mut self, i: usize, v: Value) -> Value {
        if let Some(&(_, a)) = self.rs[i].accs.iter().find(|(w, _)| *w == v) {
            return a;
        }
        let ty = self.plan.p.value_type(v);
        let home = self.rev_home(self.plan.task_of(Some(self.plan.spawns[i].detach)));
        let a = self.slot_in(home, ty, Some(0.0));
        self.rs[i].accs.push((v, a));
        a
    }

    pub(super) fn take_adj(&mut self, v: Value) -> Value {
        let ty = self.plan.p.value_type(v);
        let s = self.slot(v);
        let t = self.ev(InstKind::Load(s), ty);
        // -0.0, the identity of addition: the next add into the slot,
        // `-0.0 + x`, folds to `x` (`0.0 + x` cannot: it turns -0.0 into
        // +0.0). A slot taken and not added to since holds -0.0, which
        // adds nothing wherever it flows.
        let z = self.fconst_(ty, -0.0);
        self.emit(InstKind::Store { value: z, ptr: s }, None);
        t
    }

    pub(super) fn reverse_block(&mut self, b: Block) -> Result<(), AdError> {
        self.ctx_loop = self.plan.loop_of.get(&b).copied();
        let body = self.new_block(false);
        self.rbodies.insert(b, body);
        self.cur = body;
        self.cur_rev = Some(b);
        let insts = self.plan.p.blocks[b].insts.clone();
        let (term, rest) = insts.split_last().expect("verified blocks are not empty");
        for i in 0..self.plan.spawns.len() {
            if self.plan.spawns[i].detach == b {
                // The reverse of the detach: wait for the reverse task,
                // then merge its accumulators (filled in at the end).
                let (rsr, merge, resume) = (self.rs[i].rsr, self.rs[i].merge, self.rs[i].resume);
                self.emit(
                    InstKind::Sync {
                        region: rsr,
                        next: merge,
                    },
                    None,
                );
                self.cur = resume;
            }
        }
        for i in 0..self.plan.spawns.len() {
            if self.plan.spawns[i].sync == b {
                self.spawn_reverse_task(i)?;
            }
        }
        if let InstKind::Return(Some(v)) = self.plan.p.inst(*term).clone()
            && self.plan.act.is_varied(v)
        {
            let seed = match self.dret {
                Some(d) => d,
                None => {
                    let ty = self.plan.p.value_type(v);
                    self.fconst_(ty, 1.0)
                }
            };
            self.add_adj(v, seed)?;
        }
        for &inst in rest.iter().rev() {
            self.reverse_inst(inst)?;
        }
        let edges = self.plan.edges.get(&b).cloned().unwrap_or_default();
        if let Some(i) = self.plan.counted.iter().position(|c| c.exit == b) {
            // Entering the reverse of a counted loop: its trip count,
            // from the loop's bounds where they give it, else recorded.
            let k = match self.plan.exit_tests[i] {
                Some(crate::cache::ExitTest {
                    lo,
                    step: 1,
                    bound,
                    inclusive: false,
                    signed,
                    ..
                }) => {
                    // `for (iv = lo; iv < bound; iv++)`: iv never wraps
                    // (it stays below bound), so the count is bound - lo.
                    let lo = self.need_int(lo, !signed)?;
                    let hi = self.need_int(bound, !signed)?;
                    let d = self.binop(BinaryOp::Isub, hi, lo);
                    let zero = self.iconst(Type::I64, 0);
                    let any = if signed {
                        self.ev(InstKind::Icmp(IntCC::Slt, lo, hi), Type::I1)
                    } else {
                        self.ev(InstKind::Icmp(IntCC::Ult, lo, hi), Type::I1)
                    };
                    self.ev(InstKind::Select(any, d, zero), Type::I64)
                }
                _ => {
                    let k = self.counter_fwd[i].expect("the header has its counter");
                    self.need(k)?
                }
            };
            let slot = self.counter_slot(i);
            self.emit(
                InstKind::Store {
                    value: k,
                    ptr: slot,
                },
                None,
            );
            if self.indexed[i].is_some() {
                // Every iteration's records at once: len0 = len - (k+1)·S
                // (k·S where the exit test's last run has no place).
                let s = self
                    .emit(InstKind::Iconst(0), Some(Type::I64))
                    .expect("iconst has a result");
                let ValueDef::Result(si) = self.g.value_def(s) else {
                    unreachable!("an instruction result")
                };
                let last = self.last_run_placeholder(i);
                let runs = self.binop(BinaryOp::Iadd, k, last);
                let used = self.binop(BinaryOp::Imul, runs, s);
                // One pop of them all: it goes back to the chunk the
                // reservation placed them in, if the tape moved on.
                let tape = self.rev_tape(Some(b));
                self.emit(
                    InstKind::Call {
                        func: self.tape_fns.pop,
                        args: vec![tape, used],
                    },
                    Some(Type::Ptr),
                );
                let release_call = *self.g.blocks[self.cur]
                    .insts
                    .last()
                    .expect("the pop was just emitted");
                let lp = self.offset(tape, crate::tape::LEN);
                let len0 = self.ev(InstKind::Load(lp), Type::I64);
                let dp = self.offset(tape, crate::tape::DATA);
                let data = self.ev(InstKind::Load(dp), Type::Ptr);
                let ix = self.indexed[i].as_mut().expect("checked above");
                ix.len0_rev = Some(len0);
                ix.data_rev = Some(data);
                ix.slot_consts.push(si);
                ix.release_call = Some(release_call);
            }
        }
        let counted_header = self.plan.counted.iter().position(|c| c.header == b);
        let exits = self.plan.ploops.iter().position(|l| l.exit == b);
        let enters = self.plan.ploops.iter().position(|l| l.task_entry == b);
        let spawned = self.plan.spawns.iter().position(|sp| sp.task == b);
        if let Some(i) = exits {
            // The reverse of the whole loop: a parallel loop over the tapes.
            let tapes = self.rl[i].tapes_fwd.expect("forward tapes exist");
            let trip = self.rl[i].trip_fwd.expect("forward trip count exists");
            let tapes = self.need(tapes)?;
            let trip = self.need(trip)?;
            self.rl[i].tapes_rev = Some(tapes);
            self.rl[i].trip_rev = Some(trip);
            self.pool_to_reverse(i)?;
            self.slabs_to_reverse(i)?;
            if let Some(data) = self.rl[i].data_fwd {
                self.rl[i].data_rev = Some(self.need(data)?);
            }
            let pre = self.rl[i].pre;
            self.emit(InstKind::Jump(BlockCall::to(pre)), None);
        } else if let Some(i) = enters {
            let tape = self.rl[i].tape;
            // A sized task's tape is its part of the buffer, a pooled
            // one's part of its worker's stream: freed with the loop.
            if self.rl[i].fixed_slots.is_none() && !self.rl[i].pooled {
                self.emit(
                    InstKind::Call {
                        func: self.tape_fns.free,
                        args: vec![tape],
                    },
                    None,
                );
            }
            self.sync_reverse_regions(Some(TaskOf::Loop(i)));
            let inext = self.rl[i].inext;
            self.emit(InstKind::Jump(BlockCall::to(inext)), None);
        } else if let Some(i) = spawned {
            self.sync_reverse_regions(Some(TaskOf::Spawn(i)));
            let tape = self.rs[i].tape;
            self.emit(
                InstKind::Call {
                    func: self.tape_fns.free,
                    args: vec![tape],
                },
                None,
            );
            self.effect(Intrinsic::Free, vec![tape]);
            let zero = self.iconst(Type::I64, 0);
            let header = self.iconst(Type::I64, -i64::from(HEADER_BYTES));
            self.note_tape(zero, 0, Some(header));
            let (rsr, next) = (self.rs[i].rsr, self.rs[i].next);
            self.emit(
                InstKind::Reattach {
                    region: rsr,
                    cont: next,
                },
                None,
            );
        } else if let Some(i) = counted_header {
            // Iteration 0 came from the preheader; any other from the
            // latch, one iteration earlier.
            let slot = self.counter_slot(i);
            let k = self.ev(InstKind::Load(slot), Type::I64);
            let zero = self.iconst(Type::I64, 0);
            let first = self.ev(InstKind::Icmp(IntCC::Eq, k, zero), Type::I1);
            let (pre, latch) = (self.plan.counted[i].pre, self.plan.counted[i].latch);
            let from_pre = self.new_block(false);
            let from_latch = self.new_block(false);
            self.brif(first, from_pre, from_latch);
            self.cur = from_pre;
            self.edge_adjoints(b, pre)?;
            let t = self.rpop[&pre.0];
            self.emit(InstKind::Jump(BlockCall::to(t)), None);
            self.cur = from_latch;
            let one = self.iconst(Type::I64, 1);
            let k1 = self.binop(BinaryOp::Isub, k, one);
            self.emit(
                InstKind::Store {
                    value: k1,
                    ptr: slot,
                },
                None,
            );
            self.edge_adjoints(b, latch)?;
            let t = self.rpop[&latch.0];
            self.emit(InstKind::Jump(BlockCall::to(t)), None);
        } else if b == self.plan.p.layout[0] {
            self.finish_entry();
        } else if edges.len() == 1 {
            self.edge_adjoints(b, edges[0])?;
            let t = self.rpop[&edges[0].0];
            self.emit(InstKind::Jump(BlockCall::to(t)), None);
        } else {
            // The way in follows from a branch condition (`Plan::joins`)
            // where the reverse has the condition without a new record.
            let by_condition = match self.sweep().join(b) {
                Some((cond, t, f)) if self.cheap(b, cond)? => Some((cond, t, f)),
                _ => None,
            };
            let idx = match by_condition {
                Some((cond, on_true, on_false)) => {
                    let c = self.rebuild(b, cond)?;
                    let t = self.iconst(Type::I32, on_true as i64);
                    let f = self.iconst(Type::I32, on_false as i64);
                    self.ev(InstKind::Select(c, t, f), Type::I32)
                }
                _ => {
                    let e = self.edge_param[&b];
                    self.need(e)?
                }
            };
            let mut targets = Vec::new();
            for &edge in &edges {
                let eb = self.new_block(false);
                targets.push(eb);
                let saved = self.cur;
                self.cur = eb;
                self.edge_adjoints(b, edge)?;
                let t = self.rpop[&edge.0];
                self.emit(InstKind::Jump(BlockCall::to(t)), None);
                self.cur = saved;
            }
            self.switch(idx, Type::I32, &targets);
        }
        self.cur_rev = None;
        // The pop block continues into the body (its pops are filled in
        // when every frame is known).
        Ok(())
    }

    /// Moves the adjoints of `b`'s parameters to the arguments of `edge`.
    pub(super) fn edge_adjoints(
        &mut self,
        b: Block,
        (pred, slot): (Block, usize),
    ) -> Result<(), AdError> {
        let term = self
            .plan
            .p
            .terminator(pred)
            .expect("verified blocks end in a terminator");
        let kind = self.plan.p.inst(term).clone();
        let Some((_, args)) = branch_dests(&kind).into_iter().nth(slot) else {
            return Ok(());
        };
        let args = args.to_vec();
        let params = self.plan.p.blocks[b].params.clone();
        for (&pp, &arg) in params.iter().zip(&args) {
            if self.plan.act.is_varied(pp) {
                let t = self.take_adj(pp);
                self.add_adj(arg, t)?;
            }
        }
        Ok(())
    }

    /// Syncs the reverse regions of the spawn sites whose innermost
    /// enclosing task is `task`, at the end of its reverse (`None`: of the
    /// function). Reverse tasks are synced at the reverse of their detach;
    /// a loop that spawned none skips that reverse, so the implicit sync
    /// at the return or reattach is made explicit here (it waits for
    /// nothing).
    pub(super) fn sync_reverse_regions(&mut self, task: Option<TaskOf>) {
        let mut regions: Vec<parc_ir::SyncRegion> = Vec::new();
        for (r, sp) in self.rs.iter().zip(&self.plan.spawns) {
            if self.plan.task_of(Some(sp.detach)) == task && !regions.contains(&r.rsr) {
                regions.push(r.rsr);
            }
        }
        for region in regions {
            let next = self.new_block(false);
            self.emit(InstKind::Sync { region, next }, None);
            self.cur = next;
        }
    }

    pub(super) fn finish_entry(&mut self) {
        self.sync_reverse_regions(None);
        let pentry = self.plan.p.layout[0];
        let params = self.plan.p.blocks[pentry].params.clone();
        match self.plan.mode {
            Mode::Combined => {
                let mut ret = None;
                for (i, &pp) in params.iter().enumerate() {
                    if self.plan.acts[i] == Activity::Active {
                        let ty = self.plan.p.value_type(pp);
                        let s = self.slot(pp);
                        ret = Some(self.ev(InstKind::Load(s), ty));
                    }
                }
                self.emit(
                    InstKind::Call {
                        func: self.tape_fns.free,
                        args: vec![self.tape],
                    },
                    None,
                );
                self.emit(InstKind::Return(ret), None);
            }
            Mode::Split { .. } => {
                let dargs = self.dargs.expect("split mode has dargs");
                for (i, &pp) in params.iter().enumerate() {
                    if self.plan.acts[i] == Activity::Active {
                        let ty = self.plan.p.value_type(pp);
                        let s = self.slot(pp);
                        let t = self.ev(InstKind::Load(s), ty);
                        let a = self.offset(dargs, 8 * i as i64);
                        self.emit(InstKind::Store { value: t, ptr: a }, None);
                    }
                }
                self.emit(InstKind::Return(None), None);
            }
        }
    }

    pub(super) fn reverse_inst(&mut self, inst: Inst) -> Result<(), AdError> {
        let kind = self.plan.p.inst(inst).clone();
        let res = self.plan.p.result(inst);
        if let Some(pair) = self.calls.get(&inst).cloned() {
            return self.reverse_call(&kind, res, &pair);
        }
        if let Some(plan) = self.launches.get(&inst).cloned() {
            return self.reverse_launch(inst, &plan);
        }
        match &kind {
            InstKind::Load(p) => {
                let r = res.expect("load has a result");
                if self.plan.act.is_varied(r) {
                    let a = self.take_adj(r);
                    if self.plan.in_place.contains(&inst) {
                        // The shadow still holds the update's adjoint,
                        // which is this load's (see `in_place_updates`):
                        // no update of memory, so no site to classify.
                        return Ok(());
                    }
                    let sp = self.shadow[p];
                    let sp = self.need(sp)?;
                    self.accumulate(inst, sp, a)?;
                }
            }
            InstKind::Store { value, ptr } => {
                let ty = self.plan.p.value_type(*value);
                if ty.is_float() && self.plan.act.is_shadowed(*ptr) {
                    let sp = self.shadow[ptr];
                    let sp = self.need(sp)?;
                    let t = self.ev(InstKind::Load(sp), ty);
                    if !self.plan.in_place.contains(&inst) {
                        let z = self.fconst_(ty, 0.0);
                        self.emit(InstKind::Store { value: z, ptr: sp }, None);
                    }
                    self.add_adj(*value, t)?;
                }
            }
            InstKind::Intrinsic { op, args } => match op {
                Intrinsic::Memcpy | Intrinsic::Memset
                    if self.plan.memcpy_ty.get(&inst).is_some_and(|t| t.is_float()) =>
                {
                    let ty = self.plan.memcpy_ty[&inst];
                    let sd = self.shadow[&args[0]];
                    let sd = self.need(sd)?;
                    let n = self.rv(args[2])?;
                    if *op == Intrinsic::Memcpy && self.plan.act.is_shadowed(args[1]) {
                        // dsrc += ddst; ddst = 0
                        let ss = self.shadow[&args[1]];
                        let ss = self.need(ss)?;
                        let f = if ty == Type::F32 {
                            self.acc_fns.f32
                        } else {
                            self.acc_fns.f64
                        };
                        self.emit(
                            InstKind::Call {
                                func: f,
                                args: vec![ss, sd, n],
                            },
                            None,
                        );
                    } else {
                        // The overwritten values' adjoints end here.
                        let z = self.iconst(Type::I32, 0);
                        self.effect(Intrinsic::Memset, vec![sd, z, n]);
                    }
                }
                Intrinsic::AtomicAdd
                    if self.plan.act.is_varied(args[1]) && self.plan.act.is_shadowed(args[0]) =>
                {
                    // `*p += v` by every thread: each `dv` is `d*p`, which
                    // stays (the in-place rule); the old value is not
                    // differentiated (refused in `check_and_plan`).
                    let ty = self.plan.p.value_type(args[1]);
                    let sp = self.shadow[&args[0]];
                    let sp = self.need(sp)?;
                    let d = self.ev(InstKind::Load(sp), ty);
                    self.add_adj(args[1], d)?;
                }
                // The reverse of the code after a barrier reads adjoints the
                // other threads' reverses of it add: it needs a barrier too.
                Intrinsic::Barrier => {
                    self.effect(Intrinsic::Barrier, vec![]);
                }
                Intrinsic::Malloc | Intrinsic::Calloc
                    if self.plan.act.is_active_root(Root::Heap(inst)) =>
                {
                    let r = res.expect("malloc has a result");
                    let s = self.shadow[&r];
                    let s = self.need(s)?;
                    self.effect(Intrinsic::Free, vec![s]);
                }
                _ => self.reverse_pure(inst, &kind, res)?,
            },
            InstKind::Alloca { size, align }
                if self.plan.heap_shadow(inst)
                    && self.plan.act.is_active_root(Root::Alloca(inst)) =>
            {
                if self.slab_of(inst).is_some() {
                    // Freed with the loop's slab, after the reverse loop.
                    return Ok(());
                }
                if let Some(slots) = self.tape_shadow_slots(inst, *size, *align) {
                    let b = self.plan.inst_block[&inst];
                    self.pop_shadow(b, slots);
                    return Ok(());
                }
                let r = res.expect("alloca has a result");
                let s = self.shadow[&r];
                let s = self.need(s)?;
                self.effect(Intrinsic::Free, vec![s]);
            }
            _ => self.reverse_pure(inst, &kind, res)?,
        }
        Ok(())
    }

    /// The rule-table instructions.
    pub(super) fn reverse_pure(
        &mut self,
        inst: Inst,
        kind: &InstKind,
        res: Option<Value>,
    ) -> Result<(), AdError> {
        let Some(r) = res else { return Ok(()) };
        if !self.plan.act.is_varied(r) {
            return Ok(());
        }
        let Some(rule) = rules::lookup(kind) else {
            return Err(crate::plan::err(
                &self.plan.p,
                Some(inst),
                format!("no derivative rule for `{}`", crate::plan::kind_name(kind)),
            ));
        };
        let a = self.take_adj(r);
        let ops = kind.operands();
        let contribs = {
            let mut cx = RuleCx {
                gen_: self,
                ops: &ops,
                res: r,
                failed: None,
            };
            let contribs = (rule.apply)(&mut cx, a);
            if let Some(e) = cx.failed {
                return Err(e);
            }
            contribs
        };
        for (i, v) in contribs {
            if let Some(&op) = ops.get(i) {
                self.add_adj(op, v)?;
            }
        }
        Ok(())
    }

    pub(super) fn reverse_call(
        &mut self,
        kind: &InstKind,
        res: Option<Value>,
        pair: &Pair,
    ) -> Result<(), AdError> {
        let InstKind::Call { args, .. } = kind else {
            unreachable!("only calls are planned as calls")
        };
        let mut cargs = vec![self.rev_tape(self.cur_rev)];
        for (&a, &act) in args.iter().zip(&pair.acts) {
            let v = self.rv(a)?;
            cargs.push(v);
            if act == Activity::Dup {
                let s = self.shadow.get(&a).copied();
                let s = match s {
                    Some(s) => self.need(s)?,
                    None => self.iconst(Type::Ptr, 0),
                };
                cargs.push(s);
            }
        }
        if pair.ret_shadow {
            // `.rev` takes `.aug`'s parameters; it has no use for this one.
            let null = self.iconst(Type::Ptr, 0);
            cargs.push(null);
        }
        if pair.ret_active {
            let r = res.expect("an active result exists");
            let d = self.take_adj(r);
            cargs.push(d);
        }
        let buf_inst = self.g.make_inst(
            InstKind::Alloca {
                size: 8 * args.len().max(1) as u32,
                align: 8,
            },
            Some(Type::Ptr),
        );
        // Where the call's reverse runs in a reverse task, the buffer is
        // the task's own: iterations, and reverse tasks of one spawn site,
        // run at once.
        let home = self.rev_home(self.plan.task_of(self.cur_rev));
        self.g.blocks[home].insts.insert(0, buf_inst);
        let buf = self.g.result(buf_inst).expect("alloca has a result");
        cargs.push(buf);
        self.emit(
            InstKind::Call {
                func: pair.rev,
                args: cargs,
            },
            None,
        );
        for (i, (&a, &act)) in args.iter().zip(&pair.acts).enumerate() {
            if act == Activity::Active {
                let ty = self.plan.p.value_type(a);
                let p = self.offset(buf, 8 * i as i64);
                let t = self.ev(InstKind::Load(p), ty);
                self.add_adj(a, t)?;
            }
        }
        Ok(())
    }

    /// `*sp += a` for the adjoint of load `inst`, as the plan decides: a
    /// plain add in serial code, in parallel code what its accumulation
    /// class makes it.
    pub(super) fn accumulate(&mut self, inst: Inst, sp: Value, a: Value) -> Result<(), AdError> {
        let ty = self.g.value_type(a);
        let cx = self.context();
        let Some(d) = self.plan.accumulation.memory(inst, cx).cloned() else {
            return Err(self.unplanned(
                Some(inst),
                format!("the update of the shadow of {inst} in {cx:?}"),
            ));
        };
        let InstKind::Load(ptr) = *self.plan.p.inst(inst) else {
            unreachable!("only loads update shadows so")
        };
        match d.action {
            Action::Add => self.add_to(sp, a),
            Action::AddInBand(region) => {
                let l = self.ctx_loop.expect("a band is a parallel loop's");
                self.rl[l].bands.push(region);
                self.add_to(sp, a);
            }
            Action::AddBeside(region) => {
                let l = self.ctx_loop.expect("a band is a parallel loop's");
                self.rl[l].plain.push(region);
                self.add_to(sp, a);
            }
            Action::Atomic => self.atomic_add_to(sp, a),
            Action::Reduce => {
                let l = self.ctx_loop.expect("reductions are per parallel loop");
                self.reduce(l, RedTarget::Mem { inst, ptr }, ty, a);
            }
            Action::ReduceArray(region) => {
                let l = self.ctx_loop.expect("reductions are per parallel loop");
                self.reduce_array(l, &region, ty, a, sp);
            }
            Action::ThreadBand { first, last } => self.banded_update(first, last, sp, a),
        }
        Ok(())
    }
}

/// The adapter that lets a rule emit into the reverse sweep.
struct RuleCx<'a, 'b> {
    gen_: &'a mut Gen<'b>,
    ops: &'a [Value],
    res: Value,
    /// The first error getting a primal value (the plan lacked its
    /// answer); a rule's builder cannot return it, so the reverse of the
    /// instruction returns it once the rule is done.
    failed: Option<AdError>,
}

impl RuleCx<'_, '_> {
    /// Primal value `v` in the reverse; after an error, a zero of its
    /// type that nothing keeps (the derivative is abandoned).
    fn primal(&mut self, v: Value) -> Value {
        match self.gen_.rv(v) {
            Ok(x) => x,
            Err(e) => {
                self.failed.get_or_insert(e);
                let ty = self.gen_.plan.p.value_type(v);
                if ty.is_float() {
                    self.gen_.fconst_(ty, 0.0)
                } else {
                    self.gen_.iconst(ty, 0)
                }
            }
        }
    }
}

impl AdjointBuilder for RuleCx<'_, '_> {
    fn op(&mut self, i: usize) -> Value {
        let v = self.ops[i];
        self.primal(v)
    }
    fn res(&mut self) -> Value {
        self.primal(self.res)
    }
    fn ty(&self) -> Type {
        self.gen_.plan.p.value_type(self.res)
    }
    fn fconst(&mut self, ty: Type, c: f64) -> Value {
        self.gen_.fconst_(ty, c)
    }
    fn bin(&mut self, op: BinaryOp, a: Value, b: Value) -> Value {
        self.gen_.binop(op, a, b)
    }
    fn neg(&mut self, a: Value) -> Value {
        let ty = self.gen_.g.value_type(a);
        self.gen_.ev(InstKind::Unary(UnaryOp::Fneg, a), ty)
    }
    fn math(&mut self, op: Intrinsic, args: Vec<Value>) -> Value {
        let ty = self.gen_.g.value_type(args[0]);
        self.gen_.ev(InstKind::Intrinsic { op, args }, ty)
    }
    fn fcmp(&mut self, cc: FloatCC, a: Value, b: Value) -> Value {
        self.gen_.ev(InstKind::Fcmp(cc, a, b), Type::I1)
    }
    fn select(&mut self, c: Value, a: Value, b: Value) -> Value {
        let ty = self.gen_.g.value_type(a);
        self.gen_.ev(InstKind::Select(c, a, b), ty)
    }
    fn cast(&mut self, op: CastOp, a: Value, to: Type) -> Value {
        self.gen_.ev(InstKind::Cast(op, a), to)
    }
    fn wants(&self, i: usize) -> bool {
        self.ops
            .get(i)
            .is_some_and(|&v| self.gen_.plan.act.is_varied(v))
    }
}
