; test: pass loop-unswitch
; Refused: a loop holding a convergent operation. @k is issue 20's
; kernel: `for (r = 0; r < n; r++) { if (t < 2) s[t] = r + 1; else
; s[t] = 0; __syncthreads(); ... }` branches on `t < 2`, defined outside
; the loop; unswitched, threads 0-1 and 2-3 would wait at two copies of
; the barrier (barrier divergence). @d's loop calls @sync, which holds a
; barrier. @plain, the same loop with no barrier, is unswitched: its
; preheader branches on v4 into one of two loops.
; check: global @s shared size 16 align 4 = zeroinit
; check: func kernel convergent @k(ptr, i32) {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = thread_idx.x
; nextln: v3 = iconst.i32 2
; nextln: v4 = icmp slt v2, v3
; nextln: v5 = iconst.i32 0
; nextln: v6 = global_addr @s
; nextln: v7 = iconst.i32 1
; nextln: jump block1(v5)
; nextln: block1(v8: i32):
; nextln: v9 = icmp slt v8, v1
; nextln: brif v9, block2, block6
; nextln: block2:
; nextln: brif v4, block3, block4
; nextln: block3:
; nextln: v10 = iadd v8, v7
; nextln: store v10, v6
; nextln: jump block5
; nextln: block4:
; nextln: store v5, v6
; nextln: jump block5
; nextln: block5:
; nextln: barrier
; nextln: v11 = iadd v8, v7
; nextln: jump block1(v11)
; nextln: block6:
; nextln: return
; nextln: }
; check: func device convergent @sync() {
; nextln: block0:
; nextln: barrier
; nextln: return
; nextln: }
; check: func device convergent @d(ptr, i32, i1) {
; nextln: block0(v0: ptr, v1: i32, v2: i1):
; nextln: v3 = iconst.i32 0
; nextln: v4 = iconst.i32 1
; nextln: jump block1(v3)
; nextln: block1(v5: i32):
; nextln: v6 = icmp slt v5, v1
; nextln: brif v6, block2, block5
; nextln: block2:
; nextln: brif v2, block3, block4
; nextln: block3:
; nextln: store v5, v0
; nextln: jump block4
; nextln: block4:
; nextln: call @sync()
; nextln: v7 = iadd v5, v4
; nextln: jump block1(v7)
; nextln: block5:
; nextln: return
; nextln: }
; check: func device @plain(ptr, i32) {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = thread_idx.x
; nextln: v3 = iconst.i32 2
; nextln: v4 = icmp slt v2, v3
; nextln: v5 = iconst.i32 0
; nextln: v7 = iconst.i32 1
; nextln: brif v4, block12(v5), block13(v5)
; nextln: block12(v16: i32):
; nextln: jump block1(v16)
; nextln: block1(v8: i32):
; nextln: v9 = icmp slt v8, v1
; nextln: brif v9, block2, block6
; nextln: block2:
; nextln: jump block3
; nextln: block3:
; nextln: v10 = iadd v8, v7
; nextln: store v10, v0
; nextln: jump block5
; nextln: block4:
; nextln: store v5, v0
; nextln: jump block5
; nextln: block5:
; nextln: v11 = iadd v8, v7
; nextln: jump block1(v11)
; nextln: block13(v17: i32):
; nextln: jump block7(v17)
; nextln: block7(v12: i32):
; nextln: v13 = icmp slt v12, v1
; nextln: brif v13, block8, block6
; nextln: block8:
; nextln: jump block9
; nextln: block9:
; nextln: store v5, v0
; nextln: jump block11
; nextln: block10:
; nextln: v14 = iadd v12, v7
; nextln: store v14, v0
; nextln: jump block11
; nextln: block11:
; nextln: v15 = iadd v12, v7
; nextln: jump block7(v15)
; nextln: block6:
; nextln: return
; nextln: }
global @s shared size 16 align 4 = zeroinit
func kernel convergent @k(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = thread_idx.x
    v3 = iconst.i32 2
    v4 = icmp slt v2, v3
    v5 = iconst.i32 0
    v6 = global_addr @s
    v7 = iconst.i32 1
    jump block1(v5)
block1(v8: i32):
    v9 = icmp slt v8, v1
    brif v9, block2, block6
block2:
    brif v4, block3, block4
block3:
    v10 = iadd v8, v7
    store v10, v6
    jump block5
block4:
    store v5, v6
    jump block5
block5:
    barrier
    v11 = iadd v8, v7
    jump block1(v11)
block6:
    return
}
func device convergent @sync() {
block0:
    barrier
    return
}
func device convergent @d(ptr, i32, i1) {
block0(v0: ptr, v1: i32, v2: i1):
    v3 = iconst.i32 0
    v4 = iconst.i32 1
    jump block1(v3)
block1(v5: i32):
    v6 = icmp slt v5, v1
    brif v6, block2, block5
block2:
    brif v2, block3, block4
block3:
    store v5, v0
    jump block4
block4:
    call @sync()
    v7 = iadd v5, v4
    jump block1(v7)
block5:
    return
}
func device @plain(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = thread_idx.x
    v3 = iconst.i32 2
    v4 = icmp slt v2, v3
    v5 = iconst.i32 0
    v7 = iconst.i32 1
    jump block1(v5)
block1(v8: i32):
    v9 = icmp slt v8, v1
    brif v9, block2, block6
block2:
    brif v4, block3, block4
block3:
    v10 = iadd v8, v7
    store v10, v0
    jump block5
block4:
    store v5, v0
    jump block5
block5:
    v11 = iadd v8, v7
    jump block1(v11)
block6:
    return
}
