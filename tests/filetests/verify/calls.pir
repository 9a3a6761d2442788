; test: verify
; error: in @host, block0, `v5 = call @two(v0)`: passes 1 argument to @two, which takes 2 [call]
; error: in @host, block0, `v6 = call @two(v1, v0)`: argument 1 of @two is v1: f64, but the parameter is i32 [call]
; error: in @host, block0, `v6 = call @two(v1, v0)`: argument 2 of @two is v0: i32, but the parameter is f64 [call]
; error: in @host, block0, `v7 = call.i32 @two(v0, v1)`: result is i32, but @two returns f64 [call]
; error: in @host, block0, `call @two(v0, v1)`: `call` must define a value [types]
; error: in @host, block0, `v8 = call.i32 @none()`: `call` defines no value [types]
; error: in @host, block0, `call @k(v2)`: calls kernel @k; kernels are launched, not called [call]
; error: in @host, block0, `launch @two(v0, v1) grid(v0, v0, v0) block(v0, v0, v0)`: launches @two, which is not a kernel [call]
; error: in @host, block0, `launch @k(v0) grid(v3, v0, v0) block(v0, v0, v3)`: argument 1 of @k is v0: i32, but the parameter is ptr [call]
; error: in @host, block0, `launch @k(v0) grid(v3, v0, v0) block(v0, v0, v3)`: grid dimension x must be i32, not i64 [call]
; error: in @host, block0, `launch @k(v0) grid(v3, v0, v0) block(v0, v0, v3)`: block dimension z must be i32, not i64 [call]
; Calls and launches: argument counts and types, results, kernels launched
; (not called) with i32 dimensions.
declare @two(i32, f64) -> f64
declare @none()
func kernel @k(ptr) {
block0(v0: ptr):
    return
}
func @host(i32, f64, ptr, i64) {
block0(v0: i32, v1: f64, v2: ptr, v3: i64):
    v4 = call @two(v0, v1)
    v5 = call @two(v0)
    v6 = call @two(v1, v0)
    v7 = call.i32 @two(v0, v1)
    call @two(v0, v1)
    v8 = call.i32 @none()
    call @k(v2)
    launch @k(v2) grid(v0, v0, v0) block(v0, v0, v0)
    launch @two(v0, v1) grid(v0, v0, v0) block(v0, v0, v0)
    launch @k(v0) grid(v3, v0, v0) block(v0, v0, v3)
    return
}
