//! What a gradient records (`--explain-tape`, `--stats`): every value the
//! generator put on the tape, where it comes from, how many bytes it costs
//! per execution of its block and in all (symbolically, in the function's
//! own names: `8·(n - 2)·steps`), and why `cache/` recorded it rather
//! than recomputing it.
//!
//! Invariant: the report is built from the generator's own records (each
//! call of `Gen::record_in` that made a new one, with the reason `need`
//! had) and from the per-iteration tape headers the generated code
//! allocates; it re-derives no decision. A call of a split pair's `.aug`
//! is listed with its runs and arguments, and [`total`] adds the callee's
//! bytes with its parameters replaced by the arguments, so a gradient's
//! total covers every function it calls.

use crate::explain::value_name;
use crate::plan::Plan;
use parc_ir::{BinaryOp, Block, CastOp, InstKind, SrcLoc, Value, ValueDef};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

/// Why the generator recorded a value (from the caller of `record_in`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Why {
    /// `cache/` found no way to obtain it again in the reverse.
    NotRecomputable,
    /// Defined outside a loop whose reverse needs it: recorded once per
    /// run of the loop, at its exit.
    Invariant,
    /// A member of the minimum cut chosen for this value (forward value).
    CutFor(Value),
}

/// One value on the tape.
#[derive(Clone, Debug, PartialEq)]
pub struct TapeRecord {
    /// The source position of the primal instruction that computes it.
    pub loc: SrcLoc,
    /// A readable name (`x[..]`, `(x[..] - x[..])`, `n`).
    pub what: String,
    /// Bytes per execution of the block that records it.
    pub bytes: u64,
    /// How often that block runs per call: trip counts, outermost first
    /// (an upper bound where the block is conditional).
    pub runs: Vec<String>,
    pub reason: String,
}

/// A call of a split pair's augmented forward, whose records count too.
#[derive(Clone, Debug, PartialEq)]
pub struct TapeCall {
    /// The generated `.aug` function.
    pub callee: String,
    pub loc: SrcLoc,
    pub runs: Vec<String>,
    /// The callee's parameter names and the caller's arguments for them.
    pub args: Vec<(String, String)>,
}

/// A serial counted loop of a generated function that lies in no
/// parallel task and no other counted loop: a loop checkpointing would
/// cut into segments (see `checkpoint.rs`).
#[derive(Clone, Debug, PartialEq)]
pub struct SerialLoop {
    /// The position of its exit test.
    pub loc: SrcLoc,
    /// Its trip count, as [`TapeRecord::runs`] names it.
    pub trip: String,
    /// What its iterations record: indices into the function's
    /// `records` and `calls`.
    pub records: Vec<usize>,
    pub calls: Vec<usize>,
    /// What its iterations may overwrite: the memory they store to
    /// (`x[..]`) and the functions they call (`forces`).
    pub writes: Vec<String>,
}

/// The tape of one generated function (a gradient or a split pair).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FunctionTape {
    /// The primal function.
    pub primal: String,
    /// The generated function that records (`f.grad`, `f.aug`), filled in
    /// by the caller of `generate`.
    pub function: String,
    /// A requested gradient (combined mode), not a callee's pair.
    pub gradient: bool,
    pub records: Vec<TapeRecord>,
    pub calls: Vec<TapeCall>,
    pub loops: Vec<SerialLoop>,
}

/// A sum of products of named sizes, in bytes: each product (sorted
/// factor names) with its coefficient.
pub type Size = BTreeMap<Vec<String>, u64>;

/// The bytes one call of `function` records, its callees' included,
/// and whether it is recursive (then each call of itself counts once:
/// the total is per level of the recursion).
pub fn total(tapes: &[FunctionTape], function: &str) -> (Size, bool) {
    let mut recursive = false;
    let size = total_depth(tapes, function, &mut Vec::new(), &mut recursive);
    (size, recursive)
}

fn total_depth(
    tapes: &[FunctionTape],
    function: &str,
    path: &mut Vec<String>,
    recursive: &mut bool,
) -> Size {
    let mut size = Size::new();
    let Some(t) = tapes.iter().find(|t| t.function == function) else {
        return size;
    };
    for r in &t.records {
        add(&mut size, &r.runs, r.bytes);
    }
    path.push(function.to_string());
    for c in &t.calls {
        call_size(tapes, c, &c.runs, &mut size, path, recursive);
    }
    path.pop();
    size
}

/// Adds to `size` what call `c` records when it runs `runs` times: its
/// callee's bytes with the callee's parameters replaced by the arguments.
fn call_size(
    tapes: &[FunctionTape],
    c: &TapeCall,
    runs: &[String],
    size: &mut Size,
    path: &mut Vec<String>,
    recursive: &mut bool,
) {
    if path.contains(&c.callee) {
        *recursive = true;
        return;
    }
    let args: HashMap<&str, &str> = c
        .args
        .iter()
        .map(|(p, a)| (p.as_str(), a.as_str()))
        .collect();
    for (factors, bytes) in total_depth(tapes, &c.callee, path, recursive) {
        let mut all = runs.to_vec();
        all.extend(factors.iter().map(|f| substitute(f, &args)));
        add(size, &all, bytes);
    }
}

/// What one iteration of serial loop `l` of `t` records, its calls'
/// callees included (the loop's own trip count left out of every
/// record's runs, where it is the outermost), and whether a callee is
/// recursive.
pub fn per_iteration(tapes: &[FunctionTape], t: &FunctionTape, l: &SerialLoop) -> (Size, bool) {
    let inner = |runs: &[String]| -> Vec<String> {
        match runs.split_first() {
            Some((first, rest)) if *first == l.trip => rest.to_vec(),
            _ => runs.to_vec(),
        }
    };
    let mut size = Size::new();
    for &r in &l.records {
        let r = &t.records[r];
        add(&mut size, &inner(&r.runs), r.bytes);
    }
    let mut recursive = false;
    let mut path = vec![t.function.clone()];
    for &c in &l.calls {
        let c = &t.calls[c];
        call_size(
            tapes,
            c,
            &inner(&c.runs),
            &mut size,
            &mut path,
            &mut recursive,
        );
    }
    (size, recursive)
}

fn add(size: &mut Size, runs: &[String], bytes: u64) {
    let mut key = runs.to_vec();
    key.sort();
    *size.entry(key).or_default() += bytes;
}

/// `name` without the parentheses `value_name` puts around an element
/// (`(x[..])` is `x[..]`).
/// A value with no better name than its number (`v12`) is `a value`:
/// numbers change with any change to the compiler, and say nothing.
pub(crate) fn unwrapped(name: String) -> String {
    if name
        .strip_prefix('v')
        .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    {
        return "a value".into();
    }
    match name.strip_prefix('(').and_then(|n| n.strip_suffix(')')) {
        Some(inner) if inner.ends_with("[..]") && !inner.contains(' ') => inner.to_string(),
        _ => name,
    }
}

/// `factor` with each parameter name replaced by its argument.
fn substitute(factor: &str, args: &HashMap<&str, &str>) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        match args.get(word.as_str()) {
            Some(a)
                if a.chars().all(|c| c.is_alphanumeric() || c == '_')
                    || (a.starts_with('(') && a.ends_with(')')) =>
            {
                out.push_str(a)
            }
            Some(a) => {
                out.push('(');
                out.push_str(a);
                out.push(')');
            }
            None => out.push_str(word),
        }
        word.clear();
    };
    for c in factor.chars() {
        if c.is_alphanumeric() || c == '_' || c == '.' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// `8·(n - 2)·steps + 24·(n - 2)`, or `0`.
pub fn show_size(size: &Size) -> String {
    let terms: Vec<String> = size
        .iter()
        .filter(|(_, b)| **b > 0)
        .map(|(factors, b)| {
            let mut t = b.to_string();
            for f in factors {
                t.push('·');
                t.push_str(f);
            }
            t
        })
        .collect();
    if terms.is_empty() {
        "0".into()
    } else {
        terms.join(" + ")
    }
}

/// The text of `--explain-tape` for the tapes of one program: each
/// requested gradient's total, then every generated function's records.
pub fn explain(path: &str, tapes: &[FunctionTape]) -> String {
    let at = |loc: &SrcLoc| {
        if loc.is_known() {
            format!("{path}:{}:{}", loc.line, loc.col)
        } else {
            path.to_string()
        }
    };
    let mut out = String::new();
    for t in tapes.iter().filter(|t| t.gradient) {
        let (size, recursive) = total(tapes, &t.function);
        let _ = writeln!(
            out,
            "{path}: gradient `{}` of `{}` records {} bytes per call{}",
            t.function,
            t.primal,
            show_size(&size),
            if recursive {
                " and level of recursion"
            } else {
                ""
            }
        );
    }
    for c in crate::checkpoint::candidates(tapes) {
        let _ = writeln!(
            out,
            "{}: checkpoint candidate: {}",
            at(&c.loc),
            c.describe()
        );
    }
    let mut sorted: Vec<&FunctionTape> = tapes.iter().collect();
    sorted.sort_by_key(|t| (!t.gradient, t.function.clone()));
    for t in sorted {
        let own = {
            let mut s = Size::new();
            for r in &t.records {
                add(&mut s, &r.runs, r.bytes);
            }
            s
        };
        let _ = writeln!(
            out,
            "{path}: `{}` ({}) records {} bytes per call{}",
            t.function,
            t.primal,
            show_size(&own),
            if t.calls.is_empty() {
                ""
            } else {
                ", and its calls"
            }
        );
        let mut records: Vec<&TapeRecord> = t.records.iter().collect();
        records.sort_by_key(|r| (r.loc.line, r.loc.col));
        for r in records {
            let mut per = Size::new();
            add(&mut per, &r.runs, r.bytes);
            let _ = writeln!(
                out,
                "  {}: `{}`: {} B × {} = {}: {}",
                at(&r.loc),
                r.what,
                r.bytes,
                if r.runs.is_empty() {
                    "1".to_string()
                } else {
                    r.runs.join("·")
                },
                show_size(&per),
                r.reason
            );
        }
        for c in &t.calls {
            let args: Vec<String> = c.args.iter().map(|(p, a)| format!("{p} = {a}")).collect();
            let _ = writeln!(
                out,
                "  {}: call of `{}` × {} ({})",
                at(&c.loc),
                c.callee,
                if c.runs.is_empty() {
                    "1".to_string()
                } else {
                    c.runs.join("·")
                },
                args.join(", ")
            );
        }
    }
    out
}

/// How many times primal block `b` runs per call of the function: the
/// trip counts of the loops around it, outermost first.
pub(crate) fn runs(plan: &Plan, b: Block) -> Vec<String> {
    let mut around: Vec<(usize, String)> = Vec::new();
    for (i, c) in plan.counted.iter().enumerate() {
        if c.blocks.contains(&b) {
            around.push((c.blocks.len(), counted_trip(plan, i)));
        }
    }
    for l in &plan.ploops {
        if l.loop_blocks.contains(&b) || l.task_blocks.contains(&b) {
            let step = match plan.p.value_def(l.step) {
                ValueDef::Result(i) => match plan.p.inst(i) {
                    InstKind::Iconst(s) => Ok(*s),
                    _ => Err(value_name(plan, l.step)),
                },
                _ => Err(value_name(plan, l.step)),
            };
            let t = trip(plan, l.lo, l.hi, l.inclusive, step)
                .unwrap_or_else(|| iterations(plan, l.header));
            around.push((l.loop_blocks.len(), t));
        }
    }
    around.sort_by_key(|a| std::cmp::Reverse(a.0));
    around.into_iter().map(|a| a.1).collect()
}

/// The trip count of counted loop `i`: from its bounds, or
/// `iterations(line N)` where its exit test gives none or they are
/// data (`rowptr[i]` to `rowptr[i + 1]`).
pub(crate) fn counted_trip(plan: &Plan, i: usize) -> String {
    plan.exit_tests[i]
        .and_then(|t| trip(plan, t.lo, t.bound, t.inclusive, Ok(t.step)))
        .unwrap_or_else(|| iterations(plan, plan.counted[i].header))
}

/// `iterations(line N)`: the trip count of the loop whose header is
/// `header`, where the report has no formula for it.
fn iterations(plan: &Plan, header: Block) -> String {
    let line = plan
        .p
        .terminator(header)
        .map(|t| plan.p.locs[t].line)
        .unwrap_or(0);
    format!("iterations(line {line})")
}

/// `hi - lo` (`+ 1` inclusive, `/ step`) as text, constants folded;
/// `None` where the two bounds are different values of one name (two
/// elements of an array: the report names no index).
fn trip(
    plan: &Plan,
    lo: Value,
    hi: Value,
    inclusive: bool,
    step: Result<i64, String>,
) -> Option<String> {
    let (hs, hc) = linear(plan, hi, 0);
    let (ls, lc) = linear(plan, lo, 0);
    let c = hc - lc + i64::from(inclusive);
    let span = match (hs, ls) {
        (Some((h, hv)), Some((l, lv))) if h == l && hv != lv => return None,
        (Some((h, _)), Some((l, _))) if h == l => c.to_string(),
        (Some((h, _)), Some((l, _))) => format!("({h} - {l}{})", signed(c)),
        (Some((h, _)), None) if c == 0 => h,
        (Some((h, _)), None) => format!("({h}{})", signed(c)),
        (None, Some((l, _))) => format!("({c} - {l})"),
        (None, None) => c.to_string(),
    };
    Some(match step {
        Ok(1) => span,
        Ok(s) => format!("{span}/{s}"),
        Err(s) => format!("{span}/{s}"),
    })
}

fn signed(c: i64) -> String {
    match c {
        0 => String::new(),
        c if c > 0 => format!(" + {c}"),
        c => format!(" - {}", -c),
    }
}

/// `v` as a name (and the value named) plus a constant, looking through
/// sign extensions and additions of constants.
fn linear(plan: &Plan, v: Value, depth: u32) -> (Option<(String, Value)>, i64) {
    if let ValueDef::Result(i) = plan.p.value_def(v)
        && depth < 8
    {
        match plan.p.inst(i) {
            InstKind::Iconst(c) => return (None, *c),
            InstKind::Cast(CastOp::Sext | CastOp::Zext | CastOp::Trunc, x) => {
                return linear(plan, *x, depth + 1);
            }
            InstKind::Binary(op @ (BinaryOp::Iadd | BinaryOp::Isub), a, b) => {
                let (sa, ca) = linear(plan, *a, depth + 1);
                let (sb, cb) = linear(plan, *b, depth + 1);
                let sign = if *op == BinaryOp::Iadd { 1 } else { -1 };
                match (sa, sb) {
                    (s, None) => return (s, ca + sign * cb),
                    (None, Some(s)) if sign == 1 => return (Some(s), ca + cb),
                    _ => {}
                }
            }
            _ => {}
        }
    }
    (Some((value_name(plan, v), v)), 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(runs: &[&str], bytes: u64) -> TapeRecord {
        TapeRecord {
            loc: SrcLoc::default(),
            what: "x[..]".into(),
            bytes,
            runs: runs.iter().map(|s| s.to_string()).collect(),
            reason: String::new(),
        }
    }

    #[test]
    fn a_gradient_adds_its_callees_records_in_its_own_names() {
        let tapes = vec![
            FunctionTape {
                primal: "simulate".into(),
                function: "simulate.grad".into(),
                gradient: true,
                records: vec![record(&["steps"], 8)],
                calls: vec![TapeCall {
                    callee: "forces.aug".into(),
                    loc: SrcLoc::default(),
                    runs: vec!["steps".into()],
                    args: vec![("m".into(), "n".into()), ("y".into(), "(a + 1)".into())],
                }],
                loops: vec![SerialLoop {
                    loc: SrcLoc::default(),
                    trip: "steps".into(),
                    records: vec![0],
                    calls: vec![0],
                    writes: vec!["`forces`".into()],
                }],
            },
            FunctionTape {
                primal: "forces".into(),
                function: "forces.aug".into(),
                gradient: false,
                records: vec![
                    record(&["(m - 2)"], 16),
                    record(&["m", "y"], 8),
                    record(&[], 8),
                ],
                calls: vec![],
                loops: vec![],
            },
        ];
        let (size, recursive) = total(&tapes, "simulate.grad");
        assert!(!recursive);
        assert_eq!(
            show_size(&size),
            "8·(a + 1)·n·steps + 16·(n - 2)·steps + 16·steps"
        );
        // One iteration of the time loop: its own record and one call.
        let (per, recursive) = per_iteration(&tapes, &tapes[0], &tapes[0].loops[0]);
        assert!(!recursive);
        assert_eq!(show_size(&per), "16 + 8·(a + 1)·n + 16·(n - 2)");
        let found = crate::checkpoint::candidates(&tapes);
        assert_eq!(found.len(), 1);
        assert_eq!(show_size(&found[0].total), show_size(&size));
    }

    #[test]
    fn recursion_counts_each_level_once() {
        let tapes = vec![FunctionTape {
            primal: "f".into(),
            function: "f.aug".into(),
            gradient: true,
            records: vec![record(&[], 8)],
            calls: vec![TapeCall {
                callee: "f.aug".into(),
                loc: SrcLoc::default(),
                runs: vec![],
                args: vec![],
            }],
            loops: vec![],
        }];
        let (size, recursive) = total(&tapes, "f.aug");
        assert!(recursive);
        assert_eq!(show_size(&size), "8");
    }

    #[test]
    fn parameters_are_replaced_as_whole_words() {
        let args = HashMap::from([("n", "len"), ("lo", "(a + b)")]);
        assert_eq!(substitute("(n - lo)", &args), "(len - (a + b))");
        assert_eq!(substitute("(nn - n2)", &args), "(nn - n2)");
    }
}
