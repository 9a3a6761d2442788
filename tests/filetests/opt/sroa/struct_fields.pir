; test: pass sroa
; check: func @s(i32, f64) -> i32 {
; nextln: block0(v0: i32, v1: f64):
; nextln: v12 = alloca 4, align 4 @1:5
; nextln: v13 = alloca 8, align 8 @1:5
; nextln: v3 = iconst.i32 0
; nextln: v4 = iconst.i64 16
; nextln: v14 = iconst.i32 0 @1:5
; nextln: store v14, v12 @1:5
; nextln: v15 = fconst.f64 0.0 @1:5
; nextln: store v15, v13 @1:5
; nextln: store v0, v12
; nextln: v5 = iconst.i64 8
; nextln: store v1, v13
; nextln: v7 = load.i32 v12
; nextln: v9 = load.f64 v13
; nextln: v10 = fptosi.i32 v9
; nextln: v11 = iadd v7, v10
; nextln: return v11
; nextln: }
; struct { int a; double b; } s = {0}; s.a = x; s.b = y; return s.a + (int)s.b;
; The zero-initializing memset becomes a zero store per field, each field
; gets its own slot (at the original's position, with its source position),
; and loads and stores address the fields directly.
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
