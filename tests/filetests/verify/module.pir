; test: verify
; error: in @has_body: an imported function cannot have a body [module]
; error: in @no_body: a function without a body must have import linkage [module]
; error: in @calls_retired, block0, `v0 = call @retired(v1)`: calls @retired, which was retired [call]
; error: in @calls_retired, block0, `v2 = func_addr @retired`: takes the address of @retired, which was retired [call]
; Module rules: bodies exactly for non-imported functions, except retired
; ones (`local` without a body: names for source positions), which no
; instruction may name.
func import @has_body() {
block0:
    return
}
declare export @no_body()
declare local @retired(i32) -> i32
declare @fine(i32) -> i32

func @calls_retired(i32) -> i32 {
block0(v1: i32):
    v0 = call @retired(v1)
    v2 = func_addr @retired
    return v0
}
