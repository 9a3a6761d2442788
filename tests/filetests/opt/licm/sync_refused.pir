; test: pass licm
; stat: licm.loads = 0
; A task spawned before the loop writes @g; the loop body syncs it, then
; reads @g. Nothing in the loop writes @g and the load cannot fault, but
; it stays: moved to the preheader it would run before the sync, in
; parallel with the task's store (a race the program does not have).
; check: block4:
; nextln: sync within sr0, block5
; nextln: block5:
; nextln: v9 = load.i32 v8
; nextln: v10 = printf v11, v9
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
    sync within sr0, block5
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
