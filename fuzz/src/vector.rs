//! The generator of loops for the vectorizer (issue 25): the shapes
//! `opt/src/passes/vectorize/` rewrites, or nearly does, in functions
//! called with pointers into distinct arrays and into one array at
//! offsets (so the run-time overlap tests must pick the scalar loop
//! whenever a vector iteration would read what an earlier one wrote),
//! with trip counts from 0 through odd counts past the vector widths and
//! trip counts below them.
//!
//! Each kernel is `for (int i = 0; i < n; i++) y[i + a] = EXPR;` (or
//! `x[i + b] CMP z[i + c] ? (EXPR) : x[i + b]`, a lane-wise select), a
//! reduction `s = s OP EXPR;` or a minimum or maximum `v = EXPR; s = v CMP
//! s ? v : s;` (either order), where `EXPR` combines elements `x[i + b]`,
//! `z[i + c]` (or the one element `z[c]`, the same in every iteration), a
//! parameter and constants with `+ - *` (and `& | ^` on integers; on
//! floats, elements are only added and subtracted, the parameter
//! multiplies, and `/` divides by 2, 4 or -2). Pointers passed are
//! within their arrays for every index used: `main` passes offsets and
//! counts with `off + n + max(a, b, c) <= LEN`. No reduction is a float
//! reduction under reassociation (the configurations run without
//! `-ffast-math`), so every engine must print the same bits; floating
//! values start as quarters in [-4, 4], constants are 0.5, 0.25, 1.5,
//! -1 or 2, and a call at most multiplies magnitudes by ten, so over the
//! program's at most 14 calls no value overflows (nor its conversion to
//! `long` for the hash);
//! integer arithmetic wraps (ParC defines it; gcc runs with `-fwrapv`).

use crate::rng::Rng;

/// Elements per array.
const LEN: i64 = 48;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ty {
    Int,
    Long,
    Float,
    Double,
}

impl Ty {
    fn c(self) -> &'static str {
        match self {
            Ty::Int => "int",
            Ty::Long => "long",
            Ty::Float => "float",
            Ty::Double => "double",
        }
    }

    fn is_float(self) -> bool {
        matches!(self, Ty::Float | Ty::Double)
    }
}

/// One generated function: its name, element type, whether it reduces,
/// and the largest index offset it adds to `i`.
struct Kernel {
    name: String,
    ty: Ty,
    reduces: bool,
    reach: i64,
}

/// The program for `seed` and its argument (`argv[1]`, which makes trip
/// counts unknown to the compiler).
pub fn generate(seed: u64) -> (String, i64) {
    let mut rng = Rng::new(seed ^ 0x7665_6374_6f72);
    let arg = rng.range(0, 9);
    let mut out = vec![format!(
        "// parc-fuzz vector program {seed}: loops for the vectorizer over aliasing and \
         distinct arrays (see fuzz/src/vector.rs)"
    )];
    let types = [Ty::Int, Ty::Long, Ty::Float, Ty::Double];
    for t in types {
        for k in 0..2 {
            out.push(format!("{} {}{k}[{LEN}];", t.c(), arr(t)));
        }
    }
    let mut kernels = Vec::new();
    for k in 0..rng.range(3, 6) {
        let ty = *rng.pick(&types);
        // Float reductions stay in order without -ffast-math; integer
        // ones are summed in lanes.
        let reduces = rng.percent(if ty.is_float() { 15 } else { 40 });
        let name = format!("k{k}");
        let (text, reach) = kernel(&mut rng, &name, ty, reduces);
        out.push(text);
        kernels.push(Kernel {
            name,
            ty,
            reduces,
            reach,
        });
    }
    out.push("int main(int argc, char **argv)\n{".into());
    out.push("    int m = argc > 1 ? atoi(argv[1]) : 0;".into());
    out.push("    long h = 0;".into());
    for t in types {
        for k in 0..2 {
            let init = if t.is_float() {
                format!(
                    "({})((i * {} + {}) % 33 - 16) * 0.25",
                    t.c(),
                    7 + 2 * k,
                    m_term(k)
                )
            } else {
                format!("({})(i * {} + {}) - 20", t.c(), 13 + 4 * k, m_term(k))
            };
            out.push(format!(
                "    for (int i = 0; i < {LEN}; i++)\n        {}{k}[i] = {init};",
                arr(t)
            ));
        }
    }
    for _ in 0..rng.range(6, 14) {
        let kn = rng.pick(&kernels);
        let a = arr(kn.ty);
        // Trip counts below, at and past the widths; a few from argv.
        let n = *rng.pick(&[0, 1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 31]);
        let room = LEN - kn.reach - n;
        if room < 0 {
            continue;
        }
        let off = |rng: &mut Rng| rng.range(0, room.min(12));
        let (oy, ox, oz) = (off(&mut rng), off(&mut rng), off(&mut rng));
        // Distinct arrays, or one array at offsets (overlap both ways).
        let (ay, ax, az) = match rng.below(3) {
            0 => (0, 1, 1),
            1 => (0, 0, 1),
            _ => (0, 0, 0),
        };
        let c = constant(&mut rng, kn.ty);
        let n_text = if rng.percent(30) {
            format!("{n} - (m % 2)")
        } else {
            n.to_string()
        };
        let call = format!(
            "{}({a}{ay} + {oy}, {a}{ax} + {ox}, {a}{az} + {oz}, {c}, {n_text})",
            kn.name
        );
        if kn.reduces {
            out.push(format!(
                "    h = h * 31 + (long)({call}{});",
                if kn.ty.is_float() { " * 4.0" } else { "" }
            ));
        } else {
            out.push(format!("    {call};"));
        }
    }
    for t in types {
        for k in 0..2 {
            let fmt = if t.is_float() { "%.9g" } else { "%ld" };
            let cast = if t.is_float() { "(double)" } else { "(long)" };
            out.push(format!(
                "    for (int i = 0; i < {LEN}; i++) {{\n        printf(\"{fmt} \", {cast}{a}{k}[i]);\n        h = h * 7 + (long){a}{k}[i];\n    }}\n    printf(\"\\n\");",
                a = arr(t)
            ));
        }
    }
    out.push("    printf(\"h %ld\\n\", h);".into());
    out.push("    return 10 + (int)(h & 63);\n}".into());
    (out.join("\n") + "\n", arg)
}

/// The global arrays of a type: `ai`, `al`, `af`, `ad` with a digit.
fn arr(t: Ty) -> &'static str {
    match t {
        Ty::Int => "ai",
        Ty::Long => "al",
        Ty::Float => "af",
        Ty::Double => "ad",
    }
}

fn m_term(k: usize) -> &'static str {
    if k == 0 { "m" } else { "2 * m" }
}

fn constant(rng: &mut Rng, t: Ty) -> String {
    if t.is_float() {
        rng.pick(&["0.5", "0.25", "1.5", "-1.0", "2.0"]).to_string()
    } else {
        rng.range(-9, 9).to_string()
    }
}

/// A kernel's text and the largest offset it adds to `i`.
fn kernel(rng: &mut Rng, name: &str, ty: Ty, reduces: bool) -> (String, i64) {
    let t = ty.c();
    let (b, c) = (rng.range(0, 3), rng.range(0, 3));
    let a = if reduces { 0 } else { rng.range(0, 3) };
    let x = format!("x[i + {b}]");
    // Sometimes one element of z in every iteration (as gemm's `A[i][k]`
    // in its row update): a loop invariant the stores to y may overwrite
    // when z and y are one array, which the overlap tests must catch.
    let z = if rng.percent(25) {
        format!("z[{c}]")
    } else {
        format!("z[i + {c}]")
    };
    // Floats: elements are only added and subtracted, and multiplied by
    // the constant `k`, so magnitudes grow at most fivefold a call.
    let (with_k, with_z): (&[&str], &[&str]) = if ty.is_float() {
        (&["+", "-", "*"], &["+", "-"])
    } else {
        (
            &["+", "-", "*", "&", "|", "^"],
            &["+", "-", "*", "&", "|", "^"],
        )
    };
    let mut expr = match rng.below(4) {
        0 => format!("{x} {} k", rng.pick(with_k)),
        1 => format!("{x} {} {z}", rng.pick(with_z)),
        2 => format!("({x} {} k) {} {z}", rng.pick(with_k), rng.pick(with_z)),
        _ => format!("-{x} {} ({z} {} k)", rng.pick(with_z), rng.pick(with_k)),
    };
    if ty.is_float() && rng.percent(25) {
        expr = format!("({expr}) / {}", rng.pick(&["2.0", "4.0", "-2.0"]));
    }
    if !ty.is_float() && rng.percent(20) {
        // The counter itself in the stored value: refused (vectors of
        // indices are not made).
        expr = format!("{expr} + i * 3");
    }
    let text = if reduces {
        // No float products: they could overflow, and converting an
        // infinity to `long` is undefined.
        let op = if ty.is_float() {
            *rng.pick(&["+", "-"])
        } else {
            *rng.pick(&["+", "*", "&", "|", "^", "-"])
        };
        let init = if ty.is_float() { "1.0" } else { "3" };
        if rng.percent(35) {
            // A minimum or maximum, as `?:` writes it (a compare and a
            // select once the branches fold), in either operand order.
            let cmp = *rng.pick(&[">", "<", ">=", "<="]);
            let pick = if rng.percent(50) {
                format!("v {cmp} s ? v : s")
            } else {
                format!("s {cmp} v ? s : v")
            };
            format!(
                "{t} {name}({t} *y, {t} *x, {t} *z, {t} k, int n)\n{{\n    {t} s = {init};\n    \
                 for (int i = 0; i < n; i++) {{\n        {t} v = {expr};\n        s = {pick};\n    \
                 }}\n    return s;\n}}"
            )
        } else {
            format!(
                "{t} {name}({t} *y, {t} *x, {t} *z, {t} k, int n)\n{{\n    {t} s = {init};\n    \
                 for (int i = 0; i < n; i++)\n        s = s {op} ({expr});\n    return s;\n}}"
            )
        }
    } else {
        let update = if rng.percent(30) {
            format!("y[i + {a}] + ({expr})")
        } else if rng.percent(25) {
            // A lane-wise compare and select.
            let cmp = *rng.pick(&[">", "<", ">=", "<="]);
            format!("{x} {cmp} {z} ? ({expr}) : {x}")
        } else {
            expr
        };
        format!(
            "void {name}({t} *y, {t} *x, {t} *z, {t} k, int n)\n{{\n    \
             for (int i = 0; i < n; i++)\n        y[i + {a}] = {update};\n}}"
        )
    };
    (text, a.max(b).max(c))
}
