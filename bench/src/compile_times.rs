//! Table 5: compile times of parc at each level against gcc and clang on
//! the same sources, and parc's time per pass (`--time-passes`).

use crate::harness::{Harness, Tools};
use crate::report::{median, parse_time_passes};
use crate::{excerpt, run_process};
use std::collections::HashMap;

/// Compile times: medians of whole `parc build` / `gcc` processes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum CompileJob {
    ParcExe,
    ParcObj,
    ParcObjO0,
    GccExe,
    GccObj,
    ClangObj,
    ClangObjO0,
}

impl CompileJob {
    pub(crate) fn command(self, tools: &Tools, src: &str, out: &str) -> Vec<String> {
        let s = |x: &str| x.to_string();
        match self {
            CompileJob::ParcExe => vec![
                tools.parc.display().to_string(),
                s("build"),
                s("--O2"),
                s(src),
                s("-o"),
                s(out),
            ],
            CompileJob::ParcObj => vec![
                tools.parc.display().to_string(),
                s("build"),
                s("--O2"),
                s("--emit"),
                s("obj"),
                s(src),
                s("-o"),
                s(out),
            ],
            CompileJob::GccExe => {
                let mut v = vec![tools.cc.clone()];
                v.extend(
                    [
                        "-O2",
                        "-fwrapv",
                        "-include",
                        "include/parc.h",
                        "-x",
                        "c",
                        src,
                        "-lm",
                    ]
                    .map(String::from),
                );
                v.extend([s("-o"), s(out)]);
                v
            }
            CompileJob::ParcObjO0 => vec![
                tools.parc.display().to_string(),
                s("build"),
                s("--O0"),
                s("--emit"),
                s("obj"),
                s(src),
                s("-o"),
                s(out),
            ],
            CompileJob::GccObj | CompileJob::ClangObj | CompileJob::ClangObjO0 => {
                let (cc, level) = match self {
                    CompileJob::GccObj => (&tools.cc, "-O2"),
                    CompileJob::ClangObj => (&tools.clang, "-O2"),
                    _ => (&tools.clang, "-O0"),
                };
                let mut v = vec![cc.clone()];
                v.extend(
                    [
                        level,
                        "-fwrapv",
                        "-include",
                        "include/parc.h",
                        "-x",
                        "c",
                        "-c",
                        src,
                    ]
                    .map(String::from),
                );
                v.extend([s("-o"), s(out)]);
                v
            }
        }
    }
}

/// (pass, median seconds), in the order parc prints them.
type PassTimes = Vec<(String, f64)>;

pub(crate) struct CompileTimes {
    pub(crate) times: HashMap<(String, CompileJob), Result<Vec<f64>, String>>,
    /// The file broken down by pass, and median seconds per pass (in the
    /// order parc prints them).
    pub(crate) passes: Option<(String, Result<PassTimes, String>)>,
}

pub(crate) fn time_compiles(h: &mut Harness) -> CompileTimes {
    let mut times: HashMap<(String, CompileJob), Result<Vec<f64>, String>> = HashMap::new();
    let jobs = [
        CompileJob::ParcExe,
        CompileJob::ParcObj,
        CompileJob::ParcObjO0,
        CompileJob::GccExe,
        CompileJob::GccObj,
        CompileJob::ClangObj,
        CompileJob::ClangObjO0,
    ];
    eprintln!("parc-bench: compile times");
    for _ in 0..h.reps {
        for p in &h.programs {
            for job in jobs {
                if p.kernels
                    && matches!(
                        job,
                        CompileJob::GccExe
                            | CompileJob::GccObj
                            | CompileJob::ClangObj
                            | CompileJob::ClangObjO0
                    )
                {
                    continue;
                }
                let key = (p.name.clone(), job);
                if matches!(times.get(&key), Some(Err(_))) {
                    continue;
                }
                let out = h.scratch.join(format!("compile-{}-{job:?}", p.name));
                let argv = job.command(&h.tools, &p.path, &out.display().to_string());
                let r = match run_process(&argv, &h.root, &[], h.timeout) {
                    Ok(f) if f.success() => Ok(f.wall),
                    Ok(f) => Err(format!("{} failed: {}", argv.join(" "), excerpt(&f.stderr))),
                    Err(e) => Err(e),
                };
                match r {
                    Ok(secs) => {
                        if let Ok(v) = times.entry(key).or_insert_with(|| Ok(Vec::new())) {
                            v.push(secs);
                        }
                    }
                    Err(e) => {
                        h.failures.push(format!("compile time, {}: {e}", p.name));
                        times.insert(key, Err(e));
                    }
                }
            }
        }
    }
    // per-pass breakdown of the largest file
    let passes = h.programs.iter().max_by_key(|p| p.bytes).map(|p| {
        let out = h.scratch.join("compile-passes");
        let mut argv = CompileJob::ParcExe.command(&h.tools, &p.path, &out.display().to_string());
        argv.insert(3, "--time-passes".into());
        let mut per_pass: Vec<(String, Vec<f64>)> = Vec::new();
        let mut error = None;
        for _ in 0..h.reps {
            match run_process(&argv, &h.root, &[], h.timeout) {
                Ok(f) if f.success() => {
                    for (pass, secs) in parse_time_passes(&f.stderr) {
                        match per_pass.iter_mut().find(|(n, _)| *n == pass) {
                            Some((_, v)) => v.push(secs),
                            None => per_pass.push((pass, vec![secs])),
                        }
                    }
                }
                Ok(f) => {
                    error = Some(format!("{} failed: {}", argv.join(" "), excerpt(&f.stderr)));
                    break;
                }
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        let result = match error {
            Some(e) => {
                h.failures.push(format!("--time-passes on {}: {e}", p.name));
                Err(e)
            }
            None => Ok(per_pass
                .into_iter()
                .map(|(n, v)| (n, median(&v).unwrap_or(f64::NAN)))
                .collect()),
        };
        (p.path.clone(), result)
    });
    CompileTimes { times, passes }
}
