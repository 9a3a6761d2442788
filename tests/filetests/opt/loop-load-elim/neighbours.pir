; test: pass loop-load-elim
; The reverse of `dst[k] = src[k] + src[k + 1]` over k = n-1 .. 1, as the
; AD makes it: `d[k + 1] += g; d[k] += g` with 32-bit indices, counting
; down. The next iteration's `d[k' + 1]` is this one's `d[k]`, so its load
; (v17) becomes block2's parameter: the preheader loads d[n] for the first
; iteration, and the back edge passes the value just stored (v23).
; `d[k]`'s own load (v22) reads what this iteration's `d[k + 1]` store
; does not touch, and no earlier iteration stored there: it stays.
; check: func @neighbours(ptr noalias, ptr noalias, i32) {
; nextln: block0(v0: ptr, v1: ptr, v2: i32):
; nextln: v3 = iconst.i32 1
; nextln: v4 = iconst.i64 3
; nextln: v5 = iconst.i32 0
; nextln: v6 = isub v2, v3
; nextln: v7 = icmp sgt v6, v5
; nextln: brif v7, block1, block3
; nextln: block1:
; nextln: v27 = iadd v6, v3
; nextln: v28 = sext.i64 v27
; nextln: v29 = shl v28, v4
; nextln: v30 = ptradd v0, v29
; nextln: v31 = load.f64 v30
; nextln: jump block2(v6, v31)
; nextln: block2(v8: i32, v32: f64):
; nextln: v9 = sext.i64 v8
; nextln: v10 = shl v9, v4
; nextln: v11 = ptradd v1, v10
; nextln: v12 = load.f64 v11
; nextln: v13 = iadd v8, v3
; nextln: v14 = sext.i64 v13
; nextln: v15 = shl v14, v4
; nextln: v16 = ptradd v0, v15
; nextln: v18 = fadd v32, v12
; nextln: store v18, v16
; nextln: v20 = ptradd v0, v10
; nextln: v22 = load.f64 v20
; nextln: v23 = fadd v22, v12
; nextln: store v23, v20
; nextln: v25 = isub v8, v3
; nextln: v26 = icmp sgt v25, v5
; nextln: brif v26, block2(v25, v23), block3
; nextln: block3:
; nextln: return
; nextln: }
func @neighbours(ptr noalias, ptr noalias, i32) {
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
    v25 = isub v8, v3
    v26 = icmp sgt v25, v5
    brif v26, block2(v25), block3
block3:
    return
}
