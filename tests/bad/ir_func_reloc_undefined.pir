; bad: a global's initial image holds the address of a function no line
; defines
global @handlers const size 16 align 8 = zeroinit
    reloc 0 = func_addr @inc
    reloc 8 = func_addr @missing

func local @inc(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 1
    v2 = iadd v0, v1
    return v2
}
