//! The translation of one function (`FnTranslator`): blocks in reverse
//! postorder, then each instruction; arithmetic, memory, intrinsics and
//! launches are translated in their own files.
//!

use super::abi::{clif_signature, clif_type};
use super::arith::{float_cc, int_cc};
use super::intrinsic::sincos_pairs;
use super::loops::invariants_to_thread;
use super::memory::promotable_allocas;
use super::{Cx, FAULT_UNREACHABLE, iconst, resize_int};
use crate::BackendError;
use crate::intrinsics::{self as ix, ExternFn};
use cranelift_codegen::ir::{
    self as cl, BlockArg, InstBuilder, MemFlagsData, TrapCode, condcodes, types,
};
use cranelift_entity::EntityRef;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_module::{DataId, FuncId as ClFuncId, Module as ClModule};
use parc_ir::{
    AddrSpace, Block, FuncId, Function, Inst, InstKind, Intrinsic, SrcLoc, Type, UnaryOp, Value,
};
use std::collections::{HashMap, HashSet};

/// Blocks reachable from the entry, in reverse postorder.
pub(super) fn reverse_postorder(f: &Function) -> Vec<Block> {
    let Some(entry) = f.entry() else {
        return Vec::new();
    };
    let mut seen = HashSet::new();
    let mut post = Vec::new();
    // (block, index of the next successor to visit)
    let mut stack = vec![(entry, 0usize)];
    seen.insert(entry);
    while let Some(&mut (block, ref mut next)) = stack.last_mut() {
        let succs = f.successors(block);
        if let Some(&s) = succs.get(*next) {
            *next += 1;
            if seen.insert(s) {
                stack.push((s, 0));
            }
        } else {
            post.push(block);
            stack.pop();
        }
    }
    post.reverse();
    post
}

/// The translation of one function.
pub(super) struct FnTranslator<'a, 'b, 'c, M: ClModule> {
    pub(super) m: &'a mut M,
    pub(super) cx: &'a mut Cx<'c>,
    pub(super) b: FunctionBuilder<'b>,
    pub(super) f: &'c Function,
    pub(super) id: FuncId,
    /// CLIF value of each parir value.
    pub(super) values: Vec<Option<cl::Value>>,
    /// CLIF block of each reachable parir block.
    pub(super) blocks: HashMap<Block, cl::Block>,
    pub(super) func_refs: HashMap<ClFuncId, cl::FuncRef>,
    pub(super) data_refs: HashMap<DataId, cl::GlobalValue>,
    pub(super) shared_base: Option<cl::Value>,
    /// `worker_id`, read once in the entry (see `translate`).
    pub(super) worker_id: Option<cl::Value>,
    /// Allocas kept in registers (see [`promotable_allocas`]): the CLIF
    /// variable and the one type they are accessed as.
    pub(super) promoted: HashMap<Value, (Variable, Type)>,
    /// The instruction being translated (for fault positions).
    pub(super) inst: Option<Inst>,
    /// The natural loops of `f` (see `brif`), and the block being translated.
    pub(super) loops: parc_ir::analysis::loops::LoopAnalysis,
    pub(super) block: Option<Block>,
    /// Loop-invariant `x op constant` values threaded through loop headers
    /// (see [`invariants_to_thread`]): per header, the values and the
    /// header's extra CLIF parameters carrying them.
    pub(super) threaded: HashMap<Block, Vec<(Value, cl::Value)>>,
    /// The threaded values' CLIF values in the current block: the
    /// parameter of the innermost loop around it that carries them.
    pub(super) overrides: HashMap<Value, cl::Value>,
    /// Arguments of which the current block takes both `sin` and `cos`
    /// (see [`sincos_pairs`]), and for those already computed, the two.
    pub(super) sincos_args: HashSet<Value>,
    pub(super) sincos: HashMap<Value, (cl::Value, cl::Value)>,
}

impl<'a, 'b, 'c, M: ClModule> FnTranslator<'a, 'b, 'c, M> {
    pub(super) fn run(
        m: &'a mut M,
        cx: &'a mut Cx<'c>,
        func: &'b mut cl::Function,
        fctx: &'b mut FunctionBuilderContext,
        id: FuncId,
    ) -> Result<(), BackendError> {
        let f = &cx.ir.funcs[id];
        let cfg = m.target_config();
        let mut t = FnTranslator {
            m,
            b: FunctionBuilder::new(func, fctx),
            cx,
            f,
            id,
            values: vec![None; f.values.len()],
            blocks: HashMap::new(),
            func_refs: HashMap::new(),
            data_refs: HashMap::new(),
            shared_base: None,
            worker_id: None,
            promoted: HashMap::new(),
            inst: None,
            loops: {
                let cfg = parc_ir::analysis::cfg::ControlFlowGraph::compute(f);
                let dom = parc_ir::analysis::dom::DominatorTree::compute(&cfg);
                parc_ir::analysis::loops::LoopAnalysis::compute(&cfg, &dom)
            },
            block: None,
            threaded: HashMap::new(),
            overrides: HashMap::new(),
            sincos_args: HashSet::new(),
            sincos: HashMap::new(),
        };
        t.translate()?;
        t.b.seal_all_blocks();
        t.b.finalize(cfg);
        Ok(())
    }

    pub(super) fn err(&self, msg: impl std::fmt::Display) -> BackendError {
        BackendError::Invalid(format!("function `{}`: {msg}", self.f.name))
    }

    pub(super) fn translate(&mut self) -> Result<(), BackendError> {
        let order = reverse_postorder(self.f);
        for (alloca, ty) in promotable_allocas(self.f) {
            let var = self.b.declare_var(clif_type(ty));
            self.promoted.insert(alloca, (var, ty));
        }
        for &block in &order {
            let cb = self.b.create_block();
            for &p in &self.f.blocks[block].params {
                let v = self
                    .b
                    .append_block_param(cb, clif_type(self.f.value_type(p)));
                self.values[p.index()] = Some(v);
            }
            self.blocks.insert(block, cb);
        }
        for (header, vs) in invariants_to_thread(self.f, &self.loops) {
            let Some(&cb) = self.blocks.get(&header) else {
                continue;
            };
            let params = vs
                .into_iter()
                .map(|v| {
                    (
                        v,
                        self.b
                            .append_block_param(cb, clif_type(self.f.value_type(v))),
                    )
                })
                .collect();
            self.threaded.insert(header, params);
        }

        // A separate CLIF entry for per-function values.
        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.b.switch_to_block(entry);
        let uses_shared = self.f.placed_insts().any(|(_, i)| {
            matches!(self.f.inst(i), InstKind::GlobalAddr(g)
                if self.cx.ir.globals[*g].space == AddrSpace::Shared)
        });
        if uses_shared {
            let r = self.call_extern(&ix::RT_SHARED_BASE, &[])?;
            self.shared_base = r;
        }
        // A strand's worker does not change while a function runs (tasks
        // never migrate; a sync runs other tasks on the same worker), so
        // one call here can serve every `worker_id` of the function. Here
        // only the parameters are live across it; at its place in a task
        // or chunk body, every value loaded from the context would be, and
        // the register allocator would spill them (and reload them in the
        // loops that follow). Where loops then fall relative to the
        // instruction cache's 64-byte blocks is `placement.rs`'s concern.
        let uses_worker_id = self.f.placed_insts().any(|(_, i)| {
            matches!(
                self.f.inst(i),
                InstKind::Intrinsic {
                    op: Intrinsic::WorkerId,
                    ..
                }
            )
        });
        if uses_worker_id {
            self.worker_id = self.call_extern(&ix::RT_WORKER_ID, &[])?;
        }
        let first = *self.blocks.get(&order[0]).expect("entry is reachable");
        let params: Vec<BlockArg> = self
            .b
            .block_params(entry)
            .iter()
            .map(|&v| BlockArg::Value(v))
            .collect();
        if params.len() != self.f.blocks[order[0]].params.len() {
            return Err(self.err("the entry block's parameters do not match the signature"));
        }
        self.b.ins().jump(first, &params);

        for &block in &order {
            self.b.switch_to_block(self.blocks[&block]);
            self.block = Some(block);
            // Outermost loop first, so that the innermost's parameter wins.
            self.overrides.clear();
            let mut around: Vec<_> = self
                .loops
                .loops()
                .filter(|&lp| self.loops.contains(lp, block))
                .collect();
            around.sort_by_key(|&lp| std::cmp::Reverse(self.loops.data(lp).blocks.len()));
            for lp in around {
                if let Some(params) = self.threaded.get(&self.loops.data(lp).header) {
                    self.overrides.extend(params.iter().copied());
                }
            }
            self.sincos_args = sincos_pairs(self.f, block);
            self.sincos.clear();
            for &inst in &self.f.blocks[block].insts {
                self.inst = Some(inst);
                let at = self.cx.source_loc(self.id, self.f.locs[inst]);
                self.b.set_srcloc(at);
                self.translate_inst(inst)?;
            }
        }
        Ok(())
    }

    pub(super) fn val(&self, v: Value) -> Result<cl::Value, BackendError> {
        if let Some(&o) = self.overrides.get(&v) {
            return Ok(o);
        }
        self.values[v.index()].ok_or_else(|| self.err(format!("{v} is used before it is defined")))
    }

    pub(super) fn vals(&self, vs: &[Value]) -> Result<Vec<cl::Value>, BackendError> {
        vs.iter().map(|&v| self.val(v)).collect()
    }

    pub(super) fn ty(&self, v: Value) -> Type {
        self.f.value_type(v)
    }

    pub(super) fn loc(&self) -> SrcLoc {
        self.inst.map(|i| self.f.locs[i]).unwrap_or_default()
    }

    /// A call through the code address `addr` with the signature of the
    /// arguments' types and `ret`; the result, if any.
    pub(super) fn call_through(
        &mut self,
        addr: cl::Value,
        args: &[Value],
        ret: Option<Type>,
    ) -> Result<Option<cl::Value>, BackendError> {
        let tys: Vec<Type> = args.iter().map(|&a| self.ty(a)).collect();
        let sig = clif_signature(self.m, &tys, ret);
        let sigref = self.b.import_signature(sig);
        let args = self.vals(args)?;
        let call = self.b.ins().call_indirect(sigref, addr, &args);
        Ok(self.b.inst_results(call).first().copied())
    }

    pub(super) fn func_ref(&mut self, id: ClFuncId) -> cl::FuncRef {
        if let Some(&r) = self.func_refs.get(&id) {
            return r;
        }
        let r = self.m.declare_func_in_func(id, self.b.func);
        self.func_refs.insert(id, r);
        r
    }

    pub(super) fn data_addr(&mut self, id: DataId) -> cl::Value {
        let gv = match self.data_refs.get(&id) {
            Some(&gv) => gv,
            None => {
                let gv = self.m.declare_data_in_func(id, self.b.func);
                self.data_refs.insert(id, gv);
                gv
            }
        };
        self.b.ins().symbol_value(types::I64, gv)
    }

    pub(super) fn call_extern(
        &mut self,
        e: &ExternFn,
        args: &[cl::Value],
    ) -> Result<Option<cl::Value>, BackendError> {
        self.call_symbol(e.name, e.params, e.ret, args)
    }

    /// Calls the external function `name` of C signature `params -> ret`.
    pub(super) fn call_symbol(
        &mut self,
        name: &'static str,
        params: &[Type],
        ret: Option<Type>,
        args: &[cl::Value],
    ) -> Result<Option<cl::Value>, BackendError> {
        let id = self.cx.extern_symbol(self.m, name, params, ret)?;
        let fref = self.func_ref(id);
        let call = self.b.ins().call(fref, args);
        Ok(self.b.inst_results(call).first().copied())
    }

    /// The current instruction's `name, line, col, file` arguments of
    /// `parc_rt_fault` (file null in the program's own file).
    pub(super) fn fault_site(&mut self) -> Result<[cl::Value; 4], BackendError> {
        let loc = self.loc();
        let name_id = self.cx.name_string(self.m, loc.func.unwrap_or(self.id))?;
        let name = self.data_addr(name_id);
        let line = iconst(&mut self.b, types::I32, i64::from(loc.line));
        let col = iconst(&mut self.b, types::I32, i64::from(loc.col));
        let file = match self.cx.file_string(self.m, loc.file)? {
            Some(id) => self.data_addr(id),
            None => self.b.ins().iconst(types::I64, 0),
        };
        Ok([name, line, col, file])
    }

    /// Calls `parc_rt_fault(kind, name, line, col, file)` and ends the block.
    pub(super) fn emit_fault(&mut self, kind: i32) -> Result<(), BackendError> {
        let [name, line, col, file] = self.fault_site()?;
        let kind_v = self.b.ins().iconst(types::I32, i64::from(kind));
        self.call_extern(&ix::RT_FAULT, &[kind_v, name, line, col, file])?;
        self.b.ins().trap(TrapCode::unwrap_user(kind as u8 + 1));
        Ok(())
    }

    /// Continues only if `ok` (an `i8` truth value) holds; otherwise faults
    /// with `kind` in a cold block.
    pub(super) fn fault_unless(&mut self, ok: cl::Value, kind: i32) -> Result<(), BackendError> {
        let fault = self.b.create_block();
        let cont = self.b.create_block();
        self.b.set_cold_block(fault);
        self.b.ins().brif(ok, cont, &[], fault, &[]);
        self.b.switch_to_block(fault);
        self.emit_fault(kind)?;
        self.b.switch_to_block(cont);
        Ok(())
    }

    /// The CLIF arguments of a branch to `dest`: its own, then the
    /// invariants a loop header carries (see [`invariants_to_thread`]).
    pub(super) fn block_args(
        &mut self,
        dest: &parc_ir::BlockCall,
    ) -> Result<Vec<BlockArg>, BackendError> {
        let mut args = self.vals(&dest.args)?;
        let back_edge = self.block.is_some_and(|cur| {
            self.loops
                .loop_headed_by(dest.block)
                .is_some_and(|lp| self.loops.contains(lp, cur))
        });
        for (v, _) in self.threaded.get(&dest.block).cloned().unwrap_or_default() {
            let x = self.val(v)?;
            // Around a back edge the value goes through `x + 0` (a float
            // through `-(-x)`, exact for every value, NaNs included):
            // Cranelift removes a block parameter that only ever receives
            // one value (itself from the latch) before its optimizer would
            // fold the identity away, so the parameter survives to the
            // register allocator.
            let x = if back_edge {
                let ty = self.b.func.dfg.value_type(x);
                if ty.is_float() {
                    let neg = self.b.ins().fneg(x);
                    self.b.ins().fneg(neg)
                } else {
                    let zero = self.b.ins().iconst(ty, 0);
                    self.b.ins().iadd(x, zero)
                }
            } else {
                x
            };
            args.push(x);
        }
        Ok(args.into_iter().map(BlockArg::Value).collect())
    }

    /// True if the current block's branch to `then` stays in the
    /// innermost loop containing the block and the one to `els` leaves it.
    pub(super) fn leaves_loop_on_else(&self, then: Block, els: Block) -> bool {
        let Some(cur) = self.block else {
            return false;
        };
        let Some(lp) = self.loops.innermost(cur) else {
            return false;
        };
        self.loops.contains(lp, then) && !self.loops.contains(lp, els)
    }

    pub(super) fn target(&self, block: Block) -> Result<cl::Block, BackendError> {
        self.blocks
            .get(&block)
            .copied()
            .ok_or_else(|| self.err(format!("branch to {block}, which is not reachable")))
    }

    pub(super) fn translate_inst(&mut self, inst: Inst) -> Result<(), BackendError> {
        let result = self.f.result(inst);
        let rty = result.map(|r| self.f.value_type(r));
        let kind = self.f.inst(inst);
        let value: Option<cl::Value> = match kind {
            InstKind::Iconst(c) => {
                let ty = rty.ok_or_else(|| self.err("iconst without a result"))?;
                let c = if ty == Type::I1 { c & 1 } else { *c };
                Some(iconst(&mut self.b, clif_type(ty), c))
            }
            InstKind::Fconst(x) => Some(match rty {
                Some(Type::F32) => self.b.ins().f32const(*x as f32),
                _ => self.b.ins().f64const(*x),
            }),
            InstKind::GlobalAddr(g) => {
                let i = g.as_u32() as usize;
                match self.cx.data[i] {
                    Some(did) => Some(self.data_addr(did)),
                    None => {
                        let base = self.shared_base.expect("fetched at entry");
                        let off = self.cx.shared_offset[i] as i64;
                        Some(self.b.ins().iadd_imm_s(base, off))
                    }
                }
            }
            InstKind::FuncAddr(func) => {
                let id = self.cx.funcs[func.as_u32() as usize]
                    .ok_or_else(|| self.err("func_addr of an unknown function"))?;
                let r = self.func_ref(id);
                Some(self.b.ins().func_addr(types::I64, r))
            }
            InstKind::Unary(UnaryOp::Fneg, a) if self.ty(*a).is_vector() => {
                let a = self.val(*a)?;
                Some(self.b.ins().fneg(a))
            }
            InstKind::Splat(a) => {
                let ty = rty.ok_or_else(|| self.err("splat without a result"))?;
                let a = self.val(*a)?;
                Some(self.b.ins().splat(clif_type(ty), a))
            }
            InstKind::ExtractLane(v, lane) => {
                let v = self.val(*v)?;
                Some(self.b.ins().extractlane(v, *lane))
            }
            InstKind::InsertLane(v, x, lane) => {
                let (v, x) = (self.val(*v)?, self.val(*x)?);
                Some(self.b.ins().insertlane(v, x, *lane))
            }
            InstKind::Reduce(op, v) => {
                // In lane order, as the interpreter: the rounding of a
                // float reduction is part of its meaning.
                let lanes = self.ty(*v).lanes();
                let v = self.val(*v)?;
                let mut acc = self.b.ins().extractlane(v, 0);
                for i in 1..lanes {
                    let x = self.b.ins().extractlane(v, i as u8);
                    acc = self.lane_op(*op, acc, x);
                }
                Some(acc)
            }
            InstKind::Unary(UnaryOp::Fneg, a) => {
                // `x ^ -0.0` flips the sign bit, as `fneg` does; but x64's
                // `fneg` materializes its mask with two instructions at
                // every use, where uses of one constant share it.
                let a = self.val(*a)?;
                let mask = match self.b.func.dfg.value_type(a) {
                    types::F32 => self.b.ins().f32const(-0.0f32),
                    _ => self.b.ins().f64const(-0.0),
                };
                Some(self.b.ins().bxor(a, mask))
            }
            InstKind::Binary(op, a, b) => Some(self.binary(*op, *a, *b)?),
            InstKind::Icmp(cc, a, b) => {
                let (a, b) = (self.val(*a)?, self.val(*b)?);
                Some(self.b.ins().icmp(int_cc(*cc), a, b))
            }
            InstKind::Fcmp(cc, a, b) => {
                let (a, b) = (self.val(*a)?, self.val(*b)?);
                Some(self.b.ins().fcmp(float_cc(*cc), a, b))
            }
            InstKind::Cast(op, a) => {
                let to = rty.ok_or_else(|| self.err("cast without a result"))?;
                Some(self.cast(*op, *a, to)?)
            }
            InstKind::Select(c, a, b) if self.ty(*a).is_vector() => {
                // By a mask (lanes all ones or zero): `bitselect` takes each
                // bit from `a` where the mask's is set, on the operands'
                // type (SSE2's and/andn/or).
                let vt = clif_type(self.ty(*a));
                let (c, a, b) = (self.val(*c)?, self.val(*a)?, self.val(*b)?);
                let mask = if self.b.func.dfg.value_type(c) == vt {
                    c
                } else {
                    let little = cranelift_codegen::ir::MemFlagsData::new()
                        .with_endianness(cranelift_codegen::ir::Endianness::Little);
                    self.b.ins().bitcast(vt, little, c)
                };
                Some(self.b.ins().bitselect(mask, a, b))
            }
            InstKind::Select(c, a, b) => {
                let (c, a, b) = (self.val(*c)?, self.val(*a)?, self.val(*b)?);
                Some(self.b.ins().select(c, a, b))
            }
            InstKind::Alloca { .. } if self.promoted.contains_key(&result.expect("a pointer")) => {
                // Zero-filled, as the memory would be.
                let (var, ty) = self.promoted[&result.expect("checked")];
                let zero = match ty {
                    Type::F32 => self.b.ins().f32const(0.0),
                    Type::F64 => self.b.ins().f64const(0.0),
                    other => self.b.ins().iconst(clif_type(other), 0),
                };
                self.b.def_var(var, zero);
                return Ok(());
            }
            InstKind::Alloca { size, align } => Some(self.alloca(*size, *align)?),
            InstKind::Load(p) if self.promoted.contains_key(p) => {
                Some(self.b.use_var(self.promoted[p].0))
            }
            InstKind::Store { value, ptr } if self.promoted.contains_key(ptr) => {
                let v = self.val(*value)?;
                self.b.def_var(self.promoted[ptr].0, v);
                None
            }
            InstKind::Load(p) => {
                let ty = rty.ok_or_else(|| self.err("load without a result"))?;
                let (p, offset) = self.address(*p)?;
                let v = self
                    .b
                    .ins()
                    .load(clif_type(ty), MemFlagsData::new(), p, offset);
                Some(if ty == Type::I1 {
                    self.b.ins().band_imm_u(v, 1)
                } else {
                    v
                })
            }
            InstKind::Store { value, ptr } => {
                let v = self.val(*value)?;
                let (p, offset) = self.address(*ptr)?;
                self.b.ins().store(MemFlagsData::new(), v, p, offset);
                None
            }
            InstKind::PtrAdd(p, off) => {
                let p = self.val(*p)?;
                let off_ty = self.ty(*off);
                let off = self.val(*off)?;
                let off = resize_int(&mut self.b, off, types::I64, off_ty != Type::I1);
                Some(self.b.ins().iadd(p, off))
            }
            InstKind::Call { func, args } if self.cx.va_stubs.contains_key(func) => {
                let stub = self.cx.va_stubs[func];
                let ret = self.cx.ir.funcs[*func].sig.ret;
                let r = self.func_ref(stub);
                let addr = self.b.ins().func_addr(types::I64, r);
                self.call_through(addr, args, ret)?
            }
            InstKind::CallIndirect { callee, args } => {
                let addr = self.val(*callee)?;
                self.call_through(addr, args, rty)?
            }
            InstKind::Call { func, args } => {
                let id = self.cx.funcs[func.as_u32() as usize]
                    .ok_or_else(|| self.err("call of an unknown function"))?;
                let callee = &self.cx.ir.funcs[*func];
                if callee.sig.params.len() != args.len() {
                    return Err(self.err(format!(
                        "call of `{}` with {} arguments for {} parameters",
                        callee.name,
                        args.len(),
                        callee.sig.params.len()
                    )));
                }
                let args = self.vals(args)?;
                let r = self.func_ref(id);
                let call = self.b.ins().call(r, &args);
                self.b.inst_results(call).first().copied()
            }
            InstKind::Intrinsic { op, args } => self.intrinsic(*op, args, rty)?,
            InstKind::Launch {
                kernel,
                grid,
                block,
                args,
            } => {
                self.launch(*kernel, grid, block, args)?;
                None
            }
            InstKind::Jump(dest) => {
                let target = self.target(dest.block)?;
                let args = self.block_args(dest)?;
                self.b.ins().jump(target, &args);
                None
            }
            InstKind::Brif {
                cond,
                then_dest,
                else_dest,
            } => {
                let c = self.val(*cond)?;
                let t = self.target(then_dest.block)?;
                let e = self.target(else_dest.block)?;
                let targs = self.block_args(then_dest)?;
                let eargs = self.block_args(else_dest)?;
                if self.leaves_loop_on_else(then_dest.block, else_dest.block) {
                    // Cranelift elaborates a block's dominator-tree children
                    // in reverse order of their branch position; if a loop
                    // exit came first, the loop body would be elaborated as
                    // if outside the loop and get its invariant code sunk
                    // back into it. So the exit is the taken branch.
                    let nc = self.b.ins().icmp_imm_u(condcodes::IntCC::Equal, c, 0);
                    self.b.ins().brif(nc, e, &eargs, t, &targs);
                } else {
                    self.b.ins().brif(c, t, &targs, e, &eargs);
                }
                None
            }
            InstKind::Return(v) => {
                let vs = match v {
                    Some(v) => vec![self.val(*v)?],
                    None => Vec::new(),
                };
                self.b.ins().return_(&vs);
                None
            }
            InstKind::Unreachable => {
                self.emit_fault(FAULT_UNREACHABLE)?;
                None
            }
            InstKind::Detach { .. } | InstKind::Reattach { .. } | InstKind::Sync { .. } => {
                return Err(self.err("Tapir terminator; run `tapir::lower_tapir` first"));
            }
        };
        if let (Some(r), Some(v)) = (result, value) {
            self.values[r.index()] = Some(v);
        } else if result.is_some() {
            return Err(self.err(format!("{inst} has a result this backend cannot produce")));
        }
        Ok(())
    }
}
