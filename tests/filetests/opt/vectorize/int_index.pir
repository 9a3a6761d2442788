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
; nextln: v85 = iconst.i64 -4
; nextln: v86 = and v84, v85
; nextln: v87 = iconst.i64 0
; nextln: v88 = iconst.i64 8
; nextln: v89 = icmp uge v84, v88
; nextln: brif v89, block7, block12(v69)
; nextln: block7:
; nextln: v90 = iconst.i64 8
; nextln: v91 = imul v86, v90
; nextln: v92 = trunc.i32 v69
; nextln: v93 = iadd v23, v92
; nextln: v94 = sext.i64 v93
; nextln: v95 = shl v94, v66
; nextln: v96 = ptradd v0, v95
; nextln: v97 = ptradd v96, v91
; nextln: v98 = ptradd v1, v95
; nextln: v99 = ptradd v98, v91
; nextln: v100 = icmp ule v97, v98
; nextln: v101 = icmp ule v99, v96
; nextln: v102 = or v100, v101
; nextln: v103 = ptradd v96, v91
; nextln: v104 = shl v69, v66
; nextln: v105 = ptradd v2, v104
; nextln: v106 = ptradd v105, v91
; nextln: v107 = icmp ule v103, v105
; nextln: v108 = icmp ule v106, v96
; nextln: v109 = or v107, v108
; nextln: v110 = and v102, v109
; nextln: v111 = iconst.i64 4294967296
; nextln: v112 = icmp ule v86, v111
; nextln: v113 = and v110, v112
; nextln: v114 = sext.i64 v93
; nextln: v115 = iconst.i64 1
; nextln: v116 = imul v86, v115
; nextln: v117 = iadd v114, v116
; nextln: v118 = isub v117, v115
; nextln: v119 = iconst.i64 2147483647
; nextln: v120 = icmp sle v118, v119
; nextln: v121 = and v113, v120
; nextln: brif v121, block8, block12(v69)
; nextln: block8:
; nextln: v123 = iadd v69, v86
; nextln: v135 = splat.f64x2 v48
; nextln: v138 = iconst.i64 1
; nextln: jump block9(v69)
; nextln: block9(v122: i64):
; nextln: v124 = icmp ne v122, v123
; nextln: brif v124, block10, block11
; nextln: block10:
; nextln: v125 = trunc.i32 v122
; nextln: v126 = iadd v23, v125
; nextln: v127 = sext.i64 v126
; nextln: v128 = shl v127, v66
; nextln: v129 = ptradd v0, v128
; nextln: v130 = ptradd v1, v128
; nextln: v131 = load.f64x2 v130
; nextln: v132 = shl v122, v66
; nextln: v133 = ptradd v2, v132
; nextln: v134 = load.f64x2 v133
; nextln: v136 = fmul v134, v135
; nextln: v137 = fadd v131, v136
; nextln: store v137, v129
; nextln: v139 = iconst.i64 16
; nextln: v140 = ptradd v129, v139
; nextln: v141 = iconst.i64 16
; nextln: v142 = ptradd v130, v141
; nextln: v143 = load.f64x2 v142
; nextln: v144 = iconst.i64 16
; nextln: v145 = ptradd v133, v144
; nextln: v146 = load.f64x2 v145
; nextln: v147 = fmul v146, v135
; nextln: v148 = fadd v143, v147
; nextln: store v148, v140
; nextln: v149 = iconst.i64 4
; nextln: v150 = iadd v122, v149
; nextln: jump block9(v150)
; nextln: block11:
; nextln: jump block12(v122)
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
; loop's iterations (v111..v120); `trunc` in the header (`iv-widen`'s
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
