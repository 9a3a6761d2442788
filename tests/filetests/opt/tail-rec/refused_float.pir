; test: pass tail-rec
; Float addition is not associative: refused.
; stat: changed = false
func @f(i32) -> f64 {
block0(v0: i32):
    v1 = iconst.i32 2
    v2 = icmp slt v0, v1
    brif v2, block1, block2
block1:
    v9 = sitofp.f64 v0
    return v9
block2:
    v3 = iconst.i32 1
    v4 = isub v0, v3
    v5 = call @f(v4)
    v6 = isub v0, v1
    v7 = call @f(v6)
    v8 = fadd v5, v7
    return v8
}
