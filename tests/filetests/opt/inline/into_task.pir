; test: pass inline
; parallel_for (i = 0; i < n; i++) a[i] = sq(i): the call is inside the
; per-iteration task, so the callee's alloca goes to the top of the task's
; first block (one private object per iteration; the caller's entry would
; share it between iterations), not to the caller's entry. The loop keeps
; the shape the Tapir lowering recognizes (header, detach, latch untouched).
; The caller is then cleaned (simplify-cfg, instcombine, dce), as every
; function that received a body is before its own callers' turn.
; check: func @sq(i32) -> i32 {
; nextln: block0(v0: i32):
; nextln: v1 = alloca 4, align 4
; nextln: v2 = imul v0, v0
; nextln: store v2, v1
; nextln: v3 = load.i32 v1
; nextln: return v3
; nextln: }
; check: func @fill(ptr, i32) {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = iconst.i32 0
; nextln: v3 = iconst.i32 1
; nextln: jump block1(v2)
; nextln: block1(v4: i32):
; nextln: v5 = icmp slt v4, v1
; nextln: brif v5, block2, block5
; nextln: block2:
; nextln: detach within sr0, block3, block4
; nextln: block3:
; nextln: v6 = alloca 4, align 4
; nextln: v13 = alloca 4, align 4
; nextln: store v4, v6
; nextln: v14 = imul v4, v4
; nextln: store v14, v13
; nextln: v15 = load.i32 v13
; nextln: v8 = sext.i64 v4
; nextln: v17 = iconst.i64 2
; nextln: v10 = shl v8, v17
; nextln: v11 = ptradd v0, v10
; nextln: store v15, v11
; nextln: reattach within sr0, block4
; nextln: block4:
; nextln: v12 = iadd v4, v3
; nextln: jump block1(v12)
; nextln: block5:
; nextln: sync within sr0, block6
; nextln: block6:
; nextln: return
; nextln: }
func @sq(i32) -> i32 {
block0(v0: i32):
    v1 = alloca 4, align 4
    v2 = imul v0, v0
    store v2, v1
    v3 = load.i32 v1
    return v3
}
func @fill(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v2)
block1(v4: i32):
    v5 = icmp slt v4, v1
    brif v5, block2, block5
block2:
    detach within sr0, block3, block4
block3:
    v6 = alloca 4, align 4
    store v4, v6
    v7 = call @sq(v4)
    v8 = sext.i64 v4
    v9 = iconst.i64 4
    v10 = imul v8, v9
    v11 = ptradd v0, v10
    store v7, v11
    reattach within sr0, block4
block4:
    v12 = iadd v4, v3
    jump block1(v12)
block5:
    sync within sr0, block6
block6:
    return
}
