; test: pass vectorize
; stat: vectorize.loops = 1
; stat: vectorize.missed.min-max-call = 1
; @elementwise: `c[i] = fmax(a[i], b[i])` on restrict pointers: the call
; becomes one on f64x2 (each lane the scalar call, NaNs ignored alike).
; @running: `m = fmax(m, a[i])` stays scalar (`min-max-call`).
; check: func @elementwise
; check: $(x=v\d+) = load.f64x2
; check: $(y=v\d+) = load.f64x2
; nextln: $(m=v\d+) = fmax.f64x2 $x, $y
; check: store $m,
; check: func @running
; not: f64x2
; check: return
func @elementwise(ptr noalias, ptr noalias, ptr noalias, i64) {
block0(v0: ptr, v1: ptr, v2: ptr, v3: i64):
    v4 = iconst.i64 0
    v5 = iconst.i64 1
    v6 = iconst.i64 3
    jump block1(v4)
block1(v7: i64):
    v8 = icmp slt v7, v3
    brif v8, block2, block3
block2:
    v9 = shl v7, v6
    v10 = ptradd v1, v9
    v11 = load.f64 v10
    v12 = ptradd v2, v9
    v13 = load.f64 v12
    v14 = fmax.f64 v11, v13
    v15 = ptradd v0, v9
    store v14, v15
    v17 = iadd v7, v5
    jump block1(v17)
block3:
    return
}
func @running(ptr, i64, f64) -> f64 {
block0(v0: ptr, v3: i64, v20: f64):
    v4 = iconst.i64 0
    v5 = iconst.i64 1
    v6 = iconst.i64 3
    jump block1(v4, v20)
block1(v7: i64, v21: f64):
    v8 = icmp slt v7, v3
    brif v8, block2, block3(v21)
block2:
    v9 = shl v7, v6
    v10 = ptradd v0, v9
    v11 = load.f64 v10
    v14 = fmax.f64 v21, v11
    v17 = iadd v7, v5
    jump block1(v17, v14)
block3(v22: f64):
    return v22
}
