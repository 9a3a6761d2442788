; test: pass gvn
; Redundant loads: a load after a store to the same address takes the
; stored value; a store through another parameter (may alias) kills what
; was known about *p, but not the local slot (a parameter cannot point
; into the function's own alloca); a store 4 bytes past p leaves the 4
; bytes at p known; a load of another type is not forwarded.
; check: block0(v0: ptr, v1: ptr):
; nextln: v2 = alloca 8, align 8
; nextln: v3 = iconst.i32 7
; nextln: store v3, v2
; nextln: v5 = load.i32 v0
; nextln: store v3, v1
; nextln: v6 = load.i32 v0
; nextln: v8 = iconst.i64 4
; nextln: v9 = ptradd v0, v8
; nextln: store v3, v9
; nextln: v11 = load.i64 v0
; nextln: v12 = iadd v3, v5
; nextln: v13 = iadd v12, v6
; nextln: v14 = iadd v13, v3
; nextln: v15 = iadd v14, v6
; nextln: v16 = trunc.i32 v11
; nextln: v17 = iadd v15, v16
; nextln: return v17
func @f(ptr, ptr) -> i32 {
block0(v0: ptr, v1: ptr):
    v2 = alloca 8, align 8
    v3 = iconst.i32 7
    store v3, v2
    v4 = load.i32 v2
    v5 = load.i32 v0
    store v3, v1
    v6 = load.i32 v0
    v7 = load.i32 v2
    v8 = iconst.i64 4
    v9 = ptradd v0, v8
    store v3, v9
    v10 = load.i32 v0
    v11 = load.i64 v0
    v12 = iadd v4, v5
    v13 = iadd v12, v6
    v14 = iadd v13, v7
    v15 = iadd v14, v10
    v16 = trunc.i32 v11
    v17 = iadd v15, v16
    return v17
}
