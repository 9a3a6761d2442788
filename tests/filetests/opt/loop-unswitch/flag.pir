; test: pass loop-unswitch
; exit: 105
; @main sums a = {1, 2.5, -3, 4, 0.5} both ways (2 * 5 and 5) and
; returns 10 * 10 + 5, before the pass and after it.
; stat: loop-unswitch.unswitched = 1
; `for (i = 0; i < n; i++) s += flag ? a[i] : 2 * a[i];` with `flag` a
; parameter: the branch on it moves to the preheader (block0), which
; enters one of two copies of the loop through each one's new preheader
; (block10, block11), each taking one way; the blocks of the other way are
; left unreachable for `simplify-cfg`.
; check: func @sum(ptr, i32, i1) -> f64 {
; nextln: block0(v0: ptr, v1: i32, v2: i1):
; nextln: v3 = iconst.i32 0
; nextln: v4 = fconst.f64 0.0
; nextln: v5 = iconst.i32 1
; nextln: v6 = iconst.i64 3
; nextln: v7 = fconst.f64 2.0
; nextln: brif v2, block10(v3, v4), block11(v3, v4)
; nextln: block10(v33: i32, v34: f64):
; nextln: jump block1(v33, v34)
; nextln: block1(v8: i32, v9: f64):
; nextln: v10 = icmp slt v8, v1
; nextln: brif v10, block2, block5(v9)
; nextln: block2:
; nextln: v11 = sext.i64 v8
; nextln: v12 = shl v11, v6
; nextln: v13 = ptradd v0, v12
; nextln: v14 = load.f64 v13
; nextln: jump block3
; nextln: block3:
; nextln: v15 = fadd v9, v14
; nextln: v16 = iadd v8, v5
; nextln: jump block1(v16, v15)
; nextln: block4:
; nextln: v17 = fmul v14, v7
; nextln: v18 = fadd v9, v17
; nextln: v19 = iadd v8, v5
; nextln: jump block1(v19, v18)
; nextln: block11(v35: i32, v36: f64):
; nextln: jump block6(v35, v36)
; nextln: block6(v21: i32, v22: f64):
; nextln: v23 = icmp slt v21, v1
; nextln: brif v23, block7, block5(v22)
; nextln: block7:
; nextln: v24 = sext.i64 v21
; nextln: v25 = shl v24, v6
; nextln: v26 = ptradd v0, v25
; nextln: v27 = load.f64 v26
; nextln: jump block8
; nextln: block8:
; nextln: v28 = fmul v27, v7
; nextln: v29 = fadd v22, v28
; nextln: v30 = iadd v21, v5
; nextln: jump block6(v30, v29)
; nextln: block9:
; nextln: v31 = fadd v22, v27
; nextln: v32 = iadd v21, v5
; nextln: jump block6(v32, v31)
; nextln: block5(v20: f64):
; nextln: return v20
; nextln: }
func @sum(ptr, i32, i1) -> f64 {
block0(v0: ptr, v1: i32, v2: i1):
    v3 = iconst.i32 0
    v4 = fconst.f64 0.0
    v5 = iconst.i32 1
    v6 = iconst.i64 3
    v7 = fconst.f64 2.0
    jump block1(v3, v4)
block1(v8: i32, v9: f64):
    v10 = icmp slt v8, v1
    brif v10, block2, block5(v9)
block2:
    v11 = sext.i64 v8
    v12 = shl v11, v6
    v13 = ptradd v0, v12
    v14 = load.f64 v13
    brif v2, block3, block4
block3:
    v15 = fadd v9, v14
    v16 = iadd v8, v5
    jump block1(v16, v15)
block4:
    v17 = fmul v14, v7
    v18 = fadd v9, v17
    v19 = iadd v8, v5
    jump block1(v19, v18)
block5(v20: f64):
    return v20
}

func @main() -> i32 {
block0:
    v0 = alloca 40, align 8
    v1 = iconst.i64 8
    v2 = fconst.f64 1.0
    store v2, v0
    v3 = ptradd v0, v1
    v4 = fconst.f64 2.5
    store v4, v3
    v5 = ptradd v3, v1
    v6 = fconst.f64 -3.0
    store v6, v5
    v7 = ptradd v5, v1
    v8 = fconst.f64 4.0
    store v8, v7
    v9 = ptradd v7, v1
    v10 = fconst.f64 0.5
    store v10, v9
    v11 = iconst.i32 5
    v12 = iconst.i1 0
    v13 = iconst.i1 1
    v14 = call @sum(v0, v11, v12)
    v15 = call @sum(v0, v11, v13)
    v16 = fconst.f64 10.0
    v17 = fmul v14, v16
    v18 = fadd v17, v15
    v19 = fptosi.i32 v18
    return v19
}
