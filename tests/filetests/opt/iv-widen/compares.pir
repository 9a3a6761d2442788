; test: pass iv-widen
; Compares of `j` with invariants move to 64 bits when the extension keeps
; their order. @signed (`sext`): the test, `j == k` and `j < 5` compare `J`
; with `sext(n)`, `sext(k)` and 5; `j < v` with `v` loaded in the loop
; reads `trunc J`. @unsigned (`zext`): the test and `j == k` move, the
; signed `j < k` reads `trunc J` (zero extension does not keep signed
; order).
; check: func @signed(ptr, i32, i32) {
; nextln: block0(v0: ptr, v1: i32, v2: i32):
; nextln: v3 = iconst.i32 0
; nextln: v4 = iconst.i32 1
; nextln: v5 = iconst.i32 5
; nextln: v17 = iconst.i64 0
; nextln: v21 = sext.i64 v1
; nextln: v22 = sext.i64 v2
; nextln: v23 = iconst.i64 5
; nextln: jump block1(v3, v17)
; nextln: block1(v6: i32, v18: i64):
; nextln: v24 = trunc.i32 v18
; nextln: v7 = icmp slt v18, v21
; nextln: brif v7, block2, block3
; nextln: block2:
; nextln: v8 = sext.i64 v24
; nextln: v9 = ptradd v0, v18
; nextln: v10 = load.i32 v9
; nextln: v11 = icmp eq v18, v22
; nextln: v12 = icmp slt v18, v23
; nextln: v13 = icmp slt v24, v10
; nextln: v14 = select v11, v12, v13
; nextln: v15 = zext.i32 v14
; nextln: store v15, v9
; nextln: v16 = iadd v24, v4
; nextln: v19 = iconst.i64 1
; nextln: v20 = iadd v18, v19
; nextln: jump block1(v16, v20)
; nextln: block3:
; nextln: return
; nextln: }
; check: func @unsigned(ptr, i32, i32) {
; nextln: block0(v0: ptr, v1: i32, v2: i32):
; nextln: v3 = iconst.i32 0
; nextln: v4 = iconst.i32 1
; nextln: v15 = iconst.i64 0
; nextln: v19 = zext.i64 v1
; nextln: v20 = zext.i64 v2
; nextln: jump block1(v3, v15)
; nextln: block1(v6: i32, v16: i64):
; nextln: v21 = trunc.i32 v16
; nextln: v7 = icmp ult v16, v19
; nextln: brif v7, block2, block3
; nextln: block2:
; nextln: v8 = zext.i64 v21
; nextln: v9 = ptradd v0, v16
; nextln: v11 = icmp eq v16, v20
; nextln: v12 = icmp slt v21, v2
; nextln: v14 = select v11, v12, v11
; nextln: store v14, v9
; nextln: v13 = iadd v21, v4
; nextln: v17 = iconst.i64 1
; nextln: v18 = iadd v16, v17
; nextln: jump block1(v13, v18)
; nextln: block3:
; nextln: return
; nextln: }
func @signed(ptr, i32, i32) {
block0(v0: ptr, v1: i32, v2: i32):
    v3 = iconst.i32 0
    v4 = iconst.i32 1
    v5 = iconst.i32 5
    jump block1(v3)
block1(v6: i32):
    v7 = icmp slt v6, v1
    brif v7, block2, block3
block2:
    v8 = sext.i64 v6
    v9 = ptradd v0, v8
    v10 = load.i32 v9
    v11 = icmp eq v6, v2
    v12 = icmp slt v6, v5
    v13 = icmp slt v6, v10
    v14 = select v11, v12, v13
    v15 = zext.i32 v14
    store v15, v9
    v16 = iadd v6, v4
    jump block1(v16)
block3:
    return
}

func @unsigned(ptr, i32, i32) {
block0(v0: ptr, v1: i32, v2: i32):
    v3 = iconst.i32 0
    v4 = iconst.i32 1
    jump block1(v3)
block1(v6: i32):
    v7 = icmp ult v6, v1
    brif v7, block2, block3
block2:
    v8 = zext.i64 v6
    v9 = ptradd v0, v8
    v11 = icmp eq v6, v2
    v12 = icmp slt v6, v2
    v14 = select v11, v12, v11
    store v14, v9
    v13 = iadd v6, v4
    jump block1(v13)
block3:
    return
}
