; test: pass dse
; stat: dse.removed = 1
; stat: changed = true
; @zeroed is what a gradient's reverse leaves once gvn has forwarded the
; zero: the adjoint is read, zeroed, and the sum stored back, so the zeroing
; store is overwritten unread and goes. In @read_between a load that may
; alias the address reads the first store; in @call_between a call that
; reads memory may; in @narrower the second store covers only half of the
; first: all three keep both stores.
; check: func @zeroed(ptr, f64) {
; nextln: block0(v0: ptr, v1: f64):
; nextln: v2 = load.f64 v0
; nextln: v3 = fconst.f64 0.0
; nextln: v4 = fadd v3, v2
; nextln: store v4, v0
; nextln: return
; check: func @read_between(ptr, ptr, f64) {
; check: store v2, v0
; nextln: v3 = load.f64 v1
; nextln: store v3, v0
; check: func @call_between(ptr, f64) {
; check: store v1, v0
; nextln: call @look(v0)
; nextln: store v1, v0
; check: func @narrower(ptr, i64, i32) {
; check: store v1, v0
; nextln: store v2, v0
func @zeroed(ptr, f64) {
block0(v0: ptr, v1: f64):
    v2 = load.f64 v0
    v3 = fconst.f64 0.0
    store v3, v0
    v4 = fadd v3, v2
    store v4, v0
    return
}

func @read_between(ptr, ptr, f64) {
block0(v0: ptr, v1: ptr, v2: f64):
    store v2, v0
    v3 = load.f64 v1
    store v3, v0
    return
}

declare @look(ptr)

func @call_between(ptr, f64) {
block0(v0: ptr, v1: f64):
    store v1, v0
    call @look(v0)
    store v1, v0
    return
}

func @narrower(ptr, i64, i32) {
block0(v0: ptr, v1: i64, v2: i32):
    store v1, v0
    store v2, v0
    return
}
