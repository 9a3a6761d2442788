; test: pass sroa
; check: func @t(ptr, i32) {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v9 = alloca 4, align 4
; nextln: v10 = alloca 4, align 4
; nextln: store v1, v9
; nextln: v3 = iconst.i64 4
; nextln: store v1, v10
; nextln: detach within sr0, block1, block2
; nextln: block1:
; nextln: v11 = alloca 4, align 4
; nextln: v12 = alloca 4, align 4
; nextln: v6 = load.i32 v10
; nextln: store v6, v11
; nextln: store v6, v12
; nextln: v8 = load.i32 v12
; nextln: store v8, v0
; nextln: reattach within sr0, block2
; nextln: block2:
; nextln: sync within sr0, block3
; nextln: block3:
; nextln: return
; nextln: }
; A pair declared in a spawned task (at the top of the task's first block):
; its fields are allocated there too, so each task instance still has its
; own. The parent's pair, written by the parent and read in the task, is
; split as well (mem2reg decides later what may become SSA values).
func @t(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = alloca 8, align 4
    store v1, v2
    v3 = iconst.i64 4
    v4 = ptradd v2, v3
    store v1, v4
    detach within sr0, block1, block2
block1:
    v5 = alloca 8, align 4
    v6 = load.i32 v4
    store v6, v5
    v7 = ptradd v5, v3
    store v6, v7
    v8 = load.i32 v7
    store v8, v0
    reattach within sr0, block2
block2:
    sync within sr0, block3
block3:
    return
}
