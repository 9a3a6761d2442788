; test: verify
; error: in @sync, block0, `barrier`: `barrier` in a function not marked `convergent` [convergent]
; error: in @calls_sync, block0, `call @marked()`: calls convergent @marked, but the function is not marked `convergent` [convergent]
; error: in @k.grad: gradient request 0: the primal @k is `convergent`, so its gradient must be too [gradient]
; Convergence: a function holding a barrier, or calling a function marked
; `convergent`, is marked itself, and so is the gradient of a marked
; primal. A mark on a function that reaches no barrier is allowed
; (@marked).
func device @sync() {
block0:
    barrier
    return
}
func device convergent @marked() {
block0:
    return
}
func device @calls_sync() {
block0:
    call @marked()
    return
}
func device convergent @k(ptr) {
block0(v0: ptr):
    barrier
    return
}
declare device @k.grad(ptr, ptr)
gradient @k.grad = @k(dup) local
