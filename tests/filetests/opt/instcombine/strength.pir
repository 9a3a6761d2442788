; test: pass instcombine
; Multiplication and unsigned division/remainder by powers of two become
; shifts and masks (the new constants keep the position of the instruction
; they serve); a constant on the left of a commutative operator moves
; right; signed division by a power of two is left alone (it rounds toward
; zero), and so is float arithmetic (x + 0.0 is not x for x = -0.0).
; check: $(k=v\d+) = iconst.i64 3 @3:7
; nextln: v3 = shl v0, $k @3:7
; nextln: $(k2=v\d+) = iconst.i64 3
; nextln: v4 = lshr v3, $k2
; nextln: $(m=v\d+) = iconst.i64 7
; nextln: v5 = and v4, $m
; nextln: v6 = iconst.i64 3
; nextln: v7 = iadd v5, v6
; nextln: v8 = sdiv v7, v2
; check: v10 = fadd v1, v9
func @s(i64, f64) -> i64 {
block0(v0: i64, v1: f64):
    v2 = iconst.i64 8
    v3 = imul v0, v2 @3:7
    v4 = udiv v3, v2
    v5 = urem v4, v2
    v6 = iconst.i64 3
    v7 = iadd v6, v5
    v8 = sdiv v7, v2
    v9 = fconst.f64 0.0
    v10 = fadd v1, v9
    v11 = fptosi.i64 v10
    v12 = iadd v8, v11
    return v12
}
