; test: pass vectorize
; `a[i] = a[i - 1] + a[i]` reads what the previous iteration stored: a
; dependence the vector loop would break, so nothing changes.
; not: splat
; not: f64x2
func @prefix(ptr, i32) {
block0(v0: ptr, v1: i32):
    v39 = iconst.i64 3
    v42 = iconst.i64 1
    v47 = sext.i64 v1
    jump block1(v42)
block1(v43: i64):
    v8 = icmp slt v43, v47
    brif v8, block2, block4
block2:
    v13 = shl v43, v39
    v14 = ptradd v0, v13
    v51 = iconst.i64 -8
    v22 = ptradd v14, v51
    v23 = load.f64 v22
    v30 = load.f64 v14
    v31 = fadd v23, v30
    store v31, v14
    v45 = iadd v43, v42
    jump block1(v45)
block4:
    return
}
