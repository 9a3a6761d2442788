; test: pass simplify-cfg
; A brif on a constant becomes a jump (keeping its position), the arm not
; taken becomes unreachable and goes, and the chain block0 -> block1 ->
; block3 merges into one block (block3's parameter becomes the argument).
; A brif to one block with the same arguments twice becomes a jump.
; check: block0(v0: i32):
; nextln: v1 = iconst.i1 1
; nextln: v2 = iconst.i32 3
; nextln: v3 = iadd v0, v2
; nextln: v5 = icmp slt v3, v0
; nextln: return v3
; not: block
func @f(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i1 1
    brif v1, block1, block2 @2:5
block1:
    v2 = iconst.i32 3
    v3 = iadd v0, v2
    jump block3(v3)
block2:
    jump block3(v0)
block3(v4: i32):
    v5 = icmp slt v4, v0
    brif v5, block4(v4), block4(v4)
block4(v6: i32):
    return v6
}
