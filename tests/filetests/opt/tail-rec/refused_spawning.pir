; test: pass tail-rec
; A spawning fib (the front end's shape): refused.
; stat: changed = false
; stat: tail-rec.refused.tapir = 1
func @fib(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 2
    v2 = icmp slt v0, v1
    brif v2, block1, block2
block1:
    return v0
block2:
    v3 = alloca 4, align 4
    detach within sr0, block3, block4
block3:
    v4 = iconst.i32 1
    v5 = isub v0, v4
    v6 = call @fib(v5)
    store v6, v3
    reattach within sr0, block4
block4:
    v7 = isub v0, v1
    sync within sr0, block5
block5:
    v9 = load.i32 v3
    v8 = call @fib(v7)
    v10 = iadd v9, v8
    return v10
}
