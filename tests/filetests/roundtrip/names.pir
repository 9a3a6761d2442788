; test: roundtrip
; Quoted names, escapes in initial bytes, and every linkage and kind.
global @"with space" const size 5 align 1 = "a\22\5C\FF\00"
global @"1starts_with_digit" size 8 align 8 = zeroinit
    reloc 0 = @"with space" + 3
global @plain.name$x size 1 align 1 = "\0A"
declare @"ext fn"()
declare export kernel @k_decl(ptr)
declare local device @d_decl() -> f32
func local device @d() -> f32 {
block0:
    v0 = fconst.f32 2.5
    return v0
}
func import host @imp() {
block0:
    call @"ext fn"()
    return
}
