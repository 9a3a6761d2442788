; test: verify
; error: in @f, block0, `v5 = sqrt.f64 v1`: argument 1 of `sqrt` is f32, but must be f64 [types]
; error: in @f, block0, `v6 = sqrt.i32 v0`: `sqrt` works on f32 or f64, not i32 [types]
; error: in @f, block0, `v8 = pow.f32 v1`: `pow` takes 2 arguments, not 1 [types]
; error: in @f, block0, `v10 = abs.i64 v0`: `abs` returns i32, not i64 [types]
; error: in @f, block0, `v11 = malloc v0`: argument 1 of `malloc` is i32, but must be i64 [types]
; error: in @f, block0, `v12 = free.i32 v3`: `free` defines no value [types]
; error: in @f, block0, `sqrt v2`: `sqrt` must define a value [types]
; error: in @f, block0, `v15 = printf v13, v1`: variadic argument v1 of `printf` is f32; promote it to i32, i64, f64 or ptr [types]
; error: in @f, block0, `v16 = printf`: `printf` takes at least 1 argument, not 0 [types]
; error: in @f, block0, `v18 = atomic_add.i32 v3, v2`: `atomic_add` returns its operand's type f64, not i32 [types]
; error: in @f, block0, `v19 = atomic_add.i32 v3, v3`: argument 2 of `atomic_add` is ptr, but must be i32, i64, f32 or f64 [types]
; error: in @f, block0, `v19 = atomic_add.i32 v3, v3`: `atomic_add` returns its operand's type ptr, not i32 [types]
; error: in @f, block0, `v21 = cuda_memcpy.h2d v3, v3, v0`: argument 3 of `cuda_memcpy.h2d` is i32, but must be i64 [types]
; Intrinsic signatures: argument counts and types, result types, results
; present exactly when the intrinsic has one.
global @fmt const size 4 align 1 = "%d\0A\00"
func @f(i32, f32, f64, ptr) {
block0(v0: i32, v1: f32, v2: f64, v3: ptr):
    v4 = sqrt.f64 v2
    v5 = sqrt.f64 v1
    v6 = sqrt.i32 v0
    v7 = pow.f32 v1, v1
    v8 = pow.f32 v1
    v9 = abs v0
    v10 = abs.i64 v0
    v11 = malloc v0
    free v3
    v12 = free.i32 v3
    sqrt v2
    v13 = global_addr @fmt
    v14 = printf v13, v0, v2, v3
    v15 = printf v13, v1
    v16 = printf
    v17 = atomic_add.f64 v3, v2
    v18 = atomic_add.i32 v3, v2
    v19 = atomic_add.i32 v3, v3
    v20 = wtime
    exit v0
    v21 = cuda_memcpy.h2d v3, v3, v0
    return
}
