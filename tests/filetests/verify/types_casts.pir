; test: verify
; error: in @f, block0, `v6 = sext.i32 v1`: `sext` cannot convert i64 to i32 (it widens an integer) [types]
; error: in @f, block0, `v7 = zext.i32 v0`: `zext` cannot convert i32 to i32 (it widens an integer) [types]
; error: in @f, block0, `v8 = trunc.i64 v0`: `trunc` cannot convert i32 to i64 (it narrows an integer) [types]
; error: in @f, block0, `v11 = sitofp.i32 v3`: `sitofp` cannot convert f64 to i32 (it converts an integer to a float) [types]
; error: in @f, block0, `v13 = fptoui.f32 v0`: `fptoui` cannot convert i32 to f32 (it converts a float to an integer) [types]
; error: in @f, block0, `v15 = fpext.f64 v3`: `fpext` cannot convert f64 to f64 (it converts f32 to f64) [types]
; error: in @f, block0, `v17 = fptrunc.f64 v2`: `fptrunc` cannot convert f32 to f64 (it converts f64 to f32) [types]
; error: in @f, block0, `v19 = ptrtoint.i32 v4`: `ptrtoint` cannot convert ptr to i32 (it converts ptr to i64) [types]
; error: in @f, block0, `v21 = inttoptr.ptr v0`: `inttoptr` cannot convert i32 to ptr (it converts i64 to ptr) [types]
; Casts are legal only for the source and target types their names say.
func @f(i32, i64, f32, f64, ptr) {
block0(v0: i32, v1: i64, v2: f32, v3: f64, v4: ptr):
    v5 = sext.i64 v0
    v6 = sext.i32 v1
    v7 = zext.i32 v0
    v8 = trunc.i64 v0
    v9 = trunc.i8 v1
    v10 = sitofp.f64 v0
    v11 = sitofp.i32 v3
    v12 = fptosi.i32 v3
    v13 = fptoui.f32 v0
    v14 = fpext.f64 v2
    v15 = fpext.f64 v3
    v16 = fptrunc.f32 v3
    v17 = fptrunc.f64 v2
    v18 = ptrtoint.i64 v4
    v19 = ptrtoint.i32 v4
    v20 = inttoptr.ptr v1
    v21 = inttoptr.ptr v0
    v22 = uitofp.f32 v1
    return
}
