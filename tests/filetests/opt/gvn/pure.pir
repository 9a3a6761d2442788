; test: pass gvn
; Pure expressions meet across commuted operands and swapped compares; a
; value is reused only where its definition dominates (block3 is reached
; from block1 too, so block2's product is not reused there; the two
; selects meet once their conditions have); a division
; that may trap is merged with a dominating identical one (which ran, so
; the second cannot trap); two allocas are two objects.
; check: block0(v0: i32, v1: i32, v2: i1):
; nextln: v3 = iadd v0, v1
; nextln: v5 = icmp slt v0, v1
; nextln: v7 = sdiv v3, v1
; nextln: v8 = alloca 4, align 4
; nextln: v9 = alloca 4, align 4
; nextln: brif v2, block1, block2
; nextln: block1:
; nextln: v11 = iadd v7, v3
; nextln: jump block3(v11)
; nextln: block2:
; nextln: v13 = imul v0, v1
; nextln: jump block3(v13)
; nextln: block3(v14: i32):
; nextln: v15 = imul v0, v1
; nextln: v16 = select v5, v15, v14
; nextln: store v16, v8
; nextln: store v16, v9
; nextln: v18 = iadd v16, v16
func @f(i32, i32, i1) -> i32 {
block0(v0: i32, v1: i32, v2: i1):
    v3 = iadd v0, v1
    v4 = iadd v1, v0
    v5 = icmp slt v0, v1
    v6 = icmp sgt v1, v0
    v7 = sdiv v3, v1
    v8 = alloca 4, align 4
    v9 = alloca 4, align 4
    brif v2, block1, block2
block1:
    v10 = sdiv v4, v1
    v11 = iadd v10, v3
    jump block3(v11)
block2:
    v12 = sdiv v3, v1
    v13 = imul v0, v1
    jump block3(v13)
block3(v14: i32):
    v15 = imul v0, v1
    v16 = select v5, v15, v14
    v17 = select v6, v15, v14
    store v16, v8
    store v17, v9
    v18 = iadd v16, v17
    return v18
}
