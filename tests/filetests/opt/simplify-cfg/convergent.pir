; test: pass simplify-cfg
; Nothing here copies or merges a barrier (see parc_ir::convergent): jump
; threading bypasses only empty blocks, so the two barriers under the
; branch on the thread (a divergence the program must report) stay two,
; each in its own block, and the branch stays; merging appends a block to
; its only predecessor, which moves no barrier across a branch.
; check: func kernel convergent @k() {
; nextln: block0:
; nextln: v0 = thread_idx.x
; nextln: v1 = iconst.i32 2
; nextln: v2 = icmp slt v0, v1
; nextln: brif v2, block1, block2
; nextln: block1:
; nextln: barrier
; nextln: jump block4
; nextln: block2:
; nextln: barrier
; nextln: jump block4
; nextln: block4:
; nextln: barrier
; nextln: return
; nextln: }
func kernel convergent @k() {
block0:
    v0 = thread_idx.x
    v1 = iconst.i32 2
    v2 = icmp slt v0, v1
    brif v2, block1, block2
block1:
    barrier
    jump block3
block2:
    barrier
    jump block3
block3:
    jump block4
block4:
    barrier
    return
}
