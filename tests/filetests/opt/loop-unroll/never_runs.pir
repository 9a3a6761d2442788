; test: pass loop-unroll sccp simplify-cfg
; exit: 9
; @empty: a loop that never runs its body (5 < 3 is false at once) is
; removed. @main: empty(9) = 9.
; stat: loop-unroll.unrolled = 1
; stat: loop-unroll.copies = 0
; check: func @empty(i32) -> i32 {
; nextln: block0(v0: i32):
; nextln: v1 = iconst.i32 5
; nextln: v2 = iconst.i32 3
; nextln: v3 = iconst.i32 1
; nextln: v9 = iconst.i32 5
; nextln: v6 = iconst.i1 0
; nextln: return v0
; nextln: }
func @empty(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 5
    v2 = iconst.i32 3
    v3 = iconst.i32 1
    jump block1(v1, v0)
block1(v4: i32, v5: i32):
    v6 = icmp slt v4, v2
    brif v6, block2, block3
block2:
    v7 = imul v5, v5
    v8 = iadd v4, v3
    jump block1(v8, v7)
block3:
    return v5
}

func @main() -> i32 {
block0:
    v0 = iconst.i32 9
    v1 = call @empty(v0)
    return v1
}
