; test: pass sccp
; Folding follows the interpreter: INT_MIN / -1 wraps, a shift amount is
; taken modulo the width, i8 arithmetic wraps and is kept sign-extended,
; -0.0 + -0.0 is -0.0, a NaN compares unequal (`ne` true), float-to-int
; saturates. A division by zero is not folded: it must trap at run time.
; check: v2 = iconst.i32 -2147483648
; check: v4 = iconst.i32 -2
; check: v7 = iconst.i8 -128
; check: v9 = fconst.f64 -0.0
; check: v11 = iconst.i1 1
; check: v13 = iconst.i32 2147483647
; check: v15 = sdiv v1, v14 @9:9
; nextln: v16 = iconst.i32 -128
; check: v19 = iconst.i32 -131
; nextln: v20 = iadd v19, v15
func @a() -> i32 {
block0:
    v0 = iconst.i32 -2147483648
    v1 = iconst.i32 -1
    v2 = sdiv v0, v1
    v3 = iconst.i32 33
    v4 = shl v1, v3
    v5 = iconst.i8 127
    v6 = iconst.i8 1
    v7 = iadd v5, v6
    v8 = fconst.f64 -0.0
    v9 = fadd v8, v8
    v10 = fconst.f64 0x7FF8000000000000
    v11 = fcmp ne v10, v10
    v12 = fconst.f64 1e300
    v13 = fptosi.i32 v12
    v14 = iconst.i32 0
    v15 = sdiv v1, v14 @9:9
    v16 = sext.i32 v7
    v17 = iadd v2, v4
    v18 = iadd v17, v16
    v19 = iadd v18, v13
    v20 = iadd v19, v15
    return v20
}
