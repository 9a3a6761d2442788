//! Pure helpers of the harness: statistics, number formatting, Markdown
//! tables and the small text formats it reads (`// args:` lines, the output
//! of `parc build --time-passes`). No timing and no processes here, so all of
//! it is unit-tested.

/// The median of `xs` (the mean of the middle two for an even count); `None`
/// for no samples. NaNs sort last.
pub fn median(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    Some(if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    })
}

/// The 25th and 75th percentiles of `xs` (linear interpolation between
/// the order statistics); `None` for no samples.
pub fn quartiles(xs: &[f64]) -> Option<(f64, f64)> {
    if xs.is_empty() {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let at = |q: f64| {
        let pos = q * (v.len() - 1) as f64;
        let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
        v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
    };
    Some((at(0.25), at(0.75)))
}

/// The ratios `a[k] / b[k]` of runs made in the same repetition.
pub fn paired_ratios(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter()
        .zip(b)
        .filter(|&(_, &y)| y > 0.0)
        .map(|(&x, &y)| x / y)
        .collect()
}

/// The geometric mean of positive `xs`; `None` when empty or when any value
/// is not positive and finite.
pub fn geomean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() || xs.iter().any(|x| !x.is_finite() || *x <= 0.0) {
        return None;
    }
    let log_sum: f64 = xs.iter().map(|x| x.ln()).sum();
    Some((log_sum / xs.len() as f64).exp())
}

/// Seconds as milliseconds with three significant figures or so:
/// `1234.6 ms` -> "1235", `12.34 ms` -> "12.3", `1.234 ms` -> "1.23".
pub fn fmt_ms(secs: f64) -> String {
    let ms = secs * 1e3;
    if ms >= 100.0 {
        format!("{ms:.0}")
    } else if ms >= 10.0 {
        format!("{ms:.1}")
    } else {
        format!("{ms:.2}")
    }
}

/// A ratio with about three significant figures: "1.07", "27.8", "0.0019".
pub fn fmt_ratio(r: f64) -> String {
    if r < 0.01 {
        format!("{r:.4}")
    } else if r < 0.1 {
        format!("{r:.3}")
    } else if r >= 100.0 {
        format!("{r:.0}")
    } else if r >= 10.0 {
        format!("{r:.1}")
    } else {
        format!("{r:.2}")
    }
}

/// Whether a measured value meets its target: "ok", or "**miss**" (bold in
/// Markdown, so that it stands out in the table).
pub fn verdict(value: f64, target: f64, higher_is_better: bool) -> &'static str {
    let met = if higher_is_better {
        value >= target
    } else {
        value <= target
    };
    if met { "ok" } else { "**miss**" }
}

/// Column alignment in a Markdown table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A Markdown table: headers, per-column alignment, rows of cells. Columns
/// are padded to a common width so that the text is readable as it is.
#[derive(Clone, Debug, Default)]
pub struct Table {
    headers: Vec<String>,
    align: Vec<Align>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table whose first column is left-aligned and the others right-aligned
    /// (names, then numbers).
    pub fn new<S: AsRef<str>>(headers: &[S]) -> Table {
        let align = (0..headers.len())
            .map(|i| if i == 0 { Align::Left } else { Align::Right })
            .collect();
        Table {
            headers: headers.iter().map(|h| h.as_ref().to_string()).collect(),
            align,
            rows: Vec::new(),
        }
    }

    /// Sets the alignment of every column (extra entries are ignored).
    pub fn with_align(mut self, align: &[Align]) -> Table {
        for (slot, a) in self.align.iter_mut().zip(align) {
            *slot = *a;
        }
        self
    }

    /// Appends a row; missing cells are empty, extra cells are dropped.
    pub fn row<S: Into<String>>(&mut self, cells: impl IntoIterator<Item = S>) {
        let mut row: Vec<String> = cells.into_iter().map(Into::into).collect();
        row.resize(self.headers.len(), String::new());
        self.rows.push(row);
    }

    /// The table as Markdown, ending in a newline. `|` inside cells is
    /// escaped.
    pub fn render(&self) -> String {
        let esc = |s: &str| s.replace('|', "\\|");
        let headers: Vec<String> = self.headers.iter().map(|h| esc(h)).collect();
        let rows: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| r.iter().map(|c| esc(c)).collect())
            .collect();
        let width = |s: &str| s.chars().count();
        let widths: Vec<usize> = (0..headers.len())
            .map(|i| {
                rows.iter()
                    .map(|r| width(&r[i]))
                    .chain([width(&headers[i]), 3])
                    .max()
                    .unwrap_or(3)
            })
            .collect();
        let line = |cells: &[String]| {
            let mut s = String::from("|");
            for (i, c) in cells.iter().enumerate() {
                let pad = widths[i] - width(c);
                match self.align[i] {
                    Align::Left => s.push_str(&format!(" {c}{} |", " ".repeat(pad))),
                    Align::Right => s.push_str(&format!(" {}{c} |", " ".repeat(pad))),
                }
            }
            s.push('\n');
            s
        };
        let mut out = line(&headers);
        out.push('|');
        for (i, w) in widths.iter().enumerate() {
            match self.align[i] {
                Align::Left => out.push_str(&format!(" {} |", "-".repeat(*w))),
                Align::Right => out.push_str(&format!(" {}: |", "-".repeat(w - 1))),
            }
        }
        out.push('\n');
        for r in &rows {
            out.push_str(&line(r));
        }
        out
    }
}

/// The words of the header directive `// KEY:` of a program (the test
/// suites' rule, `parc_testkit::directive`), e.g. `// args: 1024 200`.
pub fn directive(source: &str, key: &str) -> Option<Vec<String>> {
    parc_testkit::directive(source, key)
        .map(|text| text.split_whitespace().map(str::to_string).collect())
}

/// The lines `   <time> ms  <pass>` of `parc build --time-passes` stderr, as
/// (pass, seconds), in order; other lines are skipped.
pub fn parse_time_passes(stderr: &str) -> Vec<(String, f64)> {
    stderr
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let ms: f64 = words.next()?.parse().ok()?;
            if words.next()? != "ms" {
                return None;
            }
            let pass = words.collect::<Vec<_>>().join(" ");
            (!pass.is_empty()).then_some((pass, ms / 1e3))
        })
        .collect()
}

/// fib(n), exactly.
pub fn fib(n: u32) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        (a, b) = (b, a + b);
    }
    a
}

/// The number of spawns the naive spawning fib(n) makes: one per call with
/// n >= 2, which is fib(n + 1) - 1.
pub fn spawn_count(n: u32) -> u64 {
    fib(n + 1) - 1
}

/// Nanoseconds per spawn: the extra time of the spawning version over the
/// serial one, divided among its spawns.
pub fn ns_per_spawn(t_spawn: f64, t_serial: f64, spawns: u64) -> Option<f64> {
    (spawns > 0).then(|| (t_spawn - t_serial) * 1e9 / spawns as f64)
}

/// The arguments with the first (the problem size) doubled: normalize's
/// gradient growth from n to 2n. `None` if there is no numeric first
/// argument.
pub fn double_first(args: &[String]) -> Option<Vec<String>> {
    let n: u64 = args.first()?.parse().ok()?;
    let mut v = args.to_vec();
    v[0] = (2 * n).to_string();
    Some(v)
}

/// The complexity a growth factor T(2n)/T(n) suggests: about 4 for O(n²),
/// about 2 (or less, start-up included) for O(n).
pub fn growth_class(factor: f64) -> &'static str {
    if factor >= 3.0 { "O(n²)" } else { "O(n)" }
}

/// Whether a gradient program's `check` run passed: it must print
/// `gradient check ok` and no `MISMATCH`.
pub fn check_passed(stdout: &str) -> Result<(), String> {
    if let Some(line) = stdout.lines().find(|l| l.contains("MISMATCH")) {
        return Err(format!("gradient check failed: {line}"));
    }
    if !stdout.contains("gradient check ok") {
        return Err("the check run did not print `gradient check ok`".to_string());
    }
    Ok(())
}

/// What `--only` selects, by harness part.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Only {
    /// Names of `bench/programs`.
    pub main: Vec<String>,
    /// Names of `bench/grad`; `None` for all of them (`grad`).
    pub grad: Option<Vec<String>>,
    /// Compile-time scaling shapes; `None` for all of them (`scaling`).
    pub scaling: Option<Vec<String>>,
}

/// Splits `--only` names into the programs of `bench/programs`, those of
/// `bench/grad` (`grad` selects every gradient benchmark, `grad/NAME` one)
/// and the compile-time scaling shapes (`scaling`, `scaling/SHAPE`).
pub fn split_only(only: &[String]) -> Only {
    let mut main = Vec::new();
    let mut grad = Vec::new();
    let mut scaling = Vec::new();
    let (mut all_grad, mut all_scaling) = (false, false);
    for o in only {
        if o == "grad" {
            all_grad = true;
        } else if o == "scaling" {
            all_scaling = true;
        } else if let Some(name) = o.strip_prefix("grad/") {
            grad.push(name.to_string());
        } else if let Some(name) = o.strip_prefix("scaling/") {
            scaling.push(name.to_string());
        } else {
            main.push(o.clone());
        }
    }
    Only {
        main,
        grad: (!all_grad).then_some(grad),
        scaling: (!all_scaling).then_some(scaling),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_odd_even_empty() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0]), Some(3.0));
        assert_eq!(median(&[5.0, 1.0, 3.0]), Some(3.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        // an outlier does not move it
        assert_eq!(median(&[1.0, 1.1, 100.0, 0.9, 1.0]), Some(1.0));
    }

    #[test]
    fn quartiles_interpolate() {
        assert_eq!(quartiles(&[]), None);
        assert_eq!(quartiles(&[2.0]), Some((2.0, 2.0)));
        // positions 1 and 3 of 0..=4
        assert_eq!(quartiles(&[4.0, 0.0, 3.0, 1.0, 2.0]), Some((1.0, 3.0)));
        // positions 0.75 and 2.25 of 0..=3
        assert_eq!(quartiles(&[0.0, 1.0, 2.0, 3.0]), Some((0.75, 2.25)));
    }

    #[test]
    fn ratios_pair_by_repetition() {
        assert_eq!(
            paired_ratios(&[2.0, 3.0, 8.0], &[1.0, 0.0, 4.0]),
            vec![2.0, 2.0]
        );
        assert_eq!(paired_ratios(&[1.0, 2.0], &[1.0]), vec![1.0]);
    }

    #[test]
    fn geomean_values() {
        assert_eq!(geomean(&[]), None);
        assert_eq!(geomean(&[1.0, 0.0]), None);
        assert_eq!(geomean(&[2.0, f64::NAN]), None);
        let g = geomean(&[2.0, 8.0]).unwrap();
        assert!((g - 4.0).abs() < 1e-12);
        let g = geomean(&[0.5, 2.0, 1.0]).unwrap();
        assert!((g - 1.0).abs() < 1e-12);
    }

    #[test]
    fn number_formats() {
        assert_eq!(fmt_ms(1.2346), "1235");
        assert_eq!(fmt_ms(0.01234), "12.3");
        assert_eq!(fmt_ms(0.001234), "1.23");
        assert_eq!(fmt_ratio(1.066), "1.07");
        assert_eq!(fmt_ratio(27.84), "27.8");
        assert_eq!(fmt_ratio(312.4), "312");
        assert_eq!(fmt_ratio(0.0519), "0.052");
        assert_eq!(fmt_ratio(0.00188), "0.0019");
        assert_eq!(verdict(1.1, 1.2, false), "ok");
        assert_eq!(verdict(1.3, 1.2, false), "**miss**");
        assert_eq!(verdict(1.9, 1.8, true), "ok");
        assert_eq!(verdict(0.9, 0.97, true), "**miss**");
    }

    #[test]
    fn table_renders_aligned_markdown() {
        let mut t = Table::new(&["bench", "ms", "ratio"]);
        t.row(["fib", "12.3", "1.07"]);
        t.row(["a|b", "1234"]);
        let text = t.render();
        let expected = "\
| bench | ms   | ratio |
| ----- | ---: | ----: |
| fib   | 12.3 |  1.07 |
| a\\|b  | 1234 |       |
";
        // headers of right-aligned columns are padded on the left
        let expected = expected.replace("| ms   |", "|   ms |");
        assert_eq!(text, expected);
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines
                .iter()
                .all(|l| l.chars().count() == lines[0].chars().count())
        );
    }

    #[test]
    fn table_alignment_override() {
        let mut t = Table::new(&["a", "b"]).with_align(&[Align::Left, Align::Left]);
        t.row(["x", "y"]);
        assert_eq!(t.render(), "| a   | b   |\n| --- | --- |\n| x   | y   |\n");
    }

    #[test]
    fn directives() {
        let src = "// args: 1024 200\n// quick-args: 64 2\n// text\nint main() {}\n// late: 1\n";
        assert_eq!(directive(src, "args").unwrap(), ["1024", "200"]);
        assert_eq!(directive(src, "quick-args").unwrap(), ["64", "2"]);
        assert_eq!(directive(src, "late"), None);
        assert_eq!(directive(src, "missing"), None);
        assert_eq!(
            directive("//args:\n", "args").unwrap(),
            Vec::<String>::new()
        );
    }

    #[test]
    fn time_passes_lines() {
        let stderr = "warning: x\n    0.196 ms  lowering\n    0.042 ms  dce\n   12 ms  loop invariant motion\n bad ms\n";
        let passes = parse_time_passes(stderr);
        assert_eq!(passes.len(), 3);
        assert_eq!(passes[0].0, "lowering");
        assert!((passes[0].1 - 0.000196).abs() < 1e-12);
        assert_eq!(passes[2].0, "loop invariant motion");
        assert!((passes[2].1 - 0.012).abs() < 1e-12);
    }

    #[test]
    fn fib_and_spawns() {
        assert_eq!(fib(0), 0);
        assert_eq!(fib(10), 55);
        assert_eq!(fib(35), 9_227_465);
        // fib(2): one call with n >= 2; fib(3): fib(3), fib(2)
        assert_eq!(spawn_count(2), 1);
        assert_eq!(spawn_count(3), 2);
        assert_eq!(spawn_count(4), 4);
        let ns = ns_per_spawn(2.0, 1.0, 1_000_000_000).unwrap();
        assert!((ns - 1.0).abs() < 1e-12);
        assert_eq!(ns_per_spawn(2.0, 1.0, 0), None);
    }

    #[test]
    fn gradient_helpers() {
        let args: Vec<String> = ["6000", "1"].map(String::from).to_vec();
        assert_eq!(double_first(&args).unwrap(), ["12000", "1"]);
        assert_eq!(double_first(&[]), None);
        assert_eq!(double_first(&["x".to_string()]), None);
        assert_eq!(growth_class(3.9), "O(n²)");
        assert_eq!(growth_class(2.1), "O(n)");
        assert!(check_passed("normalize n=5: gradient check ok\n").is_ok());
        assert!(check_passed("MISMATCH d_in[0]: ad 1, fd 2\n").is_err());
        assert!(check_passed("MISMATCH x\ngradient check ok\n").is_err());
        assert!(check_passed("").is_err());
        let only: Vec<String> = ["fib", "grad/nbody", "matmul", "scaling/nested-for"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            split_only(&only),
            Only {
                main: vec!["fib".to_string(), "matmul".to_string()],
                grad: Some(vec!["nbody".to_string()]),
                scaling: Some(vec!["nested-for".to_string()]),
            }
        );
        let only: Vec<String> = ["grad", "grad/nbody", "scaling"].map(String::from).to_vec();
        let o = split_only(&only);
        assert_eq!((o.main, o.grad, o.scaling), (vec![], None, None));
        assert_eq!(
            split_only(&[]),
            Only {
                main: vec![],
                grad: Some(vec![]),
                scaling: Some(vec![]),
            }
        );
    }
}
