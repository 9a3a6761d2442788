; test: pass sroa
; struct V { double x, y; } passed and returned by value, as the front end
; lowers it: the argument is copied into a local (v2, from other memory:
; one load and store per field), built in another local (v6) that a third
; (v9) copies (field to field: v9 never names a field itself, it gets
; v6's), and v9 is copied out to the result (other memory again).
; check: block0(v0: ptr, v1: ptr):
; nextln: $(ax=v\d+) = alloca 8, align 8
; nextln: $(ay=v\d+) = alloca 8, align 8
; nextln: v3 = iconst.i64 16
; nextln: $(l0=v\d+) = load.f64 v1
; nextln: store $l0, $ax
; nextln: $(k=v\d+) = iconst.i64 8
; nextln: $(p=v\d+) = ptradd v1, $k
; nextln: $(l1=v\d+) = load.f64 $p
; nextln: store $l1, $ay
; check: v7 = load.f64 $ax
; check: store v8, $(bx=v\d+)
; check: store v12, $(by=v\d+)
; check: $(m0=v\d+) = load.f64 $bx
; nextln: store $m0, $(cx=v\d+)
; nextln: $(m1=v\d+) = load.f64 $by
; nextln: store $m1, $(cy=v\d+)
; nextln: $(n0=v\d+) = load.f64 $cx
; nextln: store $n0, v0
; check: $(n1=v\d+) = load.f64 $cy
; nextln: store $n1,
; nextln: return v0
; not: memcpy
func @twice(ptr, ptr) -> ptr {
block0(v0: ptr, v1: ptr):
    v2 = alloca 16, align 8
    v3 = iconst.i64 16
    memcpy v2, v1, v3
    v4 = iconst.i64 8
    v5 = ptradd v2, v4
    v6 = alloca 16, align 8
    v7 = load.f64 v2
    v8 = fadd v7, v7
    store v8, v6
    v9 = alloca 16, align 8
    v10 = ptradd v6, v4
    v11 = load.f64 v5
    v12 = fadd v11, v11
    store v12, v10
    memcpy v9, v6, v3
    memcpy v0, v9, v3
    return v0
}

; struct S { int a; char c; double d; } copied through a local: the bytes
; no field names (a: 0..4, c at 4, padding 5..8) get integer fields of
; their own (i8 5, i8 6, i8 7; d never accessed becomes i64 8), so that
; every byte is moved.
; check: func @pad(ptr, ptr, i32)
; nextln: block0(v0: ptr, v1: ptr, v2: i32):
; nextln: alloca 4, align 4
; nextln: alloca 1, align 1
; nextln: alloca 1, align 1
; nextln: alloca 1, align 1
; nextln: alloca 1, align 1
; nextln: alloca 8, align 8
; check: load.i32 v1
; check: load.i8
; check: load.i64
; check: store v2,
; check: store
; not: memcpy
func @pad(ptr, ptr, i32) {
block0(v0: ptr, v1: ptr, v2: i32):
    v3 = alloca 16, align 8
    v4 = iconst.i64 16
    memcpy v3, v1, v4
    store v2, v3
    v5 = iconst.i64 4
    v6 = ptradd v3, v5
    v7 = load.i8 v6
    memcpy v0, v3, v4
    return
}
