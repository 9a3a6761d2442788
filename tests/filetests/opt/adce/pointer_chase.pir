; test: pass adce
; tests/run/null_deref.pc after inlining: `s` (v4) is dead, but the loads
; stay (loads are roots: the load of `n->next` is what ends this loop, at
; the null pointer), so `n` (v3) stays live through the load's address.
; The addition into `s` and its parameter go; `dce` then removes the load
; of `n->value`, whose result nobody uses any more.
; check: func @chase(ptr) {
; nextln: block0(v0: ptr):
; nextln: v2 = iconst.i64 8
; nextln: jump block1(v0)
; nextln: block1(v3: ptr):
; nextln: v5 = load.i32 v3
; nextln: v7 = ptradd v3, v2
; nextln: v8 = load.ptr v7
; nextln: jump block1(v8)
; nextln: }
func @chase(ptr) {
block0(v0: ptr):
    v1 = iconst.i32 0
    v2 = iconst.i64 8
    jump block1(v0, v1)
block1(v3: ptr, v4: i32):
    v5 = load.i32 v3
    v6 = iadd v4, v5
    v7 = ptradd v3, v2
    v8 = load.ptr v7
    jump block1(v8, v6)
}
