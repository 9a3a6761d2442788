; test: pass select-to-branch
; stat: changed = false
; Selects that stay selects.
;
; @maxof: `if (a[i] > m) m = a[i]`. The condition waits for a load, but
; the load's address comes from the counter v45 alone, whose next value
; (v32) does not depend on the select.
; check: func @maxof(ptr, i64) -> f64 {
; nextln: block0(v0: ptr, v1: i64):
; nextln: v11 = load.f64 v0
; nextln: v12 = iconst.i64 1
; nextln: v41 = iconst.i64 3
; nextln: v47 = icmp slt v12, v1
; nextln: brif v47, block2(v11, v12), block4(v11)
; nextln: block2(v44: f64, v45: i64):
; nextln: v19 = shl v45, v41
; nextln: v20 = ptradd v0, v19
; nextln: v21 = load.f64 v20
; nextln: v23 = fcmp gt v21, v44
; nextln: v43 = select v23, v21, v44
; nextln: v32 = iadd v45, v12
; nextln: v48 = icmp slt v32, v1
; nextln: brif v48, block2(v43, v32), block4(v43)
; nextln: block4(v46: f64):
; nextln: return v46
; nextln: }
; check: func @bisect(f64, i64) -> f64 {
; nextln: block0(v0: f64, v1: i64):
; nextln: v2 = fconst.f64 0.0
; nextln: v3 = iconst.i64 0
; nextln: v4 = iconst.i64 1
; nextln: v5 = fconst.f64 0.5
; nextln: jump block1(v2, v0, v3)
; nextln: block1(v10: f64, v11: f64, v12: i64):
; nextln: v13 = fadd v10, v11
; nextln: v14 = fmul v13, v5
; nextln: v15 = fmul v14, v14
; nextln: v16 = fcmp gt v15, v0
; nextln: v17 = select v16, v10, v14
; nextln: v18 = select v16, v14, v11
; nextln: v19 = iadd v12, v4
; nextln: v20 = icmp slt v19, v1
; nextln: brif v20, block1(v17, v18, v19), block2
; nextln: block2:
; nextln: return v10
; nextln: }
; check: func device @device_search(i64, f64, ptr) -> i64 {
; nextln: block0(v0: i64, v1: f64, v2: ptr):
; nextln: v10 = iconst.i64 0
; nextln: v12 = iconst.i64 1
; nextln: v22 = iconst.i64 2
; nextln: v51 = iconst.i64 3
; nextln: jump block2(v10, v0, v0)
; nextln: block2(v54: i64, v55: i64, v56: i64):
; nextln: v23 = sdiv v56, v22
; nextln: v24 = iadd v54, v23
; nextln: v28 = shl v24, v51
; nextln: v29 = ptradd v2, v28
; nextln: v30 = load.f64 v29
; nextln: v32 = fcmp gt v30, v1
; nextln: v52 = select v32, v54, v24
; nextln: v53 = select v32, v24, v55
; nextln: v37 = isub v53, v52
; nextln: v59 = icmp sgt v37, v12
; nextln: brif v59, block2(v52, v53, v37), block3(v52)
; nextln: block3(v57: i64):
; nextln: return v57
; nextln: }
func @maxof(ptr, i64) -> f64 {
block0(v0: ptr, v1: i64):
    v11 = load.f64 v0
    v12 = iconst.i64 1
    v41 = iconst.i64 3
    v47 = icmp slt v12, v1
    brif v47, block2(v11, v12), block4(v11)
block2(v44: f64, v45: i64):
    v19 = shl v45, v41
    v20 = ptradd v0, v19
    v21 = load.f64 v20
    v23 = fcmp gt v21, v44
    v43 = select v23, v21, v44
    v32 = iadd v45, v12
    v48 = icmp slt v32, v1
    brif v48, block2(v43, v32), block4(v43)
block4(v46: f64):
    return v46
}

; @bisect: a bisection whose condition tests no load (`x*x > y`): the
; select's cycle has no memory access on it.
func @bisect(f64, i64) -> f64 {
block0(v0: f64, v1: i64):
    v2 = fconst.f64 0
    v3 = iconst.i64 0
    v4 = iconst.i64 1
    v5 = fconst.f64 0.5
    jump block1(v2, v0, v3)
block1(v10: f64, v11: f64, v12: i64):
    v13 = fadd v10, v11
    v14 = fmul v13, v5
    v15 = fmul v14, v14
    v16 = fcmp gt v15, v0
    v17 = select v16, v10, v14
    v18 = select v16, v14, v11
    v19 = iadd v12, v4
    v20 = icmp slt v19, v1
    brif v20, block1(v17, v18, v19), block2
block2:
    return v10
}

; @device_search: the binary search of binary_search.pir in device code,
; where a branch that a warp's threads take both ways runs both ways.
func device @device_search(i64, f64, ptr) -> i64 {
block0(v0: i64, v1: f64, v2: ptr):
    v10 = iconst.i64 0
    v12 = iconst.i64 1
    v22 = iconst.i64 2
    v51 = iconst.i64 3
    jump block2(v10, v0, v0)
block2(v54: i64, v55: i64, v56: i64):
    v23 = sdiv v56, v22
    v24 = iadd v54, v23
    v28 = shl v24, v51
    v29 = ptradd v2, v28
    v30 = load.f64 v29
    v32 = fcmp gt v30, v1
    v52 = select v32, v54, v24
    v53 = select v32, v24, v55
    v37 = isub v53, v52
    v59 = icmp sgt v37, v12
    brif v59, block2(v52, v53, v37), block3(v52)
block3(v57: i64):
    return v57
}
