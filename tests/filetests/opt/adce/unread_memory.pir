; test: pass adce
; @scratch fills a fresh array that nothing reads (as a gradient's forward
; sweep leaves n-body's per-body energies): the stores, the memset, the
; free, the allocation and the values stored all go (the load stays, as
; loads do in `adce`; `dce` removes it). @kept reads its array
; back, @twice frees its array twice (a double free the interpreter
; reports), and @escapes passes its address to a call: they stay.
; check: func @scratch(ptr, i64) {
; nextln: block0(v0: ptr, v1: i64):
; nextln: v4 = load.f64 v0
; nextln: return
; nextln: }
; check: func @kept(i64) -> f64 {
; check: malloc
; check: store
; check: load.f64
; check: free
; check: func @twice(i64) {
; check: malloc
; check: free
; check: free
; check: func @escapes(i64) {
; check: malloc
; check: store
; check: call @use
func @scratch(ptr, i64) {
block0(v0: ptr, v1: i64):
    v2 = malloc v1
    v3 = iconst.i32 0
    memset v2, v3, v1
    v4 = load.f64 v0
    v5 = fmul v4, v4
    v6 = iconst.i64 8
    v7 = ptradd v2, v6
    store v5, v7
    free v2
    return
}

func @kept(i64) -> f64 {
block0(v0: i64):
    v1 = malloc v0
    v2 = fconst.f64 1.5
    store v2, v1
    v3 = load.f64 v1
    free v1
    return v3
}

func @twice(i64) {
block0(v0: i64):
    v1 = malloc v0
    free v1
    free v1
    return
}

declare @use(ptr)

func @escapes(i64) {
block0(v0: i64):
    v1 = malloc v0
    v2 = fconst.f64 1.5
    store v2, v1
    call @use(v1)
    return
}
