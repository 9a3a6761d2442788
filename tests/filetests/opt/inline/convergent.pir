; test: pass inline
; Inlining a function that reaches a barrier is allowed (see
; parc_ir::convergent): the copy at each call site is run by exactly the
; threads that made that call, and threads meet at a barrier only through
; the same calls, so the two copies here are met by the same threads as
; @wait's one barrier was. The kernel keeps its `convergent` mark.
; check: func kernel convergent @k(ptr) {
; nextln: block0(v0: ptr):
; check: barrier
; check: barrier
; not: call @wait
func device convergent @wait(ptr) {
block0(v0: ptr):
    v1 = iconst.i32 1
    store v1, v0
    barrier
    return
}
func kernel convergent @k(ptr) {
block0(v0: ptr):
    call @wait(v0)
    v1 = iconst.i64 4
    v2 = ptradd v0, v1
    call @wait(v2)
    return
}
