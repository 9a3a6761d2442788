; test: pass loop-unroll sccp simplify-cfg
; exit: 680
; @tree: a halving counter (2, 1: two passes through the body) and a sum
; used after the loop, unrolled into straight-line code (two copies of
; the body) and cleaned up as the pipeline does. @main, on
; a = {1, 2, 4, 8, 16}: tree(a, 0) = a[2] + a[1] = 6, tree(a, 1) = a[3] = 8,
; tree(a, 2) = 0; it returns 100 * 6 + 10 * 8 + 0.
; stat: loop-unroll.unrolled = 1
; stat: loop-unroll.copies = 2
; check: func @tree(ptr, i32) -> f64 {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = iconst.i32 2
; nextln: v3 = iconst.i32 0
; nextln: v4 = fconst.f64 0.0
; nextln: v5 = iconst.i64 3
; nextln: v42 = iconst.i32 2
; nextln: v43 = fconst.f64 0.0
; nextln: v44 = iconst.i32 1
; nextln: v45 = iconst.i32 0
; nextln: v33 = iconst.i1 1
; nextln: v34 = icmp slt v1, v42
; nextln: brif v34, block12, block13(v43)
; nextln: block12:
; nextln: v35 = iadd v1, v42
; nextln: v36 = sext.i64 v35
; nextln: v37 = shl v36, v5
; nextln: v38 = ptradd v0, v37
; nextln: v39 = load.f64 v38
; nextln: v40 = fadd v43, v39
; nextln: jump block13(v40)
; nextln: block13(v32: f64):
; nextln: v41 = iconst.i32 1
; nextln: v21 = iconst.i1 1
; nextln: v22 = icmp slt v1, v44
; nextln: brif v22, block8, block9(v32)
; nextln: block8:
; nextln: v23 = iadd v1, v44
; nextln: v24 = sext.i64 v23
; nextln: v25 = shl v24, v5
; nextln: v26 = ptradd v0, v25
; nextln: v27 = load.f64 v26
; nextln: v28 = fadd v32, v27
; nextln: jump block9(v28)
; nextln: block9(v20: f64):
; nextln: v29 = iconst.i32 0
; nextln: v8 = iconst.i1 0
; nextln: return v20
; nextln: }
func @tree(ptr, i32) -> f64 {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 2
    v3 = iconst.i32 0
    v4 = fconst.f64 0.0
    v5 = iconst.i64 3
    jump block1(v2, v4)
block1(v6: i32, v7: f64):
    v8 = icmp sgt v6, v3
    brif v8, block2, block4
block2:
    v9 = icmp slt v1, v6
    brif v9, block3, block5(v7)
block3:
    v11 = iadd v1, v6
    v12 = sext.i64 v11
    v13 = shl v12, v5
    v14 = ptradd v0, v13
    v15 = load.f64 v14
    v16 = fadd v7, v15
    jump block5(v16)
block5(v17: f64):
    v10 = sdiv v6, v2
    jump block1(v10, v17)
block4:
    return v7
}

func @main() -> i32 {
block0:
    v0 = alloca 40, align 8
    v1 = iconst.i64 8
    v2 = fconst.f64 1.0
    store v2, v0
    v3 = ptradd v0, v1
    v4 = fconst.f64 2.0
    store v4, v3
    v5 = ptradd v3, v1
    v6 = fconst.f64 4.0
    store v6, v5
    v7 = ptradd v5, v1
    v8 = fconst.f64 8.0
    store v8, v7
    v9 = ptradd v7, v1
    v10 = fconst.f64 16.0
    store v10, v9
    v11 = iconst.i32 0
    v12 = iconst.i32 1
    v13 = iconst.i32 2
    v14 = call @tree(v0, v11)
    v15 = call @tree(v0, v12)
    v16 = call @tree(v0, v13)
    v17 = fconst.f64 100.0
    v18 = fmul v14, v17
    v19 = fconst.f64 10.0
    v20 = fmul v15, v19
    v21 = fadd v18, v20
    v22 = fadd v21, v16
    v23 = fptosi.i32 v22
    return v23
}
