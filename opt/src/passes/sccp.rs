//! Sparse conditional constant propagation (Wegman and Zadeck), over the
//! CFG with block parameters.
//!
//! Every value starts *unknown* (no execution defines it yet), every block
//! but the entry *not executable*. Two worklists — blocks that became
//! executable, values whose lattice element went down (unknown → constant
//! → overdefined) — drive the evaluation: an instruction is evaluated with
//! [`crate::fold::fold`], exactly as the interpreter computes it; a block
//! parameter is the meet of the arguments on the *executable* edges into
//! its block; a `brif` on a constant makes only one edge executable. So a
//! value is found constant even when it is defined around a loop whose
//! other way in is never taken.
//!
//! Then the function is rewritten: an instruction with a constant result
//! becomes that constant in place (keeping its source position); a block
//! parameter with a constant value is replaced by a constant at the end of
//! the entry block (which dominates everything) and removed, with the
//! matching argument of every branch to it;
//! a `brif` on a constant becomes a `jump`; blocks never executable leave
//! the layout. Dead code is left to `dce`.
//!
//! Loads are constant when they read a `const` global at a constant offset
//! (`load (global_addr @g)` or `load (ptradd (global_addr @g), k)` with
//! `k` constant; [`crate::analysis::const_memory`] says which reads
//! qualify). What is never folded (see [`crate::fold`]): division and
//! remainder by zero (they trap at run time), other loads, calls and
//! intrinsics.
//!
//! Tapir: a `detach` makes both its task and its continuation executable,
//! a `reattach` or `sync` its one successor. Nothing moves: constants
//! replace instructions where they are or go to the entry block (constants
//! may be used anywhere they are dominated, tasks included), and a removed
//! block is one no execution reaches — so every
//! Tapir rule that held still holds, and the shapes Tapir lowering
//! recognizes are kept (a parallel loop whose header branch folds was not
//! going to iterate anyway).
//!
//! Statistics: `sccp.consts` (instructions and parameters replaced by
//! constants), `sccp.branches` (branches folded), `sccp.blocks` (blocks
//! removed).

use crate::PassContext;
use crate::analysis::const_memory::ConstMemory;
use crate::fold::{Const, fold};
use crate::{HashMap, HashSet};
use parc_ir::{Block, BlockCall, Function, Inst, InstKind, Module, Type, Value, ValueDef};

pub fn run(module: &mut Module, ctx: &mut PassContext) -> bool {
    let mut stats = [0u64; 3];
    let mut changed = false;
    let mem = ConstMemory::new(&module.globals);
    for f in module.funcs.values_mut() {
        if f.is_declaration() {
            continue;
        }
        let s = run_function(f, &mem);
        for (a, b) in stats.iter_mut().zip(s) {
            *a += b;
        }
        changed |= s.iter().any(|&n| n > 0);
    }
    ctx.count("sccp.consts", stats[0]);
    ctx.count("sccp.branches", stats[1]);
    ctx.count("sccp.blocks", stats[2]);
    changed
}

/// The lattice: unknown (top) above the constants above overdefined.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Lat {
    Unknown,
    Const(Const),
    Over,
}

fn meet(a: Lat, b: Lat) -> Lat {
    match (a, b) {
        (Lat::Unknown, x) | (x, Lat::Unknown) => x,
        (Lat::Const(x), Lat::Const(y)) if x == y => a,
        _ => Lat::Over,
    }
}

/// The block call of arm `arm` of a terminator (only `jump` and `brif`
/// pass arguments; Tapir's targets have no parameters).
fn arm_call(kind: &InstKind, arm: usize) -> Option<&BlockCall> {
    match (kind, arm) {
        (InstKind::Jump(d), 0) => Some(d),
        (InstKind::Brif { then_dest, .. }, 0) => Some(then_dest),
        (InstKind::Brif { else_dest, .. }, 1) => Some(else_dest),
        _ => None,
    }
}

struct Solver<'f> {
    func: &'f Function,
    mem: &'f ConstMemory<'f>,
    lat: Vec<Lat>,
    exec_block: HashSet<Block>,
    exec_arm: HashSet<(Block, usize)>,
    /// Arms `(from, arm)` into each block.
    incoming: HashMap<Block, Vec<(Block, usize)>>,
    users: HashMap<Value, Vec<Inst>>,
    inst_block: HashMap<Inst, Block>,
    block_work: Vec<Block>,
    value_work: Vec<Value>,
}

impl Solver<'_> {
    fn get(&self, v: Value) -> Lat {
        self.lat[v.as_u32() as usize]
    }

    fn set(&mut self, v: Value, new: Lat) {
        let old = self.get(v);
        let m = meet(old, new);
        if m != old {
            self.lat[v.as_u32() as usize] = m;
            self.value_work.push(v);
        }
    }

    fn solve(&mut self) {
        let entry = self.func.entry().expect("a defined function has an entry");
        for &p in self.func.block_params(entry) {
            self.set(p, Lat::Over);
        }
        self.exec_block.insert(entry);
        self.block_work.push(entry);
        loop {
            if let Some(b) = self.block_work.pop() {
                for &i in self.func.block_insts(b) {
                    self.visit(b, i);
                }
            } else if let Some(v) = self.value_work.pop() {
                let users = self.users.get(&v).cloned().unwrap_or_default();
                for u in users {
                    let b = self.inst_block[&u];
                    if self.exec_block.contains(&b) {
                        self.visit(b, u);
                    }
                }
            } else {
                break;
            }
        }
    }

    fn visit(&mut self, b: Block, i: Inst) {
        let kind = self.func.inst(i);
        if kind.is_terminator() {
            self.visit_terminator(b, kind);
            return;
        }
        let Some(r) = self.func.result(i) else { return };
        let new = self.eval(kind, self.func.value_type(r));
        self.set(r, new);
    }

    fn eval(&self, kind: &InstKind, ty: parc_ir::Type) -> Lat {
        match *kind {
            InstKind::Iconst(_) | InstKind::Fconst(_) => {
                Const::of_inst(kind, ty).map_or(Lat::Over, Lat::Const)
            }
            InstKind::Select(c, a, b) => match self.get(c) {
                Lat::Unknown => Lat::Unknown,
                Lat::Const(k) => self.get(if k.bits & 1 != 0 { a } else { b }),
                Lat::Over => meet(self.get(a), self.get(b)),
            },
            InstKind::Unary(..)
            | InstKind::Binary(..)
            | InstKind::Icmp(..)
            | InstKind::Fcmp(..)
            | InstKind::Cast(..) => {
                let mut args = Vec::with_capacity(2);
                let mut unknown = false;
                for v in kind.operands() {
                    match self.get(v) {
                        Lat::Over => return Lat::Over,
                        Lat::Unknown => unknown = true,
                        Lat::Const(c) => args.push(c),
                    }
                }
                if unknown {
                    return Lat::Unknown;
                }
                fold(kind, &args, ty).map_or(Lat::Over, Lat::Const)
            }
            InstKind::Load(addr) => self.eval_load(addr, ty),
            _ => Lat::Over,
        }
    }

    /// A load of `ty` from `addr`: constant when `addr` is a constant
    /// global's address, or one plus a constant offset.
    fn eval_load(&self, addr: Value, ty: Type) -> Lat {
        let def = |v: Value| match self.func.value_def(v) {
            ValueDef::Result(i) => Some(self.func.inst(i)),
            ValueDef::Param(..) => None,
        };
        let (g, offset) = match def(addr) {
            Some(&InstKind::GlobalAddr(g)) => (g, 0),
            Some(&InstKind::PtrAdd(base, off)) => match (def(base), self.get(off)) {
                (Some(&InstKind::GlobalAddr(g)), Lat::Const(k)) => (g, k.as_i64()),
                (Some(&InstKind::GlobalAddr(_)), Lat::Unknown) => return Lat::Unknown,
                _ => return Lat::Over,
            },
            _ => return Lat::Over,
        };
        self.mem.read(g, offset, ty).map_or(Lat::Over, Lat::Const)
    }

    fn visit_terminator(&mut self, b: Block, kind: &InstKind) {
        let arms: &[usize] = match *kind {
            InstKind::Jump(_) | InstKind::Reattach { .. } | InstKind::Sync { .. } => &[0],
            InstKind::Detach { .. } => &[0, 1],
            InstKind::Brif { cond, .. } => match self.get(cond) {
                Lat::Unknown => &[],
                Lat::Const(c) if c.bits & 1 != 0 => &[0],
                Lat::Const(_) => &[1],
                Lat::Over => &[0, 1],
            },
            _ => &[],
        };
        let succs = kind.successors();
        for &a in arms {
            let target = succs[a];
            self.exec_arm.insert((b, a));
            if self.exec_block.insert(target) {
                self.block_work.push(target);
            }
            self.update_params(target);
        }
    }

    /// Each parameter of `b` is the meet of its arguments on executable
    /// arms.
    fn update_params(&mut self, b: Block) {
        let params = self.func.block_params(b);
        if params.is_empty() {
            return;
        }
        for (k, &p) in params.iter().enumerate() {
            let mut acc = Lat::Unknown;
            for &(from, arm) in self.incoming.get(&b).map_or(&[][..], |v| &v[..]) {
                if !self.exec_arm.contains(&(from, arm)) {
                    continue;
                }
                let t = self.func.terminator(from).expect("a branch");
                if let Some(call) = arm_call(self.func.inst(t), arm) {
                    acc = meet(acc, self.get(call.args[k]));
                }
            }
            self.set(p, acc);
        }
    }
}

/// Propagates and rewrites; returns (constants, branches, blocks).
fn run_function(func: &mut Function, mem: &ConstMemory) -> [u64; 3] {
    let mut users: HashMap<Value, Vec<Inst>> = HashMap::default();
    let mut inst_block = HashMap::default();
    let mut incoming: HashMap<Block, Vec<(Block, usize)>> = HashMap::default();
    for (b, i) in func.placed_insts() {
        inst_block.insert(i, b);
        let mut operands = func.inst(i).operands();
        // A load's value depends on its address's constant offset too
        // (`eval_load`), so it is visited again when that offset changes.
        if let InstKind::Load(addr) = *func.inst(i)
            && let ValueDef::Result(a) = func.value_def(addr)
            && let InstKind::PtrAdd(_, off) = *func.inst(a)
        {
            operands.push(off);
        }
        for v in operands {
            let list = users.entry(v).or_default();
            if list.last() != Some(&i) {
                list.push(i);
            }
        }
    }
    for &b in &func.layout {
        for (a, s) in func.successors(b).into_iter().enumerate() {
            incoming.entry(s).or_default().push((b, a));
        }
    }
    let mut solver = Solver {
        func,
        mem,
        lat: vec![Lat::Unknown; func.values.len()],
        exec_block: HashSet::default(),
        exec_arm: HashSet::default(),
        incoming,
        users,
        inst_block,
        block_work: Vec::new(),
        value_work: Vec::new(),
    };
    solver.solve();
    let Solver {
        lat, exec_block, ..
    } = solver;
    let lat_of = |v: Value| lat[v.as_u32() as usize];

    // Every edge out of an executable block is executable, except the arm
    // a constant `brif` does not take. (A condition still unknown would
    // break that; it cannot happen, as every value of an executable block
    // has been evaluated, but if it did, rewriting would drop blocks that
    // are still branched to: leave the function alone.)
    for &b in func.layout.iter().filter(|b| exec_block.contains(b)) {
        let Some(t) = func.terminator(b) else {
            continue;
        };
        if let InstKind::Brif { cond, .. } = func.inst(t)
            && lat_of(*cond) == Lat::Unknown
        {
            debug_assert!(false, "sccp: unknown branch condition in {b}");
            return [0; 3];
        }
    }

    let mut stats = [0u64; 3];
    let live: Vec<Block> = func
        .layout
        .iter()
        .copied()
        .filter(|b| exec_block.contains(b))
        .collect();

    // Instructions with constant results become those constants.
    for &b in &live {
        for k in 0..func.blocks[b].insts.len() {
            let i = func.blocks[b].insts[k];
            let Some(r) = func.result(i) else { continue };
            if let Lat::Const(c) = lat_of(r)
                && !matches!(func.inst(i), InstKind::Iconst(_) | InstKind::Fconst(_))
            {
                *func.inst_mut(i) = c.to_inst();
                stats[0] += 1;
            }
        }
    }

    // Constant block parameters: a constant at the top of the block, and
    // the parameter and its arguments go.
    let mut subst: HashMap<Value, Value> = HashMap::default();
    let mut removed_params: HashMap<Block, Vec<usize>> = HashMap::default();
    for &b in &live {
        let params = func.blocks[b].params.clone();
        let mut consts = Vec::new();
        let mut keep = Vec::new();
        for (k, &p) in params.iter().enumerate() {
            match lat_of(p) {
                Lat::Const(c) => {
                    let ci = func.make_inst(c.to_inst(), Some(c.ty));
                    subst.insert(p, func.result(ci).expect("a constant has a result"));
                    consts.push(ci);
                    removed_params.entry(b).or_default().push(k);
                    stats[0] += 1;
                }
                _ => keep.push(p),
            }
        }
        if consts.is_empty() {
            continue;
        }
        for (n, &p) in keep.iter().enumerate() {
            func.values[p].def = ValueDef::Param(b, n as u32);
        }
        func.blocks[b].params = keep;
        // At the end of the entry block, which dominates every other block:
        // out of loops, and never in a block whose shape Tapir lowering
        // matches (a loop header is exactly its compare and branch).
        let entry = func.entry().expect("a defined function has an entry");
        let at = func.blocks[entry].insts.len() - 1;
        func.blocks[entry].insts.splice(at..at, consts);
    }

    // Branches: arguments of removed parameters go; constant `brif`s fold.
    for &b in &live {
        let Some(t) = func.terminator(b) else {
            continue;
        };
        let drop_args = |call: &mut BlockCall| {
            if let Some(ks) = removed_params.get(&call.block) {
                let mut n = 0;
                call.args.retain(|_| {
                    n += 1;
                    !ks.contains(&(n - 1))
                });
            }
        };
        match func.inst_mut(t) {
            InstKind::Jump(d) => drop_args(d),
            InstKind::Brif {
                then_dest,
                else_dest,
                ..
            } => {
                drop_args(then_dest);
                drop_args(else_dest);
            }
            _ => {}
        }
        if let InstKind::Brif {
            cond,
            then_dest,
            else_dest,
        } = func.inst(t)
            && let Lat::Const(c) = lat_of(*cond)
        {
            let dest = if c.bits & 1 != 0 {
                then_dest.clone()
            } else {
                else_dest.clone()
            };
            *func.inst_mut(t) = InstKind::Jump(dest);
            stats[1] += 1;
        }
    }

    stats[2] = (func.layout.len() - live.len()) as u64;
    func.layout = live;
    if !subst.is_empty() {
        for &b in &func.layout {
            for &i in &func.blocks[b].insts {
                func.insts[i]
                    .kind
                    .map_operands(|v| subst.get(&v).copied().unwrap_or(v));
            }
        }
    }
    stats
}
