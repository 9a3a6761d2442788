; test: pass tail-rec
; plain_fib.pir with a load after the call: it reads what the call may
; have written.
; stat: changed = false
global @g size 4 align 4 = zeroinit

func @fib(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 2
    v2 = icmp slt v0, v1
    brif v2, block1, block2
block1:
    return v0
block2:
    v3 = iconst.i32 1
    v4 = isub v0, v3
    v5 = call @fib(v4)
    v6 = isub v0, v1
    v7 = call @fib(v6)
    v20 = global_addr @g
    v21 = load.i32 v20
    v8 = iadd v5, v7
    return v8
}
