//! The programs of a suite run and how each is run: its directives
//! (`// bench-args:`, `// bench-grad-args:`, `// volatile:`, ...), the
//! options that name programs (`--original NAME=EXE`, `--args`), and the
//! set chosen (samples, ports, files on the command line).

use super::{Config, Mode, PORTS, SuiteArgs};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One program of the suite.
pub(super) struct Entry {
    /// The name in the tables (`lulesh`, `samples/fib`, a user file's stem).
    pub(super) name: String,
    /// The source, absolute.
    pub(super) path: PathBuf,
    pub(super) primal_args: Vec<String>,
    pub(super) grad_args: Option<Vec<String>>,
    pub(super) primal_time: Option<String>,
    pub(super) grad_time: Option<String>,
    /// The gradient run's line timing its own primal (see the module doc).
    pub(super) grad_primal_time: Option<String>,
    pub(super) volatile: Vec<String>,
    /// gcc can build it (no kernels) and its primal run needs no AD.
    pub(super) gcc: bool,
    /// `parc build`'s flags for the oracle (`// bench-oracle:`, default
    /// `--O0 --serial`).
    pub(super) oracle_flags: Vec<String>,
    /// The original application's executable (`--original`).
    pub(super) original: Option<PathBuf>,
    /// Lines of the original's output left out of its verification, at
    /// any number of threads and at more than one.
    pub(super) original_volatile: Vec<String>,
    pub(super) original_parallel_volatile: Vec<String>,
    /// The original's flag that takes its thread count.
    pub(super) original_threads_flag: Option<String>,
}

impl Entry {
    pub(super) fn args(&self, mode: Mode) -> &[String] {
        match mode {
            Mode::Primal => &self.primal_args,
            Mode::Grad => self.grad_args.as_deref().unwrap_or(&[]),
        }
    }

    pub(super) fn time_line(&self, mode: Mode) -> Option<&str> {
        match mode {
            Mode::Primal => self.primal_time.as_deref(),
            Mode::Grad => self.grad_time.as_deref(),
        }
    }

    pub(super) fn modes(&self) -> Vec<Mode> {
        let mut m = vec![Mode::Primal];
        if self.grad_args.is_some() {
            m.push(Mode::Grad);
        }
        m
    }

    /// The timed configurations of a mode.
    pub(super) fn configs(&self, mode: Mode) -> Vec<Config> {
        match mode {
            Mode::Primal => {
                let mut c = Vec::new();
                if self.original.is_some() {
                    c.extend([Config::Orig1, Config::OrigN]);
                }
                if self.gcc {
                    c.extend([Config::Gcc, Config::GccOmp]);
                }
                c.extend([Config::Parc1, Config::ParcN]);
                c
            }
            Mode::Grad => vec![Config::Parc1, Config::ParcN],
        }
    }

    /// The lines left out of a run's verification beyond `volatile`.
    pub(super) fn extra_volatile(&self, config: Config) -> Vec<String> {
        match config {
            Config::Orig1 => self.original_volatile.clone(),
            Config::OrigN => [&self.original_volatile, &self.original_parallel_volatile]
                .into_iter()
                .flatten()
                .cloned()
                .collect(),
            _ => Vec::new(),
        }
    }

    pub(super) fn oracle(&self, mode: Mode) -> Config {
        if mode == Mode::Primal && self.gcc {
            Config::Gcc
        } else {
            Config::ParcOracle
        }
    }
}

/// The text of the header directive `// KEY:` (the test suites' rule).
pub(super) fn directive_text(source: &str, key: &str) -> Option<String> {
    parc_testkit::directive(source, key)
}

pub(super) fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

/// The prefixes of a `PREFIX | PREFIX` directive.
pub(super) fn prefixes(text: Option<String>) -> Vec<String> {
    text.map(|v| {
        v.split('|')
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect()
    })
    .unwrap_or_default()
}

/// `NAME=VALUE` options (`--original`, `--args`) by name.
pub(super) fn named_values(
    option: &str,
    values: &[String],
) -> Result<HashMap<String, String>, String> {
    let mut map = HashMap::new();
    for v in values {
        let Some((name, value)) = v.split_once('=') else {
            return Err(format!(
                "--{option} {v}: expected NAME=VALUE (a program's name in the tables)"
            ));
        };
        if map.insert(name.to_string(), value.to_string()).is_some() {
            return Err(format!("--{option} names `{name}` twice"));
        }
    }
    Ok(map)
}

/// `args` with the value after `flag` set to `threads` (the flag and the
/// value appended if `args` has no such flag).
pub(super) fn with_threads(args: &[String], flag: &str, threads: usize) -> Vec<String> {
    let mut out = args.to_vec();
    match out.iter().position(|a| a == flag) {
        Some(i) if i + 1 < out.len() => out[i + 1] = threads.to_string(),
        _ => out.extend([flag.to_string(), threads.to_string()]),
    }
    out
}

fn load_entry(name: String, path: PathBuf, quick: bool) -> Result<Entry, String> {
    let source = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let get = |key: &str| directive_text(&source, key);
    let pick = |quick_key: &str, key: &str| {
        if quick {
            get(quick_key).or_else(|| get(key))
        } else {
            get(key)
        }
    };
    let primal_args = pick("bench-quick-args", "bench-args")
        .or_else(|| get("args"))
        .map(|a| words(&a))
        .unwrap_or_default();
    let grad_args = pick("bench-grad-quick-args", "bench-grad-args").map(|a| words(&a));
    let code: String = source
        .lines()
        .map(|l| l.split_once("//").map_or(l, |(code, _)| code))
        .collect::<Vec<_>>()
        .join("\n");
    let kernels = code.contains("__global__");
    let ad = code.contains("__enzyme_autodiff");
    Ok(Entry {
        name,
        path,
        primal_args,
        // a program computes its gradient in a mode of its own, or (no
        // directive) wherever it calls the AD: then its primal run is it
        gcc: !kernels && (!ad || grad_args.is_some()),
        grad_args,
        primal_time: get("bench-time"),
        grad_time: get("bench-grad-time"),
        grad_primal_time: get("bench-grad-primal-time"),
        volatile: prefixes(get("volatile")),
        oracle_flags: words(&get("bench-oracle").unwrap_or_else(|| "--O0 --serial".into())),
        original: None,
        original_volatile: prefixes(get("bench-original-volatile")),
        original_parallel_volatile: prefixes(get("bench-original-parallel-volatile")),
        original_threads_flag: get("bench-original-threads-flag"),
    })
}

/// The suite's programs, in the order the options and files name them.
pub(super) fn load_entries(root: &Path, args: &SuiteArgs) -> Result<Vec<Entry>, String> {
    let mut entries = Vec::new();
    if args.ports {
        for p in PORTS {
            let path = root.join("samples").join(p).join(format!("{p}.pc"));
            entries.push(load_entry(p.to_string(), path, args.quick)?);
        }
    }
    if args.samples {
        let dir = root.join("samples");
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "pc"))
            .collect();
        paths.sort();
        for path in paths {
            let stem = path.file_stem().unwrap_or_default().to_string_lossy();
            entries.push(load_entry(
                format!("samples/{stem}"),
                path.clone(),
                args.quick,
            )?);
        }
    }
    for file in &args.files {
        let path = std::path::absolute(file).unwrap_or_else(|_| file.clone());
        if !path.is_file() {
            return Err(format!("{}: no such file", file.display()));
        }
        let stem = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        entries.push(load_entry(stem, path, args.quick)?);
    }
    if entries.is_empty() {
        return Err("nothing to run: name programs, or pass --ports or --samples".into());
    }
    let originals = named_values("original", &args.originals)?;
    let primal = named_values("args", &args.primal_args)?;
    let grad = named_values("grad-args", &args.grad_args)?;
    for (option, map) in [
        ("original", &originals),
        ("args", &primal),
        ("grad-args", &grad),
    ] {
        if let Some(name) = map.keys().find(|n| !entries.iter().any(|e| &e.name == *n)) {
            return Err(format!(
                "--{option} {name}=...: no program `{name}` in this run (programs: {})",
                entries
                    .iter()
                    .map(|e| e.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    for e in &mut entries {
        if let Some(exe) = originals.get(&e.name) {
            let exe = PathBuf::from(exe);
            if !exe.is_file() {
                return Err(format!(
                    "--original {}={}: no such file",
                    e.name,
                    exe.display()
                ));
            }
            e.original = Some(std::path::absolute(&exe).unwrap_or(exe));
        }
        if let Some(a) = primal.get(&e.name) {
            e.primal_args = words(a);
        }
        if let Some(a) = grad.get(&e.name) {
            if e.grad_args.is_none() {
                return Err(format!(
                    "--grad-args {}=...: the program has no gradient mode (`// bench-grad-args:`)",
                    e.name
                ));
            }
            e.grad_args = Some(words(a));
        }
    }
    let mut seen = HashMap::new();
    for e in &entries {
        if let Some(other) = seen.insert(e.name.clone(), e.path.clone()) {
            return Err(format!(
                "two programs named `{}` ({} and {}): rename one",
                e.name,
                other.display(),
                e.path.display()
            ));
        }
    }
    Ok(entries)
}
