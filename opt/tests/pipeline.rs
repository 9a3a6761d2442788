//! The whole pipeline on real programs: every `samples/*.pc` and
//! `tests/run/*.pc` is compiled at -O0 and at -O2, and as the serial
//! elision (`--serial`: `serial-elision` straight after lowering) at -O0
//! and -O2; the module is verified after every pass, and every build must
//! run in the reference interpreter to the expected output (`NAME.stdout`)
//! and exit status (`// exit: N`, default 0; a run-time fault counts as
//! status 1, as `parc run` reports it), given the `// args:` of the
//! program. The elided builds must contain no detach, reattach or sync.
//!
//! A second test checks that -O2 keeps every parallel loop in the shape the
//! Tapir lowering turns into one chunked runtime call
//! ([`parc_ir::analysis::tapir_loops`]): optimization must not turn a
//! `parallel_for` into a spawn per iteration.
//!
//! "The pipeline" here is what the driver runs: `optimize`, then the final
//! stage `codegen_prepare` (loop widening and rotation), both verified
//! after every pass.

use parc_ir::interp::{Config, run_main};
use parc_ir::verify::verify_module;
use parc_ir::{Module, OptLevel};
use parc_testkit::directive;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `.pc` files of the directories, sorted; not those that read a
/// `NAME.stdin` (the interpreter here has no input: tests/programs.rs runs
/// them).
fn programs() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["samples", "tests/run"] {
        let Ok(entries) = std::fs::read_dir(root().join(dir)) else {
            continue;
        };
        files.extend(
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "pc"))
                .filter(|p| !p.with_extension("stdin").is_file()),
        );
    }
    files.sort();
    files
}

/// Parses, checks and lowers; the module verifies.
fn lower(path: &Path, source: &str) -> Result<Module, String> {
    // Named as the repository's root sees it (`__FILE__`), its own
    // headers found through `-I`.
    // The preprocessor's flags of the `// flags:` line, as parc reads them.
    let options = parc_lang::pp::Options {
        include_dirs: path.parent().map(Path::to_path_buf).into_iter().collect(),
        ..parc_lang::pp::Options::from_flags(&directive(source, "flags").unwrap_or_default())
    };
    let name = path
        .strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string();
    let pre = parc_lang::pp::preprocess(&name, source, &options);
    if let Some(d) = pre.diags.iter().find(|d| d.is_error()) {
        return Err(format!("preprocessor error: {}", d.message));
    }
    let source = pre.text.as_str();
    let (ast, diags) = parc_lang::parse::parse(source);
    if diags.iter().any(|d| d.is_error()) {
        return Err(format!("does not parse: {diags:?}"));
    }
    let (hir, diags) = parc_lang::check::check(ast);
    let hir = match hir {
        Some(h) if !diags.iter().any(|d| d.is_error()) => h,
        _ => return Err(format!("does not check: {diags:?}")),
    };
    let name = path.display().to_string();
    let module = parc_lang::lower::lower(hir, &name, source);
    verify_module(&module).map_err(|e| format!("lowering does not verify: {e:?}"))?;
    Ok(module)
}

/// Runs the pipeline of `level` and its final stage (`codegen_prepare`, as
/// the driver does), verifying after every pass.
fn optimize(module: &mut Module, level: OptLevel) -> Result<(), String> {
    let mut verify = |pass: &str, m: &Module| -> Result<(), String> {
        verify_module(m).map_err(|errors| {
            let text: Vec<String> = errors.iter().map(|e| format!("  {e}")).collect();
            format!(
                "{level}: the module does not verify after `{pass}`:\n{}\n{}",
                text.join("\n"),
                parc_ir::print::print_module(m)
            )
        })
    };
    let mut inst = parc_opt::Instrumentation {
        after_pass: Some(&mut verify),
        ..Default::default()
    };
    parc_opt::optimize(module, level, &mut inst)?;
    parc_opt::codegen_prepare(module, level, &mut inst)
}

/// Most instructions a program may run: far more than any test program
/// needs, so hitting it means an optimization made a program loop forever.
const MAX_STEPS: u64 = 500_000_000;

/// Output and exit status of `main` in the interpreter (a run-time fault is
/// status 1); an error if the program does not finish.
fn run(module: &Module, args: &[String]) -> Result<(String, i32), String> {
    let config = Config {
        args: args.to_vec(),
        max_steps: Some(MAX_STEPS),
        ..Config::default()
    };
    let mut out = Vec::new();
    let status = match run_main(module, &config, &mut out) {
        Ok(status) => status,
        Err(e) if e.message.starts_with("step limit exceeded") => {
            return Err(format!("does not finish: {e}"));
        }
        Err(_) => 1,
    };
    Ok((String::from_utf8_lossy(&out).into_owned(), status))
}

fn check_program(path: &Path) -> Result<(), String> {
    let source =
        String::from_utf8_lossy(&std::fs::read(path).map_err(|e| e.to_string())?).into_owned();
    let mut args = vec![path.display().to_string()];
    if let Some(a) = directive(&source, "args") {
        args.extend(a.split_whitespace().map(str::to_string));
    }
    let exit: i32 = directive(&source, "exit").map_or(Ok(0), |n| {
        n.parse()
            .map_err(|_| format!("bad `// exit:` directive `{n}`"))
    })?;
    let expected = std::fs::read_to_string(path.with_extension("stdout")).ok();
    let base = lower(path, &source)?;
    if !base.grad_requests.is_empty() {
        // Its gradients come from the AD, downstream of this crate (the
        // root package's tests run it): here only the pipeline, verified.
        for level in [OptLevel::O0, OptLevel::O2] {
            optimize(&mut base.clone(), level)?;
        }
        return Ok(());
    }
    let mut results: Vec<(String, String)> = Vec::new();
    // `// serial: skip (why)`: a fault the serial elision cannot show (a
    // task's local used after its task: without tasks it lives on).
    let serial_too = !directive(&source, "serial").is_some_and(|d| d.starts_with("skip"));
    let variants: &[bool] = if serial_too { &[false, true] } else { &[false] };
    for &serial in variants {
        for level in [OptLevel::O0, OptLevel::O2] {
            let name = format!("{level}{}", if serial { " --serial" } else { "" });
            let mut module = base.clone();
            if serial {
                elide(&mut module).map_err(|e| format!("{name}: {e}"))?;
            }
            optimize(&mut module, level)?;
            let (out, status) = run(&module, &args).map_err(|e| format!("{name}: {e}"))?;
            if status != exit {
                return Err(format!("{name}: exit status {status}, expected {exit}"));
            }
            if let Some(exp) = &expected
                && *exp != out
            {
                return Err(format!(
                    "{name}: output differs from the .stdout file:\n--- expected\n{exp}--- actual\n{out}"
                ));
            }
            results.push((name, out));
        }
    }
    let (first, out0) = &results[0];
    for (name, out) in &results[1..] {
        if out != out0 {
            return Err(format!(
                "{first} and {name} print different things:\n--- {first}\n{out0}--- {name}\n{out}"
            ));
        }
    }
    Ok(())
}

/// The serial elision, as `--serial` runs it: verified, and with no Tapir
/// terminator left.
fn elide(module: &mut Module) -> Result<(), String> {
    parc_opt::passes::serial_elision::run(module, &mut parc_opt::PassContext::default());
    verify_module(module).map_err(|e| format!("the serial elision does not verify: {e:?}"))?;
    for f in module.funcs.values() {
        if let Some((b, _)) = f.placed_insts().find(|&(_, i)| {
            matches!(
                f.inst(i),
                parc_ir::InstKind::Detach { .. }
                    | parc_ir::InstKind::Reattach { .. }
                    | parc_ir::InstKind::Sync { .. }
            )
        }) {
            return Err(format!(
                "the serial elision left a Tapir terminator in @{} {b}",
                f.name
            ));
        }
    }
    Ok(())
}

/// Runs `check` on every program, in parallel, and reports every failure.
fn for_all_programs(check: fn(&Path) -> Result<(), String>) {
    let files = programs();
    assert!(
        !files.is_empty(),
        "no programs found under {}",
        root().display()
    );
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = files
            .iter()
            .map(|f| {
                let f = f.clone();
                // The interpreter recurses per call; give it room.
                std::thread::Builder::new()
                    .stack_size(256 << 20)
                    .spawn_scoped(s, move || {
                        check(&f).err().map(|e| format!("{}: {e}", f.display()))
                    })
                    .expect("spawn a test thread")
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|h| h.join().unwrap_or_else(|_| Some("panicked".into())))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {} programs failed:\n\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}

#[test]
fn o0_and_o2_agree_on_every_program() {
    for_all_programs(check_program);
}

/// Where a detach is: its function and source position.
type Site = (String, parc_ir::SrcLoc);

/// The sites of every detach of `m`, and of those that start the
/// iterations of a recognized parallel loop.
fn detach_sites(m: &Module) -> (HashSet<Site>, HashSet<Site>) {
    let (mut all, mut loops) = (HashSet::new(), HashSet::new());
    for f in m.funcs.values() {
        for (_, i) in f.placed_insts() {
            if matches!(f.inst(i), parc_ir::InstKind::Detach { .. }) {
                all.insert((f.name.clone(), f.locs[i]));
            }
        }
        for l in parc_ir::analysis::tapir_loops::find(f) {
            let detach = f.terminator(l.detach_block).expect("a detach block");
            loops.insert((f.name.clone(), f.locs[detach]));
        }
    }
    (all, loops)
}

/// Every parallel loop of the lowered program that still spawns after -O2
/// (SCCP may delete one that never runs) still has the shape. Loops are
/// told apart by their detach's function and source position (the
/// `parallel_for`'s); inlining never copies a detach, so those stay unique.
fn check_parallel_loops(path: &Path) -> Result<(), String> {
    let source =
        String::from_utf8_lossy(&std::fs::read(path).map_err(|e| e.to_string())?).into_owned();
    let mut module = lower(path, &source)?;
    let (_, before) = detach_sites(&module);
    optimize(&mut module, OptLevel::O2)?;
    let (detaches, after) = detach_sites(&module);
    let lost: Vec<String> = before
        .iter()
        .filter(|site| detaches.contains(site) && !after.contains(site))
        .map(|(f, loc)| format!("@{f} at line {}:{}", loc.line, loc.col))
        .collect();
    if !lost.is_empty() {
        return Err(format!(
            "after -O2 these parallel loops no longer have the shape the Tapir lowering \
             recognizes: {}\n{}",
            lost.join(", "),
            parc_ir::print::print_module(&module)
        ));
    }
    Ok(())
}

#[test]
fn o2_keeps_parallel_loops_recognizable() {
    for_all_programs(check_parallel_loops);
}
