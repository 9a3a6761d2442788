; test: roundtrip
; Blocks and values used before the lines that define them, numbering with
; gaps (entity numbers are kept, not compacted), a layout that is not in
; reverse postorder, and comments everywhere.
func @f(i32) -> i32 {   ; the header
block0(v0: i32):
    jump block7(v0)      ; forward block reference
block9:                  ; printed before its predecessor
    v31 = iadd.i32 v30, v12   ; forward value references need the suffix
    return v31
block7(v30: i32):
    v12 = iconst.i32 5
    jump block9
}
