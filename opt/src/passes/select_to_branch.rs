//! `select-to-branch`: a `select` whose condition waits for a load that
//! the select itself, through the loop's next iteration, gives the address
//! of becomes a branch again, as LLVM's x86 CMOV conversion and its
//! `select-optimize` pass do.
//!
//! The case is a binary search, `if (A[mid] > q) hi = mid; else lo = mid;`,
//! which `simplify-cfg` folds into `hi' = select c, mid, hi` and
//! `lo' = select c, lo, mid`. As selects (x86 `cmov`), each iteration's
//! `mid` depends on the last one's load: a search of a large table waits
//! for one cache miss after another. As a branch, the CPU predicts the
//! comparison and issues the next iteration's load before the last one's
//! has arrived: the prediction is right about half the time, and a wrong
//! one costs a pipeline flush, far less than a miss. A select whose
//! condition is not on such a cycle (`m = a[i] > m ? a[i] : m`, whose load
//! address comes from the counter alone) stays: there the select only
//! saves mispredictions.
//!
//! # Not part of `pipeline()`
//! It runs last in [`codegen_prepare`](crate::codegen_prepare): the AD and
//! the vectorizer read selects (if-converted code), and `simplify-cfg`
//! would fold the branch back.
//!
//! # Which selects
//! A `select c, x, y` in a block of an innermost loop `L` (host code only:
//! on a GPU a branch that threads take both ways costs both) with no
//! `detach`, `reattach` or `sync`, when
//! 1. walking back from `c` over operands inside `L` (through the
//!    parameters of `L`'s blocks other than its header, to their incoming
//!    arguments; stopping at values defined outside `L` and at the
//!    header's parameters) finds a `load`,
//! 2. walking back from that load's address the same way reaches a
//!    parameter `p` of `L`'s header, and
//! 3. walking back from `p`'s argument on a back edge reaches the select.
//!
//! Each walk visits at most [`MAX_VISITS`] values; past that the select
//! stays.
//!
//! # The rewrite
//! The select's block `B` is split before it: `B` ends in
//! `brif c, N(x, ..), N(y, ..)` and the rest of `B` moves to a new block
//! `N`, whose parameters replace the select and every later select of `B`
//! on the same condition whose operands are defined before the split.
//!
//! Statistics: `select-to-branch.branches` (branches made),
//! `select-to-branch.selects` (selects they replace).

use crate::PassContext;
use crate::{HashMap, HashSet};
use parc_ir::analysis::{FunctionAnalyses, Loop};
use parc_ir::{Block, BlockCall, FuncKind, Function, Inst, InstKind, Module, Value, ValueDef};

/// The most values one backward walk visits.
const MAX_VISITS: usize = 512;

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let ids = crate::functions_with_loops(module, &mut ctx.analyses);
    let (mut branches, mut selects) = (0, 0);
    let changed = crate::for_each_of(module, &ids, |f| {
        let (b, s) = run_function(f);
        branches += b;
        selects += s;
        b > 0
    });
    ctx.count("select-to-branch.branches", branches);
    ctx.count("select-to-branch.selects", selects);
    changed
}

/// Rewrites `func`'s selects on load cycles; returns how many branches
/// it made and how many selects they replace.
pub fn run_function(func: &mut Function) -> (u64, u64) {
    if func.kind != FuncKind::Host {
        return (0, 0);
    }
    let candidates = find(func);
    if candidates.is_empty() {
        return (0, 0);
    }
    let mut work: Vec<Block> = {
        let mut seen = HashSet::default();
        let mut blocks = Vec::new();
        for &(b, _) in &candidates {
            if seen.insert(b) {
                blocks.push(b);
            }
        }
        blocks
    };
    let candidates: HashSet<Inst> = candidates.into_iter().map(|(_, i)| i).collect();
    let (mut branches, mut selects) = (0, 0);
    while let Some(b) = work.pop() {
        let insts = func.block_insts(b);
        let Some(pos) = insts.iter().position(|i| candidates.contains(i)) else {
            continue;
        };
        let n = split(func, b, pos);
        branches += 1;
        selects += n.1;
        work.push(n.0);
    }
    (branches, selects)
}

/// The selects to rewrite, with their blocks, in layout order.
fn find(func: &Function) -> Vec<(Block, Inst)> {
    let an = FunctionAnalyses::compute(func);
    let mut block_of: HashMap<Inst, Block> = HashMap::default();
    for (b, i) in func.placed_insts() {
        block_of.insert(i, b);
    }
    let mut out = Vec::new();
    for lp in an.loops.loops() {
        if !an.loops.is_innermost(lp) {
            continue;
        }
        let data = an.loops.data(lp);
        if data.blocks.iter().any(|&b| func.ends_in_tapir(b)) {
            continue;
        }
        let walk = Walk {
            func,
            an: &an,
            lp,
            block_of: &block_of,
        };
        for &b in data.blocks.iter() {
            for &i in func.block_insts(b) {
                if let InstKind::Select(c, ..) = *func.inst(i)
                    && !func.value_type(c).is_vector()
                    && walk.on_load_cycle(i, c)
                {
                    out.push((b, i));
                }
            }
        }
    }
    out
}

/// Backward walks over the values of one loop.
struct Walk<'a> {
    func: &'a Function,
    an: &'a FunctionAnalyses,
    lp: Loop,
    block_of: &'a HashMap<Inst, Block>,
}

impl Walk<'_> {
    fn header(&self) -> Block {
        self.an.loops.data(self.lp).header
    }

    fn in_loop(&self, b: Block) -> bool {
        self.an.loops.contains(self.lp, b)
    }

    /// The values reached from `starts` (see the module doc), or `None`
    /// past [`MAX_VISITS`].
    fn back(&self, starts: &[Value]) -> Option<HashSet<Value>> {
        let mut seen: HashSet<Value> = HashSet::default();
        let mut stack: Vec<Value> = starts.to_vec();
        while let Some(v) = stack.pop() {
            if !seen.insert(v) {
                continue;
            }
            if seen.len() > MAX_VISITS {
                return None;
            }
            match self.func.value_def(v) {
                ValueDef::Result(i) => {
                    if self.block_of.get(&i).is_some_and(|&b| self.in_loop(b)) {
                        self.func.inst(i).for_each_operand(|o| stack.push(o));
                    }
                }
                ValueDef::Param(b, n) => {
                    if b == self.header() || !self.in_loop(b) {
                        continue;
                    }
                    for &p in self.an.cfg.preds(b) {
                        stack.extend(self.incoming(p, b, n as usize));
                    }
                }
            }
        }
        Some(seen)
    }

    /// The arguments `from`'s terminator passes to parameter `n` of `to`.
    fn incoming(&self, from: Block, to: Block, n: usize) -> Vec<Value> {
        let Some(t) = self.func.terminator(from) else {
            return Vec::new();
        };
        self.func
            .inst(t)
            .block_calls()
            .into_iter()
            .filter(|call| call.block == to)
            .filter_map(|call| call.args.get(n).copied())
            .collect()
    }

    /// Conditions 1-3 of the module doc for select `sel` on `cond`.
    fn on_load_cycle(&self, sel: Inst, cond: Value) -> bool {
        let Some(result) = self.func.result(sel) else {
            return false;
        };
        let Some(reached) = self.back(&[cond]) else {
            return false;
        };
        let addresses: Vec<Value> = reached
            .iter()
            .filter_map(|&v| match self.func.value_def(v) {
                ValueDef::Result(i) => match *self.func.inst(i) {
                    InstKind::Load(a) => Some(a),
                    _ => None,
                },
                ValueDef::Param(..) => None,
            })
            .collect();
        if addresses.is_empty() {
            return false;
        }
        let Some(from_addresses) = self.back(&addresses) else {
            return false;
        };
        let header = self.header();
        let latches = &self.an.loops.data(self.lp).latches;
        let params = self.func.block_params(header);
        let back_args: Vec<Value> = params
            .iter()
            .enumerate()
            .filter(|(_, p)| from_addresses.contains(p))
            .flat_map(|(n, _)| {
                latches
                    .iter()
                    .flat_map(move |&l| self.incoming(l, header, n))
            })
            .collect();
        !back_args.is_empty() && self.back(&back_args).is_some_and(|r| r.contains(&result))
    }
}

/// Splits `b` before its instruction at `pos`, a select: `b` branches on
/// the select's condition to a new block holding the rest of `b`, whose
/// parameters replace the select and the later selects of `b` on that
/// condition whose operands are defined before `pos`. Returns the new
/// block and how many selects went.
fn split(func: &mut Function, b: Block, pos: usize) -> (Block, u64) {
    let first = func.block_insts(b)[pos];
    let InstKind::Select(cond, ..) = *func.inst(first) else {
        unreachable!("split at a select");
    };
    let loc = func.locs[first];
    let tail: Vec<Inst> = func.block_insts(b)[pos..].to_vec();
    let defined_after: HashSet<Value> = tail.iter().filter_map(|&i| func.result(i)).collect();
    let members: Vec<Inst> = tail
        .iter()
        .copied()
        .filter(|&i| match *func.inst(i) {
            InstKind::Select(c, x, y) => {
                c == cond && !defined_after.contains(&x) && !defined_after.contains(&y)
            }
            _ => false,
        })
        .collect();
    let n = func.create_block();
    let at = func
        .layout
        .iter()
        .position(|&x| x == b)
        .expect("a placed block");
    func.layout.insert(at + 1, n);
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for &m in &members {
        let InstKind::Select(_, x, y) = *func.inst(m) else {
            unreachable!("members are selects");
        };
        let result = func.result(m).expect("a select has a result");
        let param = func.append_block_param(n, func.value_type(result));
        func.replace_uses(result, param);
        xs.push(x);
        ys.push(y);
    }
    let rest: Vec<Inst> = tail.into_iter().filter(|i| !members.contains(i)).collect();
    func.blocks[b].insts.truncate(pos);
    func.blocks[n].insts = rest;
    let brif = func.append_inst(
        b,
        InstKind::Brif {
            cond,
            then_dest: BlockCall::new(n, xs),
            else_dest: BlockCall::new(n, ys),
        },
        None,
    );
    func.locs[brif] = loc;
    (n, members.len() as u64)
}
