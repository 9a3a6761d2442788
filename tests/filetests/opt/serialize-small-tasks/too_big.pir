; test: pass serialize-small-tasks
; A task with a loop (unknown cost) and one above the cost bound stay tasks.
; check: detach within sr0, block1, block4
; check: detach within sr0, block5, block6
func @f(ptr, i32) {
block0(v0: ptr, v1: i32):
    detach within sr0, block1, block4
block1:
    jump block2(v1)
block2(v2: i32):
    store v2, v0
    v3 = iconst.i32 1
    v4 = isub v2, v3
    v5 = icmp sgt v4, v3
    brif v5, block2(v4), block3
block3:
    reattach within sr0, block4
block4:
    detach within sr0, block5, block6
block5:
    v10 = sitofp.f64 v1
    v11 = sqrt.f64 v10
    v12 = sqrt.f64 v11
    v13 = sqrt.f64 v12
    v14 = sqrt.f64 v13
    v15 = sqrt.f64 v14
    store v15, v0
    reattach within sr0, block6
block6:
    sync within sr0, block7
block7:
    return
}
