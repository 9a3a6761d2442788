//! The PTX of small modules, checked for the constructs each parir
//! instruction becomes, and the diagnostics for what device code cannot
//! do. (Every kernel program of the repository also goes through
//! `ptxas` in the driver's `ptx` tests.)

use super::*;

fn ptx(text: &str) -> String {
    let module = parc_ir::read::read_module(text).expect("the test IR reads");
    parc_ir::verify::verify_module(&module).expect("the test IR verifies");
    emit(&module, &PtxOptions::default()).expect("PTX is emitted")
}

fn refused(text: &str) -> PtxError {
    let module = parc_ir::read::read_module(text).expect("the test IR reads");
    match emit(&module, &PtxOptions::default()) {
        Ok(out) => panic!("emitted:\n{out}"),
        Err(e) => e,
    }
}

/// Each needle in order, each after the previous one.
fn assert_in_order(out: &str, needles: &[&str]) {
    let mut at = 0;
    for n in needles {
        match out[at..].find(n) {
            Some(i) => at += i + n.len(),
            None => panic!("`{n}` not found (in order) in:\n{out}"),
        }
    }
}

const KERNEL: &str = r#"
global @k.s shared size 256 align 8 = zeroinit

func kernel convergent @k(ptr "a", ptr "h", i32 "n") {
block0(v0: ptr, v1: ptr, v2: i32):
    v7 = block_idx.x @4:13
    v8 = block_dim.x @4:26
    v9 = imul v7, v8 @4:13
    v10 = thread_idx.x @4:39
    v11 = iadd v9, v10 @4:13
    v12 = global_addr @k.s @5:5
    v14 = sext.i64 v10 @5:7
    v62 = iconst.i64 3 @5:5
    v16 = shl v14, v62 @5:5
    v17 = ptradd v12, v16 @5:5
    v20 = sext.i64 v11 @5:24
    v22 = shl v20, v62 @5:22
    v23 = ptradd v0, v22 @5:22
    v24 = load.f64 v23 @5:22
    store v24, v17 @5:5
    barrier @6:5
    v27 = icmp slt v11, v2 @7:9
    brif v27, block1, block2 @7:5
block1:
    v30 = iconst.i32 7 @8:26
    v31 = srem v11, v30 @8:22
    v32 = sext.i64 v31 @8:22
    v64 = iconst.i64 2 @8:20
    v34 = shl v32, v64 @8:20
    v35 = ptradd v1, v34 @8:20
    v36 = iconst.i32 1 @8:30
    v37 = atomic_add.i32 v35, v36 @8:9
    v38 = atomic_add.i32 v35, v37 @8:9
    v54 = load.f64 v17 @9:16
    v56 = sitofp.f64 v2 @9:44
    v57 = fdiv v54, v56 @9:16
    v58 = udiv v11, v2 @9:16
    store v57, v23 @9:9
    jump block2 @9:9
block2:
    return @11:1
}
"#;

#[test]
fn a_kernel_is_an_entry_with_its_ids_barrier_and_spaces() {
    let out = ptx(KERNEL);
    assert_in_order(
        &out,
        &[
            ".version 7.8",
            ".target sm_70",
            ".address_size 64",
            ".shared .align 8 .b8 $g$k$s[256];",
            ".visible .entry k(",
            ".param .u64 k_param_0",
            ".param .u32 k_param_2",
            // Shared memory zeroed by the block, then a barrier.
            "st.shared.u32",
            "barrier.sync 0;",
            "mov.u32 %r7, %ctaid.x;",
            "mov.u32 %r8, %ntid.x;",
            "mov.u32 %r10, %tid.x;",
            "cvta.shared.u64 %rd12",
            // The kernel's pointer parameters point into global memory.
            "ld.global.f64 %fd24",
            "st.shared.f64",
            "barrier.sync 0;",
            "setp.lt.s32 %p27, %r11, %r2;",
            // Signed remainder: divisor checked, -1 handled.
            "setp.eq.s32",
            "rem.s32",
            // An atomic whose old value nobody reads is a reduction.
            "atom.global.add.u32 %r37",
            "red.global.add.u32",
            "ld.shared.f64 %fd54",
            "cvt.rn.f64.s32 %fd56, %r2;",
            "div.rn.f64 %fd57, %fd54, %fd56;",
            "div.u32",
            "st.global.f64",
            "ret;",
            // The division's fault: the CPU's message, then a trap.
            "call (retval0), vprintf",
            "trap;",
        ],
    );
    assert!(
        out.contains("run-time error in function `k` at line 8:22: integer division by zero")
            || out.contains(&message_bytes(
                "run-time error in function `k` at line 8:22: integer division by zero"
            )),
        "{out}"
    );
    let arch = emit(
        &parc_ir::read::read_module(KERNEL).expect("reads"),
        &PtxOptions {
            arch: GpuArch::Sm90,
            ..PtxOptions::default()
        },
    )
    .expect("emits");
    assert!(arch.contains(".target sm_90"));
}

#[test]
fn at_o0_no_state_space_is_proved() {
    let module = parc_ir::read::read_module(KERNEL).expect("reads");
    let o0 = PtxOptions {
        opt_level: OptLevel::O0,
        ..PtxOptions::default()
    };
    let out = emit(&module, &o0).expect("emits");
    // The program's accesses are those of -O2, all generic (`ld.f64`
    // where -O2 has `ld.global.f64` and `ld.shared.f64`); only the
    // backend's own zeroing of shared memory at entry names its space.
    assert_in_order(
        &out,
        &[
            "st.shared.u32",
            "barrier.sync 0;",
            "ld.f64 %fd24",
            "st.f64",
            "atom.add.u32 %r37",
            "red.add.u32",
            "ld.f64 %fd54",
            "st.f64",
        ],
    );
    for qualified in [
        "ld.global",
        "st.global",
        "ld.shared",
        "st.shared.f64",
        "atom.global",
        "red.global",
    ] {
        assert!(!out.contains(qualified), "`{qualified}` at -O0:\n{out}");
    }
    let o2 = emit(&module, &PtxOptions::default()).expect("emits");
    assert!(o2.contains("ld.global.f64") && o2.contains("ld.shared.f64"));
}

/// The bytes of `text` as the `.global` initializer lists them.
fn message_bytes(text: &str) -> String {
    text.bytes()
        .map(|b| b.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn device_functions_are_funcs_called_with_params() {
    let out = ptx(r#"
func device @twice(f64 "x", i1 "neg", i8 "c") -> f64 {
block0(v0: f64, v1: i1, v2: i8):
    v3 = fadd v0, v0
    v4 = fneg v3
    v5 = select v1, v4, v3
    return v5
}

func kernel @k(ptr "a") {
block0(v0: ptr):
    v1 = load.f64 v0
    v2 = iconst.i1 1
    v3 = iconst.i8 -3
    v4 = call @twice(v1, v2, v3)
    store v4, v0
    return
}
"#);
    assert_in_order(
        &out,
        &[
            ".func (.param .f64 func_retval0) twice (.param .f64 twice_param_0, .param .b32 twice_param_1, .param .b32 twice_param_2);",
            ".visible .entry k(",
            "selp.u32",
            "cvt.s32.s8",
            "call (retval0), twice, (param0, param1, param2);",
            "ld.param.f64 %fd4, [retval0];",
            ".func (.param .f64 func_retval0) twice (",
            "ld.param.f64 %fd0, [twice_param_0];",
            "setp.ne.b32 %p1",
            "add.rn.f64 %fd3, %fd0, %fd0;",
            "neg.f64 %fd4, %fd3;",
            "selp.f64 %fd5, %fd4, %fd3, %p1;",
            "st.param.f64 [func_retval0], %fd5;",
        ],
    );
}

#[test]
fn loops_move_block_arguments_as_one_parallel_copy() {
    // A loop that swaps two values each iteration.
    let out = ptx(r#"
func kernel @k(ptr "a", i32 "n") {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v2, v3, v2)
block1(v4: i32, v5: i32, v6: i32):
    v7 = icmp slt v6, v1
    brif v7, block2, block3
block2:
    v8 = iadd v6, v3
    jump block1(v5, v4, v8)
block3:
    store v4, v0
    return
}
"#);
    assert_in_order(
        &out,
        &[
            "$L__BB1:",
            "setp.lt.s32 %p7, %r6, %r1;",
            "@!%p7 bra $L__BB3;",
            "add.s32 %r8, %r6, %r3;",
            // Through temporaries: v4 and v5 trade places.
            "mov.b32 %rt0, %r5;",
            "mov.b32 %rt1, %r4;",
            "mov.b32 %rt2, %r8;",
            "mov.b32 %r4, %rt0;",
            "mov.b32 %r5, %rt1;",
            "mov.b32 %r6, %rt2;",
            "bra $L__BB1;",
            "$L__BB3:",
            "st.global.u32",
        ],
    );
}

#[test]
fn small_allocas_are_registers_and_others_local_memory() {
    let out = ptx(r#"
func kernel @k(ptr "a") {
block0(v0: ptr):
    v1 = alloca 8, align 8
    v2 = load.f64 v0
    store v2, v1
    v3 = load.i64 v1
    v4 = alloca 64, align 8
    v5 = iconst.i64 8
    v6 = ptradd v4, v5
    store v3, v6
    v7 = load.i64 v6
    store v7, v0
    return
}
"#);
    assert_in_order(
        &out,
        &[
            ".local .align 8 .b8 __local_depot0[64];",
            "cvta.local.u64 %SP, %SPL;",
            // The 8-byte slot: a register, bits copied between types.
            "mov.b64 %rdt0, 0;",
            "mov.b64 %rdt0, %fd2;",
            "mov.b64 %rd3, %rdt0;",
            // The array: local memory, zeroed where it is allocated.
            "add.u64 %rd4, %SP, 0;",
            "st.local.u64 [%SPL+56], 0;",
            "st.local.u64 [%rd_s4+8], %rd3;",
            "ld.local.u64 %rd7, [%rd_s4+8];",
        ],
    );
}

#[test]
fn printf_packs_its_arguments_for_vprintf() {
    let out = ptx(r#"
global @fmt const size 7 align 1 = "%d %f\0A\00"

func kernel @k(i32 "n", f64 "x") {
block0(v0: i32, v1: f64):
    v2 = global_addr @fmt
    v3 = printf v2, v0, v1
    return
}
"#);
    assert_in_order(
        &out,
        &[
            ".extern .func (.param .b32 func_retval0) vprintf",
            ".global .align 1 .b8 $g$fmt[7] = {37, 100, 32, 37, 102, 10, 0};",
            "st.local.u32 [%SPL+0], %r0;",
            "st.local.f64 [%SPL+8], %fd1;",
            "call (retval0), vprintf, (param0, param1);",
        ],
    );
}

#[test]
fn what_device_code_cannot_do_is_named_with_its_position() {
    let e = refused(
        r#"
declare @ext(f64) -> f64

func kernel @k(ptr "a") {
block0(v0: ptr):
    v1 = load.f64 v0
    v2 = call @ext(v1) @3:9
    store v2, v0
    return
}
"#,
    );
    assert_eq!(e.loc, SrcLoc::new(3, 9));
    assert_eq!(
        e.to_string(),
        "cannot run `k` on the GPU: a call to `extern` function `ext`, which is not defined in this program"
    );
    let e = refused(
        r#"
func kernel @k(i32 "s") {
block0(v0: i32):
    exit v0 @7:5
    unreachable
}
"#,
    );
    assert_eq!(e.loc, SrcLoc::new(7, 5));
    assert!(e.message.contains("`exit`"), "{e}");
    let e = refused(
        r#"
global @count size 4 align 4 = zeroinit

func kernel @k() {
block0:
    v0 = global_addr @count @2:5
    v1 = iconst.i32 1
    store v1, v0
    return
}
"#,
    );
    assert!(
        e.message
            .contains("the global variable `count` is written by device code"),
        "{e}"
    );
}

#[test]
fn names_are_ptx_identifiers() {
    assert_eq!(symbol("k.fwd"), "k$fwd");
    assert_eq!(symbol("saxpy"), "saxpy");
    assert_eq!(symbol("malloc"), "$f$malloc");
    assert_eq!(global_symbol("k.s"), "$g$k$s");
    assert_eq!(GpuArch::for_capability(9, 0), Some(GpuArch::Sm90));
    assert_eq!(GpuArch::for_capability(8, 6), Some(GpuArch::Sm80));
    assert_eq!(GpuArch::for_capability(7, 5), Some(GpuArch::Sm70));
    assert_eq!(GpuArch::for_capability(6, 1), None);
}

#[test]
fn adds_of_all_threads_into_one_place_are_summed_by_the_warp_first() {
    let out = ptx(r#"
func kernel @k(ptr "sum", ptr "x") {
block0(v0: ptr, v1: ptr):
    v2 = thread_idx.x
    v3 = sext.i64 v2
    v4 = iconst.i64 3
    v5 = shl v3, v4
    v6 = ptradd v1, v5
    v7 = load.f64 v6
    v8 = iconst.i64 8
    v9 = ptradd v0, v8
    v10 = atomic_add.f64 v9, v7
    v11 = atomic_add.f64 v6, v7
    return
}
"#);
    assert_in_order(
        &out,
        &[
            "activemask.b32",
            "shfl.sync.bfly.b32",
            "shfl.sync.bfly.b32",
            "mov.u32 %rt",
            "%laneid;",
            "red.global.add.f64 [%rd_s0+8]",
            // Not the whole warp: each thread on its own.
            "red.global.add.f64 [%rd_s0+8], %fd7;",
            // A thread's own element: a plain atomic.
            "red.global.add.f64 [%rd_s6], %fd7;",
        ],
    );
}

#[test]
fn trunc_and_round_are_instructions_and_library_math_needs_the_library() {
    let out = ptx(r#"
func kernel @k(ptr "a") {
block0(v0: ptr):
    v1 = load.f64 v0
    v2 = ftrunc.f64 v1
    v3 = round.f64 v2
    store v3, v0
    return
}
"#);
    assert_in_order(
        &out,
        &[
            "cvt.rzi.f64.f64",
            "cvt.rzi.f64.f64",
            "setp.ge.f64",
            "copysign.f64",
            "selp.f64",
            "add.f64",
        ],
    );
    let e = refused(
        r#"
func kernel @k(ptr "a") {
block0(v0: ptr):
    v1 = load.f32 v0
    v2 = erf.f32 v1 @4:14
    store v2, v0
    return
}
"#,
    );
    assert_eq!(e.loc, SrcLoc::new(4, 14));
    assert!(
        e.message
            .contains("`erf` on the GPU needs parc's device math library"),
        "{e}"
    );
}
