; test: pass sccp
; parallel_for (int i = 0; i < 4 * 25; i++) a[i] = k; with k constant:
; the bound folds in place (before the loop), the task's computation folds
; inside the task, and the loop keeps the shape Tapir lowering recognizes
; (header: icmp + brif; the spawn block: only the detach; latch: the
; increment). Both the task and the continuation are executable. The
; spawned task under a false condition is removed with its continuation's
; other way in left intact.
; check: v3 = iconst.i32 100
; check: block1(v6: i32):
; nextln: v7 = icmp slt v6, v3
; nextln: brif v7, block2, block5
; check: block2:
; nextln: detach within sr0, block3, block4
; check: block3:
; nextln: v8 = iconst.i32 6
; nextln: v9 = iconst.i32 36
; check: store v9, v13
; nextln: reattach within sr0, block4
; check: block4:
; nextln: v14 = iadd v6, v5
; nextln: jump block1(v14)
; check: block6:
; nextln: v15 = iconst.i1 0
; nextln: jump block9
; check: block9:
; nextln: sync within sr1, block10
; not: block7
; not: block8
func @p(ptr) {
block0(v0: ptr):
    v1 = iconst.i32 4
    v2 = iconst.i32 25
    v3 = imul v1, v2
    v4 = iconst.i32 0
    v5 = iconst.i32 1
    jump block1(v4)
block1(v6: i32):
    v7 = icmp slt v6, v3
    brif v7, block2, block5
block2:
    detach within sr0, block3, block4
block3:
    v8 = iconst.i32 6
    v9 = imul v8, v8
    v10 = sext.i64 v6
    v11 = iconst.i64 4
    v12 = imul v10, v11
    v13 = ptradd v0, v12
    store v9, v13
    reattach within sr0, block4
block4:
    v14 = iadd v6, v5
    jump block1(v14)
block5:
    sync within sr0, block6
block6:
    v15 = icmp eq v4, v5
    brif v15, block7, block9
block7:
    detach within sr1, block8, block9
block8:
    store v4, v0
    reattach within sr1, block9
block9:
    sync within sr1, block10
block10:
    return
}
