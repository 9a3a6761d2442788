; test: verify
; T4: the implicit sync at return must be explicit in the IR: on one path
; from the continuation the function returns without syncing sr0.
; error: `return` reachable from block2, the continuation of the detach in block0, without a sync within sr0
declare @work()
func @f(i1) {
block0(v0: i1):
    detach within sr0, block1, block2
block1:
    call @work()
    reattach within sr0, block2
block2:
    brif v0, block3, block4
block3:
    sync within sr0, block4
block4:
    return
}
