; test: verify
; error: in @takes_vector: vector types are not allowed in a signature [signature]
; error: in @host, block0, `v5 = splat.f64x2 v1`: `splat` of i32 cannot make f64x2 [types]
; error: in @host, block0, `v6 = sdiv v4, v4`: `sdiv` does not work on vectors (i32x4 and i32x4) [types]
; error: in @host, block0, `v7 = fadd v3, v4`: `fadd` needs float operands, not f64x2 and i32x4 [types]
; error: in @host, block0, `v8 = extract_lane v3, 2`: lane 2 of f64x2, which has 2 [types]
; error: in @host, block0, `v9 = insert_lane v4, v0, 0`: `insert_lane` of f64 into i32x4: needs a vector of f64 [types]
; error: in @host, block0, `v10 = reduce_fadd v4`: `reduce_fadd` of i32x4 [types]
; error: in @host, block0, `v11 = reduce_iadd v0`: `reduce_iadd` of f64 [types]
; error: in @host, block0, `v13 = select v12, v3, v3`: `select` of f64x2 needs a condition of type i64x2, not i1 [types]
; error: in @host, block0, `v15 = fptosi.i32x4 v3`: `fptosi` cannot convert f64x2 to i32x4 (it converts a float to an integer) [types]
; error: in @host, block0, `v17 = shl v16, v1`: `shl` does not work on vectors (i64x2 and i32) [types]
; error: in @host, block0, `v18 = fneg v16`: `fneg` needs a float operand, not i64x2 [types]
; error: in @host, block0, `v19 = extract_lane.f32 v3, 1`: `extract_lane` result must be f64, not f32 [types]
; error: in @host, block0, `v21 = sqrt.f64x2 v3`: `sqrt` works on f32 or f64, not f64x2 [types]
; error: in @host, block0, `v22 = fmin.i32x4 v4, v4`: `fmin` works on f32 or f64, not i32x4 [types]
; error: in @dev, block0, `v1 = load.f32x4 v0`: vector value in a kernel or device function (`load`) [gpu]
; error: in @dev, block0, `store v1, v0`: vector value in a kernel or device function (`store`) [gpu]
; Vector types: lane-wise operators (and the lane-wise math intrinsics,
; `fmin`/`fmax` on float vectors) only, matching lane types and counts,
; lanes in range, no vectors in signatures, selects, conversions,
; comparisons or device code.
declare @takes_vector(f64x2)
func @host(f64, i32, ptr) {
block0(v0: f64, v1: i32, v2: ptr):
    v3 = splat.f64x2 v0
    v4 = splat.i32x4 v1
    v5 = splat.f64x2 v1
    v6 = sdiv v4, v4
    v7 = fadd v3, v4
    v8 = extract_lane v3, 2
    v9 = insert_lane v4, v0, 0
    v10 = reduce_fadd v4
    v11 = reduce_iadd v0
    v12 = iconst.i1 1
    v13 = select v12, v3, v3
    v14 = fcmp lt v3, v3
    v15 = fptosi.i32x4 v3
    v16 = load.i64x2 v2
    v17 = shl v16, v1
    v18 = fneg v16
    v19 = extract_lane.f32 v3, 1
    v20 = fmax.f64x2 v3, v3
    v21 = sqrt.f64x2 v3
    v22 = fmin.i32x4 v4, v4
    return
}
func device @dev(ptr) {
block0(v0: ptr):
    v1 = load.f32x4 v0
    store v1, v0
    return
}
