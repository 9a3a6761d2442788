; test: pass sccp
; Loads of `const` globals read their initial images: the 2^63 of
; XSBench's LCG (@m, v1), an `int` at a constant offset into a table
; (@nums[2] = 3, v4), a float (@half[1] = 0.5, v7), a byte past the
; initial bytes (zero, v10), and an offset that is constant only through
; a loop parameter (block1's v12 is always 4, so v14 reads @nums[1] = 2
; and the loop's test folds). Not folded: a global
; that is not `const` (v16), an imported one (v18), a pointer (v20, a
; relocation), a read past the end (v22) and one straddling a relocation
; (v24).
; check: global @m const size 8 align 8 = "\00\00\00\00\00\00\00\80"
; nextln: global @nums const size 16 align 4 = "\01\00\00\00\02\00\00\00\03\00\00\00\04"
; nextln: global @half const size 16 align 8 = "\00\00\00\00\00\00\F0?\00\00\00\00\00\00\E0?"
; nextln: global @short const size 8 align 1 = "ab"
; nextln: global @var size 4 align 4 = "\07"
; nextln: global @ext import size 4 align 4
; nextln: global @ptrs const size 16 align 8 = zeroinit
; nextln: reloc 8 = @nums + 0
; check: func @f() -> i64 {
; nextln: block0:
; nextln: v0 = global_addr @m
; nextln: v1 = iconst.i64 -9223372036854775808
; nextln: v2 = global_addr @nums
; nextln: v3 = iconst.i64 8
; nextln: v30 = ptradd v2, v3
; nextln: v4 = iconst.i32 3
; nextln: v5 = global_addr @half
; nextln: v6 = ptradd v5, v3
; nextln: v7 = fconst.f64 0.5
; nextln: v8 = global_addr @short
; nextln: v9 = ptradd v8, v3
; nextln: v31 = iconst.i64 5
; nextln: v32 = ptradd v8, v31
; nextln: v10 = iconst.i8 0
; nextln: v11 = iconst.i64 4
; nextln: v38 = iconst.i64 4
; nextln: jump block1
; nextln: block1:
; nextln: v13 = ptradd v2, v38
; nextln: v14 = iconst.i32 2
; nextln: v15 = global_addr @var
; nextln: v16 = load.i32 v15
; nextln: v17 = global_addr @ext
; nextln: v18 = load.i32 v17
; nextln: v19 = global_addr @ptrs
; nextln: v33 = ptradd v19, v3
; nextln: v20 = load.ptr v33
; nextln: v34 = iconst.i64 14
; nextln: v21 = ptradd v2, v34
; nextln: v22 = load.i32 v21
; nextln: v35 = iconst.i64 6
; nextln: v23 = ptradd v19, v35
; nextln: v24 = load.i32 v23
; nextln: v27 = iconst.i1 0
; nextln: v28 = iconst.i1 1
; nextln: jump block2
; nextln: block2:
; nextln: v36 = iconst.i64 0
; nextln: v37 = iconst.i64 -9223372036854775808
; nextln: return v37
; nextln: }
global @m const size 8 align 8 = "\00\00\00\00\00\00\00\80"
global @nums const size 16 align 4 = "\01\00\00\00\02\00\00\00\03\00\00\00\04"
global @half const size 16 align 8 = "\00\00\00\00\00\00\F0\3F\00\00\00\00\00\00\E0\3F"
global @short const size 8 align 1 = "ab"
global @var size 4 align 4 = "\07"
global @ext import size 4 align 4
global @ptrs const size 16 align 8 = zeroinit
    reloc 8 = @nums + 0

func @f() -> i64 {
block0:
    v0 = global_addr @m
    v1 = load.i64 v0
    v2 = global_addr @nums
    v3 = iconst.i64 8
    v30 = ptradd v2, v3
    v4 = load.i32 v30
    v5 = global_addr @half
    v6 = ptradd v5, v3
    v7 = load.f64 v6
    v8 = global_addr @short
    v9 = ptradd v8, v3
    v31 = iconst.i64 5
    v32 = ptradd v8, v31
    v10 = load.i8 v32
    v11 = iconst.i64 4
    jump block1(v11)
block1(v12: i64):
    v13 = ptradd v2, v12
    v14 = load.i32 v13
    v15 = global_addr @var
    v16 = load.i32 v15
    v17 = global_addr @ext
    v18 = load.i32 v17
    v19 = global_addr @ptrs
    v33 = ptradd v19, v3
    v20 = load.ptr v33
    v34 = iconst.i64 14
    v21 = ptradd v2, v34
    v22 = load.i32 v21
    v35 = iconst.i64 6
    v23 = ptradd v19, v35
    v24 = load.i32 v23
    v27 = icmp eq v14, v4
    v28 = iconst.i1 1
    brif v27, block1(v11), block2
block2:
    v36 = sext.i64 v10
    v37 = iadd v1, v36
    return v37
}
