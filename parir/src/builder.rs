//! A cursor for appending instructions to a function, with one typed
//! method per instruction so callers never compute result types by hand.
//!
//! The builder only appends; it does not construct SSA for variables (the
//! front end puts locals in `alloca`s and `mem2reg` promotes them).

use crate::entities::{Block, FuncId, GlobalId, SyncRegion, Value};
use crate::function::{Function, GlobalData, Module, Signature, SrcLoc};
use crate::inst::{BinaryOp, BlockCall, CastOp, FloatCC, InstKind, IntCC, UnaryOp};
use crate::intrinsic::Intrinsic;
use crate::types::Type;
use cranelift_entity::EntitySet;

pub struct FuncBuilder<'f> {
    pub func: &'f mut Function,
    block: Option<Block>,
    loc: SrcLoc,
    /// The blocks of `func.layout`, and the layout's length when they were
    /// last brought up to date: [`FuncBuilder::switch_to`] asks this set
    /// rather than scanning the layout, which made building a function of
    /// n blocks take n² steps. A layout changed behind the builder's back
    /// (through `func`) has another length, and the set is then rebuilt.
    placed: EntitySet<Block>,
    placed_len: usize,
}

impl<'f> FuncBuilder<'f> {
    pub fn new(func: &'f mut Function) -> FuncBuilder<'f> {
        let mut placed = EntitySet::new();
        for &b in &func.layout {
            placed.insert(b);
        }
        let placed_len = func.layout.len();
        FuncBuilder {
            func,
            block: None,
            loc: SrcLoc::default(),
            placed,
            placed_len,
        }
    }

    /// Creates a block, not yet in the layout (see [`FuncBuilder::switch_to`]).
    pub fn create_block(&mut self) -> Block {
        self.func.create_block()
    }

    /// Makes `block` current, appending it to the layout if it is new there.
    pub fn switch_to(&mut self, block: Block) {
        if self.placed_len != self.func.layout.len() {
            self.placed.clear();
            for &b in &self.func.layout {
                self.placed.insert(b);
            }
        }
        debug_assert_eq!(
            self.placed.contains(block),
            self.func.layout.contains(&block)
        );
        if self.placed.insert(block) {
            self.func.append_block(block);
        }
        self.placed_len = self.func.layout.len();
        self.block = Some(block);
    }

    pub fn current_block(&self) -> Option<Block> {
        self.block
    }

    /// True if the current block already ends in a terminator, so further
    /// code would be unreachable.
    pub fn is_terminated(&self) -> bool {
        self.block.is_none_or(|b| self.func.terminator(b).is_some())
    }

    /// The source position given to instructions appended from now on.
    pub fn set_loc(&mut self, loc: SrcLoc) {
        self.loc = loc;
    }

    pub fn param(&mut self, block: Block, ty: Type) -> Value {
        self.func.append_block_param(block, ty)
    }

    fn push(&mut self, kind: InstKind, result: Option<Type>) -> Option<Value> {
        let block = self
            .block
            .expect("FuncBuilder: no current block; call switch_to first");
        let inst = self.func.append_inst(block, kind, result);
        if self.loc.is_known() {
            self.func.locs[inst] = self.loc;
        }
        self.func.result(inst)
    }

    fn value(&mut self, kind: InstKind, ty: Type) -> Value {
        self.push(kind, Some(ty))
            .expect("an instruction created with a result type has a result")
    }

    fn ty(&self, v: Value) -> Type {
        self.func.value_type(v)
    }

    pub fn iconst(&mut self, ty: Type, imm: i64) -> Value {
        self.value(InstKind::Iconst(sign_extend(imm, ty)), ty)
    }

    pub fn fconst(&mut self, ty: Type, imm: f64) -> Value {
        let imm = if ty == Type::F32 {
            imm as f32 as f64
        } else {
            imm
        };
        self.value(InstKind::Fconst(imm), ty)
    }

    pub fn null(&mut self) -> Value {
        self.iconst(Type::Ptr, 0)
    }

    pub fn global_addr(&mut self, g: GlobalId) -> Value {
        self.value(InstKind::GlobalAddr(g), Type::Ptr)
    }

    pub fn func_addr(&mut self, f: FuncId) -> Value {
        self.value(InstKind::FuncAddr(f), Type::Ptr)
    }

    pub fn unary(&mut self, op: UnaryOp, a: Value) -> Value {
        let ty = self.ty(a);
        self.value(InstKind::Unary(op, a), ty)
    }

    pub fn binary(&mut self, op: BinaryOp, a: Value, b: Value) -> Value {
        let ty = self.ty(a);
        self.value(InstKind::Binary(op, a, b), ty)
    }

    pub fn icmp(&mut self, cc: IntCC, a: Value, b: Value) -> Value {
        self.value(InstKind::Icmp(cc, a, b), Type::I1)
    }

    pub fn fcmp(&mut self, cc: FloatCC, a: Value, b: Value) -> Value {
        self.value(InstKind::Fcmp(cc, a, b), Type::I1)
    }

    pub fn cast(&mut self, op: CastOp, a: Value, to: Type) -> Value {
        self.value(InstKind::Cast(op, a), to)
    }

    pub fn select(&mut self, cond: Value, a: Value, b: Value) -> Value {
        let ty = self.ty(a);
        self.value(InstKind::Select(cond, a, b), ty)
    }

    pub fn alloca(&mut self, size: u32, align: u32) -> Value {
        self.value(InstKind::Alloca { size, align }, Type::Ptr)
    }

    pub fn load(&mut self, ty: Type, ptr: Value) -> Value {
        self.value(InstKind::Load(ptr), ty)
    }

    pub fn store(&mut self, value: Value, ptr: Value) {
        self.push(InstKind::Store { value, ptr }, None);
    }

    pub fn ptradd(&mut self, ptr: Value, offset: Value) -> Value {
        self.value(InstKind::PtrAdd(ptr, offset), Type::Ptr)
    }

    /// A call; `ret` is the callee's result type (from its signature).
    pub fn call(&mut self, func: FuncId, ret: Option<Type>, args: Vec<Value>) -> Option<Value> {
        self.push(InstKind::Call { func, args }, ret)
    }

    /// A call through the function pointer `callee`, with result type `ret`.
    pub fn call_indirect(
        &mut self,
        callee: Value,
        ret: Option<Type>,
        args: Vec<Value>,
    ) -> Option<Value> {
        self.push(InstKind::CallIndirect { callee, args }, ret)
    }

    /// An intrinsic; `ret` is its result type (see [`Intrinsic::signature`]).
    pub fn intrinsic(
        &mut self,
        op: Intrinsic,
        ret: Option<Type>,
        args: Vec<Value>,
    ) -> Option<Value> {
        // A function with a barrier is convergent (the verifier's rule).
        self.func.convergent |= op.is_convergent();
        self.push(InstKind::Intrinsic { op, args }, ret)
    }

    pub fn launch(
        &mut self,
        kernel: FuncId,
        grid: [Value; 3],
        block: [Value; 3],
        args: Vec<Value>,
    ) {
        self.push(
            InstKind::Launch {
                kernel,
                grid,
                block,
                args,
            },
            None,
        );
    }

    pub fn jump(&mut self, dest: Block, args: Vec<Value>) {
        self.push(InstKind::Jump(BlockCall::new(dest, args)), None);
    }

    pub fn brif(&mut self, cond: Value, then_dest: BlockCall, else_dest: BlockCall) {
        self.push(
            InstKind::Brif {
                cond,
                then_dest,
                else_dest,
            },
            None,
        );
    }

    pub fn ret(&mut self, value: Option<Value>) {
        self.push(InstKind::Return(value), None);
    }

    pub fn detach(&mut self, region: SyncRegion, task: Block, cont: Block) {
        self.push(InstKind::Detach { region, task, cont }, None);
    }

    pub fn reattach(&mut self, region: SyncRegion, cont: Block) {
        self.push(InstKind::Reattach { region, cont }, None);
    }

    pub fn sync(&mut self, region: SyncRegion, next: Block) {
        self.push(InstKind::Sync { region, next }, None);
    }

    pub fn unreachable(&mut self) {
        self.push(InstKind::Unreachable, None);
    }
}

/// Canonical form of an integer immediate: sign-extended from `ty`'s width
/// (an `i1` is 0 or 1).
pub fn sign_extend(imm: i64, ty: Type) -> i64 {
    match ty {
        Type::I1 => imm & 1,
        Type::I8 => imm as i8 as i64,
        Type::I16 => imm as i16 as i64,
        Type::I32 => imm as i32 as i64,
        _ => imm,
    }
}

/// Makes a function with an entry block whose parameters match `sig`.
pub fn new_function(name: impl Into<String>, sig: Signature) -> Function {
    let mut func = Function::new(name, sig);
    let entry = func.create_block();
    func.append_block(entry);
    for ty in func.sig.params.clone() {
        func.append_block_param(entry, ty);
    }
    func
}

/// Adds function `name` to `m` and builds its body from the entry block,
/// whose parameters `body` receives: IR written by hand, as tests do.
pub fn define(
    m: &mut Module,
    name: &str,
    params: &[Type],
    ret: Option<Type>,
    body: impl FnOnce(&mut FuncBuilder, &[Value]),
) -> FuncId {
    let sig = Signature {
        params: params.to_vec(),
        ret,
    };
    let id = m.funcs.push(new_function(name, sig));
    let f = &mut m.funcs[id];
    let entry = f.layout[0];
    let ps = f.blocks[entry].params.clone();
    let mut b = FuncBuilder::new(f);
    b.switch_to(entry);
    body(&mut b, &ps);
    id
}

/// Adds the NUL-terminated string `s` to `m` as a global of its own.
pub fn c_string(m: &mut Module, s: &str) -> GlobalId {
    let name = format!(".str{}", m.globals.len());
    m.globals.push(GlobalData::c_string(name, s.as_bytes()))
}

/// `printf` of the string global `fmt` with `args`, returning its result.
pub fn printf(b: &mut FuncBuilder, fmt: GlobalId, args: &[Value]) -> Value {
    let mut all = vec![b.global_addr(fmt)];
    all.extend_from_slice(args);
    b.intrinsic(Intrinsic::Printf, Some(Type::I32), all)
        .expect("printf has a result")
}
