//! `tape-stats::` tests: the run-time tape figures `PARC_AD_STATS=1`
//! prints must be the static tape report's prediction.
//!
//! A `tests/grad/NAME.pc` with a `// tape-peak: NAME = VALUE; ...` line
//! (the values of the names the report's sizes use, at the gradients'
//! calls) is compiled with `--stats`, which prints each gradient's bytes
//! recorded per call as a size in those names (`16·(n - 2)·steps +
//! 32·steps`), and run with `PARC_AD_STATS=1` in the interpreter and
//! natively (the JIT at 1 and 8 workers, an executable at 8) at `-O0`,
//! `-O1` and `-O2`: the peak of recorded bytes it prints must be the
//! largest of the sizes evaluated with those values, and the bytes
//! recorded in all their sum (each gradient runs once, one after
//! another). Only for programs where the report is exact: no recursion,
//! no conditional records (where it is an upper bound).

use super::{parc, root, run_with_timeout, scratch_dir, status_of, unbudgeted_flags_of};
use libtest_mimic::Failed;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// The `// tape-peak:` values: (name, value), longest names first.
pub fn values(path: &Path) -> Option<Result<Vec<(String, i128)>, Failed>> {
    let source = std::fs::read_to_string(root().join(path)).ok()?;
    let spec = super::directive(&source, "tape-peak")?;
    let mut out = Vec::new();
    for item in spec.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        let Some((name, value)) = item.rsplit_once('=') else {
            return Some(Err(format!(
                "`// tape-peak:` item `{item}` is not NAME = VALUE"
            )
            .into()));
        };
        let Ok(value) = value.trim().parse() else {
            return Some(Err(format!(
                "`// tape-peak:` value in `{item}` is not an integer"
            )
            .into()));
        };
        out.push((name.trim().to_string(), value));
    }
    out.sort_by_key(|(n, _)| std::cmp::Reverse(n.len()));
    Some(Ok(out))
}

#[derive(Clone, Copy, Debug)]
pub enum Run {
    Interp(&'static str),
    Jit(&'static str, u32),
    Exe(&'static str, u32),
}

impl Run {
    pub const ALL: [Run; 12] = [
        Run::Interp("-O0"),
        Run::Interp("-O1"),
        Run::Interp("-O2"),
        Run::Jit("-O0", 1),
        Run::Jit("-O0", 8),
        Run::Jit("-O1", 1),
        Run::Jit("-O1", 8),
        Run::Jit("-O2", 1),
        Run::Jit("-O2", 8),
        Run::Exe("-O0", 8),
        Run::Exe("-O1", 8),
        Run::Exe("-O2", 8),
    ];

    fn label(self) -> String {
        match self {
            Run::Interp(o) => format!("interp {o}"),
            Run::Jit(o, w) => format!("jit {o} {w} workers"),
            Run::Exe(o, w) => format!("exe {o} {w} workers"),
        }
    }
}

/// One program in every run of [`Run::ALL`].
pub fn check(path: &Path, values: &[(String, i128)]) -> Result<(), Failed> {
    let mut failures = Vec::new();
    for run in Run::ALL {
        if let Err(e) = check_run(path, values, run) {
            failures.push(format!("{}: {e}", run.label()));
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n").into())
    }
}

fn check_run(path: &Path, values: &[(String, i128)], run: Run) -> Result<(), String> {
    let limit = Duration::from_secs(120);
    let level = match run {
        Run::Interp(o) | Run::Jit(o, _) | Run::Exe(o, _) => o,
    };
    // The static report, from the same compilation.
    let mut cmd = parc();
    cmd.args(["build", "--stats", "--emit", "ir", "-o", "-", level])
        .args(unbudgeted_flags_of(path))
        .arg(path);
    let (built, _) = run_with_timeout(cmd, limit).map_err(|e| format!("{e:?}"))?;
    let stats = String::from_utf8_lossy(&built.stderr).into_owned();
    if status_of(&built) != 0 {
        return Err(format!("parc build --stats failed:\n{stats}"));
    }
    let mut sizes = Vec::new();
    for line in stats.lines() {
        let Some((size, rest)) = line.split_once("  ad: bytes recorded per call of ") else {
            continue;
        };
        if rest.contains("recursion") {
            return Err(format!("not exact (recursive): {line}"));
        }
        sizes.push(evaluate(size.trim(), values).map_err(|e| format!("{line}: {e}"))?);
    }
    if sizes.is_empty() {
        return Err(format!("--stats printed no gradient:\n{stats}"));
    }
    let peak = sizes.iter().copied().max().unwrap_or(0);
    let total: i128 = sizes.iter().sum();
    // The run.
    let mut cmd = match run {
        Run::Interp(o) => {
            let mut cmd = parc();
            cmd.args(["run", "--interp", o]);
            cmd
        }
        Run::Jit(o, w) => {
            let mut cmd = parc();
            cmd.env("PARC_NUM_THREADS", w.to_string());
            cmd.args(["run", o]);
            cmd
        }
        Run::Exe(o, w) => {
            let stem = path.file_stem().unwrap_or_default().to_string_lossy();
            let dir = scratch_dir().map_err(|e| format!("{e:?}"))?;
            let exe = dir.join(format!("{stem}.tapestats{}.exe", o.trim_start_matches('-')));
            let mut b = parc();
            b.args(["build", "--emit", "exe", o])
                .args(unbudgeted_flags_of(path))
                .arg(path)
                .arg("-o")
                .arg(&exe);
            let (out, _) = run_with_timeout(b, limit).map_err(|e| format!("{e:?}"))?;
            if status_of(&out) != 0 {
                return Err(format!(
                    "parc build failed:\n{}",
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            let mut cmd = Command::new(exe);
            cmd.current_dir(root())
                .env("PARC_NUM_THREADS", w.to_string());
            cmd
        }
    };
    if !matches!(run, Run::Exe(..)) {
        cmd.args(unbudgeted_flags_of(path)).arg(path);
    }
    cmd.env("PARC_AD_STATS", "1");
    let (out, _) = run_with_timeout(cmd, limit).map_err(|e| format!("{e:?}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if status_of(&out) != 0 {
        return Err(format!(
            "exit status {}; stderr:\n{stderr}",
            status_of(&out)
        ));
    }
    let expected = "bytes recorded in all";
    let Some(line) = stderr.lines().find(|l| l.starts_with("PARC_AD_STATS: ")) else {
        return Err(format!("no PARC_AD_STATS line; stderr:\n{stderr}"));
    };
    let numbers: Vec<i128> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect();
    let [got_peak, allocated, got_total] = numbers[..] else {
        return Err(format!("unexpected line: {line}"));
    };
    if got_peak != peak || got_total != total || !line.ends_with(expected) {
        return Err(format!(
            "the report predicts a peak of {peak} and {total} bytes in all (sizes {sizes:?}); the run printed: {line}"
        ));
    }
    if allocated < got_peak {
        return Err(format!("less heap than records: {line}"));
    }
    Ok(())
}

/// The value of a size `--stats` prints (`16·(n - 2)·steps + 32·steps`),
/// its names replaced by `values`.
pub fn evaluate(size: &str, values: &[(String, i128)]) -> Result<i128, String> {
    let mut text = size.to_string();
    for (name, value) in values {
        text = replace_name(&text, name, &value.to_string());
    }
    let mut p = Parser {
        s: text.as_bytes(),
        at: 0,
    };
    let v = p.sum()?;
    p.skip();
    if p.at != p.s.len() {
        return Err(format!("cannot evaluate `{text}` (from `{size}`)"));
    }
    Ok(v)
}

/// `text` with `name` replaced where it stands alone (not inside a longer
/// name).
fn replace_name(text: &str, name: &str, by: &str) -> String {
    let is_word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(name) {
        let before = if i > 0 {
            rest[..i].chars().last()
        } else {
            out.chars().last()
        };
        let after = rest[i + name.len()..].chars().next();
        out.push_str(&rest[..i]);
        if is_word(before) || is_word(after) {
            out.push_str(name);
        } else {
            out.push_str(by);
        }
        rest = &rest[i + name.len()..];
    }
    out.push_str(rest);
    out
}

/// Integer arithmetic: `+ -` over `· * /` (C's truncating division) over
/// numbers and parentheses.
struct Parser<'a> {
    s: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn skip(&mut self) {
        while self.s.get(self.at) == Some(&b' ') {
            self.at += 1;
        }
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip();
        if self.s[self.at..].starts_with(token.as_bytes()) {
            self.at += token.len();
            true
        } else {
            false
        }
    }

    fn sum(&mut self) -> Result<i128, String> {
        let mut v = self.product()?;
        loop {
            if self.eat("+") {
                v += self.product()?;
            } else if self.eat("-") {
                v -= self.product()?;
            } else {
                return Ok(v);
            }
        }
    }

    fn product(&mut self) -> Result<i128, String> {
        let mut v = self.atom()?;
        loop {
            if self.eat("·") || self.eat("*") {
                v *= self.atom()?;
            } else if self.eat("/") {
                let d = self.atom()?;
                if d == 0 {
                    return Err("division by zero".into());
                }
                v /= d;
            } else {
                return Ok(v);
            }
        }
    }

    fn atom(&mut self) -> Result<i128, String> {
        if self.eat("(") {
            let v = self.sum()?;
            if !self.eat(")") {
                return Err("unbalanced parentheses".into());
            }
            return Ok(v);
        }
        self.skip();
        let start = self.at;
        while self.s.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        let digits = std::str::from_utf8(&self.s[start..self.at]).unwrap_or("");
        digits.parse().map_err(|_| {
            format!(
                "a name without a value at `{}` (give it in `// tape-peak:`)",
                String::from_utf8_lossy(&self.s[start..])
            )
        })
    }
}
