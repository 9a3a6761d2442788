//! Planning without generating code: a derivative's [`Plan`] is built
//! from the primal alone, and its decisions (loops, tasks, records,
//! accumulation classes) are read from it and from its text.

mod common;
use common::*;
use parc_ad::cache::{Answer, Obtain};
use parc_ad::plan::{Facts, Mode, Plan};
use parc_ad::policy::{Action, SsaUpdate};
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
            strict_aliasing: true,
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
fn serial_updates_are_planned_as_plain_adds() {
    let src = "double sumsq(double *a, int n) { double s = 0; for (int i = 0; i < n; i++) s += a[i] * a[i]; return s; }";
    for level in [0, 2] {
        let p = plan(src, level, "sumsq", &[Dup, Const]);
        let text = p.to_string();
        let memory = p.accumulation.decisions();
        assert!(!memory.is_empty(), "-O{level}: the loads of a[i]: {text}");
        for (_, lp, d) in memory {
            assert_eq!(lp, None, "{text}");
            assert_eq!(d.class, AccumulationClass::Serial, "{text}");
            assert!(matches!(d.action, Action::Add), "{text}");
        }
        let ssa = p.accumulation.ssa_decisions();
        assert!(
            !ssa.is_empty(),
            "-O{level}: the adjoints of s and of a[i]: {text}"
        );
        for (_, _, d) in ssa {
            assert_eq!(d.class, AccumulationClass::Serial, "{text}");
            assert_eq!(d.update, SsaUpdate::Slot, "{text}");
        }
        assert!(
            text.contains(": serial (plain add): `d_a[..]`: serial code"),
            "{text}"
        );
        assert!(text.contains(": serial (its slot): "), "{text}");
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
    // Within the task, the adjoints of the iteration's own values are
    // its slots; that of `val` is the per-worker sum, which the serial
    // code after the loop adds into `val`'s slot.
    let (ssa, after): (Vec<_>, Vec<_>) = p
        .accumulation
        .ssa_decisions()
        .into_iter()
        .partition(|(_, sc, _)| sc.lp == Some(0));
    assert!(
        after.len() == 1 && after[0].2.class == AccumulationClass::Serial,
        "{text}"
    );
    let reduced: Vec<_> = ssa
        .iter()
        .filter(|(_, _, d)| d.class == AccumulationClass::Reduction)
        .collect();
    assert_eq!(reduced.len(), 1, "{text}");
    assert_eq!(reduced[0].2.update, SsaUpdate::Reduce { lp: 0 }, "{text}");
    assert!(
        ssa.iter()
            .any(|(_, _, d)| d.class == AccumulationClass::Local && d.update == SsaUpdate::Slot),
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

/// The lines of a plan's text about record or recompute.
fn recompute_lines(plan: &Plan) -> Vec<String> {
    plan.to_string()
        .lines()
        .filter(|l| l.starts_with("  value "))
        .map(str::to_string)
        .collect()
}

#[test]
fn record_or_recompute_is_planned_per_value_before_any_code() {
    let src = "double sumexp(double *a, int n) { double s = 0; for (int i = 0; i < n; i++) s += exp(a[i]) * a[i]; return s; }";
    let p = plan(src, 2, "sumexp", &[Dup, Const]);
    let lines = recompute_lines(&p);
    let text = lines.join("\n");
    // The function writes no memory: its loads are read again in the
    // reverse; the library call's result is recorded; the product is
    // computed again; the loop index comes from the reverse's iteration.
    assert!(
        lines.iter().any(|l| l.contains("`(a[..])`")
            && l.ends_with("read again: the function does not write its memory")),
        "{text}"
    );
    assert!(
        lines.iter().any(|l| l.contains("`(exp(")
            && l.ends_with(
                "recorded where the reverse needs it: `exp` is not recomputed (a library call)"
            )),
        "{text}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.ends_with(": recomputed from its operands")),
        "{text}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l
                .ends_with(": an induction variable: from the iteration its loop's reverse is in")),
        "{text}"
    );
    // The parameters are free: no line names them alone.
    assert!(
        !lines.iter().any(|l| l.contains("`a`") || l.contains("`n`")),
        "{text}"
    );
}

#[test]
fn a_load_of_memory_the_function_writes_is_recorded() {
    let src = "void square(double *a, int n) { for (int i = 0; i < n; i++) a[i] = a[i] * a[i]; }";
    let p = plan(src, 2, "square", &[Dup, Const]);
    let lines = recompute_lines(&p);
    let text = lines.join("\n");
    let load = lines
        .iter()
        .find(|l| l.contains("`(a[..])`"))
        .unwrap_or_else(|| panic!("no line for the load of a[i]:\n{text}"));
    assert!(
        load.ends_with(
            "recorded where the reverse needs it: memory that may be overwritten before the reverse reads it"
        ),
        "{text}"
    );
}

#[test]
fn a_split_pair_records_what_its_caller_may_overwrite() {
    // In split mode the caller runs between `.aug` and `.rev`: a load the
    // combined gradient reads again is recorded, unless the run's
    // read-only memory says otherwise.
    let src = "double dot(double *a, double *b, int n) { double s = 0; for (int i = 0; i < n; i++) s += a[i] * b[i]; return s; }";
    let m = compile_opt(src, 2);
    let primal = m.func_by_name("dot").expect("function exists");
    let facts = || Facts {
        block_threads: BlockThreads::OneAtATime,
        launch_body: false,
        one_d_body: false,
        readonly: Default::default(),
        strict_aliasing: true,
    };
    let acts = [Dup, Dup, Const];
    let combined = Plan::build(&m, primal, &acts, Mode::Combined, facts()).expect("plan");
    let split = Plan::build(
        &m,
        primal,
        &acts,
        Mode::Split {
            ret_active: true,
            atomic: false,
            ret_shadow: false,
            private: 0,
        },
        facts(),
    )
    .expect("plan");
    let reloads = |p: &Plan| {
        recompute_lines(p)
            .iter()
            .filter(|l| l.contains("read again"))
            .count()
    };
    let records = |p: &Plan| {
        recompute_lines(p)
            .iter()
            .filter(|l| l.ends_with("memory that may be overwritten before the reverse reads it"))
            .count()
    };
    assert_eq!(
        (reloads(&combined), records(&combined)),
        (2, 0),
        "{combined}"
    );
    assert_eq!((reloads(&split), records(&split)), (0, 2), "{split}");
}

#[test]
fn a_join_chosen_by_a_condition_is_a_select_in_the_reverse() {
    let src = "double f(double *x, int n) { double s = 0; for (int i = 0; i < n; i++) { double y; if (x[i] > 0) y = x[i] * x[i]; else y = x[i] * 3.0; s += sin(y); } return s; }";
    for level in [1, 2] {
        let p = plan(src, level, "f", &[Dup, Const]);
        let text = p.to_string();
        assert_eq!(
            p.joins.len(),
            1,
            "-O{level}: one join decided by `x[i] > 0`\n{text}"
        );
        let lines = recompute_lines(&p);
        let with = |end: &str| lines.iter().filter(|l| l.ends_with(end)).count();
        assert_eq!(
            with(": a join's parameter: a select on the condition that chose the way in"),
            1,
            "-O{level}: `y`\n{text}"
        );
        // `sin y` is varied and its rule computes `cos y`: computed again.
        assert_eq!(
            with(": recomputed beside its adjoint's call of the other of sin and cos"),
            1,
            "-O{level}\n{text}"
        );
        // `s` is carried around the loop: recorded where needed (its
        // adjoint needs no value of it, so the reverse never asks).
        assert_eq!(
            with("a block parameter: which value depends on the way taken"),
            1,
            "-O{level}\n{text}"
        );
        assert_eq!(
            with(": an induction variable: from the iteration its loop's reverse is in"),
            1,
            "-O{level}\n{text}"
        );
    }
}

#[test]
fn a_value_an_inner_loop_needs_is_recorded_at_its_exit() {
    // `t` changes with `i` but not with `j`: the reverse of the inner loop
    // needs it in every iteration (d_b[j] += t · d_s), and records it once
    // per run of the inner loop, at its exit, not once per iteration.
    let src = "double f(double *a, double *b, int n, int m) { double s = 0; for (int i = 0; i < n; i++) { double t = exp(a[i]); for (int j = 0; j < m; j++) s += t * b[j]; } return s; }";
    for level in [0, 2] {
        let p = plan(src, level, "f", &[Dup, Dup, Const, Const]);
        let text = p.to_string();
        assert_eq!(p.counted.len(), 2, "-O{level}\n{text}");
        let inner = if p.counted[0].blocks.len() < p.counted[1].blocks.len() {
            0
        } else {
            1
        };
        let (inner, outer) = (&p.counted[inner], &p.counted[1 - inner]);
        let def =
            p.p.placed_insts()
                .find(|&(_, i)| {
                    matches!(
                        p.p.inst(i),
                        parc_ir::InstKind::Intrinsic {
                            op: parc_ir::Intrinsic::Exp,
                            ..
                        }
                    )
                })
                .map(|(b, _)| b)
                .expect("exp(a[i]) is computed");
        assert!(
            outer.blocks.contains(&def) && !inner.blocks.contains(&def),
            "-O{level}\n{text}"
        );
        assert_eq!(
            p.record_site(inner.header, def),
            Some(inner.exit),
            "-O{level}\n{text}"
        );
        // Needed where it is computed: in that block's own frame.
        assert_eq!(p.record_site(def, def), None, "-O{level}\n{text}");
        if level == 0 {
            // `j` lives in memory: no induction variable.
            continue;
        }
        // `j` is recomputed from the iteration in the inner loop's
        // reverse, and nowhere else.
        let (&j, _) = inner.ivs.iter().next().expect("the inner loop counts j");
        let k = p.counted.iter().position(|c| c.header == inner.header);
        assert_eq!(
            p.induction(inner.header, j),
            k.map(|k| parc_ad::cache::Iv::Counted(k, j)),
            "-O{level}\n{text}"
        );
        assert_eq!(p.induction(def, j), None, "-O{level}\n{text}");
    }
}

/// The whole plan, the reverse walk's decisions included (see
/// `cache/needs.rs`), without generating the derivative.
fn whole_plan(src: &str, level: u8, f: &str, acts: &[Activity]) -> Plan {
    let m = compile_opt(src, level);
    let primal = m.func_by_name(f).expect("function exists");
    parc_ad::reverse::plan_alone(&m, primal, acts, &Default::default())
        .unwrap_or_else(|e| panic!("no plan: {e:?}"))
}

#[test]
fn the_reverse_walk_is_decided_before_generation() {
    // `a[i]` is overwritten: the reverse of `a[i] = t * t` needs `t` twice
    // (`dt += dy·t + dy·t`), records it for the first need and reuses the
    // record for the second.
    let src = "void sq(double *a, int n) { for (int i = 0; i < n; i++) { double t = a[i]; a[i] = t * t; } }";
    for level in [0, 2] {
        let p = whole_plan(src, level, "sq", &[Dup, Const]);
        let text = p.to_string();
        let asked: Vec<&Answer> = p.needs.list.iter().map(|n| &n.answer).collect();
        assert!(
            asked
                .iter()
                .any(|a| matches!(a, Answer::Obtain(Obtain::Record))),
            "-O{level}: `t` is recorded\n{text}"
        );
        // At -O2 `t` is the loaded `a[i]` itself.
        let t = if level == 0 { "t" } else { "(a[..])" };
        assert!(
            text.contains(&format!(" needs `{t}`: recorded\n")),
            "{text}"
        );
        // At -O0 each use of `t` loads it again from its stack slot.
        if level == 2 {
            assert!(
                asked
                    .iter()
                    .any(|a| matches!(a, Answer::Obtain(Obtain::Popped(_)))),
                "-O{level}: the record is reused\n{text}"
            );
            assert!(
                text.contains(&format!(" needs `{t}`: reused: the block has it already\n")),
                "{text}"
            );
        }
        // Planning alone leaves the plan of the primal as `Plan::build`
        // makes it: the walk adds only its decisions.
        let bare = plan(src, level, "sq", &[Dup, Const]);
        assert!(bare.needs.list.is_empty());
        assert_eq!(bare.counted.len(), p.counted.len());
    }
}

#[test]
fn what_is_read_again_is_not_recorded() {
    // `a` is not written: the reverse reads `a[i]` again instead of
    // recording it.
    let src = "double sumsq(double *a, int n) { double s = 0; for (int i = 0; i < n; i++) s += a[i] * a[i]; return s; }";
    let p = whole_plan(src, 2, "sumsq", &[Dup, Const]);
    let text = p.to_string();
    assert!(
        !p.needs.list.iter().any(|n| matches!(
            n.answer,
            Answer::Obtain(Obtain::Record | Obtain::RecordAt(_) | Obtain::RecordCut(_))
        )),
        "{text}"
    );
    assert!(text.contains(" needs `(a[..])`: recomputed\n"), "{text}");
}

/// The plan's text of `f` (as `--explain-ad` prints it) against
/// `ad/tests/plans/NAME.plan` (`PARC_BLESS=1` writes it).
fn blessed(name: &str, src: &str, level: u8, f: &str, acts: &[Activity]) {
    let text = whole_plan(src, level, f, acts).to_string();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/plans")
        .join(format!("{name}.plan"));
    if parc_testkit::blessing() {
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("tests/plans");
        std::fs::write(&path, &text).expect("the blessed plan is written");
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (PARC_BLESS=1 writes it)", path.display()));
    assert_eq!(text, expected, "{}", path.display());
}

#[test]
fn plans_print_as_blessed() {
    blessed(
        "overwritten",
        "void sq(double *a, int n) { for (int i = 0; i < n; i++) { double t = a[i]; a[i] = t * t; } }",
        2,
        "sq",
        &[Dup, Const],
    );
    blessed(
        "parallel",
        "void scale(double *b, double *a, int n) { parallel_for (int i = 0; i < n; i++) b[i] = a[0] * b[i]; }",
        2,
        "scale",
        &[Dup, Dup, Const],
    );
    blessed(
        "spawn",
        "double half(double *a, int n) { double s = 0; for (int i = 0; i < n; i++) s += a[i] * a[i]; return s; }\n\
         double both(double *a, int n) { double x = spawn half(a, n / 2); double y = half(a + n / 2, n - n / 2); sync; return x * y; }",
        0,
        "both",
        &[Dup, Const],
    );
}

/// The block and instruction of the one 32-byte `alloca` of `p`.
fn array_alloca(p: &parc_ir::Function) -> (parc_ir::Block, parc_ir::Inst) {
    p.placed_insts()
        .find(|&(_, i)| matches!(p.inst(i), parc_ir::InstKind::Alloca { size: 32, .. }))
        .expect("the alloca of the array")
}

#[test]
fn an_alloca_only_one_branch_uses_moves_into_that_branch() {
    // `t` of the branch (in the entry, as the front end puts locals) is
    // made where the branch runs, out of its loop: the calls that do not
    // take the branch make no shadow of it (ad/src/allocas.rs). The
    // primal keeps its placement.
    let src = "double term(double *x, int i, int n) { double v = x[i]; \
               if (v > 0.5) { double t[4]; for (int k = 0; k < 4; k++) t[k] = v * x[(i + k) % n]; \
               return t[i % 4] + t[(i + 1) % 4] * v; } return v * v; }";
    for level in [0, 1] {
        let m = compile_opt(src, level);
        let f = &m.funcs[m.func_by_name("term").expect("term exists")];
        assert_eq!(
            Some(array_alloca(f).0),
            f.entry(),
            "-O{level}: the primal's t is in its entry"
        );
        let p = plan(src, level, "term", &[Dup, Const, Const]);
        let (b, t) = array_alloca(&p.p);
        assert_ne!(Some(b), p.p.entry(), "-O{level}: t moved\n{p}");
        let an = parc_ir::analysis::FunctionAnalyses::compute(&p.p);
        assert_eq!(an.loops.depth(b), 0, "-O{level}: out of the k loop");
        let t = p.p.result(t);
        for (ub, i) in p.p.placed_insts() {
            if p.p.inst(i).operands().into_iter().any(|v| Some(v) == t) {
                assert!(
                    an.domtree.dominates(b, ub),
                    "-O{level}: t's block dominates its uses"
                );
            }
        }
    }
}

#[test]
fn arithmetic_that_only_a_comparison_reads_gets_no_adjoint() {
    // `r` decides the branch and nothing else: the reverse computes no
    // derivative of it (nor of `x * x + 1.0`), while `x` and `3.0 * x`
    // keep theirs. (At -O0 `r` goes through its local's memory: a store
    // is a use that needs its derivative.)
    let src = "double f(double x) { double r = sqrt(x * x + 1.0); if (r < 2.0) return x; return 3.0 * x; }";
    for level in [1, 2] {
        let p = plan(src, level, "f", &[Active]);
        let results = |keep: &dyn Fn(&parc_ir::InstKind) -> bool| -> Vec<parc_ir::Value> {
            p.p.placed_insts()
                .filter(|&(_, i)| keep(p.p.inst(i)))
                .filter_map(|(_, i)| p.p.result(i))
                .collect()
        };
        let sqrt = results(&|k| {
            matches!(
                k,
                parc_ir::InstKind::Intrinsic {
                    op: parc_ir::Intrinsic::Sqrt,
                    ..
                }
            )
        });
        assert_eq!(sqrt.len(), 1, "-O{level}: one sqrt\n{p}");
        assert!(
            !p.act.is_varied(sqrt[0]),
            "-O{level}: sqrt(...) is not varied\n{p}"
        );
        let sums =
            results(&|k| matches!(k, parc_ir::InstKind::Binary(parc_ir::BinaryOp::Fadd, ..)));
        assert!(
            sums.iter().all(|&v| !p.act.is_varied(v)),
            "-O{level}: x * x + 1.0 is not varied\n{p}"
        );
        let products =
            results(&|k| matches!(k, parc_ir::InstKind::Binary(parc_ir::BinaryOp::Fmul, ..)));
        assert!(
            products.iter().any(|&v| p.act.is_varied(v)),
            "-O{level}: 3.0 * x is varied\n{p}"
        );
    }
}
