; test: pass tail-rec
; exit: 0
; @fib (`iadd`, the call's result second), @up (an increasing measure,
; `imul` with the call's result first) and @walk (void, with effects
; before, between and after its calls, recorded in @log); @main prints
; them for several arguments, the same before the pass and after it.
; Each keeps its first self-call; @fib's new entry starts the
; accumulator at 0, @up's at 1; a second run finds nothing.
; stat: tail-rec.eliminated = 3
; stat: tail-rec.functions = 3
; stat: again.changed = false
; check: func @fib(i32) -> i32 {
; nextln: block3(v9: i32):
; nextln: v10 = iconst.i32 0
; check: call @fib(
; not: call @fib(
; check: func @up(i32) -> i32 {
; nextln: block3(v10: i32):
; nextln: v11 = iconst.i32 1
; check: call @up(
; not: call @up(
; check: func @record(i32) {
; check: func @walk(i32) {
; check: call @walk(
; not: call @walk(
; check: func @main() -> i32 {
global @fmt const size 4 align 1 = "%d\0A\00"
global @log size 4000 align 4 = zeroinit
global @pos size 4 align 4 = zeroinit
func @fib(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 2
    v2 = icmp slt v0, v1
    brif v2, block1, block2
block1:
    return v0
block2:
    v3 = iconst.i32 1
    v4 = isub v0, v3
    v5 = call @fib(v4)
    v6 = isub v0, v1
    v7 = call @fib(v6)
    v8 = iadd v5, v7
    return v8
}
func @up(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 10
    v2 = icmp sge v0, v1
    brif v2, block1, block2
block1:
    return v0
block2:
    v3 = iconst.i32 1
    v4 = iadd v0, v3
    v5 = call @up(v4)
    v6 = iconst.i32 2
    v7 = iadd v6, v0
    v8 = call @up(v7)
    v9 = imul v8, v5
    return v9
}
func @record(i32) {
block0(v0: i32):
    v1 = global_addr @pos
    v2 = load.i32 v1
    v3 = global_addr @log
    v4 = sext.i64 v2
    v5 = iconst.i64 4
    v6 = imul v4, v5
    v7 = ptradd v3, v6
    store v0, v7
    v8 = iconst.i32 1
    v9 = iadd v2, v8
    store v9, v1
    return
}
func @walk(i32) {
block0(v0: i32):
    v1 = iconst.i32 1
    v2 = icmp slt v0, v1
    brif v2, block1, block2
block1:
    return
block2:
    call @record(v0)
    v3 = isub v0, v1
    call @walk(v3)
    v4 = iconst.i32 0
    v5 = isub v4, v0
    call @record(v5)
    v6 = iconst.i32 2
    v7 = isub v0, v6
    call @walk(v7)
    return
}
func @main() -> i32 {
block0:
    v0 = global_addr @fmt
    v1 = iconst.i32 0
    jump block1(v1)
block1(v2: i32):
    v3 = iconst.i32 12
    v4 = icmp slt v2, v3
    brif v4, block2, block3
block2:
    v5 = call @fib(v2)
    v6 = printf v0, v5
    v7 = call @up(v2)
    v8 = printf v0, v7
    v9 = iconst.i32 1
    v10 = iadd v2, v9
    jump block1(v10)
block3:
    call @walk(v3)
    v11 = global_addr @pos
    v12 = load.i32 v11
    v13 = printf v0, v12
    v14 = global_addr @log
    v15 = iconst.i32 0
    jump block4(v15, v15)
block4(v16: i32, v17: i32):
    v18 = icmp slt v16, v12
    brif v18, block5, block6
block5:
    v19 = sext.i64 v16
    v20 = iconst.i64 4
    v21 = imul v19, v20
    v22 = ptradd v14, v21
    v23 = load.i32 v22
    v24 = iconst.i32 1
    v25 = iadd v16, v24
    v26 = imul v23, v25
    v27 = iadd v17, v26
    jump block4(v25, v27)
block6:
    v28 = printf v0, v17
    return v1
}
