; test: pass zero-memory
; @empty_tapes is what the reverse of a parallel loop whose iterations
; record nothing leaves: a `calloc`ed array of tapes (pointer, length,
; capacity) whose only stores are zeros and a length copied back unchanged.
; Every load reads zero, the `free`s of the loaded pointer and of a null
; constant go; the array itself, its stores and its `free` are `adce`'s.
; @nonzero stores 1, @escapes passes the address to a call, @from_malloc
; reads memory `malloc` left uninitialized, @stored_address stores the
; address itself: their loads stay.
; check: func @empty_tapes(i64, i64) -> i64 {
; nextln: block0(v0: i64, v1: i64):
; nextln: v2 = iconst.i64 24
; nextln: v3 = calloc v0, v2
; nextln: v4 = imul v1, v2
; nextln: v5 = ptradd v3, v4
; nextln: v6 = iconst.i64 8
; nextln: v7 = ptradd v5, v6
; nextln: v8 = iconst.i64 0
; nextln: store v8, v7
; nextln: v9 = iconst.ptr 0
; nextln: v10 = iconst.ptr 0
; nextln: store v10, v5
; nextln: v11 = iconst.i64 0
; nextln: store v11, v7
; nextln: v12 = ptradd v5, v6
; nextln: v13 = fconst.f64 0.0
; nextln: v14 = fconst.f64 0.0
; nextln: store v14, v12
; nextln: v15 = iconst.i32 0
; nextln: memset v3, v15, v6
; nextln: free v3
; nextln: return v8
; nextln: }
; check: declare @look(ptr)
; check: func @nonzero(i64) -> i64 {
; nextln: block0(v0: i64):
; nextln: v1 = iconst.i64 8
; nextln: v2 = calloc v0, v1
; nextln: v3 = iconst.i64 1
; nextln: store v3, v2
; nextln: v4 = load.i64 v2
; nextln: free v2
; nextln: return v4
; nextln: }
; check: func @escapes(i64) -> i64 {
; nextln: block0(v0: i64):
; nextln: v1 = iconst.i64 8
; nextln: v2 = calloc v0, v1
; nextln: call @look(v2)
; nextln: v3 = load.i64 v2
; nextln: free v2
; nextln: return v3
; nextln: }
; check: func @from_malloc(i64) -> i64 {
; nextln: block0(v0: i64):
; nextln: v1 = malloc v0
; nextln: v2 = load.i64 v1
; nextln: free v1
; nextln: return v2
; nextln: }
; check: func @stored_address(i64, ptr) -> i64 {
; nextln: block0(v0: i64, v1: ptr):
; nextln: v2 = iconst.i64 8
; nextln: v3 = calloc v0, v2
; nextln: store v3, v1
; nextln: v4 = load.i64 v3
; nextln: free v3
; nextln: return v4
; nextln: }
func @empty_tapes(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2 = iconst.i64 24
    v3 = calloc v0, v2
    v4 = imul v1, v2
    v5 = ptradd v3, v4
    v6 = iconst.i64 8
    v7 = ptradd v5, v6
    v8 = load.i64 v7
    store v8, v7
    v9 = load.ptr v5
    free v9
    v10 = iconst.ptr 0
    store v10, v5
    v11 = iconst.i64 0
    store v11, v7
    v12 = ptradd v5, v6
    v13 = load.f64 v12
    v14 = fconst.f64 0.0
    store v14, v12
    v15 = iconst.i32 0
    memset v3, v15, v6
    free v3
    free v10
    return v8
}

declare @look(ptr)

func @nonzero(i64) -> i64 {
block0(v0: i64):
    v1 = iconst.i64 8
    v2 = calloc v0, v1
    v3 = iconst.i64 1
    store v3, v2
    v4 = load.i64 v2
    free v2
    return v4
}

func @escapes(i64) -> i64 {
block0(v0: i64):
    v1 = iconst.i64 8
    v2 = calloc v0, v1
    call @look(v2)
    v3 = load.i64 v2
    free v2
    return v3
}

func @from_malloc(i64) -> i64 {
block0(v0: i64):
    v1 = malloc v0
    v2 = load.i64 v1
    free v1
    return v2
}

func @stored_address(i64, ptr) -> i64 {
block0(v0: i64, v1: ptr):
    v2 = iconst.i64 8
    v3 = calloc v0, v2
    store v3, v1
    v4 = load.i64 v3
    free v3
    return v4
}
