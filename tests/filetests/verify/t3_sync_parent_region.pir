; test: verify
; T3: a task cannot sync a region of its parent: sr0's tasks are detached by
; the function body, and a task syncs sr0.
; error: sync within sr0 in the task detached in block0, but sr0's tasks are detached in the function body; a task cannot sync a region of its parent
func @f() {
block0:
    detach within sr0, block1, block3
block1:
    sync within sr0, block2
block2:
    reattach within sr0, block3
block3:
    sync within sr0, block4
block4:
    return
}
