//! Functions and statements: frames for `alloca` placement, structured
//! control flow, `spawn`/`sync` and `parallel_for` in Tapir's form (the
//! shapes are in the parent module's doc).

use super::scopes::{decls_in, spawns_in, waiting_vlas};
use super::{Shared, scalar_type};
use crate::ast::Span;
use crate::hir::{self, CType, Expr, ExprKind, Init, LocalId, Stmt, StmtKind};
use parc_ir::{
    BinaryOp, Block, BlockCall, CastOp, FloatCC, FuncBuilder, Function, InstKind, IntCC, Intrinsic,
    SrcLoc, SyncRegion, Type, Value,
};

/// Lowers the body of `hf` into `func`, which already has its signature and
/// an entry block whose parameters match it.
pub(super) fn lower_function(
    cx: &Shared<'_>,
    index: usize,
    hf: &hir::Func,
    body: &[Stmt],
    func: &mut Function,
) {
    let entry = func.entry().expect("a defined function has an entry block");
    let params = func.block_params(entry).to_vec();
    let mut lw = FnLowerer {
        cx,
        hf,
        b: FuncBuilder::new(func),
        locals: vec![None; hf.locals.len()],
        vla_slots: vec![None; hf.locals.len()],
        vla_waits: std::collections::HashSet::new(),
        frames: Vec::new(),
        loops: Vec::new(),
        sret: None,
        loc: SrcLoc::default(),
        synced: None,
        labels: std::collections::HashMap::new(),
    };
    let is_vla = |l: LocalId| hf.locals[l.0 as usize].ty.has_variable_size();
    waiting_vlas(body, &is_vla, &mut lw.vla_waits);
    lw.b.switch_to(entry);
    lw.set_span(hf.span);
    let region = spawns_in(body).then(|| lw.b.func.create_sync_region());
    lw.frames.push(Frame {
        entry,
        n_allocas: 0,
        region,
        kind: FrameKind::Function,
        vla_slots: Vec::new(),
    });

    let mut params = params.into_iter();
    if cx.sret[index] {
        lw.sret = params.next();
    }
    for (&local, value) in hf.params.iter().chain(&hf.va_args).zip(params) {
        let ty = &hf.locals[local.0 as usize].ty;
        if let CType::Array(..) = ty {
            // An array parameter is a pointer in C; its bytes are the caller's.
            lw.locals[local.0 as usize] = Some(value);
            continue;
        }
        let addr = lw.local_addr(local);
        if cx.layout.is_aggregate(ty) {
            // By-value struct: the callee owns a copy (see the module doc).
            let size = cx.layout.size_of(ty);
            lw.copy_bytes(addr, value, size);
        } else {
            lw.b.store(value, addr);
        }
    }
    lw.alloc_decls(body);

    lw.stmts(body);

    if !lw.b.is_terminated() {
        // Falling off the end happens at the closing brace.
        let end = hf.span.end.saturating_sub(1).max(hf.span.start);
        lw.set_span(Span { start: end, end });
        let ret = lw.b.func.sig.ret;
        if hf.name == "main" || hf.ret == CType::Void {
            lw.sync_function_region();
            lw.free_frame_vlas();
            let value = ret.map(|t| lw.zero(t));
            lw.b.ret(value);
        } else {
            // The interpreter reports "control reached end of non-void function".
            lw.b.unreachable();
        }
    }
    prune_unreachable(lw.b.func);
}

/// Removes blocks that cannot be reached from the entry (code after
/// `return`, `break`, `continue` or `exit`) from the layout.
fn prune_unreachable(func: &mut Function) {
    let Some(entry) = func.entry() else { return };
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![entry];
    while let Some(b) = stack.pop() {
        if seen.insert(b) {
            stack.extend(func.successors(b));
        }
    }
    func.layout.retain(|b| seen.contains(b));
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum FrameKind {
    Function,
    /// The task of one `parallel_for` iteration.
    ParallelBody,
    /// The task of a spawned call.
    SpawnTask,
}

/// A scope that owns storage: the function, or a task. Its `alloca`s go to
/// the top of `entry` so that each instance (invocation or task) has its own.
pub(super) struct Frame {
    entry: Block,
    n_allocas: usize,
    /// The sync region of this scope's spawns, if it has any.
    region: Option<SyncRegion>,
    kind: FrameKind,
    /// The slots of the variable-length arrays declared in this scope,
    /// whose memory is freed when it ends (see `vla`).
    pub(super) vla_slots: Vec<Value>,
}

struct LoopTargets {
    /// `None` inside a `parallel_for` body, which `break` may not leave.
    brk: Option<Block>,
    /// `None` for a `switch` outside every loop (the checker allows no
    /// `continue` there).
    cont: Option<Block>,
}

pub(super) struct FnLowerer<'a, 'f> {
    pub(super) cx: &'a Shared<'a>,
    pub(super) hf: &'a hir::Func,
    pub(super) b: FuncBuilder<'f>,
    /// The address of each local, once allocated.
    locals: Vec<Option<Value>>,
    /// The slot holding each variable-length array's address (see `vla`).
    pub(super) vla_slots: Vec<Option<Value>>,
    /// The variable-length arrays whose declaration waits for the frame's
    /// spawned calls before it frees its last run's array (see `vla`).
    pub(super) vla_waits: std::collections::HashSet<LocalId>,
    pub(super) frames: Vec<Frame>,
    loops: Vec<LoopTargets>,
    /// Where a struct result goes.
    sret: Option<Value>,
    /// The position given to instructions appended now.
    pub(super) loc: SrcLoc,
    /// The block that follows the latest `sync`, and its region.
    synced: Option<(Block, SyncRegion)>,
    /// The block of each label (named, `case`, `default`), made on first
    /// mention.
    labels: std::collections::HashMap<hir::LabelId, Block>,
}

impl FnLowerer<'_, '_> {
    pub(super) fn set_span(&mut self, span: Span) {
        let loc = self.cx.lines.loc(span.start);
        self.set_loc(loc);
    }

    pub(super) fn set_loc(&mut self, loc: SrcLoc) {
        self.loc = loc;
        self.b.set_loc(loc);
    }

    /// Makes sure instructions can be appended: after a terminator, code
    /// continues in a fresh block with no predecessors (pruned at the end).
    pub(super) fn ensure_open(&mut self) {
        if self.b.is_terminated() {
            let block = self.b.create_block();
            self.b.switch_to(block);
        }
    }

    /// Jumps to `dest` unless the current block already ended.
    fn jump_if_open(&mut self, dest: Block) {
        if !self.b.is_terminated() {
            self.b.jump(dest, Vec::new());
        }
    }

    /// A stack slot in the current frame's first block (see [`Frame`]).
    pub(super) fn frame_alloca(&mut self, size: u64, align: u64) -> Value {
        let frame = self.frames.last_mut().expect("a frame is open");
        let kind = InstKind::Alloca {
            size: size.max(1) as u32,
            align: align.max(1) as u32,
        };
        let inst = self.b.func.make_inst(kind, Some(Type::Ptr));
        self.b.func.blocks[frame.entry]
            .insts
            .insert(frame.n_allocas, inst);
        frame.n_allocas += 1;
        if self.loc.is_known() {
            self.b.func.locs[inst] = self.loc;
        }
        self.b.func.result(inst).expect("alloca has a result")
    }

    /// The address of a local, allocating it in the current frame if this
    /// is its first mention.
    pub(super) fn local_addr(&mut self, local: LocalId) -> Value {
        if let Some(addr) = self.locals[local.0 as usize] {
            return addr;
        }
        let ty = &self.hf.locals[local.0 as usize].ty;
        if ty.has_variable_size() {
            let slot = self.vla_slot(local);
            return self.b.load(Type::Ptr, slot);
        }
        let (size, align) = (self.cx.layout.size_of(ty), self.cx.layout.align_of(ty));
        let saved = self.loc;
        self.set_span(self.hf.locals[local.0 as usize].span);
        let addr = self.frame_alloca(size, align);
        self.set_loc(saved);
        let name = &self.hf.locals[local.0 as usize].name;
        if !name.is_empty()
            && let parc_ir::ValueDef::Result(inst) = self.b.func.value_def(addr)
        {
            self.b.func.local_names.insert(inst, name.clone());
        }
        self.locals[local.0 as usize] = Some(addr);
        addr
    }

    /// Allocates the locals declared in the current frame's statements up
    /// front, so every one sits in the frame that owns it.
    fn alloc_decls(&mut self, stmts: &[Stmt]) {
        let mut decls = Vec::new();
        decls_in(stmts, &mut decls);
        for local in decls {
            if self.hf.locals[local.0 as usize].ty.has_variable_size() {
                self.vla_slot(local);
            } else {
                self.local_addr(local);
            }
        }
    }

    pub(super) fn zero(&mut self, ty: Type) -> Value {
        if ty.is_float() {
            self.b.fconst(ty, 0.0)
        } else {
            self.b.iconst(ty, 0)
        }
    }

    pub(super) fn iconst64(&mut self, v: i64) -> Value {
        self.b.iconst(Type::I64, v)
    }

    pub(super) fn copy_bytes(&mut self, dst: Value, src: Value, size: u64) {
        let n = self.iconst64(size as i64);
        self.b.intrinsic(Intrinsic::Memcpy, None, vec![dst, src, n]);
    }

    fn zero_fill(&mut self, addr: Value, ty: &CType) {
        match scalar_type(ty) {
            Some(t) => {
                let z = self.zero(t);
                self.b.store(z, addr);
            }
            None => {
                let size = self.cx.layout.size_of(ty);
                let byte = self.b.iconst(Type::I32, 0);
                let n = self.iconst64(size as i64);
                self.b
                    .intrinsic(Intrinsic::Memset, None, vec![addr, byte, n]);
            }
        }
    }

    /// `addr + offset` (no instruction for offset 0).
    pub(super) fn offset(&mut self, addr: Value, offset: u64) -> Value {
        if offset == 0 {
            return addr;
        }
        let off = self.iconst64(offset as i64);
        self.b.ptradd(addr, off)
    }

    fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        self.ensure_open();
        self.set_span(s.span);
        match &s.kind {
            StmtKind::Expr(e) => {
                self.eval(e);
            }
            StmtKind::Decl(local, _) if self.hf.locals[local.0 as usize].ty.has_variable_size() => {
                self.vla_decl(*local)
            }
            StmtKind::Decl(local, init) => {
                let addr = self.local_addr(*local);
                let ty = self.hf.locals[local.0 as usize].ty.clone();
                match init {
                    None => self.zero_fill(addr, &ty),
                    Some(init) => self.init(addr, &ty, init, true),
                }
            }
            StmtKind::Block(b) => self.stmts(b),
            StmtKind::If { cond, then, els } => {
                let c = self.cond(cond);
                let then_b = self.b.create_block();
                let merge = self.b.create_block();
                let else_b = if els.is_some() {
                    self.b.create_block()
                } else {
                    merge
                };
                self.b.brif(c, BlockCall::to(then_b), BlockCall::to(else_b));
                self.b.switch_to(then_b);
                self.stmt(then);
                self.jump_if_open(merge);
                if let Some(els) = els {
                    self.b.switch_to(else_b);
                    self.stmt(els);
                    self.jump_if_open(merge);
                }
                self.b.switch_to(merge);
            }
            StmtKind::While { cond, body } => {
                let header = self.b.create_block();
                let body_b = self.b.create_block();
                let exit = self.b.create_block();
                self.b.jump(header, Vec::new());
                self.b.switch_to(header);
                let c = self.cond(cond);
                self.b.brif(c, BlockCall::to(body_b), BlockCall::to(exit));
                self.b.switch_to(body_b);
                self.loop_body(body, exit, header);
                self.b.switch_to(exit);
            }
            StmtKind::DoWhile { body, cond } => {
                let body_b = self.b.create_block();
                let cond_b = self.b.create_block();
                let exit = self.b.create_block();
                self.b.jump(body_b, Vec::new());
                self.b.switch_to(body_b);
                self.loop_body(body, exit, cond_b);
                self.b.switch_to(cond_b);
                self.set_span(cond.span);
                let c = self.cond(cond);
                self.b.brif(c, BlockCall::to(body_b), BlockCall::to(exit));
                self.b.switch_to(exit);
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                if let Some(init) = init {
                    self.stmt(init);
                    self.ensure_open();
                }
                let header = self.b.create_block();
                let body_b = self.b.create_block();
                let step_b = self.b.create_block();
                let exit = self.b.create_block();
                self.b.jump(header, Vec::new());
                self.b.switch_to(header);
                match cond {
                    Some(cond) => {
                        let c = self.cond(cond);
                        self.b.brif(c, BlockCall::to(body_b), BlockCall::to(exit));
                    }
                    None => self.b.jump(body_b, Vec::new()),
                }
                self.b.switch_to(body_b);
                self.loop_body(body, exit, step_b);
                self.b.switch_to(step_b);
                if let Some(step) = step {
                    self.eval(step);
                }
                self.b.jump(header, Vec::new());
                self.b.switch_to(exit);
            }
            StmtKind::ParallelFor {
                var,
                lo,
                hi,
                inclusive,
                step,
                step_check,
                body,
            } => self.parallel_for(*var, lo, hi, *inclusive, step, *step_check, body),
            StmtKind::Break => match self.loops.last().and_then(|l| l.brk) {
                Some(exit) => self.b.jump(exit, Vec::new()),
                // The checker rejects `break` out of a parallel_for body.
                None => self.b.unreachable(),
            },
            StmtKind::Continue => match self.loops.last().and_then(|l| l.cont) {
                Some(cont) => self.b.jump(cont, Vec::new()),
                None => self.b.unreachable(),
            },
            StmtKind::Switch {
                cond,
                cases,
                default,
                body,
            } => {
                let v = self.value(cond);
                let t = self.b.func.value_type(v);
                let exit = self.b.create_block();
                for (value, label) in cases {
                    let target = self.label_block(*label);
                    let k = self.b.iconst(t, *value);
                    let c = self.b.icmp(IntCC::Eq, v, k);
                    let next = self.b.create_block();
                    self.b.brif(c, BlockCall::to(target), BlockCall::to(next));
                    self.b.switch_to(next);
                }
                let otherwise = default.map_or(exit, |d| self.label_block(d));
                self.b.jump(otherwise, Vec::new());
                // Code before the first label is unreachable (it may hold
                // declarations, which are allocated anyway).
                let dead = self.b.create_block();
                self.b.switch_to(dead);
                let cont = self.loops.last().and_then(|l| l.cont);
                self.loops.push(LoopTargets {
                    brk: Some(exit),
                    cont,
                });
                self.stmt(body);
                self.loops.pop();
                self.jump_if_open(exit);
                self.b.switch_to(exit);
            }
            StmtKind::Label(label) => {
                let target = self.label_block(*label);
                self.jump_if_open(target);
                self.b.switch_to(target);
            }
            StmtKind::Goto(label) => {
                let target = self.label_block(*label);
                self.b.jump(target, Vec::new());
            }
            StmtKind::Return(value) => self.ret(value.as_ref()),
            StmtKind::Spawn { dest, call } => self.spawn(*dest, call),
            StmtKind::Sync => {
                // Without a spawn in this scope there is nothing to wait for.
                if let Some(region) = self.frames.last().and_then(|f| f.region) {
                    self.sync(region);
                }
            }
        }
    }

    fn label_block(&mut self, label: hir::LabelId) -> Block {
        if let Some(&b) = self.labels.get(&label) {
            return b;
        }
        let b = self.b.create_block();
        self.labels.insert(label, b);
        b
    }

    fn loop_body(&mut self, body: &Stmt, brk: Block, cont: Block) {
        self.loops.push(LoopTargets {
            brk: Some(brk),
            cont: Some(cont),
        });
        self.stmt(body);
        self.loops.pop();
        self.jump_if_open(cont);
    }

    /// Stores an initializer into an object of type `ty` at `addr`. `fresh`
    /// says the bytes not covered must still be zeroed.
    pub(super) fn init(&mut self, addr: Value, ty: &CType, init: &Init, fresh: bool) {
        match init {
            Init::Expr(e) => match ty {
                CType::Array(_, n) => {
                    // A char array from a string literal: copy what fits
                    // (with the NUL if there is room), zero the rest.
                    self.zero_fill(addr, ty);
                    if let Some(i) = peel_string(e) {
                        let len = (self.cx.prog.strings[i].len() as u64 + 1).min(*n);
                        let src = self.b.global_addr(self.cx.strings[i]);
                        self.copy_bytes(addr, src, len);
                    } else {
                        let src = self.value(e);
                        let size = self.cx.layout.size_of(ty);
                        self.copy_bytes(addr, src, size);
                    }
                }
                _ if self.cx.layout.is_aggregate(ty) => {
                    let src = self.value(e);
                    let size = self.cx.layout.size_of(ty);
                    self.copy_bytes(addr, src, size);
                }
                _ => {
                    let v = self.value(e);
                    self.b.store(v, addr);
                }
            },
            Init::List(items) => {
                if fresh && self.cx.layout.is_aggregate(ty) {
                    // "The rest are zero": clear everything, then fill in.
                    self.zero_fill(addr, ty);
                }
                match ty {
                    CType::Array(elem, n) => {
                        let size = self.cx.layout.size_of(elem);
                        for (i, item) in items.iter().filter(|(i, _)| i < n) {
                            let at = self.offset(addr, i * size);
                            self.init(at, elem, item, false);
                        }
                    }
                    CType::Struct(id) => {
                        let fields = self
                            .cx
                            .layout
                            .structs
                            .get(id.0 as usize)
                            .map(|s| s.fields.clone())
                            .unwrap_or_default();
                        for (i, item) in items {
                            if let Some(field) = fields.get(*i as usize) {
                                let at = self.offset(addr, field.offset);
                                match (&field.bits, first_expr(item)) {
                                    (Some(bits), Some(e)) => {
                                        let v = self.value(e);
                                        self.bit_write(at, bits, v, &field.ty);
                                    }
                                    // `{}` for a bit-field: already zero.
                                    (Some(_), None) => {}
                                    (None, _) => self.init(at, &field.ty, item, false),
                                }
                            }
                        }
                    }
                    CType::Dim3 => {
                        for (i, item) in items.iter().filter(|(i, _)| *i < 3) {
                            let at = self.offset(addr, 4 * i);
                            self.init(at, &CType::UInt, item, false);
                        }
                    }
                    _ => match items.first().map(|(_, i)| i) {
                        Some(first) => self.init(addr, ty, first, fresh),
                        None if fresh => self.zero_fill(addr, ty),
                        None => {}
                    },
                }
            }
        }
    }

    /// Syncs the function's spawns, if it has any (before every return).
    fn sync_function_region(&mut self) {
        if let Some(region) = self.frames.first().and_then(|f| f.region) {
            self.sync(region);
        }
    }

    /// `sync within region, next`, continuing at `next`; nothing if the
    /// current block is the empty block right after such a sync (an
    /// explicit `sync;` just before `return`).
    pub(super) fn sync(&mut self, region: SyncRegion) {
        if let Some(here) = self.b.current_block()
            && self.synced == Some((here, region))
            && self.b.func.block_insts(here).is_empty()
        {
            return;
        }
        let next = self.b.create_block();
        self.b.sync(region, next);
        self.b.switch_to(next);
        self.synced = Some((next, region));
    }

    fn ret(&mut self, value: Option<&Expr>) {
        if self
            .frames
            .last()
            .is_some_and(|f| f.kind != FrameKind::Function)
        {
            // `return` out of a parallel_for body is rejected by the checker.
            self.b.unreachable();
            return;
        }
        // The implicit sync comes first, so the result may read what the
        // spawned calls wrote (as in the serial projection); the
        // variable-length arrays are freed once it is computed.
        self.sync_function_region();
        let result = match (value, self.sret) {
            (Some(e), Some(sret)) => {
                let src = self.value(e);
                let size = self.cx.layout.size_of(&self.hf.ret);
                self.copy_bytes(sret, src, size);
                Some(sret)
            }
            (None, Some(sret)) => Some(sret),
            (Some(e), None) => {
                let v = self.eval(e);
                self.b.func.sig.ret.and(v)
            }
            (None, _) => self.b.func.sig.ret.map(|t| self.zero(t)),
        };
        self.free_frame_vlas();
        self.b.ret(result);
    }

    /// The sync region of the current scope, created if missing.
    pub(super) fn current_region(&mut self) -> SyncRegion {
        let idx = self
            .frames
            .iter()
            .rposition(|f| f.kind != FrameKind::SpawnTask)
            .unwrap_or(0);
        if let Some(r) = self.frames[idx].region {
            return r;
        }
        let r = self.b.func.create_sync_region();
        self.frames[idx].region = Some(r);
        r
    }

    fn spawn(&mut self, dest: Option<LocalId>, call: &Expr) {
        let region = self.current_region();
        let ExprKind::Call { func, args } = &call.kind else {
            // Not a call of a program function (the checker only spawns
            // those): run the whole expression in the task.
            let task = self.b.create_block();
            let cont = self.b.create_block();
            self.b.detach(region, task, cont);
            self.b.switch_to(task);
            self.push_task_frame(task);
            let v = self.eval(call);
            self.store_spawn_result(dest, v, &call.ty);
            self.b.reattach(region, cont);
            self.frames.pop();
            self.b.switch_to(cont);
            return;
        };

        // Arguments are evaluated in the parent, before the detach.
        enum Arg {
            Value(Value),
            /// A struct read field by field: `(offset, value)`, size, align.
            Bytes(Vec<(u64, Value)>, u64, u64),
        }
        let mut evaluated = Vec::new();
        for arg in args {
            if self.cx.layout.is_aggregate(&arg.ty) {
                let src = self.value(arg);
                let mut leaves = Vec::new();
                self.cx.layout.leaves(&arg.ty, 0, &mut leaves);
                let values = leaves
                    .into_iter()
                    .map(|(off, t)| {
                        let at = self.offset(src, off);
                        (off, self.b.load(t, at))
                    })
                    .collect();
                let (size, align) = (
                    self.cx.layout.size_of(&arg.ty),
                    self.cx.layout.align_of(&arg.ty),
                );
                evaluated.push(Arg::Bytes(values, size, align));
            } else {
                let v = self.value(arg);
                evaluated.push(Arg::Value(v));
            }
        }
        self.set_span(call.span);

        let task = self.b.create_block();
        let cont = self.b.create_block();
        self.b.detach(region, task, cont);
        self.b.switch_to(task);
        self.push_task_frame(task);

        let callee = self.cx.func(*func);
        let index = func.0 as usize;
        let mut values = Vec::new();
        if self.cx.sret[index] {
            let ret_ty = &self.cx.prog.funcs[index].ret;
            let into_dest = dest.filter(|d| &self.hf.locals[d.0 as usize].ty == ret_ty);
            let out = match into_dest {
                Some(d) => self.local_addr(d),
                None => {
                    let (size, align) = (
                        self.cx.layout.size_of(ret_ty),
                        self.cx.layout.align_of(ret_ty),
                    );
                    self.frame_alloca(size, align)
                }
            };
            values.push(out);
        }
        for arg in evaluated {
            match arg {
                Arg::Value(v) => values.push(v),
                Arg::Bytes(leaves, size, align) => {
                    let tmp = self.frame_alloca(size, align);
                    for (off, v) in leaves {
                        let at = self.offset(tmp, off);
                        self.b.store(v, at);
                    }
                    values.push(tmp);
                }
            }
        }
        let result = self.b.call(callee, self.cx.rets[index], values);
        if !self.cx.sret[index] {
            self.store_spawn_result(dest, result, &call.ty);
        }
        self.b.reattach(region, cont);
        self.frames.pop();
        self.b.switch_to(cont);
    }

    fn push_task_frame(&mut self, task: Block) {
        self.frames.push(Frame {
            entry: task,
            n_allocas: 0,
            region: None,
            kind: FrameKind::SpawnTask,
            vla_slots: Vec::new(),
        });
    }

    /// Inside a spawned task: stores the call's result, converted to the
    /// destination's type, into the destination.
    fn store_spawn_result(&mut self, dest: Option<LocalId>, v: Option<Value>, from: &CType) {
        let (Some(dest), Some(v)) = (dest, v) else {
            return;
        };
        let to = self.hf.locals[dest.0 as usize].ty.clone();
        let addr = self.local_addr(dest);
        if self.cx.layout.is_aggregate(&to) {
            let size = self.cx.layout.size_of(&to);
            self.copy_bytes(addr, v, size);
        } else {
            let v = self.convert(v, from, &to);
            self.b.store(v, addr);
        }
    }

    /// The bound of a `parallel_for` over `index` (IR type `ty`) and how
    /// to compare it (`inclusive`, `unsigned`) so that the header's test
    /// of the index is C's `var < hi` (or `<=`) in `hi_ty`, the usual
    /// arithmetic conversions of both (see `hir::StmtKind::ParallelFor`).
    /// Of the same width, only the signedness of the compare is `hi_ty`'s.
    /// Wider (a 32-bit index, a 64-bit bound), the bound is made exclusive
    /// and brought into the index's range: C's test then holds for exactly
    /// the index values below it until the index would wrap, where C's
    /// serial loop would never end.
    fn pfor_bound_in_index_type(
        &mut self,
        hi: Value,
        hi_ty: &CType,
        ty: Type,
        index: &CType,
        inclusive: bool,
    ) -> (Value, bool, bool) {
        if let Some(fty) = scalar_type(hi_ty).filter(|t| t.is_float()) {
            return self.pfor_float_bound(hi, fty, ty, index, inclusive);
        }
        let Some(wide) = scalar_type(hi_ty).filter(|t| t.is_int()) else {
            return (hi, inclusive, index.is_unsigned());
        };
        if wide.bits() == ty.bits() {
            return (hi, inclusive, hi_ty.is_unsigned());
        }
        let mut h = hi;
        if inclusive {
            let one = self.b.iconst(wide, 1);
            h = self.b.binary(BinaryOp::Iadd, h, one);
        }
        // The exclusive bound's range, as `wide` values: a signed index
        // compared as unsigned (C's `(unsigned long)i`) stops where it
        // would wrap to a negative value, 2^31.
        let (min, max, cmp_unsigned) = match (index.is_unsigned(), hi_ty.is_unsigned()) {
            (false, false) => (Some(i64::from(i32::MIN)), i64::from(i32::MAX), false),
            (true, false) => (Some(0), i64::from(u32::MAX), true),
            (true, true) => (None, i64::from(u32::MAX), true),
            (false, true) => (None, 1 << 31, true),
        };
        let (lt, gt) = if hi_ty.is_unsigned() {
            (IntCC::Ult, IntCC::Ugt)
        } else {
            (IntCC::Slt, IntCC::Sgt)
        };
        if let Some(min) = min {
            let m = self.b.iconst(wide, min);
            let below = self.b.icmp(lt, h, m);
            h = self.b.select(below, m, h);
        }
        let m = self.b.iconst(wide, max);
        let above = self.b.icmp(gt, h, m);
        h = self.b.select(above, m, h);
        (self.b.cast(CastOp::Trunc, h, ty), false, cmp_unsigned)
    }

    /// A floating bound `hi` as an exclusive bound of the index type: for
    /// an integer `i`, `i < hi` holds exactly when `i < ceil(hi)`, and
    /// `i <= hi` when `i < floor(hi) + 1`. The conversion saturates at the
    /// index type's ends (past them the serial loop would wrap: undefined),
    /// and a NaN bound, which no index is below, becomes the type's least
    /// value.
    fn pfor_float_bound(
        &mut self,
        hi: Value,
        fty: Type,
        ty: Type,
        index: &CType,
        inclusive: bool,
    ) -> (Value, bool, bool) {
        let round = if inclusive {
            Intrinsic::Floor
        } else {
            Intrinsic::Ceil
        };
        let mut h = self
            .b
            .intrinsic(round, Some(fty), vec![hi])
            .expect("floor and ceil return a value");
        if inclusive {
            let one = self.b.fconst(fty, 1.0);
            h = self.b.binary(BinaryOp::Fadd, h, one);
        }
        let ordered = self.b.fcmp(FloatCC::Eq, h, h);
        let least = self.b.fconst(fty, f64::NEG_INFINITY);
        h = self.b.select(ordered, h, least);
        let unsigned = index.is_unsigned();
        let to_int = if unsigned {
            CastOp::FpToUi
        } else {
            CastOp::FpToSi
        };
        (self.b.cast(to_int, h, ty), false, unsigned)
    }

    #[allow(clippy::too_many_arguments)] // the fields of `StmtKind::ParallelFor`
    fn parallel_for(
        &mut self,
        var: LocalId,
        lo: &Expr,
        hi: &Expr,
        inclusive: bool,
        step: &Expr,
        step_check: Option<usize>,
        body: &Stmt,
    ) {
        let var_ty = self.hf.locals[var.0 as usize].ty.clone();
        let Some(ty) = scalar_type(&var_ty) else {
            return;
        };
        // Bounds and step once, in the parent.
        let lo_v = self.value(lo);
        let hi_v = self.value(hi);
        let step_v = self.value(step);
        let loop_loc = self.loc;
        if let Some(message) = step_check {
            let zero = self.b.iconst(ty, 0);
            let cc = if var_ty.is_unsigned() {
                IntCC::Ne
            } else {
                IntCC::Sgt
            };
            let positive = self.b.icmp(cc, step_v, zero);
            let fault = self.b.create_block();
            let go = self.b.create_block();
            self.b
                .brif(positive, BlockCall::to(go), BlockCall::to(fault));
            self.b.switch_to(fault);
            let text = self.b.global_addr(self.cx.strings[message]);
            self.b.intrinsic(Intrinsic::RuntimeError, None, vec![text]);
            self.b.unreachable();
            self.b.switch_to(go);
        }

        let region = self.b.func.create_sync_region();
        let header = self.b.create_block();
        let iv = self.b.param(header, ty);
        let spawn_iter = self.b.create_block();
        let task = self.b.create_block();
        let task_end = self.b.create_block();
        let latch = self.b.create_block();
        let exit = self.b.create_block();

        let (hi_v, inclusive, unsigned) =
            self.pfor_bound_in_index_type(hi_v, &hi.ty, ty, &var_ty, inclusive);
        self.b.jump(header, vec![lo_v]);
        self.b.switch_to(header);
        let cc = match (inclusive, unsigned) {
            (false, false) => IntCC::Slt,
            (false, true) => IntCC::Ult,
            (true, false) => IntCC::Sle,
            (true, true) => IntCC::Ule,
        };
        let c = self.b.icmp(cc, iv, hi_v);
        self.b
            .brif(c, BlockCall::to(spawn_iter), BlockCall::to(exit));
        self.b.switch_to(spawn_iter);
        self.b.detach(region, task, latch);

        // The iteration: a task with its own frame (index copy and body
        // locals private to it) and its own sync region for its spawns.
        self.b.switch_to(task);
        let body_slice = std::slice::from_ref(body);
        let body_region = spawns_in(body_slice).then(|| self.b.func.create_sync_region());
        self.frames.push(Frame {
            entry: task,
            n_allocas: 0,
            region: body_region,
            kind: FrameKind::ParallelBody,
            vla_slots: Vec::new(),
        });
        let saved_locals = self.locals.clone();
        let saved_vla_slots = self.vla_slots.clone();
        let var_addr = {
            // A fresh slot even if the variable was seen before (it cannot
            // be, but the slot must belong to this task).
            self.locals[var.0 as usize] = None;
            self.local_addr(var)
        };
        self.alloc_decls(body_slice);
        self.b.store(iv, var_addr);
        self.loops.push(LoopTargets {
            brk: None,
            cont: Some(task_end),
        });
        self.stmt(body);
        self.loops.pop();
        self.jump_if_open(task_end);
        self.b.switch_to(task_end);
        self.set_loc(loop_loc);
        if let Some(r) = body_region {
            // Cilk: each iteration syncs its own spawns before it ends.
            self.sync(r);
        }
        self.free_frame_vlas();
        self.b.reattach(region, latch);
        self.frames.pop();
        // Locals of the body are out of scope now; forgetting their slots
        // keeps a task's values from leaking into the parent.
        self.locals = saved_locals;
        self.vla_slots = saved_vla_slots;

        self.b.switch_to(latch);
        let next = self.b.binary(parc_ir::BinaryOp::Iadd, iv, step_v);
        self.b.jump(header, vec![next]);

        self.b.switch_to(exit);
        self.sync(region);
    }
}

/// The string literal under conversions, if `e` is one.
fn peel_string(e: &Expr) -> Option<usize> {
    match &e.kind {
        ExprKind::Convert(inner) | ExprKind::Decay(inner) => peel_string(inner),
        ExprKind::Str(i) => Some(*i),
        _ => None,
    }
}

/// The expression that initializes a scalar: `e`, or the first of `{e}`
/// (C allows braces around a scalar's initializer).
fn first_expr(init: &Init) -> Option<&Expr> {
    match init {
        Init::Expr(e) => Some(e),
        Init::List(items) => items.first().and_then(|(_, i)| first_expr(i)),
    }
}
