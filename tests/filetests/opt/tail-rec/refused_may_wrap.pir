; test: pass tail-rec
; n - 2 from n >= INT_MIN + 1 could wrap: no measure.
; stat: changed = false
; stat: tail-rec.refused.no-measure = 1
func @g(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 -2147483647
    v2 = icmp slt v0, v1
    brif v2, block1, block2
block1:
    return v0
block2:
    v3 = iconst.i32 1
    v4 = isub v0, v3
    v5 = call @g(v4)
    v6 = iconst.i32 2
    v7 = isub v0, v6
    v8 = call @g(v7)
    v9 = iadd v5, v8
    return v9
}
