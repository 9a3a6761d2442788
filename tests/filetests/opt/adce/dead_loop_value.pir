; test: pass adce
; `s` (v4) is carried around the loop but never read after it: its only
; use is its own update (v7), a cycle that `dce` cannot break. ADCE drops
; the update, the block parameter and the matching branch arguments; the
; counter (v3) stays because the loop's exit test reads it. The infinite
; loop in @spin and its side-effect-free body keep their control flow.
; check: func @count(i32) -> i32 {
; nextln: block0(v0: i32):
; nextln: v1 = iconst.i32 0
; nextln: v2 = iconst.i32 1
; nextln: jump block1(v1)
; nextln: block1(v3: i32):
; nextln: v5 = icmp slt v3, v0
; nextln: brif v5, block2, block3
; nextln: block2:
; nextln: v8 = iadd v3, v2
; nextln: jump block1(v8)
; nextln: block3:
; nextln: return v3
; nextln: }
; check: func @spin(i32) {
; nextln: block0(v0: i32):
; nextln: jump block1
; nextln: block1:
; nextln: jump block1
; nextln: }
func @count(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 0
    v2 = iconst.i32 1
    v10 = fconst.f64 0.5
    jump block1(v1, v1, v10)
block1(v3: i32, v4: i32, v11: f64):
    v5 = icmp slt v3, v0
    brif v5, block2, block3
block2:
    v6 = imul v3, v3
    v7 = iadd v4, v6
    v12 = fmul v11, v11
    v8 = iadd v3, v2
    jump block1(v8, v7, v12)
block3:
    return v3
}
func @spin(i32) {
block0(v0: i32):
    jump block1(v0)
block1(v1: i32):
    v2 = iadd v1, v1
    jump block1(v2)
}
