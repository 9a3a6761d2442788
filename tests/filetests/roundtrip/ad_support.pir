; test: roundtrip
; What the AD needs of parir: `realloc` (growable tapes), `worker_id` and
; `num_workers` (per-worker partial sums), and gradient requests, which
; print after every function (so they may name functions defined later)
; with their activities, the linkage the gradient gets, and the position
; of the `__enzyme_autodiff` call.
func @f(ptr, f64, i32) -> f64 {
block0(v0: ptr, v1: f64, v2: i32):
    v3 = iconst.i64 64
    v4 = malloc v3
    v5 = iconst.i64 128
    v6 = realloc v4, v5 @4:5
    free v6
    v7 = worker_id
    v8 = num_workers
    return v1
}
declare @f.grad(ptr, ptr, f64, i32) -> f64
declare @grad_f(ptr, ptr, f64, i32) -> f64
declare @f.grad.2(ptr, ptr, f64, i32)
declare @g.grad()

func @g() {
block0:
    return
}

gradient @f.grad = @f(dup, active, const) local @12:5
gradient @grad_f = @f(dup, active, const) export
gradient @f.grad.2 = @f(dupnoneed, const, const) local @20:1
gradient @g.grad = @g() local
