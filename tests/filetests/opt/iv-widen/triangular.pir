; test: pass iv-widen
; Inner loops bounded by an enclosing loop's counter (`j <= i`, the
; triangular nests of PolyBench's syrk, syr2k and trmm).
; @triangular: `i < n` keeps `i` at most INT_MAX - 1 in the outer body, so
; `j <= i` fails before `j` wraps: the inner loop is widened (the outer
; has no extension to rewrite).
; @outer_le: `i <= n` may itself never fail (`n` = INT_MAX), so nothing
; bounds `i` and the inner `j <= i` is left alone (the outer loop, whose
; `i` may wrap, too).
; @through_i8: the bound is `i` truncated to 8 bits and extended back:
; `i` up to 999 does not fit in 8 bits, so the inner loop is left alone.
; check: func @triangular(ptr, i32) {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = iconst.i32 0
; nextln: v3 = iconst.i32 1
; nextln: jump block1(v2)
; nextln: block1(v4: i32):
; nextln: v5 = icmp slt v4, v1
; nextln: brif v5, block2, block5
; nextln: block2:
; nextln: v12 = iconst.i64 0
; nextln: v16 = sext.i64 v4
; nextln: jump block3(v2, v12)
; nextln: block3(v6: i32, v13: i64):
; nextln: v17 = trunc.i32 v13
; nextln: v7 = icmp sle v13, v16
; nextln: brif v7, block4, block6
; nextln: block4:
; nextln: v8 = sext.i64 v17
; nextln: v9 = ptradd v0, v13
; nextln: store v17, v9
; nextln: v10 = iadd v17, v3
; nextln: v14 = iconst.i64 1
; nextln: v15 = iadd v13, v14
; nextln: jump block3(v10, v15)
; nextln: block6:
; nextln: v11 = iadd v4, v3
; nextln: jump block1(v11)
; nextln: block5:
; nextln: return
; nextln: }
; check: func @outer_le(ptr, i32) {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = iconst.i32 0
; nextln: v3 = iconst.i32 1
; nextln: jump block1(v2)
; nextln: block1(v4: i32):
; nextln: v5 = icmp sle v4, v1
; nextln: brif v5, block2, block5
; nextln: block2:
; nextln: jump block3(v2)
; nextln: block3(v6: i32):
; nextln: v7 = icmp sle v6, v4
; nextln: brif v7, block4, block6
; nextln: block4:
; nextln: v8 = sext.i64 v6
; nextln: v9 = ptradd v0, v8
; nextln: store v6, v9
; nextln: v10 = iadd v6, v3
; nextln: jump block3(v10)
; nextln: block6:
; nextln: v11 = iadd v4, v3
; nextln: jump block1(v11)
; nextln: block5:
; nextln: return
; nextln: }
; check: func @through_i8(ptr) {
; nextln: block0(v0: ptr):
; nextln: v1 = iconst.i32 1000
; nextln: v2 = iconst.i32 0
; nextln: v3 = iconst.i32 1
; nextln: jump block1(v2)
; nextln: block1(v4: i32):
; nextln: v5 = icmp slt v4, v1
; nextln: brif v5, block2, block5
; nextln: block2:
; nextln: v12 = trunc.i8 v4
; nextln: v13 = sext.i32 v12
; nextln: jump block3(v2)
; nextln: block3(v6: i32):
; nextln: v7 = icmp sle v6, v13
; nextln: brif v7, block4, block6
; nextln: block4:
; nextln: v8 = sext.i64 v6
; nextln: v9 = ptradd v0, v8
; nextln: store v6, v9
; nextln: v10 = iadd v6, v3
; nextln: jump block3(v10)
; nextln: block6:
; nextln: v11 = iadd v4, v3
; nextln: jump block1(v11)
; nextln: block5:
; nextln: return
; nextln: }
; Inner loops bounded by an enclosing loop's counter (`j <= i`, the
; triangular nests of PolyBench's syrk, syr2k and trmm).
; @triangular: `i < n` keeps `i` at most INT_MAX - 1 in the outer body, so
; `j <= i` fails before `j` wraps: the inner loop is widened (the outer
; has no extension to rewrite).
; @outer_le: `i <= n` may itself never fail (`n` = INT_MAX), so nothing
; bounds `i` and the inner `j <= i` is left alone (the outer loop, whose
; `i` may wrap, too).
; @through_i8: the bound is `i` truncated to 8 bits and extended back:
; `i` up to 999 does not fit in 8 bits, so the inner loop is left alone.
func @triangular(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v2)
block1(v4: i32):
    v5 = icmp slt v4, v1
    brif v5, block2, block5
block2:
    jump block3(v2)
block3(v6: i32):
    v7 = icmp sle v6, v4
    brif v7, block4, block6
block4:
    v8 = sext.i64 v6
    v9 = ptradd v0, v8
    store v6, v9
    v10 = iadd v6, v3
    jump block3(v10)
block6:
    v11 = iadd v4, v3
    jump block1(v11)
block5:
    return
}

func @outer_le(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v2)
block1(v4: i32):
    v5 = icmp sle v4, v1
    brif v5, block2, block5
block2:
    jump block3(v2)
block3(v6: i32):
    v7 = icmp sle v6, v4
    brif v7, block4, block6
block4:
    v8 = sext.i64 v6
    v9 = ptradd v0, v8
    store v6, v9
    v10 = iadd v6, v3
    jump block3(v10)
block6:
    v11 = iadd v4, v3
    jump block1(v11)
block5:
    return
}

func @through_i8(ptr) {
block0(v0: ptr):
    v1 = iconst.i32 1000
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v2)
block1(v4: i32):
    v5 = icmp slt v4, v1
    brif v5, block2, block5
block2:
    v12 = trunc.i8 v4
    v13 = sext.i32 v12
    jump block3(v2)
block3(v6: i32):
    v7 = icmp sle v6, v13
    brif v7, block4, block6
block4:
    v8 = sext.i64 v6
    v9 = ptradd v0, v8
    store v6, v9
    v10 = iadd v6, v3
    jump block3(v10)
block6:
    v11 = iadd v4, v3
    jump block1(v11)
block5:
    return
}
