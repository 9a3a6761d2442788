//! The compiler's output is a function of its input alone: compiling the
//! same program twice in one process must give the same IR text (after the
//! optimizer and the AD, and after the Tapir lowering the native backends
//! run) and the same object bytes.
//!
//! Every `HashMap` and `HashSet` of std gets its own random seed, even
//! within one process, so iterating one in an order that reaches the
//! output (which of two equal values survives, the order of blocks or
//! cached values) makes two compilations here differ. One test per file;
//! each compiles it at `--O0`, `--O1` and `--O2`, and, where it asks for
//! gradients, with `--ad-before-opt` too.

mod corpus;

use corpus::{programs, root};
use libtest_mimic::{Arguments, Failed, Trial};
use parc::Options;
use parc_cpu::tapir;
use parc_ir::OptLevel;
use std::path::Path;

/// What one compilation produces: the optimized IR (or the diagnostics of
/// a refused program), what `--explain-ad` prints, the IR after the Tapir
/// lowering, and the object file (`None` where a stage refuses the
/// program: it must refuse it every time).
#[derive(PartialEq)]
struct Outputs {
    ir: String,
    explained: Option<String>,
    lowered: Option<String>,
    object: Option<Vec<u8>>,
}

fn compile(path: &Path, source: &str, options: &Options, object: bool) -> Result<Outputs, Failed> {
    let name = path.display().to_string();
    let compiled = match parc::compile(&name, source, options) {
        Ok(c) => c,
        // A program refused at some level (a test's `// unsupported:`
        // line) must be refused every time, with the same message.
        Err(e) if !e.internal => {
            return Ok(Outputs {
                ir: e.rendered,
                explained: None,
                lowered: None,
                object: None,
            });
        }
        Err(e) => return Err(format!("{name}: internal error:\n{}", e.rendered).into()),
    };
    let explained = compiled
        .ad_report
        .as_ref()
        .map(|report| parc::explain_ad(&name, report));
    let mut module = compiled.module;
    let ir = parc_ir::print::print_module(&module);
    let lowered = tapir::lower_tapir(
        &mut module,
        tapir::Target::Runtime,
        &tapir::TapirOptions::default(),
    )
    .ok()
    .map(|()| parc_ir::print::print_module(&module));
    let object = if object && lowered.is_some() {
        let backend = parc_cpu::Options {
            opt_level: options.opt_level,
            grain: None,
            link_args: Vec::new(),
            verify: true,
        };
        parc_cpu::emit_object(module, &backend).ok()
    } else {
        None
    };
    Ok(Outputs {
        ir,
        explained,
        lowered,
        object,
    })
}

/// The first line where two texts differ, for the failure message.
fn first_difference(a: &str, b: &str) -> String {
    let (mut la, mut lb) = (a.lines(), b.lines());
    for n in 1.. {
        match (la.next(), lb.next()) {
            (None, None) => break,
            (x, y) if x == y => {}
            (x, y) => {
                return format!(
                    "line {n}:\n  first:  {}\n  second: {}",
                    x.unwrap_or("<end>"),
                    y.unwrap_or("<end>")
                );
            }
        }
    }
    "the texts are equal".to_string()
}

fn check(path: &Path, object: bool) -> Result<(), Failed> {
    let source = std::fs::read_to_string(root().join(path))?;
    let wants_grad = source.contains("__enzyme_autodiff");
    // The program's `// flags:` line, as the programs harness gives it.
    let flags = source
        .lines()
        .take_while(|l| l.starts_with("//"))
        .find_map(|l| l.strip_prefix("// flags:"))
        .unwrap_or_default()
        .to_string();
    for opt_level in [OptLevel::O0, OptLevel::O1, OptLevel::O2] {
        for ad_before_opt in [false, true] {
            if ad_before_opt && !wants_grad {
                continue;
            }
            let options = Options {
                opt_level,
                ad_before_opt,
                pp: parc_lang::pp::Options::from_flags(&flags),
                ..Options::default()
            };
            let what = format!(
                "{} at {opt_level}{}",
                path.display(),
                if ad_before_opt {
                    " --ad-before-opt"
                } else {
                    ""
                }
            );
            let first = compile(path, &source, &options, object)?;
            let second = compile(path, &source, &options, object)?;
            let none = String::new();
            for (text, a, b) in [
                ("print different IR", Some(&first.ir), Some(&second.ir)),
                (
                    "explain the AD differently",
                    first.explained.as_ref(),
                    second.explained.as_ref(),
                ),
                (
                    "print different IR after the Tapir lowering",
                    first.lowered.as_ref(),
                    second.lowered.as_ref(),
                ),
            ] {
                let (a, b) = (a.unwrap_or(&none), b.unwrap_or(&none));
                if a != b {
                    return Err(format!(
                        "{what}: two compilations {text}, first at {}",
                        first_difference(a, b)
                    )
                    .into());
                }
            }
            if first.object != second.object {
                return Err(format!("{what}: two compilations give different objects").into());
            }
        }
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    // Objects for the gradient tests and the kernels (the AD's and the
    // kernel splitting's output reach the backend); IR alone elsewhere, to
    // keep this quick.
    for (dir, object) in [
        ("tests/grad", true),
        ("tests/kernels", true),
        ("tests/run", false),
        ("tests/stress", false),
        ("samples", false),
    ] {
        for path in programs(dir) {
            let name = path.with_extension("").display().to_string();
            trials.push(Trial::test(name, move || check(&path, object)));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
