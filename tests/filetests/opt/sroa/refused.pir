; test: pass sroa
; Not split: a struct copied with memcpy (v1), a constant index out of
; bounds (v2: the access must still fault), a variable index (v3), type
; punning (v4: an i64 overlapped by an i32), and an object over 64 bytes
; (v5). A lone scalar accessed directly (v6) is mem2reg's business.
; check: v3 = alloca 16, align 8
; nextln: v4 = iconst.i64 16
; nextln: memcpy v3, v0, v4
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
func @r(ptr, i64, i32) -> i32 {
block0(v0: ptr, v1: i64, v2: i32):
    v3 = alloca 16, align 8
    v4 = iconst.i64 16
    memcpy v3, v0, v4
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
    return v14
}
