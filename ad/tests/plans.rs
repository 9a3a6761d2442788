//! Planning without generating code: a derivative's [`Plan`] is built
//! from the primal alone, and its decisions (loops, tasks, records,
//! accumulation classes) are read from it and from its text.

mod common;
use common::*;
use parc_ad::plan::{Facts, Mode, Plan};
use parc_ad::{AccumulationClass, BlockThreads};
use parc_ir::Activity::{self, *};

fn plan_of(src: &str, level: u8, f: &str, acts: &[Activity]) -> Result<Plan, parc_ad::AdError> {
    let m = compile_opt(src, level);
    let primal = m.func_by_name(f).expect("function exists");
    Plan::build(
        &m,
        primal,
        acts,
        Mode::Combined,
        Facts {
            block_threads: BlockThreads::OneAtATime,
            launch_body: false,
            one_d_body: false,
            readonly: Default::default(),
        },
    )
}

fn plan(src: &str, level: u8, f: &str, acts: &[Activity]) -> Plan {
    plan_of(src, level, f, acts).unwrap_or_else(|e| panic!("no plan: {e:?}"))
}

fn classes(plan: &Plan) -> Vec<AccumulationClass> {
    plan.accumulation.sites.iter().map(|s| s.class).collect()
}

#[test]
fn a_serial_loop_is_counted_from_its_bounds_and_classifies_nothing() {
    let src = "double sumsq(double *a, int n) { double s = 0; for (int i = 0; i < n; i++) s += a[i] * a[i]; return s; }";
    for level in [0, 2] {
        let p = plan(src, level, "sumsq", &[Dup, Const]);
        assert!(p.ploops.is_empty() && p.spawns.is_empty());
        assert_eq!(p.counted.len(), 1, "-O{level}: one counted loop");
        assert!(classes(&p).is_empty(), "serial code is never classified");
        let text = p.to_string();
        assert!(text.starts_with("plan of @sumsq (combined)\n"), "{text}");
        assert!(
            text.contains("  parameters: a: dup, shadowed; n: const\n"),
            "{text}"
        );
        if level == 2 {
            // Rotated and simplified, the header tests `i < n`: the reverse
            // knows the trip count without a record.
            assert!(p.exit_tests[0].is_some(), "{text}");
            assert!(
                text.contains("iterations counted from its bounds"),
                "{text}"
            );
        }
    }
}

#[test]
fn a_parallel_loop_plans_a_disjoint_update_and_a_reduction() {
    let src = "void set(double *a, double val, int n) { parallel_for (int i = 0; i < n; i++) a[i] = val * a[i]; }";
    let p = plan(src, 2, "set", &[Dup, Active, Const]);
    assert_eq!(p.ploops.len(), 1);
    assert!(p.counted.is_empty());
    let mut c = classes(&p);
    c.sort_by_key(|c| *c as u8);
    assert_eq!(
        c,
        [AccumulationClass::Disjoint, AccumulationClass::Reduction]
    );
    let text = p.to_string();
    assert!(text.contains("  parallel loop 0: header "), "{text}");
    assert!(
        text.contains("in parallel loop 0: disjoint (plain add"),
        "{text}"
    );
    assert!(
        text.contains("`d_a[..]`: address affine in the loop index (stride 8 bytes)"),
        "{text}"
    );
    // `val` is the same in every iteration: its adjoint is a per-worker sum.
    assert_eq!(p.accumulation.reductions[0].len(), 1, "{text}");
    assert!(
        text.contains("per-worker sum of parallel loop 0: d_val"),
        "{text}"
    );
}

#[test]
fn what_every_iteration_reads_alike_is_a_reduction() {
    // `b` may alias `a`: the optimizer versions the loop and reads `a[0]`
    // once before it, a value of the parent whose adjoint every iteration
    // adds to.
    let src = "void scale(double *b, double *a, int n) { parallel_for (int i = 0; i < n; i++) b[i] = a[0] * b[i]; }";
    let p = plan(src, 2, "scale", &[Dup, Dup, Const]);
    let text = p.to_string();
    assert!(
        text.contains("per-worker sum of parallel loop 0: d_(*a)"),
        "{text}"
    );
    assert!(
        classes(&p).contains(&AccumulationClass::Reduction),
        "{text}"
    );
    // Every iteration gathers the same region `a[0..m)`.
    let src = "void gather(double *b, double *a, int n, int m) { parallel_for (int i = 0; i < n; i++) { double s = 0; for (int j = 0; j < m; j++) s += a[j]; b[i] = s; } }";
    let p = plan(src, 2, "gather", &[Dup, Dup, Const, Const]);
    let text = p.to_string();
    assert!(
        text.contains(": reduction (per-worker copies of a region of a): `d_a[..]`"),
        "{text}"
    );
    assert!(
        p.exit_tests[0].is_some() && p.reserved[0].is_some(),
        "{text}"
    );
}

#[test]
fn a_nested_parallel_loop_updates_atomically() {
    let src = "void outer(double *a, int n) { parallel_for (int i = 0; i < n; i++) parallel_for (int j = 0; j < n; j++) a[i * n + j] = a[i * n + j] * 2.0; }";
    let p = plan(src, 2, "outer", &[Dup, Const]);
    assert_eq!(p.ploops.len(), 2);
    assert!(p.ploops.iter().any(|l| l.parent.is_some()));
    let text = p.to_string();
    assert!(text.contains("nested in another parallel loop"), "{text}");
    assert!(classes(&p).contains(&AccumulationClass::Atomic), "{text}");
}

#[test]
fn a_spawned_task_and_its_continuation_update_shared_memory_atomically() {
    let src = "void mul3(double *p) { p[0] = p[0] * 3.0; }\n\
               void two(double *a) { spawn mul3(a); a[1] = a[1] * 2.0; sync; }";
    let p = plan(src, 0, "two", &[Dup]);
    assert_eq!(p.spawns.len(), 1);
    let text = p.to_string();
    assert!(text.contains("  spawn 0: detach "), "{text}");
    assert!(
        classes(&p).iter().all(|&c| c == AccumulationClass::Atomic),
        "{text}"
    );
    assert!(
        text.contains("the reverses of a spawned task and of its continuation run concurrently"),
        "{text}"
    );
}

#[test]
fn calls_with_differentiable_arguments_are_requests_for_pairs() {
    let src = "double sq(double x) { return x * x; }\n\
               void apply(double *a, int n) { parallel_for (int i = 0; i < n; i++) a[i] = sq(a[i]); }";
    let p = plan(src, 0, "apply", &[Dup, Const]);
    let text = p.to_string();
    assert_eq!(p.requests.len(), 1, "{text}");
    // From parallel code: the pair's updates of memory it does not own
    // are atomic.
    assert!(text.contains("(active), active return, atomic"), "{text}");
}

#[test]
fn what_cannot_be_differentiated_is_refused_before_any_code() {
    let src = "extern double ext(double x);\ndouble f(double x) { return ext(x); }";
    let e = plan_of(src, 0, "f", &[Active]).err().expect("refused");
    assert!(
        e.message.contains("`extern` function `ext`"),
        "{}",
        e.message
    );
    let e = plan_of(src, 0, "f", &[Active, Active])
        .err()
        .expect("refused");
    assert!(
        e.message.contains("one activity per parameter"),
        "{}",
        e.message
    );
}
