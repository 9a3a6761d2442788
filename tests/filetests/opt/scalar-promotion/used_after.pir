; test: pass scalar-promotion
; check: func @used_after(ptr noalias, ptr, i64) -> f64 {
; nextln: block0(v0: ptr, v1: ptr, v3: i64):
; nextln: v4 = iconst.i64 0
; nextln: v5 = iconst.i64 1
; nextln: v6 = iconst.i64 3
; nextln: v20 = fconst.f64 0.0
; nextln: v25 = icmp slt v4, v3
; nextln: brif v25, block4, block3(v20)
; nextln: block4:
; nextln: v23 = load.f64 v0
; nextln: jump block1(v4, v20, v23)
; nextln: block5:
; nextln: store v24, v0
; nextln: jump block3(v22)
; nextln: block1(v7: i64, v22: f64, v24: f64):
; nextln: v8 = icmp slt v7, v3
; nextln: brif v8, block2, block5
; nextln: block2:
; nextln: v9 = shl v7, v6
; nextln: v10 = ptradd v1, v9
; nextln: v11 = load.f64 v10
; nextln: v16 = fadd v24, v11
; nextln: v17 = iadd v7, v5
; nextln: jump block1(v17, v24, v16)
; nextln: block3(v26: f64):
; nextln: return v26
; nextln: }
; A header parameter used after the loop (the last value loaded before
; the loop's final test): the exit takes it as a parameter, passed the
; parameter by the loop's exit and its initial value by the bypass.
func @used_after(ptr noalias, ptr, i64) -> f64 {
block0(v0: ptr, v1: ptr, v3: i64):
    v4 = iconst.i64 0
    v5 = iconst.i64 1
    v6 = iconst.i64 3
    v20 = fconst.f64 0.0
    jump block1(v4, v20)
block1(v7: i64, v22: f64):
    v8 = icmp slt v7, v3
    brif v8, block2, block3
block2:
    v9 = shl v7, v6
    v10 = ptradd v1, v9
    v11 = load.f64 v10
    v15 = load.f64 v0
    v16 = fadd v15, v11
    store v16, v0
    v17 = iadd v7, v5
    jump block1(v17, v15)
block3:
    return v22
}
