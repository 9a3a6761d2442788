//! The `.pir` filetest harness: every file under a directory is one test,
//! named by its path there (`licm/hoists_loads.pir`), so a failure names
//! the file and `cargo test --test filetests -- licm/` runs a few.
//!
//! A file's first line names its test:
//!
//! - `; test: verify` — the module must verify; or, if the file has
//!   `; error: <substring>` lines, verification must fail, each substring
//!   must occur in some error's message, and each error must contain one of
//!   the substrings (so a file lists everything that is wrong with it).
//! - `; test: roundtrip` — `print(read(text))` reads back and prints the
//!   same text.
//! - `; test: print` — the printed module must match the file's filecheck
//!   directives (`; check:`, `; nextln:`, `; sameln:`, `; not:`,
//!   `; unordered:`, `; regex:`; see the `filecheck` crate).
//! - `; test: pass NAME...` — run pass `NAME` (through the crate's
//!   [`PassRunner`]; a crate without one skips these files), or the passes
//!   named in order (`pass loop-unroll sccp simplify-cfg`: a pass with the
//!   cleanup the pipeline runs after it), verify the result after each, match the directives as `print` does, and check the file's
//!   `; stat: NAME = N` lines: the pass's counter `NAME` (as `--stats`
//!   prints it, absent = 0) must be `N`, and `; stat: changed = true`
//!   (or `false`) is what the pass returned; `; stat: again.NAME = N` is
//!   the same for a second run of the pass over its own output. A pass
//!   file needs a check or a stat, so that it can fail. With a header line
//!   `; exit: N`, `@main` runs in the reference interpreter before and
//!   after the pass: it must exit with N both times and print the same.
//!
//! Every test also checks the round trip of whatever it read. `; ` comments
//! are ignored by the reader, so directives live in the file itself.
//!
//! Bless mode ([`crate::blessing`]) rewrites the expectations from the
//! actual output where that makes sense: a `verify` file's `; error:` lines
//! become the verifier's messages, a `print`/`pass` file's filecheck
//! directives become a `check:`/`nextln:` chain of the output lines, and a
//! pass file's `; stat:` lines take the values the pass reported (the
//! lines a file has stay the ones it asks for). Review the diff.

use filecheck::CheckerBuilder;
use libtest_mimic::{Arguments, Failed, Trial};
use parc_ir::Module;
use parc_ir::print::print_module;
use parc_ir::read::read_module;
use parc_ir::verify::verify_module;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What a pass reports: whether it changed the module, and its counters.
#[derive(Clone, Debug, Default)]
pub struct PassReport {
    pub changed: bool,
    pub stats: BTreeMap<String, u64>,
}

/// Runs a named pass over a module (for `; test: pass NAME`); `None` if the
/// runner does not know the pass.
pub type PassRunner = fn(&str, &mut Module) -> Option<Result<PassReport, String>>;

/// What a file asks for (its first line).
#[derive(Clone, Debug, PartialEq)]
pub enum TestKind {
    Verify,
    Roundtrip,
    Print,
    /// The passes to run, in order.
    Pass(Vec<String>),
}

/// How one file went.
pub enum Outcome {
    Passed,
    Blessed,
    Skipped(String),
    Failed(String),
}

const DIRECTIVES: [&str; 6] = ["check", "sameln", "nextln", "unordered", "not", "regex"];

pub fn parse_kind(text: &str) -> Result<TestKind, String> {
    let first = text.lines().next().unwrap_or("");
    let Some(rest) = first
        .trim()
        .strip_prefix(';')
        .and_then(|r| r.trim().strip_prefix("test:"))
    else {
        return Err("the first line must be `; test: KIND`".into());
    };
    let words: Vec<&str> = rest.split_whitespace().collect();
    match words[..] {
        ["verify"] => Ok(TestKind::Verify),
        ["roundtrip"] => Ok(TestKind::Roundtrip),
        ["print"] => Ok(TestKind::Print),
        ["pass", ref names @ ..] if !names.is_empty() => Ok(TestKind::Pass(
            names.iter().map(|n| n.to_string()).collect(),
        )),
        _ => Err(format!(
            "unknown test `{}` (verify, roundtrip, print, pass NAME...)",
            rest.trim()
        )),
    }
}

/// Runs one file.
pub fn run_file(path: &Path, bless: bool, passes: Option<PassRunner>) -> Outcome {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return Outcome::Failed(format!("cannot read: {e}")),
    };
    let kind = match parse_kind(&text) {
        Ok(k) => k,
        Err(e) => return Outcome::Failed(e),
    };
    let mut module = match read_module(&text) {
        Ok(m) => m,
        Err(e) => return Outcome::Failed(format!("{}:{e}", path.display())),
    };
    if let Err(e) = check_roundtrip(&module) {
        return Outcome::Failed(e);
    }
    // The extension point: one arm per kind of test.
    match kind {
        TestKind::Verify => run_verify(path, &text, &module, bless),
        TestKind::Roundtrip => Outcome::Passed, // checked above
        TestKind::Print => run_checks(path, &text, &print_module(&module), bless),
        TestKind::Pass(names) => {
            let name = names.join(" ");
            let Some(runner) = passes else {
                return Outcome::Skipped(format!("pass `{name}` (no passes in this crate)"));
            };
            let exit = crate::directive(&text, "exit");
            let before = match &exit {
                Some(_) => match run_main(&module) {
                    Ok(r) => Some(r),
                    Err(e) => return Outcome::Failed(format!("before `{name}`: {e}")),
                },
                None => None,
            };
            let report = match run_passes(runner, &names, &mut module) {
                Ok(r) => r,
                Err(e) => return Outcome::Failed(e),
            };
            if let (Some(exit), Some(before)) = (exit, before)
                && let Err(e) = check_run(&module, &exit, &before)
            {
                return Outcome::Failed(e);
            }
            // `again.NAME` stats are the counters of a second run over the
            // pass's own output (`; stat: again.changed = false`: it is
            // done in one run).
            let again = if crate::directive_lines(&text, "stat")
                .iter()
                .any(|s| s.starts_with("again."))
            {
                match run_passes(runner, &names, &mut module.clone()) {
                    Ok(r) => Some(r),
                    Err(e) => return Outcome::Failed(format!("second run: {e}")),
                }
            } else {
                None
            };
            let reports = Reports {
                first: report,
                again,
            };
            run_pass_checks(path, &text, &print_module(&module), &reports, bless)
        }
    }
}

/// Runs the passes in order, verifying the module after each; their
/// report: whether any changed it, and the sum of their counters.
fn run_passes(
    runner: PassRunner,
    names: &[String],
    module: &mut Module,
) -> Result<PassReport, String> {
    let mut total = PassReport::default();
    for name in names {
        let report = run_pass(runner, name, module)?;
        total.changed |= report.changed;
        for (stat, n) in report.stats {
            *total.stats.entry(stat).or_default() += n;
        }
    }
    Ok(total)
}

/// Runs the pass and verifies its output.
fn run_pass(runner: PassRunner, name: &str, module: &mut Module) -> Result<PassReport, String> {
    let report = match runner(name, module) {
        None => return Err(format!("unknown pass `{name}`")),
        Some(Err(e)) => return Err(format!("pass `{name}` failed: {e}")),
        Some(Ok(report)) => report,
    };
    verify_module(module).map_err(|errors| {
        format!(
            "the module does not verify after `{name}`:\n{}",
            join_errors(&errors)
        )
    })?;
    Ok(report)
}

/// `@main` in the reference interpreter: its exit status and output.
fn run_main(module: &Module) -> Result<(i32, String), String> {
    let mut out = Vec::new();
    let status = parc_ir::interp::run_main(module, &Default::default(), &mut out)
        .map_err(|e| format!("@main does not run: {}", e.message))?;
    Ok((status, String::from_utf8_lossy(&out).into_owned()))
}

/// `; exit: N`: `@main` exits with N before the pass and after it, and
/// prints the same.
fn check_run(module: &Module, exit: &str, before: &(i32, String)) -> Result<(), String> {
    let want: i32 = exit
        .parse()
        .map_err(|_| format!("bad `; exit: {exit}` (write `; exit: N`)"))?;
    if before.0 != want {
        return Err(format!(
            "@main exits with {} before the pass, not {want}",
            before.0
        ));
    }
    let after = run_main(module).map_err(|e| format!("after the pass: {e}"))?;
    if after != *before {
        return Err(format!(
            "@main changed: before the pass it exited with {} printing {:?}, after it with {} printing {:?}",
            before.0, before.1, after.0, after.1
        ));
    }
    Ok(())
}

fn check_roundtrip(module: &Module) -> Result<(), String> {
    let first = print_module(module);
    let again = read_module(&first)
        .map_err(|e| format!("the printed module does not read back: {e}\n{first}"))?;
    let second = print_module(&again);
    if first != second {
        return Err(format!(
            "print(read(print(m))) differs from print(m):\n--- print(m)\n{first}--- print(read(print(m)))\n{second}"
        ));
    }
    Ok(())
}

fn join_errors(errors: &[parc_ir::verify::VerifyError]) -> String {
    errors
        .iter()
        .map(|e| format!("  {e}\n"))
        .collect::<String>()
}

/// Whether `l` is a `; key: ...` comment line.
fn is_key_line(l: &str, key: &str) -> bool {
    !crate::directive_lines(l, key).is_empty()
}

fn run_verify(path: &Path, text: &str, module: &Module, bless: bool) -> Outcome {
    let expected = crate::directive_lines(text, "error");
    let actual: Vec<String> = match verify_module(module) {
        Ok(()) => Vec::new(),
        Err(errors) => errors.iter().map(|e| e.to_string()).collect(),
    };
    let mut problems = Vec::new();
    for exp in &expected {
        if !actual.iter().any(|a| a.contains(exp.as_str())) {
            problems.push(format!("expected an error containing `{exp}`"));
        }
    }
    for a in &actual {
        if !expected.iter().any(|exp| a.contains(exp.as_str())) {
            problems.push(format!("unexpected error: {a}"));
        }
    }
    if problems.is_empty() {
        return Outcome::Passed;
    }
    if bless {
        // Drop the old `; error:` lines; put the new ones after line one.
        let mut lines: Vec<String> = text
            .lines()
            .filter(|l| !is_key_line(l, "error"))
            .map(str::to_string)
            .collect();
        let new: Vec<String> = actual.iter().map(|a| format!("; error: {a}")).collect();
        lines.splice(1..1, new);
        return write_back(path, &lines);
    }
    Outcome::Failed(format!(
        "{}\nthe verifier said:\n{}",
        problems.join("\n"),
        actual
            .iter()
            .map(|a| format!("  {a}\n"))
            .collect::<String>()
    ))
}

/// The directive of a filecheck line, without the leading `;`.
fn filecheck_text(l: &str) -> Option<&str> {
    let l = l.trim().strip_prefix(';')?.trim();
    DIRECTIVES
        .iter()
        .any(|d| l.strip_prefix(d).is_some_and(|r| r.starts_with(':')))
        .then_some(l)
}

/// Whether the output matches the file's filecheck directives; `Ok(None)`
/// when it has none.
fn filecheck(text: &str, output: &str) -> Result<Option<bool>, String> {
    let mut builder = CheckerBuilder::new();
    for d in text.lines().filter_map(filecheck_text) {
        builder
            .directive(d)
            .map_err(|e| format!("bad directive `{d}`: {e}"))?;
    }
    let checker = builder.finish();
    if checker.is_empty() {
        return Ok(None);
    }
    match checker.check(output, &()) {
        Ok(ok) => Ok(Some(ok)),
        Err(e) => Err(format!("filecheck: {e}")),
    }
}

fn mismatch(text: &str, output: &str) -> String {
    let mut builder = CheckerBuilder::new();
    for d in text.lines().filter_map(filecheck_text) {
        let _ = builder.directive(d);
    }
    let explain = builder
        .finish()
        .explain(output, &())
        .map(|(_, e)| e)
        .unwrap_or_default();
    format!("output does not match the directives\n--- output\n{output}--- explanation\n{explain}")
}

/// The file with its filecheck directives replaced by a chain that
/// matches `output`, after line one.
fn blessed_checks(text: &str, output: &str) -> Vec<String> {
    let mut lines: Vec<String> = text
        .lines()
        .filter(|l| filecheck_text(l).is_none())
        .map(str::to_string)
        .collect();
    // `nextln` for a line right after the one before; `check` for the
    // first and for one after blank lines (between functions), which
    // `nextln` would not skip.
    let mut new: Vec<String> = Vec::new();
    let mut after_blank = true;
    for l in output.lines() {
        if l.trim().is_empty() {
            after_blank = true;
            continue;
        }
        let kw = if after_blank { "check" } else { "nextln" };
        after_blank = false;
        // `$` starts a filecheck variable; `$$` is a literal one.
        new.push(format!("; {kw}: {}", l.trim().replace('$', "$$")));
    }
    lines.splice(1..1, new);
    lines
}

fn run_checks(path: &Path, text: &str, output: &str, bless: bool) -> Outcome {
    match filecheck(text, output) {
        Err(e) => Outcome::Failed(e),
        Ok(Some(true)) => Outcome::Passed,
        _ if bless => write_back(path, &blessed_checks(text, output)),
        Ok(None) => Outcome::Failed("no filecheck directives (`; check: ...`)".into()),
        Ok(Some(false)) => Outcome::Failed(mismatch(text, output)),
    }
}

/// One `; stat: NAME = VALUE` line.
struct Stat {
    name: String,
    value: String,
}

fn parse_stat(s: &str) -> Result<Stat, String> {
    let Some((name, value)) = s.split_once('=') else {
        return Err(format!("bad `; stat: {s}` (write `; stat: NAME = N`)"));
    };
    Ok(Stat {
        name: name.trim().to_string(),
        value: value.trim().to_string(),
    })
}

/// What a pass file's runs reported: the pass, and (for `again.` stats)
/// a second run of it.
struct Reports {
    first: PassReport,
    again: Option<PassReport>,
}

/// What the runs reported for a stat's name.
fn reported(reports: &Reports, name: &str) -> String {
    let (report, name) = match (name.strip_prefix("again."), &reports.again) {
        (Some(rest), Some(again)) => (again, rest),
        _ => (&reports.first, name),
    };
    if name == "changed" {
        report.changed.to_string()
    } else {
        report.stats.get(name).copied().unwrap_or(0).to_string()
    }
}

fn run_pass_checks(
    path: &Path,
    text: &str,
    output: &str,
    report: &Reports,
    bless: bool,
) -> Outcome {
    let stats: Result<Vec<Stat>, String> = crate::directive_lines(text, "stat")
        .iter()
        .map(|s| parse_stat(s))
        .collect();
    let stats = match stats {
        Ok(s) => s,
        Err(e) => return Outcome::Failed(e),
    };
    let wrong: Vec<String> = stats
        .iter()
        .filter(|s| reported(report, &s.name) != s.value)
        .map(|s| {
            format!(
                "`; stat: {} = {}`, but the pass reported {}",
                s.name,
                s.value,
                reported(report, &s.name)
            )
        })
        .collect();
    let checks = match filecheck(text, output) {
        Ok(c) => c,
        Err(e) => return Outcome::Failed(e),
    };
    let checks_ok = checks.unwrap_or(true);
    if wrong.is_empty() && checks_ok && (checks.is_some() || !stats.is_empty()) {
        return Outcome::Passed;
    }
    if bless {
        // New checks where the old ones fail, or where there is nothing
        // else to ask; a file that asks only for stats keeps asking that.
        let lines = if checks == Some(false) || (checks.is_none() && stats.is_empty()) {
            blessed_checks(text, output)
        } else {
            text.lines().map(str::to_string).collect()
        };
        let lines = lines
            .into_iter()
            .map(|l| match crate::directive_lines(&l, "stat").first() {
                Some(s) => match parse_stat(s) {
                    Ok(s) => format!("; stat: {} = {}", s.name, reported(report, &s.name)),
                    Err(_) => l,
                },
                None => l,
            })
            .collect::<Vec<_>>();
        return write_back(path, &lines);
    }
    let mut problems = wrong;
    match checks {
        None if stats.is_empty() => {
            problems.push("no filecheck directives (`; check: ...`) and no `; stat:`".into())
        }
        Some(false) => problems.push(mismatch(text, output)),
        _ => {}
    }
    Outcome::Failed(problems.join("\n"))
}

fn write_back(path: &Path, lines: &[String]) -> Outcome {
    let mut text = lines.join("\n");
    text.push('\n');
    match std::fs::write(path, text) {
        Ok(()) => Outcome::Blessed,
        Err(e) => Outcome::Failed(format!("cannot bless: {e}")),
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "pir") {
            out.push(path);
        }
    }
}

/// The repository's filetests, `tests/filetests/` (`sub` below it).
pub fn filetests_dir(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/filetests")
        .join(sub)
}

/// One test per `.pir` file under `dir`, named by its path there. A file
/// this crate cannot run (a pass test, without a pass runner: parc-opt's
/// harness runs those) is not listed, rather than listed as ignored.
pub fn trials(dir: &Path, passes: Option<PassRunner>) -> Vec<Trial> {
    let mut files = Vec::new();
    collect(dir, &mut files);
    files.sort();
    let bless = crate::blessing();
    files
        .into_iter()
        .filter(|file| {
            passes.is_some()
                || !std::fs::read_to_string(file)
                    .is_ok_and(|t| matches!(parse_kind(&t), Ok(TestKind::Pass(_))))
        })
        .map(|file| {
            let name = file
                .strip_prefix(dir)
                .unwrap_or(&file)
                .display()
                .to_string();
            Trial::test(name, move || match run_file(&file, bless, passes) {
                Outcome::Passed | Outcome::Blessed | Outcome::Skipped(_) => Ok(()),
                Outcome::Failed(why) => Err(Failed::from(why)),
            })
        })
        .collect()
}

/// The `main` of a filetest binary (`harness = false`): runs every file
/// under `dir` as its own test.
pub fn main(dir: &Path, passes: Option<PassRunner>) {
    let trials = trials(dir, passes);
    if trials.is_empty() {
        eprintln!("no .pir files under {}", dir.display());
        std::process::exit(1);
    }
    libtest_mimic::run(&Arguments::from_args(), trials).exit();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_name_one_pass_or_several() {
        assert_eq!(
            parse_kind("; test: pass licm\n"),
            Ok(TestKind::Pass(vec!["licm".into()]))
        );
        assert_eq!(
            parse_kind("; test: pass loop-unroll sccp\n"),
            Ok(TestKind::Pass(vec!["loop-unroll".into(), "sccp".into()]))
        );
        assert!(parse_kind("; test: pass\n").is_err());
        assert!(parse_kind("func @f() {\n").is_err());
    }

    #[test]
    fn stats_read_counters_changed_and_a_second_run() {
        let first = PassReport {
            changed: true,
            stats: [("licm.loads".to_string(), 2)].into(),
        };
        let reports = Reports {
            first,
            again: Some(PassReport::default()),
        };
        let value = |s: &str| reported(&reports, &parse_stat(s).unwrap().name);
        assert_eq!(value("licm.loads = 2"), "2");
        assert_eq!(value("licm.calls = 0"), "0", "absent is 0");
        assert_eq!(value("changed = true"), "true");
        assert_eq!(value("again.changed = false"), "false");
        assert_eq!(value("again.licm.loads = 0"), "0");
        assert!(parse_stat("licm.loads 2").is_err());
    }
}
