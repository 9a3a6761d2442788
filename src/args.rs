//! The command line's definitions: clap structures, one per group of
//! flags, each flag with its gcc spelling and its help text (which
//! `parc --help` prints), and the helpers that turn them into the
//! library's options. The commands that read them are in `main.rs`.

use super::*;
use clap::{ArgAction, Args, Parser, Subcommand, ValueEnum};
use parc::Options;
use parc_ir::OptLevel;
use parc_opt::remarks::Style;
use std::ffi::OsString;
use std::num::NonZeroU64;
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "parc",
    version,
    about = "A research compiler for ParC: C with spawn/sync/parallel_for, GPU kernels and parallel reverse-mode AD",
    long_about = "parc compiles ParC (C99 with spawn, sync, parallel_for and CUDA-style kernels) through \
                  parir, a Tapir-style parallel IR. Language reference: docs/LANGUAGE.md."
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Parse and type-check a program; print diagnostics, produce nothing.
    Check {
        /// The ParC source file (`.pc`), or parir text (`.pir`: read and
        /// verified).
        file: PathBuf,
        /// Accepted for compatibility: `check` never requires `main` (a
        /// library's or one of several files' source checks as it is).
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
pub(crate) struct PpArgs {
    /// Define macro NAME (as 1, or as VALUE); `-D NAME` or `-DNAME`.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub(crate) define: Vec<String>,
    /// Undefine macro NAME (`-D` and `-U` apply in the order given).
    #[arg(short = 'U', value_name = "NAME")]
    pub(crate) undef: Vec<String>,
    /// Search DIR for `#include` files, before the headers parc ships.
    #[arg(short = 'I', value_name = "DIR")]
    pub(crate) include: Vec<PathBuf>,
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
    /// `-fno-whole-program`: keep an executable's functions exported. By
    /// default (`-fwhole-program`, as gcc spells it) an executable that
    /// links no native object or library of the user's is the whole
    /// program: its functions but `main` become `static`, so a function
    /// called once is inlined where it is called and the functions `main`
    /// never reaches are not compiled.
    /// `-fno-strict-aliasing`: a store of one type may modify an object of
    /// another (C's effective-type rule, on by default as in gcc -O2 and
    /// clang, lets a gradient read an `int` array again across `double`
    /// stores through other pointers instead of recording it).
    /// The last of `-fX` and `-fno-X` wins.
    #[arg(short = 'f', value_name = "FEATURE", value_parser = [
        "openmp", "no-openmp",
        "fast-math", "no-fast-math", "associative-math", "no-associative-math",
        "signed-zeros", "no-signed-zeros", "trapping-math", "no-trapping-math",
        "vectorize", "no-vectorize", "tree-vectorize", "no-tree-vectorize",
        "opt-info-vec", "opt-info-vec-optimized", "opt-info-vec-missed", "opt-info-vec-all",
        "whole-program", "no-whole-program",
        "strict-aliasing", "no-strict-aliasing",
    ])]
    pub(crate) feature: Vec<String>,
    /// Every `-D` and `-U`, in command-line order (clap keeps each flag's
    /// values apart; `main` merges them by position).
    #[arg(skip)]
    pub(crate) in_order: Vec<parc_lang::pp::Define>,
}

impl PpArgs {
    /// Orders the `-D` and `-U` flags as they were given: `-DX -UX`
    /// leaves `X` undefined, `-UX -DX` defined, as in gcc.
    pub(crate) fn order(&mut self, matches: &clap::ArgMatches) {
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

    pub(crate) fn options(&self) -> parc_lang::pp::Options {
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
    pub(crate) fn last_of(&self, names: &[&str]) -> Option<bool> {
        self.feature.iter().rev().find_map(|f| {
            let (on, name) = match f.strip_prefix("no-") {
                Some(name) => (false, name),
                None => (true, f.as_str()),
            };
            names.contains(&name).then_some(on)
        })
    }

    /// What the optimizer may do.
    pub(crate) fn passes(&self) -> parc_opt::PassOptions {
        let defaults = parc_opt::PassOptions::default();
        parc_opt::PassOptions {
            vectorize: (self.last_of(&["vectorize", "tree-vectorize"]))
                .unwrap_or(defaults.vectorize),
            reassociate_floats: (self.last_of(&["fast-math", "associative-math"]))
                .unwrap_or(defaults.reassociate_floats),
        }
    }

    /// gcc's `-fopt-info-vec` remarks asked for.
    pub(crate) fn opt_info(&self) -> Vec<Style> {
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
pub(crate) struct DiagArgs {
    /// Colour diagnostics: auto (when stderr is a terminal), always or never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub(crate) color: ColorChoice,
    /// Warnings about the program are errors: printed, then the command
    /// stops with status 1 (gcc's `-Werror`, which is spelt so too).
    #[arg(long)]
    pub(crate) werror: bool,
    /// No warnings about the program are printed (gcc's `-w`, which is
    /// spelt so too).
    #[arg(long)]
    pub(crate) no_warnings: bool,
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
    pub(crate) fn set_warnings(&self) {
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
pub(crate) fn warnings_out(warnings: &str) -> Result<(), ExitCode> {
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
pub(crate) enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl DiagArgs {
    pub(crate) fn color(&self) -> bool {
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
pub(crate) struct GccArgs {
    /// Optimization level, as gcc spells it: `-O0`; `-O1` (also `-O` and
    /// `-Og`); `-O2`, the default (also `-Os` and `-Oz`: parc has no
    /// size-tuned pipeline); `-O3` (also `-Ofast`, which adds
    /// `-ffast-math` as in gcc when it is the last `-O`, written as one
    /// word). The last one given wins.
    #[arg(short = 'O', value_name = "LEVEL", value_parser = parse_opt_level, action = ArgAction::Append)]
    pub(crate) opt_level: Vec<OptLevel>,
    /// Accepted as gcc spells it (`-g`, `-g3`, `-ggdb`; `-g0` is no `-g`):
    /// parc emits no debug information yet, and says so.
    #[arg(short = 'g')]
    pub(crate) debug: bool,
    /// Link with library LIB (`-lLIB`, as gcc spells it): executables and
    /// shared libraries are linked with it; `parc run` has the C library's
    /// own (`-lm`, `-lpthread`, `-ldl`, `-lrt`, `-lc`) already and refuses
    /// others; `parc check` ignores it.
    #[arg(short = 'l', value_name = "LIB", action = ArgAction::Append)]
    pub(crate) libs: Vec<String>,
    /// Search DIR for `-l` libraries (`-LDIR`) when linking.
    #[arg(short = 'L', value_name = "DIR", action = ArgAction::Append)]
    pub(crate) lib_dirs: Vec<PathBuf>,
    /// clang's optimization remarks, to stderr: `-Rpass=REGEX` for what
    /// passes whose name REGEX matches did, `-Rpass-missed=REGEX` (and
    /// `-Rpass-analysis=REGEX`) for what they did not do and why. parc's
    /// one pass with remarks is the loop vectorizer, `loop-vectorize` as
    /// clang names it (see `--explain-vec`); `parc check` ignores them.
    #[arg(short = 'R', value_name = "pass=REGEX", value_parser = parse_remark_flag, action = ArgAction::Append)]
    pub(crate) remarks: Vec<RemarkFlag>,
    /// Given to the linker as is (`parc cc`'s `-Wl,...`).
    #[arg(long = "link-arg", hide = true, value_name = "ARG", action = ArgAction::Append)]
    pub(crate) linker: Vec<String>,
    /// Native objects and archives among the inputs, linked as given.
    #[arg(skip)]
    pub(crate) objects: Vec<PathBuf>,
}

/// One `-Rpass...=REGEX`.
#[derive(Clone, Debug)]
pub(crate) struct RemarkFlag {
    /// `pass-missed` or `pass-analysis`, not `pass`.
    pub(crate) missed: bool,
    pub(crate) passes: regex::Regex,
}

/// The name clang gives its loop vectorizer, which `-R` flags match.
const VECTORIZER_NAME: &str = "loop-vectorize";

/// `-Rpass=REGEX`, `-Rpass-missed=REGEX`, `-Rpass-analysis=REGEX`.
pub(crate) fn parse_remark_flag(text: &str) -> Result<RemarkFlag, String> {
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
    pub(crate) fn level(&self) -> OptLevel {
        self.opt_level.last().copied().unwrap_or_default()
    }

    /// The linker's arguments for `-L` and `-l`, in that order.
    pub(crate) fn link_args(&self) -> Vec<String> {
        let objects = self.objects.iter().map(|o| o.display().to_string());
        let dirs = self.lib_dirs.iter().map(|d| format!("-L{}", d.display()));
        objects
            .chain(self.linker.iter().cloned())
            .chain(dirs)
            .chain(self.libs.iter().map(|l| format!("-l{l}")))
            .collect()
    }

    /// True when native code that could call the program's functions by
    /// name is linked in: objects, archives, linker flags, or a `-l`
    /// library beyond the C library's own. Without any, an executable is
    /// the whole program (see `parc_opt::passes::internalize`).
    pub(crate) fn links_foreign_code(&self) -> bool {
        !self.objects.is_empty()
            || !self.linker.is_empty()
            || self.libs.iter().any(|l| !SYSTEM_LIBS.contains(&l.as_str()))
    }

    /// The `-l` libraries that the JIT of `parc run` does not have.
    pub(crate) fn refuse_libs_for_jit(&self) -> Result<(), ExitCode> {
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
    pub(crate) fn warn(&self) {
        if self.debug {
            eprintln!(
                "parc: warning: `-g`: parc does not emit debug information (DWARF) yet; \
                 the output has none (`-O0` keeps frame pointers and each statement in order)"
            );
        }
    }
}

/// `-O LEVEL`: gcc's and clang's levels (see [`GccArgs`]).
pub(crate) fn parse_opt_level(text: &str) -> Result<OptLevel, String> {
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
pub(crate) fn gcc_spellings(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
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
pub(crate) struct OptArgs {
    #[command(flatten)]
    pub(crate) gcc: GccArgs,
    /// Verify the IR after every optimization pass, and Cranelift's IR of
    /// every function before the CPU backend compiles it.
    #[arg(long)]
    pub(crate) verify_each: bool,
    /// Print the IR to stderr after the named pass (`lower` for the
    /// unoptimized IR, `ad` for right after differentiation, `prepare` for
    /// after the final stage that shapes loops for the backend, `all` for
    /// after every pass).
    #[arg(long, value_name = "PASS")]
    pub(crate) dump_after: Option<String>,
    /// Print how long each stage of the build (front end, passes, AD,
    /// code generation, linking) took, summing to the total, to stderr.
    #[arg(long)]
    pub(crate) time_passes: bool,
    /// Print the passes' statistics counters, to stderr.
    #[arg(long)]
    pub(crate) stats: bool,
    /// Print what the loop vectorizer did to each loop, to stderr, as
    /// `file:line:col: vectorized: ...` or `file:line:col: not
    /// vectorized: why [reason]` lines in source order (clang:
    /// `-Rpass=loop-vectorize -Rpass-missed=loop-vectorize`; gcc:
    /// `-fopt-info-vec-all`).
    #[arg(long)]
    pub(crate) explain_vec: bool,
}

impl OptArgs {
    pub(crate) fn level(&self) -> OptLevel {
        self.gcc.level()
    }

    /// The remarks asked for (`--explain-vec`, `-R`, `-fopt-info-vec`),
    /// each style once.
    pub(crate) fn remark_styles(&self, pp: &PpArgs) -> Vec<Style> {
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

    pub(crate) fn options(&self, color: bool, ad: &AdArgs) -> Options {
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
            ad_task_shadow_callocs: ad.ad_no_shadow_slabs,
            ad_no_strict_aliasing: false,
            ad_checkpoint: ad.checkpoint(),
            serial: false,
            whole_program: false,
            library: false,
            gpu: false,
            pp: parc_lang::pp::Options::default(),
            passes: parc_opt::PassOptions::default(),
        }
    }
}

#[derive(Args)]
pub(crate) struct AdArgs {
    /// Differentiate the IR straight from lowering, then optimize once
    /// (the default is Enzyme's order: optimize, differentiate, optimize).
    #[arg(long)]
    pub(crate) ad_before_opt: bool,
    /// Print how the AD accumulates each adjoint in parallel code
    /// (local, disjoint, reduction or atomic, and why), to stderr, as
    /// `file:line:col: class: reason` lines in source order.
    #[arg(long)]
    pub(crate) explain_ad: bool,
    /// Print what each gradient records on its tape, to stderr: every
    /// recorded value with its source position, its bytes per execution
    /// and in all (in the program's names, e.g. `8·(n - 2)·steps`), and
    /// why it is recorded rather than recomputed.
    #[arg(long)]
    pub(crate) explain_tape: bool,
    /// Ablation: keep a tape header (24 bytes) per iteration of every
    /// parallel loop, even where the iterations' records have fixed places
    /// in one buffer (tasks without loops or calls). For measuring what
    /// the default saves (`--explain-tape` shows the bytes).
    #[arg(long)]
    pub(crate) ad_no_flat_tapes: bool,
    /// Ablation: make the shadow of each local array of a parallel loop's
    /// body per iteration (tape slots or a `calloc`, its address recorded),
    /// instead of one zeroed block per loop indexed by the iteration.
    #[arg(long)]
    pub(crate) ad_no_shadow_slabs: bool,
    /// Checkpoint the time loops of each requested gradient function (its
    /// outermost serial loops around loops): a snapshot every N
    /// iterations, each segment run again and recorded in the reverse.
    /// Refused, with the reason, at a loop whose writes cannot be bounded.
    #[arg(long, value_name = "N", value_parser = parse_grain)]
    pub(crate) checkpoint: Option<NonZeroU64>,
    /// Checkpoint the time loops (as `--checkpoint`) whose records would
    /// exceed BYTES (a number, or with a K, M or G suffix: powers of
    /// 1024, or `N%` of the physical memory), with the period chosen at
    /// run time from the first iteration's measured records; a loop that
    /// cannot be checkpointed is recorded whole, with a warning. Without
    /// the option the budget is 25% of the physical memory; `none` or 0
    /// turns checkpointing off.
    #[arg(long, value_name = "BYTES", value_parser = parse_budget, conflicts_with = "checkpoint")]
    pub(crate) tape_budget: Option<TapeBudget>,
}

/// `--tape-budget`'s argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TapeBudget {
    /// `none` or `0`: no checkpointing unless `--checkpoint` asks.
    Off,
    On(parc_ad::checkpoint::Bytes),
}

impl AdArgs {
    pub(crate) fn checkpoint(&self) -> Option<parc_ad::checkpoint::Request> {
        use parc_ad::checkpoint::{Bytes, Request};
        match (self.checkpoint, self.tape_budget) {
            (Some(n), _) => Some(Request::Every(n.get())),
            (None, Some(TapeBudget::Off)) => None,
            (None, Some(TapeBudget::On(b))) => Some(Request::Budget(b)),
            (None, None) => Some(Request::Budget(Bytes::Default)),
        }
    }
}

/// `--tape-budget`: `none` or `0`, `25%`, or bytes (`parse_bytes`).
pub(crate) fn parse_budget(text: &str) -> Result<TapeBudget, String> {
    use parc_ad::checkpoint::Bytes;
    if text == "none" || text == "0" {
        return Ok(TapeBudget::Off);
    }
    if let Some(p) = text.strip_suffix('%') {
        return match p.parse::<u32>() {
            Ok(p) if (1..=100).contains(&p) => Ok(TapeBudget::On(Bytes::Percent(p))),
            _ => Err(format!(
                "expected a percent of the physical memory from 1% to 100%, not `{text}`"
            )),
        };
    }
    parse_bytes(text).map(|b| TapeBudget::On(Bytes::Fixed(b)))
}

/// `--tape-budget BYTES`: `4096`, `64K`, `512M`, `2G`.
pub(crate) fn parse_bytes(text: &str) -> Result<u64, String> {
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
    // `0` alone turns checkpointing off (`parse_budget`); `0K` is a
    // typo, not a request.
    if bytes == 0 {
        return Err(
            "a tape budget of 0 bytes holds no record: give at least one iteration's records \
             (`--explain-tape` lists each loop's bytes per iteration), e.g. 64K, or `none` to \
             turn checkpointing off"
                .to_string(),
        );
    }
    Ok(bytes)
}

#[derive(Args)]
pub(crate) struct TapirArgs {
    /// Compile the serial elision: every `spawn` a plain call, every `sync`
    /// a no-op, every `parallel_for` an ordinary loop, before the optimizer
    /// and the AD run (the program gcc compiles through `include/parc.h`).
    /// No task is spawned (kernel launches still run on the runtime): the
    /// serial baseline T_S, and an oracle for parallel runs.
    #[arg(long)]
    pub(crate) serial: bool,
    /// Iterations per chunk of a parallel loop, at least 1 (default: chosen
    /// at run time from the trip count and the number of workers).
    #[arg(long, value_name = "N", conflicts_with = "serial", value_parser = parse_grain)]
    pub(crate) grain: Option<NonZeroU64>,
}

/// `--grain N`: a chunk of at least one iteration.
pub(crate) fn parse_grain(text: &str) -> Result<NonZeroU64, String> {
    match text.parse::<u64>() {
        Ok(n) => NonZeroU64::new(n).ok_or_else(|| {
            "a chunk has at least 1 iteration; leave `--grain` out to let the runtime choose"
                .to_string()
        }),
        Err(e) => Err(format!("expected a positive whole number: {e}")),
    }
}

/// The CPU backend's options: the optimization level and the grain.
pub(crate) fn backend_options(tapir: &TapirArgs, opt: &OptArgs) -> parc_cpu::Options {
    parc_cpu::Options {
        opt_level: opt.level(),
        grain: tapir.grain,
        link_args: opt.gcc.link_args(),
        verify: opt.verify_each,
    }
}

pub(crate) fn ptx_options(arch: parc_ptx::GpuArch, opt: &OptArgs) -> parc_ptx::PtxOptions {
    parc_ptx::PtxOptions {
        arch,
        opt_level: opt.level(),
    }
}

#[derive(Args)]
pub(crate) struct RunArgs {
    /// Run in the reference interpreter (the serial projection, with every
    /// memory access checked) instead of compiling to native code.
    #[arg(long)]
    pub(crate) interp: bool,
    #[command(flatten)]
    pub(crate) device: DeviceArgs,
    #[command(flatten)]
    pub(crate) tapir: TapirArgs,
    #[command(flatten)]
    pub(crate) opt: OptArgs,
    #[command(flatten)]
    pub(crate) ad: AdArgs,
    #[command(flatten)]
    pub(crate) pp: PpArgs,
    #[command(flatten)]
    pub(crate) diag: DiagArgs,
    /// The program's source files (`.pc` or `.c`), compiled and linked
    /// into one program; or one file of parir text (`.pir`, as `--emit
    /// ir` writes it), which goes through the same optimizer and AD.
    #[arg(required = true, value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,
    /// Arguments for the program's `main` (write them after `--`).
    #[arg(last = true)]
    pub(crate) args: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Emit {
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
pub(crate) struct BuildArgs {
    /// The program's source files (`.pc` or `.c`), compiled and linked
    /// into one program; or one file of parir text (`.pir`, as `--emit
    /// ir` writes it), which goes through the same optimizer and AD.
    #[arg(required = true, value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,
    /// What to produce.
    #[arg(long, value_enum, default_value_t = Emit::Exe)]
    pub(crate) emit: Emit,
    /// Compile to an object file, as gcc's `-c` (`--emit obj`).
    #[arg(short = 'c', conflicts_with = "emit")]
    pub(crate) compile_only: bool,
    /// Output path (default: the input's name with the emitted kind's
    /// extension; `-` for standard output where the output is text).
    #[arg(short = 'o', long = "output")]
    pub(crate) output: Option<PathBuf>,
    /// Export the reverse-mode gradient of function F as `grad_F`, with
    /// Enzyme's default activities: pointers duplicated (each followed by
    /// its shadow, into which gradients are added), `float`/`double`
    /// active (the gradient is returned), integers constant. Repeatable.
    #[arg(long = "grad", value_name = "F")]
    pub(crate) grad: Vec<String>,
    /// The GPU architecture of PTX output (`--emit ptx`, and the PTX an
    /// executable carries for its kernels).
    #[arg(long, value_enum, default_value_t = GpuArchArg::Sm70)]
    pub(crate) gpu_arch: GpuArchArg,
    #[command(flatten)]
    pub(crate) device: DeviceArgs,
    #[command(flatten)]
    pub(crate) tapir: TapirArgs,
    #[command(flatten)]
    pub(crate) opt: OptArgs,
    #[command(flatten)]
    pub(crate) ad: AdArgs,
    #[command(flatten)]
    pub(crate) pp: PpArgs,
    #[command(flatten)]
    pub(crate) diag: DiagArgs,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum DeviceArg {
    /// The GPU when one is found (an NVIDIA GPU of compute capability
    /// 7.0 or more, through the CUDA driver), the CPU otherwise.
    Auto,
    /// An NVIDIA GPU (an error if there is none).
    Gpu,
    /// The CPU.
    Cpu,
}

#[derive(Args)]
pub(crate) struct DeviceArgs {
    /// Where kernels run (`parc run`), or, for `parc build`, whether the
    /// executable carries its kernels' PTX for a GPU (`gpu`/`auto`: it
    /// then runs them on the GPU when one is found at run time, or as
    /// `PARC_DEVICE=gpu|cpu` says). Gradients of kernels are then made
    /// for a GPU's concurrent threads (right on the CPU too).
    #[arg(long, value_enum)]
    pub(crate) device: Option<DeviceArg>,
    /// Say on stderr which device runs the kernels, and why
    /// (`PARC_DEVICE_INFO=1` does the same for executables).
    #[arg(long)]
    pub(crate) device_info: bool,
}

impl DeviceArgs {
    /// True if the kernels are to be compiled for a GPU: asked for, or
    /// (`auto`, `parc run`'s default) a GPU is found.
    pub(crate) fn wants_gpu(&self, default: DeviceArg) -> Result<bool, ExitCode> {
        match self.device.unwrap_or(default) {
            DeviceArg::Cpu => Ok(false),
            DeviceArg::Gpu => Ok(true),
            DeviceArg::Auto => Ok(parc_runtime::cuda::probe().is_ok()),
        }
    }

    /// The PTX of `module`'s kernels put into it for the runtime, where
    /// the device is a GPU. Under `auto`, PTX the backend cannot emit
    /// leaves the kernels on the CPU (said with `--device-info`).
    pub(crate) fn attach(
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
    pub(crate) fn configure_runtime(&self) {
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
pub(crate) enum GpuArchArg {
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
    pub(crate) fn arch(self) -> parc_ptx::GpuArch {
        match self {
            GpuArchArg::Sm70 => parc_ptx::GpuArch::Sm70,
            GpuArchArg::Sm80 => parc_ptx::GpuArch::Sm80,
            GpuArchArg::Sm90 => parc_ptx::GpuArch::Sm90,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{TapeBudget, parse_budget, parse_bytes};
    use parc_ad::checkpoint::Bytes;

    #[test]
    fn tape_budgets() {
        assert_eq!(parse_bytes("4096"), Ok(4096));
        assert_eq!(parse_bytes("64K"), Ok(64 << 10));
        assert_eq!(parse_bytes("512m"), Ok(512 << 20));
        assert_eq!(parse_bytes("2G"), Ok(2 << 30));
        for bad in [
            "0",
            "0K",
            "",
            "K",
            "12X",
            "1.5G",
            "-3",
            "99999999999G",
            "4 K",
        ] {
            assert!(parse_bytes(bad).is_err(), "`{bad}` accepted");
        }
        assert!(parse_bytes("12X").unwrap_err().contains("unknown unit `X`"));
        assert!(parse_bytes("0").unwrap_err().contains("0 bytes"));
        assert_eq!(parse_budget("none"), Ok(TapeBudget::Off));
        assert_eq!(parse_budget("0"), Ok(TapeBudget::Off));
        assert_eq!(parse_budget("25%"), Ok(TapeBudget::On(Bytes::Percent(25))));
        assert_eq!(parse_budget("1K"), Ok(TapeBudget::On(Bytes::Fixed(1024))));
        for bad in ["0%", "101%", "%", "2.5%", "0K", "None"] {
            assert!(parse_budget(bad).is_err(), "`{bad}` accepted");
        }
    }
}
