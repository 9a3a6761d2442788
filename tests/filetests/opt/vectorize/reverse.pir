; test: pass vectorize
; exit: 0
; stat: vectorize.loops = 1
; check: func @acc(ptr, ptr, f64, i32, i64) {
; nextln: block0(v0: ptr, v1: ptr, v2: f64, v3: i32, v4: i64):
; nextln: v5 = iconst.i64 0
; nextln: v6 = iconst.i64 1
; nextln: v7 = iconst.i64 3
; nextln: v8 = iconst.i64 0
; nextln: v30 = isub v4, v5
; nextln: v31 = iconst.i64 -2
; nextln: v32 = and v30, v31
; nextln: v33 = iconst.i64 0
; nextln: v34 = iconst.i64 5
; nextln: v35 = icmp uge v30, v34
; nextln: brif v35, block4, block9(v2, v4)
; nextln: block4:
; nextln: v36 = iconst.i64 8
; nextln: v37 = imul v32, v36
; nextln: v38 = isub v4, v6
; nextln: v39 = shl v38, v7
; nextln: v40 = ptradd v0, v39
; nextln: v41 = ptrtoint.i64 v40
; nextln: v42 = iadd v41, v8
; nextln: v43 = inttoptr.ptr v42
; nextln: v44 = ptradd v43, v36
; nextln: v45 = isub v36, v37
; nextln: v46 = ptradd v43, v45
; nextln: v47 = trunc.i32 v38
; nextln: v48 = iadd v3, v47
; nextln: v49 = sext.i64 v48
; nextln: v50 = shl v49, v7
; nextln: v51 = ptradd v1, v50
; nextln: v52 = ptradd v51, v36
; nextln: v53 = isub v36, v37
; nextln: v54 = ptradd v51, v53
; nextln: v55 = icmp ule v44, v54
; nextln: v56 = icmp ule v52, v46
; nextln: v57 = or v55, v56
; nextln: v58 = iconst.i64 4294967296
; nextln: v59 = icmp ule v32, v58
; nextln: v60 = and v57, v59
; nextln: v61 = sext.i64 v48
; nextln: v62 = iconst.i64 -1
; nextln: v63 = imul v32, v62
; nextln: v64 = iadd v61, v63
; nextln: v65 = isub v64, v62
; nextln: v66 = iconst.i64 -2147483648
; nextln: v67 = icmp sge v65, v66
; nextln: v68 = and v60, v67
; nextln: brif v68, block5, block9(v2, v4)
; nextln: block5:
; nextln: v75 = iconst.i64 -1
; nextln: v76 = iadd v4, v75
; nextln: v84 = splat.f64x2 v2
; nextln: jump block6(v2, v76, v33)
; nextln: block6(v69: f64, v70: i64, v71: i64):
; nextln: v72 = icmp ult v71, v32
; nextln: brif v72, block7, block8
; nextln: block7:
; nextln: v77 = isub v70, v6
; nextln: v78 = trunc.i32 v77
; nextln: v79 = iadd v3, v78
; nextln: v80 = sext.i64 v79
; nextln: v81 = shl v80, v7
; nextln: v82 = ptradd v1, v81
; nextln: v83 = load.f64x2 v82
; nextln: v85 = fmul v84, v83
; nextln: v86 = shl v77, v7
; nextln: v87 = ptradd v0, v86
; nextln: v88 = ptrtoint.i64 v87
; nextln: v89 = iadd v88, v8
; nextln: v90 = inttoptr.ptr v89
; nextln: v91 = load.f64x2 v90
; nextln: v92 = fadd v91, v85
; nextln: store v92, v90
; nextln: v93 = iconst.i64 -2
; nextln: v94 = iadd v70, v93
; nextln: v95 = iconst.i64 2
; nextln: v96 = iadd v71, v95
; nextln: jump block6(v69, v94, v96)
; nextln: block8:
; nextln: v73 = iconst.i64 1
; nextln: v74 = iadd v70, v73
; nextln: jump block9(v2, v74)
; nextln: block9(v28: f64, v29: i64):
; nextln: jump block1(v28, v29)
; nextln: block1(v10: f64, v11: i64):
; nextln: v12 = icmp eq v11, v5
; nextln: brif v12, block3, block2
; nextln: block2:
; nextln: v13 = isub v11, v6
; nextln: v14 = trunc.i32 v13
; nextln: v15 = iadd v3, v14
; nextln: v16 = sext.i64 v15
; nextln: v17 = shl v16, v7
; nextln: v18 = ptradd v1, v17
; nextln: v19 = load.f64 v18
; nextln: v20 = fmul v10, v19
; nextln: v21 = shl v13, v7
; nextln: v22 = ptradd v0, v21
; nextln: v23 = ptrtoint.i64 v22
; nextln: v24 = iadd v23, v8
; nextln: v25 = inttoptr.ptr v24
; nextln: v26 = load.f64 v25
; nextln: v27 = fadd v26, v20
; nextln: store v27, v25
; nextln: jump block1(v10, v13)
; nextln: block3:
; nextln: return
; nextln: }
; @acc: the AD's reverse of `for (i = 0; i < n; i++) d[i] += c * x[off + i]`,
; counting down (k = n, ..., 1 on `k != 0`, the body on k - 1), with the
; `int` index `off + trunc(k - 1)`, the adjoint `c` a header parameter the
; back edge passes unchanged (invariant), and the update addressed as
; `slab + (ptrtoint(d + 8i) + delta)` as the AD addresses a private copy of
; a shadow. Lanes run against the iterations: lane 0 is the last of the
; two iterations a vector iteration runs, so the loads and the store are
; of consecutive elements (f64x2); the vector header's counter starts one
; step down (n - 1), the remainder gets it back (+1). The overlap test
; takes d's bytes from one element below the first iteration's (nv - 1
; elements below it, counting down), and the 32-bit index's no-wrap test
; is against INT_MIN. @main runs it on 7 elements (3 vector iterations
; and one scalar) and on 1 (scalar only), and prints d, the same before
; and after.
global @fmt const size 7 align 1 = "%.17g\0A\00"

func @acc(ptr, ptr, f64, i32, i64) {
block0(v0: ptr, v1: ptr, v2: f64, v3: i32, v4: i64):
    v5 = iconst.i64 0
    v6 = iconst.i64 1
    v7 = iconst.i64 3
    v8 = iconst.i64 0
    jump block1(v2, v4)
block1(v10: f64, v11: i64):
    v12 = icmp eq v11, v5
    brif v12, block3, block2
block2:
    v13 = isub v11, v6
    v14 = trunc.i32 v13
    v15 = iadd v3, v14
    v16 = sext.i64 v15
    v17 = shl v16, v7
    v18 = ptradd v1, v17
    v19 = load.f64 v18
    v20 = fmul v10, v19
    v21 = shl v13, v7
    v22 = ptradd v0, v21
    v23 = ptrtoint.i64 v22
    v24 = iadd v23, v8
    v25 = inttoptr.ptr v24
    v26 = load.f64 v25
    v27 = fadd v26, v20
    store v27, v25
    jump block1(v10, v13)
block3:
    return
}

func @main() -> i32 {
block0:
    v0 = alloca 56, align 8
    v1 = alloca 80, align 8
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    v4 = iconst.i32 7
    v5 = iconst.i64 3
    v6 = iconst.i32 10
    v7 = fconst.f64 0.5
    v8 = fconst.f64 1.5
    v30 = iconst.i64 7
    v31 = iconst.i64 1
    v32 = fconst.f64 -2.0
    jump block1(v2)
block1(v9: i32):
    v10 = icmp slt v9, v6
    brif v10, block2, block3
block2:
    v11 = sext.i64 v9
    v12 = shl v11, v5
    v13 = iadd v9, v3
    v14 = sitofp.f64 v13
    v15 = ptradd v1, v12
    v16 = fmul v14, v14
    store v16, v15
    v17 = icmp slt v9, v4
    brif v17, block4, block5
block4:
    v18 = ptradd v0, v12
    v19 = fmul v14, v7
    store v19, v18
    jump block5
block5:
    jump block1(v13)
block3:
    call @acc(v0, v1, v8, v3, v30)
    call @acc(v0, v1, v32, v4, v31)
    v20 = global_addr @fmt
    jump block6(v2)
block6(v21: i32):
    v22 = icmp slt v21, v4
    brif v22, block7, block8
block7:
    v23 = sext.i64 v21
    v24 = shl v23, v5
    v25 = ptradd v0, v24
    v26 = load.f64 v25
    v27 = printf v20, v26
    v28 = iadd v21, v3
    jump block6(v28)
block8:
    return v2
}
