; test: pass simplify-cfg
; A chain of empty blocks is bypassed at once (block0 goes straight to
; block3, with the last jump's argument); a cycle of empty blocks (an
; infinite loop: block4 <-> block5) is not threaded (that would never
; end), but block5 merges into block4, its only predecessor: the infinite
; loop is kept, as a self-loop.
; check: block0(v0: i1, v1: i32):
; nextln: brif v0, block3(v1), block4
; check: block3(v2: i32):
; nextln: return v2
; check: block4:
; nextln: jump block4
; not: block5
; not: block1
; not: block2
func @c(i1, i32) -> i32 {
block0(v0: i1, v1: i32):
    brif v0, block1, block4
block1:
    jump block2
block2:
    jump block3(v1)
block3(v2: i32):
    return v2
block4:
    jump block5
block5:
    jump block4
}
