//! Instructions: what each one computes, independent of where it sits.
//!
//! Every instruction has at most one result. Its type is stored with the
//! result value (see [`Function::value_type`](crate::Function::value_type));
//! the operand types each kind requires are the verifier's business and are
//! listed in `verify.rs`.
//!
//! Integers have no signedness: operations that care say so (`sdiv`/`udiv`,
//! `slt`/`ult`, `sext`/`zext`). An integer constant's immediate is stored
//! sign-extended from its type's width (an `i1` is 0 or 1). Memory is byte-addressed; struct
//! fields and array elements are reached with `ptradd`.

use crate::entities::{Block, FuncId, GlobalId, SyncRegion, Value};
use crate::intrinsic::Intrinsic;

/// A branch target with the arguments for its block parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockCall {
    pub block: Block,
    pub args: Vec<Value>,
}

impl BlockCall {
    pub fn new(block: Block, args: Vec<Value>) -> BlockCall {
        BlockCall { block, args }
    }

    pub fn to(block: Block) -> BlockCall {
        BlockCall {
            block,
            args: Vec::new(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// Floating negation (integer negation is `isub 0, x`).
    Fneg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Iadd,
    Isub,
    Imul,
    /// Signed division, rounding toward zero; dividing by zero is a run-time
    /// error, and `INT_MIN / -1` wraps.
    Sdiv,
    Udiv,
    Srem,
    Urem,
    And,
    Or,
    Xor,
    /// Shifts take the shift amount modulo the width, as the hardware does.
    Shl,
    Lshr,
    Ashr,
    Fadd,
    Fsub,
    Fmul,
    Fdiv,
}

impl BinaryOp {
    pub const ALL: [BinaryOp; 17] = [
        BinaryOp::Iadd,
        BinaryOp::Isub,
        BinaryOp::Imul,
        BinaryOp::Sdiv,
        BinaryOp::Udiv,
        BinaryOp::Srem,
        BinaryOp::Urem,
        BinaryOp::And,
        BinaryOp::Or,
        BinaryOp::Xor,
        BinaryOp::Shl,
        BinaryOp::Lshr,
        BinaryOp::Ashr,
        BinaryOp::Fadd,
        BinaryOp::Fsub,
        BinaryOp::Fmul,
        BinaryOp::Fdiv,
    ];

    pub fn name(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Iadd => "iadd",
            Isub => "isub",
            Imul => "imul",
            Sdiv => "sdiv",
            Udiv => "udiv",
            Srem => "srem",
            Urem => "urem",
            And => "and",
            Or => "or",
            Xor => "xor",
            Shl => "shl",
            Lshr => "lshr",
            Ashr => "ashr",
            Fadd => "fadd",
            Fsub => "fsub",
            Fmul => "fmul",
            Fdiv => "fdiv",
        }
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            BinaryOp::Fadd | BinaryOp::Fsub | BinaryOp::Fmul | BinaryOp::Fdiv
        )
    }

    /// The operators `reduce_OP` combines lanes with: `iadd imul and or
    /// xor fadd fmul`.
    pub fn is_reduction(self) -> bool {
        use BinaryOp::*;
        matches!(self, Iadd | Imul | And | Or | Xor | Fadd | Fmul)
    }

    /// The operators that apply lane-wise to vectors: the reductions'
    /// and `isub fsub fdiv` (no integer division: it may fault lane by lane;
    /// no shifts).
    pub fn is_lanewise(self) -> bool {
        use BinaryOp::*;
        self.is_reduction() || matches!(self, Isub | Fsub | Fdiv)
    }

    pub fn is_commutative(self) -> bool {
        use BinaryOp::*;
        matches!(self, Iadd | Imul | And | Or | Xor | Fadd | Fmul)
    }
}

/// Integer (and pointer) comparisons.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntCC {
    Eq,
    Ne,
    Slt,
    Sle,
    Sgt,
    Sge,
    Ult,
    Ule,
    Ugt,
    Uge,
}

impl IntCC {
    pub const ALL: [IntCC; 10] = [
        IntCC::Eq,
        IntCC::Ne,
        IntCC::Slt,
        IntCC::Sle,
        IntCC::Sgt,
        IntCC::Sge,
        IntCC::Ult,
        IntCC::Ule,
        IntCC::Ugt,
        IntCC::Uge,
    ];

    pub fn name(self) -> &'static str {
        use IntCC::*;
        match self {
            Eq => "eq",
            Ne => "ne",
            Slt => "slt",
            Sle => "sle",
            Sgt => "sgt",
            Sge => "sge",
            Ult => "ult",
            Ule => "ule",
            Ugt => "ugt",
            Uge => "uge",
        }
    }

    /// The condition with the operands exchanged: `a cc b` is `b cc' a`.
    pub fn swapped(self) -> IntCC {
        use IntCC::*;
        match self {
            Slt => Sgt,
            Sle => Sge,
            Sgt => Slt,
            Sge => Sle,
            Ult => Ugt,
            Ule => Uge,
            Ugt => Ult,
            Uge => Ule,
            Eq | Ne => self,
        }
    }

    /// The complement: `a cc' b` is `!(a cc b)`.
    pub fn inverted(self) -> IntCC {
        use IntCC::*;
        match self {
            Eq => Ne,
            Ne => Eq,
            Slt => Sge,
            Sge => Slt,
            Sle => Sgt,
            Sgt => Sle,
            Ult => Uge,
            Uge => Ult,
            Ule => Ugt,
            Ugt => Ule,
        }
    }

    /// `(signed, inclusive)` if `a cc b` says `a` is below `b`: `slt`,
    /// `sle`, `ult` or `ule` (a loop's upper-bound test).
    pub fn upper_bound(self) -> Option<(bool, bool)> {
        use IntCC::*;
        match self {
            Slt => Some((true, false)),
            Sle => Some((true, true)),
            Ult => Some((false, false)),
            Ule => Some((false, true)),
            _ => None,
        }
    }
}

/// Floating comparisons, ordered as C's operators are: false if either
/// operand is NaN, except `Ne`, which is true then.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatCC {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl FloatCC {
    pub const ALL: [FloatCC; 6] = [
        FloatCC::Eq,
        FloatCC::Ne,
        FloatCC::Lt,
        FloatCC::Le,
        FloatCC::Gt,
        FloatCC::Ge,
    ];

    pub fn name(self) -> &'static str {
        use FloatCC::*;
        match self {
            Eq => "eq",
            Ne => "ne",
            Lt => "lt",
            Le => "le",
            Gt => "gt",
            Ge => "ge",
        }
    }
}

/// Conversions; the target type is the result's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastOp {
    /// Sign-extend a narrower integer.
    Sext,
    /// Zero-extend a narrower integer (`i1` true becomes 1).
    Zext,
    /// Keep the low bits of a wider integer.
    Trunc,
    /// Signed integer to float.
    SiToFp,
    /// Unsigned integer to float.
    UiToFp,
    /// Float to signed integer, rounding toward zero (C's cast); out of
    /// range saturates (C leaves it undefined; this is what we promise).
    FpToSi,
    FpToUi,
    /// `f32` to `f64`.
    FpExt,
    /// `f64` to `f32`, rounding to nearest.
    FpTrunc,
    PtrToInt,
    IntToPtr,
}

impl CastOp {
    pub const ALL: [CastOp; 11] = [
        CastOp::Sext,
        CastOp::Zext,
        CastOp::Trunc,
        CastOp::SiToFp,
        CastOp::UiToFp,
        CastOp::FpToSi,
        CastOp::FpToUi,
        CastOp::FpExt,
        CastOp::FpTrunc,
        CastOp::PtrToInt,
        CastOp::IntToPtr,
    ];

    pub fn name(self) -> &'static str {
        use CastOp::*;
        match self {
            Sext => "sext",
            Zext => "zext",
            Trunc => "trunc",
            SiToFp => "sitofp",
            UiToFp => "uitofp",
            FpToSi => "fptosi",
            FpToUi => "fptoui",
            FpExt => "fpext",
            FpTrunc => "fptrunc",
            PtrToInt => "ptrtoint",
            IntToPtr => "inttoptr",
        }
    }
}

/// What an instruction does. The last instruction of every block, and only
/// it, is a terminator ([`InstKind::is_terminator`]).
#[derive(Clone, Debug, PartialEq)]
pub enum InstKind {
    /// An integer or pointer constant (a `ptr` constant 0 is the null pointer).
    Iconst(i64),
    /// A floating constant; an `f32` one holds a value exactly representable
    /// in `f32`.
    Fconst(f64),
    /// The address of a global.
    GlobalAddr(GlobalId),
    /// The address of a function (for the runtime: outlined tasks and
    /// loop bodies are passed to it as code pointers).
    FuncAddr(FuncId),
    Unary(UnaryOp, Value),
    Binary(BinaryOp, Value, Value),
    Icmp(IntCC, Value, Value),
    Fcmp(FloatCC, Value, Value),
    Cast(CastOp, Value),
    /// `select cond, a, b`: `a` if `cond` (an `i1`) else `b`.
    Select(Value, Value, Value),
    /// `splat x`: the vector of the result's type with `x` in every lane.
    Splat(Value),
    /// `extract_lane v, n`: lane `n` of the vector `v`.
    ExtractLane(Value, u8),
    /// `insert_lane v, x, n`: the vector `v` with lane `n` replaced by `x`.
    InsertLane(Value, Value, u8),
    /// `reduce_OP v`: the lanes of the vector `v` combined by `OP` (one of
    /// [`BinaryOp::is_reduction`]) in lane order, `((v0 OP v1) OP v2) OP
    /// v3`, so a float reduction's rounding is fixed.
    Reduce(BinaryOp, Value),
    /// Stack memory of `size` bytes, live until the function returns,
    /// zero-filled (ParC zero-initializes locals). Private to the invocation
    /// of the function and, inside a task, to that task if allocated there.
    Alloca {
        size: u32,
        align: u32,
    },
    /// Read a value of the result's type.
    Load(Value),
    /// `store value, ptr`
    Store {
        value: Value,
        ptr: Value,
    },
    /// `ptr + offset` with a byte offset of type `i64`.
    PtrAdd(Value, Value),
    /// A direct call of a function of the module.
    Call {
        func: FuncId,
        args: Vec<Value>,
    },
    /// A call through a function pointer (`callee`, a `ptr` holding a
    /// `func_addr` of a host function). The signature is the arguments'
    /// types and the result's; calling a function whose signature differs,
    /// or an address that is no function's, is undefined (the interpreter
    /// reports it). Passes know nothing of the callee: it may read and
    /// write any memory its caller can reach and have any side effect.
    CallIndirect {
        callee: Value,
        args: Vec<Value>,
    },
    Intrinsic {
        op: Intrinsic,
        args: Vec<Value>,
    },
    /// Run kernel `kernel` on a grid of `grid` blocks of `block` threads
    /// (each three `i32`s); returns when every thread has finished.
    Launch {
        kernel: FuncId,
        grid: [Value; 3],
        block: [Value; 3],
        args: Vec<Value>,
    },

    // Terminators.
    Jump(BlockCall),
    Brif {
        cond: Value,
        then_dest: BlockCall,
        else_dest: BlockCall,
    },
    Return(Option<Value>),
    /// Tapir's detach: `task` may run in parallel with `cont`. Neither block
    /// has parameters.
    Detach {
        region: SyncRegion,
        task: Block,
        cont: Block,
    },
    /// Ends a task started by a detach within `region`; `cont` is that
    /// detach's continuation.
    Reattach {
        region: SyncRegion,
        cont: Block,
    },
    /// Waits for every task detached within `region` by this invocation,
    /// then continues at `next`.
    Sync {
        region: SyncRegion,
        next: Block,
    },
    Unreachable,
}

/// Calls `$f` on each operand of `$inst` in order, through `$iter`
/// (`iter` or `iter_mut`): the one list of where each instruction keeps its
/// operands, for [`InstKind::for_each_operand`] and
/// [`InstKind::map_operands`] alike.
macro_rules! visit_operands {
    ($inst:expr, $f:ident, $iter:ident) => {{
        let f = $f;
        use InstKind::*;
        match $inst {
            Iconst(_) | Fconst(_) | GlobalAddr(_) | FuncAddr(_) | Alloca { .. } | Unreachable => {}
            Detach { .. } | Reattach { .. } | Sync { .. } => {}
            Unary(_, a) | Cast(_, a) | Load(a) | Splat(a) | ExtractLane(a, _) | Reduce(_, a) => {
                f(a)
            }
            Binary(_, a, b)
            | Icmp(_, a, b)
            | Fcmp(_, a, b)
            | PtrAdd(a, b)
            | InsertLane(a, b, _) => {
                f(a);
                f(b);
            }
            Store { value, ptr } => {
                f(value);
                f(ptr);
            }
            Select(c, a, b) => {
                f(c);
                f(a);
                f(b);
            }
            Call { args, .. } | Intrinsic { args, .. } => args.$iter().for_each(f),
            CallIndirect { callee, args } => {
                f(callee);
                args.$iter().for_each(f);
            }
            Launch {
                grid, block, args, ..
            } => grid
                .$iter()
                .chain(block.$iter())
                .chain(args.$iter())
                .for_each(f),
            Jump(dest) => dest.args.$iter().for_each(f),
            Brif {
                cond,
                then_dest,
                else_dest,
            } => {
                f(cond);
                then_dest.args.$iter().for_each(&mut *f);
                else_dest.args.$iter().for_each(f);
            }
            Return(v) => v.$iter().for_each(f),
        }
    }};
}

impl InstKind {
    /// True for Tapir's terminators: `detach`, `reattach`, `sync`.
    pub fn is_tapir(&self) -> bool {
        matches!(
            self,
            InstKind::Detach { .. } | InstKind::Reattach { .. } | InstKind::Sync { .. }
        )
    }

    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            InstKind::Jump(_)
                | InstKind::Brif { .. }
                | InstKind::Return(_)
                | InstKind::Detach { .. }
                | InstKind::Reattach { .. }
                | InstKind::Sync { .. }
                | InstKind::Unreachable
        )
    }

    /// The SSA operands, in order (block-call arguments included).
    pub fn operands(&self) -> Vec<Value> {
        let mut out = Vec::new();
        self.for_each_operand(|v| out.push(v));
        out
    }

    /// Calls `f` with each operand, in the order [`InstKind::operands`] lists them.
    pub fn for_each_operand(&self, mut f: impl FnMut(Value)) {
        let mut visit = |v: &Value| f(*v);
        self.visit_operands(&mut visit);
    }

    /// Replaces each operand `v` by `f(v)`, in place.
    pub fn map_operands(&mut self, mut f: impl FnMut(Value) -> Value) {
        self.visit_operands_mut(&mut |v: &mut Value| *v = f(*v));
    }

    fn visit_operands(&self, f: &mut dyn FnMut(&Value)) {
        visit_operands!(self, f, iter);
    }

    fn visit_operands_mut(&mut self, f: &mut dyn FnMut(&mut Value)) {
        visit_operands!(self, f, iter_mut);
    }

    /// The block calls of a `jump` or `brif` (then first): the edges that
    /// pass arguments. Empty for every other instruction.
    pub fn block_calls(&self) -> Vec<&BlockCall> {
        match self {
            InstKind::Jump(d) => vec![d],
            InstKind::Brif {
                then_dest,
                else_dest,
                ..
            } => vec![then_dest, else_dest],
            _ => Vec::new(),
        }
    }

    /// [`Self::block_calls`], to change.
    pub fn block_calls_mut(&mut self) -> Vec<&mut BlockCall> {
        match self {
            InstKind::Jump(d) => vec![d],
            InstKind::Brif {
                then_dest,
                else_dest,
                ..
            } => vec![then_dest, else_dest],
            _ => Vec::new(),
        }
    }

    /// The blocks control may go to next (empty for `return`/`unreachable`
    /// and for non-terminators). A detach lists its task first.
    pub fn successors(&self) -> Vec<Block> {
        use InstKind::*;
        match self {
            Jump(d) => vec![d.block],
            Brif {
                then_dest,
                else_dest,
                ..
            } => vec![then_dest.block, else_dest.block],
            Detach { task, cont, .. } => vec![*task, *cont],
            Reattach { cont, .. } => vec![*cont],
            Sync { next, .. } => vec![*next],
            _ => Vec::new(),
        }
    }

    /// Replaces every successor `b` by `f(b)`.
    pub fn map_successors(&mut self, mut f: impl FnMut(Block) -> Block) {
        use InstKind::*;
        match self {
            Jump(d) => d.block = f(d.block),
            Brif {
                then_dest,
                else_dest,
                ..
            } => {
                then_dest.block = f(then_dest.block);
                else_dest.block = f(else_dest.block);
            }
            Detach { task, cont, .. } => {
                *task = f(*task);
                *cont = f(*cont);
            }
            Reattach { cont, .. } => *cont = f(*cont),
            Sync { next, .. } => *next = f(*next),
            _ => {}
        }
    }

    /// True if the instruction may read memory.
    pub fn may_read_memory(&self) -> bool {
        match self {
            InstKind::Load(_)
            | InstKind::Call { .. }
            | InstKind::CallIndirect { .. }
            | InstKind::Launch { .. } => true,
            InstKind::Intrinsic { op, .. } => !op.is_pure(),
            _ => false,
        }
    }

    /// True if the instruction may write memory or have another effect
    /// (output, exit, a fault other than a trapping load), so it must stay.
    pub fn has_side_effects(&self) -> bool {
        match self {
            InstKind::Store { .. }
            | InstKind::Call { .. }
            | InstKind::CallIndirect { .. }
            | InstKind::Launch { .. } => true,
            InstKind::Intrinsic { op, .. } => !op.is_pure(),
            InstKind::Binary(op, ..) => matches!(
                op,
                BinaryOp::Sdiv | BinaryOp::Udiv | BinaryOp::Srem | BinaryOp::Urem
            ),
            other => other.is_terminator(),
        }
    }
}
