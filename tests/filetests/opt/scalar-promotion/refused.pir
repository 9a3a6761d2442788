; test: pass scalar-promotion
; Nothing is promoted, each for one reason:
; @may_alias: `dst` is not `restrict`, so the store to `a[j]` may change
;   `dst[0]`;
; @off_start: the store to `dst[0]` is under an `if` (not every
;   iteration runs it: the exit's store would add a write);
; @call: `@touch` may write any memory;
; @parallel: the loop spawns its iterations (a `parallel_for`'s loop).
; check: func @may_alias
; not: load.f64 v0
; check: v15 = load.f64 v0
; check: func @off_start
; not: load.f64 v0
; check: v15 = load.f64 v0
; check: func @call
; not: load.f64 v0
; check: v15 = load.f64 v0
; check: func @parallel
; not: load.f64 v0
; check: v15 = load.f64 v0
func @may_alias(ptr, ptr, i64) {
block0(v0: ptr, v1: ptr, v3: i64):
    v4 = iconst.i64 0
    v5 = iconst.i64 1
    v6 = iconst.i64 3
    jump block1(v4)
block1(v7: i64):
    v8 = icmp slt v7, v3
    brif v8, block2, block3
block2:
    v9 = shl v7, v6
    v10 = ptradd v1, v9
    v11 = load.f64 v10
    v15 = load.f64 v0
    v16 = fadd v15, v11
    store v16, v0
    store v11, v10
    v17 = iadd v7, v5
    jump block1(v17)
block3:
    return
}
func @off_start(ptr noalias, ptr, i64) {
block0(v0: ptr, v1: ptr, v3: i64):
    v4 = iconst.i64 0
    v5 = iconst.i64 1
    v6 = iconst.i64 3
    v20 = fconst.f64 0.0
    jump block1(v4)
block1(v7: i64):
    v8 = icmp slt v7, v3
    brif v8, block2, block3
block2:
    v9 = shl v7, v6
    v10 = ptradd v1, v9
    v11 = load.f64 v10
    v21 = fcmp gt v11, v20
    brif v21, block4, block5
block4:
    v15 = load.f64 v0
    v16 = fadd v15, v11
    store v16, v0
    jump block5
block5:
    v17 = iadd v7, v5
    jump block1(v17)
block3:
    return
}
func @touch(ptr) {
block0(v0: ptr):
    v1 = load.ptr v0
    v2 = iconst.i64 0
    store v2, v1
    return
}
func @call(ptr noalias, ptr, i64) {
block0(v0: ptr, v1: ptr, v3: i64):
    v4 = iconst.i64 0
    v5 = iconst.i64 1
    v6 = iconst.i64 3
    jump block1(v4)
block1(v7: i64):
    v8 = icmp slt v7, v3
    brif v8, block2, block3
block2:
    v9 = shl v7, v6
    v10 = ptradd v1, v9
    v11 = load.f64 v10
    v15 = load.f64 v0
    v16 = fadd v15, v11
    store v16, v0
    call @touch(v1)
    v17 = iadd v7, v5
    jump block1(v17)
block3:
    return
}
func @parallel(ptr noalias, ptr, i64) {
block0(v0: ptr, v1: ptr, v3: i64):
    v4 = iconst.i64 0
    v5 = iconst.i64 1
    v6 = iconst.i64 3
    jump block1(v4)
block1(v7: i64):
    v8 = icmp slt v7, v3
    brif v8, block2, block3
block2:
    detach within sr0, block4, block5
block4:
    v9 = shl v7, v6
    v10 = ptradd v1, v9
    v11 = load.f64 v10
    v15 = load.f64 v0
    v16 = fadd v15, v11
    store v16, v0
    reattach within sr0, block5
block5:
    v17 = iadd v7, v5
    jump block1(v17)
block3:
    sync within sr0, block6
block6:
    return
}
