; test: verify
; T3: a region's detaches lie at one task level. In @mixed, sr0 is detached
; by the body and inside a task (which then also reattaches without syncing
; the sr0 task it detached: T4). In @parent_syncs, the body syncs sr1, which
; only a task detaches within.
; error: detach within sr0 in the task detached in block0, but block0 detaches within sr0 in the function body
; error: in @mixed, block3, `reattach within sr0, block4`: the task ends here, reachable from block3, the continuation of the detach in block1, without a sync within sr0
; error: sync within sr1 in the function body, but sr1's tasks are detached in the task detached in block0; a region is synced where its tasks are detached
func @mixed() {
block0:
    detach within sr0, block1, block4
block1:
    detach within sr0, block2, block3
block2:
    reattach within sr0, block3
block3:
    reattach within sr0, block4
block4:
    sync within sr0, block5
block5:
    return
}
func @parent_syncs() {
block0:
    detach within sr0, block1, block4
block1:
    detach within sr1, block2, block3
block2:
    reattach within sr1, block3
block3:
    sync within sr1, block6
block6:
    reattach within sr0, block4
block4:
    sync within sr0, block5
block5:
    sync within sr1, block7
block7:
    return
}
