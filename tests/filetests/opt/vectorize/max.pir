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
; nextln: v58 = iconst.i64 -8
; nextln: v59 = and v57, v58
; nextln: v60 = iconst.i64 0
; nextln: v61 = icmp ne v59, v60
; nextln: brif v61, block5, block9(v6, v42)
; nextln: block5:
; nextln: v65 = iadd v42, v59
; nextln: v81 = splat.i32x4 v6
; nextln: v87 = iconst.i64 1
; nextln: jump block6(v81, v42, v81)
; nextln: block6(v62: i32x4, v63: i64, v64: i32x4):
; nextln: v66 = icmp ne v63, v65
; nextln: brif v66, block7, block8
; nextln: block7:
; nextln: v82 = shl v63, v39
; nextln: v83 = ptradd v0, v82
; nextln: v84 = load.i32x4 v83
; nextln: v85 = icmp sgt v84, v62
; nextln: v86 = select v85, v84, v62
; nextln: v88 = iconst.i64 16
; nextln: v89 = ptradd v83, v88
; nextln: v90 = load.i32x4 v89
; nextln: v91 = icmp sgt v90, v64
; nextln: v92 = select v91, v90, v64
; nextln: v93 = iconst.i64 8
; nextln: v94 = iadd v63, v93
; nextln: jump block6(v86, v94, v92)
; nextln: block8:
; nextln: v67 = icmp sgt v64, v62
; nextln: v68 = select v67, v64, v62
; nextln: v69 = extract_lane v68, 0
; nextln: v70 = icmp sgt v69, v6
; nextln: v71 = select v70, v69, v6
; nextln: v72 = extract_lane v68, 1
; nextln: v73 = icmp sgt v72, v71
; nextln: v74 = select v73, v72, v71
; nextln: v75 = extract_lane v68, 2
; nextln: v76 = icmp sgt v75, v74
; nextln: v77 = select v76, v75, v74
; nextln: v78 = extract_lane v68, 3
; nextln: v79 = icmp sgt v78, v77
; nextln: v80 = select v79, v78, v77
; nextln: jump block9(v80, v63)
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
; m = a[i] > m ? a[i] : m: a maximum. Interleaved: two accumulators (the
; header's two i32x4 parameters), every lane of both starting from the
; initial value; the exit combines the two lane by lane, then the lanes,
; each time by the loop's compare and select (a lane-wise icmp gives an
; i32x4 mask, which the select takes).
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
