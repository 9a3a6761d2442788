; test: pass infer-noalias
; A parameter becomes `noalias` where every call passes it a private
; object of the caller that no other argument points into: @fill's second
; (the `alloca` v1, apart from v0 and v0 + 8) and @heap's first (a fresh
; `malloc`, apart from a parameter of the caller). Not: @fill's first and
; third (one object), @heap's second (the caller's parameter), @global's
; (a global, which it may name itself), @escaped's (the `alloca` is stored
; to memory: a loaded pointer may reach it), @taken (its address is taken:
; calls through the pointer are not seen), @shared (not `static`).
; stat: infer-noalias.params = 2
; check: func local @fill(ptr, ptr noalias, ptr) {
; check: func local @heap(ptr noalias, ptr) {
; check: func local @global(ptr) {
; check: func local @escaped(ptr) {
; check: func local @taken(ptr) {
; check: func @shared(ptr) {
global @g size 8 align 8 = zeroinit

func local @fill(ptr, ptr, ptr) {
block0(v0: ptr, v1: ptr, v2: ptr):
    v3 = load.f64 v1
    store v3, v0
    store v3, v2
    return
}

func local @heap(ptr, ptr) {
block0(v0: ptr, v1: ptr):
    v2 = load.f64 v1
    store v2, v0
    return
}

func local @global(ptr) {
block0(v0: ptr):
    v1 = fconst.f64 1.0
    store v1, v0
    return
}

func local @escaped(ptr) {
block0(v0: ptr):
    v1 = fconst.f64 1.0
    store v1, v0
    return
}

func local @taken(ptr) {
block0(v0: ptr):
    v1 = fconst.f64 1.0
    store v1, v0
    return
}

func @shared(ptr) {
block0(v0: ptr):
    v1 = fconst.f64 1.0
    store v1, v0
    return
}

func @user(ptr) -> ptr {
block0(v0: ptr):
    v1 = alloca 16, align 8
    v2 = alloca 8, align 8
    v3 = iconst.i64 8
    v4 = ptradd v1, v3
    call @fill(v1, v2, v4)
    v5 = iconst.i64 64
    v6 = malloc v5
    call @heap(v6, v0)
    v7 = global_addr @g
    call @global(v7)
    v8 = alloca 8, align 8
    store v8, v7
    call @escaped(v8)
    v9 = func_addr @taken
    v10 = alloca 8, align 8
    call @taken(v10)
    v11 = alloca 8, align 8
    call @shared(v11)
    return v9
}
