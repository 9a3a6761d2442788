//! `parc`: the command line. Parsing arguments, reading files and choosing
//! exit statuses happen here; everything else is in the library
//! (`parc::compile`) and the crates it drives.
//!
//! Exit statuses: 0 success; 1 a malformed program, a bad command line or a
//! run-time error in the interpreted program; for `run`, otherwise the
//! program's own exit status; 101 an internal compiler error.
//!
//! Length (over 1,400 lines): the first half or so defines the command
//! line (clap structures, one per group of flags, each flag with its gcc
//! spelling and its help text, which `parc --help` prints); the rest are
//! the commands, each reading its flags from those structures. `cc.rs`,
//! `parc cc`'s gcc-style parsing, is already apart; the flag definitions
//! would be the next part to move into a module of their own.

mod archive;
mod cc;

use clap::{ArgAction, Args, Parser, Subcommand, ValueEnum};
use parc::{CompileError, Options};
use parc_cpu::{BackendError, OutputKind};
use parc_ir::OptLevel;
use parc_opt::remarks::Style;
use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::num::NonZeroU64;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The compiler allocates and frees many small vectors per function and
/// pass (CFG edges, operand lists, side tables); on a module of thousands
/// of functions glibc's `malloc` spends much of the compile time in its
/// slow path (`_int_malloc`) sorting its bins. mimalloc's per-size free
/// lists make those allocations cheap. It serves the compiler's own
/// allocations only: programs that `parc run` JITs allocate through the
/// runtime's `parc_rt_malloc` (libc), as executables do.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "parc",
    version,
    about = "A research compiler for ParC: C with spawn/sync/parallel_for, GPU kernels and parallel reverse-mode AD",
    long_about = "parc compiles ParC (C99 with spawn, sync, parallel_for and CUDA-style kernels) through \
                  parir, a Tapir-style parallel IR. Language reference: docs/LANGUAGE.md."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and type-check a program; print diagnostics, produce nothing.
    Check {
        /// The ParC source file (`.pc`), or parir text (`.pir`: read and
        /// verified).
        file: PathBuf,
        /// Check a library (what `build --emit lib` compiles): `main` is
        /// not required.
        #[arg(long)]
        lib: bool,
        #[command(flatten)]
        pp: PpArgs,
        #[command(flatten)]
        gcc: GccArgs,
        #[command(flatten)]
        diag: DiagArgs,
    },
    /// Compile and run a program; exits with the status of its `main`.
    Run(RunArgs),
    /// Compile a program to an output file.
    Build(BuildArgs),
    /// A drop-in for `cc` in a Makefile: gcc's options (`-c`, `-o`, `-O`,
    /// `-g`, `-D`, `-U`, `-I`, `-l`, `-L`, `-Wl,`, `-fopenmp`; warning,
    /// `-std=`, `-m`/`-f` code-generation and dependency options are
    /// accepted and do nothing), several files. `-c` writes parc objects
    /// (`--emit parc-obj`), which a later `parc cc -o prog *.o` links with
    /// native objects and archives into one program, optimized whole.
    #[command(disable_help_flag = true)]
    Cc {
        /// gcc's arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<OsString>,
    },
    /// Benchmark programs (the proxy-app ports, the samples, your own
    /// files), primal and gradient, against gcc: tables, CSV/JSON and SVG
    /// plots. Runs the harness `parc-bench` found beside this parc
    /// (`parc bench --help` lists its options; bench/README.md).
    #[command(disable_help_flag = true)]
    Bench {
        /// The harness's arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// The preprocessor's options, spelt as gcc and clang spell them.
#[derive(Args)]
struct PpArgs {
    /// Define macro NAME (as 1, or as VALUE); `-D NAME` or `-DNAME`.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    define: Vec<String>,
    /// Undefine macro NAME (`-D` and `-U` apply in the order given).
    #[arg(short = 'U', value_name = "NAME")]
    undef: Vec<String>,
    /// Search DIR for `#include` files, before the headers parc ships.
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,
    /// gcc's and clang's `-f` flags. `-fopenmp`: honour `#pragma omp`
    /// (parallel loops and regions) and define `_OPENMP`; without it the
    /// pragmas are ignored with a warning, as gcc runs them.
    /// `-fno-vectorize` (gcc: `-fno-tree-vectorize`): no loop vectorizer.
    /// `-ffast-math` (defines `__FAST_MATH__`) and `-fassociative-math`:
    /// float sums and products may be reassociated, so the vectorizer
    /// sums float reductions in lanes (results round differently);
    /// parc relaxes nothing else of IEEE arithmetic under them, and takes
    /// `-fno-signed-zeros` and `-fno-trapping-math`, which gcc wants
    /// beside `-fassociative-math`, as given (they change nothing here).
    /// `-fopt-info-vec` (`-optimized`, `-missed`, `-all`): gcc's remarks
    /// on the vectorized loops, the others, or both (see `--explain-vec`).
    /// The last of `-fX` and `-fno-X` wins.
    #[arg(short = 'f', value_name = "FEATURE", value_parser = [
        "openmp", "no-openmp",
        "fast-math", "no-fast-math", "associative-math", "no-associative-math",
        "signed-zeros", "no-signed-zeros", "trapping-math", "no-trapping-math",
        "vectorize", "no-vectorize", "tree-vectorize", "no-tree-vectorize",
        "opt-info-vec", "opt-info-vec-optimized", "opt-info-vec-missed", "opt-info-vec-all",
    ])]
    feature: Vec<String>,
    /// Every `-D` and `-U`, in command-line order (clap keeps each flag's
    /// values apart; `main` merges them by position).
    #[arg(skip)]
    in_order: Vec<parc_lang::pp::Define>,
}

impl PpArgs {
    /// Orders the `-D` and `-U` flags as they were given: `-DX -UX`
    /// leaves `X` undefined, `-UX -DX` defined, as in gcc.
    fn order(&mut self, matches: &clap::ArgMatches) {
        use parc_lang::pp::Define;
        let mut all: Vec<(usize, Define)> = Vec::new();
        for (id, make) in [
            ("define", Define::Set as fn(String) -> Define),
            ("undef", Define::Unset),
        ] {
            if let (Some(at), Some(values)) =
                (matches.indices_of(id), matches.get_many::<String>(id))
            {
                all.extend(at.zip(values.map(|v| make(v.clone()))));
            }
        }
        all.sort_by_key(|(at, _)| *at);
        self.in_order = all.into_iter().map(|(_, d)| d).collect();
    }

    fn options(&self) -> parc_lang::pp::Options {
        use parc_lang::pp::Define;
        let given = self.define.len() + self.undef.len();
        // gcc's predefined macro of `-ffast-math`, before the user's `-D`
        // and `-U`, which may undefine it.
        let fast_math = (self.last_of(&["fast-math"]) == Some(true))
            .then(|| Define::Set("__FAST_MATH__".to_string()));
        parc_lang::pp::Options {
            defines: fast_math
                .into_iter()
                .chain(if self.in_order.len() == given {
                    self.in_order.clone()
                } else {
                    (self.define.iter().cloned().map(Define::Set))
                        .chain(self.undef.iter().cloned().map(Define::Unset))
                        .collect()
                })
                .collect(),
            include_dirs: self.include.clone(),
            openmp: self.last_of(&["openmp"]).unwrap_or(false),
        }
    }

    /// Whether the last `-fX` or `-fno-X` of the names given was `-fX`
    /// (`None`: neither was given).
    fn last_of(&self, names: &[&str]) -> Option<bool> {
        self.feature.iter().rev().find_map(|f| {
            let (on, name) = match f.strip_prefix("no-") {
                Some(name) => (false, name),
                None => (true, f.as_str()),
            };
            names.contains(&name).then_some(on)
        })
    }

    /// What the optimizer may do.
    fn passes(&self) -> parc_opt::PassOptions {
        let defaults = parc_opt::PassOptions::default();
        parc_opt::PassOptions {
            vectorize: (self.last_of(&["vectorize", "tree-vectorize"]))
                .unwrap_or(defaults.vectorize),
            reassociate_floats: (self.last_of(&["fast-math", "associative-math"]))
                .unwrap_or(defaults.reassociate_floats),
        }
    }

    /// gcc's `-fopt-info-vec` remarks asked for.
    fn opt_info(&self) -> Vec<Style> {
        let has = |f: &str| self.feature.iter().any(|g| g == f);
        let mut styles = Vec::new();
        if has("opt-info-vec") || has("opt-info-vec-optimized") || has("opt-info-vec-all") {
            styles.push(Style::GccOptimized);
        }
        if has("opt-info-vec-missed") || has("opt-info-vec-all") {
            styles.push(Style::GccMissed);
        }
        styles
    }
}

#[derive(Args)]
struct DiagArgs {
    /// Colour diagnostics: auto (when stderr is a terminal), always or never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    /// Warnings about the program are errors: printed, then the command
    /// stops with status 1 (gcc's `-Werror`, which is spelt so too).
    #[arg(long)]
    werror: bool,
    /// No warnings about the program are printed (gcc's `-w`, which is
    /// spelt so too).
    #[arg(long)]
    no_warnings: bool,
}

/// What becomes of the warnings of the program being compiled (`-w`,
/// `-Werror`): set by each command before it compiles.
static WARNINGS: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);
const WARNINGS_PRINTED: u8 = 0;
const WARNINGS_ERRORS: u8 = 1;
const WARNINGS_NONE: u8 = 2;

impl DiagArgs {
    /// Makes this command's `-w` / `-Werror` the one [`warnings_out`]
    /// follows (`-w` wins, as in gcc, where no warning is left to fail).
    fn set_warnings(&self) {
        let mode = if self.no_warnings {
            WARNINGS_NONE
        } else if self.werror {
            WARNINGS_ERRORS
        } else {
            WARNINGS_PRINTED
        };
        WARNINGS.store(mode, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Prints the rendered warnings about the program, unless `-w`; under
/// `-Werror`, any warning ends the command with status 1.
fn warnings_out(warnings: &str) -> Result<(), ExitCode> {
    match WARNINGS.load(std::sync::atomic::Ordering::Relaxed) {
        WARNINGS_NONE => Ok(()),
        WARNINGS_ERRORS if !warnings.is_empty() => {
            eprint!("{warnings}");
            Err(fail("warnings are errors (`-Werror`)"))
        }
        _ => {
            eprint!("{warnings}");
            Ok(())
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl DiagArgs {
    fn color(&self) -> bool {
        match self.color {
            ColorChoice::Auto => std::io::stderr().is_terminal(),
            ColorChoice::Always => true,
            ColorChoice::Never => false,
        }
    }
}

/// gcc's and clang's `-O` and `-g`, on every command (`parc check` takes
/// them and optimizes nothing, as `gcc -fsyntax-only` does).
#[derive(Args)]
struct GccArgs {
    /// Optimization level, as gcc spells it: `-O0`; `-O1` (also `-O` and
    /// `-Og`); `-O2`, the default (also `-Os` and `-Oz`: parc has no
    /// size-tuned pipeline); `-O3` (also `-Ofast`, which adds
    /// `-ffast-math` as in gcc when it is the last `-O`, written as one
    /// word). The last one given wins.
    #[arg(short = 'O', value_name = "LEVEL", value_parser = parse_opt_level, action = ArgAction::Append)]
    opt_level: Vec<OptLevel>,
    /// Accepted as gcc spells it (`-g`, `-g3`, `-ggdb`; `-g0` is no `-g`):
    /// parc emits no debug information yet, and says so.
    #[arg(short = 'g')]
    debug: bool,
    /// Link with library LIB (`-lLIB`, as gcc spells it): executables and
    /// shared libraries are linked with it; `parc run` has the C library's
    /// own (`-lm`, `-lpthread`, `-ldl`, `-lrt`, `-lc`) already and refuses
    /// others; `parc check` ignores it.
    #[arg(short = 'l', value_name = "LIB", action = ArgAction::Append)]
    libs: Vec<String>,
    /// Search DIR for `-l` libraries (`-LDIR`) when linking.
    #[arg(short = 'L', value_name = "DIR", action = ArgAction::Append)]
    lib_dirs: Vec<PathBuf>,
    /// clang's optimization remarks, to stderr: `-Rpass=REGEX` for what
    /// passes whose name REGEX matches did, `-Rpass-missed=REGEX` (and
    /// `-Rpass-analysis=REGEX`) for what they did not do and why. parc's
    /// one pass with remarks is the loop vectorizer, `loop-vectorize` as
    /// clang names it (see `--explain-vec`); `parc check` ignores them.
    #[arg(short = 'R', value_name = "pass=REGEX", value_parser = parse_remark_flag, action = ArgAction::Append)]
    remarks: Vec<RemarkFlag>,
    /// Given to the linker as is (`parc cc`'s `-Wl,...`).
    #[arg(long = "link-arg", hide = true, value_name = "ARG", action = ArgAction::Append)]
    linker: Vec<String>,
    /// Native objects and archives among the inputs, linked as given.
    #[arg(skip)]
    objects: Vec<PathBuf>,
}

/// One `-Rpass...=REGEX`.
#[derive(Clone, Debug)]
struct RemarkFlag {
    /// `pass-missed` or `pass-analysis`, not `pass`.
    missed: bool,
    passes: regex::Regex,
}

/// The name clang gives its loop vectorizer, which `-R` flags match.
const VECTORIZER_NAME: &str = "loop-vectorize";

/// `-Rpass=REGEX`, `-Rpass-missed=REGEX`, `-Rpass-analysis=REGEX`.
fn parse_remark_flag(text: &str) -> Result<RemarkFlag, String> {
    let (kind, pattern) = text.split_once('=').ok_or_else(|| {
        format!(
            "expected `-Rpass=REGEX`, `-Rpass-missed=REGEX` or `-Rpass-analysis=REGEX` \
             (as in `-Rpass={VECTORIZER_NAME}`), found `-R{text}`"
        )
    })?;
    let missed = match kind {
        "pass" => false,
        "pass-missed" | "pass-analysis" => true,
        _ => {
            return Err(format!(
                "`-R{kind}`: parc knows `-Rpass=`, `-Rpass-missed=` and `-Rpass-analysis=` \
                 (as in `-Rpass={VECTORIZER_NAME}`)"
            ));
        }
    };
    let passes = regex::Regex::new(pattern).map_err(|e| {
        // The regex crate's message is several lines with the last the
        // reason.
        let e = e.to_string();
        let why = e
            .lines()
            .last()
            .unwrap_or_default()
            .trim_start_matches("error: ");
        format!("`-R{kind}={pattern}`: not a regular expression ({why})")
    })?;
    Ok(RemarkFlag { missed, passes })
}

/// The libraries every parc program is linked with (and the JIT has
/// loaded): `-l` of these asks for nothing more.
const SYSTEM_LIBS: [&str; 5] = ["m", "c", "pthread", "dl", "rt"];

impl GccArgs {
    fn level(&self) -> OptLevel {
        self.opt_level.last().copied().unwrap_or_default()
    }

    /// The linker's arguments for `-L` and `-l`, in that order.
    fn link_args(&self) -> Vec<String> {
        let objects = self.objects.iter().map(|o| o.display().to_string());
        let dirs = self.lib_dirs.iter().map(|d| format!("-L{}", d.display()));
        objects
            .chain(self.linker.iter().cloned())
            .chain(dirs)
            .chain(self.libs.iter().map(|l| format!("-l{l}")))
            .collect()
    }

    /// The `-l` libraries that the JIT of `parc run` does not have.
    fn refuse_libs_for_jit(&self) -> Result<(), ExitCode> {
        match self
            .libs
            .iter()
            .find(|l| !SYSTEM_LIBS.contains(&l.as_str()))
        {
            Some(lib) => Err(fail(&format!(
                "`-l{lib}`: `parc run` runs the program in this process, which has only the C \
                 library's own libraries (libm, libpthread, libdl, librt); build an executable \
                 with `parc build ... -l{lib}` and run that"
            ))),
            None => Ok(()),
        }
    }

    /// `-g`'s warning, once per command.
    fn warn(&self) {
        if self.debug {
            eprintln!(
                "parc: warning: `-g`: parc does not emit debug information (DWARF) yet; \
                 the output has none (`-O0` keeps frame pointers and each statement in order)"
            );
        }
    }
}

/// `-O LEVEL`: gcc's and clang's levels (see [`GccArgs`]).
fn parse_opt_level(text: &str) -> Result<OptLevel, String> {
    Ok(match text {
        "0" => OptLevel::O0,
        "1" | "g" => OptLevel::O1,
        "2" | "s" | "z" => OptLevel::O2,
        "3" | "fast" => OptLevel::O3,
        // gcc takes any larger number as -O3.
        n if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => OptLevel::O3,
        _ => {
            return Err(
                "expected 0, 1, 2, 3, s, z, g or fast, written after `-O` (as in `-O2`)".into(),
            );
        }
    })
}

/// Rewrites the spellings of gcc and clang that clap cannot take as they
/// are, before parsing: `-O` alone is `-O1`, parc's older `--O2` is
/// `-O2`, `-g0` is no `-g` and `-g3`, `-ggdb`, `-gdwarf-4`... are `-g`.
/// The program's arguments (after `--`) and `parc bench`'s (the
/// harness's own) are left alone.
fn gcc_spellings(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut out = Vec::new();
    let mut args = args.into_iter().peekable();
    // The program name, then the command.
    out.extend(args.next());
    if args.peek().is_some_and(|a| a == "bench") {
        out.extend(args);
        return out;
    }
    let args: Vec<OsString> = args.collect();
    out.extend(args.first().cloned());
    // gcc's `-Ofast` is `-O3 -ffast-math` when it is the last `-O`; an
    // explicit `-fno-fast-math` anywhere still wins, as in gcc, so the
    // implied flag goes first.
    let options = args.iter().skip(1).take_while(|a| *a != "--");
    let last_level = options
        .filter_map(|a| a.to_str())
        .filter(|a| a.starts_with("-O") || a.starts_with("--O"))
        .last();
    if last_level == Some("-Ofast") {
        out.push("-ffast-math".into());
    }
    let mut args = args.into_iter().skip(1);
    for arg in args.by_ref() {
        let Some(text) = arg.to_str() else {
            out.push(arg);
            continue;
        };
        if text == "--" {
            out.push(arg);
            break;
        }
        match text {
            "-O" => out.push("-O1".into()),
            "-Werror" => out.push("--werror".into()),
            "-w" => out.push("--no-warnings".into()),
            "-g0" => {}
            t if t.starts_with("--O") => out.push(t[1..].into()),
            t if t.starts_with("-g") && t.len() > 2 && !t.starts_with("-g=") => {
                out.push("-g".into())
            }
            _ => out.push(arg),
        }
    }
    out.extend(args);
    out
}

#[derive(Args)]
struct OptArgs {
    #[command(flatten)]
    gcc: GccArgs,
    /// Verify the IR after every optimization pass, and Cranelift's IR of
    /// every function before the CPU backend compiles it.
    #[arg(long)]
    verify_each: bool,
    /// Print the IR to stderr after the named pass (`lower` for the
    /// unoptimized IR, `ad` for right after differentiation, `prepare` for
    /// after the final stage that shapes loops for the backend, `all` for
    /// after every pass).
    #[arg(long, value_name = "PASS")]
    dump_after: Option<String>,
    /// Print how long lowering and each pass took, to stderr.
    #[arg(long)]
    time_passes: bool,
    /// Print the passes' statistics counters, to stderr.
    #[arg(long)]
    stats: bool,
    /// Print what the loop vectorizer did to each loop, to stderr, as
    /// `file:line:col: vectorized: ...` or `file:line:col: not
    /// vectorized: why [reason]` lines in source order (clang:
    /// `-Rpass=loop-vectorize -Rpass-missed=loop-vectorize`; gcc:
    /// `-fopt-info-vec-all`).
    #[arg(long)]
    explain_vec: bool,
}

impl OptArgs {
    fn level(&self) -> OptLevel {
        self.gcc.level()
    }

    /// The remarks asked for (`--explain-vec`, `-R`, `-fopt-info-vec`),
    /// each style once.
    fn remark_styles(&self, pp: &PpArgs) -> Vec<Style> {
        let mut styles = Vec::new();
        if self.explain_vec {
            styles.push(Style::Parc);
        }
        for r in &self.gcc.remarks {
            if r.passes.is_match(VECTORIZER_NAME) {
                styles.push(if r.missed {
                    Style::ClangMissed
                } else {
                    Style::ClangPassed
                });
            }
        }
        styles.extend(pp.opt_info());
        let mut unique = Vec::new();
        for s in styles {
            if !unique.contains(&s) {
                unique.push(s);
            }
        }
        unique
    }

    fn options(&self, color: bool, ad: &AdArgs) -> Options {
        Options {
            opt_level: self.level(),
            color,
            verify_each: self.verify_each,
            dump_after: self.dump_after.clone(),
            time_passes: self.time_passes,
            stats: self.stats,
            grad: Vec::new(),
            ad_before_opt: ad.ad_before_opt,
            ad_task_tape_headers: ad.ad_no_flat_tapes,
            ad_checkpoint: ad.checkpoint(),
            serial: false,
            library: false,
            gpu: false,
            pp: parc_lang::pp::Options::default(),
            passes: parc_opt::PassOptions::default(),
        }
    }
}

#[derive(Args)]
struct AdArgs {
    /// Differentiate the IR straight from lowering, then optimize once
    /// (the default is Enzyme's order: optimize, differentiate, optimize).
    #[arg(long)]
    ad_before_opt: bool,
    /// Print how the AD accumulates each adjoint in parallel code
    /// (local, disjoint, reduction or atomic, and why), to stderr, as
    /// `file:line:col: class: reason` lines in source order.
    #[arg(long)]
    explain_ad: bool,
    /// Print what each gradient records on its tape, to stderr: every
    /// recorded value with its source position, its bytes per execution
    /// and in all (in the program's names, e.g. `8·(n - 2)·steps`), and
    /// why it is recorded rather than recomputed.
    #[arg(long)]
    explain_tape: bool,
    /// Ablation: keep a tape header (24 bytes) per iteration of every
    /// parallel loop, even where the iterations' records have fixed places
    /// in one buffer (tasks without loops or calls). For measuring what
    /// the default saves (`--explain-tape` shows the bytes).
    #[arg(long)]
    ad_no_flat_tapes: bool,
    /// Checkpoint the time loops of each requested gradient function (its
    /// outermost serial loops around loops): a snapshot every N
    /// iterations, each segment run again and recorded in the reverse.
    /// Refused, with the reason, at a loop whose writes cannot be bounded.
    #[arg(long, value_name = "N", value_parser = parse_grain)]
    checkpoint: Option<NonZeroU64>,
    /// Checkpoint the serial loops whose tape would exceed BYTES (a
    /// number, or with a K, M or G suffix: powers of 1024). Not
    /// implemented yet: refused at the first loop whose tape is not known
    /// to fit (`--explain-tape` lists the candidates).
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes, conflicts_with = "checkpoint")]
    tape_budget: Option<u64>,
}

impl AdArgs {
    fn checkpoint(&self) -> Option<parc_ad::checkpoint::Request> {
        use parc_ad::checkpoint::Request;
        match (self.checkpoint, self.tape_budget) {
            (Some(n), _) => Some(Request::Every(n.get())),
            (None, Some(b)) => Some(Request::Budget(b)),
            (None, None) => None,
        }
    }
}

/// `--tape-budget BYTES`: `4096`, `64K`, `512M`, `2G`.
fn parse_bytes(text: &str) -> Result<u64, String> {
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => text.split_at(i),
        None => (text, ""),
    };
    let scale: u64 = match unit {
        "" => 1,
        "K" | "k" => 1 << 10,
        "M" | "m" => 1 << 20,
        "G" | "g" => 1 << 30,
        _ => {
            return Err(format!(
                "unknown unit `{unit}`: use K, M or G (powers of 1024)"
            ));
        }
    };
    let bytes = digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| {
            format!("expected a number of bytes such as 4096, 64K, 512M or 2G, not `{text}`")
        })?;
    // A budget of nothing would refuse every gradient that records at
    // all; that is a typo, not a request.
    if bytes == 0 {
        return Err(
            "a tape budget of 0 bytes holds no record: give at least one iteration's records \
             (`--explain-tape` lists each loop's bytes per iteration), e.g. 64K"
                .to_string(),
        );
    }
    Ok(bytes)
}

#[derive(Args)]
struct TapirArgs {
    /// Compile the serial elision: every `spawn` a plain call, every `sync`
    /// a no-op, every `parallel_for` an ordinary loop, before the optimizer
    /// and the AD run (the program gcc compiles through `include/parc.h`).
    /// No task is spawned (kernel launches still run on the runtime): the
    /// serial baseline T_S, and an oracle for parallel runs.
    #[arg(long)]
    serial: bool,
    /// Iterations per chunk of a parallel loop, at least 1 (default: chosen
    /// at run time from the trip count and the number of workers).
    #[arg(long, value_name = "N", conflicts_with = "serial", value_parser = parse_grain)]
    grain: Option<NonZeroU64>,
}

/// `--grain N`: a chunk of at least one iteration.
fn parse_grain(text: &str) -> Result<NonZeroU64, String> {
    match text.parse::<u64>() {
        Ok(n) => NonZeroU64::new(n).ok_or_else(|| {
            "a chunk has at least 1 iteration; leave `--grain` out to let the runtime choose"
                .to_string()
        }),
        Err(e) => Err(format!("expected a positive whole number: {e}")),
    }
}

/// The CPU backend's options: the optimization level and the grain.
fn backend_options(tapir: &TapirArgs, opt: &OptArgs) -> parc_cpu::Options {
    parc_cpu::Options {
        opt_level: opt.level(),
        grain: tapir.grain,
        link_args: opt.gcc.link_args(),
        verify: opt.verify_each,
    }
}

fn ptx_options(arch: parc_ptx::GpuArch, opt: &OptArgs) -> parc_ptx::PtxOptions {
    parc_ptx::PtxOptions {
        arch,
        opt_level: opt.level(),
    }
}

#[derive(Args)]
struct RunArgs {
    /// Run in the reference interpreter (the serial projection, with every
    /// memory access checked) instead of compiling to native code.
    #[arg(long)]
    interp: bool,
    #[command(flatten)]
    device: DeviceArgs,
    #[command(flatten)]
    tapir: TapirArgs,
    #[command(flatten)]
    opt: OptArgs,
    #[command(flatten)]
    ad: AdArgs,
    #[command(flatten)]
    pp: PpArgs,
    #[command(flatten)]
    diag: DiagArgs,
    /// The program's source files (`.pc` or `.c`), compiled and linked
    /// into one program; or one file of parir text (`.pir`, as `--emit
    /// ir` writes it), which goes through the same optimizer and AD.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Arguments for the program's `main` (write them after `--`).
    #[arg(last = true)]
    args: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Emit {
    /// A native executable (the default).
    Exe,
    /// A native object file.
    Obj,
    /// A shared library with a C header.
    Lib,
    /// parir, the parallel IR, as text.
    Ir,
    /// PTX text for the program's kernels.
    Ptx,
    /// The control-flow graphs in Graphviz dot.
    Dot,
    /// A parc object (what `parc cc -c` writes): one source file, checked,
    /// as parir before optimization, with its source. `parc build` and
    /// `parc cc` link such objects with other files into one program, which
    /// is then optimized (and differentiated) whole, as clang's `-flto`
    /// objects are; the system's linker cannot read them.
    ParcObj,
}

#[derive(Args)]
struct BuildArgs {
    /// The program's source files (`.pc` or `.c`), compiled and linked
    /// into one program; or one file of parir text (`.pir`, as `--emit
    /// ir` writes it), which goes through the same optimizer and AD.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// What to produce.
    #[arg(long, value_enum, default_value_t = Emit::Exe)]
    emit: Emit,
    /// Compile to an object file, as gcc's `-c` (`--emit obj`).
    #[arg(short = 'c', conflicts_with = "emit")]
    compile_only: bool,
    /// Output path (default: the input's name with the emitted kind's
    /// extension; `-` for standard output where the output is text).
    #[arg(short = 'o', long = "output")]
    output: Option<PathBuf>,
    /// Export the reverse-mode gradient of function F as `grad_F`, with
    /// Enzyme's default activities: pointers duplicated (each followed by
    /// its shadow, into which gradients are added), `float`/`double`
    /// active (the gradient is returned), integers constant. Repeatable.
    #[arg(long = "grad", value_name = "F")]
    grad: Vec<String>,
    /// The GPU architecture of PTX output (`--emit ptx`, and the PTX an
    /// executable carries for its kernels).
    #[arg(long, value_enum, default_value_t = GpuArchArg::Sm70)]
    gpu_arch: GpuArchArg,
    #[command(flatten)]
    device: DeviceArgs,
    #[command(flatten)]
    tapir: TapirArgs,
    #[command(flatten)]
    opt: OptArgs,
    #[command(flatten)]
    ad: AdArgs,
    #[command(flatten)]
    pp: PpArgs,
    #[command(flatten)]
    diag: DiagArgs,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum DeviceArg {
    /// The GPU when one is found (an NVIDIA GPU of compute capability
    /// 7.0 or more, through the CUDA driver), the CPU otherwise.
    Auto,
    /// An NVIDIA GPU (an error if there is none).
    Gpu,
    /// The CPU.
    Cpu,
}

#[derive(Args)]
struct DeviceArgs {
    /// Where kernels run (`parc run`), or, for `parc build`, whether the
    /// executable carries its kernels' PTX for a GPU (`gpu`/`auto`: it
    /// then runs them on the GPU when one is found at run time, or as
    /// `PARC_DEVICE=gpu|cpu` says). Gradients of kernels are then made
    /// for a GPU's concurrent threads (right on the CPU too).
    #[arg(long, value_enum)]
    device: Option<DeviceArg>,
    /// Say on stderr which device runs the kernels, and why
    /// (`PARC_DEVICE_INFO=1` does the same for executables).
    #[arg(long)]
    device_info: bool,
}

impl DeviceArgs {
    /// True if the kernels are to be compiled for a GPU: asked for, or
    /// (`auto`, `parc run`'s default) a GPU is found.
    fn wants_gpu(&self, default: DeviceArg) -> Result<bool, ExitCode> {
        match self.device.unwrap_or(default) {
            DeviceArg::Cpu => Ok(false),
            DeviceArg::Gpu => Ok(true),
            DeviceArg::Auto => Ok(parc_runtime::cuda::probe().is_ok()),
        }
    }

    /// The PTX of `module`'s kernels put into it for the runtime, where
    /// the device is a GPU. Under `auto`, PTX the backend cannot emit
    /// leaves the kernels on the CPU (said with `--device-info`).
    fn attach(
        &self,
        gpu: bool,
        module: &mut parc_ir::Module,
        file: &Path,
        options: &parc_ptx::PtxOptions,
    ) -> Result<(), ExitCode> {
        if !gpu || !parc_ptx::has_kernels(module) {
            return Ok(());
        }
        match parc::emit_ptx(module, options, &file.display().to_string()) {
            Ok(text) => {
                parc::attach_ptx(module, &text);
                Ok(())
            }
            Err(err) if self.device == Some(DeviceArg::Gpu) => Err(report(err)),
            Err(err) => {
                if self.device_info {
                    eprint!("parc: the kernels stay on the CPU: {}", err.rendered);
                }
                Ok(())
            }
        }
    }

    /// Tells the runtime of this process (`parc run`) what was asked.
    fn configure_runtime(&self) {
        let device = match self.device {
            Some(DeviceArg::Gpu) => Some("gpu"),
            Some(DeviceArg::Cpu) => Some("cpu"),
            _ => None,
        };
        // SAFETY: set before the program starts its threads; the
        // compiler's own threads do not read the environment.
        unsafe {
            if let Some(d) = device {
                std::env::set_var("PARC_DEVICE", d);
            }
            if self.device_info {
                std::env::set_var("PARC_DEVICE_INFO", "1");
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum GpuArchArg {
    /// Volta and later (the default).
    #[value(name = "sm_70")]
    Sm70,
    /// Ampere and later.
    #[value(name = "sm_80")]
    Sm80,
    /// Hopper.
    #[value(name = "sm_90")]
    Sm90,
}

impl GpuArchArg {
    fn arch(self) -> parc_ptx::GpuArch {
        match self {
            GpuArchArg::Sm70 => parc_ptx::GpuArch::Sm70,
            GpuArchArg::Sm80 => parc_ptx::GpuArch::Sm80,
            GpuArchArg::Sm90 => parc_ptx::GpuArch::Sm90,
        }
    }
}

/// The compiler's phases walk the syntax tree recursively; the parser bounds
/// its depth (256 nested brackets, 10,000 operators in one expression), and
/// this stack is sized so that walks of trees within those bounds fit.
const COMPILER_STACK: usize = 256 << 20;

fn main() -> ExitCode {
    let argv: Vec<OsString> = std::env::args_os().collect();
    // `parc cc ARGS`: one `parc build` per output (see `cc.rs`).
    let commands = if argv.get(1).is_some_and(|a| a == "cc") {
        match cc::builds(&argv[2..]) {
            Ok(builds) => builds,
            Err(message) => return fail(&format!("cc: {message}")),
        }
    } else {
        vec![argv]
    };
    let mut clis = Vec::new();
    for argv in commands {
        match parse_cli(argv) {
            Ok(cli) => clis.push(cli),
            Err(code) => return code,
        }
    }
    let worker = std::thread::Builder::new()
        .name("parc".into())
        .stack_size(COMPILER_STACK)
        .spawn(move || {
            for cli in clis {
                let code = dispatch(cli);
                if code != ExitCode::SUCCESS {
                    return code;
                }
            }
            ExitCode::SUCCESS
        });
    match worker.map(|handle| handle.join()) {
        Ok(Ok(code)) => code,
        // A panic has already printed its message; it is parc's bug.
        Ok(Err(_)) => ExitCode::from(101),
        Err(e) => fail(&format!("cannot start the compiler thread: {e}")),
    }
}

/// Parses a command line (after [`gcc_spellings`]); `Err` after printing
/// clap's message (or help) with the status to exit with.
fn parse_cli(argv: Vec<OsString>) -> Result<Cli, ExitCode> {
    use clap::{CommandFactory, FromArgMatches};
    let parsed = Cli::command()
        .try_get_matches_from(gcc_spellings(argv))
        .and_then(|m| Cli::from_arg_matches(&m).map(|cli| (cli, m)));
    match parsed {
        Ok((mut cli, matches)) => {
            if let (Some((_, sub)), Some(pp)) = (matches.subcommand(), cli.command.pp_mut()) {
                pp.order(sub);
            }
            Ok(cli)
        }
        Err(e) => {
            let _ = e.print();
            // `--help` and `--version` succeed; a bad command line is the
            // user's error, status 1 as gcc and clang give it (clap's
            // default is 2).
            Err(ExitCode::from(if e.use_stderr() { 1 } else { 0 }))
        }
    }
}

impl Command {
    /// The preprocessor's options of a command that compiles source.
    fn pp_mut(&mut self) -> Option<&mut PpArgs> {
        match self {
            Command::Check { pp, .. } => Some(pp),
            Command::Run(args) => Some(&mut args.pp),
            Command::Build(args) => Some(&mut args.pp),
            Command::Bench { .. } | Command::Cc { .. } => None,
        }
    }
}

fn dispatch(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Check {
            file,
            lib,
            pp,
            gcc,
            diag,
        } => {
            gcc.warn();
            diag.set_warnings();
            check(&file, lib, &pp.options(), diag.color())
        }
        Command::Run(args) => {
            args.diag.set_warnings();
            run(args)
        }
        Command::Build(args) => {
            args.diag.set_warnings();
            build(args)
        }
        Command::Bench { args } => bench(&args),
        // `main` turns `parc cc` into `parc build` command lines.
        Command::Cc { .. } => fail("cc: nothing to do"),
    }
}

/// `parc bench ARGS`: `parc-bench suite --parc THIS_PARC ARGS`, the
/// harness beside this executable (cargo builds both into one folder).
fn bench(args: &[String]) -> ExitCode {
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return fail(&format!("cannot find this executable: {e}")),
    };
    let harness = exe.with_file_name("parc-bench");
    if !harness.is_file() {
        return fail(&format!(
            "`parc bench` runs the harness `parc-bench`, which is not beside this parc ({}); build it with `cargo build --release -p parc-bench`",
            harness.display()
        ));
    }
    let status = std::process::Command::new(&harness)
        .arg("suite")
        .arg("--parc")
        .arg(&exe)
        .args(args)
        .status();
    match status {
        Ok(s) => ExitCode::from(s.code().map_or(1, |c| c.clamp(0, 255) as u8)),
        Err(e) => fail(&format!("cannot run {}: {e}", harness.display())),
    }
}

/// Prints a message as parc's own error and returns status 1.
fn fail(message: &str) -> ExitCode {
    eprintln!("parc: error: {message}");
    ExitCode::from(1)
}

/// Prints a message as a bug of parc's and returns status 101.
fn internal(message: &str) -> ExitCode {
    eprintln!("parc: internal compiler error: {message}");
    ExitCode::from(101)
}

fn backend_failure(err: BackendError) -> ExitCode {
    match err {
        BackendError::Codegen(_) => internal(&err.to_string()),
        other => fail(&other.to_string()),
    }
}

fn report(err: CompileError) -> ExitCode {
    eprint!("{}", err.rendered);
    ExitCode::from(if err.internal { 101 } else { 1 })
}

fn read_source(path: &Path, color: bool) -> Result<String, ExitCode> {
    let bytes =
        std::fs::read(path).map_err(|e| fail(&format!("cannot read `{}`: {e}", path.display())))?;
    parc::decode_source(&path.display().to_string(), &bytes, color).map_err(report)
}

/// Refuses an `output` that is the `input` file itself (writing it would
/// destroy the input, as `parc build x.pir --emit ir` would by default).
fn not_the_input(output: &Path, input: &Path) -> Result<(), ExitCode> {
    match (std::fs::canonicalize(output), std::fs::canonicalize(input)) {
        (Ok(x), Ok(y)) if x == y => Err(fail(&format!(
            "the output `{}` is the input file; name another with `-o`",
            output.display()
        ))),
        _ => Ok(()),
    }
}

/// Refuses an output path that cannot be written, before any work is done
/// (the linker would say so only at the end, in its own words). A file
/// that is not there yet is created and removed again to find out.
fn writable(output: &Path) -> Result<(), ExitCode> {
    let cannot = |why: String| Err(fail(&format!("cannot write `{}`: {why}", output.display())));
    if output.is_dir() {
        return cannot("it is a directory".into());
    }
    let dir = match output.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return cannot(format!("there is no directory `{}`", dir.display()));
    }
    let existed = output.exists();
    match std::fs::OpenOptions::new()
        .write(true)
        .create(!existed)
        .truncate(false)
        .open(output)
    {
        Ok(_) if existed => Ok(()),
        Ok(_) => {
            let _ = std::fs::remove_file(output);
            Ok(())
        }
        Err(e) => cannot(e.to_string()),
    }
}

/// True for object files and archives (`.o`, `.a`, `.so`), which the
/// system linker would take but parc does not yet.
fn is_object(file: &Path) -> bool {
    file.extension()
        .is_some_and(|e| e == "o" || e == "a" || e == "so")
}

/// True for a parc object (`parc cc -c`): an object file that starts
/// with [`parc::PARC_OBJECT_MAGIC`].
fn is_parc_object(file: &Path) -> bool {
    use std::io::Read;
    let magic = parc::PARC_OBJECT_MAGIC.as_bytes();
    let mut head = vec![0; magic.len()];
    is_object(file)
        && std::fs::File::open(file)
            .and_then(|mut f| f.read_exact(&mut head))
            .is_ok()
        && head == magic
}

fn read_parc_object(file: &Path) -> Result<parc::ParcObject, ExitCode> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| fail(&format!("cannot read `{}`: {e}", file.display())))?;
    parc::read_parc_object(&text).map_err(|e| {
        fail(&format!(
            "`{}`: a damaged parc object ({e}); compile its source again with `parc cc -c`",
            file.display()
        ))
    })
}

/// `--emit parc-obj` (`parc cc -c`): one source file to a parc object.
fn parc_object(args: &BuildArgs) -> ExitCode {
    let [file] = args.files.as_slice() else {
        return fail("a parc object is made of one source file; compile each with its own `-c`");
    };
    if is_ir(file) || is_object(file) {
        return fail(&format!(
            "`{}`: a parc object is made of a source file (`.c`, `.pc`)",
            file.display()
        ));
    }
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(file.file_name().unwrap_or_default()).with_extension("o"));
    if let Err(code) = not_the_input(&output, file).and_then(|()| writable(&output)) {
        return code;
    }
    let options = Options {
        library: true,
        pp: args.pp.options(),
        ..args.opt.options(args.diag.color(), &args.ad)
    };
    let source = match read_source(file, options.color) {
        Ok(s) => s,
        Err(code) => return code,
    };
    match parc::parc_object(&file.display().to_string(), &source, &options) {
        Ok((object, warnings)) => {
            if let Err(code) = warnings_out(&warnings) {
                return code;
            }
            match std::fs::write(&output, object) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => fail(&format!("cannot write `{}`: {e}", output.display())),
            }
        }
        Err(e) => report(e),
    }
}

/// True for parir text (`.pir`), read by `parc_ir::read` instead of the
/// ParC front end.
fn is_ir(file: &Path) -> bool {
    file.extension().is_some_and(|e| e == "pir")
}

fn check(file: &Path, library: bool, pp: &parc_lang::pp::Options, color: bool) -> ExitCode {
    let source = match read_source(file, color) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let path = file.display().to_string();
    if is_ir(file) {
        return match parc::check_ir(&path, &source, color) {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => report(err),
        };
    }
    match parc::check(&path, &source, library, pp, color) {
        Ok(warnings) => match warnings_out(&warnings) {
            Ok(()) => ExitCode::SUCCESS,
            Err(code) => code,
        },
        Err(err) => report(err),
    }
}

fn compile(
    files: &[PathBuf],
    options: &Options,
    ad: &AdArgs,
    remarks: &[Style],
) -> Result<parc_ir::Module, ExitCode> {
    let file = &files[0];
    if files.len() > 1
        && let Some(other) = files.iter().find(|f| is_ir(f))
    {
        return Err(fail(&format!(
            "`{}`: parir text (`.pir`) is one whole module, compiled alone; \
             only source files (`.pc`, `.c`) make a program of several files",
            other.display()
        )));
    }
    if let Some(object) = files.iter().find(|f| is_object(f) && !is_parc_object(f)) {
        return Err(fail(&format!(
            "`{}` is a native object or archive: parc compiles source files (`.pc`, `.c`), \
             parc objects (`parc cc -c`) and parir text (`.pir`), and links native objects \
             into executables and libraries only",
            object.display()
        )));
    }
    if let Some(pass) = &options.dump_after
        && !matches!(pass.as_str(), "all" | "lower" | "ad" | "prepare")
        && parc_opt::pass_by_name(pass).is_none()
    {
        return Err(fail(&format!(
            "`--dump-after {pass}`: no such pass; the passes are: lower, ad, prepare, all, {}",
            parc_opt::passes::ALL
                .iter()
                .map(|(n, _)| *n)
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let path = file.display().to_string();
    let compiled = if is_ir(file) {
        let source = read_source(file, options.color)?;
        parc::compile_ir(&path, &source, options)
    } else if files.iter().any(|f| is_parc_object(f)) {
        let mut sources = Vec::new();
        let mut premade = Vec::new();
        for f in files {
            if is_parc_object(f) {
                let object = read_parc_object(f)?;
                sources.push((object.path, object.source));
                premade.push(Some((object.module, object.struct_decls)));
            } else {
                sources.push((f.display().to_string(), read_source(f, options.color)?));
                premade.push(None);
            }
        }
        parc::compile_linked(&sources, premade, options)
    } else {
        let mut sources = Vec::new();
        for f in files {
            sources.push((f.display().to_string(), read_source(f, options.color)?));
        }
        parc::compile_files(&sources, options)
    }
    .map_err(report)?;
    warnings_out(&compiled.warnings)?;
    if ad.explain_tape {
        match &compiled.ad_report {
            Some(r) => eprint!("{}", parc_ad::tape_report::explain(&path, &r.tapes)),
            None => eprintln!("{path}: no gradients to explain"),
        }
    }
    if ad.explain_ad {
        // Positions in IR refer to the ParC file it was made from.
        let at = match &compiled.module.source_name {
            Some(name) if is_ir(file) => name.clone(),
            _ => path.clone(),
        };
        match &compiled.ad_report {
            // Several files: each site under the file of its function.
            Some(r) if !r.sites.is_empty() && !compiled.file_of.is_empty() => {
                for f in files {
                    let name = f.display().to_string();
                    let sites: Vec<_> = (r.sites.iter())
                        .filter(|s| compiled.file_of.get(&s.function).unwrap_or(&path) == &name)
                        .cloned()
                        .collect();
                    if sites.is_empty() {
                        continue;
                    }
                    let report = parc_ad::AdReport {
                        sites,
                        ..Default::default()
                    };
                    if options.gpu {
                        eprint!("{}", parc::explain_ad_gpu(&name, &report, &compiled.module))
                    } else {
                        eprint!("{}", parc::explain_ad(&name, &report))
                    }
                }
            }
            Some(r) if !r.sites.is_empty() && options.gpu => {
                eprint!("{}", parc::explain_ad_gpu(&at, r, &compiled.module))
            }
            Some(r) if !r.sites.is_empty() => eprint!("{}", parc::explain_ad(&at, r)),
            Some(_) => eprintln!("{path}: the gradients accumulate only in serial code"),
            None => eprintln!("{path}: no gradients to explain"),
        }
        // Then each derivative's whole plan: activity, loops, tasks, what
        // the reverse records and recomputes, every accumulation decision.
        for text in compiled.ad_report.iter().flat_map(|r| &r.plans) {
            eprint!("{text}");
        }
    }
    if remarks.contains(&Style::Parc) {
        if options.opt_level.number() < 2 {
            eprintln!("{path}: the loop vectorizer runs at -O2 and -O3 only");
        } else if !options.passes.vectorize {
            eprintln!("{path}: the loop vectorizer is off (`-fno-vectorize`)");
        }
    }
    if !remarks.is_empty() {
        // Positions in IR refer to the ParC file it was made from.
        let at = match &compiled.module.source_name {
            Some(name) if is_ir(file) => name.clone(),
            _ => path.clone(),
        };
        eprint!("{}", parc::render_remarks(&compiled, &at, remarks));
    }
    Ok(compiled.module)
}

fn run(args: RunArgs) -> ExitCode {
    args.opt.gcc.warn();
    if !args.interp
        && let Err(code) = args.opt.gcc.refuse_libs_for_jit()
    {
        return code;
    }
    // The interpreter runs kernels itself.
    let gpu = match args.device.wants_gpu(DeviceArg::Auto) {
        Ok(g) => g && !args.interp,
        Err(code) => return code,
    };
    let options = Options {
        serial: args.tapir.serial,
        gpu,
        pp: args.pp.options(),
        passes: args.pp.passes(),
        ..args.opt.options(args.diag.color(), &args.ad)
    };
    let remarks = args.opt.remark_styles(&args.pp);
    let mut module = match compile(&args.files, &options, &args.ad, &remarks) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let mut argv = vec![args.files[0].display().to_string()];
    argv.extend(args.args);
    if !args.interp {
        if let Err(code) = args.device.attach(
            gpu,
            &mut module,
            &args.files[0],
            &ptx_options(parc_ptx::GpuArch::Sm70, &args.opt),
        ) {
            return code;
        }
        args.device.configure_runtime();
        let backend = backend_options(&args.tapir, &args.opt);
        return match parc_cpu::jit_run(module, &argv, &backend) {
            Ok(status) => ExitCode::from(status as u8),
            Err(err) => backend_failure(err),
        };
    }
    let config = parc_ir::interp::Config {
        args: argv,
        ad_stats: std::env::var_os("PARC_AD_STATS").is_some_and(|v| !v.is_empty() && v != "0"),
        ..parc_ir::interp::Config::default()
    };
    // Line buffering (what a locked stdout does) costs a system call per
    // line; programs that print a lot would spend their time there.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let result = parc_ir::interp::run_main(&module, &config, &mut out);
    let _ = out.flush();
    match result {
        // The OS keeps the low 8 bits of an exit status, as for a C program.
        Ok(status) => ExitCode::from(status as u8),
        // Worded as a natively compiled program reports it: the fault is
        // the program's, not parc's.
        Err(err) => {
            eprintln!("{err}");
            ExitCode::from(1)
        }
    }
}

/// `--emit ptx`: the kernels' PTX, to `-o` (default `FILE.ptx`; `-` for
/// standard output).
fn emit_ptx(module: &parc_ir::Module, args: &BuildArgs, output: &Path) -> ExitCode {
    if !parc_ptx::has_kernels(module) {
        return fail(&format!(
            "`{}` has no kernels (`__global__` functions): there is no PTX to emit",
            args.files[0].display()
        ));
    }
    let options = ptx_options(args.gpu_arch.arch(), &args.opt);
    let text = match parc::emit_ptx(module, &options, &args.files[0].display().to_string()) {
        Ok(text) => text,
        Err(err) => return report(err),
    };
    if output.as_os_str() == "-" {
        print!("{text}");
        return ExitCode::SUCCESS;
    }
    match std::fs::write(output, text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&format!("cannot write `{}`: {e}", output.display())),
    }
}

fn build(mut args: BuildArgs) -> ExitCode {
    args.opt.gcc.warn();
    if args.compile_only {
        args.emit = Emit::Obj;
    }
    // Archives of parc objects (given, or `-lfoo` found in a `-L`
    // folder) are opened; their objects are the program's inputs.
    let unpacked = match parc_archives(&mut args) {
        Ok(dir) => dir,
        Err(code) => return code,
    };
    let code = build_inputs(args);
    if let Some(dir) = unpacked {
        let _ = std::fs::remove_dir_all(dir);
    }
    code
}

/// The parc objects of the archive `file` written to files of `dir` (the
/// `n`th archive's in `dir/n/`); none when it is not an archive of them.
/// An archive of both kinds is refused: its native members would need the
/// system linker's choice of members, which parc does not make.
fn unpack_archive(file: &Path, dir: &Path, n: usize) -> Result<Vec<PathBuf>, ExitCode> {
    let Ok(bytes) = std::fs::read(file) else {
        return Ok(Vec::new());
    };
    let Some(members) = archive::members(&bytes) else {
        return Ok(Vec::new());
    };
    let magic = parc::PARC_OBJECT_MAGIC.as_bytes();
    let (parc, native): (Vec<_>, Vec<_>) = members.iter().partition(|m| m.bytes.starts_with(magic));
    if parc.is_empty() {
        return Ok(Vec::new());
    }
    if let Some(m) = native.first() {
        return Err(fail(&format!(
            "`{}` holds parc objects and native ones (`{}`): archive them separately",
            file.display(),
            m.name
        )));
    }
    let into = dir.join(n.to_string());
    let mut paths = Vec::new();
    for (i, m) in parc.iter().enumerate() {
        // Members may share a name; the index keeps them apart.
        let mut name = format!("{i}-{}", m.name.replace('/', "_"));
        if !name.ends_with(".o") {
            name.push_str(".o");
        }
        let path = into.join(name);
        std::fs::create_dir_all(&into)
            .and_then(|()| std::fs::write(&path, &m.bytes))
            .map_err(|e| fail(&format!("cannot unpack `{}`: {e}", file.display())))?;
        paths.push(path);
    }
    Ok(paths)
}

/// Replaces the archives of parc objects among `args`' inputs and
/// `-l` libraries (`libLIB.a` in a `-L` folder, searched in order, as
/// gcc does, where no `libLIB.so` comes first) with their objects; the
/// folder they were unpacked in, if any.
fn parc_archives(args: &mut BuildArgs) -> Result<Option<PathBuf>, ExitCode> {
    let dir = std::env::temp_dir().join(format!("parc-archives-{}", std::process::id()));
    let mut n = 0;
    let mut files = Vec::new();
    for f in std::mem::take(&mut args.files) {
        let objects = if f.extension().is_some_and(|e| e == "a") {
            n += 1;
            unpack_archive(&f, &dir, n)?
        } else {
            Vec::new()
        };
        if objects.is_empty() {
            files.push(f);
        } else {
            files.extend(objects);
        }
    }
    let gcc = &mut args.opt.gcc;
    let mut libs = Vec::new();
    for lib in std::mem::take(&mut gcc.libs) {
        let found = gcc.lib_dirs.iter().find_map(|d| {
            let (a, so) = (
                d.join(format!("lib{lib}.a")),
                d.join(format!("lib{lib}.so")),
            );
            (a.exists() || so.exists()).then_some((a, so))
        });
        let objects = match found {
            Some((a, so)) if !so.exists() => {
                n += 1;
                unpack_archive(&a, &dir, n)?
            }
            _ => Vec::new(),
        };
        if objects.is_empty() {
            libs.push(lib);
        } else {
            files.extend(objects);
        }
    }
    gcc.libs = libs;
    args.files = files;
    Ok((n > 0).then_some(dir))
}

/// [`build`] once archives of parc objects are opened.
fn build_inputs(mut args: BuildArgs) -> ExitCode {
    // Native objects and archives go to the linker as they are.
    let (native, files): (Vec<PathBuf>, Vec<PathBuf>) = std::mem::take(&mut args.files)
        .into_iter()
        .partition(|f| is_object(f) && !is_parc_object(f));
    args.files = files;
    if !native.is_empty() && !matches!(args.emit, Emit::Exe | Emit::Lib) {
        return fail(&format!(
            "`{}`: native objects and archives are only linked (into an executable or a \
             library), not compiled",
            native[0].display()
        ));
    }
    if args.files.is_empty() {
        return fail(
            "no source file or parc object to compile: parc links native objects and archives \
             only into a program it compiles (give the source files or parc objects too)",
        );
    }
    args.opt.gcc.objects = native;
    if args.emit == Emit::ParcObj {
        return parc_object(&args);
    }
    let links = matches!(args.emit, Emit::Exe | Emit::Lib);
    if !links && !args.opt.gcc.link_args().is_empty() {
        eprintln!(
            "parc: warning: `-l` and `-L` have no effect without linking (they are for \
             executables and `--emit lib`)"
        );
    }
    // Executables carry PTX only when asked (`--device gpu|auto`).
    let embeds_ptx = args.emit == Emit::Exe
        && matches!(args.device.device, Some(DeviceArg::Gpu | DeviceArg::Auto));
    let extension = match args.emit {
        Emit::Exe => "",
        Emit::Obj => "o",
        Emit::Lib => "so",
        Emit::Ir => "pir",
        Emit::Dot => "dot",
        Emit::Ptx => "ptx",
        Emit::ParcObj => "o",
    };
    let text_output = matches!(args.emit, Emit::Ir | Emit::Dot | Emit::Ptx);
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| args.files[0].with_extension(extension));
    let to_stdout = output.as_os_str() == "-";
    if to_stdout && !text_output {
        return fail("`-o -` is only for text outputs (`--emit ir`, `--emit dot` or `--emit ptx`)");
    }
    if !to_stdout
        && let Err(code) = (args.files.iter())
            .try_for_each(|f| not_the_input(&output, f))
            .and_then(|()| writable(&output))
    {
        return code;
    }
    if args.emit == Emit::Obj && args.files.len() > 1 {
        return fail(
            "`-c` (`--emit obj`) compiles one file; build the files together into an executable \
             or a library, or compile each with its own `-c`",
        );
    }
    let options = Options {
        grad: args.grad.clone(),
        serial: args.tapir.serial,
        // Only an executable needs `main`; IR text of a library is useful
        // too.
        library: args.emit != Emit::Exe,
        gpu: args.emit == Emit::Ptx || embeds_ptx,
        pp: args.pp.options(),
        passes: args.pp.passes(),
        ..args.opt.options(args.diag.color(), &args.ad)
    };
    let remarks = args.opt.remark_styles(&args.pp);
    let mut module = match compile(&args.files, &options, &args.ad, &remarks) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let kind = match args.emit {
        Emit::Ptx => return emit_ptx(&module, &args, &output),
        Emit::Ir | Emit::Dot => {
            let text = if args.emit == Emit::Dot {
                parc_ir::print::print_dot(&module)
            } else {
                parc_ir::print::print_module(&module)
            };
            if to_stdout {
                print!("{text}");
                return ExitCode::SUCCESS;
            }
            return match std::fs::write(&output, text) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => fail(&format!("cannot write `{}`: {e}", output.display())),
            };
        }
        Emit::Exe => OutputKind::Exe,
        Emit::Obj => OutputKind::Obj,
        Emit::Lib => OutputKind::Lib,
        Emit::ParcObj => return parc_object(&args),
    };
    if let Err(code) = args.device.attach(
        embeds_ptx,
        &mut module,
        &args.files[0],
        &ptx_options(args.gpu_arch.arch(), &args.opt),
    ) {
        return code;
    }
    let backend = backend_options(&args.tapir, &args.opt);
    match parc_cpu::build(module, kind, &output, &backend) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => backend_failure(err),
    }
}
