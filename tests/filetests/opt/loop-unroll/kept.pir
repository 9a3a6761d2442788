; test: pass loop-unroll sccp simplify-cfg
; exit: 4995013
; @unknown's bound is a parameter and @long runs 1000 times: both keep
; their loops. @main: long(1) = 1 + 0 + 1 + ... + 999 = 499501, unknown(3) = 3;
; it returns 10 * 499501 + 3.
; stat: loop-unroll.unrolled = 0
; stat: loop-unroll.copies = 0
; check: func @unknown(i32) -> i32 {
; nextln: block0(v0: i32):
; nextln: v1 = iconst.i32 0
; nextln: v2 = iconst.i32 1
; nextln: jump block1(v1)
; nextln: block1(v3: i32):
; nextln: v4 = icmp slt v3, v0
; nextln: brif v4, block2, block3
; nextln: block2:
; nextln: v5 = iadd v3, v2
; nextln: jump block1(v5)
; nextln: block3:
; nextln: return v3
; nextln: }
; check: func @long(i32) -> i32 {
; nextln: block0(v0: i32):
; nextln: v1 = iconst.i32 0
; nextln: v2 = iconst.i32 1
; nextln: v3 = iconst.i32 1000
; nextln: jump block1(v1, v0)
; nextln: block1(v4: i32, v5: i32):
; nextln: v6 = icmp slt v4, v3
; nextln: brif v6, block2, block3
; nextln: block2:
; nextln: v7 = iadd v5, v4
; nextln: v8 = iadd v4, v2
; nextln: jump block1(v8, v7)
; nextln: block3:
; nextln: return v5
; nextln: }
func @unknown(i32) -> i32 {
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

func @long(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 0
    v2 = iconst.i32 1
    v3 = iconst.i32 1000
    jump block1(v1, v0)
block1(v4: i32, v5: i32):
    v6 = icmp slt v4, v3
    brif v6, block2, block3
block2:
    v7 = iadd v5, v4
    v8 = iadd v4, v2
    jump block1(v8, v7)
block3:
    return v5
}

func @main() -> i32 {
block0:
    v0 = iconst.i32 1
    v1 = iconst.i32 3
    v2 = call @long(v0)
    v3 = call @unknown(v1)
    v4 = iconst.i32 10
    v5 = imul v2, v4
    v6 = iadd v5, v3
    return v6
}
