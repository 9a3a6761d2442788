; test: pass instcombine
; Constants of a chain of one associative operator combine into one
; (integers wrap, so `(x + 100) + 100` on i8 is `x + -56`), `+` and `-`
; mix; the inner instructions stay for dce. An operand that is not a
; constant (`v19 = v1 + v1`) and float arithmetic are left alone.
; check: func @k(i8, i32, f64) -> i32 {
; nextln: block0(v0: i8, v1: i32, v2: f64):
; nextln: v3 = iconst.i8 100
; nextln: v4 = iadd v0, v3
; nextln: v32 = iconst.i8 -56
; nextln: v5 = iadd v0, v32
; nextln: v6 = iconst.i32 5
; nextln: v7 = iconst.i32 3
; nextln: v8 = iadd v1, v6
; nextln: v33 = iconst.i32 2
; nextln: v9 = iadd v1, v33
; nextln: v34 = iconst.i32 -3
; nextln: v10 = iadd v1, v34
; nextln: v35 = iconst.i32 -6
; nextln: v11 = iadd v1, v35
; nextln: v36 = iconst.i32 -1
; nextln: v12 = iadd v1, v36
; nextln: v13 = imul v1, v6
; nextln: v37 = iconst.i32 15
; nextln: v14 = imul v1, v37
; nextln: v15 = xor v1, v6
; nextln: v38 = iconst.i32 6
; nextln: v16 = xor v1, v38
; nextln: v17 = and v1, v6
; nextln: v39 = iconst.i32 1
; nextln: v18 = and v1, v39
; nextln: v19 = iadd v1, v1
; nextln: v20 = iadd v19, v6
; nextln: v21 = fconst.f64 1.0
; nextln: v22 = fadd v2, v21
; nextln: v23 = fadd v22, v21
; nextln: v24 = sext.i32 v5
; nextln: v25 = iadd v24, v12
; nextln: v26 = iadd v25, v14
; nextln: v27 = iadd v26, v16
; nextln: v28 = iadd v27, v18
; nextln: v29 = iadd v28, v20
; nextln: v30 = fptosi.i32 v23
; nextln: v31 = iadd v29, v30
; nextln: return v31
; nextln: }
func @k(i8, i32, f64) -> i32 {
block0(v0: i8, v1: i32, v2: f64):
    v3 = iconst.i8 100
    v4 = iadd v0, v3
    v5 = iadd v4, v3
    v6 = iconst.i32 5
    v7 = iconst.i32 3
    v8 = iadd v1, v6
    v9 = isub v8, v7
    v10 = isub v9, v6
    v11 = isub v10, v7
    v12 = iadd v11, v6
    v13 = imul v1, v6
    v14 = imul v13, v7
    v15 = xor v1, v6
    v16 = xor v15, v7
    v17 = and v1, v6
    v18 = and v17, v7
    v19 = iadd v1, v1
    v20 = iadd v19, v6
    v21 = fconst.f64 1.0
    v22 = fadd v2, v21
    v23 = fadd v22, v21
    v24 = sext.i32 v5
    v25 = iadd v24, v12
    v26 = iadd v25, v14
    v27 = iadd v26, v16
    v28 = iadd v27, v18
    v29 = iadd v28, v20
    v30 = fptosi.i32 v23
    v31 = iadd v29, v30
    return v31
}
