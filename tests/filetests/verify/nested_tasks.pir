; test: verify
; A task that itself spawns (an inlined spawning function): the inner region
; sr1 is detached and synced inside the outer task, before its reattach.
declare @work(i32)
func @outer() {
block0:
    detach within sr0, block1, block4
block1:
    detach within sr1, block2, block3
block2:
    v0 = iconst.i32 1
    call @work(v0)
    reattach within sr1, block3
block3:
    v1 = iconst.i32 2
    call @work(v1)
    sync within sr1, block5
block5:
    reattach within sr0, block4
block4:
    sync within sr0, block6
block6:
    return
}
