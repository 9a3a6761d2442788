; test: pass mark-parallel-loops
; An analysis: the module is unchanged (the count goes to `--stats`).
; check: detach within sr0, block3, block4
; check: reattach within sr0, block4
; check: sync within sr0, block6
func @scale(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    jump block1(v2)
block1(v3: i32):
    v4 = icmp slt v3, v1
    brif v4, block2, block5
block2:
    detach within sr0, block3, block4
block3:
    v5 = sext.i64 v3
    v6 = iconst.i64 8
    v7 = imul v5, v6
    v8 = ptradd v0, v7
    store v3, v8
    reattach within sr0, block4
block4:
    v12 = iconst.i32 1
    v13 = iadd v3, v12
    jump block1(v13)
block5:
    sync within sr0, block6
block6:
    return
}
