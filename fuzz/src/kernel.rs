//! The generator of random kernel programs: CUDA-style kernels whose
//! barriers sit in loops and conditionals that every thread of a block
//! takes alike, between code that branches and loops on the thread
//! (issue 20: passes that copied such code put a barrier's threads in
//! different copies). The crate documentation (`lib.rs`) states what every
//! program guarantees; the comments here say how.
//!
//! A kernel is generated statement by statement in a [`Scope`] that knows
//! whether all threads of the block are there together (*uniform* code:
//! the kernel's top level, and loops and `if`s whose conditions depend
//! only on uniform values), which integer variables each thread has, which
//! are uniform, and, for each `__shared__` array, what the threads may
//! have done to it since the last barrier. Barriers, calls of the
//! `__device__` helper that holds barriers, and uniform `return`s appear
//! in uniform code only.
//!
//! Shared memory is race-free by a two-flag discipline: since the last
//! barrier a thread may have *written its own slot* `s[t]` (flag `w`) and
//! may have *read other slots* (flag `r`). Writing one's own slot needs
//! `!r` (no other thread may be reading it), reading another's needs `!w`
//! (no other thread may be writing it); reading one's own slot is always
//! fine. The flags only grow between barriers, so checking each access
//! against the flags of every access generated before it in the interval
//! catches every conflicting pair: the two ways of a branch on the thread
//! (which different threads run at once) are generated one after the
//! other, and a loop on the thread once. The ways of a uniform branch
//! join with the flags' union, a barrier clears them, and the body of a
//! uniform loop starts with every flag set (the previous iteration may
//! have done anything), so it touches shared memory only after a barrier
//! of its own.

use crate::rng::Rng;

/// Per `__shared__` array: what the threads may have done since the last
/// barrier (see the module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Flags {
    wrote_own: bool,
    read_other: bool,
}

#[derive(Clone, Debug)]
struct Scope {
    /// Every thread of the block is here together.
    uniform: bool,
    /// Thread-private `int` variables that may be assigned.
    vars: Vec<String>,
    /// `int` values equal in every thread of a block (never assigned in
    /// divergent code): loop counters of uniform loops, `n`, `b`.
    uniform_vals: Vec<String>,
    shared: Vec<Flags>,
    depth: u32,
}

impl Scope {
    fn join(&mut self, other: &Scope) {
        for (a, b) in self.shared.iter_mut().zip(&other.shared) {
            a.wrote_own |= b.wrote_own;
            a.read_other |= b.read_other;
        }
    }

    fn barrier(&mut self) {
        for f in &mut self.shared {
            *f = Flags::default();
        }
    }

    fn dirty(&mut self) {
        for f in &mut self.shared {
            f.wrote_own = true;
            f.read_other = true;
        }
    }
}

struct KernelGen {
    rng: Rng,
    next: u32,
    /// Threads per block (a power of two) and its shape.
    threads: u32,
    tx: u32,
    ty: u32,
    blocks: u32,
    nshared: usize,
    /// Whether the program has the `__device__` helper with barriers and
    /// the pure one.
    sync_helper: bool,
    pure_helper: bool,
    /// Statements left in this kernel (a work bound: loops multiply).
    budget: i64,
}

/// A kernel program for `seed`, and its argument.
pub fn generate(seed: u64) -> (String, i64) {
    let mut rng = Rng::new(seed ^ 0x6b65_726e_656c);
    let arg = rng.range(0, 999);
    let (tx, ty) = *rng.pick(&[(2, 1), (4, 1), (8, 1), (16, 1), (4, 2), (2, 4), (8, 2)]);
    let mut g = KernelGen {
        threads: tx * ty,
        tx,
        ty,
        blocks: rng.range(1, 3) as u32,
        nshared: rng.range(1, 3) as usize,
        sync_helper: rng.percent(40),
        pure_helper: rng.percent(40),
        rng,
        next: 0,
        budget: 0,
    };
    let text = g.program(seed, arg);
    (text, arg)
}

impl KernelGen {
    fn name(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{}", self.next)
    }

    fn program(&mut self, seed: u64, arg: i64) -> String {
        let mut out = vec![
            format!(
                "// parc-fuzz kernel program {seed}: barriers in block-uniform loops and branches around thread-dependent code (see fuzz/src/lib.rs)"
            ),
            format!("// args: {arg}"),
            String::new(),
        ];
        let t = self.threads;
        if self.pure_helper {
            out.extend(
                [
                    "__device__ int mix(int a, int b)",
                    "{",
                    "    int x = a * 31 + (b ^ 5);",
                    "    if (x < 0)",
                    "        x = -x;",
                    "    return x % 1009 - b;",
                    "}",
                    "",
                ]
                .map(String::from),
            );
        }
        if self.sync_helper {
            // Called by every thread of the block at one place (uniform
            // code): its barriers are the callers'. It writes the own slot
            // first, so the caller must not have read other slots since
            // its last barrier, and it returns after a barrier.
            out.extend(
                [
                    "__device__ int exchange(int *s, int t, int v)",
                    "{",
                    "    s[t] = v;",
                    "    __syncthreads();",
                    &format!("    int other = s[({t} - 1 - t + v % 2 + {t}) % {t}];"),
                    "    __syncthreads();",
                    "    if (t % 2 == 0)",
                    "        other = other + 1;",
                    "    return other ^ v;",
                    "}",
                    "",
                ]
                .map(String::from),
            );
        }
        let kernels = self.rng.range(1, 2);
        let mut launches = Vec::new();
        for _ in 0..kernels {
            let name = self.name("k");
            out.extend(self.kernel(&name));
            out.push(String::new());
            launches.push(name);
        }
        let g = self.blocks * t;
        let mut main = vec![
            "int main(int argc, char **argv)".to_string(),
            "{".into(),
            "    int seed = 1;".into(),
            "    if (argc > 1)".into(),
            "        seed = atoi(argv[1]);".into(),
            format!("    int data[{g}];"),
            format!("    int out[{g}];"),
            format!("    for (int i = 0; i < {g}; i++) {{"),
            "        data[i] = (i * 37 + seed) % 101 - 50;".into(),
            "        out[i] = 0;".into(),
            "    }".into(),
            "    unsigned long hash = 0;".into(),
        ];
        let block = if self.ty > 1 {
            format!("dim3({}, {}, 1)", self.tx, self.ty)
        } else {
            self.tx.to_string()
        };
        for k in &launches {
            // `n` is known only at run time: the trip counts of the
            // kernel's uniform loops.
            let n = format!("seed % {} + {}", self.rng.range(2, 4), self.rng.range(0, 2));
            let repeat = self.rng.range(1, 2);
            main.push(format!("    for (int rep = 0; rep < {repeat}; rep++) {{"));
            main.push(format!(
                "        {k}<<<{}, {block}>>>(out, data, {n});",
                self.blocks
            ));
            main.push(format!("        for (int i = 0; i < {g}; i++) {{"));
            main.push("            hash = hash * 1000003UL + (unsigned long)out[i];".into());
            main.push("            data[i] = data[i] ^ (out[i] & 63);".into());
            main.push("        }".into());
            main.push("    }".into());
            main.push(format!(
                "    printf(\"{k}: %d %d\\n\", out[0], out[{}]);",
                g - 1
            ));
        }
        main.push("    printf(\"hash = %lu\\n\", hash);".into());
        main.push("    return 10 + (int)(hash % 64UL);".into());
        main.push("}".into());
        out.extend(main);
        let mut text = out.join("\n");
        text.push('\n');
        text
    }

    fn kernel(&mut self, name: &str) -> Vec<String> {
        let t = self.threads;
        let mut body = Vec::new();
        let shared: Vec<String> = (0..self.nshared).map(|i| format!("s{i}")).collect();
        for s in &shared {
            body.push(format!("__shared__ int {s}[{t}];"));
        }
        if self.ty > 1 {
            body.push("int t = threadIdx.x + threadIdx.y * blockDim.x;".into());
        } else {
            body.push("int t = threadIdx.x;".into());
        }
        body.push("int b = blockIdx.x;".into());
        body.push(format!("int g = b * {t} + t;"));
        let mut scope = Scope {
            uniform: true,
            vars: Vec::new(),
            uniform_vals: vec!["n".into(), "b".into()],
            shared: vec![Flags::default(); self.nshared],
            depth: 0,
        };
        for _ in 0..self.rng.range(1, 3) {
            let v = self.name("v");
            let init = match self.rng.below(3) {
                0 => "data[g]".to_string(),
                1 => format!("data[({t} * b + t * 3 + 1) % {}] + t", self.blocks * t),
                _ => "t * 7 - b".into(),
            };
            body.push(format!("int {v} = {init};"));
            scope.vars.push(v);
        }
        // Every slot starts defined: each thread writes its own, then a
        // barrier.
        for s in &shared {
            body.push(format!("{s}[t] = t + b;"));
        }
        body.push("__syncthreads();".into());
        self.budget = 60;
        let n = self.rng.range(3, 7) as usize;
        body.extend(self.stmts(&mut scope, n));
        let result = scope
            .vars
            .iter()
            .fold("0".to_string(), |acc, v| format!("{acc} * 31 + {v}"));
        body.push(format!("out[g] = {result};"));
        let mut out = vec![
            format!("__global__ void {name}(int *out, int *data, int n)"),
            "{".into(),
        ];
        out.extend(body.into_iter().map(|l| format!("    {l}")));
        out.push("}".into());
        out
    }

    fn stmts(&mut self, scope: &mut Scope, n: usize) -> Vec<String> {
        let mut out = Vec::new();
        for _ in 0..n {
            out.extend(self.stmt(scope));
        }
        out
    }

    fn stmt(&mut self, scope: &mut Scope) -> Vec<String> {
        self.budget -= 1;
        let nested = scope.depth < 3 && self.budget > 0;
        // Weights: assignment, shared write, shared read, barrier, uniform
        // loop, uniform if, thread branch, thread loop, reduction, helper,
        // uniform return.
        let u = scope.uniform;
        let weights = [
            4,
            3,
            3,
            if u { 3 } else { 0 },
            if u && nested { 3 } else { 0 },
            if u && nested { 2 } else { 0 },
            if nested { 4 } else { 0 },
            if nested { 2 } else { 0 },
            if u { 1 } else { 0 },
            if u && self.sync_helper { 2 } else { 0 },
            if u && scope.depth > 0 { 1 } else { 0 },
        ];
        match self.rng.weighted(&weights) {
            0 => self.assign(scope),
            1 => self
                .shared_write(scope)
                .unwrap_or_else(|| self.assign(scope)),
            2 => self
                .shared_read(scope)
                .unwrap_or_else(|| self.assign(scope)),
            3 => {
                scope.barrier();
                vec!["__syncthreads();".into()]
            }
            4 => self.uniform_loop(scope),
            5 => self.uniform_if(scope),
            6 => self.thread_if(scope),
            7 => self.thread_loop(scope),
            8 => self.reduction(scope).unwrap_or_else(|| self.assign(scope)),
            9 => self
                .helper_call(scope)
                .unwrap_or_else(|| self.assign(scope)),
            _ => self.uniform_return(scope),
        }
    }

    /// An `int` expression over what this thread may read.
    fn expr(&mut self, scope: &Scope, depth: u32) -> String {
        let t = self.threads;
        if depth == 0 || self.rng.percent(35) {
            return match self.rng.below(7) {
                0 | 1 if !scope.vars.is_empty() => self.rng.pick(&scope.vars).clone(),
                2 => self.rng.pick(&scope.uniform_vals).clone(),
                3 => (*self.rng.pick(&["t", "g", "b"])).to_string(),
                4 => format!("data[(g + {}) % {}]", self.rng.range(0, 9), self.blocks * t),
                5 if self.nshared > 0 => {
                    format!("s{}[t]", self.rng.index(self.nshared))
                }
                _ => self.rng.range(-9, 20).to_string(),
            };
        }
        let a = self.expr(scope, depth - 1);
        let b = self.expr(scope, depth - 1);
        match self.rng.below(9) {
            0 => format!("({a} + {b})"),
            1 => format!("({a} - {b})"),
            2 => format!("({a} * {b})"),
            3 => format!("({a} ^ {b})"),
            4 => format!("({a} & {b})"),
            5 => format!("({a} / (({b} & 7) + 1))"),
            6 => format!("({a} % (({b} & 15) + 1))"),
            7 if self.pure_helper => format!("mix({a}, {b})"),
            _ => format!("({a} >> ({b} & 7))"),
        }
    }

    /// A condition that may depend on the thread (`&&`, `||` included).
    fn thread_cond(&mut self, scope: &Scope) -> String {
        let t = self.threads;
        let one = |g: &mut KernelGen| match g.rng.below(4) {
            0 => format!("t < {}", g.rng.range(1, t as i64)),
            1 => format!("t % {} == {}", g.rng.range(2, 3), g.rng.range(0, 1)),
            2 => {
                let e = g.expr(scope, 1);
                format!("{e} > {}", g.rng.range(-5, 10))
            }
            _ => {
                let u = g.rng.pick(&scope.uniform_vals).clone();
                format!("t {} {u}", g.rng.pick(&["<", ">=", "=="]))
            }
        };
        let a = one(self);
        match self.rng.below(4) {
            0 => format!("{a} && {}", one(self)),
            1 => format!("{a} || {}", one(self)),
            _ => a,
        }
    }

    /// A condition every thread of the block evaluates alike.
    fn uniform_cond(&mut self, scope: &Scope) -> String {
        let u = self.rng.pick(&scope.uniform_vals).clone();
        let v = self.rng.pick(&scope.uniform_vals).clone();
        match self.rng.below(3) {
            0 => format!("({u} + {v}) % 2 == {}", self.rng.range(0, 1)),
            1 => format!("{u} < {}", self.rng.range(0, 3)),
            _ => format!("{u} != {v} && {u} > {}", self.rng.range(-1, 2)),
        }
    }

    fn assign(&mut self, scope: &mut Scope) -> Vec<String> {
        if scope.vars.is_empty() || self.rng.percent(15) {
            let v = self.name("v");
            let e = self.expr(scope, 2);
            scope.vars.push(v.clone());
            return vec![format!("int {v} = {e};")];
        }
        let v = self.rng.pick(&scope.vars).clone();
        let e = self.expr(scope, 2);
        vec![format!("{v} = {e};")]
    }

    fn shared_write(&mut self, scope: &mut Scope) -> Option<Vec<String>> {
        let k = self.rng.index(self.nshared);
        if scope.shared[k].read_other {
            return None;
        }
        scope.shared[k].wrote_own = true;
        let e = self.expr(scope, 2);
        Some(vec![format!("s{k}[t] = {e};")])
    }

    fn shared_read(&mut self, scope: &mut Scope) -> Option<Vec<String>> {
        let k = self.rng.index(self.nshared);
        if scope.shared[k].wrote_own || scope.vars.is_empty() {
            return None;
        }
        scope.shared[k].read_other = true;
        let t = self.threads;
        let idx = match self.rng.below(3) {
            0 => format!("(t + {}) % {t}", self.rng.range(1, t as i64)),
            1 => format!("{} - t", t - 1),
            _ => {
                let e = self.expr(scope, 1);
                format!("({e}) & {}", t - 1)
            }
        };
        let v = self.rng.pick(&scope.vars).clone();
        Some(vec![format!("{v} = {v} + s{k}[{idx}];")])
    }

    /// A loop every thread runs alike, with barriers allowed inside.
    fn uniform_loop(&mut self, scope: &mut Scope) -> Vec<String> {
        let bound = match self.rng.below(3) {
            0 => "n".to_string(),
            1 => self.rng.range(1, 3).to_string(),
            _ => format!("n + {}", self.rng.range(-1, 1)),
        };
        let before = scope.clone();
        let mut inner = scope.clone();
        inner.depth += 1;
        inner.dirty();
        self.budget -= 4;
        let n = self.rng.range(2, 5) as usize;
        let (head, body, tail) = match self.rng.below(4) {
            0 | 1 => {
                let r = self.name("r");
                inner.uniform_vals.push(r.clone());
                let body = self.stmts(&mut inner, n);
                (
                    format!("for (int {r} = 0; {r} < {bound}; {r}++) {{"),
                    body,
                    "}".to_string(),
                )
            }
            2 => {
                // The counter moves first, so every path through the body
                // keeps it uniform and the loop ends.
                let w = self.name("w");
                inner.uniform_vals.push(w.clone());
                let mut body = vec![format!("{w} = {w} - 1;")];
                body.extend(self.stmts(&mut inner, n));
                (
                    format!("int {w} = {bound};\nwhile ({w} > 0) {{"),
                    body,
                    "}".to_string(),
                )
            }
            _ => {
                // A loop whose test comes after a barrier at its top.
                let r = self.name("r");
                inner.uniform_vals.push(r.clone());
                inner.barrier();
                let mut body = vec![
                    "__syncthreads();".to_string(),
                    format!("if ({r} >= {bound})"),
                    "    break;".into(),
                ];
                body.extend(self.stmts(&mut inner, n));
                body.push(format!("{r}++;"));
                (format!("int {r} = 0;\nfor (;;) {{"), body, "}".to_string())
            }
        };
        *scope = before;
        scope.join(&inner);
        let mut out: Vec<String> = head.split('\n').map(String::from).collect();
        out.extend(body.into_iter().map(|l| format!("    {l}")));
        out.push(tail);
        out
    }

    fn uniform_if(&mut self, scope: &mut Scope) -> Vec<String> {
        let c = self.uniform_cond(scope);
        let mut a = scope.clone();
        a.depth += 1;
        let mut b = a.clone();
        let na = self.rng.range(1, 3) as usize;
        let then = self.stmts(&mut a, na);
        let els = if self.rng.percent(50) {
            let nb = self.rng.range(1, 3) as usize;
            Some(self.stmts(&mut b, nb))
        } else {
            None
        };
        scope.shared = a.shared.clone();
        scope.join(&b);
        branch(c, then, els)
    }

    /// A branch on the thread: no barrier inside. Some threads run one
    /// way while others run the other, between the same two barriers, so
    /// the second way is checked against what the first did (the flags
    /// then cover both, whatever the order).
    fn thread_if(&mut self, scope: &mut Scope) -> Vec<String> {
        let c = self.thread_cond(scope);
        let mut a = scope.clone();
        a.uniform = false;
        a.depth += 1;
        // Names declared in a branch are not visible after it.
        let mut b = a.clone();
        let na = self.rng.range(1, 3) as usize;
        let then = self.stmts(&mut a, na);
        b.shared = a.shared.clone();
        let els = if self.rng.percent(60) {
            let nb = self.rng.range(1, 3) as usize;
            Some(self.stmts(&mut b, nb))
        } else {
            None
        };
        scope.shared = b.shared;
        branch(c, then, els)
    }

    /// A loop whose trip count depends on the thread: no barrier inside.
    fn thread_loop(&mut self, scope: &mut Scope) -> Vec<String> {
        let j = self.name("j");
        let mut inner = scope.clone();
        inner.uniform = false;
        inner.depth += 1;
        self.budget -= 3;
        let limit = match self.rng.below(3) {
            0 => format!("(t & 3) + {}", self.rng.range(0, 2)),
            1 => format!("t % {} + 1", self.rng.range(2, 5)),
            _ => {
                let u = self.rng.pick(&scope.uniform_vals).clone();
                format!("(t + {u}) & 3")
            }
        };
        let n = self.rng.range(1, 3) as usize;
        let body = self.stmts(&mut inner, n);
        let mut out = if self.rng.percent(50) {
            vec![format!("for (int {j} = 0; {j} < {limit}; {j}++) {{")]
        } else {
            vec![
                format!("int {j} = 0;"),
                format!("while ({j} < {limit}) {{"),
                format!("    {j}++;"),
            ]
        };
        out.extend(body.into_iter().map(|l| format!("    {l}")));
        out.push("}".into());
        // What the body did may have happened (or not).
        scope.join(&inner);
        out
    }

    /// A block's tree reduction into slot 0, as CUDA samples write it.
    fn reduction(&mut self, scope: &mut Scope) -> Option<Vec<String>> {
        let k = self.rng.index(self.nshared);
        if scope.shared[k] != Flags::default() || scope.vars.is_empty() {
            return None;
        }
        let t = self.threads;
        let w = self.name("w");
        let v = self.rng.pick(&scope.vars).clone();
        scope.barrier();
        scope.shared[k].read_other = true;
        Some(vec![
            format!("for (int {w} = {}; {w} > 0; {w} /= 2) {{", t / 2),
            format!("    if (t < {w})"),
            format!("        s{k}[t] += s{k}[t + {w}];"),
            "    __syncthreads();".into(),
            "}".into(),
            format!("{v} = {v} + s{k}[0];"),
        ])
    }

    /// A call of the `__device__` function with barriers, by every thread
    /// at once.
    fn helper_call(&mut self, scope: &mut Scope) -> Option<Vec<String>> {
        let k = self.rng.index(self.nshared);
        if scope.shared[k].read_other || scope.vars.is_empty() {
            return None;
        }
        let v = self.rng.pick(&scope.vars).clone();
        let e = self.expr(scope, 1);
        scope.barrier();
        Some(vec![format!("{v} = exchange(s{k}, t, {e});")])
    }

    /// Every thread of some blocks leaves at once.
    fn uniform_return(&mut self, scope: &mut Scope) -> Vec<String> {
        let c = self.uniform_cond(scope);
        let mut out = vec![format!("if ({c}) {{")];
        let result = scope
            .vars
            .iter()
            .fold("-1".to_string(), |acc, v| format!("{acc} + {v}"));
        out.push(format!("    out[g] = {result};"));
        out.push("    return;".into());
        out.push("}".into());
        out
    }
}

fn branch(cond: String, then: Vec<String>, els: Option<Vec<String>>) -> Vec<String> {
    let mut out = vec![format!("if ({cond}) {{")];
    out.extend(then.into_iter().map(|l| format!("    {l}")));
    match els {
        Some(e) => {
            out.push("} else {".into());
            out.extend(e.into_iter().map(|l| format!("    {l}")));
            out.push("}".into());
        }
        None => out.push("}".into()),
    }
    out
}
