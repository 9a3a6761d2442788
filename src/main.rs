//! `parc`: the command line. Parsing arguments, reading files and choosing
//! exit statuses happen here; everything else is in the library
//! (`parc::compile`) and the crates it drives.
//!
//! Exit statuses: 0 success; 1 a malformed program, a bad command line or a
//! run-time error in the interpreted program; for `run`, otherwise the
//! program's own exit status; 101 an internal compiler error.
//!
//! The flag definitions (clap structures) are in `args.rs`; `cc.rs` is
//! `parc cc`'s gcc-style parsing.

mod archive;
mod args;
mod cc;

use parc::{CompileError, Options, StageTimes};
use parc_cpu::{BackendError, OutputKind};
use parc_opt::remarks::Style;
use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// The compiler allocates and frees many small vectors per function and
/// pass (CFG edges, operand lists, side tables); on a module of thousands
/// of functions glibc's `malloc` spends much of the compile time in its
/// slow path (`_int_malloc`) sorting its bins. mimalloc's per-size free
/// lists make those allocations cheap. It serves the compiler's own
/// allocations only: programs that `parc run` JITs allocate through the
/// runtime's `parc_rt_malloc` (libc), as executables do.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use args::*;

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
        // `main` is never required: like `gcc -fsyntax-only`, `check`
        // accepts a file of a library or of a program of several files
        // (`--lib` is still accepted and changes nothing).
        Command::Check {
            file,
            lib: _,
            pp,
            gcc,
            diag,
        } => {
            gcc.warn();
            diag.set_warnings();
            check(&file, &pp.options(), diag.color())
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
        ad_no_strict_aliasing: args.pp.last_of(&["strict-aliasing"]) == Some(false),
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

fn check(file: &Path, pp: &parc_lang::pp::Options, color: bool) -> ExitCode {
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
    match parc::check(&path, &source, true, pp, color) {
        Ok(warnings) => match warnings_out(&warnings) {
            Ok(()) => ExitCode::SUCCESS,
            Err(code) => code,
        },
        Err(err) => report(err),
    }
}

/// The files through the front end, the optimizer and the AD, each
/// stage's time added to `times`.
fn compile(
    files: &[PathBuf],
    options: &Options,
    ad: &AdArgs,
    remarks: &[Style],
    times: &mut StageTimes,
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
    let mut read = |f: &Path| times.time("reading files", || read_source(f, options.color));
    let compiled = if is_ir(file) {
        let source = read(file)?;
        parc::compile_ir(&path, &source, options)
    } else if files.iter().any(|f| is_parc_object(f)) {
        let mut sources = Vec::new();
        let mut premade = Vec::new();
        for f in files {
            if is_parc_object(f) {
                let object = read_parc_object(f)?;
                sources.push((object.path, object.source));
                premade.push(Some(parc::Premade {
                    module: object.module,
                    struct_decls: object.struct_decls,
                    archive_member: f.starts_with(archive_dir()),
                }));
            } else {
                sources.push((f.display().to_string(), read(f)?));
                premade.push(None);
            }
        }
        parc::compile_linked(&sources, premade, options)
    } else {
        let mut sources = Vec::new();
        for f in files {
            sources.push((f.display().to_string(), read(f)?));
        }
        parc::compile_files(&sources, options)
    }
    .map_err(report)?;
    times.extend(compiled.times.entries());
    warnings_out(&compiled.warnings)?;
    if ad.explain_tape {
        match &compiled.ad_report {
            Some(r) => eprint!(
                "{}{}",
                parc_ad::checkpoint::explain_snapshots(&path, &r.snapshots),
                parc_ad::tape_report::explain(&path, &r.tapes)
            ),
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
        whole_program: args.pp.last_of(&["whole-program"]).unwrap_or(true)
            && !args.opt.gcc.links_foreign_code(),
        gpu,
        pp: args.pp.options(),
        ad_no_strict_aliasing: args.pp.last_of(&["strict-aliasing"]) == Some(false),
        passes: args.pp.passes(),
        ..args.opt.options(args.diag.color(), &args.ad)
    };
    let remarks = args.opt.remark_styles(&args.pp);
    let start = Instant::now();
    let mut times = StageTimes::default();
    let mut module = match compile(&args.files, &options, &args.ad, &remarks, &mut times) {
        Ok(m) => m,
        Err(code) => return code,
    };
    // Before the program runs (the JIT's code generation is not in it).
    if options.time_passes {
        eprint!("{}", times.report(start.elapsed()));
    }
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

/// Where this process unpacks archives of parc objects: the objects in it
/// are archive members, linked only if the program needs them (see
/// `parc::compile_linked`).
fn archive_dir() -> PathBuf {
    std::env::temp_dir().join(format!("parc-archives-{}", std::process::id()))
}

/// Replaces the archives of parc objects among `args`' inputs and
/// `-l` libraries (`libLIB.a` in a `-L` folder, searched in order, as
/// gcc does, where no `libLIB.so` comes first) with their objects; the
/// folder they were unpacked in, if any.
fn parc_archives(args: &mut BuildArgs) -> Result<Option<PathBuf>, ExitCode> {
    let dir = archive_dir();
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
        whole_program: args.emit == Emit::Exe
            && args.pp.last_of(&["whole-program"]).unwrap_or(true)
            && !args.opt.gcc.links_foreign_code(),
        gpu: args.emit == Emit::Ptx || embeds_ptx,
        pp: args.pp.options(),
        ad_no_strict_aliasing: args.pp.last_of(&["strict-aliasing"]) == Some(false),
        passes: args.pp.passes(),
        ..args.opt.options(args.diag.color(), &args.ad)
    };
    let remarks = args.opt.remark_styles(&args.pp);
    let start = Instant::now();
    let mut times = StageTimes::default();
    let mut module = match compile(&args.files, &options, &args.ad, &remarks, &mut times) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let report_times = |times: &StageTimes| {
        if options.time_passes {
            eprint!("{}", times.report(start.elapsed()));
        }
    };
    let kind = match args.emit {
        Emit::Ptx => {
            let code = times.time("ptx", || emit_ptx(&module, &args, &output));
            report_times(&times);
            return code;
        }
        Emit::Ir | Emit::Dot => {
            let text = times.time("printing", || {
                if args.emit == Emit::Dot {
                    parc_ir::print::print_dot(&module)
                } else {
                    parc_ir::print::print_module(&module)
                }
            });
            report_times(&times);
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
    let mut attach = || {
        args.device.attach(
            embeds_ptx,
            &mut module,
            &args.files[0],
            &ptx_options(args.gpu_arch.arch(), &args.opt),
        )
    };
    let attached = if embeds_ptx {
        times.time("ptx", attach)
    } else {
        attach()
    };
    if let Err(code) = attached {
        return code;
    }
    let backend = backend_options(&args.tapir, &args.opt);
    match parc_cpu::build(module, kind, &output, &backend) {
        Ok(backend_times) => {
            times.extend(backend_times);
            report_times(&times);
            ExitCode::SUCCESS
        }
        Err(err) => backend_failure(err),
    }
}
