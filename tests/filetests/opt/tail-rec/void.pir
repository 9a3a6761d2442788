; test: pass tail-rec
; A void function: `call @walk(n - 2); return` needs no accumulator; the
; store and the first call before it keep their order.
; check: declare @visit(i32)
; check: func @walk(i32) {
; nextln: block3(v6: i32):
; nextln: jump block0(v6)
; nextln: block0(v0: i32):
; nextln: v1 = iconst.i32 1
; nextln: v2 = icmp sle v0, v1
; nextln: brif v2, block1, block2
; nextln: block1:
; nextln: return
; nextln: block2:
; nextln: call @visit(v0)
; nextln: v3 = isub v0, v1
; nextln: call @walk(v3)
; nextln: v4 = iconst.i32 2
; nextln: v5 = isub v0, v4
; nextln: jump block0(v5)
; nextln: }
declare @visit(i32)
func @walk(i32) {
block0(v0: i32):
    v1 = iconst.i32 1
    v2 = icmp sle v0, v1
    brif v2, block1, block2
block1:
    return
block2:
    call @visit(v0)
    v3 = isub v0, v1
    call @walk(v3)
    v4 = iconst.i32 2
    v5 = isub v0, v4
    call @walk(v5)
    return
}
