//! Running one program and measuring it: wall time, CPU time and peak
//! resident memory, all from `wait4` on the child, which also kills it
//! after a timeout. The suite (`parc bench`) and the compile-time scaling
//! table both measure through [`run_measured`].

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// One finished, measured process.
pub struct Measured {
    /// Spawn to exit, wall clock.
    pub wall: f64,
    /// User + system seconds of the process and the children it waited
    /// for.
    pub cpu: f64,
    /// Peak resident set of the process and its children, in KiB (Linux's
    /// `ru_maxrss`).
    pub max_rss_kib: u64,
    /// The exit status, or 128 + the signal that ended it (as a shell
    /// reports it).
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Measured {
    pub fn success(&self) -> bool {
        self.code == 0
    }

    /// How it ended, in words (a signal as the shell's 128 + signal).
    pub fn status(&self) -> String {
        format!("exit status {}", self.code)
    }
}

/// Runs `argv` in `cwd` with `env` added, its output read through pipes,
/// and measures it. A watchdog kills it after `timeout` (an error).
pub fn run_measured(
    argv: &[String],
    cwd: &Path,
    env: &[(&str, String)],
    timeout: Duration,
) -> Result<Measured, String> {
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..])
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let start = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start `{}`: {e}", argv[0]))?;
    let pid = child.id() as libc::pid_t;
    // Both pipes drained while it runs, so a chatty program never blocks.
    let read_all = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut bytes);
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let out = read_all(child.stdout.take().map(|p| Box::new(p) as _));
    let err = read_all(child.stderr.take().map(|p| Box::new(p) as _));
    let (done, wait) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(timeout) {
            // SAFETY: `pid` is our child, not yet reaped (the main thread
            // is blocked in `wait4` on it), so the id is still its own.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            true
        } else {
            false
        }
    });
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero `rusage` is a valid value of the plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child; `status` and `usage` are valid for writes.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed().as_secs_f64();
    let _ = done.send(());
    let killed = watchdog.join().unwrap_or(false);
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    if r != pid {
        return Err(format!(
            "waiting for `{}`: {}",
            argv[0],
            std::io::Error::last_os_error()
        ));
    }
    if killed {
        return Err(format!("killed after {} s (timeout)", timeout.as_secs()));
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    };
    Ok(Measured {
        wall,
        cpu: secs(usage.ru_utime) + secs(usage.ru_stime),
        max_rss_kib: u64::try_from(usage.ru_maxrss).unwrap_or(0),
        code,
        stdout,
        stderr,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, timeout: Duration) -> Result<Measured, String> {
        let argv = ["sh", "-c", script].map(String::from);
        run_measured(&argv, Path::new("."), &[("PARC_X", "7".into())], timeout)
    }

    #[test]
    fn output_status_env_and_memory_are_reported() {
        let m = sh(
            "echo out $PARC_X; echo err >&2; exit 3",
            Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(m.stdout, "out 7\n");
        assert_eq!(m.stderr, "err\n");
        assert_eq!(m.code, 3);
        assert!(!m.success());
        assert!(m.max_rss_kib > 0);
    }

    #[test]
    fn a_signal_is_128_plus_its_number_and_a_timeout_is_an_error() {
        assert_eq!(sh("kill -9 $$", Duration::from_secs(10)).unwrap().code, 137);
        let e = sh("exec sleep 5", Duration::from_millis(200))
            .err()
            .unwrap();
        assert!(e.contains("timeout"), "{e}");
    }
}
