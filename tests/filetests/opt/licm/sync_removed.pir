; test: pass licm
; sync_refused.pir without the sync in the loop body: the refusal there is
; for the sync alone, so here the load of @g is hoisted (it races with the
; task before and after the motion alike).
; stat: licm.loads = 1
global @g size 4 align 4 = zeroinit
global @fmt const size 4 align 1 = "%d\0A\00"
func @f(i32) {
block0(v0: i32):
    detach within sr0, block1, block2
block1:
    v1 = global_addr @g
    v2 = iconst.i32 7
    store v2, v1
    reattach within sr0, block2
block2:
    v3 = iconst.i32 0
    v4 = iconst.i32 1
    v8 = global_addr @g
    v11 = global_addr @fmt
    jump block3(v3)
block3(v5: i32):
    v6 = icmp slt v5, v0
    brif v6, block4, block6
block4:
    jump block5
block5:
    v9 = load.i32 v8
    v10 = printf v11, v9
    v7 = iadd v5, v4
    jump block3(v7)
block6:
    sync within sr0, block7
block7:
    return
}
