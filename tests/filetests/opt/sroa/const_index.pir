; test: pass sroa
; int a[3]; a[0] = x; a[2] = a[0] + 1; return a[2];
; The offsets are constant only after folding (`imul (sext 2), 4`, as the
; front end computes them), and one ptradd chain adds 4 twice.
; check: block0(v0: i32):
; nextln: $(a0=v\d+) = alloca 4, align 4
; nextln: $(a2=v\d+) = alloca 4, align 4
; not: alloca 12
; check: store v0, $a0
; check: v11 = load.i32 $a0
; check: store v13, $a2
; nextln: v16 = load.i32 $a2
; nextln: return v16
; not: ptradd
func @a(i32) -> i32 {
block0(v0: i32):
    v1 = alloca 12, align 4
    v2 = iconst.i32 0
    v3 = sext.i64 v2
    v4 = iconst.i64 4
    v5 = imul v3, v4
    v6 = ptradd v1, v5
    store v0, v6
    v7 = iconst.i32 2
    v8 = sext.i64 v7
    v9 = imul v8, v4
    v10 = ptradd v1, v9
    v11 = load.i32 v6
    v12 = iconst.i32 1
    v13 = iadd v11, v12
    store v13, v10
    v14 = ptradd v1, v4
    v15 = ptradd v14, v4
    v16 = load.i32 v15
    return v16
}
