; test: pass scalar-promotion
; check: func @row(ptr noalias, ptr, ptr, i64) {
; nextln: block0(v0: ptr, v1: ptr, v2: ptr, v3: i64):
; nextln: v4 = iconst.i64 0
; nextln: v5 = iconst.i64 1
; nextln: v6 = iconst.i64 3
; nextln: v20 = icmp slt v4, v3
; nextln: brif v20, block4, block3
; nextln: block4:
; nextln: v18 = load.f64 v0
; nextln: jump block1(v4, v18)
; nextln: block5:
; nextln: store v19, v0
; nextln: jump block3
; nextln: block1(v7: i64, v19: f64):
; nextln: v8 = icmp slt v7, v3
; nextln: brif v8, block2, block5
; nextln: block2:
; nextln: v9 = shl v7, v6
; nextln: v10 = ptradd v1, v9
; nextln: v11 = load.f64 v10
; nextln: v12 = ptradd v2, v9
; nextln: v13 = load.f64 v12
; nextln: v14 = fmul v11, v13
; nextln: v16 = fadd v19, v14
; nextln: v17 = iadd v7, v5
; nextln: jump block1(v17, v16)
; nextln: block3:
; nextln: return
; nextln: }
; `dst[0] += a[j] * x[j]` over j (PolyBench's `tmp[i] += A[i][j] * x[j]`):
; dst is `restrict`, so no other access of the loop may touch it. The
; load moves to a guard that runs when the loop runs at least once, the
; sum is carried by the header, and the store moves to the exit edge.
func @row(ptr noalias, ptr, ptr, i64) {
block0(v0: ptr, v1: ptr, v2: ptr, v3: i64):
    v4 = iconst.i64 0
    v5 = iconst.i64 1
    v6 = iconst.i64 3
    jump block1(v4)
block1(v7: i64):
    v8 = icmp slt v7, v3
    brif v8, block2, block3
block2:
    v9 = shl v7, v6
    v10 = ptradd v1, v9
    v11 = load.f64 v10
    v12 = ptradd v2, v9
    v13 = load.f64 v12
    v14 = fmul v11, v13
    v15 = load.f64 v0
    v16 = fadd v15, v14
    store v16, v0
    v17 = iadd v7, v5
    jump block1(v17)
block3:
    return
}
