; test: pass gvn
; A `noalias` parameter (C's `restrict`): a store through another
; parameter cannot change *p, so the second load of *p reuses the first;
; without `noalias` (@g) it must load again.
; check: func @f(ptr noalias, ptr) -> i32 {
; nextln: block0(v0: ptr, v1: ptr):
; nextln: v2 = load.i32 v0
; nextln: v3 = iconst.i32 7
; nextln: store v3, v1
; nextln: v5 = iadd v2, v2
; nextln: return v5
; check: func @g(ptr, ptr) -> i32 {
; nextln: block0(v0: ptr, v1: ptr):
; nextln: v2 = load.i32 v0
; nextln: v3 = iconst.i32 7
; nextln: store v3, v1
; nextln: v4 = load.i32 v0
; nextln: v5 = iadd v2, v4
; nextln: return v5
func @f(ptr noalias, ptr) -> i32 {
block0(v0: ptr, v1: ptr):
    v2 = load.i32 v0
    v3 = iconst.i32 7
    store v3, v1
    v4 = load.i32 v0
    v5 = iadd v2, v4
    return v5
}

func @g(ptr, ptr) -> i32 {
block0(v0: ptr, v1: ptr):
    v2 = load.i32 v0
    v3 = iconst.i32 7
    store v3, v1
    v4 = load.i32 v0
    v5 = iadd v2, v4
    return v5
}
