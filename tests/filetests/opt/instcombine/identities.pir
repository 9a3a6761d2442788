; test: pass instcombine
; Integer identities: each result is replaced by an existing value or a
; constant; the replaced instructions are left for dce.
; check: v9 = and v0, v4
; check: v16 = iadd v0, v12
; nextln: v17 = sdiv v16, v3
; nextln: v18 = isub v2, v16
; nextln: v19 = isub v2, v18
; nextln: return v16
; regex: OLD=v(5|6|9|10|13|14|15)\b
; not: $OLD
func @i(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    v4 = iconst.i32 -1
    v5 = iadd v0, v2
    v6 = imul v5, v3
    v7 = isub v6, v6
    v8 = xor v1, v1
    v9 = and v6, v4
    v10 = or v9, v2
    v11 = imul v10, v2
    v12 = or v10, v4
    v13 = iadd v10, v7
    v14 = iadd v13, v8
    v15 = iadd v14, v11
    v16 = iadd v15, v12
    v17 = sdiv v16, v3
    v18 = isub v2, v17
    v19 = isub v2, v18
    return v19
}
