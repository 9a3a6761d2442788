; test: pass loop-unswitch
; exit: 60
; Two branches of one loop on the same invariant `flag` (the reverse of a
; loop that updates several arrays tests one condition per update):
; `for (i = 0; i < n; i++) { t = flag ? a[i] : 2 * a[i]; s += t;
; s = flag ? s + 1 : s - 1; }`. The preheader branches on it once, and
; neither copy of the loop tests it again: each takes its own way of both
; branches. @main: flag false, 10 - 5 = 5; true, 5 + 5 = 10; 5 * 10 + 10.
; stat: loop-unswitch.unswitched = 1
; check: block0(v0: ptr, v1: i32, v2: i1):
; check: brif v2, block18(
; nextln: block18(
; nextln: jump block1(
; not: brif v2
; check: return
func @sum(ptr, i32, i1) -> f64 {
block0(v0: ptr, v1: i32, v2: i1):
    v3 = iconst.i32 0
    v4 = fconst.f64 0.0
    v5 = iconst.i32 1
    v6 = iconst.i64 3
    v7 = fconst.f64 2.0
    v8 = fconst.f64 1.0
    jump block1(v3, v4)
block1(v9: i32, v10: f64):
    v11 = icmp slt v9, v1
    brif v11, block2, block9(v10)
block2:
    v12 = sext.i64 v9
    v13 = shl v12, v6
    v14 = ptradd v0, v13
    v15 = load.f64 v14
    brif v2, block3, block4
block3:
    jump block5(v15)
block4:
    v16 = fmul v15, v7
    jump block5(v16)
block5(v17: f64):
    v18 = fadd v10, v17
    brif v2, block6, block7
block6:
    v19 = fadd v18, v8
    jump block8(v19)
block7:
    v20 = fsub v18, v8
    jump block8(v20)
block8(v21: f64):
    v22 = iadd v9, v5
    jump block1(v22, v21)
block9(v23: f64):
    return v23
}

func @main() -> i32 {
block0:
    v0 = alloca 40, align 8
    v1 = iconst.i64 8
    v2 = fconst.f64 1.0
    store v2, v0
    v3 = ptradd v0, v1
    v4 = fconst.f64 2.5
    store v4, v3
    v5 = ptradd v3, v1
    v6 = fconst.f64 -3.0
    store v6, v5
    v7 = ptradd v5, v1
    v8 = fconst.f64 4.0
    store v8, v7
    v9 = ptradd v7, v1
    v10 = fconst.f64 0.5
    store v10, v9
    v11 = iconst.i32 5
    v12 = iconst.i1 0
    v13 = iconst.i1 1
    v14 = call @sum(v0, v11, v12)
    v15 = call @sum(v0, v11, v13)
    v16 = fconst.f64 10.0
    v17 = fmul v14, v16
    v18 = fadd v17, v15
    v19 = fptosi.i32 v18
    return v19
}
