; test: verify
; error: in @not_dominating, block3, `return v1`: uses v1, whose definition in block1 does not dominate this use [ssa]
; error: in @use_before_def, block0, `v1 = iadd v2, v2`: uses v2 before its definition [ssa]
; error: in @param_of_other_block, block2, `v2 = zext.i32 v1`: uses v1, whose definition in block1 does not dominate this use [ssa]
; SSA: definitions dominate uses (block parameters dominate their block).
func @not_dominating(i1) -> i32 {
block0(v0: i1):
    brif v0, block1, block2
block1:
    v1 = iconst.i32 1
    jump block3
block2:
    jump block3
block3:
    return v1
}
func @use_before_def() -> i32 {
block0:
    v1 = iadd.i32 v2, v2
    v2 = iconst.i32 1
    return v1
}
func @param_of_other_block(i1) -> i32 {
block0(v0: i1):
    brif v0, block1(v0), block2
block1(v1: i1):
    jump block2
block2:
    v2 = zext.i32 v1
    return v2
}
func @unreachable_ok() -> i32 {
block0:
    v0 = iconst.i32 0
    return v0
block1:
    ; unreachable code: only existence is checked, not dominance
    v1 = iadd v0, v0
    jump block1
}
