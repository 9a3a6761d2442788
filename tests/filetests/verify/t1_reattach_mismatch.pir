; test: verify
; T1: a reattach ends the innermost task around it, with that task's
; continuation and region. The inner task reattaches to the outer task's
; continuation; a second function reattaches within the wrong region; a
; third has a reattach outside any task.
; error: reattach to block4, but the task detached in block1 continues at block3
; error: reattach within sr1 ends the task detached within sr0 in block0
; error: reattach outside any task
func @inner_to_outer() {
block0:
    detach within sr0, block1, block4
block1:
    detach within sr1, block2, block3
block2:
    reattach within sr0, block4
block3:
    sync within sr1, block5
block5:
    reattach within sr0, block4
block4:
    sync within sr0, block6
block6:
    return
}
func @wrong_region() {
block0:
    detach within sr0, block1, block2
block1:
    reattach within sr1, block2
block2:
    sync within sr0, block3
block3:
    return
}
func @stray() {
block0:
    reattach within sr0, block1
block1:
    return
}
