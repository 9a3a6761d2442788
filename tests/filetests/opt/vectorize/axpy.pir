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
; nextln: v63 = iconst.i64 -2
; nextln: v64 = and v62, v63
; nextln: v65 = iconst.i64 0
; nextln: v66 = icmp ne v64, v65
; nextln: brif v66, block5, block10(v48)
; nextln: block5:
; nextln: v67 = iconst.i64 8
; nextln: v68 = imul v64, v67
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
; nextln: v85 = splat.f64x2 v2
; nextln: v88 = iconst.i64 1
; nextln: jump block7(v48, v65)
; nextln: block7(v77: i64, v78: i64):
; nextln: v79 = icmp ult v78, v64
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
; nextln: v89 = iconst.i64 2
; nextln: v90 = iadd v77, v89
; nextln: v91 = iconst.i64 2
; nextln: v92 = iadd v78, v91
; nextln: jump block7(v90, v92)
; nextln: block9:
; nextln: jump block10(v77)
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
; vector loop (block7, block8: two lanes of f64) runs n & -2 iterations
; when the run-time test (block5) finds that the bytes of y and x it
; touches do not overlap; the original loop (block1, entered from block9)
; runs the rest, or all of them. `a` is splatted once, before the loop.
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
