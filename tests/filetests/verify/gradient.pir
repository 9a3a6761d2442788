; test: verify
; error: gradient request 1: the gradient's signature is (ptr, f64) -> f64, but @f under these activities gives (ptr, ptr, f64) -> f64 [gradient]
; error: gradient request 2: activities do not fit: parameter 1 of type f64 cannot be Dup [gradient]
; error: gradient request 3: the gradient must be a declaration (`import`) until the AD runs [gradient]
; error: gradient request 4: cannot differentiate `ext`: its body is not in this program [gradient]
; error: gradient request 5: request 0 already asks for this gradient [gradient]
; error: gradient request 6: the gradient's linkage must be `export` or `local` [gradient]
; error: gradient request 7: activities do not fit: 1 activities for 2 parameters [gradient]
; error: gradient request 8: cannot differentiate `h` with 2 active scalar parameters (1, 2); at most one is supported [gradient]
; Gradient requests: the gradient is a declaration with exactly the
; gradient signature of the primal under the activities (request 0 is
; well formed; every other one breaks one rule).
func @f(ptr, f64) -> f64 {
block0(v0: ptr, v1: f64):
    return v1
}
func @h(f64, f64) -> f64 {
block0(v0: f64, v1: f64):
    return v1
}
declare @ext(f64) -> f64
declare @f.grad(ptr, ptr, f64) -> f64
declare @bad_sig(ptr, f64) -> f64
declare @bad_act(ptr, ptr, ptr, ptr)
func @defined(ptr, ptr, f64) -> f64 {
block0(v0: ptr, v1: ptr, v2: f64):
    return v2
}
declare @ext.grad(f64) -> f64
declare @imp(ptr, ptr, f64) -> f64
declare @short(ptr, ptr)
declare @h.grad(f64, f64)

gradient @f.grad = @f(dup, active) local @3:9
gradient @bad_sig = @f(dup, active) local
gradient @bad_act = @f(dup, dup) local
gradient @defined = @f(dup, active) export
gradient @ext.grad = @ext(active) local
gradient @f.grad = @f(dup, active) local
gradient @imp = @f(dup, active) import
gradient @short = @f(dup) local
gradient @h.grad = @h(active, active) local
