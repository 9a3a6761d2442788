//! What crosses a barrier: the class of every value of a kernel split at
//! its barriers, and the layout of each thread's frame. The block
//! function's builder (`build.rs`) follows what is decided here.
//!
//! # Values across barriers
//!
//! Every value of the kernel falls in one [`Class`]. Parameters and
//! uniform values are computed once at the entry; rematerialized values
//! (thread ids, addresses of thread-private memory, and cheap pure
//! arithmetic on those and on uniform values) are recomputed at the start
//! of each thread in each region that uses them, so they never need
//! keeping; varying values live into a region (live across its barrier)
//! get a slot in the thread's frame: stored at the barrier by the region
//! that defined them, reloaded at the start of the thread in the next.
//!
//! # Thread-private memory
//!
//! A kernel's `alloca` is private to each thread. One whose address is
//! only used for loads, stores, `memcpy`/`memset` and `ptradd`s of it,
//! none of them live across a barrier, is used by one region at a time
//! and is copied with the region (its stack slot serves each thread in
//! turn, zero-filled where the `alloca` stands, as always). Any other
//! `alloca` of a kernel with barriers gets bytes in the thread's frame,
//! zero-filled where the `alloca` stands.

use super::Refusal;
use super::regions::Split;
use cranelift_entity::EntityRef;
use parc_ir::{BinaryOp, Function, InstKind, Intrinsic, Value};
use std::collections::{HashMap, HashSet};

/// The class of every value of `split.func` and the frame that keeps
/// what crosses its barriers.
pub(super) fn plan(split: &Split) -> Result<(Vec<Class>, FrameLayout), Refusal> {
    let across = values_across(split);
    let private = thread_private(split, &across)?;
    let class = classify(split, &private.0);
    let layout = FrameLayout::of(split, &across, private, &class)?;
    Ok((class, layout))
}

/// Most instructions of pure arithmetic recomputed per value instead of
/// keeping it across a barrier (a reload costs a store and a load).
const REMAT_MAX: u32 = 6;

/// How a kernel value is provided in the block function (see the module
/// doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Class {
    /// Kernel parameter `i`.
    Param(usize),
    /// The same for every thread of a block; no side effects.
    Uniform,
    /// A function of the thread's id and uniform values, recomputed at a
    /// thread's start at this cost in instructions (0 for thread ids and
    /// thread-private memory).
    Remat(u32),
    /// Anything else.
    Varying,
}

/// The values live across some barrier (into a region after one), sorted.
fn values_across(split: &Split) -> Vec<Value> {
    let mut across: Vec<Value> = split
        .regions
        .iter()
        .skip(1)
        .flatten()
        .flat_map(|r| r.live_in.iter().copied())
        .collect();
    across.sort_unstable();
    across.dedup();
    across
}

/// The `alloca`s that need thread-private memory in the frame, with
/// their offsets (from 0) and the bytes they take.
fn thread_private(split: &Split, across: &[Value]) -> Result<(HashMap<Value, u32>, u64), Refusal> {
    let f = &split.func;
    let mut out = HashMap::new();
    let mut size: u64 = 0;
    if split.barriers.is_empty() {
        // One region: every alloca is used by one region at a time.
        return Ok((out, size));
    }
    let across: HashSet<Value> = across.iter().copied().collect();
    let mut allocas: Vec<(Value, u32, u32)> = Vec::new();
    for (_, i) in f.placed_insts() {
        if let InstKind::Alloca { size, align } = f.inst(i)
            && let Some(r) = f.result(i)
        {
            allocas.push((r, *size, *align));
        }
    }
    allocas.sort_unstable_by_key(|a| a.0);
    let uses = uses_of(f);
    for (a, bytes, align) in allocas {
        if align > 16 {
            return Err(Refusal("an `alloca` is aligned to more than 16 bytes"));
        }
        if !private_to_a_region(f, &uses, a, &across) {
            let off = size.next_multiple_of(u64::from(align.max(1)));
            out.insert(a, off as u32);
            size = off + u64::from(bytes);
        }
    }
    Ok((out, size))
}

/// Where each thread's frame keeps things: thread-private `alloca`s, then
/// values live across barriers.
pub(super) struct FrameLayout {
    /// Offset of each `alloca` that needs thread-private memory.
    pub thread_private: HashMap<Value, u32>,
    /// Offset of each value kept across a barrier.
    pub slots: HashMap<Value, u32>,
    /// Offset of the `i32` where a thread's exit code goes, in kernels
    /// with a region that checks divergence.
    pub code: Option<u32>,
    /// Bytes per thread, a multiple of 16.
    pub stride: u32,
}

impl FrameLayout {
    fn of(
        split: &Split,
        across: &[Value],
        (thread_private, mut size): (HashMap<Value, u32>, u64),
        class: &[Class],
    ) -> Result<FrameLayout, Refusal> {
        let mut slots = HashMap::new();
        for &v in across {
            if class[v.index()] != Class::Varying {
                continue;
            }
            let bytes = u64::from(split.func.value_type(v).bytes());
            let off = size.next_multiple_of(bytes);
            slots.insert(v, off as u32);
            size = off + bytes;
        }
        let code = if split.regions.iter().flatten().any(|r| r.exits.len() > 1) {
            let off = size.next_multiple_of(4);
            size = off + 4;
            Some(off as u32)
        } else {
            None
        };
        let stride = size.next_multiple_of(16);
        if stride > parc_runtime::gpu::MAX_FRAME_BYTES as u64 {
            return Err(Refusal("a thread's locals need too much memory"));
        }
        Ok(FrameLayout {
            thread_private,
            slots,
            code,
            stride: stride as u32,
        })
    }
}

/// The placed instructions using each value.
fn uses_of(f: &Function) -> HashMap<Value, Vec<parc_ir::Inst>> {
    let mut uses: HashMap<Value, Vec<parc_ir::Inst>> = HashMap::new();
    for (_, i) in f.placed_insts() {
        f.inst(i)
            .for_each_operand(|v| uses.entry(v).or_default().push(i));
    }
    uses
}

/// True if the memory of `alloca` `a` is only reached through addresses
/// derived from `a` by `ptradd`, used as the address of loads, stores,
/// `memcpy` and `memset`, and none of them is live across a barrier (in
/// `across`): then each region that touches it has it to itself.
fn private_to_a_region(
    f: &Function,
    uses: &HashMap<Value, Vec<parc_ir::Inst>>,
    a: Value,
    across: &HashSet<Value>,
) -> bool {
    let mut work = vec![a];
    let mut seen = HashSet::from([a]);
    while let Some(p) = work.pop() {
        if across.contains(&p) {
            return false;
        }
        for &u in uses.get(&p).map(Vec::as_slice).unwrap_or_default() {
            let ok = match f.inst(u) {
                InstKind::Load(_) => true,
                InstKind::Store { value, .. } => *value != p,
                InstKind::PtrAdd(base, off) if *base == p && *off != p => {
                    if let Some(r) = f.result(u)
                        && seen.insert(r)
                    {
                        work.push(r);
                    }
                    true
                }
                // Copies to or from it read or write its bytes, not its
                // address.
                InstKind::Intrinsic {
                    op: Intrinsic::Memcpy | Intrinsic::Memset,
                    ..
                } => true,
                _ => false,
            };
            if !ok {
                return false;
            }
        }
    }
    true
}

/// The class of every value of `split.func` (see [`Class`]), in one pass
/// in reverse postorder: operands are classified before their users.
fn classify(split: &Split, thread_private: &HashMap<Value, u32>) -> Vec<Class> {
    let f = &split.func;
    let mut class = vec![Class::Varying; f.values.len()];
    let Some(entry) = f.entry() else {
        return class;
    };
    for (i, &p) in f.block_params(entry).iter().enumerate() {
        class[p.index()] = Class::Param(i);
    }
    let order = super::regions::reverse_postorder(f, Some(entry), |_| true);
    for b in order {
        for &i in f.block_insts(b) {
            let Some(r) = f.result(i) else { continue };
            let kind = f.inst(i);
            class[r.index()] = match kind {
                InstKind::Iconst(_)
                | InstKind::Fconst(_)
                | InstKind::GlobalAddr(_)
                | InstKind::FuncAddr(_) => Class::Uniform,
                InstKind::Intrinsic {
                    op: Intrinsic::BlockIdx(_) | Intrinsic::BlockDim(_) | Intrinsic::GridDim(_),
                    ..
                } => Class::Uniform,
                InstKind::Intrinsic {
                    op: Intrinsic::ThreadIdx(_),
                    ..
                } => Class::Remat(0),
                InstKind::Alloca { .. } if thread_private.contains_key(&r) => Class::Remat(0),
                k if is_pure(f, k) => {
                    let mut cost = 1;
                    let mut uniform = true;
                    let mut ok = true;
                    k.for_each_operand(|v| match class[v.index()] {
                        Class::Param(_) | Class::Uniform => {}
                        Class::Remat(c) => {
                            uniform = false;
                            cost += c;
                        }
                        Class::Varying => ok = false,
                    });
                    if !ok {
                        Class::Varying
                    } else if uniform {
                        Class::Uniform
                    } else if cost <= REMAT_MAX {
                        Class::Remat(cost)
                    } else {
                        Class::Varying
                    }
                }
                _ => Class::Varying,
            };
        }
    }
    class
}

/// True for instructions that compute a value from their operands alone,
/// cannot fault and have no effect, so they can be computed anywhere their
/// operands are available.
fn is_pure(f: &Function, k: &InstKind) -> bool {
    match k {
        InstKind::Unary(..)
        | InstKind::Icmp(..)
        | InstKind::Fcmp(..)
        | InstKind::Cast(..)
        | InstKind::Select(..)
        | InstKind::PtrAdd(..) => true,
        InstKind::Binary(op, _, d) => match op {
            BinaryOp::Sdiv | BinaryOp::Udiv | BinaryOp::Srem | BinaryOp::Urem => {
                f.const_int(*d).is_some_and(|c| c != 0)
            }
            _ => true,
        },
        _ => false,
    }
}
