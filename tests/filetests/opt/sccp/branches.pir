; test: pass sccp
; x = 1; if (x == 1) y = 2; else y = 3; return y * 10;
; The brif folds to a jump, the else arm is never executed and goes, the
; join's parameter is the constant 2 (materialized in the entry block) (only one executable edge brings a
; value), and the product folds to 20 in place (keeping its position).
; check: block0:
; check: v2 = iconst.i1 1
; nextln: $(two=v\d+) = iconst.i32 2
; nextln: jump block1
; check: block1:
; nextln: v3 = iconst.i32 2
; nextln: jump block3
; check: block3:
; nextln: v6 = iconst.i32 10
; nextln: v7 = iconst.i32 20 @4:12
; nextln: return v7
; not: block2
func @b() -> i32 {
block0:
    v0 = iconst.i32 1
    v1 = iconst.i32 1
    v2 = icmp eq v0, v1
    brif v2, block1, block2
block1:
    v3 = iconst.i32 2
    jump block3(v3)
block2:
    v4 = iconst.i32 3
    jump block3(v4)
block3(v5: i32):
    v6 = iconst.i32 10
    v7 = imul v5, v6 @4:12
    return v7
}
