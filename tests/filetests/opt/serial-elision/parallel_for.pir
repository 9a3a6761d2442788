; test: pass serial-elision
; A parallel_for whose body declares a local array (a task-private alloca
; at the top of the task's first block) and spawns a call in its own sync
; region. After the elision the loop is an ordinary loop: the alloca stays
; at the top of the body, so it is zero-filled on every iteration and
; reuses one stack slot (the stack does not grow per iteration); the
; body's spawn is a call, its sync and the loop's exit sync are jumps.
; check: declare @work(ptr, i32)
; check: func @f(ptr, i32) {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = iconst.i32 0
; nextln: jump block1(v2)
; nextln: block1(v3: i32):
; nextln: v4 = icmp slt v3, v1
; nextln: brif v4, block2, block8
; nextln: block2:
; nextln: jump block3
; nextln: block3:
; nextln: v5 = alloca 16, align 4
; nextln: store v3, v5
; nextln: jump block4
; nextln: block4:
; nextln: call @work(v5, v3)
; nextln: jump block5
; nextln: block5:
; nextln: jump block6
; nextln: block6:
; nextln: jump block7
; nextln: block7:
; nextln: v6 = iconst.i32 1
; nextln: v7 = iadd v3, v6
; nextln: jump block1(v7)
; nextln: block8:
; nextln: jump block9
; nextln: block9:
; nextln: return
; nextln: }
declare @work(ptr, i32)
func @f(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    jump block1(v2)
block1(v3: i32):
    v4 = icmp slt v3, v1
    brif v4, block2, block8
block2:
    detach within sr0, block3, block7
block3:
    v5 = alloca 16, align 4
    store v3, v5
    detach within sr1, block4, block5
block4:
    call @work(v5, v3)
    reattach within sr1, block5
block5:
    sync within sr1, block6
block6:
    reattach within sr0, block7
block7:
    v6 = iconst.i32 1
    v7 = iadd v3, v6
    jump block1(v7)
block8:
    sync within sr0, block9
block9:
    return
}
