//! What the grammar's actions build: declaration specifiers validated and
//! combined, declarators turned into [`Derived`] lists, declarations split
//! into functions and variables, and the small helpers that wrap
//! expressions and statements with their spans.
//!
//! Everything here is used by the actions in `grammar.lalrpop`. Actions
//! never fail: a malformed construct pushes a diagnostic to the [`Sink`]
//! and builds the closest valid node.
//!
//! Length (about 1,050 lines): C's declarations are one concept — the
//! specifiers (`specs`, about 170 lines of C's rules for combining
//! them), the declarators, and what a declaration with both makes in
//! each place one may stand (file scope, a block, parameters, fields, a
//! `for`, K&R definitions) — and those places share the validation of
//! specifiers and declarators. The expression and statement helpers
//! before them are short.

use crate::ast::*;
use crate::diag::Diagnostic;
use crate::lex::{Number, Token};
use lalrpop_util::{ErrorRecovery, ParseError};
use std::convert::Infallible;

/// State shared with the grammar actions.
#[derive(Default)]
pub(crate) struct Sink {
    /// Problems found by actions (malformed declarations and the like).
    pub diags: Vec<Diagnostic>,
    /// Syntax errors recovered from by `!` rules, reported by `parse`.
    pub recovered: Vec<ErrorRecovery<usize, Token, Infallible>>,
    /// Functions declared in a block (`int helper(int);` in a body): C
    /// gives them external linkage, so they are declared at file scope,
    /// before the item that holds them.
    pub hoisted: Vec<Item>,
}

/// One word of a declaration's specifiers.
#[derive(Clone, Debug)]
pub(crate) enum Word {
    Void,
    Bool,
    Char,
    Short,
    Int,
    Unsigned,
    Signed,
    Long,
    Float,
    Double,
    Dim3,
    Record(Box<RecordSpec>),
    Enum(Box<EnumSpec>),
    TypeName(Ident),
    /// `typeof(expr)`, `typeof(type)`.
    TypeofExpr(Box<Expr>),
    TypeofType(Box<TypeName>),
    Const,
    Static,
    Extern,
    Inline,
    Typedef,
    Global,
    Device,
    Shared,
    /// `restrict`, `volatile`, ...: no effect.
    Ignored,
}

impl Word {
    fn text(&self) -> String {
        match self {
            Word::Void => "void".into(),
            Word::Bool => "bool".into(),
            Word::Char => "char".into(),
            Word::Short => "short".into(),
            Word::Int => "int".into(),
            Word::Unsigned => "unsigned".into(),
            Word::Signed => "signed".into(),
            Word::Long => "long".into(),
            Word::Float => "float".into(),
            Word::Double => "double".into(),
            Word::Dim3 => "dim3".into(),
            Word::Record(r) if r.is_union => "union".into(),
            Word::Record(_) => "struct".into(),
            Word::Enum(_) => "enum".into(),
            Word::TypeName(n) => n.name.clone(),
            Word::TypeofExpr(_) | Word::TypeofType(_) => "typeof".into(),
            Word::Const => "const".into(),
            Word::Static => "static".into(),
            Word::Extern => "extern".into(),
            Word::Inline => "inline".into(),
            Word::Typedef => "typedef".into(),
            Word::Global => "__global__".into(),
            Word::Device => "__device__".into(),
            Word::Shared => "__shared__".into(),
            Word::Ignored => "qualifier".into(),
        }
    }
}

/// Validated declaration specifiers.
#[derive(Clone, Debug)]
pub(crate) struct Specs {
    pub quals: Qualifiers,
    /// The base type, nothing derived; its span covers the specifiers.
    pub ty: TypeName,
    /// Storage and CUDA words, for "not allowed here" messages.
    pub storage: Vec<(&'static str, Span)>,
}

#[derive(Clone, Debug)]
pub(crate) enum RawInit {
    None,
    Init(Init),
    /// `= spawn call` and the span from `spawn` on.
    Spawn(Expr, Span),
}

/// A declarator before it is known what it declares.
#[derive(Clone, Debug)]
pub(crate) struct RawDeclarator {
    pub name: Ident,
    pub derived: Vec<Derived>,
    /// CUDA's `dim3 grid(4, 2)`: the arguments and their span.
    pub ctor: Option<(Vec<Expr>, Span)>,
    pub init: RawInit,
    pub span: Span,
}

/// A direct declarator being built: the name and the parts its suffixes
/// (and a parenthesized inner declarator) add, in [`Derived`] order.
#[derive(Clone, Debug)]
pub(crate) struct DirectDecl {
    name: Ident,
    derived: Vec<Derived>,
    ctor: Option<(Vec<Expr>, Span)>,
}

impl DirectDecl {
    pub(crate) fn new(name: Ident) -> DirectDecl {
        DirectDecl {
            name,
            derived: Vec::new(),
            ctor: None,
        }
    }

    /// `( declarator )`
    pub(crate) fn nested(d: RawDeclarator) -> DirectDecl {
        DirectDecl {
            name: d.name,
            derived: d.derived,
            ctor: d.ctor,
        }
    }

    /// A suffix: it applies to the base before what is inside, so it comes
    /// first (`(*f)(int)`: `Func` then `Pointer`; `a[3][4]`: `[4]` then
    /// `[3]`).
    pub(crate) fn with(mut self, part: Derived) -> DirectDecl {
        self.derived.insert(0, part);
        self
    }

    /// `name(args)`: `var_declarator` checks that it is a plain `dim3`.
    pub(crate) fn with_ctor(mut self, args: Vec<Expr>, span: Span) -> DirectDecl {
        self.ctor = Some((args, span));
        self
    }
}

/// `pointers direct-declarator`: the pointers apply to the base first.
pub(crate) fn declarator(pointers: Vec<Derived>, d: DirectDecl, span: Span) -> RawDeclarator {
    let mut derived = pointers;
    derived.extend(d.derived);
    RawDeclarator {
        name: d.name,
        derived,
        ctor: d.ctor,
        init: RawInit::None,
        span,
    }
}

/// `pointers direct-abstract-declarator`.
pub(crate) fn join_abstract(pointers: Vec<Derived>, d: Vec<Derived>) -> Vec<Derived> {
    let mut derived = pointers;
    derived.extend(d);
    derived
}

/// A suffix of an abstract declarator (see [`DirectDecl::with`]).
pub(crate) fn suffix_abstract(mut d: Vec<Derived>, part: Derived) -> Vec<Derived> {
    d.insert(0, part);
    d
}

/// The union of the words in an array's brackets (`[const restrict static 3]`).
pub(crate) fn array_quals(words: &[ArrayQuals]) -> ArrayQuals {
    words.iter().fold(ArrayQuals::default(), |a, w| ArrayQuals {
        is_const: a.is_const || w.is_const,
        is_restrict: a.is_restrict || w.is_restrict,
        is_static: a.is_static || w.is_static,
    })
}

pub(crate) fn pointers(sink: &mut Sink, stars: Vec<(bool, bool, Span)>) -> Vec<Derived> {
    if stars.len() > 255
        && let (Some(a), Some(b)) = (stars.first(), stars.last())
    {
        sink.diags.push(
            Diagnostic::error(a.2.to(b.2), "too many `*`s (at most 255)").with_label("too many"),
        );
    }
    stars
        .into_iter()
        .take(255)
        .map(|(is_const, is_restrict, span)| Derived::Pointer {
            is_const,
            is_restrict,
            span,
        })
        .collect()
}

pub(crate) fn expr(kind: ExprKind, lo: usize, hi: usize) -> Expr {
    Expr {
        kind,
        span: Span::new(lo, hi),
    }
}

pub(crate) fn stmt(kind: StmtKind, lo: usize, hi: usize) -> Stmt {
    Stmt {
        kind,
        span: Span::new(lo, hi),
    }
}

pub(crate) fn number(n: Number) -> ExprKind {
    match n {
        Number::Int {
            value,
            suffix,
            decimal,
        } => ExprKind::IntLit {
            value,
            suffix,
            decimal,
        },
        Number::Float { value, is_float } => ExprKind::FloatLit { value, is_float },
    }
}

/// Records a recovered syntax error and returns the statement standing in
/// for what was skipped.
pub(crate) fn recovered(sink: &mut Sink, e: ErrorRecovery<usize, Token, Infallible>) -> Stmt {
    let lo = match &e.error {
        ParseError::UnrecognizedToken { token, .. } | ParseError::ExtraToken { token } => token.0,
        ParseError::UnrecognizedEof { location, .. } | ParseError::InvalidToken { location } => {
            *location
        }
        ParseError::User { error } => match *error {},
    };
    let hi = e.dropped_tokens.last().map_or(lo, |t| t.2).max(lo);
    sink.recovered.push(e);
    let error = expr(ExprKind::Error, lo, hi);
    stmt(StmtKind::Expr(error), lo, hi)
}

pub(crate) fn for_stmt(
    head: (bool, Option<Box<Stmt>>, Option<Expr>, Option<Expr>),
    body: Stmt,
    lo: usize,
    hi: usize,
) -> Stmt {
    let (parallel, init, cond, step) = head;
    stmt(
        StmtKind::For {
            parallel,
            init,
            cond: cond.map(Box::new),
            step: step.map(Box::new),
            body: Box::new(body),
        },
        lo,
        hi,
    )
}

/// `#pragma omp LINE` applied to `s`.
pub(crate) fn omp_stmt(sink: &mut Sink, line: &str, lo: usize, s: Stmt, hi: usize) -> Stmt {
    let (pragma, diags) = crate::omp::parse_pragma(line, lo);
    sink.diags.extend(diags);
    stmt(
        StmtKind::Omp {
            pragma: Box::new(pragma),
            stmt: Box::new(s),
        },
        lo,
        hi,
    )
}

/// `parallel_reduce(op: vars)`: the pragma it means.
pub(crate) fn reduce_clause(
    op: Option<crate::omp::RedOp>,
    vars: Vec<Ident>,
    span: Span,
) -> crate::omp::Pragma {
    use crate::omp::{Clause, ClauseAt, Pragma};
    Pragma {
        construct: "parallel for".to_string(),
        name: None,
        clauses: op
            .map(|op| ClauseAt {
                clause: Clause::Reduction(op, vars),
                span,
            })
            .into_iter()
            .collect(),
        span,
    }
}

/// `min` or `max` as a reduction operator; anything else is an error.
pub(crate) fn reduce_word(sink: &mut Sink, n: Ident) -> Option<crate::omp::RedOp> {
    match n.name.as_str() {
        "min" => Some(crate::omp::RedOp::Min),
        "max" => Some(crate::omp::RedOp::Max),
        _ => {
            sink.diags.push(
                Diagnostic::error(n.span, format!("`{}` is not a reduction operator", n.name))
                    .with_label("unknown operator")
                    .with_help("the operators are + * - min max & | ^ && ||"),
            );
            None
        }
    }
}

/// `parallel_reduce (op: vars) (header) body`: the clause on a `parallel_for`.
pub(crate) fn reduce_stmt(
    head: (
        crate::omp::Pragma,
        Option<Box<Stmt>>,
        Option<Expr>,
        Option<Expr>,
    ),
    body: Stmt,
    lo: usize,
    hi: usize,
) -> Stmt {
    let (pragma, init, cond, step) = head;
    let pfor = for_stmt((true, init, cond, step), body, lo, hi);
    stmt(
        StmtKind::Omp {
            pragma: Box::new(pragma),
            stmt: Box::new(pfor),
        },
        lo,
        hi,
    )
}

/// A statement label.
pub(crate) enum Label {
    Name(Ident),
    Case(Expr),
    Default,
}

pub(crate) fn labeled(label: Label, body: Stmt, lo: usize, hi: usize) -> Stmt {
    let body = Box::new(body);
    let kind = match label {
        Label::Name(name) => StmtKind::Label { name, body },
        Label::Case(value) => StmtKind::Case { value, body },
        Label::Default => StmtKind::Default(body),
    };
    stmt(kind, lo, hi)
}

/// A call: of a function by its name, or through a pointer.
pub(crate) fn call(callee: Expr, args: Vec<Expr>, span: Span) -> Expr {
    let kind = match callee.kind {
        ExprKind::Ident(name) => ExprKind::Call {
            callee: Ident {
                name,
                span: callee.span,
            },
            args,
        },
        ExprKind::Error => ExprKind::Error,
        _ => ExprKind::CallPtr {
            callee: Box::new(callee),
            args,
        },
    };
    Expr { kind, span }
}

/// Validates and combines the specifier words of a declaration.
pub(crate) fn specs(sink: &mut Sink, words: Vec<(Word, Span)>, span: Span) -> Specs {
    let mut quals = Qualifiers::default();
    let mut storage = Vec::new();
    // The base word (`int`, `double`, `struct S`, a type name, ...), if any.
    let mut base: Option<(Word, Span)> = None;
    let mut longs: Option<(u32, Span)> = None;
    let mut short: Option<Span> = None;
    let mut signedness: Option<(bool, Span)> = None; // (is_unsigned, where)
    for (word, wspan) in words {
        match word {
            Word::Const => quals.is_const = true,
            Word::Static => {
                quals.is_static = true;
                storage.push(("static", wspan));
            }
            Word::Extern => {
                quals.is_extern = true;
                storage.push(("extern", wspan));
            }
            Word::Inline => {
                quals.is_inline = true;
                storage.push(("inline", wspan));
            }
            Word::Typedef => {
                quals.is_typedef = true;
                storage.push(("typedef", wspan));
            }
            Word::Global => {
                quals.is_global = true;
                storage.push(("__global__", wspan));
            }
            Word::Device => {
                quals.is_device = true;
                storage.push(("__device__", wspan));
            }
            Word::Shared => {
                quals.is_shared = true;
                storage.push(("__shared__", wspan));
            }
            Word::Ignored => {}
            Word::Long => {
                let n = longs.map_or(1, |l| l.0 + 1);
                if n > 2 {
                    sink.diags.push(
                        Diagnostic::error(wspan, "`long long long` is too long for C")
                            .with_label("one `long` too many"),
                    );
                }
                longs = Some((n, longs.map_or(wspan, |l| l.1)));
            }
            Word::Short => {
                if short.is_some() {
                    sink.diags.push(
                        Diagnostic::error(wspan, "`short short` is not a type")
                            .with_label("one `short` too many"),
                    );
                }
                short = Some(wspan);
            }
            Word::Signed | Word::Unsigned => {
                let is_unsigned = matches!(word, Word::Unsigned);
                match signedness {
                    Some((prev, _)) if prev != is_unsigned => sink.diags.push(
                        Diagnostic::error(wspan, "both `signed` and `unsigned` in one type")
                            .with_label("conflicting signedness")
                            .with_help("keep one of them"),
                    ),
                    _ => signedness = Some((is_unsigned, wspan)),
                }
            }
            _ => match &base {
                Some((prev, prev_span)) => sink.diags.push(
                    Diagnostic::error(
                        wspan,
                        format!(
                            "`{}` cannot be combined with `{}`",
                            word.text(),
                            prev.text()
                        ),
                    )
                    .with_label("second type")
                    .with_secondary(*prev_span, "the type was already given here")
                    .with_help("a declaration has exactly one type"),
                ),
                None => base = Some((word, wspan)),
            },
        }
    }
    if let (Some(s), Some((_, l))) = (short, longs) {
        conflict(sink, "short", "long", s.to(l));
    }
    let is_unsigned = signedness.is_some_and(|s| s.0);
    let spec = match base {
        None | Some((Word::Int, _)) => {
            if base.is_none() && longs.is_none() && short.is_none() && signedness.is_none() {
                sink.diags.push(
                    Diagnostic::error(span, "missing type in declaration")
                        .with_label("no type here")
                        .with_help("C99 has no implicit `int`; write the type, e.g. `int`"),
                );
            }
            match (longs.is_some(), short.is_some(), is_unsigned) {
                (true, _, true) => TypeSpec::UnsignedLong,
                (true, _, false) => TypeSpec::Long,
                (false, true, true) => TypeSpec::UShort,
                (false, true, false) => TypeSpec::Short,
                (false, false, true) => TypeSpec::Unsigned,
                (false, false, false) => TypeSpec::Int,
            }
        }
        Some((Word::Char, at)) => {
            if longs.is_some() {
                conflict(sink, "long", "char", at);
            }
            if short.is_some() {
                conflict(sink, "short", "char", at);
            }
            if is_unsigned {
                TypeSpec::UChar
            } else {
                TypeSpec::Char
            }
        }
        Some((Word::Double, at)) => {
            // `long double` is `double` (LANGUAGE.md).
            if longs.is_some_and(|l| l.0 > 1) {
                conflict(sink, "long long", "double", at);
            }
            if short.is_some() {
                conflict(sink, "short", "double", at);
            }
            if let Some((u, s)) = signedness {
                conflict(sink, if u { "unsigned" } else { "signed" }, "double", s);
            }
            TypeSpec::Double
        }
        Some((word, at)) => {
            let text = word.text();
            if longs.is_some() {
                conflict(sink, "long", &text, at);
            }
            if short.is_some() {
                conflict(sink, "short", &text, at);
            }
            if let Some((u, s)) = signedness {
                conflict(sink, if u { "unsigned" } else { "signed" }, &text, s);
            }
            match word {
                Word::Void => TypeSpec::Void,
                Word::Bool => TypeSpec::Bool,
                Word::Float => TypeSpec::Float,
                Word::Dim3 => TypeSpec::Dim3,
                Word::Record(r) => TypeSpec::Record(r),
                Word::Enum(e) => TypeSpec::Enum(e),
                Word::TypeName(n) => TypeSpec::Typedef(n),
                Word::TypeofExpr(e) => TypeSpec::TypeofExpr(e),
                Word::TypeofType(t) => TypeSpec::TypeofType(t),
                // Only base words reach this arm.
                _ => TypeSpec::Int,
            }
        }
    };
    Specs {
        quals,
        ty: TypeName {
            spec,
            is_const: quals.is_const,
            derived: Vec::new(),
            span,
        },
        storage,
    }
}

fn conflict(sink: &mut Sink, what: &str, with: &str, at: Span) {
    sink.diags.push(
        Diagnostic::error(at, format!("`{what}` cannot be combined with `{with}`"))
            .with_label("invalid combination"),
    );
}

fn reject_storage(sink: &mut Sink, specs: &Specs, place: &str) {
    for (word, span) in &specs.storage {
        sink.diags.push(
            Diagnostic::error(*span, format!("`{word}` is not allowed in {place}"))
                .with_label("not allowed here")
                .with_help(format!("remove `{word}`")),
        );
    }
}

fn with_derived(specs: &Specs, derived: Vec<Derived>, span: Span) -> TypeName {
    TypeName {
        spec: specs.ty.spec.clone(),
        is_const: specs.ty.is_const,
        derived,
        span,
    }
}

/// A type in a cast, `sizeof` or compound literal.
pub(crate) fn type_name(
    sink: &mut Sink,
    specs: Specs,
    derived: Vec<Derived>,
    span: Span,
) -> TypeName {
    reject_storage(sink, &specs, "a type name");
    with_derived(&specs, derived, span)
}

/// A parameter's declarator: a constructor form there is a mistake.
pub(crate) fn param_declarator(sink: &mut Sink, mut d: RawDeclarator) -> RawDeclarator {
    if let Some((_, span)) = d.ctor.take() {
        sink.diags.push(
            Diagnostic::error(span, "a parameter cannot have an initializer")
                .with_label("not a parameter list"),
        );
    }
    d
}

pub(crate) fn param(
    sink: &mut Sink,
    specs: Specs,
    name: Option<Ident>,
    derived: Vec<Derived>,
    span: Span,
) -> Param {
    // `register` is an ignored qualifier; nothing else may be written here.
    reject_storage(sink, &specs, "a parameter");
    Param {
        ty: with_derived(&specs, derived, span),
        name,
        span,
    }
}

/// `(void)` means no parameters.
pub(crate) fn params(ps: Vec<Param>) -> Vec<Param> {
    match ps.as_slice() {
        [p] if p.name.is_none() && p.ty.is_plain_void() => Vec::new(),
        _ => ps,
    }
}

pub(crate) fn fields(
    sink: &mut Sink,
    specs: Specs,
    decls: Vec<(Option<RawDeclarator>, Option<Expr>, Span)>,
) -> Vec<Field> {
    reject_storage(sink, &specs, "a struct member");
    let mut out = Vec::new();
    for (d, width, whole) in decls {
        let span = specs.ty.span.to(whole);
        let Some(d) = d else {
            // `int : 3;`: padding, `int : 0;`: closes the storage unit.
            out.push(Field {
                ty: with_derived(&specs, Vec::new(), span),
                name: None,
                width,
                span,
            });
            continue;
        };
        if let Some((_, span)) = &d.ctor {
            sink.diags.push(
                Diagnostic::error(
                    *span,
                    format!("member `{}` cannot have an initializer", d.name),
                )
                .with_label("an initializer"),
            );
        }
        if !matches!(d.init, RawInit::None) {
            sink.diags.push(
                Diagnostic::error(
                    d.span,
                    format!("member `{}` cannot have an initializer", d.name),
                )
                .with_label("an initializer")
                .with_help("initialize the member where a variable of the struct is defined"),
            );
        }
        out.push(Field {
            ty: with_derived(&specs, d.derived, span),
            name: Some(d.name),
            width,
            span,
        });
    }
    out
}

/// `struct { ... };` inside a struct (C11's anonymous members), or `int;`.
pub(crate) fn anonymous_field(sink: &mut Sink, specs: Specs, span: Span) -> Vec<Field> {
    let msg = match &specs.ty.spec {
        TypeSpec::Record(r) if r.tag.is_none() => {
            "anonymous struct and union members are not supported"
        }
        _ => "this member declaration declares nothing",
    };
    sink.diags.push(
        Diagnostic::error(span, msg)
            .with_label("no member name")
            .with_help("give the member a name, e.g. `struct { ... } u;`"),
    );
    Vec::new()
}

/// `struct S { ... };`, `enum E { ... };`: a declaration of the type
/// alone; anything else like `int;` is reported (and declares nothing).
pub(crate) fn empty_decl(sink: &mut Sink, specs: Specs, span: Span) -> Option<Decl> {
    // An untagged struct declares nothing here; an untagged enum still
    // declares its constants.
    let declares_tag = match &specs.ty.spec {
        TypeSpec::Record(r) => r.tag.is_some(),
        TypeSpec::Enum(e) => e.tag.is_some() || e.items.is_some(),
        _ => false,
    };
    if !declares_tag || specs.quals.is_typedef {
        sink.diags.push(
            Diagnostic::warning(span, "this declaration declares nothing")
                .with_label("no name")
                .with_help("add a name, e.g. `int x;`"),
        );
    }
    declares_tag.then(|| decl_of(&specs, Vec::new(), span))
}

/// A variable's declarator and its `= spawn call` (with the span from `spawn`).
type VarDecl = (Declarator, Option<(Expr, Span)>);

/// True for a declarator that declares a function (its outermost part is a
/// parameter list) rather than an object or a type name.
fn declares_function(specs: &Specs, d: &RawDeclarator) -> bool {
    !specs.quals.is_typedef && matches!(d.derived.last(), Some(Derived::Func { .. }))
}

/// The variable (or typedef) part of a declarator, with its `= spawn call`
/// if any; gives the declarator back if it declares a function.
fn var_declarator(
    sink: &mut Sink,
    specs: &Specs,
    d: RawDeclarator,
) -> Result<VarDecl, Box<RawDeclarator>> {
    if declares_function(specs, &d) {
        return Err(Box::new(d));
    }
    let ctor = d.ctor.map(|(args, span)| {
        if !matches!(specs.ty.spec, TypeSpec::Dim3) || !d.derived.is_empty() {
            sink.diags.push(
                Diagnostic::error(span, "constructor-style initialization is only for `dim3`")
                    .with_label("not a `dim3`")
                    .with_help(format!("write `{} = value`", d.name)),
            );
        }
        Init::Ctor(args, span)
    });
    let (init, spawn) = match d.init {
        RawInit::None => (ctor, None),
        RawInit::Init(init) => {
            if ctor.is_some() {
                sink.diags.push(
                    Diagnostic::error(d.span, format!("`{}` has two initializers", d.name))
                        .with_label("initialized twice"),
                );
            }
            (Some(init), None)
        }
        RawInit::Spawn(call, span) => (ctor, Some((call, span))),
    };
    if specs.quals.is_typedef
        && let Some(i) = &init
    {
        let span = i.span();
        sink.diags.push(
            Diagnostic::error(
                span,
                format!("typedef `{}` cannot have an initializer", d.name),
            )
            .with_label("a type has no value")
            .with_help("declare a variable of the type to initialize it"),
        );
    }
    Ok((
        Declarator {
            name: d.name,
            derived: d.derived,
            init,
            span: d.span,
        },
        spawn,
    ))
}

fn spawn_outside_function(sink: &mut Sink, span: Span, place: &str) {
    sink.diags.push(
        Diagnostic::error(span, format!("`spawn` is not allowed in {place}"))
            .with_label("not allowed here")
            .with_help("spawn from a statement in a function body: `x = spawn f(...);`"),
    );
}

/// The function a declarator declares (its last part is the parameter
/// list; the parts before it belong to the result type).
fn func_from(
    sink: &mut Sink,
    specs: &Specs,
    mut d: RawDeclarator,
    body: Option<Block>,
    span: Span,
) -> Option<FuncDef> {
    let Some(Derived::Func {
        params, variadic, ..
    }) = d.derived.pop()
    else {
        return None;
    };
    if !matches!(d.init, RawInit::None) || d.ctor.is_some() {
        sink.diags.push(
            Diagnostic::error(
                d.span,
                format!("function `{}` cannot have an initializer", d.name),
            )
            .with_label("not a variable"),
        );
    }
    let ret_span = specs.ty.span;
    Some(FuncDef {
        quals: specs.quals,
        ret: with_derived(specs, d.derived, ret_span),
        name: d.name,
        params,
        variadic,
        body,
        span,
    })
}

/// A file-scope declaration: globals, typedefs and/or prototypes.
pub(crate) fn file_decl(
    sink: &mut Sink,
    specs: Specs,
    ds: Vec<RawDeclarator>,
    span: Span,
) -> Vec<Item> {
    let mut items = Vec::new();
    let mut vars = Vec::new();
    for d in ds {
        match var_declarator(sink, &specs, d) {
            Ok((decl, spawn)) => {
                if let Some((_, sspan)) = spawn {
                    spawn_outside_function(sink, sspan, "a global initializer");
                }
                vars.push(decl);
            }
            Err(d) => {
                // A struct defined in the specifiers is defined once, by
                // the first item that carries them.
                if !vars.is_empty() {
                    items.push(Item::Global(decl_of(
                        &specs,
                        std::mem::take(&mut vars),
                        span,
                    )));
                }
                items.extend(func_from(sink, &specs, *d, None, span).map(Item::Func));
            }
        }
    }
    if !vars.is_empty() {
        items.push(Item::Global(decl_of(&specs, vars, span)));
    }
    items
}

fn decl_of(specs: &Specs, declarators: Vec<Declarator>, span: Span) -> Decl {
    Decl {
        quals: specs.quals,
        ty: specs.ty.clone(),
        declarators,
        span,
    }
}

/// A function definition `specs declarator { body }`.
pub(crate) fn func_def(
    sink: &mut Sink,
    specs: Specs,
    d: RawDeclarator,
    body: Block,
    span: Span,
) -> Vec<Item> {
    let name = d.name.clone();
    if specs.quals.is_typedef {
        sink.diags.push(
            Diagnostic::error(name.span, format!("typedef `{name}` cannot have a body"))
                .with_label("a type name")
                .with_help("remove `typedef` to define a function"),
        );
        return Vec::new();
    }
    if d.ctor.is_some() {
        // `int f(a, b) { ... }`: an identifier list, without types.
        return kr_func_def(sink, specs, d, Vec::new(), body, span);
    }
    match func_from(sink, &specs, d, Some(body), span) {
        Some(f) => vec![Item::Func(f)],
        None => {
            sink.diags.push(
                Diagnostic::error(
                    name.span,
                    format!("`{name}` has a body but no parameter list"),
                )
                .with_label("no `(...)` after this name")
                .with_help(format!(
                    "write `{name}(...)` with its parameters, or `{name}(void)`"
                )),
            );
            Vec::new()
        }
    }
}

/// A declaration in a block. `T x = spawn f();` becomes `T x;` followed by
/// the statement `x = spawn f();` (same meaning, as locals start at zero).
pub(crate) fn local_decl(
    sink: &mut Sink,
    specs: Specs,
    ds: Vec<RawDeclarator>,
    span: Span,
) -> Vec<Stmt> {
    let mut stmts = Vec::new();
    let mut vars = Vec::new();
    for d in ds {
        match var_declarator(sink, &specs, d) {
            Ok((decl, None)) => vars.push(decl),
            Ok((decl, Some((call, sspan)))) => {
                let dest = Expr {
                    kind: ExprKind::Ident(decl.name.name.clone()),
                    span: decl.name.span,
                };
                let stmt_span = decl.span;
                vars.push(decl);
                stmts.push(Stmt {
                    kind: StmtKind::Decl(Box::new(decl_of(
                        &specs,
                        std::mem::take(&mut vars),
                        span,
                    ))),
                    span,
                });
                stmts.push(Stmt {
                    kind: StmtKind::Spawn {
                        dest: Some(Box::new(dest)),
                        call: Box::new(call),
                    },
                    span: stmt_span.to(sspan),
                });
            }
            Err(d) if specs.quals.is_static => {
                sink.diags.push(
                    Diagnostic::error(d.span, "a function declared in a block cannot be `static`")
                        .with_label("`static` function declaration")
                        .with_help("declare it at file scope, or remove `static`"),
                );
            }
            Err(d) => {
                let f = func_from(sink, &specs, *d, None, span);
                sink.hoisted.extend(f.map(Item::Func));
            }
        }
    }
    if !vars.is_empty() {
        stmts.push(Stmt {
            kind: StmtKind::Decl(Box::new(decl_of(&specs, vars, span))),
            span,
        });
    }
    stmts
}

/// An old-style (K&R) definition, `int f(a, b) int a; double b; { ... }`:
/// the identifier list (parsed as a constructor's arguments) names the
/// parameters and the declarations before the body give their types. It
/// becomes the prototype definition `int f(int a, double b)`, which C
/// calls the same way for arguments of the parameters' types.
pub(crate) fn kr_func_def(
    sink: &mut Sink,
    specs: Specs,
    mut d: RawDeclarator,
    decls: Vec<(Specs, Vec<RawDeclarator>)>,
    body: Block,
    span: Span,
) -> Vec<Item> {
    let fname = d.name.name.clone();
    let Some((args, list_span)) = d.ctor.take() else {
        sink.diags.push(
            Diagnostic::error(
                d.span,
                format!("declarations between `{fname}` and its body, but no identifier list"),
            )
            .with_label("no `(a, b)` naming the parameters")
            .with_help("declare the parameters in the parentheses: `f(int a, double b)`"),
        );
        return Vec::new();
    };
    let mut names: Vec<Ident> = Vec::new();
    for a in &args {
        match &a.kind {
            ExprKind::Ident(n) => names.push(Ident {
                name: n.clone(),
                span: a.span,
            }),
            _ => {
                sink.diags.push(
                    Diagnostic::error(a.span, "expected a parameter name")
                        .with_label("not a name")
                        .with_help(format!("write `{fname}(int a, double b)`")),
                );
                return Vec::new();
            }
        }
    }
    let mut typed: Vec<Option<Param>> = vec![None; names.len()];
    for (pspecs, ds) in decls {
        for rd in ds {
            let Some(k) = names.iter().position(|n| n.name == rd.name.name) else {
                sink.diags.push(
                    Diagnostic::error(
                        rd.name.span,
                        format!(
                            "`{}` is declared here but is not a parameter of `{fname}`",
                            rd.name
                        ),
                    )
                    .with_label("not in the identifier list"),
                );
                continue;
            };
            let (name, derived, pspan) = (rd.name.clone(), rd.derived, rd.span);
            typed[k] = Some(param(sink, pspecs.clone(), Some(name), derived, pspan));
        }
    }
    let mut params = Vec::new();
    for (n, p) in names.iter().zip(typed) {
        match p {
            Some(p) => params.push(p),
            None => {
                sink.diags.push(
                    Diagnostic::error(n.span, format!("parameter `{n}` has no type"))
                        .with_label("an old-style (K&R) parameter without a declaration")
                        .with_help(format!(
                            "declare it before the body (`int {n};`), or write a prototype: \
                             `{fname}(int {n}, ...)`"
                        )),
                );
                return Vec::new();
            }
        }
    }
    d.derived.push(Derived::Func {
        params,
        variadic: false,
        span: list_span,
    });
    func_def(sink, specs, d, body, span)
}

/// The declaration in `for (T i = 0; ...)`.
pub(crate) fn for_init_decl(
    sink: &mut Sink,
    specs: Specs,
    ds: Vec<RawDeclarator>,
    span: Span,
) -> Stmt {
    let mut vars = Vec::new();
    for d in ds {
        match var_declarator(sink, &specs, d) {
            Ok((decl, spawn)) => {
                if let Some((_, sspan)) = spawn {
                    spawn_outside_function(sink, sspan, "a `for` header");
                }
                vars.push(decl);
            }
            Err(d) => sink.diags.push(
                Diagnostic::error(d.span, "a function cannot be declared in a `for` header")
                    .with_label("function declaration"),
            ),
        }
    }
    Stmt {
        kind: StmtKind::Decl(Box::new(decl_of(&specs, vars, span))),
        span,
    }
}
