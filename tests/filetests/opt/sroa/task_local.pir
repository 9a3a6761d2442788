; test: pass sroa
; A pair declared in a spawned task (at the top of the task's first block):
; its fields are allocated there too, so each task instance still has its
; own. The parent's pair, written by the parent and read in the task, is
; split as well (mem2reg decides later what may become SSA values).
; check: block0(v0: ptr, v1: i32):
; nextln: $(p0=v\d+) = alloca 4, align 4
; nextln: $(p1=v\d+) = alloca 4, align 4
; nextln: store v1, $p0
; check: store v1, $p1
; nextln: detach within sr0, block1, block2
; check: block1:
; nextln: $(t0=v\d+) = alloca 4, align 4
; nextln: $(t1=v\d+) = alloca 4, align 4
; nextln: v6 = load.i32 $p1
; nextln: store v6, $t0
; nextln: store v6, $t1
; nextln: v8 = load.i32 $t1
; not: ptradd
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
