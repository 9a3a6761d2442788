; test: pass loop-rotate
; Loops left alone.
; @parallel: a parallel loop keeps the shape Tapir lowering expects.
; @call_in_header: `while (more())`: the header has an effect.
; @value_after_break: the header's `i` is used after a second exit (the
; `break`'s), where no single parameter could carry it.
; @one_block: the body is the header: already tested at the bottom.
; @two_latches: `for (...) { if (i == k) continue; ... }`: two back edges,
; each of which would get a copy of the test and carry the loop's values
; through a critical edge.
; @forever: no test.
; @sum_then_call: the loop's sum is live across the call after it (the
; register allocator spills it, and would store it on every iteration
; through a rotated loop's critical back edge).
; @scale_under_call: the inner loop reads the pointer and the bound,
; which are live across the outer loop's call (and so is the outer loop's
; counter).
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
; check: func @sum_then_call(ptr, i32) -> f64 {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = iconst.i32 0
; nextln: v3 = iconst.i32 1
; nextln: v4 = fconst.f64 0.0
; nextln: jump block1(v2, v4)
; nextln: block1(v5: i32, v6: f64):
; nextln: v7 = icmp slt v5, v1
; nextln: brif v7, block2, block3
; nextln: block2:
; nextln: v8 = load.f64 v0
; nextln: v9 = fadd v6, v8
; nextln: v10 = iadd v5, v3
; nextln: jump block1(v10, v9)
; nextln: block3:
; nextln: v11 = call @more()
; nextln: return v6
; nextln: }
; check: func @scale_under_call(ptr, i32, f64) {
; nextln: block0(v0: ptr, v1: i32, v2: f64):
; nextln: v3 = iconst.i32 0
; nextln: v4 = iconst.i32 1
; nextln: jump block1(v3)
; nextln: block1(v5: i32):
; nextln: v6 = icmp slt v5, v1
; nextln: brif v6, block2, block5
; nextln: block2:
; nextln: v7 = call @more()
; nextln: v20 = fmul v2, v2
; nextln: jump block3(v3)
; nextln: block3(v8: i32):
; nextln: v9 = icmp slt v8, v1
; nextln: brif v9, block4, block6
; nextln: block4:
; nextln: store v20, v0
; nextln: v10 = iadd v8, v4
; nextln: jump block3(v10)
; nextln: block6:
; nextln: v11 = iadd v5, v4
; nextln: v12 = fmul v20, v2
; nextln: store v12, v0
; nextln: jump block1(v11)
; nextln: block5:
; nextln: return
; nextln: }
; check: func @two_latches(ptr, i32, i32) {
; nextln: block0(v0: ptr, v1: i32, v2: i32):
; nextln: v3 = iconst.i32 0
; nextln: v4 = iconst.i32 1
; nextln: jump block1(v3)
; nextln: block1(v5: i32):
; nextln: v6 = icmp slt v5, v1
; nextln: brif v6, block2, block5
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

func @sum_then_call(ptr, i32) -> f64 {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    v4 = fconst.f64 0.0
    jump block1(v2, v4)
block1(v5: i32, v6: f64):
    v7 = icmp slt v5, v1
    brif v7, block2, block3
block2:
    v8 = load.f64 v0
    v9 = fadd v6, v8
    v10 = iadd v5, v3
    jump block1(v10, v9)
block3:
    v11 = call @more()
    return v6
}

func @scale_under_call(ptr, i32, f64) {
block0(v0: ptr, v1: i32, v2: f64):
    v3 = iconst.i32 0
    v4 = iconst.i32 1
    jump block1(v3)
block1(v5: i32):
    v6 = icmp slt v5, v1
    brif v6, block2, block5
block2:
    v7 = call @more()
    v20 = fmul v2, v2
    jump block3(v3)
block3(v8: i32):
    v9 = icmp slt v8, v1
    brif v9, block4, block6
block4:
    store v20, v0
    v10 = iadd v8, v4
    jump block3(v10)
block6:
    v11 = iadd v5, v4
    v12 = fmul v20, v2
    store v12, v0
    jump block1(v11)
block5:
    return
}

func @two_latches(ptr, i32, i32) {
block0(v0: ptr, v1: i32, v2: i32):
    v3 = iconst.i32 0
    v4 = iconst.i32 1
    jump block1(v3)
block1(v5: i32):
    v6 = icmp slt v5, v1
    brif v6, block2, block5
block2:
    v7 = icmp eq v5, v2
    v8 = iadd v5, v4
    brif v7, block1(v8), block3
block3:
    store v5, v0
    jump block1(v8)
block5:
    return
}
