//! Kernel launches (the launch ABI) and the `__shared__` segment.
//!
//! Before translation, `crate::kernels` splits every kernel it can at its
//! barriers into a block function `@k.block` (its module doc says which
//! kernels and why not the others); this file translates the module it
//! returns. `launch @k, grid, block, args` becomes, for a split kernel,
//! `parc_rt_launch_blocks(@k.block, args, grid, block, shared_bytes,
//! frame_bytes)`, and otherwise (the coroutine path)
//! `parc_rt_launch(@k.entry, args, grid, block, shared_bytes)`:
//! - `args`: a stack array of `u64` slots, one per argument, integers
//!   sign-extended (`i1` zero-extended), floats as their IEEE bits
//!   (zero-extended for `f32`), pointers as addresses; a block function
//!   reads them back itself, once per block;
//! - `grid`, `block`: stack arrays of three `i32`;
//! - `@k.block`: `extern "C" fn(args, frame, thread)` running one whole
//!   block; `frame_bytes`: the bytes of frame it needs per thread (see
//!   the runtime's `gpu` module);
//! - `@k.entry` (coroutine path only): a generated `extern "C" fn(args:
//!   *const u64)` that reads the slots back at `k`'s parameter types and
//!   calls `k`, once per thread;
//! - `shared_bytes`: the bytes of the module's `__shared__` segment the
//!   kernel needs (`Cx::shared_extent`: up to the end of the last array it
//!   or its callees use; 0 for most kernels). Every
//!   `AddrSpace::Shared` global gets a fixed offset in it (declaration
//!   order, each aligned to its alignment; one layout per module, shared by
//!   all kernels), and `global_addr` of one is
//!   `parc_rt_shared_base() + offset` (the base is fetched once per
//!   function, at entry).
//!
//! GPU ids (`thread_idx.x` ...) call `parc_rt_thread_idx(0)` and friends
//! (a block function has no `thread_idx` left: its loops over the threads
//! count them; it asks for `block_idx` and the dimensions once per block);
//! `barrier` calls `parc_rt_barrier()` (only kernels on the coroutine path
//! and the functions they call still have barriers). `atomic_add` on integers is a CLIF
//! `atomic_rmw add` (sequentially consistent); on floats it calls
//! `parc_rt_atomic_add_f32`/`_f64`.

use super::abi::to_slot;
use super::function::FnTranslator;
use super::{Cx, FAULT_LAUNCH, module_err};
use crate::BackendError;
use crate::intrinsics::{self as ix};
use cranelift_codegen::ir::{InstBuilder, StackSlotData, StackSlotKind, condcodes, types};
use cranelift_module::{DataDescription, DataId, Linkage as ClLinkage, Module as ClModule};
use parc_ir::{AddrSpace, FuncId, InstKind, Type, Value};
use std::collections::HashSet;

/// Most threads in one block (CUDA's limit, and the runtime's).
pub(super) const MAX_THREADS_PER_BLOCK: i64 = 1024;

impl Cx<'_> {
    /// The bytes of the `__shared__` segment a launch of `kernel` needs:
    /// up to the end of the last `__shared__` global that it or any
    /// function it may call (or take the address of) refers to, a
    /// multiple of 16. The runtime zeroes that much per block, so a
    /// kernel that uses none (most) pays nothing for other kernels'
    /// arrays.
    pub(super) fn shared_extent(&self, kernel: FuncId) -> u64 {
        let ir = self.ir;
        let mut seen: HashSet<FuncId> = HashSet::from([kernel]);
        let mut work = vec![kernel];
        let mut extent = 0;
        while let Some(f) = work.pop() {
            for (_, i) in ir.funcs[f].placed_insts() {
                let reached = match *ir.funcs[f].inst(i) {
                    InstKind::GlobalAddr(g) if ir.globals[g].space == AddrSpace::Shared => {
                        let end = self.shared_offset[g.as_u32() as usize] + ir.globals[g].size;
                        extent = extent.max(end);
                        None
                    }
                    InstKind::Call { func, .. } | InstKind::FuncAddr(func) => Some(func),
                    _ => None,
                };
                if let Some(callee) = reached
                    && seen.insert(callee)
                {
                    work.push(callee);
                }
            }
        }
        extent.next_multiple_of(16).min(self.shared_bytes)
    }

    /// `"NAME:KINDS"` for `parc_rt_gpu_launch`: the kernel's name and a
    /// letter per parameter (`p` for pointers, `v` for other values).
    pub(super) fn launch_desc(
        &mut self,
        m: &mut impl ClModule,
        kernel: FuncId,
    ) -> Result<DataId, BackendError> {
        let k = &self.ir.funcs[kernel];
        let kinds: String = k
            .sig
            .params
            .iter()
            .map(|&t| if t == Type::Ptr { 'p' } else { 'v' })
            .collect();
        let text = format!("{}:{kinds}", k.name);
        let sym = self.fresh(&format!("parc.launch.{}", k.name));
        let id = m
            .declare_data(&sym, ClLinkage::Local, false, false)
            .map_err(|e| module_err("declaring a launch descriptor", e))?;
        let mut bytes = text.into_bytes();
        bytes.push(0);
        let mut desc = DataDescription::new();
        desc.define(bytes.into_boxed_slice());
        m.define_data(id, &desc)
            .map_err(|e| module_err("defining a launch descriptor", e))?;
        Ok(id)
    }
}

impl<'a, 'b, 'c, M: ClModule> FnTranslator<'a, 'b, 'c, M> {
    /// A kernel launch (see the module doc's launch ABI).
    pub(super) fn launch(
        &mut self,
        kernel: FuncId,
        grid: &[Value; 3],
        block: &[Value; 3],
        args: &[Value],
    ) -> Result<(), BackendError> {
        let block_launch = self.cx.block_launches.get(&kernel).copied();
        let entry = match block_launch {
            Some(l) => self.cx.funcs[l.block_fn.as_u32() as usize]
                .ok_or_else(|| self.err("a block function that was not declared"))?,
            None => *self
                .cx
                .kernel_entries
                .get(&kernel)
                .ok_or_else(|| self.err("launch of a function that is not a defined kernel"))?,
        };
        let k = &self.cx.ir.funcs[kernel];
        if k.sig.params.len() != args.len() {
            return Err(self.err(format!(
                "launch of `{}` with {} arguments for {} parameters",
                k.name,
                args.len(),
                k.sig.params.len()
            )));
        }
        let dims = self.vals(&[grid.as_slice(), block.as_slice()].concat())?;

        // Every dimension at least 1, at most 1024 threads per block.
        let one = self.b.ins().iconst(types::I32, 1);
        let mut bad = None;
        for &d in &dims {
            let lt = self.b.ins().icmp(condcodes::IntCC::SignedLessThan, d, one);
            bad = Some(match bad {
                None => lt,
                Some(acc) => self.b.ins().bor(acc, lt),
            });
        }
        let mut threads = self.b.ins().sextend(types::I64, dims[3]);
        for &d in &dims[4..6] {
            let w = self.b.ins().sextend(types::I64, d);
            threads = self.b.ins().imul(threads, w);
        }
        let max = self.b.ins().iconst(types::I64, MAX_THREADS_PER_BLOCK);
        let too_many = self
            .b
            .ins()
            .icmp(condcodes::IntCC::SignedGreaterThan, threads, max);
        let bad = self.b.ins().bor(bad.expect("six dimensions"), too_many);
        let ok = self.b.ins().bxor_imm_u(bad, 1);
        self.fault_unless(ok, FAULT_LAUNCH)?;

        let cfg =
            self.b
                .create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 24, 2));
        for (i, &d) in dims.iter().enumerate() {
            self.b.ins().stack_store(types::I64, d, cfg, (4 * i) as i32);
        }
        let arg_ptr = if args.is_empty() {
            self.b.ins().iconst(types::I64, 0)
        } else {
            let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                (8 * args.len()) as u32,
                3,
            ));
            for (i, &v) in args.iter().enumerate() {
                let ty = self.ty(v);
                let x = self.val(v)?;
                let bits = to_slot(&mut self.b, x, ty);
                self.b
                    .ins()
                    .stack_store(types::I64, bits, slot, (8 * i) as i32);
            }
            self.b.ins().stack_addr(types::I64, slot, 0)
        };
        let grid_ptr = self.b.ins().stack_addr(types::I64, cfg, 0);
        let block_ptr = self.b.ins().stack_addr(types::I64, cfg, 12);
        let eref = self.func_ref(entry);
        let entry_addr = self.b.ins().func_addr(types::I64, eref);
        // On the GPU when the runtime chose one and the launch's memory
        // is the GPU's (see the runtime's `cuda`); on the CPU otherwise.
        let desc_id = self.cx.launch_desc(self.m, kernel)?;
        let desc = self.data_addr(desc_id);
        let on_gpu = self
            .call_extern(&ix::RT_GPU_LAUNCH, &[desc, arg_ptr, grid_ptr, block_ptr])?
            .ok_or_else(|| self.err("parc_rt_gpu_launch returns a value"))?;
        let on_cpu = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().brif(on_gpu, done, &[], on_cpu, &[]);
        self.b.switch_to_block(on_cpu);
        let shared = self
            .b
            .ins()
            .iconst(types::I64, self.cx.shared_extent(kernel) as i64);
        match block_launch {
            Some(l) => {
                let frame = self.b.ins().iconst(types::I64, l.frame_bytes as i64);
                self.call_extern(
                    &ix::RT_LAUNCH_BLOCKS,
                    &[entry_addr, arg_ptr, grid_ptr, block_ptr, shared, frame],
                )?;
            }
            None => {
                self.call_extern(
                    &ix::RT_LAUNCH,
                    &[entry_addr, arg_ptr, grid_ptr, block_ptr, shared],
                )?;
            }
        }
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        Ok(())
    }
}
