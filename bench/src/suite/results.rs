//! The figures of a suite run (medians, ratios, gradient overheads, peak
//! memory) and the forms they are written in: the Markdown report, CSV and
//! JSON.

use super::entries::Entry;
use super::{Config, Mode, Speedups, Suite};
use crate::report::{Table, fmt_ratio, median};
use std::fmt::Write as _;

pub(super) fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}

fn ratio_text(r: Option<f64>) -> String {
    r.map(fmt_ratio).unwrap_or_else(|| "-".into())
}

fn mib(kib: Option<u64>) -> String {
    kib.map(|k| format!("{:.1}", k as f64 / 1024.0))
        .unwrap_or_else(|| "-".into())
}

/// The figures the report, the data files and the plots share.
pub(super) struct Figures {
    /// (program, parc-1w / gcc, parc-Nw / gcc-ompN)
    pub(super) vs_gcc: Vec<(String, Option<f64>, Option<f64>)>,
    pub(super) speedup: Vec<Speedups>,
    /// (program, T_grad/T_primal at 1 worker, at N workers)
    pub(super) overhead: Vec<(String, Option<f64>, Option<f64>)>,
}

impl Suite {
    pub(super) fn figures(&self) -> Figures {
        let mut f = Figures {
            vs_gcc: Vec::new(),
            speedup: Vec::new(),
            overhead: Vec::new(),
        };
        for e in &self.entries {
            let n = &e.name;
            let m = |mode, c| self.med(n, mode, c);
            if e.gcc {
                f.vs_gcc.push((
                    n.clone(),
                    ratio(m(Mode::Primal, Config::Parc1), m(Mode::Primal, Config::Gcc)),
                    ratio(
                        m(Mode::Primal, Config::ParcN),
                        m(Mode::Primal, Config::GccOmp),
                    ),
                ));
            }
            let grad_speedup = e
                .grad_args
                .as_ref()
                .and_then(|_| ratio(m(Mode::Grad, Config::Parc1), m(Mode::Grad, Config::ParcN)));
            let gcc_speedup = e
                .gcc
                .then(|| {
                    ratio(
                        m(Mode::Primal, Config::Gcc),
                        m(Mode::Primal, Config::GccOmp),
                    )
                })
                .flatten();
            f.speedup.push((
                n.clone(),
                ratio(
                    m(Mode::Primal, Config::Parc1),
                    m(Mode::Primal, Config::ParcN),
                ),
                grad_speedup,
                gcc_speedup,
            ));
            if e.grad_args.is_some() {
                f.overhead.push((
                    n.clone(),
                    self.overhead(e, Config::Parc1),
                    self.overhead(e, Config::ParcN),
                ));
            }
        }
        f
    }

    pub(super) fn report(&self, header: &str, figures: &Figures) -> String {
        let w = self.workers;
        let mut out = String::from(header);
        let source = |e: &Entry, mode: Mode| match e.time_line(mode) {
            Some(p) => format!("program's `{p}`"),
            None => "process".into(),
        };

        let _ = writeln!(out, "\n## Primal: parc against gcc\n");
        let mut t = Table::new(&[
            "program".to_string(),
            "arguments".into(),
            "time".into(),
            "gcc".into(),
            format!("gcc-omp{w}"),
            "parc-1w".into(),
            format!("parc-{w}w"),
            "parc-1w / gcc".into(),
            format!("parc-{w}w / gcc-omp{w}"),
        ]);
        for e in &self.entries {
            let n = &e.name;
            let m = |c| self.med(n, Mode::Primal, c);
            t.row([
                n.clone(),
                format!("`{}`", e.primal_args.join(" ")),
                source(e, Mode::Primal),
                if e.gcc {
                    self.cell(n, Mode::Primal, Config::Gcc)
                } else {
                    "-".into()
                },
                if e.gcc {
                    self.cell(n, Mode::Primal, Config::GccOmp)
                } else {
                    "-".into()
                },
                self.cell(n, Mode::Primal, Config::Parc1),
                self.cell(n, Mode::Primal, Config::ParcN),
                ratio_text(ratio(m(Config::Parc1), m(Config::Gcc))),
                ratio_text(ratio(m(Config::ParcN), m(Config::GccOmp))),
            ]);
        }
        out.push_str(&t.render());
        let _ = writeln!(
            out,
            "\nMedians in ms. A ratio below 1 means parc is faster; the issue's target for the serial ratio is at most 1.2, for the parallel one at most 1."
        );

        if self.entries.iter().any(|e| e.original.is_some()) {
            let _ = writeln!(
                out,
                "\n## Primal: the ports against the original applications\n"
            );
            let mut t = Table::new(&[
                "program".to_string(),
                "arguments".into(),
                "original".into(),
                "original 1t".into(),
                "parc-1w".into(),
                "parc-1w / original".into(),
                format!("original {w}t"),
                format!("parc-{w}w"),
                format!("parc-{w}w / original {w}t"),
                format!("speedup original 1t/{w}t"),
                format!("speedup parc 1w/{w}w"),
            ]);
            for e in self.entries.iter().filter(|e| e.original.is_some()) {
                let n = &e.name;
                let m = |c| self.med(n, Mode::Primal, c);
                t.row([
                    n.clone(),
                    format!("`{}`", e.primal_args.join(" ")),
                    e.original
                        .as_ref()
                        .map(|p| format!("`{}`", p.display()))
                        .unwrap_or_default(),
                    self.cell(n, Mode::Primal, Config::Orig1),
                    self.cell(n, Mode::Primal, Config::Parc1),
                    ratio_text(ratio(m(Config::Parc1), m(Config::Orig1))),
                    self.cell(n, Mode::Primal, Config::OrigN),
                    self.cell(n, Mode::Primal, Config::ParcN),
                    ratio_text(ratio(m(Config::ParcN), m(Config::OrigN))),
                    ratio_text(ratio(m(Config::Orig1), m(Config::OrigN))),
                    ratio_text(ratio(m(Config::Parc1), m(Config::ParcN))),
                ]);
            }
            out.push_str(&t.render());
            let _ = writeln!(
                out,
                "\nMedians in ms, the same time source as the first table. Every run of an original printed what the port's oracle printed, less the lines its `bench-original-volatile` directives name (the thread count; at {w} threads, sums its OpenMP build adds in another order). A ratio below 1 means the port built by parc is faster than the original."
            );
        }

        if !figures.overhead.is_empty() {
            let _ = writeln!(out, "\n## Gradients: overhead and speedup\n");
            let mut t = Table::new(&[
                "program".to_string(),
                "gradient arguments".into(),
                "time".into(),
                "primal 1w".into(),
                "grad 1w".into(),
                "T_grad/T_primal 1w".into(),
                format!("primal {w}w"),
                format!("grad {w}w"),
                format!("T_grad/T_primal {w}w"),
                format!("speedup primal 1w/{w}w"),
                format!("speedup grad 1w/{w}w"),
            ]);
            for e in self.entries.iter().filter(|e| e.grad_args.is_some()) {
                let n = &e.name;
                let m = |mode, c| self.med(n, mode, c);
                let primal_speedup = if e.grad_primal_time.is_some() {
                    ratio(
                        self.paired_primal(e, Config::Parc1),
                        self.paired_primal(e, Config::ParcN),
                    )
                } else {
                    ratio(
                        m(Mode::Primal, Config::Parc1),
                        m(Mode::Primal, Config::ParcN),
                    )
                };
                t.row([
                    n.clone(),
                    format!("`{}`", e.args(Mode::Grad).join(" ")),
                    source(e, Mode::Grad),
                    self.grad_primal_cell(e, Config::Parc1),
                    self.cell(n, Mode::Grad, Config::Parc1),
                    ratio_text(self.overhead(e, Config::Parc1)),
                    self.grad_primal_cell(e, Config::ParcN),
                    self.cell(n, Mode::Grad, Config::ParcN),
                    ratio_text(self.overhead(e, Config::ParcN)),
                    ratio_text(primal_speedup),
                    ratio_text(ratio(
                        m(Mode::Grad, Config::Parc1),
                        m(Mode::Grad, Config::ParcN),
                    )),
                ]);
            }
            out.push_str(&t.render());
            let _ = writeln!(
                out,
                "\nWhere a program times its own primal inside the gradient run (`bench-grad-primal-time`: the ports), the primal columns here are that primal, on the gradient run's arguments, and T_grad/T_primal is the median of the per-run ratios (the two times of one process); otherwise the two modes' medians, whose arguments may differ (see each program's `bench-grad-args`). Targets (issue 24): overhead at most 3; the gradient's speedup within 10% of the primal's."
            );
        }

        let _ = writeln!(out, "\n## Memory: peak resident set (MiB)\n");
        let mut t = Table::new(&[
            "program",
            "original 1t",
            "gcc",
            "parc-1w primal",
            "parc-1w grad",
            "grad / primal",
        ]);
        for e in &self.entries {
            let n = &e.name;
            let p = self.peak_rss(n, Mode::Primal, Config::Parc1);
            let g = self.peak_rss(n, Mode::Grad, Config::Parc1);
            t.row([
                n.clone(),
                mib(self.peak_rss(n, Mode::Primal, Config::Orig1)),
                mib(self.peak_rss(n, Mode::Primal, Config::Gcc)),
                mib(p),
                mib(g),
                ratio_text(ratio(g.map(|x| x as f64), p.map(|x| x as f64))),
            ]);
        }
        out.push_str(&t.render());
        let _ = writeln!(
            out,
            "\nThe largest peak over the repetitions (`wait4`'s `ru_maxrss`): the gradient's includes its tape. Where the gradient runs on other arguments than the primal (see the gradient table), the two peaks are of different problems."
        );
        if !self.failures.is_empty() {
            let _ = writeln!(out, "\n## FAILURES\n");
            for f in &self.failures {
                let _ = writeln!(out, "- {}", f.replace('\n', "\n  "));
            }
        }
        out
    }

    pub(super) fn csv(&self) -> String {
        let mut out = String::from(
            "program,mode,config,threads,status,reps,median_s,min_s,max_s,median_wall_s,max_rss_kib,arguments\n",
        );
        for e in &self.entries {
            for mode in e.modes() {
                for config in e.configs(mode) {
                    let Some(s) = self.results.get(&(e.name.clone(), mode, config)) else {
                        continue;
                    };
                    let status = if s.failure.is_some() { "failed" } else { "ok" };
                    let num = |x: Option<f64>| x.map(|v| format!("{v:.6}")).unwrap_or_default();
                    let min = s.times.iter().copied().reduce(f64::min);
                    let max = s.times.iter().copied().reduce(f64::max);
                    let _ = writeln!(
                        out,
                        "{},{},{},{},{},{},{},{},{},{},{},\"{}\"",
                        e.name,
                        mode.label(),
                        config.label(self.workers),
                        config.threads(self.workers),
                        status,
                        s.times.len(),
                        num(median(&s.times)),
                        num(min),
                        num(max),
                        num(median(&s.wall)),
                        s.rss
                            .iter()
                            .max()
                            .map(|k| k.to_string())
                            .unwrap_or_default(),
                        e.args(mode).join(" ").replace('"', "\"\""),
                    );
                }
            }
        }
        out
    }

    pub(super) fn json(&self, meta: serde_json::Value, figures: &Figures) -> serde_json::Value {
        use serde_json::json;
        let mut runs = Vec::new();
        for e in &self.entries {
            for mode in e.modes() {
                for config in e.configs(mode) {
                    let Some(s) = self.results.get(&(e.name.clone(), mode, config)) else {
                        continue;
                    };
                    runs.push(json!({
                        "program": e.name,
                        "source": e.path.display().to_string(),
                        "mode": mode.label(),
                        "config": config.label(self.workers),
                        "threads": config.threads(self.workers),
                        "arguments": e.args(mode),
                        "time_source": e.time_line(mode).unwrap_or("process"),
                        "times_s": s.times,
                        "wall_s": s.wall,
                        "max_rss_kib": s.rss,
                        "failure": s.failure,
                    }));
                }
            }
        }
        let pairs = |v: &[(String, Option<f64>, Option<f64>)], a: &str, b: &str| {
            v.iter()
                .map(|(n, x, y)| json!({ "program": n, a: x, b: y }))
                .collect::<Vec<_>>()
        };
        json!({
            "meta": meta,
            "runs": runs,
            "figures": {
                "parc_vs_gcc": pairs(&figures.vs_gcc, "serial", "parallel"),
                "gradient_overhead": pairs(&figures.overhead, "one_worker", "n_workers"),
                "speedup": figures.speedup.iter().map(|(n, p, g, c)| json!({
                    "program": n, "parc_primal": p, "parc_grad": g, "gcc": c,
                })).collect::<Vec<_>>(),
            },
            "failures": self.failures,
        })
    }
}
