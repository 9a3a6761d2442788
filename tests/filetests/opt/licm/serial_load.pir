; test: pass licm
; Serial loops: p[i] = *q * k with q and p parameters (may alias) and k a
; local slot. The store to p[i] may alias *q, so that load stays; nothing in
; the loop writes the local slot, and an in-bounds load from an alloca
; cannot fault, so it moves to the preheader unguarded.
; In @g the loop stores only into a local array: *q (a parameter, which
; cannot point into the function's own alloca) is the same in every
; iteration, but it may fault, so it moves to a guard block that runs only
; when the loop runs at least once.
; check: func @f(ptr, ptr, i32) -> f64 {
; nextln: block0(v0: ptr, v1: ptr, v2: i32):
; nextln: v3 = alloca 8, align 8
; nextln: v4 = fconst.f64 2.0
; nextln: store v4, v3
; nextln: v5 = iconst.i32 0
; nextln: v6 = iconst.i32 1
; nextln: v7 = fconst.f64 0.0
; nextln: v8 = iconst.i64 8
; nextln: v13 = load.f64 v3
; nextln: jump block1(v5, v7)
; check: block2:
; nextln: v12 = load.f64 v1
; nextln: v14 = sext.i64 v9
; check: func @g(ptr, i32) {
; check: v6 = iconst.i64 4
; nextln: v16 = icmp slt v4, v1
; nextln: brif v16, block4, block3
; nextln: block4:
; nextln: v8 = load.i32 v0
; nextln: jump block1(v4)
; check: block2:
; nextln: v9 = srem v7, v3
func @f(ptr, ptr, i32) -> f64 {
block0(v0: ptr, v1: ptr, v2: i32):
    v3 = alloca 8, align 8
    v4 = fconst.f64 2.0
    store v4, v3
    v5 = iconst.i32 0
    v6 = iconst.i32 1
    v7 = fconst.f64 0.0
    v8 = iconst.i64 8
    jump block1(v5, v7)
block1(v9: i32, v10: f64):
    v11 = icmp slt v9, v2
    brif v11, block2, block3
block2:
    v12 = load.f64 v1
    v13 = load.f64 v3
    v14 = sext.i64 v9
    v15 = imul v14, v8
    v16 = ptradd v0, v15
    v17 = fmul v12, v13
    store v17, v16
    v18 = fadd v10, v17
    v19 = iadd v9, v6
    jump block1(v19, v18)
block3:
    return v10
}

func @g(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = alloca 40, align 4
    v3 = iconst.i32 10
    v4 = iconst.i32 0
    v5 = iconst.i32 1
    v6 = iconst.i64 4
    jump block1(v4)
block1(v7: i32):
    v13 = icmp slt v7, v1
    brif v13, block2, block3
block2:
    v8 = load.i32 v0
    v9 = srem v7, v3
    v10 = sext.i64 v9
    v11 = imul v10, v6
    v12 = ptradd v2, v11
    store v8, v12
    v15 = iadd v7, v5
    jump block1(v15)
block3:
    return
}
