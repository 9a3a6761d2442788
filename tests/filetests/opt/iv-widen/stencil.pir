; test: pass iv-widen
; The stencil's row loop: `for (j = 1; j < n; j++) d[j] = m[j-1] + m[j+1]`
; over an `int j`. `j` starts at 1 and stays below `n`, so `j - 1` and
; `j + 1` cannot wrap: the three extensions become `J`, `J - 1` and `J + 1`
; of a 64-bit `J` that starts at 1 and steps with `j`. The test compares
; `J` with `sext(n)`, made before the loop; the narrow increment reads
; `trunc J`; the old `j` (block1's first parameter) and its increment are
; left to `adce`.
; check: func @row(ptr, ptr, i32) {
; nextln: block0(v0: ptr, v1: ptr, v2: i32):
; nextln: v3 = iconst.i32 1
; nextln: v4 = iconst.i64 3
; nextln: v21 = iconst.i64 1
; nextln: v27 = sext.i64 v2
; nextln: jump block1(v3, v21)
; nextln: block1(v5: i32, v22: i64):
; nextln: v28 = trunc.i32 v22
; nextln: v6 = icmp slt v22, v27
; nextln: brif v6, block2, block3
; nextln: block2:
; nextln: v7 = sext.i64 v28
; nextln: v8 = shl v22, v4
; nextln: v9 = isub v28, v3
; nextln: v25 = iconst.i64 -1
; nextln: v10 = iadd v22, v25
; nextln: v11 = shl v10, v4
; nextln: v12 = ptradd v1, v11
; nextln: v13 = load.f64 v12
; nextln: v14 = iadd v28, v3
; nextln: v23 = iconst.i64 1
; nextln: v24 = iadd v22, v23
; nextln: v26 = iconst.i64 1
; nextln: v15 = iadd v22, v26
; nextln: v16 = shl v15, v4
; nextln: v17 = ptradd v1, v16
; nextln: v18 = load.f64 v17
; nextln: v19 = fadd v13, v18
; nextln: v20 = ptradd v0, v8
; nextln: store v19, v20
; nextln: jump block1(v14, v24)
; nextln: block3:
; nextln: return
; nextln: }
func @row(ptr, ptr, i32) {
block0(v0: ptr, v1: ptr, v2: i32):
    v3 = iconst.i32 1
    v4 = iconst.i64 3
    jump block1(v3)
block1(v5: i32):
    v6 = icmp slt v5, v2
    brif v6, block2, block3
block2:
    v7 = sext.i64 v5
    v8 = shl v7, v4
    v9 = isub v5, v3
    v10 = sext.i64 v9
    v11 = shl v10, v4
    v12 = ptradd v1, v11
    v13 = load.f64 v12
    v14 = iadd v5, v3
    v15 = sext.i64 v14
    v16 = shl v15, v4
    v17 = ptradd v1, v16
    v18 = load.f64 v17
    v19 = fadd v13, v18
    v20 = ptradd v0, v8
    store v19, v20
    jump block1(v14)
block3:
    return
}
