; test: verify
; error: in @has_body: an imported function cannot have a body [module]
; error: in @no_body: a function without a body must have import linkage [module]
; error: in @no_body_either: a function without a body must have import linkage [module]
; Module rules: bodies exactly for non-imported functions.
func import @has_body() {
block0:
    return
}
declare export @no_body()
declare local @no_body_either(i32)
declare @fine(i32) -> i32
