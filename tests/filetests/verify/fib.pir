; test: verify
; fib with a spawned recursive call: the task stores its result in memory,
; the continuation reads it back after the sync (values never flow out of a
; task through SSA), and the sync comes before the return.
func @fib(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 2
    v2 = icmp slt v0, v1 @3:11
    brif v2, block1, block2
block1:
    return v0
block2:
    v3 = alloca 4, align 4
    detach within sr0, block3, block4
block3:
    v4 = iconst.i32 1
    v5 = isub v0, v4
    v6 = call @fib(v5) @5:17
    store v6, v3
    reattach within sr0, block4
block4:
    v7 = iconst.i32 2
    v8 = isub v0, v7
    v9 = call @fib(v8)
    sync within sr0, block5
block5:
    v10 = load.i32 v3
    v11 = iadd v10, v9
    return v11
}
