; test: print
; The printer's canonical form: comments and blank lines dropped, type
; suffixes written only where the reader cannot infer them, default linkage
; and kind omitted, `""` printed as zeroinit, hex and `+` immediates as
; signed decimal.
; check: global @g size 4 align 4 = zeroinit
; check: declare @ext(i32) -> i32
; check: func @f(i32) -> i32 {
; nextln: block0(v0: i32):
; nextln: v1 = iconst.i32 -1
; nextln: v2 = iadd v0, v1
; nextln: v3 = icmp slt v2, v0
; nextln: v4 = call @ext(v2)
; nextln: v5 = select v3, v4, v2
; nextln: v6 = malloc v7
; nextln: v7 = sext.i64 v5
; nextln: v8 = iadd v7, v7
; nextln: v9 = iadd.i64 v10, v7
; nextln: v10 = iconst.i64 3
; nextln: return v5 @4:2
; nextln: }
global @g size 4 align 4 = ""

declare import host @ext(i32) -> i32
func export host @f(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 0xFFFFFFFFFFFFFFFF
    v2 = iadd.i32 v0, v1      ; suffix given, but implied
    v3 = icmp.i1 slt v2, v0
    v4 = call.i32 @ext(v2)
    v5 = select.i32 v3, v4, v2
    v6 = malloc.ptr v7
    v7 = sext.i64 v5
    v8 = iadd.i64 v7, v7
    v9 = iadd.i64 v10, v7     ; v10 is not defined yet: the suffix stays
    v10 = iconst.i64 3
    return v5 @4:2
}
