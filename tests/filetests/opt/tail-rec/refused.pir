; test: pass tail-rec
; Left alone, so that unbounded recursion still overflows the stack:
; @down (tests/run/infinite_recursion.pc) has no test that bounds its
; argument; @sum's only self-call would be eliminated, so nothing would
; keep its depth; @away moves its argument away from the bound.
; check: func @down(i32) -> i32 {
; nextln: block0(v0: i32):
; check: call @down(v2)
; check: func @sum(i32) -> i32 {
; nextln: block0(v0: i32):
; check: call @sum(v3)
; check: func @away(i32) -> i32 {
; nextln: block0(v0: i32):
; check: call @away(v4)
; check: call @away(v5)
func @down(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 1
    v2 = iadd v0, v1
    v3 = call @down(v2)
    v4 = iadd v3, v1
    return v4
}
func @sum(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 1
    v2 = icmp slt v0, v1
    brif v2, block1, block2
block1:
    return v0
block2:
    v3 = isub v0, v1
    v4 = call @sum(v3)
    v5 = iadd v0, v4
    return v5
}
func @away(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 100
    v2 = icmp sgt v0, v1
    brif v2, block1, block2
block1:
    return v0
block2:
    v3 = iconst.i32 1
    v4 = isub v0, v3
    v6 = call @away(v4)
    v5 = isub v4, v3
    v7 = call @away(v5)
    v8 = xor v6, v7
    return v8
}
