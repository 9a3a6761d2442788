; test: verify
; Structural Tapir rules: targets of detach/reattach/sync take no block
; parameters, a task is entered only by its detach, and the task differs
; from the continuation.
; error: block1 is the target of a Tapir terminator and cannot have parameters
; error: task block block4 has other predecessors (block3)
; error: the task and the continuation are the same block
func @params(i32) {
block0(v0: i32):
    detach within sr0, block1, block2
block1(v1: i32):
    reattach within sr0, block2
block2:
    sync within sr0, block3
block3:
    return
}
func @entered_twice(i1) {
block0(v0: i1):
    brif v0, block3, block1
block3:
    jump block4
block1:
    detach within sr0, block4, block2
block4:
    reattach within sr0, block2
block2:
    sync within sr0, block5
block5:
    return
}
func @same() {
block0:
    detach within sr0, block1, block1
block1:
    sync within sr0, block2
block2:
    return
}
