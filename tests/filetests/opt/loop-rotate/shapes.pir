; test: pass loop-rotate
; @nested: both loops rotate; the inner loop's guard lands in the outer
; body, the outer loop's bottom test in the inner loop's exit.
; @guarded: the loop is entered from a `brif` (`if (m) for ...`): the
; guard goes to a block of its own on that edge.
; @break_exit: a `break` leaves to a second exit, which uses no value of
; the header: rotated.
; check: func @nested(ptr, i32) {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = iconst.i32 0
; nextln: v3 = iconst.i32 1
; nextln: v13 = icmp slt v2, v1
; nextln: brif v13, block2(v2), block6
; nextln: block2(v12: i32):
; nextln: v16 = icmp slt v2, v12
; nextln: brif v16, block4(v2), block5
; nextln: block4(v15: i32):
; nextln: v8 = sext.i64 v15
; nextln: v9 = ptradd v0, v8
; nextln: store v12, v9
; nextln: v10 = iadd v15, v3
; nextln: v17 = icmp slt v10, v12
; nextln: brif v17, block4(v10), block5
; nextln: block5:
; nextln: v11 = iadd v12, v3
; nextln: v14 = icmp slt v11, v1
; nextln: brif v14, block2(v11), block6
; nextln: block6:
; nextln: return
; nextln: }
; check: func @guarded(ptr, i32, i1) {
; nextln: block0(v0: ptr, v1: i32, v2: i1):
; nextln: v3 = iconst.i32 0
; nextln: v4 = iconst.i32 1
; nextln: brif v2, block4, block3
; nextln: block4:
; nextln: v9 = icmp slt v3, v1
; nextln: brif v9, block2(v3), block3
; nextln: block2(v8: i32):
; nextln: store v8, v0
; nextln: v7 = iadd v8, v4
; nextln: v10 = icmp slt v7, v1
; nextln: brif v10, block2(v7), block3
; nextln: block3:
; nextln: return
; nextln: }
; check: func @break_exit(ptr, i32) -> i32 {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = iconst.i32 0
; nextln: v3 = iconst.i32 1
; nextln: v10 = icmp slt v2, v1
; nextln: brif v10, block2(v2), block4
; nextln: block2(v9: i32):
; nextln: v6 = load.i32 v0
; nextln: v7 = icmp eq v6, v2
; nextln: brif v7, block5, block3
; nextln: block3:
; nextln: v8 = iadd v9, v3
; nextln: v11 = icmp slt v8, v1
; nextln: brif v11, block2(v8), block4
; nextln: block4:
; nextln: return v3
; nextln: block5:
; nextln: return v2
; nextln: }
func @nested(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v2)
block1(v4: i32):
    v5 = icmp slt v4, v1
    brif v5, block2, block6
block2:
    jump block3(v2)
block3(v6: i32):
    v7 = icmp slt v6, v4
    brif v7, block4, block5
block4:
    v8 = sext.i64 v6
    v9 = ptradd v0, v8
    store v4, v9
    v10 = iadd v6, v3
    jump block3(v10)
block5:
    v11 = iadd v4, v3
    jump block1(v11)
block6:
    return
}

func @guarded(ptr, i32, i1) {
block0(v0: ptr, v1: i32, v2: i1):
    v3 = iconst.i32 0
    v4 = iconst.i32 1
    brif v2, block1(v3), block3
block1(v5: i32):
    v6 = icmp slt v5, v1
    brif v6, block2, block3
block2:
    store v5, v0
    v7 = iadd v5, v4
    jump block1(v7)
block3:
    return
}

func @break_exit(ptr, i32) -> i32 {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v2)
block1(v4: i32):
    v5 = icmp slt v4, v1
    brif v5, block2, block4
block2:
    v6 = load.i32 v0
    v7 = icmp eq v6, v2
    brif v7, block5, block3
block3:
    v8 = iadd v4, v3
    jump block1(v8)
block4:
    return v3
block5:
    return v2
}
