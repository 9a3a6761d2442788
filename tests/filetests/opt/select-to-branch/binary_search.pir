; test: pass select-to-branch
; stat: select-to-branch.branches = 2
; stat: select-to-branch.selects = 4
; A binary search as `simplify-cfg` and `loop-rotate` leave it
; (`if (A[mid] > q) hi = mid; else lo = mid;`): both selects (v52, v53)
; take `mid` (v24), the address of the load (v30) their condition tests,
; to the next iteration through block2's parameters. They become one
; branch to a new block whose parameters replace them; the rest of
; block2 moves there.
; check: func @grid_search(i64, f64, ptr) -> i64 {
; nextln: block0(v0: i64, v1: f64, v2: ptr):
; nextln: v10 = iconst.i64 0
; nextln: v12 = iconst.i64 1
; nextln: v13 = isub v0, v12
; nextln: v22 = iconst.i64 2
; nextln: v51 = iconst.i64 3
; nextln: v58 = icmp sgt v13, v12
; nextln: brif v58, block7(v13, v13), block3(v10)
; nextln: block7(v61: i64, v62: i64):
; nextln: jump block2(v10, v61, v62)
; nextln: block2(v54: i64, v55: i64, v56: i64):
; nextln: v23 = sdiv v56, v22
; nextln: v24 = iadd v54, v23
; nextln: v28 = shl v24, v51
; nextln: v29 = ptradd v2, v28
; nextln: v30 = load.f64 v29
; nextln: v32 = fcmp gt v30, v1
; nextln: brif v32, block8(v54, v24), block8(v24, v55)
; nextln: block8(v63: i64, v64: i64):
; nextln: v37 = isub v64, v63
; nextln: v59 = icmp sgt v37, v12
; nextln: brif v59, block2(v63, v64, v37), block3(v63)
; nextln: block3(v57: i64):
; nextln: return v57
; nextln: }
; check: func @struct_search(i64, f64, ptr) -> i64 {
; nextln: block0(v0: i64, v1: f64, v2: ptr):
; nextln: v3 = iconst.i64 0
; nextln: v4 = iconst.i64 1
; nextln: v5 = iconst.i64 2
; nextln: v6 = iconst.i64 48
; nextln: jump block1(v3, v0)
; nextln: block1(v10: i64, v11: i64):
; nextln: v12 = isub v11, v10
; nextln: v13 = icmp sgt v12, v4
; nextln: brif v13, block2, block3
; nextln: block2:
; nextln: v14 = sdiv v12, v5
; nextln: v15 = iadd v10, v14
; nextln: v16 = imul v15, v6
; nextln: v17 = ptradd v2, v16
; nextln: v18 = load.f64 v17
; nextln: v19 = fcmp gt v18, v1
; nextln: brif v19, block4(v10, v15), block4(v15, v11)
; nextln: block4(v22: i64, v23: i64):
; nextln: jump block1(v22, v23)
; nextln: block3:
; nextln: return v10
; nextln: }
func @grid_search(i64, f64, ptr) -> i64 {
block0(v0: i64, v1: f64, v2: ptr):
    v10 = iconst.i64 0
    v12 = iconst.i64 1
    v13 = isub v0, v12
    v22 = iconst.i64 2
    v51 = iconst.i64 3
    v58 = icmp sgt v13, v12
    brif v58, block7(v13, v13), block3(v10)
block7(v61: i64, v62: i64):
    jump block2(v10, v61, v62)
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

; The same search over an array of 48-byte structs whose first field is
; the key, with the loop's test at the top (not rotated): the back edge
; comes from block2, the selects' block.
func @struct_search(i64, f64, ptr) -> i64 {
block0(v0: i64, v1: f64, v2: ptr):
    v3 = iconst.i64 0
    v4 = iconst.i64 1
    v5 = iconst.i64 2
    v6 = iconst.i64 48
    jump block1(v3, v0)
block1(v10: i64, v11: i64):
    v12 = isub v11, v10
    v13 = icmp sgt v12, v4
    brif v13, block2, block3
block2:
    v14 = sdiv v12, v5
    v15 = iadd v10, v14
    v16 = imul v15, v6
    v17 = ptradd v2, v16
    v18 = load.f64 v17
    v19 = fcmp gt v18, v1
    v20 = select v19, v10, v15
    v21 = select v19, v15, v11
    jump block1(v20, v21)
block3:
    return v10
}
