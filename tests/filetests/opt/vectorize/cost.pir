; test: pass vectorize
; The cost model. `y[i] = y[i] + a * x[i]` costs 7 per scalar iteration
; and 7 per vector iteration of two (the vector loop tests the loop's own
; counter); interleaved, two copies share one test and one counter step
; (2 of the 7), so 12 per four iterations; entering the vector path (the
; trip count, the guard, one overlap test, `a` splatted) costs 21, so it
; pays from 21 * 4 / (4 * 7 - 12) + 1 = 6 iterations on.
; @five: five iterations (a constant) do not pay: left scalar
; (not-profitable).
; @many: n unknown: vectorized and interleaved, and the vector path is
; taken when n >= 6 (the guard compares the trip count with 6, not
; n & -4 with 0).
; stat: vectorize.loops = 1
; stat: vectorize.missed.not-profitable = 1
; check: func @five(ptr, ptr, f64) {
; nextln: block0(v0: ptr, v1: ptr, v2: f64):
; nextln: v45 = iconst.i64 3
; nextln: v48 = iconst.i64 0
; nextln: v52 = iconst.i64 5
; nextln: jump block1(v48)
; nextln: block1(v49: i64):
; nextln: v12 = icmp slt v49, v52
; nextln: brif v12, block2, block4
; nextln: block2:
; nextln: v17 = shl v49, v45
; nextln: v18 = ptradd v0, v17
; nextln: v25 = load.f64 v18
; nextln: v32 = ptradd v1, v17
; nextln: v33 = load.f64 v32
; nextln: v34 = fmul v2, v33
; nextln: v35 = fadd v25, v34
; nextln: store v35, v18
; nextln: v50 = iconst.i64 1
; nextln: v51 = iadd v49, v50
; nextln: jump block1(v51)
; nextln: block4:
; nextln: return
; nextln: }
; check: func @many(ptr, ptr, f64, i64) {
; nextln: block0(v0: ptr, v1: ptr, v2: f64, v3: i64):
; nextln: v45 = iconst.i64 3
; nextln: v48 = iconst.i64 0
; nextln: v53 = icmp slt v48, v3
; nextln: v54 = isub v3, v48
; nextln: v55 = iconst.i64 1
; nextln: v56 = isub v54, v55
; nextln: v57 = iconst.i64 1
; nextln: v58 = udiv v56, v57
; nextln: v59 = iadd v58, v55
; nextln: v60 = iconst.i64 0
; nextln: v61 = select v53, v59, v60
; nextln: v62 = iconst.i64 -4
; nextln: v63 = and v61, v62
; nextln: v64 = iconst.i64 0
; nextln: v65 = iconst.i64 6
; nextln: v66 = icmp uge v61, v65
; nextln: brif v66, block5, block10(v48)
; nextln: block5:
; nextln: v67 = iconst.i64 8
; nextln: v68 = imul v63, v67
; nextln: v69 = shl v48, v45
; nextln: v70 = ptradd v0, v69
; nextln: v71 = ptradd v70, v68
; nextln: v72 = ptradd v1, v69
; nextln: v73 = ptradd v72, v68
; nextln: v74 = icmp ule v71, v72
; nextln: v75 = icmp ule v73, v70
; nextln: v76 = or v74, v75
; nextln: brif v76, block6, block10(v48)
; nextln: block6:
; nextln: v78 = iadd v48, v63
; nextln: v85 = splat.f64x2 v2
; nextln: v88 = iconst.i64 1
; nextln: jump block7(v48)
; nextln: block7(v77: i64):
; nextln: v79 = icmp ne v77, v78
; nextln: brif v79, block8, block9
; nextln: block8:
; nextln: v80 = shl v77, v45
; nextln: v81 = ptradd v0, v80
; nextln: v82 = load.f64x2 v81
; nextln: v83 = ptradd v1, v80
; nextln: v84 = load.f64x2 v83
; nextln: v86 = fmul v85, v84
; nextln: v87 = fadd v82, v86
; nextln: store v87, v81
; nextln: v89 = iconst.i64 16
; nextln: v90 = ptradd v81, v89
; nextln: v91 = load.f64x2 v90
; nextln: v92 = iconst.i64 16
; nextln: v93 = ptradd v83, v92
; nextln: v94 = load.f64x2 v93
; nextln: v95 = fmul v85, v94
; nextln: v96 = fadd v91, v95
; nextln: store v96, v90
; nextln: v97 = iconst.i64 4
; nextln: v98 = iadd v77, v97
; nextln: jump block7(v98)
; nextln: block9:
; nextln: jump block10(v77)
; nextln: block10(v52: i64):
; nextln: jump block1(v52)
; nextln: block1(v49: i64):
; nextln: v12 = icmp slt v49, v3
; nextln: brif v12, block2, block4
; nextln: block2:
; nextln: v17 = shl v49, v45
; nextln: v18 = ptradd v0, v17
; nextln: v25 = load.f64 v18
; nextln: v32 = ptradd v1, v17
; nextln: v33 = load.f64 v32
; nextln: v34 = fmul v2, v33
; nextln: v35 = fadd v25, v34
; nextln: store v35, v18
; nextln: v50 = iconst.i64 1
; nextln: v51 = iadd v49, v50
; nextln: jump block1(v51)
; nextln: block4:
; nextln: return
; nextln: }
func @five(ptr, ptr, f64) {
block0(v0: ptr, v1: ptr, v2: f64):
    v45 = iconst.i64 3
    v48 = iconst.i64 0
    v52 = iconst.i64 5
    jump block1(v48)
block1(v49: i64):
    v12 = icmp slt v49, v52
    brif v12, block2, block4
block2:
    v17 = shl v49, v45
    v18 = ptradd v0, v17
    v25 = load.f64 v18
    v32 = ptradd v1, v17
    v33 = load.f64 v32
    v34 = fmul v2, v33
    v35 = fadd v25, v34
    store v35, v18
    v50 = iconst.i64 1
    v51 = iadd v49, v50
    jump block1(v51)
block4:
    return
}

func @many(ptr, ptr, f64, i64) {
block0(v0: ptr, v1: ptr, v2: f64, v3: i64):
    v45 = iconst.i64 3
    v48 = iconst.i64 0
    jump block1(v48)
block1(v49: i64):
    v12 = icmp slt v49, v3
    brif v12, block2, block4
block2:
    v17 = shl v49, v45
    v18 = ptradd v0, v17
    v25 = load.f64 v18
    v32 = ptradd v1, v17
    v33 = load.f64 v32
    v34 = fmul v2, v33
    v35 = fadd v25, v34
    store v35, v18
    v50 = iconst.i64 1
    v51 = iadd v49, v50
    jump block1(v51)
block4:
    return
}
