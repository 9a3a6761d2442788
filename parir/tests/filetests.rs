//! The IR filetest harness: runs every `tests/filetests/**/*.pir` file under
//! the repository root, in path order, and reports all failures at once.
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
//! - `; test: pass NAME` — reserved for passes: run pass `NAME`, verify the
//!   result, then match the directives as `print` does. `parc-ir` has no
//!   passes, so here these files are skipped; a crate that has passes runs
//!   them with [`run_tests`] and a [`PassRunner`] (e.g. `parc-opt` can
//!   include this file with `#[path = "../../parir/tests/filetests.rs"]`).
//!
//! Every test also checks the round trip of whatever it read. `; ` comments
//! are ignored by the reader, so directives live in the file itself.
//!
//! Bless mode (`PARC_BLESS=1`) rewrites the expectations from the actual
//! output where that makes sense: a `verify` file's `; error:` lines become
//! the verifier's messages, and a `print`/`pass` file's directives become a
//! `check:`/`nextln:` chain of the output lines. Review the diff.
//!
//! `PARC_FILETEST=substring` runs only the files whose path contains it.

use filecheck::CheckerBuilder;
use parc_ir::Module;
use parc_ir::print::print_module;
use parc_ir::read::read_module;
use parc_ir::verify::verify_module;
use std::path::{Path, PathBuf};

/// Runs a named pass over a module (for `; test: pass NAME`); `None` if the
/// runner does not know the pass.
pub type PassRunner<'a> = &'a dyn Fn(&str, &mut Module) -> Option<Result<(), String>>;

/// What a file asks for (its first line).
#[derive(Clone, Debug, PartialEq)]
pub enum TestKind {
    Verify,
    Roundtrip,
    Print,
    Pass(String),
}

pub enum Outcome {
    Passed,
    Blessed,
    Skipped(String),
    Failed(String),
}

const DIRECTIVES: [&str; 6] = ["check", "sameln", "nextln", "unordered", "not", "regex"];

pub fn parse_kind(text: &str) -> Result<TestKind, String> {
    let first = text.lines().next().unwrap_or("");
    let Some(rest) = first.trim().strip_prefix(';') else {
        return Err("the first line must be `; test: KIND`".into());
    };
    let Some(rest) = rest.trim().strip_prefix("test:") else {
        return Err("the first line must be `; test: KIND`".into());
    };
    let words: Vec<&str> = rest.split_whitespace().collect();
    match words[..] {
        ["verify"] => Ok(TestKind::Verify),
        ["roundtrip"] => Ok(TestKind::Roundtrip),
        ["print"] => Ok(TestKind::Print),
        ["pass", name] => Ok(TestKind::Pass(name.to_string())),
        _ => Err(format!(
            "unknown test `{}` (verify, roundtrip, print, pass NAME)",
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
        TestKind::Pass(name) => {
            let Some(runner) = passes else {
                return Outcome::Skipped(format!("pass `{name}` (no passes in this crate)"));
            };
            match runner(&name, &mut module) {
                None => Outcome::Failed(format!("unknown pass `{name}`")),
                Some(Err(e)) => Outcome::Failed(format!("pass `{name}` failed: {e}")),
                Some(Ok(())) => {
                    if let Err(errors) = verify_module(&module) {
                        return Outcome::Failed(format!(
                            "the module does not verify after `{name}`:\n{}",
                            join_errors(&errors)
                        ));
                    }
                    run_checks(path, &text, &print_module(&module), bless)
                }
            }
        }
    }
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

/// The text after `; error:` on each line that has it.
fn expected_errors(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix(';'))
        .filter_map(|l| l.trim().strip_prefix("error:"))
        .map(|s| s.trim().to_string())
        .collect()
}

fn run_verify(path: &Path, text: &str, module: &Module, bless: bool) -> Outcome {
    let expected = expected_errors(text);
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
            .filter(|l| {
                !l.trim()
                    .strip_prefix(';')
                    .is_some_and(|r| r.trim().starts_with("error:"))
            })
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

/// True for a comment line holding a filecheck directive (`; check: ...`).
fn is_directive_line(l: &str) -> bool {
    directive_text(l).is_some()
}

/// The directive of such a line, without the leading `;`.
fn directive_text(l: &str) -> Option<&str> {
    let l = l.trim().strip_prefix(';')?.trim();
    DIRECTIVES
        .iter()
        .any(|d| l.strip_prefix(d).is_some_and(|r| r.starts_with(':')))
        .then_some(l)
}

fn run_checks(path: &Path, text: &str, output: &str, bless: bool) -> Outcome {
    let mut builder = CheckerBuilder::new();
    for d in text.lines().filter_map(directive_text) {
        if let Err(e) = builder.directive(d) {
            return Outcome::Failed(format!("bad directive `{d}`: {e}"));
        }
    }
    let checker = builder.finish();
    let ok = !checker.is_empty()
        && match checker.check(output, &()) {
            Ok(ok) => ok,
            Err(e) => return Outcome::Failed(format!("filecheck: {e}")),
        };
    if ok {
        return Outcome::Passed;
    }
    if bless {
        let mut lines: Vec<String> = text
            .lines()
            .filter(|l| !is_directive_line(l))
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
        return write_back(path, &lines);
    }
    if checker.is_empty() {
        return Outcome::Failed("no filecheck directives (`; check: ...`)".into());
    }
    let explain = checker
        .explain(output, &())
        .map(|(_, e)| e)
        .unwrap_or_default();
    Outcome::Failed(format!(
        "output does not match the directives\n--- output\n{output}--- explanation\n{explain}"
    ))
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

/// The directory holding the filetests.
pub fn filetests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/filetests")
}

/// Runs every file under `dir`; panics with a report if any failed.
pub fn run_tests(dir: &Path, passes: Option<PassRunner>) {
    let bless = std::env::var("PARC_BLESS").is_ok_and(|v| v == "1");
    let filter = std::env::var("PARC_FILETEST").unwrap_or_default();
    let mut files = Vec::new();
    collect(dir, &mut files);
    files.sort();
    assert!(!files.is_empty(), "no .pir files under {}", dir.display());
    let (mut passed, mut blessed, mut skipped) = (0, 0, 0);
    let mut failures = Vec::new();
    for file in files
        .iter()
        .filter(|f| f.to_string_lossy().contains(&filter))
    {
        let shown = file.strip_prefix(dir).unwrap_or(file).display().to_string();
        match run_file(file, bless, passes) {
            Outcome::Passed => passed += 1,
            Outcome::Blessed => {
                blessed += 1;
                eprintln!("blessed {shown}");
            }
            Outcome::Skipped(why) => {
                skipped += 1;
                eprintln!("skipped {shown}: {why}");
            }
            Outcome::Failed(why) => failures.push(format!("FAILED {shown}:\n{why}")),
        }
    }
    eprintln!(
        "filetests: {passed} passed, {} failed, {blessed} blessed, {skipped} skipped",
        failures.len()
    );
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

#[test]
fn filetests() {
    run_tests(&filetests_dir(), None);
}
