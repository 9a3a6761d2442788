; test: pass mem2reg
; `int r; if (x < 0) r = x; else r = 7; return r;`: the join block gets a
; parameter, each arm passes the value it stored; the slot disappears.
; check: block0(v0: i32):
; not: alloca
; check: block1:
; nextln: jump block3(v0)
; check: block2:
; nextln: v4 = iconst.i32 7
; nextln: jump block3(v4)
; check: block3($(r=v\d+): i32):
; nextln: return $r
; not: load
; not: store
func @f(i32) -> i32 {
block0(v0: i32):
    v1 = alloca 4, align 4 @1:5
    v2 = iconst.i32 0
    v3 = icmp slt v0, v2
    brif v3, block1, block2
block1:
    store v0, v1
    jump block3
block2:
    v4 = iconst.i32 7
    store v4, v1
    jump block3
block3:
    v5 = load.i32 v1
    return v5
}
