//! The driver's own tests: compile, link and gradient requests through
//! the library API (the `parc` binary's are in `tests/`).

use super::*;
use parc_ir::Linkage;

fn with_grad(source: &str, grad: &[&str]) -> Result<Compiled, CompileError> {
    let options = Options {
        opt_level: OptLevel::O0,
        grad: grad.iter().map(|s| s.to_string()).collect(),
        ..Options::default()
    };
    compile("t.pc", source, &options)
}

fn grad_error(source: &str, grad: &str) -> String {
    match with_grad(source, &[grad]) {
        Ok(_) => panic!("`--grad {grad}` was accepted"),
        Err(e) => {
            assert!(!e.internal, "{}", e.rendered);
            e.rendered
        }
    }
}

#[test]
fn a_whole_program_keeps_only_main_and_what_it_reaches() {
    let src = "int once(int x) { return x * 3 + 1; }\n\
               int unused(int x) { return x - 1; }\n\
               int main(int argc, char **argv) { return once(argc); }\n";
    let build = |whole_program| {
        let options = Options {
            whole_program,
            ..Options::default()
        };
        match compile("t.pc", src, &options) {
            Ok(c) => c.module,
            Err(e) => panic!("{}", e.rendered),
        }
    };
    let whole = build(true);
    let func = |m: &Module, name: &str| {
        let id = m.func_by_name(name).expect("the function is in the module");
        m.funcs[id].clone()
    };
    // `once` was inlined into `main` and retired; nothing reaches `unused`.
    for name in ["once", "unused"] {
        let f = func(&whole, name);
        assert!(f.is_retired(), "`{name}`: {:?} with a body", f.linkage);
    }
    assert_eq!(func(&whole, "main").linkage, Linkage::Export);
    // Exported, both stay for callers outside the module.
    let open = build(false);
    for name in ["once", "unused"] {
        let f = func(&open, name);
        assert!(
            f.linkage == Linkage::Export && !f.is_declaration(),
            "`{name}`"
        );
    }
}

#[test]
fn only_executables_need_main() {
    let src = "double twice(double x) { return 2.0 * x; }\n";
    let e = match compile("t.pc", src, &Options::default()) {
        Ok(_) => panic!("a program without `main` was accepted"),
        Err(e) => e.rendered,
    };
    assert!(e.contains("the program has no `main` function"), "{e}");
    let library = Options {
        library: true,
        ..Options::default()
    };
    if let Err(e) = compile("t.pc", src, &library) {
        panic!("a library without `main` was refused:\n{}", e.rendered);
    }
}

#[test]
fn grad_flag_errors_name_the_problem() {
    let src = "struct P { double x; };\n\
               double two(double x, double y) { return x * y; }\n\
               struct P mk(double x) { struct P p; p.x = x; return p; }\n\
               double ext(double x);\n\
               double grad_two(double x) { return x; }\n\
               int main() { return 0; }\n";
    let e = grad_error(src, "nosuch");
    assert!(e.contains("no function `nosuch` to differentiate"), "{e}");
    let e = grad_error(src, "mk");
    assert!(
        e.starts_with("t.pc:3:1: error: cannot differentiate `mk`: it returns a struct"),
        "{e}"
    );
    let e = grad_error(src, "ext");
    assert!(
        e.starts_with(
            "t.pc:4:1: error: cannot differentiate `ext`: its body is not in this program"
        ),
        "{e}"
    );
    let src2 = src.replace("double grad_two", "double other");
    let e = grad_error(&src2, "two");
    assert!(
        e.contains("cannot differentiate `two` with 2 active scalar parameters (`x`, `y`)")
            && e.contains("pointer"),
        "{e}"
    );
    let e = grad_error(src, "two");
    assert!(e.contains("a function of that name already exists"), "{e}");
    let dev = "__device__ double dd(double x) { return x * x; }\n\
               int main() { return 0; }\n";
    let e = grad_error(dev, "dd");
    assert!(
        e.starts_with("t.pc:1:1: error: cannot export the gradient of `__device__` function `dd`"),
        "{e}"
    );
}

/// A gradient that can compute nothing is compiled, with a warning.
#[test]
fn gradients_of_nothing_are_warned_about() {
    let src = "int count(int n) { return n + 1; }\n\
               void log_value(double x) { printf(\"%g\\n\", x); }\n\
               int main() { return 0; }\n";
    for (name, why) in [
        ("count", "has no pointer or floating-point parameter"),
        ("log_value", "returns no floating-point value"),
    ] {
        let compiled = match with_grad(src, &[name]) {
            Ok(c) => c,
            Err(e) => panic!("{}", e.rendered),
        };
        assert!(
            compiled.warnings.contains(&format!(
                "warning: `grad_{name}` computes nothing: `{name}` {why}"
            )),
            "{}",
            compiled.warnings
        );
        assert!(
            compiled
                .module
                .func_by_name(&format!("grad_{name}"))
                .is_some()
        );
    }
}

/// `--serial` elides before optimizing: fib's spawned result is then an
/// ordinary local that -O2 keeps in a register (no `alloca` left, no
/// Tapir terminator, nothing outlined), and a gradient request is
/// fulfilled on the serial code.
#[test]
fn serial_compiles_the_elision_before_the_pipeline() {
    let src = "int fib(int n) {\n\
                   if (n < 2) return n;\n\
                   int x = spawn fib(n - 1);\n\
                   int y = fib(n - 2);\n\
                   sync;\n\
                   return x + y;\n\
               }\n\
               double sq(double *a, int n) {\n\
                   double s = 0.0;\n\
                   parallel_for (int i = 0; i < n; i++) { double t[2]; t[1] = a[i]; a[i] = t[1] * t[1]; }\n\
                   for (int i = 0; i < n; i++) s += a[i];\n\
                   return s;\n\
               }\n\
               int main() { return fib(5); }\n";
    let options = Options {
        opt_level: OptLevel::O2,
        serial: true,
        grad: vec!["sq".into()],
        ..Options::default()
    };
    let compiled = match compile("t.pc", src, &options) {
        Ok(c) => c,
        Err(e) => panic!("{}", e.rendered),
    };
    let m = &compiled.module;
    assert!(m.func_by_name("grad_sq").is_some(), "the gradient is made");
    for f in m.funcs.values() {
        assert!(f.sync_regions.is_empty(), "@{} keeps sync regions", f.name);
        for (_, i) in f.placed_insts() {
            let kind = f.inst(i);
            assert!(
                !matches!(
                    kind,
                    parc_ir::InstKind::Detach { .. }
                        | parc_ir::InstKind::Reattach { .. }
                        | parc_ir::InstKind::Sync { .. }
                ),
                "@{}: {kind:?}",
                f.name
            );
            if f.name == "fib" {
                assert!(
                    !matches!(kind, parc_ir::InstKind::Alloca { .. }),
                    "@fib: {kind:?}"
                );
            }
        }
    }
    // Without `--serial` the spawned result stays in memory (a task
    // stores it, the parent reads it after the sync).
    let parallel = Options {
        serial: false,
        grad: Vec::new(),
        ..options
    };
    let m = match compile("t.pc", src, &parallel) {
        Ok(c) => c.module,
        Err(e) => panic!("{}", e.rendered),
    };
    let fib = &m.funcs[m.func_by_name("fib").expect("fib")];
    assert!(
        fib.placed_insts()
            .any(|(_, i)| matches!(fib.inst(i), parc_ir::InstKind::Detach { .. }))
    );
}

#[test]
fn ir_input_goes_through_the_same_pipeline() {
    let src = "double sq(double x) { return x * x; }\nint main(void) { return 0; }\n";
    let lowered = compile("t.pc", src, &Options::default()).expect("compiles");
    let text = parc_ir::print::print_module(&lowered.module);
    let options = |grad: &str| Options {
        opt_level: OptLevel::O2,
        grad: vec![grad.to_string()],
        ..Options::default()
    };
    let compiled = compile_ir("t.pir", &text, &options("sq")).expect("compiles");
    assert!(compiled.module.func_by_name("grad_sq").is_some());
    assert!(compiled.module.grad_requests.is_empty(), "the AD ran");
    let missing = compile_ir("t.pir", &text, &options("cube"))
        .err()
        .expect("refused");
    assert_eq!(
        missing.rendered,
        "parc: error: no function `cube` to differentiate in `t.pir` (`--grad cube`)\n"
    );
    let broken = compile_ir("t.pir", "func @f(", &Options::default()).err();
    assert!(broken.is_some_and(|e| e.rendered.starts_with("t.pir:1:") && !e.internal));
}

#[test]
fn variadic_functions_link_across_files_and_only_there() {
    let main = "int log_msg(const char *fmt, ...);\n\
                int main(void) { int (*p)(const char *, ...) = log_msg; return p(\"%d\", 1) + log_msg(\"x\"); }\n";
    let defined = "int log_msg(const char *fmt, ...) { return 0; }\n";
    let elsewhere = "int twice(int x) { return 2 * x; }\n";
    let files = |other: &str| {
        [
            ("main.c".to_string(), main.to_string()),
            ("log.c".to_string(), other.to_string()),
        ]
    };
    if let Err(e) = compile_files(&files(defined), &Options::default()) {
        panic!(
            "a variadic function of another file was refused:\n{}",
            e.rendered
        );
    }
    let e = match compile_files(&files(elsewhere), &Options::default()) {
        Ok(_) => panic!("a variadic function no file defines was accepted"),
        Err(e) => e.rendered,
    };
    assert!(
        e.contains("variadic function `log_msg` is defined in none of the files"),
        "{e}"
    );
}
