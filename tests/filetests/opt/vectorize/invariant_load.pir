; test: pass vectorize
; `for (j = 0; j < n; j++) c[j] = c[j] + *a * b[j];` on plain pointers
; (gemm's row update, `*a` its `A[i][k]`): `*a` is the same element in
; every iteration but the store to c may change it, so the run-time test
; also checks that the bytes of c the vector loop stores to (up to
; `c_end`) miss the 8 bytes of `*a`; then `*a` is loaded once, before the
; vector loop, and splatted there; the vector body does not load it, and
; the original loop (the remainder) still loads it in every iteration.
; check: $(tests=block\d+):
; nextln: $(n8=v\d+) = iconst.i64 8
; nextln: $(span=v\d+) = imul $(nv=v\d+), $n8
; check: $(c_end=v\d+) = ptradd $(c=v\d+), $span
; nextln: $(eight=v\d+) = iconst.i64 8
; nextln: $(a_end=v\d+) = ptradd v1, $eight
; nextln: $(before=v\d+) = icmp ule $c_end, v1
; nextln: $(after=v\d+) = icmp ule $a_end, $c
; nextln: $(apart=v\d+) = or $before, $after
; check: brif $(ok=v\d+), $(vpre=block\d+), $(rem=block\d+)
; check: $vpre:
; check: $(a=v\d+) = load.f64 v1
; nextln: $(splat=v\d+) = splat.f64x2 $a
; check: jump $(vh=block\d+)
; check: $vh($(j=v\d+): i64):
; not: load.f64 v1
; check: fmul $splat, $(bj=v\d+)
; not: load.f64 v1
; check: jump $vh
; check: $rem($(j0=v\d+): i64):
; check: load.f64 v1
; check: return
func @row(ptr, ptr, ptr, i32) {
block0(v0: ptr, v1: ptr, v2: ptr, v3: i32):
    v45 = iconst.i64 3
    v48 = iconst.i64 0
    v52 = sext.i64 v3
    jump block1(v48)
block1(v49: i64):
    v12 = icmp slt v49, v52
    brif v12, block2, block4
block2:
    v17 = shl v49, v45
    v18 = ptradd v0, v17
    v25 = load.f64 v18
    v30 = load.f64 v1
    v32 = ptradd v2, v17
    v33 = load.f64 v32
    v34 = fmul v30, v33
    v35 = fadd v25, v34
    store v35, v18
    v50 = iconst.i64 1
    v51 = iadd v49, v50
    jump block1(v51)
block4:
    return
}
