; test: pass loop-unroll
; `for (w = 2; w > 0; w /= 2) if (t < w) s += a[t + w]; return s;`: the
; header (block1) runs three times, with w = 2, 1 and 0. Two copies run
; the first two passes, each with its header's test now a `jump` into
; the body, the first entered from block0, its latch entering the second,
; whose latch enters the loop; the loop's own blocks run the last pass,
; whose test now leaves (`jump block4`), so its body is unreachable for
; `simplify-cfg`. `sccp` then folds each copy's `w`.
; check: func @tree(ptr, i32) -> f64 {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = iconst.i32 2
; nextln: v3 = iconst.i32 0
; nextln: v4 = fconst.f64 0.0
; nextln: v5 = iconst.i64 3
; nextln: jump block10(v2, v4)
; nextln: block10(v30: i32, v31: f64):
; nextln: v33 = icmp sgt v30, v3
; nextln: jump block11
; nextln: block11:
; nextln: v34 = icmp slt v1, v30
; nextln: brif v34, block12, block13(v31)
; nextln: block12:
; nextln: v35 = iadd v1, v30
; nextln: v36 = sext.i64 v35
; nextln: v37 = shl v36, v5
; nextln: v38 = ptradd v0, v37
; nextln: v39 = load.f64 v38
; nextln: v40 = fadd v31, v39
; nextln: jump block13(v40)
; nextln: block13(v32: f64):
; nextln: v41 = sdiv v30, v2
; nextln: jump block6(v41, v32)
; nextln: block6(v18: i32, v19: f64):
; nextln: v21 = icmp sgt v18, v3
; nextln: jump block7
; nextln: block7:
; nextln: v22 = icmp slt v1, v18
; nextln: brif v22, block8, block9(v19)
; nextln: block8:
; nextln: v23 = iadd v1, v18
; nextln: v24 = sext.i64 v23
; nextln: v25 = shl v24, v5
; nextln: v26 = ptradd v0, v25
; nextln: v27 = load.f64 v26
; nextln: v28 = fadd v19, v27
; nextln: jump block9(v28)
; nextln: block9(v20: f64):
; nextln: v29 = sdiv v18, v2
; nextln: jump block1(v29, v20)
; nextln: block1(v6: i32, v7: f64):
; nextln: v8 = icmp sgt v6, v3
; nextln: jump block4
; nextln: block2:
; nextln: v9 = icmp slt v1, v6
; nextln: brif v9, block3, block5(v7)
; nextln: block3:
; nextln: v11 = iadd v1, v6
; nextln: v12 = sext.i64 v11
; nextln: v13 = shl v12, v5
; nextln: v14 = ptradd v0, v13
; nextln: v15 = load.f64 v14
; nextln: v16 = fadd v7, v15
; nextln: jump block5(v16)
; nextln: block5(v17: f64):
; nextln: v10 = sdiv v6, v2
; nextln: jump block1(v10, v17)
; nextln: block4:
; nextln: return v7
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
