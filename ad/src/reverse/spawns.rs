//! The reverse of spawned tasks (see `parallel.rs`): each task's tape, kept
//! per site until the sync records it; the reverse task spawned at the
//! reverse of the sync and synced at the reverse of the detach.

use super::*;

impl Gen<'_> {
    /// Creates the blocks of spawn site `i`'s reverse (filled in later).
    pub(super) fn create_rev_spawn(&mut self, i: usize) {
        let region = self.plan.spawns[i].region;
        let rsr = match self
            .rs
            .iter()
            .zip(&self.plan.spawns)
            .find(|(_, sp)| sp.region == region)
        {
            Some((r, _)) => r.rsr,
            None => self.g.create_sync_region(),
        };
        let rtask = self.new_block(false);
        let next = self.new_block(false);
        let merge = self.new_block(false);
        let resume = self.new_block(false);
        // A placeholder until the tape is popped at the reverse of the sync.
        let tape_inst = self.g.make_inst(InstKind::Iconst(0), Some(Type::Ptr));
        let tape = self.g.result(tape_inst).expect("placeholder has a result");
        self.rs.push(RevSpawn {
            slot: None,
            tape_fwd: None,
            taken_fwd: None,
            taken_len_fwd: None,
            rsr,
            rtask,
            next,
            merge,
            resume,
            tape_inst,
            tape,
            accs: Vec::new(),
        });
    }

    /// Empties spawn site `i`'s slot (or list).
    pub(super) fn clear_slot(&mut self, i: usize, slot: Value) {
        let null = self.iconst(Type::Ptr, 0);
        self.emit(
            InstKind::Store {
                value: null,
                ptr: slot,
            },
            None,
        );
        if self.plan.spawns[i].multi {
            let zero = self.iconst(Type::I64, 0);
            for off in [crate::tape::LEN, crate::tape::CAP] {
                let p = self.offset(slot, off);
                self.emit(
                    InstKind::Store {
                        value: zero,
                        ptr: p,
                    },
                    None,
                );
            }
        }
    }

    /// Before the forward copy of a detach: the task's tape, in the slot.
    pub(super) fn forward_spawn_tape(&mut self, i: usize) {
        let one = self.iconst(Type::I64, 1);
        let size = self.iconst(Type::I64, HEADER_BYTES as i64);
        let tape = self.ev(
            InstKind::Intrinsic {
                op: Intrinsic::Calloc,
                args: vec![one, size],
            },
            Type::Ptr,
        );
        // The header is heap of the tape, not a record (`--explain-tape`
        // does not count it).
        let zero = self.iconst(Type::I64, 0);
        let header = self.iconst(Type::I64, i64::from(HEADER_BYTES));
        self.note_tape(zero, 0, Some(header));
        let slot = self.rs[i].slot.expect("slots are made at the entry");
        let at = if self.plan.spawns[i].multi {
            let one = self.iconst(Type::I64, 1);
            self.emit(
                InstKind::Call {
                    func: self.tape_fns.list_push,
                    args: vec![slot, one],
                },
                Some(Type::Ptr),
            )
            .expect("push returns a pointer")
        } else {
            slot
        };
        self.emit(
            InstKind::Store {
                value: tape,
                ptr: at,
            },
            None,
        );
        self.rs[i].tape_fwd = Some(tape);
    }

    /// In the forward copy of the sync: take the slot's tape (null if the
    /// spawn did not run since the last sync) and empty the slot.
    pub(super) fn forward_take_tape(&mut self, i: usize) {
        let slot = self.rs[i].slot.expect("slots are made at the entry");
        let taken = self.ev(InstKind::Load(slot), Type::Ptr);
        if self.plan.spawns[i].multi {
            let len = self.offset(slot, crate::tape::LEN);
            let len = self.ev(InstKind::Load(len), Type::I64);
            self.rs[i].taken_len_fwd = Some(len);
            // The list of the tasks' tapes is the AD's bookkeeping, not a
            // record (`__parc_ad_list_push` notes nothing): the reverse
            // frees it as plain memory.
        }
        self.clear_slot(i, slot);
        self.rs[i].taken_fwd = Some(taken);
    }

    /// At the reverse of the sync: spawn the reverse of task `i` if it ran
    /// (once per tape in its list, for a site in a loop).
    pub(super) fn spawn_reverse_task(&mut self, i: usize) -> Result<(), AdError> {
        if self.plan.spawns[i].multi {
            self.spawn_reverse_tasks(i)?;
            return Ok(());
        }
        let taken = self.rs[i]
            .taken_fwd
            .expect("the sync's forward took the tape");
        let taken = self.need(taken)?;
        let null = self.iconst(Type::Ptr, 0);
        let ran = self.ev(InstKind::Icmp(IntCC::Ne, taken, null), Type::I1);
        let next = self.rs[i].next;
        let spawn = self.new_block(false);
        self.brif(ran, spawn, next);
        self.cur = spawn;
        self.detach_reverse_task(i, taken);
        Ok(())
    }

    /// `for j in 0..len: detach reverse task on list[j]`; the reverse tasks
    /// reattach to the loop's latch (`next`), and the list is freed after.
    pub(super) fn spawn_reverse_tasks(&mut self, i: usize) -> Result<(), AdError> {
        let list = self.rs[i]
            .taken_fwd
            .expect("the sync's forward took the list");
        let len = self.rs[i]
            .taken_len_fwd
            .expect("the sync's forward took the length");
        let list = self.need(list)?;
        let len = self.need(len)?;
        self.emit_for(len, |g, j| {
            let eight = g.iconst(Type::I64, 8);
            let off = g.binop(BinaryOp::Imul, j, eight);
            let at = g.ev(InstKind::PtrAdd(list, off), Type::Ptr);
            let tape = g.ev(InstKind::Load(at), Type::Ptr);
            g.detach_reverse_task(i, tape);
        });
        self.effect(Intrinsic::Free, vec![list]);
        Ok(())
    }

    /// Detaches spawn site `i`'s reverse task on `tape` (whose first
    /// instruction makes `tape` the task's tape before it starts with the
    /// reverse of the task's end); the builder continues at the reverse
    /// task's continuation, where it reattaches.
    pub(super) fn detach_reverse_task(&mut self, i: usize, tape: Value) {
        let (rsr, rtask, next) = (self.rs[i].rsr, self.rs[i].rtask, self.rs[i].next);
        let zero = self.iconst(Type::I64, 0);
        self.emit(
            InstKind::Detach {
                region: rsr,
                task: rtask,
                cont: next,
            },
            None,
        );
        let ti = self.rs[i].tape_inst;
        *self.g.inst_mut(ti) = InstKind::PtrAdd(tape, zero);
        self.g.blocks[rtask].insts.push(ti);
        let start = self.rpop[&self.plan.spawns[i].reattach];
        self.g
            .append_inst(rtask, InstKind::Jump(BlockCall::to(start)), None);
        self.cur = next;
    }

    /// The merge after the reverse of spawn site `i`'s detach: every
    /// accumulator into the adjoint it stands for.
    pub(super) fn finish_rev_spawn(&mut self, i: usize) -> Result<(), AdError> {
        let (merge, resume) = (self.rs[i].merge, self.rs[i].resume);
        self.cur = merge;
        self.cur_rev = Some(self.plan.spawns[i].detach);
        self.ctx_loop = self.plan.loop_of.get(&self.plan.spawns[i].detach).copied();
        let accs = std::mem::take(&mut self.rs[i].accs);
        for &(v, a) in &accs {
            let ty = self.plan.p.value_type(v);
            let x = self.ev(InstKind::Load(a), ty);
            let z = self.fconst_(ty, 0.0);
            self.emit(InstKind::Store { value: z, ptr: a }, None);
            self.add_adj(v, x)?;
        }
        self.rs[i].accs = accs;
        self.emit(InstKind::Jump(BlockCall::to(resume)), None);
        self.cur_rev = None;
        self.ctx_loop = None;
        Ok(())
    }
}
