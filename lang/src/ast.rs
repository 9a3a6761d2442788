//! The syntax tree of one ParC file, as the parser produces it.
//!
//! Invariants:
//! - Every node carries the byte [`Span`] of the source it came from; spans of
//!   children lie inside the span of their parent.
//! - The tree is purely syntactic: names are unresolved strings, no types are
//!   computed, and constructs that parse but are illegal (`spawn x;`, a `break`
//!   in a `parallel_for`, a launch of a non-kernel) are rejected later by the
//!   checker, not by the parser, so they get precise diagnostics.
//! - Nesting depth is bounded by the parser (see `parse::MAX_NESTING`), so the
//!   recursive walks over this tree cannot overflow the stack.

use std::fmt;

/// A half-open byte range `start..end` in the source file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// An identifier with where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

impl fmt::Display for Ident {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

/// A whole file.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub items: Vec<Item>,
}

#[derive(Clone, Debug)]
pub enum Item {
    Struct(StructDef),
    Func(FuncDef),
    /// A file-scope variable declaration, e.g. `const double w[3] = {1, 2, 3};`.
    Global(Decl),
}

#[derive(Clone, Debug)]
pub struct StructDef {
    pub name: Ident,
    pub fields: Vec<Field>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Field {
    pub ty: TypeName,
    pub name: Ident,
    /// `double v[3]` has `Some(3)` here (an integer constant expression).
    pub array_len: Option<Expr>,
    pub span: Span,
}

/// Storage and CUDA qualifiers that may precede a declaration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Qualifiers {
    pub is_const: bool,
    pub is_static: bool,
    pub is_extern: bool,
    pub is_inline: bool,
    /// `__global__`: a kernel.
    pub is_global: bool,
    /// `__device__`: a helper callable from kernels.
    pub is_device: bool,
    /// `__shared__`: one array per GPU block.
    pub is_shared: bool,
}

#[derive(Clone, Debug)]
pub struct FuncDef {
    pub quals: Qualifiers,
    pub ret: TypeName,
    pub name: Ident,
    pub params: Vec<Param>,
    /// The parameter list ends with `...` (only in prototypes such as
    /// `extern double __enzyme_autodiff(void *, ...);`).
    pub variadic: bool,
    /// `None` for a prototype or `extern` declaration.
    pub body: Option<Block>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Param {
    /// Parameters written `T name[]` or `T name[N]` already have one more
    /// pointer level here, as C adjusts them.
    pub ty: TypeName,
    /// Unnamed in prototypes such as `double f(double);`.
    pub name: Option<Ident>,
    pub span: Span,
}

/// The base of a type as written, before pointer stars.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeSpec {
    Void,
    Bool,
    Char,
    /// `signed char` and `unsigned char` are accepted and mean `char`.
    Int,
    Unsigned,
    /// `long`, `long int`, `long long`, `signed long`.
    Long,
    /// `unsigned long`, `unsigned long long`, `unsigned long int`.
    UnsignedLong,
    Float,
    Double,
    Struct(Ident),
    /// CUDA's `dim3`.
    Dim3,
}

/// A type as written in a cast, `sizeof`, a parameter or a return type:
/// a base and a number of `*`s. Array dimensions belong to declarators.
#[derive(Clone, Debug)]
pub struct TypeName {
    pub spec: TypeSpec,
    pub pointers: u8,
    /// `const` anywhere in the type; ParC checks it only on variables.
    pub is_const: bool,
    /// The outermost pointer is `restrict` (`double *restrict a`): a
    /// promise the optimizer and the AD use on parameters (LANGUAGE.md).
    pub is_restrict: bool,
    pub span: Span,
}

/// `quals ty declarator, declarator, ...;`
#[derive(Clone, Debug)]
pub struct Decl {
    pub quals: Qualifiers,
    /// The base type; each declarator adds its own stars and array length.
    pub ty: TypeName,
    pub declarators: Vec<Declarator>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Declarator {
    pub name: Ident,
    /// Extra `*`s written before this name (`int *p, q;`).
    pub pointers: u8,
    /// `name[N]`; `name[]` with an initializer list has `Some(None)`.
    pub array_len: Option<Option<Expr>>,
    pub init: Option<Init>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Init {
    /// `= expr`
    Expr(Expr),
    /// `= { a, b, {c, d} }`
    List(Vec<Init>, Span),
    /// CUDA's constructor form `dim3 grid(4, 2);`.
    Ctor(Vec<Expr>, Span),
}

#[derive(Clone, Debug)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    /// `;`
    Empty,
    Expr(Expr),
    Decl(Decl),
    Block(Block),
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
    /// `for` and `parallel_for`. The checker enforces the canonical form of
    /// `parallel_for` (LANGUAGE.md): `init` declares the index, `cond` compares
    /// it with `<` or `<=`, `step` is `i++`, `++i`, `i += c` or `i = i + c`.
    For {
        parallel: bool,
        init: Option<Box<Stmt>>,
        cond: Option<Expr>,
        step: Option<Expr>,
        body: Box<Stmt>,
    },
    Break,
    Continue,
    Return(Option<Expr>),
    /// `spawn call;` or `dest = spawn call;`. The parser accepts any
    /// expression after `spawn` so the checker can say why it is wrong.
    Spawn {
        dest: Option<Expr>,
        call: Expr,
    },
    Sync,
    /// `#pragma omp ...` and the statement after it (also ParC's
    /// `parallel_reduce`: its clause and its `parallel_for`).
    Omp {
        pragma: Box<crate::omp::Pragma>,
        stmt: Box<Stmt>,
    },
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntSuffix {
    None,
    /// `L` or `LL`
    Long,
    /// `U`
    Unsigned,
    /// `UL` or `ULL`
    UnsignedLong,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    /// The value as written; the checker picks its type from the value,
    /// the suffix and the radix as C does (C99 6.4.4.1) and reports
    /// literals too large for any type.
    IntLit {
        value: u128,
        suffix: IntSuffix,
        /// False for hexadecimal and octal literals, which may be unsigned.
        decimal: bool,
    },
    /// `is_float` for an `f`/`F` suffix.
    FloatLit {
        value: f64,
        is_float: bool,
    },
    CharLit(u8),
    /// Bytes after escape processing, without the terminating NUL.
    StrLit(Vec<u8>),
    BoolLit(bool),
    /// `NULL`
    Null,
    Ident(String),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `a = b` has `op: None`; `a += b` has `op: Some(Add)`.
    Assign {
        op: Option<BinaryOp>,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `f(args)`: also builtins (`printf`, `sqrt`, `atomicAdd`,
    /// `__syncthreads`, `__enzyme_autodiff`, `cudaMalloc`, `dim3`, ...).
    Call {
        callee: Ident,
        args: Vec<Expr>,
    },
    /// `kernel<<<grid, block>>>(args)`
    Launch {
        kernel: Ident,
        grid: Box<Expr>,
        block: Box<Expr>,
        args: Vec<Expr>,
    },
    Index(Box<Expr>, Box<Expr>),
    /// `e.field`
    Member(Box<Expr>, Ident),
    /// `e->field`
    Arrow(Box<Expr>, Ident),
    Cast(TypeName, Box<Expr>),
    SizeofType(TypeName),
    SizeofExpr(Box<Expr>),
    /// `a, b`
    Comma(Box<Expr>, Box<Expr>),
    /// Stands in for an expression the parser could not read; the error
    /// was already reported, and checking it reports nothing more.
    Error,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// `-e`
    Neg,
    /// `+e`
    Plus,
    /// `!e`
    Not,
    /// `~e`
    BitNot,
    /// `*e`
    Deref,
    /// `&e`
    AddrOf,
    PreInc,
    PreDec,
    PostInc,
    PostDec,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
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
    /// `&&`, short-circuit.
    And,
    /// `||`, short-circuit.
    Or,
}

impl BinaryOp {
    pub fn symbol(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
            Shl => "<<",
            Shr => ">>",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Eq => "==",
            Ne => "!=",
            And => "&&",
            Or => "||",
        }
    }
}
