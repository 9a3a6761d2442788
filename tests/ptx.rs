//! Every kernel program of the repository (`samples/`, `tests/kernels/`,
//! `tests/grad/`, `tests/run/`, `tests/gpu/`, `bench/`) compiled for the GPU at `--O0`
//! and `--O2`, gradients included, emitted as PTX for `sm_70` and
//! `sm_90`, and assembled by NVIDIA's `ptxas`, which must accept it. One
//! test per file.
//!
//! The `gpu-build::` tests build a few kernel programs with `--device
//! gpu` and check that the executables fall back to the CPU.
//!
//! `ptxas` comes from `PARC_PTXAS`, else `ptxas` on the `PATH`, else the
//! cache `scripts/test` installs it into (the PyPI wheel
//! `nvidia-cuda-nvcc-cu12`; it needs no GPU). Without one, the tests are
//! ignored with a message.

mod corpus;

use corpus::{programs, root};
use libtest_mimic::{Arguments, Failed, Trial};
use parc::Options;
use parc_ptx::{GpuArch, PtxOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

const DIRS: [&str; 7] = [
    "samples",
    "tests/gpu",
    "tests/kernels",
    "tests/grad",
    "tests/run",
    "bench/grad",
    "bench/programs",
];

/// Where `scripts/test` installs `ptxas`, under the user's cache.
fn cached_ptxas() -> Option<PathBuf> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))?;
    let venv = cache.join("parc/ptxas-venv/lib");
    let python = std::fs::read_dir(&venv).ok()?.flatten().next()?.path();
    let p = python.join("site-packages/nvidia/cuda_nvcc/bin/ptxas");
    p.is_file().then_some(p)
}

fn find_ptxas() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PARC_PTXAS") {
        return Some(PathBuf::from(p));
    }
    let on_path = Command::new("ptxas").arg("--version").output();
    if on_path.is_ok_and(|o| o.status.success()) {
        return Some(PathBuf::from("ptxas"));
    }
    cached_ptxas()
}

/// Compiles `path` for the GPU at `level` and checks its PTX with `ptxas`
/// for each architecture. A program without kernels passes trivially
/// (it is not listed).
fn check(path: &Path, level: u8, ptxas: &Path, scratch: &Path) -> Result<(), Failed> {
    let name = path.display().to_string();
    let source = std::fs::read_to_string(root().join(path))
        .map_err(|e| format!("cannot read {name}: {e}"))?;
    let options = Options {
        opt_level: parc_ir::OptLevel::from_number(level).unwrap_or_default(),
        gpu: true,
        ..Options::default()
    };
    let compiled = parc::compile(&name, &source, &options)
        .map_err(|e| format!("{name}: does not compile:\n{}", e.rendered))?;
    for arch in [GpuArch::Sm70, GpuArch::Sm90] {
        let ptx_options = PtxOptions {
            arch,
            opt_level: options.opt_level,
        };
        let text = parc::emit_ptx(&compiled.module, &ptx_options, &name)
            .map_err(|e| format!("no PTX for {}:\n{}", arch.name(), e.rendered))?;
        let file = scratch.join(format!(
            "{}.O{level}.{}.ptx",
            name.replace('/', "_"),
            arch.name()
        ));
        std::fs::write(&file, &text).map_err(|e| format!("cannot write: {e}"))?;
        let out = Command::new(ptxas)
            .arg(format!("-arch={}", arch.name()))
            .arg(&file)
            .arg("-o")
            .arg(file.with_extension("cubin"))
            .output()
            .map_err(|e| format!("cannot run {}: {e}", ptxas.display()))?;
        if !out.status.success() {
            return Err(format!(
                "ptxas -arch={} rejects the PTX of {name} at -O{level} ({}):\n{}",
                arch.name(),
                file.display(),
                String::from_utf8_lossy(&out.stderr)
            )
            .into());
        }
    }
    Ok(())
}

/// Executables built for the GPU (`--device gpu`: the PTX embedded,
/// gradients made for concurrent threads) give the CPU build's output
/// where the kernels run on the CPU: without a GPU, or with
/// `PARC_DEVICE=cpu`; `PARC_DEVICE=gpu` without a GPU ends the program
/// with the reason. (With a GPU, the launches whose memory is the GPU's
/// run there.)
fn gpu_build_falls_back(path: &Path, args: &[&str], scratch: &Path) -> Result<(), Failed> {
    let parc = env!("CARGO_BIN_EXE_parc");
    let name = path.display().to_string().replace('/', "_");
    let (gpu_exe, cpu_exe) = (
        scratch.join(format!("{name}.gpu")),
        scratch.join(format!("{name}.cpu")),
    );
    for (exe, extra) in [(&gpu_exe, &["--device", "gpu"][..]), (&cpu_exe, &[][..])] {
        let out = Command::new(parc)
            .arg("build")
            .arg(root().join(path))
            .args(extra)
            .arg("-o")
            .arg(exe)
            .output()
            .map_err(|e| format!("cannot run parc: {e}"))?;
        if !out.status.success() {
            return Err(format!("parc build: {}", String::from_utf8_lossy(&out.stderr)).into());
        }
    }
    let image = std::fs::read(&gpu_exe).map_err(|e| format!("{e}"))?;
    if !image.windows(13).any(|w| w == b".target sm_70") {
        return Err("the executable carries no PTX".into());
    }
    let run = |exe: &Path, device: Option<&str>| {
        let mut c = Command::new(exe);
        c.args(args).env_remove("PARC_DEVICE");
        if let Some(d) = device {
            c.env("PARC_DEVICE", d);
        }
        c.output()
    };
    let want = run(&cpu_exe, None).map_err(|e| format!("{e}"))?;
    let gpu_found = parc_runtime::cuda::probe().is_ok();
    for device in [None, Some("cpu")] {
        let got = run(&gpu_exe, device).map_err(|e| format!("{e}"))?;
        if got.stdout != want.stdout || got.status.code() != want.status.code() {
            return Err(format!(
                "PARC_DEVICE={device:?}: the GPU build's output differs:\n{}\n--- the CPU build's:\n{}",
                String::from_utf8_lossy(&got.stdout),
                String::from_utf8_lossy(&want.stdout)
            )
            .into());
        }
    }
    let forced = run(&gpu_exe, Some("gpu")).map_err(|e| format!("{e}"))?;
    if !gpu_found {
        let err = String::from_utf8_lossy(&forced.stderr);
        if forced.status.code() != Some(1) || !err.contains("PARC_DEVICE=gpu, but") {
            return Err(format!(
                "PARC_DEVICE=gpu without a GPU: status {:?}, {err}",
                forced.status
            )
            .into());
        }
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let ptxas = find_ptxas();
    let scratch = std::env::temp_dir().join(format!("parc-ptx-tests-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&scratch);
    let mut trials = Vec::new();
    for dir in DIRS {
        for path in programs(dir) {
            let Ok(source) = std::fs::read_to_string(root().join(&path)) else {
                continue;
            };
            if !source.contains("__global__") {
                continue;
            }
            for level in [0u8, 2] {
                let name = format!("{}@O{level}", path.display());
                let (found, scratch, path) = (ptxas.clone(), scratch.clone(), path.clone());
                let trial = Trial::test(name, move || match &found {
                    Some(p) => check(&path, level, p, &scratch),
                    None => Ok(()),
                });
                trials.push(if ptxas.is_none() {
                    trial.with_ignored_flag(true)
                } else {
                    trial
                });
            }
        }
    }
    for (program, args) in [
        ("samples/reduce_kernel.pc", &[][..]),
        ("tests/kernels/local_array.pc", &[][..]),
        ("tests/grad/kernel_launch_calls.pc", &[][..]),
        ("bench/grad/kernel.pc", &["check", "3000", "2", "1"][..]),
    ] {
        let scratch = scratch.clone();
        trials.push(Trial::test(format!("gpu-build::{program}"), move || {
            gpu_build_falls_back(Path::new(program), args, &scratch)
        }));
    }
    if ptxas.is_none() {
        eprintln!(
            "ptx: no `ptxas` found (set PARC_PTXAS, put it on the PATH, or run scripts/test, which installs it): the PTX tests are ignored"
        );
    }
    let conclusion = libtest_mimic::run(&args, trials);
    let _ = std::fs::remove_dir_all(&scratch);
    conclusion.exit();
}
