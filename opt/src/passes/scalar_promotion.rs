//! `scalar-promotion`: a memory location that a loop loads and stores at
//! one loop-invariant address, and that nothing else in the loop may
//! touch, lives in a register for the loop's run: loaded once before the
//! first iteration, carried from iteration to iteration as a parameter of
//! the header, stored once after the last. This is LLVM's LICM scalar
//! promotion; it turns PolyBench's `tmp[i] += A[i][j] * x[j]` over `j` (and
//! `C[i][j] += ...` over `k`) into a reduction the vectorizer knows, and
//! takes a store and a load off every iteration.
//!
//! # Which loops and which addresses
//! A loop with a preheader whose header ends in `c = icmp a, b; brif c,
//! body, exit` after pure code only (its only exit: no other edge leaves
//! the loop; `a` and `b` parameters of the header or invariant), whose
//! blocks hold no `detach`, `reattach` or `sync` (a `parallel_for`'s own
//! loop and loops that spawn are left alone; a serial loop inside a task's
//! body is an ordinary loop), and an address `p` defined outside the loop
//! such that
//! - every load and store of the loop at `p` is on the straight-line start
//!   of `body` (the block and those it reaches by `jump`s to blocks with
//!   no other predecessor): each runs in every iteration, in that order;
//! - they all load or store one type, and at least one stores;
//! - no other instruction of the loop may write the bytes at `p` (alias
//!   analysis and mod/ref summaries, as LICM's memory rule asks: calls,
//!   memory intrinsics, atomics, barriers included);
//! - if another instruction of the loop may *read* them (a load through a
//!   pointer alias analysis cannot tell from `p`, as 2mm's `A[i][k]` and
//!   `B[k][j]` against `tmp[i][j]` when the arrays are plain parameters or
//!   pointers loaded from memory), the value is still carried in a
//!   register, but **the stores stay** where they are: memory at `p` is
//!   then current whenever another instruction reads it, and only the
//!   loads of `p` go, with the store-to-load round trip they put on every
//!   iteration's chain. (gcc -O2 and clang -O2 do the same to that loop:
//!   the sum in a register, a store in every iteration.);
//! - every instruction before the first access on that start always
//!   returns (LICM's position rule: the load moved before the loop must
//!   not fault where the original did not run);
//! - no value of the loop is used outside it but through the exit's
//!   arguments (the exit gains an edge that bypasses the loop).
//!
//! # The rewrite
//! ```text
//! P: c0 = icmp a0, b0;  brif c0, G, E(exit args on the initial values)
//! G: m0 = load p;       jump H(inits, m0)
//! H(.., m): c = icmp a, b; brif c, B, X
//! B: loads of p are m (or what this iteration stored last), stores of
//!    p are gone (or kept, see above); ..; jump H(.., the last value stored)
//! X: store m, p;        jump E(exit args)      (no store if they were kept)
//! ```
//! Where the stores are kept, every load of `p` that goes read what the
//! last store of `p` before it wrote (in this iteration or an earlier
//! one) or, before any, what `p` held when the loop began (`G`'s load):
//! nothing else of the loop writes `p`.
//! The load and the store run only when the loop runs at least once (`G`
//! and `X`), when the original loop also accessed `p`: no read or write
//! is added on a path that had none, so no race and no fault is either.
//! A task running in parallel with the loop that touched `p` would race
//! with the loop's own store, which is undefined behaviour: the order of
//! the loop's stores is not observable by a race-free program.
//!
//! Statistics: `scalar-promotion.promoted` (addresses),
//! `scalar-promotion.stores-kept` (those of them whose stores stayed) and
//! `scalar-promotion.loops`.

use crate::PassContext;
use crate::analysis::alias::{AliasAnalysis, GlobalFacts, type_size};
use crate::analysis::modref::{Loc, MemSet, ModRefAnalysis, inst_effects, may_overlap};
use crate::passes::licm::always_returns;
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{EntitySet, SecondaryMap};
use parc_ir::analysis::loops::LoopBlocks;
use parc_ir::analysis::tapir_loops::loops_with_tapir;
use parc_ir::analysis::{FunctionAnalyses, Loop, LoopData};
use parc_ir::{Block, BlockCall, Function, Inst, InstKind, Module, Type, Value, ValueDef};
use std::collections::{HashMap, HashSet};

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let modref = ModRefAnalysis::compute(module);
    let globals = GlobalFacts::new(module);
    let mut total = Counts::default();
    let changed = crate::for_each_function(module, |f| {
        let n = run_function(f, &globals, &modref);
        total.promoted += n.promoted;
        total.stores_kept += n.stores_kept;
        total.loops += n.loops;
        n.promoted > 0
    });
    ctx.count("scalar-promotion.promoted", total.promoted);
    ctx.count("scalar-promotion.stores-kept", total.stores_kept);
    ctx.count("scalar-promotion.loops", total.loops);
    changed
}

/// What [`run_function`] did: addresses promoted, how many of them kept
/// their stores, and in how many loops.
#[derive(Default)]
pub struct Counts {
    pub promoted: u64,
    pub stores_kept: u64,
    pub loops: u64,
}

/// Promotes what it can in `func`.
pub fn run_function(func: &mut Function, globals: &GlobalFacts, modref: &ModRefAnalysis) -> Counts {
    let mut n = Counts::default();
    let mut done: HashSet<Block> = HashSet::new();
    // Innermost loops first, so that what an inner loop stores after
    // itself may be promoted by the loop around it. Each rewrite changes
    // the loops, so the analyses are made afresh after it.
    let limit = FunctionAnalyses::compute(func).loops.len();
    for _ in 0..limit {
        let an = FunctionAnalyses::compute(func);
        let aa = modref.alias_analysis(func, globals);
        let facts = Facts::of(func, &an);
        let mut order: Vec<Loop> = an.loops.loops().collect();
        order.sort_by_key(|&l| std::cmp::Reverse(an.loops.data(l).depth));
        let mut found = None;
        for lp in order {
            let header = an.loops.data(lp).header;
            if !done.insert(header) {
                continue;
            }
            let Some(shape) = LoopShape::of(func, &an, &facts, lp) else {
                continue;
            };
            if let Some(plan) = promotable(func, &an, &facts, lp, &shape, modref, &aa) {
                found = Some((shape, plan));
                break;
            }
        }
        let Some((shape, plan)) = found else { break };
        n.promoted += plan.addrs.len() as u64;
        n.stores_kept += plan.addrs.iter().filter(|c| c.keep_stores).count() as u64;
        n.loops += 1;
        rewrite(func, &shape, &plan);
    }
    n
}

/// What one round knows of the function beyond its analyses, each
/// computed in one walk over it (asking each loop of a deep nest about
/// its blocks was quadratic in its depth).
struct Facts {
    /// The block of each placed instruction.
    home: SecondaryMap<Inst, PackedOption<Block>>,
    /// Loops with a `detach`, `reattach` or `sync` among their blocks.
    tapir: EntitySet<Loop>,
}

impl Facts {
    fn of(func: &Function, an: &FunctionAnalyses) -> Facts {
        let mut home = SecondaryMap::new();
        for (b, i) in func.placed_insts() {
            home[i] = b.into();
        }
        Facts {
            home,
            tapir: loops_with_tapir(func, an),
        }
    }

    /// True if `v` is defined outside the loop `ld` (so is the result of
    /// an instruction not placed).
    fn outside(&self, func: &Function, ld: &LoopData, v: Value) -> bool {
        match func.value_def(v) {
            ValueDef::Param(b, _) => !ld.contains(b),
            ValueDef::Result(i) => self.home[i].expand().is_none_or(|b| !ld.contains(b)),
        }
    }
}

/// The parts of a loop the rewrite needs.
struct LoopShape {
    header: Block,
    preheader: Block,
    cmp: Inst,
    /// The header's branch: into the body (`then`) and out (`else`).
    br: Inst,
    /// The straight-line start of the body.
    chain: Vec<Block>,
    latches: Vec<Block>,
    loop_blocks: LoopBlocks,
}

impl LoopShape {
    fn of(func: &Function, an: &FunctionAnalyses, facts: &Facts, lp: Loop) -> Option<LoopShape> {
        let ld = an.loops.data(lp);
        let header = ld.header;
        let preheader = ld.preheader?;
        let pt = func.terminator(preheader)?;
        if !matches!(func.inst(pt), InstKind::Jump(d) if d.block == header) {
            return None;
        }
        // The test and the branch, after pure code (such as the 32-bit
        // copy of a widened counter), which stays in the header.
        let [extras @ .., cmp, br] = func.block_insts(header) else {
            return None;
        };
        let (cmp, br) = (*cmp, *br);
        for &i in extras {
            let k = func.inst(i);
            if k.has_side_effects() || k.may_read_memory() || matches!(k, InstKind::Alloca { .. }) {
                return None;
            }
        }
        let InstKind::Icmp(..) = func.inst(cmp) else {
            return None;
        };
        let InstKind::Brif {
            cond,
            then_dest,
            else_dest,
        } = func.inst(br)
        else {
            return None;
        };
        if func.result(cmp) != Some(*cond)
            || !ld.contains(then_dest.block)
            || ld.contains(else_dest.block)
            || !then_dest.args.is_empty()
            || then_dest.block == header
        {
            return None;
        }
        let body = then_dest.block;
        // No `detach`, `reattach` or `sync` among its blocks, and the
        // header's exit edge is the loop's only one.
        if facts.tapir.contains(lp) || ld.exiting.iter().any(|&b| b != header) {
            return None;
        }
        if an.cfg.preds(body) != [header] {
            return None;
        }
        for &l in &ld.latches {
            let t = func.terminator(l)?;
            if !matches!(func.inst(t), InstKind::Jump(_) | InstKind::Brif { .. }) {
                return None;
            }
        }
        let mut chain = vec![body];
        let mut cur = body;
        while let Some(t) = func.terminator(cur) {
            let InstKind::Jump(d) = func.inst(t) else {
                break;
            };
            let next = d.block;
            if !ld.contains(next)
                || next == header
                || an.cfg.preds(next) != [cur]
                || chain.contains(&next)
            {
                break;
            }
            chain.push(next);
            cur = next;
        }
        Some(LoopShape {
            header,
            preheader,
            cmp,
            br,
            chain,
            latches: ld.latches.clone(),
            loop_blocks: ld.blocks.clone(),
        })
    }
}

/// One promoted address: its type and its loads and stores, in order.
struct Promotion {
    addr: Value,
    ty: Type,
    accesses: Vec<Inst>,
    /// Other instructions of the loop may read the address: its stores
    /// stay where they are, so that memory is current for them.
    keep_stores: bool,
}

/// What the rewrite of one loop does: the addresses it promotes, and
/// the header's test and the exit's arguments on the loop's initial
/// values (for the preheader).
struct Plan {
    addrs: Vec<Promotion>,
    test: (Value, Value),
    exit_args: Vec<Value>,
    /// The header's parameters used after the loop, with their initial
    /// values: the exit takes them as parameters.
    used_after: Vec<(Value, Value)>,
}

/// The addresses of the loop that may be promoted (see the module doc),
/// if any.
fn promotable(
    func: &Function,
    an: &FunctionAnalyses,
    facts: &Facts,
    lp: Loop,
    shape: &LoopShape,
    modref: &ModRefAnalysis,
    aa: &AliasAnalysis,
) -> Option<Plan> {
    let ld = an.loops.data(lp);
    let outside = |v: Value| facts.outside(func, ld, v);
    // The candidates: invariant addresses stored to on the start.
    let mut cands: Vec<Promotion> = Vec::new();
    for &b in &shape.chain {
        for &i in func.block_insts(b) {
            if let InstKind::Store { value, ptr } = func.inst(i)
                && outside(*ptr)
                && !cands.iter().any(|c| c.addr == *ptr)
            {
                cands.push(Promotion {
                    addr: *ptr,
                    ty: func.value_type(*value),
                    accesses: Vec::new(),
                    keep_stores: false,
                });
            }
        }
    }
    if cands.is_empty() {
        return None;
    }
    let on_chain: HashSet<Block> = shape.chain.iter().copied().collect();
    let mut out = Vec::new();
    'cand: for mut c in cands {
        let here = MemSet {
            locs: vec![Loc {
                ptr: c.addr,
                size: Some(type_size(c.ty)),
            }],
            any: false,
        };
        // Every access at `p` on the start, of one type; nothing else
        // touches it.
        for &b in &ld.blocks {
            for &i in func.block_insts(b) {
                let own = match func.inst(i) {
                    InstKind::Load(p) if *p == c.addr => {
                        func.result(i).map(|r| func.value_type(r)) == Some(c.ty)
                    }
                    InstKind::Store { value, ptr } if *ptr == c.addr => {
                        func.value_type(*value) == c.ty
                    }
                    _ => {
                        let e = inst_effects(modref, func, i);
                        if may_overlap(aa, func, &e.writes, &here) {
                            continue 'cand;
                        }
                        if may_overlap(aa, func, &e.reads, &here) {
                            c.keep_stores = true;
                        }
                        continue;
                    }
                };
                if !own || !on_chain.contains(&b) {
                    continue 'cand;
                }
            }
        }
        // In order, and nothing that may not return before the first.
        let mut first = true;
        for &b in &shape.chain {
            for &i in func.block_insts(b) {
                let mine = matches!(func.inst(i), InstKind::Load(p) if *p == c.addr)
                    || matches!(func.inst(i), InstKind::Store { ptr, .. } if *ptr == c.addr);
                if mine {
                    c.accesses.push(i);
                    first = false;
                } else if first && !always_returns(func, func.inst(i)) {
                    continue 'cand;
                }
            }
        }
        out.push(c);
    }
    if out.is_empty() {
        return None;
    }
    // Outside the loop, only the header's parameters may be used (the
    // exit is the header's, so nothing else of the loop reaches it), and
    // only if the exit is entered from the header alone: the exit then
    // takes them as parameters, which the bypass passes as their initial
    // values. (A walk over the function, so only for a loop with
    // addresses to promote.)
    let exit = match func.inst(shape.br) {
        InstKind::Brif { else_dest, .. } => else_dest.block,
        _ => return None,
    };
    let header_params: HashSet<Value> = func.block_params(shape.header).iter().copied().collect();
    let mut used_after: Vec<Value> = Vec::new();
    for (b, i) in func.placed_insts() {
        if ld.contains(b) {
            continue;
        }
        for v in func.inst(i).operands() {
            if outside(v) {
                continue;
            }
            if !header_params.contains(&v) || an.cfg.preds(exit) != [shape.header] {
                return None;
            }
            if !used_after.contains(&v) {
                used_after.push(v);
            }
        }
    }
    // The preheader's copy of the header's test needs its operands and
    // the exit's arguments in terms of the loop's initial values.
    let (a, b, exit_args) = guard_operands(func, shape, &outside)?;
    let entry = match func.inst(func.terminator(shape.preheader)?) {
        InstKind::Jump(entry) => entry,
        _ => return None,
    };
    let params = func.block_params(shape.header);
    let used_after = used_after
        .into_iter()
        .map(|v| {
            let k = params.iter().position(|&q| q == v)?;
            Some((v, *entry.args.get(k)?))
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Plan {
        addrs: out,
        test: (a, b),
        exit_args,
        used_after,
    })
}

/// The header's compare operands and the exit's arguments on the loop's
/// initial values (the header's parameters replaced by what the
/// preheader passes), if all of them are invariant or parameters.
fn guard_operands(
    func: &Function,
    shape: &LoopShape,
    outside: &dyn Fn(Value) -> bool,
) -> Option<(Value, Value, Vec<Value>)> {
    let InstKind::Icmp(_, a, b) = *func.inst(shape.cmp) else {
        return None;
    };
    let InstKind::Brif { else_dest, .. } = func.inst(shape.br) else {
        return None;
    };
    let InstKind::Jump(entry) = func.inst(func.terminator(shape.preheader)?) else {
        return None;
    };
    let params = func.block_params(shape.header);
    let subst = |v: Value| -> Option<Value> {
        match params.iter().position(|&q| q == v) {
            Some(k) => entry.args.get(k).copied(),
            None => outside(v).then_some(v),
        }
    };
    let args = else_dest
        .args
        .iter()
        .map(|&v| subst(v))
        .collect::<Option<Vec<Value>>>()?;
    Some((subst(a)?, subst(b)?, args))
}

/// Performs the rewrite of the module doc.
fn rewrite(func: &mut Function, shape: &LoopShape, plan: &Plan) {
    let addrs = &plan.addrs;
    let (a0, b0) = plan.test;
    let InstKind::Icmp(cc, ..) = *func.inst(shape.cmp) else {
        unreachable!("checked by LoopShape::of")
    };
    let InstKind::Brif { else_dest, .. } = func.inst(shape.br).clone() else {
        unreachable!("checked by LoopShape::of")
    };
    let pt = func.terminator(shape.preheader).expect("a preheader jumps");
    let InstKind::Jump(entry) = func.inst(pt).clone() else {
        unreachable!("checked by LoopShape::of")
    };
    let loc = func.locs[shape.cmp];
    let at = func
        .layout
        .iter()
        .position(|&b| b == shape.header)
        .unwrap_or(func.layout.len());

    // G: the loads; the header's new parameters.
    let g = func.create_block();
    let x = func.create_block();
    func.layout.insert(at, g);
    let mut g_args = entry.args.clone();
    let mut params = Vec::new();
    for c in addrs {
        let l = func.append_inst(g, InstKind::Load(c.addr), Some(c.ty));
        func.locs[l] = func.locs[c.accesses[0]];
        g_args.push(func.result(l).expect("a load has a result"));
        params.push(func.append_block_param(shape.header, c.ty));
    }
    let j = func.append_inst(
        g,
        InstKind::Jump(BlockCall::new(shape.header, g_args)),
        None,
    );
    func.locs[j] = func.locs[pt];

    // P: the header's test on the initial values.
    let c0 = func.make_inst(InstKind::Icmp(cc, a0, b0), Some(Type::I1));
    func.locs[c0] = loc;
    let n = func.blocks[shape.preheader].insts.len();
    func.blocks[shape.preheader].insts.insert(n - 1, c0);
    let c0v = func.result(c0).expect("icmp has a result");
    *func.inst_mut(pt) = InstKind::Brif {
        cond: c0v,
        then_dest: BlockCall::to(g),
        else_dest: BlockCall::new(
            else_dest.block,
            plan.exit_args
                .iter()
                .copied()
                .chain(plan.used_after.iter().map(|&(_, init)| init))
                .collect(),
        ),
    };

    // B: loads read the current value, stores set it.
    let mut current: Vec<Value> = params.clone();
    let mut removed: HashSet<Inst> = HashSet::new();
    let mut replace: HashMap<Value, Value> = HashMap::new();
    for &b in &shape.chain {
        for &i in &func.blocks[b].insts.clone() {
            for (k, c) in addrs.iter().enumerate() {
                if !c.accesses.contains(&i) {
                    continue;
                }
                match *func.inst(i) {
                    InstKind::Load(_) => {
                        let r = func.result(i).expect("a load has a result");
                        replace.insert(r, current[k]);
                    }
                    InstKind::Store { value, .. } => {
                        current[k] = replace.get(&value).copied().unwrap_or(value);
                        if c.keep_stores {
                            continue;
                        }
                    }
                    _ => unreachable!("accesses are loads and stores"),
                }
                removed.insert(i);
            }
        }
        func.blocks[b].insts.retain(|i| !removed.contains(i));
    }
    for (&from, &to) in &replace {
        func.replace_uses(from, to);
    }
    // The back edges pass the last values stored.
    for &l in &shape.latches {
        let t = func.terminator(l).expect("a latch branches");
        match func.inst_mut(t) {
            InstKind::Jump(d) => d.args.extend(current.iter().copied()),
            InstKind::Brif {
                then_dest,
                else_dest,
                ..
            } => {
                for d in [then_dest, else_dest] {
                    if d.block == shape.header {
                        d.args.extend(current.iter().copied());
                    }
                }
            }
            _ => unreachable!("a latch ends in a jump or a brif into the header"),
        }
    }

    // X: the stores, on the way out.
    func.layout.insert(at + 1, x);
    for (c, &v) in addrs.iter().zip(&params) {
        if c.keep_stores {
            continue;
        }
        let s = func.append_inst(
            x,
            InstKind::Store {
                value: v,
                ptr: c.addr,
            },
            None,
        );
        func.locs[s] = func.locs[*c.accesses.last().expect("one access at least")];
    }
    let mut out = else_dest.clone();
    out.args.extend(plan.used_after.iter().map(|&(h, _)| h));
    let j = func.append_inst(x, InstKind::Jump(out), None);
    func.locs[j] = loc;
    // What used the header's parameters after the loop uses the exit's.
    for &(h, _) in &plan.used_after {
        let e = func.append_block_param(else_dest.block, func.value_type(h));
        for (b, i) in func.placed_insts().collect::<Vec<_>>() {
            if b != x && !shape.loop_blocks.has(b) {
                func.inst_mut(i)
                    .map_operands(|v| if v == h { e } else { v });
            }
        }
    }
    if let InstKind::Brif { else_dest, .. } = func.inst_mut(shape.br) {
        *else_dest = BlockCall::to(x);
    }
}
