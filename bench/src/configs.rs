//! What the harness builds and runs: the builds of a program (parc at each
//! level, gcc and clang with and without OpenMP, the OpenMP peers), the
//! timed configurations (a build at a number of workers) and the problem
//! sizes.

use crate::WORKERS;
use crate::harness::Tools;

/// Ways of building a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Build {
    Gcc,
    /// `clang -O2`, serial projection.
    Clang,
    GccOmp,
    ParcSerial,
    ParcO0,
    ParcO1,
    ParcO2,
    /// The oracle for programs gcc cannot build (kernels).
    ParcO0Serial,
}

impl Build {
    pub(crate) fn suffix(self) -> &'static str {
        match self {
            Build::Gcc => "gcc",
            Build::Clang => "clang",
            Build::GccOmp => "omp",
            Build::ParcSerial => "serial",
            Build::ParcO0 => "O0",
            Build::ParcO1 => "O1",
            Build::ParcO2 => "O2",
            Build::ParcO0Serial => "O0serial",
        }
    }

    /// The command line that builds an OpenMP peer (plain C, no prelude)
    /// into `out`.
    pub(crate) fn omp_peer_command(tools: &Tools, peer: &str, out: &str) -> Vec<String> {
        let mut v = vec![tools.cc.clone()];
        v.extend(["-O2", "-fwrapv", "-fopenmp", peer, "-lm", "-o", out].map(String::from));
        v
    }

    /// The command line that builds `src` into `out`.
    pub(crate) fn command(self, tools: &Tools, src: &str, out: &str) -> Vec<String> {
        let gcc = |omp: bool| {
            let mut v = vec![tools.cc.clone(), "-O2".into(), "-fwrapv".into()];
            if omp {
                v.push("-fopenmp".into());
            }
            v.extend(
                [
                    "-include",
                    "include/parc.h",
                    "-x",
                    "c",
                    src,
                    "-lm",
                    "-o",
                    out,
                ]
                .map(String::from),
            );
            v
        };
        let parc = |flags: &[&str]| {
            let mut v = vec![tools.parc.display().to_string(), "build".into()];
            v.extend(flags.iter().map(|f| f.to_string()));
            v.extend([src, "-o", out].map(String::from));
            v
        };
        match self {
            Build::Gcc => gcc(false),
            Build::Clang => {
                let mut v = gcc(false);
                v[0] = tools.clang.clone();
                v
            }
            Build::GccOmp => gcc(true),
            Build::ParcSerial => parc(&["--O2", "--serial"]),
            Build::ParcO0 => parc(&["--O0"]),
            Build::ParcO1 => parc(&["--O1"]),
            Build::ParcO2 => parc(&["--O2"]),
            Build::ParcO0Serial => parc(&["--O0", "--serial"]),
        }
    }
}

/// A timed configuration: a build and the environment it runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Config {
    /// gcc -O2, serial projection.
    Gcc,
    /// clang -O2, serial projection.
    Clang,
    /// gcc -O2 -fopenmp on 2 threads.
    Omp2,
    /// parc -O2 --serial (the serial elision: spawn = call), 1 worker.
    Serial,
    /// parc -O2 parallel build, 1 worker.
    Par1,
    /// parc -O2 parallel build, 2 workers.
    Par2,
    /// parc -O0 parallel build, 2 workers.
    O0Par2,
    /// parc -O1 parallel build, 2 workers.
    O1Par2,
}

impl Config {
    pub(crate) const ALL: [Config; 8] = [
        Config::Gcc,
        Config::Clang,
        Config::Omp2,
        Config::Serial,
        Config::Par1,
        Config::Par2,
        Config::O0Par2,
        Config::O1Par2,
    ];

    pub(crate) fn build(self) -> Build {
        match self {
            Config::Gcc => Build::Gcc,
            Config::Clang => Build::Clang,
            Config::Omp2 => Build::GccOmp,
            Config::Serial => Build::ParcSerial,
            Config::Par1 | Config::Par2 => Build::ParcO2,
            Config::O0Par2 => Build::ParcO0,
            Config::O1Par2 => Build::ParcO1,
        }
    }

    pub(crate) fn label(self) -> &'static str {
        match self {
            Config::Gcc => "gcc",
            Config::Clang => "clang",
            Config::Omp2 => "gcc-omp2",
            Config::Serial => "parc-serial",
            Config::Par1 => "parc-1w",
            Config::Par2 => "parc-2w",
            Config::O0Par2 => "parc-O0-2w",
            Config::O1Par2 => "parc-O1-2w",
        }
    }

    /// `PARC_NUM_THREADS` and `OMP_NUM_THREADS`: both are always set, so
    /// that nothing depends on the caller's environment.
    pub(crate) fn threads(self) -> usize {
        match self {
            Config::Gcc | Config::Clang | Config::Serial | Config::Par1 => 1,
            Config::Omp2 | Config::Par2 | Config::O0Par2 | Config::O1Par2 => WORKERS,
        }
    }

    /// Built by a C compiler (which cannot build kernels).
    pub(crate) fn needs_c_compiler(self) -> bool {
        matches!(self, Config::Gcc | Config::Clang | Config::Omp2)
    }
}

/// The problem size a run uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Size {
    /// The program's `// args:` (or `// quick-args:`).
    Main,
    /// Half the first argument: normalize's growth measurement.
    Half,
}
