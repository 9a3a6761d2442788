; test: pass gvn
; Memory values do not cross Tapir edges. *p loaded before the detach is
; not forwarded into the task (v6 stays), nor past the sync (v10 stays: the
; task may have written *p, and the sync waits for it). The local slot v2
; is task-private (uncaptured, used only by the function body, never by a
; task): what was stored to it before the sync is still known after it
; (v11 becomes v8).
; check: block1:
; nextln: v6 = load.i32 v0
; nextln: call @work(v0)
; nextln: reattach within sr0, block2
; nextln: block2:
; nextln: v7 = load.i32 v0
; nextln: v8 = iconst.i32 5
; nextln: store v8, v2
; nextln: sync within sr0, block3
; nextln: block3:
; nextln: v10 = load.i32 v0
; nextln: v12 = iadd v3, v7
; nextln: v13 = iadd v12, v10
; nextln: v14 = iadd v13, v8
declare @work(ptr)
func @f(ptr) -> i32 {
block0(v0: ptr):
    v2 = alloca 4, align 4
    v3 = load.i32 v0
    detach within sr0, block1, block2
block1:
    v6 = load.i32 v0
    call @work(v0)
    reattach within sr0, block2
block2:
    v7 = load.i32 v0
    v8 = iconst.i32 5
    store v8, v2
    sync within sr0, block3
block3:
    v10 = load.i32 v0
    v11 = load.i32 v2
    v12 = iadd v3, v7
    v13 = iadd v12, v10
    v14 = iadd v13, v11
    return v14
}
