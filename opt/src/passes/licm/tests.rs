use super::*;
use parc_ir::read::read_module;

/// Runs LICM over every function; returns the printed module and stats.
fn licm(text: &str) -> (String, Stats) {
    let mut m = read_module(text).unwrap();
    parc_ir::verify::verify_module(&m).unwrap();
    let modref = ModRefAnalysis::compute(&m);
    let globals = GlobalFacts::new(&m);
    let mut stats = Stats::default();
    for f in m.funcs.values_mut() {
        if !f.is_declaration() {
            stats.add(run_function(f, &globals, &modref));
        }
    }
    parc_ir::verify::verify_module(&m).unwrap();
    (parc_ir::print::print_module(&m), stats)
}

fn filetest(name: &str) -> String {
    let path = format!(
        "{}/../tests/filetests/opt/licm/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(path).unwrap()
}

/// The filetests' refusals are for the stated reason: remove the
/// obstacle and the motion happens.
#[test]
fn refusals_lift_with_their_cause() {
    // Without the barrier, the shared load leaves the loop.
    let (_, s) = licm(&filetest("barrier.pir"));
    assert_eq!(s.loads, 0);
    let (_, s) = licm(&filetest("barrier.pir").replace("    barrier\n", ""));
    assert_eq!(s.loads, 1);

    // Without the sync in the body, the load of @g is hoisted (it
    // races with the task before and after the motion alike).
    let (_, s) = licm(&filetest("sync_refused.pir"));
    assert_eq!(s.loads, 0);
    let text = filetest("sync_refused.pir").replace(
        "block4:\n    sync within sr0, block5\nblock5:",
        "block4:\n    jump block5\nblock5:",
    );
    let (_, s) = licm(&text);
    assert_eq!(s.loads, 1);

    // Without the store before it, the call is hoisted by the parallel
    // rule; so it is in the headline test.
    let (_, s) = licm(&filetest("parallel_call_after_store.pir"));
    assert_eq!((s.calls, s.parallel), (0, 0));
    let (_, s) = licm(&filetest("parallel_call.pir"));
    assert_eq!((s.calls, s.parallel, s.guards), (1, 1, 1));

    // The serial loop refuses the call only because of the aliasing
    // store: storing to a fresh buffer instead, it is hoisted (to a
    // guard: a call may not terminate).
    let (_, s) = licm(&filetest("serial_call_refused.pir"));
    assert_eq!(s.calls, 0);
    let text = filetest("serial_call_refused.pir")
        .replace("v10 = ptradd v0, v9", "v10 = ptradd v20, v9")
        .replace(
            "    v5 = iconst.i64 8\n    jump block1(v3)",
            "    v5 = iconst.i64 8\n    v19 = iconst.i64 800\n    v20 = malloc v19\n    jump block1(v3)",
        );
    let (out, s) = licm(&text);
    assert_eq!((s.calls, s.parallel, s.guards), (1, 0, 1), "{out}");
}

/// The parallel rule is about *other* iterations: with a sync of the
/// loop's region inside the loop (each iteration waits for its task),
/// the tasks are not parallel and the call stays.
#[test]
fn parallel_rule_needs_an_unsynced_region() {
    let text = filetest("parallel_call.pir").replace(
        "block4:\n    v15 = iadd v6, v4",
        "block4:\n    sync within sr0, block7\nblock7:\n    v15 = iadd v6, v4",
    );
    let (out, s) = licm(&text);
    assert_eq!(s.calls, 0, "{out}");
}

/// After LICM the parallel loop still has the shape the CPU backend
/// lowers to a chunked runtime call.
#[test]
fn parallel_loop_shape_survives() {
    let mut m = read_module(&filetest("parallel_call.pir")).unwrap();
    let modref = ModRefAnalysis::compute(&m);
    let globals = GlobalFacts::new(&m);
    let id = m.func_by_name("normalize").unwrap();
    let before = parc_ir::analysis::tapir_loops::find(&m.funcs[id]).len();
    run_function(&mut m.funcs[id], &globals, &modref);
    assert_eq!(before, 1);
    assert_eq!(parc_ir::analysis::tapir_loops::find(&m.funcs[id]).len(), 1);
}

/// A loop whose exit uses a loop value gets no guard, so a call that
/// needs one stays; pure code still moves.
#[test]
fn no_guard_when_the_exit_uses_loop_values() {
    let (out, s) = licm(
        "func @get(ptr) -> i32 {
         block0(v0: ptr):
             v1 = load.i32 v0
             return v1
         }
         func @f(ptr, i32) -> i32 {
         block0(v0: ptr, v1: i32):
             v2 = iconst.i32 0
             jump block1(v2, v2)
         block1(v3: i32, v4: i32):
             v5 = icmp slt v3, v1
             brif v5, block2, block3
         block2:
             v6 = call @get(v0)
             v7 = iconst.i32 1
             v8 = iadd v4, v6
             v9 = iadd v3, v7
             jump block1(v9, v8)
         block3:
             return v4
         }",
    );
    assert_eq!((s.calls, s.guards, s.pure), (0, 0, 1), "{out}");
}
/// Tapir's normalize at -O2 does O(n) work, at -O0 O(n²): interpreter
/// steps of one call of `normalize` at n and 2n.
/// (`cargo test -p parc-opt normalize_becomes_linear -- --nocapture`
/// prints them.)
#[test]
fn normalize_becomes_linear() {
    use parc_ir::interp::{Config, Interp, Val};
    let path = format!("{}/../samples/normalize.pc", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).unwrap();
    let (ast, _) = parc_lang::parse::parse(&source);
    let (hir, diags) = parc_lang::check::check(&ast);
    assert!(!diags.iter().any(|d| d.is_error()));
    let lowered = parc_lang::lower::lower(&hir.unwrap(), &path, &source);
    let steps = |level: parc_ir::OptLevel, n: usize| -> u64 {
        let mut m = lowered.clone();
        let mut inst = crate::Instrumentation::default();
        crate::optimize(&mut m, level, &mut inst).unwrap();
        parc_ir::verify::verify_module(&m).unwrap();
        let f = m.func_by_name("normalize").unwrap();
        let mut it = Interp::new(&m, Config::default()).unwrap();
        let input = it.alloc(8 * n as u64).unwrap();
        let output = it.alloc(8 * n as u64).unwrap();
        let data: Vec<f64> = (0..n).map(|i| (i % 7) as f64 + 1.0).collect();
        it.write_f64s(input, &data).unwrap();
        let before = it.steps();
        it.call(f, &[Val::Ptr(output), Val::Ptr(input), Val::I(n as i64)])
            .unwrap();
        let got = it.read_f64s(output, n).unwrap();
        let norm = data.iter().map(|x| x * x).sum::<f64>().sqrt();
        assert!((got[3] - data[3] / norm).abs() < 1e-12);
        it.steps() - before
    };
    let (o0_n, o0_2n) = (
        steps(parc_ir::OptLevel::O0, 200),
        steps(parc_ir::OptLevel::O0, 400),
    );
    let (o2_n, o2_2n) = (
        steps(parc_ir::OptLevel::O2, 200),
        steps(parc_ir::OptLevel::O2, 400),
    );
    println!("normalize steps: -O0 n=200 {o0_n}, n=400 {o0_2n}; -O2 n=200 {o2_n}, n=400 {o2_2n}");
    assert!(o0_2n as f64 / o0_n as f64 > 3.5, "-O0 is quadratic");
    assert!((o2_2n as f64 / o2_n as f64) < 2.2, "-O2 is linear");
}
