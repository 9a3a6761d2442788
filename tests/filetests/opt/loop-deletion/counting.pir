; test: pass loop-deletion
; @empty counts i from 0 to n for nothing: the entry goes straight to the
; exit. @kept_load reads memory in its loop (a load may fault), @kept_use
; returns its counter, @kept_step counts by 2 (i + 2 could wrap past n)
; and @kept_infinite has no test that ends it: they stay.
; check: func @empty(i32) -> i32 {
; nextln: block0(v0: i32):
; nextln: v1 = iconst.i32 0
; nextln: v2 = iconst.i32 1
; nextln: jump block3
; check: func @kept_load(ptr, i32) {
; check: block1(v3: i32):
; check: func @kept_use(i32) -> i32 {
; check: block1(v3: i32):
; check: func @kept_step(i32) {
; check: block1(v3: i32):
; check: func @kept_infinite() {
; check: jump block1
func @empty(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 0
    v2 = iconst.i32 1
    jump block1(v1)
block1(v3: i32):
    v4 = icmp slt v3, v0
    brif v4, block2, block3
block2:
    v5 = iadd v3, v2
    jump block1(v5)
block3:
    return v0
}

func @kept_load(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    jump block1(v2)
block1(v3: i32):
    v4 = icmp slt v3, v1
    brif v4, block2, block3
block2:
    v6 = load.i32 v0
    v7 = iconst.i32 1
    v5 = iadd v3, v7
    jump block1(v5)
block3:
    return
}

func @kept_use(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 0
    v2 = iconst.i32 1
    jump block1(v1)
block1(v3: i32):
    v4 = icmp slt v3, v0
    brif v4, block2, block3
block2:
    v5 = iadd v3, v2
    jump block1(v5)
block3:
    return v3
}

func @kept_step(i32) {
block0(v0: i32):
    v1 = iconst.i32 0
    v2 = iconst.i32 2
    jump block1(v1)
block1(v3: i32):
    v4 = icmp slt v3, v0
    brif v4, block2, block3
block2:
    v5 = iadd v3, v2
    jump block1(v5)
block3:
    return
}

func @kept_infinite() {
block0:
    jump block1
block1:
    jump block1
}
