; test: pass loop-unswitch
; exit: 16
; A branch on the counter (`if (i & 1) s += i`) is not invariant: the
; loop stays as it is. @main: odd(9) = 1 + 3 + 5 + 7 = 16.
; stat: loop-unswitch.unswitched = 0
; stat: changed = false
func @odd(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 0
    v2 = iconst.i32 1
    jump block1(v1, v1)
block1(v3: i32, v4: i32):
    v5 = icmp slt v3, v0
    brif v5, block2, block4
block2:
    v6 = and v3, v2
    v7 = icmp ne v6, v1
    v8 = iadd v3, v2
    brif v7, block3, block1(v8, v4)
block3:
    v9 = iadd v4, v3
    jump block1(v8, v9)
block4:
    return v4
}

func @main() -> i32 {
block0:
    v0 = iconst.i32 9
    v1 = call @odd(v0)
    return v1
}
