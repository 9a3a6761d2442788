//! Parallel reversal: gradients of `parallel_for` loops equal finite
//! differences and the gradient of the serial projection, and the
//! accumulation report classifies each update.

mod common;
use common::*;
use parc_ad::AccumulationClass::{self, *};
use parc_ad::AdReport;

/// Checks at -O0 and -O2, against the serial projection too; returns the
/// -O2 report.
fn check_par(src: &str, f: &str, args: &[Arg]) -> AdReport {
    check_par_at(src, f, args, &[0, 2])
}

fn check_par_at(src: &str, f: &str, args: &[Arg], levels: &[u8]) -> AdReport {
    check_against(src, &src.replace("parallel_for", "for"), f, args, levels)
}

/// Checks `src` at each level against finite differences and against
/// `serial`, its serial projection; returns the last level's report.
fn check_against(src: &str, serial: &str, f: &str, args: &[Arg], levels: &[u8]) -> AdReport {
    let mut report = None;
    for &level in levels {
        let (d, sh, r) = check_at(src, level, f, args, 1e-6);
        let (ds, shs, rs) = check_at(serial, level, f, args, 1e-6);
        assert!(rs.sites.is_empty(), "serial code is never classified");
        if let (Some(a), Some(b)) = (d, ds) {
            assert!(close(a, b, 1e-12), "parallel {a} vs serial {b}");
        }
        for (a, b) in sh.iter().zip(&shs) {
            for (x, y) in a.iter().zip(b) {
                assert!(close(*x, *y, 1e-12), "parallel {x} vs serial {y}");
            }
        }
        report = Some(r);
    }
    report.expect("ran")
}

fn classes(r: &AdReport) -> Vec<AccumulationClass> {
    let mut c: Vec<_> = r.sites.iter().map(|s| s.class).collect();
    c.sort_by_key(|c| *c as u8);
    c.dedup();
    c
}

#[test]
fn set_reduces_the_scalar() {
    let src = "void set(double *a, double val, int n) { parallel_for (int i = 0; i < n; i++) a[i] = val * a[i]; }";
    let r = check_par(
        src,
        "set",
        &[
            Arg::Dup(vec![1.0, 2.0, 3.0, 4.0], vec![1.0, 0.5, 2.0, 1.0]),
            Arg::F(1.5),
            Arg::I(4),
        ],
    );
    // Named as in the source: the issue's "`set`'s `d_val` is a reduction".
    assert!(
        r.sites
            .iter()
            .any(|s| s.class == Reduction && s.reason.starts_with("`d_val`")),
        "{r:?}"
    );
    assert!(
        r.sites
            .iter()
            .any(|s| s.class == Disjoint && s.reason.starts_with("`d_a[..]`")),
        "{r:?}"
    );
    assert!(!r.sites.iter().any(|s| s.class == Atomic), "{r:?}");
}

#[test]
fn axpy() {
    let src = r#"
        void axpy(double a, double *x, double *y, int n) {
            parallel_for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
        }
    "#;
    let r = check_par(
        src,
        "axpy",
        &[
            Arg::F(0.7),
            Arg::dup(&[1.0, 2.0, 3.0]),
            Arg::Dup(vec![0.5, 0.1, 0.2], vec![1.0, 2.0, 3.0]),
            Arg::I(3),
        ],
    );
    assert_eq!(classes(&r), vec![Disjoint, Reduction], "{r:?}");
    assert!(r.sites.iter().any(|s| s.reason.contains("affine")), "{r:?}");
}

#[test]
fn gather_is_atomic() {
    let src = r#"
        void gather(double *x, double *y, int *idx, int n) {
            parallel_for (int i = 0; i < n; i++) y[i] = x[idx[i]] * x[idx[i]];
        }
    "#;
    let r = check_par(
        src,
        "gather",
        &[
            Arg::dup(&[1.0, 2.0, 3.0]),
            Arg::Dup(vec![0.0; 5], vec![1.0, 2.0, 3.0, 4.0, 5.0]),
            Arg::Ints(vec![0, 2, 2, 1, 0]),
            Arg::I(5),
        ],
    );
    assert!(
        r.sites
            .iter()
            .any(|s| s.class == Atomic && s.reason.contains("not affine")),
        "{r:?}"
    );
}

/// A helper called from a parallel loop's body with the iteration's own
/// local arrays (it has a loop, so it stays a call at -O2): its updates of
/// their shadows are plain adds, since no other task's reverse touches
/// them; those of the shared `x` stay atomic.
#[test]
fn helpers_add_into_the_callers_locals_without_atomics() {
    let src = r#"
        void accumulate(double *dst, double *src, double *w, int m) {
            for (int j = 0; j < m; j++) dst[j] += src[j] * w[j] * w[j];
        }
        void f(double *x, double *y, int n) {
            parallel_for (int i = 0; i < n; i++) {
                double loc[4];
                double acc[4];
                for (int j = 0; j < 4; j++) {
                    loc[j] = x[i] * (j + 1);
                    acc[j] = x[(i + j) % n];
                }
                accumulate(acc, loc, x, 4);
                y[i] = acc[0] * acc[1] + acc[2] - acc[3];
            }
        }
    "#;
    let r = check_par(
        src,
        "f",
        &[
            Arg::dup(&[1.0, -2.0, 3.0, 0.5, 1.5]),
            Arg::Dup(vec![0.0; 5], vec![1.0, 2.0, 3.0, 4.0, 5.0]),
            Arg::I(5),
        ],
    );
    let callee: Vec<_> = r
        .sites
        .iter()
        .filter(|s| s.function.starts_with("accumulate"))
        .collect();
    assert!(
        callee
            .iter()
            .any(|s| s.class == Local && s.reason.contains("memory of the calling task")),
        "{r:?}"
    );
    assert!(callee.iter().any(|s| s.class == Atomic), "{r:?}");
}

#[test]
fn nested_parallel_loops() {
    let src = r#"
        void mv(double *m, double *x, double *y, int n) {
            parallel_for (int i = 0; i < n; i++) {
                parallel_for (int j = 0; j < n; j++) y[i * n + j] = m[i * n + j] * x[j] * x[i];
            }
        }
    "#;
    // At -O2 LICM hoists `x[i]` out of the inner loop behind a guard that
    // skips it, so its exit gains a predecessor (`dedicate_exits` undoes
    // that before the loops are recognized).
    let r = check_par_at(
        src,
        "mv",
        &[
            Arg::dup(&[1.0, 2.0, 3.0, 4.0]),
            Arg::dup(&[0.5, 1.5]),
            Arg::Dup(vec![0.0; 4], vec![1.0, 2.0, 3.0, 4.0]),
            Arg::I(2),
        ],
        &[0, 2],
    );
    assert!(!r.sites.is_empty());
}

#[test]
fn loop_with_local_work_and_math() {
    let src = r#"
        double norm(double *x, double *out, int n) {
            parallel_for (int i = 0; i < n; i++) {
                double t = 0.0;
                for (int k = 0; k <= i; k++) t = t + sin(x[k]) * x[i];
                out[i] = sqrt(t * t + 1.0);
            }
            double s = 0.0;
            for (int i = 0; i < n; i++) s = s + out[i];
            return s;
        }
    "#;
    check_par(
        src,
        "norm",
        &[
            Arg::dup(&[0.3, 1.2, -0.4, 2.0]),
            Arg::out(4, 0.0),
            Arg::I(4),
        ],
    );
}

/// Checks a function with spawns at -O0 and -O2 against finite
/// differences and against its serial projection (spawn = call, no sync).
fn check_spawn(src: &str, f: &str, args: &[Arg]) -> AdReport {
    let serial = src.replace("spawn ", "").replace("sync;", "");
    check_against(src, &serial, f, args, &[0, 2])
}

#[test]
fn spawned_calls_share_a_scalar() {
    let src = r#"
        double g(double x) { return x * x; }
        double f(double x) { double a = spawn g(x); double b = g(x + 1.0); sync; return a + b; }
    "#;
    check_spawn(src, "f", &[Arg::F(1.3)]);
}

#[test]
fn spawn_tree_over_an_array() {
    let src = r#"
        double psum(double *a, int lo, int hi) {
            if (hi - lo <= 2) {
                double s = 0.0;
                for (int i = lo; i < hi; i++)
                    s += sin(a[i]) * a[i];
                return s;
            }
            int mid = (lo + hi) / 2;
            double left = spawn psum(a, lo, mid);
            double right = psum(a, mid, hi);
            sync;
            return left * right;
        }
    "#;
    let a: Vec<f64> = (0..7).map(|i| 0.3 * i as f64 - 0.8).collect();
    let r = check_spawn(src, "psum", &[Arg::dup(&a), Arg::I(0), Arg::I(7)]);
    // The leaves run in parallel code: their updates of `d_a` are atomic.
    assert!(classes(&r).contains(&Atomic), "{r:?}");
}

#[test]
fn conditional_spawns_and_inlined_tasks() {
    let src = r#"
        double part(double *a, double k, int lo, int hi) {
            double s = 0.0;
            for (int i = lo; i < hi; i++)
                s += sin(k * a[i]);
            return s;
        }
        double two(double *a, double k, int n) {
            double x = 0.0;
            double y = 1.0;
            x = spawn part(a, k, 0, n / 2);
            if (n > 3)
                y = spawn part(a, k * 2.0, n / 2, n);
            sync;
            return x * y;
        }
    "#;
    let a: Vec<f64> = (0..6).map(|i| 0.25 * i as f64 + 0.1).collect();
    check_spawn(src, "two", &[Arg::dup(&a), Arg::F(0.7), Arg::I(6)]);
    check_spawn(src, "two", &[Arg::dup(&a[..3]), Arg::F(0.7), Arg::I(3)]);
}

#[test]
fn spawns_in_a_loop_synced_after_it() {
    let src = r#"
        void g(double *a, double *out, double k, int i) { out[i] = sin(k * a[i]) * a[i]; }
        void f(double *a, double *out, double k, int n) {
            for (int i = 0; i < n; i++)
                spawn g(a, out, k, i);
            sync;
        }
    "#;
    let a: Vec<f64> = (0..6).map(|i| 0.3 * i as f64 - 0.7).collect();
    let r = check_spawn(
        src,
        "f",
        &[Arg::dup(&a), Arg::out(6, 1.0), Arg::F(0.9), Arg::I(6)],
    );
    assert!(!r.sites.is_empty());
}

/// A spawn whose continuation reaches two syncs (an early return with a
/// sync of its own): before the AD, the two are joined into one sync that
/// branches back to each path, values defined on a path before its sync
/// passed through the join.
#[test]
fn spawns_reaching_two_syncs() {
    let src = r#"
        double g(double x) { return x * sin(x); }
        double f(double x, int n) {
            double a = 0.0;
            a = spawn g(x);
            double c = x * 3.0;
            if (n < 2) {
                sync;
                return a + c;
            }
            double b = g(c);
            sync;
            return a * b;
        }
    "#;
    check_spawn(src, "f", &[Arg::F(0.7), Arg::I(1)]);
    check_spawn(src, "f", &[Arg::F(0.7), Arg::I(3)]);
}

/// A spawn inside a parallel loop's iterations: each iteration has its own
/// tape slot and accumulators; a local array of the iteration that both
/// the spawned task and its continuation read gets atomic updates of its
/// shadow (their reverses run at once).
#[test]
fn spawns_inside_parallel_loop_iterations() {
    let src = r#"
        double sq(double *t) { return t[0] * t[0]; }
        double part(double *x, double k, int lo, int hi) {
            double s = 0.0;
            for (int i = lo; i < hi; i++)
                s += sin(k * x[i]);
            return s;
        }
        void f(double *x, double *out, double k, int n) {
            parallel_for (int r = 0; r < n; r++) {
                double t[1];
                t[0] = x[r] * k;
                double a = 0.0;
                a = spawn sq(t);
                double b = sq(t) + t[0] * part(x, k, 0, r + 1);
                sync;
                out[r] = a * b;
            }
        }
    "#;
    let serial = src
        .replace("parallel_for", "for")
        .replace("spawn ", "")
        .replace("sync;", "");
    let x: Vec<f64> = (0..5).map(|i| 0.2 * i as f64 - 0.3).collect();
    let args = [Arg::dup(&x), Arg::out(5, 1.0), Arg::F(0.8), Arg::I(5)];
    check_against(src, &serial, "f", &args, &[2]);
    let r = check_against(src, &serial, "f", &args, &[0]);
    assert!(
        r.sites.iter().any(
            |s| s.class == Atomic && s.reason.starts_with("`d_t[..]`: memory of the iteration")
        ),
        "{r:?}"
    );
}

/// Tapir's normalize: `out[i] = in[i] / mag(in)`, `mag` called in every
/// iteration (line 10).
const NORMALIZE: &str = r#"
        double mag(double *in, int n) {
            double s = 0.0;
            for (int i = 0; i < n; i++)
                s += in[i] * in[i];
            return sqrt(s);
        }
        void normalize(double *out, double *in, int n) {
            parallel_for (int i = 0; i < n; i++)
                out[i] = in[i] / mag(in, n);
        }
    "#;

/// Tapir's normalize, `out[i] = in[i] / mag(in)`: optimized first, its
/// gradient does O(n) work (LICM hoisted `mag` out of the parallel loop,
/// behind a guard); differentiated first (`--ad-before-opt`: the reverse
/// of `mag` in every iteration, then optimized), O(n²). Interpreter steps
/// of one gradient call at n and 2n (`-- --nocapture` prints them).
#[test]
fn normalize_gradient_is_linear_when_optimized_first() {
    let src = NORMALIZE;
    let args = |n: usize| {
        let input: Vec<f64> = (0..n).map(|i| (i % 7) as f64 - 2.5).collect();
        vec![Arg::out(n, 1.0), Arg::dup(&input), Arg::I(n as i64)]
    };
    // Correct both ways, against finite differences.
    check_par_at(src, "normalize", &args(9), &[0, 2]);
    let steps = |ad_first: bool, n: usize| -> u64 {
        let a = args(n);
        let (m, grad) = if ad_first {
            let (mut m, grad, _) = build(src, 0, "normalize", &a);
            parc_opt::optimize(
                &mut m,
                parc_ir::OptLevel::O2,
                &mut parc_opt::Instrumentation::default(),
            )
            .expect("optimize");
            (m, grad)
        } else {
            let (m, grad, _) = build(src, 2, "normalize", &a);
            (m, grad)
        };
        gradient(&m, grad, &a).2
    };
    let (first_n, first_2n) = (steps(true, 100), steps(true, 200));
    let (opt_n, opt_2n) = (steps(false, 100), steps(false, 200));
    println!(
        "normalize gradient steps: ad-before-opt n=100 {first_n}, n=200 {first_2n}; \
         optimize-then-differentiate n=100 {opt_n}, n=200 {opt_2n}"
    );
    assert!(
        first_2n as f64 / first_n as f64 > 3.5,
        "AD first is quadratic"
    );
    assert!(
        (opt_2n as f64 / opt_n as f64) < 2.2,
        "optimized first is linear"
    );
}

/// Normalize without LICM (-O0, -O1): every iteration calls `mag`, whose
/// reverse adds into all of `d_in` atomically, so the iteration's own
/// `d_in[i]` update may not be a plain add (it would lose another
/// iteration's atomic adds between its load and its store): it goes to
/// per-worker copies or is atomic too (at -O1, where it is affine in the
/// index, the reason names the call).
#[test]
fn an_update_beside_a_call_reaching_the_same_shadow_is_not_disjoint() {
    let src = NORMALIZE;
    let input: Vec<f64> = (0..9).map(|i| (i % 7) as f64 - 2.5).collect();
    let args = [Arg::out(9, 1.0), Arg::dup(&input), Arg::I(9)];
    for level in [0, 1] {
        let r = check_par_at(src, "normalize", &args, &[level]);
        let direct: Vec<_> = r.sites.iter().filter(|s| s.loc.line == 10).collect();
        assert!(!direct.is_empty(), "-O{level}: {r:?}");
        for s in direct {
            assert_ne!(s.class, Disjoint, "-O{level}: {r:?}");
            // At -O0 the address is not even affine; at -O1 it is.
            if level == 1 {
                assert!(s.reason.contains("call at line 10"), "-O{level}: {r:?}");
            }
        }
    }
}

/// Row-major rows: `c[i*n + j]` with `0 <= j < n` stays in row `i`, so its
/// adjoint updates need no atomics even though the row stride `n` is known
/// only at run time; `b[k*n + j]` is the same region (all of `b`) in every
/// row: per-worker copies of it, combined after the loop. (`c` is scaled,
/// not just added to: an in-place `c[..] += x` would update no adjoint.)
#[test]
fn rows_of_a_run_time_stride_are_disjoint() {
    let src = r#"
        void mm(double *c, double *a, double *b, int n) {
            parallel_for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++)
                    c[i * n + j] = 0.0;
                for (int k = 0; k < n; k++) {
                    double aik = a[i * n + k];
                    for (int j = 0; j < n; j++)
                        c[i * n + j] = 0.5 * c[i * n + j] + aik * b[k * n + j];
                }
            }
        }
    "#;
    let a: Vec<f64> = (0..9).map(|i| 0.1 * i as f64 - 0.3).collect();
    let b: Vec<f64> = (0..9).map(|i| 0.2 - 0.05 * i as f64).collect();
    let seed: Vec<f64> = (0..9).map(|i| 1.0 + i as f64).collect();
    let r = check_par(
        src,
        "mm",
        &[
            Arg::Dup(vec![0.0; 9], seed),
            Arg::dup(&a),
            Arg::dup(&b),
            Arg::I(3),
        ],
    );
    let class_at = |line: u32, col: u32| {
        r.sites
            .iter()
            .filter(|s| (s.loc.line, s.loc.col) == (line, col))
            .map(|s| s.class)
            .collect::<Vec<_>>()
    };
    assert_eq!(class_at(7, 34), vec![Disjoint], "a[i*n + k]: {r:?}");
    assert_eq!(class_at(9, 46), vec![Disjoint], "c[i*n + j]: {r:?}");
    assert_eq!(class_at(9, 67), vec![Reduction], "b[k*n + j]: {r:?}");
}

/// n-body's gather: iteration `i` reads its own `x[3i..3i+3]` (disjoint:
/// the three offsets stay inside its 24-byte stride) and every `x[3j + d]`
/// (the whole array in every iteration: an array reduction, not atomics).
#[test]
fn gathers_over_the_whole_array_are_array_reductions() {
    let src = r#"
        void pot(double *x, double *e, int n) {
            parallel_for (int i = 0; i < n; i++) {
                double xi = x[3 * i];
                double yi = x[3 * i + 1];
                double s = 0.0;
                for (int j = 0; j < n; j++) {
                    if (j != i) {
                        double dx = x[3 * j] - xi;
                        double dy = x[3 * j + 1] - yi;
                        s += 1.0 / sqrt(dx * dx + dy * dy + x[3 * j + 2] * x[3 * j + 2] + 0.5);
                    }
                }
                e[i] = s;
            }
        }
    "#;
    let x: Vec<f64> = (0..12).map(|i| 0.37 * i as f64 - 1.1).collect();
    let r = check_par(src, "pot", &[Arg::dup(&x), Arg::out(4, 1.0), Arg::I(4)]);
    let of = |line: u32| {
        let mut c: Vec<_> = r
            .sites
            .iter()
            .filter(|s| s.loc.line == line)
            .map(|s| s.class)
            .collect();
        c.dedup();
        c
    };
    assert_eq!(of(4), vec![Disjoint], "{r:?}");
    assert_eq!(of(5), vec![Disjoint], "{r:?}");
    assert_eq!(of(9), vec![Reduction], "{r:?}");
    assert_eq!(of(10), vec![Reduction], "{r:?}");
    assert!(!classes(&r).contains(&Atomic), "{r:?}");
}

/// A five-point stencil: row `i` reads rows `i - 1`, `i` and `i + 1`, so
/// neighbouring iterations overlap, but iterations three rows apart never
/// do: banded (chunks of at least three rows, even chunks before odd
/// ones), plain adds, no copies, no atomics.
#[test]
fn stencil_neighbours_are_banded() {
    let src = r#"
        void sweep(double *dst, double *src, int n) {
            parallel_for (int i = 1; i < n - 1; i++) {
                for (int j = 1; j < n - 1; j++) {
                    int k = i * n + j;
                    double u = src[k];
                    double lap = src[k - n] + src[k + n] + src[k - 1] + src[k + 1] - 4.0 * u;
                    dst[k] = u + 0.2 * lap - 0.05 * u * u * u;
                }
            }
        }
    "#;
    let n = 5;
    let u: Vec<f64> = (0..n * n)
        .map(|i| ((i * 7) % 11) as f64 * 0.1 - 0.4)
        .collect();
    let seed: Vec<f64> = (0..n * n).map(|i| 1.0 + (i % 3) as f64).collect();
    let r = check_par(
        src,
        "sweep",
        &[
            Arg::Dup(vec![0.0; n * n], seed),
            Arg::dup(&u),
            Arg::I(n as i64),
        ],
    );
    assert_eq!(classes(&r), vec![Banded], "{r:?}");
}

/// The same stencil over columns (the loop index is the column): an
/// iteration's updates spread over whole columns, as wide as the grid, so
/// a band would leave the reverse a chunk or two; per-worker copies keep
/// it parallel.
#[test]
fn column_neighbours_stay_array_reductions() {
    let src = r#"
        void sweep(double *dst, double *src, int n) {
            parallel_for (int j = 1; j < n - 1; j++) {
                for (int i = 1; i < n - 1; i++) {
                    int k = i * n + j;
                    dst[k] = src[k] + 0.2 * (src[k - n] + src[k + n] + src[k - 1] + src[k + 1]);
                }
            }
        }
    "#;
    let n = 5;
    let u: Vec<f64> = (0..n * n).map(|i| ((i * 5) % 7) as f64 * 0.1).collect();
    let r = check_par(
        src,
        "sweep",
        &[
            Arg::Dup(vec![0.0; n * n], vec![1.5; n * n]),
            Arg::dup(&u),
            Arg::I(n as i64),
        ],
    );
    assert!(classes(&r).contains(&Reduction), "{r:?}");
    assert!(!classes(&r).contains(&Banded), "{r:?}");
    assert!(!classes(&r).contains(&Atomic), "{r:?}");
}

/// A loop whose banded updates share their shadow with a reduction of one
/// element (`x[0]`, the same in every iteration: per-worker sums) and a
/// disjoint update (`x[2i]`, whose band joins theirs): every iteration
/// `i` reads `x[2i − 1]`, `x[2i]` and `x[2i + 1]`.
#[test]
fn bands_live_beside_reductions_and_disjoint_updates() {
    let src = r#"
        void f(double *y, double *x, int n) {
            parallel_for (int i = 1; i < n; i++)
                y[i] = x[2 * i - 1] * x[2 * i + 1] + x[0] * sin(x[2 * i]);
        }
    "#;
    let x: Vec<f64> = (0..13).map(|i| 0.21 * i as f64 - 1.3).collect();
    let r = check_par(src, "f", &[Arg::out(6, 1.0), Arg::dup(&x), Arg::I(6)]);
    assert_eq!(classes(&r), vec![Disjoint, Banded, Reduction], "{r:?}");
}

/// Array-reduction updates find their place in the worker's copy from the
/// update's own address. With `int` index arithmetic that address is the
/// region's only if nothing wrapped, which the reverse shows once before
/// the loop from the bounds; here the offsets `big1` and `big2` are too
/// large for that proof (the sum of magnitudes passes 2^31, though the
/// primal never wraps), so the updates go to the shadow atomically, and
/// with small offsets to the copies: the same gradient either way.
#[test]
fn array_reductions_fall_back_to_atomics_when_the_bound_proof_fails() {
    let src = r#"
        void spread(double *x, double *y, int n, int big1, int big2) {
            parallel_for (int i = 0; i < n; i++) {
                double s = 0.0;
                for (int j = 0; j < n; j++)
                    s += x[i + big1 - big2 + j] * x[j];
                y[i] = s;
            }
        }
    "#;
    let x: Vec<f64> = (0..8).map(|i| 0.3 * i as f64 - 0.7).collect();
    for big in [0, 1 << 30] {
        let r = check_par(
            src,
            "spread",
            &[
                Arg::dup(&x),
                Arg::out(4, 1.5),
                Arg::I(4),
                Arg::I(big),
                Arg::I(big),
            ],
        );
        assert!(classes(&r).contains(&Reduction), "{r:?}");
        // `x[j]` has no band: it keeps its neighbour a reduction too.
        assert!(!classes(&r).contains(&Banded), "{r:?}");
    }
}

/// Rows whose inner loop records a value per element, after a value per
/// row (`exp(s[i])`, overwritten by the loop): the records of every row fit
/// one buffer sized before the parallel loop (the row's frame plus the
/// inner loop's reservation), so no row allocates or grows a tape. A
/// miscounted buffer would make a row's reservation grow the tape from
/// inside the buffer, which the interpreter reports as a bad `realloc`.
#[test]
fn rows_with_inner_loops_record_into_one_buffer() {
    let src = r#"
        void rows(double *y, double *s, double *x, int n, int m) {
            parallel_for (int i = 0; i < n; i++) {
                double e = exp(s[i]);
                s[i] = 0.0;
                for (int j = 0; j < m; j++) {
                    double v = x[i * m + j];
                    y[i * m + j] = e * v * v;
                    x[i * m + j] = 0.5 * v;
                }
            }
        }
    "#;
    let (n, m) = (5, 7);
    let x: Vec<f64> = (0..n * m)
        .map(|k| ((k * 5) % 9) as f64 * 0.1 - 0.3)
        .collect();
    let s: Vec<f64> = (0..n).map(|i| 0.2 * i as f64 - 0.4).collect();
    let args = [
        Arg::Dup(
            vec![0.0; n * m],
            (0..n * m).map(|k| 1.0 + (k % 4) as f64).collect(),
        ),
        Arg::dup(&s),
        Arg::dup(&x),
        Arg::I(n as i64),
        Arg::I(m as i64),
    ];
    check_par(src, "rows", &args);
    let (module, _, _) = build(src, 2, "rows", &args);
    let text = parc_ir::print::print_module(&module);
    let grad = text
        .split("\nfunc ")
        .find(|f| f.starts_with("@grad_rows"))
        .unwrap_or_else(|| panic!("no gradient function in\n{text}"));
    assert_eq!(grad.matches("malloc").count(), 1, "one buffer:\n{grad}");
}

/// A value the optimizer computed once before the loop has no source name
/// of its own: `--explain-ad` names its adjoint by the expression, as
/// `d_(a * 2.0)`, and an address into `x` as `d_x[..]`.
#[test]
fn hoisted_values_are_named_by_their_expression() {
    let src = r#"
        void f(double *x, double *y, double a, int n) {
            parallel_for (int i = 0; i < n; i++)
                y[i] = x[i] * (a * 2.0);
        }
    "#;
    let r = check_par(
        src,
        "f",
        &[
            Arg::dup(&[1.0, 2.0, 3.0]),
            Arg::out(3, 1.0),
            Arg::F(0.5),
            Arg::I(3),
        ],
    );
    let reasons: Vec<&str> = r.sites.iter().map(|s| s.reason.as_str()).collect();
    assert!(
        reasons.iter().any(|s| s.starts_with("`d_(a * 2.0)`")),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|s| s.starts_with("`d_x[..]`")),
        "{reasons:?}"
    );
}
