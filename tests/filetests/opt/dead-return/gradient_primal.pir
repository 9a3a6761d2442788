; test: pass dead-return
; @cube's only call drops its result, but @cube is the primal of a gradient
; request: the AD (run after the optimizer) differentiates what it
; returns, so the return stays. Zeroing it made `__enzyme_autodiff`'s
; gradient 0 at -O2 (tests/grad/unused_primal_result.pc).
; check: func local @cube(f64) -> f64 {
; nextln: block0(v0: f64):
; nextln: v1 = fmul v0, v0
; nextln: v2 = fmul v1, v0
; nextln: return v2
func local @cube(f64) -> f64 {
block0(v0: f64):
    v1 = fmul v0, v0
    v2 = fmul v1, v0
    return v2
}

declare @cube.grad(f64) -> f64

gradient @cube.grad = @cube(active) local

func @main() -> i32 {
block0:
    v0 = fconst.f64 2.0
    v1 = call @cube(v0)
    v2 = call @cube.grad(v0)
    v3 = iconst.i32 0
    return v3
}
