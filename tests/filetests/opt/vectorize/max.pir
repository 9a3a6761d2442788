; test: pass vectorize
; check: func @imax(ptr "a", i32 "n") -> i32 {
; nextln: block0(v0: ptr, v1: i32):
; nextln: v6 = iconst.i32 -1000
; nextln: v39 = iconst.i64 2
; nextln: v42 = iconst.i64 0
; nextln: v46 = sext.i64 v1
; nextln: v49 = icmp slt v42, v46
; nextln: v50 = isub v46, v42
; nextln: v51 = iconst.i64 1
; nextln: v52 = isub v50, v51
; nextln: v53 = iconst.i64 1
; nextln: v54 = udiv v52, v53
; nextln: v55 = iadd v54, v51
; nextln: v56 = iconst.i64 0
; nextln: v57 = select v49, v55, v56
; nextln: v58 = iconst.i64 -4
; nextln: v59 = and v57, v58
; nextln: v60 = iconst.i64 0
; nextln: v61 = iconst.i64 6
; nextln: v62 = icmp uge v57, v61
; nextln: brif v62, block5, block9(v6, v42)
; nextln: block5:
; nextln: v79 = splat.i32x4 v6
; nextln: v85 = iconst.i64 1
; nextln: jump block6(v79, v42, v60)
; nextln: block6(v63: i32x4, v64: i64, v65: i64):
; nextln: v66 = icmp ult v65, v59
; nextln: brif v66, block7, block8
; nextln: block7:
; nextln: v80 = shl v64, v39
; nextln: v81 = ptradd v0, v80
; nextln: v82 = load.i32x4 v81
; nextln: v83 = icmp sgt v82, v63
; nextln: v84 = select v83, v82, v63
; nextln: v86 = iconst.i64 4
; nextln: v87 = iadd v64, v86
; nextln: v88 = iconst.i64 4
; nextln: v89 = iadd v65, v88
; nextln: jump block6(v84, v87, v89)
; nextln: block8:
; nextln: v67 = extract_lane v63, 0
; nextln: v68 = icmp sgt v67, v6
; nextln: v69 = select v68, v67, v6
; nextln: v70 = extract_lane v63, 1
; nextln: v71 = icmp sgt v70, v69
; nextln: v72 = select v71, v70, v69
; nextln: v73 = extract_lane v63, 2
; nextln: v74 = icmp sgt v73, v72
; nextln: v75 = select v74, v73, v72
; nextln: v76 = extract_lane v63, 3
; nextln: v77 = icmp sgt v76, v75
; nextln: v78 = select v77, v76, v75
; nextln: jump block9(v78, v64)
; nextln: block9(v47: i32, v48: i64):
; nextln: jump block1(v47, v48)
; nextln: block1(v33: i32, v43: i64):
; nextln: v10 = icmp slt v43, v46
; nextln: brif v10, block2, block4
; nextln: block2:
; nextln: v15 = shl v43, v39
; nextln: v16 = ptradd v0, v15
; nextln: v17 = load.i32 v16
; nextln: v19 = icmp sgt v17, v33
; nextln: v41 = select v19, v17, v33
; nextln: v44 = iconst.i64 1
; nextln: v45 = iadd v43, v44
; nextln: jump block1(v41, v45)
; nextln: block4:
; nextln: return v33
; nextln: }
; m = a[i] > m ? a[i] : m: a maximum. Every lane starts from the initial
; value; the exit combines the lanes by the loop's compare and select (a
; lane-wise icmp gives an i32x4 mask, which the select takes).
func @imax(ptr "a", i32 "n") -> i32 {
block0(v0: ptr, v1: i32):
    v6 = iconst.i32 -1000
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
    v41 = select v19, v17, v33
    v44 = iconst.i64 1
    v45 = iadd v43, v44
    jump block1(v41, v45)
block4:
    return v33
}
