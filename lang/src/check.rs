//! Names and C types: the AST in, the typed [`hir`] out, with diagnostics.
//!
//! [`check`] resolves every name, computes every expression's C type, makes
//! C's implicit conversions explicit and folds constants, so that lowering
//! never re-derives a typing rule (see the invariants in [`hir`]). It keeps
//! going after an error to report as many as it can in one run; an internal
//! *error type* (compatible with everything) stops one mistake from causing a
//! cascade of follow-on messages, and `ast::ExprKind::Error` nodes from the
//! parser are typed with it silently.
//!
//! What is checked, by module:
//! - here: the checker's state, name lookup and suggestions.
//! - `scopes`: block scopes and shadowing.
//! - `program`: file scope in order (C has no implicit declarations), then
//!   the whole-program rules: `main`'s signature, prototypes against
//!   definitions, host functions called from kernels must not fork.
//! - `functions`, `globals`: function definitions and prototypes; globals,
//!   `extern` declarations and typedefs (conflicting or duplicate
//!   declarations).
//! - `decls`: a declaration's written type (specifiers, declarators),
//!   struct and union definitions, tags and enumerations.
//! - `bitfield`: bit-fields' widths, gcc's layout of them, their types.
//! - `types`: C's types: sizes and layouts (x86-64), C's promotions, usual
//!   arithmetic conversions and simple-assignment constraints.
//! - `expr` (and `expr/`): every operator (pointer arithmetic, lvalues,
//!   `const`, decay, casts, `sizeof`), GPU indices, and the determinacy
//!   races the compiler can see: in a `parallel_for` body, assigning a
//!   variable declared outside the body (or a global), or writing
//!   unconditionally to a location that is the same in every iteration
//!   (`a[0]`, `*p`); and using the target of `x = spawn f()` before `sync`.
//! - `consts`: integer constant expressions and constant initializers.
//! - `init`: initializers (scalars, nested brace lists with elision, strings
//!   for `char` arrays, `dim3` constructors).
//! - `stmt` (and `stmt/`): statements, loops, `break`/`continue`/`return`
//!   placement, `spawn`/`sync`, the canonical form of `parallel_for`,
//!   `__shared__`.
//! - `calls`: calls of user functions and builtins, kernel launches and the
//!   CUDA runtime calls.
//! - `printf`: `printf` format strings against their arguments.
//! - `scanf`: `scanf` format strings against the pointers passed.
//! - `enzyme`: `__enzyme_autodiff` by Enzyme's activity rules.
//! - `omp` (and `omp/`): OpenMP directives in terms of the above.
//!
//! Extensions to C99: `const`
//! integer globals count as integer constants (array sizes, initializers);
//! `parallel_for` also accepts `hi > i` and `hi >= i`; `dim3` converts from
//! an integer and a declared `dim3` starts as (1, 1, 1), as in CUDA.
//!
//! The error type is `struct <error>`, a [`CType::Struct`] with an id no real
//! struct has; it never reaches a returned [`hir::Program`], because any
//! error makes [`check`] return `None`.

mod bitfield;
mod builtin_addr;
mod calls;
mod consts;
mod decls;
mod enzyme;
mod expr;
mod fpclass;
mod functions;
mod globals;
mod init;
mod jumps;
mod omp;
mod printf;
mod program;
mod scanf;
mod scopes;
mod static_assert;
mod stmt;
#[cfg(test)]
mod tests;
mod types;
mod variadic;
mod vla;

pub use enzyme::{Activity, AdArg, AutodiffCall, default_activity};

use std::collections::HashMap;

use crate::ast::{self, Span};
use crate::diag::Diagnostic;
use crate::hir::{self, CType, FuncKind, FuncRef, GlobalVarId, LocalId, StructId};

/// Checks a parsed program. Returns the HIR when no error was reported
/// (warnings may be present).
pub fn check(program: ast::Program) -> (Option<hir::Program>, Vec<Diagnostic>) {
    check_program(program, true, false)
}

/// [`check`] for a library or an object file: the program need not define
/// `main` (one it does define is checked as always).
pub fn check_library(program: ast::Program) -> (Option<hir::Program>, Vec<Diagnostic>) {
    check_program(program, false, false)
}

/// [`check_library`] for one file of a program of several: a function it
/// declares may be defined, as ParC, by another file, so the rule on
/// struct-by-value C functions (`check_extern_signatures`) is left to the
/// driver, which sees the linked program.
pub fn check_part(program: ast::Program) -> (Option<hir::Program>, Vec<Diagnostic>) {
    check_program(program, false, true)
}

fn check_program(
    program: ast::Program,
    require_main: bool,
    part: bool,
) -> (Option<hir::Program>, Vec<Diagnostic>) {
    // The walks recurse once per nesting level, and the parser allows deep
    // trees (`parse::MAX_CHAIN` statements, each with as many operators);
    // run them on a thread whose stack holds any tree the parser returns.
    // The memory is only reserved, not used, unless a program is that deep.
    // The checker consumes the tree (each item is freed once checked); the
    // slot gives it back should the thread not start.
    let slot = std::sync::Mutex::new(Some(program));
    let take = || {
        slot.lock()
            .ok()
            .and_then(|mut p| p.take())
            .unwrap_or_default()
    };
    let spawned = std::thread::scope(|s| {
        let handle = std::thread::Builder::new()
            .name("parc-check".into())
            .stack_size(CHECK_STACK)
            .spawn_scoped(s, || check_here(take(), require_main, part));
        match handle {
            Ok(h) => Some(h.join().unwrap_or_else(|_| {
                let d = Diagnostic::error(Span::default(), "internal error: the checker failed");
                (None, vec![d])
            })),
            Err(_) => None,
        }
    });
    // Without a thread (no memory for its stack), check on this one.
    spawned.unwrap_or_else(|| check_here(take(), require_main, part))
}

/// Stack for the checker's thread (see [`check`]): 10,000 nested
/// statements or operators need about 32 MiB in a debug build.
const CHECK_STACK: usize = 256 << 20;

/// [`check`] on the current thread.
fn check_here(
    program: ast::Program,
    require_main: bool,
    part: bool,
) -> (Option<hir::Program>, Vec<Diagnostic>) {
    let mut c = Checker {
        require_main,
        part,
        ..Checker::default()
    };
    c.program(program);
    let ok = !c.diags.iter().any(Diagnostic::is_error);
    let diags = std::mem::take(&mut c.diags);
    if !ok {
        return (None, diags);
    }
    let prog = hir::Program {
        structs: c.structs.into_iter().map(|s| s.layout).collect(),
        globals: c.globals,
        funcs: c.funcs,
        strings: c.strings,
    };
    (Some(prog), diags)
}

const ERROR_STRUCT: StructId = StructId(u32::MAX);

/// The error type: compatible with everything, never reported on.
fn err_ty() -> CType {
    CType::Struct(ERROR_STRUCT)
}

/// True if the type is, or is built from, the error type.
fn is_err(t: &CType) -> bool {
    match t {
        CType::Struct(id) => *id == ERROR_STRUCT,
        CType::Ptr(e) | CType::Array(e, _) | CType::VarArray(e, _) => is_err(e),
        CType::Func(f) => is_err(&f.ret) || f.params.iter().any(is_err),
        _ => false,
    }
}

/// A name in scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sym {
    Local(LocalId),
    Global(GlobalVarId),
    Func(FuncRef),
    /// A name declared by `typedef` (an index into `Checker::typedefs`).
    Typedef(TypedefId),
    /// An enumeration constant (an `int`).
    EnumConst(i64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TypedefId(u32);

struct StructInfo {
    layout: hir::StructLayout,
    /// Declared by `struct S;` or a definition, not only named in passing.
    declared: bool,
    /// Where the struct is (first) defined, or first named.
    span: Span,
    /// The layout is known (its definition has been checked).
    complete: bool,
}

struct GlobalInfo {
    /// Where a definition with an initializer was seen, for "first defined here".
    defined_at: Option<Span>,
}

struct FuncInfo {
    /// Where the function was first declared.
    decl_span: Span,
    /// Where it is defined (with a body).
    def_span: Option<Span>,
    param_names: Vec<String>,
    param_spans: Vec<Span>,
    /// The first `spawn`, `sync` or `parallel_for` in its body.
    fork_join: Option<Span>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum LoopKind {
    Ordinary,
    /// A `switch` body: `break` leaves it, `continue` belongs to a loop
    /// around it.
    Switch,
    /// The body of a `parallel_for`: `break` and `return` may not leave it.
    ParallelBody,
}

/// A `parallel_for` being checked.
struct PforInfo {
    /// Tells this loop's body from every other in the function (labels
    /// and `goto`s must be in the same one).
    serial: u32,
    span: Span,
    var: LocalId,
    /// How many `if` branches inside this loop's body enclose the
    /// statement being checked (a write under a condition may happen in
    /// one iteration only).
    conditional: u32,
    /// How many constructs that one thread of a team runs once (`single`,
    /// `master`, a section) enclose the statement directly in this body:
    /// their writes to the team's shared variables are not races.
    once: u32,
    /// How many OpenMP locks the body has set (`omp_set_lock`,
    /// `omp_test_lock`, `omp_set_nest_lock`, `omp_test_nest_lock`) and
    /// not yet unset, in the order the checker reads it: writes while one
    /// is held are ordered by it, not races.
    locks: u32,
}

impl FnCtx {
    /// Enters the body of a `parallel_for` over `var` (numbered after every
    /// earlier one of the function).
    fn enter_pfor(&mut self, span: Span, var: LocalId) {
        self.pfor_count += 1;
        self.pfors.push(PforInfo {
            serial: self.pfor_count,
            span,
            var,
            conditional: 0,
            once: 0,
            locks: 0,
        });
    }
}

struct LocalInfo {
    is_const: bool,
    /// How many `parallel_for` bodies enclose the declaration.
    pfor_depth: usize,
}

/// The function whose body is being checked.
struct FnCtx {
    name: String,
    ret: CType,
    kind: FuncKind,
    locals: Vec<hir::Local>,
    local_info: Vec<LocalInfo>,
    scopes: scopes::Scopes,
    /// Struct, union and enum tags of each block scope (parallel to `scopes`).
    tags: Vec<HashMap<String, decls::Tag>>,
    loops: Vec<LoopKind>,
    pfors: Vec<PforInfo>,
    /// `parallel_for` loops seen so far in this function.
    pfor_count: u32,
    /// Named labels, defined or used by `goto`.
    labels: HashMap<String, jumps::LabelInfo>,
    /// The `switch` statements being checked, innermost last.
    switches: Vec<jumps::SwitchInfo>,
    /// Labels created so far (`hir::LabelId`s).
    label_count: u32,
    fork_join: Option<Span>,
    /// Targets of `x = spawn f()` not yet followed by a `sync`, with the
    /// spawn's span: using them is a determinacy race.
    pending: Vec<(LocalId, Span)>,
    /// The OpenMP teams (`parallel` regions and `parallel for` loops)
    /// around the statement being checked, innermost last.
    teams: Vec<omp::Team>,
    /// How many `critical` sections enclose the statement being checked.
    critical: usize,
    /// The variable-length arrays in scope, outermost first, where each
    /// was declared: a jump may not enter their scope (see `jumps`).
    vlas: Vec<(LocalId, Span)>,
    /// How many of `vlas` were in scope when each block scope began
    /// (parallel to `scopes`).
    vla_marks: Vec<usize>,
    /// A variadic definition's hidden local: the address of its variadic
    /// arguments (`va_start`).
    va_args: Option<LocalId>,
}

#[derive(Default)]
struct Checker {
    /// A program without `main` is an error (not for libraries, objects).
    require_main: bool,
    /// One file of a program of several (see [`check_part`]).
    part: bool,
    diags: Vec<Diagnostic>,
    structs: Vec<StructInfo>,
    /// File-scope struct, union and enum tags.
    file_tags: HashMap<String, decls::Tag>,
    /// Every struct or union the file defines at file scope, for the
    /// help on uses that come before the definition.
    structs_ahead: HashMap<String, Span>,
    /// Struct and union definitions already laid out, by the position of
    /// their specifier (see `decls`).
    record_defs: HashMap<u32, StructId>,
    /// Enum definitions already declared, likewise.
    enum_defs: std::collections::HashSet<u32>,
    /// Enumerations none of whose values is negative (gcc makes them
    /// `unsigned`, which decides how their bit-fields read), by the
    /// position of their specifier and of their tag.
    unsigned_enums: std::collections::HashSet<u32>,
    /// Typedefs that name such an enumeration.
    unsigned_enum_typedefs: std::collections::HashSet<u32>,
    /// The types `typedef` names stand for (`Sym::Typedef`).
    typedefs: Vec<CType>,
    /// Where file-scope typedef names and enumeration constants were declared.
    file_sym_spans: HashMap<String, Span>,
    globals: Vec<hir::GlobalVar>,
    global_info: Vec<GlobalInfo>,
    funcs: Vec<hir::Func>,
    func_info: Vec<FuncInfo>,
    /// File-scope variables and functions declared so far.
    file_syms: HashMap<String, Sym>,
    /// Every function declared anywhere in the file, for the help on calls
    /// that come before the declaration.
    funcs_ahead: HashMap<String, Span>,
    strings: Vec<Vec<u8>>,
    string_ids: HashMap<Vec<u8>, usize>,
    fx: Option<FnCtx>,
    /// Calls from kernels and `__device__` functions of host functions:
    /// (callee, call span), checked once every body is known.
    gpu_calls: Vec<(FuncRef, Span)>,
    /// Variadic functions called or used as values, and calls passing a
    /// pointer to a variadic function: (function, span), checked once
    /// every body is known (see `variadic`).
    variadic_uses: Vec<(FuncRef, Span)>,
    variadic_passed: Vec<(FuncRef, Span)>,
    /// Stands in for the pending spawns at file scope (there are none).
    no_pending: Vec<(LocalId, Span)>,
    /// Undeclared names already reported in the current function (or at
    /// file scope): each is reported once, as gcc does.
    reported_unknown: std::collections::HashSet<String>,
    /// Hidden locals of variable array lengths and their values, waiting
    /// for the statement they go before (see `vla`).
    vla_lengths: Vec<(LocalId, hir::Expr)>,
    /// Inside parameter lists, whose variable lengths are not evaluated.
    params_unevaluated: u32,
    /// The span of the outermost array declarator of the parameter being
    /// resolved: the one array whose brackets may hold `restrict`, `const`
    /// and `static`.
    outer_param_array: Option<Span>,
    /// The C library functions ([`parc_ir::CFn`]) declared so far, with
    /// the C types of their prototypes (a shipped header's or the
    /// program's own).
    libc_decls: HashMap<String, calls::Decl>,
    /// The wrapper functions of the builtins used as values, by name
    /// (see `builtin_addr`).
    builtin_wrappers: HashMap<String, FuncRef>,
}

/// The edit distance of two names, for "did you mean" suggestions.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The candidate closest to `name`, if it is close enough to be a typo.
fn closest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    // Short names are too close to too much for a guess to help.
    if name.chars().count() < 3 {
        return None;
    }
    let limit = (name.chars().count() / 3).clamp(1, 3);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c == name || c.is_empty() {
            continue;
        }
        let d = edit_distance(name, c);
        if d <= limit && best.is_none_or(|(bd, bc)| d < bd || (d == bd && c < bc)) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

impl Checker {
    fn push(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn fx(&self) -> Option<&FnCtx> {
        self.fx.as_ref()
    }

    /// The kind of the function being checked (`Host` at file scope).
    fn cur_kind(&self) -> FuncKind {
        self.fx.as_ref().map_or(FuncKind::Host, |f| f.kind)
    }

    fn in_gpu_code(&self) -> bool {
        self.cur_kind() != FuncKind::Host
    }

    fn intern_string(&mut self, bytes: &[u8]) -> usize {
        if let Some(i) = self.string_ids.get(bytes) {
            return *i;
        }
        let i = self.strings.len();
        self.strings.push(bytes.to_vec());
        self.string_ids.insert(bytes.to_vec(), i);
        i
    }

    fn lookup(&self, name: &str) -> Option<Sym> {
        if let Some(s) = self.fx.as_ref().and_then(|fx| fx.scopes.lookup(name)) {
            return Some(s);
        }
        self.file_syms.get(name).copied()
    }

    /// Every name visible here, for suggestions.
    fn visible_names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.file_syms.keys().cloned().collect();
        if let Some(fx) = &self.fx {
            v.extend(fx.scopes.names().cloned());
        }
        v
    }

    fn suggest(&self, name: &str, extra: &[&str]) -> Option<String> {
        let names = self.visible_names();
        closest(
            name,
            names
                .iter()
                .map(String::as_str)
                .chain(extra.iter().copied()),
        )
        .map(str::to_string)
    }

    /// Declares a block-scope name, reporting a redefinition in the same scope.
    fn declare_local_name(&mut self, name: &str, sym: Sym, span: Span) {
        let Some(fx) = self.fx.as_mut() else { return };
        if let Some(prev) = fx.scopes.declared_here(name) {
            self.push(
                Diagnostic::error(span, format!("redefinition of `{name}`"))
                    .with_label("already declared in this scope")
                    .with_secondary(prev, "first declared here")
                    .with_help("rename one of them, or move this one into an inner block"),
            );
            return;
        }
        fx.scopes.declare(name, sym, span);
    }

    /// Creates a local of the current function and brings it into scope.
    fn new_local(&mut self, name: &str, ty: CType, is_const: bool, span: Span) -> LocalId {
        let Some(fx) = self.fx.as_mut() else {
            return LocalId(0);
        };
        let id = LocalId(fx.locals.len() as u32);
        let address_taken = matches!(ty, CType::Array(..));
        fx.locals.push(hir::Local {
            name: name.to_string(),
            ty,
            address_taken,
            span,
        });
        let pfor_depth = fx.pfors.len();
        fx.local_info.push(LocalInfo {
            is_const,
            pfor_depth,
        });
        if !name.is_empty() {
            self.declare_local_name(name, Sym::Local(id), span);
        }
        id
    }

    fn push_scope(&mut self) {
        if let Some(fx) = self.fx.as_mut() {
            fx.scopes.push();
            fx.tags.push(HashMap::new());
            fx.vla_marks.push(fx.vlas.len());
        }
    }

    /// The name local `id` was declared with.
    fn local_name(&self, id: LocalId) -> String {
        self.fx()
            .and_then(|f| f.locals.get(id.0 as usize))
            .map(|l| l.name.clone())
            .unwrap_or_default()
    }

    /// Puts variable-length array `id`, declared at `span`, in scope
    /// until the end of the block.
    fn enter_vla_scope(&mut self, id: LocalId, span: Span) {
        if let Some(fx) = self.fx.as_mut() {
            fx.vlas.push((id, span));
        }
    }

    fn pop_scope(&mut self) {
        if let Some(fx) = self.fx.as_mut() {
            fx.scopes.pop();
            fx.tags.pop();
            if let Some(n) = fx.vla_marks.pop() {
                fx.vlas.truncate(n);
            }
        }
    }

    /// The type a typedef name stands for.
    fn typedef_type(&self, id: TypedefId) -> CType {
        self.typedefs
            .get(id.0 as usize)
            .cloned()
            .unwrap_or_else(err_ty)
    }
}

/// `const int n` is a constant variable; `const char *s` is a variable
/// pointing to constant characters (ParC checks `const` only on variables).
fn var_is_const(d: &ast::Decl, decl: &ast::Declarator) -> bool {
    decl.type_name(&d.ty).is_const_object()
}
