; test: pass inline
; A small callee with two returns and a local is inlined: its entry
; parameters become the call's arguments, each `return v` a jump to the
; continuation block passing `v`, which replaces the call's result; the
; callee's alloca joins the caller's allocas at the top of its entry block;
; source positions come along. The callee itself stays (it is exported).
; The caller is then cleaned (simplify-cfg, instcombine, dce), as every
; function that received a body is before its own callers' turn.
; check: func @clamp0(i32) -> i32 {
; nextln: block0(v0: i32):
; nextln: v1 = alloca 4, align 4 @2:5
; nextln: store v0, v1 @2:5
; nextln: v2 = iconst.i32 0
; nextln: v3 = icmp slt v0, v2 @3:9
; nextln: brif v3, block1, block2
; nextln: block1:
; nextln: return v2 @3:16
; nextln: block2:
; nextln: v4 = load.i32 v1 @4:12
; nextln: return v4 @4:5
; nextln: }
; check: func @main() -> i32 {
; nextln: block0:
; nextln: v0 = alloca 4, align 4
; nextln: v5 = alloca 4, align 4 @2:5
; nextln: v1 = iconst.i32 -3
; nextln: store v1, v0
; nextln: v2 = load.i32 v0
; nextln: store v2, v5 @2:5
; nextln: v6 = iconst.i32 0
; nextln: v7 = icmp slt v2, v6 @3:9
; nextln: brif v7, block1(v6), block4
; nextln: block4:
; nextln: v8 = load.i32 v5 @4:12
; nextln: jump block1(v8) @4:5
; nextln: block1(v9: i32):
; nextln: v4 = iadd v9, v9
; nextln: return v4
; nextln: }
func @clamp0(i32) -> i32 {
block0(v0: i32):
    v1 = alloca 4, align 4 @2:5
    store v0, v1 @2:5
    v2 = iconst.i32 0
    v3 = icmp slt v0, v2 @3:9
    brif v3, block1, block2
block1:
    return v2 @3:16
block2:
    v4 = load.i32 v1 @4:12
    return v4 @4:5
}
func @main() -> i32 {
block0:
    v0 = alloca 4, align 4
    v1 = iconst.i32 -3
    store v1, v0
    v2 = load.i32 v0
    v3 = call @clamp0(v2) @9:13
    v4 = iadd v3, v3
    return v4
}
