; test: pass loop-rotate
; Loops left alone.
; @parallel: a parallel loop keeps the shape Tapir lowering expects.
; @call_in_header: `while (more())`: the header has an effect.
; @value_after_break: the header's `i` is used after a second exit (the
; `break`'s), where no single parameter could carry it.
; @one_block: the body is the header: already tested at the bottom.
; @forever: no test.
; check: declare @more() -> i1
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
; nextln: store v5, v0
; nextln: reattach within sr0, block4
; nextln: block4:
; nextln: v9 = iadd v5, v3
; nextln: jump block1(v9)
; nextln: block5:
; nextln: sync within sr0, block6
; nextln: block6:
; nextln: return
; nextln: }
; check: func @call_in_header(ptr) {
; nextln: block0(v0: ptr):
; nextln: jump block1
; nextln: block1:
; nextln: v1 = call @more()
; nextln: brif v1, block2, block3
; nextln: block2:
; nextln: store v1, v0
; nextln: jump block1
; nextln: block3:
; nextln: return
; nextln: }
; check: func @value_after_break(ptr, i32) -> i32 {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = iconst.i32 0
; nextln: v3 = iconst.i32 1
; nextln: jump block1(v2)
; nextln: block1(v4: i32):
; nextln: v5 = icmp slt v4, v1
; nextln: brif v5, block2, block4
; nextln: block2:
; nextln: v6 = load.i32 v0
; nextln: v7 = icmp eq v6, v2
; nextln: brif v7, block4, block3
; nextln: block3:
; nextln: v8 = iadd v4, v3
; nextln: jump block1(v8)
; nextln: block4:
; nextln: return v4
; nextln: }
; check: func @one_block(ptr, i32) {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = iconst.i32 0
; nextln: v3 = iconst.i32 1
; nextln: jump block1(v2)
; nextln: block1(v4: i32):
; nextln: store v4, v0
; nextln: v5 = iadd v4, v3
; nextln: v6 = icmp slt v5, v1
; nextln: brif v6, block1(v5), block2
; nextln: block2:
; nextln: return
; nextln: }
; check: func @forever(ptr) {
; nextln: block0(v0: ptr):
; nextln: jump block1
; nextln: block1:
; nextln: store v0, v0
; nextln: jump block1
; nextln: }
declare @more() -> i1
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
    store v5, v0
    reattach within sr0, block4
block4:
    v9 = iadd v5, v3
    jump block1(v9)
block5:
    sync within sr0, block6
block6:
    return
}

func @call_in_header(ptr) {
block0(v0: ptr):
    jump block1
block1:
    v1 = call @more()
    brif v1, block2, block3
block2:
    store v1, v0
    jump block1
block3:
    return
}

func @value_after_break(ptr, i32) -> i32 {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v2)
block1(v4: i32):
    v5 = icmp slt v4, v1
    brif v5, block2, block4
block2:
    v6 = load.i32 v0
    v7 = icmp eq v6, v2
    brif v7, block4, block3
block3:
    v8 = iadd v4, v3
    jump block1(v8)
block4:
    return v4
}

func @one_block(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v2)
block1(v4: i32):
    store v4, v0
    v5 = iadd v4, v3
    v6 = icmp slt v5, v1
    brif v6, block1(v5), block2
block2:
    return
}

func @forever(ptr) {
block0(v0: ptr):
    jump block1
block1:
    store v0, v0
    jump block1
}
