; test: pass mem2reg
; Nested tasks. v5, a local of the outer task (at the top of its first
; block), is stored by that task and read by the task nested in it: it is
; promoted (the nested task reads the value stored before its detach).
; v1, a local of the function, is stored by the outer task: refused, it
; stays in memory and is read after the sync.
; check: block0(v0: ptr, v1: i32):
; nextln: v2 = alloca 4, align 4
; nextln: detach within sr0, block1, block4
; check: block1:
; nextln: $(z=v\d+) = iconst.i32 0
; nextln: v6 = iadd $z, v1
; nextln: detach within sr1, block2, block3
; check: block2:
; nextln: store v6, v0
; nextln: reattach within sr1, block3
; check: block3:
; nextln: store v6, v2
; nextln: sync within sr1, block5
; check: block6:
; nextln: v8 = load.i32 v2
; nextln: return v8
func @n(ptr, i32) -> i32 {
block0(v0: ptr, v1: i32):
    v2 = alloca 4, align 4
    detach within sr0, block1, block4
block1:
    v5 = alloca 4, align 4
    v3 = load.i32 v5
    v6 = iadd v3, v1
    store v6, v5
    detach within sr1, block2, block3
block2:
    v7 = load.i32 v5
    store v7, v0
    reattach within sr1, block3
block3:
    store v6, v2
    sync within sr1, block5
block5:
    reattach within sr0, block4
block4:
    sync within sr0, block6
block6:
    v8 = load.i32 v2
    return v8
}
