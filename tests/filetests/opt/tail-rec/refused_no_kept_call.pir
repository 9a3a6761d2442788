; test: pass tail-rec
; sum(n) = n + sum(n - 1): bounded, but no other self-call keeps the
; depth, so it stays recursive.
; stat: changed = false
; stat: tail-rec.refused.no-kept-call = 1
func @sum(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 1
    v2 = icmp slt v0, v1
    brif v2, block1, block2
block1:
    return v0
block2:
    v3 = isub v0, v1
    v4 = call @sum(v3)
    v5 = iadd v0, v4
    return v5
}
