; test: pass inline
; One level of self-recursion: each of @fib's two self-calls gets a copy of
; @fib's body (with its own two calls, which stay calls), so the recursion
; makes half the calls. @walk recurses linearly (one self-call, outside
; its loop): seven rounds of copies, each with its loop and its one call
; (so eight loop headers, one call). @deep is too big: its self-call stays.
; check: func @fib(i32) -> i32 {
; check: call @fib
; check: call @fib
; check: call @fib
; check: call @fib
; not: call @fib
; check: func @walk(i32) -> i32 {
; check: icmp slt
; check: icmp slt
; check: icmp slt
; check: icmp slt
; check: icmp slt
; check: icmp slt
; check: icmp slt
; check: icmp slt
; not: icmp slt
; check: call @walk
; not: call @walk
; check: func @deep(i32) -> i32 {
; check: call @deep
; not: call @deep
func @fib(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 2
    v2 = icmp slt v0, v1
    brif v2, block1, block2
block1:
    return v0
block2:
    v3 = iconst.i32 1
    v4 = isub v0, v3
    v5 = call @fib(v4)
    v6 = isub v0, v1
    v7 = call @fib(v6)
    v8 = iadd v5, v7
    return v8
}
func @walk(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 0
    jump block1(v1)
block1(v2: i32):
    v3 = icmp slt v2, v0
    brif v3, block2, block3
block2:
    v4 = iconst.i32 1
    v5 = iadd v2, v4
    jump block1(v5)
block3:
    v6 = icmp eq v0, v1
    brif v6, block4, block5
block4:
    return v2
block5:
    v7 = iconst.i32 1
    v8 = isub v0, v7
    v9 = call @walk(v8)
    return v9
}
func @deep(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 1
    v2 = icmp slt v0, v1
    brif v2, block1, block2
block1:
    return v0
block2:
    v3 = iadd v0, v1
    v4 = iadd v3, v1
    v5 = iadd v4, v1
    v6 = iadd v5, v1
    v7 = iadd v6, v1
    v8 = iadd v7, v1
    v9 = iadd v8, v1
    v10 = iadd v9, v1
    v11 = iadd v10, v1
    v12 = iadd v11, v1
    v13 = iadd v12, v1
    v14 = iadd v13, v1
    v15 = iadd v14, v1
    v16 = iadd v15, v1
    v17 = iadd v16, v1
    v18 = iadd v17, v1
    v19 = iadd v18, v1
    v20 = iadd v19, v1
    v21 = iadd v20, v1
    v22 = iadd v21, v1
    v23 = iadd v22, v1
    v24 = iadd v23, v1
    v25 = iadd v24, v1
    v26 = iadd v25, v1
    v27 = iadd v26, v1
    v28 = iadd v27, v1
    v29 = iadd v28, v1
    v30 = iadd v29, v1
    v31 = iadd v30, v1
    v32 = iadd v31, v1
    v33 = iadd v32, v1
    v34 = iadd v33, v1
    v35 = iadd v34, v1
    v36 = iadd v35, v1
    v37 = iadd v36, v1
    v38 = iadd v37, v1
    v39 = iadd v38, v1
    v40 = iadd v39, v1
    v41 = isub v0, v1
    v42 = call @deep(v41)
    v43 = iadd v42, v40
    return v43
}
