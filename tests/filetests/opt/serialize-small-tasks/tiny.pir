; test: pass serialize-small-tasks
; `spawn` of a task that only stores a sum: cheaper to run in place. The
; detach becomes a jump to the task, its reattach a jump to the
; continuation; the (now idle) sync stays for sync-elim.
; A task with a call stays a task, and so does the per-iteration task of a
; parallel loop, however small (the backend runs the whole loop as chunks).
; check: declare @work(i32)
; check: func @f(ptr, i32) {
; nextln: block0(v0: ptr, v1: i32):
; nextln: jump block1
; nextln: block1:
; nextln: v2 = iadd v1, v1
; nextln: store v2, v0
; nextln: jump block2
; nextln: block2:
; nextln: detach within sr0, block3, block4
; nextln: block3:
; nextln: call @work(v1)
; nextln: reattach within sr0, block4
; nextln: block4:
; nextln: sync within sr0, block5
; nextln: block5:
; nextln: return
; nextln: }
; check: func @scale(ptr, i32) {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = iconst.i32 0
; nextln: jump block1(v2)
; nextln: block1(v3: i32):
; nextln: v4 = icmp slt v3, v1
; nextln: brif v4, block2, block5
; nextln: block2:
; nextln: detach within sr0, block3, block4
; nextln: block3:
; nextln: v5 = sext.i64 v3
; nextln: v6 = iconst.i64 8
; nextln: v7 = imul v5, v6
; nextln: v8 = ptradd v0, v7
; nextln: v9 = load.f64 v8
; nextln: v10 = fconst.f64 2.0
; nextln: v11 = fmul v9, v10
; nextln: store v11, v8
; nextln: reattach within sr0, block4
; nextln: block4:
; nextln: v12 = iconst.i32 1
; nextln: v13 = iadd v3, v12
; nextln: jump block1(v13)
; nextln: block5:
; nextln: sync within sr0, block6
; nextln: block6:
; nextln: return
; nextln: }
declare @work(i32)
func @f(ptr, i32) {
block0(v0: ptr, v1: i32):
    detach within sr0, block1, block2
block1:
    v2 = iadd v1, v1
    store v2, v0
    reattach within sr0, block2
block2:
    detach within sr0, block3, block4
block3:
    call @work(v1)
    reattach within sr0, block4
block4:
    sync within sr0, block5
block5:
    return
}
func @scale(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    jump block1(v2)
block1(v3: i32):
    v4 = icmp slt v3, v1
    brif v4, block2, block5
block2:
    detach within sr0, block3, block4
block3:
    v5 = sext.i64 v3
    v6 = iconst.i64 8
    v7 = imul v5, v6
    v8 = ptradd v0, v7
    v9 = load.f64 v8
    v10 = fconst.f64 2.0
    v11 = fmul v9, v10
    store v11, v8
    reattach within sr0, block4
block4:
    v12 = iconst.i32 1
    v13 = iadd v3, v12
    jump block1(v13)
block5:
    sync within sr0, block6
block6:
    return
}
