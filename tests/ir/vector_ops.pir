; Every vector instruction on every vector type, with values whose
; results depend on lane order (reduce_fadd's rounding), integer wrapping
; lane by lane, and a loop carrying a vector in a block parameter. The
; interpreter and native code must print the same; the expected output was
; checked by hand (see the comments).
global @.f4 const size 25 align 1 = "%.17g %.17g %.17g %.17g\0A\00"
global @.i4 const size 13 align 1 = "%d %d %d %d\0A\00"
global @.l2 const size 9 align 1 = "%ld %ld\0A\00"

func export @main() -> i32 {
block0:
    v0 = alloca 64, align 16
    v1 = global_addr @.f4
    v2 = global_addr @.i4
    v3 = global_addr @.l2
    v4 = fconst.f64 0.1
    v5 = fconst.f64 3.0
    v6 = iconst.i64 8
    v7 = ptradd v0, v6
    store v4, v0
    store v5, v7
    v8 = load.f64x2 v0
    v9 = splat.f64x2 v4
    v10 = fadd v8, v9
    v11 = fmul v10, v8
    v12 = fdiv v11, v9
    v13 = fsub v12, v8
    v14 = fneg v13
    v15 = insert_lane v14, v5, 1
    v16 = extract_lane v15, 0
    v17 = extract_lane v15, 1
    v18 = reduce_fadd v12
    v19 = reduce_fmul v12
    v20 = printf v1, v16, v17, v18, v19
    ; lane order: (1e16 + 1) + 1 rounds twice, 1e16 + (1 + 1) does not
    v21 = fconst.f64 10000000000000000.0
    v22 = fconst.f64 1.0
    v23 = splat.f64x2 v22
    v24 = insert_lane v23, v21, 0
    v25 = reduce_fadd v24
    v26 = extract_lane v24, 0
    v27 = extract_lane v24, 1
    v28 = printf v1, v25, v26, v27, v22
    ; f32x4: four lanes, stored and reloaded as scalars
    v29 = fconst.f32 1.5
    v30 = fconst.f32 -2.25
    v31 = splat.f32x4 v29
    v32 = insert_lane v31, v30, 2
    v33 = fmul v32, v32
    v34 = fsub v33, v31
    store v34, v0
    v35 = load.f32 v0
    v36 = iconst.i64 4
    v37 = ptradd v0, v36
    v38 = load.f32 v37
    v39 = ptradd v37, v36
    v40 = load.f32 v39
    v41 = reduce_fadd v34
    v42 = fpext.f64 v35
    v43 = fpext.f64 v38
    v44 = fpext.f64 v40
    v45 = fpext.f64 v41
    v46 = printf v1, v42, v43, v44, v45
    ; i32x4: wrapping lane by lane
    v47 = iconst.i32 2147483647
    v48 = iconst.i32 -5
    v49 = splat.i32x4 v47
    v50 = insert_lane v49, v48, 3
    v51 = iconst.i32 1
    v52 = splat.i32x4 v51
    v53 = iadd v50, v52
    v54 = imul v53, v50
    v55 = isub v54, v52
    v56 = and v55, v50
    v57 = or v56, v52
    v58 = xor v57, v53
    store v58, v0
    v59 = load.i32 v0
    v60 = load.i32 v37
    v61 = load.i32 v39
    v62 = iconst.i64 12
    v63 = ptradd v0, v62
    v64 = load.i32 v63
    v65 = printf v2, v59, v60, v61, v64
    v66 = reduce_iadd v50
    v67 = reduce_imul v53
    v68 = reduce_and v55
    v69 = reduce_or v57
    v70 = printf v2, v66, v67, v68, v69
    ; i64x2
    v71 = iconst.i64 -9223372036854775807
    v72 = splat.i64x2 v71
    v73 = iconst.i64 -3
    v74 = insert_lane v72, v73, 1
    v75 = isub v74, v72
    v76 = imul v75, v74
    v77 = reduce_xor v76
    v78 = extract_lane v76, 1
    v79 = printf v3, v77, v78
    ; a loop carrying a vector: the sum of 0.5 * (k, k + 1) for k = 0, 2, 4
    v80 = fconst.f64 0.0
    v81 = splat.f64x2 v80
    v82 = iconst.i64 0
    jump block1(v82, v81)
block1(v83: i64, v84: f64x2):
    v85 = iconst.i64 6
    v86 = icmp slt v83, v85
    brif v86, block2, block3
block2:
    v87 = sitofp.f64 v83
    v88 = fconst.f64 1.0
    v89 = fadd v87, v88
    v90 = splat.f64x2 v87
    v91 = insert_lane v90, v89, 1
    v92 = fconst.f64 0.5
    v93 = splat.f64x2 v92
    v94 = fmul v91, v93
    v95 = fadd v84, v94
    v96 = iconst.i64 2
    v97 = iadd v83, v96
    jump block1(v97, v95)
block3:
    v98 = extract_lane v84, 0
    v99 = extract_lane v84, 1
    v100 = reduce_fadd v84
    v101 = printf v1, v98, v99, v100, v80
    v102 = iconst.i32 0
    return v102
}
