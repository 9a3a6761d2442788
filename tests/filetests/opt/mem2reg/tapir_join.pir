; test: pass mem2reg
; The continuation block2 is also reached by the brif, and the slot is
; stored on one of the two ways there: promotion would need a parameter on
; a detach's continuation, which Tapir forbids. The slot stays in memory
; (the other slot, only ever stored in the entry, is promoted).
; check: block0(v0: ptr, v1: i1, v2: i32):
; nextln: v3 = alloca 4, align 4
; nextln: store v2, v3
; not: alloca
; check: block1:
; nextln: v5 = iconst.i32 1
; nextln: store v5, v3
; nextln: detach within sr0, block3, block2
; check: block3:
; nextln: store v2, v0
; check: block2:
; nextln: v7 = load.i32 v3
; nextln: sync within sr0, block4
func @j(ptr, i1, i32) -> i32 {
block0(v0: ptr, v1: i1, v2: i32):
    v3 = alloca 4, align 4
    v4 = alloca 4, align 4
    store v2, v3
    store v2, v4
    brif v1, block1, block2
block1:
    v5 = iconst.i32 1
    store v5, v3
    detach within sr0, block3, block2
block3:
    v6 = load.i32 v4
    store v6, v0
    reattach within sr0, block2
block2:
    v7 = load.i32 v3
    sync within sr0, block4
block4:
    return v7
}
