; test: pass mem2reg
; Locals are zero-filled: a load no store reaches reads 0 of its type, and
; an alloca inside a loop is a fresh zero each iteration (its own position
; is a definition), so the loop-carried value is not what the body reads.
; check: block0(v0: i32):
; nextln: $(z=v\d+) = fconst.f64 0.0
; nextln: jump block1
; check: block1:
; nextln: $(zi=v\d+) = iconst.i32 0
; nextln: v5 = iadd $zi, v0
; check: block2:
; nextln: return $z
; not: alloca
; not: load
func @z(i32) -> f64 {
block0(v0: i32):
    v1 = alloca 8, align 8
    v2 = load.f64 v1
    jump block1
block1:
    v3 = alloca 4, align 4
    v4 = load.i32 v3
    v5 = iadd v4, v0
    store v5, v3
    v6 = icmp slt v5, v0
    brif v6, block1, block2
block2:
    return v2
}
