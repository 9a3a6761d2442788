; test: pass loop-unroll
; A loop with no preheader: the branch that ends the previous loop enters
; it directly (as simplify-cfg leaves `for (..) ..; for (k = 0; k < 3; k++)
; s += k;`). Only that way of the `brif` is redirected to the first copy;
; the other way still goes back to block1.
; check: block1(v1: i32):
; nextln: v2 = icmp slt v1, v0
; nextln: brif v2, block2, $(first=block\d+)(v3)
; check: $first(
; not: brif
; check: return
func @f(i32) -> i32 {
block0(v0: i32):
    v3 = iconst.i32 0
    v4 = iconst.i32 1
    v5 = iconst.i32 3
    jump block1(v3)
block1(v1: i32):
    v2 = icmp slt v1, v0
    brif v2, block2, block3(v3)
block2:
    v6 = iadd v1, v4
    jump block1(v6)
block3(v7: i32):
    v8 = icmp slt v7, v5
    brif v8, block4, block5
block4:
    v9 = iadd v7, v4
    jump block3(v9)
block5:
    return v7
}
