; test: verify
; error: in @f, block0, `brif v0, block1(v0), block2`: `brif` condition must be i1, not i32 [types]
; error: in @f, block1, `jump block2(v1)`: passes (i32) to block2, whose parameters are () [types]
; error: in @f, block2, `jump block3(v0, v0)`: passes (i32, i32) to block3, whose parameters are (i64, i32) [types]
; error: in @f, block3, `return`: returns nothing, but the function returns i32 [types]
; error: in @g, block0, `return v0`: returns a value from a function that returns nothing [types]
; error: in @h, block0, `return v0`: returns i32, but the function returns f64 [types]
; Types at control flow: brif conditions, block-call arguments, returns.
func @f(i32) -> i32 {
block0(v0: i32):
    brif v0, block1(v0), block2
block1(v1: i32):
    jump block2(v1)
block2:
    jump block3(v0, v0)
block3(v2: i64, v3: i32):
    return
}
func @g() {
block0:
    v0 = iconst.i32 0
    return v0
}
func @h() -> f64 {
block0:
    v0 = iconst.i32 0
    return v0
}
