; test: pass gvn
; An add meets its commuted twin and a compare its swapped twin (two pure
; expressions); the xor of distinct values stays as it is.
; stat: gvn.pure = 2
; check: v6 = and v4, v4
; check: v7 = xor v8, v2
func @f(i32, i32) -> i1 {
block0(v0: i32, v1: i32):
    v2 = iadd v0, v1
    v3 = iadd v1, v0
    v4 = icmp slt v0, v1
    v5 = icmp sgt v1, v0
    v6 = and v4, v5
    v8 = zext.i32 v6
    v7 = xor v8, v2
    return v6
}
