//! `inline`: replaces direct calls of small functions by a copy of the
//! callee's body.
//!
//! # Order
//! Bottom-up over the call graph: its strongly connected components are
//! visited callees first (Tarjan), so a callee has already received its own
//! inlining when its size is judged and its body copied. Only the call
//! sites present before a function's turn are considered; calls that
//! arrive inside an inlined body were already judged in the callee.
//!
//! A function that received inlined bodies is cleaned (`simplify-cfg`,
//! `instcombine`, `dce`) before its own callers' turn, so it is judged and copied at its
//! simplified size.
//!
//! # Cost model
//! The size of a function is its number of placed instructions
//! (terminators included). A call of `g` is inlined when all hold:
//! - `g` has a body (not `import`) and is not a kernel; a device function
//!   is inlined into kernels and device functions, a host function into
//!   any function, but into kernels and device functions (which may call
//!   plain host functions) only if it launches no kernel
//!   (`inline.skipped.declaration`, `.kind`);
//! - `g` is not recursive: not in a call-graph cycle, itself included
//!   (`.recursive`) — except one level of self-recursion (below);
//! - `g` has no `detach`, `reattach` or `sync` (`.tapir`): its sync regions
//!   would have to become fresh regions of the caller and its implicit
//!   syncs before returns would have to stay in place; that is possible but
//!   not worth the risk yet, and spawning callees are rarely small;
//! - `g` cannot fall off its end (`.may-fall-off-end`: an `unreachable`
//!   not preceded by `exit`): reaching it is a run-time error that names
//!   the function it happens in, and that must stay `g`;
//! - no address of one of `g`'s `alloca`s can outlive the call: none is
//!   returned, stored to memory or turned into an integer (`.escaping-alloca`).
//!   In ParC such a pointer dangles; inlined, the object would live on in
//!   the caller's frame and the interpreter could no longer report the
//!   use after return;
//! - `g` has no loop, or the call is in no loop of the caller
//!   (`.loop-in-loop`): a loop called from a loop is where LICM and the
//!   Tapir lowering want to see one call — Tapir's `normalize` example
//!   hoists `mag(in, n)` out of the parallel loop only while it is a call;
//! - `size(g) <=` [`MAX_SIZE`], or `<=` [`MAX_SIZE_ONE_SITE`] when the call
//!   is the only call of a `local` (`static`) `g` in the module, so the
//!   copy replaces `g` and the program does not grow (`.too-big`): `g`
//!   is retired once its caller's turn is over (`inline.retired`; its
//!   name stays for the positions copied from it), unless its address is
//!   taken or a gradient request names it. An
//!   exported `g` stays for callers outside the module: each copy of it
//!   is growth, and a chain of once-called exported functions would grow
//!   every link by the whole chain below it, up to the larger limit;
//! - the caller stays below [`MAX_CALLER_SIZE`] (`.caller-too-big`), which
//!   bounds the growth of any one function;
//! - the module's growth stays within its budget (`.unit-growth`): the
//!   copies that do not replace their callee add at most
//!   [`UNIT_GROWTH_PERCENT`] of the module's size before inlining, or
//!   [`UNIT_GROWTH_MIN`] instructions if that is more. Bottom-up, the
//!   budget goes to the calls met first; once it is spent, calls stay
//!   calls. This bounds the whole program as `MAX_CALLER_SIZE` bounds one
//!   function (a library of 20,000 exported functions each calling the
//!   next would otherwise grow every one of them to `MAX_SIZE`);
//! - the call is reachable from the caller's entry (`.unreachable`).
//!
//! **Self-recursion.** A function whose only cycle is a call of itself
//! gets copies of its own body, as it was before its turn, at its
//! self-calls when that body meets the rules above (no Tapir terminators,
//! no escaping `alloca`, cannot fall off its end, at most [`MAX_SIZE`]):
//! - with several self-calls (fib's two), one round: a copy at each, if
//!   the body has no loop. The recursion then makes half the calls, each
//!   doing the work of two levels; a second round would double the size
//!   again.
//! - with one self-call (linear recursion, such as fib after `tail-rec`
//!   turned its second call into a loop), [`LINEAR_SELF_COPIES`] rounds, a
//!   copy at the self-call each, so the body grows linearly and a call does
//!   the work of that many more levels (gcc -O2 inlines recursion this way).
//!   Loops are allowed here, except when the self-call is in a loop and
//!   none of its arguments changes in that loop: LICM might hoist it, and
//!   a copy would hide it.
//!
//! The copied calls stay calls, so the function is still recursive:
//! unbounded recursion still overflows the stack and is reported
//! (`tests/run/infinite_recursion.pc`), only with larger frames; run-time
//! errors in the copies name the function, which is the same one. Counted
//! as `inline.self`.
//!
//! # The transformation
//! The call's block is split after the call: the instructions after it move
//! to a continuation block, which takes the call's result (if any) as a
//! block parameter. The callee's blocks are copied between the two, its
//! values and blocks renamed, its entry parameters replaced by the call's
//! arguments, each `return v` turned into a jump to the continuation
//! passing `v`, and its source positions kept (a fault in inlined code is
//! reported at the callee's line — but in the caller's name: parir's
//! `SrcLoc` has no "inlined from").
//!
//! `alloca`s keep their meaning: a fresh, zero-filled object per execution
//! of the call, private to the task that runs it. They move to the caller's
//! entry block — or, when the call is inside a task (a `parallel_for` body,
//! a spawned statement), to the top of the first block of the innermost
//! such task, so that each task execution still has its own object (an
//! `alloca` in the caller's entry would be shared by every iteration of a
//! parallel loop: a race). That block runs once per execution of the
//! enclosing function or task; when the call is inside a loop nested in
//! that scope, it runs more often than the block, so the inlined body
//! first re-zeroes each moved object (a zero store for a 1-, 4- or 8-byte
//! object, `memset` otherwise). "Inside a loop" means a natural loop:
//! ParC's control flow is structured, so the CFG has no irreducible cycle.
//!
//! # Tapir constraints
//! The copied body has no Tapir terminators, so it adds no task, sync
//! region or return: a call inside a task becomes code of that task (it is
//! dominated by the task's entry and leaves only through the continuation,
//! so rule T1 holds), and the continuation of a detach still reaches the
//! same syncs (T4).

use crate::PassContext;
use crate::{HashMap, HashSet};
use parc_ir::analysis::{FunctionAnalyses, LoopAnalysis};
use parc_ir::{
    Block, BlockCall, CastOp, FuncId, FuncKind, Function, Inst, InstKind, Intrinsic, Linkage,
    Module, Type, Value, ValueDef,
};

/// Largest callee inlined at any call site.
pub const MAX_SIZE: usize = 300;
/// Rounds of copies of its own body that a linearly self-recursive
/// function receives (one self-call; see the module doc): seven, so that
/// a call does eight levels' work, about as deep as gcc -O2 inlines fib
/// once its second call is a loop.
pub const LINEAR_SELF_COPIES: usize = 7;
/// Largest `local` callee inlined at its only call site in the module.
pub const MAX_SIZE_ONE_SITE: usize = 400;
/// No caller grows beyond this many instructions by inlining.
pub const MAX_CALLER_SIZE: usize = 20_000;
/// How much inlining may grow the module, in percent of its size before
/// (gcc's `inline-unit-growth`)...
pub const UNIT_GROWTH_PERCENT: usize = 50;
/// ...or by this many instructions, whichever is more (gcc's
/// `large-unit-insns`: small programs are not limited).
pub const UNIT_GROWTH_MIN: usize = 20_000;

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let (order, recursive, self_only) = bottom_up(module);
    let mut sites: HashMap<FuncId, usize> = HashMap::default();
    for f in module.funcs.values() {
        for (_, i) in f.placed_insts() {
            if let InstKind::Call { func, .. } = f.inst(i) {
                *sites.entry(*func).or_default() += 1;
            }
        }
    }
    // Functions that must outlive their last call.
    let referenced = module.funcs_used_beyond_calls();
    let total: usize = module.funcs.values().map(size).sum();
    let mut judge = Judge {
        recursive,
        sites,
        facts: HashMap::default(),
        absorbed: Vec::new(),
        growth_left: (total * UNIT_GROWTH_PERCENT / 100).max(UNIT_GROWTH_MIN),
    };
    let mut changed = false;
    for caller in order {
        if module.funcs[caller].is_declaration() {
            continue;
        }
        // Take the caller out of the module so callees can be read while it
        // is edited (its calls of itself are refused as recursive here).
        let mut func = std::mem::take(&mut module.funcs[caller]);
        if inline_into(&mut func, module, &mut judge, ctx) {
            changed = true;
            // Its callers judge and copy it as it is now: simplified, as
            // LLVM's inliner simplifies each function of the bottom-up
            // order before its callers' turn. Without this a chain of
            // calls each adding a constant grows by every inlined level
            // until MAX_SIZE stops it, in every function of the chain.
            super::simplify_cfg::run_function(&mut func);
            super::instcombine::run_function(&mut func);
            super::dce::run_function(&mut func);
        }
        // A `local` callee copied at its only call is gone: its body is
        // dropped now (a chain of once-called functions would otherwise
        // hold every link at its grown size until the end of the pass).
        for g in judge.absorbed.drain(..) {
            if !referenced.contains(g) {
                module.funcs[g].retire();
                ctx.count("inline.retired", 1);
            }
        }
        // Then copies of its own body at its self-calls (see the module
        // doc), with the body as it is now, its other callees inlined.
        let rounds = if self_only.contains(&caller) {
            self_copies(&func, caller)
        } else {
            0
        };
        if rounds > 0 {
            let own = func.clone();
            for _ in 0..rounds {
                changed |= inline_self(&mut func, caller, &own, ctx);
            }
        }
        module.funcs[caller] = func;
    }
    changed
}

/// What the cost model needs to know about a callee.
struct Facts {
    size: usize,
    tapir: bool,
    escaping_alloca: bool,
    may_fall_off_end: bool,
    has_loop: bool,
    /// A `launch` (which only host code may hold).
    launches: bool,
    /// A `return` is reachable from the entry: without one, the code after
    /// an inlined call becomes unreachable.
    returns: bool,
}

impl Facts {
    fn of(g: &Function) -> Facts {
        let an = FunctionAnalyses::compute(g);
        Facts {
            size: size(g),
            tapir: g.placed_insts().any(|(_, i)| {
                matches!(
                    g.inst(i),
                    InstKind::Detach { .. } | InstKind::Reattach { .. } | InstKind::Sync { .. }
                )
            }),
            escaping_alloca: allocas_escape(g),
            may_fall_off_end: may_fall_off_end(g),
            has_loop: !an.loops.is_empty(),
            launches: g
                .placed_insts()
                .any(|(_, i)| matches!(g.inst(i), InstKind::Launch { .. })),
            returns: an.cfg.rpo().iter().any(|&b| {
                g.terminator(b)
                    .is_some_and(|t| matches!(g.inst(t), InstKind::Return(_)))
            }),
        }
    }
}

/// The call graph's facts and a cache of callee facts. A callee's facts
/// are final once computed: bottom-up, a non-recursive callee's turn is
/// over before any caller of it is edited.
struct Judge {
    recursive: HashSet<FuncId>,
    /// Calls of each function in the module before inlining.
    sites: HashMap<FuncId, usize>,
    facts: HashMap<FuncId, Facts>,
    /// `local` callees inlined at their only call in the module, in the
    /// current caller's turn.
    absorbed: Vec<FuncId>,
    /// Instructions copies may still add to the module (see
    /// [`UNIT_GROWTH_PERCENT`]); a copy that replaces its callee adds none.
    growth_left: usize,
}

impl Judge {
    /// Why the call of `callee` in `call_block` of `caller` (which has
    /// `caller_size` instructions) is not inlined (the `inline.skipped.*`
    /// counter names), or `None` to inline it.
    fn refusal(
        &mut self,
        (caller, caller_size): (&Function, usize),
        an: &FunctionAnalyses,
        call_block: Block,
        module: &Module,
        callee: FuncId,
    ) -> Option<&'static str> {
        let g = &module.funcs[callee];
        if g.is_declaration() {
            return Some("declaration");
        }
        let gpu_caller = matches!(caller.kind, FuncKind::Kernel | FuncKind::Device);
        let kinds_ok = match g.kind {
            FuncKind::Host => true,
            FuncKind::Device => gpu_caller,
            FuncKind::Kernel => false,
        };
        if !kinds_ok {
            return Some("kind");
        }
        if self.recursive.contains(&callee) {
            return Some("recursive");
        }
        let facts = self.facts.entry(callee).or_insert_with(|| Facts::of(g));
        // Kernels may call plain host functions, but GPU code holds no
        // launches (nor Tapir terminators, refused below for everyone).
        if gpu_caller && g.kind == FuncKind::Host && facts.launches {
            return Some("kind");
        }
        if facts.tapir {
            return Some("tapir");
        }
        if facts.escaping_alloca {
            return Some("escaping-alloca");
        }
        if facts.may_fall_off_end {
            return Some("may-fall-off-end");
        }
        if facts.has_loop && an.loops.innermost(call_block).is_some() {
            return Some("loop-in-loop");
        }
        let replaces = self.sites.get(&callee) == Some(&1) && g.linkage == Linkage::Local;
        let limit = if replaces {
            MAX_SIZE_ONE_SITE
        } else {
            MAX_SIZE
        };
        if facts.size > limit {
            return Some("too-big");
        }
        if caller_size + facts.size > MAX_CALLER_SIZE {
            return Some("caller-too-big");
        }
        if !replaces {
            // The copy adds the body; the call it replaces goes.
            let growth = facts.size.saturating_sub(1);
            if growth > self.growth_left {
                return Some("unit-growth");
            }
            self.growth_left -= growth;
        }
        None
    }
}

/// How many rounds of copies of its own body a self-recursive `g` (whose
/// id is `id`) receives at its self-calls (see the module doc): the rules
/// for any callee, minus the recursion one; then one round, or
/// [`LINEAR_SELF_COPIES`] for linear recursion.
fn self_copies(g: &Function, id: FuncId) -> usize {
    let facts = Facts::of(g);
    if facts.tapir || facts.escaping_alloca || facts.may_fall_off_end || facts.size > MAX_SIZE {
        return 0;
    }
    let calls: Vec<(Block, Inst)> = g
        .placed_insts()
        .filter(|&(_, i)| matches!(g.inst(i), InstKind::Call { func: f, .. } if *f == id))
        .collect();
    match calls[..] {
        [(block, call)] => {
            if facts.has_loop && loop_invariant_call(g, block, call) {
                0
            } else {
                LINEAR_SELF_COPIES
            }
        }
        _ if facts.has_loop => 0,
        _ => 1,
    }
}

/// True if `call` (in `block`) lies in a loop and none of its arguments is
/// defined in its innermost loop: a call LICM may hoist, which a copied
/// body (a loop) would hide from it.
fn loop_invariant_call(g: &Function, block: Block, call: Inst) -> bool {
    let an = FunctionAnalyses::compute(g);
    let Some(l) = an.loops.innermost(block) else {
        return false;
    };
    let data = an.loops.data(l);
    let mut varies = false;
    g.inst(call).for_each_operand(|v| {
        let def_block = match g.value_def(v) {
            ValueDef::Result(i) => g.placed_insts().find(|&(_, j)| j == i).map(|(b, _)| b),
            ValueDef::Param(b, _) => Some(b),
        };
        varies |= def_block.is_some_and(|b| data.contains(b));
    });
    !varies
}

fn size(f: &Function) -> usize {
    f.layout.iter().map(|&b| f.blocks[b].insts.len()).sum()
}

/// True if `f` has an `unreachable` not preceded by `exit`: where the
/// front end puts the end of a non-void function that control may reach.
/// Reaching it is a run-time error whose message names the function it is
/// in, which would be the caller once inlined.
fn may_fall_off_end(f: &Function) -> bool {
    f.layout.iter().any(|&b| match f.block_insts(b) {
        [.., before, last] => {
            matches!(f.inst(*last), InstKind::Unreachable)
                && !matches!(
                    f.inst(*before),
                    InstKind::Intrinsic {
                        op: Intrinsic::Exit | Intrinsic::RuntimeError,
                        ..
                    }
                )
        }
        [last] => matches!(f.inst(*last), InstKind::Unreachable),
        [] => false,
    })
}

/// True if the address of an `alloca` of `f` (or a pointer derived from it
/// by `ptradd`, `select` or a block parameter) is returned, stored as a
/// value, or converted to an integer.
fn allocas_escape(f: &Function) -> bool {
    let mut derived: HashSet<Value> = HashSet::default();
    // Grow the set to a fixpoint: block parameters may be fed from later
    // blocks.
    loop {
        let before = derived.len();
        for (_, i) in f.placed_insts() {
            let kind = f.inst(i);
            let from = |v: &Value| derived.contains(v);
            let add = match kind {
                InstKind::Alloca { .. } => true,
                InstKind::PtrAdd(p, _) => from(p),
                InstKind::Select(_, a, b) => from(a) || from(b),
                _ => false,
            };
            if add && let Some(r) = f.result(i) {
                derived.insert(r);
            }
            let mut params = Vec::new();
            for call in kind.block_calls() {
                for (n, a) in call.args.iter().enumerate() {
                    if derived.contains(a) {
                        params.push(f.blocks[call.block].params[n]);
                    }
                }
            }
            derived.extend(params);
        }
        if derived.len() == before {
            break;
        }
    }
    f.placed_insts().any(|(_, i)| match f.inst(i) {
        InstKind::Return(Some(v)) => derived.contains(v),
        InstKind::Store { value, .. } => derived.contains(value),
        InstKind::Cast(CastOp::PtrToInt, v) => derived.contains(v),
        _ => false,
    })
}

/// Inlines the eligible calls of `func` (taken out of `module`).
fn inline_into(
    func: &mut Function,
    module: &Module,
    judge: &mut Judge,
    ctx: &mut PassContext,
) -> bool {
    // Calls already judged (refused ones, and calls copied from callees).
    let mut judged: HashSet<Inst> = HashSet::default();
    let mut changed = false;
    let mut caller_size = size(func);
    // One analysis serves every call site: inlining a call splits its
    // block, and the tail that holds the later calls lies in the same loops
    // and task as the block did, so each call is judged, and its allocas
    // placed, by the facts of the block it was in when the analysis ran.
    // Recomputing per call made a function with thousands of calls (3000
    // spawned calls) take minutes. Only a callee that cannot return changes
    // the facts (the tail becomes unreachable): then analyze afresh.
    'fresh: loop {
        let an = FunctionAnalyses::compute(func);
        let sites: Vec<(Block, Inst, FuncId)> = func
            .placed_insts()
            .filter_map(|(b, i)| match func.inst(i) {
                InstKind::Call { func: g, .. } if !judged.contains(&i) => Some((b, i, *g)),
                _ => None,
            })
            .collect();
        // The block now holding the tail of each block split so far.
        let mut tail: HashMap<Block, Block> = HashMap::default();
        for (block, call, callee) in sites {
            judged.insert(call);
            if !an.cfg.is_reachable(block) {
                // Code after `exit`, say: nothing to gain, and no task or
                // dominance information to place allocas with.
                ctx.count("inline.skipped.unreachable", 1);
                continue;
            }
            if let Some(why) = judge.refusal((func, caller_size), &an, block, module, callee) {
                ctx.count(&format!("inline.skipped.{why}"), 1);
                continue;
            }
            // Allocas go to the innermost task's first block, or the entry.
            let dest = match an.tasks.innermost(block) {
                Some(t) => an.tasks.data(t).entry,
                None => func.entry().expect("a caller has a body"),
            };
            let rezero = needs_rezero(&an.loops, block, dest);
            let at = tail.get(&block).copied().unwrap_or(block);
            let done = inline_call(
                func,
                at,
                call,
                (callee, &module.funcs[callee]),
                dest,
                rezero,
            );
            tail.insert(block, done.cont);
            caller_size = caller_size + done.added - 1;
            judged.extend(done.copied_calls);
            ctx.count("inline.inlined", 1);
            if judge.sites.get(&callee) == Some(&1)
                && module.funcs[callee].linkage == Linkage::Local
            {
                judge.absorbed.push(callee);
            }
            changed = true;
            if !judge.facts.get(&callee).is_some_and(|f| f.returns) {
                continue 'fresh;
            }
        }
        return changed;
    }
}

/// Inlines `own` (a copy of `func`, whose id is `id`) at each call of `id`
/// that `func` has now and that is reachable; the copied calls stay calls.
fn inline_self(func: &mut Function, id: FuncId, own: &Function, ctx: &mut PassContext) -> bool {
    let sites: Vec<Inst> = func
        .placed_insts()
        .filter(|&(_, i)| matches!(func.inst(i), InstKind::Call { func: g, .. } if *g == id))
        .map(|(_, i)| i)
        .collect();
    let mut changed = false;
    for call in sites {
        if size(func) + size(own) > MAX_CALLER_SIZE {
            ctx.count("inline.skipped.caller-too-big", 1);
            break;
        }
        let an = FunctionAnalyses::compute(func);
        let block = func
            .placed_insts()
            .find(|&(_, i)| i == call)
            .map(|(b, _)| b)
            .expect("a self-call stays placed until it is inlined");
        if !an.cfg.is_reachable(block) {
            continue;
        }
        let dest = match an.tasks.innermost(block) {
            Some(t) => an.tasks.data(t).entry,
            None => func.entry().expect("a caller has a body"),
        };
        let rezero = needs_rezero(&an.loops, block, dest);
        inline_call(func, block, call, (id, own), dest, rezero);
        ctx.count("inline.self", 1);
        changed = true;
    }
    changed
}

/// True if `block` can run more than once per run of `dest` (the block
/// that will hold the moved allocas): it lies in a loop `dest` is not in.
fn needs_rezero(loops: &LoopAnalysis, block: Block, dest: Block) -> bool {
    loops
        .innermost(block)
        .is_some_and(|l| !loops.data(l).contains(dest))
}

/// What [`inline_call`] did.
struct Inlined {
    /// The copied call instructions.
    copied_calls: Vec<Inst>,
    /// The block that now holds the instructions after the call.
    cont: Block,
    /// The instructions placed (the call itself, now gone, not subtracted).
    added: usize,
}

/// Inlines `callee` at `call` (in `block`), moving its allocas to the top of
/// `dest`.
fn inline_call(
    func: &mut Function,
    block: Block,
    call: Inst,
    (callee_id, callee): (FuncId, &Function),
    dest: Block,
    rezero: bool,
) -> Inlined {
    let InstKind::Call { args, .. } = func.inst(call).clone() else {
        unreachable!("inline_call on a call")
    };
    let call_loc = func.locs[call];
    let result = func.result(call);

    // Split: the instructions after the call move to the continuation.
    let pos = func.blocks[block]
        .insts
        .iter()
        .position(|&i| i == call)
        .expect("the call is in its block");
    let after = func.blocks[block].insts.split_off(pos + 1);
    func.blocks[block].insts.pop();
    let cont = func.create_block();
    func.blocks[cont].insts = after;

    // The callee's blocks and values, renamed.
    let mut bmap: HashMap<Block, Block> = HashMap::default();
    let mut vmap: HashMap<Value, Value> = HashMap::default();
    let callee_entry = callee.entry().expect("a callee has a body");
    for (&p, &a) in callee.block_params(callee_entry).iter().zip(&args) {
        vmap.insert(p, a);
    }
    let new_blocks: Vec<Block> = callee
        .layout
        .iter()
        .map(|&cb| {
            let nb = func.create_block();
            bmap.insert(cb, nb);
            if cb != callee_entry {
                for &p in callee.block_params(cb) {
                    let np = func.append_block_param(nb, callee.value_type(p));
                    vmap.insert(p, np);
                }
            }
            nb
        })
        .collect();
    let mut moved_allocas: Vec<Inst> = Vec::new();
    let mut copied_calls: Vec<Inst> = Vec::new();
    let mut new_insts: Vec<Inst> = Vec::new();
    for &cb in &callee.layout {
        let nb = bmap[&cb];
        for &ci in callee.block_insts(cb) {
            let kind = callee.inst(ci).clone();
            let ty = callee.result(ci).map(|r| callee.value_type(r));
            let ni = func.make_inst(kind, ty);
            if let (Some(r), Some(nr)) = (callee.result(ci), func.result(ni)) {
                vmap.insert(r, nr);
            }
            // Keep naming the callee in run-time errors raised by its code.
            let loc = callee.locs[ci];
            if loc.is_known() {
                func.locs[ni] = loc.moved_from(callee_id);
            }
            if let Some(name) = callee.local_names.get(&ci) {
                func.local_names.insert(ni, name.clone());
            }
            match callee.inst(ci) {
                InstKind::Alloca { .. } => moved_allocas.push(ni),
                _ => {
                    if matches!(callee.inst(ci), InstKind::Call { .. }) {
                        copied_calls.push(ni);
                    }
                    func.blocks[nb].insts.push(ni);
                }
            }
            new_insts.push(ni);
        }
    }
    for &ni in &new_insts {
        let kind = func.inst_mut(ni);
        kind.map_operands(|v| *vmap.get(&v).expect("callee operands are defined"));
        kind.map_successors(|b| bmap[&b]);
        if let InstKind::Return(v) = kind {
            let args = v.iter().copied().collect();
            *kind = InstKind::Jump(BlockCall::new(cont, args));
        }
    }

    // The call's result is the continuation's parameter.
    let new_entry = bmap[&callee_entry];
    let at = func
        .layout
        .iter()
        .position(|&b| b == block)
        .expect("the call's block is placed");
    func.layout
        .splice(at + 1..at + 1, new_blocks.iter().copied().chain([cont]));
    if let Some(r) = result {
        let p = func.append_block_param(cont, func.value_type(r));
        func.replace_uses(r, p);
    }
    let jump = func.append_inst(block, InstKind::Jump(BlockCall::to(new_entry)), None);
    if call_loc.is_known() {
        func.locs[jump] = call_loc;
    }

    // Allocas to the top of `dest` (after the allocas already there), and
    // re-zeroed at the inlined entry when `dest` runs less often.
    let mut added = new_insts.len() + 1;
    if rezero {
        let zeroing = zero_fill(func, &moved_allocas);
        added += zeroing.len();
        func.blocks[new_entry].insts.splice(0..0, zeroing);
    }
    let first_non_alloca = func.blocks[dest]
        .insts
        .iter()
        .position(|&i| !matches!(func.inst(i), InstKind::Alloca { .. }))
        .unwrap_or(0);
    func.blocks[dest]
        .insts
        .splice(first_non_alloca..first_non_alloca, moved_allocas);
    Inlined {
        copied_calls,
        cont,
        added,
    }
}

/// Instructions (not yet placed) that zero the objects of `allocas`.
fn zero_fill(func: &mut Function, allocas: &[Inst]) -> Vec<Inst> {
    let mut out = Vec::new();
    for &a in allocas {
        let InstKind::Alloca { size, .. } = *func.inst(a) else {
            continue;
        };
        let ptr = func.result(a).expect("an alloca has a result");
        let loc = func.locs[a];
        let mut push = |func: &mut Function, kind: InstKind, ty: Option<Type>| -> Option<Value> {
            let i = func.make_inst(kind, ty);
            if loc.is_known() {
                func.locs[i] = loc;
            }
            out.push(i);
            func.result(i)
        };
        let scalar = match size {
            1 => Some(Type::I8),
            2 => Some(Type::I16),
            4 => Some(Type::I32),
            8 => Some(Type::I64),
            _ => None,
        };
        match scalar {
            Some(ty) => {
                let zero = push(func, InstKind::Iconst(0), Some(ty)).expect("a constant");
                push(func, InstKind::Store { value: zero, ptr }, None);
            }
            None => {
                let byte = push(func, InstKind::Iconst(0), Some(Type::I32)).expect("a constant");
                let len =
                    push(func, InstKind::Iconst(size as i64), Some(Type::I64)).expect("a constant");
                push(
                    func,
                    InstKind::Intrinsic {
                        op: Intrinsic::Memset,
                        args: vec![ptr, byte, len],
                    },
                    None,
                );
            }
        }
    }
    out
}

/// The functions in bottom-up order (callees before callers; the members
/// of a cycle in any order), the set of recursive functions (in a cycle
/// of the call graph, a self-call included), and those of them whose only
/// cycle is a call of themselves.
type CallOrder = (Vec<FuncId>, HashSet<FuncId>, HashSet<FuncId>);

fn bottom_up(module: &Module) -> CallOrder {
    let succs: HashMap<FuncId, Vec<FuncId>> = module
        .funcs
        .iter()
        .map(|(id, f)| {
            let mut out = Vec::new();
            for (_, i) in f.placed_insts() {
                match f.inst(i) {
                    InstKind::Call { func, .. } => out.push(*func),
                    InstKind::Launch { kernel, .. } => out.push(*kernel),
                    _ => {}
                }
            }
            (id, out)
        })
        .collect();
    // Tarjan's algorithm, iterative; components come out callees first.
    let mut index: HashMap<FuncId, usize> = HashMap::default();
    let mut low: HashMap<FuncId, usize> = HashMap::default();
    let mut on_stack: HashSet<FuncId> = HashSet::default();
    let mut stack: Vec<FuncId> = Vec::new();
    let mut order = Vec::new();
    let mut recursive = HashSet::default();
    let mut self_only = HashSet::default();
    for root in module.funcs.keys() {
        if index.contains_key(&root) {
            continue;
        }
        let mut frames: Vec<(FuncId, usize)> = vec![(root, 0)];
        index.insert(root, index.len());
        low.insert(root, index[&root]);
        stack.push(root);
        on_stack.insert(root);
        while let Some(top) = frames.last_mut() {
            let v = top.0;
            if let Some(&w) = succs[&v].get(top.1) {
                top.1 += 1;
                if !index.contains_key(&w) {
                    let n = index.len();
                    index.insert(w, n);
                    low.insert(w, n);
                    stack.push(w);
                    on_stack.insert(w);
                    frames.push((w, 0));
                } else if on_stack.contains(&w) {
                    let m = low[&v].min(index[&w]);
                    low.insert(v, m);
                }
                continue;
            }
            frames.pop();
            if let Some(&(parent, _)) = frames.last() {
                let m = low[&parent].min(low[&v]);
                low.insert(parent, m);
            }
            if low[&v] == index[&v] {
                let mut component = Vec::new();
                loop {
                    let w = stack.pop().expect("v is on the stack");
                    on_stack.remove(&w);
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 || succs[&v].contains(&v) {
                    recursive.extend(component.iter().copied());
                    if component.len() == 1 {
                        self_only.insert(v);
                    }
                }
                order.extend(component);
            }
        }
    }
    (order, recursive, self_only)
}

#[cfg(test)]
mod tests {
    use super::*;
    use parc_ir::read::read_module;

    #[test]
    fn bottom_up_visits_callees_first_and_finds_cycles() {
        let m = read_module(
            "
func @leaf() {
block0:
    return
}
func @a() {
block0:
    call @b()
    return
}
func @b() {
block0:
    call @a()
    call @leaf()
    return
}
func @self() {
block0:
    call @self()
    return
}
func @main() {
block0:
    call @a()
    call @leaf()
    call @self()
    return
}
",
        )
        .unwrap();
        let id = |n: &str| m.func_by_name(n).unwrap();
        let (order, recursive, _) = bottom_up(&m);
        let pos = |n: &str| order.iter().position(|&f| f == id(n)).unwrap();
        assert_eq!(order.len(), 5);
        assert!(pos("leaf") < pos("a") && pos("leaf") < pos("b"));
        assert!(pos("a") < pos("main") && pos("b") < pos("main"));
        assert!(pos("self") < pos("main"));
        let mut rec: Vec<&str> = recursive
            .iter()
            .map(|&f| m.funcs[f].name.as_str())
            .collect();
        rec.sort();
        assert_eq!(rec, ["a", "b", "self"]);
    }

    #[test]
    fn escaping_allocas() {
        let m = read_module(
            "
func @ret() -> ptr {
block0:
    v0 = alloca 8, align 8
    v1 = iconst.i64 4
    v2 = ptradd v0, v1
    jump block1(v2)
block1(v3: ptr):
    return v3
}
func @stored(ptr) {
block0(v0: ptr):
    v1 = alloca 8, align 8
    store v1, v0
    return
}
func @local(ptr) -> i32 {
block0(v0: ptr):
    v1 = alloca 4, align 4
    store v0, v1
    v2 = load.i32 v1
    return v2
}
",
        )
        .unwrap();
        let esc = |n: &str| allocas_escape(&m.funcs[m.func_by_name(n).unwrap()]);
        assert!(esc("ret"));
        assert!(esc("stored"));
        assert!(!esc("local"), "storing a pointer *into* a local is fine");
    }
}
