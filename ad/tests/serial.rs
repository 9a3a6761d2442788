//! Serial reverse mode: every rule and construct against finite
//! differences, at -O0 (locals in memory) and -O2 (SSA).

mod common;
use common::*;

#[test]
fn arithmetic() {
    let src = "double f(double x) { double y = x * x - 3.0 * x; return y / (x + 2.0) - (-x); }";
    let (d, _) = check(src, "f", &[Arg::F(1.7)]);
    assert!(d.is_some());
}

#[test]
fn linear_code_is_exact() {
    let src = "double f(double x) { return 3.0 * x + 2.0 * x - x; }";
    let (m, g, _) = build(src, 2, "f", &[Arg::F(5.0)]);
    let (d, _, _) = gradient(&m, g, &[Arg::F(5.0)]);
    assert_eq!(d, Some(4.0));
}

#[test]
fn math_intrinsics() {
    let src = r#"
        double f(double x) {
            return sqrt(x) + exp(x) * log(x) + pow(x, 2.5) + pow(1.3, x) + sin(x) * cos(x)
                 + tan(x) + tanh(x) + fabs(x - 3.0) + fmin(x, 1.0) + fmax(x, 1.0)
                 + floor(x) * x + ceil(x);
        }
    "#;
    check(src, "f", &[Arg::F(0.8)]);
    check(src, "f", &[Arg::F(1.9)]);
}

#[test]
fn conversions_and_floats() {
    let src = r#"
        double f(double x) {
            float y = (float)x * 2.0f;
            int k = (int)x;
            return (double)y * (double)k + (double)(y * y);
        }
    "#;
    // `float` rounding defeats finite differences; the derivative is
    // 2k + 4y with y = (float)x * 2 and k = 2.
    for level in [0, 2] {
        let (m, g, _) = build(src, level, "f", &[Arg::F(2.3)]);
        let (d, _, _) = gradient(&m, g, &[Arg::F(2.3)]);
        let y = 2.3f32 * 2.0;
        assert!(close(d.unwrap(), 4.0 + 4.0 * y as f64, 1e-6), "{d:?}");
    }
}

#[test]
fn float_active_parameter() {
    let src = "float f(float x) { return x * x * 3.0f; }";
    let (m, g, _) = build(src, 2, "f", &[Arg::F32(1.5)]);
    let (d, _, _) = gradient(&m, g, &[Arg::F32(1.5)]);
    assert_eq!(d, Some(9.0));
}

#[test]
fn select_and_branches() {
    let src = r#"
        double f(double x) {
            double y = x > 1.0 ? x * x : 3.0 * x;
            if (y > 4.0) y = y - x; else y = y * y;
            return y;
        }
    "#;
    check(src, "f", &[Arg::F(0.5)]);
    check(src, "f", &[Arg::F(1.5)]);
    check(src, "f", &[Arg::F(3.0)]);
}

#[test]
fn loops_with_unknown_trip_counts() {
    let src = r#"
        double f(double x) {
            double s = 1.0;
            while (s < 100.0) { s = s * x + 0.5; }
            for (int i = 0; i < 3; i++) {
                for (int j = 0; j < i; j++) s = s + 0.01 * sin(s) * x;
            }
            return s;
        }
    "#;
    check(src, "f", &[Arg::F(1.7)]);
}

#[test]
fn break_continue_early_return() {
    let src = r#"
        double f(double *a, int n, double x) {
            double s = 0.0;
            for (int i = 0; i < n; i++) {
                if (a[i] < 0.0) continue;
                if (s > 10.0) break;
                if (a[i] > 100.0) return s * x;
                s = s + a[i] * x * a[i];
            }
            return s + x;
        }
    "#;
    let a = [1.0, -2.0, 3.0, 2.5, 4.0];
    check(src, "f", &[Arg::dup(&a), Arg::I(5), Arg::F(0.7)]);
    let b = [1.0, 200.0, 3.0];
    check(src, "f", &[Arg::dup(&b), Arg::I(3), Arg::F(0.7)]);
}

#[test]
fn arrays_in_and_out() {
    let src = r#"
        void f(double *x, double *y, int n) {
            for (int i = 0; i < n; i++) y[i] = x[i] * x[i] + y[i] * x[(i + 1) % n];
        }
    "#;
    let args = [
        Arg::dup(&[1.0, 2.0, 3.0, 4.0]),
        Arg::Dup(vec![0.5, 0.25, 2.0, 1.0], vec![1.0, 2.0, 3.0, 4.0]),
        Arg::I(4),
    ];
    check(src, "f", &args);
}

#[test]
fn in_place_overwrites() {
    // y[i] is read and then overwritten: its old adjoint must be consumed.
    let src = r#"
        void f(double *y, int n) {
            for (int k = 0; k < 3; k++)
                for (int i = 1; i < n; i++) y[i] = y[i] * y[i - 1] + 0.5;
        }
    "#;
    let args = [
        Arg::Dup(vec![0.9, 1.1, 0.7, 1.2], vec![1.0, 1.0, 1.0, 1.0]),
        Arg::I(4),
    ];
    check(src, "f", &args);
}

#[test]
fn const_pointers_and_integer_code() {
    let src = r#"
        double f(double *w, double *c, int *idx, int n) {
            double s = 0.0;
            int h = 0;
            for (int i = 0; i < n; i++) { h = h * 31 + idx[i]; s = s + w[idx[i]] * c[i]; }
            if (h % 2 == 0) s = s * 2.0;
            return s;
        }
    "#;
    let args = [
        Arg::dup(&[1.0, 2.0, 3.0]),
        Arg::Const(vec![0.5, 1.5, 2.5, 3.5]),
        Arg::Ints(vec![2, 0, 2, 1]),
        Arg::I(4),
    ];
    check(src, "f", &args);
}

#[test]
fn local_arrays_and_structs() {
    let src = r#"
        struct P { double a; double b; };
        double f(double x) {
            double t[4];
            struct P p;
            struct P q;
            for (int i = 0; i < 4; i++) t[i] = x * (double)i;
            p.a = t[3] * x; p.b = t[2];
            q = p;
            return q.a * q.b + t[1];
        }
    "#;
    check(src, "f", &[Arg::F(1.3)]);
}

#[test]
fn heap_memory() {
    let src = r#"
        double f(double *x, int n) {
            double *t = (double*)malloc(n * sizeof(double));
            double *u = (double*)calloc(n, sizeof(double));
            for (int i = 0; i < n; i++) t[i] = x[i] * x[i];
            for (int i = 0; i < n; i++) u[i] = t[i] + t[(i + 1) % n];
            memcpy(t, u, n * sizeof(double));
            double s = 0.0;
            for (int i = 0; i < n; i++) s = s + t[i] * x[i];
            free(t);
            free(u);
            return s;
        }
    "#;
    check(src, "f", &[Arg::dup(&[1.0, 2.0, 0.5]), Arg::I(3)]);
}

#[test]
fn memset_kills_derivatives() {
    let src = r#"
        double f(double *x, int n) {
            double s = x[0] * x[1];
            memset(x, 0, n * sizeof(double));
            x[1] = s * 2.0;
            return s + x[0];
        }
    "#;
    check(
        src,
        "f",
        &[
            Arg::Dup(vec![1.5, 2.0, 3.0], vec![1.0, 1.0, 1.0]),
            Arg::I(3),
        ],
    );
}

#[test]
fn printf_is_an_inactive_side_effect() {
    let src = r#"
        double f(double x) {
            printf("x = %f\n", x);
            return x * x;
        }
    "#;
    let (m, g, _) = build(src, 2, "f", &[Arg::F(3.0)]);
    let (d, _, _) = gradient(&m, g, &[Arg::F(3.0)]);
    assert_eq!(d, Some(6.0));
}

const CALLS: &str = r#"
    double sq(double a) { return a * a; }
    void scale(double *v, int n, double s) { for (int i = 0; i < n; i++) v[i] = v[i] * s; }
    double dot(double *a, double *b, int n) {
        double s = 0.0;
        for (int i = 0; i < n; i++) s = s + a[i] * b[i];
        return s;
    }
    double f(double *x, int n, double s) {
        scale(x, n, sq(s));
        double r = dot(x, x, n);
        if (r > 1000.0) return 0.0;
        return sq(r) + sq(s);
    }
"#;

#[test]
fn calls_split_mode() {
    check(
        CALLS,
        "f",
        &[
            Arg::Dup(vec![1.0, 2.0, 0.5], vec![1.0, 0.0, 2.0]),
            Arg::I(3),
            Arg::F(0.9),
        ],
    );
}

#[test]
fn recursion() {
    let src = r#"
        double p(double x, int n) {
            if (n == 0) return 1.0;
            if (n % 2 == 1) return x * p(x, n - 1);
            double h = p(x, n / 2);
            return h * h + sin(x) * 0.0;
        }
    "#;
    let (d, _) = check(src, "p", &[Arg::F(1.1), Arg::I(7)]);
    let exact = 7.0 * 1.1f64.powi(6);
    assert!(close(d.unwrap(), exact, 1e-12));
}

#[test]
fn nothing_active() {
    let src = "double f(double x, int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return (double)s; }";
    let (m, g, _) = build(src, 2, "f", &[Arg::F(2.0), Arg::I(4)]);
    let (d, _, _) = gradient(&m, g, &[Arg::F(2.0), Arg::I(4)]);
    assert_eq!(d, Some(0.0));
}

#[test]
fn errors_name_the_construct() {
    expect_error(
        "extern double g(double x); double f(double x) { return g(x); }",
        2,
        "f",
        &[Arg::F(1.0)],
        "`extern` function `g`",
    );
    expect_error(
        "double G; void f(double x) { G = x * 2.0; }",
        2,
        "f",
        &[Arg::F(1.0)],
        "global",
    );
}

/// Interpreter steps of the gradient against the primal, on a loop (the
/// overhead the design promises to keep modest: every needed value is
/// recorded, so a constant factor).
#[test]
fn overhead_on_a_loop() {
    let src = r#"
        double f(double *x, int n) {
            double s = 0.0;
            for (int i = 0; i < n; i++) s = s + x[i] * x[i] * sin(x[i]);
            return s;
        }
    "#;
    let x: Vec<f64> = (0..1000).map(|i| i as f64 * 0.001).collect();
    let args = [Arg::dup(&x), Arg::I(1000)];
    let (mut m, g, _) = build(src, 2, "f", &args);
    let (_, _, raw_steps) = gradient(&m, g, &args);
    // The driver optimizes again after the AD (mem2reg promotes the
    // adjoint slots).
    parc_opt::optimize(
        &mut m,
        parc_ir::OptLevel::O2,
        &mut parc_opt::Instrumentation::default(),
    )
    .unwrap();
    parc_ir::verify::verify_module(&m).unwrap();
    let (_, _, grad_steps) = gradient(&m, g, &args);
    println!("gradient before re-optimizing: {raw_steps} steps");
    let fid = m.func_by_name("f").unwrap();
    let mut it = parc_ir::interp::Interp::new(&m, Default::default()).unwrap();
    let p = it.alloc(8000).unwrap();
    it.write_f64s(p, &x).unwrap();
    it.call(
        fid,
        &[parc_ir::interp::Val::Ptr(p), parc_ir::interp::Val::I(1000)],
    )
    .unwrap();
    let primal_steps = it.steps();
    let ratio = grad_steps as f64 / primal_steps as f64;
    println!("primal {primal_steps} steps, gradient {grad_steps} steps: {ratio:.1}x");
    assert!(ratio < 20.0, "{ratio}");
}

/// No tape traffic inside loops nested `depth` deep or deeper in gradient
/// `grad`: those forward loops push nothing, their reverse pops nothing.
fn assert_no_tape_call_in_loops(m: &parc_ir::Module, grad: parc_ir::FuncId, depth: u32) {
    let g = &m.funcs[grad];
    let an = parc_ir::analysis::FunctionAnalyses::compute(g);
    let tape_fns: Vec<parc_ir::FuncId> = ["__parc_ad_tape_push", "__parc_ad_tape_pop"]
        .iter()
        .filter_map(|n| m.func_by_name(n))
        .collect();
    for (b, i) in g.placed_insts() {
        if let parc_ir::InstKind::Call { func, .. } = g.inst(i) {
            assert!(
                !(tape_fns.contains(func) && an.loops.depth(b) >= depth),
                "a tape call in a loop of depth {}:\n{}",
                an.loops.depth(b),
                parc_ir::print::print_module(m)
            );
        }
    }
}

/// A branch inside a loop whose condition the reverse can recompute (here
/// from the induction variables) records no edge, and `sqrt` is recomputed
/// rather than recorded: n-body's inner loop keeps no tape.
#[test]
fn recomputable_branches_and_sqrt_record_nothing() {
    let src = r#"
        double pairs(double *x, int n) {
            double e = 0.0;
            for (int i = 0; i < n; i++) {
                double s = 0.0;
                for (int j = 0; j < n; j++) {
                    if (j != i) {
                        double d = x[j] - x[i];
                        s += 1.0 / sqrt(d * d + 0.01);
                    }
                }
                e += x[i] * s;
            }
            return e;
        }
    "#;
    let x = [0.5, -1.5, 2.0, 3.25, 0.125];
    check_at(src, 2, "pairs", &[Arg::dup(&x), Arg::I(5)], 1e-6);
    let (m, grad, _) = build(src, 2, "pairs", &[Arg::dup(&x), Arg::I(5)]);
    // The outer loop records `s`, once per `i`.
    assert_no_tape_call_in_loops(&m, grad, 2);
}

/// An inner loop `for (j = 0; j < i; j++)` runs `i` times: the reverse
/// takes its trip count from the bounds instead of recording it once per
/// outer iteration, so the loop nest records nothing at all.
#[test]
fn trip_counts_come_from_the_bounds() {
    let src = r#"
        double tri(double *x, int n) {
            double e = 0.0;
            for (int i = 0; i < n; i++)
                for (int j = 0; j < i; j++)
                    e += x[i] * x[j];
            return e;
        }
    "#;
    let x = [0.5, -1.5, 2.0, 3.25, 0.125];
    check_at(src, 2, "tri", &[Arg::dup(&x), Arg::I(5)], 1e-6);
    check_at(src, 2, "tri", &[Arg::dup(&x[..1]), Arg::I(1)], 1e-6);
    let (m, grad, _) = build(src, 2, "tri", &[Arg::dup(&x), Arg::I(5)]);
    assert_no_tape_call_in_loops(&m, grad, 1);
}

/// matmul's row: the loop that zeroes `c` exits straight into the header of
/// the `k` loop, which the `k` loop's latch also enters. Giving that exit
/// edge a block of its own must not hide that `k` starts at 0: the reverse
/// takes it from the constant instead of recording it once per row.
#[test]
fn a_split_loop_exit_keeps_the_start_value_visible() {
    let src = r#"
        void rows(double *restrict c, double *restrict a, int n) {
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++)
                    c[i * n + j] = 0.0;
                for (int k = 0; k < n; k++)
                    for (int j = 0; j < n; j++)
                        c[i * n + j] += a[i * n + k] * a[k * n + j];
            }
        }
    "#;
    let a = [0.5, -1.5, 2.0, 3.25, 0.125, 1.0, -0.75, 2.5, 0.25];
    let args = [Arg::out(9, 1.5), Arg::dup(&a), Arg::I(3)];
    check_at(src, 2, "rows", &args, 1e-6);
    let (m, grad, _) = build(src, 2, "rows", &args);
    assert_no_tape_call_in_loops(&m, grad, 1);
}

/// The reverse of a counted loop over memory nothing overwrites records
/// nothing per iteration: the induction variable comes from the iteration
/// count, addresses are recomputed and `in[i]` is loaded again. Measured
/// in interpreter steps against the primal (`-- --nocapture` prints them).
#[test]
fn counted_loop_reverse_recomputes_instead_of_recording() {
    let src = r#"
        double mag(double *in, int n) {
            double s = 0.0;
            for (int i = 0; i < n; i++)
                s += in[i] * in[i];
            return sqrt(s);
        }
    "#;
    let input: Vec<f64> = (0..400).map(|i| (i % 7) as f64 - 2.5).collect();
    let args = [Arg::dup(&input), Arg::I(400)];
    check_at(src, 2, "mag", &[Arg::dup(&input[..9]), Arg::I(9)], 1e-6);
    let (mut m, grad, _) = build(src, 2, "mag", &args);
    assert_no_tape_call_in_loops(&m, grad, 1);
    parc_opt::optimize(
        &mut m,
        parc_ir::OptLevel::O2,
        &mut parc_opt::Instrumentation::default(),
    )
    .expect("optimize");
    let grad_steps = gradient(&m, grad, &args).2;
    let primal_steps = {
        use parc_ir::interp::{Config, Interp, Val};
        let mut it = Interp::new(&m, Config::default()).expect("interp");
        let p = it.alloc(8 * 400).unwrap();
        it.write_f64s(p, &input).unwrap();
        let f = m.func_by_name("mag").expect("primal");
        let before = it.steps();
        it.call(f, &[Val::Ptr(p), Val::I(400)])
            .expect("primal runs");
        it.steps() - before
    };
    println!("mag: primal {primal_steps} steps, gradient {grad_steps} steps");
    assert!(
        grad_steps < 3 * primal_steps,
        "gradient {grad_steps} steps vs primal {primal_steps}"
    );
}

/// `a[i] = x·(x·x)` overwrites `x`, so the reverse must keep it; it needs
/// `t = x·x` (first) and `x`. Recording each as it is asked for costs two
/// slots per iteration (the greedy choice did that); the minimum cut
/// records only `x` and recomputes `t`.
#[test]
fn minimum_cut_records_the_input_not_what_it_computes() {
    let src = r#"
        void cube(double *a, int n) {
            for (int i = 0; i < n; i++) {
                double x = a[i];
                a[i] = x * (x * x);
            }
        }
    "#;
    let a = [0.5, -1.5, 2.0, 3.25];
    check_at(src, 2, "cube", &[Arg::dup(&a), Arg::I(4)], 1e-6);
    let (m, grad, _) = build(src, 2, "cube", &[Arg::dup(&a), Arg::I(4)]);
    let g = &m.funcs[grad];
    let reserve = m
        .func_by_name("__parc_ad_tape_reserve")
        .expect("the helper");
    // reserve(tape, runs · slots): the slots per iteration.
    let slots: Vec<i64> = g
        .placed_insts()
        .filter_map(|(_, i)| match g.inst(i) {
            parc_ir::InstKind::Call { func, args } if *func == reserve => Some(args[1]),
            _ => None,
        })
        .filter_map(|n| match g.value_def(n) {
            parc_ir::ValueDef::Result(i) => match g.inst(i) {
                parc_ir::InstKind::Binary(_, _, s) => match g.value_def(*s) {
                    parc_ir::ValueDef::Result(c) => match g.inst(c) {
                        parc_ir::InstKind::Iconst(k) => Some(*k),
                        _ => None,
                    },
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(slots, [1], "{}", parc_ir::print::print_module(&m));
}

/// With `restrict`, `a[i]` cannot change through `out`: the reverse loads
/// it again instead of recording it, and the gradient is still exact.
#[test]
fn restrict_parameters_are_loaded_again() {
    let src = r#"
        void sq(double *restrict out, double *restrict a, int n) {
            for (int i = 0; i < n; i++)
                out[i] = a[i] * a[i];
        }
    "#;
    let a = [0.5, -1.5, 2.0, 3.25];
    let args = [Arg::out(4, 1.0), Arg::dup(&a), Arg::I(4)];
    check_at(src, 2, "sq", &args, 1e-6);
    let (m, grad, _) = build(src, 2, "sq", &args);
    assert_no_tape_call_in_loops(&m, grad, 1);
    assert!(
        m.func_by_name("__parc_ad_tape_reserve")
            .is_none_or(|r| !m.funcs[grad].placed_insts().any(|(_, i)| matches!(
                m.funcs[grad].inst(i),
                parc_ir::InstKind::Call { func, .. } if *func == r
            ))),
        "nothing to reserve:\n{}",
        parc_ir::print::print_module(&m)
    );
}

/// A loop that must record a value per iteration (`a[i]` may be
/// overwritten through `out`) reserves the room before it starts and
/// stores iteration k's record at a place computed from k; the gradient
/// is still exact.
#[test]
fn straight_loops_reserve_their_records() {
    let src = r#"
        void sq(double *out, double *a, int n) {
            for (int i = 0; i < n; i++)
                out[i] = a[i] * a[i];
        }
    "#;
    let a = [0.5, -1.5, 2.0, 3.25];
    let args = [Arg::out(4, 1.0), Arg::dup(&a), Arg::I(4)];
    check_at(src, 2, "sq", &args, 1e-6);
    let (m, grad, _) = build(src, 2, "sq", &args);
    let reserve = m
        .func_by_name("__parc_ad_tape_reserve")
        .expect("the helper exists");
    let calls = |name: parc_ir::FuncId| {
        m.funcs[grad]
            .placed_insts()
            .any(|(_, i)| matches!(m.funcs[grad].inst(i), parc_ir::InstKind::Call { func, .. } if *func == name))
    };
    assert!(calls(reserve), "{}", parc_ir::print::print_module(&m));
    // Iteration k's record sits at a place computed from k: no tape call
    // (and no length kept) inside the loop, in either sweep.
    assert_no_tape_call_in_loops(&m, grad, 1);
    // Reversed at several trip counts, including none and one.
    for n in [0usize, 1, 3] {
        let args = [Arg::out(n, 1.0), Arg::dup(&a[..n]), Arg::I(n as i64)];
        check_at(src, 2, "sq", &args, 1e-6);
    }
}

/// `c[j] += a * b[j]` leaves `d_c[j]` in place: the reverse reads it and
/// writes no shadow of `c` (the general rules would zero it and add the
/// same adjoint back), also when the update is `c[j] = c[j] - a * b[j]`.
/// The gradient's `restrict` parameters and their shadows are `noalias`.
#[test]
fn in_place_updates_leave_their_adjoint_in_place() {
    let src = r#"
        void axpy(double *restrict c, double *restrict b, double a, int n) {
            for (int j = 0; j < n; j++) {
                c[j] += a * b[j];
                c[j] = c[j] - b[j] * b[j];
            }
        }
    "#;
    let args = [
        Arg::Dup(vec![0.5, -1.0, 2.0], vec![1.0, 0.25, -2.0]),
        Arg::dup(&[1.5, 0.75, -0.5]),
        Arg::F(1.25),
        Arg::I(3),
    ];
    check_at(src, 2, "axpy", &args, 1e-6);
    check_at(src, 0, "axpy", &args, 1e-6);
    let (m, grad, _) = build(src, 2, "axpy", &args);
    let g = &m.funcs[grad];
    assert_eq!(
        g.noalias,
        [0, 1, 2, 3],
        "{}",
        parc_ir::print::print_module(&m)
    );
    let d_c = g.blocks[g.layout[0]].params[1];
    let stores_to_d_c = g
        .placed_insts()
        .filter(|&(_, i)| {
            matches!(g.inst(i), parc_ir::InstKind::Store { ptr, .. }
                if pointer_root(g, *ptr) == d_c)
        })
        .count();
    assert_eq!(stores_to_d_c, 0, "{}", parc_ir::print::print_module(&m));
}

/// The value `ptr` is derived from by `ptradd`s.
fn pointer_root(g: &parc_ir::Function, mut ptr: parc_ir::Value) -> parc_ir::Value {
    while let parc_ir::ValueDef::Result(i) = g.value_def(ptr) {
        match g.inst(i) {
            parc_ir::InstKind::PtrAdd(base, _) => ptr = *base,
            _ => break,
        }
    }
    ptr
}

/// `x sin x` needs `sin x` and `cos x` in the reverse: `sin x` is computed
/// again there beside the rule's `cos x` (one block, one `sincos` call in
/// the backend) rather than recorded, so the loop records only `x`, whose
/// memory the loop overwrites.
#[test]
fn sines_are_recomputed_beside_their_cosines() {
    let src = r#"
        void wave(double *x, int n) {
            for (int i = 0; i < n; i++)
                x[i] = x[i] * sin(x[i]);
        }
    "#;
    let args = [Arg::dup(&[0.3, -1.2, 2.5, 0.9]), Arg::I(4)];
    check_at(src, 0, "wave", &args, 1e-6);
    check_at(src, 2, "wave", &args, 1e-6);
    let (m, grad, _) = build(src, 2, "wave", &args);
    let g = &m.funcs[grad];
    let paired = g.layout.iter().any(|&b| {
        let has = |op| {
            g.block_insts(b).iter().any(
                |&i| matches!(g.inst(i), parc_ir::InstKind::Intrinsic { op: o, .. } if *o == op),
            )
        };
        has(parc_ir::Intrinsic::Sin) && has(parc_ir::Intrinsic::Cos)
    });
    assert!(paired, "{}", parc_ir::print::print_module(&m));
}

/// Loops that place their records by their induction variable (counting
/// by one from a first value that is not 0, signed and unsigned, `<` and
/// `<=`, two records per iteration), each run twice so the second run's
/// records sit after the first's on the tape.
#[test]
fn records_placed_by_the_induction_variable() {
    let src = r#"
        double f(double *x, int lo, int n) {
            double s = 0.0;
            for (int r = 0; r < 2; r++) {
                for (int i = lo; i < n; i++) {
                    double e = exp(x[i] * s * 0.1);
                    x[i] = sin(x[i]) * e;
                    s = s + x[i];
                }
                for (unsigned u = (unsigned)lo; u <= (unsigned)(n - 1); u++) {
                    double v = x[u];
                    x[u] = v * v * 0.5;
                    s = s * 0.9 + x[u];
                }
            }
            return s;
        }
    "#;
    check(
        src,
        "f",
        &[
            Arg::dup(&[0.3, -0.7, 1.1, 0.4, -0.2, 0.9]),
            Arg::I(2),
            Arg::I(6),
        ],
    );
}

/// The join of C's `a && b` is a block parameter, `a ? b : 0`. When both
/// follow from values the reverse has anyway (here the counter and the
/// parameters), the `if` after it is reversed by recomputing the
/// condition, and `f` records nothing: its gradient allocates no tape.
/// `g`'s second operand loads `x[k - 1]`, which the way not taken (`k =
/// 0`) never read: recomputed for every `k`, it would read `x[-1]` (the
/// interpreter would stop there), so that join is recorded instead.
#[test]
fn short_circuit_joins_are_recomputed_when_nothing_can_fault() {
    let src = r#"
        double f(double *x, int n, int lo) {
            double s = 0.0;
            for (int i = 0; i < n; i++) {
                if (i > lo && i < n - 1)
                    s += x[i] * x[i];
                else
                    s += sin(x[i]);
            }
            return s;
        }
        double g(double *x, int n) {
            double s = 0.0;
            for (int k = 0; k < n; k++) {
                if (k > 0 && x[k - 1] > 0.0)
                    s += x[k] * x[k - 1];
                s = s * 0.5 + x[k];
            }
            return s;
        }
    "#;
    let x = [0.5, -1.0, 2.0, 0.25, 3.0, -0.5];
    let f_args = [Arg::dup(&x), Arg::I(6), Arg::I(1)];
    check(src, "f", &f_args);
    check(src, "g", &[Arg::dup(&x), Arg::I(6)]);
    let (m, grad, _) = build(src, 2, "f", &f_args);
    let g = &m.funcs[grad];
    let allocates = g.placed_insts().any(|(_, i)| {
        matches!(
            g.inst(i),
            parc_ir::InstKind::Intrinsic {
                op: parc_ir::Intrinsic::Malloc
                    | parc_ir::Intrinsic::Calloc
                    | parc_ir::Intrinsic::Realloc,
                ..
            }
        )
    });
    assert!(!allocates, "{}", parc_ir::print::print_module(&m));
}
