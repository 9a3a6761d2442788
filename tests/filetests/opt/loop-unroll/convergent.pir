; test: pass loop-unroll
; Convergent operations (see parc_ir::convergent). @tree is a block's tree
; reduction, `for (w = 2; w > 0; w /= 2) { if (t < w) s[t] += s[t + w];
; __syncthreads(); }`: its barrier's block (block4) dominates the latch,
; so every thread passes it once in each of the two iterations, and the
; loop is unrolled (copy j's barrier is iteration j's for every thread).
; @odd waits at the barrier only in the iterations where `w == t` (the
; barrier's block does not dominate the latch): threads reaching it in
; different iterations meet there, and would not at two copies; refused.
; check: global @s shared size 32 align 8 = zeroinit
; check: func kernel convergent @tree() {
; nextln: block0:
; nextln: v0 = thread_idx.x
; nextln: v1 = iconst.i32 2
; nextln: v2 = iconst.i32 0
; nextln: v3 = global_addr @s
; nextln: jump block10(v1)
; nextln: block10(v14: i32):
; nextln: v15 = icmp sgt v14, v2
; nextln: jump block11
; nextln: block11:
; nextln: v16 = icmp slt v0, v14
; nextln: brif v16, block12, block13
; nextln: block12:
; nextln: v17 = load.f64 v3
; nextln: store v17, v3
; nextln: jump block13
; nextln: block13:
; nextln: barrier
; nextln: v18 = sdiv v14, v1
; nextln: jump block6(v18)
; nextln: block6(v9: i32):
; nextln: v10 = icmp sgt v9, v2
; nextln: jump block7
; nextln: block7:
; nextln: v11 = icmp slt v0, v9
; nextln: brif v11, block8, block9
; nextln: block8:
; nextln: v12 = load.f64 v3
; nextln: store v12, v3
; nextln: jump block9
; nextln: block9:
; nextln: barrier
; nextln: v13 = sdiv v9, v1
; nextln: jump block1(v13)
; nextln: block1(v4: i32):
; nextln: v5 = icmp sgt v4, v2
; nextln: jump block5
; nextln: block2:
; nextln: v6 = icmp slt v0, v4
; nextln: brif v6, block3, block4
; nextln: block3:
; nextln: v7 = load.f64 v3
; nextln: store v7, v3
; nextln: jump block4
; nextln: block4:
; nextln: barrier
; nextln: v8 = sdiv v4, v1
; nextln: jump block1(v8)
; nextln: block5:
; nextln: return
; nextln: }
; check: func kernel convergent @odd() {
; nextln: block0:
; nextln: v0 = thread_idx.x
; nextln: v1 = iconst.i32 2
; nextln: v2 = iconst.i32 0
; nextln: jump block1(v1)
; nextln: block1(v4: i32):
; nextln: v5 = icmp sgt v4, v2
; nextln: brif v5, block2, block5
; nextln: block2:
; nextln: v6 = icmp eq v0, v4
; nextln: brif v6, block3, block4
; nextln: block3:
; nextln: barrier
; nextln: jump block4
; nextln: block4:
; nextln: v8 = sdiv v4, v1
; nextln: jump block1(v8)
; nextln: block5:
; nextln: return
; nextln: }
global @s shared size 32 align 8 = zeroinit
func kernel convergent @tree() {
block0:
    v0 = thread_idx.x
    v1 = iconst.i32 2
    v2 = iconst.i32 0
    v3 = global_addr @s
    jump block1(v1)
block1(v4: i32):
    v5 = icmp sgt v4, v2
    brif v5, block2, block5
block2:
    v6 = icmp slt v0, v4
    brif v6, block3, block4
block3:
    v7 = load.f64 v3
    store v7, v3
    jump block4
block4:
    barrier
    v8 = sdiv v4, v1
    jump block1(v8)
block5:
    return
}
func kernel convergent @odd() {
block0:
    v0 = thread_idx.x
    v1 = iconst.i32 2
    v2 = iconst.i32 0
    jump block1(v1)
block1(v4: i32):
    v5 = icmp sgt v4, v2
    brif v5, block2, block5
block2:
    v6 = icmp eq v0, v4
    brif v6, block3, block4
block3:
    barrier
    jump block4
block4:
    v8 = sdiv v4, v1
    jump block1(v8)
block5:
    return
}
