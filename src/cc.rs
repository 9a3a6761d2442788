//! `parc cc`: a drop-in for `cc` in a Makefile. gcc's command line,
//! turned into the `parc build` command lines that do what it asks:
//! `-c` compiles each source file to a parc object (`--emit parc-obj`,
//! named as gcc names objects), anything else builds one executable of
//! every input (sources, parc objects, native objects and archives).
//! Options that change only warnings, code-generation details parc does
//! not have, or dependency files are accepted and do nothing; an option
//! parc does not know is an error that names it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Accepted and without effect in parc: warnings (`-W...` but
/// `-Werror` and `-Wl,`, `-pedantic`), the language standard (parc compiles C99 and its own
/// extensions whatever `-std=` says), machine and code-generation
/// options (`-m...`, `-f...` other than `-fopenmp`), `-pthread` (every
/// program is linked with it), `-pipe`, and dependency output (`-MD`,
/// `-MP`); `-MD` and `-MMD` warn that parc writes no dependency file.
/// `-Werror` and `-w` are `parc build`'s `--werror` and `--no-warnings`.
fn ignored(flag: &str) -> bool {
    (flag.starts_with("-W") && !flag.starts_with("-Wl,") && flag != "-Werror")
        || flag.starts_with("-std=")
        || flag.starts_with("-pedantic")
        || flag.starts_with("-m")
        || (flag.starts_with("-f") && !matches!(flag, "-fopenmp" | "-fno-openmp"))
        || matches!(flag, "-ansi" | "-pthread" | "-pipe" | "-MP")
}

/// Options followed by a value that parc passes on (`-o` is read here).
const WITH_VALUE: [&str; 5] = ["-D", "-U", "-I", "-l", "-L"];

/// The `parc build` command lines (each with `parc` and `build` first)
/// for `cc ARGS`.
pub fn builds(args: &[OsString]) -> Result<Vec<Vec<OsString>>, String> {
    let mut flags: Vec<OsString> = Vec::new();
    let mut inputs: Vec<PathBuf> = Vec::new();
    let mut output: Option<PathBuf> = None;
    let mut compile_only = false;
    let mut warned_deps = false;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let Some(a) = arg.to_str() else {
            inputs.push(PathBuf::from(arg));
            continue;
        };
        match a {
            "-c" => compile_only = true,
            "-o" => output = Some(PathBuf::from(it.next().ok_or("`-o` needs a file name")?)),
            o if o.starts_with("-o") => output = Some(PathBuf::from(&o[2..])),
            v if WITH_VALUE.contains(&v) => {
                let value = it.next().ok_or(format!("`{v}` needs a value"))?;
                flags.push(v.into());
                flags.push(value.clone());
            }
            "-MF" | "-MT" | "-MQ" => {
                it.next().ok_or(format!("`{a}` needs a value"))?;
            }
            "-MD" | "-MMD" => {
                if !warned_deps {
                    eprintln!(
                        "parc: warning: `{a}`: parc does not write dependency files (`.d`); \
                         a Makefile that includes them must mark them optional (`-include`)"
                    );
                    warned_deps = true;
                }
            }
            "-Werror" => flags.push("--werror".into()),
            "-w" => flags.push("--no-warnings".into()),
            "-x" => match it.next().and_then(|l| l.to_str()) {
                Some("c") => {}
                other => {
                    return Err(format!(
                        "`-x {}`: parc compiles C (and ParC) only",
                        other.unwrap_or("")
                    ));
                }
            },
            "-ffast-math" => {
                eprintln!("parc: warning: `-ffast-math`: parc does not relax floating point");
            }
            "-E" | "-S" | "-M" | "-MM" | "-shared" | "-fsyntax-only" => {
                return Err(format!(
                    "`{a}` is not supported: `parc cc` compiles to objects (`-c`) and links \
                     executables (`parc check` checks a file; `parc build --emit lib` makes a \
                     shared library; `parc build --emit ir` prints the IR)"
                ));
            }
            w if w.starts_with("-Wl,") => flags.push(format!("--link-arg={w}").into()),
            i if ignored(i) => {}
            p if p.starts_with("-D")
                || p.starts_with("-U")
                || p.starts_with("-I")
                || p.starts_with("-l")
                || p.starts_with("-L")
                || p.starts_with("-O")
                || p.starts_with("-g")
                || matches!(p, "-fopenmp" | "-fno-openmp") =>
            {
                flags.push(arg.clone());
            }
            "--" => inputs.extend(it.by_ref().map(PathBuf::from)),
            f if f.starts_with('-') && f.len() > 1 => {
                return Err(format!("unknown option `{f}`"));
            }
            _ => inputs.push(PathBuf::from(arg)),
        }
    }
    if inputs.is_empty() {
        return Err("no input files".into());
    }
    let build = |rest: Vec<OsString>| {
        let mut argv: Vec<OsString> = vec!["parc".into(), "build".into()];
        argv.extend(rest);
        argv.extend(flags.iter().cloned());
        argv
    };
    if !compile_only {
        let mut rest: Vec<OsString> = vec!["-o".into()];
        rest.push(output.unwrap_or_else(|| PathBuf::from("a.out")).into());
        rest.extend(inputs.into_iter().map(OsString::from));
        return Ok(vec![build(rest)]);
    }
    let sources: Vec<PathBuf> = inputs.into_iter().filter(|f| !is_object(f)).collect();
    if output.is_some() && sources.len() > 1 {
        return Err(
            "`-o` with `-c` names the object of one source file; several were given".into(),
        );
    }
    Ok(sources
        .into_iter()
        .map(|src| {
            // gcc writes `dir/a.c`'s object to `a.o` in the current folder.
            let object = output.clone().unwrap_or_else(|| {
                PathBuf::from(src.file_name().unwrap_or_default()).with_extension("o")
            });
            build(vec![
                "--emit".into(),
                "parc-obj".into(),
                "-o".into(),
                object.into(),
                src.into(),
            ])
        })
        .collect())
}

fn is_object(f: &Path) -> bool {
    f.extension()
        .is_some_and(|e| e == "o" || e == "a" || e == "so")
}

#[cfg(test)]
mod tests {
    use super::builds;
    use std::ffi::OsString;

    fn words(args: &str) -> Result<Vec<String>, String> {
        let args: Vec<OsString> = args.split_whitespace().map(OsString::from).collect();
        builds(&args).map(|b| {
            b.iter()
                .map(|argv| {
                    argv.iter()
                        .map(|a| a.to_string_lossy().into_owned())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect()
        })
    }

    #[test]
    fn makefile_command_lines() {
        assert_eq!(
            words("-O2 -Wall -std=c99 -c src/a.c -I inc -DN=3").unwrap(),
            ["parc build --emit parc-obj -o a.o src/a.c -O2 -I inc -DN=3"]
        );
        assert_eq!(
            words("-c a.c b.c -fopenmp -MMD -MF a.d -Werror").unwrap(),
            [
                "parc build --emit parc-obj -o a.o a.c -fopenmp --werror",
                "parc build --emit parc-obj -o b.o b.c -fopenmp --werror"
            ]
        );
        assert_eq!(
            words("-o app a.o b.o libx.a -lm -L. -Wl,-rpath,. -pthread").unwrap(),
            ["parc build -o app a.o b.o libx.a -lm -L. --link-arg=-Wl,-rpath,."]
        );
        assert_eq!(words("main.c").unwrap(), ["parc build -o a.out main.c"]);
        assert_eq!(
            words("-w -Wall -Wextra main.c").unwrap(),
            ["parc build -o a.out main.c --no-warnings"]
        );
    }

    #[test]
    fn what_parc_cannot_do_is_an_error() {
        assert!(words("-c a.c b.c -o x.o").is_err());
        assert!(
            words("-E a.c")
                .unwrap_err()
                .contains("`-E` is not supported")
        );
        assert!(
            words("--coverage a.c")
                .unwrap_err()
                .contains("unknown option `--coverage`")
        );
        assert!(words("-O2").unwrap_err().contains("no input files"));
    }
}
