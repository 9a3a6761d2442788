; test: pass tail-rec
; refused_eq_bound.pir with `n < 1` as the base case, but the argument
; moves away from it: refused.
; stat: changed = false
func @f(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 0
    v2 = icmp slt v0, v1
    brif v2, block1, block2
block1:
    return v1
block2:
    v3 = call @f(v1)
    v4 = iconst.i32 1
    v5 = iadd v4, v0
    v6 = call @f(v5)
    v7 = iadd v3, v6
    return v7
}
