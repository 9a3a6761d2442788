; test: pass simplify-cfg
; Empty forwarding blocks are bypassed: both arms of the brif go straight
; to the join (with the forwarding block's arguments), then the brif's
; two arms are the same and it folds, and everything merges.
; An empty block that is a loop's latch is threaded too (the back edge now
; comes straight from the body).
; check: block0(v0: i1, v1: i32):
; nextln: jump block4(v1)
; check: block4(v3: i32):
; nextln: v4 = icmp slt v3, v1
; nextln: brif v4, block5, block7
; check: block5:
; nextln: v5 = iconst.i32 1
; nextln: v6 = iadd v3, v5
; nextln: jump block4(v6)
; check: block7:
; nextln: return v3
; not: block1
; not: block6
func @t(i1, i32) -> i32 {
block0(v0: i1, v1: i32):
    brif v0, block1, block2
block1:
    jump block3(v1)
block2:
    jump block3(v1)
block3(v2: i32):
    jump block4(v2)
block4(v3: i32):
    v4 = icmp slt v3, v1
    brif v4, block5, block7
block5:
    v5 = iconst.i32 1
    v6 = iadd v3, v5
    brif v0, block6, block8
block6:
    jump block4(v6)
block8:
    jump block4(v6)
block7:
    return v3
}
