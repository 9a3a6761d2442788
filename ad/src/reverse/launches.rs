//! The reverse of kernel launches.
//!
//! A launch `k<<<grid, block>>>(args)` with differentiable arguments is
//! differentiated through the kernel's body taken as a `__device__`
//! function `k.body`, whose split pair (generated like a callee of
//! parallel code: every update of shadow memory it does not own is
//! atomic) runs once per thread inside two generated kernels:
//!
//! ```text
//! k.fwd(args', tapes):       tapes[tid] is this thread's tape header
//!     k.body.aug(&tapes[tid], args')
//! k.bwd(args', tapes, dacc): the same grid, the same thread numbering
//!     k.body.rev(&tapes[tid], args', buf); dacc[j] +=atomic buf[j]; free tape
//! ```
//!
//! `args'` are the launch's arguments with the shadow after each
//! duplicated pointer; `tid` numbers the grid's threads linearly (x
//! fastest, then y, z; threads within a block, then blocks). **Forward:**
//! the host allocates `tapes` and launches `k.fwd` instead of `k`, which
//! does the primal's work and records. Where the body records at most
//! `S` slots per call (no loops, no calls that record), `tapes` is the
//! headers followed by `S` slots per thread, and `k.fwd` points each
//! thread's header at its slice: no thread allocates, no tape grows.
//! Otherwise `tapes` is zeroed headers (empty tapes that grow, freed by
//! `k.bwd`). **Reverse:** the host launches `k.bwd` on the same
//! grid, frees `tapes`, and adds `dacc[j]` (the sum over threads of the
//! adjoints of active scalar argument `j`) into that argument's adjoint.
//! Every thread of a block calls both functions, so `__syncthreads` in
//! the body (and its reverse) is reached by all of them, as it must be.

use super::*;

/// The suffix of a kernel body's name: `k.body` (or `k.body.N`).
const BODY_SUFFIX: &str = ".body";

/// The kernel whose body function `name` names, if it names one (ParC
/// names have no dots, so only generated names have this shape).
pub(super) fn kernel_of_body(name: &str) -> Option<&str> {
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
}

impl Ctx {
    /// The plan for launches of `kernel` under `acts`, made if new.
    pub(super) fn launch_plan(
        &mut self,
        module: &mut Module,
        kernel: FuncId,
        acts: Vec<Activity>,
    ) -> Result<LaunchPlan, AdError> {
        if let Some(p) = self.launch_plans.get(&(kernel, acts.clone())) {
            return Ok(p.clone());
        }
        let mut body = module.funcs[kernel].clone();
        let name = body.name.clone();
        body.name = module.fresh_func_name(&format!("{name}{BODY_SUFFIX}"));
        body.kind = FuncKind::Device;
        body.linkage = Linkage::Local;
        let body = module.funcs.push(body);
        let pair = self.pair(module, body, acts.clone(), false, true);
        // Generated now rather than from the queue: what a thread records
        // sizes the launch's tapes.
        self.queue.retain(|(_, p)| p.aug != pair.aug);
        let slots = split(module, self, body, &pair)?;
        // The launch's arguments with their shadows: `aug`'s parameters
        // after the tape.
        let params = module.funcs[pair.aug].sig.params[1..].to_vec();
        let n_args = acts.len();
        let mut fwd_params = params.clone();
        fwd_params.push(Type::Ptr);
        let fwd_name = module.fresh_func_name(&format!("{name}.fwd"));
        let mut fwd = new_function(
            fwd_name,
            Signature {
                params: fwd_params,
                ret: None,
            },
        );
        {
            let entry = fwd.layout[0];
            let vals = fwd.blocks[entry].params.clone();
            let mut b = FuncBuilder::new(&mut fwd);
            b.switch_to(entry);
            let (args, rest) = vals.split_at(params.len());
            let (tape, tid, threads) = thread_tape(&mut b, rest[0]);
            if let Some(slots) = slots {
                // This thread's slice of the buffer after the headers, as
                // an empty tape that has room for all it records.
                let header = b.iconst(Type::I64, HEADER_BYTES as i64);
                let headers = b.binary(BinaryOp::Imul, threads, header);
                let slice = b.iconst(Type::I64, 8 * slots as i64);
                let at = b.binary(BinaryOp::Imul, tid, slice);
                let at = b.binary(BinaryOp::Iadd, headers, at);
                let data = b.ptradd(rest[0], at);
                let zero = b.iconst(Type::I64, 0);
                let cap = b.iconst(Type::I64, slots as i64);
                for (off, v) in [
                    (crate::tape::DATA, data),
                    (crate::tape::LEN, zero),
                    (crate::tape::CAP, cap),
                ] {
                    let o = b.iconst(Type::I64, off);
                    let field = b.ptradd(tape, o);
                    b.store(v, field);
                }
            }
            let mut cargs = vec![tape];
            cargs.extend_from_slice(args);
            b.call(pair.aug, None, cargs);
            b.ret(None);
        }
        fwd.kind = FuncKind::Kernel;
        fwd.linkage = Linkage::Local;
        let fwd = module.funcs.push(fwd);
        let mut bwd_params = params.clone();
        bwd_params.extend([Type::Ptr, Type::Ptr]);
        let bwd_name = module.fresh_func_name(&format!("{name}.bwd"));
        let mut bwd = new_function(
            bwd_name,
            Signature {
                params: bwd_params,
                ret: None,
            },
        );
        let kernel_params = module.funcs[kernel].sig.params.clone();
        {
            let entry = bwd.layout[0];
            let vals = bwd.blocks[entry].params.clone();
            let mut b = FuncBuilder::new(&mut bwd);
            b.switch_to(entry);
            let (args, rest) = vals.split_at(params.len());
            let (tapes, dacc) = (rest[0], rest[1]);
            let (tape, _, _) = thread_tape(&mut b, tapes);
            let buf = b.alloca(8 * n_args.max(1) as u32, 8);
            let mut cargs = vec![tape];
            cargs.extend_from_slice(args);
            cargs.push(buf);
            b.call(pair.rev, None, cargs);
            for (j, (&act, &ty)) in acts.iter().zip(&kernel_params).enumerate() {
                if act != Activity::Active {
                    continue;
                }
                let off = b.iconst(Type::I64, 8 * j as i64);
                let from = b.ptradd(buf, off);
                let d = b.load(ty, from);
                let to = b.ptradd(dacc, off);
                b.intrinsic(Intrinsic::AtomicAdd, Some(ty), vec![to, d]);
            }
            if slots.is_none() {
                b.call(self.tape.free, None, vec![tape]);
            }
            b.ret(None);
        }
        bwd.kind = FuncKind::Kernel;
        bwd.linkage = Linkage::Local;
        let bwd = module.funcs.push(bwd);
        let plan = LaunchPlan {
            pair,
            fwd,
            bwd,
            slots,
        };
        self.launch_plans.insert((kernel, acts), plan.clone());
        Ok(plan)
    }
}

/// This thread's tape header in `tapes` (24 bytes per thread of the
/// grid, first), the thread's number and the grid's thread count.
fn thread_tape(b: &mut FuncBuilder, tapes: Value) -> (Value, Value, Value) {
    use parc_ir::Dim;
    let mut id = |op: Intrinsic| {
        let v = b
            .intrinsic(op, Some(Type::I32), vec![])
            .expect("thread indices have a result");
        b.cast(CastOp::Sext, v, Type::I64)
    };
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
    let (gdx, gdy, gdz) = (
        id(Intrinsic::GridDim(Dim::X)),
        id(Intrinsic::GridDim(Dim::Y)),
        id(Intrinsic::GridDim(Dim::Z)),
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
    let tid = add(b, first, thread);
    let blocks = mul(b, gdx, gdy);
    let blocks = mul(b, blocks, gdz);
    let threads = mul(b, blocks, per_block);
    let size = b.iconst(Type::I64, HEADER_BYTES as i64);
    let off = mul(b, tid, size);
    (b.ptradd(tapes, off), tid, threads)
}

impl Gen {
    /// The forward of a planned launch: every thread's tape, and `k.fwd`
    /// on them instead of `k`.
    pub(super) fn forward_launch(&mut self, inst: Inst, plan: &LaunchPlan) {
        let InstKind::Launch {
            grid, block, args, ..
        } = self.p.inst(inst).clone()
        else {
            unreachable!("only launches are planned as launches")
        };
        let grid = grid.map(|v| self.fv(v));
        let block = block.map(|v| self.fv(v));
        let mut threads = self.iconst(Type::I64, 1);
        for &d in grid.iter().chain(&block) {
            let d = self.widen_i64(d, true);
            threads = self.binop(BinaryOp::Imul, threads, d);
        }
        let tapes = match plan.slots {
            // Headers, then every thread's records (set up by `k.fwd`).
            Some(slots) => {
                let per_thread = HEADER_BYTES as i64 + 8 * slots as i64;
                let per_thread = self.iconst(Type::I64, per_thread);
                let bytes = self.binop(BinaryOp::Imul, threads, per_thread);
                self.ev(
                    InstKind::Intrinsic {
                        op: Intrinsic::Malloc,
                        args: vec![bytes],
                    },
                    Type::Ptr,
                )
            }
            // Zeroed headers: empty tapes that grow as they need.
            None => {
                let size = self.iconst(Type::I64, HEADER_BYTES as i64);
                self.ev(
                    InstKind::Intrinsic {
                        op: Intrinsic::Calloc,
                        args: vec![threads, size],
                    },
                    Type::Ptr,
                )
            }
        };
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

    /// The reverse of a planned launch: `k.bwd` on the same grid, then
    /// the active scalar arguments' adjoints.
    pub(super) fn reverse_launch(&mut self, inst: Inst, plan: &LaunchPlan) {
        let InstKind::Launch {
            grid, block, args, ..
        } = self.p.inst(inst).clone()
        else {
            unreachable!("only launches are planned as launches")
        };
        let tapes = self.launch_tapes[&inst];
        let tapes = self.need(tapes);
        let grid = grid.map(|v| self.rv(v));
        let block = block.map(|v| self.rv(v));
        let mut largs = Vec::new();
        for (&a, &act) in args.iter().zip(&plan.pair.acts) {
            let v = self.rv(a);
            largs.push(v);
            if act == Activity::Dup {
                let s = match self.shadow.get(&a).copied() {
                    Some(s) => self.need(s),
                    None => self.iconst(Type::Ptr, 0),
                };
                largs.push(s);
            }
        }
        // The threads' sums of the active scalars' adjoints, zeroed before
        // each launch; private to the reverse task this runs in.
        let home = self.rev_home(self.task_of(self.cur_rev));
        let dacc_inst = self.g.make_inst(
            InstKind::Alloca {
                size: 8 * args.len().max(1) as u32,
                align: 8,
            },
            Some(Type::Ptr),
        );
        self.g.blocks[home].insts.insert(0, dacc_inst);
        let dacc = self.g.result(dacc_inst).expect("alloca has a result");
        let active: Vec<(usize, Value)> = args
            .iter()
            .zip(&plan.pair.acts)
            .enumerate()
            .filter(|(_, (_, act))| **act == Activity::Active)
            .map(|(j, (&a, _))| (j, a))
            .collect();
        for &(j, a) in &active {
            let ty = self.p.value_type(a);
            let zero = self.fconst_(ty, 0.0);
            let at = self.offset(dacc, 8 * j as i64);
            self.emit(
                InstKind::Store {
                    value: zero,
                    ptr: at,
                },
                None,
            );
        }
        largs.extend([tapes, dacc]);
        self.emit(
            InstKind::Launch {
                kernel: plan.bwd,
                grid,
                block,
                args: largs,
            },
            None,
        );
        self.emit(
            InstKind::Intrinsic {
                op: Intrinsic::Free,
                args: vec![tapes],
            },
            None,
        );
        for (j, a) in active {
            let ty = self.p.value_type(a);
            let at = self.offset(dacc, 8 * j as i64);
            let d = self.ev(InstKind::Load(at), ty);
            self.add_adj(a, d);
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
