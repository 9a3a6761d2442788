; test: pass strength-reduce
; @column: `s += b[k][j]` over `k` with rows of 900 doubles (7200 bytes):
; `b + k * 7200` becomes a pointer that starts at `b + 0 * 7200` and
; steps by 7200; the multiply and the old address go.
; @step_two: `k += 2`: the pointer steps by 2 * 7200, both addresses of
; the same row (`b[k][0]` and `b[k][1]`) share it.
; @used_after: the address is also read after the loop (which it leaves
; from its body when the element is above 1): left alone.
; @base_in_loop: the base is loaded in the loop: left alone.
; stat: strength-reduce.pointers = 2
; check: func @column(ptr, i64, i64) -> f64 {
; nextln: block0(v0: ptr, v1: i64, v2: i64):
; nextln: v3 = iconst.i64 0
; nextln: v4 = fconst.f64 0.0
; nextln: v5 = iconst.i64 7200
; nextln: v6 = iconst.i64 3
; nextln: v7 = iconst.i64 1
; nextln: v8 = shl v2, v6
; nextln: v19 = iconst.i64 7200
; nextln: v20 = imul v3, v19
; nextln: v21 = ptradd v0, v20
; nextln: jump block1(v3, v4, v21)
; nextln: block1(v10: i64, v11: f64, v22: ptr):
; nextln: v12 = icmp slt v10, v1
; nextln: brif v12, block2, block3
; nextln: block2:
; nextln: v15 = ptradd v22, v8
; nextln: v16 = load.f64 v15
; nextln: v17 = fadd v11, v16
; nextln: v18 = iadd v10, v7
; nextln: v23 = iconst.i64 7200
; nextln: v24 = ptradd v22, v23
; nextln: jump block1(v18, v17, v24)
; nextln: block3:
; nextln: return v11
; nextln: }
; check: func @step_two(ptr, i64) -> f64 {
; nextln: block0(v0: ptr, v1: i64):
; nextln: v3 = iconst.i64 0
; nextln: v4 = fconst.f64 0.0
; nextln: v5 = iconst.i64 7200
; nextln: v6 = iconst.i64 8
; nextln: v7 = iconst.i64 2
; nextln: v25 = iconst.i64 7200
; nextln: v26 = imul v3, v25
; nextln: v27 = ptradd v0, v26
; nextln: jump block1(v3, v4, v27)
; nextln: block1(v10: i64, v11: f64, v28: ptr):
; nextln: v12 = icmp slt v10, v1
; nextln: brif v12, block2, block3
; nextln: block2:
; nextln: v16 = load.f64 v28
; nextln: v22 = ptradd v28, v6
; nextln: v23 = load.f64 v22
; nextln: v24 = fadd v16, v23
; nextln: v17 = fadd v11, v24
; nextln: v18 = iadd v10, v7
; nextln: v29 = iconst.i64 14400
; nextln: v30 = ptradd v28, v29
; nextln: jump block1(v18, v17, v30)
; nextln: block3:
; nextln: return v11
; nextln: }
; check: func @used_after(ptr, i64) -> ptr {
; nextln: block0(v0: ptr, v1: i64):
; nextln: v3 = iconst.i64 0
; nextln: v5 = iconst.i64 7200
; nextln: v6 = fconst.f64 1.0
; nextln: v7 = iconst.i64 1
; nextln: jump block1(v3)
; nextln: block1(v10: i64):
; nextln: v12 = icmp slt v10, v1
; nextln: brif v12, block2, block3
; nextln: block2:
; nextln: v13 = imul v10, v5
; nextln: v14 = ptradd v0, v13
; nextln: v15 = load.f64 v14
; nextln: v16 = fcmp gt v15, v6
; nextln: brif v16, block4, block5
; nextln: block5:
; nextln: v18 = iadd v10, v7
; nextln: jump block1(v18)
; nextln: block4:
; nextln: return v14
; nextln: block3:
; nextln: return v0
; nextln: }
; check: func @base_in_loop(ptr, i64) {
; nextln: block0(v0: ptr, v1: i64):
; nextln: v3 = iconst.i64 0
; nextln: v5 = iconst.i64 7200
; nextln: v6 = fconst.f64 1.0
; nextln: v7 = iconst.i64 1
; nextln: jump block1(v3)
; nextln: block1(v10: i64):
; nextln: v12 = icmp slt v10, v1
; nextln: brif v12, block2, block3
; nextln: block2:
; nextln: v19 = load.ptr v0
; nextln: v13 = imul v10, v5
; nextln: v14 = ptradd v19, v13
; nextln: store v6, v14
; nextln: v18 = iadd v10, v7
; nextln: jump block1(v18)
; nextln: block3:
; nextln: return
; nextln: }
func @column(ptr, i64, i64) -> f64 {
block0(v0: ptr, v1: i64, v2: i64):
    v3 = iconst.i64 0
    v4 = fconst.f64 0.0
    v5 = iconst.i64 7200
    v6 = iconst.i64 3
    v7 = iconst.i64 1
    v8 = shl v2, v6
    jump block1(v3, v4)
block1(v10: i64, v11: f64):
    v12 = icmp slt v10, v1
    brif v12, block2, block3
block2:
    v13 = imul v10, v5
    v14 = ptradd v0, v13
    v15 = ptradd v14, v8
    v16 = load.f64 v15
    v17 = fadd v11, v16
    v18 = iadd v10, v7
    jump block1(v18, v17)
block3:
    return v11
}

func @step_two(ptr, i64) -> f64 {
block0(v0: ptr, v1: i64):
    v3 = iconst.i64 0
    v4 = fconst.f64 0.0
    v5 = iconst.i64 7200
    v6 = iconst.i64 8
    v7 = iconst.i64 2
    jump block1(v3, v4)
block1(v10: i64, v11: f64):
    v12 = icmp slt v10, v1
    brif v12, block2, block3
block2:
    v13 = imul v5, v10
    v14 = ptradd v0, v13
    v16 = load.f64 v14
    v20 = imul v10, v5
    v21 = ptradd v0, v20
    v22 = ptradd v21, v6
    v23 = load.f64 v22
    v24 = fadd v16, v23
    v17 = fadd v11, v24
    v18 = iadd v10, v7
    jump block1(v18, v17)
block3:
    return v11
}

func @used_after(ptr, i64) -> ptr {
block0(v0: ptr, v1: i64):
    v3 = iconst.i64 0
    v5 = iconst.i64 7200
    v6 = fconst.f64 1.0
    v7 = iconst.i64 1
    jump block1(v3)
block1(v10: i64):
    v12 = icmp slt v10, v1
    brif v12, block2, block3
block2:
    v13 = imul v10, v5
    v14 = ptradd v0, v13
    v15 = load.f64 v14
    v16 = fcmp gt v15, v6
    brif v16, block4, block5
block5:
    v18 = iadd v10, v7
    jump block1(v18)
block4:
    return v14
block3:
    return v0
}

func @base_in_loop(ptr, i64) {
block0(v0: ptr, v1: i64):
    v3 = iconst.i64 0
    v5 = iconst.i64 7200
    v6 = fconst.f64 1.0
    v7 = iconst.i64 1
    jump block1(v3)
block1(v10: i64):
    v12 = icmp slt v10, v1
    brif v12, block2, block3
block2:
    v19 = load.ptr v0
    v13 = imul v10, v5
    v14 = ptradd v19, v13
    store v6, v14
    v18 = iadd v10, v7
    jump block1(v18)
block3:
    return
}
