; test: pass tail-rec
; fib at -O2 before inlining. The second call, whose result the return
; adds to the first's, becomes a jump back to the old entry (now the loop
; header, with an accumulator parameter started at 0 by a new entry
; block); the base case returns `acc + n`. The first call stays a call,
; on every path to the jump (so the recursion keeps its depth), and `n`
; goes down by 2 from at least 2 (so the loop ends).
; check: func @fib(i32) -> i32 {
; nextln: block3(v21: i32):
; nextln: v22 = iconst.i32 0
; nextln: jump block0(v21, v22)
; nextln: block0(v0: i32, v23: i32):
; nextln: v5 = iconst.i32 2
; nextln: v6 = icmp slt v0, v5
; nextln: brif v6, block1, block2
; nextln: block1:
; nextln: v25 = iadd v23, v0
; nextln: return v25
; nextln: block2:
; nextln: v11 = iconst.i32 1
; nextln: v12 = isub v0, v11
; nextln: v13 = call @fib(v12)
; nextln: v16 = isub v0, v5
; nextln: v24 = iadd v23, v13
; nextln: jump block0(v16, v24)
; nextln: }
func @fib(i32) -> i32 {
block0(v0: i32):
    v5 = iconst.i32 2
    v6 = icmp slt v0, v5
    brif v6, block1, block2
block1:
    return v0
block2:
    v11 = iconst.i32 1
    v12 = isub v0, v11
    v13 = call @fib(v12)
    v16 = isub v0, v5
    v17 = call @fib(v16)
    v20 = iadd v13, v17
    return v20
}
