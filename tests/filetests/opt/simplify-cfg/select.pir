; test: pass simplify-cfg
; check: func @sel(ptr, i32) -> i32 {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v6 = iconst.i32 0
; nextln: v39 = iconst.i64 2
; nextln: v42 = iconst.i64 0
; nextln: v46 = sext.i64 v1
; nextln: jump block1(v6, v42)
; nextln: block1(v33: i32, v43: i64):
; nextln: v10 = icmp slt v43, v46
; nextln: brif v10, block2, block4
; nextln: block2:
; nextln: v15 = shl v43, v39
; nextln: v16 = ptradd v0, v15
; nextln: v17 = load.i32 v16
; nextln: v19 = icmp sgt v17, v33
; nextln: v47 = select v19, v17, v33
; nextln: v44 = iconst.i64 1
; nextln: v45 = iadd v43, v44
; nextln: jump block1(v47, v45)
; nextln: block4:
; nextln: return v33
; nextln: }
; brif to one block with different arguments: a select per argument that
; differs (here the maximum of the loop), and the blocks then merge.
func @sel(ptr, i32) -> i32 {
block0(v0: ptr, v1: i32):
    v6 = iconst.i32 0
    v39 = iconst.i64 2
    v42 = iconst.i64 0
    v46 = sext.i64 v1
    jump block1(v6, v42)
block1(v33: i32, v43: i64):
    v10 = icmp slt v43, v46
    brif v10, block2, block4
block2:
    v15 = shl v43, v39
    v16 = ptradd v0, v15
    v17 = load.i32 v16
    v19 = icmp sgt v17, v33
    brif v19, block3(v17), block3(v33)
block3(v20: i32):
    v44 = iconst.i64 1
    v45 = iadd v43, v44
    jump block1(v20, v45)
block4:
    return v33
}
