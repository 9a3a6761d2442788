//! The generator of random valid ParC programs. The crate documentation
//! (`lib.rs`) states the guarantees; the comments here say how each piece
//! keeps them.
//!
//! Programs are produced as text while the generator tracks, in a [`Ctx`],
//! every variable in scope with its C shape and with what the current
//! strand may do to it ([`Access`]). Every expression is built bottom-up as
//! an [`E`] that knows its exact C type and, for floating values, a bound on
//! its magnitude; every statement knows an estimate of the work it does.
//!
//! This file holds the types and the generator's state; the program, its
//! expressions, places, calls, statements and parallel statements are
//! generated in the files of those names beside it.

mod calls;
mod expr;
mod parallel;
mod places;
mod program;
mod stmt;

use crate::rng::Rng;

/// Largest magnitude of a floating value ever stored: in a variable, an
/// array element, a field, a parameter, a spawn target or a return value.
/// Loads of floating values may therefore assume this bound.
const STORED: f64 = 1e6;
/// Largest magnitude a floating expression may reach before it is clamped.
/// Products of two such values (1e24) are still far from overflow, even in
/// `float` (3.4e38), so no intermediate result is ever infinite or NaN.
const EXPR: f64 = 1e12;
/// Work budgets, in rough units of executed IR operations. They keep every
/// program well under a few milliseconds in the interpreter.
const MAIN_BUDGET: u64 = 60_000;
const FN_BUDGET: u64 = 3_000;
/// Leaf length of the divide-and-conquer templates times the longest range
/// they are called on, for their cost estimates.
const MAX_RANGE: u64 = 32;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ty {
    Bool,
    Char,
    Int,
    UInt,
    Long,
    ULong,
    Float,
    Double,
}

impl Ty {
    const ALL: [Ty; 8] = [
        Ty::Bool,
        Ty::Char,
        Ty::Int,
        Ty::UInt,
        Ty::Long,
        Ty::ULong,
        Ty::Float,
        Ty::Double,
    ];

    fn c(self) -> &'static str {
        match self {
            Ty::Bool => "bool",
            Ty::Char => "char",
            Ty::Int => "int",
            Ty::UInt => "unsigned",
            Ty::Long => "long",
            Ty::ULong => "unsigned long",
            Ty::Float => "float",
            Ty::Double => "double",
        }
    }

    fn is_float(self) -> bool {
        matches!(self, Ty::Float | Ty::Double)
    }

    fn is_signed(self) -> bool {
        matches!(self, Ty::Char | Ty::Int | Ty::Long)
    }

    /// The type C's integer promotions give an operand of this type.
    fn promoted(self) -> Ty {
        match self {
            Ty::Bool | Ty::Char => Ty::Int,
            t => t,
        }
    }

    /// Whether shifts of a value of this type need amounts below 64 (not 32).
    fn is_wide(self) -> bool {
        matches!(self.promoted(), Ty::Long | Ty::ULong)
    }

    /// Largest magnitude of a value of this type (for integer-to-floating
    /// conversions); floating values are bounded by what is stored.
    fn bound(self) -> f64 {
        match self {
            Ty::Bool => 1.0,
            Ty::Char => 128.0,
            Ty::Int => 2_147_483_648.0,
            Ty::UInt => 4_294_967_296.0,
            Ty::Long | Ty::ULong => 18_446_744_073_709_551_616.0,
            Ty::Float | Ty::Double => STORED,
        }
    }

    fn printf(self) -> &'static str {
        match self {
            Ty::Bool | Ty::Char | Ty::Int => "%d",
            Ty::UInt => "%u",
            Ty::Long => "%ld",
            Ty::ULong => "%lu",
            Ty::Float | Ty::Double => "%.17g",
        }
    }

    /// Integer literal suffix.
    fn suffix(self) -> &'static str {
        match self {
            Ty::UInt => "U",
            Ty::Long => "L",
            Ty::ULong => "UL",
            _ => "",
        }
    }

    /// Suffix of the `math.h` function variant (`sqrtf` for float).
    fn fsuffix(self) -> &'static str {
        if self == Ty::Float { "f" } else { "" }
    }
}

/// A floating constant of the given type as C text (parenthesized when
/// negative so that it can follow any operator).
fn flit(v: f64, t: Ty) -> String {
    let mut s = format!("{v:?}");
    if t == Ty::Float {
        s.push('f');
    }
    if s.starts_with('-') {
        format!("({s})")
    } else {
        s
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Field {
    S(Ty),
    Arr(Ty, u32),
    St(usize),
}

#[derive(Clone, Debug)]
struct StructDef {
    name: String,
    fields: Vec<(String, Field)>,
}

/// Element of an array: a scalar or a struct.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Elem {
    S(Ty),
    St(usize),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shape {
    Scalar(Ty),
    Struct(usize),
    /// An array object, or a pointer to `len` elements (parameters, aliases).
    Array(Elem, u32),
}

/// The elements of an array the current strand may touch.
#[derive(Clone, Debug, PartialEq)]
enum Span {
    All,
    /// Elements `base .. base + width`; `base` is C text (it names the
    /// `parallel_for` index that makes the range this iteration's own).
    Sub(String, u32),
}

/// What the current strand may do with a variable. Races are excluded by
/// construction: a `parallel_for` body gets `Write` only on its own
/// disjoint slice of the arrays it writes and `Read` on everything else it
/// shares; a spawn's continuation loses all access to what the spawned call
/// writes and write access to what it reads, until the `sync`.
#[derive(Clone, Debug, PartialEq)]
enum Access {
    None,
    Read(Span),
    Write(Span),
}

impl Access {
    fn readable(&self) -> Option<&Span> {
        match self {
            Access::Read(s) | Access::Write(s) => Some(s),
            Access::None => None,
        }
    }

    fn writable(&self) -> Option<&Span> {
        match self {
            Access::Write(s) => Some(s),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Role {
    /// An ordinary variable.
    Plain,
    /// Never assigned after its declaration: loop indices (their loops
    /// terminate because nothing else changes them), loop bounds, recursion
    /// depths, the seed.
    Fixed,
    /// Changed only by side effects in the right operand of `&&`/`||`, and
    /// never read by generated expressions, so such a side effect can never
    /// be unsequenced with a read of the same variable.
    Counter,
}

#[derive(Clone, Debug)]
struct Var {
    name: String,
    shape: Shape,
    /// Storage identity: a pointer alias has its target's root.
    root: usize,
    access: Access,
    role: Role,
    /// Known value range of a `Fixed` integer (indices used unguarded).
    range: Option<(i64, i64)>,
    /// The name denotes a pointer rather than an array object (parameters,
    /// aliases): `*p` and `p->f` forms apply, `sizeof` does not.
    is_ptr: bool,
    /// For an alias `p = base + offset`: `p - base` is a valid difference.
    ptr_of: Option<(String, u32)>,
    global: bool,
}

impl Var {
    fn new(name: String, shape: Shape, root: usize, access: Access, role: Role) -> Var {
        Var {
            name,
            shape,
            root,
            access,
            role,
            range: None,
            is_ptr: false,
            ptr_of: None,
            global: false,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Param {
    /// `int d`: recursion depth; callers pass 0..=3, the body recurses
    /// with `d - 1` and stops at `d <= 0`.
    Depth,
    S(Ty),
    /// A struct by value.
    SVal(usize),
    /// A pointer to at least `len` elements the function only reads.
    In(Elem, u32),
    /// A pointer to `len` elements the function may read and write.
    Out(Elem, u32),
    /// `(T *p, int lo, int hi)`: reads `p[lo..hi)`.
    InRange(Ty),
    /// `(T *p, int lo, int hi)`: writes `p[lo..hi)`.
    OutRange(Ty),
}

#[derive(Clone, Debug)]
struct Func {
    name: String,
    params: Vec<Param>,
    ret: Option<Ty>,
    /// Estimated work of one call, recursion included.
    cost: u64,
    /// Reads and writes globals: called only as a statement from `main`'s
    /// serial code while no global is shared with a spawned call.
    bump: bool,
}

impl Func {
    /// Writes nothing its caller can see: callable inside expressions, in
    /// any order with anything else.
    fn is_pure(&self) -> bool {
        !self.bump
            && !self
                .params
                .iter()
                .any(|p| matches!(p, Param::Out(..) | Param::OutRange(_)))
    }
}

/// An expression: C text of exactly type `ty`; `b` bounds the magnitude of
/// a floating value; `cost` estimates its work.
#[derive(Clone, Debug)]
struct E {
    s: String,
    ty: Ty,
    b: f64,
    cost: u64,
}

/// A scalar lvalue.
struct Place {
    s: String,
    ty: Ty,
    cost: u64,
}

#[derive(Clone)]
struct Ctx {
    scopes: Vec<Vec<Var>>,
    /// `break`/`continue` would leave a serial loop of this strand.
    in_loop: bool,
    /// `return` is allowed (a function, outside parallel bodies and spawn
    /// continuations).
    can_return: bool,
    ret: Option<Ty>,
    /// Enclosing loops (serial and parallel) and `parallel_for`s.
    loop_depth: u32,
    pfor_depth: u32,
    /// Block nesting.
    depth: u32,
    /// Functions `0..callable` are defined above and may be called.
    callable: usize,
    /// Global-touching functions may be called: in `main`, serially, with
    /// no global shared with an outstanding spawn.
    globals_free: bool,
    /// The function being generated may call itself (with `d - 1`).
    rec: bool,
}

impl Ctx {
    fn vars(&self) -> impl Iterator<Item = &Var> {
        self.scopes.iter().flat_map(|s| s.iter())
    }

    fn declare(&mut self, v: Var) {
        self.scopes
            .last_mut()
            .expect("a context always has a scope")
            .push(v);
    }

    fn vars_mut(&mut self) -> impl Iterator<Item = &mut Var> {
        self.scopes.iter_mut().flat_map(|s| s.iter_mut())
    }

    /// A spawned call writes (`exclusive`) or reads the object `root`: the
    /// continuation may not touch it, or may only read it, until `sync`.
    fn lock(&mut self, root: usize, exclusive: bool) {
        let mut global = false;
        for v in self.vars_mut() {
            if v.root == root {
                global |= v.global;
                v.access = match &v.access {
                    _ if exclusive => Access::None,
                    Access::Write(s) => Access::Read(s.clone()),
                    a => a.clone(),
                };
            }
        }
        if global {
            self.globals_free = false;
        }
    }
}

fn indent(lines: Vec<String>) -> Vec<String> {
    lines
        .into_iter()
        .map(|l| if l.is_empty() { l } else { format!("    {l}") })
        .collect()
}

/// `{`, the lines indented, `}` appended to `out` after `head` (which ends
/// with the statement's header, e.g. `if (c)`).
fn braced(out: &mut Vec<String>, head: String, body: Vec<String>) {
    out.push(format!("{head} {{"));
    out.extend(indent(body));
    out.push("}".into());
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// An index expression in `0..n` from any integer expression.
fn guard(e: &str, n: u32) -> String {
    if n <= 1 {
        "0".into()
    } else if n.is_power_of_two() {
        format!("(({e}) & {})", n - 1)
    } else {
        // Through `unsigned`: `%` of a negative value would be negative.
        format!("((unsigned)({e}) % {n}U)")
    }
}

fn join_index(base: &str, off: &str) -> String {
    if base.is_empty() {
        off.to_string()
    } else if off == "0" {
        base.to_string()
    } else {
        format!("{base} + {off}")
    }
}

fn elem_c(elem: Elem, structs: &[StructDef]) -> String {
    match elem {
        Elem::S(t) => t.c().to_string(),
        Elem::St(s) => format!("struct {}", structs[s].name),
    }
}

pub(crate) struct Gen {
    rng: Rng,
    names: u32,
    roots: usize,
    structs: Vec<StructDef>,
    funcs: Vec<Func>,
    /// Signature of the function being generated (for recursive calls).
    current: Option<Func>,
    /// Recursive call sites the current function may still get: at most
    /// two, outside loops, so a call with depth `d <= 3` makes at most 15
    /// calls in all.
    rec_sites: u32,
    /// Calls costlier than this are not generated in expressions.
    expr_budget: u64,
    /// The recursion-depth parameter of the current function.
    depth_name: String,
    /// The argument `main` is run with.
    arg: i64,
    /// Index expressions being generated inside one another.
    index_nesting: u32,
}

/// The program text and the argument its `main` is run with.
pub(crate) fn generate(seed: u64) -> (String, i64) {
    let mut g = Gen {
        rng: Rng::new(seed),
        names: 0,
        roots: 0,
        structs: Vec::new(),
        funcs: Vec::new(),
        current: None,
        rec_sites: 0,
        expr_budget: 0,
        depth_name: String::new(),
        arg: 0,
        index_nesting: 0,
    };
    g.program(seed)
}

impl Gen {
    fn name(&mut self, prefix: &str) -> String {
        self.names += 1;
        format!("{prefix}{}", self.names)
    }

    fn root(&mut self) -> usize {
        self.roots += 1;
        self.roots
    }

    fn ty(&mut self) -> Ty {
        // Bool, Char, Int, UInt, Long, ULong, Float, Double.
        Ty::ALL[self.rng.weighted(&[5, 6, 30, 10, 15, 8, 6, 20])]
    }

    fn int_ty(&mut self) -> Ty {
        Ty::ALL[self.rng.weighted(&[0, 4, 40, 12, 20, 10, 0, 0])]
    }
}

/// Arguments of a call: texts in parameter order, and the roots of the
/// arrays it writes and reads.
struct Args {
    texts: Vec<String>,
    outs: Vec<usize>,
    ins: Vec<usize>,
    cost: u64,
}

impl Args {
    fn into_text(self) -> (String, u64) {
        (self.texts.join(", "), self.cost)
    }
}
