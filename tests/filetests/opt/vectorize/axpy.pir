; test: pass vectorize
; check: func @axpy(ptr, ptr, f64, i32) {
; nextln: block0(v0: ptr, v1: ptr, v2: f64, v3: i32):
; nextln: v45 = iconst.i64 3
; nextln: v48 = iconst.i64 0
; nextln: v52 = sext.i64 v3
; nextln: v54 = icmp slt v48, v52
; nextln: v55 = isub v52, v48
; nextln: v56 = iconst.i64 1
; nextln: v57 = isub v55, v56
; nextln: v58 = iconst.i64 1
; nextln: v59 = udiv v57, v58
; nextln: v60 = iadd v59, v56
; nextln: v61 = iconst.i64 0
; nextln: v62 = select v54, v60, v61
; nextln: v63 = iconst.i64 -4
; nextln: v64 = and v62, v63
; nextln: v65 = iconst.i64 0
; nextln: v66 = iconst.i64 6
; nextln: v67 = icmp uge v62, v66
; nextln: brif v67, block5, block10(v48)
; nextln: block5:
; nextln: v68 = iconst.i64 8
; nextln: v69 = imul v64, v68
; nextln: v70 = shl v48, v45
; nextln: v71 = ptradd v0, v70
; nextln: v72 = ptradd v71, v69
; nextln: v73 = ptradd v1, v70
; nextln: v74 = ptradd v73, v69
; nextln: v75 = icmp ule v72, v73
; nextln: v76 = icmp ule v74, v71
; nextln: v77 = or v75, v76
; nextln: brif v77, block6, block10(v48)
; nextln: block6:
; nextln: v79 = iadd v48, v64
; nextln: v86 = splat.f64x2 v2
; nextln: v89 = iconst.i64 1
; nextln: jump block7(v48)
; nextln: block7(v78: i64):
; nextln: v80 = icmp ne v78, v79
; nextln: brif v80, block8, block9
; nextln: block8:
; nextln: v81 = shl v78, v45
; nextln: v82 = ptradd v0, v81
; nextln: v83 = load.f64x2 v82
; nextln: v84 = ptradd v1, v81
; nextln: v85 = load.f64x2 v84
; nextln: v87 = fmul v86, v85
; nextln: v88 = fadd v83, v87
; nextln: store v88, v82
; nextln: v90 = iconst.i64 16
; nextln: v91 = ptradd v82, v90
; nextln: v92 = load.f64x2 v91
; nextln: v93 = iconst.i64 16
; nextln: v94 = ptradd v84, v93
; nextln: v95 = load.f64x2 v94
; nextln: v96 = fmul v86, v95
; nextln: v97 = fadd v92, v96
; nextln: store v97, v91
; nextln: v98 = iconst.i64 4
; nextln: v99 = iadd v78, v98
; nextln: jump block7(v99)
; nextln: block9:
; nextln: jump block10(v78)
; nextln: block10(v53: i64):
; nextln: jump block1(v53)
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
; `for (i = 0; i < n; i++) y[i] = y[i] + a * x[i];` on plain pointers: the
; vector loop (block7, block8: two lanes of f64, interleaved: two copies
; of the body, the second's addresses the first's plus 16 bytes) runs
; n & -4 iterations when n is at least 6 (the cost model's threshold,
; vectorize/cost.pir) and the run-time test (block5) finds that the bytes
; of y and x it touches do not overlap; the original loop (block1,
; entered from block9) runs the rest, or all of them. `a` is splatted
; once, before the loop. The vector loop tests the loop's own counter
; `v78` against its value at the end, `v79`, computed on the way in.
func @axpy(ptr, ptr, f64, i32) {
block0(v0: ptr, v1: ptr, v2: f64, v3: i32):
    v45 = iconst.i64 3
    v48 = iconst.i64 0
    v52 = sext.i64 v3
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
