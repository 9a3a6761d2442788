; bad: a function address stored past the end of its global
global @op size 4 align 8 = zeroinit
    reloc 0 = func_addr @inc

func local @inc(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 1
    v2 = iadd v0, v1
    return v2
}
