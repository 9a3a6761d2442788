use super::*;
use parc_ir::read::read_module;

fn filetest(name: &str) -> String {
    let path = format!(
        "{}/../tests/filetests/opt/licm/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(path).unwrap()
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
    let (hir, diags) = parc_lang::check::check(ast);
    assert!(!diags.iter().any(|d| d.is_error()));
    let lowered = parc_lang::lower::lower(hir.unwrap(), &path, &source);
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
