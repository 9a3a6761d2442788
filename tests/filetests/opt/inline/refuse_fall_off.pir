; test: pass inline
; @sign may fall off its end (the front end's `unreachable` there is a
; run-time error naming @sign), so it stays a call; @die's `unreachable`
; follows `exit`, which never returns, so @die is inlined.
; check: func @user(i32) -> i32 {
; check: call @sign(v0)
; not: call @die
; check: exit
; check: unreachable
func @sign(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 0
    v2 = icmp sgt v0, v1
    brif v2, block1, block2
block1:
    v3 = iconst.i32 1
    return v3
block2:
    unreachable @9:1
}
func @die(i32) {
block0(v0: i32):
    exit v0
    unreachable
}
func @user(i32) -> i32 {
block0(v0: i32):
    v1 = call @sign(v0)
    v2 = iconst.i32 0
    v3 = icmp eq v1, v2
    brif v3, block1, block2
block1:
    call @die(v0)
    return v1
block2:
    return v1
}
