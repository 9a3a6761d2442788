; test: pass sroa
; struct { int a; double b; } s = {0}; s.a = x; s.b = y; return s.a + (int)s.b;
; The zero-initializing memset becomes a zero store per field, each field
; gets its own slot (at the original's position, with its source position),
; and loads and stores address the fields directly.
; check: block0(v0: i32, v1: f64):
; nextln: $(a=v\d+) = alloca 4, align 4 @1:5
; nextln: $(b=v\d+) = alloca 8, align 8 @1:5
; not: memset
; check: $(z=v\d+) = iconst.i32 0 @1:5
; nextln: store $z, $a @1:5
; nextln: $(zf=v\d+) = fconst.f64 0.0 @1:5
; nextln: store $zf, $b @1:5
; nextln: store v0, $a
; check: store v1, $b
; nextln: v7 = load.i32 $a
; nextln: v9 = load.f64 $b
; not: ptradd
func @s(i32, f64) -> i32 {
block0(v0: i32, v1: f64):
    v2 = alloca 16, align 8 @1:5
    v3 = iconst.i32 0
    v4 = iconst.i64 16
    memset v2, v3, v4 @1:5
    store v0, v2
    v5 = iconst.i64 8
    v6 = ptradd v2, v5
    store v1, v6
    v7 = load.i32 v2
    v8 = ptradd v2, v5
    v9 = load.f64 v8
    v10 = fptosi.i32 v9
    v11 = iadd v7, v10
    return v11
}
