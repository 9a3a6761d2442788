//! `loop-load-elim`: a load that reads what the previous iteration of its
//! loop stored at the same address takes the stored value from a block
//! parameter instead, as LLVM's LoopLoadElimination does for a distance of
//! one iteration.
//!
//! The case that matters is the AD's: the reverse of a stencil adds into
//! its neighbours' adjoints, `d[k+1] += ..; d[k-1] += ..; d[k] += ..`, and
//! with `k` counting down, the next iteration's `d[k'+1]` is this one's
//! `d[k]`. Through memory, each of those adds waits for a store to be
//! forwarded to a load; through a register it waits for the add alone.
//!
//! # Not part of `pipeline()`
//! It runs in [`codegen_prepare`](crate::codegen_prepare), after
//! `loop-rotate`: a rotated innermost loop is one block, which is the only
//! shape handled here.
//!
//! # What is forwarded
//! A loop of one block `B` (its own header and latch) with no `detach`,
//! `reattach` or `sync`, entered only by a `jump B(..)` from its preheader
//! `P`, with counters: parameters `p` whose back-edge argument is
//! `p + K` or `p - K` for a constant `K` (`p`'s step is `±K`). A load `L`
//! and a store `S` of `B`, of the same type, are paired when
//! - `L`'s address in the next iteration (every counter advanced by its
//!   step) is `S`'s address in this one. Both are
//!   decomposed into a base pointer (a value defined outside `B`) plus a
//!   `Lin`ear form of the offset: sums of constants times counters or
//!   values defined outside `B`, modulo 2^w in the width w of each integer
//!   operation, with a `sext`/`zext` of a linear form an atom of its own
//!   (equal to another when their operands' forms are equal). That covers
//!   the AD's 32-bit indices such as `sext(i * n + j + 1)`, where the
//!   next iteration's form is the form with the counters advanced, exactly,
//!   wrapping included.
//! - nothing between `S` in one iteration and `L` in the next may write
//!   `S`'s bytes: every store after `S` in `B` (in this iteration) and
//!   before `L` in `B` (in the next, `S` itself included) provably misses
//!   them, and so do the locations of other instructions that write
//!   memory (calls, intrinsics). A miss is proven by different bases that
//!   alias analysis separates, or by the same base and offsets whose
//!   difference is a constant at least the access size, or
//!   `c · (ext(X) − ext(Y))` with `X − Y` a nonzero constant and `|c|` at
//!   least the access size.
//!
//! # The rewrite
//! `B` gets a parameter `φ`; the back edge passes `S`'s stored value, and
//! `P` loads `L`'s address in the first iteration (the address's
//! arithmetic is copied into `P`, with the counters replaced by `P`'s
//! arguments) and passes it. `L`'s uses take `φ`, and `L` goes. The first
//! iteration's `L` read memory that nothing in `B` before it wrote (the
//! condition above, which holds in every iteration), so the
//! load in `P` reads the same value; and `L` ran in every iteration, the
//! first included, so the load in `P` touches no address the loop did not.
//!
//! A loop whose loads times writes exceed `MAX_PAIRS` is left alone (each
//! load is compared with each write).
//!
//! Statistics: `loop-load-elim.forwarded`.

use crate::PassContext;
use crate::analysis::alias::{AliasAnalysis, AliasResult, GlobalFacts, type_size};
use crate::analysis::modref::{ModRefAnalysis, inst_effects};
use crate::analysis::tripcount::step_of;
use crate::{HashMap, HashSet};
use parc_ir::analysis::FunctionAnalyses;
use parc_ir::{
    BinaryOp, Block, BlockCall, CastOp, Function, Inst, InstKind, Module, Type, Value, ValueDef,
};
use std::collections::BTreeMap;

/// The most values one address's linear form may visit.
const MAX_LIN_VISITS: u32 = 64;
/// Loops with more loads times writes than this are left alone.
const MAX_PAIRS: usize = 4096;

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let ids = crate::functions_with_loops(module, &mut ctx.analyses);
    if ids.is_empty() {
        return false;
    }
    let modref = ModRefAnalysis::compute(module);
    let globals = GlobalFacts::new(module);
    let mut forwarded = 0;
    let changed = crate::for_each_of(module, &ids, |f| {
        let n = run_function(f, &globals, &modref);
        forwarded += n;
        n > 0
    });
    ctx.count("loop-load-elim.forwarded", forwarded);
    changed
}

/// Forwards what it can in `func`'s loops; returns how many loads went.
pub fn run_function(func: &mut Function, globals: &GlobalFacts, modref: &ModRefAnalysis) -> u64 {
    let an = FunctionAnalyses::compute(func);
    let mut loops = Vec::new();
    for lp in an.loops.loops() {
        let data = an.loops.data(lp);
        if let ([block], Some(pre)) = (&data.blocks[..], data.preheader) {
            loops.push((*block, pre));
        }
    }
    if loops.is_empty() {
        return 0;
    }
    // Each rewrite changes only its own loop and preheader, which no other
    // one-block loop shares, and captures nothing (new loads and address
    // arithmetic), so one alias analysis serves all.
    let aa = modref.alias_analysis(func, globals);
    let mut forwarded = 0;
    for (block, preheader) in loops {
        let Some(lp) = OneBlockLoop::new(func, block, preheader) else {
            continue;
        };
        let pairs = lp.pairs(func, &aa, modref);
        forwarded += pairs.len() as u64;
        for pair in pairs {
            lp.forward(func, pair);
        }
    }
    forwarded
}

/// A linear form `konst + Σ coef · atom` of an integer of `bits` bits,
/// modulo 2^bits (coefficients and constant kept reduced).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Lin {
    bits: u32,
    terms: BTreeMap<Atom, u64>,
    konst: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Atom {
    /// The loop's counter of this index (its low `bits` bits, in a
    /// narrower form).
    Counter(usize),
    /// A value defined outside the loop (its low `bits` bits).
    Invariant(Value),
    /// `sext` (`signed`) or `zext` of a narrower form.
    Ext { signed: bool, of: Box<Lin> },
}

impl Lin {
    fn mask(bits: u32) -> u64 {
        if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        }
    }

    fn constant(bits: u32, k: u64) -> Lin {
        Lin {
            bits,
            terms: BTreeMap::new(),
            konst: k & Lin::mask(bits),
        }
    }

    fn atom(bits: u32, atom: Atom) -> Lin {
        let mut terms = BTreeMap::new();
        terms.insert(atom, 1);
        Lin {
            bits,
            terms,
            konst: 0,
        }
    }

    fn as_constant(&self) -> Option<u64> {
        self.terms.is_empty().then_some(self.konst)
    }

    /// `self + k · other`.
    fn add_scaled(mut self, other: &Lin, k: u64) -> Lin {
        let m = Lin::mask(self.bits);
        self.konst = self.konst.wrapping_add(other.konst.wrapping_mul(k)) & m;
        for (atom, &c) in &other.terms {
            let e = self.terms.entry(atom.clone()).or_insert(0);
            *e = e.wrapping_add(c.wrapping_mul(k)) & m;
        }
        self.terms.retain(|_, c| *c != 0);
        self
    }

    fn scale(self, k: u64) -> Lin {
        Lin::constant(self.bits, 0).add_scaled(&self, k)
    }

    /// The low `bits` bits.
    fn truncate(self, bits: u32) -> Lin {
        let m = Lin::mask(bits);
        let mut terms = BTreeMap::new();
        for (atom, c) in self.terms {
            if c & m != 0 {
                terms.insert(atom, c & m);
            }
        }
        Lin {
            bits,
            terms,
            konst: self.konst & m,
        }
    }

    /// The form in the next iteration: each counter advanced by its step.
    fn advanced(&self, steps: &[i64]) -> Lin {
        let mut out = Lin::constant(self.bits, self.konst);
        for (atom, &c) in &self.terms {
            let part = match atom {
                &Atom::Counter(n) => Lin::atom(self.bits, Atom::Counter(n))
                    .add_scaled(&Lin::constant(self.bits, steps[n] as u64), 1),
                Atom::Invariant(_) => Lin::atom(self.bits, atom.clone()),
                Atom::Ext { signed, of } => {
                    let of = of.advanced(steps);
                    match of.as_constant() {
                        Some(k) => Lin::constant(self.bits, extend(k, of.bits, *signed)),
                        None => Lin::atom(
                            self.bits,
                            Atom::Ext {
                                signed: *signed,
                                of: Box::new(of),
                            },
                        ),
                    }
                }
            };
            out = out.add_scaled(&part, c);
        }
        out
    }
}

/// `k`, a `from`-bit integer, extended to 64 bits.
fn extend(k: u64, from: u32, signed: bool) -> u64 {
    if from >= 64 {
        return k;
    }
    if signed {
        let shift = 64 - from;
        (((k << shift) as i64) >> shift) as u64
    } else {
        k & Lin::mask(from)
    }
}

/// The width of an integer or pointer type.
fn int_bits(ty: Type) -> Option<u32> {
    (ty.is_int() || ty == Type::Ptr).then(|| ty.bits())
}

/// An address: a base pointer defined outside the loop plus a byte offset.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Addr {
    base: Value,
    offset: Lin,
}

/// A memory access of the loop's block.
struct Access {
    /// Position in the block.
    at: usize,
    inst: Inst,
    addr: Option<Addr>,
    size: Option<u64>,
}

/// A load to replace by the value a store of the previous iteration wrote.
#[derive(Clone, Copy)]
struct Pair {
    load: Inst,
    store: Inst,
}

struct OneBlockLoop {
    block: Block,
    /// `block`'s instructions when the loop was found.
    insts: HashSet<Inst>,
    preheader: Block,
    /// The counters: parameters that advance by a constant step.
    counters: Vec<Value>,
    steps: Vec<i64>,
}

impl OneBlockLoop {
    fn new(func: &Function, block: Block, preheader: Block) -> Option<OneBlockLoop> {
        if func.ends_in_tapir(block) {
            return None;
        }
        match func.terminator(preheader).map(|t| func.inst(t)) {
            Some(InstKind::Jump(call)) if call.block == block => {}
            _ => return None,
        }
        let back = back_edge(func, block)?;
        let (mut counters, mut steps) = (Vec::new(), Vec::new());
        for (i, &p) in func.block_params(block).iter().enumerate() {
            let Some(bits) = int_bits(func.value_type(p)) else {
                continue;
            };
            if func.value_type(p) == Type::Ptr || bits < 8 {
                continue;
            }
            let Some(&arg) = back.args.get(i) else {
                continue;
            };
            if let Some(step) = step_of(func, arg, p).filter(|&s| s != 0) {
                counters.push(p);
                steps.push(step);
            }
        }
        (!counters.is_empty()).then(|| OneBlockLoop {
            block,
            insts: func.block_insts(block).iter().copied().collect(),
            preheader,
            counters,
            steps,
        })
    }

    fn in_block(&self, func: &Function, v: Value) -> bool {
        match func.value_def(v) {
            ValueDef::Param(b, _) => b == self.block,
            ValueDef::Result(i) => self.insts.contains(&i),
        }
    }

    /// The linear form of integer `v` in `bits` bits.
    fn lin(&self, func: &Function, v: Value, bits: u32) -> Option<Lin> {
        let mut budget = MAX_LIN_VISITS;
        self.lin_within(func, v, bits, &mut budget)
    }

    /// [`lin`](Self::lin), visiting at most `budget` more values (the
    /// walk is not memoized: a chain of `x + x` would be exponential).
    fn lin_within(&self, func: &Function, v: Value, bits: u32, budget: &mut u32) -> Option<Lin> {
        *budget = budget.checked_sub(1)?;
        if let Some(n) = self.counters.iter().position(|&c| c == v) {
            return Some(Lin::atom(bits, Atom::Counter(n)));
        }
        if let Some(k) = func.const_int(v) {
            return Some(Lin::constant(bits, k as u64));
        }
        if !self.in_block(func, v) {
            return Some(Lin::atom(bits, Atom::Invariant(v)));
        }
        let ValueDef::Result(inst) = func.value_def(v) else {
            return None;
        };
        match *func.inst(inst) {
            InstKind::Binary(op, a, b) => {
                let x = self.lin_within(func, a, bits, budget)?;
                match op {
                    BinaryOp::Iadd => {
                        Some(x.add_scaled(&self.lin_within(func, b, bits, budget)?, 1))
                    }
                    BinaryOp::Isub => {
                        Some(x.add_scaled(&self.lin_within(func, b, bits, budget)?, u64::MAX))
                    }
                    BinaryOp::Imul => match (x.as_constant(), func.const_int(b)) {
                        (_, Some(k)) => Some(x.scale(k as u64)),
                        (Some(k), None) => Some(self.lin_within(func, b, bits, budget)?.scale(k)),
                        (None, None) => None,
                    },
                    BinaryOp::Shl => {
                        let k = func.const_int(b)?;
                        (0..bits as i64).contains(&k).then(|| x.scale(1u64 << k))
                    }
                    _ => None,
                }
            }
            InstKind::Cast(op @ (CastOp::Sext | CastOp::Zext), a) => {
                let from = int_bits(func.value_type(a))?;
                let of = self.lin_within(func, a, from, budget)?;
                let signed = op == CastOp::Sext;
                let wide = match of.as_constant() {
                    Some(k) => Lin::constant(64, extend(k, from, signed)),
                    None => Lin::atom(
                        64,
                        Atom::Ext {
                            signed,
                            of: Box::new(of),
                        },
                    ),
                };
                Some(wide.truncate(bits))
            }
            InstKind::Cast(CastOp::Trunc, a) => {
                let from = int_bits(func.value_type(a))?;
                Some(self.lin_within(func, a, from, budget)?.truncate(bits))
            }
            _ => None,
        }
    }

    fn addr(&self, func: &Function, ptr: Value) -> Option<Addr> {
        if !self.in_block(func, ptr) {
            return Some(Addr {
                base: ptr,
                offset: Lin::constant(64, 0),
            });
        }
        let ValueDef::Result(inst) = func.value_def(ptr) else {
            return None;
        };
        let InstKind::PtrAdd(p, off) = *func.inst(inst) else {
            return None;
        };
        let mut a = self.addr(func, p)?;
        a.offset = a.offset.add_scaled(&self.lin(func, off, 64)?, 1);
        Some(a)
    }

    /// The loop's memory writes and loads, in order.
    fn accesses(
        &self,
        func: &Function,
        modref: &ModRefAnalysis,
    ) -> Option<(Vec<Access>, Vec<Access>)> {
        let (mut writes, mut loads) = (Vec::new(), Vec::new());
        for (at, &inst) in func.block_insts(self.block).iter().enumerate() {
            match *func.inst(inst) {
                InstKind::Load(ptr) => {
                    let ty = func.value_type(func.result(inst)?);
                    loads.push(Access {
                        at,
                        inst,
                        addr: self.addr(func, ptr),
                        size: Some(type_size(ty)),
                    });
                }
                InstKind::Store { value, ptr } => writes.push(Access {
                    at,
                    inst,
                    addr: self.addr(func, ptr),
                    size: Some(type_size(func.value_type(value))),
                }),
                _ => {
                    let effects = inst_effects(modref, func, inst);
                    if effects.writes.any {
                        return None;
                    }
                    for loc in effects.writes.locs {
                        // An unknown extent at `loc.ptr`: only a base
                        // that alias analysis separates misses it.
                        writes.push(Access {
                            at,
                            inst,
                            addr: Some(Addr {
                                base: loc.ptr,
                                offset: Lin::constant(64, 0),
                            }),
                            size: None,
                        });
                    }
                }
            }
        }
        Some((writes, loads))
    }

    fn pairs(&self, func: &Function, aa: &AliasAnalysis, modref: &ModRefAnalysis) -> Vec<Pair> {
        let Some((writes, loads)) = self.accesses(func, modref) else {
            return Vec::new();
        };
        // Every load is compared with every write.
        if writes.len() * loads.len() > MAX_PAIRS {
            return Vec::new();
        }
        let mut pairs = Vec::new();
        for load in &loads {
            let Some(la) = &load.addr else { continue };
            let ty = func.result(load.inst).map(|r| func.value_type(r));
            let next = Addr {
                base: la.base,
                offset: la.offset.advanced(&self.steps),
            };
            // The last store there: an earlier one is overwritten.
            let store = writes.iter().rev().find(|w| {
                w.addr.as_ref() == Some(&next)
                    && matches!(*func.inst(w.inst), InstKind::Store { value, .. }
                        if Some(func.value_type(value)) == ty)
            });
            let Some(store) = store else { continue };
            let size = store.size.unwrap_or(0);
            let clear = writes.iter().all(|w| {
                let after_store = w.at > store.at;
                let before_load = w.at < load.at;
                let this_iteration = after_store
                    && w.addr
                        .as_ref()
                        .is_some_and(|a| misses(func, aa, a, w.size, &next, size));
                let next_iteration = before_load
                    && w.addr.as_ref().is_some_and(|a| {
                        let a = Addr {
                            base: a.base,
                            offset: a.offset.advanced(&self.steps),
                        };
                        misses(func, aa, &a, w.size, &next, size)
                    });
                (!after_store || this_iteration) && (!before_load || next_iteration)
            });
            if clear {
                pairs.push(Pair {
                    load: load.inst,
                    store: store.inst,
                });
            }
        }
        pairs
    }

    fn forward(&self, func: &mut Function, pair: Pair) {
        let (InstKind::Load(ptr), Some(old)) =
            (func.inst(pair.load).clone(), func.result(pair.load))
        else {
            return;
        };
        let InstKind::Store { value, .. } = *func.inst(pair.store) else {
            return;
        };
        let ty = func.value_type(old);
        let Some(InstKind::Jump(entry)) = func
            .terminator(self.preheader)
            .map(|t| func.inst(t).clone())
        else {
            return;
        };
        // Each parameter of `B` at its initial value: `P`'s argument.
        let mut made: HashMap<Value, Value> = func
            .block_params(self.block)
            .iter()
            .copied()
            .zip(entry.args.iter().copied())
            .collect();
        let first = self.materialize(func, ptr, &mut made);
        let load = func.make_inst(InstKind::Load(first), Some(ty));
        insert_before_terminator(func, self.preheader, load);
        let Some(loaded) = func.result(load) else {
            return;
        };
        let phi = func.append_block_param(self.block, ty);
        if let Some(t) = func.terminator(self.preheader)
            && let InstKind::Jump(call) = func.inst_mut(t)
        {
            call.args.push(loaded);
        }
        if let Some(t) = func.terminator(self.block) {
            for call in func.inst_mut(t).block_calls_mut() {
                if call.block == self.block {
                    call.args.push(value);
                }
            }
        }
        func.replace_uses(old, phi);
        func.blocks[self.block].insts.retain(|&i| i != pair.load);
    }

    /// `v` in the first iteration, computed in the preheader; `made` maps
    /// `B`'s parameters to their initial values, and what it computes.
    fn materialize(
        &self,
        func: &mut Function,
        v: Value,
        made: &mut HashMap<Value, Value>,
    ) -> Value {
        if let Some(&m) = made.get(&v) {
            return m;
        }
        if !self.in_block(func, v) {
            return v;
        }
        let ValueDef::Result(inst) = func.value_def(v) else {
            return v;
        };
        let mut kind = func.inst(inst).clone();
        let mut operands = Vec::new();
        kind.map_operands(|o| {
            operands.push(o);
            o
        });
        let copies: Vec<Value> = operands
            .into_iter()
            .map(|o| self.materialize(func, o, made))
            .collect();
        let mut n = 0;
        kind.map_operands(|_| {
            n += 1;
            copies[n - 1]
        });
        let copy = func.make_inst(kind, Some(func.value_type(v)));
        func.locs[copy] = func.locs[inst];
        insert_before_terminator(func, self.preheader, copy);
        let result = func.result(copy).unwrap_or(v);
        made.insert(v, result);
        result
    }
}

/// The branch from `block` back to itself.
fn back_edge(func: &Function, block: Block) -> Option<&BlockCall> {
    let t = func.terminator(block)?;
    let mut calls = func
        .inst(t)
        .block_calls()
        .into_iter()
        .filter(|c| c.block == block);
    let (Some(call), None) = (calls.next(), calls.next()) else {
        return None;
    };
    Some(call)
}

fn insert_before_terminator(func: &mut Function, block: Block, inst: Inst) {
    let insts = &mut func.blocks[block].insts;
    let at = insts.len().saturating_sub(1);
    insts.insert(at, inst);
}

/// True if `size_a` bytes at `a` and `size_b` bytes at `b` cannot overlap
/// (`None`: unknown extent).
fn misses(
    func: &Function,
    aa: &AliasAnalysis,
    a: &Addr,
    size_a: Option<u64>,
    b: &Addr,
    size_b: u64,
) -> bool {
    if a.base != b.base {
        return aa.alias(func, a.base, None, b.base, None) == AliasResult::NoAlias;
    }
    let Some(size_a) = size_a else { return false };
    let diff = a.offset.clone().add_scaled(&b.offset, u64::MAX);
    if let Some(d) = diff.as_constant() {
        let d = d as i64;
        return d >= size_b as i64 || d <= -(size_a as i64);
    }
    // `c · ext(X) − c · ext(Y)`, `X − Y` a nonzero constant: the offsets
    // differ by at least `|c|`.
    if diff.konst != 0 || diff.terms.len() != 2 {
        return false;
    }
    let mut terms = diff.terms.iter();
    let (Some((x, &cx)), Some((y, &cy))) = (terms.next(), terms.next()) else {
        return false;
    };
    let (Atom::Ext { signed: sx, of: ox }, Atom::Ext { signed: sy, of: oy }) = (x, y) else {
        return false;
    };
    if sx != sy || ox.bits != oy.bits || cx.wrapping_add(cy) != 0 {
        return false;
    }
    let inner = ox.as_ref().clone().add_scaled(oy, u64::MAX);
    let c = (cx as i64).unsigned_abs();
    inner.as_constant().is_some_and(|k| k != 0) && c < 1 << 20 && c >= size_a.max(size_b)
}
