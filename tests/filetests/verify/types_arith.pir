; test: verify
; error: in @f, block0, `v6 = iadd v0, v1`: `iadd` operands have different types, i32 and i64 [types]
; error: in @f, block0, `v7 = fadd v0, v0`: `fadd` needs float operands, not i32 and i32 [types]
; error: in @f, block0, `v8 = iadd v4, v4`: `iadd` needs integer operands, not ptr and ptr [types]
; error: in @f, block0, `v9 = fadd v2, v3`: `fadd` operands have different types, f32 and f64 [types]
; error: in @f, block0, `v10 = fneg v0`: `fneg` needs a float operand, not i32 [types]
; error: in @f, block0, `v11 = icmp slt v0, v1`: `icmp` needs two integers, pointers or integer vectors of one type, not i32 and i64 [types]
; error: in @f, block0, `v13 = fcmp lt v0, v0`: `fcmp` needs two floats or float vectors of one type, not i32 and i32 [types]
; error: in @f, block0, `v14 = select v0, v1, v1`: `select` of i64 needs a condition of type i1, not i32 [types]
; error: in @f, block0, `v15 = select v5, v1, v0`: `select` operands have different types, i64 and i32 [types]
; error: in @f, block0, `v16 = iconst.i8 255`: immediate 255 is not in canonical form for i8 (that is -1) [types]
; error: in @f, block0, `v17 = iconst.f64 1`: `iconst` makes an integer or ptr, not f64 [types]
; error: in @f, block0, `v18 = fconst.f32 0.1`: 0.1 is not representable as f32 [types]
; error: in @f, block0, `v19 = fconst.i32 1.0`: `fconst` makes a float, not i32 [types]
; error: in @f, block0, `v20 = load.i32 v0`: the address must be a ptr, not i32 [types]
; error: in @f, block0, `store v0, v1`: the address must be a ptr, not i64 [types]
; error: in @f, block0, `v21 = ptradd v4, v0`: `ptradd` offset must be i64, not i32 [types]
; error: in @f, block0, `v22 = alloca 8, align 3`: alignment 3 is not a power of two [types]
; error: in @f, block0, `v24 = iadd.i64 v0, v0`: `iadd` result must be i32, not i64 [types]
; error: in @f, block0, `v25 = icmp.i32 eq v0, v0`: `icmp` result must be i1, not i32 [types]
; Types of arithmetic, comparisons, select, constants and memory operations.
func @f(i32, i64, f32, f64, ptr, i1) {
block0(v0: i32, v1: i64, v2: f32, v3: f64, v4: ptr, v5: i1):
    v6 = iadd.i32 v0, v1
    v7 = fadd.i32 v0, v0
    v8 = iadd v4, v4
    v9 = fadd.f32 v2, v3
    v10 = fneg.i32 v0
    v11 = icmp slt v0, v1
    v12 = icmp eq v4, v4
    v13 = fcmp lt v0, v0
    v14 = select v0, v1, v1
    v15 = select v5, v1, v0
    v16 = iconst.i8 255
    v17 = iconst.f64 1
    v18 = fconst.f32 0.1
    v19 = fconst.i32 1.0
    v20 = load.i32 v0
    store v0, v1
    v21 = ptradd v4, v0
    v22 = alloca 8, align 3
    v23 = shl v1, v0
    v24 = iadd.i64 v0, v0
    v25 = icmp.i32 eq v0, v0
    return
}
