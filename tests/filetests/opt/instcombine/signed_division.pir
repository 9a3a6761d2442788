; test: pass instcombine
; stat: instcombine.rewrites = 5
; A signed division or remainder by 2^k is a shift or a mask where the
; dividend is known non-negative. @search: a binary search's
; `length / 2` under `while (length > 1)` (v6: block2 is entered only
; from the test), `length % 4` (v7), and the loop parameter v20, which
; is v1 >= 0 on the way in (block0's test) and v21 (a `zext`) around the
; loop (v22); also `(x & 255) / 2` (v11) and `(x >> 1) % 8` (v13).
; Left alone: `x / 2` for any x (v15), a division under the test's false
; arm (v17: v28 is length <= 1 or v0, either maybe negative), by a negative power of
; two (v18) and by 2^63 in 64 bits (negative as a signed number, v19).
; check: v38 = iconst.i64 1
; nextln: v22 = lshr v20, v38
; check: v39 = iconst.i64 1
; nextln: v6 = lshr v2, v39
; nextln: v40 = iconst.i64 3
; nextln: v7 = and v2, v40
; check: v41 = iconst.i64 1
; nextln: v11 = lshr v10, v41
; check: v42 = iconst.i64 7
; nextln: v13 = and v12, v42
; check: v15 = sdiv v0, v4
; check: v17 = sdiv v28, v4
; check: v18 = sdiv v0, v30
; check: v19 = srem v0, v31
func @search(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v3 = iconst.i64 1
    v4 = iconst.i64 2
    v5 = iconst.i64 4
    v8 = iconst.i64 255
    v9 = iconst.i64 8
    v30 = iconst.i64 -2
    v31 = iconst.i64 -9223372036854775808
    v32 = iconst.i64 0
    v33 = icmp sge v1, v32
    brif v33, block4(v1), block3(v0)
block4(v20: i64):
    v22 = sdiv v20, v4
    v23 = trunc.i32 v22
    v21 = zext.i64 v23
    v24 = icmp slt v21, v9
    brif v24, block4(v21), block1(v0)
block1(v2: i64):
    v14 = icmp sgt v2, v3
    brif v14, block2, block3(v2)
block2:
    v6 = sdiv v2, v4
    v7 = srem v2, v5
    v10 = and v0, v8
    v11 = sdiv v10, v4
    v12 = lshr v0, v3
    v13 = srem v12, v9
    v15 = sdiv v0, v4
    v16 = iadd v6, v7
    v25 = iadd v16, v11
    v26 = iadd v25, v13
    v27 = iadd v26, v15
    v34 = isub v2, v27
    jump block1(v34)
block3(v28: i64):
    v17 = sdiv v28, v4
    v18 = sdiv v0, v30
    v19 = srem v0, v31
    v35 = iadd v17, v18
    v36 = iadd v35, v19
    v37 = iadd v36, v28
    return v37
}
