; test: pass loop-load-elim
; exit: 0
; @prefix: `a[k + 1] += a[k]` for k = 0 .. n-2, with an i64 address
; counter beside the i32 counter (as `iv-widen` leaves loops): each
; iteration loads what the previous one stored, and takes it from a
; register instead (one load forwarded). @main prints the prefix sums of
; 1..6 (n = 6) and of the first two (n = 2), the same before and after.
; stat: loop-load-elim.forwarded = 1
global @fmt const size 7 align 1 = "%.17g\0A\00"

func @prefix(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 1
    v3 = iconst.i32 0
    v4 = iconst.i64 0
    v5 = iconst.i64 8
    v6 = isub v1, v2
    v7 = icmp sgt v6, v3
    brif v7, block1, block3
block1:
    jump block2(v3, v4)
block2(v8: i32, v9: i64):
    v10 = ptradd v0, v9
    v11 = load.f64 v10
    v12 = ptradd v10, v5
    v13 = load.f64 v12
    v14 = fadd v13, v11
    store v14, v12
    v15 = iadd v8, v2
    v16 = iadd v9, v5
    v17 = icmp slt v15, v6
    brif v17, block2(v15, v16), block3
block3:
    return
}

func @main() -> i32 {
block0:
    v0 = alloca 48, align 8
    v1 = alloca 48, align 8
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    v4 = iconst.i32 6
    v5 = iconst.i64 3
    v6 = iconst.i32 2
    jump block1(v2)
block1(v7: i32):
    v8 = icmp slt v7, v4
    brif v8, block2, block3
block2:
    v9 = sext.i64 v7
    v10 = shl v9, v5
    v11 = iadd v7, v3
    v12 = sitofp.f64 v11
    v13 = ptradd v0, v10
    store v12, v13
    v14 = ptradd v1, v10
    store v12, v14
    jump block1(v11)
block3:
    call @prefix(v0, v4)
    call @prefix(v1, v6)
    v15 = global_addr @fmt
    jump block4(v2)
block4(v16: i32):
    v17 = icmp slt v16, v4
    brif v17, block5, block6
block5:
    v18 = sext.i64 v16
    v19 = shl v18, v5
    v20 = ptradd v0, v19
    v21 = load.f64 v20
    v22 = printf v15, v21
    v23 = ptradd v1, v19
    v24 = load.f64 v23
    v25 = printf v15, v24
    v26 = iadd v16, v3
    jump block4(v26)
block6:
    return v2
}
