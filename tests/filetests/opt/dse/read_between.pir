; test: pass dse
; A load between two stores to the same address, from a pointer that may
; alias it, reads the first store: nothing goes, and the pass says it
; changed nothing.
; stat: dse.removed = 0
; stat: changed = false
; check: store v2, v0
; nextln: v3 = load.f64 v1
; nextln: store v3, v0
func @f(ptr, ptr, f64) {
block0(v0: ptr, v1: ptr, v2: f64):
    store v2, v0
    v3 = load.f64 v1
    store v3, v0
    return
}
