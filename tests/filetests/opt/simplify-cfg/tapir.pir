; test: pass simplify-cfg
; Tapir edges are left alone. The parallel loop keeps its shape: the
; header (compare and branch), the spawn block (only the detach), the latch
; (a continuation). Inside the task, the chain of plain jumps merges into
; the task's first block, up to its reattach. The empty sync successor
; block8 is not threaded away (a sync's target), but the block after it,
; its only jump successor, merges into it.
; check: block1(v4: i32):
; nextln: v5 = icmp slt v4, v1
; nextln: brif v5, block2, block5
; check: block2:
; nextln: detach within sr0, block3, block4
; check: block3:
; nextln: v6 = sext.i64 v4
; nextln: v7 = ptradd v0, v6
; nextln: store v4, v7
; nextln: reattach within sr0, block4
; check: block4:
; nextln: v8 = iadd v4, v3
; nextln: jump block1(v8)
; check: block5:
; nextln: sync within sr0, block8
; check: block8:
; nextln: return
func @p(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v2)
block1(v4: i32):
    v5 = icmp slt v4, v1
    brif v5, block2, block5
block2:
    detach within sr0, block3, block4
block3:
    v6 = sext.i64 v4
    jump block6
block6:
    v7 = ptradd v0, v6
    jump block7
block7:
    store v4, v7
    reattach within sr0, block4
block4:
    v8 = iadd v4, v3
    jump block1(v8)
block5:
    sync within sr0, block8
block8:
    jump block9
block9:
    return
}
