//! The generator of random valid ParC programs. The crate documentation
//! (`lib.rs`) states the guarantees; the comments here say how each piece
//! keeps them.
//!
//! Programs are produced as text while the generator tracks, in a [`Ctx`],
//! every variable in scope with its C shape and with what the current
//! strand may do to it ([`Access`]). Every expression is built bottom-up as
//! an [`E`] that knows its exact C type and, for floating values, a bound on
//! its magnitude; every statement knows an estimate of the work it does.

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

    // ---- whole program ------------------------------------------------

    fn program(&mut self, seed: u64) -> (String, i64) {
        let arg = self.rng.range(-50, 950);
        self.arg = arg;
        let mut out = vec![
            format!(
                "// parc-fuzz program {seed}: a random valid ParC program (see fuzz/src/lib.rs)"
            ),
            format!("// args: {arg}"),
            String::new(),
        ];
        for _ in 0..self.rng.range(0, 3) {
            out.extend(self.struct_def());
            out.push(String::new());
        }
        let globals = self.globals(&mut out);
        out.push(String::new());
        let mut has_bump = false;
        for _ in 0..self.rng.range(1, 4) {
            out.extend(self.function(&globals, &mut has_bump));
            out.push(String::new());
        }
        out.extend(self.main(globals));
        let mut text = out.join("\n");
        text.push('\n');
        (text, arg)
    }

    fn struct_def(&mut self) -> Vec<String> {
        let name = self.name("S");
        let mut fields = Vec::new();
        for _ in 0..self.rng.range(2, 5) {
            let fname = self.name("m");
            let f = match self
                .rng
                .weighted(&[6, 2, if self.structs.is_empty() { 0 } else { 2 }])
            {
                0 => Field::S(self.ty()),
                1 => Field::Arr(self.ty(), self.rng.range(2, 4) as u32),
                _ => Field::St(self.rng.index(self.structs.len())),
            };
            fields.push((fname, f));
        }
        let mut out = vec![format!("struct {name} {{")];
        for (fname, f) in &fields {
            out.push(match *f {
                Field::S(t) => format!("    {} {fname};", t.c()),
                Field::Arr(t, n) => format!("    {} {fname}[{n}];", t.c()),
                Field::St(s) => format!("    struct {} {fname};", self.structs[s].name),
            });
        }
        out.push("};".into());
        self.structs.push(StructDef { name, fields });
        out
    }

    /// A brace initializer of constants for a struct (C99 zero-fills the
    /// fields a partial list leaves out).
    fn struct_init(&mut self, sid: usize) -> String {
        let fields = self.structs[sid].fields.clone();
        let n = if self.rng.one_in(3) {
            self.rng.range(1, fields.len() as i64) as usize
        } else {
            fields.len()
        };
        let items: Vec<String> = fields[..n]
            .iter()
            .map(|(_, f)| match *f {
                Field::S(t) => self.lit(t).s,
                Field::Arr(t, k) => {
                    let xs: Vec<String> = (0..k).map(|_| self.lit(t).s).collect();
                    format!("{{{}}}", xs.join(", "))
                }
                Field::St(s) => self.struct_init(s),
            })
            .collect();
        format!("{{{}}}", items.join(", "))
    }

    fn globals(&mut self, out: &mut Vec<String>) -> Vec<Var> {
        let mut vars = Vec::new();
        for _ in 0..self.rng.range(1, 4) {
            let t = self.ty();
            let name = self.name("g");
            let init = self.lit(t).s;
            out.push(format!("{} {name} = {init};", t.c()));
            let mut v = Var::new(
                name,
                Shape::Scalar(t),
                self.root(),
                Access::Write(Span::All),
                Role::Plain,
            );
            v.global = true;
            vars.push(v);
        }
        for _ in 0..self.rng.range(1, 3) {
            let (elem, len) = self.array_elem_len();
            let name = self.name("ga");
            match elem {
                Elem::S(t) => {
                    let k = self.rng.range(0, i64::from(len)) as u32;
                    if k == 0 {
                        out.push(format!("{} {name}[{len}];", t.c()));
                    } else {
                        let xs: Vec<String> = (0..k).map(|_| self.lit(t).s).collect();
                        out.push(format!("{} {name}[{len}] = {{{}}};", t.c(), xs.join(", ")));
                    }
                }
                Elem::St(s) => out.push(format!("struct {} {name}[{len}];", self.structs[s].name)),
            }
            let mut v = Var::new(
                name,
                Shape::Array(elem, len),
                self.root(),
                Access::Write(Span::All),
                Role::Plain,
            );
            v.global = true;
            vars.push(v);
        }
        if !self.structs.is_empty() && self.rng.one_in(2) {
            let sid = self.rng.index(self.structs.len());
            let name = self.name("gs");
            let init = self.struct_init(sid);
            out.push(format!(
                "struct {} {name} = {init};",
                self.structs[sid].name
            ));
            let mut v = Var::new(
                name,
                Shape::Struct(sid),
                self.root(),
                Access::Write(Span::All),
                Role::Plain,
            );
            v.global = true;
            vars.push(v);
        }
        if self.rng.one_in(2) {
            // A constant table: read-only everywhere, even in functions.
            let t = *self.rng.pick(&[Ty::Int, Ty::Long, Ty::Double, Ty::UInt]);
            let len = *self.rng.pick(&[4u32, 8, 16]);
            let name = self.name("ct");
            let xs: Vec<String> = (0..len).map(|_| self.lit(t).s).collect();
            out.push(format!(
                "const {} {name}[{len}] = {{{}}};",
                t.c(),
                xs.join(", ")
            ));
            let mut v = Var::new(
                name,
                Shape::Array(Elem::S(t), len),
                self.root(),
                Access::Read(Span::All),
                Role::Fixed,
            );
            v.global = true;
            vars.push(v);
        }
        vars
    }

    fn array_elem_len(&mut self) -> (Elem, u32) {
        if !self.structs.is_empty() && self.rng.one_in(5) {
            let s = self.rng.index(self.structs.len());
            (Elem::St(s), *self.rng.pick(&[2u32, 3, 4, 8]))
        } else {
            (
                Elem::S(self.ty()),
                *self.rng.pick(&[2u32, 4, 8, 8, 16, 16, 32, 6, 12, 3]),
            )
        }
    }

    fn base_ctx(&self, scopes: Vec<Vec<Var>>) -> Ctx {
        Ctx {
            scopes,
            in_loop: false,
            can_return: false,
            ret: None,
            loop_depth: 0,
            pfor_depth: 0,
            depth: 0,
            callable: self.funcs.len(),
            globals_free: false,
            rec: false,
        }
    }

    // ---- functions ------------------------------------------------------

    fn function(&mut self, globals: &[Var], has_bump: &mut bool) -> Vec<String> {
        match self
            .rng
            .weighted(&[60, 14, 14, if *has_bump { 0 } else { 12 }])
        {
            0 => self.plain_function(globals),
            1 => self.dac_function(),
            2 => self.dsum_function(),
            _ => {
                *has_bump = true;
                self.bump_function(globals)
            }
        }
    }

    /// Parameter declarations and the variables they become.
    fn param_vars(&mut self, params: &[Param]) -> (Vec<String>, Vec<Var>) {
        let mut decls = Vec::new();
        let mut vars = Vec::new();
        for p in params {
            match *p {
                Param::Depth => {
                    let n = self.name("d");
                    decls.push(format!("int {n}"));
                    let mut v = Var::new(
                        n,
                        Shape::Scalar(Ty::Int),
                        self.root(),
                        Access::Read(Span::All),
                        Role::Fixed,
                    );
                    v.range = Some((0, 3));
                    vars.push(v);
                }
                Param::S(t) => {
                    let n = self.name("p");
                    decls.push(format!("{} {n}", t.c()));
                    vars.push(Var::new(
                        n,
                        Shape::Scalar(t),
                        self.root(),
                        Access::Write(Span::All),
                        Role::Plain,
                    ));
                }
                Param::SVal(s) => {
                    let n = self.name("p");
                    decls.push(format!("struct {} {n}", self.structs[s].name));
                    vars.push(Var::new(
                        n,
                        Shape::Struct(s),
                        self.root(),
                        Access::Write(Span::All),
                        Role::Plain,
                    ));
                }
                Param::In(elem, len) | Param::Out(elem, len) => {
                    let n = self.name("p");
                    decls.push(format!("{} *{n}", elem_c(elem, &self.structs)));
                    let access = if matches!(p, Param::In(..)) {
                        Access::Read(Span::All)
                    } else {
                        Access::Write(Span::All)
                    };
                    let mut v =
                        Var::new(n, Shape::Array(elem, len), self.root(), access, Role::Plain);
                    v.is_ptr = true;
                    vars.push(v);
                }
                Param::InRange(_) | Param::OutRange(_) => {
                    unreachable!("range parameters only in templates")
                }
            }
        }
        (decls, vars)
    }

    fn const_globals(globals: &[Var]) -> Vec<Var> {
        globals
            .iter()
            .filter(|v| v.role == Role::Fixed)
            .cloned()
            .collect()
    }

    fn plain_function(&mut self, globals: &[Var]) -> Vec<String> {
        let name = self.name("f");
        let mut ret = if self.rng.percent(80) {
            Some(self.ty())
        } else {
            None
        };
        let n_out = if ret.is_none() || self.rng.percent(20) {
            1
        } else {
            0
        };
        if n_out == 0 && ret.is_none() {
            ret = Some(Ty::Int);
        }
        let rec = n_out == 0 && self.rng.percent(35);
        let mut params = Vec::new();
        for _ in 0..self.rng.range(0, 3) {
            params.push(Param::S(self.ty()));
        }
        for _ in 0..self.rng.weighted(&[4, 3, 1]) {
            let (elem, len) = self.array_elem_len();
            params.push(Param::In(elem, len));
        }
        for _ in 0..n_out {
            let (elem, len) = self.array_elem_len();
            params.push(Param::Out(elem, len));
        }
        if !self.structs.is_empty() && self.rng.one_in(4) {
            params.push(Param::SVal(self.rng.index(self.structs.len())));
        }
        // Shuffle, recursion depth first.
        for i in (1..params.len()).rev() {
            let j = self.rng.index(i + 1);
            params.swap(i, j);
        }
        if rec {
            params.insert(0, Param::Depth);
        }
        let (decls, pvars) = self.param_vars(&params);
        let sig = Func {
            name: name.clone(),
            params: params.clone(),
            ret,
            cost: 0,
            bump: false,
        };
        self.current = Some(sig.clone());
        let mut cx = self.base_ctx(vec![Self::const_globals(globals), pvars.clone()]);
        cx.can_return = true;
        cx.ret = ret;
        let mut body = Vec::new();
        let mut cost = 0;
        if rec {
            self.expr_budget = FN_BUDGET / 4;
            let e = self.expr(&cx, ret.unwrap_or(Ty::Int), 2);
            let e = self.fit(e);
            cost += e.cost;
            self.depth_name = pvars[0].name.clone();
            body.push(format!("if ({} <= 0)", pvars[0].name));
            body.push(format!("    return {};", e.s));
            self.rec_sites = 2;
            cx.rec = true;
        }
        let n = self.rng.range(2, 5) as usize;
        let (lines, c) = self.stmts(&mut cx, n, FN_BUDGET);
        body.extend(lines);
        cost += c;
        if let Some(t) = ret {
            self.expr_budget = FN_BUDGET / 4;
            let e = self.expr(&cx, t, 3);
            let e = self.fit(e);
            cost += e.cost;
            body.push(format!("return {};", e.s));
        }
        self.current = None;
        self.rec_sites = 0;
        let cost = (cost + 5) * if rec { 15 } else { 1 };
        let head = format!("{} {name}({})", ret.map_or("void", Ty::c), decls.join(", "));
        let mut out = Vec::new();
        if self.rng.one_in(4) {
            // A prototype first, as C programs often have.
            out.push(format!("{head};"));
        }
        out.push(head);
        out.push("{".into());
        out.extend(indent(body));
        out.push("}".into());
        self.funcs.push(Func { cost, ..sig });
        out
    }

    /// `void d(T *p, int lo, int hi, S s)`: writes `p[lo..hi)`, splitting
    /// the range in two halves, the first one spawned (no explicit sync:
    /// the implicit one at return joins it).
    fn dac_function(&mut self) -> Vec<String> {
        let name = self.name("dac");
        let t = self.ty();
        let st = self.ty();
        let leaf = self.rng.range(1, 4);
        let (p, lo, hi, s, k, mid) = (
            self.name("p"),
            self.name("lo"),
            self.name("hi"),
            self.name("s"),
            self.name("k"),
            self.name("mid"),
        );
        let fixed = |g: &mut Gen, n: &str| {
            Var::new(
                n.to_string(),
                Shape::Scalar(Ty::Int),
                g.root(),
                Access::Read(Span::All),
                Role::Fixed,
            )
        };
        let p_root = self.root();
        let mut pv = Var::new(
            p.clone(),
            Shape::Array(Elem::S(t), 1),
            p_root,
            Access::Write(Span::Sub(k.clone(), 1)),
            Role::Plain,
        );
        pv.is_ptr = true;
        let sv = Var::new(
            s.clone(),
            Shape::Scalar(st),
            self.root(),
            Access::Write(Span::All),
            Role::Plain,
        );
        let lov = fixed(self, &lo);
        let hiv = fixed(self, &hi);
        let kv = fixed(self, &k);
        let sig = Func {
            name: name.clone(),
            params: vec![Param::OutRange(t), Param::S(st)],
            ret: None,
            cost: 0,
            bump: false,
        };
        // The leaf loop: the iteration owns p[k].
        let mut cx = self.base_ctx(vec![vec![
            sv.clone(),
            lov.clone(),
            hiv.clone(),
            kv,
            pv.clone(),
        ]]);
        cx.in_loop = true;
        cx.loop_depth = 1;
        let n = self.rng.range(0, 2) as usize;
        let (mut leaf_body, c) = self.stmts(&mut cx, n, FN_BUDGET / MAX_RANGE);
        self.expr_budget = FN_BUDGET / MAX_RANGE;
        let pl = self.place_in(&cx, &pv);
        let e = self.expr(&cx, t, 3);
        let e = self.fit(e);
        let per_elem = c + e.cost + pl.cost + 3;
        leaf_body.push(format!("{} = {};", pl.s, e.s));
        // The split: p is not touched by the caller's strand any more.
        let mut pv_none = pv.clone();
        pv_none.access = Access::None;
        let midv = fixed(self, &mid);
        let cx2 = self.base_ctx(vec![vec![sv, lov, hiv, midv, pv_none]]);
        self.expr_budget = 0;
        let a1 = self.expr(&cx2, st, 2);
        let a1 = self.fit(a1);
        let a2 = self.expr(&cx2, st, 2);
        let a2 = self.fit(a2);
        let mut body = Vec::new();
        let mut lp = Vec::new();
        braced(
            &mut lp,
            format!("for (int {k} = {lo}; {k} < {hi}; {k}++)"),
            leaf_body,
        );
        lp.push("return;".into());
        braced(&mut body, format!("if ({hi} - {lo} <= {leaf})"), lp);
        body.push(format!("int {mid} = {lo} + ({hi} - {lo}) / 2;"));
        body.push(format!("spawn {name}({p}, {lo}, {mid}, {});", a1.s));
        body.push(format!("{name}({p}, {mid}, {hi}, {});", a2.s));
        if self.rng.one_in(2) {
            body.push("sync;".into());
        }
        let mut out = vec![format!(
            "void {name}({} *{p}, int {lo}, int {hi}, {} {s})",
            t.c(),
            st.c()
        )];
        out.push("{".into());
        out.extend(indent(body));
        out.push("}".into());
        let cost = MAX_RANGE * per_elem + 2 * MAX_RANGE * (a1.cost + a2.cost + 10);
        self.funcs.push(Func { cost, ..sig });
        out
    }

    /// `R r(T *p, int lo, int hi)`: a fold of `p[lo..hi)`, the left half
    /// spawned into a local that is read only after `sync`. The combining
    /// order is fixed by the recursion, not by scheduling.
    fn dsum_function(&mut self) -> Vec<String> {
        let name = self.name("red");
        let t = self.ty();
        let r = self.ty();
        let leaf = self.rng.range(1, 4);
        let (p, lo, hi, k, mid, acc, left, right) = (
            self.name("p"),
            self.name("lo"),
            self.name("hi"),
            self.name("k"),
            self.name("mid"),
            self.name("acc"),
            self.name("left"),
            self.name("right"),
        );
        let fixed = |g: &mut Gen, n: &str| {
            Var::new(
                n.to_string(),
                Shape::Scalar(Ty::Int),
                g.root(),
                Access::Read(Span::All),
                Role::Fixed,
            )
        };
        let mut pv = Var::new(
            p.clone(),
            Shape::Array(Elem::S(t), 1),
            self.root(),
            Access::Read(Span::Sub(k.clone(), 1)),
            Role::Plain,
        );
        pv.is_ptr = true;
        let accv = Var::new(
            acc.clone(),
            Shape::Scalar(r),
            self.root(),
            Access::Write(Span::All),
            Role::Plain,
        );
        let lov = fixed(self, &lo);
        let hiv = fixed(self, &hi);
        let kv = fixed(self, &k);
        let cx = self.base_ctx(vec![vec![accv, lov.clone(), hiv.clone(), kv]]);
        self.expr_budget = 0;
        let elem = E {
            s: format!("{p}[{k}]"),
            ty: t,
            b: STORED,
            cost: 2,
        };
        let elem = self.conv(elem, r);
        let acc_e = E {
            s: acc.clone(),
            ty: r,
            b: STORED,
            cost: 1,
        };
        let step = self.combine(acc_e, elem);
        let extra = self.expr(&cx, r, 1);
        let step = if self.rng.one_in(2) {
            self.combine(step, extra)
        } else {
            step
        };
        let step = self.fit(step);
        let init = self.lit(r);
        let mut body = Vec::new();
        let mut lp = vec![format!("{} {acc} = {};", r.c(), init.s)];
        braced(
            &mut lp,
            format!("for (int {k} = {lo}; {k} < {hi}; {k}++)"),
            vec![format!("{acc} = {};", step.s)],
        );
        lp.push(format!("return {acc};"));
        braced(&mut body, format!("if ({hi} - {lo} <= {leaf})"), lp);
        body.push(format!("int {mid} = {lo} + ({hi} - {lo}) / 2;"));
        body.push(format!("{} {left} = 0;", r.c()));
        body.push(format!("{left} = spawn {name}({p}, {lo}, {mid});"));
        body.push(format!("{} {right} = {name}({p}, {mid}, {hi});", r.c()));
        body.push("sync;".into());
        let le = E {
            s: left,
            ty: r,
            b: STORED,
            cost: 1,
        };
        let re = E {
            s: right,
            ty: r,
            b: STORED,
            cost: 1,
        };
        let both = self.combine(le, re);
        let both = self.fit(both);
        body.push(format!("return {};", both.s));
        let mut out = vec![format!(
            "{} {name}({} *{p}, int {lo}, int {hi})",
            r.c(),
            t.c()
        )];
        out.push("{".into());
        out.extend(indent(body));
        out.push("}".into());
        let cost = MAX_RANGE * (step.cost + 3) + 2 * MAX_RANGE * 12;
        self.funcs.push(Func {
            name,
            params: vec![Param::InRange(t)],
            ret: Some(r),
            cost,
            bump: false,
        });
        out
    }

    /// `a op b` for two values of the same type `t`, as a value of type `t`.
    fn combine(&mut self, a: E, b: E) -> E {
        let t = a.ty;
        let cost = a.cost + b.cost + 1;
        if t.is_float() {
            let (op, bound) = match self.rng.below(3) {
                0 => ("+", a.b + b.b),
                1 => ("-", a.b + b.b),
                _ => ("*", a.b * b.b),
            };
            let e = E {
                s: format!("({} {op} {})", a.s, b.s),
                ty: t,
                b: bound,
                cost,
            };
            self.norm(e)
        } else if t == Ty::Bool {
            let op = *self.rng.pick(&["&&", "||", "!="]);
            self.conv(
                E {
                    s: format!("({} {op} {})", a.s, b.s),
                    ty: Ty::Int,
                    b: 0.0,
                    cost,
                },
                t,
            )
        } else {
            let op = *self.rng.pick(&["+", "-", "*", "^", "|"]);
            let s = if op == "*" {
                format!("({} * 31{} + {})", a.s, t.suffix(), b.s)
            } else {
                format!("({} {op} {})", a.s, b.s)
            };
            self.int_result(s, t, cost)
        }
    }

    /// A function that reads and writes globals, called only from `main`.
    fn bump_function(&mut self, globals: &[Var]) -> Vec<String> {
        let name = self.name("bump");
        let ret = if self.rng.one_in(2) {
            Some(self.int_ty())
        } else {
            None
        };
        let params: Vec<Param> = (0..self.rng.range(1, 2))
            .map(|_| Param::S(self.ty()))
            .collect();
        let (decls, pvars) = self.param_vars(&params);
        let mut cx = self.base_ctx(vec![globals.to_vec(), pvars]);
        cx.can_return = true;
        cx.ret = ret;
        let n = self.rng.range(1, 4) as usize;
        let (mut body, mut cost) = self.stmts(&mut cx, n, FN_BUDGET);
        if let Some(t) = ret {
            self.expr_budget = FN_BUDGET / 4;
            let e = self.expr(&cx, t, 2);
            cost += e.cost;
            body.push(format!("return {};", e.s));
        }
        let mut out = vec![format!(
            "{} {name}({})",
            ret.map_or("void", Ty::c),
            decls.join(", ")
        )];
        out.push("{".into());
        out.extend(indent(body));
        out.push("}".into());
        self.funcs.push(Func {
            name,
            params,
            ret,
            cost: cost + 5,
            bump: true,
        });
        out
    }

    // ---- main -----------------------------------------------------------

    fn main(&mut self, globals: Vec<Var>) -> Vec<String> {
        let mut seed = Var::new(
            "seed".into(),
            Shape::Scalar(Ty::Int),
            self.root(),
            Access::Read(Span::All),
            Role::Fixed,
        );
        seed.range = None;
        let mut cx = self.base_ctx(vec![globals, vec![seed]]);
        cx.globals_free = true;
        // The seed comes from the command line, so no compiler can fold
        // the whole program to constants.
        let mut body = if self.rng.one_in(3) {
            // Sometimes a compile-time constant instead: the optimizers
            // (and gcc's) may then fold most of the program.
            vec![format!("int seed = {};", self.arg)]
        } else {
            vec![
                "int seed = 1;".to_string(),
                "if (argc > 1)".into(),
                "    seed = atoi(argv[1]);".into(),
            ]
        };
        let mut cost = 0;
        for _ in 0..self.rng.range(1, 2) {
            let n = self.name("sc");
            body.push(format!("int {n} = 0;"));
            cx.declare(Var::new(
                n,
                Shape::Scalar(Ty::Int),
                self.root(),
                Access::Write(Span::All),
                Role::Counter,
            ));
        }
        for _ in 0..self.rng.range(2, 5) {
            let (l, c) = self
                .decl_scalar(&mut cx)
                .expect("a declaration always fits");
            body.extend(l);
            cost += c;
        }
        for _ in 0..self.rng.range(1, 3) {
            if let Some((l, c)) = self.decl_array(&mut cx, true) {
                body.extend(l);
                cost += c;
            }
        }
        if !self.structs.is_empty() {
            for _ in 0..self.rng.range(0, 2) {
                if let Some((l, c)) = self.decl_struct(&mut cx) {
                    body.extend(l);
                    cost += c;
                }
            }
        }
        let n = self.rng.range(4, 9) as usize;
        let (lines, _) = self.stmts(&mut cx, n, MAIN_BUDGET.saturating_sub(cost));
        body.extend(lines);
        body.extend(self.epilogue(&cx));
        let mut out = vec!["int main(int argc, char **argv)".to_string(), "{".into()];
        out.extend(indent(body));
        out.push("}".into());
        out
    }

    /// Prints every variable in scope at the end of `main` (globals
    /// included): integers hashed, floating values with `%.17g`, so that
    /// every last bit is compared. The exit status is a hash too.
    fn epilogue(&mut self, cx: &Ctx) -> Vec<String> {
        let h = self.name("hash");
        let mut out = vec![String::new(), format!("unsigned long {h} = 0;")];
        let vars: Vec<Var> = cx
            .vars()
            .filter(|v| !v.is_ptr && v.name != "seed")
            .cloned()
            .collect();
        for v in vars {
            let leaves = match v.shape {
                Shape::Scalar(t) => vec![(String::new(), t)],
                Shape::Struct(s) | Shape::Array(Elem::St(s), _) => self.leaves(s, String::new()),
                Shape::Array(Elem::S(t), _) => vec![(String::new(), t)],
            };
            match v.shape {
                Shape::Scalar(_) | Shape::Struct(_) => {
                    for (path, t) in leaves {
                        let lv = format!("{}{path}", v.name);
                        out.push(format!("printf(\"{lv} = {}\\n\", {lv});", t.printf()));
                        if !t.is_float() {
                            out.push(format!("{h} = {h} * 31UL + (unsigned long){lv};"));
                        }
                    }
                }
                Shape::Array(elem, len) => {
                    let k = self.name("k");
                    let t = self.name("t");
                    let mut body = Vec::new();
                    for (path, lt) in &leaves {
                        let lv = format!("{}[{k}]{path}", v.name);
                        if lt.is_float() {
                            body.push(format!(
                                "printf(\"{}[%d]{path} = %.17g\\n\", {k}, {lv});",
                                v.name
                            ));
                        } else {
                            body.push(format!("{t} = {t} * 1000003UL + (unsigned long){lv};"));
                        }
                    }
                    let ints = leaves.iter().any(|(_, t)| !t.is_float());
                    if ints {
                        out.push(format!("unsigned long {t} = 0;"));
                    }
                    braced(
                        &mut out,
                        format!("for (int {k} = 0; {k} < {len}; {k}++)"),
                        body,
                    );
                    if ints {
                        let what = match elem {
                            Elem::S(_) => "",
                            Elem::St(_) => " (integer fields)",
                        };
                        out.push(format!("printf(\"{}{what}: %lu\\n\", {t});", v.name));
                        out.push(format!("{h} = {h} * 31UL + {t};"));
                    }
                }
            }
        }
        out.push(format!("printf(\"hash = %lu\\n\", {h});"));
        out.push(format!("return 10 + (int)({h} % 64UL);"));
        out
    }

    /// The scalar leaves of a struct: (`.a.b[1]`, type).
    fn leaves(&self, sid: usize, prefix: String) -> Vec<(String, Ty)> {
        let mut out = Vec::new();
        for (name, f) in &self.structs[sid].fields {
            match *f {
                Field::S(t) => out.push((format!("{prefix}.{name}"), t)),
                Field::Arr(t, n) => {
                    for i in 0..n {
                        out.push((format!("{prefix}.{name}[{i}]"), t));
                    }
                }
                Field::St(s) => out.extend(self.leaves(s, format!("{prefix}.{name}"))),
            }
        }
        out
    }

    // ---- expressions ----------------------------------------------------

    fn lit(&mut self, ty: Ty) -> E {
        let r = &mut self.rng;
        let (s, b) = match ty {
            Ty::Bool => (
                (if r.one_in(2) { "true" } else { "false" }).to_string(),
                0.0,
            ),
            Ty::Char => {
                let v = r.range(-128, 127);
                if (v as u8).is_ascii_alphanumeric() && v >= 0 && r.one_in(2) {
                    (format!("((char)'{}')", v as u8 as char), 0.0)
                } else {
                    (format!("((char){v})"), 0.0)
                }
            }
            Ty::Int => {
                let v: i64 = match r.weighted(&[60, 20, 20]) {
                    0 => r.range(-20, 100),
                    1 => r.range(-100_000, 100_000),
                    _ => *r.pick(&[
                        0,
                        1,
                        -1,
                        2_147_483_647,
                        -2_147_483_648,
                        65_535,
                        255,
                        1 << 30,
                    ]),
                };
                let s = if v == -2_147_483_648 {
                    "(-2147483647 - 1)".to_string()
                } else if v < 0 {
                    format!("({v})")
                } else if v > 9 && r.one_in(5) {
                    format!("0x{v:X}")
                } else {
                    v.to_string()
                };
                (s, 0.0)
            }
            Ty::UInt => {
                let v: u64 = match r.weighted(&[60, 20, 20]) {
                    0 => r.range(0, 100) as u64,
                    1 => r.below(1 << 32),
                    _ => *r.pick(&[0, 1, 0xFFFF_FFFF, 0x8000_0000, 0x7FFF_FFFF]),
                };
                if r.one_in(4) {
                    (format!("0x{v:X}U"), 0.0)
                } else {
                    (format!("{v}U"), 0.0)
                }
            }
            Ty::Long => {
                let v: i64 = match r.weighted(&[60, 20, 20]) {
                    0 => r.range(-20, 100),
                    1 => r.next_u64() as i64,
                    _ => *r.pick(&[0, -1, i64::MAX, i64::MIN, 1 << 32, -(1 << 31)]),
                };
                let s = if v == i64::MIN {
                    "(-9223372036854775807L - 1)".to_string()
                } else if v < 0 {
                    format!("({v}L)")
                } else {
                    format!("{v}L")
                };
                (s, 0.0)
            }
            Ty::ULong => {
                let v: u64 = match r.weighted(&[60, 20, 20]) {
                    0 => r.range(0, 100) as u64,
                    1 => r.next_u64(),
                    _ => *r.pick(&[0, u64::MAX, 1 << 63, 0xFFFF_FFFF]),
                };
                (format!("{v}UL"), 0.0)
            }
            Ty::Double => {
                let v = match r.weighted(&[60, 25, 15]) {
                    0 => r.range(-6400, 6400) as f64 / 64.0,
                    1 => *r.pick(&[0.1, 0.3, 1e-3, 2.5e3, 3.25, -0.7, 1e5, -0.0, 0.2]),
                    _ => r.range(-1_000_000, 1_000_000) as f64 / 7.0,
                };
                (flit(v, Ty::Double), v.abs())
            }
            Ty::Float => {
                // Only values exact in binary32: a decimal constant with an
                // `f` suffix must be rounded once, directly to float, and
                // that is a front-end detail not worth a false alarm.
                let v = r.range(-1600, 1600) as f64 / 16.0;
                (flit(v, Ty::Float), v.abs())
            }
        };
        E { s, ty, b, cost: 0 }
    }

    /// Converts to `to`, C's way, never with undefined behaviour: floating
    /// values go to integers through `long` after clamping to ±1e15, and
    /// huge integers are scaled before they reach the floating bound.
    fn conv(&mut self, e: E, to: Ty) -> E {
        if e.ty == to {
            return e;
        }
        let cost = e.cost + 1;
        if to == Ty::Bool {
            return E {
                s: format!("((bool)({}))", e.s),
                ty: to,
                b: 1.0,
                cost,
            };
        }
        if e.ty.is_float() && !to.is_float() {
            let x = if e.b > 1e15 { self.clamp(e, 1e15) } else { e };
            let s = if to == Ty::Long {
                format!("((long)({}))", x.s)
            } else {
                format!("(({})(long)({}))", to.c(), x.s)
            };
            return E {
                s,
                ty: to,
                b: 0.0,
                cost,
            };
        }
        if !e.ty.is_float() && to.is_float() {
            let b = e.ty.bound();
            let s = format!("(({})({}))", to.c(), e.s);
            if b > EXPR {
                return E {
                    s: format!("({s} * {})", flit(1e-9, to)),
                    ty: to,
                    b: b * 1e-9,
                    cost,
                };
            }
            return E { s, ty: to, b, cost };
        }
        E {
            s: format!("(({})({}))", to.c(), e.s),
            ty: to,
            b: e.b,
            cost,
        }
    }

    fn clamp(&mut self, e: E, limit: f64) -> E {
        let f = e.ty.fsuffix();
        let l = if e.ty == Ty::Float {
            format!("{limit:e}f")
        } else {
            format!("{limit:e}")
        };
        E {
            s: format!("fmin{f}(fmax{f}({}, -{l}), {l})", e.s),
            ty: e.ty,
            b: e.b.min(limit),
            cost: e.cost + 2,
        }
    }

    /// Keeps a floating expression within [`EXPR`].
    fn norm(&mut self, e: E) -> E {
        if e.ty.is_float() && e.b > EXPR {
            self.clamp(e, STORED)
        } else {
            e
        }
    }

    /// Makes a value fit to be stored (within [`STORED`]).
    fn fit(&mut self, e: E) -> E {
        if e.ty.is_float() && e.b > STORED {
            self.clamp(e, STORED)
        } else {
            e
        }
    }

    /// Text of type `promoted(t)` as a value of type `t`.
    fn int_result(&mut self, s: String, t: Ty, cost: u64) -> E {
        if t.promoted() != t {
            E {
                s: format!("(({})({s}))", t.c()),
                ty: t,
                b: 0.0,
                cost,
            }
        } else {
            E {
                s,
                ty: t,
                b: 0.0,
                cost,
            }
        }
    }

    fn expr(&mut self, cx: &Ctx, ty: Ty, depth: u32) -> E {
        if depth == 0 || self.rng.one_in(4) {
            return self.leaf(cx, ty);
        }
        match ty {
            Ty::Bool => self.bool_expr(cx, depth),
            Ty::Float | Ty::Double => self.float_expr(cx, ty, depth),
            _ => self.int_expr(cx, ty, depth),
        }
    }

    fn leaf(&mut self, cx: &Ctx, ty: Ty) -> E {
        let ptrs: Vec<(String, String)> = cx
            .vars()
            .filter_map(|v| v.ptr_of.as_ref().map(|(b, _)| (v.name.clone(), b.clone())))
            .collect();
        match self
            .rng
            .weighted(&[8, 20, if ptrs.is_empty() { 0 } else { 2 }, 1])
        {
            1 => match self.scalar_place(cx, false) {
                Some(p) => {
                    let b = if p.ty.is_float() { STORED } else { 0.0 };
                    let e = E {
                        s: p.s,
                        ty: p.ty,
                        b,
                        cost: p.cost,
                    };
                    self.conv(e, ty)
                }
                None => self.lit(ty),
            },
            2 => {
                let (p, base) = self.rng.pick(&ptrs).clone();
                let e = E {
                    s: format!("({p} - {base})"),
                    ty: Ty::Long,
                    b: 0.0,
                    cost: 1,
                };
                self.conv(e, ty)
            }
            3 => {
                // `sizeof` is `long` in ParC but `size_t` in C: only its
                // value is used, through a cast, so both agree.
                let what = match self.rng.below(3) {
                    0 if !self.structs.is_empty() => {
                        let s = self.rng.index(self.structs.len());
                        format!("struct {}", self.structs[s].name)
                    }
                    _ => self.ty().c().to_string(),
                };
                let e = E {
                    s: format!("((long)sizeof({what}))"),
                    ty: Ty::Long,
                    b: 0.0,
                    cost: 0,
                };
                self.conv(e, ty)
            }
            _ => self.lit(ty),
        }
    }

    fn int_expr(&mut self, cx: &Ctx, t: Ty, depth: u32) -> E {
        let d = depth - 1;
        match self.rng.weighted(&[30, 8, 8, 6, 6, 12, 6, 6, 2]) {
            0 => {
                let op = *self.rng.pick(&["+", "-", "*", "&", "|", "^"]);
                let a = self.expr(cx, t, d);
                let b = self.expr(cx, t, d);
                self.int_result(format!("({} {op} {})", a.s, b.s), t, a.cost + b.cost + 1)
            }
            1 => {
                // Division and remainder: never by zero, and never
                // MIN / -1 (a trap on x86 whatever -fwrapv says).
                let op = if self.rng.one_in(2) { "/" } else { "%" };
                let a = self.expr(cx, t, d);
                let (div, c) = self.divisor(cx, t, d);
                self.int_result(format!("({} {op} {div})", a.s), t, a.cost + c + 2)
            }
            2 => {
                // Shift amounts within the promoted left operand's width.
                let op = if self.rng.one_in(2) { "<<" } else { ">>" };
                let a = self.expr(cx, t, d);
                let at = self.int_ty();
                let b = self.expr(cx, at, d);
                let m = if t.is_wide() { 63 } else { 31 };
                self.int_result(
                    format!("({} {op} (({}) & {m}))", a.s, b.s),
                    t,
                    a.cost + b.cost + 2,
                )
            }
            3 => {
                let op = if self.rng.one_in(2) { "-" } else { "~" };
                let a = self.expr(cx, t, d);
                self.int_result(format!("({op}{})", a.s), t, a.cost + 1)
            }
            4 => {
                let c = self.cond(cx, d.min(2));
                let a = self.expr(cx, t, d);
                let b = self.expr(cx, t, d);
                self.int_result(
                    format!("({} ? {} : {})", c.s, a.s, b.s),
                    t,
                    c.cost + a.cost.max(b.cost) + 1,
                )
            }
            5 => {
                let mut other = self.ty();
                if other == t {
                    other = Ty::Double;
                }
                let e = self.expr(cx, other, d);
                self.conv(e, t)
            }
            6 => {
                let c = self.cond(cx, d.min(2));
                self.conv(c, t)
            }
            7 => match self.call_expr(cx, d) {
                Some(e) => self.conv(e, t),
                None => self.leaf(cx, t),
            },
            _ => {
                // abs(INT_MIN) is undefined: take it of a remainder.
                let wide = t.is_wide();
                let at = if wide { Ty::Long } else { Ty::Int };
                let a = self.expr(cx, at, d);
                let s = if wide {
                    format!("labs(({}) % 1000L)", a.s)
                } else {
                    format!("abs(({}) % 1000)", a.s)
                };
                let e = E {
                    s,
                    ty: at,
                    b: 0.0,
                    cost: a.cost + 2,
                };
                self.conv(e, t)
            }
        }
    }

    /// A divisor of type `t` that is never 0 and never -1.
    fn divisor(&mut self, cx: &Ctx, t: Ty, d: u32) -> (String, u64) {
        if self.rng.one_in(2) {
            let b = self.expr(cx, t, d);
            let s = if t.is_signed() {
                format!("((({}) & 15) + 1)", b.s)
            } else {
                format!("(({}) | 1{})", b.s, t.suffix())
            };
            (s, b.cost + 2)
        } else if t.is_signed() {
            let v = *self.rng.pick(&[2i64, 3, 5, 7, 10, 16, -3, -7, 100]);
            let sfx = if t == Ty::Long { "L" } else { "" };
            (
                if v < 0 {
                    format!("({v}{sfx})")
                } else {
                    format!("{v}{sfx}")
                },
                0,
            )
        } else {
            let v = *self.rng.pick(&[2u64, 3, 5, 7, 10, 16, 1000]);
            (format!("{v}{}", t.suffix()), 0)
        }
    }

    fn bool_expr(&mut self, cx: &Ctx, depth: u32) -> E {
        match self.rng.weighted(&[55, 20, 10, 5]) {
            0 | 1 => {
                let c = self.cond(cx, depth.min(2));
                self.conv(c, Ty::Bool)
            }
            2 => {
                let t = self.ty();
                let e = self.expr(cx, t, depth - 1);
                self.conv(e, Ty::Bool)
            }
            _ => {
                let c = self.cond(cx, 1);
                let a = self.expr(cx, Ty::Bool, depth - 1);
                let b = self.expr(cx, Ty::Bool, depth - 1);
                let e = E {
                    s: format!("({} ? {} : {})", c.s, a.s, b.s),
                    ty: Ty::Int,
                    b: 0.0,
                    cost: c.cost + a.cost + b.cost,
                };
                self.conv(e, Ty::Bool)
            }
        }
    }

    fn float_expr(&mut self, cx: &Ctx, t: Ty, depth: u32) -> E {
        let d = depth - 1;
        let f = t.fsuffix();
        let c = |v: f64| flit(v, t);
        let e = match self.rng.weighted(&[30, 8, 4, 15, 5, 4, 5, 15, 5]) {
            0 => {
                let a = self.expr(cx, t, d);
                let b = self.expr(cx, t, d);
                let (op, bound) = match self.rng.below(3) {
                    0 => ("+", a.b + b.b),
                    1 => ("-", a.b + b.b),
                    _ => ("*", a.b * b.b),
                };
                E {
                    s: format!("({} {op} {})", a.s, b.s),
                    ty: t,
                    b: bound,
                    cost: a.cost + b.cost + 1,
                }
            }
            1 => {
                let a = self.expr(cx, t, d);
                if self.rng.one_in(2) {
                    // The divisor is at least 1: no infinity, no NaN.
                    let b = self.expr(cx, t, d);
                    E {
                        s: format!("({} / (fabs{f}({}) + {}))", a.s, b.s, c(1.0)),
                        ty: t,
                        b: a.b,
                        cost: a.cost + b.cost + 3,
                    }
                } else {
                    let v = *self.rng.pick(&[2.0, -4.0, 0.5, 3.0, 10.0, 0.25]);
                    E {
                        s: format!("({} / {})", a.s, c(v)),
                        ty: t,
                        b: a.b / f64::abs(v),
                        cost: a.cost + 1,
                    }
                }
            }
            2 => {
                let a = self.expr(cx, t, d);
                E {
                    s: format!("(-{})", a.s),
                    ty: t,
                    b: a.b,
                    cost: a.cost + 1,
                }
            }
            3 => {
                // Every math function on a domain where it is finite.
                let a = self.expr(cx, t, d);
                let (s, b) = match self.rng.below(10) {
                    0 => (format!("sqrt{f}(fabs{f}({}))", a.s), a.b.sqrt() + 1.0),
                    1 => (
                        format!(
                            "exp{f}(fmin{f}(fmax{f}({}, {}), {}))",
                            a.s,
                            c(-20.0),
                            c(20.0)
                        ),
                        4.9e8,
                    ),
                    2 => (
                        format!("log{f}({} + fabs{f}({}))", c(1.0), a.s),
                        a.b.ln_1p() + 1.0,
                    ),
                    3 => (format!("sin{f}({})", a.s), 1.0),
                    4 => (format!("cos{f}({})", a.s), 1.0),
                    5 => (format!("tan{f}(sin{f}({}))", a.s), 2.0),
                    6 => (format!("tanh{f}({})", a.s), 1.0),
                    7 => (format!("fabs{f}({})", a.s), a.b),
                    8 => (format!("floor{f}({})", a.s), a.b + 1.0),
                    _ => (format!("ceil{f}({})", a.s), a.b + 1.0),
                };
                E {
                    s,
                    ty: t,
                    b,
                    cost: a.cost + 20,
                }
            }
            4 => {
                // `+ 0.0` turns the -0.0 that fmin/fmax may pick in either
                // order from a tie of zeros into +0.0.
                let a = self.expr(cx, t, d);
                let b = self.expr(cx, t, d);
                let name = if self.rng.one_in(2) { "fmin" } else { "fmax" };
                E {
                    s: format!("({name}{f}({}, {}) + {})", a.s, b.s, c(0.0)),
                    ty: t,
                    b: a.b.max(b.b),
                    cost: a.cost + b.cost + 3,
                }
            }
            5 => {
                let a = self.expr(cx, t, d);
                if self.rng.one_in(2) {
                    let b = self.expr(cx, t, d);
                    E {
                        s: format!(
                            "pow{f}(fmin{f}(fabs{f}({}), {}), fmin{f}(fabs{f}({}), {}))",
                            a.s,
                            c(10.0),
                            b.s,
                            c(3.0)
                        ),
                        ty: t,
                        b: 1000.0,
                        cost: a.cost + b.cost + 25,
                    }
                } else {
                    let a = if a.b > 1e4 { self.clamp(a, 1e4) } else { a };
                    let k = if self.rng.one_in(2) { 2 } else { 3 };
                    E {
                        s: format!("pow{f}({}, {})", a.s, c(f64::from(k))),
                        ty: t,
                        b: a.b.powi(k),
                        cost: a.cost + 20,
                    }
                }
            }
            6 => {
                let cd = self.cond(cx, d.min(2));
                let a = self.expr(cx, t, d);
                let b = self.expr(cx, t, d);
                E {
                    s: format!("({} ? {} : {})", cd.s, a.s, b.s),
                    ty: t,
                    b: a.b.max(b.b),
                    cost: cd.cost + a.cost.max(b.cost) + 1,
                }
            }
            7 => {
                let mut other = self.ty();
                if other == t {
                    other = Ty::Int;
                }
                let e = self.expr(cx, other, d);
                self.conv(e, t)
            }
            _ => match self.call_expr(cx, d) {
                Some(e) => self.conv(e, t),
                None => self.leaf(cx, t),
            },
        };
        self.norm(e)
    }

    /// A truth value (C type `int`, or any scalar used as a condition).
    fn cond(&mut self, cx: &Ctx, depth: u32) -> E {
        let k = if depth == 0 {
            0
        } else {
            self.rng.weighted(&[55, 15, 10, 5])
        };
        match k {
            0 => {
                let t = self.ty();
                let a = self.expr(cx, t, depth.min(2));
                let b = self.expr(cx, t, depth.min(2));
                let op = *self.rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
                E {
                    s: format!("({} {op} {})", a.s, b.s),
                    ty: Ty::Int,
                    b: 0.0,
                    cost: a.cost + b.cost + 1,
                }
            }
            1 => {
                let a = self.cond(cx, depth - 1);
                let b = self.cond(cx, depth - 1);
                let op = if self.rng.one_in(2) { "&&" } else { "||" };
                E {
                    s: format!("({} {op} {})", a.s, b.s),
                    ty: Ty::Int,
                    b: 0.0,
                    cost: a.cost + b.cost + 1,
                }
            }
            2 => {
                let t = self.int_ty();
                let a = self.expr(cx, t, depth - 1);
                let m = *self.rng.pick(&[1, 3, 7]);
                E {
                    s: format!("(({}) & {m})", a.s),
                    ty: t.promoted(),
                    b: 0.0,
                    cost: a.cost + 1,
                }
            }
            _ => {
                let a = self.cond(cx, depth - 1);
                E {
                    s: format!("(!{})", a.s),
                    ty: Ty::Int,
                    b: 0.0,
                    cost: a.cost + 1,
                }
            }
        }
    }

    /// A condition whose right operand of `&&`/`||` bumps a counter: the
    /// short circuit decides whether the side effect happens.
    fn side_cond(&mut self, cx: &Ctx) -> Option<E> {
        let counters: Vec<String> = cx
            .vars()
            .filter(|v| v.role == Role::Counter && v.access.writable().is_some())
            .map(|v| v.name.clone())
            .collect();
        if counters.is_empty() {
            return None;
        }
        let c = self.rng.pick(&counters).clone();
        let base = self.cond(cx, 1);
        let k = self.rng.range(0, 5);
        let se = match self.rng.below(4) {
            0 => format!("(++{c} > {k})"),
            1 => format!("({c}++ % 3 == 0)"),
            2 => format!("(({c} += {k}) > {})", k * 3),
            _ => format!("(--{c} < {k})"),
        };
        let op = if self.rng.one_in(2) { "&&" } else { "||" };
        Some(E {
            s: format!("({} {op} {se})", base.s),
            ty: Ty::Int,
            b: 0.0,
            cost: base.cost + 2,
        })
    }

    // ---- places -----------------------------------------------------------

    fn scalar_place(&mut self, cx: &Ctx, write: bool) -> Option<Place> {
        let cands: Vec<&Var> = cx
            .vars()
            .filter(|v| {
                if write {
                    v.access.writable().is_some() && v.role == Role::Plain
                } else {
                    v.access.readable().is_some() && v.role != Role::Counter
                }
            })
            .collect();
        if cands.is_empty() {
            return None;
        }
        let v = cands[self.rng.index(cands.len())].clone();
        Some(self.place_in(cx, &v))
    }

    /// A scalar lvalue inside variable `v`, within its accessible span.
    fn place_in(&mut self, cx: &Ctx, v: &Var) -> Place {
        let span = v.access.readable().cloned().unwrap_or(Span::All);
        match v.shape {
            Shape::Scalar(t) => Place {
                s: v.name.clone(),
                ty: t,
                cost: 1,
            },
            Shape::Struct(s) => {
                let p = self.field_path(cx, s, format!("{}.", v.name));
                Place {
                    cost: p.cost + 1,
                    ..p
                }
            }
            Shape::Array(elem, len) => {
                let (idx, c) = self.index(cx, &span, len);
                let ptr_form = v.is_ptr && self.rng.one_in(3);
                match elem {
                    Elem::S(t) => {
                        let s = if !ptr_form {
                            format!("{}[{idx}]", v.name)
                        } else if idx == "0" {
                            format!("(*{})", v.name)
                        } else {
                            format!("(*({} + {idx}))", v.name)
                        };
                        Place {
                            s,
                            ty: t,
                            cost: c + 2,
                        }
                    }
                    Elem::St(s) => {
                        let prefix = if !ptr_form {
                            format!("{}[{idx}].", v.name)
                        } else if idx == "0" {
                            format!("{}->", v.name)
                        } else {
                            format!("({} + {idx})->", v.name)
                        };
                        let p = self.field_path(cx, s, prefix);
                        Place {
                            cost: p.cost + c + 2,
                            ..p
                        }
                    }
                }
            }
        }
    }

    fn field_path(&mut self, cx: &Ctx, sid: usize, prefix: String) -> Place {
        let fields = &self.structs[sid].fields;
        let (name, f) = fields[self.rng.index(fields.len())].clone();
        match f {
            Field::S(t) => Place {
                s: format!("{prefix}{name}"),
                ty: t,
                cost: 1,
            },
            Field::Arr(t, n) => {
                let (idx, c) = self.index(cx, &Span::All, n);
                Place {
                    s: format!("{prefix}{name}[{idx}]"),
                    ty: t,
                    cost: c + 1,
                }
            }
            Field::St(s) => self.field_path(cx, s, format!("{prefix}{name}.")),
        }
    }

    /// An expression for an index. Indices nest (`a[b[c[...]]]`): past
    /// two levels only literals, so that generation terminates.
    fn index_expr(&mut self, cx: &Ctx, t: Ty) -> E {
        if self.index_nesting >= 2 {
            return self.lit(t);
        }
        self.index_nesting += 1;
        let e = self.expr(cx, t, 1);
        self.index_nesting -= 1;
        e
    }

    /// An index into `span` of an array of `len` elements, always in bounds.
    fn index(&mut self, cx: &Ctx, span: &Span, len: u32) -> (String, u64) {
        match span {
            Span::All => {
                let loops: Vec<String> = cx
                    .vars()
                    .filter(|v| {
                        matches!(v.shape, Shape::Scalar(t) if !t.is_float())
                            && v.access.readable().is_some()
                            && v.range
                                .is_some_and(|(lo, hi)| lo >= 0 && hi < i64::from(len))
                    })
                    .map(|v| v.name.clone())
                    .collect();
                match self
                    .rng
                    .weighted(&[3, if loops.is_empty() { 0 } else { 5 }, 4])
                {
                    0 => (self.rng.below(u64::from(len)).to_string(), 0),
                    1 => (self.rng.pick(&loops).clone(), 1),
                    _ => {
                        let t = self.int_ty();
                        let e = self.index_expr(cx, t);
                        (guard(&e.s, len), e.cost + 1)
                    }
                }
            }
            Span::Sub(base, w) => {
                let off = if *w == 1 {
                    "0".to_string()
                } else if self.rng.one_in(2) {
                    self.rng.below(u64::from(*w)).to_string()
                } else {
                    let t = self.int_ty();
                    let e = self.index_expr(cx, t);
                    guard(&e.s, *w)
                };
                (join_index(base, &off), 2)
            }
        }
    }

    /// Paths (`""`, `.a`, `.a.b`) from a struct of type `from` to one of
    /// type `to` nested in it.
    fn struct_paths(&self, from: usize, to: usize) -> Vec<String> {
        let mut out = Vec::new();
        if from == to {
            out.push(String::new());
        }
        for (name, f) in &self.structs[from].fields {
            if let Field::St(s) = *f {
                for p in self.struct_paths(s, to) {
                    out.push(format!(".{name}{p}"));
                }
            }
        }
        out
    }

    /// A struct-valued lvalue of type `sid`.
    fn struct_place(&mut self, cx: &Ctx, sid: usize, write: bool) -> Option<(String, u64)> {
        let cands: Vec<(Var, Vec<String>)> = cx
            .vars()
            .filter(|v| {
                if write {
                    v.access.writable().is_some() && v.role == Role::Plain
                } else {
                    v.access.readable().is_some()
                }
            })
            .filter_map(|v| match v.shape {
                Shape::Struct(s) | Shape::Array(Elem::St(s), _) => {
                    let paths = self.struct_paths(s, sid);
                    (!paths.is_empty()).then(|| (v.clone(), paths))
                }
                _ => None,
            })
            .collect();
        if cands.is_empty() {
            return None;
        }
        let (v, paths) = cands[self.rng.index(cands.len())].clone();
        let path = self.rng.pick(&paths).clone();
        match v.shape {
            Shape::Array(_, len) => {
                let span = v.access.readable().cloned().unwrap_or(Span::All);
                let (idx, c) = self.index(cx, &span, len);
                Some((format!("{}[{idx}]{path}", v.name), c + 2))
            }
            _ => Some((format!("{}{path}", v.name), 1)),
        }
    }

    // ---- calls --------------------------------------------------------------

    /// A call of a pure function with a result, as an expression.
    fn call_expr(&mut self, cx: &Ctx, depth: u32) -> Option<E> {
        let budget = self.expr_budget;
        let mut cands: Vec<Func> = self.funcs[..cx.callable]
            .iter()
            .filter(|f| f.is_pure() && f.ret.is_some() && f.cost + 5 <= budget)
            .cloned()
            .collect();
        let recursive = cx.rec && self.rec_sites > 0 && cx.loop_depth == 0 && cx.pfor_depth == 0;
        if recursive && let Some(f) = &self.current {
            cands.push(f.clone());
        }
        if cands.is_empty() {
            return None;
        }
        let f = cands[self.rng.index(cands.len())].clone();
        let is_self = self.current.as_ref().is_some_and(|c| c.name == f.name);
        if is_self {
            // Taken before the arguments, which might recurse too.
            self.rec_sites -= 1;
        }
        let (args, c) = self.call_args(cx, &f, is_self, depth)?.into_text();
        let ret = f.ret.unwrap_or(Ty::Int);
        let b = if ret.is_float() { STORED } else { 0.0 };
        Some(E {
            s: format!("{}({args})", f.name),
            ty: ret,
            b,
            cost: c + if is_self { 2 } else { f.cost + 2 },
        })
    }

    /// Arguments for a call of `f`: every array argument within what this
    /// strand may touch, no written array passed twice or also as an input
    /// (so a callee's writes never alias its other arguments).
    fn call_args(&mut self, cx: &Ctx, f: &Func, is_self: bool, depth: u32) -> Option<Args> {
        let mut texts: Vec<Option<String>> = vec![None; f.params.len()];
        let mut outs = Vec::new();
        let mut ins = Vec::new();
        let mut cost = 0;
        // Written arrays first: they exclude their roots from the others.
        for (i, p) in f.params.iter().enumerate() {
            match *p {
                Param::Out(elem, len) => {
                    let (t, root) = self.array_arg(cx, elem, len, true, &outs)?;
                    outs.push(root);
                    texts[i] = Some(t);
                }
                Param::OutRange(t) => {
                    let (s, root) = self.range_arg(cx, t, true, &outs)?;
                    outs.push(root);
                    texts[i] = Some(s);
                }
                _ => {}
            }
        }
        for (i, p) in f.params.iter().enumerate() {
            match *p {
                Param::Depth => {
                    texts[i] = Some(if is_self {
                        format!("{} - 1", self.depth_name)
                    } else if self.rng.one_in(2) {
                        self.rng.range(0, 3).to_string()
                    } else {
                        let e = self.expr(cx, Ty::Int, 1);
                        cost += e.cost;
                        format!("({}) & 3", e.s)
                    });
                }
                Param::S(t) => {
                    let e = self.expr(cx, t, depth.min(2));
                    let e = self.fit(e);
                    cost += e.cost;
                    texts[i] = Some(e.s);
                }
                Param::SVal(s) => {
                    let (t, c) = self.struct_place(cx, s, false)?;
                    cost += c;
                    texts[i] = Some(t);
                }
                Param::In(elem, len) => {
                    let (t, root) = self.array_arg(cx, elem, len, false, &outs)?;
                    ins.push(root);
                    texts[i] = Some(t);
                }
                Param::InRange(t) => {
                    let (s, root) = self.range_arg(cx, t, false, &outs)?;
                    ins.push(root);
                    texts[i] = Some(s);
                }
                Param::Out(..) | Param::OutRange(_) => {}
            }
        }
        Some(Args {
            texts: texts.into_iter().map(|t| t.unwrap_or_default()).collect(),
            outs,
            ins,
            cost,
        })
    }

    /// Arrays (or struct fields that are arrays) with `len` accessible
    /// elements of type `elem`, as a pointer argument, and their root.
    fn array_arg(
        &mut self,
        cx: &Ctx,
        elem: Elem,
        len: u32,
        write: bool,
        exclude: &[usize],
    ) -> Option<(String, usize)> {
        let mut cands: Vec<(String, u32, String, usize)> = Vec::new(); // (name, width, base, root)
        for v in cx.vars() {
            if exclude.contains(&v.root) {
                continue;
            }
            let span = if write {
                v.access.writable()
            } else {
                v.access.readable()
            };
            let Some(span) = span else { continue };
            // Const tables are never passed as (non-const) pointers.
            if v.role != Role::Plain {
                continue;
            }
            match v.shape {
                Shape::Array(e, n) if e == elem => {
                    let (w, base) = match span {
                        Span::All => (n, String::new()),
                        Span::Sub(b, w) => (*w, b.clone()),
                    };
                    if w >= len {
                        cands.push((v.name.clone(), w, base, v.root));
                    }
                }
                Shape::Struct(s) if *span == Span::All => {
                    for (fname, f) in &self.structs[s].fields {
                        if let Field::Arr(t, n) = *f
                            && Elem::S(t) == elem
                            && n >= len
                        {
                            cands.push((format!("{}.{fname}", v.name), n, String::new(), v.root));
                        }
                    }
                }
                _ => {}
            }
        }
        if cands.is_empty() {
            return None;
        }
        let (name, w, base, root) = cands[self.rng.index(cands.len())].clone();
        let off = self.rng.below(u64::from(w - len + 1)).to_string();
        let idx = join_index(&base, &off);
        let text = if idx == "0" || idx.is_empty() {
            name
        } else if self.rng.one_in(2) {
            format!("&{name}[{idx}]")
        } else {
            format!("{name} + {idx}")
        };
        Some((text, root))
    }

    /// `a, lo, hi` for a range parameter.
    fn range_arg(
        &mut self,
        cx: &Ctx,
        t: Ty,
        write: bool,
        exclude: &[usize],
    ) -> Option<(String, usize)> {
        let cands: Vec<(String, u32, String, usize)> = cx
            .vars()
            .filter(|v| !exclude.contains(&v.root) && v.role == Role::Plain)
            .filter_map(|v| {
                let span = if write {
                    v.access.writable()
                } else {
                    v.access.readable()
                }?;
                match v.shape {
                    Shape::Array(Elem::S(e), n) if e == t => Some(match span {
                        Span::All => (v.name.clone(), n, String::new(), v.root),
                        Span::Sub(b, w) => (v.name.clone(), *w, b.clone(), v.root),
                    }),
                    _ => None,
                }
            })
            .collect();
        if cands.is_empty() {
            return None;
        }
        let (name, w, base, root) = cands[self.rng.index(cands.len())].clone();
        let (lo, hi) = if self.rng.percent(60) {
            (0, w)
        } else {
            let lo = self.rng.below(u64::from(w) + 1) as u32;
            (lo, lo + self.rng.below(u64::from(w - lo) + 1) as u32)
        };
        let lo_s = join_index(&base, &lo.to_string());
        let hi_s = join_index(&base, &hi.to_string());
        let lo_s = if lo_s.is_empty() { "0".into() } else { lo_s };
        Some((format!("{name}, {lo_s}, {hi_s}"), root))
    }

    // ---- statements ---------------------------------------------------------

    /// Up to `n` statements in the current scope of `cx`.
    fn stmts(&mut self, cx: &mut Ctx, n: usize, budget: u64) -> (Vec<String>, u64) {
        let mut lines = Vec::new();
        let mut cost = 0;
        for _ in 0..n {
            if cost >= budget {
                break;
            }
            let (l, c) = self.stmt(cx, budget - cost);
            lines.extend(l);
            cost += c;
        }
        (lines, cost)
    }

    /// Statements in a new scope (the caller adds the braces).
    fn block(&mut self, cx: &Ctx, n: usize, budget: u64) -> (Vec<String>, u64) {
        let mut inner = cx.clone();
        inner.scopes.push(Vec::new());
        inner.depth += 1;
        self.stmts(&mut inner, n, budget)
    }

    fn stmt(&mut self, cx: &mut Ctx, budget: u64) -> (Vec<String>, u64) {
        let declared = cx.scopes.last().map_or(0, Vec::len);
        for _ in 0..8 {
            self.expr_budget = budget / 2;
            let nested = cx.depth < 4;
            let weights = [
                24,                                          // assign
                10,                                          // compound
                5,                                           // ++/--
                10,                                          // declaration
                if cx.depth < 3 { 3 } else { 0 },            // local array
                if self.structs.is_empty() { 0 } else { 2 }, // local struct
                if nested { 10 } else { 0 },                 // if
                if nested { 8 } else { 0 },                  // for
                if nested { 3 } else { 0 },                  // while
                if nested { 3 } else { 0 },                  // do-while
                if cx.in_loop { 4 } else { 0 },              // break/continue
                if nested { 8 } else { 0 },                  // parallel_for
                if nested { 6 } else { 0 },                  // spawn ... sync
                7,                                           // call
                if nested { 3 } else { 0 },                  // pointer block
                if nested { 2 } else { 0 },                  // pointer walk
                2,                                           // struct copy
                2,                                           // memset/memcpy
                if cx.can_return { 2 } else { 0 },           // return
                if nested { 2 } else { 0 },                  // block
            ];
            let k = self.rng.weighted(&weights);
            let r = match k {
                0 => self.assign(cx),
                1 => self.compound(cx),
                2 => self.incdec(cx),
                3 => self.decl_scalar(cx),
                4 => self.decl_array(cx, false),
                5 => self.decl_struct(cx),
                6 => self.if_stmt(cx, budget),
                7 => self.for_stmt(cx, budget),
                8 => self.while_stmt(cx, budget, false),
                9 => self.while_stmt(cx, budget, true),
                10 => self.jump(cx),
                11 => self.pfor(cx, budget),
                12 => self.spawn_region(cx, budget),
                13 => self.call_stmt(cx),
                14 => self.ptr_block(cx, budget),
                15 => self.ptr_walk(cx),
                16 => self.struct_copy(cx),
                17 => self.mem_stmt(cx),
                18 => self.return_stmt(cx),
                _ => {
                    let n = self.rng.range(1, 3) as usize;
                    let (b, c) = self.block(cx, n, budget);
                    let mut out = vec!["{".to_string()];
                    out.extend(indent(b));
                    out.push("}".into());
                    Some((out, c))
                }
            };
            if let Some((lines, cost)) = r
                && cost <= budget
            {
                return (lines, cost);
            }
            // A rejected statement's declarations are not in the program.
            cx.scopes.last_mut().expect("a scope").truncate(declared);
        }
        (vec![";".into()], 0)
    }

    fn assign(&mut self, cx: &Ctx) -> Option<(Vec<String>, u64)> {
        let p = self.scalar_place(cx, true)?;
        let e = self.expr(cx, p.ty, 3);
        let e = self.fit(e);
        Some((vec![format!("{} = {};", p.s, e.s)], p.cost + e.cost + 1))
    }

    fn compound(&mut self, cx: &Ctx) -> Option<(Vec<String>, u64)> {
        let p = self.scalar_place(cx, true)?;
        let t = p.ty;
        let f = t.fsuffix();
        let c = |v: f64| flit(v, t);
        let (s, cost) = if t.is_float() {
            // Only operations that cannot grow the magnitude: stored
            // values stay within STORED.
            match self.rng.below(3) {
                0 => (
                    format!(
                        "{} *= {};",
                        p.s,
                        c(*self.rng.pick(&[0.5, -0.75, 0.125, -1.0, 0.9]))
                    ),
                    1,
                ),
                1 => {
                    let e = self.expr(cx, t, 2);
                    (
                        format!("{} /= (fabs{f}({}) + {});", p.s, e.s, c(1.0)),
                        e.cost + 3,
                    )
                }
                _ => (
                    format!("{} /= {};", p.s, c(*self.rng.pick(&[2.0, -3.0, 1.5, 10.0]))),
                    1,
                ),
            }
        } else {
            let rt = if self.rng.one_in(4) {
                self.int_ty()
            } else if t == Ty::Bool {
                Ty::Int
            } else {
                t
            };
            let op = *self
                .rng
                .pick(&["+=", "-=", "*=", "&=", "|=", "^=", "/=", "%=", "<<=", ">>="]);
            match op {
                "/=" | "%=" => {
                    let (d, dc) = self.divisor(cx, rt, 2);
                    (format!("{} {op} {d};", p.s), dc + 2)
                }
                "<<=" | ">>=" => {
                    let e = self.expr(cx, rt, 2);
                    let m = if t.is_wide() { 63 } else { 31 };
                    (format!("{} {op} (({}) & {m});", p.s, e.s), e.cost + 2)
                }
                _ => {
                    let e = self.expr(cx, rt, 3);
                    (format!("{} {op} {};", p.s, e.s), e.cost + 2)
                }
            }
        };
        Some((vec![s], cost + p.cost))
    }

    fn incdec(&mut self, cx: &Ctx) -> Option<(Vec<String>, u64)> {
        let p = self.scalar_place(cx, true)?;
        if p.ty.is_float() {
            return None;
        }
        let s = match self.rng.below(4) {
            0 => format!("{}++;", p.s),
            1 => format!("++{};", p.s),
            2 => format!("{}--;", p.s),
            _ => format!("--{};", p.s),
        };
        Some((vec![s], p.cost + 1))
    }

    fn decl_scalar(&mut self, cx: &mut Ctx) -> Option<(Vec<String>, u64)> {
        let t = self.ty();
        let e = self.expr(cx, t, 3);
        let e = self.fit(e);
        let name = self.name("v");
        let line = format!("{} {name} = {};", t.c(), e.s);
        let root = self.root();
        cx.declare(Var::new(
            name,
            Shape::Scalar(t),
            root,
            Access::Write(Span::All),
            Role::Plain,
        ));
        Some((vec![line], e.cost + 1))
    }

    /// A local array, initialized by a (possibly partial) brace list or
    /// `memset`, and maybe filled by a loop.
    fn decl_array(&mut self, cx: &mut Ctx, fill: bool) -> Option<(Vec<String>, u64)> {
        let (elem, len) = self.array_elem_len();
        let name = self.name("a");
        let mut out = Vec::new();
        match elem {
            Elem::S(Ty::Char) if self.rng.one_in(4) => {
                let k = self.rng.range(0, i64::from(len) - 1) as usize;
                let word: String = (0..k)
                    .map(|_| (b'a' + self.rng.below(26) as u8) as char)
                    .collect();
                out.push(format!("char {name}[{len}] = \"{word}\";"));
            }
            Elem::S(t) => {
                let k = self.rng.range(1, i64::from(len)) as usize;
                let xs: Vec<String> = (0..k).map(|_| self.lit(t).s).collect();
                out.push(format!("{} {name}[{len}] = {{{}}};", t.c(), xs.join(", ")));
            }
            Elem::St(s) => {
                out.push(format!("struct {} {name}[{len}];", self.structs[s].name));
                out.push(format!("memset({name}, 0, sizeof({name}));"));
            }
        }
        let root = self.root();
        let var = Var::new(
            name.clone(),
            Shape::Array(elem, len),
            root,
            Access::Write(Span::All),
            Role::Plain,
        );
        let mut cost = u64::from(len);
        if fill || self.rng.one_in(2) {
            // The fill loop sees the array itself (fully initialized).
            let k = self.name("k");
            let mut inner = cx.clone();
            inner.declare(var.clone());
            let mut kv = Var::new(
                k.clone(),
                Shape::Scalar(Ty::Int),
                self.root(),
                Access::Read(Span::All),
                Role::Fixed,
            );
            kv.range = Some((0, i64::from(len) - 1));
            inner.declare(kv);
            inner.loop_depth += 1;
            self.expr_budget = 200;
            let p = match elem {
                Elem::S(t) => Place {
                    s: format!("{name}[{k}]"),
                    ty: t,
                    cost: 1,
                },
                Elem::St(s) => self.field_path(&inner, s, format!("{name}[{k}].")),
            };
            let e = self.expr(&inner, p.ty, 2);
            let e = self.fit(e);
            cost += u64::from(len) * (e.cost + p.cost + 2);
            braced(
                &mut out,
                format!("for (int {k} = 0; {k} < {len}; {k}++)"),
                vec![format!("{} = {};", p.s, e.s)],
            );
        }
        cx.declare(var);
        Some((out, cost))
    }

    fn decl_struct(&mut self, cx: &mut Ctx) -> Option<(Vec<String>, u64)> {
        if self.structs.is_empty() {
            return None;
        }
        let sid = self.rng.index(self.structs.len());
        let sname = self.structs[sid].name.clone();
        let name = self.name("s");
        let mut out = Vec::new();
        let mut cost = 4;
        match self.rng.below(4) {
            0 => {
                out.push(format!("struct {sname} {name};"));
                out.push(format!("memset(&{name}, 0, sizeof({name}));"));
            }
            1 => match self.struct_place(cx, sid, false) {
                Some((src, c)) => {
                    cost += c;
                    out.push(format!("struct {sname} {name} = {src};"));
                }
                None => out.push(format!("struct {sname} {name} = {{0}};")),
            },
            _ => {
                let init = self.struct_init(sid);
                out.push(format!("struct {sname} {name} = {init};"));
            }
        }
        let root = self.root();
        cx.declare(Var::new(
            name,
            Shape::Struct(sid),
            root,
            Access::Write(Span::All),
            Role::Plain,
        ));
        Some((out, cost))
    }

    fn if_stmt(&mut self, cx: &Ctx, budget: u64) -> Option<(Vec<String>, u64)> {
        let mut out = Vec::new();
        let mut worst = 0;
        let mut conds = 0;
        let arms = self.rng.weighted(&[5, 4, 2]);
        for arm in 0..=arms {
            let c = if arm == 0 && self.rng.one_in(4) {
                self.side_cond(cx).unwrap_or_else(|| self.cond(cx, 2))
            } else {
                self.cond(cx, 2)
            };
            conds += c.cost;
            let n = self.rng.range(1, 3) as usize;
            let (b, bc) = self.block(cx, n, budget.saturating_sub(conds));
            worst = worst.max(bc);
            out.push(if arm == 0 {
                format!("if ({}) {{", c.s)
            } else {
                format!("}} else if ({}) {{", c.s)
            });
            out.extend(indent(b));
        }
        if self.rng.one_in(2) {
            let n = self.rng.range(1, 3) as usize;
            let (b, bc) = self.block(cx, n, budget.saturating_sub(conds));
            worst = worst.max(bc);
            out.push("} else {".into());
            out.extend(indent(b));
        }
        out.push("}".into());
        Some((out, worst + conds + 1))
    }

    /// Loop trips that fit the budget, or None.
    fn trips(&mut self, budget: u64) -> Option<i64> {
        let max = (budget / 30).min(16) as i64;
        if max < 2 {
            None
        } else {
            Some(self.rng.range(2, max))
        }
    }

    fn loop_ctx(&self, cx: &Ctx) -> Ctx {
        let mut inner = cx.clone();
        inner.scopes.push(Vec::new());
        inner.depth += 1;
        inner.loop_depth += 1;
        inner.in_loop = true;
        inner
    }

    fn for_stmt(&mut self, cx: &Ctx, budget: u64) -> Option<(Vec<String>, u64)> {
        let trips = self.trips(budget)?;
        let t = *self
            .rng
            .pick(&[Ty::Int, Ty::Int, Ty::Int, Ty::Long, Ty::UInt]);
        let k = self.name("k");
        // The bound: a constant, or a run-time value in 1..=trips kept in
        // a variable nothing assigns (loop optimizations see an unknown
        // trip count; the loop still runs at most `trips` times).
        let mut pre = Vec::new();
        let mut sfx = t.suffix();
        let mut bound = trips.to_string();
        if self.rng.one_in(3) {
            let n = self.name("n");
            let e = self.expr(cx, Ty::Int, 2);
            pre.push(format!("int {n} = {} + 1;", guard(&e.s, trips as u32)));
            bound = n;
            sfx = "";
        }
        let trips_text = bound;
        let form = self.rng.below(if t.is_signed() { 4 } else { 3 });
        let (head, range, n) = match form {
            0 => (
                format!("for ({} {k} = 0; {k} < {trips_text}{sfx}; {k}++)", t.c()),
                (0, trips - 1),
                trips,
            ),
            1 => (
                format!("for ({} {k} = 0; {k} < {trips_text}{sfx}; {k} += 2)", t.c()),
                (0, trips - 1),
                (trips + 1) / 2,
            ),
            2 => (
                format!("for ({} {k} = 1; {k} <= {trips_text}{sfx}; {k}++)", t.c()),
                (1, trips),
                trips,
            ),
            _ => (
                if pre.is_empty() {
                    format!("for ({} {k} = {}{sfx}; {k} >= 0; {k}--)", t.c(), trips - 1)
                } else {
                    format!("for ({} {k} = {trips_text} - 1; {k} >= 0; {k}--)", t.c())
                },
                (0, trips - 1),
                trips,
            ),
        };
        let mut inner = self.loop_ctx(cx);
        let mut kv = Var::new(
            k,
            Shape::Scalar(t),
            self.root(),
            Access::Read(Span::All),
            Role::Fixed,
        );
        kv.range = Some(range);
        inner.declare(kv);
        let nst = self.rng.range(1, 4) as usize;
        let (b, c) = self.stmts(&mut inner, nst, budget / n as u64);
        let mut out = Vec::new();
        braced(&mut out, head, b);
        let cost = n as u64 * (c + 2);
        if pre.is_empty() {
            Some((out, cost))
        } else {
            pre.extend(out);
            let mut wrapped = vec!["{".to_string()];
            wrapped.extend(indent(pre));
            wrapped.push("}".into());
            Some((wrapped, cost + 5))
        }
    }

    /// `while` / `do-while` with a counter advanced first thing in the
    /// body, so `continue` cannot skip it: the loop runs at most `trips`
    /// times whatever the body does.
    fn while_stmt(&mut self, cx: &Ctx, budget: u64, do_while: bool) -> Option<(Vec<String>, u64)> {
        let trips = self.trips(budget)?;
        let w = self.name("w");
        let mut inner = self.loop_ctx(cx);
        let mut wv = Var::new(
            w.clone(),
            Shape::Scalar(Ty::Int),
            self.root(),
            Access::Read(Span::All),
            Role::Fixed,
        );
        wv.range = Some((0, trips));
        inner.declare(wv);
        let mut cond = format!("{w} < {trips}");
        if self.rng.one_in(3)
            && let Some(sc) = self.side_cond(&inner)
        {
            cond = format!("{cond} && {}", sc.s);
        }
        let nst = self.rng.range(1, 4) as usize;
        let (b, c) = self.stmts(&mut inner, nst, budget / trips as u64);
        let mut body = vec![format!("{w}++;")];
        body.extend(b);
        let mut out = vec!["{".to_string(), format!("    int {w} = 0;")];
        let mut lp = Vec::new();
        if do_while {
            lp.push("do {".into());
            lp.extend(indent(body));
            lp.push(format!("}} while ({cond});"));
        } else if self.rng.one_in(4) {
            let mut b2 = vec![format!("if (!({cond}))"), "    break;".into()];
            b2.extend(body);
            braced(&mut lp, "while (1)".into(), b2);
        } else {
            braced(&mut lp, format!("while ({cond})"), body);
        }
        out.extend(indent(lp));
        out.push("}".into());
        Some((out, trips as u64 * (c + 4)))
    }

    fn jump(&mut self, cx: &Ctx) -> Option<(Vec<String>, u64)> {
        if !cx.in_loop {
            return None;
        }
        let word = if self.rng.one_in(2) {
            "break"
        } else {
            "continue"
        };
        if self.rng.one_in(8) {
            return Some((vec![format!("{word};")], 0));
        }
        let c = self.cond(cx, 2);
        Some((
            vec![format!("if ({})", c.s), format!("    {word};")],
            c.cost + 1,
        ))
    }

    /// A `parallel_for` over disjoint slices of one to three arrays this
    /// strand may write. With trip count `T` and a writable span of width
    /// `w` (a multiple of `T`), iteration `i` owns elements
    /// `base + i*(w/T) .. base + (i+1)*(w/T)`; a stepped loop
    /// (`i += s`, one width `w` for all arrays) owns `base + i .. base + i + s`.
    fn pfor(&mut self, cx: &Ctx, budget: u64) -> Option<(Vec<String>, u64)> {
        let mut cands: Vec<(String, usize, u32, String)> = Vec::new(); // name, root, width, base
        for v in cx.vars() {
            if v.role != Role::Plain {
                continue;
            }
            if let (Shape::Array(_, len), Some(span)) = (v.shape, v.access.writable()) {
                let (w, base) = match span {
                    Span::All => (len, String::new()),
                    Span::Sub(b, w) => (*w, b.clone()),
                };
                if w >= 2 && !cands.iter().any(|c| c.1 == v.root) {
                    cands.push((v.name.clone(), v.root, w, base));
                }
            }
        }
        if cands.is_empty() {
            return None;
        }
        let want = self.rng.range(1, 3.min(cands.len() as i64)) as usize;
        let mut chosen = Vec::new();
        for _ in 0..want {
            let c = cands.remove(self.rng.index(cands.len()));
            let g = chosen
                .iter()
                .fold(c.2, |g, x: &(String, usize, u32, String)| gcd(g, x.2));
            if chosen.is_empty() || g >= 2 {
                chosen.push(c);
            }
        }
        let g = chosen.iter().fold(0, |g, x| gcd(g, x.2));
        let same_width = chosen.iter().all(|c| c.2 == chosen[0].2);
        let i = self.name("i");
        let divisors: Vec<u32> = (2..=g).filter(|d| g % d == 0).collect();
        let stepped = same_width && self.rng.one_in(5);
        let (trips, step) = if stepped {
            let w = chosen[0].2;
            let steps: Vec<u32> = (1..=w / 2).filter(|d| w % d == 0).collect();
            let s = *self.rng.pick(&steps);
            (w / s, s)
        } else {
            (*self.rng.pick(&divisors), 1)
        };
        let per = budget / u64::from(trips);
        if per < 10 {
            return None;
        }
        let lo = if !stepped && trips > 2 && self.rng.one_in(4) {
            self.rng.range(1, 2) as u32
        } else {
            0
        };
        // The bound may be a variable (ParC evaluates it once; the serial
        // projection re-evaluates it, so it must not change: it is Fixed).
        let mut pre = Vec::new();
        let limit = if stepped { chosen[0].2 } else { trips };
        let bound = if self.rng.one_in(3) {
            let n = self.name("n");
            if self.rng.one_in(2) {
                pre.push(format!("int {n} = {limit};"));
            } else {
                // A run-time trip count in 1..=limit: fewer iterations own
                // fewer slices, still disjoint and in bounds.
                let e = self.expr(cx, Ty::Int, 2);
                pre.push(format!("int {n} = {} + 1;", guard(&e.s, limit)));
            }
            n
        } else {
            limit.to_string()
        };
        let head = if stepped {
            let st = if self.rng.one_in(2) {
                let n = self.name("st");
                pre.push(format!("int {n} = {step};"));
                n
            } else {
                step.to_string()
            };
            format!("parallel_for (int {i} = 0; {i} < {bound}; {i} += {st})")
        } else if self.rng.one_in(4) && bound.chars().all(|c| c.is_ascii_digit()) {
            format!("parallel_for (int {i} = {lo}; {i} <= {}; {i}++)", limit - 1)
        } else {
            format!("parallel_for (int {i} = {lo}; {i} < {bound}; {i}++)")
        };
        // The body's view: own slices writable, everything else shared
        // read-only (aliases of a written array: not at all).
        let mut body = cx.clone();
        let own: Vec<(String, usize, String, u32)> = chosen
            .iter()
            .map(|(name, root, w, base)| {
                let k = if stepped { step } else { w / trips };
                let term = if stepped || k == 1 {
                    i.clone()
                } else {
                    format!("{i} * {k}")
                };
                (name.clone(), *root, join_index(base, &term), k)
            })
            .collect();
        for v in body.vars_mut() {
            if let Some((name, _, own_base, k)) = own.iter().find(|o| o.1 == v.root) {
                v.access = if &v.name == name {
                    Access::Write(Span::Sub(own_base.clone(), *k))
                } else {
                    Access::None
                };
            } else if let Access::Write(s) = &v.access {
                v.access = Access::Read(s.clone());
            }
        }
        body.in_loop = false;
        body.can_return = false;
        body.globals_free = false;
        body.pfor_depth += 1;
        body.loop_depth += 1;
        body.depth += 1;
        body.scopes.push(Vec::new());
        let mut iv = Var::new(
            i.clone(),
            Shape::Scalar(Ty::Int),
            self.root(),
            Access::Read(Span::All),
            Role::Fixed,
        );
        iv.range = Some(if stepped {
            (0, i64::from(chosen[0].2) - 1)
        } else {
            (i64::from(lo), i64::from(trips) - 1)
        });
        body.declare(iv);
        let nst = self.rng.range(0, 3) as usize;
        let (mut lines, mut c) = self.stmts(&mut body, nst, per.saturating_sub(10));
        // Every chosen array is written by every iteration.
        for (name, ..) in &own {
            let v = body.vars().find(|v| &v.name == name).cloned();
            if let Some(v) = v {
                self.expr_budget = per / 4;
                let p = self.place_in(&body, &v);
                let e = self.expr(&body, p.ty, 3);
                let e = self.fit(e);
                c += p.cost + e.cost + 1;
                lines.push(format!("{} = {};", p.s, e.s));
            }
        }
        let mut out = Vec::new();
        braced(&mut out, head, lines);
        let total = u64::from(trips) * (c + 5);
        if pre.is_empty() {
            Some((out, total))
        } else {
            pre.extend(out);
            Some((
                vec!["{".into()]
                    .into_iter()
                    .chain(indent(pre))
                    .chain(["}".to_string()])
                    .collect(),
                total,
            ))
        }
    }

    /// `x = spawn f(...)`, `spawn g(...)` (or a loop of spawns over
    /// disjoint chunks), a continuation that keeps off everything the
    /// spawned calls write (and only reads what they read), then `sync`.
    fn spawn_region(&mut self, cx: &mut Ctx, budget: u64) -> Option<(Vec<String>, u64)> {
        let mut pre = Vec::new();
        let mut body = Vec::new();
        let mut region = cx.clone();
        let mut cost = 0;
        let mut any = false;
        for _ in 0..self.rng.range(1, 3) {
            if self.rng.one_in(4)
                && let Some((lines, c)) = self.spawn_loop(&mut region, budget.saturating_sub(cost))
            {
                body.extend(lines);
                cost += c;
                any = true;
                continue;
            }
            let mut cands: Vec<Func> = self.funcs[..cx.callable]
                .iter()
                .filter(|f| !f.bump && f.cost + cost <= budget)
                .cloned()
                .collect();
            let recursive =
                cx.rec && self.rec_sites > 0 && cx.loop_depth == 0 && cx.pfor_depth == 0;
            if recursive && let Some(f) = &self.current {
                cands.push(f.clone());
            }
            if cands.is_empty() {
                continue;
            }
            let f = cands[self.rng.index(cands.len())].clone();
            let is_self = self.current.as_ref().is_some_and(|c| c.name == f.name);
            self.expr_budget = 0;
            if is_self {
                // Taken before the arguments, which might recurse too.
                self.rec_sites -= 1;
            }
            let Some(args) = self.call_args(&region, &f, is_self, 2) else {
                continue;
            };
            cost += args.cost + if is_self { 2 } else { f.cost + 2 };
            for &r in &args.outs {
                region.lock(r, true);
            }
            for &r in &args.ins {
                region.lock(r, false);
            }
            let text = args.texts.join(", ");
            match f.ret {
                Some(t) if self.rng.percent(70) => {
                    let x = self.name("x");
                    pre.push(format!("{} {x} = 0;", t.c()));
                    let root = self.root();
                    cx.declare(Var::new(
                        x.clone(),
                        Shape::Scalar(t),
                        root,
                        Access::Write(Span::All),
                        Role::Plain,
                    ));
                    region.declare(Var::new(
                        x.clone(),
                        Shape::Scalar(t),
                        root,
                        Access::None,
                        Role::Plain,
                    ));
                    body.push(format!("{x} = spawn {}({text});", f.name));
                }
                _ => body.push(format!("spawn {}({text});", f.name)),
            }
            any = true;
        }
        if !any {
            return None;
        }
        region.in_loop = false;
        region.can_return = false;
        let n = self.rng.range(0, 3) as usize;
        let (b, c) = self.block(&region, n, budget.saturating_sub(cost));
        body.extend(b);
        body.push("sync;".into());
        cost += c;
        let mut out = pre;
        out.push("{".into());
        out.extend(indent(body));
        out.push("}".into());
        Some((out, cost + 2))
    }

    /// `for (k...) spawn f(a + k*c ...)`: one spawned call per disjoint
    /// chunk of an array this strand may write.
    fn spawn_loop(&mut self, region: &mut Ctx, budget: u64) -> Option<(Vec<String>, u64)> {
        let fs: Vec<Func> = self.funcs[..region.callable]
            .iter()
            .filter(|f| {
                !f.bump
                    && f.params
                        .iter()
                        .filter(|p| matches!(p, Param::Out(..) | Param::OutRange(_)))
                        .count()
                        == 1
            })
            .cloned()
            .collect();
        if fs.is_empty() {
            return None;
        }
        let f = fs[self.rng.index(fs.len())].clone();
        let out_idx = f
            .params
            .iter()
            .position(|p| matches!(p, Param::Out(..) | Param::OutRange(_)))?;
        let (elem, need) = match f.params[out_idx] {
            Param::Out(e, len) => (e, len),
            Param::OutRange(t) => (Elem::S(t), 1),
            _ => return None,
        };
        let cands: Vec<(String, usize, u32, String)> = region
            .vars()
            .filter(|v| v.role == Role::Plain)
            .filter_map(|v| match (v.shape, v.access.writable()) {
                (Shape::Array(e, n), Some(span)) if e == elem => Some(match span {
                    Span::All => (v.name.clone(), v.root, n, String::new()),
                    Span::Sub(b, w) => (v.name.clone(), v.root, *w, b.clone()),
                }),
                _ => None,
            })
            .filter(|c| c.2 >= 2 * need)
            .collect();
        if cands.is_empty() {
            return None;
        }
        let (name, root, w, base) = cands[self.rng.index(cands.len())].clone();
        // Chunks of `chunk >= need` elements, `parts` of them.
        let max_parts = w / need;
        let parts = self.rng.range(2, i64::from(max_parts.min(8))) as u32;
        let chunk = w / parts;
        let k = self.name("k");
        let mut inner = region.clone();
        inner.scopes.push(Vec::new());
        let mut kv = Var::new(
            k.clone(),
            Shape::Scalar(Ty::Int),
            self.root(),
            Access::Read(Span::All),
            Role::Fixed,
        );
        kv.range = Some((0, i64::from(parts) - 1));
        inner.declare(kv);
        // Other array arguments must not be the chunked array.
        inner.lock(root, true);
        self.expr_budget = 0;
        let mut args = self.call_args(
            &inner,
            &Func {
                params: f
                    .params
                    .iter()
                    .map(|p| {
                        if matches!(p, Param::Out(..) | Param::OutRange(_)) {
                            Param::S(Ty::Int)
                        } else {
                            *p
                        }
                    })
                    .collect(),
                ..f.clone()
            },
            false,
            1,
        )?;
        let start = join_index(&base, &format!("{k} * {chunk}"));
        args.texts[out_idx] = match f.params[out_idx] {
            Param::OutRange(_) => format!("{name}, {start}, {start} + {chunk}"),
            _ => format!("&{name}[{start}]"),
        };
        let cost = u64::from(parts) * (f.cost + args.cost + 3);
        if cost > budget {
            return None;
        }
        region.lock(root, true);
        for &r in &args.ins {
            region.lock(r, false);
        }
        let mut out = Vec::new();
        braced(
            &mut out,
            format!("for (int {k} = 0; {k} < {parts}; {k}++)"),
            vec![format!("spawn {}({});", f.name, args.texts.join(", "))],
        );
        Some((out, cost))
    }

    fn call_stmt(&mut self, cx: &mut Ctx) -> Option<(Vec<String>, u64)> {
        let budget = self.expr_budget * 2;
        let cands: Vec<Func> = self.funcs[..cx.callable]
            .iter()
            .filter(|f| (!f.bump || cx.globals_free) && f.cost <= budget)
            .cloned()
            .collect();
        if cands.is_empty() {
            return None;
        }
        let f = cands[self.rng.index(cands.len())].clone();
        self.expr_budget = 0;
        let args = self.call_args(cx, &f, false, 2)?;
        let call = format!("{}({})", f.name, args.texts.join(", "));
        let cost = f.cost + args.cost + 2;
        // A result goes to a fresh local: no other lvalue could be touched
        // by the call itself.
        match f.ret {
            Some(t) if self.rng.percent(70) => {
                let x = self.name("r");
                let root = self.root();
                cx.declare(Var::new(
                    x.clone(),
                    Shape::Scalar(t),
                    root,
                    Access::Write(Span::All),
                    Role::Plain,
                ));
                Some((vec![format!("{} {x} = {call};", t.c())], cost))
            }
            _ => Some((vec![format!("{call};")], cost)),
        }
    }

    /// `T *p = a + c;` and statements that use `p` (aliasing `a`).
    fn ptr_block(&mut self, cx: &Ctx, budget: u64) -> Option<(Vec<String>, u64)> {
        let cands: Vec<Var> = cx
            .vars()
            .filter(|v| {
                matches!(v.shape, Shape::Array(..) | Shape::Struct(_))
                    && v.access.readable() == Some(&Span::All)
                    && v.role == Role::Plain
            })
            .cloned()
            .collect();
        if cands.is_empty() {
            return None;
        }
        let base = cands[self.rng.index(cands.len())].clone();
        let p = self.name("q");
        let (decl, shape, ptr_of) = match base.shape {
            Shape::Struct(s) => (
                format!("struct {} *{p} = &{};", self.structs[s].name, base.name),
                Shape::Array(Elem::St(s), 1),
                None,
            ),
            Shape::Array(elem, len) => {
                let off = self.rng.below(u64::from(len)) as u32;
                let init = match (off, self.rng.below(2)) {
                    (0, 0) => base.name.clone(),
                    (_, 0) => format!("{} + {off}", base.name),
                    _ => format!("&{}[{off}]", base.name),
                };
                let ptr_of = (!base.is_ptr).then(|| (base.name.clone(), off));
                (
                    format!("{} *{p} = {init};", elem_c(elem, &self.structs)),
                    Shape::Array(elem, len - off),
                    ptr_of,
                )
            }
            Shape::Scalar(_) => return None,
        };
        let mut inner = cx.clone();
        inner.scopes.push(Vec::new());
        inner.depth += 1;
        let mut pv = Var::new(p, shape, base.root, base.access.clone(), Role::Plain);
        pv.is_ptr = true;
        pv.ptr_of = ptr_of;
        pv.global = base.global;
        inner.declare(pv);
        let n = self.rng.range(1, 3) as usize;
        let (b, c) = self.stmts(&mut inner, n, budget);
        let mut out = vec!["{".to_string(), format!("    {decl}")];
        out.extend(indent(b));
        out.push("}".into());
        Some((out, c + 1))
    }

    /// Walks an array with `q++`, folding it into a fresh local or
    /// storing into it.
    fn ptr_walk(&mut self, cx: &mut Ctx) -> Option<(Vec<String>, u64)> {
        let cands: Vec<Var> = cx
            .vars()
            .filter(|v| {
                matches!(v.shape, Shape::Array(Elem::S(_), _))
                    && v.access.readable() == Some(&Span::All)
                    && v.role == Role::Plain
            })
            .cloned()
            .collect();
        if cands.is_empty() {
            return None;
        }
        let a = cands[self.rng.index(cands.len())].clone();
        let Shape::Array(Elem::S(t), len) = a.shape else {
            return None;
        };
        let q = self.name("q");
        let k = self.name("k");
        let mut out = Vec::new();
        let mut lines = vec![format!("{} *{q} = {};", t.c(), a.name)];
        let write = a.access.writable().is_some() && a.role == Role::Plain && self.rng.one_in(3);
        let body: Vec<String>;
        let per;
        if write {
            let mut inner = cx.clone();
            inner.scopes.push(Vec::new());
            let mut kv = Var::new(
                k.clone(),
                Shape::Scalar(Ty::Int),
                self.root(),
                Access::Read(Span::All),
                Role::Fixed,
            );
            kv.range = Some((0, i64::from(len) - 1));
            inner.declare(kv);
            self.expr_budget = 0;
            let e = self.expr(&inner, t, 2);
            let e = self.fit(e);
            per = e.cost + 3;
            body = if self.rng.one_in(2) {
                vec![format!("*{q} = {};", e.s), format!("{q}++;")]
            } else {
                vec![format!("*{q}++ = {};", e.s)]
            };
        } else {
            let w = self.name("w");
            out.push(format!("long {w} = 0;"));
            let root = self.root();
            cx.declare(Var::new(
                w.clone(),
                Shape::Scalar(Ty::Long),
                root,
                Access::Write(Span::All),
                Role::Plain,
            ));
            let star = if self.rng.one_in(2) {
                format!("*{q}++")
            } else {
                format!("*{q}")
            };
            let e = E {
                s: star.clone(),
                ty: t,
                b: STORED,
                cost: 1,
            };
            let e = self.conv(e, Ty::Long);
            per = e.cost + 3;
            body = if star.ends_with("++") {
                vec![format!("{w} = {w} * 31L + {};", e.s)]
            } else {
                vec![format!("{w} = {w} * 31L + {};", e.s), format!("{q} += 1;")]
            };
        }
        braced(
            &mut lines,
            format!("for (int {k} = 0; {k} < {len}; {k}++)"),
            body,
        );
        out.push("{".into());
        out.extend(indent(lines));
        out.push("}".into());
        Some((out, u64::from(len) * per))
    }

    fn struct_copy(&mut self, cx: &Ctx) -> Option<(Vec<String>, u64)> {
        if self.structs.is_empty() {
            return None;
        }
        let sid = self.rng.index(self.structs.len());
        let (dst, c1) = self.struct_place(cx, sid, true)?;
        let (src, c2) = self.struct_place(cx, sid, false)?;
        Some((vec![format!("{dst} = {src};")], c1 + c2 + 4))
    }

    fn mem_stmt(&mut self, cx: &Ctx) -> Option<(Vec<String>, u64)> {
        let writable: Vec<Var> = cx
            .vars()
            .filter(|v| {
                matches!(v.shape, Shape::Array(..))
                    && v.access.writable().is_some()
                    && v.role == Role::Plain
            })
            .cloned()
            .collect();
        if writable.is_empty() {
            return None;
        }
        let d = writable[self.rng.index(writable.len())].clone();
        let Shape::Array(elem, len) = d.shape else {
            return None;
        };
        let ec = elem_c(elem, &self.structs);
        let (start, width) = match d.access.writable() {
            Some(Span::Sub(b, w)) => (format!("&{}[{b}]", d.name), *w),
            _ => (d.name.clone(), len),
        };
        if self.rng.one_in(2) && d.access.writable() == Some(&Span::All) {
            // memcpy from a different object: the ranges cannot overlap.
            let srcs: Vec<Var> = cx
                .vars()
                .filter(|v| {
                    v.root != d.root
                        && v.role == Role::Plain
                        && v.access.readable() == Some(&Span::All)
                        && matches!(v.shape, Shape::Array(e, _) if e == elem)
                })
                .cloned()
                .collect();
            if !srcs.is_empty() {
                let s = srcs[self.rng.index(srcs.len())].clone();
                let Shape::Array(_, slen) = s.shape else {
                    return None;
                };
                let n = len.min(slen);
                return Some((
                    vec![format!(
                        "memcpy({}, {}, {n} * sizeof({ec}));",
                        d.name, s.name
                    )],
                    u64::from(n) * 2,
                ));
            }
        }
        let byte =
            if self.rng.one_in(3) && matches!(elem, Elem::S(t) if !t.is_float() && t != Ty::Bool) {
                self.rng.below(256)
            } else {
                0
            };
        Some((
            vec![format!("memset({start}, {byte}, {width} * sizeof({ec}));")],
            u64::from(width),
        ))
    }

    fn return_stmt(&mut self, cx: &Ctx) -> Option<(Vec<String>, u64)> {
        if !cx.can_return {
            return None;
        }
        let c = self.cond(cx, 2);
        let value = match cx.ret {
            Some(t) => {
                let e = self.expr(cx, t, 2);
                let e = self.fit(e);
                format!("return {};", e.s)
            }
            None => "return;".into(),
        };
        Some((
            vec![format!("if ({})", c.s), format!("    {value}")],
            c.cost + 2,
        ))
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
