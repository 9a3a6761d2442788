//! Intrinsics: math, atomics, GPU ids, `printf`, the C library.
//!
//! `fmin`/`fmax` follow C
//! (a NaN operand is ignored), built from CLIF's NaN-propagating `fmin`/
//! `fmax` plus two selects. `sqrt`, `fabs`, `floor`, `ceil` are
//! instructions (exact, so equal to libm's); the other math intrinsics call
//! libm (`exp`, `expf`, ...), except that `sin x` and `cos x` of the same
//! value in one block make one `sincos` call (glibc's gives `sin`'s and
//! `cos`'s results bit for bit; a gradient of `sin` needs `cos` of the same
//! argument).
//!
//! `printf(fmt, args...)` fills a stack array of `u64` slots and one of
//! kind bytes (0 integer sign-extended, 1 double bits — an `f32` is
//! promoted —, 2 pointer) and calls `parc_rt_printf(fmt, slots, kinds, n)`;
//! `vfprintf` and `vsnprintf` pass their `va_list` to `parc_rt_vfprintf`
//! and `parc_rt_vsnprintf` as it is.
//! `malloc`/`calloc`/`realloc` call `parc_rt_malloc`/`parc_rt_calloc`/
//! `parc_rt_realloc` (which fault instead of returning null); `free memcpy
//! memset atoi atol atof strcmp` call the C library, except that a
//! `memset` of a constant byte and length up to `INLINE_ZERO_MAX` and a
//! `memcpy` of a constant length up to `INLINE_COPY_MAX` are inline
//! stores (loads first, for the copy); `exit` calls
//! `parc_rt_exit`; `wtime`, `worker_id` and `num_workers` call
//! `parc_rt_wtime`, `parc_rt_worker_id` and `parc_rt_num_workers`, the
//! second once, in the CLIF entry block, in a function that makes no other
//! call; `ad_tape_note` calls `parc_rt_ad_tape_note`;
//! `abs`/`labs` are inline (wrapping: `abs(INT_MIN)` is `INT_MIN`); the
//! `cuda_*` calls go to `parc_rt_cuda_*`.

use super::abi::{clif_type, to_slot};
use super::function::FnTranslator;
use super::memory::{INLINE_COPY_MAX, INLINE_ZERO_MAX};
use crate::BackendError;
use crate::intrinsics::{self as ix};
use cranelift_codegen::ir::{
    self as cl, BlockArg, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, condcodes, types,
};
use cranelift_module::Module as ClModule;
use parc_ir::{Block, Function, InstKind, Intrinsic, Type, Value};
use std::collections::HashSet;

/// The values of which `block` takes both `sin` and `cos`: the first of
/// the two computes both with one `sincos` call (GCC's sincos CSE). Within
/// one block the first dominates the second.
pub(crate) fn sincos_pairs(f: &Function, block: Block) -> HashSet<Value> {
    let mut sin = HashSet::new();
    let mut cos = HashSet::new();
    for &inst in &f.blocks[block].insts {
        if let InstKind::Intrinsic { op, args } = f.inst(inst)
            && let [x] = args[..]
        {
            match op {
                Intrinsic::Sin => sin.insert(x),
                Intrinsic::Cos => cos.insert(x),
                _ => false,
            };
        }
    }
    sin.intersection(&cos).copied().collect()
}

/// `parc_rt_ad_stats_state`'s value when `PARC_AD_STATS` is off
/// (`parc_runtime::adstats::OFF`).
const AD_STATS_OFF: i64 = 1;

impl<'a, 'b, 'c, M: ClModule> FnTranslator<'a, 'b, 'c, M> {
    /// `ad_tape_note`: calls `parc_rt_ad_tape_note` unless the runtime's
    /// state byte says `PARC_AD_STATS` is off (1; 0 until the first note
    /// reads the variable), so that a gradient run without it pays a load
    /// and a branch per note, not a call (which would also make the
    /// registers live across it spill in the tape helpers' loops).
    fn ad_tape_note(&mut self, a: &[cl::Value]) -> Result<(), BackendError> {
        let state = self.cx.ad_stats_state(self.m)?;
        let addr = self.data_addr(state);
        let byte = self
            .b
            .ins()
            .load(types::I8, MemFlagsData::trusted(), addr, 0);
        let off = self
            .b
            .ins()
            .icmp_imm_u(condcodes::IntCC::Equal, byte, AD_STATS_OFF);
        let call = self.b.create_block();
        let done = self.b.create_block();
        self.b.ins().brif(off, done, &[], call, &[]);
        self.b.switch_to_block(call);
        self.call_extern(&ix::RT_AD_TAPE_NOTE, a)?;
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        Ok(())
    }

    /// `sincos(x, &s, &c)` (`sincosf` for `f32`) through two stack slots:
    /// glibc computes both with the code of `sin` and `cos` (the same
    /// results, bit for bit) in little more than the time of one.
    pub(super) fn sincos_call(
        &mut self,
        x: cl::Value,
        ty: Type,
    ) -> Result<(cl::Value, cl::Value), BackendError> {
        let bytes = ty.bytes();
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            2 * bytes,
            3,
        ));
        let sin_at = self.b.ins().stack_addr(types::I64, slot, 0);
        let cos_at = self.b.ins().stack_addr(types::I64, slot, bytes as i32);
        let e = ix::sincos_fn(ty);
        self.call_extern(&e, &[x, sin_at, cos_at])?;
        let ct = clif_type(ty);
        let sin = self.b.ins().stack_load(types::I64, ct, slot, 0);
        let cos = self.b.ins().stack_load(types::I64, ct, slot, bytes as i32);
        Ok((sin, cos))
    }

    pub(super) fn intrinsic(
        &mut self,
        op: Intrinsic,
        args: &[Value],
        rty: Option<Type>,
    ) -> Result<Option<cl::Value>, BackendError> {
        use Intrinsic::*;
        let (fixed, _) = op.signature();
        if args.len() < fixed.len() || (!op.is_variadic() && args.len() != fixed.len()) {
            return Err(self.err(format!("`{}` with {} arguments", op.name(), args.len())));
        }
        let a = self.vals(args)?;
        let float_ty = rty.unwrap_or(Type::F64);
        let dim = |d: parc_ir::Dim| d.index() as i64;
        Ok(match op {
            Sqrt => Some(self.b.ins().sqrt(a[0])),
            Fabs => Some(self.b.ins().fabs(a[0])),
            Floor => Some(self.b.ins().floor(a[0])),
            Ceil => Some(self.b.ins().ceil(a[0])),
            Fmin | Fmax => {
                // C: a NaN operand is ignored (CLIF's fmin/fmax propagate it).
                let (x, y) = (a[0], a[1]);
                let m = if op == Fmin {
                    self.b.ins().fmin(x, y)
                } else {
                    self.b.ins().fmax(x, y)
                };
                let x_nan = self.b.ins().fcmp(condcodes::FloatCC::Unordered, x, x);
                let y_nan = self.b.ins().fcmp(condcodes::FloatCC::Unordered, y, y);
                let vt = self.b.func.dfg.value_type(x);
                if vt.is_vector() {
                    // Lane-wise (the vectorizer's): the compares give masks,
                    // which select bit by bit on the operands' type.
                    let little = cranelift_codegen::ir::MemFlagsData::new()
                        .with_endianness(cranelift_codegen::ir::Endianness::Little);
                    let x_nan = self.b.ins().bitcast(vt, little, x_nan);
                    let y_nan = self.b.ins().bitcast(vt, little, y_nan);
                    let m = self.b.ins().bitselect(x_nan, y, m);
                    Some(self.b.ins().bitselect(y_nan, x, m))
                } else {
                    let m = self.b.ins().select(x_nan, y, m);
                    Some(self.b.ins().select(y_nan, x, m))
                }
            }
            Sin | Cos if self.sincos_args.contains(&args[0]) => {
                let (sin, cos) = match self.sincos.get(&args[0]) {
                    Some(&pair) => pair,
                    None => {
                        let pair = self.sincos_call(a[0], float_ty)?;
                        self.sincos.insert(args[0], pair);
                        pair
                    }
                };
                Some(if op == Sin { sin } else { cos })
            }
            Trunc => Some(self.b.ins().trunc(a[0])),
            Exp | Log | Pow | Sin | Cos | Tan | Tanh | Atan | Atan2 | Asin | Acos | Sinh | Cosh
            | Asinh | Acosh | Atanh | Log10 | Log2 | Exp2 | Cbrt | Fmod | Round | Hypot | Erf => {
                let e = ix::libm_fn(op, float_ty).expect("a libm function");
                self.call_extern(&e, &a)?
            }
            Abs | Labs => {
                let x = a[0];
                let ct = self.b.func.dfg.value_type(x);
                let zero = self.b.ins().iconst(ct, 0);
                let neg = self.b.ins().isub(zero, x);
                let is_neg = self.b.ins().icmp(condcodes::IntCC::SignedLessThan, x, zero);
                Some(self.b.ins().select(is_neg, neg, x))
            }
            Malloc => self.call_extern(&ix::RT_MALLOC, &a)?,
            Calloc => self.call_extern(&ix::RT_CALLOC, &a)?,
            Realloc => self.call_extern(&ix::RT_REALLOC, &a)?,
            Free => self.call_extern(&ix::C_FREE, &a)?,
            Memcpy => {
                match self.f.const_int(args[2]) {
                    Some(n) if (0..=i64::from(INLINE_COPY_MAX)).contains(&n) => {
                        self.inline_copy(a[0], a[1], n as u32)
                    }
                    _ => {
                        self.call_extern(&ix::C_MEMCPY, &a)?;
                    }
                }
                None
            }
            Memset => {
                match (self.f.const_int(args[1]), self.f.const_int(args[2])) {
                    (Some(byte), Some(n)) if (0..=i64::from(INLINE_ZERO_MAX)).contains(&n) => {
                        self.inline_fill(a[0], byte as u8, n as u32)
                    }
                    _ => {
                        self.call_extern(&ix::C_MEMSET, &a)?;
                    }
                }
                None
            }
            Printf | Fprintf | Sprintf | Snprintf | Sscanf | Fscanf => {
                Some(self.printf(op, args, &a)?)
            }
            // The arguments are in memory already (a `va_list`).
            Vfprintf => self.call_extern(&ix::RT_VFPRINTF, &a)?,
            Vsnprintf => self.call_extern(&ix::RT_VSNPRINTF, &a)?,
            C(f) => {
                let (params, ret) = f.ir_signature();
                self.call_symbol(ix::c_symbol(f), &params, ret, &a)?
            }
            Exit => self.call_extern(&ix::RT_EXIT, &a)?,
            RuntimeError => {
                let [name, line, col, file] = self.fault_site()?;
                let message = *a
                    .first()
                    .ok_or_else(|| self.err("`runtime_error` needs its message"))?;
                self.call_extern(&ix::RT_FAULT_MSG, &[message, name, line, col, file])?
            }
            Wtime => self.call_extern(&ix::RT_WTIME, &[])?,
            AdTapeNote => {
                self.ad_tape_note(&a)?;
                None
            }
            AdTapeMeasure => self.call_extern(&ix::RT_AD_TAPE_MEASURE, &a)?,
            PhysMem => self.call_extern(&ix::RT_PHYS_MEM, &[])?,
            WorkerId => match self.worker_id {
                Some(w) => Some(w),
                None => self.call_extern(&ix::RT_WORKER_ID, &[])?,
            },
            NumWorkers => self.call_extern(&ix::RT_NUM_WORKERS, &[])?,
            ThreadIdx(d) | BlockIdx(d) | BlockDim(d) | GridDim(d) => {
                let e = match op {
                    ThreadIdx(_) => &ix::RT_THREAD_IDX,
                    BlockIdx(_) => &ix::RT_BLOCK_IDX,
                    BlockDim(_) => &ix::RT_BLOCK_DIM,
                    _ => &ix::RT_GRID_DIM,
                };
                let d = self.b.ins().iconst(types::I32, dim(d));
                self.call_extern(e, &[d])?
            }
            Barrier => self.call_extern(&ix::RT_BARRIER, &[])?,
            AtomicAdd => match self.ty(args[1]) {
                ty @ (Type::F32 | Type::F64) => Some(self.float_atomic_add(ty, a[0], a[1])),
                ty => {
                    let ct = clif_type(ty);
                    Some(self.b.ins().atomic_rmw(
                        ct,
                        MemFlagsData::new(),
                        cl::AtomicRmwOp::Add,
                        a[0],
                        a[1],
                    ))
                }
            },
            CudaMalloc => self.call_extern(&ix::RT_CUDA_MALLOC, &a)?,
            CudaMemcpy(_) => self.call_extern(&ix::RT_CUDA_MEMCPY, &a)?,
            CudaFree => self.call_extern(&ix::RT_CUDA_FREE, &a)?,
            CudaDeviceSynchronize => self.call_extern(&ix::RT_CUDA_SYNC, &[])?,
        })
    }

    /// `atomicAdd` of a float: a compare-and-swap loop on the bits, inline
    /// (hardware has no float fetch-add; a call would cost as much as the
    /// loop when uncontended, which is the common case in adjoint code).
    /// Returns the old value. A null pointer faults in the first load.
    pub(super) fn float_atomic_add(&mut self, ty: Type, p: cl::Value, v: cl::Value) -> cl::Value {
        let (ft, it) = match ty {
            Type::F32 => (types::F32, types::I32),
            _ => (types::F64, types::I64),
        };
        let first = self.b.ins().load(it, MemFlagsData::new(), p, 0);
        let retry = self.b.create_block();
        let cur = self.b.append_block_param(retry, it);
        let done = self.b.create_block();
        let old = self.b.append_block_param(done, it);
        self.b.ins().jump(retry, &[BlockArg::Value(first)]);
        self.b.switch_to_block(retry);
        let f = self.b.ins().bitcast(ft, MemFlagsData::new(), cur);
        let sum = self.b.ins().fadd(f, v);
        let bits = self.b.ins().bitcast(it, MemFlagsData::new(), sum);
        let seen = self.b.ins().atomic_cas(MemFlagsData::new(), p, cur, bits);
        let same = self.b.ins().icmp(condcodes::IntCC::Equal, seen, cur);
        self.b.ins().brif(
            same,
            done,
            &[BlockArg::Value(cur)],
            retry,
            &[BlockArg::Value(seen)],
        );
        self.b.switch_to_block(done);
        self.b.ins().bitcast(ft, MemFlagsData::new(), old)
    }

    /// The `printf` family through `parc_rt_printf`, `parc_rt_fprintf` and
    /// `parc_rt_snprintf`, and the `scanf` family through `parc_rt_sscanf`
    /// and `parc_rt_fscanf` (see the module doc).
    pub(super) fn printf(
        &mut self,
        op: Intrinsic,
        args: &[Value],
        a: &[cl::Value],
    ) -> Result<cl::Value, BackendError> {
        let fixed = op.info().params.len();
        let n = args.len() - fixed;
        let (slots, kinds) = if n == 0 {
            let null = self.b.ins().iconst(types::I64, 0);
            (null, null)
        } else {
            let vals = self.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                (8 * n) as u32,
                3,
            ));
            let kinds = self.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                n as u32,
                0,
            ));
            for k in 0..n {
                let ty = self.ty(args[k + fixed]);
                let v = a[k + fixed];
                let (bits, kind) = match ty {
                    Type::F32 => {
                        let d = self.b.ins().fpromote(types::F64, v);
                        (self.b.ins().bitcast(types::I64, MemFlagsData::new(), d), 1)
                    }
                    Type::F64 => (to_slot(&mut self.b, v, ty), 1),
                    Type::Ptr => (v, 2),
                    _ => (to_slot(&mut self.b, v, ty), 0),
                };
                self.b
                    .ins()
                    .stack_store(types::I64, bits, vals, (8 * k) as i32);
                let kind = self.b.ins().iconst(types::I8, kind);
                self.b.ins().stack_store(types::I64, kind, kinds, k as i32);
            }
            (
                self.b.ins().stack_addr(types::I64, vals, 0),
                self.b.ins().stack_addr(types::I64, kinds, 0),
            )
        };
        let count = self.b.ins().iconst(types::I32, n as i64);
        let r = match op {
            Intrinsic::Fprintf => {
                self.call_extern(&ix::RT_FPRINTF, &[a[0], a[1], slots, kinds, count])?
            }
            // The pointers `scanf` stores through travel as `printf`'s
            // arguments do.
            Intrinsic::Sscanf => {
                self.call_extern(&ix::RT_SSCANF, &[a[0], a[1], slots, kinds, count])?
            }
            Intrinsic::Fscanf => {
                self.call_extern(&ix::RT_FSCANF, &[a[0], a[1], slots, kinds, count])?
            }
            Intrinsic::Sprintf => {
                let unlimited = self.b.ins().iconst(types::I64, -1);
                self.call_extern(
                    &ix::RT_SNPRINTF,
                    &[a[0], unlimited, a[1], slots, kinds, count],
                )?
            }
            Intrinsic::Snprintf => {
                self.call_extern(&ix::RT_SNPRINTF, &[a[0], a[1], a[2], slots, kinds, count])?
            }
            _ => self.call_extern(&ix::RT_PRINTF, &[a[0], slots, kinds, count])?,
        };
        Ok(r.expect("printf returns a value"))
    }
}
