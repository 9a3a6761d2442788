; test: pass loop-unroll sccp simplify-cfg
; exit: 4235
; @countdown: a loop tested at its latch (`do { s += i; i++; } while
; (i < 5)`) whose counter is used after it: unrolled into four copies
; after the first, it keeps the last values. @main returns
; countdown(7) = 5 * 5 + 7 + 10 = 42 and countdown(0) = 35 as 100 * 42 + 35.
; stat: loop-unroll.unrolled = 1
; stat: loop-unroll.copies = 4
; check: func @countdown(i32) -> i32 {
; nextln: block0(v0: i32):
; nextln: v1 = iconst.i32 0
; nextln: v2 = iconst.i32 1
; nextln: v3 = iconst.i32 5
; nextln: v31 = iconst.i32 0
; nextln: v32 = iconst.i32 1
; nextln: v33 = iconst.i32 2
; nextln: v34 = iconst.i32 3
; nextln: v35 = iconst.i32 4
; nextln: v28 = iadd v0, v31
; nextln: v29 = iconst.i32 1
; nextln: v30 = iconst.i1 1
; nextln: v23 = iadd v28, v32
; nextln: v24 = iconst.i32 2
; nextln: v25 = iconst.i1 1
; nextln: v18 = iadd v23, v33
; nextln: v19 = iconst.i32 3
; nextln: v20 = iconst.i1 1
; nextln: v13 = iadd v18, v34
; nextln: v14 = iconst.i32 4
; nextln: v15 = iconst.i1 1
; nextln: v6 = iadd v13, v35
; nextln: v7 = iconst.i32 5
; nextln: v8 = iconst.i1 0
; nextln: v9 = iconst.i32 25
; nextln: v10 = iadd v9, v6
; nextln: return v10
; nextln: }
func @countdown(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 0
    v2 = iconst.i32 1
    v3 = iconst.i32 5
    jump block1(v1, v0)
block1(v4: i32, v5: i32):
    v6 = iadd v5, v4
    v7 = iadd v4, v2
    v8 = icmp slt v7, v3
    brif v8, block1(v7, v6), block2
block2:
    v9 = imul v7, v3
    v10 = iadd v9, v6
    return v10
}

func @main() -> i32 {
block0:
    v0 = iconst.i32 7
    v1 = iconst.i32 0
    v2 = call @countdown(v0)
    v3 = call @countdown(v1)
    v4 = iconst.i32 100
    v5 = imul v2, v4
    v6 = iadd v5, v3
    return v6
}
