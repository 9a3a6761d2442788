; A const table of function addresses (`reloc OFFSET = func_addr @f`) and
; a global function pointer, called through: 3 -> inc 4 -> dbl 8 -> inc 9,
; then `op` (dbl) gives 18.
global @table const local size 24 align 8 = zeroinit
    reloc 0 = func_addr @inc
    reloc 8 = func_addr @dbl
    reloc 16 = func_addr @inc
global @op size 8 align 8 = zeroinit
    reloc 0 = func_addr @dbl
global @.fmt const size 4 align 1 = "%d\0A\00"

func local @inc(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 1
    v2 = iadd v0, v1
    return v2
}

func local @dbl(i32) -> i32 {
block0(v0: i32):
    v1 = iadd v0, v0
    return v1
}

func export @main() -> i32 {
block0:
    v0 = global_addr @table
    v1 = iconst.i32 3
    v2 = load.ptr v0
    v3 = call_indirect.i32 v2(v1)
    v4 = iconst.i64 8
    v5 = ptradd v0, v4
    v6 = load.ptr v5
    v7 = call_indirect.i32 v6(v3)
    v8 = iconst.i64 16
    v9 = ptradd v0, v8
    v10 = load.ptr v9
    v11 = call_indirect.i32 v10(v7)
    v12 = global_addr @op
    v13 = load.ptr v12
    v14 = call_indirect.i32 v13(v11)
    v15 = global_addr @.fmt
    v16 = printf v15, v14
    v17 = iconst.i32 0
    return v17
}
