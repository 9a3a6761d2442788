//! The block function of a kernel split at its barriers: one function that
//! runs a whole block, region after region, each region a loop over the
//! block's threads.
//!
//! ```text
//! @k.block(ptr args, ptr frame, ptr thread):
//!   entry:   the kernel's parameters, loaded from `args`; blockDim, and the
//!            values that are the same for every thread (constants,
//!            blockIdx, ... and pure arithmetic on them); jump init0
//!   init_r:  for z, y, x over the block (x fastest):
//!     thread_r:  threadIdx, this thread's frame; the values it needs from
//!                before the barrier, reloaded from the frame; then
//!                region r's code for this thread (a copy of the kernel's
//!                blocks of region r), whose every exit jumps to
//!     latch_r(code, bit):  where the thread stopped (code 0 `return`, c
//!                the barrier of code c), recorded; next thread
//!   end_r:   threads stopped at different places: barrier divergence
//!            (reported); else all stopped at the same place: `return`,
//!            or init_c for the region after the barrier of code c
//! ```
//!
//! # Values across barriers
//!
//! Every value of the kernel falls in one [`Class`], and a thread's frame
//! keeps what crosses a barrier ([`FrameLayout`]); both are decided first,
//! in `frame.rs`, which says what each class costs.
//!
//! SSA form in a region's copy: the region's start dominates it, so a
//! value reloaded there dominates its uses; a value defined in the copy
//! and not live into the region dominates its uses too (a path from the
//! start to a use avoiding the definition would make it live into the
//! start). The remaining case, a value live into the region *and*
//! redefined in it (a loop around a barrier: `s` in `for (s = ...; s > 0;
//! s >>= 1) { ...; __syncthreads(); }`), goes through a scalar `alloca`
//! instead: stored at the start and after each definition, loaded at each
//! use. The backend keeps such `alloca`s in registers (Cranelift
//! variables, whose SSA construction puts in the block parameters), as it
//! does the loop counters of the thread loops, which are `alloca`s too.
//!
//! # Exits and divergence
//!
//! Region `r`'s copy ends where the kernel returns (code 0) or reaches a
//! barrier (its exit code, see `regions.rs`). When the region has more
//! than one possible exit, each thread's latch stores its code in its
//! frame and sets the bit of its exit (its index among the region's) in
//! a mask: two ORs and a store per thread. After the loop, a mask with
//! more than one bit set is barrier divergence, and
//! `parc_rt_barrier_divergence` gets the table of barrier positions and
//! the frame, finds in it thread 0's code and the first thread that
//! stopped elsewhere, and composes the interpreter's message. Otherwise
//! thread 0's code says which region comes next. (A region with a single
//! exit records nothing.) Every thread runs to its
//! stop before the check, as the interpreter's rounds do, so output
//! printed before a divergence is the same. (At most 64 exits per region;
//! more keep the coroutine path.)
//!
//! `threadIdx` for callees: when the kernel calls functions of the module,
//! each thread's start stores its ids through the `thread` parameter (the
//! runtime's state for `parc_rt_thread_idx`).
//!
//! In the order it happens: the barrier table, then the `Builder` that
//! copies each region.

use super::Refusal;
use super::frame::{self, Class, FrameLayout};
use super::regions::{Region, Split};
use cranelift_entity::EntityRef;
use parc_ir::{
    AddrSpace, BinaryOp, Block, BlockCall, FuncId, Function, GlobalData, GlobalId, InstKind, IntCC,
    Intrinsic, Linkage, Module, Signature, SrcLoc, Type, Value, ValueDef,
};
use std::collections::{HashMap, HashSet};

/// What the runtime needs to run a built kernel.
pub(super) struct Built {
    pub func: FuncId,
    pub frame_bytes: u64,
}

/// Builds the block function of kernel `kid` (split as `split`) into
/// `module`, named `name`.
pub(super) fn build(
    module: &mut Module,
    kid: FuncId,
    split: &Split,
    name: String,
) -> Result<Built, Refusal> {
    if split.regions.iter().flatten().any(|r| r.exits.len() > 64) {
        // The latch records the exits a region's threads took in 64 bits.
        return Err(Refusal("a region can end at more than 64 places"));
    }
    let (class, layout) = frame::plan(split)?;
    let checks = split.regions.iter().flatten().any(|r| r.exits.len() > 1);
    let divergence = if checks {
        let f = super::declare_divergence(module)?;
        Some((f, barrier_table(module, kid, split)))
    } else {
        None
    };
    let sets_thread = split.func.placed_insts().any(|(_, i)| {
        matches!(split.func.inst(i), InstKind::Call { func, .. }
            if !module.funcs[*func].is_declaration())
    });
    let mut b = Builder::new(kid, split, class, layout, name, sets_thread);
    b.divergence = divergence;
    b.build()?;
    let frame_bytes = u64::from(b.layout.stride);
    let func = b.f;
    let func = module.funcs.push(func);
    Ok(Built { func, frame_bytes })
}

/// The read-only table `parc_rt_barrier_divergence` reads (see the
/// runtime's `BarrierSite`): entry 0 the kernel's name, entry `c` the
/// function, line and column of the barrier of exit code `c`.
fn barrier_table(module: &mut Module, kid: FuncId, split: &Split) -> GlobalId {
    let mut names: HashMap<String, GlobalId> = HashMap::new();
    let mut string = |module: &mut Module, s: &str| -> GlobalId {
        if let Some(&g) = names.get(s) {
            return g;
        }
        let name = fresh_global(module, &format!("{}.name", module.funcs[kid].name));
        let g = module
            .globals
            .push(GlobalData::c_string(name, s.as_bytes()));
        names.insert(s.to_string(), g);
        g
    };
    let n = split.barriers.len() + 1;
    let mut init = vec![0u8; 16 * n];
    let mut relocs = Vec::with_capacity(n);
    let kname = module.funcs[kid].name.clone();
    let g = string(module, &kname);
    relocs.push((0, g, 0));
    for (j, bar) in split.barriers.iter().enumerate() {
        let loc = split.func.locs[bar.inst];
        let holder = loc.func.unwrap_or(kid);
        let fname = module.funcs[holder].name.clone();
        let g = string(module, &fname);
        let at = 16 * (j + 1);
        relocs.push((at as u64, g, 0));
        init[at + 8..at + 12].copy_from_slice(&(loc.line as i32).to_le_bytes());
        init[at + 12..at + 16].copy_from_slice(&(loc.col as i32).to_le_bytes());
    }
    let name = fresh_global(module, &format!("{kname}.barriers"));
    module.globals.push(GlobalData {
        name,
        size: init.len() as u64,
        align: 8,
        init,
        relocs,
        func_relocs: Vec::new(),
        is_const: true,
        space: AddrSpace::Global,
        is_local: false,
        is_import: false,
    })
}

fn fresh_global(module: &Module, base: &str) -> String {
    let taken: HashSet<&str> = module.globals.values().map(|g| g.name.as_str()).collect();
    let mut name = base.to_string();
    let mut n = 1;
    while taken.contains(name.as_str()) {
        name = format!("{base}.{n}");
        n += 1;
    }
    name
}

/// The scalar `alloca`s that serve as variables across the thread loops.
struct Vars {
    x: Value,
    y: Value,
    z: Value,
    /// This thread's frame.
    fp: Value,
    /// In regions that check divergence: bit `i` set when a thread
    /// stopped at the region's `i`-th exit.
    mask: Value,
}

/// What the copy of one region knows.
struct RegionState {
    /// Where the thread starts; its terminator comes last.
    thread: Block,
    latch: Block,
    /// Kernel block to copy.
    blocks: HashMap<Block, Block>,
    in_region: HashSet<Block>,
    /// Kernel value to its value in the copy (copies and reloads).
    vals: HashMap<Value, Value>,
    /// Rematerialized values, at `thread`.
    at_thread: HashMap<Value, Value>,
    /// Values live into the region and redefined in it: they go through
    /// their variable (`Builder::repair`).
    repaired: HashSet<Value>,
    /// The other varying values live into the region: reloaded from
    /// their slots at `thread` on first use.
    reloadable: HashSet<Value>,
    /// In a region that checks divergence, the latch's `bit` argument for
    /// the exit of each code (empty otherwise: the latch takes nothing).
    exit_bits: HashMap<u32, i64>,
    /// The thread's ids and frame, at `thread`.
    ids: [Value; 3],
    fp: Option<Value>,
}

struct Builder<'a> {
    kid: FuncId,
    split: &'a Split,
    k: &'a Function,
    class: Vec<Class>,
    layout: FrameLayout,
    f: Function,
    entry: Block,
    args: Value,
    frame: Value,
    thread_ptr: Value,
    sets_thread: bool,
    vars: Vars,
    bdim: [Value; 3],
    /// Entry values: parameters and uniform values, by kernel value.
    at_entry: HashMap<Value, Value>,
    /// One call per block-uniform intrinsic.
    gpu_ids: HashMap<Intrinsic, Value>,
    /// The variable of each value that needs SSA repair.
    repair: HashMap<Value, Value>,
    ret: Block,
    inits: Vec<Option<Block>>,
    divergence: Option<(FuncId, GlobalId)>,
}

fn bug(what: &'static str) -> Refusal {
    debug_assert!(false, "kernel fission: {what}");
    Refusal(what)
}

impl<'a> Builder<'a> {
    fn new(
        kid: FuncId,
        split: &'a Split,
        class: Vec<Class>,
        layout: FrameLayout,
        name: String,
        sets_thread: bool,
    ) -> Builder<'a> {
        let sig = Signature {
            params: vec![Type::Ptr, Type::Ptr, Type::Ptr],
            ret: None,
        };
        let mut f = parc_ir::new_function(name, sig);
        f.kind = parc_ir::FuncKind::Device;
        f.linkage = Linkage::Local;
        let entry = f.layout[0];
        let ps = f.blocks[entry].params.clone();
        let var = |f: &mut Function, ty: Type| {
            let r = f.append_inst(
                entry,
                InstKind::Alloca {
                    size: ty.bytes(),
                    align: ty.bytes(),
                },
                Some(Type::Ptr),
            );
            f.result(r).expect("an alloca has a result")
        };
        let vars = Vars {
            x: var(&mut f, Type::I32),
            y: var(&mut f, Type::I32),
            z: var(&mut f, Type::I32),
            fp: var(&mut f, Type::Ptr),
            mask: var(&mut f, Type::I64),
        };
        let ret = f.create_block();
        let k = &split.func;
        let mut b = Builder {
            kid,
            split,
            k,
            class,
            layout,
            f,
            entry,
            args: ps[0],
            frame: ps[1],
            thread_ptr: ps[2],
            sets_thread,
            vars,
            bdim: [ps[0]; 3],
            at_entry: HashMap::new(),
            gpu_ids: HashMap::new(),
            repair: HashMap::new(),
            ret,
            inits: Vec::new(),
            divergence: None,
        };
        for d in parc_ir::Dim::ALL {
            b.bdim[d.index()] = b.gpu_id(Intrinsic::BlockDim(d));
        }
        b
    }

    fn ins(&mut self, block: Block, kind: InstKind, ty: Option<Type>) -> Option<Value> {
        let i = self.f.append_inst(block, kind, ty);
        self.f.result(i)
    }

    fn val(&mut self, block: Block, kind: InstKind, ty: Type) -> Value {
        let i = self.f.append_inst(block, kind, Some(ty));
        self.f.result(i).expect("created with a result")
    }

    fn iconst(&mut self, block: Block, ty: Type, c: i64) -> Value {
        self.val(block, InstKind::Iconst(parc_ir::sign_extend(c, ty)), ty)
    }

    fn load(&mut self, block: Block, ty: Type, p: Value) -> Value {
        self.val(block, InstKind::Load(p), ty)
    }

    fn store(&mut self, block: Block, value: Value, ptr: Value) {
        self.ins(block, InstKind::Store { value, ptr }, None);
    }

    fn ptradd_const(&mut self, block: Block, p: Value, off: u32) -> Value {
        if off == 0 {
            return p;
        }
        let o = self.iconst(block, Type::I64, i64::from(off));
        self.val(block, InstKind::PtrAdd(p, o), Type::Ptr)
    }

    fn binary(&mut self, block: Block, op: BinaryOp, a: Value, b: Value) -> Value {
        let ty = self.f.value_type(a);
        self.val(block, InstKind::Binary(op, a, b), ty)
    }

    fn icmp(&mut self, block: Block, cc: IntCC, a: Value, b: Value) -> Value {
        self.val(block, InstKind::Icmp(cc, a, b), Type::I1)
    }

    fn jump(&mut self, block: Block, to: Block, args: Vec<Value>) {
        self.ins(block, InstKind::Jump(BlockCall::new(to, args)), None);
    }

    fn brif(&mut self, block: Block, c: Value, then: Block, els: Block) {
        self.ins(
            block,
            InstKind::Brif {
                cond: c,
                then_dest: BlockCall::to(then),
                else_dest: BlockCall::to(els),
            },
            None,
        );
    }

    fn new_block(&mut self) -> Block {
        let b = self.f.create_block();
        self.f.append_block(b);
        b
    }

    /// The entry's call of a block-uniform intrinsic.
    fn gpu_id(&mut self, op: Intrinsic) -> Value {
        if let Some(&v) = self.gpu_ids.get(&op) {
            return v;
        }
        let entry = self.entry;
        let v = self.val(
            entry,
            InstKind::Intrinsic {
                op,
                args: Vec::new(),
            },
            Type::I32,
        );
        self.gpu_ids.insert(op, v);
        v
    }

    fn loc_of(&self, i: parc_ir::Inst) -> SrcLoc {
        let loc = self.k.locs[i];
        if loc.is_known() {
            loc.moved_from(self.kid)
        } else {
            loc
        }
    }

    fn build(&mut self) -> Result<(), Refusal> {
        // The kernel's parameters.
        let entry = self.entry;
        let params: Vec<Value> = self.k.block_params(self.k.layout[0]).to_vec();
        for (i, p) in params.into_iter().enumerate() {
            let ty = self.k.value_type(p);
            let args = self.args;
            let addr = self.ptradd_const(entry, args, 8 * i as u32);
            let v = self.load(entry, ty, addr);
            self.at_entry.insert(p, v);
        }
        self.f.append_block(self.ret);
        self.ins(self.ret, InstKind::Return(None), None);
        let split = self.split;
        self.inits = split
            .regions
            .iter()
            .map(|r| r.as_ref().map(|_| self.f.create_block()))
            .collect();
        for (code, region) in split.regions.iter().enumerate() {
            if let Some(region) = region {
                self.region(code, region)?;
            }
        }
        let first = self.inits[0].ok_or_else(|| bug("no region 0"))?;
        self.jump(entry, first, Vec::new());
        Ok(())
    }

    fn init_of(&self, code: u32) -> Result<Block, Refusal> {
        if code == 0 {
            return Ok(self.ret);
        }
        self.inits
            .get(code as usize)
            .copied()
            .flatten()
            .ok_or_else(|| bug("an exit to a region that was not found"))
    }

    /// The thread loops of region `code` and its copy.
    fn region(&mut self, code: usize, region: &'a Region) -> Result<(), Refusal> {
        // With one possible exit, every thread stops there: nothing to
        // check.
        let checks = region.exits.len() > 1;
        let code_at = self.layout.code;
        let stride = self.layout.stride;
        let v = &self.vars;
        let (vx, vy, vz, vfp, vmask) = (v.x, v.y, v.z, v.fp, v.mask);
        let [bx, by, bz] = self.bdim;

        let init = self.inits[code].ok_or_else(|| bug("a region without its first block"))?;
        self.f.append_block(init);
        let zh = self.new_block();
        let zb = self.new_block();
        let yh = self.new_block();
        let yb = self.new_block();
        let xh = self.new_block();
        let thread = self.new_block();
        let latch = self.new_block();
        let yl = self.new_block();
        let zl = self.new_block();
        let end = self.new_block();

        let zero32 = self.iconst(init, Type::I32, 0);
        self.store(init, zero32, vz);
        if checks {
            let zero64 = self.iconst(init, Type::I64, 0);
            self.store(init, zero64, vmask);
        }
        if stride > 0 {
            let frame = self.frame;
            self.store(init, frame, vfp);
        }
        self.jump(init, zh, Vec::new());

        // for z, y, x: x fastest.
        for (head, body, exit, var, dim) in [(zh, zb, end, vz, bz), (yh, yb, zl, vy, by)] {
            let i = self.load(head, Type::I32, var);
            let c = self.icmp(head, IntCC::Slt, i, dim);
            self.brif(head, c, body, exit);
        }
        let zero = self.iconst(zb, Type::I32, 0);
        self.store(zb, zero, vy);
        self.jump(zb, yh, Vec::new());
        let zero = self.iconst(yb, Type::I32, 0);
        self.store(yb, zero, vx);
        self.jump(yb, xh, Vec::new());
        let x = self.load(xh, Type::I32, vx);
        let c = self.icmp(xh, IntCC::Slt, x, bx);
        self.brif(xh, c, thread, yl);
        for (blk, var, head) in [(yl, vy, yh), (zl, vz, zh)] {
            let i = self.load(blk, Type::I32, var);
            let one = self.iconst(blk, Type::I32, 1);
            let n = self.binary(blk, BinaryOp::Iadd, i, one);
            self.store(blk, n, var);
            self.jump(blk, head, Vec::new());
        }

        // The latch: the thread stopped at the exit of `code`, the region's
        // exit number log2(`bit`). Its code goes to its frame, for the
        // dispatch (thread 0's) and the divergence report; the mask says
        // whether all threads stopped at one place.
        let fp = (stride > 0).then(|| self.load(latch, Type::Ptr, vfp));
        if checks {
            let exit_code = self.f.append_block_param(latch, Type::I32);
            let bit = self.f.append_block_param(latch, Type::I64);
            let (fp, off) = fp
                .zip(code_at)
                .ok_or_else(|| bug("a check without a code slot"))?;
            let at = self.ptradd_const(latch, fp, off);
            self.store(latch, exit_code, at);
            let mask = self.load(latch, Type::I64, vmask);
            let mask = self.binary(latch, BinaryOp::Or, mask, bit);
            self.store(latch, mask, vmask);
        }
        if let Some(fp) = fp {
            let next = self.ptradd_const(latch, fp, stride);
            self.store(latch, next, vfp);
        }
        let x = self.load(latch, Type::I32, vx);
        let one = self.iconst(latch, Type::I32, 1);
        let x1 = self.binary(latch, BinaryOp::Iadd, x, one);
        self.store(latch, x1, vx);
        self.jump(latch, xh, Vec::new());

        // After every thread: divergence, then where all stopped.
        let dispatch = if checks {
            let (div_fn, table) = self.divergence.ok_or_else(|| bug("no divergence import"))?;
            let off = code_at.ok_or_else(|| bug("a check without a code slot"))?;
            let dispatch = self.new_block();
            let diverged = self.new_block();
            let mask = self.load(end, Type::I64, vmask);
            let minus1 = self.iconst(end, Type::I64, -1);
            let below = self.binary(end, BinaryOp::Iadd, mask, minus1);
            let two_bits = self.binary(end, BinaryOp::And, mask, below);
            let zero = self.iconst(end, Type::I64, 0);
            let one_place = self.icmp(end, IntCC::Eq, two_bits, zero);
            self.brif(end, one_place, dispatch, diverged);
            let sites = self.val(diverged, InstKind::GlobalAddr(table), Type::Ptr);
            let frame = self.frame;
            let stride = self.iconst(diverged, Type::I64, i64::from(stride));
            let off = self.iconst(diverged, Type::I64, i64::from(off));
            self.ins(
                diverged,
                InstKind::Call {
                    func: div_fn,
                    args: vec![sites, frame, stride, off],
                },
                None,
            );
            self.ins(diverged, InstKind::Unreachable, None);
            dispatch
        } else {
            end
        };
        match region.exits.as_slice() {
            [] => {
                self.ins(dispatch, InstKind::Unreachable, None);
            }
            [only] => {
                let to = self.init_of(*only)?;
                self.jump(dispatch, to, Vec::new());
            }
            [rest @ .., last] => {
                // Where thread 0 stopped, as every thread did.
                let off = code_at.ok_or_else(|| bug("a check without a code slot"))?;
                let frame = self.frame;
                let at = self.ptradd_const(dispatch, frame, off);
                let c0 = self.load(dispatch, Type::I32, at);
                let mut at = dispatch;
                for &e in rest {
                    let to = self.init_of(e)?;
                    let k = self.iconst(at, Type::I32, i64::from(e));
                    let is = self.icmp(at, IntCC::Eq, c0, k);
                    let next = self.new_block();
                    self.brif(at, is, to, next);
                    at = next;
                }
                let to = self.init_of(*last)?;
                self.jump(at, to, Vec::new());
            }
        }

        // The thread's start: ids, frame, reloads.
        let ids = [vx, vy, vz].map(|var| self.load(thread, Type::I32, var));
        let fp = (stride > 0).then(|| self.load(thread, Type::Ptr, vfp));
        if self.sets_thread {
            let tp = self.thread_ptr;
            for (d, id) in ids.into_iter().enumerate() {
                let at = self.ptradd_const(thread, tp, 4 * d as u32);
                self.store(thread, id, at);
            }
        }
        let mut rs = RegionState {
            thread,
            latch,
            blocks: HashMap::new(),
            in_region: region.blocks.iter().copied().collect(),
            vals: HashMap::new(),
            at_thread: HashMap::new(),
            repaired: HashSet::new(),
            reloadable: HashSet::new(),
            exit_bits: if checks {
                region
                    .exits
                    .iter()
                    .enumerate()
                    .map(|(i, &c)| (c, 1i64 << i))
                    .collect()
            } else {
                HashMap::new()
            },
            ids,
            fp,
        };
        // Values the region redefines start in their variables; the
        // others are reloaded where the region first uses them (see
        // `resolve`), so values only passing through cost nothing.
        for &v in &region.live_in {
            if self.class[v.index()] != Class::Varying {
                continue;
            }
            if self.defined_in(&rs, v) {
                let x = self.reload(&rs, v)?;
                let var = self.repair_var(v);
                self.store(thread, x, var);
                rs.repaired.insert(v);
            } else {
                rs.reloadable.insert(v);
            }
        }
        for &b in &region.blocks {
            let c = self.new_block();
            if b != self.k.layout[0] {
                for &p in self.k.block_params(b) {
                    let ty = self.k.value_type(p);
                    let np = self.f.append_block_param(c, ty);
                    rs.vals.insert(p, np);
                }
            }
            rs.blocks.insert(b, c);
        }
        for &b in &region.blocks {
            self.copy_block(&mut rs, b)?;
        }
        let start = rs.blocks[&region.start];
        self.jump(thread, start, Vec::new());
        Ok(())
    }

    /// Loads `v` from its slot at the thread's start.
    fn reload(&mut self, rs: &RegionState, v: Value) -> Result<Value, Refusal> {
        let (fp, slot) = self.slot_of(rs, v)?;
        let ty = self.k.value_type(v);
        let addr = self.ptradd_const(rs.thread, fp, slot);
        Ok(self.load(rs.thread, ty, addr))
    }

    /// The frame pointer and the byte offset of `v`'s per-thread slot.
    fn slot_of(&self, rs: &RegionState, v: Value) -> Result<(Value, u32), Refusal> {
        let slot = *self
            .layout
            .slots
            .get(&v)
            .ok_or_else(|| bug("a value live across a barrier has no slot"))?;
        let fp = rs.fp.ok_or_else(|| bug("a slot without a frame"))?;
        Ok((fp, slot))
    }

    fn defined_in(&self, rs: &RegionState, v: Value) -> bool {
        self.split
            .def_block(v)
            .is_some_and(|b| rs.in_region.contains(&b))
    }

    fn repair_var(&mut self, v: Value) -> Value {
        if let Some(&var) = self.repair.get(&v) {
            return var;
        }
        let ty = self.k.value_type(v);
        let entry = self.entry;
        let var = self.val(
            entry,
            InstKind::Alloca {
                size: ty.bytes(),
                align: ty.bytes(),
            },
            Type::Ptr,
        );
        self.repair.insert(v, var);
        var
    }

    /// Kernel value `v` where copied code at the end of `block` uses it.
    fn resolve(&mut self, rs: &mut RegionState, block: Block, v: Value) -> Result<Value, Refusal> {
        match self.class[v.index()] {
            Class::Param(_) | Class::Uniform | Class::Remat(_) => self.materialize(rs, v),
            Class::Varying => {
                if rs.repaired.contains(&v) {
                    let var = self.repair[&v];
                    let ty = self.k.value_type(v);
                    Ok(self.load(block, ty, var))
                } else if let Some(&x) = rs.vals.get(&v) {
                    Ok(x)
                } else if rs.reloadable.contains(&v) {
                    let x = self.reload(rs, v)?;
                    rs.vals.insert(v, x);
                    Ok(x)
                } else {
                    Err(bug("a value used before its definition in a region"))
                }
            }
        }
    }

    /// A parameter, uniform or rematerialized value: computed at the
    /// entry or at the thread's start, operands first (without recursion:
    /// uniform expressions may be long chains).
    fn materialize(&mut self, rs: &mut RegionState, v: Value) -> Result<Value, Refusal> {
        let mut stack = vec![v];
        while let Some(&x) = stack.last() {
            if self.ready(rs, x).is_some() {
                stack.pop();
                continue;
            }
            let ValueDef::Result(i) = self.k.value_def(x) else {
                return Err(bug("a block parameter classed as computable anywhere"));
            };
            let kind = self.k.inst(i).clone();
            let class = self.class[x.index()];
            let ty = self.k.value_type(x);
            // Leaves.
            match (&kind, class) {
                (
                    InstKind::Intrinsic {
                        op:
                            op @ (Intrinsic::BlockIdx(_)
                            | Intrinsic::BlockDim(_)
                            | Intrinsic::GridDim(_)),
                        ..
                    },
                    _,
                ) => {
                    let r = self.gpu_id(Intrinsic::clone(op));
                    self.at_entry.insert(x, r);
                    stack.pop();
                    continue;
                }
                (
                    InstKind::Intrinsic {
                        op: Intrinsic::ThreadIdx(d),
                        ..
                    },
                    _,
                ) => {
                    rs.at_thread.insert(x, rs.ids[d.index()]);
                    stack.pop();
                    continue;
                }
                (InstKind::Alloca { .. }, Class::Remat(_)) => {
                    let off = self.layout.thread_private[&x];
                    let fp = rs
                        .fp
                        .ok_or_else(|| bug("thread-private memory without a frame"))?;
                    let thread = rs.thread;
                    let p = self.ptradd_const(thread, fp, off);
                    rs.at_thread.insert(x, p);
                    stack.pop();
                    continue;
                }
                _ => {}
            }
            let mut missing = Vec::new();
            kind.for_each_operand(|o| missing.push(o));
            missing.retain(|&o| self.ready(rs, o).is_none());
            if !missing.is_empty() {
                for &o in &missing {
                    if matches!(self.class[o.index()], Class::Varying) {
                        return Err(bug("a computable value depends on a varying one"));
                    }
                }
                stack.extend(missing);
                continue;
            }
            let mut new = kind;
            new.map_operands(|o| self.ready(rs, o).unwrap_or(o));
            let (block, map_to_entry) = match class {
                Class::Uniform => (self.entry, true),
                Class::Remat(_) => (rs.thread, false),
                Class::Param(_) | Class::Varying => {
                    return Err(bug("materializing a parameter or varying value"));
                }
            };
            let ni = self.f.append_inst(block, new, Some(ty));
            self.f.locs[ni] = self.loc_of(i);
            let r = self.f.result(ni).ok_or_else(|| bug("no result"))?;
            if map_to_entry {
                self.at_entry.insert(x, r);
            } else {
                rs.at_thread.insert(x, r);
            }
            stack.pop();
        }
        self.ready(rs, v)
            .ok_or_else(|| bug("materialization failed"))
    }

    fn ready(&self, rs: &RegionState, v: Value) -> Option<Value> {
        match self.class[v.index()] {
            Class::Param(_) | Class::Uniform => self.at_entry.get(&v).copied(),
            Class::Remat(_) => rs.at_thread.get(&v).copied(),
            Class::Varying => None,
        }
    }

    /// Copies kernel block `b` into region `rs`.
    fn copy_block(&mut self, rs: &mut RegionState, b: Block) -> Result<(), Refusal> {
        let c = rs.blocks[&b];
        for &p in self.k.block_params(b) {
            if rs.repaired.contains(&p)
                && let Some(&np) = rs.vals.get(&p)
            {
                let var = self.repair[&p];
                self.store(c, np, var);
            }
        }
        let barrier_code = self
            .split
            .barriers
            .iter()
            .position(|bar| bar.block == b)
            .map(|j| j as u32 + 1);
        for &i in self.k.block_insts(b) {
            let kind = self.k.inst(i);
            if matches!(
                kind,
                InstKind::Intrinsic {
                    op: Intrinsic::Barrier,
                    ..
                }
            ) {
                continue;
            }
            let result = self.k.result(i);
            if let Some(r) = result
                && self.class[r.index()] != Class::Varying
            {
                if let InstKind::Alloca { size, .. } = kind {
                    // Thread-private memory is zero-filled where the
                    // `alloca` stands, as the kernel's would be.
                    let p = self.materialize(rs, r)?;
                    self.zero_fill(c, p, *size, self.loc_of(i));
                }
                continue;
            }
            match kind {
                InstKind::Return(_) => self.exit(rs, c, 0),
                InstKind::Jump(_) if barrier_code.is_some() => {
                    let code = barrier_code.unwrap_or_default();
                    self.spill(rs, c, code)?;
                    self.exit(rs, c, code);
                }
                _ => {
                    let mut map = HashMap::new();
                    for o in kind.operands() {
                        if let std::collections::hash_map::Entry::Vacant(e) = map.entry(o) {
                            e.insert(self.resolve(rs, c, o)?);
                        }
                    }
                    let mut new = kind.clone();
                    new.map_operands(|o| map[&o]);
                    let mut missing = false;
                    for bc in new.block_calls_mut() {
                        match rs.blocks.get(&bc.block) {
                            Some(&nb) => bc.block = nb,
                            None => missing = true,
                        }
                    }
                    if missing {
                        return Err(bug("a branch out of its region"));
                    }
                    let ty = result.map(|r| self.k.value_type(r));
                    let ni = self.f.append_inst(c, new, ty);
                    self.f.locs[ni] = self.loc_of(i);
                    if let Some(r) = result {
                        let nr = self.f.result(ni).ok_or_else(|| bug("no result"))?;
                        rs.vals.insert(r, nr);
                        if rs.repaired.contains(&r) {
                            let var = self.repair[&r];
                            self.store(c, nr, var);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Ends the thread's run of the region at `block`, stopped at `code`.
    fn exit(&mut self, rs: &RegionState, block: Block, code: u32) {
        let args = match rs.exit_bits.get(&code) {
            Some(&bit) => vec![
                self.iconst(block, Type::I32, i64::from(code)),
                self.iconst(block, Type::I64, bit),
            ],
            None => Vec::new(),
        };
        self.jump(block, rs.latch, args);
    }

    /// At the barrier of `code`, at the end of `block`: stores the values
    /// the next region needs that this region defined (the others are in
    /// their slots already, or are not kept in the frame).
    fn spill(&mut self, rs: &mut RegionState, block: Block, code: u32) -> Result<(), Refusal> {
        let next = self
            .split
            .regions
            .get(code as usize)
            .and_then(Option::as_ref)
            .ok_or_else(|| bug("an exit to a region that was not found"))?;
        for &v in &next.live_in {
            if self.class[v.index()] != Class::Varying || !self.defined_in(rs, v) {
                continue;
            }
            let (fp, slot) = self.slot_of(rs, v)?;
            let x = self.resolve(rs, block, v)?;
            let addr = self.ptradd_const(block, fp, slot);
            self.store(block, x, addr);
        }
        Ok(())
    }

    /// Zeroes `size` bytes at `p`: stores up to 64 bytes, `memset` above.
    fn zero_fill(&mut self, block: Block, p: Value, size: u32, loc: SrcLoc) {
        if size > 64 {
            let zero = self.iconst(block, Type::I32, 0);
            let n = self.iconst(block, Type::I64, i64::from(size));
            let i = self.f.append_inst(
                block,
                InstKind::Intrinsic {
                    op: Intrinsic::Memset,
                    args: vec![p, zero, n],
                },
                None,
            );
            self.f.locs[i] = loc;
            return;
        }
        let mut off = 0;
        for (ty, bytes) in [(Type::I64, 8), (Type::I32, 4), (Type::I8, 1)] {
            while size - off >= bytes {
                let zero = self.iconst(block, ty, 0);
                let at = self.ptradd_const(block, p, off);
                self.store(block, zero, at);
                off += bytes;
            }
        }
    }
}
