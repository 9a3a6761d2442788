; test: pass tail-rec
; @down (tests/run/infinite_recursion.pc) has no test at all, so no
; measure: refused, so that the recursion still overflows the stack.
; stat: changed = false
; stat: tail-rec.refused.no-measure = 1
func @down(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 1
    v2 = iadd v0, v1
    v3 = call @down(v2)
    v4 = iadd v3, v1
    return v4
}
