; test: pass sccp
; A loop-carried value that only ever carries 5 (k = 5; while (i < n) { i++;
; k = k; }) is the constant 5, though its parameter is defined around the
; back edge: the parameter goes, with its argument on both edges, and the constant
; is materialized once, at the end of the entry block. The
; induction variable i is overdefined and stays.
; check: block0(v0: i32):
; check: v2 = iconst.i32 0
; nextln: $(five=v\d+) = iconst.i32 5
; nextln: jump block1(v2)
; check: block1(v4: i32):
; nextln: v5 = icmp slt v4, v0
; check: v8 = iconst.i32 5
; nextln: jump block1(v7)
; check: block3:
; nextln: v9 = iadd $five, v4
func @l(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 5
    v2 = iconst.i32 0
    jump block1(v1, v2)
block1(v3: i32, v4: i32):
    v5 = icmp slt v4, v0
    brif v5, block2, block3
block2:
    v6 = iconst.i32 1
    v7 = iadd v4, v6
    v8 = imul v3, v6
    jump block1(v8, v7)
block3:
    v9 = iadd v3, v4
    return v9
}
