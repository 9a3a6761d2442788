; test: pass loop-rotate
; Calls count where the backend puts them: a task is outlined into a
; function of its own, so a call in its parent spills nothing of the
; task's, and the reverse.
; @spawned: the parent's call after the sync holds `p` and `n` live across
; it; the spawned task's loop reads them from its context: rotated.
; @body_call: a parallel loop's body runs in a loop over its chunk, so what
; it reads from outside (`p`, `n`) is live across the call in the body:
; its inner loop stays as it is.
; @worker_slot: `worker_id` (read once at the entry of the function the
; backend makes) and `atomic_add` (inline) are no calls: rotated.
; @spawn_in_loop: the detach is a call of the runtime in the outer loop,
; whose inner loop's bound `n` is live across it: the inner loop stays,
; and so does the outer loop, whose counter is too.
; check: func @spawned(ptr, i32) {
; check: block3:
; nextln: v9 = icmp slt v2, v1
; nextln: brif v9, block6(v2), block5
; check: call @more()
; check: func @body_call(ptr, i32) {
; check: block6(v7: i32):
; nextln: v8 = icmp slt v7, v1
; nextln: brif v8, block7, block8
; check: func @worker_slot(ptr, i32) {
; check: v7 = worker_id
; nextln: v13 = icmp slt v2, v1
; nextln: brif v13, block7(v2), block8
; check: func @spawn_in_loop(ptr, i32) {
; check: block1(v4: i32):
; nextln: v5 = icmp slt v4, v1
; check: block3(v6: i32):
; nextln: v7 = icmp slt v6, v1
declare @more() -> i1

func @spawned(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    detach within sr0, block3, block1
block3:
    jump block4(v2)
block4(v4: i32):
    v5 = icmp slt v4, v1
    brif v5, block6, block5
block6:
    store v4, v0
    v6 = iadd v4, v3
    jump block4(v6)
block5:
    reattach within sr0, block1
block1:
    sync within sr0, block2
block2:
    v7 = call @more()
    store v1, v0
    return
}

func @body_call(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v2)
block1(v4: i32):
    v5 = icmp slt v4, v1
    brif v5, block2, block5
block2:
    detach within sr0, block3, block4
block3:
    jump block6(v2)
block6(v7: i32):
    v8 = icmp slt v7, v1
    brif v8, block7, block8
block7:
    store v7, v0
    v9 = iadd v7, v3
    jump block6(v9)
block8:
    v10 = call @more()
    reattach within sr0, block4
block4:
    v6 = iadd v4, v3
    jump block1(v6)
block5:
    sync within sr0, block9
block9:
    return
}

func @worker_slot(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v2)
block1(v4: i32):
    v5 = icmp slt v4, v1
    brif v5, block2, block5
block2:
    detach within sr0, block3, block4
block3:
    v7 = worker_id
    jump block6(v2)
block6(v8: i32):
    v9 = icmp slt v8, v1
    brif v9, block7, block8
block7:
    v10 = atomic_add.i32 v0, v7
    v11 = iadd v8, v3
    jump block6(v11)
block8:
    reattach within sr0, block4
block4:
    v6 = iadd v4, v3
    jump block1(v6)
block5:
    sync within sr0, block9
block9:
    return
}

func @spawn_in_loop(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v2)
block1(v4: i32):
    v5 = icmp slt v4, v1
    brif v5, block2, block7
block2:
    jump block3(v2)
block3(v6: i32):
    v7 = icmp slt v6, v1
    brif v7, block4, block5
block4:
    store v6, v0
    v8 = iadd v6, v3
    jump block3(v8)
block5:
    detach within sr0, block6, block8
block6:
    store v4, v0
    reattach within sr0, block8
block8:
    sync within sr0, block9
block9:
    v9 = iadd v4, v3
    jump block1(v9)
block7:
    return
}
