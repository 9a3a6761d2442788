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
    Func(FuncDef),
    /// A file-scope declaration of variables, typedefs, or only of a
    /// struct, union or enum (`struct S { ... };`, with no declarators).
    Global(Decl),
    StaticAssert(StaticAssert),
}

/// `_Static_assert(cond, "message");` (C11), at file or block scope: a
/// compile-time check that declares nothing.
#[derive(Clone, Debug)]
pub struct StaticAssert {
    pub cond: Expr,
    /// The message (C23 lets it be left out).
    pub message: Option<Vec<u8>>,
    pub span: Span,
}

/// A member of a struct or union.
#[derive(Clone, Debug)]
pub struct Field {
    /// The whole type: the specifiers' base and the declarator's parts.
    pub ty: TypeName,
    /// `None` only for an unnamed bit-field (`int : 3;`, `int : 0;`).
    pub name: Option<Ident>,
    /// A bit-field's width (`unsigned flag : 1;`), a constant expression.
    pub width: Option<Expr>,
    pub span: Span,
}

/// Storage and CUDA qualifiers that may precede a declaration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Qualifiers {
    pub is_const: bool,
    pub is_static: bool,
    pub is_extern: bool,
    pub is_inline: bool,
    /// `typedef`: the declarators name types, not objects.
    pub is_typedef: bool,
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
    /// The parameter list ends with `...`.
    pub variadic: bool,
    /// `None` for a prototype or `extern` declaration.
    pub body: Option<Block>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Param {
    /// As written: `double a[]` is an array here; the checker adjusts it
    /// to a pointer, as C does.
    pub ty: TypeName,
    /// Unnamed in prototypes such as `double f(double);`.
    pub name: Option<Ident>,
    pub span: Span,
}

/// The base of a type as written, before the declarator's pointers,
/// arrays and parameter lists.
#[derive(Clone, Debug)]
pub enum TypeSpec {
    Void,
    Bool,
    /// `char` and `signed char` (`char` is signed).
    Char,
    UChar,
    Short,
    UShort,
    Int,
    Unsigned,
    /// `long`, `long int`, `long long`, `signed long`.
    Long,
    /// `unsigned long`, `unsigned long long`, `unsigned long int`.
    UnsignedLong,
    Float,
    /// `double` and `long double`.
    Double,
    /// `struct`/`union`, with its members where it is defined here.
    Record(Box<RecordSpec>),
    Enum(Box<EnumSpec>),
    /// A name declared by `typedef`.
    Typedef(Ident),
    /// CUDA's `dim3`.
    Dim3,
    /// gcc's `typeof(expr)`: the expression's type (not evaluated).
    TypeofExpr(Box<Expr>),
    /// `typeof(type)`.
    TypeofType(Box<TypeName>),
}

/// `struct tag`, `union tag { ... }`, `struct { ... }`.
#[derive(Clone, Debug)]
pub struct RecordSpec {
    pub is_union: bool,
    pub tag: Option<Ident>,
    /// The members, where this specifier defines the type.
    pub fields: Option<Vec<Field>>,
    /// The whole specifier (`struct` to `}`): tells one definition from
    /// another, as a declaration's base type is resolved once per declarator.
    pub span: Span,
}

/// `enum tag`, `enum tag { A, B = 3 }`.
#[derive(Clone, Debug)]
pub struct EnumSpec {
    pub tag: Option<Ident>,
    pub items: Option<Vec<Enumerator>>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Enumerator {
    pub name: Ident,
    pub value: Option<Expr>,
}

/// One step from a declaration's base type towards the declared type, as a
/// declarator adds them: `int *a[3]` is `int` then `Pointer` then
/// `Array(3)` (an array of three pointers); `int (*f)(int)` is `int` then
/// `Func(int)` then `Pointer`.
#[derive(Clone, Debug)]
pub enum Derived {
    Pointer {
        is_const: bool,
        /// `restrict`: a promise the optimizer and the AD use on parameters
        /// (LANGUAGE.md).
        is_restrict: bool,
        span: Span,
    },
    /// `[N]`, or `[]` (`len: None`); in a parameter, C99's `[const
    /// restrict static N]` too (see [`ArrayQuals`]).
    Array {
        len: Option<Box<Expr>>,
        quals: ArrayQuals,
        span: Span,
    },
    /// `[*]`: a variable length not given (in a prototype's parameters).
    VarLenStar { span: Span },
    Func {
        params: Vec<Param>,
        variadic: bool,
        span: Span,
    },
}

/// What C99 6.7.5.3 lets a parameter's outermost array declarator say
/// inside its brackets (`double a[restrict static 10]`): the qualifiers
/// of the pointer the parameter becomes, and `static` (the argument
/// points to at least N elements, a hint parc does not need).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ArrayQuals {
    pub is_const: bool,
    pub is_restrict: bool,
    pub is_static: bool,
}

impl ArrayQuals {
    pub fn any(self) -> bool {
        self.is_const || self.is_restrict || self.is_static
    }
}

/// A type as written: a base and the parts a declarator adds.
#[derive(Clone, Debug)]
pub struct TypeName {
    pub spec: TypeSpec,
    /// `const` on the base type (`const double *p`: the `double`s).
    pub is_const: bool,
    /// Applied to the base in order; see [`Derived`].
    pub derived: Vec<Derived>,
    pub span: Span,
}

impl TypeName {
    /// `const` applies to the declared object itself: the base's `const`
    /// when nothing but arrays is derived from it, else the outermost
    /// pointer's.
    pub fn is_const_object(&self) -> bool {
        match self
            .derived
            .iter()
            .rfind(|d| !matches!(d, Derived::Array { .. } | Derived::VarLenStar { .. }))
        {
            None => self.is_const,
            Some(Derived::Pointer { is_const, .. }) => *is_const,
            Some(_) => false,
        }
    }

    /// A parameter declared with this type is read-only in the body: as
    /// [`Self::is_const_object`], but an array parameter is a pointer,
    /// `const` only by a `const` in its brackets (`double a[const 3]`).
    pub fn is_const_param(&self) -> bool {
        match self.derived.last() {
            Some(Derived::Array { quals, .. }) => quals.is_const,
            Some(Derived::VarLenStar { .. }) => false,
            _ => self.is_const_object(),
        }
    }

    /// The outermost part is a `restrict` pointer, or (in a parameter)
    /// an array with `restrict` in its brackets, which is one.
    pub fn is_restrict(&self) -> bool {
        matches!(
            self.derived.last(),
            Some(
                Derived::Pointer {
                    is_restrict: true,
                    ..
                } | Derived::Array {
                    quals: ArrayQuals {
                        is_restrict: true,
                        ..
                    },
                    ..
                }
            )
        )
    }

    /// `void` with nothing derived: `f(void)`.
    pub fn is_plain_void(&self) -> bool {
        matches!(self.spec, TypeSpec::Void) && self.derived.is_empty()
    }
}

/// `quals ty declarator, declarator, ...;`
#[derive(Clone, Debug)]
pub struct Decl {
    pub quals: Qualifiers,
    /// The base type; each declarator adds its own parts.
    pub ty: TypeName,
    pub declarators: Vec<Declarator>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Declarator {
    pub name: Ident,
    /// Applied to the declaration's base type; see [`Derived`].
    pub derived: Vec<Derived>,
    pub init: Option<Init>,
    pub span: Span,
}

impl Declarator {
    /// The declared type: `base` with this declarator's parts.
    pub fn type_name(&self, base: &TypeName) -> TypeName {
        let mut t = base.clone();
        t.derived.extend(self.derived.iter().cloned());
        t
    }
}

/// One element of a brace-enclosed initializer, with its designators.
#[derive(Clone, Debug)]
pub struct InitItem {
    /// `.x` and `[3]` before `=`, outermost first; empty for the next
    /// element in order.
    pub designators: Vec<Designator>,
    pub init: Init,
}

#[derive(Clone, Debug)]
pub enum Designator {
    /// `.name`
    Field(Ident),
    /// `[index]`
    Index(Expr, Span),
}

#[derive(Clone, Debug)]
pub enum Init {
    /// `= expr`
    Expr(Expr),
    /// `= { a, b, {c, d}, .x = 1, [4] = 2 }`
    List(Vec<InitItem>, Span),
    /// CUDA's constructor form `dim3 grid(4, 2);`.
    Ctor(Vec<Expr>, Span),
}

impl Init {
    pub fn span(&self) -> Span {
        match self {
            Init::Expr(e) => e.span,
            Init::List(_, s) | Init::Ctor(_, s) => *s,
        }
    }
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

/// Large parts of statements and expressions are boxed, so that the
/// common small nodes stay small: the tree of a large program is in
/// memory whole while it is parsed (sizes pinned in `parse`'s tests).
#[derive(Clone, Debug)]
pub enum StmtKind {
    /// `;`
    Empty,
    StaticAssert(Box<StaticAssert>),
    Expr(Expr),
    Decl(Box<Decl>),
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
        cond: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
        body: Box<Stmt>,
    },
    /// `switch (cond) body`; the `case` and `default` labels are
    /// statements of the body.
    Switch {
        cond: Expr,
        body: Box<Stmt>,
    },
    /// `case value: stmt`
    Case {
        value: Expr,
        body: Box<Stmt>,
    },
    /// `default: stmt`
    Default(Box<Stmt>),
    /// `name: stmt`
    Label {
        name: Ident,
        body: Box<Stmt>,
    },
    Goto(Ident),
    Break,
    Continue,
    Return(Option<Expr>),
    /// `spawn call;` or `dest = spawn call;`. The parser accepts any
    /// expression after `spawn` so the checker can say why it is wrong.
    Spawn {
        dest: Option<Box<Expr>>,
        call: Box<Expr>,
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
    /// GNU C's `a ?: b`.
    Elvis(Box<Expr>, Box<Expr>),
    /// `f(args)`: also builtins (`printf`, `sqrt`, `atomicAdd`,
    /// `__syncthreads`, `__enzyme_autodiff`, `cudaMalloc`, `dim3`, ...).
    Call {
        callee: Ident,
        args: Vec<Expr>,
    },
    /// A call through an expression that is not a name: `(*fp)(x)`,
    /// `ops[i](x)`, `s->f(x)`.
    CallPtr {
        callee: Box<Expr>,
        args: Vec<Expr>,
    },
    /// `(T){ items }`: an unnamed object initialized like a variable.
    CompoundLit(Box<TypeName>, Vec<InitItem>, Span),
    /// `kernel<<<grid, block>>>(args)`
    Launch {
        kernel: Box<Ident>,
        grid: Box<Expr>,
        block: Box<Expr>,
        args: Vec<Expr>,
    },
    Index(Box<Expr>, Box<Expr>),
    /// `e.field`
    Member(Box<Expr>, Ident),
    /// `e->field`
    Arrow(Box<Expr>, Ident),
    Cast(Box<TypeName>, Box<Expr>),
    SizeofType(Box<TypeName>),
    /// `_Alignof(T)`.
    AlignofType(Box<TypeName>),
    SizeofExpr(Box<Expr>),
    /// `offsetof(type, a.b[2])`: the first designator is a field.
    Offsetof(Box<TypeName>, Vec<Designator>),
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
