; test: pass instcombine
; Float identities that hold for every IEEE value: x + -0.0, x - 0.0,
; x * 1.0 and x / 1.0 are x. x + 0.0 is not (-0.0 + 0.0 is +0.0) and
; stays, as does x - -0.0 (the same as x + 0.0).
; check: v3 = fadd v0, v2
; check: v5 = fsub v0, v4
; check: v8 = fmul v0, v0
; check: v9 = fadd v3, v8
; check: v10 = fadd v9, v5
; nextln: return v10
func @f(f64) -> f64 {
block0(v0: f64):
    v1 = fconst.f64 -0.0
    v2 = fconst.f64 0.0
    v3 = fadd v0, v2
    v4 = fconst.f64 -0.0
    v5 = fsub v0, v4
    v6 = fadd v1, v0
    v11 = fconst.f64 1.0
    v12 = fmul v6, v11
    v13 = fdiv v12, v11
    v14 = fsub v13, v2
    v7 = fadd v14, v1
    v8 = fmul v7, v7
    v9 = fadd v3, v8
    v10 = fadd v9, v5
    return v10
}
