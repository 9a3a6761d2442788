; test: pass split-offsets
; `d[j] = m[j - 1] + m[j + 1]` over doubles with a 64-bit `j`: the
; neighbours' addresses become `m + (j << 3)` displaced by -8 and 8 (the
; new `shl j, 3`s are `gvn`'s to merge). @struct_field: `s[j + 2].y` with
; 24-byte elements: `(j + 2) * 24 + 8` is `s + j * 24` displaced by 48,
; then 8. @kept: an address also passed to a call (not only loaded from
; or stored to), and an offset whose displacement does not fit 32 bits,
; stay.
; check: func @neighbours(ptr, ptr, i64) {
; nextln: block0(v0: ptr, v1: ptr, v2: i64):
; nextln: v3 = iconst.i64 3
; nextln: v4 = iconst.i64 1
; nextln: v5 = isub v2, v4
; nextln: v6 = shl v5, v3
; nextln: v16 = shl v2, v3
; nextln: v17 = ptradd v1, v16
; nextln: v18 = iconst.i64 -8
; nextln: v7 = ptradd v17, v18
; nextln: v8 = load.f64 v7
; nextln: v9 = iadd v2, v4
; nextln: v10 = shl v9, v3
; nextln: v19 = shl v2, v3
; nextln: v20 = ptradd v1, v19
; nextln: v21 = iconst.i64 8
; nextln: v11 = ptradd v20, v21
; nextln: v12 = load.f64 v11
; nextln: v13 = fadd v8, v12
; nextln: v14 = shl v2, v3
; nextln: v15 = ptradd v0, v14
; nextln: store v13, v15
; nextln: return
; nextln: }
; check: func @struct_field(ptr, i64) -> f64 {
; nextln: block0(v0: ptr, v1: i64):
; nextln: v2 = iconst.i64 2
; nextln: v3 = iconst.i64 24
; nextln: v4 = iadd v1, v2
; nextln: v5 = imul v4, v3
; nextln: v10 = imul v1, v3
; nextln: v11 = ptradd v0, v10
; nextln: v12 = iconst.i64 48
; nextln: v6 = ptradd v11, v12
; nextln: v7 = iconst.i64 8
; nextln: v8 = ptradd v6, v7
; nextln: v9 = load.f64 v8
; nextln: return v9
; nextln: }
; check: declare @keep(ptr)
; check: func @kept(ptr, i64) -> i64 {
; nextln: block0(v0: ptr, v1: i64):
; nextln: v2 = iconst.i64 1
; nextln: v3 = iadd v1, v2
; nextln: v4 = ptradd v0, v3
; nextln: v5 = load.i64 v4
; nextln: call @keep(v4)
; nextln: v6 = iconst.i64 4294967296
; nextln: v7 = iadd v1, v6
; nextln: v8 = ptradd v0, v7
; nextln: v9 = load.i64 v8
; nextln: v10 = iadd v5, v9
; nextln: return v10
; nextln: }
func @neighbours(ptr, ptr, i64) {
block0(v0: ptr, v1: ptr, v2: i64):
    v3 = iconst.i64 3
    v4 = iconst.i64 1
    v5 = isub v2, v4
    v6 = shl v5, v3
    v7 = ptradd v1, v6
    v8 = load.f64 v7
    v9 = iadd v2, v4
    v10 = shl v9, v3
    v11 = ptradd v1, v10
    v12 = load.f64 v11
    v13 = fadd v8, v12
    v14 = shl v2, v3
    v15 = ptradd v0, v14
    store v13, v15
    return
}

func @struct_field(ptr, i64) -> f64 {
block0(v0: ptr, v1: i64):
    v2 = iconst.i64 2
    v3 = iconst.i64 24
    v4 = iadd v1, v2
    v5 = imul v4, v3
    v6 = ptradd v0, v5
    v7 = iconst.i64 8
    v8 = ptradd v6, v7
    v9 = load.f64 v8
    return v9
}

declare @keep(ptr)
func @kept(ptr, i64) -> i64 {
block0(v0: ptr, v1: i64):
    v2 = iconst.i64 1
    v3 = iadd v1, v2
    v4 = ptradd v0, v3
    v5 = load.i64 v4
    call @keep(v4)
    v6 = iconst.i64 4294967296
    v7 = iadd v1, v6
    v8 = ptradd v0, v7
    v9 = load.i64 v8
    v10 = iadd v5, v9
    return v10
}
