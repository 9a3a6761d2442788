; test: pass loop-rotate
; `s = 0; for (i = 0; i < n; i++) s += p[i]; return s;`: the test moves to
; the bottom of the body (block2, the new header), with a copy before the
; loop as its guard. The header's parameters reach the body and the exit as
; their new parameters.
; check: func @sum(ptr, i32) -> i32 {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = iconst.i32 0
; nextln: v3 = iconst.i32 1
; nextln: v15 = icmp slt v2, v1
; nextln: brif v15, block2(v2, v2), block3(v2)
; nextln: block2(v12: i32, v13: i32):
; nextln: v7 = sext.i64 v12
; nextln: v8 = ptradd v0, v7
; nextln: v9 = load.i32 v8
; nextln: v10 = iadd v13, v9
; nextln: v11 = iadd v12, v3
; nextln: v16 = icmp slt v11, v1
; nextln: brif v16, block2(v11, v10), block3(v10)
; nextln: block3(v14: i32):
; nextln: return v14
; nextln: }
func @sum(ptr, i32) -> i32 {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v2, v2)
block1(v4: i32, v5: i32):
    v6 = icmp slt v4, v1
    brif v6, block2, block3
block2:
    v7 = sext.i64 v4
    v8 = ptradd v0, v7
    v9 = load.i32 v8
    v10 = iadd v5, v9
    v11 = iadd v4, v3
    jump block1(v11, v10)
block3:
    return v5
}
