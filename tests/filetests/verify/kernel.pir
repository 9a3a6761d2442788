; test: verify
; A kernel with shared memory and a barrier, launched from host code.
global @tile shared size 1024 align 8 = zeroinit
func kernel convergent @saxpy(ptr, f32, i32) {
block0(v0: ptr, v1: f32, v2: i32):
    v3 = block_idx.x
    v4 = block_dim.x
    v5 = imul v3, v4
    v6 = thread_idx.x
    v7 = iadd v5, v6
    v8 = icmp slt v7, v2
    brif v8, block1, block2
block1:
    v9 = sext.i64 v7
    v10 = iconst.i64 4
    v11 = imul v9, v10
    v12 = ptradd v0, v11
    v13 = load.f32 v12
    v14 = fmul v13, v1
    v15 = global_addr @tile
    v16 = sext.i64 v6
    v17 = imul v16, v10
    v18 = ptradd v15, v17
    store v14, v18
    v19 = atomic_add.f32 v12, v14
    jump block2
block2:
    barrier
    return
}
func @main() -> i32 {
block0:
    v0 = iconst.i64 4096
    v1 = malloc v0
    v2 = fconst.f32 0.5
    v3 = iconst.i32 1024
    v4 = iconst.i32 4
    v5 = iconst.i32 256
    v6 = iconst.i32 1
    launch @saxpy(v1, v2, v3) grid(v4, v6, v6) block(v5, v6, v6)
    free v1
    v7 = iconst.i32 0
    return v7
}
