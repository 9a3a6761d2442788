; test: pass dead-return
; @sum is a spawn tree whose total nobody outside uses: @driver drops it,
; and @sum's own uses of its calls' results (one through the private slot
; v3 that carries the spawned call's result past the sync) only feed its
; return. Its returns become zero; what computed them is dead code for
; adce and dce. @kept's result is returned by an exported function, and
; @stored's is stored through a pointer: both stay.
; check: func local @sum(ptr, i64) -> f64 {
; check: block2:
; nextln: v6 = call @sum(v0, v2)
; nextln: store v6, v3
; nextln: reattach within sr0, block3
; check: v11 = fconst.f64 0.0
; nextln: return v11
; check: v12 = fconst.f64 0.0
; nextln: return v12
; check: func local @kept(f64) -> f64 {
; nextln: block0(v0: f64):
; nextln: v1 = fmul v0, v0
; nextln: return v1
; check: func local @stored(f64) -> f64 {
; nextln: block0(v0: f64):
; nextln: v1 = fadd v0, v0
; nextln: return v1
func local @sum(ptr, i64) -> f64 {
block0(v0: ptr, v1: i64):
    v2 = iconst.i64 1
    v3 = alloca 8, align 8
    v4 = icmp sgt v1, v2
    brif v4, block1, block5
block1:
    v5 = isub v1, v2
    detach within sr0, block2, block3
block2:
    v6 = call @sum(v0, v2)
    store v6, v3
    reattach within sr0, block3
block3:
    v7 = call @sum(v0, v5)
    sync within sr0, block4
block4:
    v8 = load.f64 v3
    v9 = fadd v8, v7
    return v9
block5:
    v10 = load.f64 v0
    return v10
}

func @driver(ptr, i64) {
block0(v0: ptr, v1: i64):
    v2 = call @sum(v0, v1)
    return
}

func local @kept(f64) -> f64 {
block0(v0: f64):
    v1 = fmul v0, v0
    return v1
}

func @user(f64) -> f64 {
block0(v0: f64):
    v1 = call @kept(v0)
    return v1
}

func local @stored(f64) -> f64 {
block0(v0: f64):
    v1 = fadd v0, v0
    return v1
}

func @store_it(ptr, f64) {
block0(v0: ptr, v1: f64):
    v2 = call @stored(v1)
    store v2, v0
    return
}
