//! `time-passes::` tests: `parc ARGS --time-passes NAME.pc` of each
//! `tests/time_passes/NAME.pc`, with the arguments of its `// parc: ARGS`
//! line (`OUT` is a scratch file), must report the stages of the build
//! that `NAME.stages` lists, in that order (the optimizer's passes are
//! left out of the comparison: the pipeline has tests of its own), and
//! the report must add up: its lines other than `total` sum to `total`,
//! so that no time of the build goes unreported. No time is asserted.

use super::{compare_file, directive, parc, root, run_with_timeout, scratch_dir, status_of};
use libtest_mimic::Failed;
use std::path::Path;
use std::time::Duration;

/// The lines `TIME ms  NAME` of `stderr`, as (name, milliseconds).
fn report(stderr: &str) -> Result<Vec<(String, f64)>, Failed> {
    let mut lines = Vec::new();
    for line in stderr.lines() {
        let (time, name) = line
            .trim_start()
            .split_once(" ms  ")
            .ok_or_else(|| format!("`{line}` is not a line `TIME ms  STAGE`"))?;
        let ms: f64 = time
            .parse()
            .map_err(|_| format!("`{line}`: `{time}` is not a time"))?;
        lines.push((name.to_string(), ms));
    }
    Ok(lines)
}

/// An optimizer pass (`NAME`, or `NAME (prepare)` in the final stage).
fn is_pass(name: &str) -> bool {
    let name = name.strip_suffix(" (prepare)").unwrap_or(name);
    parc_opt::passes::ALL.iter().any(|(n, _)| *n == name)
}

pub fn check(path: &Path) -> Result<(), Failed> {
    let source = std::fs::read_to_string(root().join(path))?;
    let args = directive(&source, "parc").ok_or("no `// parc: ARGS` line")?;
    let out = scratch_dir()?.join(format!(
        "time-passes-{}",
        path.file_stem().unwrap_or_default().to_string_lossy()
    ));
    let mut cmd = parc();
    for arg in args.split_whitespace() {
        match arg {
            "OUT" => cmd.arg(&out),
            _ => cmd.arg(arg),
        };
    }
    cmd.args(["--time-passes", "--color=never"]).arg(path);
    let (output, _) = run_with_timeout(cmd, Duration::from_secs(60))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if status_of(&output) != 0 {
        return Err(format!("exit status {}; stderr:\n{stderr}", status_of(&output)).into());
    }
    let lines = report(&stderr)?;
    let Some(((last, total), stages)) = lines.split_last() else {
        return Err("no report on stderr".into());
    };
    if last != "total" {
        return Err(format!("the last line is `{last}`, not `total`").into());
    }
    // Each printed time is rounded to a microsecond.
    let sum: f64 = stages.iter().map(|(_, ms)| ms).sum();
    if (sum - total).abs() > 1e-3 * lines.len() as f64 {
        return Err(format!("the stages sum to {sum:.3} ms, not the total {total:.3} ms").into());
    }
    let names: String = stages
        .iter()
        .filter(|(name, _)| !is_pass(name))
        .map(|(name, _)| format!("{name}\n"))
        .collect();
    compare_file(&path.with_extension("stages"), &names, "the stages")
}
