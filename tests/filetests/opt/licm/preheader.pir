; test: pass licm
; The loop header is entered from two blocks (no preheader): LICM makes
; one (block6, taking the header's parameter) and hoists the invariant
; arithmetic there; the loop-variant sum stays.
; check: block6(v12: i32):
; nextln: v8 = imul v1, v1
; nextln: v9 = iadd v8, v2
; nextln: jump block3(v12)
; check: block4:
; nextln: v10 = iadd v7, v9
func @f(i1, i32, i32) -> i32 {
block0(v0: i1, v1: i32, v2: i32):
    v3 = iconst.i32 0
    v4 = iconst.i32 5
    brif v0, block1, block2
block1:
    jump block3(v3)
block2:
    jump block3(v4)
block3(v7: i32):
    v11 = icmp slt v7, v2
    brif v11, block4, block5
block4:
    v8 = imul v1, v1
    v9 = iadd v8, v2
    v10 = iadd v7, v9
    jump block3(v10)
block5:
    return v7
}
