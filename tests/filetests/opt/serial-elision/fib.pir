; test: pass serial-elision
; fib as the front end lowers it. The detach becomes a jump into the
; task, its reattach a jump to the continuation, both syncs plain jumps:
; `x = spawn fib(n - 1)` is now a call whose result goes through the slot
; v3, in the same task as its alloca (so mem2reg may promote it).
; No sync region is left, so none is printed.
; check: func @fib(i32) -> i32 {
; nextln: block0(v0: i32):
; nextln: v1 = iconst.i32 2
; nextln: v2 = icmp slt v0, v1
; nextln: brif v2, block1, block2
; nextln: block1:
; nextln: jump block7
; nextln: block7:
; nextln: return v0
; nextln: block2:
; nextln: v3 = alloca 4, align 4
; nextln: jump block3
; nextln: block3:
; nextln: v4 = iconst.i32 1
; nextln: v5 = isub v0, v4
; nextln: v6 = call @fib(v5)
; nextln: store v6, v3
; nextln: jump block4
; nextln: block4:
; nextln: v7 = iconst.i32 2
; nextln: v8 = isub v0, v7
; nextln: v9 = call @fib(v8)
; nextln: jump block5
; nextln: block5:
; nextln: v10 = load.i32 v3
; nextln: v11 = iadd v10, v9
; nextln: return v11
; nextln: }
func @fib(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 2
    v2 = icmp slt v0, v1
    brif v2, block1, block2
block1:
    sync within sr0, block7
block7:
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
    v7 = iconst.i32 2
    v8 = isub v0, v7
    v9 = call @fib(v8)
    sync within sr0, block5
block5:
    v10 = load.i32 v3
    v11 = iadd v10, v9
    return v11
}
