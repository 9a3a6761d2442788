; test: pass licm
; stat: licm.loads = 0
; A kernel loop that reads shared memory after a barrier: other threads of
; the block write @tile between barriers, so the barrier counts as a write
; of any memory and the load stays below it.
; check: block2:
; nextln: barrier
; nextln: v7 = load.f32 v3
global @tile shared size 1024 align 4 = zeroinit
func kernel convergent @k(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = global_addr @tile
    v4 = iconst.i32 1
    jump block1(v2)
block1(v5: i32):
    v6 = icmp slt v5, v1
    brif v6, block2, block3
block2:
    barrier
    v7 = load.f32 v3
    store v7, v0
    v8 = iadd v5, v4
    jump block1(v8)
block3:
    return
}
