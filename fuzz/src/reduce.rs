//! A greedy reducer for failing programs: deletes lines and whole braced
//! blocks as long as the same configurations still disagree with the
//! reference (and the reference still runs cleanly).
//!
//! Deletions can break the generator's guarantees, so a few lines are never
//! deleted: `sync;` and `__syncthreads();` (removing them would create
//! races) and the `wN++;` or `wN = wN - 1;` that
//! advances a `while`/`do` counter (removing it would make the loop
//! endless). A deletion that makes the program invalid is simply rejected:
//! the reference then fails to compile. Removing an initialization can
//! make the C program read an indeterminate value (ParC zeroes it), so a
//! reduced program that only gcc disagrees with deserves a second look.

use crate::oracle::{Config, Oracles, Outcome, Status, agree};
use crate::{Family, Program, Verdict};

/// What a failure looks like: how the reference ended, and which
/// configurations disagree with it.
#[derive(Debug, PartialEq)]
struct Signature {
    reference: Status,
    /// The first line of the reference's stderr (for abnormal ends).
    reference_error: String,
    disagreeing: Vec<&'static str>,
}

fn signature(family: Family, outcomes: &[(&'static str, Outcome)]) -> Signature {
    let (_, reference) = &outcomes[0];
    Signature {
        reference: reference.status.clone(),
        reference_error: reference
            .stderr
            .lines()
            .next()
            .unwrap_or_default()
            .to_string(),
        disagreeing: outcomes[1..]
            .iter()
            .filter(|(_, o)| !agree(family, o, reference))
            .map(|(n, _)| *n)
            .collect(),
    }
}

/// Reduces a program whose check failed. Returns the smallest program
/// found (the original if nothing could be deleted) and its outcomes.
pub fn reduce(
    oracles: &Oracles,
    program: &Program,
    verdict: &Verdict,
    mut log: impl FnMut(&str),
) -> Program {
    let Verdict::Mismatch { outcomes, .. } = verdict else {
        return program.clone();
    };
    let want = signature(program.family, outcomes);
    // Only the configurations the signature needs.
    let configs: Vec<Config> = oracles
        .configs(program.family)
        .into_iter()
        .enumerate()
        .filter(|(i, c)| *i == 0 || want.disagreeing.contains(&c.name))
        .map(|(_, c)| c)
        .collect();
    let still_fails = |source: &str| -> bool {
        let candidate = Program {
            family: program.family,
            seed: program.seed,
            source: source.to_string(),
            args: program.args.clone(),
        };
        let r = oracles.run(&configs[0], &candidate);
        if r.status != want.reference
            || r.stderr.lines().next().unwrap_or_default() != want.reference_error
        {
            return false;
        }
        configs[1..].iter().all(|c| {
            let o = oracles.run(c, &candidate);
            !agree(program.family, &o, &r)
        })
    };
    let mut lines: Vec<String> = program.source.lines().map(str::to_string).collect();
    loop {
        let before = lines.len();
        // From the end: later code uses earlier declarations, not the
        // other way round.
        let mut i = lines.len();
        while i > 0 {
            i -= 1;
            let Some(end) = unit_end(&lines, i) else {
                continue;
            };
            let mut candidate = lines.clone();
            candidate.drain(i..=end);
            if still_fails(&(candidate.join("\n") + "\n")) {
                lines = candidate;
                log(&format!("{} lines", lines.len()));
            }
        }
        if lines.len() == before {
            break;
        }
    }
    Program {
        family: program.family,
        seed: program.seed,
        source: lines.join("\n") + "\n",
        args: program.args.clone(),
    }
}

/// The last line of the deletable unit starting at line `i`: the line
/// itself, a line with its one-statement body (`if (c)` / `return x;`), or
/// a braced block through its closing brace. None if line `i` cannot start
/// a unit.
fn unit_end(lines: &[String], i: usize) -> Option<usize> {
    let line = &lines[i];
    let t = line.trim();
    // A function's `{` goes with its header.
    let body_of_header = t == "{" && i > 0 && lines[i - 1].trim_end().ends_with(')');
    if t.is_empty()
        || t == "sync;"
        || t == "__syncthreads();"
        || t.starts_with('}')
        || body_of_header
        || is_counter_step(t)
    {
        return None;
    }
    let indent = line.len() - line.trim_start().len();
    if t.ends_with('{') || t == "{" {
        // The matching `}` (or `} while (...);`) at the same indentation;
        // `} else {` continues the statement.
        let mut j = i + 1;
        while j < lines.len() {
            let l = &lines[j];
            let ind = l.len() - l.trim_start().len();
            if ind == indent
                && l.trim_start().starts_with('}')
                && !l.trim_start().starts_with("} else")
            {
                return Some(j);
            }
            if ind < indent && !l.trim().is_empty() {
                return None;
            }
            j += 1;
        }
        return None;
    }
    if (t.starts_with("if (") || t.starts_with("for (") || t.starts_with("while ("))
        && !t.ends_with(';')
    {
        // A header whose body is the next (more indented) line.
        return (i + 1 < lines.len()).then_some(i + 1);
    }
    Some(i)
}

fn is_counter_step(t: &str) -> bool {
    // A generated counter: a letter and digits.
    let counter = |n: &str| {
        let mut c = n.chars();
        c.next().is_some_and(|l| l.is_ascii_lowercase())
            && n.len() > 1
            && c.all(|d| d.is_ascii_digit())
    };
    if let Some(n) = t.strip_suffix("++;") {
        return counter(n);
    }
    // `wN = wN - 1;`
    t.strip_suffix(" - 1;")
        .and_then(|r| r.split_once(" = "))
        .is_some_and(|(a, b)| a == b && counter(a))
}

#[cfg(test)]
mod tests {
    use super::{is_counter_step, unit_end};

    fn lines(s: &str) -> Vec<String> {
        s.lines().map(str::to_string).collect()
    }

    #[test]
    fn units() {
        let l = lines(
            "int x = 1;\nif (x) {\n    x++;\n} else {\n    x--;\n}\nif (x)\n    return 1;\nsync;\nw3++;",
        );
        assert_eq!(unit_end(&l, 0), Some(0));
        assert_eq!(unit_end(&l, 1), Some(5));
        assert_eq!(unit_end(&l, 3), None);
        assert_eq!(unit_end(&l, 6), Some(7));
        assert_eq!(unit_end(&l, 8), None);
        assert_eq!(unit_end(&l, 9), None);
        assert!(is_counter_step("w12++;"));
        assert!(!is_counter_step("w++;"));
        assert!(is_counter_step("j7++;"));
        assert!(is_counter_step("w4 = w4 - 1;"));
        assert!(!is_counter_step("w4 = w5 - 1;"));
    }
}
