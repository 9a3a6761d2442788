; test: pass gvn
; Dominance scopes expressions: the add in block1 is not available in its
; sibling block2, so block2's add stays; the constant of block0 is
; available everywhere, so block2's second constant is the one value
; numbered away.
; stat: gvn.pure = 1
; check: block2:
; nextln: v4 = iadd v0, v2
; nextln: jump block3(v4)
func @f(i32, i1) -> i32 {
block0(v0: i32, v1: i1):
    v2 = iconst.i32 1
    brif v1, block1, block2
block1:
    v3 = iadd v0, v2
    jump block3(v3)
block2:
    v4 = iadd v0, v2
    v5 = iconst.i32 1
    jump block3(v4)
block3(v6: i32):
    return v6
}
