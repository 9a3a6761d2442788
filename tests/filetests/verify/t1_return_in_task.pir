; test: verify
; T1: a task may not return; it ends only with a reattach to its continuation.
; error: `return` inside the task detached in block0
func @f() {
block0:
    detach within sr0, block1, block2
block1:
    return
block2:
    sync within sr0, block3
block3:
    return
}
