//! Gradients of `__device__` functions: what they are made of (gradient
//! values are checked against finite differences, per thread and per
//! block, by `tests/grad/kernel_shared.pc`), and what is refused.

mod common;
use common::*;
use parc_ad::AccumulationClass::{Atomic, Banded, Disjoint, Local};
use parc_ad::{AdOptions, AdReport, BlockThreads};
use parc_ir::{Function, InstKind, Intrinsic};

/// The options of a target that runs a block's threads concurrently.
const CONCURRENT: AdOptions = AdOptions {
    block_threads: BlockThreads::Concurrent,
    task_tape_headers: false,
    task_shadow_callocs: false,
    checkpoint: None,
    no_strict_aliasing: false,
};

/// The classes of the sites at source line `line`.
fn at_of(r: &AdReport, line: u32) -> Vec<parc_ad::AccumulationClass> {
    r.sites
        .iter()
        .filter(|s| s.loc.line == line)
        .map(|s| s.class)
        .collect()
}

/// The atomic adds and the plain float stores of `f`.
fn shadow_updates(f: &Function) -> (usize, usize) {
    let mut atomic = 0;
    let mut plain = 0;
    for (_, i) in f.placed_insts() {
        match f.inst(i) {
            InstKind::Intrinsic {
                op: Intrinsic::AtomicAdd,
                ..
            } => atomic += 1,
            InstKind::Store { value, .. } if f.value_type(*value).is_float() => plain += 1,
            _ => {}
        }
    }
    (atomic, plain)
}

const BLOCK_SUM: &str = r#"
    __device__ double block_sum(double *x) {
        __shared__ double sh[8];
        int t = threadIdx.x;
        sh[t] = x[t] * x[t];
        __syncthreads();
        double s = 0.0;
        for (int k = 0; k < 8; k++)
            s += sh[k];
        return s;
    }
    __global__ void k(double *x, double *dx) {
        __enzyme_autodiff(block_sum, x, dx);
    }
"#;

/// The gradient is a `__device__` function whose reverse meets the
/// barrier again (two more at its entry zero the shared shadow) and, for
/// a target that runs a block's threads concurrently, adds into shadows
/// atomically: every thread of the block runs it.
#[test]
fn device_gradients_keep_barriers_and_add_atomically() {
    let (m, grad, report) = build_with(
        &CONCURRENT,
        BLOCK_SUM,
        2,
        "block_sum",
        &[Arg::dup(&[1.0; 8])],
    );
    let g = &m.funcs[grad];
    assert_eq!(g.kind, parc_ir::FuncKind::Device);
    let count =
        |want: fn(&InstKind) -> bool| g.placed_insts().filter(|&(_, i)| want(g.inst(i))).count();
    let barriers = count(|k| {
        matches!(
            k,
            InstKind::Intrinsic {
                op: Intrinsic::Barrier,
                ..
            }
        )
    });
    assert_eq!(barriers, 4, "{}", parc_ir::print::print_module(&m));
    let atomics = count(|k| {
        matches!(
            k,
            InstKind::Intrinsic {
                op: Intrinsic::AtomicAdd,
                ..
            }
        )
    });
    assert!(atomics >= 2, "{}", parc_ir::print::print_module(&m));
    assert!(
        report
            .sites
            .iter()
            .all(|s| s.class == parc_ad::AccumulationClass::Atomic),
        "{report:?}"
    );
    assert!(
        m.globals.values().any(|g| g.name.ends_with("sh.shadow")),
        "the shared array has a shared shadow"
    );
}

/// Where a block's threads run one at a time (the CPU, the interpreter),
/// the `__shared__` array's shadow is the block's alone: plain adds. The
/// shadow of the parameter, which every thread reads whole, still needs
/// atomics.
#[test]
fn shared_shadows_are_local_where_threads_take_turns() {
    let (m, grad, report) = build(BLOCK_SUM, 2, "block_sum", &[Arg::dup(&[1.0; 8])]);
    let classes: Vec<_> = report.sites.iter().map(|s| s.class).collect();
    assert!(classes.contains(&Local), "{report:?}");
    assert!(classes.contains(&Atomic), "{report:?}");
    for s in &report.sites {
        let shared = s.reason.contains("`d_block_sum.sh");
        assert_eq!(s.class == Local, shared, "{report:?}");
        if shared {
            assert!(s.reason.contains("run one at a time"), "{report:?}");
        }
    }
    let g = &m.funcs[grad];
    let atomics = g
        .placed_insts()
        .filter(|&(_, i)| {
            matches!(
                g.inst(i),
                InstKind::Intrinsic {
                    op: Intrinsic::AtomicAdd,
                    ..
                }
            )
        })
        .count();
    assert_eq!(atomics, 1, "{}", parc_ir::print::print_module(&m));
}

#[test]
fn kernels_themselves_are_refused() {
    let src = "__global__ void k(double *x) { x[threadIdx.x] *= 2.0; }";
    expect_error(
        src,
        2,
        "k",
        &[Arg::dup(&[1.0; 4])],
        "cannot differentiate kernel `k`",
    );
}

#[test]
fn the_value_atomic_add_returns_is_refused() {
    let src = r#"
        __device__ double f(double *x, double *acc) {
            double old = atomicAdd(acc, x[threadIdx.x]);
            return old * x[threadIdx.x];
        }
    "#;
    expect_error(
        src,
        2,
        "f",
        &[Arg::dup(&[1.0; 4]), Arg::dup(&[0.0])],
        "the value an `atomicAdd` returns",
    );
}

/// A host function's launch: the reverse launches the kernel's reverse on
/// the same grid, each thread on its own tape (the kernel overwrites what
/// it reads, so the reverse needs what the forward recorded); `k`'s
/// adjoint is summed over the threads.
#[test]
fn launches_in_differentiated_host_code() {
    let src = r#"
        __global__ void scale(double *x, double k) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            x[i] = sin(k * x[i]) * x[i];
        }
        double f(double *x, double k) {
            scale<<<2, 3>>>(x, k);
            scale<<<3, 2>>>(x, k * 0.5);
            return x[0] + 2.0 * x[5];
        }
    "#;
    let x: Vec<f64> = (0..6).map(|i| 0.3 * i as f64 - 0.4).collect();
    check(src, "f", &[Arg::dup(&x), Arg::F(1.1)]);
}

/// A loop-free kernel body with one return records each value at a fixed
/// place on its thread's tape: the forward stores no length (an `i64`)
/// and the reverse reads none. With an early return the body has two, and
/// the tape keeps its length (`tests/grad/kernel_returns.pc` checks both
/// gradients).
#[test]
fn single_return_kernel_bodies_record_at_fixed_places() {
    let src = r#"
        __global__ void inside(double *x, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n)
                x[i] = sin(x[i]) * x[i];
        }
        __global__ void early(double *x, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i >= n)
                return;
            x[i] = sin(x[i]) * x[i];
        }
        double f(double *x, int n) {
            inside<<<2, 3>>>(x, n);
            early<<<3, 2>>>(x, n);
            return x[0] + 2.0 * x[4];
        }
    "#;
    let x: Vec<f64> = (0..6).map(|i| 0.3 * i as f64 - 0.4).collect();
    let args = [Arg::dup(&x), Arg::I(5)];
    check(src, "f", &args);
    let (mut m, _, _) = build(src, 2, "f", &args);
    // Optimized as the driver does after the AD: the tape headers (stack
    // slots) disappear, and what is left of them is what reaches memory.
    parc_opt::optimize(
        &mut m,
        parc_ir::OptLevel::O2,
        &mut parc_opt::Instrumentation::default(),
    )
    .expect("optimize");
    // Stores of `i64`s: lengths (and return indices); records are `f64`.
    let length_stores = |name: &str| {
        let f = &m.funcs[m.func_by_name(name).expect("the launch's forward kernel")];
        f.placed_insts()
            .filter(|&(_, i)| {
                matches!(f.inst(i), InstKind::Store { value, .. }
                    if f.value_type(*value) == parc_ir::Type::I64)
            })
            .count()
    };
    assert_eq!(
        length_stores("inside.fwd"),
        0,
        "{}",
        parc_ir::print::print_module(&m)
    );
    // The length, and the index of the return taken.
    assert!(
        length_stores("early.fwd") > 0,
        "{}",
        parc_ir::print::print_module(&m)
    );
}

/// In a 1-D launch, `x[blockIdx.x * blockDim.x + threadIdx.x]` of a
/// `restrict` parameter is the thread's own: its shadow updates are plain
/// adds. A neighbour's element is in a band of two threads: where a
/// block's threads take turns, plain adds but for the block's edges,
/// which a neighbouring block's threads update too; where they run
/// concurrently, plain adds with the reverse launched twice, for even and
/// for odd threads. On a 2-D grid, neither holds.
#[test]
fn thread_indexed_restrict_updates_are_disjoint() {
    let src = r#"
        __global__ void own(double *restrict x, double *restrict y, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n)
                y[i] = sin(x[i]) * x[i];
        }
        __global__ void next(double *restrict x, double *restrict y, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i + 1 < n)
                y[i] = x[i] * x[i + 1];
        }
        void f(double *x, double *y, int n) {
            own<<<2, 3>>>(x, y, n);
            next<<<3, 2>>>(x, y, n);
        }
        void g(double *x, double *y, int n) {
            own<<<dim3(1, 2), 3>>>(x, y, n);
        }
    "#;
    let x: Vec<f64> = (0..6).map(|i| 0.3 * i as f64 - 0.4).collect();
    let args = [Arg::dup(&x), Arg::out(6, 1.0), Arg::I(6)];
    check(src, "f", &args);
    let (_, _, r) = check_at(src, 2, "f", &args, 1e-6);
    let at = |line: u32| {
        r.sites
            .iter()
            .filter(|s| s.loc.line == line)
            .map(|s| s.class)
            .collect::<Vec<_>>()
    };
    assert_eq!(at(5), vec![Disjoint], "{r:?}");
    assert_eq!(at(10), vec![Banded, Banded], "{r:?}");
    assert!(
        r.sites
            .iter()
            .any(|s| s.reason.contains("atomic near the block's edges")),
        "{r:?}"
    );
    // Blocks of 2 threads: every element `next` updates is at an edge.
    let (m, grad, _) = build_with(&AdOptions::default(), src, 2, "f", &args);
    let next_rev = m
        .funcs
        .values()
        .find(|g| g.name.starts_with("next.body") && g.name.ends_with(".rev"))
        .expect("the reverse of next's body");
    let (atomic, plain) = shadow_updates(next_rev);
    assert!(
        atomic >= 2 && plain >= 2,
        "{}",
        parc_ir::print::print_module(&m)
    );
    let _ = grad;
    let (_, _, r) = check_at_with(&CONCURRENT, src, 2, "f", &args, 1e-6);
    assert_eq!(at_of(&r, 10), vec![Banded, Banded], "{r:?}");
    assert!(
        r.sites
            .iter()
            .any(|s| s.reason.contains("runs in 2 phases")),
        "{r:?}"
    );
    let (_, _, r) = check_at(
        src,
        2,
        "g",
        &[Arg::dup(&x[..3]), Arg::out(3, 1.0), Arg::I(3)],
        1e-6,
    );
    assert!(r.sites.iter().all(|s| s.class == Atomic), "{r:?}");
}

/// A launched kernel's forward and reverse are launches of their own, so
/// zeros the forward wrote into a `__shared__` shadow would be in another
/// launch's shared memory. Where blocks start with zeroed shared memory
/// (threads one at a time: the CPU, the interpreter) neither zeroes; where
/// they run concurrently, the reverse zeroes its shadow at its entry.
/// Both gradients agree with finite differences.
#[test]
fn launched_kernels_zero_shared_shadows_in_the_reverse_or_not_at_all() {
    let src = r#"
        __global__ void pairs(double *x, double *y) {
            __shared__ double s[4];
            int t = threadIdx.x;
            int i = blockIdx.x * blockDim.x + t;
            s[t] = x[i] * x[i];
            __syncthreads();
            y[i] = s[t] + 0.5 * s[(t + 1) % 4];
        }
        double f(double *x, double *y) {
            pairs<<<2, 4>>>(x, y);
            double r = 0.0;
            for (int i = 0; i < 8; i++)
                r += y[i] * (1.0 + 0.25 * i);
            return r;
        }
    "#;
    let x: Vec<f64> = (0..8).map(|i| 0.2 * i as f64 - 0.7).collect();
    let args = [Arg::dup(&x), Arg::dup(&[0.0; 8])];
    let memsets = |m: &parc_ir::Module, name: &str| {
        let f = &m.funcs[m.func_by_name(name).expect("a generated function")];
        f.placed_insts()
            .filter(|&(_, i)| {
                matches!(
                    f.inst(i),
                    InstKind::Intrinsic {
                        op: Intrinsic::Memset,
                        ..
                    }
                )
            })
            .count()
    };
    let (one_at_a_time, _, _) = build(src, 0, "f", &args);
    let (concurrent, _, _) = build_with(&CONCURRENT, src, 0, "f", &args);
    let aug = "pairs.body.par.aug";
    let rev = "pairs.body.par.rev";
    assert_eq!(memsets(&one_at_a_time, aug), 0);
    assert_eq!(memsets(&one_at_a_time, rev), 0);
    assert_eq!(memsets(&concurrent, aug), 0);
    assert_eq!(memsets(&concurrent, rev), 1);
    check(src, "f", &args);
    check_at_with(&CONCURRENT, src, 0, "f", &args, 1e-6);
    check_at_with(&CONCURRENT, src, 2, "f", &args, 1e-6);
}
