; test: pass licm
; A parallel loop whose task calls the read-only @mag only when a[i] is
; negative: no iteration may call it, and a call may fault or run forever,
; so it is not hoisted (it is not on the task's straight-line start).
; check: block6:
; nextln: v14 = call @mag(v1, v2)
; not: block8
func @mag(ptr, i32) -> f64 {
block0(v0: ptr, v1: i32):
    v2 = load.f64 v0
    return v2
}

func @f(ptr, ptr, i32) {
block0(v0: ptr, v1: ptr, v2: i32):
    v3 = iconst.i32 0
    v4 = iconst.i32 1
    v5 = iconst.i64 8
    v6 = fconst.f64 0.0
    jump block1(v3)
block1(v7: i32):
    v8 = icmp slt v7, v2
    brif v8, block2, block4
block2:
    detach within sr0, block5, block3
block5:
    v9 = sext.i64 v7
    v10 = imul v9, v5
    v11 = ptradd v0, v10
    v12 = load.f64 v11
    v13 = fcmp lt v12, v6
    brif v13, block6, block7
block6:
    v14 = call @mag(v1, v2)
    store v14, v11
    jump block7
block7:
    reattach within sr0, block3
block3:
    v15 = iadd v7, v4
    jump block1(v15)
block4:
    sync within sr0, block9
block9:
    return
}
