; test: pass mem2reg
; parallel_for (int i = 0; i < n; i++) { int t = a[i]; t = t * k; a[i] = t; }
; The per-iteration slots (the copy of i, and t) sit at the top of the
; task's first block: each is promoted inside the task, starting from zero
; per task. k is read by the task from the parent: promoted too. The loop
; keeps the shape Tapir lowering recognizes (header: icmp + brif; the
; spawn block: only the detach; latch: the increment).
; check: block0(v0: ptr, v1: i32, v2: i32):
; nextln: v4 = iconst.i32 0
; nextln: v5 = iconst.i32 1
; nextln: jump block1(v4)
; check: block1(v6: i32):
; nextln: v7 = icmp slt v6, v1
; nextln: brif v7, block2, block5
; check: block2:
; nextln: detach within sr0, block3, block4
; check: block3:
; nextln: v11 = sext.i64 v6
; check: v15 = load.i32 v14
; nextln: v18 = imul v15, v2
; nextln: store v18, v14
; nextln: reattach within sr0, block4
; check: block4:
; nextln: v20 = iadd v6, v5
; nextln: jump block1(v20)
; not: alloca
func @scale(ptr, i32, i32) {
block0(v0: ptr, v1: i32, v2: i32):
    v3 = alloca 4, align 4
    store v2, v3
    v4 = iconst.i32 0
    v5 = iconst.i32 1
    jump block1(v4)
block1(v6: i32):
    v7 = icmp slt v6, v1
    brif v7, block2, block5
block2:
    detach within sr0, block3, block4
block3:
    v8 = alloca 4, align 4
    v9 = alloca 4, align 4
    store v6, v8
    v10 = load.i32 v8
    v11 = sext.i64 v10
    v12 = iconst.i64 4
    v13 = imul v11, v12
    v14 = ptradd v0, v13
    v15 = load.i32 v14
    store v15, v9
    v16 = load.i32 v9
    v17 = load.i32 v3
    v18 = imul v16, v17
    store v18, v9
    v19 = load.i32 v9
    store v19, v14
    reattach within sr0, block4
block4:
    v20 = iadd v6, v5
    jump block1(v20)
block5:
    sync within sr0, block6
block6:
    return
}
