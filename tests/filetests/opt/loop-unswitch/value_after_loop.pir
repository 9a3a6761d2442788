; test: pass loop-unswitch
; exit: 87
; @last returns its counter's final value, a value of the loop used after
; it: unswitched, the exit gets a parameter, which each copy passes its
; own. @main: last(7, false) = 8 (steps of 2), last(7, true) = 7; it
; returns 10 * 8 + 7.
; stat: loop-unswitch.unswitched = 1
func @last(i32, i1) -> i32 {
block0(v0: i32, v1: i1):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v2)
block1(v4: i32):
    v5 = icmp slt v4, v0
    brif v5, block2, block4
block2:
    brif v1, block3, block5
block3:
    v6 = iadd v4, v3
    jump block1(v6)
block5:
    v7 = iadd v4, v3
    v8 = iadd v7, v3
    jump block1(v8)
block4:
    return v4
}

func @main() -> i32 {
block0:
    v0 = iconst.i32 7
    v1 = iconst.i1 0
    v2 = iconst.i1 1
    v3 = call @last(v0, v1)
    v4 = call @last(v0, v2)
    v5 = iconst.i32 10
    v6 = imul v3, v5
    v7 = iadd v6, v4
    return v7
}
