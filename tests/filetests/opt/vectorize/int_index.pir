; test: pass vectorize
; check: func @add_rows(ptr, ptr, ptr, i32, i32) {
; nextln: block0(v0: ptr, v1: ptr, v2: ptr, v3: i32, v4: i32):
; nextln: v12 = iconst.i32 0
; nextln: v66 = iconst.i64 3
; nextln: v48 = fconst.f64 0.5
; nextln: v52 = iconst.i32 1
; nextln: jump block1(v12)
; nextln: block1(v57: i32):
; nextln: v15 = icmp slt v57, v3
; nextln: brif v15, block2, block4
; nextln: block2:
; nextln: v23 = imul v57, v4
; nextln: v69 = iconst.i64 0
; nextln: v73 = sext.i64 v4
; nextln: v76 = icmp slt v69, v73
; nextln: v77 = isub v73, v69
; nextln: v78 = iconst.i64 1
; nextln: v79 = isub v77, v78
; nextln: v80 = iconst.i64 1
; nextln: v81 = udiv v79, v80
; nextln: v82 = iadd v81, v78
; nextln: v83 = iconst.i64 0
; nextln: v84 = select v76, v82, v83
; nextln: v85 = iconst.i64 -2
; nextln: v86 = and v84, v85
; nextln: v87 = iconst.i64 0
; nextln: v88 = icmp ne v86, v87
; nextln: brif v88, block7, block12(v69)
; nextln: block7:
; nextln: v89 = iconst.i64 8
; nextln: v90 = imul v86, v89
; nextln: v91 = trunc.i32 v69
; nextln: v92 = iadd v23, v91
; nextln: v93 = sext.i64 v92
; nextln: v94 = shl v93, v66
; nextln: v95 = ptradd v0, v94
; nextln: v96 = ptradd v95, v90
; nextln: v97 = ptradd v1, v94
; nextln: v98 = ptradd v97, v90
; nextln: v99 = icmp ule v96, v97
; nextln: v100 = icmp ule v98, v95
; nextln: v101 = or v99, v100
; nextln: v102 = ptradd v95, v90
; nextln: v103 = shl v69, v66
; nextln: v104 = ptradd v2, v103
; nextln: v105 = ptradd v104, v90
; nextln: v106 = icmp ule v102, v104
; nextln: v107 = icmp ule v105, v95
; nextln: v108 = or v106, v107
; nextln: v109 = and v101, v108
; nextln: v110 = iconst.i64 4294967296
; nextln: v111 = icmp ule v86, v110
; nextln: v112 = and v109, v111
; nextln: v113 = sext.i64 v92
; nextln: v114 = iconst.i64 1
; nextln: v115 = imul v86, v114
; nextln: v116 = iadd v113, v115
; nextln: v117 = isub v116, v114
; nextln: v118 = iconst.i64 2147483647
; nextln: v119 = icmp sle v117, v118
; nextln: v120 = and v112, v119
; nextln: brif v120, block8, block12(v69)
; nextln: block8:
; nextln: v134 = splat.f64x2 v48
; nextln: v137 = iconst.i64 1
; nextln: jump block9(v69, v87)
; nextln: block9(v121: i64, v122: i64):
; nextln: v123 = icmp ult v122, v86
; nextln: brif v123, block10, block11
; nextln: block10:
; nextln: v124 = trunc.i32 v121
; nextln: v125 = iadd v23, v124
; nextln: v126 = sext.i64 v125
; nextln: v127 = shl v126, v66
; nextln: v128 = ptradd v0, v127
; nextln: v129 = ptradd v1, v127
; nextln: v130 = load.f64x2 v129
; nextln: v131 = shl v121, v66
; nextln: v132 = ptradd v2, v131
; nextln: v133 = load.f64x2 v132
; nextln: v135 = fmul v133, v134
; nextln: v136 = fadd v130, v135
; nextln: store v136, v128
; nextln: v138 = iconst.i64 2
; nextln: v139 = iadd v121, v138
; nextln: v140 = iconst.i64 2
; nextln: v141 = iadd v122, v140
; nextln: jump block9(v139, v141)
; nextln: block11:
; nextln: jump block12(v121)
; nextln: block12(v75: i64):
; nextln: jump block5(v75)
; nextln: block5(v70: i64):
; nextln: v74 = trunc.i32 v70
; nextln: v19 = icmp slt v70, v73
; nextln: brif v19, block6, block3
; nextln: block6:
; nextln: v25 = iadd v23, v74
; nextln: v26 = sext.i64 v25
; nextln: v28 = shl v26, v66
; nextln: v29 = ptradd v0, v28
; nextln: v39 = ptradd v1, v28
; nextln: v40 = load.f64 v39
; nextln: v45 = shl v70, v66
; nextln: v46 = ptradd v2, v45
; nextln: v47 = load.f64 v46
; nextln: v49 = fmul v47, v48
; nextln: v50 = fadd v40, v49
; nextln: store v50, v29
; nextln: v71 = iconst.i64 1
; nextln: v72 = iadd v70, v71
; nextln: jump block5(v72)
; nextln: block3:
; nextln: v56 = iadd v57, v52
; nextln: jump block1(v56)
; nextln: block4:
; nextln: return
; nextln: }
; `for (j = 0; j < m; j++) c[i * m + j] = a[i * m + j] + b[j] * 0.5;` with
; `int` indices: the 32-bit index `v23 + trunc(j)` is sign-extended for
; the addresses, so besides the overlap tests (c against a, c against b)
; the test block checks that it does not pass INT_MAX in the vector
; loop's iterations (v110..v119); `trunc` in the header (`iv-widen`'s
; 32-bit copy of `j`) is copied into the vector body.
func @add_rows(ptr, ptr, ptr, i32, i32) {
block0(v0: ptr, v1: ptr, v2: ptr, v3: i32, v4: i32):
    v12 = iconst.i32 0
    v66 = iconst.i64 3
    v48 = fconst.f64 0.5
    v52 = iconst.i32 1
    jump block1(v12)
block1(v57: i32):
    v15 = icmp slt v57, v3
    brif v15, block2, block4
block2:
    v23 = imul v57, v4
    v69 = iconst.i64 0
    v73 = sext.i64 v4
    jump block5(v69)
block5(v70: i64):
    v74 = trunc.i32 v70
    v19 = icmp slt v70, v73
    brif v19, block6, block3
block6:
    v25 = iadd v23, v74
    v26 = sext.i64 v25
    v28 = shl v26, v66
    v29 = ptradd v0, v28
    v39 = ptradd v1, v28
    v40 = load.f64 v39
    v45 = shl v70, v66
    v46 = ptradd v2, v45
    v47 = load.f64 v46
    v49 = fmul v47, v48
    v50 = fadd v40, v49
    store v50, v29
    v71 = iconst.i64 1
    v72 = iadd v70, v71
    jump block5(v72)
block3:
    v56 = iadd v57, v52
    jump block1(v56)
block4:
    return
}
