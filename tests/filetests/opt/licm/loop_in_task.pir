; test: pass licm
; spawn { for (j = 0; j < n; j++) a[j] = x * y; } — the loop lives in a
; task. Its invariant product moves to the loop's preheader, the task's
; first block: out of the loop but still inside the task. LICM only ever
; moves code up to a preheader in the same task as the loop's header, so
; nothing moves into a task, and nothing here leaves it either.
; check: block1:
; nextln: v7 = iconst.i32 0
; nextln: v8 = iconst.i32 1
; nextln: v9 = iconst.i64 4
; nextln: v14 = imul v2, v3
; nextln: jump block3(v7)
; check: block4:
; nextln: v11 = sext.i64 v10
; nextln: v12 = imul v11, v9
; nextln: v13 = ptradd v0, v12
; nextln: store v14, v13
func @f(ptr, i32, i32, i32) {
block0(v0: ptr, v1: i32, v2: i32, v3: i32):
    detach within sr0, block1, block2
block1:
    v7 = iconst.i32 0
    v8 = iconst.i32 1
    v9 = iconst.i64 4
    jump block3(v7)
block3(v10: i32):
    v15 = icmp slt v10, v1
    brif v15, block4, block5
block4:
    v11 = sext.i64 v10
    v12 = imul v11, v9
    v13 = ptradd v0, v12
    v14 = imul v2, v3
    store v14, v13
    v16 = iadd v10, v8
    jump block3(v16)
block5:
    reattach within sr0, block2
block2:
    sync within sr0, block6
block6:
    return
}
