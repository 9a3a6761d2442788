; test: pass mem2reg
; `x = spawn fib(n - 1); y = fib(n - 2); sync; return x + y;`: the spawned
; task stores x, the parent reads it after the sync. Promoting x would make
; the task's value flow into the continuation (Tapir rule T2): refused.
; The parameter slot n (stored only by the parent) is promoted.
; check: block0(v0: i32):
; nextln: v2 = alloca 4, align 4
; nextln: v4 = iconst.i32 2
; nextln: v5 = icmp slt v0, v4
; check: block1:
; nextln: return v0
; check: block3:
; nextln: v10 = call @fib(v9)
; nextln: store v10, v2
; nextln: reattach within sr0, block4
; check: block4:
; nextln: v12 = iconst.i32 2
; nextln: v13 = isub v0, v12
; check: block5:
; nextln: v15 = load.i32 v2
; nextln: v16 = iadd v15, v14
func @fib(i32) -> i32 {
block0(v0: i32):
    v1 = alloca 4, align 4
    v2 = alloca 4, align 4
    store v0, v1
    v3 = load.i32 v1
    v4 = iconst.i32 2
    v5 = icmp slt v3, v4
    brif v5, block1, block2
block1:
    v6 = load.i32 v1
    return v6
block2:
    v7 = load.i32 v1
    v8 = iconst.i32 1
    v9 = isub v7, v8
    detach within sr0, block3, block4
block3:
    v10 = call @fib(v9)
    store v10, v2
    reattach within sr0, block4
block4:
    v11 = load.i32 v1
    v12 = iconst.i32 2
    v13 = isub v11, v12
    v14 = call @fib(v13)
    sync within sr0, block5
block5:
    v15 = load.i32 v2
    v16 = iadd v15, v14
    return v16
}
