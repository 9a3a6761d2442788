; test: pass instcombine
; C's `i > 0 && i < n - 1` as an `int` (`select c, (zext d), 0`), tested
; again and turned back into an `i1` by the AD's recomputation
; (`select t, 1, 0`, then `== 0`): the `select` of 1 and 0 becomes a `zext`,
; which the comparison rules fold into the test of `v7`. On `i1`s, a
; `select` with a `false` else-arm is an `and`, with a `true` then-arm an
; `or`.
; check: func @cond(i32, i32) -> i32 {
; nextln: block0(v0: i32, v1: i32):
; nextln: v2 = iconst.i32 0
; nextln: v3 = iconst.i32 1
; nextln: v4 = icmp sgt v0, v2
; nextln: v5 = icmp slt v0, v1
; nextln: v6 = zext.i32 v5
; nextln: v7 = select v4, v6, v2
; nextln: v8 = icmp ne v7, v2
; nextln: v9 = zext.i32 v8
; nextln: v10 = icmp eq v7, v2
; nextln: brif v10, block1, block2
; nextln: block1:
; nextln: return v2
; nextln: block2:
; nextln: return v3
; nextln: }
; check: func @bools(i1, i1) -> i1 {
; nextln: block0(v0: i1, v1: i1):
; nextln: v2 = iconst.i1 0
; nextln: v3 = iconst.i1 1
; nextln: v4 = and v0, v1
; nextln: v5 = or v0, v1
; nextln: v6 = xor v4, v5
; nextln: return v6
; nextln: }
func @cond(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    v2 = iconst.i32 0
    v3 = iconst.i32 1
    v4 = icmp sgt v0, v2
    v5 = icmp slt v0, v1
    v6 = zext.i32 v5
    v7 = select v4, v6, v2
    v8 = icmp ne v7, v2
    v9 = select v8, v3, v2
    v10 = icmp eq v9, v2
    brif v10, block1, block2
block1:
    return v2
block2:
    return v3
}

func @bools(i1, i1) -> i1 {
block0(v0: i1, v1: i1):
    v2 = iconst.i1 0
    v3 = iconst.i1 1
    v4 = select v0, v1, v2
    v5 = select v0, v3, v1
    v6 = xor v4, v5
    return v6
}
