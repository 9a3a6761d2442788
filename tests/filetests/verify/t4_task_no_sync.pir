; test: verify
; T4 inside a task: a task that detaches within sr1 must sync sr1 before it
; reattaches (a spawned function syncs before it returns).
; error: the task ends here, reachable from block3, the continuation of the detach in block1, without a sync within sr1
declare @work()
func @f() {
block0:
    detach within sr0, block1, block4
block1:
    detach within sr1, block2, block3
block2:
    call @work()
    reattach within sr1, block3
block3:
    reattach within sr0, block4
block4:
    sync within sr0, block5
block5:
    return
}
