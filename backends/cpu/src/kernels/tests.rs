//! Kernel fission on IR: the regions of a kernel, what its block function
//! keeps per thread, which kernels keep the coroutine path, and that every
//! result verifies. (What block functions compute is checked end to end
//! against the interpreter by `tests/kernels`.)

use super::{Fission, MAX_GROWTH, fission, regions};
use parc_ir::read::read_module;
use parc_ir::{
    BlockCall, FuncBuilder, FuncId, FuncKind, InstKind, IntCC, Intrinsic, Module, Signature,
    SrcLoc, Type, Value, new_function,
};

/// `bench/programs/kernel.pc`'s block reduction after `-O2`.
const REDUCTION: &str = "
global @sh shared size 2048 align 8 = zeroinit

func kernel convergent @block_sum(ptr, ptr, ptr, i32) {
block0(v0: ptr, v1: ptr, v2: ptr, v3: i32):
    v11 = thread_idx.x @19:13
    v12 = block_idx.x @20:13
    v13 = block_dim.x @20:26
    v14 = imul v12, v13 @20:13
    v16 = iadd v14, v11 @20:13
    v17 = global_addr @sh @21:5
    v19 = sext.i64 v11 @21:8
    v95 = iconst.i64 3 @21:5
    v21 = shl v19, v95 @21:5
    v22 = ptradd v17, v21 @21:5
    v25 = icmp slt v16, v3 @21:13
    brif v25, block1, block2 @21:13
block1:
    v29 = sext.i64 v16 @21:24
    v31 = shl v29, v95 @21:21
    v32 = ptradd v0, v31 @21:21
    v33 = load.f64 v32 @21:21
    jump block3(v33) @21:13
block2:
    v34 = fconst.f64 0.0 @21:29
    jump block3(v34) @21:13
block3(v26: f64):
    store v26, v22 @21:5
    barrier @22:5
    v36 = iconst.i32 2 @23:31
    v37 = sdiv v13, v36 @23:18
    v39 = iconst.i32 0 @23:38
    v61 = iconst.i32 1 @23:47
    jump block4(v37) @23:14
block4(v87: i32):
    v40 = icmp sgt v87, v39 @23:34
    brif v40, block5, block7 @23:14
block5:
    v43 = icmp slt v11, v87 @24:13
    brif v43, block8, block9 @24:9
block8:
    v53 = iadd v11, v87 @25:25
    v54 = sext.i64 v53 @25:25
    v56 = shl v54, v95 @25:22
    v57 = ptradd v17, v56 @25:22
    v58 = load.f64 v57 @25:22
    v59 = load.f64 v22 @25:13
    v60 = fadd v59, v58 @25:13
    store v60, v22 @25:13
    jump block9 @25:13
block9:
    barrier @26:9
    v63 = ashr v87, v61 @23:41
    jump block4(v63) @26:9
block7:
    v66 = icmp eq v11, v39 @28:9
    brif v66, block10, block11 @28:5
block10:
    v69 = sext.i64 v12 @29:17
    v71 = shl v69, v95 @29:9
    v72 = ptradd v1, v71 @29:9
    v78 = load.f64 v17 @29:31
    store v78, v72 @29:9
    v86 = atomic_add.f64 v2, v78 @30:9
    jump block11 @30:9
block11:
    return @32:1
}
";

fn verified(m: &Module) {
    if let Err(errors) = parc_ir::verify::verify_module(m) {
        let text: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        panic!(
            "does not verify:\n{}\n{}",
            text.join("\n"),
            parc_ir::print::print_module(m)
        );
    }
}

fn kernel(m: &Module, name: &str) -> FuncId {
    m.func_by_name(name).expect("the kernel")
}

/// Fission of a module that must verify before and after.
fn split_all(m: &Module) -> Fission {
    verified(m);
    let out = fission(m);
    if let Some(new) = &out.module {
        verified(new);
    }
    out
}

/// ParC source to a module ready for code generation, unoptimized (every
/// local an `alloca`, every call kept).
fn from_source(src: &str) -> Module {
    // As `parc` reads it: preprocessed (headers may define functions).
    let pre = parc_lang::pp::preprocess("test.pc", src, &Default::default());
    assert!(
        !pre.diags.iter().any(|d| d.is_error()),
        "pp: {:?}",
        pre.diags
    );
    let src = pre.text.as_str();
    let (ast, diags) = parc_lang::parse::parse(src);
    assert!(!diags.iter().any(|d| d.is_error()), "parse: {diags:?}");
    let (hir, diags) = parc_lang::check::check(ast);
    assert!(!diags.iter().any(|d| d.is_error()), "check: {diags:?}");
    let mut m = parc_lang::lower::lower(hir.expect("checked"), "test.pc", src);
    crate::tapir::lower_tapir(
        &mut m,
        crate::tapir::Target::Runtime,
        &crate::tapir::TapirOptions::default(),
    )
    .expect("lowered");
    m
}

#[test]
fn a_reduction_has_a_region_per_barrier_and_keeps_only_its_loop_counter() {
    let m = read_module(REDUCTION).expect("reads");
    let k = kernel(&m, "block_sum");
    let split = regions::split(&m.funcs[k]);
    assert_eq!(split.barriers.len(), 2);
    let regions: Vec<&regions::Region> = split.regions.iter().flatten().collect();
    assert_eq!(regions.len(), 3);
    // Region 0 ends at the first barrier; the regions after each barrier
    // end at the loop's barrier or at the return.
    let exits: Vec<&[u32]> = regions.iter().map(|r| r.exits.as_slice()).collect();
    assert_eq!(exits, [&[1][..], &[0, 2], &[0, 2]]);
    // The loop counter `s` is defined after the first barrier and used
    // after the second.
    let s = Value::from_u32(87);
    assert!(!regions[1].live_in.contains(&s));
    assert!(regions[2].live_in.contains(&s));
    // The thread id crosses both barriers.
    assert!(regions[1].live_in.contains(&Value::from_u32(11)));

    let out = split_all(&m);
    let launch = out.launches[&k];
    // `s` is the only value kept: thread ids, addresses in shared
    // memory and blockDim / 2 are recomputed, uniform or rematerialized.
    assert_eq!(launch.frame_bytes, 16);
    let new = out.module.expect("split");
    let f = &new.funcs[launch.block_fn];
    assert_eq!(f.kind, FuncKind::Device);
    assert_eq!(f.sig.params, [Type::Ptr, Type::Ptr, Type::Ptr]);
    // No thread id is asked of the runtime, and the kernel's barriers are
    // gone: the loops over the threads replace both.
    for (_, i) in f.placed_insts() {
        assert!(!matches!(
            f.inst(i),
            InstKind::Intrinsic {
                op: Intrinsic::ThreadIdx(_) | Intrinsic::Barrier,
                ..
            }
        ));
    }
    // Two of the three regions can diverge: the divergence report is
    // there, with the barriers' positions in its table.
    assert!(f.placed_insts().any(|(_, i)| matches!(
        f.inst(i),
        InstKind::Call { func, .. } if new.funcs[*func].name == "parc_rt_barrier_divergence"
    )));
    let table = new
        .globals
        .values()
        .find(|g| g.name == "block_sum.barriers")
        .expect("the barrier table");
    assert_eq!(table.size, 48);
    let at = |off: usize| i32::from_le_bytes(table.init[off..off + 4].try_into().expect("4"));
    assert_eq!((at(24), at(28)), (22, 5));
    assert_eq!((at(40), at(44)), (26, 9));
    assert_eq!(table.relocs.len(), 3);
}

#[test]
fn a_kernel_without_barriers_is_one_loop_over_its_threads() {
    let m = read_module(
        "func kernel @saxpy(f64, ptr, i32) {
         block0(v0: f64, v1: ptr, v2: i32):
             v3 = block_idx.x
             v4 = block_dim.x
             v5 = imul v3, v4
             v6 = thread_idx.x
             v7 = iadd v5, v6
             v8 = icmp slt v7, v2
             brif v8, block1, block2
         block1:
             v9 = sext.i64 v7
             v10 = iconst.i64 3
             v11 = shl v9, v10
             v12 = ptradd v1, v11
             v13 = load.f64 v12
             v14 = fmul v0, v13
             store v14, v12
             jump block2
         block2:
             return
         }",
    )
    .expect("reads");
    let out = split_all(&m);
    let launch = out.launches[&kernel(&m, "saxpy")];
    assert_eq!(launch.frame_bytes, 0);
    let new = out.module.expect("split");
    // Nothing can diverge: no report, no table.
    assert!(new.func_by_name("parc_rt_barrier_divergence").is_none());
    assert_eq!(new.globals.len(), 0);
}

#[test]
fn locals_live_across_barriers_get_thread_private_memory() {
    // `a` crosses the barrier (through `*q` and `a[0]`); `b` is used on
    // one side only and stays a stack slot of the block function.
    let m = from_source(
        "__global__ void k(int *out)
         {
             int a[6];
             int b[10];
             int t = threadIdx.x;
             for (int j = 0; j < 10; j++)
                 b[j] = j;
             a[t % 6] = b[t % 10];
             int *q = &a[1];
             __syncthreads();
             out[t] = a[0] + *q;
         }
         int main() { return 0; }",
    );
    let out = split_all(&m);
    let k = kernel(&m, "k");
    let launch = out.launches[&k];
    // At -O0 every local is an `alloca`: `a` (24 bytes), the scalars the
    // region after the barrier reads (`t`, `q`), rounded up to 16.
    assert!(launch.frame_bytes >= 24 + 4 + 8, "{}", launch.frame_bytes);
    assert!(launch.frame_bytes < 24 + 40, "{}", launch.frame_bytes);
    assert_eq!(launch.frame_bytes % 16, 0);
    let new = out.module.expect("split");
    let f = &new.funcs[launch.block_fn];
    let stack: Vec<u32> = f
        .placed_insts()
        .filter_map(|(_, i)| match f.inst(i) {
            InstKind::Alloca { size, .. } => Some(*size),
            _ => None,
        })
        .collect();
    assert!(stack.contains(&40), "`b` stays on the stack: {stack:?}");
    assert!(!stack.contains(&24), "`a` is in the frame: {stack:?}");
}

#[test]
fn barriers_in_callees_keep_the_coroutines() {
    let m = from_source(
        "__device__ void sync_all() { __syncthreads(); }
         __device__ int twice(int v) { return 2 * v; }
         __global__ void calls_sync(int *out) { out[threadIdx.x] = 1; sync_all(); }
         __global__ void calls_twice(int *out) { out[threadIdx.x] = twice(threadIdx.x); }
         int main() { return 0; }",
    );
    let out = split_all(&m);
    let sync = kernel(&m, "calls_sync");
    let twice = kernel(&m, "calls_twice");
    assert_eq!(
        out.refused,
        [(
            sync,
            super::Refusal("it calls a function that may reach a barrier")
        )]
    );
    // A callee without barriers is fine; it reads threadIdx from the
    // runtime, so the block function publishes each thread's ids.
    let launch = out.launches[&twice];
    let new = out.module.expect("split");
    let f = &new.funcs[launch.block_fn];
    let thread_param = f.block_params(f.layout[0])[2];
    assert!(f.placed_insts().any(|(_, i)| matches!(
        f.inst(i),
        InstKind::Store { ptr, .. } if *ptr == thread_param
    )));
}

#[test]
fn a_kernel_whose_copies_would_be_too_big_keeps_the_coroutines() {
    // A loop with many (uniform) conditional barriers followed by a long
    // tail: every region after a barrier of the loop reaches the tail
    // through the loop's exit, so each one copies it.
    let barriers = 40;
    let tail = 400;
    let mut m = Module::new();
    let sig = Signature {
        params: vec![Type::Ptr, Type::I32],
        ret: None,
    };
    let id = m.funcs.push(new_function("k", sig));
    let f = &mut m.funcs[id];
    f.kind = FuncKind::Kernel;
    let entry = f.layout[0];
    let p = f.blocks[entry].params.clone();
    let mut b = FuncBuilder::new(f);
    b.switch_to(entry);
    b.set_loc(SrcLoc::new(1, 1));
    let header = b.create_block();
    let body = b.create_block();
    let exit = b.create_block();
    let zero = b.iconst(Type::I32, 0);
    b.jump(header, vec![zero]);
    b.switch_to(header);
    let i = b.param(header, Type::I32);
    let c = b.icmp(IntCC::Slt, i, p[1]);
    b.brif(c, BlockCall::to(body), BlockCall::to(exit));
    b.switch_to(body);
    for j in 0..barriers {
        let at = b.create_block();
        let cont = b.create_block();
        let k = b.iconst(Type::I32, j as i64);
        let c = b.icmp(IntCC::Eq, i, k);
        b.brif(c, BlockCall::to(at), BlockCall::to(cont));
        b.switch_to(at);
        b.intrinsic(Intrinsic::Barrier, None, vec![]);
        b.jump(cont, vec![]);
        b.switch_to(cont);
    }
    let one = b.iconst(Type::I32, 1);
    let next = b.binary(parc_ir::BinaryOp::Iadd, i, one);
    b.jump(header, vec![next]);
    b.switch_to(exit);
    for _ in 0..tail {
        b.store(i, p[0]);
    }
    b.ret(None);
    let size: usize = m.funcs[id]
        .layout
        .iter()
        .map(|&bl| m.funcs[id].block_insts(bl).len())
        .sum();
    assert!(barriers * tail > MAX_GROWTH * size + super::GROWTH_SLACK);
    let out = split_all(&m);
    assert_eq!(
        out.refused,
        [(id, super::Refusal("its barriers would copy too much code"))]
    );
    assert!(out.module.is_none());
}

#[test]
fn every_kernel_of_the_samples_splits_and_verifies() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut split = 0;
    for dir in ["samples", "tests/kernels", "tests/run"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir))
            .expect("a test directory")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "pc"))
            .collect();
        files.sort();
        for path in files {
            let src = std::fs::read_to_string(&path).expect("readable");
            if !src.contains("__global__") || src.contains("__enzyme_autodiff") {
                continue;
            }
            let m = from_source(&src);
            let out = split_all(&m);
            for (k, why) in &out.refused {
                // At -O0 only kernels calling a barrier stay coroutines.
                assert_eq!(
                    why.0,
                    "it calls a function that may reach a barrier",
                    "{}: `{}`",
                    path.display(),
                    m.funcs[*k].name
                );
            }
            split += out.launches.len();
        }
    }
    assert!(split >= 15, "{split} kernels split");
}
