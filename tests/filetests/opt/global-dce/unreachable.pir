; test: pass global-dce
; Reachable: what is exported (@main, @api) and what a reachable function
; calls (@used), launches or takes the address of (@task), a function
; a global's image points to (@in_table), and a gradient request's primal
; (@primal). Retired: a `local` function nothing
; reaches (@unused), one only it calls (@only_from_unused), and a cycle
; nothing outside calls (@ping, @pong).
; check: func local @used(i32) -> i32 {
; check: func local @task(ptr) {
; check: func local @primal(f64) -> f64 {
; check: func local @in_table(i32) -> i32 {
; check: declare local @unused(i32) -> i32
; check: declare local @only_from_unused(i32) -> i32
; check: declare local @ping(i32) -> i32
; check: declare local @pong(i32) -> i32
func local @used(i32) -> i32 {
block0(v0: i32):
    return v0
}

func local @task(ptr) {
block0(v0: ptr):
    return
}

func local @primal(f64) -> f64 {
block0(v0: f64):
    v1 = fmul v0, v0
    return v1
}

func local @in_table(i32) -> i32 {
block0(v0: i32):
    return v0
}

global @table const local size 8 align 8 = zeroinit
    reloc 0 = func_addr @in_table

func local @unused(i32) -> i32 {
block0(v0: i32):
    v1 = call @only_from_unused(v0)
    return v1
}

func local @only_from_unused(i32) -> i32 {
block0(v0: i32):
    return v0
}

func local @ping(i32) -> i32 {
block0(v0: i32):
    v1 = call @pong(v0)
    return v1
}

func local @pong(i32) -> i32 {
block0(v0: i32):
    v1 = call @ping(v0)
    return v1
}

func @api(i32) -> i32 {
block0(v0: i32):
    v1 = call @used(v0)
    return v1
}

func @main() -> i32 {
block0:
    v0 = func_addr @task
    v1 = iconst.i32 0
    return v1
}

declare @primal.grad(f64) -> f64

gradient @primal.grad = @primal(active) local
