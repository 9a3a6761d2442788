; test: pass vectorize
; Interleaving (vectorize/cost.rs): the vector loop runs two copies of
; its body per iteration.
; @sum: `s += a[i]` over i64: each copy has its own accumulator (the
; header's two i64x2 parameters, each from the identity, 0), the second
; copy loads 16 bytes further on, the counter steps by 4, and the exit
; adds the two accumulators lane by lane before adding the lanes up.
; @short: `b[i] = a[i] + a[i]` over nine elements (a constant trip
; count): vectorized (one f64x2 load in the vector body), but not
; interleaved: its remainder would run two iterations more than the plain
; vector loop's on average, which the interleaved loop's saving (one
; test and one counter step per four iterations) pays for only from ten
; iterations on.
; stat: vectorize.loops = 2
; check: func @sum(ptr, i64) -> i64 {
; check: $(vpre=block\d+):
; check: $(zero=v\d+) = iconst.i64 0
; nextln: $(start=v\d+) = splat.i64x2 $zero
; check: jump $(vh=block\d+)($start, $(i0=v\d+), $start)
; check: $vh($(acc0=v\d+): i64x2, $(i=v\d+): i64, $(acc1=v\d+): i64x2):
; check: $(p0=v\d+) = ptradd v0, $(off=v\d+)
; nextln: $(x0=v\d+) = load.i64x2 $p0
; nextln: $(s0=v\d+) = iadd $acc0, $x0
; nextln: $(n16=v\d+) = iconst.i64 16
; nextln: $(p1=v\d+) = ptradd $p0, $n16
; nextln: $(x1=v\d+) = load.i64x2 $p1
; nextln: $(s1=v\d+) = iadd $acc1, $x1
; nextln: $(four=v\d+) = iconst.i64 4
; nextln: $(next=v\d+) = iadd $i, $four
; nextln: jump $vh($s0, $next, $s1)
; check: $(both=v\d+) = iadd $acc0, $acc1
; nextln: $(lanes=v\d+) = reduce_iadd $both
; check: func @short(ptr, ptr) {
; check: load.f64x2
; not: load.f64x2
; check: return
func @sum(ptr, i64) -> i64 {
block0(v0: ptr, v1: i64):
    v2 = iconst.i64 0
    v3 = iconst.i64 3
    jump block1(v2, v2)
block1(v10: i64, v11: i64):
    v12 = icmp slt v11, v1
    brif v12, block2, block3
block2:
    v13 = shl v11, v3
    v14 = ptradd v0, v13
    v15 = load.i64 v14
    v16 = iadd v10, v15
    v17 = iconst.i64 1
    v18 = iadd v11, v17
    jump block1(v16, v18)
block3:
    return v10
}

func @short(ptr, ptr) {
block0(v0: ptr, v1: ptr):
    v2 = iconst.i64 0
    v3 = iconst.i64 3
    v4 = iconst.i64 9
    jump block1(v2)
block1(v11: i64):
    v12 = icmp slt v11, v4
    brif v12, block2, block3
block2:
    v13 = shl v11, v3
    v14 = ptradd v0, v13
    v15 = load.f64 v14
    v16 = ptradd v1, v13
    v17 = fadd v15, v15
    store v17, v16
    v18 = iconst.i64 1
    v19 = iadd v11, v18
    jump block1(v19)
block3:
    return
}
