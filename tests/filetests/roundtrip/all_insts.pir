; test: roundtrip
; Every instruction kind and every intrinsic, with source positions.
source "all.pc"
global @fmt const size 4 align 1 = "%d\0A\00"
global @table size 16 align 8 = zeroinit
    reloc 0 = @fmt + 0
    reloc 8 = @fmt - 1
global @tile shared size 256 align 16 = zeroinit
declare @ext(f64) -> f64
declare device @dext(i32)
func local @callee(i32, f64) -> f64 {
block0(v0: i32, v1: f64):
    return v1
}
func @host(i32, i64, f32, f64, ptr, i1) -> i32 {
block0(v0: i32, v1: i64, v2: f32, v3: f64, v4: ptr, v5: i1):
    v6 = iconst.i32 -7 @1:1
    v7 = iconst.i64 9223372036854775807
    v8 = iconst.i64 -9223372036854775808
    v9 = iconst.ptr 0
    v10 = iconst.i1 1
    v11 = iconst.i8 -128
    v12 = fconst.f64 1.5
    v13 = fconst.f64 -0.0
    v14 = fconst.f64 inf
    v15 = fconst.f64 -inf
    v16 = fconst.f64 0x7FF8000000000000
    v17 = fconst.f32 0.25
    v18 = fconst.f64 1e300
    v19 = fconst.f64 5e-324
    v20 = global_addr @table
    v21 = func_addr @callee
    v22 = fneg v3
    v23 = iadd v0, v6
    v24 = isub v0, v6
    v25 = imul v0, v6
    v26 = sdiv v0, v6
    v27 = udiv v0, v6
    v28 = srem v0, v6
    v29 = urem v0, v6
    v30 = and v0, v6
    v31 = or v0, v6
    v32 = xor v0, v6
    v33 = shl v1, v0
    v34 = lshr v0, v6
    v35 = ashr v0, v6
    v36 = fadd v3, v12
    v37 = fsub v3, v12
    v38 = fmul v3, v12
    v39 = fdiv v3, v12
    v40 = icmp eq v0, v6
    v41 = icmp ne v0, v6
    v42 = icmp slt v0, v6
    v43 = icmp sle v0, v6
    v44 = icmp sgt v0, v6
    v45 = icmp sge v0, v6
    v46 = icmp ult v0, v6
    v47 = icmp ule v0, v6
    v48 = icmp ugt v0, v6
    v49 = icmp uge v4, v9
    v50 = fcmp eq v3, v12
    v51 = fcmp ne v3, v12
    v52 = fcmp lt v3, v12
    v53 = fcmp le v3, v12
    v54 = fcmp gt v3, v12
    v55 = fcmp ge v3, v12
    v56 = sext.i64 v0
    v57 = zext.i64 v0
    v58 = trunc.i8 v0
    v59 = sitofp.f64 v0
    v60 = uitofp.f32 v1
    v61 = fptosi.i32 v3
    v62 = fptoui.i64 v3
    v63 = fpext.f64 v2
    v64 = fptrunc.f32 v3
    v65 = ptrtoint.i64 v4
    v66 = inttoptr.ptr v1
    v67 = select v5, v0, v6
    v68 = alloca 24, align 8
    v69 = load.f64 v68 @2:3
    store v69, v68 @2:9
    v70 = ptradd v68, v1
    v71 = call @callee(v0, v3) @3:4
    v72 = call @ext(v71)
    v73 = sqrt.f64 v3
    v74 = exp.f64 v3
    v75 = log.f64 v3
    v76 = pow.f32 v2, v2
    v77 = sin.f64 v3
    v78 = cos.f64 v3
    v79 = tan.f64 v3
    v80 = tanh.f64 v3
    v81 = fabs.f64 v3
    v82 = fmin.f64 v3, v12
    v83 = fmax.f64 v3, v12
    v84 = floor.f64 v3
    v85 = ceil.f64 v3
    v86 = abs v0
    v87 = labs v1
    v88 = malloc v1
    v89 = calloc v1, v1
    free v88
    memcpy v89, v4, v1
    memset v89, v0, v1
    v90 = global_addr @fmt
    v91 = printf v90, v0, v3, v1, v4
    v92 = atoi v4
    v93 = atol v4
    v94 = atof v4
    v95 = strcmp v4, v90
    v96 = wtime
    v97 = atomic_add.i64 v4, v1
    v98 = cuda_malloc v68, v1
    v99 = cuda_memcpy.h2d v89, v4, v1
    v100 = cuda_memcpy.d2h v89, v4, v1
    v101 = cuda_memcpy.d2d v89, v4, v1
    v102 = cuda_free v89
    v103 = cuda_device_synchronize
    launch @kern(v4) grid(v0, v0, v0) block(v6, v6, v6) @7:1
    brif v5, block1(v0), block2
block1(v104: i32):
    jump block3(v104)
block2:
    detach within sr0, block4, block5
block4:
    reattach within sr0, block5
block5:
    sync within sr0, block6
block6:
    exit v0
    unreachable
block3(v105: i32):
    return v105
}
func kernel convergent @kern(ptr) {
block0(v0: ptr):
    v1 = thread_idx.x
    v2 = thread_idx.y
    v3 = thread_idx.z
    v4 = block_idx.x
    v5 = block_idx.y
    v6 = block_idx.z
    v7 = block_dim.x
    v8 = block_dim.y
    v9 = block_dim.z
    v10 = grid_dim.x
    v11 = grid_dim.y
    v12 = grid_dim.z
    barrier
    v13 = global_addr @tile
    v15 = fconst.f32 1.0
    v14 = atomic_add.f32 v13, v15
    call @dext(v1)
    return
}
