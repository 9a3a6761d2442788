; test: pass licm
; serial_call_refused.pir storing to a fresh buffer instead of the
; argument: the serial loop refused the call only because of the aliasing
; store, so here it is hoisted (to a guard: a call may not terminate).
; stat: licm.calls = 1
; stat: licm.parallel = 0
; stat: licm.guards = 1
func @mag(ptr, i32) -> f64 {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = fconst.f64 0.0
    v4 = iconst.i64 8
    v5 = iconst.i32 1
    jump block1(v2, v3)
block1(v6: i32, v7: f64):
    v8 = icmp slt v6, v1
    brif v8, block2, block3
block2:
    v9 = sext.i64 v6
    v10 = imul v9, v4
    v11 = ptradd v0, v10
    v12 = load.f64 v11
    v13 = fmul v12, v12
    v14 = fadd v7, v13
    v15 = iadd v6, v5
    jump block1(v15, v14)
block3:
    v16 = sqrt.f64 v7
    return v16
}

func @normalize(ptr, ptr, i32) {
block0(v0: ptr, v1: ptr, v2: i32):
    v3 = iconst.i32 0
    v4 = iconst.i32 1
    v5 = iconst.i64 8
    v19 = iconst.i64 800
    v20 = malloc v19
    jump block1(v3)
block1(v6: i32):
    v7 = icmp slt v6, v2
    brif v7, block2, block3
block2:
    v8 = sext.i64 v6
    v9 = imul v8, v5
    v10 = ptradd v20, v9
    v11 = ptradd v1, v9
    v12 = load.f64 v11
    v13 = call @mag(v1, v2)
    v14 = fdiv v12, v13
    store v14, v10
    v15 = iadd v6, v4
    jump block1(v15)
block3:
    return
}
