; test: pass licm
; A loop whose exit uses a loop value gets no guard, so a call that needs
; one stays; pure code (the constant) still moves.
; stat: licm.calls = 0
; stat: licm.guards = 0
; stat: licm.pure = 1
func @get(ptr) -> i32 {
block0(v0: ptr):
    v1 = load.i32 v0
    return v1
}

func @f(ptr, i32) -> i32 {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    jump block1(v2, v2)
block1(v3: i32, v4: i32):
    v5 = icmp slt v3, v1
    brif v5, block2, block3
block2:
    v6 = call @get(v0)
    v7 = iconst.i32 1
    v8 = iadd v4, v6
    v9 = iadd v3, v7
    jump block1(v9, v8)
block3:
    return v4
}
