; test: pass loop-load-elim
; exit: 0
; @neighbours: the reverse of a three-point sweep, `d[k + 1] += g;
; d[k - 1] += g; d[k] += 2g` counting k down from n-2: both `d[k + 1]`
; (the previous iteration's `d[k]`) and `d[k]` (its `d[k - 1]`) come from
; registers (two loads forwarded). @main prints d after a call on two
; arrays and after one with g the same array as d: its loads of g then
; read bytes the stores write, but forwarding only has to look past
; writes, so both are exact (the same output before and after).
; stat: loop-load-elim.forwarded = 2
global @fmt const size 7 align 1 = "%.17g\0A\00"

func @neighbours(ptr, ptr, i32) {
block0(v0: ptr, v1: ptr, v2: i32):
    v3 = iconst.i32 1
    v4 = iconst.i64 3
    v5 = iconst.i32 0
    v6 = iconst.i32 2
    v7 = isub v2, v6
    v8 = icmp sgt v7, v5
    brif v8, block1, block3
block1:
    jump block2(v7)
block2(v9: i32):
    v10 = sext.i64 v9
    v11 = shl v10, v4
    v12 = ptradd v1, v11
    v13 = load.f64 v12
    v14 = iadd v9, v3
    v15 = sext.i64 v14
    v16 = shl v15, v4
    v17 = ptradd v0, v16
    v18 = load.f64 v17
    v19 = fadd v18, v13
    store v19, v17
    v20 = isub v9, v3
    v21 = sext.i64 v20
    v22 = shl v21, v4
    v23 = ptradd v0, v22
    v24 = load.f64 v23
    v25 = fadd v24, v13
    store v25, v23
    v26 = ptradd v0, v11
    v27 = load.f64 v26
    v28 = fadd v13, v13
    v29 = fadd v27, v28
    store v29, v26
    v30 = isub v9, v3
    v31 = icmp sgt v30, v5
    brif v31, block2(v30), block3
block3:
    return
}

func @main() -> i32 {
block0:
    v0 = alloca 72, align 8
    v1 = alloca 72, align 8
    v2 = alloca 72, align 8
    v3 = iconst.i32 0
    v4 = iconst.i32 1
    v5 = iconst.i32 9
    v6 = iconst.i64 3
    v7 = fconst.f64 0.5
    v8 = fconst.f64 1.0
    v9 = fconst.f64 0.25
    jump block1(v3)
block1(v10: i32):
    v11 = icmp slt v10, v5
    brif v11, block2, block3
block2:
    v12 = sext.i64 v10
    v13 = shl v12, v6
    v14 = sitofp.f64 v10
    v15 = fmul v14, v7
    v16 = ptradd v0, v13
    store v15, v16
    v17 = fmul v14, v14
    v18 = fadd v17, v8
    v19 = ptradd v1, v13
    store v18, v19
    v20 = fmul v14, v9
    v21 = fsub v20, v8
    v22 = ptradd v2, v13
    store v21, v22
    v23 = iadd v10, v4
    jump block1(v23)
block3:
    call @neighbours(v0, v1, v5)
    call @neighbours(v2, v2, v5)
    v24 = global_addr @fmt
    jump block4(v3)
block4(v25: i32):
    v26 = icmp slt v25, v5
    brif v26, block5, block6
block5:
    v27 = sext.i64 v25
    v28 = shl v27, v6
    v29 = ptradd v0, v28
    v30 = load.f64 v29
    v31 = printf v24, v30
    v32 = ptradd v2, v28
    v33 = load.f64 v32
    v34 = printf v24, v33
    v35 = iadd v25, v4
    jump block4(v35)
block6:
    return v3
}
