; test: pass dse
; The store of a constant is overwritten, unread, by the store of a sum
; that uses the constant (not the memory): it goes.
; stat: dse.removed = 1
; stat: changed = true
; not: store v2
; check: v3 = fadd v2, v1
; nextln: store v3, v0
func @f(ptr, f64) {
block0(v0: ptr, v1: f64):
    v2 = fconst.f64 0.0
    store v2, v0
    v3 = fadd v2, v1
    store v3, v0
    return
}
