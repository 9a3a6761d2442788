; test: pass inline
; A callee that spawns is not inlined (its sync regions and its sync before
; the return would have to be remapped into the caller); neither is a
; callee returning the address of its own local (inlined, the object would
; outlive the call and the dangling use would go unnoticed), nor a callee
; with a loop called from a loop (LICM wants to see that call whole).
; check: func @user(ptr, i32) -> i32 {
; check: call @spawner(v0)
; check: call @leak()
; check: call @sum(v0, v1)
; check: return
declare @work(i32)
func @spawner(ptr) {
block0(v0: ptr):
    detach within sr0, block1, block2
block1:
    v1 = iconst.i32 1
    call @work(v1)
    reattach within sr0, block2
block2:
    sync within sr0, block3
block3:
    return
}
func @leak() -> ptr {
block0:
    v0 = alloca 4, align 4
    return v0
}
func @sum(ptr, i32) -> i32 {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v2, v2)
block1(v4: i32, v5: i32):
    v6 = icmp slt v4, v1
    brif v6, block2, block3
block2:
    v7 = iadd v5, v4
    v8 = iadd v4, v3
    jump block1(v8, v7)
block3:
    return v5
}
func @user(ptr, i32) -> i32 {
block0(v0: ptr, v1: i32):
    call @spawner(v0)
    v2 = call @leak()
    v3 = iconst.i32 0
    v4 = iconst.i32 1
    jump block1(v3, v3)
block1(v5: i32, v6: i32):
    v7 = icmp slt v5, v1
    brif v7, block2, block3
block2:
    v8 = call @sum(v0, v1)
    v9 = iadd v6, v8
    v10 = iadd v5, v4
    jump block1(v10, v9)
block3:
    return v6
}
