; test: pass loop-rotate
; Refused: a header holding a convergent operation. @k's header waits at
; the barrier before its test (`while (1) { __syncthreads(); if (i >= n)
; break; ... }`); rotated, the barrier would be copied into the guard and
; to the bottom of the loop. @plain, the same loop with a pure header, is
; rotated (the guard's copy of the test in block0).
; check: func kernel convergent @k(ptr, i32) {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = iconst.i32 0
; nextln: v3 = iconst.i32 1
; nextln: jump block1(v2)
; nextln: block1(v4: i32):
; nextln: barrier
; nextln: v5 = icmp slt v4, v1
; nextln: brif v5, block2, block3
; nextln: block2:
; nextln: store v4, v0
; nextln: v6 = iadd v4, v3
; nextln: jump block1(v6)
; nextln: block3:
; nextln: return
; nextln: }
; check: func device @plain(ptr, i32) {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = iconst.i32 0
; nextln: v3 = iconst.i32 1
; nextln: v8 = icmp slt v2, v1
; nextln: brif v8, block2(v2), block3
; nextln: block2(v7: i32):
; nextln: store v7, v0
; nextln: v6 = iadd v7, v3
; nextln: v9 = icmp slt v6, v1
; nextln: brif v9, block2(v6), block3
; nextln: block3:
; nextln: return
; nextln: }
func kernel convergent @k(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v2)
block1(v4: i32):
    barrier
    v5 = icmp slt v4, v1
    brif v5, block2, block3
block2:
    store v4, v0
    v6 = iadd v4, v3
    jump block1(v6)
block3:
    return
}
func device @plain(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v2)
block1(v4: i32):
    v5 = icmp slt v4, v1
    brif v5, block2, block3
block2:
    store v4, v0
    v6 = iadd v4, v3
    jump block1(v6)
block3:
    return
}
