//! The forward sweep: a copy of each primal instruction and terminator
//! that also computes the shadows of pointers and records what the
//! reverse needs (see the parent module's frame invariant).

use super::*;

impl Gen<'_> {
    /// `brif cond, then, els` with no arguments.
    pub(super) fn brif(&mut self, cond: Value, then: Block, els: Block) {
        self.emit(
            InstKind::Brif {
                cond,
                then_dest: BlockCall::to(then),
                else_dest: BlockCall::to(els),
            },
            None,
        );
    }

    /// Branches to `targets[idx]` (a chain of compares; the last is the default).
    pub(super) fn switch(&mut self, idx: Value, ty: Type, targets: &[Block]) {
        for (k, &t) in targets.iter().enumerate() {
            if k + 1 == targets.len() {
                self.emit(InstKind::Jump(BlockCall::to(t)), None);
                break;
            }
            let kc = self.iconst(ty, k as i64);
            let c = self.ev(InstKind::Icmp(IntCC::Eq, idx, kc), Type::I1);
            let next = self.new_block(false);
            self.brif(c, t, next);
            self.cur = next;
        }
    }

    pub(super) fn forward_inst(&mut self, inst: Inst) -> Result<(), AdError> {
        let kind = self.plan.p.inst(inst).clone();
        let res = self.plan.p.result(inst);
        let loc = self.plan.p.locs[inst];
        if let Some(plan) = self.launches.get(&inst).cloned() {
            self.forward_launch(inst, &plan);
            return Ok(());
        }
        // Calls of active callees go to their augmented forward.
        if let Some(pair) = self.calls.get(&inst).cloned() {
            let InstKind::Call { args, .. } = &kind else {
                unreachable!("only calls are planned as calls")
            };
            let mut cargs = vec![self.fwd_tape(self.cur_fwd)];
            for (&a, &act) in args.iter().zip(&pair.acts) {
                cargs.push(self.fv(a));
                if act == Activity::Dup {
                    let s = self.sh(a);
                    cargs.push(s);
                }
            }
            // The callee stores its result's shadow into a slot of ours.
            // (The slot is the task's own where the call is in one.)
            let out = pair.ret_shadow.then(|| {
                let home = match self.plan.task_of(self.cur_fwd) {
                    Some(TaskOf::Loop(i)) => self.fblock[&self.plan.ploops[i].task_entry],
                    Some(TaskOf::Spawn(i)) => self.fblock[&self.plan.spawns[i].task],
                    None => self.g.layout[0],
                };
                self.slot_in(home, Type::Ptr, None)
            });
            cargs.extend(out);
            let ty = res.map(|r| self.plan.p.value_type(r));
            let r = self.emit(
                InstKind::Call {
                    func: pair.aug,
                    args: cargs,
                },
                ty,
            );
            if let (Some(r), Some(pr)) = (r, res) {
                self.fwd.insert(pr, r);
                if let Some(out) = out {
                    let s = self.ev(InstKind::Load(out), Type::Ptr);
                    self.shadow.insert(pr, s);
                }
            }
            return Ok(());
        }
        // Free of shadowed memory: the primal is freed now; the shadow at
        // the reverse of its allocation (the reverse sweep still needs it).
        let mut k2 = kind.clone();
        k2.map_operands(|v| self.fwd[&v]);
        let ty = res.map(|r| self.plan.p.value_type(r));
        let placed = self.g.append_inst(self.cur, k2, ty);
        self.g.locs[placed] = loc;
        if let (Some(r), Some(pr)) = (self.g.result(placed), res) {
            self.fwd.insert(pr, r);
            if let Some(b) = self.cur_fwd {
                self.origin.insert(r, b);
            }
        }
        // Shadows.
        match &kind {
            InstKind::Alloca { size, align }
                if self.plan.act.is_active_root(Root::Alloca(inst)) =>
            {
                // In split mode the reverse runs in `.rev`, after `.aug`
                // returned, and the reverse of a parallel loop's task in
                // another task (an outlined function): the shadow must
                // outlive the frame, so it is slots of the tape (see
                // `shadows.rs`) or heap memory, released at the alloca's
                // reverse.
                let on_tape = self
                    .plan
                    .heap_shadow(inst)
                    .then(|| self.tape_shadow_slots(inst, *size, *align))
                    .flatten();
                let s = if let Some(s) = self.slab_shadow(inst) {
                    s
                } else if let Some(slots) = on_tape {
                    let b = self.cur_fwd.expect("forward code of a primal block");
                    self.push_shadow(b, slots, *size)
                } else if !self.plan.heap_shadow(inst) {
                    let kind = InstKind::Alloca {
                        size: *size,
                        align: *align,
                    };
                    self.ev(kind, Type::Ptr)
                } else {
                    let n = self.iconst(Type::I64, *size as i64);
                    let one = self.iconst(Type::I64, 1);
                    let kind = InstKind::Intrinsic {
                        op: Intrinsic::Calloc,
                        args: vec![n, one],
                    };
                    self.ev(kind, Type::Ptr)
                };
                self.shadow.insert(res.expect("alloca has a result"), s);
            }
            InstKind::GlobalAddr(g) if self.shared_shadow.contains_key(g) => {
                let s = self.ev(InstKind::GlobalAddr(self.shared_shadow[g]), Type::Ptr);
                self.shadow
                    .insert(res.expect("global_addr has a result"), s);
            }
            InstKind::PtrAdd(p, o) => {
                let r = res.expect("ptradd has a result");
                if self.plan.act.is_shadowed(r) {
                    let sp = self.sh(*p);
                    let o = self.fv(*o);
                    let s = self.ev(InstKind::PtrAdd(sp, o), Type::Ptr);
                    self.shadow.insert(r, s);
                }
            }
            InstKind::Select(c, a, b) => {
                let r = res.expect("select has a result");
                if self.plan.p.value_type(r) == Type::Ptr && self.plan.act.is_shadowed(r) {
                    let (sa, sb) = (self.sh(*a), self.sh(*b));
                    let c = self.fv(*c);
                    let s = self.ev(InstKind::Select(c, sa, sb), Type::Ptr);
                    self.shadow.insert(r, s);
                }
            }
            InstKind::Load(p) => {
                let r = res.expect("load has a result");
                if self.plan.p.value_type(r) == Type::Ptr && self.plan.act.is_shadowed(r) {
                    let sp = self.sh(*p);
                    let s = self.ev(InstKind::Load(sp), Type::Ptr);
                    self.shadow.insert(r, s);
                }
            }
            InstKind::Store { value, ptr }
                if self.plan.p.value_type(*value) == Type::Ptr
                    && self.plan.act.is_shadowed(*ptr) =>
            {
                let sv = self.sh(*value);
                let sp = self.sh(*ptr);
                self.emit(InstKind::Store { value: sv, ptr: sp }, None);
            }
            InstKind::Intrinsic { op, args } => match op {
                Intrinsic::Malloc | Intrinsic::Calloc
                    if self.plan.act.is_active_root(Root::Heap(inst)) =>
                {
                    let cargs = if *op == Intrinsic::Malloc {
                        let one = self.iconst(Type::I64, 1);
                        vec![self.fv(args[0]), one]
                    } else {
                        vec![self.fv(args[0]), self.fv(args[1])]
                    };
                    let s = self.ev(
                        InstKind::Intrinsic {
                            op: Intrinsic::Calloc,
                            args: cargs,
                        },
                        Type::Ptr,
                    );
                    self.shadow.insert(res.expect("malloc has a result"), s);
                }
                // Shadows of floats are adjoints (seeds, for outputs): the
                // forward sweep leaves them alone; shadows of pointers are
                // pointers and move as the primal does.
                Intrinsic::Memcpy if self.plan.memcpy_ty.get(&inst) == Some(&Type::Ptr) => {
                    let sd = self.sh(args[0]);
                    let n = self.fv(args[2]);
                    if self.plan.act.is_shadowed(args[1]) {
                        let ss = self.sh(args[1]);
                        self.effect(Intrinsic::Memcpy, vec![sd, ss, n]);
                    } else {
                        let z = self.iconst(Type::I32, 0);
                        self.effect(Intrinsic::Memset, vec![sd, z, n]);
                    }
                }
                Intrinsic::Memset if self.plan.memcpy_ty.get(&inst) == Some(&Type::Ptr) => {
                    let sd = self.sh(args[0]);
                    let n = self.fv(args[2]);
                    let z = self.iconst(Type::I32, 0);
                    self.effect(Intrinsic::Memset, vec![sd, z, n]);
                }
                _ => {}
            },
            _ => {}
        }
        Ok(())
    }

    pub(super) fn forward_term(&mut self, b: Block, term: Inst) -> Result<(), AdError> {
        let kind = self.plan.p.inst(term).clone();
        match &kind {
            InstKind::Jump(_) | InstKind::Brif { .. } => {
                let mut calls = Vec::new();
                for (slot, (dest, args)) in branch_dests(&kind).into_iter().enumerate() {
                    let mut a: Vec<Value> = args.iter().map(|&v| self.fv(v)).collect();
                    let params = self.plan.p.blocks[dest].params.clone();
                    for (&pp, &arg) in params.iter().zip(args) {
                        if self.plan.act.is_shadowed(pp) {
                            let s = self.sh(arg);
                            a.push(s);
                        }
                    }
                    if let Some(i) = self.plan.counted.iter().position(|c| c.header == dest) {
                        let next = if self.plan.counted[i].pre == (b, slot) {
                            self.iconst(Type::I64, 0)
                        } else {
                            let k = self.counter_fwd[i].expect("the header has its counter");
                            let one = self.iconst(Type::I64, 1);
                            self.binop(BinaryOp::Iadd, k, one)
                        };
                        a.push(next);
                    } else if let Some(es) = self.plan.edges.get(&dest)
                        && es.len() > 1
                    {
                        let k = es.iter().position(|&e| e == (b, slot)).unwrap_or(0);
                        let kc = self.iconst(Type::I32, k as i64);
                        a.push(kc);
                    }
                    calls.push(BlockCall::new(self.fblock[&dest], a));
                }
                let new = match kind {
                    InstKind::Jump(_) => InstKind::Jump(calls.remove(0)),
                    InstKind::Brif { cond, .. } => {
                        let else_dest = calls.pop().expect("two targets");
                        let then_dest = calls.pop().expect("two targets");
                        InstKind::Brif {
                            cond: self.fv(cond),
                            then_dest,
                            else_dest,
                        }
                    }
                    _ => unreachable!(),
                };
                self.emit(new, None);
            }
            InstKind::Return(v) => match self.plan.mode {
                Mode::Combined => {
                    let rp = self.rpop[&b];
                    self.emit(InstKind::Jump(BlockCall::to(rp)), None);
                }
                Mode::Split { .. } => {
                    if self.plan.returns.len() > 1 {
                        if self.plan.returns.first() == Some(&b) {
                            self.frame_slots += 1;
                        }
                        let k = self.plan.returns.iter().position(|&r| r == b).unwrap_or(0);
                        let one = self.iconst(Type::I64, 1);
                        let base = self
                            .emit(
                                InstKind::Call {
                                    func: self.tape_fns.push,
                                    args: vec![self.tape, one],
                                },
                                Some(Type::Ptr),
                            )
                            .expect("push returns a pointer");
                        let kc = self.iconst(Type::I64, k as i64);
                        self.emit(
                            InstKind::Store {
                                value: kc,
                                ptr: base,
                            },
                            None,
                        );
                    }
                    if let (Some(out), Some(v)) = (self.ret_shadow_out, v) {
                        let s = self.sh(*v);
                        self.emit(InstKind::Store { value: s, ptr: out }, None);
                    }
                    let rv = v.map(|v| self.fv(v));
                    self.emit(InstKind::Return(rv), None);
                }
            },
            InstKind::Unreachable => {
                self.emit(InstKind::Unreachable, None);
            }
            InstKind::Detach { .. } | InstKind::Reattach { .. } | InstKind::Sync { .. } => {
                self.leave_stream(b);
                let mut k = kind.clone();
                k.map_successors(|s| self.fblock[&s]);
                self.emit(k, None);
            }
            _ => {
                return Err(crate::plan::err(
                    &self.plan.p,
                    Some(term),
                    "an instruction that is not a terminator ends a block",
                ));
            }
        }
        Ok(())
    }
}
