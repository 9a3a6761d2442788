; test: pass licm
; stat: licm.parallel = 0
; A parallel loop whose iterations update the local `best` under an
; OpenMP lock (`if (x > best) best = x;` between omp_set_lock and
; omp_unset_lock). The alloca's address is never taken, but tasks write
; it: it is shared, and the lock's calls (any memory) may make another
; iteration's write visible. The load after omp_set_lock is not a read of
; the value before the loop, so it stays in the task (hoisted, every
; iteration would compare with -1.0 and the last one would win).
; check: block3:
; nextln: omp_set_lock v0
; nextln: v9 = load.f64 v4
; nextln: v10 = fcmp gt v1, v9
func @best(ptr, f64, i32) -> f64 {
block0(v0: ptr, v1: f64, v2: i32):
    v3 = iconst.i32 0
    v4 = alloca 8, align 8
    v5 = fconst.f64 -1.0
    store v5, v4
    v6 = iconst.i32 1
    jump block1(v3)
block1(v7: i32):
    v8 = icmp slt v7, v2
    brif v8, block2, block6
block2:
    detach within sr0, block3, block5
block3:
    omp_set_lock v0
    v9 = load.f64 v4
    v10 = fcmp gt v1, v9
    brif v10, block4, block7
block4:
    store v1, v4
    jump block7
block7:
    omp_unset_lock v0
    reattach within sr0, block5
block5:
    v11 = iadd v7, v6
    jump block1(v11)
block6:
    sync within sr0, block8
block8:
    v12 = load.f64 v4
    return v12
}
