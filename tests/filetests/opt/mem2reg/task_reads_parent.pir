; test: pass mem2reg
; A task reads a local the parent wrote before the detach: the read becomes
; the value reaching the detach (it enters the task by dominance). The
; parent's later store (after the sync) is fine too: same task as the slot.
; check: block0(v0: ptr, v1: i32):
; nextln: detach within sr0, block1, block2
; check: block1:
; nextln: store v1, v0
; nextln: reattach within sr0, block2
; check: block3:
; nextln: v4 = iconst.i32 5
; nextln: return v4
; not: alloca
func @g(ptr, i32) -> i32 {
block0(v0: ptr, v1: i32):
    v2 = alloca 4, align 4
    store v1, v2
    detach within sr0, block1, block2
block1:
    v3 = load.i32 v2
    store v3, v0
    reattach within sr0, block2
block2:
    sync within sr0, block3
block3:
    v4 = iconst.i32 5
    store v4, v2
    v5 = load.i32 v2
    return v5
}
