; test: pass loop-load-elim
; Loads that must stay loads.
;
; @row: between the store of d[k] and the next iteration's load of it,
; `d[k + n]` is stored, which is d[k] itself when n = 0: nothing is
; forwarded (the pass does not version loops on n).
;
; @call: a call that may write any memory runs in every iteration.
;
; @two_step: the counter moves by 2, so the next iteration's `d[k + 1]`
; was never this iteration's `d[k]`.
;
; check: func @row(ptr noalias, ptr noalias, i32, i32) {
; nextln: block0(v0: ptr, v1: ptr, v2: i32, v30: i32):
; nextln: v3 = iconst.i32 1
; nextln: v4 = iconst.i64 3
; nextln: v5 = iconst.i32 0
; nextln: v6 = isub v2, v3
; nextln: v7 = icmp sgt v6, v5
; nextln: brif v7, block1, block3
; nextln: block1:
; nextln: jump block2(v6)
; nextln: block2(v8: i32):
; nextln: v9 = sext.i64 v8
; nextln: v10 = shl v9, v4
; nextln: v11 = ptradd v1, v10
; nextln: v12 = load.f64 v11
; nextln: v13 = iadd v8, v3
; nextln: v14 = sext.i64 v13
; nextln: v15 = shl v14, v4
; nextln: v16 = ptradd v0, v15
; nextln: v17 = load.f64 v16
; nextln: v18 = fadd v17, v12
; nextln: store v18, v16
; nextln: v20 = ptradd v0, v10
; nextln: v22 = load.f64 v20
; nextln: v23 = fadd v22, v12
; nextln: store v23, v20
; nextln: v31 = iadd v8, v30
; nextln: v32 = sext.i64 v31
; nextln: v33 = shl v32, v4
; nextln: v34 = ptradd v0, v33
; nextln: v35 = load.f64 v34
; nextln: v36 = fadd v35, v12
; nextln: store v36, v34
; nextln: v25 = isub v8, v3
; nextln: v26 = icmp sgt v25, v5
; nextln: brif v26, block2(v25), block3
; nextln: block3:
; nextln: return
; nextln: }
; check: declare @opaque(ptr)
; check: func @call(ptr noalias, ptr noalias, i32) {
; nextln: block0(v0: ptr, v1: ptr, v2: i32):
; nextln: v3 = iconst.i32 1
; nextln: v4 = iconst.i64 3
; nextln: v5 = iconst.i32 0
; nextln: v6 = isub v2, v3
; nextln: v7 = icmp sgt v6, v5
; nextln: brif v7, block1, block3
; nextln: block1:
; nextln: jump block2(v6)
; nextln: block2(v8: i32):
; nextln: v9 = sext.i64 v8
; nextln: v10 = shl v9, v4
; nextln: v11 = ptradd v1, v10
; nextln: v12 = load.f64 v11
; nextln: v13 = iadd v8, v3
; nextln: v14 = sext.i64 v13
; nextln: v15 = shl v14, v4
; nextln: v16 = ptradd v0, v15
; nextln: v17 = load.f64 v16
; nextln: v18 = fadd v17, v12
; nextln: store v18, v16
; nextln: v20 = ptradd v0, v10
; nextln: v22 = load.f64 v20
; nextln: v23 = fadd v22, v12
; nextln: store v23, v20
; nextln: call @opaque(v1)
; nextln: v25 = isub v8, v3
; nextln: v26 = icmp sgt v25, v5
; nextln: brif v26, block2(v25), block3
; nextln: block3:
; nextln: return
; nextln: }
; check: func @two_step(ptr noalias, ptr noalias, i32) {
; nextln: block0(v0: ptr, v1: ptr, v2: i32):
; nextln: v3 = iconst.i32 1
; nextln: v4 = iconst.i64 3
; nextln: v5 = iconst.i32 0
; nextln: v40 = iconst.i32 2
; nextln: v6 = isub v2, v3
; nextln: v7 = icmp sgt v6, v5
; nextln: brif v7, block1, block3
; nextln: block1:
; nextln: jump block2(v6)
; nextln: block2(v8: i32):
; nextln: v9 = sext.i64 v8
; nextln: v10 = shl v9, v4
; nextln: v11 = ptradd v1, v10
; nextln: v12 = load.f64 v11
; nextln: v13 = iadd v8, v3
; nextln: v14 = sext.i64 v13
; nextln: v15 = shl v14, v4
; nextln: v16 = ptradd v0, v15
; nextln: v17 = load.f64 v16
; nextln: v18 = fadd v17, v12
; nextln: store v18, v16
; nextln: v20 = ptradd v0, v10
; nextln: v22 = load.f64 v20
; nextln: v23 = fadd v22, v12
; nextln: store v23, v20
; nextln: v25 = isub v8, v40
; nextln: v26 = icmp sgt v25, v5
; nextln: brif v26, block2(v25), block3
; nextln: block3:
; nextln: return
; nextln: }
func @row(ptr noalias, ptr noalias, i32, i32) {
block0(v0: ptr, v1: ptr, v2: i32, v30: i32):
    v3 = iconst.i32 1
    v4 = iconst.i64 3
    v5 = iconst.i32 0
    v6 = isub v2, v3
    v7 = icmp sgt v6, v5
    brif v7, block1, block3
block1:
    jump block2(v6)
block2(v8: i32):
    v9 = sext.i64 v8
    v10 = shl v9, v4
    v11 = ptradd v1, v10
    v12 = load.f64 v11
    v13 = iadd v8, v3
    v14 = sext.i64 v13
    v15 = shl v14, v4
    v16 = ptradd v0, v15
    v17 = load.f64 v16
    v18 = fadd v17, v12
    store v18, v16
    v20 = ptradd v0, v10
    v22 = load.f64 v20
    v23 = fadd v22, v12
    store v23, v20
    v31 = iadd v8, v30
    v32 = sext.i64 v31
    v33 = shl v32, v4
    v34 = ptradd v0, v33
    v35 = load.f64 v34
    v36 = fadd v35, v12
    store v36, v34
    v25 = isub v8, v3
    v26 = icmp sgt v25, v5
    brif v26, block2(v25), block3
block3:
    return
}

declare @opaque(ptr)

func @call(ptr noalias, ptr noalias, i32) {
block0(v0: ptr, v1: ptr, v2: i32):
    v3 = iconst.i32 1
    v4 = iconst.i64 3
    v5 = iconst.i32 0
    v6 = isub v2, v3
    v7 = icmp sgt v6, v5
    brif v7, block1, block3
block1:
    jump block2(v6)
block2(v8: i32):
    v9 = sext.i64 v8
    v10 = shl v9, v4
    v11 = ptradd v1, v10
    v12 = load.f64 v11
    v13 = iadd v8, v3
    v14 = sext.i64 v13
    v15 = shl v14, v4
    v16 = ptradd v0, v15
    v17 = load.f64 v16
    v18 = fadd v17, v12
    store v18, v16
    v20 = ptradd v0, v10
    v22 = load.f64 v20
    v23 = fadd v22, v12
    store v23, v20
    call @opaque(v1)
    v25 = isub v8, v3
    v26 = icmp sgt v25, v5
    brif v26, block2(v25), block3
block3:
    return
}

func @two_step(ptr noalias, ptr noalias, i32) {
block0(v0: ptr, v1: ptr, v2: i32):
    v3 = iconst.i32 1
    v4 = iconst.i64 3
    v5 = iconst.i32 0
    v40 = iconst.i32 2
    v6 = isub v2, v3
    v7 = icmp sgt v6, v5
    brif v7, block1, block3
block1:
    jump block2(v6)
block2(v8: i32):
    v9 = sext.i64 v8
    v10 = shl v9, v4
    v11 = ptradd v1, v10
    v12 = load.f64 v11
    v13 = iadd v8, v3
    v14 = sext.i64 v13
    v15 = shl v14, v4
    v16 = ptradd v0, v15
    v17 = load.f64 v16
    v18 = fadd v17, v12
    store v18, v16
    v20 = ptradd v0, v10
    v22 = load.f64 v20
    v23 = fadd v22, v12
    store v23, v20
    v25 = isub v8, v40
    v26 = icmp sgt v25, v5
    brif v26, block2(v25), block3
block3:
    return
}
