; test: pass iv-widen
; Which extensions are exact.
; @plus_two: `j + 2` may wrap when `n` is INT_MAX (ParC's ints wrap, as
; with gcc -fwrapv): only `sext(j)` becomes `J`.
; @from_n: `j` starts at an unknown `m`, so `j - 1` may wrap; `j + 1` may
; not (`j < n`).
; @down: `j` counts down from `n` while `j > 0`: `j - 1` is at least 0.
; @unsigned: `j` from 7 while `j < n` unsigned: `zext(j)` and
; `zext(j + 1)` become `J` and `J + 1`; `sext(j)` stays, as `j` may reach
; 2^31 and more.
; @zext_of_signed: a signed `j` from 0 is never negative in the body, so
; `zext(j)` is `J` there; after the loop it is not rewritten.
; @after: `sext(j)` after the loop is `J` (the final value is in range);
; `sext(j + 1)` there is not rewritten (the test failed, `j` may be
; INT_MAX).
; check: func @plus_two(ptr, i32) {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = iconst.i32 0
; nextln: v3 = iconst.i32 2
; nextln: v4 = iconst.i32 1
; nextln: v13 = iconst.i64 0
; nextln: v17 = sext.i64 v1
; nextln: jump block1(v2, v13)
; nextln: block1(v5: i32, v14: i64):
; nextln: v18 = trunc.i32 v14
; nextln: v6 = icmp slt v14, v17
; nextln: brif v6, block2, block3
; nextln: block2:
; nextln: v7 = sext.i64 v18
; nextln: v8 = iadd v18, v3
; nextln: v9 = sext.i64 v8
; nextln: v10 = ptradd v0, v14
; nextln: v11 = ptradd v10, v9
; nextln: store v18, v11
; nextln: v12 = iadd v18, v4
; nextln: v15 = iconst.i64 1
; nextln: v16 = iadd v14, v15
; nextln: jump block1(v12, v16)
; nextln: block3:
; nextln: return
; nextln: }
; check: func @from_n(ptr, i32, i32) {
; nextln: block0(v0: ptr, v1: i32, v2: i32):
; nextln: v4 = iconst.i32 1
; nextln: v13 = sext.i64 v2
; nextln: v18 = sext.i64 v1
; nextln: jump block1(v2, v13)
; nextln: block1(v5: i32, v14: i64):
; nextln: v19 = trunc.i32 v14
; nextln: v6 = icmp slt v14, v18
; nextln: brif v6, block2, block3
; nextln: block2:
; nextln: v7 = isub v19, v4
; nextln: v8 = sext.i64 v7
; nextln: v9 = iadd v19, v4
; nextln: v15 = iconst.i64 1
; nextln: v16 = iadd v14, v15
; nextln: v17 = iconst.i64 1
; nextln: v10 = iadd v14, v17
; nextln: v11 = ptradd v0, v8
; nextln: v12 = ptradd v11, v10
; nextln: store v19, v12
; nextln: jump block1(v9, v16)
; nextln: block3:
; nextln: return
; nextln: }
; check: func @down(ptr, i32) {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = iconst.i32 0
; nextln: v3 = iconst.i32 1
; nextln: v10 = sext.i64 v1
; nextln: v15 = iconst.i64 0
; nextln: jump block1(v1, v10)
; nextln: block1(v5: i32, v11: i64):
; nextln: v16 = trunc.i32 v11
; nextln: v6 = icmp sgt v11, v15
; nextln: brif v6, block2, block3
; nextln: block2:
; nextln: v7 = isub v16, v3
; nextln: v12 = iconst.i64 -1
; nextln: v13 = iadd v11, v12
; nextln: v14 = iconst.i64 -1
; nextln: v8 = iadd v11, v14
; nextln: v9 = ptradd v0, v8
; nextln: store v16, v9
; nextln: jump block1(v7, v13)
; nextln: block3:
; nextln: return
; nextln: }
; check: func @unsigned(ptr, i32) {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = iconst.i32 7
; nextln: v3 = iconst.i32 1
; nextln: v14 = iconst.i64 7
; nextln: v19 = zext.i64 v1
; nextln: jump block1(v2, v14)
; nextln: block1(v5: i32, v15: i64):
; nextln: v20 = trunc.i32 v15
; nextln: v6 = icmp ult v15, v19
; nextln: brif v6, block2, block3
; nextln: block2:
; nextln: v7 = zext.i64 v20
; nextln: v8 = iadd v20, v3
; nextln: v16 = iconst.i64 1
; nextln: v17 = iadd v15, v16
; nextln: v18 = iconst.i64 1
; nextln: v9 = iadd v15, v18
; nextln: v10 = sext.i64 v20
; nextln: v11 = ptradd v0, v15
; nextln: v12 = ptradd v11, v9
; nextln: v13 = ptradd v12, v10
; nextln: store v20, v13
; nextln: jump block1(v8, v17)
; nextln: block3:
; nextln: return
; nextln: }
; check: func @zext_of_signed(ptr, i32) -> i64 {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = iconst.i32 0
; nextln: v3 = iconst.i32 1
; nextln: v11 = iconst.i64 0
; nextln: v15 = sext.i64 v1
; nextln: jump block1(v2, v11)
; nextln: block1(v5: i32, v12: i64):
; nextln: v16 = trunc.i32 v12
; nextln: v6 = icmp slt v12, v15
; nextln: brif v6, block2, block3
; nextln: block2:
; nextln: v7 = zext.i64 v16
; nextln: v8 = ptradd v0, v12
; nextln: store v16, v8
; nextln: v9 = iadd v16, v3
; nextln: v13 = iconst.i64 1
; nextln: v14 = iadd v12, v13
; nextln: jump block1(v9, v14)
; nextln: block3:
; nextln: v10 = zext.i64 v16
; nextln: return v10
; nextln: }
; check: func @after(ptr, i32) -> i64 {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = iconst.i32 0
; nextln: v3 = iconst.i32 1
; nextln: v14 = iconst.i64 0
; nextln: v18 = sext.i64 v1
; nextln: jump block1(v2, v14)
; nextln: block1(v5: i32, v15: i64):
; nextln: v19 = trunc.i32 v15
; nextln: v6 = icmp slt v15, v18
; nextln: brif v6, block2, block3
; nextln: block2:
; nextln: v9 = iadd v19, v3
; nextln: v16 = iconst.i64 1
; nextln: v17 = iadd v15, v16
; nextln: jump block1(v9, v17)
; nextln: block3:
; nextln: v10 = sext.i64 v19
; nextln: v13 = iadd v19, v3
; nextln: v11 = sext.i64 v13
; nextln: v12 = iadd v15, v11
; nextln: return v12
; nextln: }
func @plus_two(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 2
    v4 = iconst.i32 1
    jump block1(v2)
block1(v5: i32):
    v6 = icmp slt v5, v1
    brif v6, block2, block3
block2:
    v7 = sext.i64 v5
    v8 = iadd v5, v3
    v9 = sext.i64 v8
    v10 = ptradd v0, v7
    v11 = ptradd v10, v9
    store v5, v11
    v12 = iadd v5, v4
    jump block1(v12)
block3:
    return
}

func @from_n(ptr, i32, i32) {
block0(v0: ptr, v1: i32, v2: i32):
    v4 = iconst.i32 1
    jump block1(v2)
block1(v5: i32):
    v6 = icmp slt v5, v1
    brif v6, block2, block3
block2:
    v7 = isub v5, v4
    v8 = sext.i64 v7
    v9 = iadd v5, v4
    v10 = sext.i64 v9
    v11 = ptradd v0, v8
    v12 = ptradd v11, v10
    store v5, v12
    jump block1(v9)
block3:
    return
}

func @down(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v1)
block1(v5: i32):
    v6 = icmp sgt v5, v2
    brif v6, block2, block3
block2:
    v7 = isub v5, v3
    v8 = sext.i64 v7
    v9 = ptradd v0, v8
    store v5, v9
    jump block1(v7)
block3:
    return
}

func @unsigned(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 7
    v3 = iconst.i32 1
    jump block1(v2)
block1(v5: i32):
    v6 = icmp ult v5, v1
    brif v6, block2, block3
block2:
    v7 = zext.i64 v5
    v8 = iadd v5, v3
    v9 = zext.i64 v8
    v10 = sext.i64 v5
    v11 = ptradd v0, v7
    v12 = ptradd v11, v9
    v13 = ptradd v12, v10
    store v5, v13
    jump block1(v8)
block3:
    return
}

func @zext_of_signed(ptr, i32) -> i64 {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v2)
block1(v5: i32):
    v6 = icmp slt v5, v1
    brif v6, block2, block3
block2:
    v7 = zext.i64 v5
    v8 = ptradd v0, v7
    store v5, v8
    v9 = iadd v5, v3
    jump block1(v9)
block3:
    v10 = zext.i64 v5
    return v10
}

func @after(ptr, i32) -> i64 {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v2)
block1(v5: i32):
    v6 = icmp slt v5, v1
    brif v6, block2, block3
block2:
    v9 = iadd v5, v3
    jump block1(v9)
block3:
    v10 = sext.i64 v5
    v13 = iadd v5, v3
    v11 = sext.i64 v13
    v12 = iadd v10, v11
    return v12
}
