; test: pass tail-rec
; Refused (`tail-rec.refused.convergent`): @fib's shape is eliminated in
; fib.pir, but this @fib waits at a barrier, so its self-calls are
; convergent: threads of a block meet at the barrier only through the same
; calls, and as a loop the barrier of each depth would be one.
; check: func device convergent @fib(i32) -> i32 {
; check: v17 = call @fib(v16)
; nextln: v20 = iadd v13, v17
; nextln: return v20
func device convergent @fib(i32) -> i32 {
block0(v0: i32):
    v5 = iconst.i32 2
    v6 = icmp slt v0, v5
    brif v6, block1, block2
block1:
    return v0
block2:
    barrier
    v11 = iconst.i32 1
    v12 = isub v0, v11
    v13 = call @fib(v12)
    v16 = isub v0, v5
    v17 = call @fib(v16)
    v20 = iadd v13, v17
    return v20
}
