//! Whole-process behaviour: faults (message, flushed output, exit status
//! 1, no hang), `exit`, stdout flushing, `PARC_NUM_THREADS`.
//!
//! Each scenario runs in a child process (this binary re-executed with
//! `PARC_RT_SCENARIO` set), whose stdout, stderr and status are compared
//! with the expectations below. Extra command-line arguments filter the
//! scenarios by name.

use parc_runtime::ParcGroup;
use parc_runtime::fault::parc_rt_fault;
use parc_runtime::gpu::{
    BarrierSite, parc_rt_barrier, parc_rt_barrier_divergence, parc_rt_launch,
    parc_rt_launch_blocks, parc_rt_thread_idx,
};
use parc_runtime::output::parc_rt_exit;
use parc_runtime::parfor::parc_rt_parallel_for;
use parc_runtime::printf::{ARG_INT, ARG_PTR, parc_rt_printf};
use parc_runtime::sched::{parc_rt_main, parc_rt_num_workers, parc_rt_spawn, parc_rt_sync};
use parc_runtime::with_workers;
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

/// `printf(fmt, ints...)`.
fn printf(fmt: &str, ints: &[i64]) {
    let fmt = std::ffi::CString::new(fmt).unwrap();
    let args: Vec<u64> = ints.iter().map(|&i| i as u64).collect();
    let kinds = vec![ARG_INT; ints.len()];
    // SAFETY: as many kinds as arguments, all integers.
    unsafe {
        parc_rt_printf(
            fmt.as_ptr(),
            args.as_ptr(),
            kinds.as_ptr(),
            ints.len() as i32,
        )
    };
}

fn fault(kind: i32, func: &std::ffi::CStr, line: i32, col: i32) -> ! {
    // SAFETY: `func` is a C string.
    unsafe { parc_rt_fault(kind, func.as_ptr(), line, col, std::ptr::null()) }
}

extern "C" fn sleepy_task(_: *mut u8) {
    std::thread::sleep(Duration::from_millis(50));
}

extern "C" fn faulting_task(_: *mut u8) {
    std::thread::sleep(Duration::from_millis(5));
    fault(1, c"sign", 9, 1);
}

extern "C" fn faulting_body(_: *mut u8, start: i64, end: i64) {
    for i in start..end {
        if i % 1000 == 999 {
            fault(0, c"body", 3, 7);
        }
    }
}

extern "C" fn printing_body(_: *mut u8, start: i64, end: i64) {
    for i in start..end {
        printf(
            "line %d of the output, a little long to make tearing visible\n",
            &[i],
        );
    }
}

extern "C" fn divergent_kernel(_: *const u64) {
    if parc_rt_thread_idx(0) % 2 == 0 {
        parc_rt_barrier();
    }
}

extern "C" fn late_barrier_kernel(_: *const u64) {
    if parc_rt_thread_idx(0) == 5 {
        parc_rt_barrier();
    }
}

extern "C" fn main_printing(_: i32, _: *mut *mut i8) -> i32 {
    printf("from main, %d workers\n", &[parc_rt_num_workers() as i64]);
    5
}

/// Unbounded recursion that the optimizer cannot remove.
#[allow(unconditional_recursion)]
fn down(n: u64) -> u64 {
    let pad = std::hint::black_box([n; 16]);
    std::hint::black_box(down(n + 1)) + pad[3]
}

extern "C" fn recursing_main(_: i32, _: *mut *mut i8) -> i32 {
    printf("going down\n", &[]);
    down(0) as i32
}

extern "C" fn recursing_task(_: *mut u8) {
    down(0);
}

extern "C" fn recursing_kernel(_: *const u64) {
    down(0);
}

/// A block function whose threads 0..3 stop at the barrier of code
/// `args[0]` and the others at code `args[1]` (0: returned), as generated
/// code records it (the code at offset 4 of each 16-byte frame); it
/// reports a difference as generated code does.
extern "C" fn divergent_block(args: *const u64, frame: *mut u8, _: *mut i32) {
    // SAFETY: two codes.
    let (a, b) = unsafe { (*args as i32, *args.add(1) as i32) };
    let sites = [
        BarrierSite {
            func: c"k".as_ptr(),
            line: 0,
            col: 0,
        },
        BarrierSite {
            func: c"k".as_ptr(),
            line: 7,
            col: 9,
        },
        BarrierSite {
            func: c"helper".as_ptr(),
            line: 0,
            col: 0,
        },
    ];
    printf(
        "block %d ran\n",
        &[parc_runtime::gpu::parc_rt_block_idx(0) as i64],
    );
    let threads: i32 = (0..3)
        .map(|d| parc_runtime::gpu::parc_rt_block_dim(d))
        .product();
    for t in 0..threads {
        let code = if t < 3 { a } else { b };
        // SAFETY: 16 bytes of frame per thread.
        unsafe { *frame.add(16 * t as usize + 4).cast::<i32>() = code };
    }
    if a != b {
        // SAFETY: entries for codes 0, 1 and 2; codes in every frame.
        unsafe { parc_rt_barrier_divergence(sites.as_ptr(), frame, 16, 4) };
    }
}

fn launch_blocks(args: [u64; 2], block: [i32; 3]) {
    // SAFETY: `divergent_block` reads two arguments and no frame.
    unsafe {
        parc_rt_launch_blocks(
            divergent_block,
            args.as_ptr(),
            [1, 1, 1].as_ptr(),
            block.as_ptr(),
            0,
            16,
        )
    }
}

fn launch(kernel: extern "C" fn(*const u64), grid: [i32; 3], block: [i32; 3], shared: i64) {
    // SAFETY: the kernels take no arguments.
    unsafe {
        parc_rt_launch(
            kernel,
            std::ptr::null(),
            grid.as_ptr(),
            block.as_ptr(),
            shared,
        )
    }
}

/// Runs one scenario in this (child) process.
fn scenario(name: &str) {
    match name {
        "div_zero" => {
            printf("before\n", &[]);
            fault(0, c"divide", 4, 14);
        }
        "fault_in_task" => with_workers(4, || {
            printf("start\n", &[]);
            let mut g = ParcGroup::new();
            // SAFETY: no captured values; `g` is synced below.
            unsafe {
                for _ in 0..8 {
                    parc_rt_spawn(&mut g, sleepy_task, std::ptr::null(), 0);
                }
                parc_rt_spawn(&mut g, faulting_task, std::ptr::null(), 0);
                parc_rt_sync(&mut g);
            }
            printf("unreachable\n", &[]);
        }),
        "many_faults_at_once" => with_workers(8, || {
            // SAFETY: the body ignores its context.
            unsafe { parc_rt_parallel_for(0, 100_000, 10, faulting_body, std::ptr::null_mut()) };
        }),
        "panic_in_runtime" => {
            parc_runtime::fault::guard("a test", || panic!("boom"));
        }
        "barrier_divergence" => {
            launch(divergent_kernel, [1, 1, 1], [8, 1, 1], 0);
            printf("done\n", &[]);
        }
        "barrier_divergence_fast_path" => {
            launch(late_barrier_kernel, [2, 1, 1], [8, 1, 1], 0);
        }
        "divergence_return" => launch_blocks([1, 0], [2, 2, 1]),
        "divergence_first_returned" => launch_blocks([0, 2], [4, 1, 1]),
        "divergence_two_barriers" => launch_blocks([2, 1], [8, 1, 1]),
        "block_fn_bad_frame" => {
            // SAFETY: nothing runs: the frame size is refused.
            unsafe {
                parc_rt_launch_blocks(
                    divergent_block,
                    std::ptr::null(),
                    [1, 1, 1].as_ptr(),
                    [1, 1, 1].as_ptr(),
                    0,
                    24,
                )
            }
        }
        "block_fn_bad_block" => launch_blocks([1, 1], [0, 1, 1]),
        "block_too_big" => launch(divergent_kernel, [1, 1, 1], [64, 32, 1], 0),
        "grid_zero" => launch(divergent_kernel, [4, 0, 1], [32, 1, 1], 0),
        "negative_shared" => launch(divergent_kernel, [1, 1, 1], [1, 1, 1], -8),
        "oom" => {
            parc_runtime::clib::parc_rt_malloc(i64::MAX);
        }
        "calloc_overflow" => {
            parc_runtime::clib::parc_rt_calloc(1 << 40, 1 << 40);
        }
        "printf_null_string" => {
            let kinds = [ARG_PTR];
            let args = [0u64];
            // SAFETY: one pointer argument (null: the fault under test).
            unsafe { parc_rt_printf(c"%s\n".as_ptr(), args.as_ptr(), kinds.as_ptr(), 1) };
        }
        "exit_flushes" => {
            printf("no newline", &[]);
            parc_rt_exit(3);
        }
        "main_status" => {
            // SAFETY: no arguments.
            let status = unsafe { parc_rt_main(main_printing, 0, std::ptr::null_mut()) };
            std::process::exit(status);
        }
        "concurrent_printf" => {
            // SAFETY: the body ignores its context.
            unsafe { parc_rt_parallel_for(0, 20_000, 0, printing_body, std::ptr::null_mut()) };
            parc_runtime::output::parc_rt_flush();
            std::process::exit(0);
        }
        "stack_overflow_in_main" => {
            // SAFETY: no arguments.
            unsafe { parc_rt_main(recursing_main, 0, std::ptr::null_mut()) };
        }
        "stack_overflow_in_task" => with_workers(2, || {
            let mut g = ParcGroup::new();
            // SAFETY: no captured values; `g` is synced.
            unsafe {
                parc_rt_spawn(&mut g, recursing_task, std::ptr::null(), 0);
                parc_rt_sync(&mut g);
            }
        }),
        "stack_overflow_in_kernel" => launch(recursing_kernel, [2, 1, 1], [4, 1, 1], 0),
        "null_deref" => {
            printf("before\n", &[]);
            parc_runtime::signals::install();
            // SAFETY: none: the crash is the point.
            unsafe { std::ptr::read_volatile(std::hint::black_box(8usize) as *const u64) };
        }
        "c_abort" => {
            printf("before\n", &[]);
            parc_runtime::signals::install();
            // What glibc does after printing "free(): double free detected".
            // SAFETY: `abort` ends the process.
            unsafe { libc::abort() };
        }
        #[cfg(target_arch = "x86_64")]
        "trap" => {
            parc_runtime::signals::install();
            // SAFETY: none: `ud2` is Cranelift's trap instruction.
            unsafe { std::arch::asm!("ud2") };
        }
        #[cfg(target_arch = "x86_64")]
        "hardware_division_by_zero" => {
            parc_runtime::signals::install();
            let zero = std::hint::black_box(0u64);
            // SAFETY: none: the exception is the point.
            unsafe {
                std::arch::asm!("div {0}", in(reg) zero, inout("rax") 1u64 => _, inout("rdx") 0u64 => _)
            };
        }
        other => panic!("no scenario {other}"),
    }
    eprintln!("scenario {name} returned");
    std::process::exit(99);
}

/// The line a fault that a signal reports ends with where the faulting
/// code has no known source position, as in these scenarios (see
/// `fault::die_in_signal_handler`).
macro_rules! native_note {
    () => {
        "note: the machine code there does not know its source line; \
         `parc run --interp` runs the program checked and reports where\n"
    };
}

/// What a scenario must do.
struct Expect {
    name: &'static str,
    env: &'static [(&'static str, &'static str)],
    status: i32,
    stdout: Option<&'static str>,
    stderr: &'static str,
}

fn expectations() -> Vec<Expect> {
    let e = |name, status, stdout, stderr| Expect {
        name,
        env: &[],
        status,
        stdout,
        stderr,
    };
    vec![
        e(
            "div_zero",
            1,
            Some("before\n"),
            "run-time error in function `divide` at line 4:14: integer division by zero\n",
        ),
        e(
            "fault_in_task",
            1,
            Some("start\n"),
            "run-time error in function `sign` at line 9:1: control reached end of non-void function\n",
        ),
        e(
            "many_faults_at_once",
            1,
            Some(""),
            "run-time error in function `body` at line 3:7: integer division by zero\n",
        ),
        e(
            "panic_in_runtime",
            1,
            Some(""),
            "*internal error in the runtime (a test): boom\n",
        ),
        e(
            "barrier_divergence",
            1,
            Some(""),
            "run-time error: barrier divergence in block (0,0,0): 4 of its 8 threads finished while 4 wait at __syncthreads()\n",
        ),
        e(
            "barrier_divergence_fast_path",
            1,
            Some(""),
            "run-time error: barrier divergence in block (*,0,0): thread (5,0,0) reached __syncthreads() but thread (0,0,0) finished without reaching it\n",
        ),
        e(
            "divergence_return",
            1,
            Some("block 0 ran\n"),
            "run-time error in function `k` at line 7:9: barrier divergence in kernel `k`: thread (0,0,0) of block (0,0,0) reached the barrier at line 7:9 but thread (1,1,0) finished without reaching it\n",
        ),
        e(
            "divergence_first_returned",
            1,
            Some("block 0 ran\n"),
            "run-time error in function `helper`: barrier divergence in kernel `k`: thread (3,0,0) of block (0,0,0) reached a barrier in `helper` but thread (0,0,0) finished without reaching it\n",
        ),
        e(
            "divergence_two_barriers",
            1,
            Some("block 0 ran\n"),
            "run-time error in function `helper`: barrier divergence in kernel `k`: thread (0,0,0) of block (0,0,0) reached a barrier in `helper` but thread (3,0,0) waits at the barrier at line 7:9\n",
        ),
        e(
            "block_fn_bad_frame",
            1,
            Some(""),
            "run-time error: internal error: a kernel asks for 24 bytes of frame per thread\n",
        ),
        e(
            "block_fn_bad_block",
            1,
            Some(""),
            "run-time error: invalid launch configuration: the block (0,1,1) has a dimension below 1\n",
        ),
        e(
            "block_too_big",
            1,
            Some(""),
            "run-time error: invalid launch configuration: the block (64,32,1) has 2048 threads (at most 1024)\n",
        ),
        e(
            "grid_zero",
            1,
            Some(""),
            "run-time error: invalid launch configuration: the grid (4,0,1) has a dimension below 1\n",
        ),
        e(
            "negative_shared",
            1,
            Some(""),
            "run-time error: invalid launch configuration: -8 bytes of shared memory\n",
        ),
        e(
            "oom",
            1,
            Some(""),
            "run-time error: out of memory: cannot allocate 9223372036854775807 bytes\n",
        ),
        e(
            "calloc_overflow",
            1,
            Some(""),
            "run-time error: out of memory: cannot allocate 1099511627776 * 1099511627776 bytes\n",
        ),
        e(
            "printf_null_string",
            1,
            Some(""),
            "run-time error: printf: the argument of `%s` is a null pointer\n",
        ),
        e("exit_flushes", 3, Some("no newline"), ""),
        Expect {
            name: "main_status",
            env: &[("PARC_NUM_THREADS", "3")],
            status: 5,
            stdout: Some("from main, 3 workers\n"),
            stderr: "",
        },
        Expect {
            name: "main_status",
            env: &[("PARC_NUM_THREADS", "abc")],
            status: 1,
            stdout: Some(""),
            stderr: "parc: PARC_NUM_THREADS must be a whole number from 1 to 4096, not `abc`\n",
        },
        Expect {
            name: "main_status",
            env: &[("PARC_NUM_THREADS", "0")],
            status: 1,
            stdout: Some(""),
            stderr: "parc: PARC_NUM_THREADS must be a whole number from 1 to 4096, not `0`\n",
        },
        e("concurrent_printf", 0, None, ""),
        e(
            "stack_overflow_in_main",
            1,
            Some("going down\n"),
            concat!("run-time error: stack overflow\n", native_note!()),
        ),
        e(
            "stack_overflow_in_task",
            1,
            Some(""),
            concat!("run-time error: stack overflow\n", native_note!()),
        ),
        e(
            "stack_overflow_in_kernel",
            1,
            Some(""),
            concat!("run-time error: stack overflow\n", native_note!()),
        ),
        e(
            "null_deref",
            1,
            Some("before\n"),
            concat!(
                "run-time error: null pointer dereference (address 0x8)\n",
                native_note!()
            ),
        ),
        e(
            "c_abort",
            1,
            Some("before\n"),
            concat!(
                "run-time error: the C library aborted the program (its message is above)\n",
                native_note!()
            ),
        ),
        #[cfg(target_arch = "x86_64")]
        e(
            "trap",
            1,
            Some(""),
            concat!(
                "run-time error: illegal instruction (a trap in generated code)\n",
                native_note!()
            ),
        ),
        #[cfg(target_arch = "x86_64")]
        e(
            "hardware_division_by_zero",
            1,
            Some(""),
            concat!(
                "run-time error: integer division by zero or overflow\n",
                native_note!()
            ),
        ),
    ]
}

/// `pattern` with `*` matching any run of characters.
fn matches(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || !text[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for p in &parts[1..parts.len() - 1] {
        match rest.find(p) {
            Some(i) => rest = &rest[i + p.len()..],
            None => return false,
        }
    }
    true
}

/// Runs one scenario as a child and checks it; `Err` describes a failure.
fn check(exp: &Expect) -> Result<(), String> {
    let started = Instant::now();
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.env("PARC_RT_SCENARIO", exp.name)
        .env_remove("PARC_NUM_THREADS");
    for (k, v) in exp.env {
        cmd.env(k, v);
    }
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run the child: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut problems = Vec::new();
    if out.status.code() != Some(exp.status) {
        problems.push(format!("status {:?}, expected {}", out.status, exp.status));
    }
    if let Some(s) = exp.stdout
        && stdout != s
    {
        problems.push(format!("stdout {stdout:?}, expected {s:?}"));
    }
    if !matches(exp.stderr, &stderr) {
        problems.push(format!("stderr {stderr:?}, expected {:?}", exp.stderr));
    }
    if exp.name == "concurrent_printf" {
        let mut lines: Vec<&str> = stdout.lines().collect();
        lines.sort_by_key(|l| l.split(' ').nth(1).and_then(|n| n.parse::<u32>().ok()));
        let ok = lines.len() == 20_000
            && lines.iter().enumerate().all(|(i, l)| {
                *l == format!("line {i} of the output, a little long to make tearing visible")
            });
        if !ok {
            problems.push(format!("{} lines, some torn or missing", lines.len()));
        }
    }
    if started.elapsed() > Duration::from_secs(30) {
        problems.push("took more than 30 s".into());
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

fn main() -> ExitCode {
    if let Ok(name) = std::env::var("PARC_RT_SCENARIO") {
        scenario(&name);
    }
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let mut failed = 0;
    let mut ran = 0;
    for exp in expectations() {
        if !filters.is_empty() && !filters.iter().any(|f| exp.name.contains(f.as_str())) {
            continue;
        }
        ran += 1;
        let label = match exp.env.first() {
            Some((k, v)) => format!("{} ({k}={v})", exp.name),
            None => exp.name.to_string(),
        };
        match check(&exp) {
            Ok(()) => println!("test {label} ... ok"),
            Err(e) => {
                failed += 1;
                println!("test {label} ... FAILED: {e}");
            }
        }
    }
    println!(
        "\nfault scenarios: {} passed; {failed} failed",
        ran - failed
    );
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
