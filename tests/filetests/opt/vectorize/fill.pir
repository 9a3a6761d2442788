; test: pass vectorize
; check: func @fill(ptr, i64, i32) {
; nextln: block0(v0: ptr, v1: i64, v2: i32):
; nextln: v26 = iconst.i64 3
; nextln: v27 = iconst.i64 0
; nextln: v31 = sext.i64 v2
; nextln: v33 = icmp slt v27, v31
; nextln: v34 = isub v31, v27
; nextln: v35 = iconst.i64 1
; nextln: v36 = isub v34, v35
; nextln: v37 = iconst.i64 1
; nextln: v38 = udiv v36, v37
; nextln: v39 = iadd v38, v35
; nextln: v40 = iconst.i64 0
; nextln: v41 = select v33, v39, v40
; nextln: v42 = iconst.i64 -4
; nextln: v43 = and v41, v42
; nextln: v44 = iconst.i64 0
; nextln: v45 = iconst.i64 7
; nextln: v46 = icmp uge v41, v45
; nextln: brif v46, block5, block9(v27)
; nextln: block5:
; nextln: v48 = iadd v27, v43
; nextln: v52 = splat.i64x2 v1
; nextln: v53 = iconst.i64 1
; nextln: jump block6(v27)
; nextln: block6(v47: i64):
; nextln: v49 = icmp ne v47, v48
; nextln: brif v49, block7, block8
; nextln: block7:
; nextln: v50 = shl v47, v26
; nextln: v51 = ptradd v0, v50
; nextln: store v52, v51
; nextln: v54 = iconst.i64 16
; nextln: v55 = ptradd v51, v54
; nextln: store v52, v55
; nextln: v56 = iconst.i64 4
; nextln: v57 = iadd v47, v56
; nextln: jump block6(v57)
; nextln: block8:
; nextln: jump block9(v47)
; nextln: block9(v32: i64):
; nextln: jump block1(v32)
; nextln: block1(v28: i64):
; nextln: v10 = icmp slt v28, v31
; nextln: brif v10, block2, block4
; nextln: block2:
; nextln: v15 = shl v28, v26
; nextln: v16 = ptradd v0, v15
; nextln: store v1, v16
; nextln: v29 = iconst.i64 1
; nextln: v30 = iadd v28, v29
; nextln: jump block1(v30)
; nextln: block4:
; nextln: return
; nextln: }
; A store of a value from outside the loop: splatted once; one group of
; accesses, so no run-time test.
func @fill(ptr, i64, i32) {
block0(v0: ptr, v1: i64, v2: i32):
    v26 = iconst.i64 3
    v27 = iconst.i64 0
    v31 = sext.i64 v2
    jump block1(v27)
block1(v28: i64):
    v10 = icmp slt v28, v31
    brif v10, block2, block4
block2:
    v15 = shl v28, v26
    v16 = ptradd v0, v15
    store v1, v16
    v29 = iconst.i64 1
    v30 = iadd v28, v29
    jump block1(v30)
block4:
    return
}
