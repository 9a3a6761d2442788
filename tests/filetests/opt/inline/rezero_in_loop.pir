; test: pass inline
; A call in a serial loop: the callee's 16-byte local moves to the caller's
; entry block, which runs once, while the call runs once per iteration; so
; the inlined body starts by zeroing it (`memset`), as a fresh alloca would
; be. A 4-byte local is zeroed with a store.
; The caller is then cleaned (simplify-cfg, instcombine, dce), as every
; function that received a body is before its own callers' turn.
; check: func @first(i32) -> i32 {
; nextln: block0(v0: i32):
; nextln: v1 = alloca 16, align 4
; nextln: v2 = alloca 4, align 4
; nextln: v3 = load.i32 v1
; nextln: v4 = load.i32 v2
; nextln: v5 = iadd v3, v4
; nextln: v6 = iadd v5, v0
; nextln: store v0, v1
; nextln: store v0, v2
; nextln: return v6
; nextln: }
; check: func @loop(i32) -> i32 {
; nextln: block0(v0: i32):
; nextln: v9 = alloca 16, align 4
; nextln: v10 = alloca 4, align 4
; nextln: v1 = iconst.i32 0
; nextln: v2 = iconst.i32 1
; nextln: jump block1(v1, v1)
; nextln: block1(v3: i32, v4: i32):
; nextln: v5 = icmp slt v3, v0
; nextln: brif v5, block5, block3
; nextln: block5:
; nextln: v16 = iconst.i32 0
; nextln: v17 = iconst.i64 16
; nextln: memset v9, v16, v17
; nextln: v18 = iconst.i32 0
; nextln: store v18, v10
; nextln: v11 = load.i32 v9
; nextln: v12 = load.i32 v10
; nextln: v13 = iadd v11, v12
; nextln: v14 = iadd v13, v3
; nextln: store v3, v9
; nextln: store v3, v10
; nextln: v7 = iadd v4, v14
; nextln: v8 = iadd v3, v2
; nextln: jump block1(v8, v7)
; nextln: block3:
; nextln: return v4
; nextln: }
func @first(i32) -> i32 {
block0(v0: i32):
    v1 = alloca 16, align 4
    v2 = alloca 4, align 4
    v3 = load.i32 v1
    v4 = load.i32 v2
    v5 = iadd v3, v4
    v6 = iadd v5, v0
    store v0, v1
    store v0, v2
    return v6
}
func @loop(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 0
    v2 = iconst.i32 1
    jump block1(v1, v1)
block1(v3: i32, v4: i32):
    v5 = icmp slt v3, v0
    brif v5, block2, block3
block2:
    v6 = call @first(v3)
    v7 = iadd v4, v6
    v8 = iadd v3, v2
    jump block1(v8, v7)
block3:
    return v4
}
