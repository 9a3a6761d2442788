; test: pass iv-widen
; Loops left alone.
; @wraps: `j <= n` with `n` unknown may never fail (`n` = INT_MAX wraps).
; @not_equal: `j != n` may wrap around the whole type.
; @wide: the variable is already 64 bits.
; @parallel: a parallel loop (a detach in its body) keeps its header as
; Tapir lowering expects it.
; @no_extension: nothing to rewrite.
; check: func @wraps(ptr, i32) {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = iconst.i32 0
; nextln: v3 = iconst.i32 1
; nextln: jump block1(v2)
; nextln: block1(v5: i32):
; nextln: v6 = icmp sle v5, v1
; nextln: brif v6, block2, block3
; nextln: block2:
; nextln: v7 = sext.i64 v5
; nextln: v8 = ptradd v0, v7
; nextln: store v5, v8
; nextln: v9 = iadd v5, v3
; nextln: jump block1(v9)
; nextln: block3:
; nextln: return
; nextln: }
; check: func @not_equal(ptr, i32) {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = iconst.i32 0
; nextln: v3 = iconst.i32 1
; nextln: jump block1(v2)
; nextln: block1(v5: i32):
; nextln: v6 = icmp ne v5, v1
; nextln: brif v6, block2, block3
; nextln: block2:
; nextln: v7 = sext.i64 v5
; nextln: v8 = ptradd v0, v7
; nextln: store v5, v8
; nextln: v9 = iadd v5, v3
; nextln: jump block1(v9)
; nextln: block3:
; nextln: return
; nextln: }
; check: func @wide(ptr, i64) {
; nextln: block0(v0: ptr, v1: i64):
; nextln: v2 = iconst.i64 0
; nextln: v3 = iconst.i64 1
; nextln: jump block1(v2)
; nextln: block1(v5: i64):
; nextln: v6 = icmp slt v5, v1
; nextln: brif v6, block2, block3
; nextln: block2:
; nextln: v8 = ptradd v0, v5
; nextln: store v5, v8
; nextln: v9 = iadd v5, v3
; nextln: jump block1(v9)
; nextln: block3:
; nextln: return
; nextln: }
; check: func @parallel(ptr, i32) {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = iconst.i32 0
; nextln: v3 = iconst.i32 1
; nextln: jump block1(v2)
; nextln: block1(v5: i32):
; nextln: v6 = icmp slt v5, v1
; nextln: brif v6, block2, block5
; nextln: block2:
; nextln: detach within sr0, block3, block4
; nextln: block3:
; nextln: v7 = sext.i64 v5
; nextln: v8 = ptradd v0, v7
; nextln: store v5, v8
; nextln: reattach within sr0, block4
; nextln: block4:
; nextln: v9 = iadd v5, v3
; nextln: jump block1(v9)
; nextln: block5:
; nextln: sync within sr0, block6
; nextln: block6:
; nextln: return
; nextln: }
; check: func @no_extension(ptr, i32) {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = iconst.i32 0
; nextln: v3 = iconst.i32 1
; nextln: jump block1(v2)
; nextln: block1(v5: i32):
; nextln: v6 = icmp slt v5, v1
; nextln: brif v6, block2, block3
; nextln: block2:
; nextln: store v5, v0
; nextln: v9 = iadd v5, v3
; nextln: jump block1(v9)
; nextln: block3:
; nextln: return
; nextln: }
func @wraps(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v2)
block1(v5: i32):
    v6 = icmp sle v5, v1
    brif v6, block2, block3
block2:
    v7 = sext.i64 v5
    v8 = ptradd v0, v7
    store v5, v8
    v9 = iadd v5, v3
    jump block1(v9)
block3:
    return
}

func @not_equal(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v2)
block1(v5: i32):
    v6 = icmp ne v5, v1
    brif v6, block2, block3
block2:
    v7 = sext.i64 v5
    v8 = ptradd v0, v7
    store v5, v8
    v9 = iadd v5, v3
    jump block1(v9)
block3:
    return
}

func @wide(ptr, i64) {
block0(v0: ptr, v1: i64):
    v2 = iconst.i64 0
    v3 = iconst.i64 1
    jump block1(v2)
block1(v5: i64):
    v6 = icmp slt v5, v1
    brif v6, block2, block3
block2:
    v8 = ptradd v0, v5
    store v5, v8
    v9 = iadd v5, v3
    jump block1(v9)
block3:
    return
}

func @parallel(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v2)
block1(v5: i32):
    v6 = icmp slt v5, v1
    brif v6, block2, block5
block2:
    detach within sr0, block3, block4
block3:
    v7 = sext.i64 v5
    v8 = ptradd v0, v7
    store v5, v8
    reattach within sr0, block4
block4:
    v9 = iadd v5, v3
    jump block1(v9)
block5:
    sync within sr0, block6
block6:
    return
}

func @no_extension(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v2)
block1(v5: i32):
    v6 = icmp slt v5, v1
    brif v6, block2, block3
block2:
    store v5, v0
    v9 = iadd v5, v3
    jump block1(v9)
block3:
    return
}
