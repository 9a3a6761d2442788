//! What memory a function writes, as extents over its parameters: the
//! analysis a checkpoint's snapshot needs (`checkpoint.rs`).
//!
//! A function's summary is, per root (a pointer parameter or a global),
//! byte ranges `[lo, hi)` from the root, each taken only if its condition
//! `ne` holds; the bounds are expressions of the function's integer
//! parameters ([`Expr`]), so a caller substitutes its arguments and the
//! checkpoint's wrapper evaluates them when a segment starts. An address
//! is a root plus an offset affine in the induction variables of the
//! loops around the write (`p < bound` tested by the header, `p` counting
//! up by a constant from `lo`, `lo` and `bound` expressions of
//! parameters); each variable then lies in `[lo, bound - 1]` and the
//! extent is the offset's minimum and maximum over those ranges. Memory
//! allocated in the function (`alloca`, `malloc`, `calloc`) is fresh in
//! every run, so it needs no snapshot. Anything else is refused with its
//! position: a write through a pointer loaded from memory or chosen by a
//! `select`, an offset not affine in such variables (two variables
//! multiplied, a variable whose bounds change inside the segment),
//! indirect calls, launches, recursion, and effects a second run would
//! repeat (output, `exit`).
//!
//! Invariant: an extent covers every byte the function may write through
//! its root; it is never narrower (the snapshot would miss a byte and the
//! gradient would be wrong), and never reaches past what the writes touch
//! when they run (the snapshot reads it).

use parc_ir::analysis::FunctionAnalyses;
use parc_ir::intrinsic::Extent as Touch;
use parc_ir::{
    BinaryOp, Block, CastOp, FuncBuilder, FuncId, Function, GlobalId, Inst, InstKind, IntCC,
    Intrinsic, Module, SrcLoc, Type, Value, ValueDef,
};
use std::collections::HashMap;

/// An `i64` expression of a function's parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Const(i64),
    /// Integer parameter `i` (sign-extended to `i64`).
    Param(usize),
    Add(Box<Expr>, Box<Expr>),
    Sub(Box<Expr>, Box<Expr>),
    Mul(Box<Expr>, Box<Expr>),
    Min(Box<Expr>, Box<Expr>),
    Max(Box<Expr>, Box<Expr>),
    /// 1 if the first is less than the second (signed), else 0.
    Lt(Box<Expr>, Box<Expr>),
    /// The second if the first is not 0, else the third.
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
}

fn bin(f: fn(Box<Expr>, Box<Expr>) -> Expr, a: Expr, b: Expr) -> Expr {
    f(Box::new(a), Box::new(b))
}

impl Expr {
    pub(super) fn add(a: Expr, b: Expr) -> Expr {
        match (&a, &b) {
            (Expr::Const(0), _) => b,
            (_, Expr::Const(0)) => a,
            (Expr::Const(x), Expr::Const(y)) => Expr::Const(x.wrapping_add(*y)),
            _ => bin(Expr::Add, a, b),
        }
    }
    fn sub(a: Expr, b: Expr) -> Expr {
        match (&a, &b) {
            (_, Expr::Const(0)) => a,
            (Expr::Const(x), Expr::Const(y)) => Expr::Const(x.wrapping_sub(*y)),
            _ => bin(Expr::Sub, a, b),
        }
    }
    fn mul(a: Expr, b: Expr) -> Expr {
        match (&a, &b) {
            (Expr::Const(1), _) => b,
            (_, Expr::Const(1)) => a,
            (Expr::Const(0), _) | (_, Expr::Const(0)) => Expr::Const(0),
            (Expr::Const(x), Expr::Const(y)) => Expr::Const(x.wrapping_mul(*y)),
            _ => bin(Expr::Mul, a, b),
        }
    }
    fn and(a: Expr, b: Expr) -> Expr {
        match (&a, &b) {
            (Expr::Const(1), _) => b,
            (_, Expr::Const(1)) => a,
            _ => Expr::Select(Box::new(a), Box::new(b), Box::new(Expr::Const(0))),
        }
    }

    /// `self` with parameter `i` replaced by `args[i]`.
    pub fn subst(&self, args: &[Expr]) -> Expr {
        let s = |e: &Expr| Box::new(e.subst(args));
        match self {
            Expr::Const(c) => Expr::Const(*c),
            Expr::Param(i) => args[*i].clone(),
            Expr::Add(a, b) => Expr::add(a.subst(args), b.subst(args)),
            Expr::Sub(a, b) => Expr::sub(a.subst(args), b.subst(args)),
            Expr::Mul(a, b) => Expr::mul(a.subst(args), b.subst(args)),
            Expr::Min(a, b) => Expr::Min(s(a), s(b)),
            Expr::Max(a, b) => Expr::Max(s(a), s(b)),
            Expr::Lt(a, b) => Expr::Lt(s(a), s(b)),
            Expr::Select(c, a, b) => Expr::Select(s(c), s(a), s(b)),
        }
    }

    /// Emits `self` as an `i64` where `params[i]` is parameter `i`.
    pub fn emit(&self, b: &mut FuncBuilder, params: &[Value]) -> Value {
        match self {
            Expr::Const(c) => b.iconst(Type::I64, *c),
            Expr::Param(i) => {
                let v = params[*i];
                match b.func.value_type(v) {
                    Type::I64 => v,
                    _ => b.cast(CastOp::Sext, v, Type::I64),
                }
            }
            Expr::Add(x, y) | Expr::Sub(x, y) | Expr::Mul(x, y) => {
                let op = match self {
                    Expr::Add(..) => BinaryOp::Iadd,
                    Expr::Sub(..) => BinaryOp::Isub,
                    _ => BinaryOp::Imul,
                };
                let (x, y) = (x.emit(b, params), y.emit(b, params));
                b.binary(op, x, y)
            }
            Expr::Min(x, y) | Expr::Max(x, y) => {
                let (x, y) = (x.emit(b, params), y.emit(b, params));
                let lt = b.icmp(IntCC::Slt, x, y);
                if matches!(self, Expr::Min(..)) {
                    b.select(lt, x, y)
                } else {
                    b.select(lt, y, x)
                }
            }
            Expr::Lt(x, y) => {
                let (x, y) = (x.emit(b, params), y.emit(b, params));
                let lt = b.icmp(IntCC::Slt, x, y);
                b.cast(CastOp::Zext, lt, Type::I64)
            }
            Expr::Select(c, x, y) => {
                let c = c.emit(b, params);
                let zero = b.iconst(Type::I64, 0);
                let c = b.icmp(IntCC::Ne, c, zero);
                let (x, y) = (x.emit(b, params), y.emit(b, params));
                b.select(c, x, y)
            }
        }
    }
}

/// Where written memory starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Root {
    Param(usize),
    Global(GlobalId),
}

/// Bytes `[lo, hi)` from `root`, written only if `ne` is not 0.
#[derive(Clone, Debug, PartialEq)]
pub struct Written {
    pub root: Root,
    pub lo: Expr,
    pub hi: Expr,
    pub ne: Expr,
}

/// Why a function's writes cannot be bounded: the function, where, what.
#[derive(Clone, Debug, PartialEq)]
pub struct Unbounded {
    pub function: String,
    pub loc: SrcLoc,
    pub what: String,
}

/// Summaries of the functions analysed so far (`None` while one is being
/// analysed: a call back into it is recursion).
#[derive(Default)]
pub struct Summaries {
    done: HashMap<FuncId, Option<Vec<Written>>>,
}

impl Summaries {
    /// Everything function `f` may write, by root (see the module doc).
    pub fn of(&mut self, m: &Module, f: FuncId) -> Result<Vec<Written>, Unbounded> {
        match self.done.get(&f) {
            Some(Some(w)) => return Ok(w.clone()),
            Some(None) => {
                return Err(Unbounded {
                    function: m.funcs[f].name.clone(),
                    loc: SrcLoc::default(),
                    what: "it is recursive".into(),
                });
            }
            None => {}
        }
        self.done.insert(f, None);
        let w = Walk::new(m, f).run(self)?;
        self.done.insert(f, Some(w.clone()));
        Ok(w)
    }
}

/// An offset affine in induction variables: `c + Σ coef·iv`.
#[derive(Clone, Debug)]
pub(super) struct Affine {
    pub(super) c: Expr,
    pub(super) terms: Vec<(Value, Expr)>,
}

impl Affine {
    fn constant(c: Expr) -> Affine {
        Affine {
            c,
            terms: Vec::new(),
        }
    }
    fn plus(mut self, o: Affine, sign: i64) -> Affine {
        let s = |e: Expr| Expr::mul(Expr::Const(sign), e);
        self.c = Expr::add(self.c, s(o.c));
        for (iv, k) in o.terms {
            match self.terms.iter_mut().find(|(v, _)| *v == iv) {
                Some((_, k0)) => *k0 = Expr::add(k0.clone(), s(k)),
                None => self.terms.push((iv, s(k))),
            }
        }
        self
    }
    fn scaled(mut self, k: Expr) -> Affine {
        self.c = Expr::mul(k.clone(), self.c);
        for (_, c) in &mut self.terms {
            *c = Expr::mul(k.clone(), c.clone());
        }
        self
    }
}

/// An induction variable's range: `[lo, last]` when `ne`, counting up
/// by `step`.
#[derive(Clone, Debug)]
pub(super) struct Range {
    lo: Expr,
    last: Expr,
    ne: Expr,
    pub(super) step: i64,
    /// Only blocks this dominates see the variable in its range.
    body: Block,
}

/// The analysis of one function (also `scratch.rs`'s).
pub(super) struct Walk<'m> {
    m: &'m Module,
    pub(super) f: &'m Function,
    pub(super) an: FunctionAnalyses,
    ivs: HashMap<Value, Option<Range>>,
}

impl<'m> Walk<'m> {
    pub(super) fn new(m: &'m Module, id: FuncId) -> Walk<'m> {
        let f = &m.funcs[id];
        Walk {
            m,
            f,
            an: FunctionAnalyses::compute(f),
            ivs: HashMap::new(),
        }
    }

    fn refuse(&self, inst: Inst, what: String) -> Unbounded {
        Unbounded {
            function: self.f.name.clone(),
            loc: self.f.locs[inst],
            what,
        }
    }

    fn run(mut self, sums: &mut Summaries) -> Result<Vec<Written>, Unbounded> {
        let mut out = Vec::new();
        let placed: Vec<(Block, Inst)> = self.f.placed_insts().collect();
        for (b, i) in placed {
            if !self.an.cfg.is_reachable(b) {
                continue;
            }
            let mut write = |w: &mut Self, ptr: Value, len: Expr| -> Result<(), Unbounded> {
                if let Some(x) = w.extent(b, i, ptr, len)? {
                    out.push(x);
                }
                Ok(())
            };
            match self.f.inst(i).clone() {
                InstKind::Store { value, ptr } => {
                    let size = self.f.value_type(value).bytes() as i64;
                    write(&mut self, ptr, Expr::Const(size))?;
                }
                InstKind::Intrinsic { op, args } => {
                    let e = op.effects();
                    let repeats = e.side_effects
                        && !matches!(op, Intrinsic::AtomicAdd | Intrinsic::AdTapeNote);
                    if e.any_memory || repeats {
                        return Err(self.refuse(
                            i,
                            format!("it calls `{}`, which a second run would repeat", op.name()),
                        ));
                    }
                    for t in e.writes {
                        match *t {
                            Touch::Sized { ptr, len } => {
                                let len = self.invariant(args[len], i)?;
                                write(&mut self, args[ptr], len)?;
                            }
                            Touch::Fixed { ptr, size } => {
                                write(&mut self, args[ptr], Expr::Const(size as i64))?
                            }
                            Touch::TypeOf { ptr, like } => {
                                let size = self.f.value_type(args[like]).bytes() as i64;
                                write(&mut self, args[ptr], Expr::Const(size))?;
                            }
                            Touch::Unsized(ptr) | Touch::Pointers { first: ptr } => {
                                // `free`: only of memory the function
                                // allocated (fresh in every run).
                                if self.root(args[ptr], i)?.is_some() {
                                    return Err(self.refuse(
                                        i,
                                        format!(
                                            "it calls `{}` on memory allocated before it",
                                            op.name()
                                        ),
                                    ));
                                }
                            }
                        }
                    }
                }
                InstKind::Call { func, args } => {
                    let callee = sums.of(self.m, func).map_err(|e| {
                        if e.loc.is_known() {
                            e
                        } else {
                            self.refuse(i, format!("its callee `{}`: {}", e.function, e.what))
                        }
                    })?;
                    for w in callee {
                        if let Some(x) = self.instance(b, i, &args, &w)? {
                            out.push(x);
                        }
                    }
                }
                InstKind::CallIndirect { .. } => {
                    return Err(self.refuse(i, "it calls through a function pointer".into()));
                }
                InstKind::Launch { .. } => {
                    return Err(self.refuse(i, "it launches a kernel".into()));
                }
                _ => {}
            }
        }
        let mut unique: Vec<Written> = Vec::new();
        for w in out {
            if !unique.contains(&w) {
                unique.push(w);
            }
        }
        Ok(unique)
    }

    /// The extent of `len` bytes written at `ptr` in block `b`, `None` for
    /// fresh memory.
    fn extent(
        &mut self,
        b: Block,
        at: Inst,
        ptr: Value,
        len: Expr,
    ) -> Result<Option<Written>, Unbounded> {
        let Some((root, off)) = self.root(ptr, at)? else {
            return Ok(None);
        };
        let mut w = self.range(b, at, off)?;
        w.root = root;
        w.hi = Expr::add(w.hi, len);
        Ok(Some(w))
    }

    /// The minimum and maximum of `off` over its variables' ranges, as an
    /// extent `[min, max)` of an unset root.
    pub(super) fn range(&mut self, b: Block, at: Inst, off: Affine) -> Result<Written, Unbounded> {
        let (mut lo, mut hi, mut ne) = (off.c.clone(), off.c, Expr::Const(1));
        for (iv, k) in off.terms {
            let r = self.iv_range(iv, at)?;
            if !self.an.domtree.dominates(r.body, b) {
                return Err(self.refuse(at, "an address uses a counter outside its loop".into()));
            }
            let (a, z) = (
                Expr::mul(k.clone(), r.lo.clone()),
                Expr::mul(k, r.last.clone()),
            );
            lo = Expr::add(lo, bin(Expr::Min, a.clone(), z.clone()));
            hi = Expr::add(hi, bin(Expr::Max, a, z));
            ne = Expr::and(ne, r.ne);
        }
        Ok(Written {
            root: Root::Param(0),
            lo,
            hi,
            ne,
        })
    }

    /// The callee's extent `w` seen from call `at` with `args`.
    pub(super) fn instance(
        &mut self,
        b: Block,
        at: Inst,
        args: &[Value],
        w: &Written,
    ) -> Result<Option<Written>, Unbounded> {
        let mut ints = Vec::new();
        for &a in args {
            ints.push(if self.f.value_type(a).is_int() {
                self.invariant(a, at).unwrap_or(Expr::Const(0))
            } else {
                Expr::Const(0)
            });
        }
        // Integer arguments the extent uses must be invariant here.
        let used = uses(&w.lo) | uses(&w.hi) | uses(&w.ne);
        for (k, &a) in args.iter().enumerate() {
            if k < 64 && used & (1 << k) != 0 {
                self.invariant(a, at)?;
            } else if k >= 64 {
                return Err(self.refuse(at, "a call with more than 64 arguments".into()));
            }
        }
        let (lo, hi, ne) = (w.lo.subst(&ints), w.hi.subst(&ints), w.ne.subst(&ints));
        let (root, off) = match w.root {
            Root::Global(g) => (Root::Global(g), Affine::constant(Expr::Const(0))),
            Root::Param(k) => match self.root(args[k], at)? {
                Some(r) => r,
                None => return Ok(None),
            },
        };
        let mut x = self.range(b, at, off)?;
        x.root = root;
        x.lo = Expr::add(x.lo, lo);
        x.hi = Expr::add(x.hi, hi);
        x.ne = Expr::and(x.ne, ne);
        Ok(Some(x))
    }

    /// `ptr` as a root plus an offset; `None` for fresh memory.
    pub(super) fn root(
        &mut self,
        ptr: Value,
        at: Inst,
    ) -> Result<Option<(Root, Affine)>, Unbounded> {
        match self.f.value_def(ptr) {
            ValueDef::Param(blk, k) if Some(blk) == self.f.entry() => Ok(Some((
                Root::Param(k as usize),
                Affine::constant(Expr::Const(0)),
            ))),
            ValueDef::Result(i) => match self.f.inst(i).clone() {
                InstKind::PtrAdd(p, off) => {
                    let Some(r) = self.root(p, at)? else {
                        return Ok(None);
                    };
                    let off = self.affine(off, at)?;
                    Ok(Some((r.0, r.1.plus(off, 1))))
                }
                InstKind::GlobalAddr(g) => {
                    Ok(Some((Root::Global(g), Affine::constant(Expr::Const(0)))))
                }
                InstKind::Alloca { .. } => Ok(None),
                InstKind::Intrinsic {
                    op: Intrinsic::Malloc | Intrinsic::Calloc,
                    ..
                } => Ok(None),
                _ => Err(self.refuse(
                    at,
                    "it writes through a pointer loaded from memory, chosen or computed".into(),
                )),
            },
            _ => Err(self.refuse(
                at,
                "it writes through a pointer that is a block parameter".into(),
            )),
        }
    }

    /// `v` as an expression of the parameters (no induction variable).
    pub(super) fn invariant(&mut self, v: Value, at: Inst) -> Result<Expr, Unbounded> {
        let a = self.affine(v, at)?;
        if a.terms.is_empty() {
            Ok(a.c)
        } else {
            Err(self.refuse(at, "a length or bound changes inside the code".into()))
        }
    }

    /// The integer `v` as an affine form.
    fn affine(&mut self, v: Value, at: Inst) -> Result<Affine, Unbounded> {
        let not_affine =
            |w: &Self| w.refuse(at, "an address is not affine in loop counters".into());
        match self.f.value_def(v) {
            ValueDef::Param(blk, k) if Some(blk) == self.f.entry() => {
                if !self.f.value_type(v).is_int() {
                    return Err(not_affine(self));
                }
                Ok(Affine::constant(Expr::Param(k as usize)))
            }
            ValueDef::Param(..) if self.forwarded(v).is_some() => {
                let from = self.forwarded(v).expect("checked");
                self.affine(from, at)
            }
            ValueDef::Param(..) => {
                self.iv_range(v, at)?;
                Ok(Affine {
                    c: Expr::Const(0),
                    terms: vec![(v, Expr::Const(1))],
                })
            }
            ValueDef::Result(i) => match self.f.inst(i).clone() {
                InstKind::Iconst(c) => Ok(Affine::constant(Expr::Const(c))),
                InstKind::Binary(op @ (BinaryOp::Iadd | BinaryOp::Isub), x, y) => {
                    let (x, y) = (self.affine(x, at)?, self.affine(y, at)?);
                    Ok(x.plus(y, if op == BinaryOp::Iadd { 1 } else { -1 }))
                }
                InstKind::Binary(BinaryOp::Imul, x, y) => {
                    let (x, y) = (self.affine(x, at)?, self.affine(y, at)?);
                    if y.terms.is_empty() {
                        Ok(x.scaled(y.c))
                    } else if x.terms.is_empty() {
                        Ok(y.scaled(x.c))
                    } else {
                        Err(not_affine(self))
                    }
                }
                InstKind::Binary(BinaryOp::Shl, x, y) => match self.f.const_int(y) {
                    Some(s @ 0..=32) => Ok(self.affine(x, at)?.scaled(Expr::Const(1 << s))),
                    _ => Err(not_affine(self)),
                },
                // The program's integer arithmetic does not wrap (C's
                // signed overflow is undefined), so a widened offset is
                // the narrow one.
                InstKind::Cast(CastOp::Sext | CastOp::Zext | CastOp::Trunc, x) => {
                    self.affine(x, at)
                }
                _ => Err(not_affine(self)),
            },
        }
    }

    /// The value block parameter `v` always holds: the argument of the
    /// one edge into a block with a single predecessor that is no loop
    /// header (an edge split in two passes its values on this way).
    fn forwarded(&self, v: Value) -> Option<Value> {
        let f = self.f;
        let ValueDef::Param(blk, n) = f.value_def(v) else {
            return None;
        };
        if self.an.loops.loop_headed_by(blk).is_some() {
            return None;
        }
        let [pred] = self.an.cfg.preds(blk) else {
            return None;
        };
        let t = f.terminator(*pred)?;
        let calls = f.inst(t).block_calls();
        let mut to = calls.iter().filter(|c| c.block == blk);
        let c = to.next()?;
        if to.next().is_some() {
            return None;
        }
        c.args.get(n as usize).copied()
    }

    /// The range of induction variable `v` (a loop header's parameter).
    pub(super) fn iv_range(&mut self, v: Value, at: Inst) -> Result<Range, Unbounded> {
        if let Some(r) = self.ivs.get(&v) {
            return r.clone().ok_or_else(|| {
                self.refuse(at, "an address uses a value carried by a loop".into())
            });
        }
        self.ivs.insert(v, None);
        let r = self.find_iv(v);

        self.ivs.insert(v, r.clone());
        r.ok_or_else(|| {
            self.refuse(
                at,
                "an address uses a value carried by a loop that is not a counter from an \
                 invariant start below an invariant bound"
                    .into(),
            )
        })
    }

    fn find_iv(&mut self, v: Value) -> Option<Range> {
        let f = self.f;
        let ValueDef::Param(h, n) = f.value_def(v) else {
            return None;
        };
        let lp = self.an.loops.loop_headed_by(h)?;
        let ld = self.an.loops.data(lp).clone();
        let [latch] = ld.latches[..] else { return None };
        let args_to = |from: Block| -> Option<Vec<Value>> {
            let t = f.terminator(from)?;
            let calls = f.inst(t).block_calls();
            let mut to_h = calls.iter().filter(|c| c.block == h);
            let c = to_h.next()?;
            to_h.next().is_none().then(|| c.args.clone())
        };
        let preds: Vec<Block> = self.an.cfg.preds(h).to_vec();
        let outside: Vec<Block> = preds.into_iter().filter(|&p| !ld.contains(p)).collect();
        let [pre] = outside[..] else { return None };
        let lo = *args_to(pre)?.get(n as usize)?;
        let next = *args_to(latch)?.get(n as usize)?;
        let ValueDef::Result(ni) = f.value_def(next) else {
            return None;
        };
        let step = match *f.inst(ni) {
            InstKind::Binary(BinaryOp::Iadd, a, s) if a == v && f.const_int(s)? > 0 => {
                f.const_int(s)?
            }
            InstKind::Binary(BinaryOp::Iadd, s, a) if a == v && f.const_int(s)? > 0 => {
                f.const_int(s)?
            }
            _ => return None,
        };
        let t = f.terminator(h)?;
        let InstKind::Brif {
            cond,
            then_dest,
            else_dest,
        } = f.inst(t)
        else {
            return None;
        };
        if !ld.contains(then_dest.block)
            || ld.contains(else_dest.block)
            || self.an.cfg.preds(then_dest.block) != [h]
        {
            return None;
        }
        let ValueDef::Result(ci) = f.value_def(*cond) else {
            return None;
        };
        let InstKind::Icmp(cc, x, bound) = *f.inst(ci) else {
            return None;
        };
        if x != v {
            return None;
        }
        let (_, inclusive) = cc.upper_bound()?;
        let body = then_dest.block;
        let lo_e = self.invariant(lo, t).ok()?;
        let bound_e = self.invariant(bound, t).ok()?;
        let (last, ne) = if inclusive {
            (
                bound_e.clone(),
                bin(Expr::Lt, lo_e.clone(), Expr::add(bound_e, Expr::Const(1))),
            )
        } else {
            (
                Expr::sub(bound_e.clone(), Expr::Const(1)),
                bin(Expr::Lt, lo_e.clone(), bound_e),
            )
        };
        Some(Range {
            lo: lo_e,
            last,
            ne,
            step,
            body,
        })
    }
}

/// A bit per parameter `e` uses (the first 64).
fn uses(e: &Expr) -> u64 {
    match e {
        Expr::Const(_) => 0,
        Expr::Param(i) => 1u64.checked_shl(*i as u32).unwrap_or(0),
        Expr::Add(a, b)
        | Expr::Sub(a, b)
        | Expr::Mul(a, b)
        | Expr::Min(a, b)
        | Expr::Max(a, b)
        | Expr::Lt(a, b) => uses(a) | uses(b),
        Expr::Select(c, a, b) => uses(c) | uses(a) | uses(b),
    }
}

/// The arguments of the call of `callee` in function `caller` as
/// expressions of `caller`'s parameters, where they are invariant
/// integers; any other argument `i` becomes `Param(offset + i)`, a
/// parameter `caller` does not have (equal only to itself).
pub fn call_args(m: &Module, caller: FuncId, callee: FuncId, offset: usize) -> Vec<Expr> {
    let mut walk = Walk::new(m, caller);
    let f = walk.f;
    let call = f.placed_insts().find_map(|(_, i)| match f.inst(i) {
        InstKind::Call { func, args } if *func == callee => Some((i, args.clone())),
        _ => None,
    });
    let Some((at, args)) = call else {
        return Vec::new();
    };
    args.iter()
        .enumerate()
        .map(|(k, &a)| {
            let int = f.value_type(a).is_int();
            int.then(|| walk.invariant(a, at).ok())
                .flatten()
                .unwrap_or(Expr::Param(offset + k))
        })
        .collect()
}

/// The extents by root, in the order the roots first appear, without
/// repeats.
pub fn by_root(ws: &[Written]) -> Vec<(Root, Vec<Written>)> {
    let mut out: Vec<(Root, Vec<Written>)> = Vec::new();
    for w in ws {
        let i = match out.iter().position(|(r, _)| *r == w.root) {
            Some(i) => i,
            None => {
                out.push((w.root, Vec::new()));
                out.len() - 1
            }
        };
        if !out[i].1.contains(w) {
            out[i].1.push(w.clone());
        }
    }
    out
}
