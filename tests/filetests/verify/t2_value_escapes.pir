; test: verify
; T2: the continuation receives no SSA value defined inside the task; v1 is
; computed by the task and read after the sync (it must go through memory).
; error: uses v1, defined inside the task detached in block0, outside that task
declare @g() -> i32
func @f() -> i32 {
block0:
    detach within sr0, block1, block2
block1:
    v1 = call @g()
    reattach within sr0, block2
block2:
    sync within sr0, block3
block3:
    return v1
}
