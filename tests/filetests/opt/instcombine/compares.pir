; test: pass instcombine
; `if (a < b)` in C compares an int-valued comparison with zero again:
; `icmp ne (zext c), 0` is c, `icmp eq (zext c), 0` is the inverted
; compare (for an fcmp eq/ne, the other one: exact with NaN), and for any
; other i1 its xor with 1. A constant on the left of an icmp moves right.
; check: v8 = icmp sge v0, v1
; check: v11 = fcmp ne v2, v2
; check: $(one=v\d+) = iconst.i1 1
; nextln: v13 = xor v3, $one
; nextln: v14 = icmp slt v0, v6
; nextln: v15 = and v4, v8
; nextln: v16 = and v15, v11
func @c(i32, i32, f64, i1) -> i1 {
block0(v0: i32, v1: i32, v2: f64, v3: i1):
    v4 = icmp slt v0, v1
    v5 = zext.i32 v4
    v6 = iconst.i32 0
    v7 = icmp ne v5, v6
    v8 = icmp eq v5, v6
    v9 = fcmp eq v2, v2
    v10 = zext.i32 v9
    v11 = icmp eq v10, v6
    v12 = sext.i32 v3
    v13 = icmp eq v12, v6
    v14 = icmp sgt v6, v0
    v15 = and v7, v8
    v16 = and v15, v11
    v17 = and v16, v13
    v18 = and v17, v14
    return v18
}
