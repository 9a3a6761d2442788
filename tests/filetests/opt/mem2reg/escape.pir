; test: pass mem2reg
; Slots that are not promoted: an address passed to a call, an address
; stored as a value, an address offset by ptradd, and a slot read with
; another type than it is written with. An unused slot is just removed, and
; so is v3, which is only ever written (with v2's address: v2 itself stays,
; since it escaped when the pass looked).
; check: v1 = alloca 4, align 4
; nextln: v2 = alloca 8, align 8
; nextln: v4 = alloca 8, align 8
; nextln: v5 = alloca 4, align 4
; not: v6 = alloca
; check: store v0, v1
; nextln: call @use(v1)
; nextln: v7 = iconst.i64 4
; check: store v0, v8
; nextln: store v0, v5
; nextln: v9 = load.f32 v5
; nextln: v10 = load.i32 v1
; nextln: return v10
declare @use(ptr)
func @e(i32) -> i32 {
block0(v0: i32):
    v1 = alloca 4, align 4
    v2 = alloca 8, align 8
    v3 = alloca 8, align 8
    v4 = alloca 8, align 8
    v5 = alloca 4, align 4
    v6 = alloca 16, align 8
    store v0, v1
    call @use(v1)
    store v2, v3
    v7 = iconst.i64 4
    v8 = ptradd v4, v7
    store v0, v8
    store v0, v5
    v9 = load.f32 v5
    v10 = load.i32 v1
    return v10
}
