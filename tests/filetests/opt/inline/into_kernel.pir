; test: pass inline
; Kernels may call plain host functions, and such a call is inlined like
; any other (the AD's tape helpers, say, called from a kernel's reverse);
; a host function that launches a kernel is not: a launch stays in host
; code.
; check: func kernel @k(ptr) {
; nextln: block0(v0: ptr):
; nextln: v1 = load.f64 v0
; check: fmul
; not: call @twice
; check: call @relaunch(v0)
; check: return
func @twice(f64) -> f64 {
block0(v0: f64):
    v1 = fadd v0, v0
    return v1
}
func @relaunch(ptr) {
block0(v0: ptr):
    v1 = iconst.i32 1
    launch @other(v0) grid(v1, v1, v1) block(v1, v1, v1)
    return
}
func kernel @other(ptr) {
block0(v0: ptr):
    return
}
func kernel @k(ptr) {
block0(v0: ptr):
    v1 = load.f64 v0
    v2 = call @twice(v1)
    v3 = fmul v2, v1
    store v3, v0
    call @relaunch(v0)
    return
}
