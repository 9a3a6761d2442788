//! The generator of random gradient programs: `__enzyme_autodiff` of a
//! function whose `spawn`s and `parallel_for`s sit in loops (`for`,
//! `while`, nested both ways), as hand-parallelized code has them (issue
//! 20: the AD panicked at -O1 on a spawn in a `for` loop). The crate
//! documentation (`lib.rs`) states what every program guarantees; the
//! comments here say how.
//!
//! The differentiated function `f(x, y, a, n)` reads `x` (an array of
//! [`LEN`] doubles, never written) and the active scalar `a`, and updates
//! `y` in place, statement by statement. A parallel or spawned strand
//! writes only its own elements `y[i]` and reads, of `y`, only those:
//! every iteration `i` of a `parallel_for` and every task `one(x, y, a, i)`
//! owns `y[i]`, and a `sync` ends every spawning statement. Serial code
//! reads any element. The arithmetic is smooth (no branch on a floating
//! value, no `fabs`/`fmin`/`fmax`) and bounded: each update is `y[i] = c *
//! y[i] + e` with `|c| < 1` and `|e|` bounded by `sin`, `cos`, `tanh` and
//! `u / (1 + u * u)`, so the finite differences `main` compares with are
//! accurate to far better than the tolerance.
//!
//! `main` takes the gradient with `dy[i] = i + 1` (the loss `sum (i + 1)
//! y[i]`) and prints `check NAME ANALYTIC FD` for every element of `x` and
//! for `a`, with central differences of the loss.

use crate::rng::Rng;

/// Elements of `x` and `y`; `n` is this at run time.
pub const LEN: i64 = 8;

struct GradGen {
    rng: Rng,
    next: u32,
    /// Helper functions: (name, text).
    helpers: Vec<Vec<String>>,
    /// The helpers made so far (`one`, `part`, `val`, `kern`, `whole`).
    made: Vec<&'static str>,
    smooth: bool,
}

/// A gradient program for `seed`, and its argument.
pub fn generate(seed: u64) -> (String, i64) {
    let mut rng = Rng::new(seed ^ 0x6772_6164);
    let arg = rng.range(0, 999);
    let mut g = GradGen {
        rng,
        next: 0,
        helpers: Vec::new(),
        made: Vec::new(),
        smooth: false,
    };
    (g.program(seed, arg), arg)
}

/// What an expression may read: the loop index naming this strand's own
/// element of `y` (if any), and whether other elements of `y` may be read
/// (serial code only).
#[derive(Clone)]
struct Reads {
    own: Option<String>,
    any_y: bool,
    /// Extra double-valued names (loop counters as doubles, locals).
    extra: Vec<String>,
}

impl Reads {
    /// What strand `i` may read: `x`, `a`, and its own `y[i]`.
    fn own(i: &str) -> Reads {
        Reads {
            own: Some(i.to_string()),
            any_y: false,
            extra: Vec::new(),
        }
    }
}

impl GradGen {
    /// Makes helper `name` with `make` unless it exists.
    fn need(&mut self, name: &'static str, make: impl FnOnce(&mut GradGen) -> Vec<String>) {
        if !self.made.contains(&name) {
            self.made.push(name);
            let text = make(self);
            self.helpers.push(text);
        }
    }

    fn name(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{}", self.next)
    }

    fn coef(&mut self) -> String {
        format!("{:.3}", 0.3 + 0.6 * (self.rng.below(1000) as f64 / 1000.0))
    }

    /// A bounded smooth expression.
    fn expr(&mut self, r: &Reads, depth: u32) -> String {
        if depth == 0 || self.rng.percent(30) {
            return self.leaf(r);
        }
        let a = self.expr(r, depth - 1);
        let b = self.expr(r, depth - 1);
        match self.rng.below(8) {
            0 => format!("sin({a} + {b})"),
            1 => format!("cos({a}) * {b}"),
            2 => format!("tanh({a} * {b})"),
            3 => format!("({a}) / (1.0 + ({b}) * ({b}))"),
            4 if self.smooth => format!("smooth({a}, {b})"),
            5 => format!("({a} - 0.5 * {b})"),
            6 => format!("sin({a}) * cos({b})"),
            _ => format!("({a} * {b})"),
        }
    }

    fn leaf(&mut self, r: &Reads) -> String {
        let idx = |g: &mut GradGen, i: &str| match g.rng.below(3) {
            0 => i.to_string(),
            _ => format!("({i} + {}) % n", g.rng.range(1, LEN - 1)),
        };
        match self.rng.below(9) {
            0 | 1 => match &r.own {
                Some(i) => format!("x[{}]", idx(self, i)),
                None => format!("x[{}]", self.rng.range(0, LEN - 1)),
            },
            2 => format!("x[{}]", self.rng.range(0, LEN - 1)),
            3 => "a".into(),
            4 | 5 => match (&r.own, r.any_y) {
                (_, true) => {
                    let i = r.own.clone().unwrap_or_else(|| "0".into());
                    let j = idx(self, &i);
                    format!("tanh(y[{j}])")
                }
                (Some(i), false) => format!("tanh(y[{i}])"),
                (None, false) => "a".into(),
            },
            6 if !r.extra.is_empty() => self.rng.pick(&r.extra).clone(),
            _ => format!("{:.2}", self.rng.range(-20, 20) as f64 / 10.0),
        }
    }

    /// `y[i] = c * y[i] + e`, reading only what `r` allows.
    fn update(&mut self, i: &str, r: &Reads) -> String {
        let c = self.coef();
        let e = self.expr(r, 2);
        format!("y[{i}] = {c} * y[{i}] + {e};")
    }

    fn program(&mut self, seed: u64, arg: i64) -> String {
        self.smooth = self.rng.percent(50);
        let body = self.f_body();
        let mut out = vec![
            format!(
                "// parc-fuzz gradient program {seed}: spawn and parallel_for in loops, differentiated (see fuzz/src/lib.rs)"
            ),
            format!("// args: {arg}"),
            String::new(),
        ];
        if self.smooth {
            out.extend(
                [
                    "double smooth(double u, double v)",
                    "{",
                    "    return sin(u) * v + cos(v) * 0.5;",
                    "}",
                    "",
                ]
                .map(String::from),
            );
        }
        for h in std::mem::take(&mut self.helpers) {
            out.extend(h);
            out.push(String::new());
        }
        out.push("void f(double *x, double *y, double a, int n)".into());
        out.push("{".into());
        out.extend(body.into_iter().map(|l| format!("    {l}")));
        out.push("}".into());
        out.push(String::new());
        out.extend(
            [
                "void init(double *x, double *y, int seed)",
                "{",
                &format!("    for (int i = 0; i < {LEN}; i++) {{"),
                "        x[i] = 0.1 * ((i * 7 + seed) % 19) - 0.9;",
                "        y[i] = 0.05 * ((i * 5 + seed) % 13) - 0.3;",
                "    }",
                "}",
                "",
                "double loss(double *x, double a, int seed)",
                "{",
                &format!("    double y[{LEN}];"),
                &format!("    double x0[{LEN}];"),
                "    init(x0, y, seed);",
                &format!("    f(x, y, a, {LEN});"),
                "    double s = 0.0;",
                &format!("    for (int i = 0; i < {LEN}; i++)"),
                "        s += (i + 1) * y[i];",
                "    return s;",
                "}",
                "",
                "void check(char *name, double analytic, double fd)",
                "{",
                "    printf(\"check %s %.17g %.17g\\n\", name, analytic, fd);",
                "}",
                "",
                "int main(int argc, char **argv)",
                "{",
                "    int seed = 1;",
                "    if (argc > 1)",
                "        seed = atoi(argv[1]);",
                &format!("    double x[{LEN}];"),
                &format!("    double y[{LEN}];"),
                &format!("    double dx[{LEN}];"),
                &format!("    double dy[{LEN}];"),
                "    init(x, y, seed);",
                &format!("    for (int i = 0; i < {LEN}; i++) {{"),
                "        dx[i] = 0.0;",
                "        dy[i] = i + 1;",
                "    }",
                "    double a = 0.01 * (seed % 50) - 0.2;",
                &format!("    double da = __enzyme_autodiff(f, x, dx, y, dy, a, {LEN});"),
                "    double h = 1e-6;",
                &format!("    for (int j = 0; j < {LEN}; j++) {{"),
                "        double old = x[j];",
                "        x[j] = old + h;",
                "        double up = loss(x, a, seed);",
                "        x[j] = old - h;",
                "        double down = loss(x, a, seed);",
                "        x[j] = old;",
                "        check(\"dx\", dx[j], (up - down) / (2.0 * h));",
                "    }",
                "    check(\"da\", da, (loss(x, a + h, seed) - loss(x, a - h, seed)) / (2.0 * h));",
                "    double s = loss(x, a, seed);",
                "    printf(\"loss %.17g\\n\", s);",
                "    return 10 + (int)(fabs(s) * 1000.0) % 64;",
                "}",
            ]
            .map(String::from),
        );
        let mut text = out.join("\n");
        text.push('\n');
        text
    }

    fn f_body(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        for _ in 0..self.rng.range(2, 4) {
            out.extend(self.stmt(0));
        }
        out
    }

    /// `one(x, y, a, i)`: updates `y[i]` alone (a spawned task's work).
    fn need_one(&mut self) {
        self.need("one", |g| {
            let u = g.update("i", &Reads::own("i"));
            vec![
                "void one(double *x, double *y, double a, int i, int n)".into(),
                "{".into(),
                format!("    {u}"),
                "}".into(),
            ]
        });
    }

    /// `part(x, y, a, lo, hi, n)`: updates `y[lo..hi]`, serially.
    fn need_part(&mut self) {
        self.need("part", |g| {
            let u = g.update("i", &Reads::own("i"));
            vec![
                "void part(double *x, double *y, double a, int lo, int hi, int n)".into(),
                "{".into(),
                "    for (int i = lo; i < hi; i++)".into(),
                format!("        {u}"),
                "}".into(),
            ]
        });
    }

    /// `val(x, y, a, i, n)`: returns a value of `y[i]` and `x` (a spawned
    /// call's result).
    fn need_val(&mut self) {
        self.need("val", |g| {
            let e = g.expr(&Reads::own("i"), 2);
            vec![
                "double val(double *x, double *y, double a, int i, int n)".into(),
                "{".into(),
                format!("    return {e};"),
                "}".into(),
            ]
        });
    }

    /// `kern<<<1, n>>>(x, y, a, n)`: thread `t` owns `y[t]`; its loop
    /// passes barriers around code that branches on the thread, exchanging
    /// values through `__shared__` memory (each thread writes its own
    /// slot, a barrier, reads others', a barrier).
    fn need_kernel(&mut self) {
        self.need("kern", |g| {
            let own = Reads::own("t");
            let (e1, e2) = (g.expr(&own, 2), g.expr(&own, 2));
            let c = g.coef();
            let k = g.rng.range(1, LEN - 1);
            let cond = match g.rng.below(3) {
                0 => format!("t < {k}"),
                1 => format!("t < {k} && r < n - 1"),
                _ => format!("t % 2 == 1 || r == {}", g.rng.range(0, 2)),
            };
            let trips = g.rng.range(1, 3);
            let other = g.rng.range(1, LEN - 1);
            vec![
                "__global__ void kern(double *x, double *y, double a, int n)".into(),
                "{".into(),
                format!("    __shared__ double s[{LEN}];"),
                "    int t = threadIdx.x;".into(),
                format!("    for (int r = 0; r < {trips}; r++) {{"),
                format!("        if ({cond})"),
                format!("            s[t] = {e1};"),
                "        else".into(),
                format!("            s[t] = {e2};"),
                "        __syncthreads();".into(),
                format!("        y[t] = {c} * y[t] + tanh(s[(t + {other}) % n] * s[t]);"),
                "        __syncthreads();".into(),
                "    }".into(),
                "}".into(),
            ]
        });
    }

    /// One statement of `f`'s serial code, at loop depth `depth`.
    fn stmt(&mut self, depth: u32) -> Vec<String> {
        let serial = Reads {
            own: None,
            any_y: true,
            extra: Vec::new(),
        };
        let nested = depth < 2;
        let weights = [
            2,                          // serial loop of updates
            3,                          // parallel_for
            if nested { 3 } else { 0 }, // serial loop around nested statements
            3,                          // spawn in a for loop
            2,                          // spawn in a while loop
            2,                          // spawn halves
            2,                          // spawn inside parallel_for iterations
            1,                          // serial accumulation into a local
            2,                          // spawn with a result, synced in the loop
            2,                          // spawn in a loop whose bound is computed in it
            2,                          // a serial loop inside parallel_for iterations
            if nested { 2 } else { 0 }, // while loop around nested statements
            2,                          // a kernel launch
            2,                          // parallel_for calling a reader of all of `x`
        ];
        match self.rng.weighted(&weights) {
            0 => {
                let i = self.name("i");
                let r = Reads {
                    own: Some(i.clone()),
                    ..serial
                };
                let u = self.update(&i, &r);
                vec![
                    format!("for (int {i} = 0; {i} < n; {i}++)"),
                    format!("    {u}"),
                ]
            }
            1 => {
                let i = self.name("i");
                let u = self.update(&i, &Reads::own(&i));
                vec![
                    format!("parallel_for (int {i} = 0; {i} < n; {i}++) {{"),
                    format!("    {u}"),
                    "}".into(),
                ]
            }
            2 => {
                let r = self.name("r");
                let trips = self.rng.range(1, 3);
                let mut out = vec![format!("for (int {r} = 0; {r} < {trips}; {r}++) {{")];
                for _ in 0..self.rng.range(1, 2) {
                    out.extend(self.stmt(depth + 1).into_iter().map(|l| format!("    {l}")));
                }
                out.push("}".into());
                out
            }
            3 => {
                self.need_one();
                let i = self.name("i");
                let head = match self.rng.below(4) {
                    0 => format!("for (int {i} = 0; {i} < n; {i}++)"),
                    1 => format!("for (int {i} = 0; {i} < n; {i} += 2)"),
                    2 => format!("for (int {i} = 1; {i} < n; {i} += 3)"),
                    _ => format!("for (int {i} = n - 1; {i} >= 0; {i}--)"),
                };
                vec![
                    head,
                    format!("    spawn one(x, y, a, {i}, n);"),
                    "sync;".into(),
                ]
            }
            4 => {
                self.need_one();
                let i = self.name("w");
                vec![
                    format!("int {i} = n - 1;"),
                    format!("while ({i} >= 0) {{"),
                    format!("    spawn one(x, y, a, {i}, n);"),
                    format!("    {i} = {i} - 1;"),
                    "}".into(),
                    "sync;".into(),
                ]
            }
            5 => {
                self.need_part();
                let m = self.rng.range(1, LEN - 1);
                vec![
                    format!("spawn part(x, y, a, 0, {m}, n);"),
                    format!("part(x, y, a, {m}, n, n);"),
                    "sync;".into(),
                ]
            }
            6 => {
                self.need_one();
                let i = self.name("i");
                vec![
                    format!("parallel_for (int {i} = 0; {i} < n; {i}++) {{"),
                    format!("    spawn one(x, y, a, {i}, n);"),
                    "    sync;".into(),
                    "}".into(),
                ]
            }
            7 => {
                let s = self.name("s");
                let i = self.name("i");
                let k = self.rng.range(0, LEN - 1);
                let r = Reads {
                    own: Some(i.clone()),
                    ..serial
                };
                let e = self.expr(&r, 2);
                let c = self.coef();
                vec![
                    format!("double {s} = 0.0;"),
                    format!("for (int {i} = 0; {i} < n; {i}++)"),
                    format!("    {s} = {c} * {s} + {e};"),
                    format!("y[{k}] = y[{k}] * {c} + tanh({s});"),
                ]
            }
            8 => {
                self.need_val();
                let i = self.name("i");
                let t = self.name("t");
                let c = self.coef();
                vec![
                    format!("for (int {i} = 0; {i} < n; {i}++) {{"),
                    format!("    double {t} = 0.0;"),
                    format!("    {t} = spawn val(x, y, a, {i}, n);"),
                    "    sync;".into(),
                    format!("    y[{i}] = {c} * y[{i}] + tanh({t});"),
                    "}".into(),
                ]
            }
            9 => {
                // The bound is evaluated in the loop's header, every
                // iteration (at -O1 nothing hoists it).
                self.need_one();
                let i = self.name("i");
                let bound = *self
                    .rng
                    .pick(&["n - n % 3", "n / 2 * 2 - 1", "(n + 1) / 2"]);
                vec![
                    format!("for (int {i} = 0; {i} < {bound}; {i}++)"),
                    format!("    spawn one(x, y, a, {i}, n);"),
                    "sync;".into(),
                ]
            }
            10 => {
                let i = self.name("i");
                let j = self.name("j");
                let t = self.name("t");
                let r = Reads {
                    own: Some(i.clone()),
                    any_y: false,
                    extra: vec![format!("(0.25 * {j})")],
                };
                let e = self.expr(&r, 2);
                let (c, d) = (self.coef(), self.coef());
                let trips = self.rng.range(1, 4);
                vec![
                    format!("parallel_for (int {i} = 0; {i} < n; {i}++) {{"),
                    format!("    double {t} = 0.0;"),
                    format!("    for (int {j} = 0; {j} < {trips}; {j}++)"),
                    format!("        {t} = {c} * {t} + {e};"),
                    format!("    y[{i}] = {d} * y[{i}] + tanh({t});"),
                    "}".into(),
                ]
            }
            11 => {
                let w = self.name("w");
                let trips = self.rng.range(1, 3);
                let mut out = vec![
                    format!("int {w} = {trips};"),
                    format!("while ({w} > 0) {{"),
                    format!("    {w} = {w} - 1;"),
                ];
                out.extend(self.stmt(depth + 1).into_iter().map(|l| format!("    {l}")));
                out.push("}".into());
                out
            }
            12 => {
                self.need_kernel();
                vec![format!("kern<<<1, {LEN}>>>(x, y, a, n);")]
            }
            _ => {
                // Tapir's normalize: every iteration reads its own `x[i]`
                // and calls `whole`, which reads all of `x`, so `d_x[i]` is
                // updated by the iteration and by every other iteration's
                // reverse of the call.
                self.need_whole();
                let i = self.name("i");
                let e = self.expr(&Reads::own(&i), 1);
                let c = self.coef();
                vec![
                    format!("parallel_for (int {i} = 0; {i} < n; {i}++) {{"),
                    format!("    y[{i}] = {c} * y[{i}] + tanh(x[{i}] * whole(x, a, n)) + {e};"),
                    "}".into(),
                ]
            }
        }
    }

    /// `whole(x, a, n)`: a smooth mean over all of `x` (read by every
    /// iteration of a `parallel_for`).
    fn need_whole(&mut self) {
        self.need("whole", |g| {
            let c = g.coef();
            vec![
                "double whole(double *x, double a, int n)".into(),
                "{".into(),
                "    double s = 0.0;".into(),
                "    for (int k = 0; k < n; k++)".into(),
                format!("        s += sin({c} * x[k] + a);"),
                "    return s / n;".into(),
                "}".into(),
            ]
        });
    }
}
