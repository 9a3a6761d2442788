; test: pass instcombine
; Casts of casts collapse; select on equal arms or a constant condition is
; the arm; ptradd by 0 is the pointer, and two constant ptradds fold into
; one (the sum is a new constant before it).
; check: v4 = sext.i64 v0
; check: v8 = zext.i64 v0
; check: v15 = ptradd v2, v14
; nextln: $(s=v\d+) = iconst.i64 16 @5:3
; nextln: v16 = ptradd v2, $s @5:3
; nextln: store v0, v16
; nextln: return v8
func @k(i8, i1, ptr) -> i64 {
block0(v0: i8, v1: i1, v2: ptr):
    v3 = sext.i32 v0
    v4 = sext.i64 v3
    v5 = trunc.i8 v3
    v6 = zext.i32 v0
    v7 = trunc.i8 v6
    v8 = zext.i64 v7
    v9 = select v1, v4, v4
    v10 = iconst.i1 0
    v11 = select v10, v9, v8
    v12 = iconst.i64 0
    v13 = ptradd v2, v12
    v14 = iconst.i64 8
    v15 = ptradd v13, v14
    v16 = ptradd v15, v14 @5:3
    store v5, v16
    return v11
}
