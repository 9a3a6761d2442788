; test: pass gvn
; The task recomputes the header's compare `i < n` (an `if (i < n)` in the
; body). Reusing the header's value would make the task use a value of the
; loop header other than the induction variable, which the CPU backend's
; parallel-loop shape forbids; so v13 stays. The task's own repeated
; expression (v12) and constants from the entry block (v15) are merged.
; check: block3:
; nextln: v9 = sext.i64 v6
; nextln: v10 = imul v9, v5
; nextln: v11 = ptradd v0, v10
; nextln: v13 = icmp slt v6, v1
; nextln: v14 = zext.i32 v13
; nextln: store v14, v11
; nextln: reattach within sr0, block4
; nextln: block4:
; nextln: v16 = iadd v6, v4
func @f(ptr, i32) {
block0(v0: ptr, v1: i32):
    v3 = iconst.i32 0
    v4 = iconst.i32 1
    v5 = iconst.i64 4
    jump block1(v3)
block1(v6: i32):
    v7 = icmp slt v6, v1
    brif v7, block2, block5
block2:
    detach within sr0, block3, block4
block3:
    v9 = sext.i64 v6
    v10 = imul v9, v5
    v11 = ptradd v0, v10
    v12 = sext.i64 v6
    v13 = icmp slt v6, v1
    v14 = zext.i32 v13
    store v14, v11
    reattach within sr0, block4
block4:
    v15 = iconst.i32 1
    v16 = iadd v6, v15
    jump block1(v16)
block5:
    sync within sr0, block6
block6:
    return
}
