; test: pass critical-sections
; stat: critical-sections.atomic = 1
; Name 7 is one atomic add wherever it is written: its brackets go. Name 5
; is an atomic add in @add but a load and a store in @double_it: every
; section of 5 keeps the lock, the atomic add too, so that it waits for
; a thread inside @double_it's section.
; check: func @add(ptr, f64) {
; nextln: block0(v0: ptr, v1: f64):
; nextln: v2 = iconst.i64 5
; nextln: __parc_critical_begin v2
; nextln: v3 = atomic_add.f64 v0, v1
; nextln: __parc_critical_end v2
; nextln: v4 = iconst.i64 7
; nextln: v5 = atomic_add.f64 v0, v1
; nextln: return
; check: func @double_it(ptr) {
; nextln: block0(v0: ptr):
; nextln: v1 = iconst.i64 5
; nextln: __parc_critical_begin v1
func @add(ptr, f64) {
block0(v0: ptr, v1: f64):
    v2 = iconst.i64 5
    __parc_critical_begin v2
    v3 = atomic_add.f64 v0, v1
    __parc_critical_end v2
    v4 = iconst.i64 7
    __parc_critical_begin v4
    v5 = atomic_add.f64 v0, v1
    __parc_critical_end v4
    return
}

func @double_it(ptr) {
block0(v0: ptr):
    v1 = iconst.i64 5
    __parc_critical_begin v1
    v2 = load.f64 v0
    v3 = fadd v2, v2
    store v3, v0
    __parc_critical_end v1
    return
}
