func @f(i32) -> i32 {
block0(v0: i32):
    v1 = fadd v0, v0
    return v1
}
