; test: pass mem2reg
; `int s = 0; for (int i = 0; i < n; i++) s += i; return s;` as the front
; end emits it: both slots become parameters of the loop header only (the
; exit and the latch need none: pruned placement).
; check: block0(v0: i32):
; nextln: v4 = iconst.i32 0
; nextln: v5 = iconst.i32 0
; nextln: jump block1(v4, v5)
; check: block1($(s=v\d+): i32, $(i=v\d+): i32):
; nextln: v8 = icmp slt $i, v0
; check: block2:
; nextln: v11 = iadd $s, $i
; nextln: jump block3
; check: block3:
; nextln: v13 = iconst.i32 1
; nextln: v14 = iadd $i, v13
; nextln: jump block1(v11, v14)
; check: block4:
; nextln: return $s
; not: load
func @sum(i32) -> i32 {
block0(v0: i32):
    v1 = alloca 4, align 4
    v2 = alloca 4, align 4
    v3 = alloca 4, align 4
    store v0, v1
    v4 = iconst.i32 0
    store v4, v2
    v5 = iconst.i32 0
    store v5, v3
    jump block1
block1:
    v6 = load.i32 v3
    v7 = load.i32 v1
    v8 = icmp slt v6, v7
    brif v8, block2, block4
block2:
    v9 = load.i32 v2
    v10 = load.i32 v3
    v11 = iadd v9, v10
    store v11, v2
    jump block3
block3:
    v12 = load.i32 v3
    v13 = iconst.i32 1
    v14 = iadd v12, v13
    store v14, v3
    jump block1
block4:
    v15 = load.i32 v2
    return v15
}
