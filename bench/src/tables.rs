//! The Markdown report of tables 1–6: legend, configurations, and each
//! table from the harness's samples.

use crate::compile_times::{CompileJob, CompileTimes};
use crate::configs::{Build, Config, Size};
use crate::harness::{Harness, Program, Tools, ratio_cell};
use crate::rayon_peer::RayonTimes;
use crate::report::{
    Align, Table, fmt_ms, fmt_ratio, geomean, median, ns_per_spawn, spawn_count, verdict,
};
use crate::{
    Cli, MIN_PARALLEL_SECS, SPREAD_NOTE, WORKERS, cpu_model, grad, loadavg, probe, scaling,
};
use std::fmt::Write as _;
use std::path::PathBuf;

/// The report, in Markdown.
pub(crate) fn render(
    h: &Harness,
    cli: &Cli,
    rayon: Option<&Result<RayonTimes, String>>,
    compile: &CompileTimes,
    grad: &grad::GradResults,
    scaling: &scaling::ScalingResults,
) -> String {
    let mut md = String::new();
    let w = &mut md;
    let _ = writeln!(w, "# parc benchmarks\n");
    let dirty = probe(&["git", "status", "--porcelain"]).lines().count();
    let _ = writeln!(
        w,
        "- date: {}\n- machine: {} CPUs (`nproc`), {}; load average (1/5/15 min) at start {}, at end {}\n- parc: `{}` at git {}{}\n- C compilers: {}; {}\n- {} repetitions of every configuration{}{}; times are medians of whole processes (wall clock, start to exit), ratios are of medians from this run only\n",
        probe(&["date", "-u", "+%Y-%m-%d %H:%M:%S UTC"]),
        probe(&["nproc"]),
        cpu_model(),
        h.load_start,
        loadavg(),
        h.tools.parc.display(),
        probe(&["git", "rev-parse", "--short", "HEAD"]),
        if dirty > 0 {
            format!(" (+{dirty} uncommitted changes in the tree)")
        } else {
            String::new()
        },
        probe(&[&h.tools.cc, "--version"])
            .lines()
            .next()
            .unwrap_or("?"),
        probe(&[&h.tools.clang, "--version"])
            .lines()
            .next()
            .unwrap_or("?"),
        h.reps,
        if grad.is_empty() || grad.reps == h.reps {
            String::new()
        } else {
            format!(
                " of tables 1-6, {} of the gradients' (tables 7-9)",
                grad.reps
            )
        },
        if cli.quick {
            " (--quick: small sizes, a smoke test of the harness, not a measurement)"
        } else {
            ""
        },
    );

    if !h.programs.is_empty() {
        render_main(w, h, rayon, compile);
    }
    if !grad.is_empty() {
        grad.render(w);
    }
    if !scaling.is_empty() {
        scaling.render(w);
    }

    // ---- failures ------------------------------------------------------------
    if h.failures.is_empty() {
        let _ = writeln!(
            w,
            "All runs printed the expected output; no build or run failed."
        );
    } else {
        let _ = writeln!(w, "## FAILURES\n\n```");
        for f in &h.failures {
            let _ = writeln!(w, "{f}");
        }
        let _ = writeln!(w, "```");
    }
    md
}

/// The tables of the programs in `bench/programs` (1–6).
fn render_main(
    w: &mut String,
    h: &Harness,
    rayon: Option<&Result<RayonTimes, String>>,
    compile: &CompileTimes,
) {
    // ---- legend -------------------------------------------------------------
    let _ = writeln!(w, "## Configurations\n");
    let _ = writeln!(
        w,
        "`B` is `bench/programs/B.pc`, `ARGS` its arguments (below). Commands run in the workspace root; `PARC` is the parc above.\n"
    );
    let legend_tools = Tools {
        parc: PathBuf::from("PARC"),
        cc: h.tools.cc.clone(),
        clang: h.tools.clang.clone(),
        enzyme: Err(String::new()),
    };
    let mut legend = Table::new(&["config", "build", "run"]).with_align(&[Align::Left; 3]);
    for c in Config::ALL {
        let cmd = c
            .build()
            .command(
                &legend_tools,
                "bench/programs/B.pc",
                &format!("B.{}", c.build().suffix()),
            )
            .join(" ");
        let run = format!(
            "PARC_NUM_THREADS={n} OMP_NUM_THREADS={n} ./B.{} ARGS",
            c.build().suffix(),
            n = c.threads()
        );
        legend.row([
            format!("`{}`", c.label()),
            format!("`{cmd}`"),
            format!("`{run}`"),
        ]);
    }
    let oracle = Build::ParcO0Serial
        .command(&legend_tools, "bench/programs/B.pc", "B.O0serial")
        .join(" ");
    legend.row([
        "oracle (kernels)".to_string(),
        format!("`{oracle}`"),
        "`PARC_NUM_THREADS=1 ./B.O0serial ARGS`".to_string(),
    ]);
    let _ = writeln!(w, "{}", legend.render());
    for p in &h.programs {
        if let Some(peer) = &p.omp_peer {
            let cmd = Build::omp_peer_command(&legend_tools, peer, &format!("{}.omp", p.name));
            let _ = writeln!(
                w,
                "`gcc-omp2` of {name} builds `{peer}` instead, {name}.pc written with OpenMP tasks (a task per spawn, a taskwait per sync; the prelude cannot make `x = spawn f(a);` a task): `{cmd}`.\n",
                name = p.name,
                cmd = cmd.join(" "),
            );
        }
    }
    let _ = writeln!(
        w,
        "Every run's stdout must equal the `gcc` run's stdout (for programs with kernels, which gcc cannot build, the `oracle` run's), or the harness fails.\n"
    );
    let mut sizes = Table::new(&["benchmark", "kind", "lines", "ARGS"]).with_align(&[
        Align::Left,
        Align::Left,
        Align::Right,
        Align::Left,
    ]);
    for p in &h.programs {
        let mut args = p.args.join(" ");
        if let Some(half) = &p.half_args {
            args.push_str(&format!(" (and {} for growth)", half.join(" ")));
        }
        sizes.row([p.name.clone(), p.kind().into(), p.lines.to_string(), args]);
    }
    let _ = writeln!(w, "{}", sizes.render());

    let names: Vec<&str> = h.programs.iter().map(|p| p.name.as_str()).collect();
    let gcc_progs: Vec<&Program> = h.programs.iter().filter(|p| !p.kernels).collect();
    let parallel_progs: Vec<&Program> = h
        .programs
        .iter()
        .filter(|p| p.parallel_for || p.spawns || p.kernels)
        .collect();
    let m = Size::Main;

    // ---- 1. serial ----------------------------------------------------------
    let _ = writeln!(
        w,
        "## 1. Serial: parc -O2 --serial (1 worker) vs gcc -O2 and clang -O2\n\nTargets (issues): parc within 1.2x of gcc, geometric mean; within 1.1x of the faster of gcc and clang (`best`) on every program, geometric mean ≤ 1.0.\n"
    );
    let mut t = Table::new(&[
        "benchmark",
        "gcc -O2 (ms)",
        "clang -O2 (ms)",
        "parc --serial (ms)",
        "parc/gcc",
        "parc/clang",
        "parc/best",
        "≤ 1.1",
    ]);
    // per program: parc/gcc, parc/clang, parc/best
    let mut ratios: Vec<[Option<f64>; 3]> = Vec::new();
    for p in &gcc_progs {
        let parc = h.med(&p.name, Config::Serial, m);
        let gcc = h.med(&p.name, Config::Gcc, m);
        let clang = h.med(&p.name, Config::Clang, m);
        let best = match (gcc, clang) {
            (Some(g), Some(c)) => Some(g.min(c)),
            _ => None,
        };
        let (rg, rgv) = ratio_cell(parc, gcc);
        let (rc, rcv) = ratio_cell(parc, clang);
        let (rb, rbv) = ratio_cell(parc, best);
        ratios.push([rgv, rcv, rbv]);
        t.row([
            p.name.clone(),
            h.cell(&p.name, Config::Gcc, m),
            h.cell(&p.name, Config::Clang, m),
            h.cell(&p.name, Config::Serial, m),
            rg,
            rc,
            rb,
            rbv.map(|r| verdict(r, 1.1, false).to_string())
                .unwrap_or_default(),
        ]);
    }
    if !gcc_progs.is_empty() {
        // normalize measures LICM (an O(n²) -> O(n) change) rather than code
        // quality, so the geomean is also given without it
        let mut geo = |label: &str, skip: Option<&str>| {
            let of = |k: usize| {
                let picked: Vec<Option<f64>> = gcc_progs
                    .iter()
                    .zip(&ratios)
                    .filter(|(p, _)| Some(p.name.as_str()) != skip)
                    .map(|(_, r)| r[k])
                    .collect();
                let all: Vec<f64> = picked.iter().flatten().copied().collect();
                (all.len() == picked.len()).then(|| geomean(&all)).flatten()
            };
            let cell = |g: Option<f64>| g.map(fmt_ratio).unwrap_or_else(|| "-".into());
            let best = of(2);
            t.row([
                label.to_string(),
                String::new(),
                String::new(),
                String::new(),
                cell(of(0)),
                cell(of(1)),
                cell(best),
                best.map(|g| verdict(g, 1.0, false).to_string())
                    .unwrap_or_default(),
            ]);
        };
        geo("**geomean** (≤ 1.0)", None);
        if gcc_progs.len() > 1 && gcc_progs.iter().any(|p| p.name == "normalize") {
            geo("geomean without normalize", Some("normalize"));
        }
    }
    let _ = writeln!(w, "{}", t.render());
    if names.contains(&"kernel") {
        let _ = writeln!(
            w,
            "kernel: gcc and clang cannot build kernels; see tables 3 and 6.\n"
        );
    }

    // ---- 2. parallel --------------------------------------------------------
    let _ = writeln!(
        w,
        "## 2. Parallel: parc -O2 at {WORKERS} workers vs gcc -O2 -fopenmp at {WORKERS} threads\n\nTarget: parc at least as fast (ratio ≤ 1.0). {SPREAD_NOTE}\n"
    );
    let mut t = Table::new(&[
        "benchmark",
        "gcc -fopenmp (ms)",
        "parc (ms)",
        "parc/gcc",
        "≤ 1.0",
        "note",
    ])
    .with_align(&[
        Align::Left,
        Align::Right,
        Align::Right,
        Align::Right,
        Align::Right,
        Align::Left,
    ]);
    for p in gcc_progs.iter().filter(|p| p.parallel_for || p.spawns) {
        let (r, rv) = ratio_cell(
            h.med(&p.name, Config::Par2, m),
            h.med(&p.name, Config::Omp2, m),
        );
        let r = r + &h.spread(&p.name, Config::Par2, Config::Omp2, m);
        let note = match &p.omp_peer {
            Some(peer) => format!("gcc: OpenMP tasks, `{peer}`"),
            None if p.spawns && !p.parallel_for => {
                "gcc runs the serial projection (spawn = call): no parallelism on its side".into()
            }
            None => String::new(),
        };
        t.row([
            p.name.clone(),
            h.cell(&p.name, Config::Omp2, m),
            h.cell(&p.name, Config::Par2, m),
            r,
            rv.map(|r| verdict(r, 1.0, false).to_string())
                .unwrap_or_default(),
            note,
        ]);
    }
    let _ = writeln!(w, "{}", t.render());
    if names.contains(&"kernel") {
        let _ = writeln!(
            w,
            "kernel: no gcc build (kernels); parc only, in tables 3 and 6.\n"
        );
    }

    // ---- 3. work efficiency and speedup ---------------------------------------
    let _ = writeln!(
        w,
        "## 3. Work efficiency T_S/T_1 and {WORKERS}-worker speedup T_1/T_2 (parc -O2)\n\nT_S: `--serial` build (the serial elision: spawn = call, parallel_for = for); T_1, T_2: the parallel build at 1 and 2 workers. Targets (issue): T_S/T_1 ≥ 0.97 on parallel_for code; T_1/T_2 ≥ 1.8 on the parallel_for benchmarks (kernel launches run their blocks as parallel_for iterations, so kernel is held to it too). {SPREAD_NOTE}\n"
    );
    let mut t = Table::new(&[
        "benchmark",
        "T_S (ms)",
        "T_1 (ms)",
        "T_2 (ms)",
        "T_S/T_1",
        "≥ 0.97",
        "T_1/T_2",
        "≥ 1.8",
    ]);
    for p in &parallel_progs {
        let (ts, t1, t2) = (
            h.med(&p.name, Config::Serial, m),
            h.med(&p.name, Config::Par1, m),
            h.med(&p.name, Config::Par2, m),
        );
        let (eff, effv) = ratio_cell(ts, t1);
        let (sp, spv) = ratio_cell(t1, t2);
        let eff = eff + &h.spread(&p.name, Config::Serial, Config::Par1, m);
        let sp = sp + &h.spread(&p.name, Config::Par1, Config::Par2, m);
        // A run this short is mostly process start-up: its ratios say
        // nothing about the parallel code.
        let too_short = t1.is_some_and(|t| t < MIN_PARALLEL_SECS);
        let eff_verdict = if too_short {
            "(too short)".to_string()
        } else if p.parallel_for && !p.spawns && !p.kernels {
            effv.map(|r| verdict(r, 0.97, true).to_string())
                .unwrap_or_default()
        } else {
            "(n/a)".to_string()
        };
        let speedup_verdict = if too_short {
            "(too short)".to_string()
        } else if p.parallel_for || p.kernels {
            spv.map(|r| verdict(r, 1.8, true).to_string())
                .unwrap_or_default()
        } else {
            "(n/a)".to_string()
        };
        t.row([
            p.name.clone(),
            h.cell(&p.name, Config::Serial, m),
            h.cell(&p.name, Config::Par1, m),
            h.cell(&p.name, Config::Par2, m),
            eff,
            eff_verdict,
            sp,
            speedup_verdict,
        ]);
    }
    let _ = writeln!(w, "{}", t.render());
    let _ = writeln!(
        w,
        "(n/a): both targets are for parallel_for code; fib's T_S/T_1 is its spawn overhead and its T_1/T_2 is in table 4. (too short): T_1 under {} ms, mostly process start-up (normalize, once `mag()` is hoisted, is O(n) at a size chosen for gcc's O(n²)), so neither ratio measures the parallel code.\n",
        MIN_PARALLEL_SECS * 1000.0
    );

    // ---- 4. spawn cost -------------------------------------------------------
    let _ = writeln!(w, "## 4. Spawn cost: fib(n) with a spawn at every level\n");
    let fib_n = h
        .program("fib")
        .and_then(|p| p.args.first()?.parse::<u32>().ok());
    let mut t = Table::new(&[
        "implementation",
        "fib with spawn (ms)",
        "serial fib (ms)",
        "spawns",
        "ns per spawn",
        "speedup vs 1 worker",
    ])
    .with_align(&[
        Align::Left,
        Align::Right,
        Align::Right,
        Align::Right,
        Align::Right,
        Align::Right,
    ]);
    if let Some(n) = fib_n {
        let spawns = spawn_count(n);
        let ns = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => ns_per_spawn(a, b, spawns)
                .map(|x| format!("{x:.1}"))
                .unwrap_or_default(),
            _ => "-".into(),
        };
        let has_serial = h.program("fib_serial").is_some();
        let ser_cell = |c: Config| {
            if has_serial {
                h.cell("fib_serial", c, m)
            } else {
                "-".into()
            }
        };
        let (p1, p2, ps) = (
            h.med("fib", Config::Par1, m),
            h.med("fib", Config::Par2, m),
            h.med("fib_serial", Config::Par1, m),
        );
        t.row([
            "parc -O2, 1 worker (fib.pc vs fib_serial.pc)".to_string(),
            h.cell("fib", Config::Par1, m),
            ser_cell(Config::Par1),
            spawns.to_string(),
            ns(p1, ps),
            String::new(),
        ]);
        t.row([
            format!("parc -O2, {WORKERS} workers"),
            h.cell("fib", Config::Par2, m),
            ser_cell(Config::Par1),
            spawns.to_string(),
            String::new(),
            ratio_cell(p1, p2).0,
        ]);
        t.row([
            "parc -O2 --serial fib.pc (serial elision)".to_string(),
            h.cell("fib", Config::Serial, m),
            ser_cell(Config::Par1),
            "0".to_string(),
            String::new(),
            String::new(),
        ]);
        match rayon {
            Some(Ok(r)) => {
                t.row([
                    "rust rayon_core::join, 1-thread pool".to_string(),
                    fmt_ms(r.join1),
                    fmt_ms(r.serial),
                    spawns.to_string(),
                    ns(Some(r.join1), Some(r.serial)),
                    String::new(),
                ]);
                t.row([
                    format!("rust rayon_core::join, {WORKERS}-thread pool"),
                    fmt_ms(r.join2),
                    fmt_ms(r.serial),
                    spawns.to_string(),
                    String::new(),
                    ratio_cell(Some(r.join1), Some(r.join2)).0,
                ]);
            }
            Some(Err(e)) => {
                t.row(["rayon".to_string(), format!("**FAILED**: {e}")]);
            }
            None => {}
        }
        t.row([
            "gcc -O2 (serial projection of fib.pc)".to_string(),
            h.cell("fib", Config::Gcc, m),
            ser_cell(Config::Gcc),
            "0".to_string(),
            String::new(),
            String::new(),
        ]);
        if let Some(peer) = h.program("fib").and_then(|p| p.omp_peer.as_ref()) {
            t.row([
                format!("gcc -O2 -fopenmp, OpenMP tasks (`{peer}`), {WORKERS} threads"),
                h.cell("fib", Config::Omp2, m),
                ser_cell(Config::Gcc),
                spawns.to_string(),
                String::new(),
                String::new(),
            ]);
        }
        let _ = writeln!(
            w,
            "n = {n}; spawns = calls with n ≥ 2 = fib(n+1) − 1 = {spawns}. ns per spawn = (T_spawn − T_serial) / spawns, on 1 worker/thread. parc and gcc times are whole processes (start-up included on both sides of the difference); rayon is timed in-process (after a warm-up run).\n"
        );
        let _ = writeln!(w, "{}", t.render());
    } else {
        let _ = writeln!(w, "(fib not run)\n");
    }

    // ---- 5. compile time -----------------------------------------------------
    let _ = writeln!(
        w,
        "## 5. Compile time (median of {} runs of each compiler process)\n",
        h.reps
    );
    let ct = |prog: &str, job: CompileJob| -> (String, Option<f64>) {
        match compile.times.get(&(prog.to_string(), job)) {
            Some(Ok(v)) => match median(v) {
                Some(x) => (fmt_ms(x), Some(x)),
                None => ("-".into(), None),
            },
            Some(Err(_)) => ("**FAILED**".into(), None),
            None => ("n/a".into(), None),
        }
    };
    let mut t = Table::new(&[
        "file",
        "lines",
        "parc build -O2 exe (ms)",
        "gcc -O2 exe (ms)",
        "parc/gcc",
        "parc --emit obj (ms)",
        "gcc -O2 -c (ms)",
        "parc/gcc",
    ]);
    for p in &h.programs {
        let (pe, pev) = ct(&p.name, CompileJob::ParcExe);
        let (ge, gev) = ct(&p.name, CompileJob::GccExe);
        let (po, pov) = ct(&p.name, CompileJob::ParcObj);
        let (go, gov) = ct(&p.name, CompileJob::GccObj);
        t.row([
            p.path.clone(),
            p.lines.to_string(),
            pe,
            ge,
            ratio_cell(pev, gev).0,
            po,
            go,
            ratio_cell(pov, gov).0,
        ]);
    }
    let _ = writeln!(w, "{}", t.render());
    let _ = writeln!(
        w,
        "Exe columns include linking (parc links the runtime library with `cc`); obj columns are the compilers alone.\n"
    );
    let mut t = Table::new(&[
        "file",
        "parc -O0 --emit obj (ms)",
        "clang -O0 -c (ms)",
        "parc/clang",
        "parc -O2 --emit obj (ms)",
        "clang -O2 -c (ms)",
        "parc/clang",
    ]);
    for p in h.programs.iter().filter(|p| !p.kernels) {
        let (p0, p0v) = ct(&p.name, CompileJob::ParcObjO0);
        let (c0, c0v) = ct(&p.name, CompileJob::ClangObjO0);
        let (p2, p2v) = ct(&p.name, CompileJob::ParcObj);
        let (c2, c2v) = ct(&p.name, CompileJob::ClangObj);
        t.row([
            p.path.clone(),
            p0,
            c0,
            ratio_cell(p0v, c0v).0,
            p2,
            c2,
            ratio_cell(p2v, c2v).0,
        ]);
    }
    let _ = writeln!(
        w,
        "Against clang (objects, `-include include/parc.h -x c`, as for gcc):\n\n{}",
        t.render()
    );
    if let Some((file, passes)) = &compile.passes {
        let _ = writeln!(
            w,
            "Per-pass breakdown, `parc build --O2 --time-passes {file}` (median of {} runs):\n",
            h.reps
        );
        match passes {
            Ok(passes) => {
                let mut t = Table::new(&["pass", "ms"]);
                for (pass, secs) in passes {
                    t.row([pass.clone(), format!("{:.3}", secs * 1e3)]);
                }
                let total: f64 = passes.iter().map(|(_, s)| s).sum();
                t.row(["**total**".to_string(), format!("{:.3}", total * 1e3)]);
                let _ = writeln!(w, "{}", t.render());
            }
            Err(e) => {
                let _ = writeln!(w, "**FAILED**: {e}\n");
            }
        }
    }

    // ---- 6. optimization levels ------------------------------------------------
    let _ = writeln!(
        w,
        "## 6. Optimization levels: parc -O0/-O1/-O2 ({WORKERS} workers) vs gcc -O2 -fopenmp ({WORKERS} threads)\n"
    );
    let mut t = Table::new(&[
        "benchmark",
        "gcc -fopenmp (ms)",
        "parc -O0 (ms)",
        "parc -O1 (ms)",
        "parc -O2 (ms)",
        "O0/gcc",
        "O1/gcc",
        "O2/gcc",
    ]);
    for p in &h.programs {
        let gcc = h.med(&p.name, Config::Omp2, m);
        let r = |c: Config| {
            if p.kernels {
                "n/a".to_string()
            } else {
                ratio_cell(h.med(&p.name, c, m), gcc).0
            }
        };
        t.row([
            p.name.clone(),
            if p.kernels {
                "n/a (kernels)".to_string()
            } else {
                h.cell(&p.name, Config::Omp2, m)
            },
            h.cell(&p.name, Config::O0Par2, m),
            h.cell(&p.name, Config::O1Par2, m),
            h.cell(&p.name, Config::Par2, m),
            r(Config::O0Par2),
            r(Config::O1Par2),
            r(Config::Par2),
        ]);
    }
    let _ = writeln!(w, "{}", t.render());
    if let Some(p) = h.program("normalize").filter(|p| p.half_args.is_some()) {
        let half = p.args(Size::Half).join(" ");
        let full = p.args(Size::Main).join(" ");
        let _ = writeln!(
            w,
            "normalize growth: time at n = {full} over time at n = {half}. ≈ 4 means O(n²) (mag() recomputed in every iteration); ≈ 2 or less means O(n) (mag() hoisted; at these sizes an O(n) run is mostly process start-up, so the factor can be near 1).\n"
        );
        let mut t = Table::new(&[
            "configuration",
            &format!("n = {half} (ms)"),
            &format!("n = {full} (ms)"),
            "growth",
            "complexity",
        ]);
        for (label, c) in [
            (format!("parc -O0, {WORKERS} workers"), Config::O0Par2),
            (format!("parc -O1, {WORKERS} workers"), Config::O1Par2),
            (format!("parc -O2, {WORKERS} workers"), Config::Par2),
            ("gcc -O2 (serial)".to_string(), Config::Gcc),
        ] {
            let (g, gv) = ratio_cell(h.med(&p.name, c, Size::Main), h.med(&p.name, c, Size::Half));
            let complexity = match gv {
                Some(x) if x >= 3.0 => "O(n²)",
                Some(_) => "O(n)",
                None => "",
            };
            t.row([
                label,
                h.cell(&p.name, c, Size::Half),
                h.cell(&p.name, c, Size::Main),
                g,
                complexity.to_string(),
            ]);
        }
        let _ = writeln!(w, "{}", t.render());
    }
}
