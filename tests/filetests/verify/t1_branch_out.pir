; test: verify
; T1: a task may not branch out of itself, here straight to the continuation
; (bypassing the reattach) and to a block after the sync.
; error: branches from the task detached in block0 to block2, outside it
; error: branches from the task detached in block0 to block3, outside it
func @f(i1) {
block0(v0: i1):
    detach within sr0, block1, block2
block1:
    brif v0, block2, block3
block2:
    sync within sr0, block3
block3:
    return
}
