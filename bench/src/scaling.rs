//! Compile-time scaling (table 10): programs generated at run time in the
//! shapes that make compilers super-linear — deep loop nests, many
//! functions, one huge function, many globals, a large source — each
//! built with `parc build --O2 -fno-whole-program` at sizes that double, so
//! the growth ratio T(2n)/T(n) shows the complexity: about 2 is linear, 4
//! quadratic. The target is at most [`GROWTH_TARGET`] per doubling
//! on every shape, and [`FUNCS_TARGET_SECS`] for 20,000 small functions.
//!
//! `-fno-whole-program` keeps every generated function exported, so each
//! is compiled: by default an executable is a whole program, whose
//! functions `main` never reaches are dropped before the optimizer sees
//! them — most of the large-source shape, which would then time the front
//! end alone.
//!
//! Every generated program prints a value the generator computes too (with
//! C's wrapping `int` arithmetic); each build's executable runs once and
//! must print it, so a compiler that gets faster by getting wrong fails.
//!
//! Times are CPU seconds (user + system) of the `parc build` process and
//! the linker it runs (`wait4`'s resource usage), which, unlike the wall
//! clock, other tenants of a shared machine barely move; the wall clock is
//! shown beside them. Peak RSS is the largest resident set of that process
//! tree.

use crate::excerpt;
use crate::harness::Tools;
use crate::process::{Measured, run_measured};
use crate::report::{Table, fmt_ratio, median, verdict};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use std::time::Duration;

/// The target: at most this growth of compile time per doubling.
pub const GROWTH_TARGET: f64 = 2.3;
/// The target for [`FUNCS_TARGET_SIZE`] small functions (seconds).
pub const FUNCS_TARGET_SECS: f64 = 5.0;
pub const FUNCS_TARGET_SIZE: usize = 20_000;

/// A family of generated programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    NestedFor,
    NestedParallelFor,
    ManyFunctions,
    HugeFunction,
    ManyGlobals,
    LargeSource,
}

impl Shape {
    pub const ALL: [Shape; 6] = [
        Shape::NestedFor,
        Shape::NestedParallelFor,
        Shape::ManyFunctions,
        Shape::HugeFunction,
        Shape::ManyGlobals,
        Shape::LargeSource,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Shape::NestedFor => "nested-for",
            Shape::NestedParallelFor => "nested-parallel-for",
            Shape::ManyFunctions => "many-functions",
            Shape::HugeFunction => "huge-function",
            Shape::ManyGlobals => "many-globals",
            Shape::LargeSource => "large-source",
        }
    }

    /// What `n` counts, and what the program is.
    fn what(self) -> &'static str {
        match self {
            Shape::NestedFor => {
                "n `for` loops nested without braces, each bound depending on the enclosing counter; the innermost adds to a sum"
            }
            Shape::NestedParallelFor => {
                "n `parallel_for` loops nested without braces; the innermost `atomicAdd`s to a global"
            }
            Shape::ManyFunctions => {
                "a chain of n one-line functions, each calling the previous under a condition (`return x > K ? f(x - 1) + 1 : x * 2;`)"
            }
            Shape::HugeFunction => {
                "`main` of n statements: arithmetic, an `if`/`else` each, a small `for` loop every 16th"
            }
            Shape::ManyGlobals => {
                "n initialized globals (`int`, `int[4]`, `double` in turn); `main` reads every 64th"
            }
            Shape::LargeSource => {
                "n units of ordinary code, each a global array and two functions (a loop with a branch, a `while`, a `parallel_for`); `main` calls the first eight"
            }
        }
    }

    /// The sizes of a full run (each twice the one before) and of
    /// `--quick`.
    fn sizes(self, quick: bool) -> Vec<usize> {
        let (first, count) = match (self, quick) {
            (Shape::NestedFor, false) => (250, 4),
            (Shape::NestedParallelFor, false) => (125, 4),
            (Shape::ManyFunctions, false) => (2_500, 4),
            (Shape::HugeFunction, false) => (5_000, 4),
            (Shape::ManyGlobals, false) => (25_000, 4),
            (Shape::LargeSource, false) => (16_000, 4),
            (Shape::NestedFor, true) => (50, 2),
            (Shape::NestedParallelFor, true) => (25, 2),
            (Shape::ManyFunctions, true) => (500, 2),
            (Shape::HugeFunction, true) => (1_000, 2),
            (Shape::ManyGlobals, true) => (5_000, 2),
            (Shape::LargeSource, true) => (500, 2),
        };
        (0..count).map(|k| first << k).collect()
    }

    pub fn by_name(name: &str) -> Option<Shape> {
        Shape::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// `SHAPE:N` of `--generate`.
pub fn parse_generate(spec: &str) -> Result<(Shape, usize), String> {
    let all = || {
        Shape::ALL
            .iter()
            .map(|s| s.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (name, n) = spec
        .split_once(':')
        .ok_or_else(|| format!("--generate {spec}: expected SHAPE:N, e.g. nested-for:2000"))?;
    let shape = Shape::by_name(name).ok_or_else(|| {
        format!(
            "--generate {spec}: no shape `{name}` (there are: {})",
            all()
        )
    })?;
    let n = n
        .parse::<usize>()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("--generate {spec}: N must be a positive integer"))?;
    Ok((shape, n))
}

/// A generated program and what it must print when run without arguments.
pub struct Generated {
    pub source: String,
    pub expected: String,
}

/// The program of `shape` at size `n`.
pub fn generate(shape: Shape, n: usize) -> Generated {
    match shape {
        Shape::NestedFor => nested_for(n),
        Shape::NestedParallelFor => nested_parallel_for(n),
        Shape::ManyFunctions => many_functions(n),
        Shape::HugeFunction => huge_function(n),
        Shape::ManyGlobals => many_globals(n),
        Shape::LargeSource => large_source(n),
    }
}

fn header(shape: Shape, n: usize) -> String {
    format!(
        "// generated by parc-bench (compile-time scaling): {} at n = {n}\n",
        shape.name()
    )
}

/// Run without arguments, `m = argc` is 1, so every loop runs once with
/// its counter 0 (the bounds `m + i` are 1), and the sum is 1.
fn nested_for(n: usize) -> Generated {
    let mut s = header(Shape::NestedFor, n);
    s.push_str("int main(int argc, char **argv)\n{\n    int m = argc;\n    long s = 0;\n");
    for k in 0..n {
        if k == 0 {
            s.push_str("    for (int i0 = 0; i0 < m; i0++)\n");
        } else {
            let _ = writeln!(s, "    for (int i{k} = 0; i{k} < m + i{}; i{k}++)", k - 1);
        }
    }
    let _ = writeln!(s, "        s += i{} + 1;", n.saturating_sub(1));
    s.push_str("    printf(\"%ld\\n\", s);\n    return 0;\n}\n");
    Generated {
        source: s,
        expected: "1\n".into(),
    }
}

fn nested_parallel_for(n: usize) -> Generated {
    let mut s = header(Shape::NestedParallelFor, n);
    s.push_str("int total;\n\nint main(int argc, char **argv)\n{\n    int m = argc;\n");
    for k in 0..n {
        let _ = writeln!(s, "    parallel_for (int i{k} = 0; i{k} < m; i{k}++)");
    }
    let _ = writeln!(
        s,
        "        atomicAdd(&total, i{} + 1);",
        n.saturating_sub(1)
    );
    s.push_str("    printf(\"%d\\n\", total);\n    return 0;\n}\n");
    Generated {
        source: s,
        expected: "1\n".into(),
    }
}

fn many_functions(n: usize) -> Generated {
    let n = n.max(1);
    let mut s = header(Shape::ManyFunctions, n);
    s.push_str("int f0(int x) { return x + 1; }\n");
    for k in 1..n {
        let _ = writeln!(
            s,
            "int f{k}(int x) {{ return x > {} ? f{}(x - 1) + 1 : x * 2; }}",
            k % 50,
            k - 1
        );
    }
    let _ = writeln!(
        s,
        "\nint main(int argc, char **argv)\n{{\n    printf(\"%d\\n\", f{}(argc));\n    return 0;\n}}",
        n - 1
    );
    // f(k, x) = x > k % 50 ? f(k - 1, x - 1) + 1 : 2x, f(0, x) = x + 1,
    // evaluated from f(n - 1, 1) down.
    let (mut k, mut x, mut added) = (n - 1, 1i32, 0i32);
    let value = loop {
        if k == 0 {
            break x.wrapping_add(1).wrapping_add(added);
        }
        if x > (k % 50) as i32 {
            x = x.wrapping_sub(1);
            added = added.wrapping_add(1);
            k -= 1;
        } else {
            break x.wrapping_mul(2).wrapping_add(added);
        }
    };
    Generated {
        source: s,
        expected: format!("{value}\n"),
    }
}

fn huge_function(n: usize) -> Generated {
    let mut s = header(Shape::HugeFunction, n);
    s.push_str("int main(int argc, char **argv)\n{\n    int a = argc, b = 2, c = 3;\n");
    let (mut a, mut b, mut c) = (1i32, 2i32, 3i32);
    for k in 0..n {
        let (mul, limit) = ((k % 5 + 1) as i32, (k % 1000) as i32);
        let _ = writeln!(
            s,
            "    a = a * {mul} + b; if (b > {limit}) c += a; else c -= b; b ^= (a >> 3) & 255;"
        );
        a = a.wrapping_mul(mul).wrapping_add(b);
        if b > limit {
            c = c.wrapping_add(a);
        } else {
            c = c.wrapping_sub(b);
        }
        b ^= (a >> 3) & 255;
        if k % 16 == 15 {
            s.push_str("    for (int i = 0; i < 3; i++) c += a ^ i;\n");
            for i in 0..3 {
                c = c.wrapping_add(a ^ i);
            }
        }
    }
    s.push_str("    printf(\"%d %d %d\\n\", a, b, c);\n    return 0;\n}\n");
    Generated {
        source: s,
        expected: format!("{a} {b} {c}\n"),
    }
}

fn many_globals(n: usize) -> Generated {
    let mut s = header(Shape::ManyGlobals, n);
    for k in 0..n {
        let _ = match k % 3 {
            0 => writeln!(s, "int g{k} = {};", k % 1000),
            1 => writeln!(s, "int g{k}[4] = {{{}, 1, 2, 3}};", k % 10),
            _ => writeln!(s, "double g{k} = {}.5;", k % 100),
        };
    }
    s.push_str("\nint main(int argc, char **argv)\n{\n    long s = argc;\n    double d = 0;\n");
    let (mut sum, mut d) = (1i64, 0f64);
    for k in (0..n).step_by(64) {
        let _ = match k % 3 {
            0 => {
                sum += (k % 1000) as i64;
                writeln!(s, "    s += g{k};")
            }
            1 => {
                sum += (k % 10) as i64 + 3;
                writeln!(s, "    s += g{k}[0] + g{k}[3];")
            }
            _ => {
                d += (k % 100) as f64 + 0.5;
                writeln!(s, "    d += g{k};")
            }
        };
    }
    s.push_str("    printf(\"%ld %.1f\\n\", s, d);\n    return 0;\n}\n");
    Generated {
        source: s,
        expected: format!("{sum} {d:.1}\n"),
    }
}

/// Ordinary code, repeated with numbered names: what a large generated or
/// concatenated source looks like to the compiler.
fn large_source(n: usize) -> Generated {
    let n = n.max(1);
    let mut s = header(Shape::LargeSource, n);
    for k in 0..n {
        let _ = write!(
            s,
            "\nint t{k}[8];\n\
             \n\
             void fill{k}(int *a, int n)\n\
             {{\n\
             \x20   parallel_for (int i = 0; i < n; i++)\n\
             \x20       a[i] = i * {m7} + 1;\n\
             }}\n\
             \n\
             int unit{k}(int *a, int n)\n\
             {{\n\
             \x20   int s = {m13};\n\
             \x20   for (int i = 0; i < n; i++) {{\n\
             \x20       int v = a[i] * 3 + t{k}[i & 7];\n\
             \x20       if (v > 7)\n\
             \x20           s += v;\n\
             \x20       else\n\
             \x20           s -= i;\n\
             \x20       t{k}[i & 7] = v ^ s;\n\
             \x20   }}\n\
             \x20   while (s > 1000)\n\
             \x20       s = s / 2 + 1;\n\
             \x20   return s;\n\
             }}\n",
            m7 = k % 7,
            m13 = k % 13,
        );
    }
    let called = n.min(8);
    s.push_str("\nint main(int argc, char **argv)\n{\n    int a[16];\n    int s = argc;\n");
    let mut total = 1i32;
    for k in 0..called {
        let _ = writeln!(s, "    fill{k}(a, 16);\n    s += unit{k}(a, 16);");
        let a: Vec<i32> = (0..16).map(|i| i * (k % 7) as i32 + 1).collect();
        let mut t = [0i32; 8];
        let mut r = (k % 13) as i32;
        for (i, &ai) in a.iter().enumerate() {
            let v = ai.wrapping_mul(3).wrapping_add(t[i & 7]);
            if v > 7 {
                r = r.wrapping_add(v);
            } else {
                r = r.wrapping_sub(i as i32);
            }
            t[i & 7] = v ^ r;
        }
        while r > 1000 {
            r = r / 2 + 1;
        }
        total = total.wrapping_add(r);
    }
    s.push_str("    printf(\"%d\\n\", s);\n    return 0;\n}\n");
    Generated {
        source: s,
        expected: format!("{total}\n"),
    }
}

#[derive(Default)]
struct Cell {
    bytes: usize,
    wall: Vec<f64>,
    cpu: Vec<f64>,
    rss: Vec<u64>,
    check_cpu: Vec<f64>,
    failure: Option<String>,
}

pub struct ScalingResults {
    shapes: Vec<Shape>,
    quick: bool,
    reps: usize,
    cells: HashMap<(Shape, usize), Cell>,
}

impl ScalingResults {
    pub fn is_empty(&self) -> bool {
        self.shapes.is_empty()
    }
}

/// Generates, builds (`reps` times, round-robin), checks and measures
/// every size of every shape in `only` (`None`: all shapes). Failures are
/// added to `failures`; a shape stops growing at its first failure.
pub fn run_all(
    only: Option<&[String]>,
    quick: bool,
    reps: usize,
    tools: &Tools,
    scratch: &Path,
    timeout: Duration,
    failures: &mut Vec<String>,
) -> Result<ScalingResults, String> {
    let shapes: Vec<Shape> = match only {
        None => Shape::ALL.to_vec(),
        Some(names) => names
            .iter()
            .map(|n| {
                Shape::by_name(n).ok_or_else(|| {
                    let all: Vec<&str> = Shape::ALL.iter().map(|s| s.name()).collect();
                    format!(
                        "--only scaling/{n}: no such shape (there are: {})",
                        all.join(", ")
                    )
                })
            })
            .collect::<Result<_, _>>()?,
    };
    let dir = scratch.join("scaling");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut cells: HashMap<(Shape, usize), Cell> = HashMap::new();
    let parc = tools.parc.display().to_string();
    for rep in 0..reps {
        for &shape in &shapes {
            for n in shape.sizes(quick) {
                let smaller_failed = shape
                    .sizes(quick)
                    .into_iter()
                    .take_while(|&m| m < n)
                    .any(|m| cells.get(&(shape, m)).is_some_and(|c| c.failure.is_some()));
                if smaller_failed {
                    continue;
                }
                let cell = cells.entry((shape, n)).or_default();
                if cell.failure.is_some() {
                    continue;
                }
                let src = dir.join(format!("{}-{n}.pc", shape.name()));
                let exe = dir.join(format!("{}-{n}", shape.name()));
                // Generated afresh each repetition rather than kept: the
                // largest sources are tens of megabytes.
                let g = generate(shape, n);
                cell.bytes = g.source.len();
                if let Err(e) = std::fs::write(&src, &g.source) {
                    cell.failure = Some(format!("{}: {e}", src.display()));
                    continue;
                }
                eprintln!(
                    "parc-bench: scaling {} n={n} ({} bytes), repetition {}",
                    shape.name(),
                    g.source.len(),
                    rep + 1
                );
                let src_s = src.display().to_string();
                let check = vec![parc.clone(), "check".into(), src_s.clone()];
                let build = vec![
                    parc.clone(),
                    "build".into(),
                    "--O2".into(),
                    "-fno-whole-program".into(),
                    src_s,
                    "-o".into(),
                    exe.display().to_string(),
                ];
                let result = measure_one(
                    &check,
                    &build,
                    &exe,
                    &g.expected,
                    rep == 0,
                    scratch,
                    timeout,
                );
                let _ = std::fs::remove_file(&src);
                match result {
                    Ok((check_cpu, m)) => {
                        cell.check_cpu.push(check_cpu);
                        cell.wall.push(m.wall);
                        cell.cpu.push(m.cpu);
                        cell.rss.push(m.max_rss_kib * 1024);
                    }
                    Err(e) => {
                        failures.push(format!("scaling {} n={n}: {e}", shape.name()));
                        cell.failure = Some(e);
                    }
                }
                let _ = std::fs::remove_file(&exe);
            }
        }
    }
    Ok(ScalingResults {
        shapes,
        quick,
        reps,
        cells,
    })
}

/// `parc check`, then `parc build` (measured); on the first repetition the
/// executable runs once and must print `expected`.
fn measure_one(
    check: &[String],
    build: &[String],
    exe: &Path,
    expected: &str,
    run: bool,
    scratch: &Path,
    timeout: Duration,
) -> Result<(f64, Measured), String> {
    let c = run_measured(check, scratch, &[], timeout)?;
    if !c.success() {
        return Err(format!(
            "`parc check` failed (exit status {}): {}",
            c.code,
            excerpt(&c.stderr)
        ));
    }
    let m = run_measured(build, scratch, &[], timeout)?;
    if !m.success() {
        return Err(format!(
            "`parc build` failed (exit status {}): {}",
            m.code,
            excerpt(&m.stderr)
        ));
    }
    if run {
        let r = run_measured(&[exe.display().to_string()], scratch, &[], timeout)?;
        if !r.success() {
            return Err(format!(
                "the program failed (exit status {}): {}",
                r.code,
                excerpt(&r.stderr)
            ));
        }
        if r.stdout != expected {
            return Err(format!(
                "MISMATCH: the program printed {:?}, expected {expected:?}",
                r.stdout
            ));
        }
    }
    Ok((c.cpu, m))
}

fn fmt_secs(s: f64) -> String {
    if s >= 10.0 {
        format!("{s:.1}")
    } else {
        format!("{s:.2}")
    }
}

fn fmt_bytes(b: f64) -> String {
    const MB: f64 = 1024.0 * 1024.0;
    if b >= 10.0 * MB {
        format!("{:.0} MB", b / MB)
    } else if b >= MB {
        format!("{:.1} MB", b / MB)
    } else {
        format!("{:.0} KB", b / 1024.0)
    }
}

impl ScalingResults {
    pub fn render(&self, w: &mut String) {
        let _ = writeln!(
            w,
            "## 10. Compile-time scaling (generated programs, {} repetition{} each; medians)\n",
            self.reps,
            if self.reps == 1 { "" } else { "s" }
        );
        let _ = writeln!(
            w,
            "Each program is generated at run time at sizes that double, built with `parc build --O2 SRC -o EXE` (the executable runs once and must print the value the generator computed), and checked with `parc check SRC`. CPU is user + system seconds of the whole process tree (parc and the linker it runs); the growth columns are T(n)/T(n/2) of CPU time and of peak RSS: about 2 is linear, 4 quadratic. Target: CPU growth ≤ {GROWTH_TARGET} per doubling on every shape, and {FUNCS_TARGET_SIZE} functions (many-functions) in under {FUNCS_TARGET_SECS} s.{}\n",
            if self.quick {
                " (--quick: small sizes, a smoke test; the growth at these sizes is mostly start-up)"
            } else {
                ""
            }
        );
        let mut shapes =
            Table::new(&["shape", "n is"]).with_align(&[crate::report::Align::Left; 2]);
        for &s in &self.shapes {
            shapes.row([format!("`{}`", s.name()), s.what().to_string()]);
        }
        let _ = writeln!(w, "{}", shapes.render());
        let mut t = Table::new(&[
            "shape",
            "n",
            "source",
            "check CPU s",
            "build wall s",
            "build CPU s",
            "CPU growth",
            "",
            "peak RSS",
            "RSS growth",
        ]);
        for &shape in &self.shapes {
            let mut prev: Option<(f64, f64)> = None;
            for n in shape.sizes(self.quick) {
                let Some(cell) = self.cells.get(&(shape, n)) else {
                    continue;
                };
                let name = format!("`{}`", shape.name());
                if let Some(f) = &cell.failure {
                    let why = if f.contains("timeout") {
                        "**timeout**"
                    } else {
                        "**FAILED**"
                    };
                    t.row([
                        name,
                        n.to_string(),
                        fmt_bytes(cell.bytes as f64),
                        why.into(),
                    ]);
                    prev = None;
                    continue;
                }
                let cpu = median(&cell.cpu).unwrap_or(f64::NAN);
                let wall = median(&cell.wall).unwrap_or(f64::NAN);
                let check = median(&cell.check_cpu).unwrap_or(f64::NAN);
                let rss_v: Vec<f64> = cell.rss.iter().map(|&r| r as f64).collect();
                let rss = median(&rss_v).unwrap_or(f64::NAN);
                let (growth, judged, rss_growth) = match prev {
                    Some((pc, pr)) if pc > 0.0 && pr > 0.0 => {
                        let g = cpu / pc;
                        (
                            fmt_ratio(g),
                            verdict(g, GROWTH_TARGET, false).to_string(),
                            fmt_ratio(rss / pr),
                        )
                    }
                    _ => (String::new(), String::new(), String::new()),
                };
                let judged = if shape == Shape::ManyFunctions && n == FUNCS_TARGET_SIZE {
                    let t = verdict(cpu, FUNCS_TARGET_SECS, false);
                    if judged.is_empty() {
                        format!("{t} (< {FUNCS_TARGET_SECS} s)")
                    } else {
                        format!("{judged}; {t} (< {FUNCS_TARGET_SECS} s)")
                    }
                } else {
                    judged
                };
                t.row([
                    name,
                    n.to_string(),
                    fmt_bytes(cell.bytes as f64),
                    fmt_secs(check),
                    fmt_secs(wall),
                    fmt_secs(cpu),
                    growth,
                    judged,
                    fmt_bytes(rss),
                    rss_growth,
                ]);
                prev = Some((cpu, rss));
            }
        }
        let _ = writeln!(w, "{}", t.render());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generators' sizes double and their programs grow with n.
    #[test]
    fn sizes_double_and_sources_grow() {
        for shape in Shape::ALL {
            for quick in [false, true] {
                let sizes = shape.sizes(quick);
                assert!(sizes.len() >= 2);
                assert!(sizes.windows(2).all(|w| w[1] == 2 * w[0]));
            }
            let (a, b) = (generate(shape, 40), generate(shape, 80));
            assert!(b.source.len() > a.source.len() * 3 / 2, "{}", shape.name());
            assert_eq!(Shape::by_name(shape.name()), Some(shape));
        }
    }

    /// The expected outputs, worked by hand for small sizes.
    #[test]
    fn expected_values() {
        assert_eq!(generate(Shape::NestedFor, 3).expected, "1\n");
        // f2(1): 1 > 2 is false: 2 * 1.
        assert_eq!(generate(Shape::ManyFunctions, 3).expected, "2\n");
        // f1(1) = 1 > 1 ? .. : 2; f51(1): 1 > 1 false too; f50(1):
        // 1 > 0, f49(0) + 1 = 0 * 2 + 1.
        assert_eq!(generate(Shape::ManyFunctions, 51).expected, "1\n");
        // huge n=1: a = 1*1 + 2 = 3; b = 2 > 0: c = 3 + 3 = 6;
        // b = 2 ^ (3 >> 3 & 255) = 2.
        assert_eq!(generate(Shape::HugeFunction, 1).expected, "3 2 6\n");
        // globals n=2: s = argc + g0 = 1 + 0 (g1 is not read).
        assert_eq!(generate(Shape::ManyGlobals, 2).expected, "1 0.0\n");
        // one unit: a[i] = 1, v = 3 + t[i&7]; t starts 0, so the first
        // eight v are 3 (s -= i: 0-1-..-7 = -28) and t[i] = 3 ^ s.
        let g = generate(Shape::LargeSource, 1);
        let mut s = 0i32;
        let mut t = [0i32; 8];
        for i in 0..16 {
            let v = 3 + t[i & 7];
            if v > 7 {
                s += v;
            } else {
                s -= i as i32;
            }
            t[i & 7] = v ^ s;
        }
        assert_eq!(g.expected, format!("{}\n", 1 + s));
    }
}
