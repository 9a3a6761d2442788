; test: pass vectorize
; stat: vectorize.missed.invariant-store = 1
; stat: vectorize.missed.reduction = 0
; stat: vectorize.loops = 0
; check: store v16, v0
; `s += a[k]; c[0] = s;` over k, integers, with plain pointers (what
; `scalar-promotion` makes of `c[0] += a[k]` when `a[k]` may read
; `c[0]`: the sum in a register, the store kept). The vectorizer refuses
; the loop for the store in every iteration (`invariant-store`, whose
; remark says what to write instead), not for the sum, which would be a
; reduction it knows without the store.
func @sum(ptr, ptr, i64) {
block0(v0: ptr, v1: ptr, v3: i64):
    v4 = iconst.i64 0
    v5 = iconst.i64 1
    v6 = iconst.i64 3
    jump block1(v4, v4)
block1(v7: i64, v15: i64):
    v8 = icmp slt v7, v3
    brif v8, block2, block3
block2:
    v9 = shl v7, v6
    v10 = ptradd v1, v9
    v11 = load.i64 v10
    v16 = iadd v15, v11
    store v16, v0
    v17 = iadd v7, v5
    jump block1(v17, v16)
block3:
    return
}
