//! The reverse of kernel launches.
//!
//! A launch `k<<<grid, block>>>(args)` with differentiable arguments is
//! differentiated through the kernel's body taken as a `__device__`
//! function `k.body`, whose split pair (generated like a callee of
//! parallel code: every update of shadow memory it does not own is
//! atomic, except, in launches on 1-D grids, a thread's own element of a
//! `restrict` parameter; see [`Gen::thread_disjoint`]) runs once per
//! thread inside two generated kernels:
//!
//! ```text
//! k.fwd(args', tapes):       tapes[tid] is this thread's tape header
//!     k.body.aug(&tapes[tid], args')
//! k.bwd(args', tapes, dacc): the same grid, the same thread numbering
//!     k.body.rev(&tapes[tid], args', buf); dacc[worker][j] += buf[j]
//! ```
//!
//! `args'` are the launch's arguments with the shadow after each
//! duplicated pointer; `tid` numbers the grid's threads linearly (x
//! fastest, then y, z; threads within a block, then blocks). **Forward:**
//! the host allocates `tapes` and launches `k.fwd` instead of `k`, which
//! does the primal's work and records. Where the body records at most
//! `S` slots per call (no loops, no calls that record), `tapes` has `S`
//! slots per thread, and each thread's tape is a header of its own (an
//! `alloca` of the kernel) over its slice: no thread allocates, no tape
//! grows. With one return, each block's frame has a fixed place in the
//! slice (`Gen::fixed_frames`), which both sweeps find without a length;
//! with several, the slice has `1 + S` slots and `k.fwd` stores the
//! length recorded in the first, for `k.bwd`. Otherwise `tapes` is zeroed
//! headers (empty tapes that grow, freed by `k.bwd`). **Reverse:** the
//! host launches `k.bwd` on the same grid, frees `tapes`, and adds the sum
//! over workers of `dacc[w][j]` (each worker's sum over the threads it ran
//! of the adjoint of active scalar argument `j`) into that argument's
//! adjoint.
//! Every thread of a block calls both functions, so `__syncthreads` in
//! the body (and its reverse) is reached by all of them, as it must be.
//!
//! The two run in different launches, on the same threads: the reverse
//! recomputes where the thread is (`threadIdx` and friends) and the
//! addresses of `__shared__` arrays, which differ between launches,
//! instead of recording them (`is_position` in `cache/`).

use super::*;

/// The suffix of a kernel body's name: `k.body` (or `k.body.N`).
const BODY_SUFFIX: &str = ".body";

/// The kernel whose body function `name` names, if it names one (ParC
/// names have no dots, so only generated names have this shape).
pub(crate) fn kernel_of_body(name: &str) -> Option<&str> {
    let (kernel, rest) = name.split_once('.')?;
    let rest = rest.strip_prefix(&BODY_SUFFIX[1..])?;
    (rest.is_empty() || rest.starts_with('.')).then_some(kernel)
}

/// A launch's generated kernels (see the module doc).
#[derive(Clone, Debug)]
pub struct LaunchPlan {
    pub pair: Pair,
    pub fwd: FuncId,
    pub bwd: FuncId,
    /// The most slots a thread records, where that is a constant: then
    /// the threads' tapes are slices of one buffer that never grow.
    pub slots: Option<u64>,
    /// With `slots`, each frame has a fixed place in a thread's slice
    /// (`Records::fixed`): the slice is `slots` slots, without the length
    /// the forward would otherwise store first for the reverse.
    pub fixed: bool,
    /// `k.bwd` runs this many times, each time for the threads whose
    /// number is the phase modulo it (see `policy::threads::thread_band`).
    pub phases: u64,
}

impl Ctx {
    /// The plan for launches of `kernel` under `acts`, made if new.
    pub(super) fn launch_plan(
        &mut self,
        module: &mut Module,
        kernel: FuncId,
        acts: Vec<Activity>,
        one_d: bool,
    ) -> Result<LaunchPlan, AdError> {
        if let Some(p) = self.launch_plans.get(&(kernel, acts.clone(), one_d)) {
            return Ok(p.clone());
        }
        let mut body = module.funcs[kernel].clone();
        let name = body.name.clone();
        body.name = module.fresh_func_name(&format!("{name}{BODY_SUFFIX}"));
        body.kind = FuncKind::Device;
        body.linkage = Linkage::Local;
        let body = module.funcs.push(body);
        if one_d {
            self.one_d_bodies.insert(body);
        }
        let call = crate::plan::CallPlan {
            callee: body,
            acts: acts.clone(),
            ret_active: false,
            ret_shadow: false,
            atomic: true,
            private: 0,
        };
        let pair = self.pair(module, &call);
        // Generated now rather than from the queue: what a thread records
        // sizes the launch's tapes.
        self.queue.retain(|(_, p)| p.aug != pair.aug);
        let records = split(module, self, body, &pair)?;
        let slots = records.map(|r| r.slots);
        let fixed = records.is_some_and(|r| r.fixed);
        let phases = self.thread_phases.get(&body).copied().unwrap_or(1);
        // The launch's arguments with their shadows: `aug`'s parameters
        // after the tape.
        let params = module.funcs[pair.aug].sig.params[1..].to_vec();
        let n_args = acts.len();
        let mut fwd_params = params.clone();
        fwd_params.push(Type::Ptr);
        let fwd = add_kernel(module, &format!("{name}.fwd"), fwd_params, |b, vals| {
            let (args, rest) = vals.split_at(params.len());
            let tid = thread_number(b, one_d);
            let tape = match slots {
                Some(slots) => slice_tape(b, rest[0], tid, slots, fixed, false),
                None => header_of(b, rest[0], tid),
            };
            let mut cargs = vec![tape];
            cargs.extend_from_slice(args);
            b.call(pair.aug, None, cargs);
            if let Some(slots) = slots.filter(|&s| s > 0 && !fixed) {
                // What it recorded, for `k.bwd`: the slice's first slot.
                let len = field(b, tape, crate::tape::LEN);
                let len = b.load(Type::I64, len);
                let first = slice_of(b, rest[0], tid, slots, false);
                b.store(len, first);
            }
        });
        let kernel_params = module.funcs[kernel].sig.params.clone();
        let concurrent = self.block_threads == crate::BlockThreads::Concurrent;
        let tape_free = self.tape.free;
        let mut bwd_params = params.clone();
        bwd_params.extend([Type::Ptr, Type::Ptr]);
        if phases > 1 {
            bwd_params.push(Type::I64);
        }
        let bwd = add_kernel(module, &format!("{name}.bwd"), bwd_params, |b, vals| {
            let (args, rest) = vals.split_at(params.len());
            let (tapes, dacc) = (rest[0], rest[1]);
            let tid = thread_number(b, one_d);
            if phases > 1 {
                // Only the threads of this phase: `tid mod phases`.
                let w = b.iconst(Type::I64, phases as i64);
                let mine = b.binary(BinaryOp::Urem, tid, w);
                let other = b.icmp(IntCC::Ne, mine, rest[2]);
                let skip = b.create_block();
                let go = b.create_block();
                b.brif(other, BlockCall::to(skip), BlockCall::to(go));
                b.switch_to(skip);
                b.ret(None);
                b.switch_to(go);
            }
            let tape = match slots {
                Some(slots) => slice_tape(b, tapes, tid, slots, fixed, true),
                None => header_of(b, tapes, tid),
            };
            let buf = b.alloca(8 * n_args.max(1) as u32, 8);
            let mut cargs = vec![tape];
            cargs.extend_from_slice(args);
            cargs.push(buf);
            b.call(pair.rev, None, cargs);
            // Into this worker's partial sums: a worker runs one thread at
            // a time, and nothing yields between the load and the store.
            // Where threads run concurrently (a GPU), every thread adds
            // into one row atomically: the target reduces the adds of a
            // warp first (`AccumulationClass::Reduction`'s GPU mapping).
            let mine = if concurrent {
                dacc
            } else {
                let w = b
                    .intrinsic(Intrinsic::WorkerId, Some(Type::I32), vec![])
                    .expect("worker_id has a result");
                let w = b.cast(CastOp::Sext, w, Type::I64);
                let row = b.iconst(Type::I64, sums_row(n_args));
                let row = b.binary(BinaryOp::Imul, w, row);
                b.ptradd(dacc, row)
            };
            for (j, (&act, &ty)) in acts.iter().zip(&kernel_params).enumerate() {
                if act != Activity::Active {
                    continue;
                }
                let off = b.iconst(Type::I64, 8 * j as i64);
                let from = b.ptradd(buf, off);
                let d = b.load(ty, from);
                let to = b.ptradd(mine, off);
                if concurrent {
                    b.intrinsic(Intrinsic::AtomicAdd, Some(ty), vec![to, d]);
                } else {
                    let old = b.load(ty, to);
                    let new = b.binary(BinaryOp::Fadd, old, d);
                    b.store(new, to);
                }
            }
            if slots.is_none() {
                b.call(tape_free, None, vec![tape]);
            }
        });
        let plan = LaunchPlan {
            pair,
            fwd,
            bwd,
            slots,
            fixed,
            phases,
        };
        self.launch_plans
            .insert((kernel, acts, one_d), plan.clone());
        Ok(plan)
    }
}

/// Adds a local kernel named after `base` with `params`, whose body `body`
/// emits from the entry (given the parameters); it returns after that.
fn add_kernel(
    module: &mut Module,
    base: &str,
    params: Vec<Type>,
    body: impl FnOnce(&mut FuncBuilder, &[Value]),
) -> FuncId {
    let name = module.fresh_func_name(base);
    let mut f = new_function(name, Signature { params, ret: None });
    let entry = f.layout[0];
    let vals = f.blocks[entry].params.clone();
    let mut b = FuncBuilder::new(&mut f);
    b.switch_to(entry);
    body(&mut b, &vals);
    b.ret(None);
    f.kind = FuncKind::Kernel;
    f.linkage = Linkage::Local;
    module.funcs.push(f)
}

/// The bytes of a worker's row of partial sums for `n_args` arguments: a
/// whole number of cache lines, so that workers adding into their rows do
/// not contend for one line.
fn sums_row(n_args: usize) -> i64 {
    (8 * n_args.max(1) as u64).next_multiple_of(64) as i64
}

/// `tape + off`: a field of a tape header.
fn field(b: &mut FuncBuilder, tape: Value, off: i64) -> Value {
    let o = b.iconst(Type::I64, off);
    b.ptradd(tape, o)
}

/// Thread `tid`'s header among zeroed ones (24 bytes per thread).
fn header_of(b: &mut FuncBuilder, tapes: Value, tid: Value) -> Value {
    let size = b.iconst(Type::I64, HEADER_BYTES as i64);
    let off = b.binary(BinaryOp::Imul, tid, size);
    b.ptradd(tapes, off)
}

/// Thread `tid`'s slice of a buffer of `1 + slots` slots per thread (the
/// length it recorded, then its records), or of `slots` where frames have
/// `fixed` places.
fn slice_of(b: &mut FuncBuilder, tapes: Value, tid: Value, slots: u64, fixed: bool) -> Value {
    let size = b.iconst(Type::I64, 8 * (slots as i64 + i64::from(!fixed)));
    let off = b.binary(BinaryOp::Imul, tid, size);
    b.ptradd(tapes, off)
}

/// A tape header of the thread's own (an `alloca`: each thread of a
/// kernel has its own) over its slice of `tapes`, empty in the forward,
/// holding what the forward recorded in the reverse. With nothing to
/// record, `tapes` is not touched.
fn slice_tape(
    b: &mut FuncBuilder,
    tapes: Value,
    tid: Value,
    slots: u64,
    fixed: bool,
    reverse: bool,
) -> Value {
    let tape = b.alloca(HEADER_BYTES, 8);
    let (data, len) = if slots == 0 {
        (b.null(), b.iconst(Type::I64, 0))
    } else if fixed {
        // Frames at fixed places: no length to keep.
        let data = slice_of(b, tapes, tid, slots, true);
        (data, b.iconst(Type::I64, 0))
    } else {
        let first = slice_of(b, tapes, tid, slots, false);
        let eight = b.iconst(Type::I64, 8);
        let data = b.ptradd(first, eight);
        let len = if reverse {
            b.load(Type::I64, first)
        } else {
            b.iconst(Type::I64, 0)
        };
        (data, len)
    };
    let cap = b.iconst(Type::I64, slots as i64);
    for (off, v) in [
        (crate::tape::DATA, data),
        (crate::tape::LEN, len),
        (crate::tape::CAP, cap),
    ] {
        let at = field(b, tape, off);
        b.store(v, at);
    }
    tape
}

/// The thread's number in the grid: threads within a block (x fastest,
/// then y, z), then blocks (likewise). In a launch on a 1-D grid of 1-D
/// blocks (`one_d`), `blockIdx.x · blockDim.x + threadIdx.x`: the same
/// number, without the other dimensions' terms (which would be computed
/// and kept for every thread).
fn thread_number(b: &mut FuncBuilder, one_d: bool) -> Value {
    use parc_ir::Dim;
    let mut id = |op: Intrinsic| {
        let v = b
            .intrinsic(op, Some(Type::I32), vec![])
            .expect("thread indices have a result");
        b.cast(CastOp::Sext, v, Type::I64)
    };
    if one_d {
        let tx = id(Intrinsic::ThreadIdx(Dim::X));
        let bdx = id(Intrinsic::BlockDim(Dim::X));
        let bx = id(Intrinsic::BlockIdx(Dim::X));
        let first = b.binary(BinaryOp::Imul, bx, bdx);
        return b.binary(BinaryOp::Iadd, first, tx);
    }
    let (tx, ty, tz) = (
        id(Intrinsic::ThreadIdx(Dim::X)),
        id(Intrinsic::ThreadIdx(Dim::Y)),
        id(Intrinsic::ThreadIdx(Dim::Z)),
    );
    let (bdx, bdy, bdz) = (
        id(Intrinsic::BlockDim(Dim::X)),
        id(Intrinsic::BlockDim(Dim::Y)),
        id(Intrinsic::BlockDim(Dim::Z)),
    );
    let (bx, by, bz) = (
        id(Intrinsic::BlockIdx(Dim::X)),
        id(Intrinsic::BlockIdx(Dim::Y)),
        id(Intrinsic::BlockIdx(Dim::Z)),
    );
    let (gdx, gdy) = (
        id(Intrinsic::GridDim(Dim::X)),
        id(Intrinsic::GridDim(Dim::Y)),
    );
    let mul = |b: &mut FuncBuilder, x, y| b.binary(BinaryOp::Imul, x, y);
    let add = |b: &mut FuncBuilder, x, y| b.binary(BinaryOp::Iadd, x, y);
    let t = mul(b, tz, bdy);
    let t = add(b, t, ty);
    let t = mul(b, t, bdx);
    let thread = add(b, t, tx);
    let k = mul(b, bz, gdy);
    let k = add(b, k, by);
    let k = mul(b, k, gdx);
    let block = add(b, k, bx);
    let per_block = mul(b, bdx, bdy);
    let per_block = mul(b, per_block, bdz);
    let first = mul(b, block, per_block);
    add(b, first, thread)
}

impl Gen<'_> {
    /// `*sp += a` for an update of a shadow in a band of threads, where a
    /// block's threads run one at a time: a plain add where every thread
    /// that may update those bytes, `gid + first ..= gid + last`, is in
    /// this thread's block, an atomic one where a thread of a neighbouring
    /// block may too (near the block's first and last threads). All
    /// threads that may update the same bytes take the same choice: it is
    /// made by the bytes, not by the thread.
    pub(super) fn banded_update(&mut self, first: i64, last: i64, sp: Value, a: Value) {
        // `first ≤ 0 ≤ last` (the thread itself may touch its bytes): the
        // updaters are threads `t + first ..= t + last` of the grid, all in
        // this block when `-first ≤ t < blockDim.x − last`.
        let t = self.ev(
            InstKind::Intrinsic {
                op: Intrinsic::ThreadIdx(parc_ir::Dim::X),
                args: vec![],
            },
            Type::I32,
        );
        let dim = self.ev(
            InstKind::Intrinsic {
                op: Intrinsic::BlockDim(parc_ir::Dim::X),
                args: vec![],
            },
            Type::I32,
        );
        // `0 ≤ t < blockDim.x` always: a side with nothing past it needs
        // no test.
        let past_low = (first < 0).then(|| {
            let low = self.iconst(Type::I32, -first);
            self.ev(InstKind::Icmp(IntCC::Sge, t, low), Type::I1)
        });
        let below_high = (last > 0).then(|| {
            let last = self.iconst(Type::I32, last);
            let high = self.binop(BinaryOp::Isub, dim, last);
            self.ev(InstKind::Icmp(IntCC::Slt, t, high), Type::I1)
        });
        let inside = match (past_low, below_high) {
            (Some(l), Some(h)) => self.binop(BinaryOp::And, l, h),
            (Some(c), None) | (None, Some(c)) => c,
            (None, None) => {
                self.add_to(sp, a);
                return;
            }
        };
        let plain = self.new_block(false);
        let edge = self.new_block(false);
        let join = self.new_block(false);
        self.brif(inside, plain, edge);
        self.cur = plain;
        self.add_to(sp, a);
        self.emit(InstKind::Jump(BlockCall::to(join)), None);
        self.cur = edge;
        self.atomic_add_to(sp, a);
        self.emit(InstKind::Jump(BlockCall::to(join)), None);
        self.cur = join;
    }

    /// The forward of a planned launch: every thread's tape, and `k.fwd`
    /// on them instead of `k`.
    pub(super) fn forward_launch(&mut self, inst: Inst, plan: &LaunchPlan) {
        let InstKind::Launch {
            grid, block, args, ..
        } = self.plan.p.inst(inst).clone()
        else {
            unreachable!("only launches are planned as launches")
        };
        let grid = grid.map(|v| self.fv(v));
        let block = block.map(|v| self.fv(v));
        let bytes = self.launch_tape_bytes(&grid, &block, plan);
        let tapes = self.kernel_memory(bytes.0, bytes.1);
        // Heap of the tapes (`PARC_AD_STATS`); the records in it are
        // noted by the threads' pushes (on the CPU).
        let zero = self.iconst(Type::I64, 0);
        self.note_tape(zero, 0, Some(bytes.0));
        let mut largs = Vec::new();
        for (&a, &act) in args.iter().zip(&plan.pair.acts) {
            largs.push(self.fv(a));
            if act == Activity::Dup {
                largs.push(self.sh(a));
            }
        }
        largs.push(tapes);
        let placed = self.emit(
            InstKind::Launch {
                kernel: plan.fwd,
                grid,
                block,
                args: largs,
            },
            None,
        );
        debug_assert!(placed.is_none());
        self.launch_tapes.insert(inst, tapes);
    }

    /// The bytes of a launch's tapes on a grid of `grid` × `block`
    /// threads, and whether they are zeroed.
    fn launch_tape_bytes(
        &mut self,
        grid: &[Value; 3],
        block: &[Value; 3],
        plan: &LaunchPlan,
    ) -> (Value, bool) {
        let mut threads = self.iconst(Type::I64, 1);
        for &d in grid.iter().chain(block) {
            let d = self.widen_i64(d, true);
            threads = self.binop(BinaryOp::Imul, threads, d);
        }
        match plan.slots {
            // Per thread, the length it records (unless its frames have
            // fixed places) and its records.
            Some(slots) => {
                let per_thread =
                    self.iconst(Type::I64, 8 * (slots as i64 + i64::from(!plan.fixed)));
                (self.binop(BinaryOp::Imul, threads, per_thread), false)
            }
            // Zeroed headers: empty tapes that grow as they need.
            None => {
                let size = self.iconst(Type::I64, HEADER_BYTES as i64);
                (self.binop(BinaryOp::Imul, threads, size), true)
            }
        }
    }

    /// The reverse of a planned launch: `k.bwd` on the same grid, then
    /// the active scalar arguments' adjoints.
    pub(super) fn reverse_launch(&mut self, inst: Inst, plan: &LaunchPlan) -> Result<(), AdError> {
        let InstKind::Launch {
            grid, block, args, ..
        } = self.plan.p.inst(inst).clone()
        else {
            unreachable!("only launches are planned as launches")
        };
        let tapes = self.launch_tapes[&inst];
        let tapes = self.need(tapes)?;
        let mut grid = grid;
        for v in &mut grid {
            *v = self.rv(*v)?;
        }
        let mut block = block;
        for v in &mut block {
            *v = self.rv(*v)?;
        }
        let mut largs = Vec::new();
        for (&a, &act) in args.iter().zip(&plan.pair.acts) {
            let v = self.rv(a)?;
            largs.push(v);
            if act == Activity::Dup {
                let s = match self.shadow.get(&a).copied() {
                    Some(s) => self.need(s)?,
                    None => self.iconst(Type::Ptr, 0),
                };
                largs.push(s);
            }
        }
        // Each worker's sums of the active scalars' adjoints (a row of
        // `args.len()` slots per worker, see `sums_row`), zeroed; where
        // threads run concurrently, one row that they add into
        // atomically, in the kernels' memory.
        let row = self.iconst(Type::I64, sums_row(args.len()));
        let workers = if self.concurrent() {
            self.iconst(Type::I64, 1)
        } else {
            let w = self.ev(
                InstKind::Intrinsic {
                    op: Intrinsic::NumWorkers,
                    args: vec![],
                },
                Type::I32,
            );
            self.widen_i64(w, true)
        };
        let sums_bytes = self.binop(BinaryOp::Imul, workers, row);
        let dacc = self.kernel_memory(sums_bytes, true);
        let active: Vec<(usize, Value)> = args
            .iter()
            .zip(&plan.pair.acts)
            .enumerate()
            .filter(|(_, (_, act))| **act == Activity::Active)
            .map(|(j, (&a, _))| (j, a))
            .collect();
        largs.extend([tapes, dacc]);
        let launch = |g: &mut Gen, args: Vec<Value>| {
            g.emit(
                InstKind::Launch {
                    kernel: plan.bwd,
                    grid,
                    block,
                    args,
                },
                None,
            );
        };
        if plan.phases > 1 {
            let phases = self.iconst(Type::I64, plan.phases as i64);
            self.emit_for(phases, |g, phase| {
                let mut largs = largs.clone();
                largs.push(phase);
                launch(g, largs);
            });
        } else {
            launch(self, largs);
        }
        let (bytes, _) = self.launch_tape_bytes(&grid, &block, plan);
        let zero = self.iconst(Type::I64, 0);
        let released = self.binop(BinaryOp::Isub, zero, bytes);
        self.note_tape(zero, 0, Some(released));
        self.free_kernel_memory(tapes);
        // The sums where the host reads them.
        let (dacc, dacc_kernels) = if self.concurrent() {
            let host = self.ev(
                InstKind::Intrinsic {
                    op: Intrinsic::Malloc,
                    args: vec![sums_bytes],
                },
                Type::Ptr,
            );
            self.ev(
                InstKind::Intrinsic {
                    op: Intrinsic::CudaMemcpy(parc_ir::CopyKind::DeviceToHost),
                    args: vec![host, dacc, sums_bytes],
                },
                Type::I32,
            );
            (host, Some(dacc))
        } else {
            (dacc, None)
        };
        if !active.is_empty() {
            // The workers' sums, added up in slots of the reverse task
            // this runs in.
            let home = self.rev_home(self.plan.task_of(self.cur_rev));
            let mut sums = Vec::new();
            for &(_, a) in &active {
                let ty = self.plan.p.value_type(a);
                let s = self.slot_in(home, ty, None);
                let zero = self.fconst_(ty, 0.0);
                self.emit(
                    InstKind::Store {
                        value: zero,
                        ptr: s,
                    },
                    None,
                );
                sums.push(s);
            }
            self.emit_for(workers, |g, w| {
                let at = g.binop(BinaryOp::Imul, w, row);
                let theirs = g.ev(InstKind::PtrAdd(dacc, at), Type::Ptr);
                for (&(j, a), &s) in active.iter().zip(&sums) {
                    let ty = g.plan.p.value_type(a);
                    let from = g.offset(theirs, 8 * j as i64);
                    let x = g.ev(InstKind::Load(from), ty);
                    let sum = g.ev(InstKind::Load(s), ty);
                    let sum = g.binop(BinaryOp::Fadd, sum, x);
                    g.emit(InstKind::Store { value: sum, ptr: s }, None);
                }
            });
            for (&(_, a), &s) in active.iter().zip(&sums) {
                let ty = self.plan.p.value_type(a);
                let d = self.ev(InstKind::Load(s), ty);
                self.add_adj(a, d)?;
            }
        }
        self.effect(Intrinsic::Free, vec![dacc]);
        if let Some(d) = dacc_kernels {
            self.free_kernel_memory(d);
        }
        Ok(())
    }

    /// True where a block's threads run concurrently (a GPU).
    fn concurrent(&self) -> bool {
        self.plan.block_threads == crate::BlockThreads::Concurrent
    }

    /// `bytes` of memory (`zeroed` or not) that the generated kernels
    /// read and write: host memory where kernels run on the CPU, device
    /// memory (`cudaMalloc`, which zeroes it) where they may run on a GPU.
    fn kernel_memory(&mut self, bytes: Value, zeroed: bool) -> Value {
        if !self.concurrent() {
            let (op, args) = if zeroed {
                let one = self.iconst(Type::I64, 1);
                (Intrinsic::Calloc, vec![bytes, one])
            } else {
                (Intrinsic::Malloc, vec![bytes])
            };
            return self.ev(InstKind::Intrinsic { op, args }, Type::Ptr);
        }
        let out = self.ev(InstKind::Alloca { size: 8, align: 8 }, Type::Ptr);
        self.ev(
            InstKind::Intrinsic {
                op: Intrinsic::CudaMalloc,
                args: vec![out, bytes],
            },
            Type::I32,
        );
        self.ev(InstKind::Load(out), Type::Ptr)
    }

    /// Frees what [`Gen::kernel_memory`] allocated.
    fn free_kernel_memory(&mut self, p: Value) {
        if self.concurrent() {
            self.ev(
                InstKind::Intrinsic {
                    op: Intrinsic::CudaFree,
                    args: vec![p],
                },
                Type::I32,
            );
        } else {
            self.effect(Intrinsic::Free, vec![p]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::kernel_of_body;

    #[test]
    fn body_names_give_their_kernel() {
        assert_eq!(kernel_of_body("saxpy.body"), Some("saxpy"));
        assert_eq!(kernel_of_body("saxpy.body.2"), Some("saxpy"));
        assert_eq!(kernel_of_body("saxpy"), None);
        assert_eq!(kernel_of_body("saxpy.par"), None);
        assert_eq!(kernel_of_body("saxpy.bodyguard"), None);
    }
}
