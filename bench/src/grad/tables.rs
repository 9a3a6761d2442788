//! The Markdown of the gradient tables (7–9, and 7b beside
//! clang+Enzyme): medians, overheads, the two AD pipelines, speedups and
//! peak memory, from the samples `run_all` gathered.

use super::{Enzyme, GBuild, GSize, GradResults, Mode, OVERHEAD_TARGET, Run, WORKERS, run};
use crate::excerpt;
use crate::harness::{Tools, ratio_cell};
use crate::report::{Align, Table, fmt_ms, fmt_ratio, geomean, growth_class, median, verdict};
use std::fmt::Write as _;
use std::path::PathBuf;

impl GradResults {
    pub(super) fn med(&self, prog: &str, r: Run) -> Option<f64> {
        let s = self.results.get(&(prog.to_string(), r))?;
        if s.failure.is_some() {
            return None;
        }
        median(&s.times)
    }

    pub(super) fn cell(&self, prog: &str, r: Run) -> String {
        match self.results.get(&(prog.to_string(), r)) {
            Some(s) if s.failure.as_deref().is_some_and(|f| f.contains("MISMATCH")) => {
                "**MISMATCH**".into()
            }
            Some(s) if s.failure.is_some() => "**FAILED**".into(),
            Some(s) => median(&s.times).map(fmt_ms).unwrap_or_else(|| "-".into()),
            None => "-".into(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.programs.is_empty()
    }

    /// The gradient sections of the report (tables 7–9).
    pub fn render(&self, w: &mut String) {
        use GBuild::{AdBeforeOpt as A, O2};
        use Mode::{Grad as G, Primal as P};
        let m = GSize::Main;
        let legend_tools = Tools {
            parc: PathBuf::from("PARC"),
            cc: String::new(),
            clang: String::new(),
            enzyme: Err(String::new()),
        };
        let _ = writeln!(w, "## Gradients: configurations\n");
        let _ = writeln!(
            w,
            "`B` is `bench/grad/B.pc`. Each program's `main` takes `MODE ARGS`: `primal` calls the function REPS times (REPS is the last argument), `grad` calls `__enzyme_autodiff` of it REPS times (resetting the output's seed before each call where the function writes an array, as Enzyme's interface requires), `check` computes one gradient and compares a few entries with central finite differences of the primal (relative tolerance 1e-5 plus round-off), and every entry with the closed form where there is one (normalize, psum), printing `gradient check ok` or `MISMATCH`. Times are whole processes, so start-up and input set-up count on both sides.\n"
        );
        let mut legend = Table::new(&["build", "command", "runs"]).with_align(&[Align::Left; 3]);
        for (b, what) in [
            (
                O2,
                format!(
                    "`primal` and `grad` on 1 and {WORKERS} workers (Enzyme's order: optimize, differentiate, optimize)"
                ),
            ),
            (
                A,
                format!(
                    "`grad` on 1 and {WORKERS} workers (differentiate the unoptimized IR, then optimize)"
                ),
            ),
            (
                GBuild::Serial,
                "the oracle: every mode once on 1 worker".to_string(),
            ),
        ] {
            let cmd = b
                .command(
                    &legend_tools,
                    None,
                    "bench/grad/B.pc",
                    &format!("B.{}", b.suffix()),
                )
                .unwrap_or_default()
                .join(" ");
            legend.row([format!("`{}`", b.suffix()), format!("`{cmd}`"), what]);
        }
        let legend_enzyme = Enzyme {
            clang: self
                .enzyme
                .as_ref()
                .map_or("clang-16".to_string(), |e| e.clang.clone()),
            plugin: PathBuf::from("ENZYME"),
        };
        for (b, what) in [
            (
                GBuild::Enzyme,
                "the peer: `primal` and `grad` on 1 thread".to_string(),
            ),
            (
                GBuild::EnzymeOmp,
                format!("the peer with OpenMP: `grad` on 1 and {WORKERS} threads"),
            ),
        ] {
            let cmd = b
                .command(
                    &legend_tools,
                    Some(&legend_enzyme),
                    "bench/grad/B.pc",
                    &format!("B.{}", b.suffix()),
                )
                .unwrap_or_default()
                .join(" ");
            legend.row([format!("`{}`", b.suffix()), format!("`{cmd}`"), what]);
        }
        let _ = writeln!(w, "{}", legend.render());
        let _ = writeln!(
            w,
            "Validation: every timed run's stdout (checksums printed with `%.6e`) must equal the `serial` build's for the same mode and size on 1 worker; before timing, `check` runs once for every gradient build, worker count and size (and for the oracle). Runs: `PARC_NUM_THREADS=W ./B.BUILD MODE ARGS`.\n"
        );
        let mut sizes = Table::new(&["benchmark", "kind", "lines", "ARGS", "ARGS (pipelines)"])
            .with_align(&[
                Align::Left,
                Align::Left,
                Align::Right,
                Align::Left,
                Align::Left,
            ]);
        for p in &self.programs {
            let abo = match &p.abo_args {
                Some(a) => format!("{} (and {})", a.join(" "), p.args(GSize::Abo2).join(" ")),
                None => "(same)".to_string(),
            };
            sizes.row([
                p.name.clone(),
                p.kind.to_string(),
                p.lines.to_string(),
                p.args.join(" "),
                abo,
            ]);
        }
        let _ = writeln!(w, "{}", sizes.render());

        // ---- 7. overhead
        let _ = writeln!(
            w,
            "## 7. Gradient overhead T_grad/T_primal (parc -O2, 1 and {WORKERS} workers)\n\nTarget (issue): ≤ {OVERHEAD_TARGET}x everywhere. For comparison, Enzyme reports 3.2x on XSBench (GPU) and 11.9x at 1 thread / 6.8x at 64 threads on LULESH (OpenMP).\n"
        );
        let mut t = Table::new(&[
            "benchmark".to_string(),
            "primal 1w (ms)".to_string(),
            "grad 1w (ms)".to_string(),
            "grad/primal 1w".to_string(),
            format!("≤ {OVERHEAD_TARGET}"),
            format!("primal {WORKERS}w (ms)"),
            format!("grad {WORKERS}w (ms)"),
            format!("grad/primal {WORKERS}w"),
            format!("≤ {OVERHEAD_TARGET}"),
        ]);
        let mut r1s = Vec::new();
        let mut r2s = Vec::new();
        for p in &self.programs {
            let n = p.name.as_str();
            let (a, av) = ratio_cell(self.med(n, run(O2, G, 1, m)), self.med(n, run(O2, P, 1, m)));
            let (b, bv) = ratio_cell(
                self.med(n, run(O2, G, WORKERS, m)),
                self.med(n, run(O2, P, WORKERS, m)),
            );
            r1s.push(av);
            r2s.push(bv);
            let v = |x: Option<f64>| {
                x.map(|x| verdict(x, OVERHEAD_TARGET, false).to_string())
                    .unwrap_or_default()
            };
            t.row([
                p.name.clone(),
                self.cell(n, run(O2, P, 1, m)),
                self.cell(n, run(O2, G, 1, m)),
                a,
                v(av),
                self.cell(n, run(O2, P, WORKERS, m)),
                self.cell(n, run(O2, G, WORKERS, m)),
                b,
                v(bv),
            ]);
        }
        if !self.programs.is_empty() {
            let g1 = all_or_none(&r1s).and_then(|v| geomean(&v));
            let g2 = all_or_none(&r2s).and_then(|v| geomean(&v));
            let f = |g: Option<f64>| g.map(fmt_ratio).unwrap_or_else(|| "-".into());
            t.row([
                "**geomean**".to_string(),
                String::new(),
                String::new(),
                f(g1),
                String::new(),
                String::new(),
                String::new(),
                f(g2),
            ]);
        }
        let _ = writeln!(w, "{}", t.render());

        self.render_peer(w);

        // ---- 8. pipelines
        let _ = writeln!(
            w,
            "## 8. Optimize, then differentiate (`--O2`) vs differentiate, then optimize (`--O2 --ad-before-opt`)\n\nGradient times; ratio = ad-before-opt / optimize-first (Enzyme reports 4.2x, geometric mean). Sizes: ARGS (pipelines) above.\n"
        );
        let mut t = Table::new(&[
            "benchmark".to_string(),
            "O2 1w (ms)".to_string(),
            "ad-before-opt 1w (ms)".to_string(),
            "ratio 1w".to_string(),
            format!("O2 {WORKERS}w (ms)"),
            format!("ad-before-opt {WORKERS}w (ms)"),
            format!("ratio {WORKERS}w"),
        ]);
        let mut r1s = Vec::new();
        let mut r2s = Vec::new();
        for p in &self.programs {
            let n = p.name.as_str();
            let s = p.abo_size();
            let (a, av) = ratio_cell(self.med(n, run(A, G, 1, s)), self.med(n, run(O2, G, 1, s)));
            let (b, bv) = ratio_cell(
                self.med(n, run(A, G, WORKERS, s)),
                self.med(n, run(O2, G, WORKERS, s)),
            );
            r1s.push(av);
            r2s.push(bv);
            t.row([
                p.name.clone(),
                self.cell(n, run(O2, G, 1, s)),
                self.cell(n, run(A, G, 1, s)),
                a,
                self.cell(n, run(O2, G, WORKERS, s)),
                self.cell(n, run(A, G, WORKERS, s)),
                b,
            ]);
        }
        if !self.programs.is_empty() {
            let f = |v: &[Option<f64>]| {
                all_or_none(v)
                    .and_then(|v| geomean(&v))
                    .map(fmt_ratio)
                    .unwrap_or_else(|| "-".into())
            };
            t.row([
                "**geomean**".to_string(),
                String::new(),
                String::new(),
                f(&r1s),
                String::new(),
                String::new(),
                f(&r2s),
            ]);
            let skip: Vec<usize> = self
                .programs
                .iter()
                .enumerate()
                .filter(|(_, p)| p.abo_args.is_some())
                .map(|(i, _)| i)
                .collect();
            if !skip.is_empty() && skip.len() < self.programs.len() {
                let keep = |v: &[Option<f64>]| -> Vec<Option<f64>> {
                    v.iter()
                        .enumerate()
                        .filter(|(i, _)| !skip.contains(i))
                        .map(|(_, x)| *x)
                        .collect()
                };
                let names: Vec<&str> = skip
                    .iter()
                    .map(|&i| self.programs[i].name.as_str())
                    .collect();
                t.row([
                    format!("geomean without {}", names.join(", ")),
                    String::new(),
                    String::new(),
                    f(&keep(&r1s)),
                    String::new(),
                    String::new(),
                    f(&keep(&r2s)),
                ]);
            }
        }
        let _ = writeln!(w, "{}", t.render());
        for p in self.programs.iter().filter(|p| p.abo_args.is_some()) {
            let (a1, a2) = (p.args(GSize::Abo).join(" "), p.args(GSize::Abo2).join(" "));
            let _ = writeln!(
                w,
                "{} gradient growth, 1 worker: time at `{a2}` over time at `{a1}` (the first argument is n). ≈ 4 means O(n²) gradient work, ≈ 2 or less O(n) (start-up included, so the factor can be near 1).\n",
                p.name
            );
            let mut t = Table::new(&[
                "pipeline".to_string(),
                format!("`{a1}` (ms)"),
                format!("`{a2}` (ms)"),
                "growth".to_string(),
                "complexity".to_string(),
            ]);
            for (label, b) in [
                ("optimize, differentiate, optimize (`--O2`)", O2),
                ("differentiate, optimize (`--ad-before-opt`)", A),
            ] {
                let (g, gv) = ratio_cell(
                    self.med(&p.name, run(b, G, 1, GSize::Abo2)),
                    self.med(&p.name, run(b, G, 1, GSize::Abo)),
                );
                t.row([
                    label.to_string(),
                    self.cell(&p.name, run(b, G, 1, GSize::Abo)),
                    self.cell(&p.name, run(b, G, 1, GSize::Abo2)),
                    g,
                    gv.map(growth_class).unwrap_or_default().to_string(),
                ]);
            }
            let _ = writeln!(w, "{}", t.render());
        }

        // ---- 9. speedups
        let _ = writeln!(
            w,
            "## 9. {WORKERS}-worker speedup T_1/T_{WORKERS}: gradient vs primal (parc -O2)\n\n(For the primal programs of table 3 the target is ≥ 1.8; the issue sets none for gradients.)\n"
        );
        let mut t = Table::new(&[
            "benchmark".to_string(),
            "kind".to_string(),
            format!("primal T_1/T_{WORKERS}"),
            format!("grad T_1/T_{WORKERS}"),
            "grad speedup / primal speedup".to_string(),
        ])
        .with_align(&[
            Align::Left,
            Align::Left,
            Align::Right,
            Align::Right,
            Align::Right,
        ]);
        for p in &self.programs {
            let n = p.name.as_str();
            let (a, av) = ratio_cell(
                self.med(n, run(O2, P, 1, m)),
                self.med(n, run(O2, P, WORKERS, m)),
            );
            let (b, bv) = ratio_cell(
                self.med(n, run(O2, G, 1, m)),
                self.med(n, run(O2, G, WORKERS, m)),
            );
            t.row([
                p.name.clone(),
                p.kind.to_string(),
                a,
                b,
                ratio_cell(bv, av).0,
            ]);
        }
        let _ = writeln!(w, "{}", t.render());
    }
}

impl GradResults {
    /// The median peak resident set of a run, MB.
    fn rss_mb(&self, prog: &str, r: Run) -> Option<f64> {
        self.med(prog, r)?;
        let v: Vec<f64> = self
            .rss
            .get(&(prog.to_string(), r))?
            .iter()
            .map(|&k| k as f64 / 1024.0)
            .collect();
        median(&v)
    }

    /// Table 7b: parc's gradient against clang+Enzyme's, time and memory.
    fn render_peer(&self, w: &mut String) {
        use GBuild::{Enzyme as E, EnzymeOmp as EO, O2};
        use Mode::{Grad as G, Primal as P};
        let m = GSize::Main;
        let _ = writeln!(
            w,
            "## 7b. Gradients against clang+Enzyme (time and peak memory)\n"
        );
        let enzyme = match &self.enzyme {
            Ok(e) => e,
            Err(why) => {
                let _ = writeln!(w, "Skipped: {why}.\n");
                return;
            }
        };
        let _ = writeln!(
            w,
            "The same source built by `{} -O2 -fwrapv -fplugin={}` through `include/parc.h` (serial: `enzyme`; with `-fopenmp`: `enzyme-omp`, `OMP_NUM_THREADS=W`). Memory: the median peak resident set (`ru_maxrss`) of the whole process in MB, input arrays included. Ratios are parc / Enzyme: below 1 parc is faster or smaller. Programs with kernels are parc's alone.\n",
            enzyme.clang,
            enzyme.plugin.display()
        );
        let mut t = Table::new(&[
            "benchmark".to_string(),
            "parc grad 1w (ms)".to_string(),
            "enzyme (ms)".to_string(),
            "time parc/enzyme".to_string(),
            "parc 1w (MB)".to_string(),
            "enzyme (MB)".to_string(),
            "mem parc/enzyme".to_string(),
            "enzyme grad/primal".to_string(),
            "enzyme-omp 1t (ms)".to_string(),
            format!("parc {WORKERS}w (ms)"),
            format!("enzyme-omp {WORKERS}t (ms)"),
            format!("time parc/enzyme-omp {WORKERS}"),
            format!("parc {WORKERS}w (MB)"),
            format!("enzyme-omp {WORKERS}t (MB)"),
        ]);
        let mb = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:.0}"));
        let mut notes = Vec::new();
        for p in self.programs.iter().filter(|p| p.peer_builds()) {
            let n = p.name.as_str();
            let (pg1, eg1) = (run(O2, G, 1, m), run(E, G, 1, m));
            let (pg2, eo2) = (run(O2, G, WORKERS, m), run(EO, G, WORKERS, m));
            t.row([
                p.name.clone(),
                self.cell(n, pg1),
                self.cell(n, eg1),
                ratio_cell(self.med(n, pg1), self.med(n, eg1)).0,
                mb(self.rss_mb(n, pg1)),
                mb(self.rss_mb(n, eg1)),
                ratio_cell(self.rss_mb(n, pg1), self.rss_mb(n, eg1)).0,
                ratio_cell(self.med(n, eg1), self.med(n, run(E, P, 1, m))).0,
                self.cell(n, run(EO, G, 1, m)),
                self.cell(n, pg2),
                self.cell(n, eo2),
                ratio_cell(self.med(n, pg2), self.med(n, eo2)).0,
                mb(self.rss_mb(n, pg2)),
                mb(self.rss_mb(n, eo2)),
            ]);
            for r in p.runs(true).into_iter().filter(|r| r.build.is_peer()) {
                if let Some(why) = self
                    .results
                    .get(&(p.name.clone(), r))
                    .and_then(|s| s.failure.as_ref())
                {
                    let why = excerpt(why);
                    let why: Vec<&str> = why.lines().map(str::trim).collect();
                    notes.push(format!("- {n} {}: {}", r.label(), why.join(" / ")));
                }
            }
        }
        let _ = writeln!(w, "{}", t.render());
        if !notes.is_empty() {
            let _ = writeln!(
                w,
                "The peer's failures (its cells read FAILED or MISMATCH; they do not fail the harness):\n\n{}\n",
                notes.join("\n")
            );
        }
    }
}

/// The values if every entry has one.
fn all_or_none(v: &[Option<f64>]) -> Option<Vec<f64>> {
    v.iter().copied().collect()
}
