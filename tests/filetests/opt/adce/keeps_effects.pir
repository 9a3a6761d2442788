; test: pass adce
; Everything that feeds an effect stays: the stored value's cycle (v4) is
; live through the store, the possibly-trapping division and its operands
; stay, and so does the unused load (loads are roots; `dce` removes it).
; check: func @f(ptr, i32) {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v2 = iconst.i32 0
; nextln: jump block1(v2, v2)
; nextln: block1(v3: i32, v4: i32):
; nextln: v5 = icmp slt v3, v1
; nextln: brif v5, block2, block3
; nextln: block2:
; nextln: v6 = iadd v4, v3
; nextln: store v6, v0
; nextln: v7 = sdiv v1, v3
; nextln: v8 = load.i32 v0
; nextln: v9 = iconst.i32 1
; nextln: v10 = iadd v3, v9
; nextln: jump block1(v10, v6)
; nextln: block3:
; nextln: return
; nextln: }
func @f(ptr, i32) {
block0(v0: ptr, v1: i32):
    v2 = iconst.i32 0
    jump block1(v2, v2)
block1(v3: i32, v4: i32):
    v5 = icmp slt v3, v1
    brif v5, block2, block3
block2:
    v6 = iadd v4, v3
    store v6, v0
    v7 = sdiv v1, v3
    v8 = load.i32 v0
    v9 = iconst.i32 1
    v10 = iadd v3, v9
    jump block1(v10, v6)
block3:
    return
}
