; test: pass inline
; Recursive callees are not inlined as other callees are: the members of a
; cycle (@even/@odd) never; a self-recursive one (@fact) only gets one copy
; of its own body at its self-call (see self_recursion.pir), so a call of
; @fact remains. @twice, called from @fact, is small and not recursive, so
; it is inlined.
; check: func @fact(i32) -> i32 {
; not: call @twice
; check: call @fact
; check: func @even(i32) -> i32 {
; check: call @odd
; check: func @odd(i32) -> i32 {
; check: call @even
func @twice(i32) -> i32 {
block0(v0: i32):
    v1 = iadd v0, v0
    return v1
}
func @fact(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 1
    v2 = icmp sle v0, v1
    brif v2, block1, block2
block1:
    return v1
block2:
    v3 = isub v0, v1
    v4 = call @fact(v3)
    v5 = call @twice(v4)
    v6 = imul v0, v4
    return v6
}
func @even(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 0
    v2 = icmp eq v0, v1
    brif v2, block1, block2
block1:
    v3 = iconst.i32 1
    return v3
block2:
    v4 = iconst.i32 1
    v5 = isub v0, v4
    v6 = call @odd(v5)
    return v6
}
func @odd(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 0
    v2 = icmp eq v0, v1
    brif v2, block1, block2
block1:
    return v1
block2:
    v4 = iconst.i32 1
    v5 = isub v0, v4
    v6 = call @even(v5)
    return v6
}
