; test: pass internalize
; In a whole program every exported function with a body but `main`
; becomes `local`; `main`, kernels and declarations keep their linkage.
; check: func local @helper(i32) -> i32 {
; check: func @main() -> i32 {
; check: func kernel @k(ptr) {
; check: declare @ext(i32) -> i32
func @helper(i32) -> i32 {
block0(v0: i32):
    v1 = call @ext(v0)
    return v1
}

func @main() -> i32 {
block0:
    v0 = iconst.i32 1
    v1 = call @helper(v0)
    return v1
}

func kernel @k(ptr) {
block0(v0: ptr):
    return
}

declare @ext(i32) -> i32
