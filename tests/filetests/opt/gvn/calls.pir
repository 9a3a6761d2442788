; test: pass gvn
; Calls of the read-only @mag (it reads through its pointer argument):
; a second call with the same arguments reuses the first while nothing that
; may write what it reads intervenes — a store to a local slot does not
; (v7 is merged), a store through another parameter does (v9 stays), and
; a call of @bump, which writes through its argument, does (v12 stays).
; check: block0(v0: ptr, v1: ptr, v2: i32):
; nextln: v3 = alloca 8, align 8
; nextln: v4 = call @mag(v0, v2)
; nextln: v5 = fconst.f64 1.0
; nextln: store v5, v3
; nextln: store v5, v1
; nextln: v9 = call @mag(v0, v2)
; nextln: call @bump(v0)
; nextln: v12 = call @mag(v0, v2)
; nextln: v13 = fadd v4, v4
; nextln: v14 = fadd v13, v9
; nextln: v15 = fadd v14, v12
; nextln: return v15
func @mag(ptr, i32) -> f64 {
block0(v0: ptr, v1: i32):
    v2 = load.f64 v0
    v3 = sqrt.f64 v2
    return v3
}

func @bump(ptr) {
block0(v0: ptr):
    v1 = fconst.f64 1.0
    store v1, v0
    return
}

func @f(ptr, ptr, i32) -> f64 {
block0(v0: ptr, v1: ptr, v2: i32):
    v3 = alloca 8, align 8
    v4 = call @mag(v0, v2)
    v5 = fconst.f64 1.0
    store v5, v3
    v7 = call @mag(v0, v2)
    store v5, v1
    v9 = call @mag(v0, v2)
    call @bump(v0)
    v12 = call @mag(v0, v2)
    v13 = fadd v4, v7
    v14 = fadd v13, v9
    v15 = fadd v14, v12
    return v15
}
