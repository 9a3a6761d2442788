; test: pass simplify-cfg
; The block ending in a detach merges into its jump predecessor (which now
; detaches: the task's only predecessor is still the detaching block); the
; continuation, an empty block entered by the detach and the reattach, is
; not threaded; the task's own chain merges up to its reattach; the block
; after the sync is not merged into the syncing block.
; check: block0(v0: ptr):
; nextln: detach within sr0, block2, block3
; check: block2:
; nextln: call @work(v0)
; nextln: reattach within sr0, block3
; check: block3:
; nextln: sync within sr0, block6
; check: block6:
; nextln: return
declare @work(ptr)
func @s(ptr) {
block0(v0: ptr):
    jump block1
block1:
    detach within sr0, block2, block3
block2:
    jump block5
block5:
    call @work(v0)
    reattach within sr0, block3
block3:
    jump block4
block4:
    sync within sr0, block6
block6:
    return
}
