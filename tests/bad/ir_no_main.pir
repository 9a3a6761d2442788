; bad: parir text without `main` built as an executable: the backend says
; so (the IR was read and compiled, `ld` is never called)
; parc: build -o /tmp/parc-ir-no-main
func @twice(f64) -> f64 {
block0(v0: f64):
    v1 = fadd v0, v0
    return v1
}
