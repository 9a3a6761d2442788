; test: pass sroa
; Not split: a struct copied with a variable length (v3), a constant index
; out of bounds (v6: the access must still fault), a variable index (v9),
; type punning (v11: an i64 overlapped by an i32), an object over 64 bytes
; (v15), a copy that cuts a field (v18: 4 bytes of an i64), a copy within
; one object (v21), and a copy that moves an i1 (v24). A lone scalar
; accessed directly (v17) is mem2reg's business.
; check: func @r(ptr, i64, i32) -> i32 {
; nextln: block0(v0: ptr, v1: i64, v2: i32):
; nextln: v3 = alloca 16, align 8
; nextln: memcpy v3, v0, v1
; nextln: v5 = load.i32 v3
; nextln: v6 = alloca 8, align 4
; nextln: v7 = iconst.i64 8
; nextln: v8 = ptradd v6, v7
; nextln: store v2, v8
; nextln: v9 = alloca 16, align 4
; nextln: v10 = ptradd v9, v1
; nextln: store v2, v10
; nextln: v11 = alloca 8, align 8
; nextln: store v1, v11
; nextln: v12 = iconst.i64 4
; nextln: v13 = ptradd v11, v12
; nextln: v14 = load.i32 v13
; nextln: v15 = alloca 128, align 8
; nextln: v16 = ptradd v15, v7
; nextln: store v2, v16
; nextln: v17 = alloca 4, align 4
; nextln: store v2, v17
; nextln: v18 = alloca 8, align 8
; nextln: store v1, v18
; nextln: v19 = ptradd v18, v12
; nextln: memcpy v0, v19, v12
; nextln: v21 = alloca 16, align 8
; nextln: store v1, v21
; nextln: v22 = ptradd v21, v7
; nextln: memcpy v22, v21, v7
; nextln: v24 = alloca 8, align 1
; nextln: v25 = iconst.i1 1
; nextln: store v25, v24
; nextln: memcpy v0, v24, v7
; nextln: return v14
; nextln: }
func @r(ptr, i64, i32) -> i32 {
block0(v0: ptr, v1: i64, v2: i32):
    v3 = alloca 16, align 8
    memcpy v3, v0, v1
    v5 = load.i32 v3
    v6 = alloca 8, align 4
    v7 = iconst.i64 8
    v8 = ptradd v6, v7
    store v2, v8
    v9 = alloca 16, align 4
    v10 = ptradd v9, v1
    store v2, v10
    v11 = alloca 8, align 8
    store v1, v11
    v12 = iconst.i64 4
    v13 = ptradd v11, v12
    v14 = load.i32 v13
    v15 = alloca 128, align 8
    v16 = ptradd v15, v7
    store v2, v16
    v17 = alloca 4, align 4
    store v2, v17
    v18 = alloca 8, align 8
    store v1, v18
    v19 = ptradd v18, v12
    memcpy v0, v19, v12
    v21 = alloca 16, align 8
    store v1, v21
    v22 = ptradd v21, v7
    memcpy v22, v21, v7
    v24 = alloca 8, align 1
    v25 = iconst.i1 1
    store v25, v24
    memcpy v0, v24, v7
    return v14
}
