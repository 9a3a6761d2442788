//! The checked program: names resolved, every expression typed, C's implicit
//! conversions made explicit. `check` builds it from the AST; `lower` turns
//! it into parir without re-deriving any C typing rule.
//!
//! Invariants (the checker guarantees them, lowering relies on them):
//! - Every [`Expr`] has its C type in `ty`. Operands of arithmetic, comparison
//!   and assignment already have the operation's type: the usual arithmetic
//!   conversions, integer promotions, default argument promotions (for
//!   `printf`), array-to-pointer decay and function-argument conversions are
//!   all explicit [`ExprKind::Convert`] / [`ExprKind::Decay`] nodes.
//! - Pointer arithmetic is explicit: [`ExprKind::PtrOffset`] and
//!   [`ExprKind::PtrDiff`] carry the pointee size, so lowering never looks up
//!   a type's size for them.
//! - Lvalues are exactly `Local`, `Global`, `Deref`, `Index`, `Member`,
//!   `CompoundLit`;
//!   `AddrOf`, `Assign`, `CompoundAssign` and `IncDec` only wrap lvalues.
//! - Conditions (`if`, loops, `!`, `&&`, `||`, `?:`) are scalar expressions
//!   of any scalar type; lowering compares them with zero.
//! - `sizeof` and integer constant expressions are folded to `IntConst`
//!   (a variable-length array's `sizeof` is a product of its hidden
//!   length locals, see [`CType::VarArray`]).
//! - A `parallel_for` is in canonical form: index local, bounds and step
//!   evaluated once, step positive (checked at run time where not constant).
//! - Spawned calls are calls; a spawn destination is a local variable.
//! - `__enzyme_autodiff` calls are [`ExprKind::Autodiff`] nodes that
//!   already obey Enzyme's rules: one argument per parameter of a function
//!   with a body, each with its activity, at most one active.
//! - Struct layouts follow the C ABI of x86-64 (natural alignment).

use crate::ast::Span;
use parc_ir::Intrinsic;

/// A C type after checking.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CType {
    Void,
    Bool,
    /// `char` is signed, as on x86-64; `signed char` is the same type.
    Char,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    Float,
    Double,
    Ptr(Box<CType>),
    Array(Box<CType>, u64),
    /// A variable-length array (C99 6.7.5.2): its length is the value of
    /// a hidden `long` local the checker assigned where the declarator
    /// was (`None` in a prototype, where C does not evaluate it: `[*]`).
    /// It is the pointee of parameters (`double A[n][m]`, `double
    /// (*A)[m]`) and pointers, and the type of local variables (`double
    /// a[n][m];`); indexing and pointer arithmetic through it are explicit
    /// multiplications by the local in the HIR. Lowering needs its size
    /// only to allocate such a local, whose `Decl` has no initializer and
    /// follows the run-time checks of its lengths.
    VarArray(Box<CType>, Option<LocalId>),
    /// A struct or a union (see [`StructLayout::is_union`]).
    Struct(StructId),
    /// CUDA's `dim3`: three `unsigned` fields `x`, `y`, `z` (12 bytes).
    Dim3,
    /// A function type: what a function pointer points to. No object has
    /// it; a function designator used as a value has type `Ptr(Func)`.
    Func(Box<FuncType>),
}

/// A C parameter list from its parameters' text: `(int, double *, ...)`,
/// `(void)`.
pub fn c_param_list(mut params: Vec<String>, variadic: bool) -> String {
    if variadic {
        params.push("...".into());
    }
    if params.is_empty() {
        "(void)".to_string()
    } else {
        format!("({})", params.join(", "))
    }
}

/// The type of a function: result, parameter types (after C's
/// adjustments: arrays and functions as pointers) and `...`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FuncType {
    pub ret: CType,
    pub params: Vec<CType>,
    pub variadic: bool,
}

/// The IR type of a scalar C type (`None` for `void` and aggregates).
pub fn scalar_type(ty: &CType) -> Option<parc_ir::Type> {
    use parc_ir::Type;
    Some(match ty {
        CType::Bool | CType::Char | CType::UChar => Type::I8,
        CType::Short | CType::UShort => Type::I16,
        CType::Int | CType::UInt => Type::I32,
        CType::Long | CType::ULong => Type::I64,
        CType::Float => Type::F32,
        CType::Double => Type::F64,
        CType::Ptr(_) => Type::Ptr,
        CType::Void
        | CType::Array(..)
        | CType::VarArray(..)
        | CType::Struct(_)
        | CType::Dim3
        | CType::Func(_) => {
            return None;
        }
    })
}

impl CType {
    pub fn ptr_to(self) -> CType {
        CType::Ptr(Box::new(self))
    }

    /// An object type of variable size: a variable-length array, or an
    /// array of them.
    pub fn has_variable_size(&self) -> bool {
        match self {
            CType::VarArray(..) => true,
            CType::Array(e, _) => e.has_variable_size(),
            _ => false,
        }
    }

    pub fn is_integer(&self) -> bool {
        matches!(
            self,
            CType::Bool
                | CType::Char
                | CType::UChar
                | CType::Short
                | CType::UShort
                | CType::Int
                | CType::UInt
                | CType::Long
                | CType::ULong
        )
    }

    pub fn is_floating(&self) -> bool {
        matches!(self, CType::Float | CType::Double)
    }

    pub fn is_arithmetic(&self) -> bool {
        self.is_integer() || self.is_floating()
    }

    pub fn is_pointer(&self) -> bool {
        matches!(self, CType::Ptr(_))
    }

    pub fn is_scalar(&self) -> bool {
        self.is_arithmetic() || self.is_pointer()
    }

    /// True for the unsigned integer types (`bool` counts as unsigned).
    pub fn is_unsigned(&self) -> bool {
        matches!(
            self,
            CType::Bool | CType::UChar | CType::UShort | CType::UInt | CType::ULong
        )
    }

    /// The function type a pointer to a function points to.
    pub fn func_pointee(&self) -> Option<&FuncType> {
        match self {
            CType::Ptr(t) => match &**t {
                CType::Func(f) => Some(f),
                _ => None,
            },
            _ => None,
        }
    }

    pub fn pointee(&self) -> Option<&CType> {
        match self {
            CType::Ptr(t) => Some(t),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StructId(pub u32);
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LocalId(pub u32);
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GlobalVarId(pub u32);
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FuncRef(pub u32);
/// A label of a function: named, `case` or `default`; numbered from 0 in
/// each function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LabelId(pub u32);

#[derive(Clone, Debug)]
pub struct Program {
    pub structs: Vec<StructLayout>,
    pub globals: Vec<GlobalVar>,
    /// Every function, defined or only declared; `FuncRef(i)` is `funcs[i]`.
    pub funcs: Vec<Func>,
    /// String literals, deduplicated; `ExprKind::Str(i)` is `strings[i]`
    /// (without the terminating NUL, which lowering adds).
    pub strings: Vec<Vec<u8>>,
}

#[derive(Clone, Debug)]
pub struct StructLayout {
    /// The tag, or `<anonymous struct>` (unique only with the id).
    pub name: String,
    /// All members at offset 0, the size that of the largest.
    pub is_union: bool,
    pub fields: Vec<FieldLayout>,
    pub size: u64,
    pub align: u64,
}

#[derive(Clone, Debug)]
pub struct FieldLayout {
    pub name: String,
    /// The member's type; for a bit-field, the type its value has when
    /// read (gcc's: `int` below 32 bits, `_Bool` for `_Bool`, else the
    /// declared type), to which stores convert before masking.
    pub ty: CType,
    /// The byte offset of the member, or of a bit-field's access unit.
    pub offset: u64,
    /// Where a bit-field's bits are; `None` for an ordinary member.
    /// Unnamed bit-fields are padding and have no `FieldLayout`.
    pub bits: Option<BitField>,
}

/// A bit-field's place: `width` bits from bit `shift` (counted from the
/// least significant) of the `unit`-byte little-endian integer at the
/// member's offset. `unit` is the smallest naturally aligned access (1,
/// 2, 4 or 8 bytes, never larger than the declared type) holding all the
/// bits, so an access stays inside the struct and touches as few
/// neighbours as it can.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitField {
    pub unit: u8,
    pub shift: u8,
    pub width: u8,
    /// Whether a read sign-extends (the declared type is signed).
    pub signed: bool,
    /// The type the declaration wrote (C headers repeat it).
    pub declared: CType,
}

impl BitField {
    /// The bits of the unit the field occupies.
    pub fn mask(&self) -> u64 {
        let ones = if self.width >= 64 {
            u64::MAX
        } else {
            (1u64 << self.width) - 1
        };
        ones << self.shift
    }
}

#[derive(Clone, Debug)]
pub struct GlobalVar {
    pub name: String,
    pub ty: CType,
    pub is_const: bool,
    /// `__shared__` arrays declared in kernels are hoisted here (one
    /// instance per GPU block at run time).
    pub is_shared: bool,
    /// Only declared `extern`, never defined in this file: the object is
    /// defined elsewhere (C code, another file), `init` is `None`, and
    /// its type may be incomplete (`extern int table[];`).
    pub is_extern: bool,
    /// Internal linkage: declared `static` at file scope, or made by the
    /// checker (a block's `static` or `__shared__` variable, a file-scope
    /// compound literal), so no other file of the program sees it.
    pub is_static: bool,
    pub init: Option<ConstInit>,
    pub span: Span,
}

/// A constant initializer, already converted to the object's type.
#[derive(Clone, Debug)]
pub enum ConstInit {
    Int(i64),
    Float(f64),
    /// The address of a string literal (`char *s = "..."`).
    Str(usize),
    /// The address of a global plus a byte offset (`int *p = &g;`).
    GlobalAddr(GlobalVarId, i64),
    /// The address of a function (`int (*op)(int) = inc;`).
    FuncAddr(FuncRef),
    Null,
    /// Elements of an array or fields of a struct or union, by index,
    /// ascending and each at most once; missing ones are zero. A `char`
    /// array initialized from a string literal is a `List` of `Int`s.
    List(Vec<(u64, ConstInit)>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FuncKind {
    #[default]
    Host,
    /// `__global__`
    Kernel,
    /// `__device__`
    Device,
}

#[derive(Clone, Debug)]
pub struct Func {
    pub name: String,
    pub ret: CType,
    /// Parameter locals, in order; their types are the parameter types.
    pub params: Vec<LocalId>,
    /// Indices into `params` of pointers declared `restrict`, ascending.
    pub restrict_params: Vec<u32>,
    /// All locals of the function, parameters included; `LocalId(i)` is
    /// `locals[i]`. Names may repeat (shadowing); ids do not.
    pub locals: Vec<Local>,
    pub kind: FuncKind,
    pub is_static: bool,
    /// Declared with `...`. A variadic function parc defines takes its
    /// variadic arguments in parc's own convention (see [`VA_SLOT`]).
    pub variadic: bool,
    /// A variadic definition's hidden local holding the address of its
    /// variadic arguments (what `va_start` gives), not in any scope.
    pub va_args: Option<LocalId>,
    /// `None` for a declaration (`extern` or a prototype never defined).
    pub body: Option<Vec<Stmt>>,
    pub span: Span,
}

/// Bytes per variadic argument of a variadic function parc defines, in
/// parc's own convention ([`parc_cformat::va`]): the caller stores the
/// promoted arguments in its frame, each as a slot of two 64-bit words,
/// its kind (0 an integer sign- or zero-extended to 64 bits, 1 a
/// `double`, 2 a pointer: the runtime's `printf` kinds) and its value,
/// after the last one a slot of kind [`VA_END`], and passes the address
/// of the first as a hidden last parameter. `va_list` is a `char *` to
/// the next slot; `va_arg(ap, T)` reads the value word and steps 16
/// bytes; `vfprintf` reads slots to the end marker.
pub use parc_cformat::va::SLOT as VA_SLOT;

/// The kind word that ends the variadic argument slots.
pub use parc_cformat::va::END as VA_END;

#[derive(Clone, Debug)]
pub struct Local {
    pub name: String,
    pub ty: CType,
    /// True if its address is taken (`&x`, or an array), so it must live in
    /// memory; false locals may be kept in registers from the start.
    pub address_taken: bool,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

/// Large expressions of the rarer statements are boxed, so that the
/// common statements stay small (sizes pinned in the checker's tests).
#[derive(Clone, Debug)]
pub enum StmtKind {
    Expr(Expr),
    /// A local comes into scope; with an initializer, it is assigned. A
    /// declaration without one zero-fills the local (ParC's rule), also
    /// when a loop executes it again.
    Decl(LocalId, Option<Init>),
    Block(Vec<Stmt>),
    If {
        cond: Expr,
        then: Box<Stmt>,
        els: Option<Box<Stmt>>,
    },
    While {
        cond: Expr,
        body: Box<Stmt>,
    },
    DoWhile {
        body: Box<Stmt>,
        cond: Expr,
    },
    For {
        init: Option<Box<Stmt>>,
        cond: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
        body: Box<Stmt>,
    },
    /// `parallel_for (T var = lo; var < hi; var += step) body` (or `<=`
    /// when `inclusive`). `lo` and `step` have the type of `var` (an
    /// integer); `hi` has the type C compares `var < hi` in (the usual
    /// arithmetic conversions of both: `unsigned` for an `int` index and
    /// an `unsigned` bound, `double` for a `double` bound).
    ParallelFor {
        var: LocalId,
        lo: Box<Expr>,
        hi: Box<Expr>,
        inclusive: bool,
        step: Box<Expr>,
        /// The message (an index into [`Program::strings`]) of the run-time
        /// error a step that is not positive raises; `None` for a constant
        /// step, which the checker has seen is positive.
        step_check: Option<usize>,
        body: Box<Stmt>,
    },
    /// `switch (cond) body`: jumps to the label of the case equal to `cond`
    /// (already promoted; the values converted to its type), else to
    /// `default`, else past the body. `break` in the body leaves it.
    Switch {
        cond: Box<Expr>,
        cases: Vec<(i64, LabelId)>,
        default: Option<LabelId>,
        body: Box<Stmt>,
    },
    /// A place `goto` or a `switch` jumps to (a named label, `case`,
    /// `default`); control also falls into it from the statement before.
    Label(LabelId),
    /// `goto name;`: the label is in the same function, and in the same
    /// `parallel_for` body (or outside every one) as the `goto`.
    Goto(LabelId),
    Break,
    Continue,
    /// Already converted to the function's return type.
    Return(Option<Expr>),
    /// `spawn f(args);` or `var = spawn f(args);`: `call` is an
    /// [`ExprKind::Call`]; its result, converted to the type of `dest`, is
    /// stored there by the spawned task.
    Spawn {
        dest: Option<LocalId>,
        call: Box<Expr>,
    },
    Sync,
}

/// A local initializer, converted to the local's type.
#[derive(Clone, Debug)]
pub enum Init {
    Expr(Expr),
    /// Array elements or struct (union) fields by index, ascending and
    /// each at most once (designators and brace elision resolved); the
    /// rest are zero.
    List(Vec<(u64, Init)>),
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: CType,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// Arithmetic negation (integer or floating).
    Neg,
    /// `~` on an integer.
    BitNot,
    /// `!`: 1 if the operand is zero, else 0; result `int`.
    Not,
}

/// Arithmetic and comparison on operands already converted to one type
/// (the operand type, given by the operands' `ty`). Comparisons have type
/// `int` and compare pointers too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    /// Arithmetic for signed, logical for unsigned operand types.
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

/// What a C binary operator is in parir: an operator, or an integer or
/// float comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IrOp {
    Binary(parc_ir::BinaryOp),
    Icmp(parc_ir::IntCC),
    Fcmp(parc_ir::FloatCC),
}

impl BinaryOp {
    /// The parir operation that computes `self` on floats (`float`) or on
    /// integers taken as `unsigned` says; the one translation of C's
    /// operators, for lowering and for constant folding alike. `None` for
    /// `%`, shifts and bit operators on floats, which C refuses.
    pub fn ir(self, float: bool, unsigned: bool) -> Option<IrOp> {
        use BinaryOp::*;
        use parc_ir::{BinaryOp as B, FloatCC as F, IntCC as I};
        Some(match (self, float, unsigned) {
            (Add, true, _) => IrOp::Binary(B::Fadd),
            (Sub, true, _) => IrOp::Binary(B::Fsub),
            (Mul, true, _) => IrOp::Binary(B::Fmul),
            (Div, true, _) => IrOp::Binary(B::Fdiv),
            (Rem | Shl | Shr | BitAnd | BitOr | BitXor, true, _) => return None,
            (Lt, true, _) => IrOp::Fcmp(F::Lt),
            (Le, true, _) => IrOp::Fcmp(F::Le),
            (Gt, true, _) => IrOp::Fcmp(F::Gt),
            (Ge, true, _) => IrOp::Fcmp(F::Ge),
            (Eq, true, _) => IrOp::Fcmp(F::Eq),
            (Ne, true, _) => IrOp::Fcmp(F::Ne),
            (Add, false, _) => IrOp::Binary(B::Iadd),
            (Sub, false, _) => IrOp::Binary(B::Isub),
            (Mul, false, _) => IrOp::Binary(B::Imul),
            (Div, false, true) => IrOp::Binary(B::Udiv),
            (Div, false, false) => IrOp::Binary(B::Sdiv),
            (Rem, false, true) => IrOp::Binary(B::Urem),
            (Rem, false, false) => IrOp::Binary(B::Srem),
            (Shl, false, _) => IrOp::Binary(B::Shl),
            (Shr, false, true) => IrOp::Binary(B::Lshr),
            (Shr, false, false) => IrOp::Binary(B::Ashr),
            (BitAnd, false, _) => IrOp::Binary(B::And),
            (BitOr, false, _) => IrOp::Binary(B::Or),
            (BitXor, false, _) => IrOp::Binary(B::Xor),
            (Lt, false, false) => IrOp::Icmp(I::Slt),
            (Le, false, false) => IrOp::Icmp(I::Sle),
            (Gt, false, false) => IrOp::Icmp(I::Sgt),
            (Ge, false, false) => IrOp::Icmp(I::Sge),
            (Lt, false, true) => IrOp::Icmp(I::Ult),
            (Le, false, true) => IrOp::Icmp(I::Ule),
            (Gt, false, true) => IrOp::Icmp(I::Ugt),
            (Ge, false, true) => IrOp::Icmp(I::Uge),
            (Eq, false, _) => IrOp::Icmp(I::Eq),
            (Ne, false, _) => IrOp::Icmp(I::Ne),
        })
    }
}

/// The C library and CUDA functions the language provides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// A function that is one parir intrinsic of the converted arguments:
    /// the math functions (`double`, or `float` for the `f`-suffixed
    /// forms: the call's type says which), memory, strings, `printf`,
    /// `__syncthreads` (`barrier`), `atomicAdd` (of the type its pointer
    /// points to), `cudaMalloc` (the address of the pointer variable, as
    /// `void**`, and the size), `cudaMemcpy` (its `kind` argument folded
    /// into the intrinsic).
    Intrinsic(Intrinsic),
    /// One of `<math.h>`'s classification macros on a `float` or `double`
    /// operand, an `int`: comparisons, not a call.
    FpTest(FpTest),
}

/// `<math.h>`'s classification macros, with the values gcc and glibc give
/// them (so output matches gcc-built programs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FpTest {
    /// `isnan(x)`: 1 or 0.
    IsNan,
    /// `isinf(x)`: 1 for +infinity, -1 for -infinity, else 0 (glibc's
    /// `__builtin_isinf_sign`).
    IsInf,
    /// `isfinite(x)`: 1 or 0.
    IsFinite,
    /// `isnormal(x)`: 1 or 0.
    IsNormal,
    /// `signbit(x)`: the sign bit where it lies in the operand's top
    /// 32 bits: 1 for a negative `double`, `INT_MIN` for a negative
    /// `float` (gcc's `__builtin_signbit`); 0 for a positive one.
    SignBit,
    /// `__builtin_fpclassify(nan, infinite, normal, subnormal, zero, x)`:
    /// the one of the five constants that names `x`'s class (`fpclassify`
    /// passes glibc's `FP_NAN` ... `FP_ZERO`).
    Classify([i32; 5]),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuIndex {
    ThreadIdx,
    BlockIdx,
    BlockDim,
    GridDim,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    /// An integer, `bool` or `char` constant of type `ty`.
    IntConst(i64),
    FloatConst(f64),
    /// The address of string literal `i` (type `char*`).
    Str(usize),
    /// The null pointer of type `ty`.
    Null,
    /// Lvalue: a local variable.
    Local(LocalId),
    /// Lvalue: a global variable.
    Global(GlobalVarId),
    /// Converts the operand to `ty` as C does: integer widening (by the
    /// operand's signedness), narrowing, int↔float, float↔double, to
    /// `bool` (compare with zero), pointer↔pointer, pointer↔integer.
    Convert(Box<Expr>),
    /// An array lvalue used as a value: the address of its first element
    /// (`ty` is a pointer to the element type).
    Decay(Box<Expr>),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `ptr + index * elem_size` (`index` is `long`; subtraction has a
    /// negated index). Type: the pointer's type.
    PtrOffset {
        ptr: Box<Expr>,
        index: Box<Expr>,
        elem_size: u64,
    },
    /// `(a - b) / elem_size` for two pointers; type `long`.
    PtrDiff {
        a: Box<Expr>,
        b: Box<Expr>,
        elem_size: u64,
    },
    /// Short-circuit `&&` (`is_and`) or `||`; operands scalar, type `int`.
    Logical {
        is_and: bool,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// Lvalue: `*ptr`.
    Deref(Box<Expr>),
    /// `&lvalue`.
    AddrOf(Box<Expr>),
    /// Lvalue: `base[index]` where `base` is a pointer (arrays decayed) and
    /// `index` is `long`; `elem_size` is the size of `ty`.
    Index {
        base: Box<Expr>,
        index: Box<Expr>,
        elem_size: u64,
    },
    /// Lvalue: field at `offset` of a struct (or `dim3`) lvalue; `ty` is
    /// the field's type. `p->f` is `Member(Deref(p))`. A bit-field (`bits`)
    /// is read by shifting and extending its unit and written by masking
    /// into it; it has no address.
    Member {
        base: Box<Expr>,
        offset: u64,
        bits: Option<BitField>,
    },
    /// `lhs = rhs`; `rhs` already has `lhs`'s type; value is the new value.
    Assign {
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `lhs op= rhs`: computes `(op_ty)lhs op rhs` in `op_ty` (the usual
    /// arithmetic conversions of both sides; `rhs` already converted to it),
    /// converts back to `lhs`'s type and stores. For pointer `+=`/`-=`,
    /// `op` is `Add`/`Sub`, `op_ty` is the pointer type, `rhs` is `long`
    /// and `elem_size` is the pointee size (otherwise 0).
    CompoundAssign {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
        op_ty: CType,
        elem_size: u64,
    },
    /// `++x`, `x--` and friends on an arithmetic or pointer lvalue;
    /// pointers step by `elem_size` bytes (otherwise 0).
    IncDec {
        lvalue: Box<Expr>,
        is_inc: bool,
        is_prefix: bool,
        elem_size: u64,
    },
    /// `c ? a : b`; `a` and `b` already have type `ty`.
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// GNU C's `a ?: b`: `a` evaluated once, its value if nonzero, else
    /// `b`; both already have type `ty` (a scalar type at least as wide as
    /// `a`'s own, so converting never changes whether it is zero).
    Elvis(Box<Expr>, Box<Expr>),
    /// A call of a function of the program; arguments converted to the
    /// parameter types.
    Call {
        func: FuncRef,
        args: Vec<Expr>,
    },
    /// The address of a function (a function designator used as a value);
    /// type `Ptr(Func)`.
    FuncAddr(FuncRef),
    /// A call through a function pointer (`callee` has type `Ptr(Func)`);
    /// arguments converted to its parameter types (variadic ones promoted).
    CallIndirect {
        callee: Box<Expr>,
        args: Vec<Expr>,
    },
    /// Lvalue: a compound literal `(T){ ... }`, the unnamed local `local`
    /// initialized (each time this is evaluated) with `init`.
    CompoundLit {
        local: LocalId,
        init: Box<Init>,
    },
    /// A builtin; arguments converted to what [`Builtin`] documents
    /// (`printf`'s variadic ones promoted: `float` to `double`, small
    /// integers to `int`).
    Builtin {
        func: Builtin,
        args: Vec<Expr>,
    },
    /// `kernel<<<grid, block>>>(args)`: `grid` and `block` are `dim3`
    /// values (an integer `n` was converted to `dim3(n, 1, 1)`).
    Launch {
        kernel: FuncRef,
        grid: Box<Expr>,
        block: Box<Expr>,
        args: Vec<Expr>,
    },
    /// `dim3(x, y, z)` with missing components 1; components `unsigned`.
    Dim3(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `threadIdx.x` etc.; type `int`. `dim` is 0, 1, 2 for x, y, z.
    Gpu(GpuIndex, u8),
    /// `a, b`: evaluates `a`, discards it, yields `b`.
    Comma(Box<Expr>, Box<Expr>),
    /// `__enzyme_autodiff(f, args...)`: a call of the reverse-mode gradient
    /// of `f` (a function with a body in this program that returns no
    /// struct). `args` has exactly one entry per parameter of `f`, in
    /// order, with the activity Enzyme's rules give it; values and shadows
    /// are converted to the parameter's type. `ty` is the type of the one
    /// `Active` parameter (`float` or `double`), or `void` when none is;
    /// at most one is.
    Autodiff {
        func: FuncRef,
        args: Vec<AutodiffArg>,
    },
}

/// How an argument of a differentiated call takes part in the derivative
/// (Enzyme's activities).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Activity {
    /// `enzyme_const`: no derivative (the default for integers).
    Const,
    /// `enzyme_dup`: a pointer and its shadow, into which gradients are
    /// added (the default for pointers).
    Dup,
    /// `enzyme_dupnoneed`: like `Dup`, but the primal values written
    /// through the pointer need not be computed.
    DupNoNeed,
    /// `enzyme_out`: an active scalar whose gradient is returned (the
    /// default for `float` and `double`).
    Active,
}

/// One parameter's argument(s) in [`ExprKind::Autodiff`].
#[derive(Clone, Debug)]
pub struct AutodiffArg {
    pub activity: Activity,
    /// The primal value (pointer or scalar).
    pub value: Expr,
    /// The shadow pointer, exactly for `Dup` and `DupNoNeed`.
    pub shadow: Option<Expr>,
}
