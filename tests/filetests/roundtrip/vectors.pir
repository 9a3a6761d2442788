; test: roundtrip
; Every vector type and instruction in the text form: result types are
; implied where the operands give them.
func @vectors(ptr, f64, f32, i64, i32) {
block0(v0: ptr, v1: f64, v2: f32, v3: i64, v4: i32):
    v5 = splat.f64x2 v1
    v6 = splat.f32x4 v2
    v7 = splat.i64x2 v3
    v8 = splat.i32x4 v4
    v9 = load.f64x2 v0
    v10 = fadd v9, v5
    v11 = fsub v10, v5
    v12 = fmul v11, v5
    v13 = fdiv v12, v5
    v14 = fneg v13
    store v14, v0
    v15 = iadd v8, v8
    v16 = isub v15, v8
    v17 = imul v16, v8
    v18 = and v17, v8
    v19 = or v18, v8
    v20 = xor v19, v8
    v21 = extract_lane v20, 3
    v22 = insert_lane v6, v2, 2
    v23 = reduce_fadd v22
    v24 = reduce_fmul v5
    v25 = reduce_iadd v7
    v26 = reduce_imul v8
    v27 = reduce_and v7
    v28 = reduce_or v8
    v29 = reduce_xor v7
    jump block1(v5)
block1(v30: f64x2):
    store v30, v0
    return
}
