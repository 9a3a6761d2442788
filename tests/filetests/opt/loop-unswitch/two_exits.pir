; test: pass loop-unswitch
; exit: 81
; @two_exits returns its counter below a block both of its exits reach:
; neither exit alone leads there, so the loop stays. @main:
; two_exits(7, false) = 8, two_exits(7, true) = 1; it returns 10 * 8 + 1.
; stat: loop-unswitch.unswitched = 0
; stat: changed = false
func @two_exits(i32, i1) -> i32 {
block0(v0: i32, v1: i1):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    jump block1(v2)
block1(v4: i32):
    v5 = icmp slt v4, v0
    brif v5, block2, block4
block2:
    v6 = icmp eq v4, v3
    brif v6, block6, block7
block7:
    brif v1, block3, block5
block3:
    v7 = iadd v4, v3
    jump block1(v7)
block5:
    v8 = iadd v4, v3
    v9 = iadd v8, v3
    jump block1(v9)
block6:
    jump block8
block4:
    jump block8
block8:
    return v4
}

func @main() -> i32 {
block0:
    v0 = iconst.i32 7
    v1 = iconst.i1 0
    v2 = iconst.i1 1
    v3 = call @two_exits(v0, v1)
    v4 = call @two_exits(v0, v2)
    v5 = iconst.i32 10
    v6 = imul v3, v5
    v7 = iadd v6, v4
    return v7
}
