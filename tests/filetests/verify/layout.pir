; test: verify
; error: in @no_terminator, block0, `v0 = iconst.i32 1`: the block does not end in a terminator [layout]
; error: in @mid_terminator, block0, `return`: a terminator in the middle of the block [layout]
; error: in @entry_params, block0: the entry block's parameters (i32, i32) differ from the signature's (i32, f64) [layout]
; error: in @branch_to_entry, block0, `jump block0`: branches to the entry block block0 [layout]
; Layout: every block ends in exactly one terminator, the entry block's
; parameters match the signature, and nothing branches to the entry.
func @no_terminator() {
block0:
    v0 = iconst.i32 1
}
func @mid_terminator() {
block0:
    return
    v0 = iconst.i32 1
    return
}
func @entry_params(i32, f64) {
block0(v0: i32, v1: i32):
    return
}
func @branch_to_entry() {
block0:
    jump block0
}
