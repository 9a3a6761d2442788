//! Adjoint rules of the pure floating instructions, as a table.
//!
//! Each [`Rule`] maps an instruction kind to the contributions its operands
//! receive from the adjoint `a` of its result: a list of `(operand index,
//! value)` pairs that the reversal adds to the operands' adjoints (only for
//! operands that are varied). Rules emit their arithmetic through
//! [`AdjointBuilder`], which also makes primal operand and result values
//! available in the reverse sweep (recorded or recomputed: the rule does not
//! care).
//!
//! Memory instructions (`load`, `store`, `memcpy`, `memset`, allocation)
//! and calls change shadow memory rather than SSA adjoints; their rules are
//! in `reverse/adjoint.rs` next to the shadow bookkeeping, and documented in the
//! crate's design (`load`: `d[p] += a`; `store v, p`: `adj(v) += d[p];
//! d[p] = 0`; `memcpy`: `dsrc += ddst; ddst = 0`; `memset`: `ddst = 0`).
//!
//! Invariant: every floating instruction kind that may have a varied result
//! has exactly one entry here; [`lookup`] returning `None` for such an
//! instruction is an error the reversal reports (never a silent zero).

use parc_ir::{BinaryOp, CastOp, FloatCC, InstKind, Intrinsic, Type, UnaryOp, Value};

/// What a rule may emit into the reverse sweep.
pub trait AdjointBuilder {
    /// Primal operand `i` of the instruction, available in the reverse sweep.
    fn op(&mut self, i: usize) -> Value;
    /// The primal result, available in the reverse sweep.
    fn res(&mut self) -> Value;
    /// The result's type.
    fn ty(&self) -> Type;
    fn fconst(&mut self, ty: Type, c: f64) -> Value;
    fn bin(&mut self, op: BinaryOp, a: Value, b: Value) -> Value;
    fn neg(&mut self, a: Value) -> Value;
    fn math(&mut self, op: Intrinsic, args: Vec<Value>) -> Value;
    fn fcmp(&mut self, cc: FloatCC, a: Value, b: Value) -> Value;
    fn select(&mut self, c: Value, a: Value, b: Value) -> Value;
    fn cast(&mut self, op: CastOp, a: Value, to: Type) -> Value;
    /// True if operand `i` is varied (so its contribution is worth computing).
    fn wants(&self, i: usize) -> bool;
}

/// Which instructions a rule applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleKey {
    Binary(BinaryOp),
    Unary(UnaryOp),
    Cast(CastOp),
    Select,
    Math(Intrinsic),
}

/// Contributions `(operand index, value)` given the result's adjoint.
pub type RuleFn = fn(&mut dyn AdjointBuilder, Value) -> Vec<(usize, Value)>;

pub struct Rule {
    pub key: RuleKey,
    /// The derivative in words, for documentation and `--explain-ad`.
    pub formula: &'static str,
    pub apply: RuleFn,
}

use BinaryOp::{Fadd, Fdiv, Fmul, Fsub};

/// The table.
pub static RULES: &[Rule] = &[
    Rule {
        key: RuleKey::Binary(Fadd),
        formula: "dx += a; dy += a",
        apply: |_, a| vec![(0, a), (1, a)],
    },
    Rule {
        key: RuleKey::Binary(Fsub),
        formula: "dx += a; dy -= a",
        apply: |b, a| {
            let n = if b.wants(1) { b.neg(a) } else { a };
            vec![(0, a), (1, n)]
        },
    },
    Rule {
        key: RuleKey::Binary(Fmul),
        formula: "dx += a*y; dy += a*x",
        apply: |b, a| {
            let mut out = Vec::new();
            if b.wants(0) {
                let y = b.op(1);
                out.push((0, b.bin(Fmul, a, y)));
            }
            if b.wants(1) {
                let x = b.op(0);
                out.push((1, b.bin(Fmul, a, x)));
            }
            out
        },
    },
    Rule {
        key: RuleKey::Binary(Fdiv),
        // One division, by `y` alone: the optimizer hoists `1/y` out of a
        // reverse loop where `y` is invariant (normalize's `/ mag`), and a
        // divider-bound loop (n-body) does one division instead of two.
        // The adjoints differ from `a/y` by at most an ulp or so. `x r`
        // does not wait for the adjoint `a`, which arrives at the end of
        // the reverse's longest chain: multiplying by `a` once, last,
        // keeps the chain from `a` (and from the division) one
        // multiplication shorter than `((a r) x) r`.
        formula: "r = 1/y; dx += a r; dy -= (a r) (x r)",
        apply: |b, a| {
            let ty = b.ty();
            let y = b.op(1);
            let one = b.fconst(ty, 1.0);
            let r = b.bin(Fdiv, one, y);
            let q = b.bin(Fmul, a, r);
            let mut out = vec![(0, q)];
            if b.wants(1) {
                let x = b.op(0);
                let xr = b.bin(Fmul, x, r);
                let t = b.bin(Fmul, q, xr);
                out.push((1, b.neg(t)));
            }
            out
        },
    },
    Rule {
        key: RuleKey::Unary(UnaryOp::Fneg),
        formula: "dx -= a",
        apply: |b, a| vec![(0, b.neg(a))],
    },
    Rule {
        key: RuleKey::Cast(CastOp::FpExt),
        formula: "dx += fptrunc(a)",
        apply: |b, a| vec![(0, b.cast(CastOp::FpTrunc, a, Type::F32))],
    },
    Rule {
        key: RuleKey::Cast(CastOp::FpTrunc),
        formula: "dx += fpext(a)",
        apply: |b, a| vec![(0, b.cast(CastOp::FpExt, a, Type::F64))],
    },
    Rule {
        key: RuleKey::Select,
        formula: "da += c ? a : 0; db += c ? 0 : a",
        apply: |b, a| {
            let ty = b.ty();
            let c = b.op(0);
            let z = b.fconst(ty, 0.0);
            let x = b.select(c, a, z);
            let y = b.select(c, z, a);
            vec![(1, x), (2, y)]
        },
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Sqrt),
        // Through `1/r`, the same instruction the division rule makes for
        // a quotient by `r` (`m / sqrt(d)` in n-body), so that GVN leaves
        // one division where there were two. The adjoint `a` is multiplied
        // last, by `1/(2r)` computed while it is still on its way (as in
        // the division's rule; the same bits as `(a/2) (1/r)`: halving is
        // exact away from subnormals).
        formula: "r = sqrt x; dx += a (1/(2r))",
        apply: |b, a| {
            let ty = b.ty();
            let r = b.res();
            let one = b.fconst(ty, 1.0);
            let inv = b.bin(Fdiv, one, r);
            let half = b.fconst(ty, 0.5);
            let h = b.bin(Fmul, inv, half);
            vec![(0, b.bin(Fmul, a, h))]
        },
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Exp),
        formula: "dx += a exp x",
        apply: |b, a| {
            let r = b.res();
            vec![(0, b.bin(Fmul, a, r))]
        },
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Log),
        formula: "dx += a / x",
        apply: |b, a| {
            let x = b.op(0);
            vec![(0, b.bin(Fdiv, a, x))]
        },
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Pow),
        formula: "dx += a y x^(y-1); dy += a x^y log x",
        apply: |b, a| {
            let ty = b.ty();
            let mut out = Vec::new();
            if b.wants(0) {
                let (x, y) = (b.op(0), b.op(1));
                let one = b.fconst(ty, 1.0);
                let ym1 = b.bin(Fsub, y, one);
                let p = b.math(Intrinsic::Pow, vec![x, ym1]);
                let t = b.bin(Fmul, y, p);
                out.push((0, b.bin(Fmul, a, t)));
            }
            if b.wants(1) {
                let x = b.op(0);
                let r = b.res();
                let l = b.math(Intrinsic::Log, vec![x]);
                let t = b.bin(Fmul, r, l);
                out.push((1, b.bin(Fmul, a, t)));
            }
            out
        },
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Sin),
        formula: "dx += a cos x",
        apply: |b, a| {
            let x = b.op(0);
            let c = b.math(Intrinsic::Cos, vec![x]);
            vec![(0, b.bin(Fmul, a, c))]
        },
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Cos),
        formula: "dx -= a sin x",
        apply: |b, a| {
            let x = b.op(0);
            let s = b.math(Intrinsic::Sin, vec![x]);
            let t = b.bin(Fmul, a, s);
            vec![(0, b.neg(t))]
        },
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Tan),
        formula: "dx += a (1 + tan² x)",
        apply: |b, a| {
            let ty = b.ty();
            let r = b.res();
            let one = b.fconst(ty, 1.0);
            let r2 = b.bin(Fmul, r, r);
            let t = b.bin(Fadd, one, r2);
            vec![(0, b.bin(Fmul, a, t))]
        },
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Tanh),
        formula: "dx += a (1 - tanh² x)",
        apply: |b, a| {
            let ty = b.ty();
            let r = b.res();
            let one = b.fconst(ty, 1.0);
            let r2 = b.bin(Fmul, r, r);
            let t = b.bin(Fsub, one, r2);
            vec![(0, b.bin(Fmul, a, t))]
        },
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Fabs),
        formula: "dx += x < 0 ? -a : a",
        apply: |b, a| {
            let ty = b.ty();
            let x = b.op(0);
            let z = b.fconst(ty, 0.0);
            let c = b.fcmp(FloatCC::Lt, x, z);
            let n = b.neg(a);
            vec![(0, b.select(c, n, a))]
        },
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Fmin),
        formula: "the chosen operand gets a (x on ties)",
        apply: min_max,
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Fmax),
        formula: "the chosen operand gets a (x on ties)",
        apply: min_max,
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Floor),
        formula: "0 (piecewise constant)",
        apply: |_, _| Vec::new(),
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Ceil),
        formula: "0 (piecewise constant)",
        apply: |_, _| Vec::new(),
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Atan),
        formula: "dx += a / (1 + x²)",
        apply: |b, a| {
            let x = b.op(0);
            let d = one_plus_square(b, x, Fadd);
            vec![(0, b.bin(Fdiv, a, d))]
        },
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Atan2),
        formula: "atan2(y, x): r = x² + y²; dy += a x / r; dx -= a y / r",
        apply: |b, a| {
            let (y, x) = (b.op(0), b.op(1));
            let xx = b.bin(Fmul, x, x);
            let yy = b.bin(Fmul, y, y);
            let r = b.bin(Fadd, xx, yy);
            let q = b.bin(Fdiv, a, r);
            let mut out = Vec::new();
            if b.wants(0) {
                out.push((0, b.bin(Fmul, q, x)));
            }
            if b.wants(1) {
                let t = b.bin(Fmul, q, y);
                out.push((1, b.neg(t)));
            }
            out
        },
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Asin),
        formula: "dx += a / sqrt(1 - x²)",
        apply: |b, a| {
            let x = b.op(0);
            let d = sqrt_one_minus_square(b, x);
            vec![(0, b.bin(Fdiv, a, d))]
        },
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Acos),
        formula: "dx -= a / sqrt(1 - x²)",
        apply: |b, a| {
            let x = b.op(0);
            let d = sqrt_one_minus_square(b, x);
            let q = b.bin(Fdiv, a, d);
            vec![(0, b.neg(q))]
        },
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Sinh),
        formula: "dx += a cosh x",
        apply: |b, a| {
            let x = b.op(0);
            let c = b.math(Intrinsic::Cosh, vec![x]);
            vec![(0, b.bin(Fmul, a, c))]
        },
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Cosh),
        formula: "dx += a sinh x",
        apply: |b, a| {
            let x = b.op(0);
            let s = b.math(Intrinsic::Sinh, vec![x]);
            vec![(0, b.bin(Fmul, a, s))]
        },
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Asinh),
        formula: "dx += a / sqrt(x² + 1)",
        apply: |b, a| {
            let x = b.op(0);
            let d = one_plus_square(b, x, Fadd);
            let r = b.math(Intrinsic::Sqrt, vec![d]);
            vec![(0, b.bin(Fdiv, a, r))]
        },
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Acosh),
        formula: "dx += a / sqrt(x² - 1)",
        apply: |b, a| {
            let ty = b.ty();
            let x = b.op(0);
            let xx = b.bin(Fmul, x, x);
            let one = b.fconst(ty, 1.0);
            let d = b.bin(Fsub, xx, one);
            let r = b.math(Intrinsic::Sqrt, vec![d]);
            vec![(0, b.bin(Fdiv, a, r))]
        },
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Atanh),
        formula: "dx += a / (1 - x²)",
        apply: |b, a| {
            let x = b.op(0);
            let d = one_plus_square(b, x, Fsub);
            vec![(0, b.bin(Fdiv, a, d))]
        },
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Log10),
        formula: "dx += a / (x ln 10)",
        apply: |b, a| log_base(b, a, std::f64::consts::LN_10),
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Log2),
        formula: "dx += a / (x ln 2)",
        apply: |b, a| log_base(b, a, std::f64::consts::LN_2),
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Exp2),
        formula: "dx += a exp2(x) ln 2",
        apply: |b, a| {
            let ty = b.ty();
            let r = b.res();
            let ln2 = b.fconst(ty, std::f64::consts::LN_2);
            let t = b.bin(Fmul, r, ln2);
            vec![(0, b.bin(Fmul, a, t))]
        },
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Cbrt),
        // Through the result, not `x`: finite for every `x` but 0, where
        // the derivative is infinite.
        formula: "r = cbrt x; dx += a / (3 r²)",
        apply: |b, a| {
            let ty = b.ty();
            let r = b.res();
            let three = b.fconst(ty, 3.0);
            let rr = b.bin(Fmul, r, r);
            let d = b.bin(Fmul, three, rr);
            vec![(0, b.bin(Fdiv, a, d))]
        },
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Fmod),
        // fmod(x, y) = x - trunc(x / y) y, the quotient piecewise constant.
        formula: "dx += a; dy -= a trunc(x / y)",
        apply: |b, a| {
            let mut out = vec![(0, a)];
            if b.wants(1) {
                let (x, y) = (b.op(0), b.op(1));
                let q = b.bin(Fdiv, x, y);
                let n = b.math(Intrinsic::Trunc, vec![q]);
                let t = b.bin(Fmul, a, n);
                out.push((1, b.neg(t)));
            }
            out
        },
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Round),
        formula: "0 (piecewise constant)",
        apply: |_, _| Vec::new(),
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Trunc),
        formula: "0 (piecewise constant)",
        apply: |_, _| Vec::new(),
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Hypot),
        formula: "r = hypot(x, y); dx += a x / r; dy += a y / r",
        apply: |b, a| {
            let r = b.res();
            let q = b.bin(Fdiv, a, r);
            let mut out = Vec::new();
            if b.wants(0) {
                let x = b.op(0);
                out.push((0, b.bin(Fmul, q, x)));
            }
            if b.wants(1) {
                let y = b.op(1);
                out.push((1, b.bin(Fmul, q, y)));
            }
            out
        },
    },
    Rule {
        key: RuleKey::Math(Intrinsic::Erf),
        formula: "dx += a (2 / sqrt pi) exp(-x²)",
        apply: |b, a| {
            let ty = b.ty();
            let x = b.op(0);
            let xx = b.bin(Fmul, x, x);
            let m = b.neg(xx);
            let e = b.math(Intrinsic::Exp, vec![m]);
            let c = b.fconst(ty, std::f64::consts::FRAC_2_SQRT_PI);
            let t = b.bin(Fmul, c, e);
            vec![(0, b.bin(Fmul, a, t))]
        },
    },
    Rule {
        key: RuleKey::Cast(CastOp::FpToSi),
        formula: "0 (integer result)",
        apply: |_, _| Vec::new(),
    },
    Rule {
        key: RuleKey::Cast(CastOp::FpToUi),
        formula: "0 (integer result)",
        apply: |_, _| Vec::new(),
    },
];

fn min_max(b: &mut dyn AdjointBuilder, a: Value) -> Vec<(usize, Value)> {
    let ty = b.ty();
    let x = b.op(0);
    let r = b.res();
    // The result equals the operand it chose (C's fmin/fmax return one of
    // their operands), so comparing with the result finds it, NaNs included.
    let c = b.fcmp(FloatCC::Eq, r, x);
    let z = b.fconst(ty, 0.0);
    let dx = b.select(c, a, z);
    let dy = b.select(c, z, a);
    vec![(0, dx), (1, dy)]
}

/// `1 + x²` (`op` = `Fadd`) or `1 - x²` (`Fsub`).
fn one_plus_square(b: &mut dyn AdjointBuilder, x: Value, op: BinaryOp) -> Value {
    let ty = b.ty();
    let one = b.fconst(ty, 1.0);
    let xx = b.bin(Fmul, x, x);
    b.bin(op, one, xx)
}

/// `sqrt(1 - x²)`, the derivative's denominator of `asin` and `acos`.
fn sqrt_one_minus_square(b: &mut dyn AdjointBuilder, x: Value) -> Value {
    let d = one_plus_square(b, x, Fsub);
    b.math(Intrinsic::Sqrt, vec![d])
}

/// The rule of a logarithm in base `e^ln_base`: `dx += a / (x ln_base)`.
fn log_base(b: &mut dyn AdjointBuilder, a: Value, ln_base: f64) -> Vec<(usize, Value)> {
    let ty = b.ty();
    let x = b.op(0);
    let l = b.fconst(ty, ln_base);
    let d = b.bin(Fmul, x, l);
    vec![(0, b.bin(Fdiv, a, d))]
}

/// The rule key of an instruction kind, if it is one the table covers.
pub fn key_of(kind: &InstKind) -> Option<RuleKey> {
    match kind {
        InstKind::Binary(op, ..) => Some(RuleKey::Binary(*op)),
        InstKind::Unary(op, _) => Some(RuleKey::Unary(*op)),
        InstKind::Cast(op, _) => Some(RuleKey::Cast(*op)),
        InstKind::Select(..) => Some(RuleKey::Select),
        InstKind::Intrinsic { op, .. } => Some(RuleKey::Math(*op)),
        _ => None,
    }
}

/// The rule for an instruction kind.
pub fn lookup(kind: &InstKind) -> Option<&'static Rule> {
    let key = key_of(kind)?;
    RULES.iter().find(|r| r.key == key)
}

/// The operands whose adjoints the rule of `kind` adds to, in the order
/// it does, for a result of type `ty` where `varied(i)` says whether
/// operand `i` is varied: the rule run with a builder that emits nothing
/// (the accumulation plan needs to know which adjoints each reversed
/// instruction updates before any code exists).
pub fn contributed(kind: &InstKind, ty: Type, varied: impl Fn(usize) -> bool) -> Vec<usize> {
    struct Probe<F> {
        ty: Type,
        varied: F,
    }
    impl<F: Fn(usize) -> bool> AdjointBuilder for Probe<F> {
        fn op(&mut self, _: usize) -> Value {
            Value::from_u32(0)
        }
        fn res(&mut self) -> Value {
            Value::from_u32(0)
        }
        fn ty(&self) -> Type {
            self.ty
        }
        fn fconst(&mut self, _: Type, _: f64) -> Value {
            Value::from_u32(0)
        }
        fn bin(&mut self, _: BinaryOp, _: Value, _: Value) -> Value {
            Value::from_u32(0)
        }
        fn neg(&mut self, _: Value) -> Value {
            Value::from_u32(0)
        }
        fn math(&mut self, _: Intrinsic, _: Vec<Value>) -> Value {
            Value::from_u32(0)
        }
        fn fcmp(&mut self, _: FloatCC, _: Value, _: Value) -> Value {
            Value::from_u32(0)
        }
        fn select(&mut self, _: Value, _: Value, _: Value) -> Value {
            Value::from_u32(0)
        }
        fn cast(&mut self, _: CastOp, _: Value, _: Type) -> Value {
            Value::from_u32(0)
        }
        fn wants(&self, i: usize) -> bool {
            (self.varied)(i)
        }
    }
    let Some(rule) = lookup(kind) else {
        return Vec::new();
    };
    let mut probe = Probe { ty, varied };
    (rule.apply)(&mut probe, Value::from_u32(0))
        .into_iter()
        .map(|(i, _)| i)
        .collect()
}

/// True for the floating math intrinsics that have rules.
pub fn is_math(op: Intrinsic) -> bool {
    RULES.iter().any(|r| r.key == RuleKey::Math(op))
}
