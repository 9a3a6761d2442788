; test: pass dce
; stat: dce.removed = 4
; stat: again.changed = false
; A chain of unused arithmetic and an unused load go; the store, the
; possibly-trapping division and its operands stay.
; check: func @f(i32, ptr) -> i32 {
; nextln: block0(v0: i32, v1: ptr):
; nextln: v6 = iconst.i32 0
; nextln: v7 = sdiv v0, v6
; nextln: store v0, v1
; nextln: return v0
func @f(i32, ptr) -> i32 {
block0(v0: i32, v1: ptr):
    v2 = iconst.i32 1
    v3 = iadd v0, v2
    v4 = imul v3, v3
    v5 = load.i32 v1
    v6 = iconst.i32 0
    v7 = sdiv v0, v6
    store v0, v1
    return v0
}
