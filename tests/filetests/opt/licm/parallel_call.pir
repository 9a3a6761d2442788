; test: pass licm
; stat: licm.calls = 1
; stat: licm.parallel = 1
; stat: licm.guards = 1
; Tapir's normalize: parallel_for (i) out[i] = in[i] / mag(in, n);
; mag is read-only and reads only through its pointer argument; the loop
; stores to out[i], which may alias in. The loop is parallel (its body is
; the detached task, its region synced after the loop) and the call runs
; in its iteration's task before that iteration's store: a store by another
; iteration to what mag reads would be a determinacy race. So the call is
; hoisted — to a guard block that runs only when the loop runs at least
; once (the preheader evaluates the header's test on the initial value).
; The header keeps only icmp + brif, the detach block only the detach, and
; the task gets the call's value as an SSA value defined before the detach.
; check: func @normalize(ptr, ptr, i32) {
; nextln: block0(v0: ptr, v1: ptr, v2: i32):
; nextln: v3 = iconst.i32 0
; nextln: v4 = iconst.i32 1
; nextln: v5 = iconst.i64 8
; nextln: v16 = icmp slt v3, v2
; nextln: brif v16, block7, block5
; nextln: block7:
; nextln: v13 = call @mag(v1, v2)
; nextln: jump block1(v3)
; nextln: block1(v6: i32):
; nextln: v7 = icmp slt v6, v2
; nextln: brif v7, block2, block5
; nextln: block2:
; nextln: detach within sr0, block3, block4
; nextln: block3:
; nextln: v8 = sext.i64 v6
; nextln: v9 = imul v8, v5
; nextln: v10 = ptradd v0, v9
; nextln: v11 = ptradd v1, v9
; nextln: v12 = load.f64 v11
; nextln: v14 = fdiv v12, v13
; nextln: store v14, v10
; nextln: reattach within sr0, block4
; nextln: block4:
; nextln: v15 = iadd v6, v4
; nextln: jump block1(v15)
; nextln: block5:
; nextln: sync within sr0, block6
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
    jump block1(v3)
block1(v6: i32):
    v7 = icmp slt v6, v2
    brif v7, block2, block5
block2:
    detach within sr0, block3, block4
block3:
    v8 = sext.i64 v6
    v9 = imul v8, v5
    v10 = ptradd v0, v9
    v11 = ptradd v1, v9
    v12 = load.f64 v11
    v13 = call @mag(v1, v2)
    v14 = fdiv v12, v13
    store v14, v10
    reattach within sr0, block4
block4:
    v15 = iadd v6, v4
    jump block1(v15)
block5:
    sync within sr0, block6
block6:
    return
}
