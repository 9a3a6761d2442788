; test: pass serial-elision
; exit: 27
; A spawn whose result crosses through memory, a parallel loop with a
; task-local slot, and a nested spawn inside the loop body: @main returns
; work(7) = 21 plus the loop's sum 0 + 1 + 2 + 3, before the elision and
; after it. Every detach, reattach and sync goes, and with them the sync
; regions; the loop's task-local slot stays at the top of the loop body
; (block4, the former detach block, jumps to it), so it is zero-filled
; once per iteration.
; stat: serial-elision.detaches = 3
; stat: serial-elision.syncs = 3
; stat: again.changed = false
; not: detach
; not: reattach
; not: sync
; check: block4:
; nextln: jump block5
; nextln: block5:
; nextln: v8 = alloca 4, align 4
; not: detach
; not: reattach
; not: sync
func @work(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 3
    v2 = imul v0, v1
    return v2
}
func @main() -> i32 {
block0:
    v0 = alloca 4, align 4
    v1 = alloca 4, align 4
    v2 = iconst.i32 7
    detach within sr0, block1, block2
block1:
    v3 = call @work(v2)
    store v3, v0
    reattach within sr0, block2
block2:
    v4 = iconst.i32 0
    v5 = iconst.i32 4
    jump block3(v4)
block3(v6: i32):
    v7 = icmp slt v6, v5
    brif v7, block4, block9
block4:
    detach within sr1, block5, block8
block5:
    v8 = alloca 4, align 4
    v9 = load.i32 v8
    v10 = iadd v9, v6
    store v10, v8
    detach within sr2, block6, block7
block6:
    v11 = load.i32 v8
    v12 = atomic_add.i32 v1, v11
    reattach within sr2, block7
block7:
    sync within sr2, block10
block10:
    reattach within sr1, block8
block8:
    v13 = iconst.i32 1
    v14 = iadd v6, v13
    jump block3(v14)
block9:
    sync within sr1, block11
block11:
    sync within sr0, block12
block12:
    v15 = load.i32 v0
    v16 = load.i32 v1
    v17 = iadd v15, v16
    return v17
}
