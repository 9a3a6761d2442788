; test: pass inline
; Linear self-recursion (one self-call) gets three rounds of copies of the
; body, at the one self-call each time: @down (infinite_recursion.pc's)
; then does four levels per call, and still calls itself, so unbounded
; recursion still overflows the stack. @scan's self-call sits in a loop
; with arguments that do not change there (LICM may hoist it): no copy.
; check: func @down(i32) -> i32 {
; check: iadd
; check: iadd
; check: iadd
; check: iadd
; check: call @down
; not: call @down
; check: func @scan(ptr, i32) -> i32 {
; check: call @scan(v0, v11)
; not: call @scan
func @down(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 1
    v2 = iadd v0, v1
    v3 = call @down(v2)
    v4 = iadd v3, v1
    return v4
}
func @scan(ptr, i32) -> i32 {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = icmp sle v1, v2
    brif v3, block1, block2
block1:
    return v2
block2:
    v10 = iconst.i32 1
    v11 = isub v1, v10
    jump block3(v2, v2)
block3(v4: i32, v5: i32):
    v6 = icmp slt v4, v1
    brif v6, block4, block5
block4:
    v7 = call @scan(v0, v11)
    v8 = iadd v5, v7
    v9 = iadd v4, v10
    jump block3(v9, v8)
block5:
    return v5
}
