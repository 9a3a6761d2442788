; test: pass tail-rec
; Two sites, two operations (an add and a multiply): refused.
; stat: changed = false
; stat: tail-rec.refused.mixed-ops = 1
func @m(i32, i1) -> i32 {
block0(v0: i32, v10: i1):
    v1 = iconst.i32 2
    v2 = icmp slt v0, v1
    brif v2, block1, block2
block1:
    return v0
block2:
    v3 = iconst.i32 1
    v4 = isub v0, v3
    v5 = call @m(v4, v10)
    v6 = isub v0, v1
    brif v10, block3, block4
block3:
    v7 = call @m(v6, v10)
    v8 = iadd v5, v7
    return v8
block4:
    v11 = call @m(v6, v10)
    v12 = imul v5, v11
    return v12
}
