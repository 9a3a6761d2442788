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
//! - here: file scope — struct, global and function declarations in order
//!   (C has no implicit declarations; conflicting or duplicate declarations),
//!   block scopes and shadowing, `main`'s signature, and whole-program rules
//!   (host functions called from kernels must not fork).
//! - `types`: written types, struct layouts (x86-64), C's promotions, usual
//!   arithmetic conversions and simple-assignment constraints.
//! - `expr`: every operator (pointer arithmetic, lvalues, `const`, decay,
//!   casts, `sizeof`), GPU indices, and the determinacy races the compiler
//!   can see: in a `parallel_for` body, assigning a variable declared outside
//!   the body (or a global), or writing unconditionally to a location that is
//!   the same in every iteration (`a[0]`, `*p`); and using the target of
//!   `x = spawn f()` before `sync`.
//! - `consts`: integer constant expressions and constant initializers.
//! - `init`: initializers (scalars, nested brace lists with elision, strings
//!   for `char` arrays, `dim3` constructors).
//! - `stmt`: statements, loops, `break`/`continue`/`return` placement,
//!   `spawn`/`sync`, the canonical form of `parallel_for`, `__shared__`.
//! - `calls`: calls of user functions and builtins, kernel launches and the
//!   CUDA runtime calls.
//! - `printf`: `printf` format strings against their arguments.
//! - `enzyme`: `__enzyme_autodiff` by Enzyme's activity rules.
//!
//! Extensions to C99: `const`
//! integer globals count as integer constants (array sizes, initializers);
//! `parallel_for` also accepts `hi > i` and `hi >= i`; `dim3` converts from
//! an integer and a declared `dim3` starts as (1, 1, 1), as in CUDA.
//!
//! The error type is `struct <error>`, a [`CType::Struct`] with an id no real
//! struct has; it never reaches a returned [`hir::Program`], because any
//! error makes [`check`] return `None`.

mod calls;
mod consts;
mod decls;
mod enzyme;
mod expr;
mod fpclass;
mod init;
mod jumps;
mod omp;
mod printf;
mod stmt;
#[cfg(test)]
mod tests;
mod types;
mod vla;

pub use enzyme::{Activity, AdArg, AutodiffCall, default_activity};

use std::collections::HashMap;

use crate::ast::{self, Span};
use crate::diag::Diagnostic;
use crate::hir::{self, CType, FuncKind, FuncRef, GlobalVarId, LocalId, StructId};

/// Checks a parsed program. Returns the HIR when no error was reported
/// (warnings may be present).
pub fn check(program: &ast::Program) -> (Option<hir::Program>, Vec<Diagnostic>) {
    check_program(program, true, false)
}

/// [`check`] for a library or an object file: the program need not define
/// `main` (one it does define is checked as always).
pub fn check_library(program: &ast::Program) -> (Option<hir::Program>, Vec<Diagnostic>) {
    check_program(program, false, false)
}

/// [`check_library`] for one file of a program of several: a function it
/// declares may be defined, as ParC, by another file, so the rule on
/// struct-by-value C functions (`check_extern_signatures`) is left to the
/// driver, which sees the linked program.
pub fn check_part(program: &ast::Program) -> (Option<hir::Program>, Vec<Diagnostic>) {
    check_program(program, false, true)
}

fn check_program(
    program: &ast::Program,
    require_main: bool,
    part: bool,
) -> (Option<hir::Program>, Vec<Diagnostic>) {
    // The walks recurse once per nesting level, and the parser allows deep
    // trees (`parse::MAX_CHAIN` statements, each with as many operators);
    // run them on a thread whose stack holds any tree the parser returns.
    // The memory is only reserved, not used, unless a program is that deep.
    let spawned = std::thread::scope(|s| {
        let handle = std::thread::Builder::new()
            .name("parc-check".into())
            .stack_size(CHECK_STACK)
            .spawn_scoped(s, || check_here(program, require_main, part));
        match handle {
            Ok(h) => Some(h.join().unwrap_or_else(|_| {
                let d = Diagnostic::error(Span::default(), "internal error: the checker failed");
                (None, vec![d])
            })),
            Err(_) => None,
        }
    });
    // Without a thread (no memory for its stack), check on this one.
    spawned.unwrap_or_else(|| check_here(program, require_main, part))
}

/// Stack for the checker's thread (see [`check`]): 10,000 nested
/// statements or operators need about 32 MiB in a debug build.
const CHECK_STACK: usize = 256 << 20;

/// [`check`] on the current thread.
fn check_here(
    program: &ast::Program,
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
    scopes: Vec<HashMap<String, (Sym, Span)>>,
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
    /// The C library functions ([`parc_ir::CFn`]) declared so far, with
    /// the C types of their prototypes (a shipped header's or the
    /// program's own).
    libc_decls: HashMap<String, calls::Decl>,
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
        if let Some(fx) = &self.fx {
            for scope in fx.scopes.iter().rev() {
                if let Some((s, _)) = scope.get(name) {
                    return Some(*s);
                }
            }
        }
        self.file_syms.get(name).copied()
    }

    /// Every name visible here, for suggestions.
    fn visible_names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.file_syms.keys().cloned().collect();
        if let Some(fx) = &self.fx {
            for scope in &fx.scopes {
                v.extend(scope.keys().cloned());
            }
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
        let Some(scope) = fx.scopes.last_mut() else {
            return;
        };
        if let Some((_, prev)) = scope.get(name) {
            let prev = *prev;
            self.push(
                Diagnostic::error(span, format!("redefinition of `{name}`"))
                    .with_label("already declared in this scope")
                    .with_secondary(prev, "first declared here")
                    .with_help("rename one of them, or move this one into an inner block"),
            );
            return;
        }
        scope.insert(name.to_string(), (sym, span));
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
            fx.scopes.push(HashMap::new());
            fx.tags.push(HashMap::new());
        }
    }

    fn pop_scope(&mut self) {
        if let Some(fx) = self.fx.as_mut() {
            fx.scopes.pop();
            fx.tags.pop();
        }
    }

    // ---------------------------------------------------------------- items

    fn program(&mut self, p: &ast::Program) {
        for item in &p.items {
            match item {
                ast::Item::Func(f) => {
                    self.funcs_ahead
                        .entry(f.name.name.clone())
                        .or_insert(f.name.span);
                }
                ast::Item::Global(d) => {
                    if let ast::TypeSpec::Record(r) = &d.ty.spec
                        && let (Some(tag), Some(_)) = (&r.tag, &r.fields)
                    {
                        self.structs_ahead
                            .entry(tag.name.clone())
                            .or_insert(tag.span);
                    }
                }
            }
        }
        for item in &p.items {
            match item {
                ast::Item::Global(d) => self.global_decl(d),
                ast::Item::Func(f) => self.func_item(f),
            }
        }
        self.check_main();
        self.check_gpu_calls();
        if !self.part {
            self.check_extern_signatures();
        }
    }

    /// The type a typedef name stands for.
    fn typedef_type(&self, id: TypedefId) -> CType {
        self.typedefs
            .get(id.0 as usize)
            .cloned()
            .unwrap_or_else(err_ty)
    }

    fn func_item(&mut self, f: &ast::FuncDef) {
        let name = f.name.name.as_str();
        let q = f.quals;
        let kind = if q.is_global {
            FuncKind::Kernel
        } else if q.is_device {
            FuncKind::Device
        } else {
            FuncKind::Host
        };
        if q.is_global && q.is_device {
            self.push(
                Diagnostic::error(
                    f.name.span,
                    format!(
                        "`{name}` cannot be both \
                    `__global__` and `__device__`"
                    ),
                )
                .with_label("two GPU qualifiers")
                .with_help(
                    "`__global__` declares a kernel launched from the host; \
                        `__device__` a helper called from kernels",
                ),
            );
        }
        if q.is_shared {
            self.push(
                Diagnostic::error(
                    f.name.span,
                    "`__shared__` applies to variables, not functions",
                )
                .with_label("a function"),
            );
        }
        let ret = self.resolve_type(&f.ret);
        if kind == FuncKind::Kernel && ret != CType::Void && !is_err(&ret) {
            self.push(
                Diagnostic::error(f.ret.span, "kernels must return `void`")
                    .with_label(format!("`{name}` returns `{}`", self.ty_name(&ret)))
                    .with_help("write results through a pointer argument"),
            );
        }
        if matches!(ret, CType::Struct(_)) && f.body.is_some() {
            self.require_complete(&ret, f.ret.span, &format!("the result of `{name}`"));
        }
        let params = self.param_list(&f.params, f.body.is_some());

        if f.variadic && f.body.is_some() {
            self.push(
                Diagnostic::error(
                    f.name.span,
                    format!("`{name}` is defined with `...`: defining variadic functions is not supported"),
                )
                .with_label("variadic")
                .with_help(
                    "declare it here and define it in C (parc calls variadic C functions), \
                        or pass an array and a count instead",
                ),
            );
            return;
        }
        if calls::is_builtin_name(name) {
            if f.body.is_some() {
                self.push(
                    Diagnostic::error(f.name.span, format!("redefinition of builtin `{name}`"))
                        .with_label("ParC provides this function")
                        .with_help("rename your function"),
                );
            } else {
                let tys: Vec<CType> = params.iter().map(|p| p.0.clone()).collect();
                self.builtin_prototype(name, &ret, &tys, f.span);
            }
            return;
        }

        if self.declared_as_other_kind(&f.name) {
            return;
        }
        let fref = match self.file_syms.get(name).copied() {
            Some(Sym::Func(fr)) => {
                let prev = &self.funcs[fr.0 as usize];
                let same = types::compatible(&prev.ret, &ret)
                    && prev.kind == kind
                    && prev.variadic == f.variadic
                    && prev.params.len() == params.len()
                    && prev.params.iter().zip(&params).all(|(l, p)| {
                        prev.locals
                            .get(l.0 as usize)
                            .is_some_and(|l| types::compatible(&l.ty, &p.0) || is_err(&p.0))
                    });
                let info = &self.func_info[fr.0 as usize];
                if !same && !is_err(&ret) {
                    let prev_sig = self.signature(fr);
                    let ps: Vec<String> = params.iter().map(|p| self.ty_name(&p.0)).collect();
                    let ps = if ps.is_empty() {
                        "void".to_string()
                    } else {
                        ps.join(", ")
                    };
                    let new_sig = format!("{} {name}({ps})", self.ty_name(&ret));
                    let decl = info.decl_span;
                    self.push(
                        Diagnostic::error(f.name.span, format!("conflicting types for `{name}`"))
                            .with_label(format!("declared here as `{new_sig}`"))
                            .with_secondary(decl, format!("previously declared as `{prev_sig}`"))
                            .with_help("make the declarations agree"),
                    );
                    return;
                }
                if f.body.is_some()
                    && let Some(def) = info.def_span
                {
                    self.push(
                        Diagnostic::error(f.name.span, format!("redefinition of `{name}`"))
                            .with_label("defined again here")
                            .with_secondary(def, "first defined here")
                            .with_help("remove one of the definitions, or rename one"),
                    );
                    return;
                }
                fr
            }
            Some(Sym::Global(g)) => {
                let span = self.globals[g.0 as usize].span;
                self.other_kind(
                    name,
                    f.name.span,
                    span,
                    "a global variable with this name is declared here",
                );
                return;
            }
            _ => {
                let fr = FuncRef(self.funcs.len() as u32);
                self.funcs.push(hir::Func {
                    name: name.to_string(),
                    ret: ret.clone(),
                    params: Vec::new(),
                    restrict_params: Vec::new(),
                    locals: Vec::new(),
                    kind,
                    is_static: q.is_static,
                    variadic: f.variadic,
                    body: None,
                    span: f.span,
                });
                self.func_info.push(FuncInfo {
                    decl_span: f.name.span,
                    def_span: None,
                    param_names: Vec::new(),
                    param_spans: Vec::new(),
                    fork_join: None,
                });
                self.file_syms.insert(name.to_string(), Sym::Func(fr));
                fr
            }
        };

        // Parameters become the first locals; a definition's names win.
        let fx = FnCtx {
            name: name.to_string(),
            ret: ret.clone(),
            kind,
            locals: Vec::new(),
            local_info: Vec::new(),
            scopes: vec![HashMap::new()],
            tags: vec![HashMap::new()],
            loops: Vec::new(),
            pfors: Vec::new(),
            pfor_count: 0,
            labels: HashMap::new(),
            switches: Vec::new(),
            label_count: 0,
            fork_join: None,
            pending: Vec::new(),
            teams: Vec::new(),
        };
        // Functions do not nest, so there is no outer context to restore.
        self.fx = Some(fx);
        self.reported_unknown.clear();
        let mut param_ids = Vec::new();
        for ((ty, pname, span), p) in params.iter().zip(&f.params) {
            let id = if f.body.is_some() {
                // `const int n` makes the parameter read-only in the body.
                let is_const = p.ty.is_const_object();
                // `double A[n][m]`: the lengths name earlier parameters.
                let ty = self.redo_variable_param(ty, p);
                self.new_local(pname, ty, is_const, *span)
            } else {
                // Prototypes: parameter names have no scope.
                self.new_local("", ty.clone(), false, *span)
            };
            param_ids.push(id);
        }
        let idx = fref.0 as usize;
        if f.body.is_some() || self.func_info[idx].def_span.is_none() {
            self.func_info[idx].param_names = params.iter().map(|p| p.1.clone()).collect();
            self.func_info[idx].param_spans = params.iter().map(|p| p.2).collect();
        }
        // The parameters are known before the body, which may recurse.
        if f.body.is_some() || self.func_info[idx].def_span.is_none() {
            self.funcs[idx].params = param_ids.clone();
            self.funcs[idx].locals = self.fx().map(|fx| fx.locals.clone()).unwrap_or_default();
        }
        // The parameters' variable lengths are evaluated on entry.
        let lengths = self.take_vla_lengths();
        let body = f.body.as_ref().map(|b| {
            self.func_info[idx].def_span = Some(f.name.span);
            self.funcs[idx].span = f.span;
            let mut body = lengths;
            body.extend(self.block_stmts(&b.stmts));
            body
        });
        self.check_labels();
        let Some(fx) = self.fx.take() else { return };
        self.reported_unknown.clear();
        if body.is_some() || self.funcs[idx].body.is_none() {
            let func = &mut self.funcs[idx];
            func.params = param_ids;
            func.restrict_params = (0u32..)
                .zip(&f.params)
                .filter(|(_, p)| p.ty.is_restrict())
                .map(|(i, _)| i)
                .collect();
            func.locals = fx.locals;
            func.is_static |= q.is_static;
            if body.is_some() {
                func.body = body;
            }
            self.func_info[idx].fork_join = self.func_info[idx].fork_join.or(fx.fork_join);
        }
    }

    /// `double sqrt(double)` for messages.
    fn signature(&self, f: FuncRef) -> String {
        let func = &self.funcs[f.0 as usize];
        let params: Vec<String> = func
            .params
            .iter()
            .filter_map(|l| func.locals.get(l.0 as usize))
            .map(|l| self.ty_name(&l.ty))
            .collect();
        let params = if params.is_empty() {
            "void".to_string()
        } else {
            params.join(", ")
        };
        format!("{} {}({params})", self.ty_name(&func.ret), func.name)
    }

    // -------------------------------------------------------------- globals

    fn global_decl(&mut self, d: &ast::Decl) {
        let q = d.quals;
        if q.is_shared {
            self.push(
                Diagnostic::error(
                    d.span,
                    "`__shared__` variables can only be declared inside kernels",
                )
                .with_label("a file-scope `__shared__` variable")
                .with_help("declare it at the top of the `__global__` function that uses it"),
            );
        }
        if q.is_global || q.is_device {
            self.push(
                Diagnostic::error(
                    d.span,
                    "`__global__` and `__device__` apply to functions, not variables",
                )
                .with_label("a variable")
                .with_help("remove the qualifier; the variable is visible to host code"),
            );
        }
        if q.is_typedef {
            self.typedef_decl(d);
            return;
        }
        if d.declarators.is_empty() {
            // `struct S { ... };` or `struct S;`: declares the type only.
            self.tag_declaration(&d.ty.spec);
            return;
        }
        for decl in &d.declarators {
            self.global_declarator(d, decl);
        }
    }

    /// `typedef T a, *b;` (at file or block scope).
    pub(super) fn typedef_decl(&mut self, d: &ast::Decl) {
        let base = self.resolve_spec(&d.ty.spec);
        for decl in &d.declarators {
            let ty = self.declarator_type(&base, decl);
            let id = TypedefId(self.typedefs.len() as u32);
            self.typedefs.push(ty.clone());
            self.declare_typedef(&decl.name, ty, id);
        }
    }

    /// A global variable named like a builtin function is an error;
    /// returns whether `name` is one.
    fn refuse_builtin_name(&mut self, name: &str, at: Span) -> bool {
        if !calls::is_builtin_name(name) {
            return false;
        }
        self.push(
            Diagnostic::error(at, format!("`{name}` is the name of a builtin function"))
                .with_label("a builtin's name")
                .with_help("choose another name for the variable"),
        );
        true
    }

    /// `name` at `at` redeclares, as another kind of thing, what `prev`
    /// declared (`what` says what is there).
    fn other_kind(&mut self, name: &str, at: Span, prev: Span, what: &str) {
        self.push(
            Diagnostic::error(
                at,
                format!("redefinition of `{name}` as a different kind of symbol"),
            )
            .with_label("redeclared here")
            .with_secondary(prev, what.to_string()),
        );
    }

    /// Reports a file-scope name declared before as a type name or an
    /// enumeration constant; true if there was one.
    fn declared_as_other_kind(&mut self, name: &ast::Ident) -> bool {
        let what = match self.file_syms.get(&name.name) {
            Some(Sym::Typedef(_)) => "a type name",
            Some(Sym::EnumConst(_)) => "an enumeration constant",
            _ => return false,
        };
        let mut d = Diagnostic::error(
            name.span,
            format!("redefinition of `{name}` as a different kind of symbol"),
        )
        .with_label("redeclared here");
        if let Some(at) = self.file_sym_spans.get(&name.name) {
            d = d.with_secondary(*at, format!("declared as {what} here"));
        }
        self.push(d);
        true
    }

    fn global_declarator(&mut self, d: &ast::Decl, decl: &ast::Declarator) {
        let name = decl.name.name.as_str();
        if d.quals.is_extern && decl.init.is_none() {
            self.extern_declarator(d, decl);
            return;
        }
        let (ty, init) = self.object_type_and_init(d, decl, |_, _| {});
        let is_const = var_is_const(d, decl);
        let init = init.map(|i| self.const_init(&i, name));
        if self.declared_as_other_kind(&decl.name) {
            return;
        }
        if let Some(sym) = self.file_syms.get(name).copied() {
            match sym {
                Sym::Global(g) => {
                    let gi = g.0 as usize;
                    let prev_ty = self.globals[gi].ty.clone();
                    if self.globals[gi].is_extern && types::compatible(&prev_ty, &ty) {
                        // `extern int x;` then `int x = 1;`: this defines it.
                        self.globals[gi].is_extern = false;
                        self.globals[gi].ty = ty.clone();
                    }
                    if !types::compatible(&prev_ty, &ty) && !is_err(&ty) && !is_err(&prev_ty) {
                        let prev = self.globals[gi].span;
                        let msg = format!(
                            "conflicting types for `{name}`: `{}` here, `{}` before",
                            self.ty_name(&ty),
                            self.ty_name(&prev_ty)
                        );
                        self.push(
                            Diagnostic::error(decl.name.span, msg)
                                .with_secondary(prev, "previously declared here"),
                        );
                        return;
                    }
                    if let Some(init) = init {
                        if let Some(first) = self.global_info[gi].defined_at {
                            self.push(
                                Diagnostic::error(
                                    decl.name.span,
                                    format!("redefinition of `{name}`"),
                                )
                                .with_label("defined again here")
                                .with_secondary(first, "first defined here"),
                            );
                            return;
                        }
                        self.global_info[gi].defined_at = Some(decl.name.span);
                        self.globals[gi].init = Some(init);
                    }
                }
                Sym::Func(f) => {
                    let span = self.func_info[f.0 as usize].decl_span;
                    self.other_kind(
                        name,
                        decl.name.span,
                        span,
                        "a function with this name is declared here",
                    );
                }
                Sym::Local(_) | Sym::Typedef(_) | Sym::EnumConst(_) => {}
            }
            return;
        }
        self.refuse_builtin_name(name, decl.name.span);
        let g = GlobalVarId(self.globals.len() as u32);
        self.global_info.push(GlobalInfo {
            defined_at: init.as_ref().map(|_| decl.name.span),
        });
        self.globals.push(hir::GlobalVar {
            name: name.to_string(),
            ty,
            is_const,
            is_shared: false,
            is_extern: false,
            init,
            span: decl.name.span,
        });
        self.file_syms.insert(name.to_string(), Sym::Global(g));
    }

    /// `extern T x;` (at file or block scope): declares a global defined
    /// elsewhere, or refers to the one declared before. Its type may be
    /// incomplete; a definition later in the file completes it.
    pub(super) fn extern_declarator(&mut self, d: &ast::Decl, decl: &ast::Declarator) {
        let name = decl.name.name.as_str();
        let base = self.resolve_spec(&d.ty.spec);
        let ty = self.declarator_type(&base, decl);
        if is_err(&ty) {
            return;
        }
        if let CType::Func(_) = ty {
            // `extern int f(int);` in a block: parse reports it.
            return;
        }
        if ty == CType::Void {
            self.require_complete(&ty, decl.name.span, &format!("variable `{name}`"));
            return;
        }
        let local = self.fx.is_some();
        if !local && self.declared_as_other_kind(&decl.name) {
            return;
        }
        let g = match self.file_syms.get(name).copied() {
            Some(Sym::Global(g)) => {
                let gi = g.0 as usize;
                let prev_ty = self.globals[gi].ty.clone();
                if !types::compatible(&prev_ty, &ty) {
                    let msg = format!(
                        "conflicting types for `{name}`: `{}` here, `{}` before",
                        self.ty_name(&ty),
                        self.ty_name(&prev_ty)
                    );
                    let prev = self.globals[gi].span;
                    self.push(
                        Diagnostic::error(decl.name.span, msg)
                            .with_secondary(prev, "previously declared here"),
                    );
                    return;
                }
                // `extern int a[10];` after `extern int a[];` knows more.
                if !self.is_complete(&prev_ty) && self.is_complete(&ty) {
                    self.globals[gi].ty = ty;
                }
                g
            }
            Some(Sym::Func(f)) if !local => {
                let span = self.func_info[f.0 as usize].decl_span;
                self.other_kind(
                    name,
                    decl.name.span,
                    span,
                    "a function with this name is declared here",
                );
                return;
            }
            _ => {
                if self.refuse_builtin_name(name, decl.name.span) {
                    return;
                }
                let g = GlobalVarId(self.globals.len() as u32);
                self.global_info.push(GlobalInfo { defined_at: None });
                self.globals.push(hir::GlobalVar {
                    name: name.to_string(),
                    ty,
                    is_const: var_is_const(d, decl),
                    is_shared: false,
                    is_extern: true,
                    init: None,
                    span: decl.name.span,
                });
                if !local || !self.file_syms.contains_key(name) {
                    self.file_syms.insert(name.to_string(), Sym::Global(g));
                }
                g
            }
        };
        if local {
            self.declare_local_name(name, Sym::Global(g), decl.name.span);
        }
    }

    /// A global variable created for a block-scope `__shared__` or `static`
    /// declaration, named `function.variable` (made unique).
    fn hoisted_global(&mut self, var: hir::GlobalVar) -> GlobalVarId {
        let base = format!("{}.{}", self.fx().map_or("", |f| f.name.as_str()), var.name);
        let mut name = base.clone();
        let mut n = 2;
        while self.globals.iter().any(|g| g.name == name) {
            name = format!("{base}.{n}");
            n += 1;
        }
        let g = GlobalVarId(self.globals.len() as u32);
        self.global_info.push(GlobalInfo { defined_at: None });
        self.globals.push(hir::GlobalVar { name, ..var });
        g
    }

    // ------------------------------------------------------ program checks

    fn check_main(&mut self) {
        let Some(Sym::Func(f)) = self.file_syms.get("main").copied() else {
            if !self.require_main {
                return;
            }
            self.push(
                Diagnostic::error(Span::default(), "the program has no `main` function").with_help(
                    "add `int main() { ... }`; a library (`parc build --emit lib`) needs \
                         none, and `parc check --lib` checks one",
                ),
            );
            return;
        };
        let idx = f.0 as usize;
        let Some(def) = self.func_info[idx].def_span else {
            let decl = self.func_info[idx].decl_span;
            self.push(
                Diagnostic::error(decl, "`main` is declared but never defined")
                    .with_label("declared here")
                    .with_help("add `int main() { ... }`"),
            );
            return;
        };
        let func = &self.funcs[idx];
        let tys: Vec<&CType> = func
            .params
            .iter()
            .filter_map(|l| func.locals.get(l.0 as usize))
            .map(|l| &l.ty)
            .collect();
        let argv = CType::Char.ptr_to().ptr_to();
        let params_ok =
            tys.is_empty() || (tys.len() == 2 && *tys[0] == CType::Int && *tys[1] == argv);
        if func.kind != FuncKind::Host {
            self.push(
                Diagnostic::error(def, "`main` cannot be a kernel or a `__device__` function")
                    .with_label("`main` runs on the host")
                    .with_help("remove `__global__`/`__device__` from `main`"),
            );
        } else if func.ret != CType::Int || !params_ok {
            if is_err(&func.ret) || tys.iter().any(|t| is_err(t)) {
                return;
            }
            let sig = self.signature(f);
            self.push(
                Diagnostic::error(def, "invalid signature for `main`")
                    .with_label(format!("declared as `{sig}`"))
                    .with_help(
                        "use `int main()`, `int main(void)` or `int main(int argc, char** argv)`",
                    ),
            );
        }
    }

    /// A function only declared here is defined in C: C passes a struct
    /// by value in registers or on the stack and returns a small one in
    /// registers, but ParC's calls pass and return structs through
    /// pointers (`parc_ir::cabi`), so such a call would go wrong.
    fn check_extern_signatures(&mut self) {
        for (i, f) in self.funcs.iter().enumerate() {
            let info = &self.func_info[i];
            if info.def_span.is_some() || f.kind != hir::FuncKind::Host {
                continue;
            }
            let is_struct = |ty: &CType| matches!(ty, CType::Struct(_));
            let param = f
                .params
                .iter()
                .position(|&p| f.locals.get(p.0 as usize).is_some_and(|l| is_struct(&l.ty)));
            let (span, what) = match param {
                Some(k) => (
                    info.param_spans.get(k).copied().unwrap_or(info.decl_span),
                    "takes a struct by value",
                ),
                None if is_struct(&f.ret) => (info.decl_span, "returns a struct by value"),
                None => continue,
            };
            let d = Diagnostic::error(
                span,
                format!(
                    "`{}` is not defined in this file and {what}: parc cannot call a C function that does",
                    f.name
                ),
            )
            .with_label("a struct by value")
            .with_help("pass and return a pointer to the struct instead, or define the function here");
            self.diags.push(d);
        }
    }

    /// Kernels and device functions may call plain host functions, but only
    /// ones without fork-join parallelism (GPU threads cannot spawn).
    fn check_gpu_calls(&mut self) {
        let calls = std::mem::take(&mut self.gpu_calls);
        for (callee, span) in calls {
            let info = &self.func_info[callee.0 as usize];
            if let Some(fj) = info.fork_join {
                let name = self.funcs[callee.0 as usize].name.clone();
                self.push(
                    Diagnostic::error(
                        span,
                        format!(
                            "`{name}` uses fork-join parallelism and cannot be called from GPU code"
                        ),
                    )
                    .with_label("called from GPU code here")
                    .with_secondary(fj, "the parallel construct is here")
                    .with_help(format!("write a serial version of `{name}` for kernels")),
                );
            }
        }
    }
}

/// `const int n` is a constant variable; `const char *s` is a variable
/// pointing to constant characters (ParC checks `const` only on variables).
fn var_is_const(d: &ast::Decl, decl: &ast::Declarator) -> bool {
    decl.type_name(&d.ty).is_const_object()
}
