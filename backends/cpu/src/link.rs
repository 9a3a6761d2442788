//! Linking objects into executables and shared libraries with the system C
//! compiler driver (`$CC`, default `cc`), against the runtime's static
//! library `libparc_runtime.a`.
//!
//! Where the runtime library is looked for, in order:
//! 1. `$PARC_RUNTIME_LIB`: the file itself, or a directory holding it;
//! 2. the directory of the running executable (cargo puts
//!    `libparc_runtime.a` beside `parc` when the workspace is built), its
//!    `deps/` subdirectory and its parent (test binaries live in
//!    `target/<profile>/deps/`), where cargo's hashed name
//!    `libparc_runtime-<hash>.a` is accepted too: the newest file over
//!    all three wins (`cargo test` refreshes only the hashed copy, so the
//!    one beside `parc` may be stale).
//!
//! Shared libraries export exactly the program's exported functions (a
//! version script hides the runtime's and Rust's own symbols).

use crate::BackendError;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// The environment variable naming the runtime library (or its directory).
pub const RUNTIME_LIB_ENV: &str = "PARC_RUNTIME_LIB";

const LIB_NAME: &str = "libparc_runtime.a";

/// What the Rust runtime library needs from the system
/// (`rustc --print native-static-libs`).
const NATIVE_LIBS: [&str; 7] = [
    "-lm",
    "-lpthread",
    "-ldl",
    "-lrt",
    "-lutil",
    "-lgcc_s",
    "-lc",
];

/// The newest of `libparc_runtime.a` and `libparc_runtime-*.a` in `dir`.
fn lib_in(dir: &Path) -> Option<PathBuf> {
    newest_lib(dir).map(|(_, p)| p)
}

fn newest_lib(dir: &Path) -> Option<(std::time::SystemTime, PathBuf)> {
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name == LIB_NAME || (name.starts_with("libparc_runtime-") && name.ends_with(".a"))
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .max()
}

/// Finds `libparc_runtime.a` (see the module doc for where).
pub fn find_runtime_lib() -> Result<PathBuf, BackendError> {
    if let Some(value) = std::env::var_os(RUNTIME_LIB_ENV) {
        let path = PathBuf::from(&value);
        if path.is_file() {
            return Ok(path);
        }
        if let Some(p) = path.is_dir().then(|| lib_in(&path)).flatten() {
            return Ok(p);
        }
        return Err(BackendError::Link(format!(
            "cannot find libparc_runtime.a: {RUNTIME_LIB_ENV}={} is neither the library nor a directory holding it",
            path.display()
        )));
    }
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        let mut dirs = vec![dir.clone(), dir.join("deps")];
        if let Some(parent) = dir.parent() {
            dirs.push(parent.to_path_buf());
        }
        // The newest over all of them: `cargo test` refreshes only the
        // hashed copy in `deps/`, so the one beside `parc` may be stale.
        if let Some((_, p)) = dirs.iter().filter_map(|d| newest_lib(d)).max() {
            return Ok(p);
        }
    }
    Err(BackendError::Link(format!(
        "cannot find libparc_runtime.a; build the workspace with `cargo build --release` or set {RUNTIME_LIB_ENV}"
    )))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LinkKind {
    Exe,
    Lib,
}

/// A scratch directory removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> std::io::Result<TempDir> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!(
            "parc-link-{}-{nanos}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir)?;
        Ok(TempDir(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The C compiler that links, with its arguments: `$CC` split at white
/// space as make splits it (`CC="gcc -m64"`), or `cc` when it is unset or
/// names parc itself (`make CC="parc cc"` exports `CC` to the `parc cc`
/// it runs, which must not run itself to link).
fn linker() -> Vec<String> {
    let words: Vec<String> = std::env::var("CC")
        .map(|cc| cc.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    let is_parc = words
        .first()
        .and_then(|w| Path::new(w).file_name())
        .is_some_and(|name| name == "parc");
    if words.is_empty() || is_parc {
        vec!["cc".to_string()]
    } else {
        words
    }
}

/// Links `object` with the runtime into `out`; a library exports exactly
/// `exports`.
pub(crate) fn link(
    object: &[u8],
    kind: LinkKind,
    exports: &[&str],
    extra: &[String],
    out: &Path,
) -> Result<(), BackendError> {
    let runtime = find_runtime_lib()?;
    let tmp = TempDir::new()?;
    let obj_path = tmp.0.join("program.o");
    std::fs::write(&obj_path, object)?;

    let words = linker();
    let cc = words.join(" ");
    let mut cmd = Command::new(&words[0]);
    cmd.args(&words[1..]).arg("-o").arg(out);
    if kind == LinkKind::Lib {
        let script = tmp.0.join("exports.map");
        let mut text = String::from("{\n  global:\n");
        for name in exports {
            text.push_str(&format!("    {name};\n"));
        }
        text.push_str("  local: *;\n};\n");
        std::fs::write(&script, text)?;
        cmd.arg("-shared")
            .arg(format!("-Wl,--version-script={}", script.display()));
    }
    // The C library's libm before the runtime archive: the archive
    // carries Rust's own `cbrt`, `fmod`, `round`... (compiler-builtins),
    // which would otherwise bind the program's math calls, and its `cbrt`
    // differs from glibc's by an ulp (the interpreter and the JIT call
    // glibc's; see `parc_ir::libm`).
    cmd.arg(&obj_path)
        .args(extra)
        .arg("-lm")
        .arg(&runtime)
        .arg("-Wl,--gc-sections")
        .args(NATIVE_LIBS);
    let output = cmd.output().map_err(|e| {
        BackendError::Link(format!(
            "cannot run the C compiler `{cc}` to link: {e} (install one or set CC)"
        ))
    })?;
    if !output.status.success() {
        return Err(BackendError::Link(format!(
            "linking {} failed ({cc} exited with {}):\n{}",
            out.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim_end()
        )));
    }
    Ok(())
}
