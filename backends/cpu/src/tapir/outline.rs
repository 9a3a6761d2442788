//! Outlining a task into a helper function, and the context that carries
//! its captured values.
//!
//! The *free values* of a set of blocks are the values its instructions use
//! but that no block of the set defines: parameters of the function, SSA
//! values of the parent, addresses of the parent's `alloca`s. A detach
//! dominates its task, so all of them are available at the detach. Each is
//! either re-created in the helper (a constant, a global's or function's
//! address: cheaper than a load) or *captured*: given a slot of the context
//! buffer ([`CtxLayout`]), stored by the parent right before the spawn and
//! loaded by the helper at its entry. An `alloca` of the parent is captured
//! like any pointer — by address — so the task writes the parent's frame,
//! which outlives it because the parent syncs before it returns.
//!
//! A task is outlined once the tasks nested in it are (see `plan.rs`):
//! its blocks then hold their spawns and parallel-loop calls, and its
//! syncs are lowered. Moving the blocks renames every value and block, and
//! rewrites the task's exits (its `reattach`es to the continuation) to
//! what the caller asks: `return` for a spawned task, a jump to the next
//! iteration for a loop body. The `alloca`s that lowering the nested tasks
//! put at the top of the task's first block (groups and context buffers)
//! go to the top of the helper's entry block, where the helper's own
//! lowering put them when helpers were lowered one by one.

use super::places::Places;
use super::{FrameState, TapirError, TargetImpl, TaskBlocks};
use parc_ir::analysis::{FunctionAnalyses, Task};
use parc_ir::{
    Block, FuncBuilder, FuncId, FuncKind, Function, Inst, InstKind, Linkage, Module, Signature,
    Type, Value, ValueDef, new_function,
};
use std::collections::{HashMap, HashSet};

/// Where each captured value lives in the context buffer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct CtxLayout {
    /// `(value of the parent, byte offset)`, in slot order.
    pub slots: Vec<(Value, u32)>,
    /// Total bytes, a multiple of 8 (0 when nothing is captured).
    pub size: u32,
}

/// Lays out `values` (distinct): largest type first so that natural
/// alignment needs no padding, ties in the given order.
pub(crate) fn layout_ctx(func: &Function, values: &[Value]) -> CtxLayout {
    let mut order = values.to_vec();
    order.sort_by_key(|&v| std::cmp::Reverse(func.value_type(v).bytes()));
    let mut offset = 0u32;
    let mut slots = Vec::with_capacity(order.len());
    for v in order {
        let bytes = func.value_type(v).bytes();
        offset = offset.next_multiple_of(bytes);
        slots.push((v, offset));
        offset += bytes;
    }
    CtxLayout {
        slots,
        size: offset.next_multiple_of(8),
    }
}

/// True for instructions that are cheaper to repeat in the helper than to
/// pass: they read nothing and always give the same value.
pub(crate) fn is_remat(kind: &InstKind) -> bool {
    matches!(
        kind,
        InstKind::Iconst(_) | InstKind::Fconst(_) | InstKind::GlobalAddr(_) | InstKind::FuncAddr(_)
    )
}

/// The defining instruction of `v`, if it is rematerializable.
pub(crate) fn remat_def(func: &Function, v: Value) -> Option<&InstKind> {
    match func.value_def(v) {
        ValueDef::Result(i) => Some(func.inst(i)).filter(|k| is_remat(k)),
        ValueDef::Param(..) => None,
    }
}

/// Re-creates the constant `v` of `src` at the builder's position.
pub(crate) fn remat(b: &mut FuncBuilder, src: &Function, v: Value) -> Value {
    let ty = src.value_type(v);
    match remat_def(src, v).cloned() {
        Some(InstKind::Iconst(k)) => b.iconst(ty, k),
        Some(InstKind::Fconst(x)) => b.fconst(ty, x),
        Some(InstKind::GlobalAddr(g)) => b.global_addr(g),
        Some(InstKind::FuncAddr(f)) => b.func_addr(f),
        _ => unreachable!("remat of {v}, which is not a constant"),
    }
}

/// The values defined (as results or block parameters) in `blocks`.
pub(crate) fn defined_values(func: &Function, blocks: &[Block]) -> HashSet<Value> {
    let mut set = HashSet::new();
    for &b in blocks {
        set.extend(func.block_params(b).iter().copied());
        set.extend(func.block_insts(b).iter().filter_map(|&i| func.result(i)));
    }
    set
}

/// The free values of `blocks` (see the module doc), in order of first use.
pub(crate) fn free_values(
    func: &Function,
    blocks: &[Block],
    defined: &HashSet<Value>,
) -> Vec<Value> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for &b in blocks {
        for &i in func.block_insts(b) {
            func.inst(i).for_each_operand(|v| {
                if !defined.contains(&v) && seen.insert(v) {
                    out.push(v);
                }
            });
        }
    }
    out
}

/// A use outside `inside` of a value defined inside: a value leaving a task
/// other than through memory, which Tapir forbids. The first in layout
/// order, for a message that does not depend on how uses are listed.
pub(crate) fn escaping_use(
    func: &Function,
    places: &Places,
    inside: &HashSet<Block>,
    defined: &HashSet<Value>,
) -> Option<(Block, Value)> {
    let escapes = defined
        .iter()
        .any(|&v| places.users(func, v).any(|(b, _)| !inside.contains(&b)));
    if !escapes {
        return None;
    }
    func.layout
        .iter()
        .filter(|&&b| !inside.contains(&b) && !places.is_gone(b))
        .flat_map(|&b| func.block_insts(b).iter().map(move |&i| (b, i)))
        .find_map(|(b, i)| {
            func.inst(i)
                .operands()
                .into_iter()
                .find(|v| defined.contains(v))
                .map(|v| (b, v))
        })
}

/// Fills a fresh context buffer (an `alloca` of `frame`) with the captured
/// values at the builder's position (the parent, right before it spawns);
/// returns the buffer, or a null pointer if nothing is captured.
pub(crate) fn store_ctx(b: &mut FuncBuilder, frame: &mut FrameState, layout: &CtxLayout) -> Value {
    if layout.size == 0 {
        return b.null();
    }
    let ctx = frame.alloca(b.func, layout.size, 8);
    for &(v, offset) in &layout.slots {
        let addr = slot_addr(b, ctx, offset);
        b.store(v, addr);
    }
    ctx
}

/// Loads every slot of `layout` from `ctx` at the builder's position (the
/// helper's entry) and maps each captured value of `src` to its load.
pub(crate) fn load_ctx(
    b: &mut FuncBuilder,
    src: &Function,
    ctx: Value,
    layout: &CtxLayout,
    vmap: &mut HashMap<Value, Value>,
) {
    for &(v, offset) in &layout.slots {
        let addr = slot_addr(b, ctx, offset);
        let loaded = b.load(src.value_type(v), addr);
        vmap.insert(v, loaded);
    }
}

fn slot_addr(b: &mut FuncBuilder, ctx: Value, offset: u32) -> Value {
    if offset == 0 {
        return ctx;
    }
    let off = b.iconst(Type::I64, i64::from(offset));
    b.ptradd(ctx, off)
}

/// A defined, module-private host function with an entry block whose
/// parameters are `params`.
pub(crate) fn new_helper(name: String, params: Vec<Type>) -> Function {
    let mut f = new_function(name, Signature { params, ret: None });
    f.kind = FuncKind::Host;
    f.linkage = Linkage::Local;
    f
}

/// Copies `blocks` of `src` (in that order) to the end of `dst`'s layout,
/// renaming values (`vmap` must already map every free value; it receives
/// the new ones) and blocks. The blocks hold no Tapir terminator but the
/// task's exits (the tasks nested in them are outlined and their syncs
/// lowered first). If `merge` is `(b, d)`, block
/// `b`'s instructions are appended to `dst`'s existing block `d` instead
/// (`b` must have no parameters and no predecessor among `blocks`). The
/// terminators of `exits` are replaced by `exit_term`, which is not
/// renamed. Returns the block map.
pub(crate) fn clone_blocks(
    src: &Function,
    dst: &mut Function,
    blocks: &[Block],
    merge: Option<(Block, Block)>,
    exits: &[Block],
    exit_term: &InstKind,
    vmap: &mut HashMap<Value, Value>,
) -> HashMap<Block, Block> {
    let mut bmap = HashMap::new();
    for &b in blocks {
        let nb = match merge {
            Some((m, d)) if m == b => d,
            _ => {
                let nb = dst.create_block();
                dst.append_block(nb);
                nb
            }
        };
        bmap.insert(b, nb);
        for &p in src.block_params(b) {
            let np = dst.append_block_param(nb, src.value_type(p));
            vmap.insert(p, np);
        }
    }
    // Results first, operands after: a use may precede its definition in
    // layout order (a loop's back edge).
    let mut to_rename: Vec<Inst> = Vec::new();
    for &b in blocks {
        let nb = bmap[&b];
        let exit = exits.contains(&b);
        for &i in src.block_insts(b) {
            let is_exit = exit && src.terminator(b) == Some(i);
            let kind = if is_exit {
                exit_term.clone()
            } else {
                src.inst(i).clone()
            };
            let ty = src.result(i).map(|v| src.value_type(v));
            let ni = dst.append_inst(nb, kind, ty);
            if let (Some(old), Some(new)) = (src.result(i), dst.result(ni)) {
                vmap.insert(old, new);
            }
            if src.locs[i].is_known() {
                dst.locs[ni] = src.locs[i];
            }
            if !is_exit {
                to_rename.push(ni);
            }
        }
    }
    for ni in to_rename {
        let kind = dst.inst_mut(ni);
        kind.map_operands(|v| {
            *vmap
                .get(&v)
                .unwrap_or_else(|| panic!("outlining: free value {v} has no mapping"))
        });
        kind.map_successors(|s| bmap[&s]);
    }
    bmap
}

/// Checks what outlining `task` (now made of `blocks`) needs and returns
/// its free values, split into captured and rematerialized ones.
pub(crate) fn task_values(
    func: &Function,
    an: &FunctionAnalyses,
    task: Task,
    blocks: &TaskBlocks,
    places: &Places,
) -> Result<(Vec<Value>, Vec<Value>), TapirError> {
    let td = an.tasks.data(task);
    let construct = || format!("detach in {}", td.detach_block);
    if let Some(&(from, to)) = td.escapes.first() {
        return Err(TapirError::new(
            &func.name,
            construct(),
            format!("the task leaves through a branch from {from} to {to} instead of a reattach"),
        ));
    }
    if let Some(&b) = td.returns.first() {
        return Err(TapirError::new(
            &func.name,
            construct(),
            format!("the task returns (in {b}) instead of reattaching"),
        ));
    }
    // In layout order: the order of the free values is the context's.
    let defined = defined_values(func, &blocks.blocks);
    if let Some((b, v)) = escaping_use(func, places, &blocks.inside, &defined) {
        return Err(TapirError::new(
            &func.name,
            construct(),
            format!("{v} is defined in the task but used outside it, in {b}"),
        ));
    }
    let free = free_values(func, &blocks.blocks, &defined);
    Ok(free
        .into_iter()
        .partition(|&v| remat_def(func, v).is_none()))
}

/// Takes out the `count` instructions at `at` in `block`: the `alloca`s
/// that lowering the tasks nested in a task put at the top of its first
/// block ([`FrameState::alloca`]), once that block is copied into the
/// task's helper. [`put_frame_allocas`] puts them back where the helper's
/// own lowering would have put them.
pub(crate) fn take_frame_allocas(
    func: &mut Function,
    block: Block,
    at: usize,
    count: u32,
) -> Vec<Inst> {
    func.blocks[block]
        .insts
        .drain(at..at + count as usize)
        .collect()
}

/// Puts `allocas` at the top of `entry`.
pub(crate) fn put_frame_allocas(func: &mut Function, entry: Block, allocas: Vec<Inst>) {
    func.blocks[entry].insts.splice(0..0, allocas);
}

/// True if the task's first block can be the helper's entry (or the loop
/// body's per-iteration block): no branch inside the task targets it.
/// Verified IR always allows it (a task is entered only by its detach);
/// the other case keeps unverified input working.
pub(crate) fn entry_mergeable(an: &FunctionAnalyses, task: Task) -> bool {
    let td = an.tasks.data(task);
    an.cfg
        .preds(td.entry)
        .iter()
        .all(|&p| !an.tasks.contains(task, p))
}

/// Lowers one detach generically: outline its task (its current
/// `blocks`) into the helper `helper_id` (`@<parent>.task<N>(ptr ctx)`, made
/// empty by the plan) and replace the detach with a filled context, the
/// target's spawn and a jump to the continuation.
#[allow(clippy::too_many_arguments)]
pub(crate) fn lower_detach(
    module: &mut Module,
    func: &mut Function,
    an: &FunctionAnalyses,
    task: Task,
    blocks: &TaskBlocks,
    helper_id: FuncId,
    places: &Places,
    target: &dyn TargetImpl,
    frame: &mut FrameState,
) -> Result<(), TapirError> {
    let (captured, remats) = task_values(func, an, task, blocks, places)?;
    let td = an.tasks.data(task);
    let layout = layout_ctx(func, &captured);
    let loc = func.locs[td.detach];

    let mut helper = std::mem::take(&mut module.funcs[helper_id]);
    let entry = helper.layout[0];
    let ctx_param = helper.block_params(entry)[0];
    let mut vmap = HashMap::new();
    {
        let mut hb = FuncBuilder::new(&mut helper);
        hb.set_loc(loc);
        hb.switch_to(entry);
        load_ctx(&mut hb, func, ctx_param, &layout, &mut vmap);
        for &v in &remats {
            let nv = remat(&mut hb, func, v);
            vmap.insert(v, nv);
        }
    }
    // Merging keeps the task's `alloca`s (the front end puts them in its
    // first block) in the helper's entry block, where codegen wants them.
    let merge = entry_mergeable(an, task);
    let at = if merge {
        helper.blocks[entry].insts.len()
    } else {
        0
    };
    let bmap = clone_blocks(
        func,
        &mut helper,
        &blocks.blocks,
        merge.then_some((td.entry, entry)),
        &td.reattaches,
        &InstKind::Return(None),
        &mut vmap,
    );
    let frame_allocas = take_frame_allocas(&mut helper, bmap[&td.entry], at, blocks.frame_allocas);
    if !merge {
        let mut hb = FuncBuilder::new(&mut helper);
        hb.set_loc(loc);
        hb.switch_to(entry);
        hb.jump(bmap[&td.entry], Vec::new());
    }
    put_frame_allocas(&mut helper, entry, frame_allocas);
    module.funcs[helper_id] = helper;

    // The task's blocks leave the layout when the caller is done with
    // the function (see `Places`).
    let d = td.detach_block;
    func.blocks[d].insts.pop();
    let mut b = FuncBuilder::new(func);
    b.set_loc(loc);
    b.switch_to(d);
    let ctx = store_ctx(&mut b, frame, &layout);
    target.spawn(&mut b, frame, td.region, helper_id, ctx, layout.size);
    b.jump(td.cont, Vec::new());
    Ok(())
}
