; test: pass tail-rec
; f(n) = n == 0 ? 0 : f(0) + f(n + 1): every iteration would call f(0),
; but the eliminated chain never ends (`eq` bounds nothing): no measure.
; stat: changed = false
; stat: tail-rec.refused.no-measure = 1
func @f(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 0
    v2 = icmp eq v0, v1
    brif v2, block1, block2
block1:
    return v1
block2:
    v3 = call @f(v1)
    v4 = iconst.i32 1
    v5 = iadd v0, v4
    v6 = call @f(v5)
    v7 = iadd v3, v6
    return v7
}
