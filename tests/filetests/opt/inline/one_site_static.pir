; test: pass inline
; A callee of 46 instructions (over MAX_SIZE, under MAX_SIZE_ONE_SITE)
; called once: inlined if it is `local` (static), whose only copy then
; replaces it; not if it is exported, since it stays for callers outside
; the module and the copy would only grow the program (a chain of 20,000
; such functions grew 20x).
; check: func @main(i32) -> i32 {
; nextln: block0(v0: i32):
; nextln: v1 = call @exported(v0)
; not: call @kept
; check: return
func local @kept(i32) -> i32 {
block0(v0: i32):
    v1 = iadd v0, v0
    v2 = iadd v1, v0
    v3 = iadd v2, v0
    v4 = iadd v3, v0
    v5 = iadd v4, v0
    v6 = iadd v5, v0
    v7 = iadd v6, v0
    v8 = iadd v7, v0
    v9 = iadd v8, v0
    v10 = iadd v9, v0
    v11 = iadd v10, v0
    v12 = iadd v11, v0
    v13 = iadd v12, v0
    v14 = iadd v13, v0
    v15 = iadd v14, v0
    v16 = iadd v15, v0
    v17 = iadd v16, v0
    v18 = iadd v17, v0
    v19 = iadd v18, v0
    v20 = iadd v19, v0
    v21 = iadd v20, v0
    v22 = iadd v21, v0
    v23 = iadd v22, v0
    v24 = iadd v23, v0
    v25 = iadd v24, v0
    v26 = iadd v25, v0
    v27 = iadd v26, v0
    v28 = iadd v27, v0
    v29 = iadd v28, v0
    v30 = iadd v29, v0
    v31 = iadd v30, v0
    v32 = iadd v31, v0
    v33 = iadd v32, v0
    v34 = iadd v33, v0
    v35 = iadd v34, v0
    v36 = iadd v35, v0
    v37 = iadd v36, v0
    v38 = iadd v37, v0
    v39 = iadd v38, v0
    v40 = iadd v39, v0
    v41 = iadd v40, v0
    v42 = iadd v41, v0
    v43 = iadd v42, v0
    v44 = iadd v43, v0
    v45 = iadd v44, v0
    return v45
}

func @exported(i32) -> i32 {
block0(v0: i32):
    v1 = iadd v0, v0
    v2 = iadd v1, v0
    v3 = iadd v2, v0
    v4 = iadd v3, v0
    v5 = iadd v4, v0
    v6 = iadd v5, v0
    v7 = iadd v6, v0
    v8 = iadd v7, v0
    v9 = iadd v8, v0
    v10 = iadd v9, v0
    v11 = iadd v10, v0
    v12 = iadd v11, v0
    v13 = iadd v12, v0
    v14 = iadd v13, v0
    v15 = iadd v14, v0
    v16 = iadd v15, v0
    v17 = iadd v16, v0
    v18 = iadd v17, v0
    v19 = iadd v18, v0
    v20 = iadd v19, v0
    v21 = iadd v20, v0
    v22 = iadd v21, v0
    v23 = iadd v22, v0
    v24 = iadd v23, v0
    v25 = iadd v24, v0
    v26 = iadd v25, v0
    v27 = iadd v26, v0
    v28 = iadd v27, v0
    v29 = iadd v28, v0
    v30 = iadd v29, v0
    v31 = iadd v30, v0
    v32 = iadd v31, v0
    v33 = iadd v32, v0
    v34 = iadd v33, v0
    v35 = iadd v34, v0
    v36 = iadd v35, v0
    v37 = iadd v36, v0
    v38 = iadd v37, v0
    v39 = iadd v38, v0
    v40 = iadd v39, v0
    v41 = iadd v40, v0
    v42 = iadd v41, v0
    v43 = iadd v42, v0
    v44 = iadd v43, v0
    v45 = iadd v44, v0
    return v45
}

func @main(i32) -> i32 {
block0(v0: i32):
    v1 = call @exported(v0)
    v2 = call @kept(v1)
    return v2
}
