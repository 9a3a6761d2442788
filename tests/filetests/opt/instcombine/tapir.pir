; test: pass instcombine
; In a parallel loop: the latch's `iadd 1, iv` gets its constant on the
; right in place (still the lone increment the loop shape wants); the
; header keeps its compare and branch only; inside the task, `i * 4 + 0` becomes a shift by a
; new constant placed in the task, and the parent's comparison v6, read by
; the task through `icmp ne (zext v6), 0`, is used directly (defined above
; the detach, it enters the task by dominance).
; check: block1(v7: i32):
; nextln: v8 = icmp sgt v1, v7
; nextln: brif v8, block2, block5
; check: block2:
; nextln: detach within sr0, block3, block4
; check: block3:
; nextln: v9 = sext.i64 v7
; nextln: v10 = iconst.i64 4
; nextln: $(two=v\d+) = iconst.i64 2
; nextln: v11 = shl v9, $two
; check: v16 = select v6, v3, v15
; nextln: v17 = ptradd v0, v11
; nextln: store v16, v17
; nextln: reattach within sr0, block4
; check: block4:
; nextln: v18 = iadd v7, v3
; nextln: jump block1(v18)
func @p(ptr, i32, i32) {
block0(v0: ptr, v1: i32, v2: i32):
    v3 = iconst.i32 1
    v4 = iconst.i32 0
    v5 = iconst.i64 0
    v6 = icmp slt v2, v1
    jump block1(v4)
block1(v7: i32):
    v8 = icmp sgt v1, v7
    brif v8, block2, block5
block2:
    detach within sr0, block3, block4
block3:
    v9 = sext.i64 v7
    v10 = iconst.i64 4
    v11 = imul v9, v10
    v12 = iadd v11, v5
    v13 = zext.i32 v6
    v14 = icmp ne v13, v4
    v15 = iconst.i32 2
    v16 = select v14, v3, v15
    v17 = ptradd v0, v12
    store v16, v17
    reattach within sr0, block4
block4:
    v18 = iadd v3, v7
    jump block1(v18)
block5:
    sync within sr0, block6
block6:
    return
}
