; test: pass scalar-promotion
; check: func @dot(ptr, ptr, ptr, i64) {
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
; nextln: store v16, v0
; nextln: v17 = iadd v7, v5
; nextln: jump block1(v17, v16)
; nextln: block3:
; nextln: return
; nextln: }
; check: func @peek(ptr) -> f64 {
; nextln: block0(v0: ptr):
; nextln: v1 = load.f64 v0
; nextln: return v1
; nextln: }
; check: func @twice(ptr, ptr, i64) -> f64 {
; nextln: block0(v0: ptr, v1: ptr, v3: i64):
; nextln: v4 = iconst.i64 0
; nextln: v5 = iconst.i64 1
; nextln: v6 = iconst.i64 3
; nextln: v30 = fconst.f64 0.0
; nextln: v35 = icmp slt v4, v3
; nextln: brif v35, block4, block3(v30)
; nextln: block4:
; nextln: v33 = load.f64 v0
; nextln: jump block1(v4, v30, v33)
; nextln: block5:
; nextln: jump block3(v31)
; nextln: block1(v7: i64, v31: f64, v34: f64):
; nextln: v8 = icmp slt v7, v3
; nextln: brif v8, block2, block5
; nextln: block2:
; nextln: v9 = shl v7, v6
; nextln: v10 = ptradd v1, v9
; nextln: v11 = call @peek(v10)
; nextln: v16 = fadd v34, v11
; nextln: store v16, v0
; nextln: v19 = fadd v31, v16
; nextln: v17 = iadd v7, v5
; nextln: jump block1(v17, v19, v16)
; nextln: block3(v32: f64):
; nextln: return v32
; nextln: }
; stat: scalar-promotion.promoted = 2
; stat: scalar-promotion.stores-kept = 2
; stat: scalar-promotion.loops = 2
; `c[0] += a[k] * b[k]` over k with plain (not `restrict`) pointers, as
; 2mm's `tmp[i][j] += alpha * A[i][k] * B[k][j]` where the arrays are
; parameters or pointers loaded from memory: the loads of `a[k]` and
; `b[k]` may read `c[0]`, but nothing else writes it. The sum is carried
; by the header (loaded in the guard) and the load of `c[0]` goes; the
; store stays in the body, so the other loads still read what the loop
; stored, and the exit stores nothing.
func @dot(ptr, ptr, ptr, i64) {
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
; Two loads of the address in one iteration, the second after the
; store, and a call that may read it: the first load takes the value
; carried in, the second the value just stored, and the store stays.
; (The call comes after the first load: one that might not return must
; not stand before the load the guard hoists.)
func @peek(ptr) -> f64 {
block0(v0: ptr):
    v1 = load.f64 v0
    return v1
}
func @twice(ptr, ptr, i64) -> f64 {
block0(v0: ptr, v1: ptr, v3: i64):
    v4 = iconst.i64 0
    v5 = iconst.i64 1
    v6 = iconst.i64 3
    v30 = fconst.f64 0.0
    jump block1(v4, v30)
block1(v7: i64, v31: f64):
    v8 = icmp slt v7, v3
    brif v8, block2, block3(v31)
block2:
    v9 = shl v7, v6
    v10 = ptradd v1, v9
    v15 = load.f64 v0
    v11 = call @peek(v10)
    v16 = fadd v15, v11
    store v16, v0
    v18 = load.f64 v0
    v19 = fadd v31, v18
    v17 = iadd v7, v5
    jump block1(v17, v19)
block3(v32: f64):
    return v32
}
