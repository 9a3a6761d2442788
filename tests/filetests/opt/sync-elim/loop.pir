; test: pass sync-elim
; A sync at the top of a loop body is reached from the spawn of the
; previous iteration (around the back edge), so it stays; the exit's sync
; stays too. A sync of a region nothing detaches within (sr1) goes.
; check: declare @work(i32)
; check: func @f(i32) {
; nextln: block0(v0: i32):
; nextln: v1 = iconst.i32 0
; nextln: v2 = iconst.i32 1
; nextln: jump block1
; nextln: block1:
; nextln: jump block2(v1)
; nextln: block2(v3: i32):
; nextln: v4 = icmp slt v3, v0
; nextln: brif v4, block3, block6
; nextln: block3:
; nextln: sync within sr0, block4
; nextln: block4:
; nextln: detach within sr0, block5, block7
; nextln: block5:
; nextln: call @work(v3)
; nextln: reattach within sr0, block7
; nextln: block7:
; nextln: v5 = iadd v3, v2
; nextln: jump block2(v5)
; nextln: block6:
; nextln: sync within sr0, block8
; nextln: block8:
; nextln: return
; nextln: }
declare @work(i32)
func @f(i32) {
block0(v0: i32):
    v1 = iconst.i32 0
    v2 = iconst.i32 1
    sync within sr1, block1
block1:
    jump block2(v1)
block2(v3: i32):
    v4 = icmp slt v3, v0
    brif v4, block3, block6
block3:
    sync within sr0, block4
block4:
    detach within sr0, block5, block7
block5:
    call @work(v3)
    reattach within sr0, block7
block7:
    v5 = iadd v3, v2
    jump block2(v5)
block6:
    sync within sr0, block8
block8:
    return
}
